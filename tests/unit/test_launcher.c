/* The launcher without a GPU: topdown runs a plain program as it would a
 * CUDA app. Exit codes and output pass through, names never clobber
 * another run's result, bad apps get one clear line, and SIGTERM reaches
 * the app and leaves an "interrupted" result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"
#include "metrics/result/result.h"
#include "topdown/cli.h"
#include "topdown/inject/collect_opts.h"

static const char *bin;
static char dir[] = "/tmp/td_launcherXXXXXX";
/* A stand-in for a CUDA app on a machine without a GPU: it appends the
 * H100 recording's spool to the spool topdown gives it, as the injection
 * library would, and leaves "ran" behind to show it ran. */
static char fake_app[4200]; /* its path */

#define run(...) td_shell_run(dir, __VA_ARGS__)

static int contains(const char *file, const char *needle)
{
    return td_shell_file_has(dir, file, needle);
}

static int exists(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Like contains, without saying what the file holds when it does not. */
static int contains_quiet(const char *file, const char *needle)
{
    char path[4096], text[1 << 14];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    return strstr(text, needle) != NULL;
}

static int load(const char *name, td_result *res)
{
    return td_shell_load_result(dir, name, res);
}

static char fake_timed[4200]; /* the same launches, timed only (no counters) */

static void test_exit_code_and_output_pass_through(void)
{
    int rc = run("%s -o r1.json -- /bin/sh -c '%s; echo app-out; echo app-err >&2; exit 7'",
                 bin, fake_app);
    CHECK(rc == 7);
    CHECK(contains("out.txt", "app-out"));
    CHECK(contains("err.txt", "app-err"));
    td_result res;
    CHECK(load("r1.json", &res) == 0);
    CHECK(res.exit_code == 7 && res.term_signal == 0);
    CHECK_STR(res.status, "complete");
    CHECK(res.argc == 3 && res.n_devices == 1);
    CHECK_STR(res.argv[0], "/bin/sh");
    td_result_free(&res);
    CHECK(!exists("r1.json.spool")); /* the spool is removed once read */
}

static void test_bad_apps(void)
{
    CHECK(run("%s -- ./no-such-app", bin) != 0);
    CHECK(contains("err.txt", "app not found"));
    CHECK(!exists("no-such-app.topdown.json"));
    CHECK(run("%s -- no-such-app-on-path-either", bin) != 0);
    CHECK(contains("err.txt", "not on PATH"));
    CHECK(run("touch plain.txt && chmod -x plain.txt && %s -- ./plain.txt", bin) != 0);
    CHECK(contains("err.txt", "not executable"));
    CHECK(!exists("plain.txt.topdown.json"));
    /* a bad -k: a usage error before the app starts, one line */
    CHECK(run("%s -k '(' -- touch ran-anyway", bin) == 2);
    CHECK(contains("err.txt", "topdown: bad kernel-name regex '(': missing closing parenthesis"));
    CHECK(!exists("ran-anyway"));
    CHECK(run("%s -k 'regex:' -- true", bin) == 2);
    CHECK(contains("err.txt", "empty kernel-name regex"));
    CHECK(run("%s -k '#4' -- true", bin) == 2);
    CHECK(contains("err.txt", "names a kernel by its rank in a result"));
}

static void test_never_overwrites(void)
{
    CHECK(run("%s -o r1.json -- /bin/true", bin) != 0);
    CHECK(contains("err.txt", "-f"));
    td_result res;
    CHECK(load("r1.json", &res) == 0); /* still the first run's */
    CHECK(res.exit_code == 7);
    td_result_free(&res);
    CHECK(run("%s -f -o r1.json -- %s", bin, fake_app) == 0);
    CHECK(load("r1.json", &res) == 0);
    CHECK(res.exit_code == 0);
    td_result_free(&res);
    CHECK(run("cp %s ./app.sh && %s -- ./app.sh && %s -- ./app.sh", fake_app, bin, bin) == 0);
    CHECK(exists("app.sh.topdown.json"));
    CHECK(exists("app.sh.topdown-1.json"));
}

/* Issue 15, item 1: a run that measured nothing leaves no result file
 * (no pile-up of retries) and exits 3, unless the app's own code is not 0. */
static void test_nothing_measured(void)
{
    CHECK(run("%s -- true; %s -- true", bin, bin) == TD_EXIT_NOTHING_MEASURED);
    CHECK(contains("err.txt", "nothing measured (0 kernel launches seen), so no result file"));
    CHECK(!exists("true.topdown.json") && !exists("true.topdown-1.json"));
    CHECK(run("%s -o none.json -- /bin/sh -c 'exit 6'", bin) == 6);
    CHECK(!exists("none.json"));
    /* -f on an existing result: kept as it was */
    CHECK(run("%s -f -o r1.json -- true", bin) == TD_EXIT_NOTHING_MEASURED);
    CHECK(exists("r1.json"));
}

/* Launches seen, none profiled (-k matched nothing): the result keeps
 * their times and a note that `report` prints; a warning names the filter
 * and real kernel names; exit 3. */
static void test_filter_matched_nothing(void)
{
    CHECK(run("%s -k nosuchkernel -o timed.json -- %s", bin, fake_timed) ==
          TD_EXIT_NOTHING_MEASURED);
    CHECK(contains("err.txt", "warning: -k 'nosuchkernel' matched no kernel name; the app "
                   "launched \"fma_chain\", \"divergent\", \"triad\", ... (function names, as "
                   "--kernel-name-base says"));
    CHECK(contains("err.txt", "nothing measured: no launch was profiled (exit code 3)"));
    td_result res;
    CHECK(load("timed.json", &res) == 0);
    CHECK(res.n_devices == 1 && res.devices[0].n_launches == 14);
    CHECK(res.note && strstr(res.note, "nothing was profiled: -k 'nosuchkernel' matched no "
                             "kernel name"));
    td_result_free(&res);
    CHECK(run("%s report timed.json", bin) == 0);
    CHECK(contains("out.txt", "NOTE: no launch was profiled, so only times are shown: nothing "
                   "was profiled: -k 'nosuchkernel'"));
    /* the app's non-zero code still wins */
    CHECK(run("%s -k nosuchkernel -o timed2.json -- sh -c '%s; exit 9'", bin, fake_timed) == 9);
    /* a filter that matches: no warning; ncu's forms on the function's
     * base name, the mangled name under --kernel-name-base mangled */
    CHECK(run("%s -k fma_chain -o matched.json -- %s", bin, fake_app) == 0);
    CHECK(!contains_quiet("err.txt", "warning"));
    CHECK(run("%s -k 'regex:^fma_\\w+$' -o matched2.json -- %s", bin, fake_app) == 0);
    CHECK(!contains_quiet("err.txt", "warning"));
    CHECK(run("%s -k 'regex:^_Z\\d+fma' --kernel-name-base mangled -o matched3.json -- %s",
              bin, fake_app) == 0);
    CHECK(!contains_quiet("err.txt", "warning"));
    /* the parameter list is not in the function base name */
    CHECK(run("%s -k 'fma_chain\\(' -o unmatched.json -- %s", bin, fake_timed) ==
          TD_EXIT_NOTHING_MEASURED);
    CHECK(contains("err.txt", "warning: -k 'fma_chain\\(' matched no kernel name"));
}

/* The app's shell saves what the launcher gave it: TOPDOWN_COLLECT's text
 * in collect.txt, the whole environment in env.txt. */
#define SAVE_COLLECT "printf \"%%s\" \"$TOPDOWN_COLLECT\" > collect.txt; env > env.txt"

/* collect.txt read by the collector's own reader (collect_opts.c). */
static int read_app_opts(td_collect_opts *o, char *msg, size_t size)
{
    char *text = td_shell_read_file(dir, "collect.txt");
    int rc = text ? td_collect_opts_parse(o, text, msg, size) : -1;
    free(text);
    return rc;
}

/* ncu's -c/-s and --kernel-name-base reach the injection library as
 * lines of the one variable TOPDOWN_COLLECT (docs/COLLECTION.md), with
 * ncu's spelling; no option is a variable of its own any more. */
static void test_ncu_options_reach_the_app(void)
{
    CHECK(run("%s -s 2 -c 5 -k 'regex:^gemm_\\d+' --kernel-name-base mangled -o env1.json -- "
              "sh -c '" SAVE_COLLECT "; %s'", bin, fake_app) == 0);
    CHECK(contains("collect.txt", "launch_skip=2\n"));
    CHECK(contains("collect.txt", "launch_count=5\n"));
    CHECK(contains("collect.txt", "kernel_regex=regex:^gemm_\\d+\n"));
    CHECK(contains("collect.txt", "name_base=mangled\n"));
    CHECK(contains("env.txt", "TOPDOWN_COLLECT=spool="));
    const char *former[] = {"TOPDOWN_SPOOL=", "TOPDOWN_LAUNCH_SKIP=", "TOPDOWN_OVERHEAD=",
                            "TOPDOWN_LAUNCH_COUNT=", "TOPDOWN_KERNEL_REGEX=",
                            "TOPDOWN_KERNEL_NAME_BASE="};
    for (size_t i = 0; i < sizeof former / sizeof *former; i++)
        CHECK(!contains_quiet("env.txt", former[i]));
    CHECK(run("%s -o env2.json -- sh -c '" SAVE_COLLECT "; %s'", bin, fake_app) == 0);
    CHECK(contains("collect.txt", "name_base=function\n"));
    CHECK(contains("collect.txt", "kernel_regex=\n"));
    CHECK(run("%s -c 0 -- true", bin) == 2);
    CHECK(contains("err.txt", "--launch-count needs a whole number, 1 or more"));
}

/* Values of any bytes arrive exactly: a regex with '=' and '%', NVTX
 * specs one per line, read back by the collector's reader. */
static void test_values_arrive_exactly(void)
{
    CHECK(run("%s -k 'regex:^fma_chain=?%%?' --nvtx-include 'x=1/' --nvtx-include '100%%/' "
              "--nvtx-exclude 'w' -o exact.json -- sh -c '" SAVE_COLLECT "; %s'", bin,
              fake_app) == 0);
    CHECK(contains("collect.txt", "kernel_regex=regex:^fma_chain%3D?%25?\n"));
    CHECK(contains("collect.txt", "nvtx_include=x%3D1/%0A100%25/\n"));
    td_collect_opts o;
    char msg[256] = "";
    CHECK(read_app_opts(&o, msg, sizeof msg) == 0);
    CHECK_STR(o.kernel_regex, "regex:^fma_chain=?%?");
    CHECK_STR(o.nvtx_include, "x=1/\n100%/");
    CHECK_STR(o.nvtx_exclude, "w");
    CHECK(o.spool && strstr(o.spool, "exact.json.") && o.archs);
    td_collect_opts_free(&o);
}

/* --overhead reaches the collector exactly (12.5 was passed as 12): the
 * text the launcher writes, read back by the collector's own reader
 * (topdown/inject/collect_opts.c), which refuses none of it. */
static void test_overhead_reaches_the_collector(void)
{
    static const char *const given[] = {"--overhead 12.5", "", "--overhead unlimited",
                                        "--overhead 33.3"};
    static const char *const passed[] = {"12.5", "40", "0", "33.3"};
    static const double read[] = {12.5, 40, 0, 33.3};
    for (int i = 0; i < 4; i++) {
        CHECK(run("%s %s -f -o overhead.json -- sh -c '" SAVE_COLLECT "; %s'", bin, given[i],
                  fake_app) == 0);
        char line[64];
        snprintf(line, sizeof line, "overhead_pct=%s\n", passed[i]);
        CHECK(contains("collect.txt", line));
        td_collect_opts o;
        char msg[256] = "";
        CHECK(read_app_opts(&o, msg, sizeof msg) == 0);
        CHECK(o.overhead_pct == read[i]);
        CHECK(o.spool && o.replay_mode == TD_REPLAY_AUTO && o.name_base == TD_NAME_FUNCTION);
        td_collect_opts_free(&o);
    }
}

/* --no-nvtx leaves the app's NVTX_INJECTION64_PATH as it is (unset here),
 * and refuses the NVTX filters it would make meaningless. */
static void test_no_nvtx(void)
{
    CHECK(run("env -u NVTX_INJECTION64_PATH %s --no-nvtx -o nonvtx.json -- sh -c "
              "'echo \"nvtx=${NVTX_INJECTION64_PATH-unset}\" > nvtx.txt; %s'", bin,
              fake_app) == 0);
    CHECK(contains("nvtx.txt", "nvtx=unset\n"));
    CHECK(run("%s --no-nvtx --nvtx-include 'step/' -o nonvtx2.json -- sh -c "
              "'touch ran.txt'", bin) == 2);
    CHECK(contains("err.txt", "--no-nvtx turns off"));
    CHECK(!exists("ran.txt"));
}

static int is_fifo(const char *name)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* Issue 10, item 1: -f replaces a regular file only; a FIFO (as a device
 * node would be) or a folder stays as it is, and the app never starts. */
static void test_force_replaces_regular_files_only(void)
{
    CHECK(run("mkfifo fifo && mkdir folder") == 0);
    CHECK(run("%s -o fifo -f -- %s", bin, fake_app) != 0);
    CHECK(contains("err.txt", "FIFO"));
    CHECK(is_fifo("fifo"));
    CHECK(run("%s -o folder -f -- %s", bin, fake_app) != 0);
    CHECK(contains("err.txt", "folder"));
    CHECK(!exists("ran"));
    CHECK(run("%s import-nvprof m.csv --arch gp100 -o fifo -f", bin) != 0);
    CHECK(contains("err.txt", "FIFO"));
    CHECK(is_fifo("fifo"));
}

/* Items 3 and 7: outputs that would destroy the result or an existing
 * file, a missing folder, an unknown arch table: refused before the app
 * starts, with one line. */
static void test_outputs_checked_before_the_app(void)
{
    CHECK(run("%s -o res.json --csv res.json -- %s", bin, fake_app) != 0);
    CHECK(contains("err.txt", "res.json"));
    CHECK(run("echo keep > kept.csv && %s -o res2.json --csv-launches kept.csv -- %s", bin,
              fake_app) != 0);
    CHECK(contains("err.txt", "-f"));
    CHECK(contains("kept.csv", "keep"));
    CHECK(run("%s -o res3.json --csv nodir/k.csv -- %s", bin, fake_app) != 0);
    CHECK(contains("err.txt", "nodir"));
    CHECK(run("%s -o res4.json --arch nosuch -- %s", bin, fake_app) != 0);
    CHECK(contains("err.txt", "nosuch"));
    CHECK(!exists("ran"));
    CHECK(!exists("res.json") && !exists("res2.json") && !exists("res3.json"));
    /* The same outputs, allowed, after a run that recorded launches. */
    CHECK(run("%s -o res.json -f --csv kept.csv -- %s", bin, fake_app) == 0);
    CHECK(exists("ran"));
    CHECK(contains("kept.csv", "kernel,launches"));
    td_result res;
    CHECK(load("res.json", &res) == 0);
    CHECK(res.n_devices == 1 && res.devices[0].n_launches == 14);
    td_result_free(&res);
}

/* Item 4: two runs with the same -o X -f at once: each has its own spool
 * (the apps print its name), so neither loses its launches. */
static void test_concurrent_runs_have_their_own_spool(void)
{
    CHECK(run("(%s -o same.json -f -- sh -c 'echo " TD_SHELL_OPTION("spool") " > spool1; "
              "sleep 0.3; %s' > out1.txt 2>&1 & %s -o same.json -f -- sh -c 'echo "
              TD_SHELL_OPTION("spool") " > spool2; sleep 0.3; %s' > out2.txt 2>&1; wait)",
              bin, fake_app, bin, fake_app) == 0);
    char one[4096] = "", two[4096] = "";
    char path[4200];
    snprintf(path, sizeof path, "%s/spool1", dir);
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(one, sizeof one, f))
            one[0] = '\0';
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/spool2", dir);
    f = fopen(path, "r");
    if (f) {
        if (!fgets(two, sizeof two, f))
            two[0] = '\0';
        fclose(f);
    }
    CHECK(one[0] && two[0] && strcmp(one, two) != 0);
    CHECK(contains("out1.txt", "result saved to same.json (14 launches"));
    CHECK(contains("out2.txt", "result saved to same.json (14 launches"));
}

