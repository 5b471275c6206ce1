/* The files topdown writes (results, CSVs, plots) follow one set of rules:
 *  - "-" is standard output;
 *  - an existing file is replaced only with -f, and only when it is a
 *    regular file (never a device, a FIFO or a folder);
 *  - a file the command reads (its inputs) is never written;
 *  - the folder must exist, and this is checked before any work is done;
 *  - the file is written to a temporary next to it and renamed over the
 *    name once complete, so a full disk or a crash leaves the old file or
 *    none, never a partial one. */
#ifndef TD_REPORT_OUTPUT_H
#define TD_REPORT_OUTPUT_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "../metrics/error.h"

/* Whether path may be written by a command reading inputs (n_inputs paths,
 * NULL entries skipped) under the -f rule. */
int td_output_check(const char *path, int force, const char *const *inputs,
                    size_t n_inputs, td_error *err);
/* Two outputs of one command naming the same file (not "-"). */
int td_output_check_distinct(const char *const *paths, size_t n, td_error *err);
/* Whether a and b are the same file: the same inode when both exist, else
 * the same absolute name. */
int td_same_file(const char *a, const char *b);

typedef struct td_output {
    FILE *f;
    char path[PATH_MAX];
    char tmp[PATH_MAX + 32]; /* "" for stdout */
} td_output;

/* Opens a temporary next to path ("-": stdout). */
int td_output_open(td_output *o, const char *path, td_error *err);
/* Flushes and closes; a write error (disk full) is an error and removes the
 * temporary, else it is renamed over the path. */
int td_output_commit(td_output *o, td_error *err);
/* Closes and removes the temporary (after another error). */
void td_output_discard(td_output *o);
/* A fresh name next to path for a temporary ("PATH.tmp-PID-N"). */
void td_output_temp_name(const char *path, char *buf, size_t size);

#endif
