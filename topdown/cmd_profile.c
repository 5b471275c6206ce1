/* Profiling an app: topdown [options] [--] APP [ARGS...]; the report of
 * what it measured follows. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "report/outname.h"
#include "report/output.h"
#include "topdown/cli.h"
#include "topdown/commands.h"
#include "topdown/profile.h"

/* -o and the CSVs, checked before anything runs: a bad pattern (an unknown
 * %x, an unset %q{VAR}), or a fixed name that exists without -f or lies
 * in no folder, is a usage error. */
static int check_outputs(const cli *c, td_error *err)
{
    const char *outputs[] = {c->csv, c->csv_launches};
    int rc = cmd_check_outputs(outputs, 2, c->profile.force, NULL, 0, err);
    const char *o = c->profile.output;
    char name[4096];
    if (rc || !o)
        return rc;
    if (td_outname_expand(o, 1, 1, name, sizeof name, err))
        return TD_USAGE_ERROR;
    if (!strchr(o, '%') && td_output_check(o, c->profile.force, NULL, 0, err))
        return TD_USAGE_ERROR;
    return 0;
}

/* Whether word names a file here that reads as a result by its name
 * (.json, .json.xz, .json.gz): given where an app goes, it was meant for
 * `topdown report`. */
static int names_result_file(const char *word)
{
    static const char *const suffixes[] = {".json", ".json.xz", ".json.gz"};
    struct stat st;
    if (stat(word, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    size_t n = strlen(word);
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(word + n - k, suffixes[i]) == 0)
            return 1;
    }
    return 0;
}

/* The app word is a command given after options (topdown -l 2 report F),
 * or, when no such app exists, a command mistyped (topdown reprot F):
 * said as such. Any other app that cannot be found is a usage error too. */
static int check_app_word(char **argv, int at, const cli *c, td_error *err)
{
    const char *word = argv[at];
    int after_dashes = strcmp(argv[at - 1], "--") == 0;
    td_command k = td_cli_command_named(word);
    if (k != TD_CMD_COUNT && !after_dashes)
        return td_usage_fail(err, "`%s` is a command and comes first, its options after "
                             "it (topdown %s FILE -l 2, not topdown -l 2 %s FILE); see "
                             "topdown %s --help", word, word, word, word);
    if (td_profile_check_app(word, err) == 0)
        return 0;
    if (names_result_file(word))
        return td_usage_fail(err, "'%s' is a result, not an app to profile: topdown report %s "
                             "reads it", word, word);
    const char *near = after_dashes || strchr(word, '/') ? NULL : td_cli_command_near(word);
    if (near)
        return td_usage_fail(err, "no command or app \"%s\"; did you mean `topdown %s`? "
                             "(topdown --help lists the commands)", word, near);
    if (c->csv && strcmp(c->csv, "-") == 0 && strcmp(argv[at - 1], "--csv") == 0)
        td_fail_context(err, "--csv took no file (a name ending in .csv, or --csv=FILE)");
    return TD_USAGE_ERROR; /* the message says why the app was not found */
}

/* Flushes standard output; 1 (and why) when something written there did
 * not get there (a full disk, a closed pipe). */
int cmd_stdout_failed(const char **why)
{
    errno = 0;
    int failed = fflush(stdout) != 0;
    int saved = errno;
    failed |= ferror(stdout) != 0;
    *why = saved ? strerror(saved) : "write failed (disk full or closed pipe?)";
    return failed;
}

/* What follows a run: its messages, the report of the result in memory,
 * the closing lines; the exit code. */
