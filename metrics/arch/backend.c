#include "metrics/arch/backend.h"

#include <string.h>

static const char *const counter_keys[TD_COUNTER_COUNT] = {
    [TD_C_INST_EXECUTED] = "inst_executed",
    [TD_C_INST_ISSUED] = "inst_issued",
    [TD_C_THREAD_INST_EXECUTED] = "thread_inst_executed",
    [TD_C_CYCLES_ACTIVE] = "cycles_active",
    [TD_C_DURATION_NS] = "duration_ns",
    [TD_C_IPC] = "ipc",
    [TD_C_ISSUED_IPC] = "issued_ipc",
    [TD_C_WARP_EFF] = "warp_execution_efficiency",
    [TD_C_WARPS_ACTIVE] = "warps_active",
    [TD_C_CYCLES_ELAPSED_MAX] = "cycles_elapsed_max",
};

static double safe_ratio(double num, double den)
{
    return den > 0 ? num / den : 0.0;
}

static double clamp01(double x)
{
    return x < 0 ? 0 : (x > 1 ? 1 : x);
}

static td_issue_rates rates_range_profiler(const double *c, const int *index)
{
    double cycles = c[index[TD_C_CYCLES_ACTIVE]];
    double inst = c[index[TD_C_INST_EXECUTED]];
    double issued = c[index[TD_C_INST_ISSUED]];
    double threads = c[index[TD_C_THREAD_INST_EXECUTED]];
    td_issue_rates r = {
        .ipc = safe_ratio(inst, cycles),
        .ipc_issued = safe_ratio(issued, cycles),
        /* No instruction executed: no thread was idle either. */
        .warp_eff = inst > 0 ? clamp01(threads / (32.0 * inst)) : 1.0,
        .has_slots = cycles > 0,
    };
    return r;
}

static td_issue_rates rates_nvprof(const double *c, const int *index)
{
    td_issue_rates r = {
        .ipc = c[index[TD_C_IPC]],
        .ipc_issued = c[index[TD_C_ISSUED_IPC]],
        .warp_eff = clamp01(c[index[TD_C_WARP_EFF]] / 100.0),
        .has_slots = 1,
    };
    return r;
}

/* MODEL.md sections 2 and 5. */
static const td_backend_info backends[TD_BACKEND_COUNT] = {
    [TD_BACKEND_RANGE_PROFILER] = {
        TD_BACKEND_RANGE_PROFILER, "range_profiler", "cupti", 3,
        {{TD_C_INST_EXECUTED, 1}, {TD_C_INST_ISSUED, 1}, {TD_C_THREAD_INST_EXECUTED, 1},
         {TD_C_CYCLES_ACTIVE, 1}, {TD_C_DURATION_NS, 0}},
        5, rates_range_profiler},
    [TD_BACKEND_NVPROF] = {
        TD_BACKEND_NVPROF, "nvprof", "nvprof", 2,
        {{TD_C_IPC, 1}, {TD_C_ISSUED_IPC, 1}, {TD_C_WARP_EFF, 1}},
        3, rates_nvprof},
};

const td_backend_info *td_backend_get(td_backend id)
{
    return (id >= 0 && id < TD_BACKEND_COUNT) ? &backends[id] : NULL;
}

const td_backend_info *td_backend_find(const char *key)
{
    for (int s = 0; s < TD_BACKEND_COUNT; s++)
        if (key && strcmp(backends[s].key, key) == 0)
            return &backends[s];
    return NULL;
}

const char *td_backend_keys(void)
{
    return "\"range_profiler\" or \"nvprof\"";
}

int td_backend_max_depth(void)
{
    int depth = 0;
    for (int s = 0; s < TD_BACKEND_COUNT; s++)
        if (backends[s].depth > depth)
            depth = backends[s].depth;
    return depth;
}

const char *td_counter_key(td_counter c)
{
    return (c >= 0 && c < TD_COUNTER_COUNT) ? counter_keys[c] : "?";
}

int td_counter_find(const char *key)
{
    for (int c = 0; c < TD_COUNTER_COUNT; c++)
        if (key && strcmp(counter_keys[c], key) == 0)
            return c;
    return -1;
}
