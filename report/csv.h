/* CSV outputs (schema in docs/OUTPUTS.md): one row per kernel plus the
 * application, or one row per profiled launch. Header row, RFC 4180
 * quoting, numbers in the C locale, node columns in tree order named by
 * their dotted path. Columns never change meaning; new ones are appended. */
#ifndef TD_REPORT_CSV_H
#define TD_REPORT_CSV_H

#include <stdio.h>

#include "levels/aggregate.h"
#include "report/output.h"

/* Kernels heaviest first, then the "<application>" row. */
int td_csv_kernels(FILE *out, const td_summary *s, int level, td_error *err);
/* Per NVTX region (report --by-region): each summary's kernels and its
 * "<application>" row, with a last "region" column (regions[r]; NULL or
 * "": launches outside any region). */
int td_csv_kernels_by_region(FILE *out, const td_summary *summaries, const char *const *regions,
                             size_t n, int level, td_error *err);
/* Profiled launches in launch order; a last "region" column when some
 * launch has an NVTX region. */
int td_csv_launches(FILE *out, const td_result *res, const td_summary *s, int level,
                    td_error *err);

/* The same into a file ("-": stdout), the node columns only those
 * td_node_selected shows under nodes (--nodes; NULL: all). */
int td_csv_kernels_file(const char *path, const td_summary *s, int level, const char *nodes,
                        td_error *err);
int td_csv_kernels_by_region_file(const char *path, const td_summary *summaries,
                                  const char *const *regions, size_t n, int level,
                                  const char *nodes, td_error *err);
int td_csv_launches_file(const char *path, const td_result *res, const td_summary *s,
                         int level, const char *nodes, td_error *err);

#endif
