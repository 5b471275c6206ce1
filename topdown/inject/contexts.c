/* A context's first launch sets it up (the device record, the arch table,
 * the Range Profiler and its configurations, or the PM sampler, the cache
 * flush, PC sampling); its destruction ends all of it. */
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topdown/inject/batch.h"
#include "topdown/inject/collector.h"
#include "topdown/inject/contexts.h"
#include "topdown/inject/debug.h"
#include "topdown/inject/measure_policy.h"
#include "topdown/inject/pcsampling.h"
#include "topdown/inject/pmsampling.h"
#include "topdown/inject/spool_writer.h"
#include "topdown/inject/window.h"

/* ---- contexts ----------------------------------------------------------- */

static const td_arch *choose_arch(const char *chip, int major, int minor)
{
    if (!td_g.archs_tried) {
        td_g.archs_tried = 1;
        char dir[4096];
        td_error err = {{0}};
        if (td_g.opts.archs)
            snprintf(dir, sizeof dir, "%s", td_g.opts.archs);
        else if (td_arch_default_dir(dir, sizeof dir, &err) != 0)
            dir[0] = '\0';
        if (!dir[0] || td_arch_load_dir(dir, &td_g.archs, &err) != 0)
            td_sw_error("arch_tables", "cannot load the arch tables: %s", err.msg);
    }
    if (td_g.opts.arch)
        return td_arch_find(&td_g.archs, td_g.opts.arch);
    const td_arch *arch = td_arch_for_chip(&td_g.archs, chip);
    return arch ? arch : td_arch_for_cc(&td_g.archs, major, minor);
}

static void report_open_failure(const ctx_state *c, const char *gpu)
{
    char what[256];
    td_rp_describe(&c->rp, what, sizeof what);
    if (!say_no_privileges(c, what))
        td_sw_error("profiler_failed", "cannot profile %s, context %u (%s); its launches "
                    "are timed only", gpu, c->uid, what);
}

/* The table's groups if CUPTI takes each in one pass on this device, else
 * groups derived here; n_group_cfg = 0 when there are none. */
static void choose_groups(ctx_state *c, const td_arch *arch)
{
    td_error err = {{0}};
    td_groups_from_table(arch, &c->groups);
    /* One pass each is checked against CUPTI when a group is first used
     * (and for every chip by tests/cupti/test_catalog): here only that
     * the groups cover the table. */
    if (c->groups.n && td_groups_check(arch, &c->groups, NULL, NULL, &err) == 0)
        return;
    char why[sizeof err.msg];
    snprintf(why, sizeof why, "%s", c->groups.n ? err.msg : "the table lists none");
    if (td_groups_derive(arch, NULL, td_rp_count_passes, &c->rp, &c->groups, &err) != 0) {
        td_sw_warning("no replay-free counter groups for %s (%s; %s): profiled launches "
                      "are replayed", arch->name, why, err.msg);
        c->groups.n = 0;
        return;
    }
    td_sw_warning("counter groups of %s derived on this device (%s): %zu groups", arch->name,
                  why, c->groups.n);
}

static int metric_index(const ctx_state *c, const char *name)
{
    for (size_t i = 0; name && i < c->n_metrics; i++)
        if (strcmp(c->metrics[i], name) == 0)
            return (int)i;
    return -1;
}

/* The groups' metrics, each once, and where each group's are among them. */
static size_t union_of_groups(ctx_state *c)
{
    size_t n = 0;
    for (size_t gi = 0; gi < c->groups.n; gi++)
        for (size_t i = 0; i < c->groups.size[gi]; i++) {
            const char *name = c->groups.metric[gi][i];
            size_t at = 0;
            while (at < n && strcmp(c->rotation_metrics[at], name) != 0)
                at++;
            if (at == n && n == MAX_METRICS)
                return 0;
            if (at == n)
                c->rotation_metrics[n++] = name;
            c->rotation_index[gi][i] = at;
        }
    return n;
}

