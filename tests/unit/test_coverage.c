/* Coverage under a spent budget (topdown/inject/group_sampler.c, as inject.c's
 * choose_group uses it), without CUPTI: a simulated run in which each
 * kernel is launched many times in a row and the budget refuses every
 * launch the choice does not owe for coverage. Every kernel must still end
 * with every counter group, and nothing more is measured: the rule that
 * regressed in --replay-mode none (td_bench --reps 50 on the H200: 0 of 10
 * full trees). A kernel a replay gave every counter owes nothing. */
#include <string.h>

#include "../check.h"
#include "topdown/inject/progress.h"

#define N_GROUPS 5
#define N_KERNELS 10
#define REPS 50

/* One launch: measured only when owed for coverage (the budget is spent). */
static int simulate_launch(td_kernel_progress *k, int *active)
{
    k->choose.covered = k->full_measured;
    td_choice c = td_choose(&k->choose, 12, N_GROUPS, *active, 0);
    if (c.measure && !c.coverage) {
        td_choose_dropped(&k->choose, 12, c.group);
        return 0; /* over budget: timed only */
    }
    if (!c.measure)
        return 0;
    *active = c.group;
    td_progress_measured(k, c.group);
    k->profiled++;
    return 1;
}

static int groups_measured(const td_kernel_progress *k)
{
    int n = 0;
    for (int g = 0; g < N_GROUPS; g++)
        n += k->choose.group_samples[g] != 0;
    return n;
}

int main(void)
{
    td_progress p;
    memset(&p, 0, sizeof p);
    int active = -1, profiled = 0;
    for (size_t i = 0; i < N_KERNELS; i++) {
        CHECK(td_progress_of(&p, i, 1) != NULL);
        for (int r = 0; r < REPS; r++) {
            td_kernel_progress *k = td_progress_of(&p, i, 1);
            if (k)
                profiled += simulate_launch(k, &active);
        }
    }
    for (size_t i = 0; i < N_KERNELS; i++)
        CHECK(groups_measured(td_progress_of(&p, i, 1)) == N_GROUPS);
    CHECK(profiled == N_KERNELS * N_GROUPS); /* and nothing more */

    /* A kernel whose replay gave the full set owes no group. */
    td_kernel_progress *replayed = td_progress_of(&p, N_KERNELS, 1);
    CHECK(replayed != NULL);
    if (replayed) {
        td_progress_measured(replayed, -1);
        CHECK(replayed->full_measured == 1);
        int taken = 0;
        for (int r = 0; r < REPS; r++)
            taken += simulate_launch(replayed, &active);
        CHECK(taken == 0 && groups_measured(replayed) == 0);
    }
    td_progress_free(&p);
    return td_check_summary();
}
