/* Many processes (ranks) and their results: merging results into one,
 * the imbalance of kernels across ranks, and a Chrome trace of a result's
 * kernels (docs/OUTPUTS.md). */
#ifndef TD_REPORT_RANKS_H
#define TD_REPORT_RANKS_H

#include <stdio.h>

#include "levels/aggregate.h"
#include "metrics/arch/arch.h"
#include "metrics/result/result.h"

/* Moves the device sections of the n inputs into out, in input order; a
 * section without an origin gets labels[i] (the input's file). The header
 * is the first input's, with a note naming the inputs (and saying when
 * they are of different jobs); replay modes that differ are "mixed".
 * Fails, touching nothing, when two sections of one chip were measured
 * with different arch tables, and, unless force, when the inputs are not
 * the processes of one job: a command that differs (but for numbers: a
 * rank, a port), or a synthetic example beside a measurement. */
int td_results_merge(td_result *inputs, const char *const *labels, size_t n, int force,
                     td_result *out, td_error *err);

/* The ranks of a result: its device sections' distinct origins (sections
 * without one count as one rank). */
size_t td_result_ranks(const td_result *res);

/* Each rank's totals (kernels, launches, GPU time, communication's part;
 * report/comm.h), then per kernel (matched by demangled name) GPU time and
 * level-1 shares per rank (a device section's origin; sections without
 * one are one rank named default_origin), the slowest rank marked, kernels
 * sorted by the time lost (the slowest rank's GPU time minus the mean over
 * the ranks, absent = 0), at most max_kernels of them (0 = all); as text
 * within TD_TEXT_WIDTH columns, or json ("topdown-imbalance/1": the rank
 * totals, per kernel its time lost, max/mean and each rank's time, level 1
 * and bottleneck). */
int td_imbalance_text(FILE *out, const td_result *res, const td_arch_set *archs,
                      const char *arch_override, const char *default_origin,
                      size_t max_kernels, int json, td_error *err);

/* What td_trace_write puts in the trace. */
typedef struct td_trace_options {
    const unsigned char *keep; /* per kernel of the summary: 1 in the trace (-k);
                                  NULL: every kernel, and the copies */
    const char *kernels;       /* -k as given, for the trace's otherData; may be NULL */
    double from_ms, to_ms;     /* the window, in ms from the run's first start: the
                                  events that overlap it; to_ms < 0: to the end */
} td_trace_options;

/* What it wrote and left out. */
typedef struct td_trace_counts {
    size_t untimed; /* launches (of the kernels kept) without a start time
                       (replayed): not in the trace */
    size_t events;  /* launches and copies written */
    size_t regions; /* NVTX region spans written */
} td_trace_counts;

/* The NVTX track's tid: above any stream's id. */
#define TD_TRACE_NVTX_TID 4294967295.0
/* td_trace_write's return when -k or the window left no event. */
#define TD_TRACE_EMPTY 2

/* Chrome trace-event JSON of the result's kernel launches and copies (those
 * with a start time, of the kernels o->keep keeps, overlapping the window):
 * one complete event per launch, pid = device section, tid = stream,
 * args = its kernel's level-1 shares (null: not measured) and bottleneck
 * (from s), coloured by that bottleneck; one per copy on its stream's
 * track, args = kind, direction, bytes, bandwidth in GB/s, devices of a
 * peer copy; per device section an "NVTX regions" track of spans, each a
 * run of its launches in the window (-k aside) made in one NVTX region
 * (first start to last end, cut at the next span); in "otherData" the
 * launches (of the kernels kept) without a start time, and the filter.
 * ts is from the run's first start, whatever the filter. Compressed when path ends in .gz or .xz; written whole or
 * not at all. */
int td_trace_write(const char *path, const td_result *res, const td_summary *s,
                   const td_trace_options *o, td_trace_counts *counts, td_error *err);

#endif
