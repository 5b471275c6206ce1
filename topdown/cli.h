/* topdown's command line: one table of commands (command_table.c: name,
 * the options it takes, its help) and one table of options
 * (cli.c: how each is applied, listed and completed). topdown --help, each
 * COMMAND --help, the man page (help2man) and the bash completion (topdown
 * help --commands / --options) are made from them. A new option is a new
 * row and its name in the commands that take it. */
#ifndef TD_CLI_H
#define TD_CLI_H

#include <stdio.h>

#include "metrics/arch/arch.h"
#include "metrics/error.h"
#include "report/text.h"
#include "topdown/command_table.h"
#include "topdown/profile.h"

#define TD_CLI_MAX_OPTIONS 64

/* topdown's own exit codes (docs/USAGE.md, topdown --help). When the app exits
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
    const char *input;   /* -i FILE: the result read (ncu's -i) */
    const char *print_summary; /* --print-summary per-kernel: a line per kernel */
    const char *separator;     /* -x SEP: those lines' fields separated by SEP */
    int quiet;           /* --quiet: no "next:" hints */
    double from_ms, to_ms; /* trace --from / --to (ms; to_ms < 0: to the end) */
    const char *page;    /* report --page: details (NULL too), raw or session */
    int list_commands;   /* help --commands */
    int list_options;    /* help --options */
    unsigned char seen[TD_CLI_MAX_OPTIONS]; /* per option row: given on the command line */
} cli;

/* The usage text of topdown --help. */
void td_cli_usage(FILE *out);

/* topdown COMMAND --help: synopsis, options, examples, exit codes. */
void td_cli_command_usage(FILE *out, td_command command);

/* topdown help --commands: the commands, one a line: its name, a tab and
 * what its words other than options are (file, node, command or none). */
void td_cli_list_commands(FILE *out);

/* topdown help --options [COMMAND]: the options the command takes, one a
 * line: its names ("-l --level"), then, for one that takes a value, a tab
 * and what the value is: text, file, arch, node, or "words W1 W2 ...".
 * -1 with a td_error on a slip in the tables. */
int td_cli_list_options(FILE *out, td_command command, td_error *err);

/* A usage error: formats the message and returns TD_USAGE_ERROR. */
int td_usage_fail(td_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The command of that name (not profiling); TD_CMD_COUNT when none. */
td_command td_cli_command_named(const char *name);
/* Its name as typed ("" for profiling). */
const char *td_cli_command_name(td_command command);
/* The command nearest a mistyped word (a typo or two away), or NULL. */
const char *td_cli_command_near(const char *word);
/* Levenshtein distance, case-insensitive, of two short words ((size_t)-1
 * for words over 127 characters). */
size_t td_edit_distance(const char *a, const char *b);

/* Profiling's options, up to the first non-option (the app); optind is
 * left on it. Returns 0 or TD_USAGE_ERROR. */
int td_cli_parse_options(int argc, char **argv, cli *c, td_error *err);

/* A command's arguments: the options it takes, before or after its files
 * (getopt_long permutes argv; any other option is a usage error naming it
 * and the command), and up to max_files file names. 1 when --help was
 * asked for and printed (the command then returns 0), else 0 or
 * TD_USAGE_ERROR. */
int td_cli_parse_command(int argc, char **argv, td_command command, cli *c,
                         const char **files, int max_files, int *n_files, td_error *err);

/* 1 when the option of that long name was given on the command line. */
int td_cli_given(const cli *c, const char *long_name);

/* The arch tables of the default directory. */
int td_cli_load_archs(td_arch_set *archs, td_error *err);

#endif
