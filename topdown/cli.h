/* topdown's command line: the options of all commands and their parsing. */
#ifndef TD_CLI_H
#define TD_CLI_H

#include <stdio.h>

#include "metrics/arch.h"
#include "metrics/error.h"
#include "report/text.h"
#include "topdown/profile.h"

typedef struct cli {
    td_report_options report;
    td_profile_options profile;
    const char *arch;
    int profiling_option_seen; /* a profiling-only option, for `report` */
    int help, version;
    /* outputs of docs/OUTPUTS.md */
    const char *csv, *csv_launches, *timeline;
    double phase_threshold;
    long top;
    int plot_diff;
    int plot_option_seen; /* --top or --diff: only for `plot` */
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

/* The arch tables of the default directory. */
int td_cli_load_archs(td_arch_set *archs, td_error *err);

#endif
