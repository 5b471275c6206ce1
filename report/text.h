/* The text tree, in the spirit of pmu-tools' toplev. */
#ifndef TD_REPORT_TEXT_H
#define TD_REPORT_TEXT_H

#include <stdio.h>

#include "levels/aggregate.h"

/* Spreads over this many points of issue slots are printed ("+-1.1"). */
#define TD_SPREAD_THRESHOLD_DEFAULT 1.0

typedef struct td_report_options {
    int level;            /* 1..4 */
    int verbose;          /* show nodes below threshold, marked '<' */
    int no_desc;          /* no description lines */
    int desc;             /* every node's description (default: the bottleneck's, once) */
    int name_base;        /* td_name_base (report/kname.h): how kernels are named */
    long max_kernels;     /* kernels listed, heaviest first; 0: all */
    int app_only;         /* only the application tree */
    const char *origin;   /* the result's file name for the header, may be NULL */
    const char *kernels_shown; /* report -k: "#N" or a name pattern (report/select.h,
                                  metrics/kmatch.h); NULL: all */
    const char *nodes;    /* --nodes: the nodes shown (report/columns.h); NULL: all */
    double spread_threshold; /* points; a node's spread shows above it (0: always) */
    int by_region;        /* one tree per NVTX region (report/region.h) */
    int no_header;        /* leave out the header (each region after the first) */
    int wide;             /* --wide: full lines and names (default: TD_TEXT_WIDTH
                             columns, report/wrap.h) */
    int details;          /* --page details: each kernel's Launch and Occupancy
                             lines (report/launch_report.h) */
    const td_summary *device_sums; /* one per device section when there are
                                      several (report/copies.h): a tree each */
    size_t n_device_sums;
} td_report_options;

void td_report_options_init(td_report_options *o);

/* The header alone: version, file, command, devices. */
void td_report_header(FILE *out, const td_result *res, const td_summary *s,
                      const td_report_options *o);

/* Header, application tree, a tree per device section when there are
 * several (o->device_sums), then one tree per kernel; unless o->wide,
 * lines wrapped and kernel names elided to TD_TEXT_WIDTH columns. */
int td_report_text(FILE *out, const td_result *res, const td_summary *s,
                   const td_report_options *o, td_error *err);

#endif