/* Item 7: when the result cannot be saved after the run, the spool stays
 * and the message names the command that makes the result from it. */
static void test_spool_kept_when_saving_fails(void)
{
    CHECK(run("%s -o lost.json -- sh -c '%s; rm lost.json; mkdir lost.json'", bin,
              fake_app) != 0);
    CHECK(contains("err.txt", "topdown import-spool"));
    CHECK(run("%s import-spool lost.json.*.spool -o found.json", bin) == 0);
    td_result res;
    CHECK(load("found.json", &res) == 0);
    CHECK(res.n_devices == 1 && res.devices[0].n_launches == 14);
    td_result_free(&res);
}

/* Item 10: SIGHUP and SIGQUIT are handled like SIGTERM (forwarded to the
 * app, the result kept); a signal the app ignores is no interruption. */
static void test_more_signals(void)
{
    td_result res;
    CHECK(run("%s -o hup.json -- /bin/sh -c '%s; kill -HUP $PPID; exec sleep 30'", bin,
              fake_app) == 128 + 1);
    CHECK(load("hup.json", &res) == 0);
    CHECK_STR(res.status, "interrupted");
    CHECK(res.term_signal == 1);
    td_result_free(&res);
    CHECK(run("%s -o quit.json -- /bin/sh -c '%s; kill -QUIT $PPID; exec sleep 30'", bin,
              fake_app) == 128 + 3);
    CHECK(load("quit.json", &res) == 0);
    CHECK_STR(res.status, "interrupted");
    td_result_free(&res);
    CHECK(run("%s -o ignored.json -- /bin/sh -c '%s; trap \"\" INT; kill -INT $PPID; sleep 0.2; "
              "exit 4'", bin, fake_app) == 4);
    CHECK(load("ignored.json", &res) == 0);
    CHECK_STR(res.status, "complete");
    CHECK(res.exit_code == 4 && res.term_signal == 0);
    CHECK(res.note && strstr(res.note, "signal 2"));
    td_result_free(&res);
}

