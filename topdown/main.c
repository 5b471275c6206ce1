/* topdown: main, which runs the command named first (the table of
 * topdown/command_table.c, its handler from the table below), else
 * profiles an app. Every command returns an exit code or -1 /
 * TD_USAGE_ERROR with a td_error; only main prints errors and exits. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "report/wrap.h"
#include "topdown/cli.h"
#include "topdown/commands.h"

/* Each command's handler, by the enum of the table of commands: kept here,
 * above the commands, because they parse with cli.c, which reads that
 * table (a table naming them would make a circle). */
static const td_command_fn handlers[TD_CMD_COUNT] = {
    [TD_CMD_PROFILE] = cmd_profile,
    [TD_CMD_REPORT] = cmd_report,
    [TD_CMD_LIST_ARCHS] = cmd_list_archs,
    [TD_CMD_LIST_NODES] = cmd_list_nodes,
    [TD_CMD_DESCRIBE] = cmd_describe,
    [TD_CMD_IMPORT_NVPROF] = cmd_import_nvprof,
    [TD_CMD_PLOT] = cmd_plot,
    [TD_CMD_DIFF] = cmd_diff,
    [TD_CMD_IMPORT_SPOOL] = cmd_import_spool,
    [TD_CMD_MERGE] = cmd_merge,
    [TD_CMD_IMBALANCE] = cmd_imbalance,
    [TD_CMD_TRACE] = cmd_trace,
    [TD_CMD_SOURCE] = cmd_source,
    [TD_CMD_HELP] = cmd_help,
};

/* Text fits the terminal standard output is, else TD_TEXT_WIDTH; coloured
 * there unless NO_COLOR (--color overrides). */
static void set_text_width(void)
{
    int tty = isatty(STDOUT_FILENO);
    struct winsize ws = {0};
    int cols = tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
    td_set_text_width(td_choose_text_width(tty, getenv("COLUMNS"), cols));
    td_set_text_color(td_choose_color(NULL, tty, getenv("NO_COLOR")));
}

int main(int argc, char **argv)
{
    td_error err = {{0}};
    int rc;
    const char *cmd = argc > 1 ? argv[1] : NULL;
    cmd_hint_program(argv[0]);
    set_text_width();
    if (!cmd) {
        td_cli_usage(stderr);
        return TD_EXIT_USAGE;
    }
    td_command k = td_cli_command_named(cmd);
    if (k != TD_CMD_COUNT)
        rc = handlers[k](argc - 1, argv + 1, &err);
    else
        rc = handlers[TD_CMD_PROFILE](argc, argv, &err);
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
    if (cmd_stdout_failed(&why)) {
        fprintf(stderr, "topdown: error writing standard output: %s\n", why);
        return rc ? rc : 1;
    }
    return rc;
}
