#include "levels/launch_weights.h"

#include <stdlib.h>
#include <string.h>

#include "levels/durations.h"

int td_launch_opens_session(const td_launch *l, int last_group)
{
    return l->profiled && l->group != TD_GROUP_ALL && l->group != last_group;
}

/* Launches alike: the same kernel, grid and block. */
static int like_cmp(const td_launch *a, const td_launch *b)
{
    int by_name = strcmp(a->kernel, b->kernel);
    if (by_name)
        return by_name;
    int by_grid = memcmp(a->grid, b->grid, sizeof a->grid);
    return by_grid ? by_grid : memcmp(a->block, b->block, sizeof a->block);
}

/* A launch and its place, sorted by likeness, then place. */
typedef struct placed {
    const td_launch *l;
    size_t at;
} placed;

static int by_likeness(const void *x, const void *y)
{
    const placed *a = x, *b = y;
    int c = like_cmp(a->l, b->l);
    return c ? c : (a->at > b->at) - (a->at < b->at);
}

/* A duration that speaks for its like launches: recorded, neither a
 * session's first range nor a replay (which holds its passes' time). */
static int plain(const td_launch *l, int opens)
{
    return !opens && l->duration_ns > 0 && !(l->profiled && l->group == TD_GROUP_ALL);
}

/* The session openers among like launches order[first..end) that
 * outlast every plain one, weighed by the plain ones' median (scratch:
 * room for them). One within their range keeps its own: a kernel's like
 * launches can differ a thousandfold in work (td_bfs's frontier). */
static void weigh_openers(const placed *order, size_t first, size_t end,
                          const unsigned char *opens, double *scratch, double *weight_ns)
{
    size_t n_plain = 0, n_open = 0;
    double longest = 0;
    for (size_t i = first; i < end; i++) {
        const td_launch *l = order[i].l;
        n_open += opens[order[i].at];
        if (plain(l, opens[order[i].at])) {
            scratch[n_plain++] = l->duration_ns;
            longest = l->duration_ns > longest ? l->duration_ns : longest;
        }
    }
    if (!n_open || !n_plain)
        return;
    td_duration_stats stats;
    td_duration_stats_of(scratch, n_plain, &stats);
    for (size_t i = first; i < end; i++) {
        const td_launch *l = order[i].l;
        if (opens[order[i].at] && l->duration_ns > longest)
            weight_ns[order[i].at] = stats.median_ns;
    }
}

void td_launch_openers(const td_launch *launches, size_t n, unsigned char *opens)
{
    int last_group = TD_LAUNCH_NO_GROUP;
    for (size_t i = 0; i < n; i++) {
        opens[i] = (unsigned char)td_launch_opens_session(&launches[i], last_group);
        if (launches[i].profiled)
            last_group = launches[i].group;
    }
}

int td_launch_weights(const td_launch *launches, size_t n, const unsigned char *opens,
                      double *weight_ns, td_error *err)
{
    placed *order = malloc((n ? n : 1) * sizeof *order);
    double *scratch = malloc((n ? n : 1) * sizeof *scratch);
    if (!order || !scratch) {
        free(order);
        free(scratch);
        return td_fail(err, "out of memory");
    }
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        const td_launch *l = &launches[i];
        weight_ns[i] = l->duration_ns > 0 ? l->duration_ns : 0;
        any |= opens[i];
        order[i] = (placed){l, i};
    }
    if (any) {
        qsort(order, n, sizeof *order, by_likeness);
        for (size_t first = 0, end; first < n; first = end) {
            for (end = first + 1; end < n && like_cmp(order[first].l, order[end].l) == 0; end++)
                ;
            weigh_openers(order, first, end, opens, scratch, weight_ns);
        }
    }
    free(order);
    free(scratch);
    return 0;
}
