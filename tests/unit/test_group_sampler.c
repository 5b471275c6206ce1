/* What the choice of counter groups (topdown/inject/group_sampler.c) costs the
 * rotation, on simulated launch streams: the counter groups are the passes
 * of one configuration, measured in order, so a move from the configured
 * group to one d passes ahead ends d sessions (a Stop and a Start each,
 * 5-13 ms on the H100, with a pad range for each pass skipped), where a
 * sample in the open session costs about 1 ms. Measured on the H100
 * (TOPDOWN_DEBUG, 2026-11-26): PyTorch in none mode spent 265 sessions on
 * 1,181 samples, 149 of them passed through (a pad range each) on the way
 * back to a group behind the configured one; td_tiny 35 on 195. With
 * forward moves and deferral: 160 sessions on 1,347 samples, 56 pads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "metrics/xorshift.h"
#include "metrics/result/result.h" /* TD_EST_NATURAL_MIN */
#include "topdown/inject/group_sampler.h"

#define GROUPS 5

typedef struct rotation_cost {
    size_t samples, sessions, coverage_samples, coverage_sessions;
} rotation_cost;

/* Sessions a move from active to group ends: the passes between them, in
 * the rotation's order. */
static size_t sessions_to(int active, int group)
{
    if (active < 0)
        return 1;
    return (size_t)((group - active + GROUPS) % GROUPS);
}

/* kernels launched in turn, once each per step, each in two size classes
 * (odd steps launch it larger); the choice as none mode makes it, with a
 * budget that refuses refused_pct% of the samples chosen (coverage aside),
 * each refusal undone (td_choose_dropped) as the collector does. */
static rotation_cost run_steps(size_t n_kernels, size_t steps, unsigned refused_pct)
{
    uint32_t rng = 12345;
    td_choose_kernel kernels[64];
    memset(kernels, 0, sizeof kernels);
    rotation_cost cost = {0};
    int active = -1;
    for (size_t s = 0; s < steps; s++)
        for (size_t k = 0; k < n_kernels; k++) {
            unsigned size_class = 10 + (unsigned)(k % 7) + (unsigned)(s % 2);
            td_choice ch = td_choose(&kernels[k], size_class, GROUPS, active, 0);
            if (!ch.measure)
                continue;
            if (!ch.coverage && td_xorshift32(&rng) % 100 < refused_pct) {
                td_choose_dropped(&kernels[k], size_class, ch.group);
                continue;
            }
            size_t moved = ch.group == active ? 0 : sessions_to(active, ch.group);
            cost.samples++;
            cost.sessions += moved;
            cost.coverage_samples += (size_t)ch.coverage;
            cost.coverage_sessions += ch.coverage ? moved : 0;
            active = ch.group;
        }
    for (size_t k = 0; k < n_kernels; k++) {
        for (int g = 0; g < GROUPS; g++)
            CHECK(kernels[k].group_samples[g] > 0);
        td_choose_free(&kernels[k]);
    }
    return cost;
}

/* 46 kernels a step, 500 steps: PyTorch's training loop in none mode. */
static void check_interleaved_kernels(unsigned refused_pct)
{
    rotation_cost c = run_steps(46, 500, refused_pct);
    printf("46 kernels x 500 steps, %u%% refused: %zu samples, %zu sessions (coverage: %zu "
           "samples, %zu sessions)\n", refused_pct, c.samples, c.sessions, c.coverage_samples,
           c.coverage_sessions);
    CHECK(c.coverage_samples == 46 * GROUPS);
    /* Coverage: the kernels of a step share each group's session. */
    CHECK(c.coverage_sessions <= 2 * GROUPS);
    /* Before moves went forward only and waited for other kernels: 59
     * sessions (0% refused) and 501 (90%), against 29 and 58. */
    CHECK(c.sessions * 16 <= c.samples);
}

/* One kernel, 100,000 launches: td_tiny. */
static void check_one_kernel(void)
{
    rotation_cost c = run_steps(1, 100000, 0);
    printf("1 kernel x 100000 launches: %zu samples, %zu sessions\n", c.samples, c.sessions);
    /* 158 sessions before, 82 now: a kernel alone has no one to wait for,
     * only back moves saved */
    CHECK(c.sessions * 4 <= c.samples);
}

