/* What the launcher hands the collector (topdown/profile_opts.c): the
 * options of a command line and the user's expert variables turned into
 * td_collect_opts, written as TOPDOWN_COLLECT's text and read back by the
 * collector's reader (topdown/inject/collect_opts.c) field for field. The
 * environment is a fake one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "td_fake_env.h"
#include "topdown/profile.h"

/* opts (with vars as the environment) through the launcher's writer and
 * the collector's reader: 0 when both take it; o is what the collector
 * gets, spool included. */
static int hand_over(const td_profile_options *opts, const char *const *vars,
                     td_collect_opts *o)
{
    static const char *const none[] = {NULL};
    td_fake_env = vars ? vars : none;
    td_collect_opts written;
    int rc = td_profile_collect_opts(opts, "/opt/archs", "step/\nepoch=2/", NULL, td_fake_getenv,
                                     &written);
    CHECK(written.spool == NULL); /* named later, in the app's process */
    written.spool = "/tmp/r.json.abc123.spool"; /* as the app's process does */
    char *text = td_collect_opts_format(&written);
    written.spool = NULL;
    td_collect_opts_free(&written);
    char msg[256] = "";
    rc |= text ? td_collect_opts_parse(o, text, msg, sizeof msg) : -1;
    if (msg[0])
        fprintf(stderr, "%s\n", msg);
    free(text);
    return rc;
}

/* The defaults of the command line are the collector's defaults. */
static void test_defaults(void)
{
    td_profile_options opts;
    td_profile_options_init(&opts);
    td_collect_opts o, defaults;
    CHECK(hand_over(&opts, NULL, &o) == 0);
    td_collect_opts_init(&defaults);
    CHECK_STR(o.spool, "/tmp/r.json.abc123.spool");
    CHECK_STR(o.archs, "/opt/archs");
    CHECK(!o.arch && !o.kernel_regex && !o.sample_every && !o.cubin_dir);
    CHECK_STR(o.nvtx_include, "step/\nepoch=2/");
    CHECK(o.nvtx_exclude == NULL);
    CHECK(o.name_base == defaults.name_base && o.launch_skip == defaults.launch_skip);
    CHECK(o.launch_count == defaults.launch_count && o.per_kernel == defaults.per_kernel);
    CHECK(o.replay_mode == defaults.replay_mode && o.overhead_pct == defaults.overhead_pct);
    CHECK(!o.graph_view && !o.flush_caches && !o.no_rotation && o.pm_interval_ns == 0);
    CHECK(!o.source && !o.source_only && o.pc_period == 0 && o.batch == 0);
    CHECK(!o.no_timing && !o.no_copies && !o.debug);
    td_collect_opts_free(&o);
}

/* Every option of the command line that reaches the collector. */
static void test_every_option(void)
{
    td_profile_options opts;
    td_profile_options_init(&opts);
    opts.arch = "gh100";
    opts.kernel_filter = "regex:^gemm=(a|b)%\\d+";
    opts.name_base = TD_NAME_DEMANGLED;
    opts.launch_skip = 2;
    opts.launch_count = 5;
    opts.per_kernel = 1;
    opts.sample_every = "10ms";
    opts.replay_mode = "kernel";
    opts.overhead_pct = 1.0 / 3;
    opts.graph_profiling = "graph";
    opts.cache_control = "all";
    opts.source = 2; /* --source-only */
    opts.pc_period = 9;
    opts.pm_interval_us = 20000000; /* 20 s: past 32 bits in ns */
    td_collect_opts o;
    CHECK(hand_over(&opts, NULL, &o) == 0);
    CHECK_STR(o.arch, "gh100");
    CHECK_STR(o.kernel_regex, "regex:^gemm=(a|b)%\\d+");
    CHECK(o.name_base == TD_NAME_DEMANGLED);
    CHECK(o.launch_skip == 2 && o.launch_count == 5 && o.per_kernel == 1);
    CHECK_STR(o.sample_every, "10ms");
    CHECK(o.replay_mode == TD_REPLAY_KERNEL);
    CHECK(o.overhead_pct == 1.0 / 3); /* exactly */
    CHECK(o.graph_view && o.flush_caches);
    CHECK(o.source && o.source_only && o.pc_period == 9);
    CHECK(o.pm_interval_ns == 20000000000ull);
    td_collect_opts_free(&o);
    opts.source = 1; /* --source */
    opts.replay_mode = "none";
    opts.overhead_pct = 0; /* --overhead unlimited */
    opts.kernel_filter = "";
    CHECK(hand_over(&opts, NULL, &o) == 0);
    CHECK(o.source && !o.source_only && o.replay_mode == TD_REPLAY_NONE);
    CHECK(o.overhead_pct == 0 && o.kernel_regex == NULL);
    td_collect_opts_free(&o);
    /* --time-sampled: its first run PM-samples at 100 us, its PC period 2^17,
     * each unless given */
    td_profile_options ts;
    td_profile_options_init(&ts);
    ts.time_sampled = 1;
    CHECK(hand_over(&ts, NULL, &o) == 0);
    CHECK(o.pm_interval_ns == 100000 && o.pc_period == 17 && !o.source);
    td_collect_opts_free(&o);
    ts.pm_interval_us = 20;
    ts.pc_period = 12;
    CHECK(hand_over(&ts, NULL, &o) == 0);
    CHECK(o.pm_interval_ns == 20000 && o.pc_period == 12);
    td_collect_opts_free(&o);
}

