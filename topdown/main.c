/* topdown: main, which dispatches to the commands (commands.h), and the
 * default command, profiling an app. Every command returns an exit code or
 * -1 with a td_error; only main prints errors and exits. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/wrap.h"
#include "topdown/cli.h"
#include "topdown/commands.h"
#include "topdown/profile.h"


/* Flushes standard output; 1 (and why) when something written there did
 * not get there (a full disk, a closed pipe). */
static int stdout_failed(const char **why)
{
    errno = 0;
    int failed = fflush(stdout) != 0;
    int saved = errno;
    failed |= ferror(stdout) != 0;
    *why = saved ? strerror(saved) : "write failed (disk full or closed pipe?)";
    return failed;
}

static int cmd_profile(int argc, char **argv, td_error *err)
{
    cli c;
    int rc = td_cli_parse_options(argc, argv, &c, err);
    if (rc == 0)
        rc = td_cli_check(&c, TD_CMD_PROFILE, err);
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
    if (c.profile.kernel_filter &&
        (rc = cmd_check_kernel_name(c.profile.kernel_filter, c.report.name_base, 0, err)))
        return rc;
    c.profile.app_argv = &argv[optind];
    const char *outputs[] = {c.csv, c.csv_launches};
    c.profile.outputs = outputs;
    c.profile.n_outputs = 2;
    td_profile_outcome outcome;
    memset(&outcome, 0, sizeof outcome);
    if (td_profile_run(&c.profile, &outcome, err))
        return -1;
    if (outcome.message[0])
        fprintf(stderr, "topdown: %s\n", outcome.message);
    if (outcome.warning[0])
        fprintf(stderr, "topdown: warning: %s\n", outcome.warning);
    if (outcome.nvtx_note[0])
        fprintf(stderr, "topdown: note: %s\n", outcome.nvtx_note);
    if (outcome.clock_notice[0])
        fprintf(stderr, "topdown: warning: %s\n", outcome.clock_notice);
    /* The app's exit code passes through; when it is 0, a run that
     * measured nothing says so with its own code. */
    int nothing = outcome.app_exit_code ? outcome.app_exit_code : TD_EXIT_NOTHING_MEASURED;
    if (!outcome.result_written) {
        fprintf(stderr, "topdown: nothing measured (%ld kernel launches seen), so no result "
                "file was written (exit code %d%s)\n", outcome.launches, nothing,
                outcome.app_exit_code ? ", the app's" : "");
        return nothing;
    }
    td_error report_err;
    int has_data = 0;
    c.pm_timeline = c.profile.pm_interval_us > 0; /* the timeline is what was asked for */
    int report_failed = outcome.launches > 0 &&
                        cmd_print_result_file(outcome.result_path, &c, &has_data, &report_err);
    if (report_failed)
        fprintf(stderr, "topdown: %s (the result is saved: `topdown report %s` reads it "
                "again)\n", report_err.msg, outcome.result_path);
    /* the report first, then the closing line on stderr */
    const char *why;
    if (stdout_failed(&why)) {
        fprintf(stderr, "topdown: error writing standard output: %s\n", why);
        report_failed = 1;
        clearerr(stdout); /* said once */
    }
    fprintf(stderr, "topdown: result saved to %s (%ld launches, %ld profiled, %d replay pass%s)\n",
            outcome.result_path, outcome.launches, outcome.profiled, outcome.passes,
            outcome.passes == 1 ? "" : "es");
    if (outcome.launches > 0 && !report_failed)
        cmd_print_hint(outcome.result_path, &c, has_data);
    /* The app's exit code passes through; an output that failed after an
     * app that succeeded makes it 1. */
    if (outcome.nothing_measured) {
        fprintf(stderr, "topdown: nothing measured: no launch was profiled (exit code %d%s)\n",
                nothing, outcome.app_exit_code ? ", the app's" : "");
        return nothing;
    }
    return report_failed && outcome.app_exit_code == 0 ? 1 : outcome.app_exit_code;
}

int main(int argc, char **argv)
{
    td_error err = {{0}};
    int rc;
    const char *cmd = argc > 1 ? argv[1] : NULL;
    cmd_hint_program(argv[0]);
    if (!cmd) {
        td_cli_usage(stderr);
        return TD_EXIT_USAGE;
    }
    if (strcmp(cmd, "report") == 0)
        rc = cmd_report(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "list-archs") == 0)
        rc = cmd_list_archs(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "list-nodes") == 0)
        rc = cmd_list_nodes(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "describe") == 0)
        rc = cmd_describe(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "import-nvprof") == 0)
        rc = cmd_import_nvprof(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "plot") == 0)
        rc = cmd_plot(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "diff") == 0)
        rc = cmd_diff(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "import-spool") == 0)
        rc = cmd_import_spool(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "merge") == 0)
        rc = cmd_merge(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "imbalance") == 0)
        rc = cmd_imbalance(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "trace") == 0)
        rc = cmd_trace(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "source") == 0)
        rc = cmd_source(argc - 1, argv + 1, &err);
    else
        rc = cmd_profile(argc, argv, &err);
    if (rc < 0) {
        fflush(stdout);
        /* on a terminal, a long message in lines that fit it; one line
         * (for grep) into files and pipes */
        char line[sizeof err.msg + 16];
        snprintf(line, sizeof line, "topdown: %s\n", err.msg);
        if (isatty(fileno(stderr)))
            td_wrap_text(stderr, line, TD_TEXT_WIDTH, 2);
        else
            fputs(line, stderr);
        return rc == TD_USAGE_ERROR ? TD_EXIT_USAGE : TD_EXIT_FAILURE;
    }
    /* What went to standard output must have got there (a full disk, a
     * closed pipe): checked once for every command. */
    const char *why;
    if (stdout_failed(&why)) {
        fprintf(stderr, "topdown: error writing standard output: %s\n", why);
        return rc ? rc : 1;
    }
    return rc;
}