static void test_signals(void)
{
    /* The app asks topdown to stop, as `timeout` or a job scheduler would:
     * topdown forwards SIGTERM to it and keeps an interrupted result. */
    int rc = run("%s -o term.json -- /bin/sh -c '%s; kill -TERM $PPID; exec sleep 30'", bin,
                 fake_app);
    CHECK(rc == 128 + 15);
    td_result res;
    CHECK(load("term.json", &res) == 0);
    CHECK_STR(res.status, "interrupted");
    CHECK(res.term_signal == 15);
    td_result_free(&res);
    rc = run("%s -o segv.json -- /bin/sh -c '%s; kill -SEGV $$'", bin, fake_app);
    CHECK(rc == 128 + 11);
    CHECK(load("segv.json", &res) == 0);
    CHECK_STR(res.status, "crashed");
    CHECK(res.exit_code == -1 && res.term_signal == 11);
    td_result_free(&res);
}

/* Reads the first line of dir/name into buf ("" when it cannot). */
static void first_line(const char *name, char *buf, size_t size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(buf, (int)size, f))
        buf[0] = '\0';
    if (f)
        fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

/* Issue 14, item 1: -o patterns name one result per process: %p the app's
 * pid (topdown's child: the shell that runs the fake app), %h the host,
 * %q{VAR} a variable, %i the first free number, %% a '%'. */
