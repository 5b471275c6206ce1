#include "report/select.h"

#include "metrics/kmatch.h"
#include "report/kname.h"

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

/* No kernel matched: the error lists the heaviest names with their ranks. */
static int none_matched(const td_summary *s, const char *selector, td_name_base base,
                        td_error *err)
{
    size_t which[6], n = 0;
    for (; n < s->n_kernels && n < 6; n++)
        which[n] = n;
    char listed[700] = "";
    td_kernel_candidates(s, which, n, listed, sizeof listed);
    return td_fail(err, "-k '%s' matches none of the %zu kernel names (%s names, "
                   "--kernel-name-base); the heaviest are %s%s", selector, s->n_kernels,
                   td_name_base_word(base), listed,
                   s->n_kernels > n ? ", ... (topdown report FILE --kernels 0 lists all)" : "");
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
    td_kmatch *m = NULL;
    if (td_kmatch_compile(selector, base, &m, err))
        return -1;
    for (size_t k = 0; k < s->n_kernels; k++) {
        keep[k] = (unsigned char)td_kernel_matches(s, res, k, m);
        *n_kept += keep[k];
    }
    td_kmatch_free(m);
    return *n_kept ? 0 : none_matched(s, selector, base, err);
}
