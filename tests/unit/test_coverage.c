/* The replay-free rotation's coverage rule (topdown/inject/kernels.c),
 * without CUPTI: a simulated budgeted run in which each kernel is launched
 * many times in a row and a launch is profiled only while its kernel lacks
 * the phase's counter group (what the budget allows once it is spent).
 * Every kernel must end with every group: the rule that regressed in
 * --replay-mode none, where a phase only moved when a profiled launch was
 * counted, left each kernel with one group (td_bench --reps 50 on the H200:
 * 0 of 10 full trees). */
#include <string.h>

#include "../check.h"
#include "topdown/inject/kernels.h"

#define N_GROUPS 5
#define N_KERNELS 10
#define REPS 50

/* One launch under the policy of inject.c's choose_config: the group is
 * chosen after the coverage check; only a launch lacking it is profiled. */
static int simulate_launch(td_kernel *k, int *phase)
{
    *phase = td_kernels_coverage_group(*phase, N_GROUPS);
    if (k->group_measured[*phase] != 0)
        return 0; /* over budget: timed only */
    td_kernel_measured(k, *phase);
    return 1;
}

static int groups_measured(const td_kernel *k)
{
    int n = 0;
    for (int g = 0; g < N_GROUPS; g++)
        n += k->group_measured[g] != 0;
    return n;
}

int main(void)
{
    td_filter filter;
    memset(&filter, 0, sizeof filter);
    td_kernel *kernels[N_KERNELS];
    int phase = 0, profiled = 0;
    for (int i = 0; i < N_KERNELS; i++) {
        char name[32];
        snprintf(name, sizeof name, "_Z7kernel%dv", i);
        unsigned long before = td_kernels_version();
        kernels[i] = td_kernel_get(name, &filter);
        CHECK(kernels[i] != NULL);
        if (!kernels[i])
            return td_check_summary();
        CHECK(td_kernels_version() != before); /* a new kernel moves it */
        for (int r = 0; r < REPS; r++)
            profiled += simulate_launch(kernels[i], &phase);
    }
    for (int i = 0; i < N_KERNELS; i++)
        CHECK(groups_measured(kernels[i]) == N_GROUPS);
    CHECK(profiled == N_KERNELS * N_GROUPS); /* and nothing more */
    for (int g = 0; g < N_GROUPS; g++)
        CHECK(td_kernels_missing(g) == 0);

    /* All covered: the phase stays where it is. */
    CHECK(td_kernels_coverage_group(3, N_GROUPS) == 3);
    /* A kernel lacking only group 1 pulls a covered phase to group 1 ... */
    td_kernel *late = td_kernel_get("_Z4latev", &filter);
    CHECK(late != NULL);
    if (!late)
        return td_check_summary();
    for (int g = 0; g < N_GROUPS; g++)
        if (g != 1)
            td_kernel_measured(late, g);
    CHECK(td_kernels_missing(1) == 1);
    CHECK(td_kernels_coverage_group(3, N_GROUPS) == 1);
    CHECK(td_kernels_coverage_group(1, N_GROUPS) == 1);
    /* ... and a full-set measurement (group < 0) covers it. */
    unsigned long before = td_kernels_version();
    td_kernel_measured(late, -1);
    CHECK(td_kernels_version() != before);
    CHECK(late->full_measured == 1);
    CHECK(td_kernels_missing(1) == 0);
    CHECK(td_kernels_coverage_group(3, N_GROUPS) == 3);
    /* A kernel the filter rejects never pulls the phase. */
    td_kernel *other = td_kernel_get("_Z5otherv", &filter);
    CHECK(other != NULL);
    if (other) {
        other->matches = 0;
        CHECK(td_kernels_coverage_group(2, N_GROUPS) == 2);
    }
    /* Out-of-range phases are left alone. */
    CHECK(td_kernels_coverage_group(-1, N_GROUPS) == -1);
    return td_check_summary();
}
