#include "metrics/arch/groups.h"

#include <stdint.h>
#include <string.h>

#include "metrics/xorshift.h"

void td_groups_from_table(const td_arch *arch, td_groups *out)
{
    memset(out, 0, sizeof *out);
    for (size_t g = 0; g < arch->n_groups && g < TD_MAX_GROUPS; g++) {
        const td_arch_group *src = &arch->groups[g];
        for (size_t i = 0; i < src->n && i < TD_MAX_GROUP_METRICS; i++)
            out->metric[g][out->size[g]++] = src->metrics[i];
        out->n++;
    }
}

int td_groups_find(const td_groups *groups, const char *metric)
{
    for (size_t g = 0; g < groups->n; g++)
        for (size_t i = 0; i < groups->size[g]; i++)
            if (strcmp(groups->metric[g][i], metric) == 0)
                return (int)g;
    return -1;
}

static size_t occurrences(const td_groups *groups, const char *metric)
{
    size_t count = 0;
    for (size_t g = 0; g < groups->n; g++)
        for (size_t i = 0; i < groups->size[g]; i++)
            count += strcmp(groups->metric[g][i], metric) == 0;
    return count;
}

static int in_group(const td_groups *groups, size_t g, const char *metric)
{
    for (size_t i = 0; i < groups->size[g]; i++)
        if (strcmp(groups->metric[g][i], metric) == 0)
            return 1;
    return 0;
}

int td_groups_per_pass(const td_arch *arch, const char *metric)
{
    static const td_counter per_pass[] = {TD_C_CYCLES_ACTIVE, TD_C_WARPS_ACTIVE,
                                          TD_C_DURATION_NS, TD_C_CYCLES_ELAPSED_MAX};
    for (size_t i = 0; i < sizeof per_pass / sizeof *per_pass; i++)
        if (arch->counter[per_pass[i]] && strcmp(arch->counter[per_pass[i]], metric) == 0)
            return 1;
    return 0;
}

static int check_coverage(const td_arch *arch, const td_groups *groups, td_error *err)
{
    const char *cycles = arch->counter[TD_C_CYCLES_ACTIVE];
    const char *needed[128];
    size_t n = td_arch_metrics(arch, needed, 128);
    for (size_t g = 0; g < groups->n; g++)
        if (!in_group(groups, g, cycles))
            return td_fail(err, "%s: counter group %zu lacks the cycles counter %s, which "
                           "every group needs", arch->name, g, cycles);
    for (size_t i = 0; i < n; i++) {
        size_t times = occurrences(groups, needed[i]);
        if (times == 0 && td_arch_memory_replay_only(&arch->memory, needed[i]))
            continue; /* kernel replay's alone */
        if (times == 0 || (!td_groups_per_pass(arch, needed[i]) && times != 1))
            return td_fail(err, "%s: metric %s is in %zu counter groups; each must be in "
                           "exactly one (the per-pass counters, such as %s, in one or more)",
                           arch->name, needed[i], times, cycles);
    }
    for (size_t g = 0; g < groups->n; g++)
        for (size_t i = 0; i < groups->size[g]; i++) {
            int known = 0;
            for (size_t j = 0; j < n && !known; j++)
                known = strcmp(needed[j], groups->metric[g][i]) == 0;
            if (!known)
                return td_fail(err, "%s: counter group %zu names %s, which the table does "
                               "not use", arch->name, g, groups->metric[g][i]);
        }
    return 0;
}

int td_groups_check(const td_arch *arch, const td_groups *groups, td_pass_counter count,
                    void *ctx, td_error *err)
{
    if (groups->n == 0)
        return td_fail(err, "%s: no counter groups", arch->name);
    if (check_coverage(arch, groups, err))
        return -1;
    for (size_t g = 0; count && g < groups->n; g++) {
        size_t passes = 0;
        if (count(ctx, groups->metric[g], groups->size[g], &passes, err))
            return -1;
        if (passes != 1)
            return td_fail(err, "%s: counter group %zu needs %zu passes, not one", arch->name,
                           g, passes);
    }
    return 0;
}

/* Adds metric to group g if the group stays one pass. */
static int try_add(td_groups *out, size_t g, const char *metric, td_pass_counter count,
                   void *ctx, int *added, td_error *err)
{
    *added = 0;
    if (out->size[g] >= TD_MAX_GROUP_METRICS)
        return 0;
    out->metric[g][out->size[g]] = metric;
    size_t passes = 0;
    if (count(ctx, out->metric[g], out->size[g] + 1, &passes, err))
        return -1;
    if (passes == 1) {
        out->size[g]++;
        *added = 1;
    }
    return 0;
}

/* What every group holds besides its stall reasons: the active cycles, and
 * where the table names them the pass's own denominators (warps active,
 * duration) and the clock (levels/estimate.h). */
static void seed_group(const td_arch *arch, td_groups *out, size_t g)
{
    static const td_counter per_pass[] = {TD_C_CYCLES_ACTIVE, TD_C_WARPS_ACTIVE,
                                          TD_C_DURATION_NS, TD_C_CYCLES_ELAPSED_MAX};
    for (size_t i = 0; i < sizeof per_pass / sizeof *per_pass; i++)
        if (arch->counter[per_pass[i]] && (i == 0 || arch->counter[TD_C_WARPS_ACTIVE]))
            out->metric[g][out->size[g]++] = arch->counter[per_pass[i]];
}

