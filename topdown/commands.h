/* topdown's commands: each returns an exit code, or -1 (a failure) or
 * TD_USAGE_ERROR (a bad command line) with a td_error. The types the
 * helpers below take are only declared here: the table of commands
 * (command_table.c) includes this header for the handlers, and the parser
 * (cli.h) includes the table, so this header does not include cli.h and
 * the three make no circle. */
#ifndef TD_COMMANDS_H
#define TD_COMMANDS_H

#include <stddef.h>

#include "metrics/error.h"

/* A command's handler: an exit code, or -1 / TD_USAGE_ERROR with a td_error.
 * main.c's table holds one for each command of the table (command_table.h). */
typedef int (*td_command_fn)(int argc, char **argv, td_error *err);

struct cli;         /* topdown/cli.h */
struct td_arch_set; /* metrics/arch/arch.h */
struct td_result;   /* metrics/result/result.h */

/* cmd_profile.c: topdown [options] [--] APP [ARGS...] */
int cmd_profile(int argc, char **argv, td_error *err);
/* Flushes standard output; 1 (and why) when something written there did
 * not get there (a full disk, a closed pipe). */
int cmd_stdout_failed(const char **why);

/* cmd_info.c */
int cmd_list_archs(int argc, char **argv, td_error *err);
int cmd_list_nodes(int argc, char **argv, td_error *err);
int cmd_describe(int argc, char **argv, td_error *err);

/* cmd_results.c */
int cmd_report(int argc, char **argv, td_error *err);
int cmd_import_nvprof(int argc, char **argv, td_error *err);
int cmd_plot(int argc, char **argv, td_error *err);
int cmd_diff(int argc, char **argv, td_error *err);
int cmd_import_spool(int argc, char **argv, td_error *err);

/* cmd_ranks.c: several processes (ranks) and a trace */
int cmd_merge(int argc, char **argv, td_error *err);
int cmd_imbalance(int argc, char **argv, td_error *err);
int cmd_trace(int argc, char **argv, td_error *err);

/* cmd_source.c: PC samples by source line */
int cmd_source(int argc, char **argv, td_error *err);

/* cmd_help.c: topdown help [COMMAND], and the completion's lists */
int cmd_help(int argc, char **argv, td_error *err);

/* Checks the outputs a command will write (NULL entries skipped) against
 * its inputs and the -f rule (report/output.h), before any work: a name
 * that breaks them is a usage error (TD_USAGE_ERROR). */
int cmd_check_outputs(const char *const *outputs, size_t n_outputs, int force,
                      const char *const *inputs, size_t n_inputs, td_error *err);

/* The files a command reads: each must be a file it can read; a missing
 * or unreadable one, or a folder, is a usage error (exit 2). "-" is
 * standard input, at most once. NULL entries are skipped. */
int cmd_check_inputs(const char *const *files, size_t n, td_error *err);
/* The arch tables, and the one --arch names (NULL: none) among them: an
 * unknown name is a usage error. -1 or TD_USAGE_ERROR on failure. */
int cmd_load_archs(struct td_arch_set *archs, const char *arch, td_error *err);

/* Loads, models and prints one result file (`report`, and after
 * profiling); a -k or --timeline that names no kernel of it is a usage
 * error (TD_USAGE_ERROR), other failures -1. *has_data (may be NULL):
 * some launch had counters. */
int cmd_print_result_file(const char *path, const struct cli *c, int *has_data, td_error *err);
/* The same for the result of path already in memory (profiling just
 * saved it there). */
int cmd_print_result(const char *path, const struct td_result *res, const struct cli *c,
                     int *has_data, td_error *err);
/* A -k argument checked before anything runs: a name pattern that
 * compiles (metrics/kmatch.h), or "#N" where ranks is 1 (offline
 * commands). 0, or TD_USAGE_ERROR with the one-line message. */
int cmd_check_kernel_name(const char *selector, int name_base, int ranks, td_error *err);
/* --print-summary per-kernel or -x: a line per kernel instead of the tree. */
int cmd_per_kernel_lines(const struct cli *c);
/* hints.c: after a text report of a result with counters, on stderr:
 * where the result is and what to run next; only on a terminal, not with
 * --quiet or TOPDOWN_HINTS=0, never the command just run. */
void cmd_print_hint(const char *path, const struct cli *c, int has_data);
/* The hints name topdown as it was run (argv[0] when it holds a '/'). */
void cmd_hint_program(const char *argv0);

#endif
