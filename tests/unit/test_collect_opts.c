/* The collector's options (topdown/inject/collect_opts.c) and the text
 * they travel in, TOPDOWN_COLLECT (topdown/inject/opts_text.c): every
 * field written and read back exactly (a regex with '=' and '%', NVTX
 * specs one per line, any byte but NUL), the defaults, the reading of that
 * one variable from a fake environment, and malformed text refused with a
 * clear message, never a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "td_fake_env.h"
#include "metrics/xorshift.h"
#include "topdown/inject/collect_opts.h"
#include "topdown/inject/opts_text.h"

/* Every field away from its default; the strings are literals, never
 * freed. */
static td_collect_opts every_field(void)
{
    td_collect_opts o;
    td_collect_opts_init(&o);
    o.spool = "/tmp/a=b 100%/r.json.abc123.spool";
    o.archs = "/opt/archs";
    o.arch = "gh100";
    o.kernel_regex = "regex:^gemm_(a=b|c%d)\\d+$";
    o.name_base = TD_NAME_MANGLED;
    o.launch_skip = 2;
    o.launch_count = 5;
    o.per_kernel = 1;
    o.sample_every = "10ms";
    o.nvtx_include = "step/\nepoch@x/\n[a\\/b/";
    o.nvtx_exclude = "warm=up%";
    o.replay_mode = TD_REPLAY_KERNEL;
    o.app_pass = 3;
    o.overhead_pct = 12.5;
    o.batch = 64;
    o.cover_launches = 1;
    o.budget_ranges = 1;
    o.budget_per_thread = 1;
    o.budget_all = 1;
    o.natural_min = 7;
    o.natural_rule = TD_NATURAL_BUDGET;
    o.rotation_ranges = 16;
    o.activity_kb = 16;
    o.activity_device_kb = 64;
    o.activity_per_thread = 0;
    o.natural_idle = 0;
    o.natural_defer = 0;
    o.heavy_pct = 40;
    o.renew_launches = 32;
    o.graph_view = o.flush_caches = o.no_rotation = 1;
    o.pm_interval_ns = 20000000000ull; /* past 32 bits */
    o.source = o.source_only = 1;
    o.pc_period = 9;
    o.cubin_dir = "/tmp/cu\tbins\r";
    o.no_timing = o.no_copies = o.debug = 1;
    return o;
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Each field of got equals want's. */
static void check_same(const td_collect_opts *got, const td_collect_opts *want)
{
    CHECK(same_text(got->spool, want->spool) && same_text(got->archs, want->archs));
    CHECK(same_text(got->arch, want->arch));
    CHECK(same_text(got->kernel_regex, want->kernel_regex));
    CHECK(got->name_base == want->name_base && got->launch_skip == want->launch_skip);
    CHECK(got->launch_count == want->launch_count && got->per_kernel == want->per_kernel);
    CHECK(same_text(got->sample_every, want->sample_every));
    CHECK(same_text(got->nvtx_include, want->nvtx_include));
    CHECK(same_text(got->nvtx_exclude, want->nvtx_exclude));
    CHECK(got->replay_mode == want->replay_mode && got->overhead_pct == want->overhead_pct);
    CHECK(got->batch == want->batch && got->graph_view == want->graph_view);
    CHECK(got->app_pass == want->app_pass);
    CHECK(got->flush_caches == want->flush_caches && got->no_rotation == want->no_rotation);
    CHECK(got->pm_interval_ns == want->pm_interval_ns);
    CHECK(got->cover_launches == want->cover_launches);
    CHECK(got->budget_ranges == want->budget_ranges);
    CHECK(got->budget_per_thread == want->budget_per_thread);
    CHECK(got->budget_all == want->budget_all);
    CHECK(got->natural_min == want->natural_min);
    CHECK(got->activity_kb == want->activity_kb);
    CHECK(got->activity_device_kb == want->activity_device_kb);
    CHECK(got->activity_per_thread == want->activity_per_thread);
    CHECK(got->natural_rule == want->natural_rule);
    CHECK(got->rotation_ranges == want->rotation_ranges);
    CHECK(got->natural_idle == want->natural_idle && got->heavy_pct == want->heavy_pct);
    CHECK(got->natural_defer == want->natural_defer);
    CHECK(got->renew_launches == want->renew_launches);
    CHECK(got->source == want->source && got->source_only == want->source_only);
    CHECK(got->pc_period == want->pc_period && same_text(got->cubin_dir, want->cubin_dir));
    CHECK(got->no_timing == want->no_timing && got->no_copies == want->no_copies);
    CHECK(got->debug == want->debug);
}

/* want written, then read back: the same fields, and the same text again. */
static void check_round_trip(const td_collect_opts *want)
{
    char *text = td_collect_opts_format(want);
    CHECK(text != NULL);
    td_collect_opts got;
    char msg[256] = "";
    CHECK(td_collect_opts_parse(&got, text, msg, sizeof msg) == 0);
    check_same(&got, want);
    char *again = td_collect_opts_format(&got);
    CHECK_STR(again, text);
    free(again);
    free(text);
    td_collect_opts_free(&got);
}

static void test_every_field_round_trips(void)
{
    td_collect_opts o = every_field();
    check_round_trip(&o);
    char *text = td_collect_opts_format(&o);
    const char *first = "spool=/tmp/a%3Db 100%25/r.json.abc123.spool\n";
    CHECK(text && strncmp(text, first, strlen(first)) == 0);
    CHECK(text && strstr(text, "\nkernel_regex=regex:^gemm_(a%3Db|c%25d)\\d+$\n"));
    CHECK(text && strstr(text, "\nnvtx_include=step/%0Aepoch@x/%0A[a\\/b/\n"));
    CHECK(text && strstr(text, "\nnvtx_exclude=warm%3Dup%25\n"));
    CHECK(text && strstr(text, "\nname_base=mangled\n") && strstr(text, "\nreplay_mode=kernel\n"));
    CHECK(text && strstr(text, "\noverhead_pct=12.5\n")); /* not 12 */
    CHECK(text && strstr(text, "\npm_interval_ns=20000000000\n"));
    CHECK(text && strstr(text, "\ncubin_dir=/tmp/cu%09bins%0D\n"));
    CHECK(text && strstr(text, "\ndebug=1\n"));
    free(text);
}

/* The budget is a double, exactly: 1/3 needs 17 digits. */
static void test_doubles_round_trip(void)
{
    const double values[] = {12.5, 1.0 / 3, 33.3, 0, -5, 1e-300, 4.9e-324, 1.7976931348623157e308};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        td_collect_opts o;
        td_collect_opts_init(&o);
        o.overhead_pct = values[i];
        check_round_trip(&o);
    }
}

