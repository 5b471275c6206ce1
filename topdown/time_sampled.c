/* --time-sampled (issue 38): the tree of every launch from samples, with
 * no range and no replay. The first run PM-samples the GPU (--pm-interval:
 * cycles, executed and issued instructions) while launches are timed; a
 * second run samples PCs alone (--source-only: each kernel's warp states).
 * The two run apart because CUPTI 13.0's PM sampling refuses every stall
 * reason on GH100 (each needs two passes: benchmarks/pm_probe.cu) and the
 * two samplers in one process corrupted the app's heap on an H200
 * (2026-11-29). Then levels/attribute.h gives each launch its counters. */
#define _GNU_SOURCE
#include "topdown/profile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levels/attribute.h"
#include "metrics/arch/arch.h"
#include "metrics/result/cost.h"
#include "metrics/result/pcsamp.h"

/* The collector's warning under --pm-interval (topdown/inject/contexts.c),
 * untrue once the samples give launches their counters: its first words
 * and its last (it holds a "; " of its own). */
#define PM_ONLY_TIMED "--pm-interval: PM sampling and per-launch counters"
#define PM_ONLY_TIMED_END "--pm-timeline)"

/* The PC-sampling run into *pass; *why says why it counts for nothing. */
static int run_pc_pass(const launch_plan *first, const td_collect_opts *collect,
                       const td_profile_outcome *out, td_result *pass, char *why, size_t size,
                       td_error *err)
{
    td_collect_opts pc = *collect;
    pc.pm_interval_ns = 0;
    pc.source = 1;
    pc.source_only = 1;
    launch_plan plan = *first;
    plan.collect = &pc;
    int code = 0;
    if (td_profile_run_pass(&plan, out, pass, &code, err))
        return td_fail_context(err, "--time-sampled, the PC-sampling run");
    if (code != out->app_exit_code)
        snprintf(why, size, "the PC-sampling run of the app exited with %d where the first "
                 "exited with %d", code, out->app_exit_code);
    return 0;
}

/* The pass's section of dev's device and chip, or NULL. */
static td_device *same_device(td_result *pass, const td_device *dev)
{
    for (size_t d = 0; d < pass->n_devices; d++)
        if (pass->devices[d].index == dev->index && pass->devices[d].chip && dev->chip &&
            strcmp(pass->devices[d].chip, dev->chip) == 0)
            return &pass->devices[d];
    return NULL;
}

/* Moves the pass's PC samples into res's sections of the same device. */
static int take_pc_samples(td_result *res, td_result *pass, td_error *err)
{
    for (size_t d = 0; d < res->n_devices; d++) {
        td_device *dev = &res->devices[d], *from = same_device(pass, dev);
        if (!from || !from->pcsamp)
            continue;
        if (!dev->pcsamp) {
            dev->pcsamp = from->pcsamp;
            from->pcsamp = NULL;
        } else if (td_pcsamp_merge(dev->pcsamp, from->pcsamp, err)) {
            return -1;
        }
    }
    return 0;
}

/* The note without the collector's "launches are only timed" warning. */
static void drop_pm_only_note(td_result *res)
{
    char *at = res->note ? strstr(res->note, PM_ONLY_TIMED) : NULL;
    char *last = at ? strstr(at, PM_ONLY_TIMED_END) : NULL;
    if (!last)
        return;
    char *end = strstr(last, "; ");
    if (end)
        memmove(at, end + 2, strlen(end + 2) + 1);
    else if (at > res->note + 1 && at[-2] == ';')
        at[-2] = '\0';
    else
        *at = '\0';
}

