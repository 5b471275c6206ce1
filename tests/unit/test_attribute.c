/* Time-sampled counters (metrics/result/attribute.h) on simulated launch
 * streams whose PM samples are exact sums of known per-kernel rates: a
 * long kernel, short kernels back to back, a kernel on a second stream
 * overlapping them, and launches outside every sample. The attribution
 * must give each kernel its counts (rate x time inside samples), keep
 * every sample's counts whole, leave uncovered launches unprofiled, and
 * turn PC samples into stall values in the kernel's proportions. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metrics/arch/arch.h"
#include "levels/attribute.h"
#include "metrics/result/pcsamp.h"
#include "metrics/result/pm_samples.h"
#include "metrics/result/result.h"

#define INTERVAL 100000ull /* ns */

typedef struct sim_kernel {
    const char *name, *mangled;
    double cycles, inst, issued; /* counts per ns */
} sim_kernel;

static const sim_kernel kernels[] = {
    {"long_k", "_Z6long_kv", 100, 300, 310},
    {"short_k", "_Z7short_kv", 80, 40, 40},
    {"side_k", "_Z6side_kv", 50, 150, 160},
};

typedef struct sim_launch {
    int kernel;
    uint64_t start, duration;
} sim_launch;

static sim_launch launches[400];
static size_t n_launches;

static void add(int kernel, uint64_t start, uint64_t duration)
{
    launches[n_launches++] = (sim_launch){kernel, start, duration};
}

/* Long launches of 350 us, then 20 us ones back to back, with side_k
 * (30 us) on a second stream now and then, alone some of the time; one
 * launch before the first sample and one after the last. */
static uint64_t build_stream(void)
{
    add(1, 100, 10000); /* before sampling starts at 200 000 */
    uint64_t t = 200000;
    for (int i = 0; i < 6; i++, t += 360000)
        add(0, t, 350000);
    for (int i = 0; i < 200; i++, t += 21000) {
        add(1, t, 20000);
        if (i % 7 == 0)
            add(2, t + 5000, 30000);
    }
    for (int i = 0; i < 30; i++, t += 45000)
        add(2, t, 30000); /* alone */
    return t;
}

static double overlap(const sim_launch *l, uint64_t a, uint64_t b)
{
    uint64_t lo = l->start > a ? l->start : a, end = l->start + l->duration;
    uint64_t hi = end < b ? end : b;
    return hi > lo ? (double)(hi - lo) : 0;
}

static td_pm_samples *samples(const td_arch *arch, uint64_t from, uint64_t to)
{
    const char *names[3] = {arch->counter[TD_C_CYCLES_ACTIVE], arch->counter[TD_C_INST_EXECUTED],
                            arch->counter[TD_C_INST_ISSUED]};
    td_pm_samples *pm = NULL;
    td_error err;
    CHECK(td_pm_create(&pm, names, 3, INTERVAL, 0, &err) == 0);
    for (uint64_t a = from; a < to; a += INTERVAL) {
        double v[3] = {0};
        for (size_t i = 0; i < n_launches; i++) {
            double ns = overlap(&launches[i], a, a + INTERVAL);
            const sim_kernel *k = &kernels[launches[i].kernel];
            v[0] += ns * k->cycles, v[1] += ns * k->inst, v[2] += ns * k->issued;
        }
        CHECK(td_pm_add(pm, a, a + INTERVAL, v, &err) == 0);
    }
    return pm;
}

/* A device section holding the stream's launches, timed, no counters. */
static td_device *device_of_launches(td_result *res, const td_arch *arch)
{
    td_error err;
    td_device *dev = td_result_add_device(res, &err);
    dev->arch = td_strdup(arch->name);
    for (size_t i = 0; i < n_launches; i++) {
        const sim_kernel *k = &kernels[launches[i].kernel];
        td_launch *l = td_device_add_launch(dev, k->name, NULL, &err);
        l->mangled = td_device_intern(dev, k->mangled);
        l->start_ns = launches[i].start;
        l->duration_ns = (double)launches[i].duration;
    }
    return dev;
}

static td_device *device(td_result *res, const td_arch *arch, uint64_t end)
{
    td_device *dev = device_of_launches(res, arch);
    dev->pm = samples(arch, 200000, end - 200000);
    return dev;
}

static double counter(const td_device *dev, const td_launch *l, const char *metric)
{
    int at = td_device_metric_index(dev, metric);
    return at >= 0 && l->counters ? l->counters[at] : -1;
}

