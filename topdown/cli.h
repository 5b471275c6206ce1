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
    TD_CMD_IMPORT_NVPROF,
    TD_CMD_DESCRIBE,
    TD_CMD_LIST_ARCHS,
    TD_CMD_MERGE,
    TD_CMD_IMBALANCE,
    TD_CMD_TRACE,
    TD_CMD_SOURCE,
    TD_CMD_COUNT
} td_command;

#define TD_CLI_MAX_OPTIONS 64

/* topdown's own exit codes (README, topdown --help). When the app exits
 * with a non-zero code, topdown exits with the app's code instead. */
#define TD_EXIT_FAILURE 1          /* topdown failed (a file, the collection) */
#define TD_EXIT_USAGE 2            /* a bad command line */
#define TD_EXIT_NOTHING_MEASURED 3 /* the run profiled no kernel launch */
#define TD_EXIT_FAIL_IF 4          /* diff --fail-if: a node moved more than allowed */

/* What a command returns for a usage error (main exits TD_EXIT_USAGE);
 * -1 is any other failure. Both come with a td_error. */
#define TD_USAGE_ERROR (-2)

/* topdown source -n: lines shown by default. */
#define TD_SOURCE_LINES_DEFAULT 20

typedef struct cli {
    td_report_options report;
    td_profile_options profile;
    const char *arch;
    int help, version;
    /* outputs of docs/OUTPUTS.md */
    const char *csv, *csv_launches, *timeline;
    const char *times;   /* import-nvprof --times */
    const char *fail_if; /* diff --fail-if */
    int json;
    double phase_threshold;
    long top;
    int plot_diff;
    const char *node;    /* source --node */
    int sass;            /* source --sass */
    long lines;          /* source -n */
    int pm_timeline;     /* report/plot --pm-timeline */
    int quiet;           /* --quiet: no "next:" hints */
    unsigned char seen[TD_CLI_MAX_OPTIONS]; /* per option row: given on the command line */
} cli;

/* The usage text of topdown --help. */
void td_cli_usage(FILE *out);

/* topdown COMMAND --help: synopsis, options, examples, exit codes. */
void td_cli_command_usage(FILE *out, td_command command);

/* A usage error: formats the message and returns TD_USAGE_ERROR. */
int td_usage_fail(td_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses options up to the first non-option (the app); optind is left on
 * it. Returns 0 or TD_USAGE_ERROR. */
int td_cli_parse_options(int argc, char **argv, cli *c, td_error *err);

/* Options before or after the file names (getopt_long permutes argv):
 * up to max_files words that are not options go to files. Returns 0 or
 * TD_USAGE_ERROR. */
int td_cli_parse_with_files(int argc, char **argv, cli *c, const char **files, int max_files,
                            int *n_files, td_error *err);

/* A command's arguments: its options (checked against the command) and up
 * to max_files file names. 1 when --help was asked for and printed (the
 * command then returns 0), else 0 or TD_USAGE_ERROR. */
int td_cli_parse_command(int argc, char **argv, td_command command, cli *c,
                         const char **files, int max_files, int *n_files, td_error *err);

/* Fails (TD_USAGE_ERROR) with the command's message when an option it does
 * not take was given. */
int td_cli_check(const cli *c, td_command command, td_error *err);

/* 1 when the option of that long name was given on the command line. */
int td_cli_given(const cli *c, const char *long_name);

/* The arch tables of the default directory. */
int td_cli_load_archs(td_arch_set *archs, td_error *err);

#endif