static void test_output_patterns(void)
{
    char pid[64], name[512], host[256];
    CHECK(run("%s -o 'pid.%%p.json' -- sh -c 'echo $$ > apppid; %s'", bin, fake_app) == 0);
    first_line("apppid", pid, sizeof pid);
    snprintf(name, sizeof name, "pid.%s.json", pid);
    CHECK(pid[0] && exists(name));
    CHECK(contains("err.txt", name));
    CHECK(gethostname(host, sizeof host) == 0);
    host[sizeof host - 1] = '\0';
    CHECK(run("%s -o 'host.%%h.json' -- %s", bin, fake_app) == 0);
    snprintf(name, sizeof name, "host.%s.json", host);
    CHECK(exists(name));
    CHECK(run("OMPI_COMM_WORLD_RANK=3 %s -o 'rank.%%q{OMPI_COMM_WORLD_RANK}.json' -- %s", bin,
              fake_app) == 0);
    CHECK(exists("rank.3.json"));
    CHECK(run("%s -o 'pct%%%%.json' -- %s", bin, fake_app) == 0);
    CHECK(exists("pct%.json"));
    /* %i: the first free number; the file taken stays as it was */
    CHECK(run("touch seq.1.json && %s -o 'seq.%%i.json' -- %s && %s -o 'seq.%%i.json' -- %s",
              bin, fake_app, bin, fake_app) == 0);
    td_result res;
    CHECK(exists("seq.1.json") && load("seq.2.json", &res) == 0);
    td_result_free(&res);
    CHECK(load("seq.3.json", &res) == 0);
    td_result_free(&res);
    CHECK(!exists("seq.4.json"));
}