/* Each kernel's attributed counts against rate x time inside samples. */
static void check_kernel_totals(const td_device *dev, const td_arch *arch, uint64_t from,
                                uint64_t to)
{
    for (int k = 0; k < 3; k++) {
        double want_cycles = 0, want_inst = 0, got_cycles = 0, got_inst = 0;
        for (size_t i = 0; i < n_launches; i++) {
            if (launches[i].kernel != k)
                continue;
            double ns = overlap(&launches[i], from, to);
            want_cycles += ns * kernels[k].cycles;
            want_inst += ns * kernels[k].inst;
            const td_launch *l = &dev->launches[i];
            if (ns == 0) {
                CHECK(!l->profiled && l->counters == NULL);
                continue;
            }
            CHECK(l->profiled && l->group == TD_GROUP_ALL);
            got_cycles += counter(dev, l, arch->counter[TD_C_CYCLES_ACTIVE]);
            got_inst += counter(dev, l, arch->counter[TD_C_INST_EXECUTED]);
        }
        if (want_cycles == 0)
            continue; /* the kernel did not run in this stream */
        CHECK_NEAR(got_cycles / want_cycles, 1.0, 1e-6);
        CHECK_NEAR(got_inst / want_inst, 1.0, 1e-6);
    }
}

static void test_pm_attribution(const td_arch *arch)
{
    n_launches = 0;
    uint64_t end = build_stream() + 200000;
    td_result res;
    memset(&res, 0, sizeof res);
    td_device *dev = device(&res, arch, end);
    td_attrib_stats st;
    td_error err;
    int rc = td_attribute_device(dev, arch, &st, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == 0);
    check_kernel_totals(dev, arch, 200000, end - 200000);
    CHECK(st.launches == n_launches);
    CHECK(st.sampled == n_launches - 1); /* the one before the first sample */
    CHECK(st.kernels == 3);
    CHECK(st.unseparated == 0); /* every kernel has a sample of its own */
    CHECK(st.pc_kernels == 0); /* no PC samples: stalls unsplit */
    CHECK_NEAR(st.samples_kept, 1.0, 1e-12);
    CHECK(st.thread_inst == 0);
    /* a launch inside one sample: exactly its rate; thread stand-in 32x */
    const td_launch *l = &dev->launches[8];
    CHECK_NEAR(counter(dev, l, arch->counter[TD_C_INST_EXECUTED]) / l->duration_ns,
               kernels[launches[8].kernel].inst, 1e-6);
    CHECK_NEAR(counter(dev, l, arch->counter[TD_C_THREAD_INST_EXECUTED]),
               32 * counter(dev, l, arch->counter[TD_C_INST_EXECUTED]), 1e-3);
    CHECK_NEAR(counter(dev, l, arch->counter[TD_C_DURATION_NS]), l->duration_ns, 1e-9);
    /* again: refused, the launches have counters now */
    CHECK(td_attribute_device(dev, arch, &st, &err) != 0);
    td_result_free(&res);
}

/* Two kernels that never run alone: nothing separates them, so neither is
 * measured. */
static void test_fit_only(const td_arch *arch)
{
    n_launches = 0;
    uint64_t t = 200000;
    for (int i = 0; i < 60; i++, t += 40000) {
        add(1, t, 15000 + (uint64_t)(i % 5) * 3000);        /* short_k */
        add(2, t + 16000 + (uint64_t)(i % 3) * 1000, 20000); /* side_k */
    }
    uint64_t end = t + 200000;
    td_result res;
    memset(&res, 0, sizeof res);
    td_device *dev = device(&res, arch, end);
    td_attrib_stats st;
    td_error err;
    CHECK(td_attribute_device(dev, arch, &st, &err) == 0);
    CHECK(st.unseparated == 2); /* their samples are each other's: not measured */
    CHECK(st.kernels == 0 && st.sampled == 0);
    for (size_t i = 0; i < n_launches; i++)
        CHECK(!dev->launches[i].profiled && dev->launches[i].counters == NULL);
    CHECK(st.unseparated_ns > 0);
    td_result_free(&res);
}

