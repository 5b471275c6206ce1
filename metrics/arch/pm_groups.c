#include "metrics/arch/pm_groups.h"

#include <string.h>

static int named(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* 1 if group g with metric added is one pass (kept there), 0 if not. */
static int try_add(td_pm_plan *plan, size_t g, const char *metric, td_pm_passes_fn passes,
                   void *ctx, td_error *err)
{
    size_t n = plan->n_metrics[g];
    if (n >= TD_PM_MAX_PER_GROUP)
        return 0;
    plan->metrics[g][n] = metric;
    size_t p = 0;
    if (passes(ctx, plan->metrics[g], n + 1, &p))
        return td_fail(err, "PM-sampling groups: the pass count of %zu metrics with %s "
                       "failed", n + 1, metric);
    if (p != 1)
        return 0;
    plan->n_metrics[g] = n + 1;
    return 1;
}

/* A new group: metric alone, then each anchor that fits with it. */
static int open_group(td_pm_plan *plan, const char *const *anchors, size_t n_anchors,
                      const char *metric, td_pm_passes_fn passes, void *ctx, td_error *err)
{
    if (plan->n_groups == TD_PM_MAX_GROUPS)
        return td_fail(err, "PM-sampling groups: more than %d groups", TD_PM_MAX_GROUPS);
    size_t g = plan->n_groups++;
    plan->n_metrics[g] = 0;
    for (size_t a = 0; a < n_anchors; a++) {
        int rc = try_add(plan, g, anchors[a], passes, ctx, err);
        if (rc < 0)
            return -1;
    }
    int rc = try_add(plan, g, metric, passes, ctx, err);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    /* the anchors crowd it out: metric first, then the anchors */
    plan->n_metrics[g] = 0;
    if ((rc = try_add(plan, g, metric, passes, ctx, err)) != 1)
        return td_fail(err, "PM-sampling groups: %s fits one pass alone but not as a group's "
                       "first metric", metric);
    for (size_t a = 0; a < n_anchors; a++)
        if (try_add(plan, g, anchors[a], passes, ctx, err) < 0)
            return -1;
    return 0;
}

int td_pm_plan_groups(const char *const *anchors, size_t n_anchors, const char *const *metrics,
                      size_t n, td_pm_passes_fn passes, void *ctx, td_pm_plan *out,
                      td_error *err)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        if (named(anchors, n_anchors, metrics[i]) || named(metrics, i, metrics[i]))
            continue;
        size_t alone = 0;
        if (passes(ctx, &metrics[i], 1, &alone))
            return td_fail(err, "PM-sampling groups: %s cannot be sampled on this chip",
                           metrics[i]);
        if (alone != 1) {
            if (out->n_unplaced < TD_PM_MAX_GROUPS)
                out->unplaced[out->n_unplaced] = metrics[i];
            out->n_unplaced++;
            continue;
        }
        int placed = 0;
        for (size_t g = 0; g < out->n_groups && !placed; g++)
            if ((placed = try_add(out, g, metrics[i], passes, ctx, err)) < 0)
                return -1;
        if (!placed && open_group(out, anchors, n_anchors, metrics[i], passes, ctx, err))
            return -1;
    }
    return 0;
}

int td_pm_plan_group_of(const td_pm_plan *plan, const char *metric)
{
    for (size_t g = 0; g < plan->n_groups; g++)
        if (named(plan->metrics[g], plan->n_metrics[g], metric))
            return (int)g;
    return -1;
}