/* The user's expert variables reach the collector as the collector read
 * them before the launcher did. */
static void test_expert_variables(void)
{
    td_profile_options opts;
    td_profile_options_init(&opts);
    static const char *const set[] = {"TOPDOWN_BATCH=64", "TOPDOWN_ROTATION=0",
                                      "TOPDOWN_CUBIN_DIR=/tmp/cu=bins", "TOPDOWN_NO_TIMING=1",
                                      "TOPDOWN_NO_COPIES=1", "TOPDOWN_DEBUG=1",
                                      "TOPDOWN_COVER_LAUNCHES=1", "TOPDOWN_BUDGET_RANGES=1",
                                      "TOPDOWN_BUDGET_PER_THREAD=", "TOPDOWN_NATURAL_MIN=3",
                                      "TOPDOWN_NATURAL=budget", "TOPDOWN_ROTATION_RANGES=16",
                                      "TOPDOWN_NATURAL_IDLE=0", "TOPDOWN_BUDGET_ALL=1",
                                      "TOPDOWN_ACTIVITY_KB=16",
                                      "TOPDOWN_ACTIVITY_DEVICE_KB=64", "TOPDOWN_ACTIVITY_PER_THREAD=0", "TOPDOWN_HEAVY_PCT=0", "TOPDOWN_RENEW=0",
                                      "TOPDOWN_NATURAL_DEFER=0",
                                      NULL};
    td_collect_opts o;
    CHECK(hand_over(&opts, set, &o) == 0);
    CHECK(o.batch == 64 && o.no_rotation);
    CHECK(o.cover_launches == 1 && o.budget_ranges);
    CHECK(o.budget_per_thread && o.natural_min == 3 && o.natural_rule == TD_NATURAL_BUDGET);
    CHECK(o.rotation_ranges == 16 && o.natural_idle == 0 && o.budget_all);
    CHECK(o.activity_kb == 16 && o.activity_device_kb == 64);
    CHECK(o.activity_per_thread == 0 && o.heavy_pct == 0 && o.renew_launches == 0);
    CHECK(o.natural_defer == 0);
    CHECK_STR(o.cubin_dir, "/tmp/cu=bins");
    CHECK(o.no_timing && o.no_copies && o.debug);
    td_collect_opts_free(&o);
    /* set at all counts, even empty; an empty folder is none */
    static const char *const empty[] = {"TOPDOWN_DEBUG=", "TOPDOWN_NO_COPIES=",
                                        "TOPDOWN_CUBIN_DIR=", "TOPDOWN_BATCH=", NULL};
    CHECK(hand_over(&opts, empty, &o) == 0);
    CHECK(o.debug && o.no_copies && !o.no_timing && o.cubin_dir == NULL && o.batch == 0);
    CHECK(o.cover_launches == -1 && !o.budget_ranges); /* unset: the defaults */
    CHECK(!o.budget_per_thread && o.natural_min == -1 && o.natural_rule == TD_NATURAL_SHARE);
    CHECK(o.rotation_ranges == -1 && o.natural_idle == -1 && o.activity_kb == -1);
    CHECK(o.activity_device_kb == -1 && o.activity_per_thread == -1 && o.heavy_pct == -1);
    CHECK(o.natural_defer == -1);
    CHECK(o.renew_launches == -1);
    td_collect_opts_free(&o);
    /* loose: a number's prefix (the collector bounds it), ROTATION's 0 only */
    static const char *const loose[] = {"TOPDOWN_BATCH=12x", "TOPDOWN_ROTATION=1", NULL};
    CHECK(hand_over(&opts, loose, &o) == 0);
    CHECK(o.batch == 12 && !o.no_rotation);
    td_collect_opts_free(&o);
    /* the variables the launcher itself once set are no input any more */
    static const char *const former[] = {"TOPDOWN_LAUNCH_SKIP=7", "TOPDOWN_SPOOL=/tmp/x",
                                         "TOPDOWN_OVERHEAD=3", NULL};
    CHECK(hand_over(&opts, former, &o) == 0);
    CHECK(o.launch_skip == 0 && o.overhead_pct == TD_OVERHEAD_DEFAULT);
    CHECK_STR(o.spool, "/tmp/r.json.abc123.spool");
    td_collect_opts_free(&o);
}

int main(void)
{
    test_defaults();
    test_every_option();
    test_expert_variables();
    return td_check_summary();
}
