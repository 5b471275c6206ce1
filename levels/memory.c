#include "levels/memory.h"

#include <math.h>
#include <string.h>

/* A measured value of launch l, or -1 where its pass did not measure it. */
static double measured(const td_device *dev, const td_launch *l, int metric)
{
    if (metric < 0 || !td_launch_measured(dev, l, metric))
        return -1;
    double v = l->counters[metric];
    return isfinite(v) && v >= 0 ? v : -1;
}

/* Adds the launch's sources of each stall it measured with them: a split
 * is taken launch by launch against its own stall's pass. */
static void add_sources(td_mem_totals *t, const td_model *m, const td_binding *b,
                        const td_device *dev, const td_launch *l)
{
    const td_arch_memory *mem = &m->arch->memory;
    double units[TD_MEM_MAX_SOURCES];
    int ok[TD_MEM_MAX_SOURCES], added = 0;
    for (size_t s = 0; s < mem->n_sources; s++) {
        int stall = m->source_stall[s];
        double v = measured(dev, l, b->mem.source[s]);
        ok[s] = b->mem.source_ok[s] && stall >= 0 && measured(dev, l, b->stall[stall]) >= 0 &&
                v >= 0;
        units[s] = ok[s] ? v / mem->sources[s].per_sector : 0;
    }
    /* a stall's sources count together or not at all */
    for (size_t s = 0; s < mem->n_sources; s++)
        for (size_t o = 0; o < mem->n_sources && ok[s]; o++)
            if (td_mem_same_split(mem, s, o) && !ok[o])
                ok[s] = 0;
    for (size_t s = 0; s < mem->n_sources; s++) {
        if (!ok[s])
            continue;
        t->weighted[s] += units[s] * mem->sources[s].latency_cycles;
        added = 1;
    }
    t->split_launches += added;
}

/* The share of its range's elapsed cycles the kernel itself ran: a range
 * outlasts its launch, and a kernel of tens of microseconds ran a median
 * 56% of its range (PyTorch's multi_tensor_apply, 274 group launches on
 * an H200: DRAM 32-47% of peak over the range against ncu's 52-69%); the
 * kernel's own time is its activity record's. */
static double kernel_share(const td_binding *b, const td_device *dev, const td_launch *l)
{
    double range_ns = measured(dev, l, b->counter[TD_C_DURATION_NS]);
    if (range_ns > 0 && l->duration_ns > 0 && l->duration_ns < range_ns)
        return l->duration_ns / range_ns;
    return 1.0;
}

static void add_units(td_mem_totals *t, const td_model *m, const td_binding *b,
                      const td_device *dev, const td_launch *l)
{
    const td_arch_memory *mem = &m->arch->memory;
    double share = kernel_share(b, dev, l);
    for (size_t u = 0; u < mem->n_units; u++) {
        if (!b->mem.unit_ok[u])
            continue;
        double peak = measured(dev, l, b->mem.peak[u]);
        double cycles = measured(dev, l, b->mem.cycles[u]);
        double work = 0;
        for (size_t w = 0; w < mem->units[u].n_work && work >= 0; w++) {
            double v = measured(dev, l, b->mem.work[u][w]);
            work = v < 0 ? -1 : work + v;
        }
        if (peak <= 0 || cycles <= 0 || work < 0)
            continue;
        t->work[u] += work;
        t->capacity[u] += peak * cycles * share;
        t->unit_launches[u]++;
    }
}

void td_mem_add_launch(td_mem_totals *t, const td_model *m, const td_binding *b,
                       const td_device *dev, const td_launch *l)
{
    if (!l->profiled || !l->counters)
        return;
    add_sources(t, m, b, dev, l);
    add_units(t, m, b, dev, l);
}

unsigned td_mem_shares(const td_model *m, const td_mem_totals *t, double *share)
{
    const td_arch_memory *mem = &m->arch->memory;
    unsigned present = 0;
    for (size_t s = 0; s < mem->n_sources; s++) {
        double sum = 0;
        for (size_t o = 0; o < mem->n_sources; o++)
            if (td_mem_same_split(mem, s, o))
                sum += t->weighted[o];
        share[s] = sum > 0 ? t->weighted[s] / sum : 0;
        if (sum > 0 && m->source_stall[s] >= 0)
            present |= 1u << s;
    }
    return present;
}

double td_mem_pct(const td_mem_totals *t, size_t u)
{
    if (u >= TD_MEM_MAX_UNITS || !t->unit_launches[u] || !(t->capacity[u] > 0))
        return NAN;
    return 100.0 * t->work[u] / t->capacity[u];
}

double td_mem_unit_pct(const td_arch_memory *mem, const td_mem_totals *t, size_t u)
{
    double best = NAN;
    for (size_t v = 0; u < mem->n_units && v < mem->n_units; v++) {
        double pct = td_mem_pct(t, v);
        if (strcmp(mem->units[v].name, mem->units[u].name) == 0 && !isnan(pct) &&
            (isnan(best) || pct > best))
            best = pct;
    }
    return best;
}

int td_mem_unit_first(const td_arch_memory *mem, size_t u)
{
    for (size_t v = 0; v < u && u < mem->n_units; v++)
        if (strcmp(mem->units[v].name, mem->units[u].name) == 0)
            return 0;
    return u < mem->n_units;
}

void td_mem_split(const td_model *m, const td_mem_totals *t, td_breakdown *mean,
                  td_breakdown *spread)
{
    double share[TD_MEM_MAX_SOURCES];
    unsigned present = td_mem_shares(m, t, share);
    for (int node = 0; node < m->n_tree; node++) {
        int s = m->tree[node].source;
        if (s < 0 || !(present >> s & 1u))
            continue;
        if ((size_t)m->source_stall[s] >= mean->n_stalls) {
            present &= ~(1u << s);
            continue;
        }
        int stall = td_model_stall_index(m, (size_t)m->source_stall[s]);
        mean->value[node] = mean->value[stall] * share[s];
        if (spread)
            spread->value[node] = spread->value[stall] * share[s];
    }
    mean->sources = present;
    if (spread)
        spread->sources = present;
}
