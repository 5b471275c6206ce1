#include "topdown/inject/nvtx_filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- region names --------------------------------------------------------- */

typedef struct text_out {
    char *at;
    size_t left;
} text_out;

static void put(text_out *o, const char *s)
{
    size_t len = strlen(s);
    if (o->left <= 1)
        return;
    size_t n = len < o->left - 1 ? len : o->left - 1;
    memcpy(o->at, s, n);
    o->at += n;
    o->left -= n;
    *o->at = '\0';
}

static int is_default(const char *domain)
{
    return !domain || !domain[0];
}

static void put_domain(text_out *o, const char *domain)
{
    if (is_default(domain))
        return;
    put(o, domain);
    put(o, "@");
}

void td_nvtx_region_name(const td_nvtx_state *state, char *out, size_t size)
{
    text_out o = {out, size};
    if (size)
        out[0] = '\0';
    int any = 0;
    for (size_t d = 0; state && d < state->n; d++) {
        const td_nvtx_domain_state *ds = &state->domains[d];
        if (ds->n_push == 0)
            continue;
        put(&o, any++ ? " " : "");
        put_domain(&o, ds->domain);
        for (size_t i = 0; i < ds->n_push; i++) {
            put(&o, i ? "/" : "");
            put(&o, ds->push[i] ? ds->push[i] : "?");
        }
    }
    for (size_t d = 0; state && d < state->n; d++) {
        const td_nvtx_domain_state *ds = &state->domains[d];
        for (size_t i = 0; i < ds->n_started; i++) {
            put(&o, any++ ? " (" : "(");
            put_domain(&o, ds->domain);
            put(&o, ds->started[i] ? ds->started[i] : "?");
            put(&o, ")");
        }
    }
}

/* ---- parsing --------------------------------------------------------------- */

static int is_star(const char *element)
{
    return strcmp(element, "*") == 0;
}

static void rule_free(td_nvtx_rule *r)
{
    free(r->domain);
    for (size_t i = 0; i < r->n_elements; i++)
        free(r->element[i]);
    memset(r, 0, sizeof *r);
}

/* The next unescaped occurrence of c in s[from, to), or to. */
static size_t find_unescaped(const char *s, size_t from, size_t to, char c)
{
    for (size_t i = from; i < to; i++) {
        if (s[i] == '\\' && i + 1 < to)
            i++;
        else if (s[i] == c)
            return i;
    }
    return to;
}

/* s[from, to) with its escapes removed (malloc'd). */
static char *unescape(const char *s, size_t from, size_t to)
{
    char *out = malloc(to - from + 1), *w = out;
    for (size_t i = from; out && i < to; i++) {
        if (s[i] == '\\' && i + 1 < to)
            i++;
        *w++ = s[i];
    }
    if (out)
        *w = '\0';
    return out;
}

static int bad_spec(td_error *err, const char *spec, const char *why)
{
    return td_fail(err, "NVTX filter '%s': %s (syntax: NAME, DOMAIN@NAME, A/, A/B/, "
                   "A/*/B, [A/, B], DOMAIN@A/; '\\' escapes a character)", spec, why);
}

/* The range names of a push/pop path s[from, to), split at unescaped '/'. */
static int parse_path(td_nvtx_rule *r, const char *spec, size_t from, size_t to, td_error *err)
{
    if (from < to && spec[from] == '[') {
        r->bottom = 1;
        from++;
    }
    /* A ']' ends the path, before or after a last '/'. */
    if (to > from && spec[to - 1] == '/' && (to - 1 == from || spec[to - 2] != '\\'))
        to--;
    if (to > from && spec[to - 1] == ']' && (to - 1 == from || spec[to - 2] != '\\')) {
        r->top = 1;
        to--;
    }
    int named = 0;
    while (from <= to) {
        size_t end = find_unescaped(spec, from, to, '/');
        if (end == from)
            return bad_spec(err, spec, "a range name is empty");
        if (r->n_elements == TD_NVTX_MAX_ELEMENTS)
            return bad_spec(err, spec, "more than 16 ranges in one path");
        char *name = unescape(spec, from, end);
        if (!name)
            return td_fail(err, "out of memory");
        named |= !is_star(name);
        r->element[r->n_elements++] = name;
        from = end + 1;
    }
    if (!named)
        return bad_spec(err, spec, "the path names no range, only '*'");
    return 0;
}