/* The ranges the rotation's image holds: TOPDOWN_ROTATION_RANGES within
 * bounds, else ROTATION_RANGES. A fresh object's first Start grew with
 * them (H100: 64 ranges 205 ms, 256 ranges 417 ms;
 * benchmarks/results/rp_cost_2026-11-25.txt, B). */
static size_t rotation_ranges(void)
{
    long asked = td_g.opts.rotation_ranges;
    if (asked < 0)
        return ROTATION_RANGES;
    return asked < ROTATION_RANGES_MIN ? ROTATION_RANGES_MIN
           : asked > ROTATION_RANGES_MAX ? ROTATION_RANGES_MAX
                                         : (size_t)asked;
}

/* One user-replay configuration per group (one Start/Stop and a fresh
 * profiler object each), and the rotation, which is tried first. */
static void prepare_group_configs(ctx_state *c)
{
    for (size_t gi = 0; gi < c->groups.n; gi++) {
        for (size_t i = 0; i < c->groups.size[gi]; i++)
            c->group_metric[gi][i] = (size_t)metric_index(c, c->groups.metric[gi][i]);
        td_rp_config_prepare(&c->group_cfg[gi], c->groups.metric[gi], c->groups.size[gi], 1, 1);
    }
    c->n_group_cfg = c->groups.n;
    size_t n_union = td_g.no_rotation || c->groups.n < 2 ? 0 : union_of_groups(c);
    if (n_union > 0) {
        td_rp_config_prepare_rotation(&c->rotation, c->rotation_metrics, n_union, &c->groups,
                                      c->rotation_ranges);
        c->has_rotation = 1;
    }
}

/* Sets the Range Profiler up with the configurations the mode needs. */
static int open_profiler(ctx_state *c, const td_arch *arch)
{
    if (td_rp_open(&c->rp, c->ctx, c->chip) != 0)
        return -1;
    if (td_g.mode != TD_REPLAY_KERNEL) {
        choose_groups(c, arch);
        prepare_group_configs(c);
    }
    if (td_g.mode != TD_REPLAY_NONE) {
        td_rp_config_prepare(&c->full, c->metrics, c->n_full,
                             td_g.mode == TD_REPLAY_KERNEL ? td_g.batch : 1, 0);
        c->has_full = 1;
    }
    /* kernel replay measures every metric; auto's replays the model's alone */
    int passes = td_g.mode == TD_REPLAY_KERNEL ? arch->passes : arch->model_passes;
    c->full_passes = passes > 0 ? (size_t)passes : 0;
    if (!c->has_full && c->n_group_cfg == 0) {
        td_sw_error("profiler_failed", "context %u: --replay-mode none needs counter groups "
                    "of one pass, and there are none; use --replay-mode auto", c->uid);
        return -1;
    }
    return 0;
}

/* Picks the arch table and sets the Range Profiler up; problems are error
 * records, and the context's launches are then only timed. */
