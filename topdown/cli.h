/* topdown's command line: one option table; each row says which commands
 * take the option, how it is applied and how the usage lists it. A new
 * option is a new row; a command's checks are its row bits and its
 * messages for options it does not take. */
#ifndef TD_CLI_H
#define TD_CLI_H

#include <stdio.h>

#include "metrics/arch.h"
#include "metrics/error.h"
#include "report/text.h"
#include "topdown/profile.h"

/* The commands that take options. */
typedef enum td_command {
    TD_CMD_PROFILE,
    TD_CMD_REPORT,
    TD_CMD_PLOT,
    TD_CMD_DIFF,
    TD_CMD_LIST_NODES,
    TD_CMD_IMPORT_SPOOL,
    TD_CMD_COUNT
} td_command;

#define TD_CLI_MAX_OPTIONS 64

typedef struct cli {
    td_report_options report;
    td_profile_options profile;
    const char *arch;
    int help, version;
    /* outputs of docs/OUTPUTS.md */
    const char *csv, *csv_launches, *timeline;
    int json;
    double phase_threshold;
    long top;
    int plot_diff;
    unsigned char seen[TD_CLI_MAX_OPTIONS]; /* per option row: given on the command line */
} cli;

/* The usage text of topdown --help. */
void td_cli_usage(FILE *out);

/* Parses options up to the first non-option (the app, or a file); optind
 * is left on it. */
int td_cli_parse_options(int argc, char **argv, cli *c, td_error *err);

/* Options before or after the file names: up to max_files words that are
 * not options go to files. */
int td_cli_parse_with_files(int argc, char **argv, cli *c, const char **files, int max_files,
                            int *n_files, td_error *err);

/* Fails with the command's message when an option it does not take was given. */
int td_cli_check(const cli *c, td_command command, td_error *err);

/* The arch tables of the default directory. */
int td_cli_load_archs(td_arch_set *archs, td_error *err);

#endif