/* A kernel a replay covered (auto mode), with `natural` samples owed of
 * each group: its next launches take the groups it owes, nearest ahead of
 * the configured one first, as coverage the budget does not refuse and
 * marked natural; then sampling goes on by the stride. Without: the
 * configured group only, by the stride (td_tiny kept group 0, H200). */
static void check_natural_coverage(uint32_t natural)
{
    td_choose_kernel k;
    memset(&k, 0, sizeof k);
    k.covered = 1;
    k.natural = natural;
    k.stay = 1; /* the budget pays no move: natural coverage moves anyway */
    int active = 2;
    size_t owed_taken = 0, launches = 0;
    while (launches < 1000) {
        td_choice ch = td_choose(&k, 12, GROUPS, active, 0);
        launches++;
        if (!ch.measure)
            continue;
        if (!ch.coverage)
            break; /* the first sample past the natural coverage */
        CHECK(ch.natural);
        /* nearest ahead: the configured group while it owes, then the next */
        CHECK(ch.group == active || k.group_samples[active] >= natural);
        active = ch.group;
        owed_taken++;
    }
    CHECK(owed_taken == natural * GROUPS);
    CHECK(launches == owed_taken + 1 || natural == 0);
    for (int g = 0; g < GROUPS; g++)
        CHECK(k.group_samples[g] >= natural);
    if (natural == 0)
        for (int g = 0; g < GROUPS; g++) /* stay: the configured group only */
            CHECK(g == active || k.group_samples[g] == 0);
    /* a natural sample the collector could not take is taken again */
    td_choose_kernel again;
    memset(&again, 0, sizeof again);
    again.covered = 1;
    again.natural = natural;
    td_choice first = td_choose(&again, 3, GROUPS, 0, 0);
    if (natural) {
        CHECK(first.measure && first.coverage && first.natural && first.group == 0);
        td_choose_dropped(&again, 3, first.group);
        td_choice retry = td_choose(&again, 3, GROUPS, 0, 0);
        CHECK(retry.measure && retry.coverage && retry.group == 0);
        CHECK(again.group_samples[0] == 1);
    } else {
        CHECK(!first.natural && !first.coverage);
    }
    td_choose_free(&again);
    td_choose_free(&k);
}

/* TOPDOWN_NATURAL=budget: the groups owed are the budget's samples, at
 * the stride and refusable (no coverage), and they move where the budget
 * pays the kernel no move (stay); once paid, stay holds again. */
static void check_natural_in_budget(void)
{
    td_choose_kernel k;
    memset(&k, 0, sizeof k);
    k.covered = 1;
    k.natural = 1;
    k.natural_budgeted = 1;
    k.stay = 1;
    int active = 0;
    size_t launches = 0;
    while (launches < 200 && (k.group_samples[0] < 1 || k.group_samples[1] < 1 ||
                              k.group_samples[2] < 1 || k.group_samples[3] < 1 ||
                              k.group_samples[4] < 1)) {
        td_choice ch = td_choose(&k, 12, GROUPS, active, 0);
        launches++;
        if (!ch.measure)
            continue;
        CHECK(!ch.coverage && !ch.natural);
        active = ch.group;
    }
    for (int g = 0; g < GROUPS; g++)
        CHECK(k.group_samples[g] == 1);
    /* every group owed once: the configured group alone from now on */
    for (int i = 0; i < 50; i++) {
        td_choice ch = td_choose(&k, 12, GROUPS, active, 0);
        CHECK(!ch.measure || ch.group == active);
    }
    td_choose_free(&k);
}

/* PyTorch's recorded launch stream (tests/fixtures/h200/
 * pytorch_launch_stream.txt: 1,162 launches of 20 steps, 16 kernels of
 * >= 1% of the GPU time) through the collector's choice: each kernel's
 * first launch replayed, no group sample while new kernels keep coming
 * (measure_policy.c's TD_RETURN_AFTER), the kernels of >= 1% owing
 * TD_EST_NATURAL_MIN samples of each group, the budget refusing half the
 * other samples, the rotation's clock as measure_policy.c keeps it. */
