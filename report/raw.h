/* report --page raw and --page session (ncu's pages): the counter values
 * the model read, and the header alone. */
#ifndef TD_REPORT_RAW_H
#define TD_REPORT_RAW_H

#include <stdio.h>

#include "levels/aggregate.h"
#include "metrics/result/result.h"
#include "report/text.h"

/* Per kernel of s (heaviest first), then the application (TD_APP_ROW):
 * each metric of the device sections its launches ran on, as the
 * duration-weighted mean per launch over the profiled launches that
 * measured it (launches of no recorded duration weigh 1 ns), and how many
 * did (none, or a mean that is no finite number: not measured, "n/m" in
 * the text, an empty value in the CSV). csv: rows
 * kernel,metric,value,launches, the values whole; else a text table, the
 * values scaled with their unit (td_raw_format_value), names elided to
 * TD_TEXT_WIDTH columns unless wide. */
int td_report_raw(FILE *out, const td_result *res, const td_summary *s, int csv, int wide,
                  td_error *err);
/* A metric's value for the text, scaled, with the unit its name says:
 * "2.71 G cycles", "11.59 ms" (gpu__time_duration, in ns), "1.23 M inst",
 * "93.6 %" (nvprof's percentages), "1.52" (IPC). */
void td_raw_format_value(const char *metric, double value, char *buf, size_t size);

/* The same into a file ("-": stdout). */
int td_report_raw_file(const char *path, const td_result *res, const td_summary *s,
                       td_error *err);

/* --page session: the report's header alone (td_report_header), wrapped
 * to TD_TEXT_WIDTH columns unless o->wide. */
int td_report_session(FILE *out, const td_result *res, const td_summary *s,
                      const td_report_options *o, td_error *err);

#endif