static void test_pc_stalls(const td_arch *arch)
{
    n_launches = 0;
    add(0, 250000, 300000);
    add(1, 600000, 50000);
    td_result res;
    memset(&res, 0, sizeof res);
    td_device *dev = device(&res, arch, 1200000);
    td_pcsamp *pc = td_pcsamp_new();
    dev->pcsamp = pc;
    td_error err;
    long f = td_pcsamp_function(pc, "_Z6long_kv"), m = td_pcsamp_module(pc, 7);
    struct { const char *reason; uint64_t n; } rows[] = {
        {TD_PCSAMP_PREFIX "long_scoreboard", 30},
        {TD_PCSAMP_PREFIX "long_scoreboard" TD_PCSAMP_SUBSET_SUFFIX, 25}, /* a subset */
        {TD_PCSAMP_PREFIX "wait", 10},
        {TD_PCSAMP_PREFIX "no_instructions", 10}, /* the stall is no_instruction */
        {TD_PCSAMP_PREFIX "selected", 50},        /* issued: no stall */
        {TD_PCSAMP_PREFIX "not_selected", 20},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        long r = td_pcsamp_reason(pc, rows[i].reason);
        CHECK(td_pcsamp_add(pc, (size_t)f, (size_t)m, 16 * i, (size_t)r, rows[i].n, &err) == 0);
    }
    td_attrib_stats st;
    CHECK(td_attribute_device(dev, arch, &st, &err) == 0);
    CHECK(st.pc_kernels == 1);
    const td_launch *l = &dev->launches[0];
    double lsb = counter(dev, l, "smsp__warps_issue_stalled_long_scoreboard.sum");
    double wait = counter(dev, l, "smsp__warps_issue_stalled_wait.sum");
    double fetch = counter(dev, l, "smsp__warps_issue_stalled_no_instruction.sum");
    double cycles = counter(dev, l, arch->counter[TD_C_CYCLES_ACTIVE]);
    CHECK_NEAR(lsb / (lsb + wait + fetch), 0.6, 1e-12);
    CHECK_NEAR(fetch / wait, 1.0, 1e-12);
    CHECK_NEAR((lsb + wait + fetch) / (cycles * arch->ipc_max), 1.0, 1e-12);
    /* short_k has no PC samples: its stalls stay 0 (unsplit) */
    CHECK(counter(dev, &dev->launches[1], "smsp__warps_issue_stalled_long_scoreboard.sum") == 0);
    td_result_free(&res);
}

/* The arch table's stand-in for thread instructions (predicate on) gives
 * the launch its thread counts; the stats say so. */
static void test_thread_stand_in(const td_arch *arch)
{
    CHECK(arch->pm_thread_inst != NULL);
    if (!arch->pm_thread_inst)
        return;
    td_result res;
    memset(&res, 0, sizeof res);
    td_error err;
    td_device *dev = td_result_add_device(&res, &err);
    td_launch *l = td_device_add_launch(dev, "k", NULL, &err);
    l->start_ns = 100000;
    l->duration_ns = 100000;
    const char *names[4] = {arch->counter[TD_C_CYCLES_ACTIVE], arch->counter[TD_C_INST_EXECUTED],
                            arch->counter[TD_C_INST_ISSUED], arch->pm_thread_inst};
    CHECK(td_pm_create(&dev->pm, names, 4, INTERVAL, 0, &err) == 0);
    double v[4] = {1e7, 2e6, 2e6, 4e7}; /* 20 of 32 threads on */
    CHECK(td_pm_add(dev->pm, 100000, 200000, v, &err) == 0);
    td_attrib_stats st;
    CHECK(td_attribute_device(dev, arch, &st, &err) == 0);
    CHECK(st.thread_inst == 1);
    CHECK_NEAR(counter(dev, l, arch->counter[TD_C_THREAD_INST_EXECUTED]), 4e7, 1e-3);
    td_result_free(&res);
}

static void test_refusals(const td_arch *arch)
{
    n_launches = 0;
    add(0, 250000, 300000);
    td_result res;
    memset(&res, 0, sizeof res);
    td_device *dev = device(&res, arch, 900000);
    td_error err;
    td_attrib_stats st;
    /* samples out of time order */
    uint64_t keep = dev->pm->start_ns[1];
    dev->pm->start_ns[1] = dev->pm->start_ns[0] + 10;
    CHECK(td_attribute_device(dev, arch, &st, &err) != 0);
    CHECK(strstr(err.msg, "time order") != NULL);
    dev->pm->start_ns[1] = keep;
    /* no PM samples */
    td_pm_samples *pm = dev->pm;
    dev->pm = NULL;
    CHECK(td_attribute_device(dev, arch, &st, &err) != 0);
    dev->pm = pm;
    CHECK(td_attribute_device(dev, arch, &st, &err) == 0);
    td_result_free(&res);
}