typedef struct stream_cost {
    size_t sessions, natural_sessions, natural_samples, owing, complete;
    size_t complete_at; /* the launch by which every owing kernel was complete (0: never) */
    size_t heavy_gaps;  /* groups never measured in an owing kernel's classes of
                           TD_CHOOSE_HEAVY_PCT or more of its threads, at the end */
} stream_cost;

enum { STREAM_MAX = 4096, STREAM_KERNELS = 128, RETURN_AFTER = 16 };

static size_t read_stream(const char *name, unsigned *kernel, unsigned *size_class, int *owes)
{
    const char *repo = getenv("TOPDOWN_REPO_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/h200/%s", repo ? repo : "..", name);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return 0;
    char line[256];
    size_t n = 0;
    while (n < STREAM_MAX && fgets(line, sizeof line, f))
        if (line[0] != '#' &&
            sscanf(line, "%u %u %d", &kernel[n], &size_class[n], &owes[n]) == 3 &&
            kernel[n] < STREAM_KERNELS)
            n++;
    fclose(f);
    return n;
}

/* Whether every kernel owing natural samples has them all. */
static int all_complete(const td_choose_kernel *k, const int *owing)
{
    for (size_t j = 0; j < STREAM_KERNELS; j++)
        for (int g = 0; owing[j] && g < GROUPS; g++)
            if (k[j].group_samples[g] < TD_EST_NATURAL_MIN)
                return 0;
    return 1;
}

/* Groups an owing kernel never measured in its heavy classes. */
static size_t heavy_gaps(const td_choose_kernel *k)
{
    size_t gaps = 0;
    for (size_t i = 0; i < k->n_classes; i++) {
        const td_choose_class *c = &k->classes[i];
        if (c->threads * 100.0 < k->threads * TD_CHOOSE_HEAVY_PCT)
            continue;
        for (int g = 0; g < GROUPS; g++)
            gaps += (size_t)(c->group_samples[g] == 0);
    }
    return gaps;
}

/* heavy_pct: what the collector sets td_choose_kernel's to (0: the rule
 * off); stay: the budget pays no kernel a move; defer: its natural_defer
 * (0: the idle window alone, as before the fourteenth session). */
static stream_cost run_stream_as(const char *name, uint64_t idle, uint32_t heavy_pct, int stay,
                                 uint64_t renew, uint32_t defer)
{
    static unsigned kernel[STREAM_MAX], size_class[STREAM_MAX];
    static int owes[STREAM_MAX];
    size_t n = read_stream(name, kernel, size_class, owes);
    CHECK(n >= 240);
    static td_choose_kernel k[STREAM_KERNELS];
    int seen[STREAM_KERNELS] = {0}, owing[STREAM_KERNELS] = {0};
    memset(k, 0, sizeof k);
    stream_cost cost = {0};
    uint32_t rng = 2026;
    uint64_t served_at = 0, new_kernel_at = 0;
    int active = 0;
    for (size_t i = 0; i < n; i++) {
        td_choose_kernel *kk = &k[kernel[i]];
        owing[kernel[i]] = owes[i];
        if (!seen[kernel[i]]++) { /* its replay */
            new_kernel_at = i;
            kk->covered = 1;
            kk->natural = owes[i] ? TD_EST_NATURAL_MIN : 0;
            kk->heavy_pct = heavy_pct;
            kk->stay = stay;
            kk->renew = renew;
            kk->natural_defer = defer;
            continue;
        }
        kk->natural_waits = !td_choose_natural_may_move(i, served_at, idle);
        td_choice ch = td_choose(kk, size_class[i], GROUPS, active, 0);
        if (!ch.measure)
            continue;
        if (i - new_kernel_at < RETURN_AFTER || (!ch.coverage && td_xorshift32(&rng) % 2)) {
            td_choose_dropped(kk, size_class[i], ch.group); /* on the replay's object; the budget */
            continue;
        }
        size_t moved = ch.group == active ? 0 : sessions_to(active, ch.group);
        cost.sessions += moved;
        cost.natural_sessions += ch.natural ? moved : 0;
        cost.natural_samples += (size_t)ch.natural;
        if (ch.natural || ch.group != active)
            served_at = i;
        active = ch.group;
        if (!cost.complete_at && ch.natural && all_complete(k, owing))
            cost.complete_at = i;
    }
    for (size_t j = 0; j < STREAM_KERNELS; j++) {
        if (owing[j]) {
            cost.owing++;
            int all = 1;
            for (int g = 0; g < GROUPS; g++)
                all = all && k[j].group_samples[g] >= TD_EST_NATURAL_MIN;
            cost.complete += (size_t)all;
            cost.heavy_gaps += heavy_gaps(&k[j]);
        }
        td_choose_free(&k[j]);
    }
    return cost;
}

