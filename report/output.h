/* What every output shares: writing files or stdout, numbers in the C
 * locale, CSV fields, and the launches of a result in launch order. */
#ifndef TD_REPORT_OUTPUT_H
#define TD_REPORT_OUTPUT_H

#include <locale.h>
#include <stdio.h>

#include "metrics/error.h"
#include "metrics/result.h"

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

/* Opens path for writing ("-" is stdout). */
FILE *td_output_open(const char *path, td_error *err);
/* Closes (not stdout) and reports a write error (disk full) as an error. */
int td_output_close(FILE *f, const char *path, td_error *err);

/* Writes one CSV field, quoted when it holds a comma, a quote or a line break. */
void td_csv_field(FILE *out, const char *text);
/* A number with the given decimals; NAN is an empty field. Call between
 * td_c_numeric_begin and td_c_numeric_end. */
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
