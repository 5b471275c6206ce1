#include "levels/cold_ranges.h"

#include <stdlib.h>
#include <string.h>

/* A launch's kernel and place, sorted by kernel, then place. */
typedef struct placed {
    const char *kernel;
    size_t at;
} placed;

static int by_kernel(const void *x, const void *y)
{
    const placed *a = x, *b = y;
    int c = strcmp(a->kernel, b->kernel);
    return c ? c : (a->at > b->at) - (a->at < b->at);
}

static int group_range(const td_launch *l)
{
    return l->profiled && l->group != TD_GROUP_ALL;
}

/* first[i]: 1 where launch i is its kernel's first group range. */
static int first_group_ranges(const td_launch *launches, size_t n, unsigned char *first,
                              td_error *err)
{
    placed *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return td_fail(err, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (group_range(&launches[i]))
            order[m++] = (placed){launches[i].kernel, i};
    qsort(order, m, sizeof *order, by_kernel);
    for (size_t j = 0; j < m; j++)
        first[order[j].at] = j == 0 || strcmp(order[j].kernel, order[j - 1].kernel) != 0;
    free(order);
    return 0;
}

int td_cold_ranges(const td_launch *launches, size_t n, unsigned char *cold, td_error *err)
{
    memset(cold, 0, n);
    if (first_group_ranges(launches, n, cold, err))
        return -1;
    size_t since_replay = 0; /* group ranges since the last replay; 0: none yet */
    int replayed = 0;
    for (size_t i = 0; i < n; i++) {
        const td_launch *l = &launches[i];
        if (l->profiled && l->group == TD_GROUP_ALL) {
            replayed = 1;
            since_replay = 0;
            continue;
        }
        int first = cold[i];
        cold[i] = 0;
        if (!group_range(l) || !replayed)
            continue;
        since_replay++;
        cold[i] = since_replay == 1 || (first && since_replay <= TD_COLD_AFTER_REPLAY);
    }
    return 0;
}
