/* The arch tables' "pm_sampling" sets against CUPTI's PM-sampling catalog
 * (profiler host API: libcupti, no GPU, no counter availability image).
 * For every CUPTI table and every chip it lists: each metric of the set is
 * in the PM-sampling catalog, the set takes one pass (PM sampling takes no
 * other), and on the table's first chip no other model counter fits with
 * it (the set is as large as adding counters allows). Then that the set
 * gives a level-1 split, and what it leaves unsplit, is what docs say.
 * Also the sampler's pure parts: the size of its counter-data image and
 * which samples it keeps; and that CUPTI loads libnvperf_host only at the
 * first host call, the premise of the sampler's own exit hook. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "levels/pm_model.h"
#include "metrics/arch/arch.h"
#include "metrics/arch/catalog.h"
#include "pmsampling.h"

/* The most metrics a table's set may hold here (gh100's: 16). */
#define TD_PM_SET_MAX 24

static size_t one_pass(td_catalog *cat, const char *const *names, size_t n, int *ok)
{
    size_t passes = 0;
    td_error err;
    *ok = td_catalog_passes(cat, names, n, &passes, &err) == 0;
    if (!*ok)
        fprintf(stderr, "  %s: %s\n", td_catalog_chip(cat), err.msg);
    return passes;
}

static int is_counter(const td_arch *t, td_counter c, const char *metric)
{
    return t->counter[c] && strcmp(metric, t->counter[c]) == 0;
}

/* No model counter outside the set joins it in one pass. */
static void check_largest(const td_arch *t, td_catalog *cat)
{
    const char *all[TD_COUNTER_COUNT + TD_MAX_STALLS + TD_MEM_MAX_METRICS], *set[TD_MAX_STALLS + 8];
    size_t n_all = td_arch_metrics(t, all, sizeof all / sizeof *all);
    memcpy(set, t->pm_metrics, t->n_pm_metrics * sizeof *set);
    for (size_t i = 0; i < n_all; i++) {
        int in_set = 0;
        for (size_t j = 0; j < t->n_pm_metrics; j++)
            in_set |= strcmp(all[i], t->pm_metrics[j]) == 0;
        /* duration, warps active and elapsed cycles are no PM-sampling
         * input: each sample has its own times, and its level 1 no
         * per-pass denominator */
        /* the memory section's counters are the table's choice (its
         * throughput units; docs/ARCH_TABLES.md), not a model counter */
        if (in_set || td_arch_memory_uses(&t->memory, all[i]) || is_counter(t, TD_C_DURATION_NS, all[i]) ||
            is_counter(t, TD_C_WARPS_ACTIVE, all[i]) ||
            is_counter(t, TD_C_CYCLES_ELAPSED_MAX, all[i]))
            continue;
        set[t->n_pm_metrics] = all[i];
        int ok;
        size_t passes = one_pass(cat, set, t->n_pm_metrics + 1, &ok);
        if (ok && passes == 1)
            fprintf(stderr, "%s: %s also fits the PM-sampling set in one pass on %s; add it "
                    "(build/tests/td_pm_counters archs/%s.json)\n", t->name, all[i],
                    td_catalog_chip(cat), t->name);
        CHECK(!ok || passes > 1);
    }
}

static void check_table(const td_arch *t)
{
    if (t->n_pm_metrics == 0) {
        fprintf(stderr, "%s: no \"pm_sampling\" set (make it with build/tests/td_pm_counters)\n",
                t->name);
        CHECK(t->n_pm_metrics > 0);
        return;
    }
    printf("%s: %zu PM-sampling metrics:", t->name, t->n_pm_metrics);
    for (size_t i = 0; i < t->n_pm_metrics; i++)
        printf(" %s", t->pm_metrics[i]);
    printf("\n");
    for (size_t c = 0; c < t->n_chips; c++) {
        td_catalog *cat = NULL;
        td_error err;
        int rc = td_catalog_open_pm_sampling(&cat, t->chips[c], &err);
        if (rc)
            fprintf(stderr, "%s: %s\n", t->name, err.msg);
        CHECK(rc == 0);
        if (rc)
            continue;
        for (size_t i = 0; i < t->n_pm_metrics; i++) {
            int known = td_catalog_has_metric(cat, t->pm_metrics[i]);
            if (!known)
                fprintf(stderr, "%s: %s is not in the PM-sampling catalog of %s\n", t->name,
                        t->pm_metrics[i], t->chips[c]);
            CHECK(known);
        }
        int ok;
        size_t passes = one_pass(cat, (const char *const *)t->pm_metrics, t->n_pm_metrics, &ok);
        if (ok && passes != 1)
            fprintf(stderr, "%s: the PM-sampling set takes %zu passes on %s; PM sampling "
                    "takes one\n", t->name, passes, t->chips[c]);
        CHECK(ok && passes == 1);
        if (c == 0)
            check_largest(t, cat);
        td_catalog_close(cat);
    }
}

