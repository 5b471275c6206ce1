/* The PM-sampling groups (metrics/arch/pm_groups.h) with a pass count of
 * known shape: each metric costs some counter slots, a pass holds 4, and
 * a metric costing more than 4 never fits (as CUPTI 13.0's PM sampling
 * answers 2 passes for any stall reason on GH100). */
#include <string.h>

#include "check.h"
#include "metrics/arch/pm_groups.h"

static int cost_of(const char *metric)
{
    return metric[0] == 'h' ? 2 : metric[0] == 'x' ? 5 : 1; /* heavy, too big, light */
}

static int slots_passes(void *ctx, const char *const *metrics, size_t n, size_t *passes)
{
    int *calls = ctx, slots = 0;
    (*calls)++;
    for (size_t i = 0; i < n; i++) {
        if (metrics[i][0] == '!')
            return -1; /* unknown to the chip */
        slots += cost_of(metrics[i]);
    }
    *passes = (size_t)(slots + 3) / 4;
    return 0;
}

int main(void)
{
    const char *anchors[] = {"cycles"};
    const char *metrics[] = {"l1", "h1", "h2", "x1", "l2", "h3", "cycles", "l1", "h4"};
    td_pm_plan plan;
    td_error err;
    int calls = 0;
    CHECK(td_pm_plan_groups(anchors, 1, metrics, sizeof metrics / sizeof *metrics, slots_passes,
                            &calls, &plan, &err) == 0);
    /* cycles+l1+h1 (4); cycles+h2+l2 (4); cycles+h3 (3, h4 does not fit); cycles+h4 */
    CHECK(plan.n_groups == 4);
    CHECK(plan.n_unplaced == 1);
    CHECK_STR(plan.unplaced[0], "x1");
    for (size_t g = 0; g < plan.n_groups; g++)
        CHECK_STR(plan.metrics[g][0], "cycles"); /* the anchor opens every group */
    CHECK(plan.n_metrics[0] == 3);
    CHECK(td_pm_plan_group_of(&plan, "l2") == 1);
    CHECK(td_pm_plan_group_of(&plan, "h4") == 3);
    CHECK(td_pm_plan_group_of(&plan, "x1") == -1);
    CHECK(td_pm_plan_group_of(&plan, "cycles") == 0); /* once, the duplicate skipped */
    /* an anchor that fits no pass: groups without it */
    const char *big_anchor[] = {"xa"}, *light[] = {"l1", "l2"};
    CHECK(td_pm_plan_groups(big_anchor, 1, light, 2, slots_passes, &calls, &plan, &err) == 0);
    CHECK(plan.n_groups == 1 && plan.n_metrics[0] == 2);
    CHECK_STR(plan.metrics[0][0], "l1");
    /* a name the chip does not know: an error naming it */
    const char *unknown[] = {"l1", "!nope"};
    CHECK(td_pm_plan_groups(anchors, 1, unknown, 2, slots_passes, &calls, &plan, &err) != 0);
    CHECK(strstr(err.msg, "!nope") != NULL);
    return td_check_summary();
}