/* Without the variable, or with lines left out: the defaults. */
static void test_defaults(void)
{
    td_collect_opts defaults, o;
    td_collect_opts_init(&defaults);
    CHECK(!defaults.spool && defaults.name_base == TD_NAME_FUNCTION);
    CHECK(defaults.launch_skip == 0 && defaults.launch_count == -1 && defaults.per_kernel == -1);
    CHECK(defaults.replay_mode == TD_REPLAY_AUTO);
    CHECK(defaults.overhead_pct == TD_OVERHEAD_DEFAULT);
    CHECK(defaults.batch == 0 && defaults.pm_interval_ns == 0 && !defaults.debug);
    CHECK(defaults.app_pass == -1);
    check_round_trip(&defaults);
    char msg[256] = "";
    CHECK(td_collect_opts_parse(&o, NULL, msg, sizeof msg) == 0);
    check_same(&o, &defaults);
    td_collect_opts_free(&o);
    CHECK(td_collect_opts_parse(&o, "", msg, sizeof msg) == 0);
    check_same(&o, &defaults);
    td_collect_opts_free(&o);
    static const char *const none[] = {"TOPDOWN_DEBUG=1", NULL};
    td_fake_env = none;
    CHECK(td_collect_opts_read(&o, td_fake_getenv, msg, sizeof msg) == 0);
    check_same(&o, &defaults); /* no spool: the collector stays out */
    td_collect_opts_free(&o);
    /* every field has its line, even at its default */
    char *text = td_collect_opts_format(&defaults);
    int lines = 0;
    for (const char *p = text; p && *p; p++)
        lines += *p == '\n';
    CHECK(lines == 40);
    CHECK(text && strstr(text, "\narch=\n") && strstr(text, "\nlaunch_count=-1\n"));
    CHECK(text && strstr(text, "\noverhead_pct=40\n") && strstr(text, "\napp_pass=-1\n"));
    CHECK(text && strstr(text, "\ncover_launches=-1\n") && strstr(text, "\nbudget_ranges=0\n"));
    free(text);
}

/* The collector reads its one variable, and no other: the launcher turns
 * the user's TOPDOWN_DEBUG into the debug line. */
