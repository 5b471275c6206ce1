/* The CUPTI metric catalog of one chip, read through the profiler host API
 * (cupti_profiler_host.h). It needs libcupti only: no GPU, no driver. Used
 * to check arch tables against the real metric names of every chip and to
 * count the replay passes a set of metrics costs. */
#ifndef TD_CATALOG_H
#define TD_CATALOG_H

#include <stddef.h>

#include "metrics/error.h"

/* Base metrics of the stall reasons: smsp__warps_issue_stalled_<reason>. */
#define TD_STALL_PREFIX "smsp__warps_issue_stalled_"

typedef struct td_catalog td_catalog;

/* Chips the installed CUPTI supports ("GH100", ...), in CUPTI's order.
 * Free with td_catalog_free_names. */
int td_catalog_chips(char ***chips, size_t *n, td_error *err);
void td_catalog_free_names(char **names, size_t n);

/* Opens the range-profiler catalog of a chip named as CUPTI spells it. */
int td_catalog_open(td_catalog **out, const char *chip, td_error *err);
/* The same for CUPTI's PM sampling (cupti_pmsampling.h): its own catalog
 * and pass counts; td_catalog_passes then says how many PM-sampling passes
 * a set needs (PM sampling takes only sets of one pass). Without the
 * device's counter availability image, as everything here. */
int td_catalog_open_pm_sampling(td_catalog **out, const char *chip, td_error *err);
void td_catalog_close(td_catalog *c);
const char *td_catalog_chip(const td_catalog *c);

/* 1 if the range profiler can collect this exact name: a known base metric
 * with a rollup or submetric the catalog lists for it ("x.sum"). A bare
 * base name is not collectable and gives 0. */
int td_catalog_has_metric(td_catalog *c, const char *metric);

/* Base counter metrics whose name starts with prefix, in catalog order. */
int td_catalog_base_metrics(td_catalog *c, const char *prefix, char ***names,
                            size_t *n, td_error *err);

/* The chip's stall reasons ("long_scoreboard", ...): every base metric
 * TD_STALL_PREFIX<reason> for which td_stall_not_a_reason says NULL. */
int td_catalog_stall_reasons(td_catalog *c, char ***reasons, size_t *n,
                             td_error *err);

/* NULL if `reason` is a stall reason of MODEL.md; otherwise why it is not
 * one. `all` holds every TD_STALL_PREFIX suffix of the chip (to recognise
 * per-pipe subsets of another reason). */
const char *td_stall_not_a_reason(const char *reason, char *const *all, size_t n);

/* Replay passes the range profiler needs for exactly these metrics, added
 * in this order (CUPTI schedules in order: the same set can cost more
 * passes in another order). */
int td_catalog_passes(td_catalog *c, const char *const *metrics, size_t n,
                      size_t *passes, td_error *err);

/* Searches for an order of metrics[keep..n) with fewer passes: tries
 * `tries` seeded shuffles (deterministic), keeps the best order found in
 * place (the given order when nothing beats it) and its passes. The first
 * `keep` metrics stay where they are. */
int td_catalog_fewest_passes(td_catalog *c, const char **metrics, size_t n,
                             size_t keep, unsigned tries, size_t *passes,
                             td_error *err);

#endif