/* As the collector chooses by default: no deferral limit. */
static stream_cost run_stream(const char *name, uint64_t idle, uint32_t heavy_pct, int stay,
                              uint64_t renew)
{
    return run_stream_as(name, idle, heavy_pct, stay, renew, 0);
}

static void check_one_kernel_natural(int stay);

/* Natural samples ride the rotation: on PyTorch's recorded stream they end
 * fewer sessions than moving at once for each kernel's owed group, and
 * still reach every group of most kernels owing them within the 20 steps. */
static void check_natural_rides_rotation(void)
{
    const char *pytorch = "pytorch_launch_stream.txt";
    stream_cost at_once = run_stream(pytorch, 0, 0, 0, 0),
                riding = run_stream(pytorch, TD_CHOOSE_NATURAL_IDLE, 0, 0, 0);
    printf("PyTorch's stream, natural samples moving at once: %zu sessions (%zu by %zu natural "
           "samples), %zu of %zu owing kernels complete; riding the rotation: %zu sessions (%zu "
           "by %zu), %zu complete\n", at_once.sessions, at_once.natural_sessions,
           at_once.natural_samples, at_once.complete, at_once.owing, riding.sessions,
           riding.natural_sessions, riding.natural_samples, riding.complete);
    CHECK(at_once.owing >= 15);
    CHECK(riding.sessions * 2 <= at_once.sessions);
    CHECK(riding.complete * 4 >= at_once.complete * 3);
    /* td_stencil's two kernels alternate: riding completes them within the
     * first quarter of its 1,024 launches at the default idle window;
     * at 64 (call 3's build) later */
    const char *stencil = "td_stencil_launch_stream.txt";
    stream_cost st = run_stream(stencil, TD_CHOOSE_NATURAL_IDLE, 0, 0, 0),
                st64 = run_stream(stencil, 64, 0, 0, 0);
    printf("td_stencil's stream: %zu of %zu owing kernels complete by launch %zu (idle %d), "
           "by launch %zu (idle 64); %zu and %zu sessions\n", st.complete, st.owing,
           st.complete_at, TD_CHOOSE_NATURAL_IDLE, st64.complete_at, st.sessions, st64.sessions);
    CHECK(st.owing == 2 && st.complete == 2 && st.complete_at > 0 && st.complete_at < 256);
    CHECK(st64.complete_at == 0 || st64.complete_at > st.complete_at);
    /* a kernel alone (td_tiny: 2,000 launches) moves the rotation itself
     * once each group it owes has waited TD_CHOOSE_NATURAL_IDLE launches,
     * where the budget pays its stride samples no move (stay) or does */
    for (int stay = 0; stay < 2; stay++)
        check_one_kernel_natural(stay);
}

/* A kernel's heavy size classes owe each group a sample of their own.
 * td_sort's recorded stream: radix_scatter's 16 launches of 32,768 blocks
 * hold 88% of its threads (80% of its time, H200); with the budget paying
 * no move (stay) they measured only the groups the rotation brought. With
 * the rule every heavy class of every owing kernel has every group, for
 * 15 more sessions (19 against 4); PyTorch's stream 5 more (21 against 16),
 * closing 6 gaps. */
