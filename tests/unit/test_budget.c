/* The cost budget (topdown/inject/budget.c) with the choice of launches
 * (choose.c) against a simulated GPU: the host queues launches (5 us
 * each, up to a queue of 1,024), the GPU runs them in order, and a sample
 * drains the queue, costs its profiling time, and waits for its launch.
 * A short GPU-bound run of one kernel (1,000 launches of 0.28 ms, as
 * td_phases2 on the H100) must get samples in every fifth of the run,
 * within the budget; the host's clock alone (inject.c before the GPU time
 * was counted) leaves its last third unsampled, as measured on the H100. */
#include <string.h>

#include "../check.h"
#include "topdown/inject/budget.h"
#include "topdown/inject/choose.h"
#include "sim_queue.h"

enum { LAUNCHES = 1000, QUEUE = 1024, GROUPS = 5 };
#define KERNEL_S 0.28e-3
#define QUEUE_S 5e-6
#define SAMPLE_S 1.3e-3 /* a sample in an open session (H100) */
#define MOVE_S 12e-3    /* moving to another group's pass */
#define OVERHEAD 0.4
#define APP_START_S 0.2 /* the app's and CUDA's start before its first launch */

typedef struct run {
    sim_queue q;
    double finish[LAUNCHES];
    size_t samples, late; /* samples, and those in the last third */
    size_t per_fifth[5];  /* samples in each fifth of the run */
} run;

static void start_run(run *r)
{
    memset(r, 0, sizeof *r);
    r->q = (sim_queue){.host_s = APP_START_S, .gpu_free = APP_START_S, .finish = r->finish,
                       .depth = QUEUE, .queue_s = QUEUE_S};
}

/* One run; gpu_clock: the budget also counts the launches' GPU time. */
static double simulate(int gpu_clock, run *r)
{
    start_run(r);
    td_budget b = {.overhead = OVERHEAD};
    td_choose_kernel k;
    memset(&k, 0, sizeof k);
    k.covered = 1; /* replayed first, as in auto mode */
    int active = -1, known = 0;
    for (size_t i = 0; i < LAUNCHES; i++) {
        td_choice c = td_choose(&k, 10, GROUPS, active, 0);
        if (c.measure && !td_budget_allows(&b, r->q.host_s)) {
            td_choose_dropped(&k, 10, c.group);
            c.measure = 0;
        }
        if (gpu_clock)
            td_budget_launched(&b, r->q.host_s, known ? KERNEL_S : 0);
        if (!c.measure) {
            sim_queue_launch(&r->q, i, KERNEL_S);
            continue;
        }
        double cost = SAMPLE_S + (c.group != active ? MOVE_S : 0);
        b.spent_s += cost;
        sim_queue_sample(&r->q, i, KERNEL_S, cost);
        active = c.group;
        known = 1;
        r->samples++;
        r->late += i >= 2 * LAUNCHES / 3;
        r->per_fifth[i * 5 / LAUNCHES]++;
    }
    sim_queue_wait(&r->q, r->q.gpu_free); /* the app's final synchronisation */
    td_choose_free(&k);
    return r->q.host_s;
}

/* Two kernels, as td_manykernels' nbody_forces among short kernels: a
 * light one (5 us) launched nine times for every launch of a heavy one
 * (2 ms, 90% of the GPU time), each with its own choice state, charged
 * its own samples (td_budget_kernel_allows). The heavy kernel must get
 * samples in every third of its run, and the light one spend no more than
 * its share of the allowance and a sample; against the whole allowance
 * alone (as inject.c before the shares), the light kernel takes most. */
static void check_shares(int shares)
{
    enum { STEPS = 3000 };
    static double finish[STEPS];
    sim_queue q = {.host_s = APP_START_S, .gpu_free = APP_START_S, .finish = finish,
                   .depth = QUEUE, .queue_s = QUEUE_S};
    td_budget b = {.overhead = OVERHEAD};
    td_choose_kernel k[2];
    memset(k, 0, sizeof k);
    k[0].covered = k[1].covered = 1;
    double spent[2] = {0, 0}, gpu[2] = {0, 0};
    size_t thirds[2][3] = {{0}}, samples[2] = {0, 0};
    int active = -1;
    for (size_t i = 0; i < STEPS; i++) {
        int heavy = i % 10 == 9;
        double run_s = heavy ? 2e-3 : 5e-6;
        td_choice c = td_choose(&k[heavy], 10, GROUPS, active, 0);
        int ok = c.measure && (shares ? td_budget_kernel_allows(&b, q.host_s, spent[heavy],
                                                                gpu[heavy])
                                      : td_budget_allows(&b, q.host_s));
        if (c.measure && !ok)
            td_choose_dropped(&k[heavy], 10, c.group);
        gpu[heavy] += i >= 10 ? run_s : 0; /* known after each kernel's first launch */
        td_budget_launched(&b, q.host_s, i >= 10 ? run_s : 0);
        if (!ok) {
            sim_queue_launch(&q, i, run_s);
            continue;
        }
        double cost = SAMPLE_S + (c.group != active ? MOVE_S : 0);
        b.spent_s += cost;
        b.samples++;
        spent[heavy] += cost;
        sim_queue_sample(&q, i, run_s, cost);
        active = c.group;
        samples[heavy]++;
        thirds[heavy][i * 3 / STEPS]++;
    }
    double allowance = td_budget_allowance(&b, q.host_s);
    printf("two kernels, %s: heavy %zu samples (thirds %zu %zu %zu), light %zu; light spent "
           "%.3f s of an allowance of %.3f s\n", shares ? "each its share" : "the whole budget",
           samples[1], thirds[1][0], thirds[1][1], thirds[1][2], samples[0], spent[0], allowance);
    if (shares) {
        for (int t = 0; t < 3; t++)
            CHECK(thirds[1][t] >= 3);
        CHECK(spent[0] <= 0.1 * allowance + SAMPLE_S + MOVE_S + TD_BUDGET_SAMPLE_S);
        CHECK(samples[1] > samples[0]);
    } else {
        CHECK(samples[0] > samples[1]); /* what the shares are for */
    }
    td_choose_free(&k[0]);
    td_choose_free(&k[1]);
}

