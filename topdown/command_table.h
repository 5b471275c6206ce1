/* The table of commands (command_table.c): each command's one row. cli.c
 * parses, prints the help and answers the completion from it; main.c
 * dispatches through it. */
#ifndef TD_COMMAND_TABLE_H
#define TD_COMMAND_TABLE_H

#include "topdown/cli.h"

/* An option's help line(s) in one command, where that command uses it its
 * own way (-o's file, report's -k, source's --csv). */
typedef struct td_option_usage {
    const char *option; /* long name */
    const char *usage;
} td_option_usage;

/* A command: its name, what runs it, the options it takes (long names of
 * cli.c's option table: exactly those it honours; any other is a usage
 * error naming it), its lines in topdown --help and its own help. */
typedef struct td_command_def {
    const char *name;     /* as typed; "" for profiling */
    td_command_fn run;
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
