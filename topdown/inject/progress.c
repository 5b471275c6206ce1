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
    }
    return k;
}

void td_progress_measured(td_kernel_progress *k, int group)
{
    if (group < 0)
        k->full_measured = 1;
}

void td_progress_free(td_progress *p)
{
    for (size_t i = 0; i < p->cap; i++)
        td_choose_free(&p->items[i].choose);
    free(p->items);
    p->items = NULL;
    p->cap = 0;
}