/* Two runs at once with the same %i pattern: two files, never one. */
static void test_concurrent_numbered_outputs(void)
{
    CHECK(run("(%s -o 'conc.%%i.json' -- sh -c 'sleep 0.3; %s' > o1.txt 2>&1 & "
              "%s -o 'conc.%%i.json' -- sh -c 'sleep 0.3; %s' > o2.txt 2>&1; wait)", bin,
              fake_app, bin, fake_app) == 0);
    td_result res;
    CHECK(load("conc.1.json", &res) == 0 && res.devices[0].n_launches == 14);
    td_result_free(&res);
    CHECK(load("conc.2.json", &res) == 0 && res.devices[0].n_launches == 14);
    td_result_free(&res);
    CHECK(!exists("conc.3.json"));
}

/* A bad pattern or an unset variable: one line, before the app runs. */
static void test_bad_output_patterns(void)
{
    CHECK(run("rm -f ran") == 0);
    CHECK(run("%s -o 'bad.%%z.json' -- %s", bin, fake_app) == TD_EXIT_USAGE);
    CHECK(contains("err.txt", "-o 'bad.%z.json': unknown pattern %z (patterns: %p pid"));
    CHECK(run("%s -o 'bad.%%q{RANK.json' -- %s", bin, fake_app) == TD_EXIT_USAGE);
    CHECK(contains("err.txt", "closing '}'"));
    CHECK(run("%s -o 'bad.%%' -- %s", bin, fake_app) == TD_EXIT_USAGE);
    CHECK(contains("err.txt", "lone '%'"));
    CHECK(run("env -u TD_UNSET_RANK %s -o 'r.%%q{TD_UNSET_RANK}.json' -- %s", bin,
              fake_app) == TD_EXIT_USAGE);
    CHECK(contains("err.txt", "environment variable TD_UNSET_RANK is not set"));
    CHECK(!exists("ran"));
    CHECK(run("ls bad.* r.*") != 0); /* no result, no spool */
}