static void test_reads_only_its_variable(void)
{
    static const char *const vars[] = {"TOPDOWN_LAUNCH_SKIP=9", "TOPDOWN_DEBUG=1",
                                       "TOPDOWN_SPOOL=/tmp/old",
                                       "TOPDOWN_COLLECT=spool=/tmp/s\nlaunch_skip=3\n", NULL};
    td_fake_env = vars;
    td_collect_opts o;
    char msg[256] = "";
    CHECK(td_collect_opts_read(&o, td_fake_getenv, msg, sizeof msg) == 0);
    CHECK_STR(o.spool, "/tmp/s");
    CHECK(o.launch_skip == 3 && !o.debug);
    /* the strings are copies: the environment may change after */
    CHECK(o.spool != td_fake_getenv(TD_COLLECT_VAR) + 6);
    td_collect_opts_free(&o);
    CHECK(!o.spool && o.launch_skip == 0); /* emptied */
}

/* What a person may write by hand reads too: a last line without '\n',
 * lowercase escapes, a raw '=' in a value, an empty value as unset. */
static void test_hand_written_text(void)
{
    td_collect_opts o;
    char msg[256] = "";
    CHECK(td_collect_opts_parse(&o, "kernel_regex=a=b%3d%0a\narch=\nsource_only=1", msg,
                                sizeof msg) == 0);
    CHECK_STR(o.kernel_regex, "a=b=\n");
    CHECK(o.arch == NULL);
    CHECK(o.source_only && o.source); /* --source-only is --source too */
    td_collect_opts_free(&o);
}

/* Every byte but NUL, through the encoding alone. */
static void test_every_byte(void)
{
    char value[256], text[1024], name[TD_OPTS_NAME_MAX], msg[128];
    for (int i = 1; i < 256; i++)
        value[i - 1] = (char)i;
    value[255] = '\0';
    size_t len = td_opts_text_put(text, sizeof text, 0, "all_bytes", value);
    CHECK(len == strlen(text) && len < sizeof text);
    CHECK(strchr(text, '\n') == text + len - 1); /* one line */
    CHECK(strchr(text, '=') == strrchr(text, '=')); /* one '=' */
    td_opts_cursor c;
    td_opts_cursor_init(&c, text);
    char *got = NULL;
    CHECK(td_opts_text_next(&c, name, &got, msg, sizeof msg) == 1);
    CHECK_STR(name, "all_bytes");
    CHECK_STR(got, value);
    free(got);
    CHECK(td_opts_text_next(&c, name, &got, msg, sizeof msg) == 0 && got == NULL);
}

/* td_opts_text_put measures and cuts like snprintf. */
static void test_put_measures(void)
{
    CHECK(td_opts_text_put(NULL, 0, 0, "a", "%") == 6); /* "a=%25\n" */
    char small[5];
    CHECK(td_opts_text_put(small, sizeof small, 0, "a", "%") == 6);
    CHECK_STR(small, "a=%2");
    char text[32];
    size_t len = td_opts_text_put(text, sizeof text, 0, "a", NULL);
    len = td_opts_text_put(text, sizeof text, len, "b", "x y");
    CHECK(len == 9);
    CHECK_STR(text, "a=\nb=x y\n");
}

/* text refused: -1 and exactly msg, never a crash. */
static void check_refused(const char *text, const char *want)
{
    td_collect_opts o;
    char msg[256] = "";
    int rc = td_collect_opts_parse(&o, text, msg, sizeof msg);
    CHECK(rc == -1);
    if (strcmp(msg, want) != 0)
        fprintf(stderr, "for \"%s\": \"%s\", not \"%s\"\n", text, msg, want);
    CHECK_STR(msg, want);
    td_collect_opts_free(&o);
}

