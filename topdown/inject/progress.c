#include "topdown/inject/progress.h"

#include <stdlib.h>
#include <string.h>

td_kernel_progress *td_progress_of(td_progress *p, size_t ordinal, int matches)
{
    if (ordinal >= p->cap) {
        size_t cap = p->cap ? p->cap : 64;
        while (cap <= ordinal)
            cap *= 2;
        td_kernel_progress *bigger = realloc(p->items, cap * sizeof *bigger);
        if (!bigger)
            return NULL;
        memset(bigger + p->cap, 0, (cap - p->cap) * sizeof *bigger);
        p->items = bigger;
        p->cap = cap;
    }
    td_kernel_progress *k = &p->items[ordinal];
    if (!k->seen) {
        k->seen = 1;
        k->matches = matches;
        p->version++;
    }
    return k;
}

void td_progress_measured(td_progress *p, td_kernel_progress *k, int group)
{
    if (group < 0)
        k->full_measured = 1;
    else if (group < TD_PROGRESS_MAX_GROUPS)
        k->group_measured[group]++;
    p->version++;
}

int td_progress_lacks(const td_kernel_progress *k, int group)
{
    return !k->full_measured && group >= 0 && group < TD_PROGRESS_MAX_GROUPS &&
           k->group_measured[group] == 0;
}

size_t td_progress_missing(const td_progress *p, int group)
{
    size_t missing = 0;
    for (size_t i = 0; i < p->cap; i++)
        missing += p->items[i].seen && p->items[i].matches &&
                   td_progress_lacks(&p->items[i], group);
    return missing;
}

int td_progress_coverage_group(const td_progress *p, int current, size_t n_groups)
{
    if (current < 0 || (size_t)current >= n_groups || td_progress_missing(p, current) > 0)
        return current;
    for (size_t step = 1; step < n_groups; step++) {
        int next = (int)((current + step) % n_groups);
        if (td_progress_missing(p, next) > 0)
            return next;
    }
    return current;
}

void td_progress_free(td_progress *p)
{
    for (size_t i = 0; i < p->cap; i++)
        td_choose_free(&p->items[i].choose);
    free(p->items);
    p->items = NULL;
    p->cap = 0;
    p->version = 0;
}
