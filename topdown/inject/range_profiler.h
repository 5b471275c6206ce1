/* One context's CUPTI Range Profiler: auto range (one range per kernel
 * launch) with kernel replay (CUPTI replays each launch once per pass).
 * Ranges are collected into a counter-data image of `capacity` ranges;
 * when the caller stops, the image is decoded and evaluated, then re-armed,
 * so memory stays bounded for any number of launches. */
#ifndef TD_RANGE_PROFILER_H
#define TD_RANGE_PROFILER_H

#include <cuda.h>
#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

typedef struct td_rp {
    CUcontext ctx;
    struct CUpti_RangeProfiler_Object *object;
    struct CUpti_Profiler_Host_Object *host;
    uint8_t *availability;      /* counter availability image */
    uint8_t *config;            /* scheduling of the metrics into passes */
    size_t config_size;
    uint8_t *data;              /* counter-data image: decoded ranges */
    size_t data_size;
    const char **metrics;       /* borrowed from the arch table */
    size_t n_metrics;
    size_t capacity;            /* ranges per image */
    size_t passes;
    int started;
    CUptiResult failure;        /* the last failed call's result */
    const char *failed_call;    /* and its name */
} td_rp;

/* Sets the profiler up on ctx (the current context). 0 on success, else -1
 * with failure/failed_call set; td_rp_close is safe either way. */
int td_rp_open(td_rp *rp, CUcontext ctx, const char *chip, const char **metrics,
               size_t n_metrics, size_t capacity);
int td_rp_start(td_rp *rp);
/* Stops, decodes, and says how many ranges the image holds. */
int td_rp_stop(td_rp *rp, size_t *ranges, size_t *dropped);
/* Values of every metric for one decoded range. */
int td_rp_eval(td_rp *rp, size_t range, double *values);
/* The name CUPTI gave a decoded range ("0", "1"... in auto range mode);
 * NULL if unknown. */
const char *td_rp_range_name(td_rp *rp, size_t range);
/* An empty image for the next batch. */
int td_rp_rearm(td_rp *rp);
void td_rp_close(td_rp *rp);

/* "cuptiRangeProfilerEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" */
void td_rp_describe(const td_rp *rp, char *buf, size_t size);

#endif
