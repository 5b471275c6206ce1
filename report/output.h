/* What every output shares: writing files or stdout, numbers in the C
 * locale, CSV fields, and the launches of a result in launch order.
 *
 * The files topdown writes (results, CSVs, plots) follow one set of rules:
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
#include <locale.h>
#include <stddef.h>
#include <stdio.h>

#include "metrics/error.h"
#include "metrics/result/result.h"

/* The name the outputs give the whole application's row. */
#define TD_APP_ROW "<application>"

/* Numbers in the C locale whatever the process locale: the outputs are read
 * by programs. td_c_numeric_begin switches this thread to the C locale and
 * returns the previous one, which td_c_numeric_end restores. */
typedef struct td_c_numeric {
    locale_t c_locale;
    locale_t previous;
} td_c_numeric;

int td_c_numeric_begin(td_c_numeric *state, td_error *err);
void td_c_numeric_end(td_c_numeric *state);

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

/* Writes one CSV field, quoted when it holds a comma, a quote or a line break. */
void td_csv_field(FILE *out, const char *text);
/* A number with the given decimals; NAN is an empty field (and the callers
 * checked the values: never "inf"). Call between td_c_numeric_begin and
 * td_c_numeric_end. */
void td_csv_number(FILE *out, double value, int decimals);

/* A launch of the result, by device section and index, with its
 * invocation number: how many launches of the same kernel came before it
 * (from 0, profiled or not). */
typedef struct td_launch_ref {
    size_t dev;
    size_t index;
    size_t invocation;
} td_launch_ref;

/* Every launch of every device section in launch order (launch id, then
 * device section). *out is malloc'ed; free it. */
int td_launches_in_order(const td_result *res, td_launch_ref **out, size_t *n,
                         td_error *err);

#endif