int main(void)
{
    static run native, host, gpu;
    start_run(&native);
    for (size_t i = 0; i < LAUNCHES; i++)
        sim_queue_launch(&native.q, i, KERNEL_S);
    sim_queue_wait(&native.q, native.q.gpu_free);
    double host_s = simulate(0, &host), gpu_s = simulate(1, &gpu);
    check_shares(0);
    check_shares(1);
    printf("native %.3f s; host clock: %.3f s, %zu samples, %zu in the last third; "
           "with GPU time: %.3f s, %zu samples, %zu in the last third\n",
           native.q.host_s, host_s, host.samples, host.late, gpu_s, gpu.samples, gpu.late);
    CHECK(host.late == 0);                      /* the failure measured on the H100 */
    printf("samples per fifth of the run, with GPU time: %zu %zu %zu %zu %zu\n", gpu.per_fifth[0],
           gpu.per_fifth[1], gpu.per_fifth[2], gpu.per_fifth[3], gpu.per_fifth[4]);
    /* paced by the budget: the app's start pays at most TD_BUDGET_START_PACE
     * times as fast as the launches, so it is not all spent at once, and
     * none of the run is left out */
    for (int f = 0; f < 5; f++)
        CHECK(gpu.per_fifth[f] >= 2 && gpu.per_fifth[f] * 3 <= gpu.samples * 2);
    CHECK(gpu_s <= native.q.host_s * (1 + OVERHEAD) * 1.1);   /* within the budget */
    /* Tracing (our launch callbacks for launches not sampled) is not the
     * app's own time: with half the host time in them, the app's time is
     * the other half, and the allowance follows it. */
    td_budget traced = {.overhead = OVERHEAD, .traced_s = 0.5};
    double traced_native = td_budget_native(&traced, 1.0);
    CHECK(traced_native > 0.5 - 1e-12 && traced_native < 0.5 + 1e-12);
    CHECK(td_budget_allowance(&traced, 1.0) < OVERHEAD * 0.5 + 1e-12);
    traced.traced_s = 0;
    CHECK(td_budget_native(&traced, 1.0) > 1.0 - 1e-12);
    /* Shares: a kernel of 10% of the GPU time may spend 10% of the
     * allowance and one sample, a sample of the mean cost paid first. */
    td_budget shared = {.overhead = OVERHEAD};
    td_budget_launched(&shared, 1.0, 0);
    td_budget_launched(&shared, 1.0, 1.0); /* 1 s of GPU time queued */
    double allowance = td_budget_allowance(&shared, 1.0);
    CHECK(allowance > 0.3);
    shared.spent_s = 0.5 * allowance;
    CHECK(td_budget_kernel_allows(&shared, 1.0, 0.1 * allowance, 0.1));
    shared.samples = 10; /* a sample costs 5% of the allowance */
    CHECK(!td_budget_kernel_allows(&shared, 1.0, 0.1 * allowance, 0.1));
    CHECK(td_budget_kernel_allows(&shared, 1.0, 0.05 * allowance, 0.1));
    CHECK(td_budget_kernel_allows(&shared, 1.0, 0.8 * allowance, 0.9));
    CHECK(!td_budget_kernel_allows(&shared, 1.0, 0.9 * allowance, 0.9));
    CHECK(!td_budget_kernel_allows(&shared, 1.0, 0, 0.001)); /* < 1%: no slack */
    CHECK(td_budget_kernel_allows(&shared, 1.0, 1.0, 0)); /* its time not known yet */
    shared.spent_s = 1.1 * allowance;
    CHECK(!td_budget_kernel_allows(&shared, 1.0, 0, 0)); /* nor then past the budget */
    /* no budget: every sample allowed */
    td_budget none = {0};
    none.spent_s = 1e9;
    CHECK(td_budget_allows(&none, 0));
    return td_check_summary();
}