/* What the GH100 set splits, as docs/ARCH_TABLES.md records it. */
static void check_gh100_split(const td_arch *t)
{
    td_pm_samples *pm = NULL;
    td_error err;
    CHECK(td_pm_create(&pm, (const char *const *)t->pm_metrics, t->n_pm_metrics, 1000, 0,
                       &err) == 0);
    td_pm_model m;
    int rc = td_pm_model_init(&m, t, pm, &err);
    if (rc)
        fprintf(stderr, "gh100: %s\n", err.msg);
    CHECK(rc == 0);
    /* Branch by the predicate-on stand-in since 2026-11-29 (issue 38) */
    CHECK(rc || (m.split_replay && m.split_branch && m.thread_stand_in && !m.split_stalls));
    td_pm_free(pm);
}

/* What the collector tries on a device: the table's set, then
 * thread_inst_executed, then every stall reason, each once. */
static void check_candidates(const td_arch *t)
{
    const char *names[TD_COUNTER_COUNT + TD_MAX_STALLS];
    size_t base = 0, n = td_pms_candidates(t, names, sizeof names / sizeof *names, &base);
    CHECK(base == t->n_pm_metrics);
    CHECK(n == base + 1 + t->n_stalls);
    for (size_t i = 0; i < base; i++)
        CHECK(strcmp(names[i], t->pm_metrics[i]) == 0);
    CHECK(n > base && strcmp(names[base], t->counter[TD_C_THREAD_INST_EXECUTED]) == 0);
    for (size_t i = 0; i < t->n_stalls && base + 1 + i < n; i++)
        CHECK(strcmp(names[base + 1 + i], t->stalls[i].metric) == 0);
    /* A short array is not overrun. */
    CHECK(td_pms_candidates(t, names, 2, &base) == 2 && base == 2);
}

/* The check can fail: a stall reason added to the GH100 set costs a
 * second pass without the device's availability image. */
static void check_negative(const td_arch *t)
{
    td_catalog *cat = NULL;
    td_error err;
    CHECK(td_catalog_open_pm_sampling(&cat, "GH100", &err) == 0);
    if (!cat)
        return;
    const char *set[TD_PM_SET_MAX + 1];
    memcpy(set, t->pm_metrics, t->n_pm_metrics * sizeof *set);
    set[t->n_pm_metrics] = "smsp__warps_issue_stalled_long_scoreboard.sum";
    int ok;
    CHECK(one_pass(cat, set, t->n_pm_metrics + 1, &ok) > 1 && ok);
    CHECK(td_catalog_has_metric(cat, "smsp__warps_issue_stalled_long_scorebord.sum") == 0);
    td_catalog_close(cat);
}

/* Issue 24: a fixed 20000-sample image was 831,862,420 bytes for the
 * GH100 set (CUPTI 13.0, H100): the app stalled 1.5 s filling it and died
 * of a corrupted heap. The image must stay within TD_PMS_IMAGE_BYTES and
 * still hold one decode period (50 ms) at the usual intervals. */
static void check_image_samples(void)
{
    const size_t gh100 = 831862420 / 20000, header = 4096;
    static const uint64_t intervals_us[] = {10, 100, 1000, 10000, 10000000};
    for (size_t i = 0; i < sizeof intervals_us / sizeof *intervals_us; i++) {
        uint64_t ns = intervals_us[i] * 1000;
        size_t n = td_pms_image_samples(header, gh100, ns);
        printf("image at %llu us: %zu samples, %zu bytes\n", (unsigned long long)intervals_us[i],
               n, header + n * gh100);
        CHECK(n >= TD_PMS_IMAGE_MIN_SAMPLES && header + n * gh100 <= TD_PMS_IMAGE_BYTES);
        if (ns >= 100000)
            CHECK(n * ns >= 50000000); /* a decode period fits one image */
    }
    CHECK(header + 20000 * gh100 > TD_PMS_IMAGE_BYTES); /* the old size fails */
    CHECK(td_pms_image_samples(header, 1, 1000) == TD_PMS_IMAGE_MAX_SAMPLES);
    CHECK(td_pms_image_samples(header, 1, 1000000) == 2 * 50 + 16);
    CHECK(td_pms_image_samples(header, (size_t)64 << 20, 1000) == TD_PMS_IMAGE_MIN_SAMPLES);
    CHECK(td_pms_image_samples(TD_PMS_IMAGE_BYTES, 1, 1000) == TD_PMS_IMAGE_MIN_SAMPLES);
    CHECK(td_pms_image_samples(header, 0, 0) == TD_PMS_IMAGE_MIN_SAMPLES);
}

