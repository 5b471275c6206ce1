#include "report/select.h"

#include "metrics/kmatch.h"
#include "report/kname.h"
#include "report/wrap.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOWN_CHARS 64   /* of each candidate's name */
#define CONTEXT_CHARS 12 /* shown before the first difference */

int td_kernel_rank(const td_summary *s, const char *selector, size_t *index, td_error *err)
{
    if (selector[0] != '#' || !isdigit((unsigned char)selector[1]))
        return 0;
    char *end = NULL;
    errno = 0;
    unsigned long rank = strtoul(selector + 1, &end, 10);
    if (errno || *end)
        return 0;
    if (rank < 1 || rank > s->n_kernels)
        return td_fail(err, "kernel %s: the result has %zu kernel%s (#1 to #%zu, heaviest "
                       "first, as the report numbers them)", selector, s->n_kernels,
                       s->n_kernels == 1 ? "" : "s", s->n_kernels);
    *index = rank - 1;
    return 1;
}

static size_t shared_prefix(const char *a, const char *b)
{
    size_t n = 0;
    while (a[n] && a[n] == b[n])
        n++;
    return n;
}

/* Where a candidate's name stops being the same as the most alike other
 * candidate's: where it must be shown from to tell it apart. */
static size_t differs_at(const td_summary *s, const size_t *which, size_t n, size_t i)
{
    size_t most = 0;
    for (size_t j = 0; j < n; j++) {
        size_t p = j == i ? 0 : shared_prefix(s->kernels[which[i]].name, s->kernels[which[j]].name);
        most = p > most ? p : most;
    }
    return most;
}

void td_kernel_candidates(const td_summary *s, const size_t *which, size_t n, char *buf,
                          size_t size)
{
    for (size_t i = 0; i < n; i++) {
        const char *name = s->kernels[which[i]].name;
        size_t at = differs_at(s, which, n, i);
        size_t from = at > CONTEXT_CHARS ? at - CONTEXT_CHARS : 0;
        size_t len = strlen(buf), rest = strlen(name + from);
        if (len + 8 >= size)
            return;
        snprintf(buf + len, size - len, "%s#%zu \"%s%.*s%s\"", len ? ", " : "", which[i] + 1,
                 from ? "..." : "", SHOWN_CHARS, name + from, rest > SHOWN_CHARS ? "..." : "");
    }
}

/* The labels of every kernel of s under base (td_kernel_labels_wide). */
static char **summary_labels_wide(const td_summary *s, const td_result *res, td_name_base base,
                                  int wide, td_error *err)
{
    const char **names = malloc((s->n_kernels ? s->n_kernels : 1) * sizeof *names);
    if (!names) {
        td_fail(err, "out of memory");
        return NULL;
    }
    for (size_t k = 0; k < s->n_kernels; k++)
        names[k] = s->kernels[k].name;
    char **labels = NULL;
    int rc = td_kernel_labels_wide(names, s->n_kernels, base, res, wide, &labels, err);
    free(names);
    return rc ? NULL : labels;
}

static char **summary_labels(const td_summary *s, const td_result *res, td_name_base base,
                             td_error *err)
{
    return summary_labels_wide(s, res, base, 0, err);
}

void td_kernel_shown(const char *label, size_t k, size_t n_kernels, char *out, size_t size)
{
    char title[64], rank[32];
    int n = snprintf(title, sizeof title, "Kernel %zu/%zu: ", k + 1, n_kernels);
    int r = snprintf(rank, sizeof rank, " #%zu", k + 1);
    size_t room = (size_t)(TD_TEXT_WIDTH - n);
    if (strlen(label) <= room) {
        snprintf(out, size, "%s", label);
        return;
    }
    /* names alike at both ends elide alike: the rank keeps them apart */
    td_elide_middle(label, room - (size_t)r, out, size);
    size_t len = strlen(out);
    snprintf(out + len, size - len, "%s", rank);
}

/* Kernels whose name, or label under some base (--wide's too), selector
 * is: exactly (elided 0), or with "..." for any characters (elided 1). */
