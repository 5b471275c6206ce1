/* What profiling cost the app, as the collector measured it
 * (docs/RESULT_FORMAT.md, "cost"): each process's end record of the
 * spool, summed over the processes (fork, MPI ranks) and over the inputs
 * of `topdown merge`. The report prints it as an estimate against the
 * native run. Optional: results written before it, and spools whose end
 * records carry no elapsed_s, have none. */
#ifndef TD_COST_H
#define TD_COST_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/error.h"
#include "metrics/json_field.h"

#define TD_COST_VERSION 1    /* "version" of the "cost" object written */
#define TD_COST_MAX_S 1e9    /* seconds a field may hold (over 30 years) */
#define TD_COST_MAX_COUNT 9007199254740992.0 /* 2^53 */

typedef struct td_cost {
    uint64_t processes;  /* end records summed; 0: not recorded */
    double elapsed_s;    /* wall time from injection to the app's exit */
    double profiling_s;  /* what the budget weighed: profiled launches and
                            decodes, without waits for the app's GPU work */
    double setup_s;      /* one-time set-up: profiler per context, first
                            rotation session */
    double coverage_s;   /* each kernel's first full measurement, once per kernel */
    double tracing_s;    /* inside topdown's launch callbacks of launches
                            only timed (CUPTI's own cost in the driver is
                            not measured) */
    double exit_s;       /* at the app's exit, beyond what profiling_s holds
                            of it (the last decode): records written, PC
                            samples read */
    double switch_s;     /* counter-group switches, and */
    double decode_s;     /* decoding counters: where the three above went
                            (overlapping them, never added to them) */
    uint64_t switches;
    uint64_t launches, profiled, budget_skipped, replay_failures;
} td_cost;

int td_cost_recorded(const td_cost *c);
/* Adds one's fields to sum's (processes too); one not recorded adds nothing. */
void td_cost_add(td_cost *sum, const td_cost *one);

/* What profiling added: profiling + set-up + coverage + tracing + end of
 * run, seconds. */
double td_cost_added_s(const td_cost *c);
/* The run without profiling: elapsed - added; may be <= 0 when the clocks
 * disagree, and then no share of it is estimated. */
double td_cost_native_s(const td_cost *c);
/* added / native in %; -1 when native is not positive. */
double td_cost_pct_of_native(const td_cost *c);
/* Coverage (each kernel's first full measurement, kernel replay in auto
 * mode) took at least TD_COST_COVERAGE_NOTE_S and half of what profiling
 * added: a run the report tells how to avoid it (PyTorch, H100: 87
 * replays of 57 ms, 5.0 s of 8.0 s). */
#define TD_COST_COVERAGE_NOTE_S 1.0
int td_cost_coverage_dominates(const td_cost *c);

/* The optional "cost" object of obj (a result's root); name for messages.
 * Absent or null: nothing read. A later "version" than this reader's:
 * skipped, not an error (a field never changes meaning within one). */
int td_cost_read(const cJSON *obj, td_cost *out, const char *name, td_error *err);
/* One end record of the spool as one process's cost (processes 1); its
 * fields are optional. c names the line for messages. */
int td_cost_read_end_record(const cJSON *obj, td_cost *out, const td_jctx *c);
/* What the reader would refuse (negative, not finite, out of range). */
int td_cost_check(const td_cost *c, td_error *err);
/* Adds "cost" to obj when recorded; with estimate, also added_s, native_s
 * and pct_of_native (the report's JSON). -1: out of memory. */
int td_cost_add_json(cJSON *obj, const td_cost *c, int estimate);

/* Whether what profiling added passes budget_pct (% of native; 0: no
 * budget, never passed), and why, into why: the largest of its parts and
 * what it is, in words ("" when not passed). */
int td_cost_over_budget(const td_cost *c, double budget_pct, char *why, size_t size);

/* The report's line after "Cost:     ": "profiling added 0.49 s to a 1.52 s
 * run (sampling 0.12 s, set-up 0.25 s, coverage 0.10 s, tracing 0.01 s,
 * end of run 0.01 s): 48% of native, estimated" (tracing and the end of the
 * run where recorded, > 0); "" when not recorded. */
void td_cost_describe(const td_cost *c, char *buf, size_t size);

#endif