static const td_arch *setup_profiler(ctx_state *c, CUdevice dev, const char *gpu,
                                     const char *chip, int major, int minor)
{
    if (major * 10 + minor < 75) {
        td_sw_error("unsupported_gpu", "%s is CC %d.%d: the CUPTI Range Profiler needs Turing "
                    "(CC 7.5) or newer; profile with nvprof and read its CSV with "
                    "`topdown import-nvprof` (legacy tables, MODEL.md section 5)", gpu,
                    major, minor);
        return NULL;
    }
    const td_arch *arch = choose_arch(chip, major, minor);
    const char *forced = td_g.opts.arch;
    if (!arch) {
        td_sw_error("no_arch_table", forced
                    ? "no arch table named '%s': `topdown list-archs` shows them"
                    : "no arch table for chip %s (CC %d.%d): add one to archs/ "
                    "(docs/ARCH_TABLES.md) or force one with --arch",
                    forced ? forced : chip, major, minor);
        return NULL;
    }
    if (arch->source != TD_SOURCE_RANGE_PROFILER) {
        td_sw_error("no_arch_table", "arch table %s holds nvprof metrics, which the Range "
                    "Profiler cannot collect; choose a CC >= 7.5 table", arch->name);
        return NULL;
    }
    c->dev = dev;
    snprintf(c->gpu, sizeof c->gpu, "%s", gpu);
    if (td_pcs_only())
        return arch; /* --source-only: the table names the device, no counters */
    c->n_metrics = td_arch_metrics(arch, c->metrics, MAX_METRICS);
    /* the memory section's counters from the counter groups alone: in a
     * replay they doubled its time (PyTorch on an H200, 55 -> 108 ms);
     * --replay-mode kernel, which has no groups, replays them too */
    const char *model[MAX_METRICS];
    c->n_full = td_g.mode == TD_REPLAY_KERNEL ? c->n_metrics
                                               : td_arch_model_metrics(arch, model, MAX_METRICS);
    c->duration_metric = arch->counter[TD_C_DURATION_NS];
    snprintf(c->chip, sizeof c->chip, "%s", chip);
    c->rotation_ranges = rotation_ranges();
    c->window = calloc(td_g.batch > c->rotation_ranges ? td_g.batch : c->rotation_ranges,
                       sizeof *c->window);
    if (!c->window || open_profiler(c, arch) != 0) {
        report_open_failure(c, gpu);
        close_configs(c);
        td_rp_close(&c->rp);
        c->n_metrics = c->n_full = 0;
        return arch;
    }
    c->profiling = 1;
    return arch;
}

/* --pm-interval: the device's PM sampler instead of the context's Range
 * Profiler. Both program the same counters and CUPTI documents no way to
 * run them together, so launches are only timed (said once). */
static const td_arch *setup_pm_sampling(ctx_state *c, uint32_t device, const char *chip,
                                        int major, int minor)
{
    if (!td_g.pm_said) {
        td_g.pm_said = 1;
        td_sw_warning("--pm-interval: PM sampling and per-launch counters (the Range "
                      "Profiler) share the GPU's counters, so launches are only timed; the "
                      "level-1 split is in the PM timeline (topdown report FILE --pm-timeline)");
    }
    const td_arch *arch = choose_arch(chip, major, minor);
    if (!arch || arch->source != TD_SOURCE_RANGE_PROFILER || arch->n_pm_metrics == 0) {
        td_sw_error("no_arch_table", "no arch table with a \"pm_sampling\" set for chip %s "
                    "(CC %d.%d): no PM timeline (docs/ARCH_TABLES.md)", chip, major, minor);
        return arch;
    }
    snprintf(c->chip, sizeof c->chip, "%s", chip);
    td_pms_start(device, c->uid, chip, arch, td_g.pm_interval_ns, td_g.t0);
    return arch;
}

static void emit_device(const ctx_state *c, uint32_t device, const char *gpu,
                        const char *chip, int major, int minor, int sms, const td_arch *arch)
{
    cJSON *rec = td_sw_record("device");
    if (!rec)
        return;
    int cc[2] = {major, minor};
    cJSON_AddNumberToObject(rec, "context", c->uid);
    cJSON_AddNumberToObject(rec, "device", device);
    cJSON_AddStringToObject(rec, "name", gpu);
    cJSON_AddStringToObject(rec, "chip", chip);
    cJSON_AddItemToObject(rec, "cc", cJSON_CreateIntArray(cc, 2));
    cJSON_AddNumberToObject(rec, "sm_count", sms);
    /* the SM clock the launches' measured clocks are held against */
    CUdevice dev = 0;
    int khz = 0;
    if (cuDeviceGet(&dev, (int)device) == CUDA_SUCCESS &&
        cuDeviceGetAttribute(&khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev) == CUDA_SUCCESS && khz > 0)
        cJSON_AddNumberToObject(rec, "clock_mhz", khz / 1000);
    cJSON_AddStringToObject(rec, "arch", arch ? arch->name : "none");
    cJSON_AddNumberToObject(rec, "passes", c->profiling ? (double)c->full_passes : 0);
    cJSON_AddNumberToObject(rec, "batch", (double)td_g.batch);
    if (td_g.flush_caches && c->profiling)
        cJSON_AddStringToObject(rec, "cache_control", c->flush.ready ? "all" : "none");
    cJSON_AddItemToObject(rec, "metrics", cJSON_CreateStringArray(c->metrics,
                                                                   (int)c->n_metrics));
    if (c->n_full < c->n_metrics)
        cJSON_AddNumberToObject(rec, "full_set", (double)c->n_full);
    if (c->profiling && c->n_group_cfg) {
        cJSON *groups = cJSON_AddArrayToObject(rec, "groups");
        for (size_t gi = 0; gi < c->n_group_cfg; gi++) {
            int ints[TD_MAX_GROUP_METRICS];
            for (size_t i = 0; i < c->groups.size[gi]; i++)
                ints[i] = (int)c->group_metric[gi][i];
            cJSON_AddItemToArray(groups, cJSON_CreateIntArray(ints, (int)c->groups.size[gi]));
        }
    }
    td_sw_emit(rec);
}

