#include "levels/pm_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "levels/memory.h"

const char *const td_pm_column_names[TD_PM_COLUMNS] = {"Retire", "Divergence", "Frontend",
                                                       "Backend", "Stalled"};

/* The counters level 1 reads (MODEL.md section 3). */
static const td_counter used[] = {TD_C_CYCLES_ACTIVE, TD_C_INST_EXECUTED, TD_C_INST_ISSUED,
                                  TD_C_THREAD_INST_EXECUTED};

static void bind_units(td_pm_model *pm, const td_arch_memory *mem, const td_pm_samples *s)
{
    for (size_t u = 0; u < mem->n_units; u++) {
        const td_mem_unit *unit = &mem->units[u];
        pm->peak_col[u] = td_pm_metric_index(s, unit->peak);
        pm->cycles_col[u] = td_pm_metric_index(s, unit->cycles);
        pm->unit_ok[u] = pm->peak_col[u] >= 0 && pm->cycles_col[u] >= 0;
        for (size_t w = 0; w < unit->n_work; w++) {
            pm->work_col[u][w] = td_pm_metric_index(s, unit->work[w]);
            pm->unit_ok[u] = pm->unit_ok[u] && pm->work_col[u][w] >= 0;
        }
    }
}

int td_pm_model_shows_unit(const td_pm_model *pm, size_t u)
{
    const td_arch_memory *mem = &pm->model.arch->memory;
    if (u >= mem->n_units || !td_mem_unit_first(mem, u))
        return 0;
    for (size_t v = 0; v < mem->n_units; v++)
        if (strcmp(mem->units[v].name, mem->units[u].name) == 0 && !pm->unit_ok[v])
            return 0;
    return 1;
}

/* Each shown unit's throughput over the rows (td_mem_unit_pct: its
 * busiest measure), % of its peak. */
static void unit_points(const td_pm_model *pm, const double *row, size_t rows, double *pct)
{
    const td_arch_memory *mem = &pm->model.arch->memory;
    td_mem_totals t;
    memset(&t, 0, sizeof t);
    for (size_t v = 0; v < mem->n_units; v++) {
        if (!pm->unit_ok[v])
            continue;
        for (size_t w = 0; w < mem->units[v].n_work; w++)
            t.work[v] += row[pm->work_col[v][w]];
        /* the rows' peaks per cycle summed: rows x the peak */
        t.capacity[v] = row[pm->peak_col[v]] / (double)(rows ? rows : 1) * row[pm->cycles_col[v]];
        t.unit_launches[v] = 1;
    }
    for (size_t u = 0; u < TD_MEM_MAX_UNITS; u++)
        pct[u] = td_pm_model_shows_unit(pm, u) ? td_mem_unit_pct(mem, &t, u) : NAN;
}

int td_pm_model_init(td_pm_model *pm, const td_arch *arch, const td_pm_samples *s,
                     td_error *err)
{
    memset(pm, 0, sizeof *pm);
    if (arch->source != TD_BACKEND_RANGE_PROFILER)
        return td_fail(err, "arch table %s is not a CUPTI table; PM samples need one", arch->name);
    if (td_model_init(&pm->model, arch, err))
        return -1;
    for (int c = 0; c < TD_COUNTER_COUNT; c++) {
        pm->col[c] = td_pm_metric_index(s, arch->counter[c]);
        pm->bind.counter[c] = c; /* the vector holds counter c at c */
    }
    if (pm->col[TD_C_THREAD_INST_EXECUTED] < 0 && arch->pm_thread_inst &&
        (pm->col[TD_C_THREAD_INST_EXECUTED] = td_pm_metric_index(s, arch->pm_thread_inst)) >= 0)
        pm->thread_stand_in = 1;
    for (size_t i = 0; i < sizeof used / sizeof *used; i++)
        if (pm->col[used[i]] < 0 && (used[i] == TD_C_CYCLES_ACTIVE || used[i] == TD_C_INST_EXECUTED))
            return td_fail(err, "the PM samples lack %s (%s): no level-1 split is possible",
                           arch->counter[used[i]] ? arch->counter[used[i]] : "?",
                           used[i] == TD_C_CYCLES_ACTIVE ? "active cycles" : "executed instructions");
    pm->split_stalls = arch->n_stalls > 0;
    for (size_t i = 0; i < arch->n_stalls; i++) {
        pm->stall_col[i] = td_pm_metric_index(s, arch->stalls[i].metric);
        pm->bind.stall[i] = TD_COUNTER_COUNT + (int)i;
        pm->split_stalls &= pm->stall_col[i] >= 0;
    }
    pm->split_branch = pm->col[TD_C_THREAD_INST_EXECUTED] >= 0;
    pm->split_replay = pm->col[TD_C_INST_ISSUED] >= 0;
    bind_units(pm, &arch->memory, s);
    return 0;
}