static int report_run(cli *c, const td_profile_outcome *o, const td_result *res)
{
    if (o->message[0])
        fprintf(stderr, "topdown: %s\n", o->message);
    if (o->warning[0])
        fprintf(stderr, "topdown: warning: %s\n", o->warning);
    if (o->nvtx_note[0])
        fprintf(stderr, "topdown: note: %s\n", o->nvtx_note);
    if (o->clock_notice[0])
        fprintf(stderr, "topdown: warning: %s\n", o->clock_notice);
    /* The app's exit code passes through; when it is 0, a run that
     * measured nothing says so with its own code. */
    int nothing = o->app_exit_code ? o->app_exit_code : TD_EXIT_NOTHING_MEASURED;
    if (!o->result_written) {
        fprintf(stderr, "topdown: nothing measured (%ld kernel launches seen), so no result "
                "file was written (exit code %d%s)\n", o->launches, nothing,
                o->app_exit_code ? ", the app's" : "");
        return nothing;
    }
    td_error report_err;
    int has_data = 0;
    c->pm_timeline = c->profile.pm_interval_us > 0; /* the timeline is what was asked for */
    int report_failed = o->launches > 0 &&
                        cmd_print_result(o->result_path, res, c, &has_data, &report_err);
    if (report_failed)
        fprintf(stderr, "topdown: %s (the result is saved: `topdown report %s` reads it "
                "again)\n", report_err.msg, o->result_path);
    /* the report first, then the closing line on stderr */
    const char *why;
    if (cmd_stdout_failed(&why)) {
        fprintf(stderr, "topdown: error writing standard output: %s\n", why);
        report_failed = 1;
        clearerr(stdout); /* said once */
    }
    fprintf(stderr, "topdown: result saved to %s (%ld launches, %ld profiled, %d replay pass%s)\n",
            o->result_path, o->launches, o->profiled, o->passes,
            o->passes == 1 ? "" : "es");
    char over[512];
    if (td_result_budget_exceeded(res, over, sizeof over))
        fprintf(stderr, "topdown: warning: the cost budget was exceeded: %s\n", over);
    if (o->launches > 0 && !report_failed)
        cmd_print_hint(o->result_path, c, has_data);
    /* The app's exit code passes through; an output that failed after an
     * app that succeeded makes it 1. */
    if (o->nothing_measured && o->collector_failed) {
        /* topdown's failure, not the app's: its exit code passes through */
        fprintf(stderr, "topdown: no counters: the collection failed (the result's note says "
                "why); every launch is timed in the result (exit code %d, the app's)\n",
                o->app_exit_code);
        return o->app_exit_code;
    }
    if (o->nothing_measured) {
        fprintf(stderr, "topdown: nothing measured: no launch was profiled (exit code %d%s)\n",
                nothing, o->app_exit_code ? ", the app's" : "");
        return nothing;
    }
    return report_failed && o->app_exit_code == 0 ? 1 : o->app_exit_code;
}


int cmd_profile(int argc, char **argv, td_error *err)
{
    cli c;
    int rc = td_cli_parse_options(argc, argv, &c, err);
    if (rc)
        return rc;
    if (c.help) {
        td_cli_usage(stdout);
        return 0;
    }
    if (c.version) {
        printf("topdown %s\n", TOPDOWN_VERSION);
        return 0;
    }
    if (optind >= argc)
        return td_usage_fail(err, "no application given: topdown [options] -- APP [ARGS...] (see topdown --help)");
    if ((rc = check_app_word(argv, optind, &c, err)))
        return rc;
    if (c.profile.kernel_filter &&
        (rc = cmd_check_kernel_name(c.profile.kernel_filter, c.report.name_base, 0, err)))
        return rc;
    td_arch_set archs;
    if (c.arch && (rc = cmd_load_archs(&archs, c.arch, err)))
        return rc;
    if (c.arch)
        td_arch_set_free(&archs);
    if ((rc = check_outputs(&c, err)))
        return rc;
    c.profile.app_argv = &argv[optind];
    const char *outputs[] = {c.csv, c.csv_launches};
    c.profile.outputs = outputs;
    c.profile.n_outputs = 2;
    td_profile_outcome outcome;
    td_result res;
    memset(&outcome, 0, sizeof outcome);
    if (td_profile_run(&c.profile, &outcome, &res, err))
        return -1;
    rc = report_run(&c, &outcome, &res);
    td_result_free(&res);
    return rc;
}
