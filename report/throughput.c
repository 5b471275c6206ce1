#include "report/throughput.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "report/wrap.h"

void td_kernel_throughput(const td_model *m, const td_kernel_summary *ks,
                          double pct[TD_MEM_MAX_UNITS])
{
    for (size_t u = 0; u < TD_MEM_MAX_UNITS; u++)
        pct[u] = !ks->mixed_arch ? td_mem_unit_pct(&m->arch->memory, &ks->mem, u) : NAN;
}

void td_print_throughput(FILE *out, const td_model *m, const double *pct)
{
    const td_arch_memory *mem = &m->arch->memory;
    if (!mem->n_units)
        return;
    fputs("  Speed of light:", out);
    for (size_t u = 0; u < mem->n_units; u++) {
        if (!td_mem_unit_first(mem, u))
            continue;
        fprintf(out, "%s %s ", u ? "," : "", mem->units[u].name);
        if (isnan(pct[u]))
            fputs(TD_NOT_MEASURED, out);
        else
            fprintf(out, "%.1f%%", pct[u]);
    }
    fputs(" of peak\n", out);
}

int td_throughput_add_json(cJSON *obj, const td_model *m, const double *pct)
{
    const td_arch_memory *mem = &m->arch->memory;
    if (!mem->n_units)
        return 0;
    cJSON *units = cJSON_AddObjectToObject(obj, "throughput_pct_of_peak");
    for (size_t u = 0; units && u < mem->n_units; u++)
        if (td_mem_unit_first(mem, u) && !(isnan(pct[u]) ? cJSON_AddNullToObject(units, mem->units[u].name)
                            : cJSON_AddNumberToObject(units, mem->units[u].name, pct[u])))
            return -1;
    return units ? 0 : -1;
}

const char *td_source_fix(const td_model *m, int node, const double *pct, char *buf,
                          size_t size)
{
    const td_mem_source *s = node >= 0 ? m->tree[node].source_map : NULL;
    if (!s || s->unit < 0 || isnan(pct[s->unit]))
        return NULL;
    const char *unit = m->arch->memory.units[s->unit].name;
    if (pct[s->unit] >= TD_SOL_BOUND_PCT)
        snprintf(buf, size, "Fix: %s at %.0f%% of its peak: the loads are bandwidth-bound; move "
                 "fewer bytes through it (reuse in shared memory or a nearer cache, smaller types, "
                 "fused kernels), not better latency hiding.", unit, pct[s->unit]);
    else
        snprintf(buf, size, "Fix: %s at %.0f%% of its peak: the loads wait on its latency, not "
                 "its bandwidth; keep more of them in flight (more warps, independent loads "
                 "unrolled, prefetch with cp.async/TMA) or serve them from a nearer level.",
                 unit, pct[s->unit]);
    return buf;
}