static void check_heavy_classes(void)
{
    const char *sort = "td_sort_launch_stream.txt", *pytorch = "pytorch_launch_stream.txt";
    stream_cost off = run_stream(sort, TD_CHOOSE_NATURAL_IDLE, 0, 1, 0),
                on = run_stream(sort, TD_CHOOSE_NATURAL_IDLE, TD_CHOOSE_HEAVY_PCT, 1, 0),
                torch_off = run_stream(pytorch, TD_CHOOSE_NATURAL_IDLE, 0, 0, 0),
                torch_on = run_stream(pytorch, TD_CHOOSE_NATURAL_IDLE, TD_CHOOSE_HEAVY_PCT, 0, 0);
    printf("td_sort's stream, stay: heavy classes' groups never measured %zu (%zu sessions) "
           "without the rule, %zu (%zu sessions) with it; PyTorch's: %zu (%zu sessions) and "
           "%zu (%zu)\n", off.heavy_gaps, off.sessions, on.heavy_gaps, on.sessions,
           torch_off.heavy_gaps, torch_off.sessions, torch_on.heavy_gaps, torch_on.sessions);
    CHECK(off.owing == 3 && off.heavy_gaps > 0);
    CHECK(on.heavy_gaps == 0 && torch_on.heavy_gaps == 0 && torch_off.heavy_gaps > 0);
    /* each gap closed costs at most a move of GROUPS - 1 passes */
    CHECK(on.sessions <= off.sessions + (GROUPS - 1) * off.heavy_gaps);
    CHECK(torch_on.sessions <= torch_off.sessions + (GROUPS - 1) * torch_off.heavy_gaps);
    /* and PyTorch's natural coverage still rides the rotation */
    CHECK(torch_on.sessions <= torch_off.sessions + 2 * GROUPS);
}

/* td_phases2 as the H200 ran it: one kernel, a compute and a memory phase
 * every 50 launches, covered by replay, the budget paying no move (stay),
 * natural samples riding the rotation. Without renewal every sample of
 * group 0 (level 1) fell in launches 17-33 of the first phase; with it
 * the memory phase has one too. Returns the samples of group 0 in the
 * memory phase and the sessions the rotation ended. */
static size_t phases_group0(uint64_t renew, size_t *sessions)
{
    td_choose_kernel k;
    memset(&k, 0, sizeof k);
    k.covered = 1;
    k.natural = TD_EST_NATURAL_MIN;
    k.stay = 1;
    k.renew = renew;
    uint64_t served_at = 0;
    int active = 0;
    size_t memory_phase = 0;
    *sessions = 0;
    for (uint64_t launch = 5; launch < 1000; launch++) {
        k.natural_waits = !td_choose_natural_may_move(launch, served_at, TD_CHOOSE_NATURAL_IDLE);
        td_choice ch = td_choose(&k, 18, GROUPS, active, 0);
        if (!ch.measure)
            continue;
        memory_phase += ch.group == 0 && launch / 50 % 2 == 1;
        *sessions += ch.group == active ? 0 : sessions_to(active, ch.group);
        if (ch.natural || ch.group != active)
            served_at = launch;
        active = ch.group;
    }
    td_choose_free(&k);
    return memory_phase;
}

static void check_renewal(void)
{
    size_t sessions_off, sessions_on;
    size_t off = phases_group0(0, &sessions_off), on = phases_group0(TD_CHOOSE_RENEW, &sessions_on);
    const char *pytorch = "pytorch_launch_stream.txt";
    stream_cost torch_off = run_stream(pytorch, TD_CHOOSE_NATURAL_IDLE, TD_CHOOSE_HEAVY_PCT, 0, 0),
                torch_on = run_stream(pytorch, TD_CHOOSE_NATURAL_IDLE, TD_CHOOSE_HEAVY_PCT, 0,
                                      TD_CHOOSE_RENEW);
    printf("td_phases2-like run: group 0 in the memory phase %zu times without renewal (%zu "
           "sessions), %zu with (%zu); PyTorch's stream: %zu and %zu sessions\n", off,
           sessions_off, on, sessions_on, torch_off.sessions, torch_on.sessions);
    CHECK(off == 0 && on >= 1);
    CHECK(sessions_on <= sessions_off + 4 * (GROUPS - 1)); /* four epochs in 1,000 launches */
    CHECK(torch_on.sessions <= torch_off.sessions + 2 * GROUPS);
}

