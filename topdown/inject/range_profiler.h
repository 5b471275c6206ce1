/* One context's CUPTI Range Profiler with several counter configurations:
 * the rotation (the replay-free counter groups as the passes of one
 * configuration, user replay, a user range per launch), one per group
 * (its fallback: user replay, one pass, nothing replayed) and the full set
 * (kernel replay, auto range: CUPTI replays the launch once per pass). One
 * configuration is active at a time; ranges go into its counter-data image
 * of `capacity` ranges, which is decoded when the caller stops (the
 * rotation: after its last pass) and then re-armed, so memory stays
 * bounded for any number of launches.
 * Measured on the H200 (benchmarks/rp_modes.cu): with user replay, auto
 * range gives one range per Start/Stop session and NaN counters, so
 * replay-free configurations use user ranges. */
#ifndef TD_RANGE_PROFILER_H
#define TD_RANGE_PROFILER_H

#include <cuda.h>
#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/error.h"
#include "metrics/arch/groups.h"

typedef struct td_rp_config {
    const char **metrics;       /* borrowed */
    size_t n_metrics;
    struct CUpti_Profiler_Host_Object *host; /* scheduling and evaluation */
    uint8_t *config;            /* scheduling of the metrics into passes */
    size_t config_size;
    size_t passes;
    uint8_t *data;              /* counter-data image: decoded ranges */
    size_t data_size;
    size_t capacity;            /* ranges per image */
    int user_replay;            /* 1: no replay (one pass), 0: kernel replay */
    const td_groups *groups;    /* the rotation (user replay): its passes are these
                                   groups, one session (Start..Stop) each, and
                                   metrics is their union; NULL otherwise */
    const uint8_t *built_with;  /* the availability image host and config were built
                                   with (NULL: none) */
} td_rp_config;

typedef struct td_rp {
    CUcontext ctx;
    const char *chip;
    struct CUpti_RangeProfiler_Object *object;
    uint8_t *availability;      /* counter availability image; read only after a
                                   configuration failed without it (td_rp_reset):
                                   reading it took 75-125 ms a context (H200) */
    size_t availability_size;
    td_rp_config *active;       /* the configuration set on the object */
    int started;
    int pushed;                 /* a user range is open */
    size_t pass;                /* the rotation's pass the next session measures */
    const td_rp_config *sized;  /* the metric list the object's images are laid out for */
    CUptiResult failure;        /* the last failed call's result */
    const char *failed_call;    /* and its name */
} td_rp;

/* Sets the profiler up on ctx (the current context) without a call to
 * CUPTI: the first td_rp_select initialises CUPTI's profiler and enables
 * the Range Profiler on the context. 0 (kept so for its callers' error
 * paths); td_rp_close is safe either way. */
int td_rp_open(td_rp *rp, CUcontext ctx, const char *chip);
/* Replay passes a metric set needs on this device (its counter
 * availability included). Matches td_pass_counter (metrics/arch/groups.h). */
int td_rp_count_passes(void *rp, const char *const *metrics, size_t n, size_t *passes,
                       td_error *err);
/* Describes a configuration; its images are built the first time it is
 * selected (set-up costs only what a run uses). */
void td_rp_config_prepare(td_rp_config *cfg, const char **metrics, size_t n_metrics,
                          size_t capacity, int user_replay);
/* The rotation: one configuration whose replay passes are groups (pass g
 * measures group g, topdown/inject/pass_groups.h), user replay and user
 * ranges; metrics: the groups' union, what td_rp_eval reads. */
void td_rp_config_prepare_rotation(td_rp_config *cfg, const char **metrics, size_t n_metrics,
                                   const td_groups *groups, size_t capacity);
void td_rp_config_free(td_rp_config *cfg);
/* Makes cfg the active configuration with an empty image (no-op when it
 * already is). Must not be started. Fails with CUPTI_ERROR_NOT_SUPPORTED
 * when a user-replay configuration needs more than one pass here. */
int td_rp_select(td_rp *rp, td_rp_config *cfg);
int td_rp_start(td_rp *rp);
/* User replay: the user range around one launch (no-op otherwise). */
int td_rp_push(td_rp *rp, const char *name);
int td_rp_pop(td_rp *rp);
/* Stops, decodes, and says how many ranges the image holds. */
int td_rp_stop(td_rp *rp, size_t *ranges, size_t *dropped);
/* The rotation: ends the session (its pass), moving on to the next pass;
 * cycle_done: every pass was measured, the image can be decoded. */
int td_rp_end_pass(td_rp *rp, int *cycle_done);
/* Decodes the image after the last pass; ranges it holds. */
int td_rp_decode(td_rp *rp, size_t *ranges, size_t *dropped);
/* Values of every metric of the active configuration for one range. */
int td_rp_eval(td_rp *rp, size_t range, double *values);
/* The name CUPTI gave a decoded range ("0", "1"... in auto range mode);
 * NULL if unknown. */
const char *td_rp_range_name(td_rp *rp, size_t range);
/* An empty image for the next batch of the active configuration (the
 * rotation: from its first pass again). */
int td_rp_rearm(td_rp *rp);
/* After a failed decode: a new profiler object (the old one may be in a bad
 * state), no configuration active. */
int td_rp_reset(td_rp *rp);
void td_rp_close(td_rp *rp);

/* "cuptiRangeProfilerEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" */
void td_rp_describe(const td_rp *rp, char *buf, size_t size);

#endif