/* Issue 38 item 4: --pm-interval 20 on td_tiny (H200) decoded the GPU's
 * idle samples for 40 s after the app's end, decoding slower (~48 us a
 * sample) than the GPU sampled. The drain stops at the app's end. */
static void check_drain(void)
{
    const uint64_t end = 5000000000ull, max = TD_PMS_DRAIN_MAX_NS;
    CHECK(td_pms_drain_next(1, end - 1000, end, 0, max) == TD_PMS_DRAIN_MORE);
    CHECK(td_pms_drain_next(0, end - 1000, end, 0, max) == TD_PMS_DRAIN_EMPTY);
    CHECK(td_pms_drain_next(1, end, end, 0, max) == TD_PMS_DRAIN_CAUGHT_UP);
    CHECK(td_pms_drain_next(1, end + 20000, end, 0, max) == TD_PMS_DRAIN_CAUGHT_UP);
    /* behind the end, the buffer never empties: time runs out */
    CHECK(td_pms_drain_next(1, end - 1000, end, max, max) == TD_PMS_DRAIN_OUT_OF_TIME);
    /* no end known (no CUPTI timestamp): until empty or out of time */
    CHECK(td_pms_drain_next(1, end, 0, 0, max) == TD_PMS_DRAIN_MORE);
    CHECK(td_pms_drain_next(1, end, 0, max + 1, max) == TD_PMS_DRAIN_OUT_OF_TIME);
    CHECK(max <= 1000000000ull); /* topdown ends within a second of the app */
}

static int find_nvperf_host(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    return info->dlpi_name && strstr(info->dlpi_name, "libnvperf_host") != NULL;
}

/* Whether libnvperf_host is loaded in this process. */
static int nvperf_host_loaded(void)
{
    return dl_iterate_phdr(find_nvperf_host, NULL) != 0;
}

/* Issue 24: each decoded image's first sample came with start 0 and the
 * last of a full image with end 0; kept, they were drawn from the run's
 * start (a 601 ms "sample" at 100 us) or ended before they began. */
static void check_sample_times(void)
{
    CHECK(td_pms_sample_timed(1000, 101000));
    CHECK(!td_pms_sample_timed(0, 101000));
    CHECK(!td_pms_sample_timed(1000, 0));
    CHECK(!td_pms_sample_timed(1000, 1000));
    CHECK(!td_pms_sample_timed(0, 0));
}

int main(void)
{
    check_image_samples();
    check_drain();
    check_sample_times();
    /* Not loaded with libcupti: CUPTI loads it (and it registers its
     * destructors) at the first host call, after the injection library's
     * at_exit, so those destructors run before that at_exit (issue 24). */
    CHECK(!nvperf_host_loaded());
    const char *dir = getenv("TOPDOWN_ARCHS");
    CHECK(dir != NULL);
    if (!dir)
        return td_check_summary();
    td_arch_set set;
    td_error err;
    int rc = td_arch_load_dir(dir, &set, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == 0);
    if (rc)
        return td_check_summary();
    size_t tables = 0;
    for (size_t i = 0; i < set.count; i++) {
        const td_arch *t = &set.items[i];
        if (t->source != TD_BACKEND_RANGE_PROFILER) {
            CHECK(t->n_pm_metrics == 0); /* nvprof GPUs have no PM sampling */
            continue;
        }
        tables++;
        check_table(t);
    }
    CHECK(tables > 0);
    const td_arch *gh100 = td_arch_find(&set, "gh100");
    CHECK(gh100 != NULL && gh100->n_pm_metrics > 0 && gh100->n_pm_metrics <= TD_PM_SET_MAX);
    if (gh100 && gh100->n_pm_metrics > 0 && gh100->n_pm_metrics <= TD_PM_SET_MAX) {
        check_gh100_split(gh100);
        check_candidates(gh100);
        check_negative(gh100);
    }
    CHECK(nvperf_host_loaded());
    td_arch_set_free(&set);
    return td_check_summary();
}