/* Profiles a fake app that writes spool (under src), then reads the
 * result back with `topdown report`: the same bytes on stdout (none when
 * the result cannot be modelled: the same message then). */
static void check_same_report(const char *src, const char *spool, const char *profile_view,
                              const char *report_view)
{
    run("%s -o mem.json -f --quiet %s -- sh -c 'cat %s/%s >> " TD_SHELL_OPTION("spool") "'",
        bin, profile_view, src, spool);
    CHECK(run("cp out.txt from_memory.txt && grep -v '^topdown: result saved' err.txt | "
              "head -1 > memory_err.txt") == 0);
    run("%s report mem.json --quiet %s", bin, report_view);
    CHECK(run("cp out.txt from_file.txt && head -1 err.txt > file_err.txt") == 0);
    int same = run("cmp from_memory.txt from_file.txt && cmp memory_err.txt file_err.txt") == 0;
    if (!same)
        fprintf(stderr, "the report after profiling differs from the file's: %s, %s\n", spool,
                profile_view);
    CHECK(same);
}

/* The report after a run is made from the result in memory: the same
 * bytes as `topdown report` reading the saved file, for spools of every
 * kind of record and several views. */
static void test_report_from_memory(const char *src)
{
    const char *spools[] = {
        "tests/fixtures/h100/td_smoke.spool",         "tests/fixtures/h100/td_bench.spool",
        "tests/fixtures/h200/h200_smoke.spool",       "tests/fuzz/spool/seeds/copies.spool",
        "tests/fuzz/spool/seeds/kernel_records.spool", "tests/fuzz/spool/seeds/pcsamp.spool",
        "tests/fuzz/spool/seeds/pm_samples.spool",    "tests/fuzz/spool/seeds/collector_lines.spool",
        "tests/fuzz/spool/seeds/small.spool"};
    const char *views[] = {"", "-l 4 -v --kernels 0 --wide", "-l 3 --json", "-l 2 --csv -",
                           "--by-region -l 2", "--print-summary per-kernel"};
    for (size_t i = 0; i < sizeof spools / sizeof *spools; i++)
        for (size_t v = 0; v < sizeof views / sizeof *views; v++)
            check_same_report(src, spools[i], views[v], views[v]);
    check_same_report(src, spools[0], "--timeline fma_chain", "--timeline fma_chain");
    CHECK(contains("from_memory.txt", "fma_chain"));
    check_same_report(src, spools[6], "--pm-interval 1000", "--pm-timeline");
    CHECK(contains("from_memory.txt", "PM-sampling timeline"));
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    if (!bin || access(bin, X_OK) != 0) {
        fprintf(stderr, "TOPDOWN_BIN is not set to the topdown binary\n");
        return 1;
    }
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    const char *src = getenv("TOPDOWN_REPO_DIR");
    snprintf(fake_app, sizeof fake_app, "%s/fake_app.sh", dir);
    FILE *f = fopen(fake_app, "w");
    if (f) {
        fprintf(f, "#!/bin/sh\ncat '%s/tests/fixtures/h100/td_smoke.spool' >> "
                   TD_SHELL_OPTION("spool") "\n"
                   "touch ran\n", src ? src : "..");
        fclose(f);
    }
    CHECK(f && chmod(fake_app, 0755) == 0);
    snprintf(fake_timed, sizeof fake_timed, "%s/fake_timed.sh", dir);
    f = fopen(fake_timed, "w");
    if (f) {
        fprintf(f, "#!/bin/sh\nsed 's/,\"counters\":\\[[^]]*\\]//' "
                   "'%s/tests/fixtures/h100/td_smoke.spool' >> " TD_SHELL_OPTION("spool") "\n",
                src ? src : "..");
        fclose(f);
    }
    CHECK(f && chmod(fake_timed, 0755) == 0);
    CHECK(run("printf 'x' > m.csv") == 0);
    test_bad_apps();
    test_force_replaces_regular_files_only();
    test_outputs_checked_before_the_app();
    test_exit_code_and_output_pass_through();
    test_never_overwrites();
    test_nothing_measured();
    test_filter_matched_nothing();
    test_ncu_options_reach_the_app();
    test_values_arrive_exactly();
    test_overhead_reaches_the_collector();
    test_no_nvtx();
    test_concurrent_runs_have_their_own_spool();
    test_spool_kept_when_saving_fails();
    test_more_signals();
    test_signals();
    test_output_patterns();
    test_concurrent_numbered_outputs();
    test_bad_output_patterns();
    test_report_from_memory(src ? src : "..");
    td_shell_remove_dir(dir);
    return td_check_summary();
}
