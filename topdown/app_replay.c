/* --replay-mode application (ncu's name): the app is run once for each
 * counter group, each run measuring every launch with its one group and no
 * kernel replay, and the runs' launches are joined into the first run's
 * result by kernel name and per-kernel ordinal (report/app_passes.h).
 * What kernel replay cannot serve it can: the device heap, kernels
 * launched once, and every pass runs with the app's own caches, as the
 * app left them (kernel replay runs its later passes after the first). */
#define _GNU_SOURCE
#include "topdown/profile.h"

#include <stdio.h>
#include <string.h>

#include "metrics/result/cost.h"
#include "metrics/result/result.h"
#include "report/app_passes.h"

/* One later run, measuring group g, into *pass. *why gets a reason when
 * the run counts for nothing (its exit differs from the first run's). */
static int run_group(const launch_plan *first, td_collect_opts *collect, long g,
                     const td_profile_outcome *out, td_result *pass, char *why, size_t size,
                     td_error *err)
{
    collect->app_pass = g;
    int code = 0;
    if (td_profile_run_pass(first, out, pass, &code, err))
        return td_fail_context(err, "application replay, run %ld", g + 1);
    if (code != out->app_exit_code)
        snprintf(why, size, "run %ld of the app exited with %d where the first exited with %d",
                 g + 1, code, out->app_exit_code);
    return 0;
}

/* A later run is all cost (the first is the native run): its whole time
 * counts as coverage, what gives each launch its full set, so the Cost
 * line's share of native is the runs', not the first run's alone. */
static void add_run_cost(td_cost *cost, const td_cost *run)
{
    if (!td_cost_recorded(cost) || !td_cost_recorded(run))
        return;
    cost->elapsed_s += run->elapsed_s;
    cost->coverage_s += run->elapsed_s;
}

static int describe(td_result *res, const td_app_passes_stats *st, long groups,
                    const char *stopped)
{
    char text[1536];
    snprintf(text, sizeof text, "application replay: the app ran %zu of %ld times (once per "
             "counter group); %zu of its %zu profiled launches were matched in every run "
             "(kernel name, ordinal, grid and block) and have the full set%s%s",
             st->passes, groups, st->complete, st->launches,
             stopped[0] ? "; stopped: " : "", stopped);
    return td_result_set_collection(res, "application", text);
}

int td_app_replay_passes(const launch_plan *plan, td_collect_opts *collect,
                         td_profile_outcome *out, td_result *res, td_error *err)
{
    long groups = (long)td_result_most_groups(res);
    td_app_passes *join = NULL;
    if (td_app_passes_begin(res, &join, err))
        return -1;
    char stopped[512] = "";
    int rc = 0;
    for (long g = 1; g < groups && rc == 0 && !stopped[0]; g++) {
        if (td_profile_interrupted()) {
            snprintf(stopped, sizeof stopped, "interrupted before run %ld", g + 1);
            break;
        }
        td_result pass;
        memset(&pass, 0, sizeof pass);
        rc = run_group(plan, collect, g, out, &pass, stopped, sizeof stopped, err);
        if (rc == 0 && !stopped[0]) {
            rc = td_app_passes_add(join, res, &pass, err);
            add_run_cost(&res->cost, &pass.cost);
        }
        td_result_free(&pass);
    }
    collect->app_pass = 0;
    td_app_passes_stats st;
    td_app_passes_finish(join, res, &st);
    if (rc)
        return -1;
    if (describe(res, &st, groups, stopped))
        return td_fail(err, "out of memory");
    return td_result_save(out->result_path, res, err);
}