static int names_match(const td_summary *s, const td_result *res, const char *selector,
                       int elided, unsigned char *keep, size_t *n_kept, td_error *err)
{
    static const td_name_base bases[] = {TD_NAME_FUNCTION, TD_NAME_DEMANGLED, TD_NAME_MANGLED,
                                         TD_NAME_FUNCTION};
    char shown[TD_TEXT_WIDTH + 1];
    for (size_t b = 0; b < sizeof bases / sizeof *bases; b++) {
        int wide = b == sizeof bases / sizeof *bases - 1;
        char **labels = summary_labels_wide(s, res, bases[b], wide, err);
        if (!labels)
            return -1;
        for (size_t k = 0; k < s->n_kernels; k++) {
            td_kernel_shown(labels[k], k, s->n_kernels, shown, sizeof shown);
            int hit = elided ? td_elided_match(selector, labels[k])
                             : strcmp(selector, labels[k]) == 0 ||
                                   strcmp(selector, shown) == 0 ||
                                   strcmp(selector, s->kernels[k].name) == 0;
            if (hit && !keep[k]) {
                keep[k] = 1;
                (*n_kept)++;
            }
        }
        td_kernel_labels_free(labels, s->n_kernels);
    }
    return 0;
}

int td_kernel_by_name(const td_summary *s, const td_result *res, const char *selector,
                      unsigned char *keep, size_t *n_kept, td_error *err)
{
    memset(keep, 0, s->n_kernels);
    *n_kept = 0;
    if (names_match(s, res, selector, 0, keep, n_kept, err))
        return -1;
    if (*n_kept == 0 && strstr(selector, "..."))
        return names_match(s, res, selector, 1, keep, n_kept, err);
    return 0;
}

#define LISTED_LABEL 40 /* characters of each label a no-match error lists */

int td_kernel_no_match(const td_summary *s, const td_result *res, const char *selector,
                       td_name_base base, td_error *err)
{
    char **labels = summary_labels(s, res, base, err);
    if (!labels)
        return -1;
    char listed[600] = "", shown[LISTED_LABEL + 1];
    size_t n = 0;
    for (; n < s->n_kernels && n < 5; n++) {
        size_t len = strlen(listed);
        td_elide_middle(labels[n], LISTED_LABEL, shown, sizeof shown);
        snprintf(listed + len, sizeof listed - len, "%s#%zu %s", n ? ", " : "", n + 1, shown);
    }
    td_kernel_labels_free(labels, s->n_kernels);
    return td_fail(err, "no kernel matches '%s' (of %zu; a pattern on the %s names of "
                   "--kernel-name-base, a whole name, or #N); the heaviest: %s%s", selector,
                   s->n_kernels, td_name_base_word(base), listed,
                   s->n_kernels > n ? ", ... (--kernels 0 lists all)" : "");
}

int td_kernel_matches(const td_summary *s, const td_result *res, size_t k,
                      const td_kmatch *m)
{
    const char *name = s->kernels[k].name;
    const char *mangled = td_kmatch_base(m) == TD_NAME_MANGLED ? td_kernel_mangled(res, name)
                                                                : NULL;
    return td_kmatch_test(m, name, mangled);
}

int td_kernel_select(const td_summary *s, const td_result *res, const char *selector,
                     td_name_base base, unsigned char *keep, size_t *n_kept, td_error *err)
{
    memset(keep, 0, s->n_kernels);
    *n_kept = 0;
    size_t index = 0;
    int ranked = td_kernel_rank(s, selector, &index, err);
    if (ranked < 0)
        return -1;
    if (ranked) {
        keep[index] = 1;
        *n_kept = 1;
        return 0;
    }
    /* a whole name, and what the pattern matches (a whole name that is
     * no regex: that name alone) */
    if (td_kernel_by_name(s, res, selector, keep, n_kept, err))
        return -1;
    td_kmatch *m = NULL;
    if (td_kmatch_compile(selector, base, &m, err))
        return *n_kept ? 0 : -1;
    for (size_t k = 0; k < s->n_kernels; k++)
        if (!keep[k] && td_kernel_matches(s, res, k, m)) {
            keep[k] = 1;
            (*n_kept)++;
        }
    td_kmatch_free(m);
    return *n_kept ? 0 : td_kernel_no_match(s, res, selector, base, err);
}
