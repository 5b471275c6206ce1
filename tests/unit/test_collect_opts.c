/* The collector's TOPDOWN_* variables read into td_collect_opts
 * (topdown/inject/collect_opts.c) from a fake environment: defaults,
 * typed values, the filter's refusals, and copies it owns. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "topdown/inject/collect_opts.h"

/* The fake environment: name=value pairs, NULL-terminated. */
static const char *const *env;

static const char *fake_getenv(const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = env; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

/* Reads vars; the return of td_collect_opts_read. */
static int read_env(const char *const *vars, td_collect_opts *o, char *msg, size_t size)
{
    env = vars;
    msg[0] = '\0';
    return td_collect_opts_read(o, fake_getenv, msg, size);
}

static void test_defaults(void)
{
    static const char *const none[] = {NULL};
    td_collect_opts o;
    char msg[256];
    CHECK(read_env(none, &o, msg, sizeof msg) == 0);
    CHECK(!o.spool && !o.archs && !o.arch && !o.kernel_regex && !o.sample_every);
    CHECK(!o.nvtx_include && !o.nvtx_exclude && !o.cubin_dir);
    CHECK(o.name_base == TD_NAME_FUNCTION);
    CHECK(o.launch_skip == 0 && o.launch_count == -1 && o.per_kernel == -1);
    CHECK(o.replay_mode == TD_REPLAY_AUTO);
    CHECK(o.overhead_pct == TD_OVERHEAD_DEFAULT);
    CHECK(o.batch == 0 && o.pc_period == 0 && o.pm_interval_ns == 0);
    CHECK(!o.graph_view && !o.flush_caches && !o.no_rotation);
    CHECK(!o.source && !o.source_only);
    CHECK(!o.no_timing && !o.no_copies && !o.debug);
    td_collect_opts_free(&o);
}

/* What the launcher sets for a run with most options given. */
static void test_every_variable(void)
{
    static const char *const vars[] = {
        "TOPDOWN_SPOOL=/tmp/r.abc123.spool", "TOPDOWN_ARCHS=/opt/archs", "TOPDOWN_ARCH=gh100",
        "TOPDOWN_KERNEL_REGEX=regex:^gemm", "TOPDOWN_KERNEL_NAME_BASE=mangled",
        "TOPDOWN_LAUNCH_SKIP=2", "TOPDOWN_LAUNCH_COUNT=5", "TOPDOWN_PER_KERNEL=1",
        "TOPDOWN_SAMPLE_EVERY=10ms", "TOPDOWN_NVTX_INCLUDE=step/\nepoch@x/",
        "TOPDOWN_NVTX_EXCLUDE=warmup", "TOPDOWN_REPLAY_MODE=kernel", "TOPDOWN_OVERHEAD=12.5",
        "TOPDOWN_BATCH=64", "TOPDOWN_GRAPH_PROFILING=graph", "TOPDOWN_CACHE_CONTROL=all",
        "TOPDOWN_ROTATION=0", "TOPDOWN_PM_INTERVAL_NS=20000000000", "TOPDOWN_SOURCE=only",
        "TOPDOWN_PC_PERIOD=9", "TOPDOWN_CUBIN_DIR=/tmp/cubins", "TOPDOWN_NO_TIMING=1",
        "TOPDOWN_NO_COPIES=1", "TOPDOWN_DEBUG=1", NULL};
    td_collect_opts o;
    char msg[256];
    CHECK(read_env(vars, &o, msg, sizeof msg) == 0);
    CHECK_STR(o.spool, "/tmp/r.abc123.spool");
    CHECK_STR(o.archs, "/opt/archs");
    CHECK_STR(o.arch, "gh100");
    CHECK_STR(o.kernel_regex, "regex:^gemm");
    CHECK(o.name_base == TD_NAME_MANGLED);
    CHECK(o.launch_skip == 2 && o.launch_count == 5 && o.per_kernel == 1);
    CHECK_STR(o.sample_every, "10ms");
    CHECK_STR(o.nvtx_include, "step/\nepoch@x/");
    CHECK_STR(o.nvtx_exclude, "warmup");
    CHECK(o.replay_mode == TD_REPLAY_KERNEL);
    CHECK(o.overhead_pct == 12.5); /* not 12 */
    CHECK(o.batch == 64);
    CHECK(o.graph_view && o.flush_caches && o.no_rotation);
    CHECK(o.pm_interval_ns == 20000000000ull); /* past 32 bits */
    CHECK(o.source && o.source_only);
    CHECK(o.pc_period == 9);
    CHECK_STR(o.cubin_dir, "/tmp/cubins");
    CHECK(o.no_timing && o.no_copies && o.debug);
    /* the strings are copies: the environment may change after */
    CHECK(o.spool != fake_getenv("TOPDOWN_SPOOL"));
    td_collect_opts_free(&o);
    CHECK(!o.spool && !o.kernel_regex && o.batch == 0); /* emptied */
}

/* The words each variable knows; anything else is as unset, as before. */
static void test_words(void)
{
    static const char *const other[] = {
        "TOPDOWN_REPLAY_MODE=none", "TOPDOWN_GRAPH_PROFILING=node", "TOPDOWN_CACHE_CONTROL=none",
        "TOPDOWN_ROTATION=1", "TOPDOWN_SOURCE=1", "TOPDOWN_OVERHEAD=0", NULL};
    td_collect_opts o;
    char msg[256];
    CHECK(read_env(other, &o, msg, sizeof msg) == 0);
    CHECK(o.replay_mode == TD_REPLAY_NONE);
    CHECK(!o.graph_view && !o.flush_caches && !o.no_rotation);
    CHECK(o.source && !o.source_only);
    CHECK(o.overhead_pct == 0); /* --overhead unlimited: no budget */
    td_collect_opts_free(&o);
    static const char *const unknown[] = {"TOPDOWN_REPLAY_MODE=Kernel", "TOPDOWN_SOURCE=yes",
                                          "TOPDOWN_OVERHEAD=", NULL};
    CHECK(read_env(unknown, &o, msg, sizeof msg) == 0);
    CHECK(o.replay_mode == TD_REPLAY_AUTO && !o.source && !o.source_only);
    CHECK(o.overhead_pct == TD_OVERHEAD_DEFAULT); /* empty: the default */
    td_collect_opts_free(&o);
    CHECK_STR(td_replay_mode_word(TD_REPLAY_KERNEL), "kernel");
    CHECK_STR(td_replay_mode_word(TD_REPLAY_AUTO), "auto");
}

/* Empty strings are unset; the presence flags count an empty value. */
static void test_empty_values(void)
{
    static const char *const empty[] = {"TOPDOWN_SPOOL=", "TOPDOWN_ARCH=", "TOPDOWN_KERNEL_REGEX=",
                                        "TOPDOWN_NVTX_INCLUDE=", "TOPDOWN_LAUNCH_COUNT=",
                                        "TOPDOWN_DEBUG=", "TOPDOWN_NO_TIMING=", NULL};
    td_collect_opts o;
    char msg[256];
    CHECK(read_env(empty, &o, msg, sizeof msg) == 0);
    CHECK(!o.spool && !o.arch && !o.kernel_regex && !o.nvtx_include);
    CHECK(o.launch_count == -1);
    CHECK(o.debug && o.no_timing && !o.no_copies);
    td_collect_opts_free(&o);
}

/* Loose numbers stay as loose as the collector read them: strtol's
 * prefix, the caller bounds them. */
static void test_loose_numbers(void)
{
    static const char *const vars[] = {"TOPDOWN_BATCH=12x", "TOPDOWN_PC_PERIOD=-3",
                                       "TOPDOWN_OVERHEAD=7.25%", NULL};
    td_collect_opts o;
    char msg[256];
    CHECK(read_env(vars, &o, msg, sizeof msg) == 0);
    CHECK(o.batch == 12 && o.pc_period == -3);
    CHECK(o.overhead_pct == 7.25);
    td_collect_opts_free(&o);
}

/* A bad count or name base: -1 with the variable named, the rest of the
 * options still read, and the filter's reading ended there. */
static void test_bad_filter_values(void)
{
    static const char *const count[] = {"TOPDOWN_LAUNCH_COUNT=5x", "TOPDOWN_LAUNCH_SKIP=3",
                                        "TOPDOWN_KERNEL_REGEX=gemm", "TOPDOWN_OVERHEAD=12.5",
                                        "TOPDOWN_SPOOL=/tmp/s", NULL};
    td_collect_opts o;
    char msg[256];
    CHECK(read_env(count, &o, msg, sizeof msg) == -1);
    CHECK_STR(msg, "TOPDOWN_LAUNCH_COUNT=5x is not a count");
    CHECK(o.launch_skip == 3 && o.launch_count == -1);
    CHECK(o.kernel_regex == NULL); /* no regex after a refusal */
    CHECK(o.overhead_pct == 12.5);
    CHECK_STR(o.spool, "/tmp/s");
    td_collect_opts_free(&o);

    static const char *const negative[] = {"TOPDOWN_PER_KERNEL=-2", NULL};
    CHECK(read_env(negative, &o, msg, sizeof msg) == -1);
    CHECK_STR(msg, "TOPDOWN_PER_KERNEL=-2 is not a count");
    td_collect_opts_free(&o);
    static const char *const no_limit[] = {"TOPDOWN_PER_KERNEL=-1", "TOPDOWN_LAUNCH_SKIP=0",
                                           NULL};
    CHECK(read_env(no_limit, &o, msg, sizeof msg) == 0);
    CHECK(o.per_kernel == -1 && o.launch_skip == 0);
    td_collect_opts_free(&o);
    static const char *const huge[] = {"TOPDOWN_LAUNCH_SKIP=99999999999999999999", NULL};
    CHECK(read_env(huge, &o, msg, sizeof msg) == -1); /* ERANGE */
    td_collect_opts_free(&o);

    static const char *const base[] = {"TOPDOWN_KERNEL_NAME_BASE=full",
                                       "TOPDOWN_KERNEL_REGEX=gemm", NULL};
    CHECK(read_env(base, &o, msg, sizeof msg) == -1);
    CHECK(strstr(msg, "TOPDOWN_KERNEL_NAME_BASE: ") == msg && strstr(msg, "\"full\""));
    CHECK(o.name_base == TD_NAME_FUNCTION && o.kernel_regex == NULL);
    td_collect_opts_free(&o);
}

/* The first refusal is the one said. */
static void test_first_error_wins(void)
{
    static const char *const two[] = {"TOPDOWN_LAUNCH_SKIP=a", "TOPDOWN_KERNEL_NAME_BASE=b",
                                      NULL};
    td_collect_opts o;
    char msg[256];
    CHECK(read_env(two, &o, msg, sizeof msg) == -1);
    CHECK_STR(msg, "TOPDOWN_LAUNCH_SKIP=a is not a count");
    td_collect_opts_free(&o);
}

int main(void)
{
    test_defaults();
    test_every_variable();
    test_words();
    test_empty_values();
    test_loose_numbers();
    test_bad_filter_values();
    test_first_error_wins();
    return td_check_summary();
}
