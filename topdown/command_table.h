/* The table of commands (command_table.c): each command's one row, and
 * the commands' enum that indexes it. cli.c parses, prints the help and
 * answers the completion from it; main.c dispatches by the enum to the
 * handlers (commands.h). It includes nothing of topdown/ (cli.h includes
 * it) and names no handler, so the table, the parser and the commands,
 * which use the parser, make no circle. */
#ifndef TD_COMMAND_TABLE_H
#define TD_COMMAND_TABLE_H

#include "metrics/error.h"

/* The commands, in the order topdown --help lists them. */
typedef enum td_command {
    TD_CMD_PROFILE,
    TD_CMD_REPORT,
    TD_CMD_LIST_ARCHS,
    TD_CMD_LIST_NODES,
    TD_CMD_DESCRIBE,
    TD_CMD_IMPORT_NVPROF,
    TD_CMD_PLOT,
    TD_CMD_DIFF,
    TD_CMD_IMPORT_SPOOL,
    TD_CMD_MERGE,
    TD_CMD_IMBALANCE,
    TD_CMD_TRACE,
    TD_CMD_SOURCE,
    TD_CMD_HELP,
    TD_CMD_COUNT
} td_command;

/* An option's help line(s) in one command, where that command uses it its
 * own way (-o's file, report's -k, source's --csv). */
typedef struct td_option_usage {
    const char *option; /* long name */
    const char *usage;
} td_option_usage;

/* A command: its name, the options it takes (long names of cli.c's option
 * table: exactly those it honours; any other is a usage error naming it),
 * its lines in topdown --help and its own help. Its handler is in main.c's
 * table, by the same enum. */
typedef struct td_command_def {
    const char *name;     /* as typed; "" for profiling */
    const char *operands; /* what its words other than options are, for the
                           * completion: "file", "node", "command", "app"
                           * (profiling's) or "" (none) */
    const char *options;  /* long names, space-separated */
    const char *summary;  /* its line(s) in topdown --help; NULL: said in another row */
    const char *synopsis; /* its usage line(s) in COMMAND --help */
    const char *examples;
    const td_option_usage *own; /* options it uses its own way: their help line(s)
                                 * here, {NULL}-terminated; NULL: the rows' */
} td_command_def;

extern const td_command_def td_commands[TD_CMD_COUNT];

#endif
