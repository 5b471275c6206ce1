/* Comparing two results (the same app on two GPUs, or two runs): kernels
 * matched by demangled name, node by node. Works across arch tables,
 * legacy or not, because it compares model nodes, not counters; a node a
 * table cannot measure has no value ("-" in text, empty in CSV). */
#ifndef TD_REPORT_DIFF_H
#define TD_REPORT_DIFF_H

#include <stdio.h>

#include "levels/aggregate.h"
#include "report/columns.h"

typedef struct td_diff_side {
    const char *label;    /* shown as "A: label", usually the file name */
    const td_result *res;
    const td_summary *s;
} td_diff_side;

typedef struct td_diff_row {
    const char *kernel;
    const td_kernel_summary *a, *b; /* NULL where the kernel is absent */
} td_diff_row;

typedef struct td_diff {
    td_diff_row *rows;  /* in both (A's order, heaviest first), only in A, only in B */
    size_t n_rows;
    size_t n_both, n_only_a, n_only_b;
} td_diff;

int td_diff_match(const td_summary *a, const td_summary *b, td_diff *out, td_error *err);

/* The GPU time of a launch that diff compares (and its --fail-if time
 * rules): a kernel's median, which a cold first launch or a slow one moves
 * little; the application's mean, its launches being of several kernels.
 * NAN without launches. */
#define TD_DIFF_KERNEL_PER_LAUNCH "median"
#define TD_DIFF_APP_PER_LAUNCH "mean"
double td_diff_kernel_launch_ns(const td_kernel_summary *k);
double td_diff_app_launch_ns(const td_summary *s);
void td_diff_free(td_diff *d);

/* The node columns of a level over both sides' tables. */
int td_diff_columns(const td_diff_side *a, const td_diff_side *b, int level,
                    td_columns *out, td_error *err);

/* One line (no newline) when both results recorded their measurement
 * conditions (caches, clocks) and they differ: 1 and the line in buf,
 * else 0 and "". */
int td_diff_conditions_warning(const td_result *a, const td_result *b, char *buf,
                               size_t size);

typedef struct td_diff_text_options {
    int level;
    long max_kernels; /* kernels of both listed, 0 = all */
    int name_base;    /* how kernels are named (td_name_base, report/kname.h) */
    int all_nodes;    /* every node; else only those that moved (|B-A| >= 0.05) */
    const char *kernels_shown; /* -k the sides' kernels were chosen by, for a note; NULL */
    int wide;         /* full lines and names; else TD_TEXT_WIDTH columns (report/wrap.h) */
} td_diff_text_options;

/* Side by side text: the application, then matched kernels, then the
 * kernels found on one side only. B-A is signed ("+0.2"); '~' marks a
 * change within the spread of both sides over their launches. */
int td_diff_text_with(FILE *out, const td_diff_side *a, const td_diff_side *b,
                      const td_diff_text_options *o, td_error *err);
/* The same with every node and full lines (wide), kernels named by their
 * base function name. */
int td_diff_text(FILE *out, const td_diff_side *a, const td_diff_side *b, int level,
                 long max_kernels, td_error *err);
/* One row per kernel (both sides, then A only, then B only) and the
 * "<application>" row last; schema in docs/OUTPUTS.md. */
int td_diff_csv(FILE *out, const td_diff_side *a, const td_diff_side *b, int level,
                td_error *err);
int td_diff_csv_file(const char *path, const td_diff_side *a, const td_diff_side *b,
                     int level, td_error *err);

#define TD_DIFF_SCHEMA "topdown-diff/1"
/* The same as JSON (docs/OUTPUTS.md): the application, then every kernel
 * (in both, only in A, only in B), each side's sizes and bottleneck and,
 * per node, A, B, B-A and whether B-A lies within the spread. */
int td_diff_json(FILE *out, const td_diff_side *a, const td_diff_side *b, int level,
                 td_error *err);

#endif
