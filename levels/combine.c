#include "levels/combine.h"

#include <stdlib.h>
#include <string.h>

static void add_one(td_combine *acc, size_t slot, const td_device *dev, const td_launch *l,
                    int metric, double cycles)
{
    if (!td_launch_measured(dev, l, metric))
        return;
    acc->num[slot] += l->counters[metric];
    acc->den[slot] += cycles;
}

void td_combine_add(td_combine *acc, const td_model *m, const td_binding *b,
                    const td_device *dev, const td_launch *l)
{
    int cycles_index = b->counter[TD_C_CYCLES_ACTIVE];
    if (!l->profiled || !l->counters || !td_launch_measured(dev, l, cycles_index))
        return;
    double cycles = l->counters[cycles_index];
    if (!(cycles > 0))
        return; /* no active cycle: nothing to scale by */
    for (int c = 0; c < TD_COUNTER_COUNT; c++)
        add_one(acc, (size_t)c, dev, l, b->counter[c], cycles);
    for (size_t i = 0; i < m->arch->n_stalls; i++)
        add_one(acc, TD_COUNTER_COUNT + i, dev, l, b->stall[i], cycles);
    acc->cycles += cycles;
    acc->launches++;
}

static const td_counter issue_counters[] = {TD_C_INST_EXECUTED, TD_C_INST_ISSUED,
                                            TD_C_THREAD_INST_EXECUTED};

int td_combine_model(const td_combine *acc, const td_model *m, const td_binding *b,
                     const td_device *dev, td_breakdown *out, size_t *missing,
                     td_error *err)
{
    memset(out, 0, sizeof *out);
    *missing = m->arch->n_stalls + 1;
    for (size_t i = 0; i < sizeof issue_counters / sizeof *issue_counters; i++)
        if (!(acc->den[issue_counters[i]] > 0))
            return td_fail(err, "no launch measured %s",
                           td_counter_key(issue_counters[i]));
    double mean_cycles = acc->cycles / (double)acc->launches;
    double *counters = calloc(dev->n_metrics ? dev->n_metrics : 1, sizeof *counters);
    if (!counters)
        return td_fail(err, "out of memory");
    for (int c = 0; c < TD_COUNTER_COUNT; c++)
        if (b->counter[c] >= 0 && acc->den[c] > 0)
            counters[b->counter[c]] = acc->num[c] / acc->den[c] * mean_cycles;
    counters[b->counter[TD_C_CYCLES_ACTIVE]] = mean_cycles;
    *missing = 0;
    for (size_t i = 0; i < m->arch->n_stalls; i++) {
        size_t slot = TD_COUNTER_COUNT + i;
        if (acc->den[slot] > 0)
            counters[b->stall[i]] = acc->num[slot] / acc->den[slot] * mean_cycles;
        else
            (*missing)++;
    }
    td_launch combined = {.kernel = "(combined)", .profiled = 1, .group = TD_GROUP_ALL,
                          .counters = counters};
    int rc = td_model_launch(m, b, &combined, out, err);
    free(counters);
    return rc;
}