/* --cache-control all: where it cannot be set up, the context's launches
 * are measured unflushed, and the device record and a warning say so. */
static void setup_flush(ctx_state *c, CUdevice dev)
{
    char why[256];
    if (!td_g.flush_caches || !c->profiling || td_flush_open(&c->flush, dev, why, sizeof why) == 0)
        return;
    td_sw_warning("--cache-control all: cannot flush the caches of context %u (%s); its "
                  "launches are measured with the caches as the app left them", c->uid, why);
}

static void setup_context(ctx_state *c)
{
    uint32_t device = 0;
    CUdevice dev = 0;
    char gpu[256] = "unknown GPU";
    int major = 0, minor = 0, sms = 0;
    cuptiGetDeviceId(c->ctx, &device);
    cuDeviceGet(&dev, (int)device);
    cuDeviceGetName(gpu, sizeof gpu, dev);
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    int sm_threads = 0;
    cuDeviceGetAttribute(&sm_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev);
    if ((double)sms * sm_threads > td_g.full_threads)
        td_g.full_threads = (double)sms * sm_threads;
    CUpti_Device_GetChipName_Params chip = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = device;
    if (cuptiDeviceGetChipName(&chip) != CUPTI_SUCCESS || !chip.pChipName)
        chip.pChipName = "unknown";
    double t0 = now_s();
    const td_arch *arch = td_g.pm_interval_ns
                              ? setup_pm_sampling(c, device, chip.pChipName, major, minor)
                              : setup_profiler(c, dev, gpu, chip.pChipName, major, minor);
    setup_flush(c, dev);
    emit_device(c, device, gpu, chip.pChipName, major, minor, sms, arch);
    td_pcs_context_start(c->ctx, c->uid); /* --source; after the profiler is set up */
    pay_once(&td_g.setup_s, now_s() - t0);
    if (td_debug_on())
        td_debug("inject", "context %u set up in %.1f ms", c->uid, 1e3 * (now_s() - t0));
}

ctx_state *context_for(CUcontext ctx, uint32_t uid)
{
    for (ctx_state *c = td_g.contexts; c; c = c->next)
        if (c->uid == uid)
            return c;
    ctx_state *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ctx = ctx;
    c->uid = uid;
    setup_context(c);
    c->next = td_g.contexts;
    td_g.contexts = c;
    return c;
}

void forget_context(uint32_t uid)
{
    for (ctx_state **p = &td_g.contexts; *p; p = &(*p)->next) {
        ctx_state *c = *p;
        if (c->uid != uid)
            continue;
        close_window(c);
        say_start_failures(c);
        td_pcs_context_end(c->ctx, uid);
        close_configs(c);
        td_rp_close(&c->rp);
        td_pms_context_ending(uid);
        if (c->flush.ready && cuCtxPushCurrent(c->ctx) == CUDA_SUCCESS) {
            CUcontext popped;
            td_flush_close(&c->flush);
            cuCtxPopCurrent(&popped);
        }
        td_progress_free(&c->progress);
        *p = c->next;
        free(c->window);
        free(c);
        return;
    }
}
