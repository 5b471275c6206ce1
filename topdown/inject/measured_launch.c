/* A measured launch (or graph launch): added to its configuration's
 * window, counted, and its cost charged, from its enter callback to its
 * exit callback (inject.c and graphs.c share it). */
#include "topdown/inject/measured_launch.h"

#include "topdown/inject/measure_policy.h"
#include "topdown/inject/window.h"

/* A launch (or graph launch) is being profiled: count it, and time what it
 * costs from t0, its enter callback, to its exit callback. */
static void begin_profiled_launch(ctx_state *c, const launch_rec *l, double t0)
{
    td_filter_count_profiled(&td_g.filter);
    progress_of(c, l->kernel)->profiled++;
    td_g.in_profiled_launch = 1;
    td_g.launch_t0 = t0;
}

/* Its cost, less the waits for the app's own GPU work. */
void end_profiled_launch(void)
{
    double cost = now_s() - td_g.launch_t0 - td_g.waited_s - td_g.excluded_in_launch_s;
    if (td_g.launch_covers) {
        pay_once(&td_g.coverage_s, cost);
    } else {
        td_g.budget.spent_s += cost;
        if (td_g.launch_kernel)
            td_g.launch_kernel->budget_spent_s += cost;
    }
    td_g.launch_kernel = NULL;
    td_g.waited_s = 0;
    td_g.excluded_in_launch_s = 0;
    td_g.launch_covers = 0;
    td_g.in_profiled_launch = 0;
}

/* Measures a chosen launch. Its clock runs from t0, its enter callback:
 * what setting it up spends (the batch before it written, another
 * configuration) is its cost, also when it then could not be measured. */
int profile_launch(ctx_state *c, launch_rec *l, double t0)
{
    td_g.in_profiled_launch = 1; /* close_window: the launch pays */
    td_g.launch_t0 = t0;
    td_g.launch_kernel = l->kernel;
    if (add_to_window(c, l)) {
        begin_profiled_launch(c, l, t0);
        return 1;
    }
    end_profiled_launch();
    return 0;
}