/* The arm TOPDOWN_NATURAL_DEFER: a natural sample waits for the rotation
 * TD_CHOOSE_NATURAL_DEFER of its kernel's launches at most. td_manykernels'
 * recorded stream (H200):
 * bitonic_global<float>'s 72 launches come in two bursts of 36,
 * alternating with another kernel, the first half of the first burst on
 * the replay's object; with the idle window alone its last group comes 5
 * launches before its last launch here, and never came in 17 runs on the
 * H200. With the deferral every owing kernel is complete 27 launches
 * before it, for 6 more sessions (on the H200 every group came in 7 of 7
 * runs); PyTorch's and td_stencil's streams are complete no later, for no
 * more sessions (4 launches at most: PyTorch's 7 more). */
static void check_natural_defer(void)
{
    const char *names[3] = {"td_manykernels_launch_stream.txt", "pytorch_launch_stream.txt",
                            "td_stencil_launch_stream.txt"};
    stream_cost idle[3], deferred[3];
    for (int i = 0; i < 3; i++) {
        idle[i] = run_stream(names[i], TD_CHOOSE_NATURAL_IDLE, TD_CHOOSE_HEAVY_PCT, 0,
                             TD_CHOOSE_RENEW);
        deferred[i] = run_stream_as(names[i], TD_CHOOSE_NATURAL_IDLE, TD_CHOOSE_HEAVY_PCT, 0,
                                    TD_CHOOSE_RENEW, TD_CHOOSE_NATURAL_DEFER);
        printf("%s: %zu of %zu owing kernels complete, all by launch %zu, %zu sessions with the "
               "idle window alone; %zu, by launch %zu, %zu sessions waiting %d launches at most\n",
               names[i], idle[i].complete, idle[i].owing, idle[i].complete_at, idle[i].sessions,
               deferred[i].complete, deferred[i].complete_at, deferred[i].sessions,
               TD_CHOOSE_NATURAL_DEFER);
        CHECK(deferred[i].complete >= idle[i].complete);
        CHECK(deferred[i].sessions <= idle[i].sessions + 2 * GROUPS);
    }
    CHECK(idle[0].owing == 8 && deferred[0].complete == 8);
    CHECK(deferred[0].complete_at > 0 && deferred[0].complete_at < idle[0].complete_at);
    CHECK(deferred[2].complete == 2 && deferred[2].complete_at <= idle[2].complete_at);
}

static void check_one_kernel_natural(int stay)
{
    td_choose_kernel tiny;
    memset(&tiny, 0, sizeof tiny);
    tiny.stay = stay;
    tiny.covered = 1;
    tiny.natural = TD_EST_NATURAL_MIN;
    uint64_t served_at = 0;
    int active = 0;
    size_t moves = 0;
    for (uint64_t launch = 1; launch < 2000; launch++) {
        tiny.natural_waits =
            !td_choose_natural_may_move(launch, served_at, TD_CHOOSE_NATURAL_IDLE);
        td_choice ch = td_choose(&tiny, 10, GROUPS, active, 0);
        if (!ch.measure)
            continue;
        if (ch.natural) {
            CHECK(ch.group == active || launch >= served_at + TD_CHOOSE_NATURAL_IDLE);
            moves += (size_t)(ch.group != active);
        }
        if (ch.natural || ch.group != active)
            served_at = launch;
        active = ch.group;
    }
    for (int g = 0; g < GROUPS; g++)
        CHECK(tiny.group_samples[g] >= TD_EST_NATURAL_MIN);
    printf("one kernel, stay %d: %zu moves by natural samples\n", stay, moves);
    CHECK(moves <= GROUPS - 1 && (!stay || moves == GROUPS - 1));
    td_choose_free(&tiny);
}

int main(void)
{
    check_natural_rides_rotation();
    check_heavy_classes();
    check_renewal();
    check_natural_defer();
    check_natural_in_budget();
    check_natural_coverage(2);
    check_natural_coverage(1);
    check_natural_coverage(0);
    check_interleaved_kernels(0);
    check_interleaved_kernels(90);
    check_one_kernel();
    return td_check_summary();
}