/* What the attribution did, summed over sections, for the note. */
static int describe(td_result *res, const td_attrib_stats *st, uint64_t interval_ns,
                    const char *why)
{
    char text[1024];
    double all_ns = st->launch_ns > 0 ? st->launch_ns : 1;
    snprintf(text, sizeof text,
             "time-sampled: PM samples every %.0f us gave %zu of %zu launches their level 1 "
             "(%.1f%% of their time inside samples); %zu kernel%s (%.1f%% of GPU time) never "
             "ran alone in a sample and %s not measured (a shorter --pm-interval separates "
             "more); PC samples of a second run split the stalled slots of %zu kernels%s%s; %s",
             (double)interval_ns / 1e3, st->sampled, st->launches,
             100.0 * st->covered_ns / all_ns, st->unseparated, st->unseparated == 1 ? "" : "s",
             100.0 * st->unseparated_ns / all_ns, st->unseparated == 1 ? "is" : "are",
             st->pc_kernels, why[0] ? "; " : "", why,
             st->thread_inst == 1 ? "Divergence.Branch from threads with their predicate on "
                                    "(PM sampling reads no thread_inst_executed): "
                                    "predicated-off threads count as divergence"
             : st->thread_inst == 2 ? "every counter of level 1 sampled"
                                    : "Divergence.Branch not measured (counted in Retire)");
    drop_pm_only_note(res);
    return td_result_set_collection(res, "time-sampled", text);
}

static void add_stats(td_attrib_stats *sum, const td_attrib_stats *st, int first)
{
    sum->launches += st->launches;
    sum->sampled += st->sampled;
    sum->kernels += st->kernels;
    sum->unseparated += st->unseparated;
    sum->unseparated_ns += st->unseparated_ns;
    sum->pc_kernels += st->pc_kernels;
    sum->covered_ns += st->covered_ns;
    sum->launch_ns += st->launch_ns;
    if (first || st->thread_inst < sum->thread_inst) /* the least any section measured */
        sum->thread_inst = st->thread_inst;
}

/* Every section with PM samples gets its launches' counters. */
static int attribute_all(td_result *res, const char *archs, td_attrib_stats *sum,
                         td_error *err)
{
    td_arch_set set;
    if (td_arch_load_dir(archs, &set, err))
        return -1;
    int rc = 0, first = 1;
    for (size_t d = 0; rc == 0 && d < res->n_devices; d++) {
        td_device *dev = &res->devices[d];
        const td_arch *arch = dev->arch ? td_arch_find(&set, dev->arch) : NULL;
        if (!dev->pm || !arch)
            continue;
        td_attrib_stats st;
        rc = td_attribute_device(dev, arch, &st, err);
        add_stats(sum, &st, first);
        first = 0;
    }
    td_arch_set_free(&set);
    return rc;
}

int td_time_sampled_pass(const launch_plan *plan, td_collect_opts *collect,
                         td_profile_outcome *out, td_result *res, td_error *err)
{
    char why[512] = "";
    td_result pass;
    memset(&pass, 0, sizeof pass);
    int rc = 0;
    if (td_profile_interrupted())
        snprintf(why, sizeof why, "interrupted before the PC-sampling run");
    else
        rc = run_pc_pass(plan, collect, out, &pass, why, sizeof why, err);
    if (rc == 0 && pass.note && pass.note[0]) {
        /* what the collector said in that run: lost samples, refusals */
        size_t len = strlen(pass.note) + 32;
        char *said = malloc(len);
        if (!said || (snprintf(said, len, "PC-sampling run: %s", pass.note),
                      td_result_append_note(res, said)))
            rc = td_fail(err, "out of memory");
        free(said);
    }
    if (rc == 0 && !why[0]) {
        rc = take_pc_samples(res, &pass, err);
        if (td_cost_recorded(&res->cost) && td_cost_recorded(&pass.cost)) {
            res->cost.elapsed_s += pass.cost.elapsed_s; /* the second run is all cost */
            res->cost.coverage_s += pass.cost.elapsed_s;
        }
    }
    td_result_free(&pass);
    td_attrib_stats sum;
    memset(&sum, 0, sizeof sum);
    char archs[PATH_MAX];
    if (rc == 0 && collect->archs)
        snprintf(archs, sizeof archs, "%s", collect->archs);
    else if (rc == 0)
        rc = td_arch_default_dir(archs, sizeof archs, err);
    if (rc == 0)
        rc = attribute_all(res, archs, &sum, err);
    if (rc == 0 && describe(res, &sum, collect->pm_interval_ns, why))
        rc = td_fail(err, "out of memory");
    out->profiled = (long)sum.sampled;
    return rc ? -1 : td_result_save(out->result_path, res, err);
}