void td_pm_model_point(const td_pm_model *pm, const double *row, size_t rows,
                       td_pm_point *out)
{
    double v[TD_COUNTER_COUNT + TD_MAX_STALLS] = {0};
    const int *col = pm->col;
    double inst = row[col[TD_C_INST_EXECUTED]];
    v[TD_C_CYCLES_ACTIVE] = row[col[TD_C_CYCLES_ACTIVE]];
    v[TD_C_INST_EXECUTED] = inst;
    /* Stand-ins that leave the missing node at 0 and its slots with the
     * node that holds them: every thread active (Branch in Retire), issued
     * = executed (Replay in the stalled slots). */
    v[TD_C_INST_ISSUED] = pm->split_replay ? row[col[TD_C_INST_ISSUED]] : inst;
    v[TD_C_THREAD_INST_EXECUTED] =
        pm->split_branch ? row[col[TD_C_THREAD_INST_EXECUTED]] : 32.0 * inst;
    /* Some reasons only would split in the wrong proportions: none then. */
    for (size_t i = 0; pm->split_stalls && i < pm->model.arch->n_stalls; i++)
        v[TD_COUNTER_COUNT + i] = row[pm->stall_col[i]];
    td_breakdown b;
    td_model_counters(&pm->model, &pm->bind, v, &b);
    memset(out, 0, sizeof *out);
    unit_points(pm, row, rows, out->unit_pct);
    out->busy = b.has_slots;
    out->ipc = b.ipc;
    if (!b.has_slots)
        return;
    out->share[TD_PM_RETIRE] = 100.0 * b.node[TD_N_RETIRE];
    out->share[TD_PM_DIVERGENCE] = 100.0 * b.node[TD_N_DIVERGENCE];
    out->share[TD_PM_FRONTEND] = 100.0 * b.node[TD_N_FRONTEND];
    out->share[TD_PM_BACKEND] = 100.0 * b.node[TD_N_BACKEND];
    out->share[TD_PM_STALLED] = 100.0 * b.unattributed;
}

static void say(char *buf, size_t size, size_t *used, int *count, const char *text)
{
    int n = snprintf(buf + *used, *used < size ? size - *used : 0, "%s\n", text);
    if (n > 0)
        *used += (size_t)n < size - *used ? (size_t)n : size - *used;
    (*count)++;
}

int td_pm_model_unsplit(const td_pm_model *pm, char *buf, size_t size)
{
    size_t used = 0;
    int count = 0;
    if (size)
        buf[0] = '\0';
    if (!pm->split_branch)
        say(buf, size, &used, &count,
            "Retire includes Divergence.Branch: thread_inst_executed is not sampled");
    if (pm->thread_stand_in)
        say(buf, size, &used, &count,
            "Divergence.Branch counts predicated-off threads too: PM sampling reads threads "
            "with their predicate on, not thread_inst_executed");
    if (!pm->split_replay)
        say(buf, size, &used, &count,
            "Divergence.Replay is counted as Stalled: inst_issued is not sampled");
    if (!pm->split_stalls)
        say(buf, size, &used, &count,
            "Frontend and Backend are not split (shown together as Stalled), nor anything "
            "below them: the stall reasons are not sampled");
    return count;
}
