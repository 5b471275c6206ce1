/* NVTX regions of a result (td_launch.region, topdown/inject/nvtx_filter.h):
 * the distinct regions in launch order, a view of the result restricted
 * to one region's launches, and `report --by-region`: one tree per region,
 * each modelled over that region's launches only (time-weighted as the
 * whole report is). */
#ifndef TD_REPORT_REGION_H
#define TD_REPORT_REGION_H

#include <stdio.h>

#include "levels/aggregate.h"
#include "report/text.h"

/* The distinct regions in order of their first launch (all device
 * sections); NULL stands for launches outside any region, listed where
 * the first such launch is. *names is malloc'ed, its strings borrowed. */
int td_result_regions(const td_result *res, const char ***names, size_t *n, td_error *err);

/* A result sharing everything with res but holding only the launches of
 * region (NULL: those outside any region). Free with td_region_view_free,
 * never td_result_free. */
int td_region_view(const td_result *res, const char *region, td_result *view, td_error *err);
void td_region_view_free(td_result *view);

/* Every region: its name, its view of the result and its summary
 * (archs and arch_override as td_summarize). */
typedef struct td_region_set {
    const char **names;   /* borrowed from the result; NULL: outside any region */
    td_result *views;
    td_summary *summaries;
    size_t n;
} td_region_set;

int td_region_set_build(const td_result *res, const td_arch_set *archs,
                        const char *arch_override, td_region_set *out, td_error *err);
void td_region_set_free(td_region_set *set);

/* The label of a region: its name, or "(no NVTX region)". */
const char *td_region_label(const char *name);

/* The text report of each region: the run's header once (res and its
 * summary s: the whole run's totals and notes, not a region's), then per
 * region a line naming it, its launches and its share of the run's GPU
 * time, and its tree. */
int td_report_by_region(FILE *out, const td_result *res, const td_summary *s,
                        const td_region_set *set, const td_report_options *o, td_error *err);

#endif
