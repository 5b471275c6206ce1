/* CUPTI's profiler host API: a host object for a chip, and a config image
 * in it (add the metrics, size and fetch the image, count its passes). The Range
 * Profiler (topdown/inject/range_profiler.c), PM sampling
 * (topdown/inject/pmsampling.c) and the catalog's pass counts
 * (catalog.c) all build one; this is the one place that does it. */
#ifndef TD_HOST_CONFIG_H
#define TD_HOST_CONFIG_H

#include <cupti_profiler_host.h>
#include <stddef.h>
#include <stdint.h>

typedef struct td_host_config {
    uint8_t *image; /* malloc'd config image */
    size_t size;
    size_t passes;  /* replay passes the image needs */
    const char *failed_call; /* on failure: the CUPTI call that failed, or
                                "calloc" when memory ran out */
} td_host_config;

/* A host object of this profiler type for chip; avail: the device's
 * counter-availability image, or NULL (host only, no device). */
CUptiResult td_host_open(CUpti_ProfilerType type, const char *chip, const uint8_t *avail,
                         CUpti_Profiler_Host_Object **host);
/* Deinitialises host; NULL is ignored. */
void td_host_close(CUpti_Profiler_Host_Object *host);

/* Adds metrics[0..n) to host and builds their image into out. On failure
 * returns the CUPTI result (CUPTI_ERROR_OUT_OF_MEMORY for calloc), with
 * out->failed_call set and nothing allocated. */
CUptiResult td_host_config_build(CUpti_Profiler_Host_Object *host, const char *const *metrics,
                                 size_t n, td_host_config *out);

#endif