static void test_nnls(void)
{
    /* A = [[1,0],[1,1],[0,1]], v = A [2,3]: exact */
    double G[4] = {2, 1, 1, 2}, b[2] = {1 * 2 + 1 * 5, 5 + 3}, x[2] = {0, 0};
    td_attrib_nnls(G, b, 2, x);
    CHECK_NEAR(x[0], 2, 1e-9);
    CHECK_NEAR(x[1], 3, 1e-9);
    /* the unconstrained answer has x1 < 0: clipped at 0 */
    double G2[4] = {1, 1, 1, 2}, b2[2] = {1, 0}, y[2] = {1, 1};
    td_attrib_nnls(G2, b2, 2, y);
    CHECK(y[1] == 0);
    CHECK_NEAR(y[0], 1, 1e-9);
}

/* The memory section's throughput counters in the samples: work splits
 * like the level-1 counts, a peak per cycle goes whole to each launch,
 * elapsed cycles by the launch's own time in the sample (a launch of half
 * a sample, idle after it, gets half of them), so that the kernel's
 * throughput is its work over the unit's capacity while it ran. */
static void test_memory_columns(const td_arch *arch)
{
    enum { CYC, INST, ISSUED, RD, WR, PEAK, DCYC, N };
    const char *names[N] = {arch->counter[TD_C_CYCLES_ACTIVE], arch->counter[TD_C_INST_EXECUTED],
                            arch->counter[TD_C_INST_ISSUED], "dram__bytes_read.sum",
                            "dram__bytes_write.sum", "dram__bytes.sum.peak_sustained",
                            "dram__cycles_elapsed.avg"};
    n_launches = 0;
    add(0, 200000, 300000);  /* long_k: three whole samples */
    add(2, 600000, 50000);   /* side_k: half a sample, then idle */
    const double read_per_ns[3] = {40, 0, 10}, dram_cycles_per_ns = 3.2, peak = 64;
    td_pm_samples *pm = NULL;
    td_error err;
    CHECK(td_pm_create(&pm, names, N, INTERVAL, 0, &err) == 0);
    for (uint64_t a = 200000; a < 700000; a += INTERVAL) {
        double v[N] = {0};
        for (size_t i = 0; i < n_launches; i++) {
            double ns = overlap(&launches[i], a, a + INTERVAL);
            const sim_kernel *k = &kernels[launches[i].kernel];
            v[CYC] += ns * k->cycles, v[INST] += ns * k->inst, v[ISSUED] += ns * k->issued;
            v[RD] += ns * read_per_ns[launches[i].kernel];
            v[WR] += ns * 0.5 * read_per_ns[launches[i].kernel];
        }
        v[PEAK] = peak;
        v[DCYC] = INTERVAL * dram_cycles_per_ns; /* on through idle time */
        CHECK(td_pm_add(pm, a, a + INTERVAL, v, &err) == 0);
    }
    td_result res;
    memset(&res, 0, sizeof res);
    td_device *dev = device_of_launches(&res, arch);
    dev->pm = pm;
    td_attrib_stats st;
    CHECK(td_attribute_device(dev, arch, &st, &err) == 0);
    for (size_t i = 0; i < n_launches; i++) {
        const td_launch *l = &dev->launches[i];
        double ns = l->duration_ns;
        CHECK(l->profiled);
        CHECK_NEAR(counter(dev, l, "dram__bytes_read.sum"), ns * read_per_ns[launches[i].kernel], 1e-6);
        CHECK_NEAR(counter(dev, l, "dram__bytes.sum.peak_sustained"), peak, 1e-12);
        CHECK_NEAR(counter(dev, l, "dram__cycles_elapsed.avg"), ns * dram_cycles_per_ns, 1e-6);
    }
    /* a unit whose counters the samples lack is not in the metric list */
    CHECK(td_device_metric_index(dev, "lts__t_sectors.sum") < 0);
    td_result_free(&res);
}

int main(void)
{
    td_arch_set set;
    td_error err;
    const char *dir = getenv("TOPDOWN_ARCHS");
    CHECK(dir && td_arch_load_dir(dir, &set, &err) == 0);
    if (!dir)
        return td_check_summary();
    const td_arch *arch = td_arch_find(&set, "gh100");
    CHECK(arch != NULL);
    if (arch) {
        test_nnls();
        test_pm_attribution(arch);
        test_fit_only(arch);
        test_pc_stalls(arch);
        test_thread_stand_in(arch);
        test_refusals(arch);
        test_memory_columns(arch);
    }
    td_arch_set_free(&set);
    return td_check_summary();
}