static int place_stall(const td_arch *arch, td_groups *out, const char *metric,
                       td_pass_counter count, void *ctx, td_error *err)
{
    for (size_t g = 0; g < out->n; g++) {
        int added = 0;
        if (try_add(out, g, metric, count, ctx, &added, err))
            return -1;
        if (added)
            return 0;
    }
    if (out->n >= TD_MAX_GROUPS)
        return td_fail(err, "%s: more than %d counter groups", arch->name, TD_MAX_GROUPS);
    size_t g = out->n++;
    out->size[g] = 0;
    seed_group(arch, out, g);
    int added = 0;
    if (try_add(out, g, metric, count, ctx, &added, err))
        return -1;
    return added ? 0 : td_fail(err, "%s: %s does not fit one pass even beside the cycles "
                               "counter", arch->name, metric);
}

/* Puts metrics[0..n) in one group: the group already holding any of them,
 * else the first where all fit one pass, else a new one. */
static int place_bundle(const td_arch *arch, td_groups *out, const char *const *metrics,
                        size_t n, td_pass_counter count, void *ctx, td_error *err)
{
    int held = -1;
    for (size_t i = 0; i < n; i++) {
        int g = td_groups_find(out, metrics[i]);
        if (g >= 0 && held >= 0 && g != held)
            return td_fail(err, "%s: %s and the memory section's metrics measured with it lie "
                           "in different counter groups", arch->name, metrics[i]);
        if (g >= 0)
            held = g;
    }
    size_t first = held >= 0 ? (size_t)held : 0, last = held >= 0 ? (size_t)held + 1 : out->n + 1;
    for (size_t g = first; g < last && g < TD_MAX_GROUPS; g++) {
        if (g == out->n) {
            out->n++;
            out->size[g] = 0;
            seed_group(arch, out, g);
        }
        size_t before = out->size[g];
        for (size_t i = 0; i < n && out->size[g] < TD_MAX_GROUP_METRICS; i++)
            if (!in_group(out, g, metrics[i]))
                out->metric[g][out->size[g]++] = metrics[i];
        size_t passes = 0;
        if (count(ctx, out->metric[g], out->size[g], &passes, err))
            return -1;
        int all_in = 1;
        for (size_t i = 0; i < n; i++)
            all_in = all_in && in_group(out, g, metrics[i]);
        if (passes == 1 && all_in)
            return 0;
        out->size[g] = before;
    }
    return td_fail(err, "%s: the memory section's %s and the metrics measured with it do not "
                   "fit one pass", arch->name, metrics[0]);
}

/* The memory section's bundles: each split reason with its sources
 * (replay-only ones aside), each unit's work, peak and cycles. */
static int place_memory(const td_arch *arch, td_groups *out, td_pass_counter count, void *ctx,
                        td_error *err)
{
    const td_arch_memory *m = &arch->memory;
    const char *bundle[TD_MEM_MAX_METRICS + 1];
    size_t n = 0;
    for (size_t i = 0; i < arch->n_stalls; i++) {
        n = 0;
        for (size_t s = 0; s < m->n_sources; s++) {
            if (m->sources[s].replay_only || strcmp(m->sources[s].split, arch->stalls[i].reason))
                continue;
            if (!n)
                bundle[n++] = arch->stalls[i].metric;
            bundle[n++] = m->sources[s].metric;
        }
        if (n && place_bundle(arch, out, bundle, n, count, ctx, err))
            return -1;
    }
    for (size_t u = 0; u < m->n_units; u++) {
        n = 0;
        for (size_t w = 0; w < m->units[u].n_work; w++)
            bundle[n++] = m->units[u].work[w];
        bundle[n++] = m->units[u].peak;
        bundle[n++] = m->units[u].cycles;
        if (place_bundle(arch, out, bundle, n, count, ctx, err))
            return -1;
    }
    return 0;
}

int td_groups_derive(const td_arch *arch, const char *const *order, td_pass_counter count,
                     void *ctx, td_groups *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    if (!arch->counter[TD_C_CYCLES_ACTIVE])
        return td_fail(err, "%s: no cycles counter to build counter groups on", arch->name);
    out->n = 1;
    for (int c = 0; c < TD_COUNTER_COUNT; c++)
        if (arch->counter[c] && !in_group(out, 0, arch->counter[c]))
            out->metric[0][out->size[0]++] = arch->counter[c];
    size_t passes = 0;
    if (count(ctx, out->metric[0], out->size[0], &passes, err))
        return -1;
    if (passes != 1)
        return td_fail(err, "%s: the table's counters alone need %zu passes", arch->name,
                       passes);
    for (size_t i = 0; i < arch->n_stalls; i++) {
        const char *metric = order ? order[i] : arch->stalls[i].metric;
        if (place_stall(arch, out, metric, count, ctx, err))
            return -1;
    }
    return place_memory(arch, out, count, ctx, err);
}

int td_groups_search(const td_arch *arch, unsigned tries, td_pass_counter count, void *ctx,
                     td_groups *out, td_error *err)
{
    if (td_groups_derive(arch, NULL, count, ctx, out, err))
        return -1;
    const char *order[TD_MAX_STALLS];
    for (size_t i = 0; i < arch->n_stalls; i++)
        order[i] = arch->stalls[i].metric;
    uint32_t state = 0x2545f491u;
    for (unsigned t = 0; t < tries && arch->n_stalls > 1; t++) {
        for (size_t i = arch->n_stalls - 1; i > 0; i--) {
            size_t j = td_xorshift32(&state) % (i + 1);
            const char *swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        td_groups trial;
        if (td_groups_derive(arch, order, count, ctx, &trial, err))
            return -1;
        if (trial.n < out->n)
            *out = trial;
    }
    return 0;
}
