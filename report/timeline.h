/* The periodic analysis: one kernel's node shares over its successive
 * invocations, split into phases where the level-1 shares jump. */
#ifndef TD_REPORT_TIMELINE_H
#define TD_REPORT_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "levels/aggregate.h"
#include "metrics/kernel_base.h"
#include "metrics/result/result.h"

/* Default --phase-threshold: points of issue-slot share. */
#define TD_PHASE_THRESHOLD_DEFAULT 5.0

/* The kernel named by pattern: "#N" (its rank), its exact demangled name,
 * else the one kernel the pattern matches as -k does (report/select.h:
 * names under base, res for the mangled ones, may be NULL). Ambiguous or
 * unknown patterns are errors listing names. */
int td_kernel_lookup(const td_summary *s, const td_result *res, const char *pattern,
                     td_name_base base, const char **name, td_error *err);

/* A point is one profiled launch that measured the full set, or (replay-
 * free collection, --sample-every) the consecutive profiled launches of
 * the kernel that together measured every counter group once, combined
 * (levels/combine.h) with their bootstrap spread (levels/spread.h). */
typedef struct td_timeline_point {
    size_t invocation;  /* among all launches of the kernel, from 0 (the first
                           of a combined point) */
    uint64_t launch_id;
    size_t dev;         /* device section: its model is s->models[dev] */
    uint64_t start_ns;
    double duration_ns; /* a combined point: the mean of its launches */
    td_breakdown b;
    size_t samples;     /* launches it combines (1: one full-set launch) */
    td_breakdown spread; /* a combined point's half-widths per node (levels/spread.h) */
    int has_spread;     /* some group of a combined point holds two launches:
                           else (one launch, or one a group) it shows none */
} td_timeline_point;

typedef struct td_timeline {
    const char *kernel;        /* borrowed from the result */
    size_t invocations;        /* all launches of the kernel */
    td_timeline_point *points; /* in launch order */
    size_t n_points;
    size_t combined;           /* points that combine counter groups */
    size_t leftover;           /* group launches after the last complete point */
} td_timeline;

int td_timeline_build(const td_result *res, const td_summary *s, const char *kernel,
                      td_timeline *out, td_error *err);
void td_timeline_free(td_timeline *t);

/* Level-1 shares in %: the built-in level-1 nodes in tree order (Retire,
 * Divergence, Frontend, Backend), then Unattributed. */
#define TD_PHASE_WIDTH 5
void td_level1_shares(const td_breakdown *b, double shares[TD_PHASE_WIDTH]);
/* Their names, in the same order. */
void td_level1_names(const char *names[TD_PHASE_WIDTH]);

/* The models of the devices the kernel ran on (usually one), each once,
 * into models (room for t->n_points); how many. */
size_t td_timeline_models(const td_timeline *t, const td_summary *s, const td_model **models);

/* Splits n vectors of width values into phases: a phase starts at 0 and
 * wherever some value differs from the previous vector's by more than
 * threshold. Writes the first index of each phase into starts (room for
 * n) and returns the number of phases. */
size_t td_phase_split(const double *series, size_t n, size_t width, double threshold,
                      size_t *starts);

typedef struct td_phase {
    size_t first, last;  /* point indexes, inclusive */
    double total_ns;
    td_breakdown mean;   /* duration-weighted over the phase */
} td_phase;

/* The phases of a timeline; *out malloc'ed. */
int td_timeline_phases(const td_timeline *t, double threshold, td_phase **out, size_t *n,
                       td_error *err);

/* The per-invocation table at level (leaf nodes of the level) and one line
 * per phase. td_timeline_json (timeline_json.c): the same as one JSON
 * object ("schema": "topdown-timeline/1", docs/OUTPUTS.md). */
int td_timeline_json(FILE *out, const td_timeline *t, const td_summary *s, int level,
                     double threshold, td_error *err);
int td_timeline_text(FILE *out, const td_timeline *t, const td_summary *s, int level,
                     double threshold, td_error *err);
/* The text fits TD_TEXT_WIDTH columns (report/wrap.h: the table split
 * into blocks of node columns, the name elided, lines wrapped) unless
 * wide; td_timeline_text is this, not wide. */
int td_timeline_text_with(FILE *out, const td_timeline *t, const td_summary *s, int level,
                          double threshold, int wide, td_error *err);

#endif