static int parse_rule(td_nvtx_rule *r, const char *spec, td_error *err)
{
    size_t len = strlen(spec);
    if (len == 0)
        return bad_spec(err, spec, "it is empty");
    size_t at = find_unescaped(spec, 0, len, '@');
    size_t from = 0;
    if (at < len) {
        if (at == 0)
            return bad_spec(err, spec, "the domain before '@' is empty");
        if (find_unescaped(spec, at + 1, len, '@') < len)
            return bad_spec(err, spec, "it has two '@' (escape one as \\@)");
        if (!(r->domain = unescape(spec, 0, at)))
            return td_fail(err, "out of memory");
        from = at + 1;
    }
    if (from == len)
        return bad_spec(err, spec, "no range name after '@'");
    int path = find_unescaped(spec, from, len, '/') < len || spec[from] == '[' ||
               (spec[len - 1] == ']' && (len - 1 == from || spec[len - 2] != '\\'));
    r->push_pop = path;
    if (path)
        return parse_path(r, spec, from, len, err);
    r->element[0] = unescape(spec, from, len);
    if (!r->element[0])
        return td_fail(err, "out of memory");
    r->n_elements = 1;
    return 0;
}

int td_nvtx_filter_add(td_nvtx_filter *f, const char *spec, int exclude, td_error *err)
{
    size_t *n = exclude ? &f->n_exclude : &f->n_include;
    td_nvtx_rule *rules = exclude ? f->exclude : f->include;
    if (*n == TD_NVTX_MAX_RULES)
        return td_fail(err, "more than %d --nvtx-%s options", TD_NVTX_MAX_RULES,
                       exclude ? "exclude" : "include");
    td_nvtx_rule *r = &rules[*n];
    memset(r, 0, sizeof *r);
    if (parse_rule(r, spec ? spec : "", err)) {
        rule_free(r);
        return -1;
    }
    (*n)++;
    return 0;
}

int td_nvtx_filter_add_list(td_nvtx_filter *f, const char *list, int exclude, td_error *err)
{
    if (!list)
        return 0;
    const char *s = list;
    while (*s) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char *spec = malloc(len + 1);
        if (!spec)
            return td_fail(err, "out of memory");
        memcpy(spec, s, len);
        spec[len] = '\0';
        int rc = td_nvtx_filter_add(f, spec, exclude, err);
        free(spec);
        if (rc)
            return -1;
        s += len + (end != NULL);
    }
    return 0;
}

int td_nvtx_filter_active(const td_nvtx_filter *f)
{
    return f->n_include || f->n_exclude;
}

void td_nvtx_filter_free(td_nvtx_filter *f)
{
    for (size_t i = 0; i < f->n_include; i++)
        rule_free(&f->include[i]);
    for (size_t i = 0; i < f->n_exclude; i++)
        rule_free(&f->exclude[i]);
    f->n_include = f->n_exclude = 0;
}

/* ---- matching -------------------------------------------------------------- */

static int same_domain(const char *a, const char *b)
{
    if (is_default(a) || is_default(b))
        return is_default(a) && is_default(b);
    return strcmp(a, b) == 0;
}

/* Elements p[0, np) against stack names s[0, ns) exactly: '*' takes any
 * number of names (stacks are short: plain recursion). */
static int glob_match(char *const *p, size_t np, const char *const *s, size_t ns)
{
    if (np == 0)
        return ns == 0;
    if (is_star(p[0])) {
        for (size_t k = 0; k <= ns; k++)
            if (glob_match(p + 1, np - 1, s + k, ns - k))
                return 1;
        return 0;
    }
    return ns > 0 && s[0] && strcmp(p[0], s[0]) == 0 && glob_match(p + 1, np - 1, s + 1, ns - 1);
}

/* The path within a window of the stack: from its bottom with '[', to its
 * top with ']', anywhere otherwise. */
static int path_matches(const td_nvtx_rule *r, const td_nvtx_domain_state *ds)
{
    size_t n = ds->n_push;
    for (size_t from = 0; from <= n; from++) {
        if (r->bottom && from > 0)
            break;
        for (size_t to = from; to <= n; to++) {
            if (r->top && to < n)
                continue;
            if (glob_match(r->element, r->n_elements, ds->push + from, to - from))
                return 1;
        }
    }
    return 0;
}

static int started_matches(const td_nvtx_rule *r, const td_nvtx_domain_state *ds)
{
    for (size_t i = 0; i < ds->n_started; i++)
        if (ds->started[i] && (is_star(r->element[0]) || strcmp(ds->started[i], r->element[0]) == 0))
            return 1;
    return 0;
}

int td_nvtx_rule_matches(const td_nvtx_rule *r, const td_nvtx_state *state)
{
    for (size_t d = 0; state && d < state->n; d++) {
        const td_nvtx_domain_state *ds = &state->domains[d];
        if (!same_domain(r->domain, ds->domain))
            continue;
        if (r->push_pop ? path_matches(r, ds) : started_matches(r, ds))
            return 1;
    }
    return 0;
}

int td_nvtx_filter_allows(const td_nvtx_filter *f, const td_nvtx_state *state)
{
    for (size_t i = 0; i < f->n_exclude; i++)
        if (td_nvtx_rule_matches(&f->exclude[i], state))
            return 0;
    if (f->n_include == 0)
        return 1;
    for (size_t i = 0; i < f->n_include; i++)
        if (td_nvtx_rule_matches(&f->include[i], state))
            return 1;
    return 0;
}
