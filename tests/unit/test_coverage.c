/* The replay-free rotation's coverage rule (topdown/inject/progress.c, one
 * table per context), without CUPTI: a simulated budgeted run in which
 * each kernel is launched many times in a row and a launch is profiled
 * only while its kernel lacks the phase's counter group (what the budget
 * allows once it is spent). Every kernel must end with every group: the
 * rule that regressed in --replay-mode none, where a phase only moved when
 * a profiled launch was counted, left each kernel with one group (td_bench
 * --reps 50 on the H200: 0 of 10 full trees). */
#include <string.h>

#include "../check.h"
#include "topdown/inject/progress.h"

#define N_GROUPS 5
#define N_KERNELS 10
#define REPS 50

/* One launch under the policy of inject.c's choose_config: the group is
 * chosen after the coverage check; only a launch lacking it is profiled. */
static int simulate_launch(td_progress *p, td_kernel_progress *k, int *phase)
{
    *phase = td_progress_coverage_group(p, *phase, N_GROUPS);
    if (k->group_measured[*phase] != 0)
        return 0; /* over budget: timed only */
    td_progress_measured(p, k, *phase);
    return 1;
}

static int groups_measured(const td_kernel_progress *k)
{
    int n = 0;
    for (int g = 0; g < N_GROUPS; g++)
        n += k->group_measured[g] != 0;
    return n;
}

int main(void)
{
    td_progress p;
    memset(&p, 0, sizeof p);
    int phase = 0, profiled = 0;
    for (size_t i = 0; i < N_KERNELS; i++) {
        unsigned long before = p.version;
        td_kernel_progress *k = td_progress_of(&p, i, 1);
        CHECK(k != NULL);
        if (!k)
            return td_check_summary();
        CHECK(p.version != before); /* a kernel first seen moves it */
        for (int r = 0; r < REPS; r++)
            profiled += simulate_launch(&p, td_progress_of(&p, i, 1), &phase);
    }
    for (size_t i = 0; i < N_KERNELS; i++)
        CHECK(groups_measured(td_progress_of(&p, i, 1)) == N_GROUPS);
    CHECK(profiled == N_KERNELS * N_GROUPS); /* and nothing more */
    for (int g = 0; g < N_GROUPS; g++)
        CHECK(td_progress_missing(&p, g) == 0);

    /* All covered: the phase stays where it is. */
    CHECK(td_progress_coverage_group(&p, 3, N_GROUPS) == 3);
    /* A kernel lacking only group 1 pulls a covered phase to group 1 ... */
    td_kernel_progress *late = td_progress_of(&p, N_KERNELS, 1);
    CHECK(late != NULL);
    if (!late)
        return td_check_summary();
    for (int g = 0; g < N_GROUPS; g++)
        if (g != 1)
            td_progress_measured(&p, late, g);
    CHECK(td_progress_missing(&p, 1) == 1);
    CHECK(td_progress_coverage_group(&p, 3, N_GROUPS) == 1);
    CHECK(td_progress_coverage_group(&p, 1, N_GROUPS) == 1);
    /* ... and a full-set measurement (group < 0) covers it. */
    unsigned long before = p.version;
    td_progress_measured(&p, late, -1);
    CHECK(p.version != before);
    CHECK(late->full_measured == 1);
    CHECK(td_progress_missing(&p, 1) == 0);
    CHECK(td_progress_coverage_group(&p, 3, N_GROUPS) == 3);
    /* A kernel the filter rejects never pulls the phase. */
    CHECK(td_progress_of(&p, N_KERNELS + 1, 0) != NULL);
    CHECK(td_progress_coverage_group(&p, 2, N_GROUPS) == 2);
    /* Out-of-range phases are left alone. */
    CHECK(td_progress_coverage_group(&p, -1, N_GROUPS) == -1);
    td_progress_free(&p);
    return td_check_summary();
}