static void test_malformed_lines(void)
{
    check_refused("spool", "TOPDOWN_COLLECT, line 1: no '=' (each line is name=value)");
    check_refused("spool=/s\n\nbatch=4\n",
                  "TOPDOWN_COLLECT, line 2: an empty line (each line is name=value)");
    const char *names[] = {"Spool=/s", "=x", "spool x=1", "a_name_of_thirty_two_characters_=1"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        check_refused(names[i], "TOPDOWN_COLLECT, line 1: a name is 1 to 31 of a-z, 0-9 and _");
    check_refused("batch=1\ncolour=red",
                  "TOPDOWN_COLLECT, line 2: 'colour' is no option of the collector");
    check_refused("batch=1\nbatch=2", "TOPDOWN_COLLECT, line 2: batch is given twice");
    const char *escapes[] = {"spool=/a%2", "spool=/a%", "spool=/a%zz", "spool=%g0"};
    for (size_t i = 0; i < sizeof escapes / sizeof *escapes; i++)
        check_refused(escapes[i], "TOPDOWN_COLLECT, line 1: '%' without two hexadecimal "
                      "digits after it");
    check_refused("spool=a%00b", "TOPDOWN_COLLECT, line 1: %00: a value holds no NUL byte");
}

static void test_values_of_the_wrong_type(void)
{
    const char *count = " is not a count (a whole number, -1 or more)";
    const char *counts[] = {"launch_count=5x", "per_kernel=-2", "launch_skip=",
                            "launch_skip=99999999999999999999", "launch_skip= 1"};
    char want[256];
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        snprintf(want, sizeof want, "TOPDOWN_COLLECT, line 1: %s%s", counts[i], count);
        check_refused(counts[i], want);
    }
    const char *wholes[] = {"batch=", "batch= 5", "batch=12x", "pc_period=+3", "pc_period=-"};
    for (size_t i = 0; i < sizeof wholes / sizeof *wholes; i++) {
        snprintf(want, sizeof want, "TOPDOWN_COLLECT, line 1: %s is not a whole number",
                 wholes[i]);
        check_refused(wholes[i], want);
    }
    check_refused("pm_interval_ns=-1",
                  "TOPDOWN_COLLECT, line 1: pm_interval_ns=-1 is not a whole number, 0 or more");
    const char *reals[] = {"overhead_pct=", "overhead_pct=nan", "overhead_pct=1e999",
                           "overhead_pct=7.25x", "overhead_pct= 1"};
    for (size_t i = 0; i < sizeof reals / sizeof *reals; i++) {
        snprintf(want, sizeof want, "TOPDOWN_COLLECT, line 1: %s is not a finite number",
                 reals[i]);
        check_refused(reals[i], want);
    }
    check_refused("debug=yes", "TOPDOWN_COLLECT, line 1: debug=yes is not 0 or 1");
    check_refused("debug=", "TOPDOWN_COLLECT, line 1: debug= is not 0 or 1");
    check_refused("replay_mode=Kernel",
                  "TOPDOWN_COLLECT, line 1: replay_mode=Kernel is not auto, none or kernel");
    check_refused("name_base=full", "TOPDOWN_COLLECT, line 1: name_base=full is not function, "
                  "demangled or mangled");
}

/* A refused line: the first one said, the other lines read, and the
 * kernel filter off (every launch profiled), whichever line it was. */
static void test_refusal_turns_the_filter_off(void)
{
    td_collect_opts o;
    char msg[256] = "";
    CHECK(td_collect_opts_parse(&o, "kernel_regex=gemm\nlaunch_skip=3\nper_kernel=2\n"
                                "name_base=mangled\nlaunch_count=5x\nspool=/tmp/s\n"
                                "overhead_pct=12.5\ndebug=2\n", msg, sizeof msg) == -1);
    CHECK_STR(msg, "TOPDOWN_COLLECT, line 5: launch_count=5x is not a count (a whole number, "
              "-1 or more)");
    CHECK(o.kernel_regex == NULL && o.name_base == TD_NAME_FUNCTION);
    CHECK(o.launch_skip == 0 && o.launch_count == -1 && o.per_kernel == -1);
    CHECK_STR(o.spool, "/tmp/s");
    CHECK(o.overhead_pct == 12.5 && !o.debug);
    td_collect_opts_free(&o);
    CHECK(td_collect_opts_parse(&o, "kernel_regex=gemm\nlaunch_skip=3\nbogus\n", msg,
                                sizeof msg) == -1);
    CHECK(o.kernel_regex == NULL && o.launch_skip == 0);
    td_collect_opts_free(&o);
}

/* Random text of the encoding's own bytes: read without a crash (ASan
 * builds check the memory), and what reads writes back the same. */
static void test_random_text(void)
{
    static const char alphabet[] = "abcdefgilmnoprstuvx_=%0A3D25\n\n-1.9 \t\x7f\xff";
    uint32_t state = 2463534242u;
    char text[96], msg[256];
    for (int round = 0; round < 20000; round++) {
        size_t n = td_xorshift32(&state) % (sizeof text - 1);
        for (size_t i = 0; i < n; i++)
            text[i] = alphabet[td_xorshift32(&state) % (sizeof alphabet - 1)];
        text[n] = '\0';
        td_collect_opts o;
        int rc = td_collect_opts_parse(&o, text, msg, sizeof msg);
        if (rc == 0)
            check_round_trip(&o);
        td_collect_opts_free(&o);
    }
}

int main(void)
{
    test_every_field_round_trips();
    test_doubles_round_trip();
    test_defaults();
    test_reads_only_its_variable();
    test_hand_written_text();
    test_every_byte();
    test_put_measures();
    test_malformed_lines();
    test_values_of_the_wrong_type();
    test_refusal_turns_the_filter_off();
    test_random_text();
    return td_check_summary();
}
