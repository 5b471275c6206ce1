/* The launcher's options (profile.h): their defaults, and what of them,
 * with the user's expert variables, the collector gets as its one
 * variable TOPDOWN_COLLECT (topdown/inject/collect_opts.h). Pure: the
 * environment comes as a function, so tests/unit/test_collect_opts.c runs
 * it with a fake one. */
#include "topdown/profile.h"

#include <stdlib.h>
#include <string.h>

#include "metrics/strcopy.h"

void td_profile_options_init(td_profile_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->launch_count = -1;
    opts->per_kernel = -1;
    opts->progress = 1;
    opts->replay_mode = "auto";
    opts->overhead_pct = TD_OVERHEAD_DEFAULT;
    opts->graph_profiling = "node";
    opts->cache_control = "none";
    opts->clock_control = "none";
}

/* A copy of text in *out, NULL for NULL or ""; -1 when out of memory. */
static int copy_text(const char *text, char **out)
{
    *out = text && *text ? td_strdup(text) : NULL;
    return text && *text && !*out ? -1 : 0;
}

static int is_word(const char *text, const char *word)
{
    return text && strcmp(text, word) == 0;
}

/* The options that are not strings. */
static void copy_settings(td_collect_opts *o, const td_profile_options *opts)
{
    o->name_base = (td_name_base)opts->name_base;
    o->launch_skip = opts->launch_skip;
    o->launch_count = opts->launch_count;
    o->per_kernel = opts->per_kernel;
    td_replay_mode_parse(opts->replay_mode, &o->replay_mode); /* else auto */
    o->overhead_pct = opts->overhead_pct;
    if (is_word(opts->replay_mode, "application")) {
        /* the first run of it: every launch with group 0 (app_replay.c) */
        o->replay_mode = TD_REPLAY_NONE;
        o->app_pass = 0;
        o->overhead_pct = 0;
    }
    o->graph_view = is_word(opts->graph_profiling, "graph");
    o->flush_caches = is_word(opts->cache_control, "all");
    o->source = opts->source != 0;
    o->source_only = opts->source == 2;
    o->pc_period = opts->pc_period;
    if (opts->time_sampled && !o->pc_period)
        o->pc_period = TD_TIME_SAMPLED_PC_PERIOD;
    o->pm_interval_ns = opts->pm_interval_us > 0 ? (uint64_t)opts->pm_interval_us * 1000
                        : opts->time_sampled     ? TD_TIME_SAMPLED_INTERVAL_NS
                                                 : 0;
}

/* The user's expert variables (docs/COLLECTION.md), as loose as the
 * collector read them before the launcher did: TOPDOWN_BATCH's number
 * prefix, TOPDOWN_ROTATION's 0, the others set at all, even empty; and
 * TOPDOWN_COVER_LAUNCHES', TOPDOWN_NATURAL_MIN's, TOPDOWN_NATURAL_IDLE's,
 * TOPDOWN_ROTATION_RANGES', TOPDOWN_ACTIVITY_KB's, _DEVICE_KB's and
 * _PER_THREAD's numbers (unset or empty: the default),
 * TOPDOWN_NATURAL's `all` or `budget` (else the default). */
/* An expert variable's number, or -1 where it is unset or empty. */
static long expert_number(td_collect_getenv_fn env, const char *name)
{
    const char *text = env(name);
    return text && *text ? strtol(text, NULL, 10) : -1;
}

static int read_expert(td_collect_opts *o, td_collect_getenv_fn env)
{
    const char *batch = env("TOPDOWN_BATCH");
    o->batch = batch ? strtol(batch, NULL, 10) : 0;
    o->no_rotation = is_word(env("TOPDOWN_ROTATION"), "0");
    o->cover_launches = expert_number(env, "TOPDOWN_COVER_LAUNCHES");
    o->budget_ranges = env("TOPDOWN_BUDGET_RANGES") != NULL;
    o->budget_per_thread = env("TOPDOWN_BUDGET_PER_THREAD") != NULL;
    o->budget_all = env("TOPDOWN_BUDGET_ALL") != NULL;
    o->natural_min = expert_number(env, "TOPDOWN_NATURAL_MIN");
    o->natural_idle = expert_number(env, "TOPDOWN_NATURAL_IDLE");
    o->natural_defer = expert_number(env, "TOPDOWN_NATURAL_DEFER");
    o->heavy_pct = expert_number(env, "TOPDOWN_HEAVY_PCT");
    o->renew_launches = expert_number(env, "TOPDOWN_RENEW");
    o->rotation_ranges = expert_number(env, "TOPDOWN_ROTATION_RANGES");
    o->activity_kb = expert_number(env, "TOPDOWN_ACTIVITY_KB");
    o->activity_device_kb = expert_number(env, "TOPDOWN_ACTIVITY_DEVICE_KB");
    o->activity_per_thread = expert_number(env, "TOPDOWN_ACTIVITY_PER_THREAD");
    o->natural_rule = is_word(env("TOPDOWN_NATURAL"), "all")      ? TD_NATURAL_ALL
                      : is_word(env("TOPDOWN_NATURAL"), "budget") ? TD_NATURAL_BUDGET
                                                                  : TD_NATURAL_SHARE;
    o->no_timing = env("TOPDOWN_NO_TIMING") != NULL;
    o->no_copies = env("TOPDOWN_NO_COPIES") != NULL;
    o->debug = env("TOPDOWN_DEBUG") != NULL;
    return copy_text(env("TOPDOWN_CUBIN_DIR"), &o->cubin_dir);
}

int td_profile_collect_opts(const td_profile_options *opts, const char *archs,
                            const char *nvtx_include, const char *nvtx_exclude,
                            td_collect_getenv_fn env, td_collect_opts *out)
{
    td_collect_opts_init(out);
    copy_settings(out, opts);
    int failed = copy_text(archs, &out->archs);
    failed |= copy_text(opts->arch, &out->arch);
    failed |= copy_text(opts->kernel_filter, &out->kernel_regex);
    failed |= copy_text(opts->sample_every, &out->sample_every);
    failed |= copy_text(nvtx_include, &out->nvtx_include);
    failed |= copy_text(nvtx_exclude, &out->nvtx_exclude);
    failed |= read_expert(out, env);
    return failed ? -1 : 0;
}
