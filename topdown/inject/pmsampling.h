/* --pm-interval: CUPTI PM sampling (cupti_pmsampling.h), one sampler per
 * device. The GPU samples its counters at a fixed interval of GPU time into
 * a hardware buffer, without replay or serialisation; a decode thread
 * empties it every few tens of milliseconds, evaluates each sample with the
 * profiler host API and writes the values as "pm_samples" spool records
 * (docs/COLLECTION.md). PM sampling and the Range Profiler program the
 * same counters and CUPTI documents no way to run both on one device, so
 * with --pm-interval the launches are only timed. Never stops the app:
 * problems become error records. */
#ifndef TD_PMSAMPLING_H
#define TD_PMSAMPLING_H

#include <stddef.h>
#include <stdint.h>

#include "metrics/arch/arch.h"

/* Starts sampling on CUDA device `device` (once per device: later calls
 * for it do nothing), its samples tagged with the context that started it.
 * The metrics are the table's "pm_sampling" set, grown by the model's other
 * counters that the device's availability image lets into the same pass.
 * t0: the run's CUPTI timestamp, subtracted from the samples' times. */
void td_pms_start(uint32_t device, uint32_t context, const char *chip, const td_arch *arch,
                  uint64_t interval_ns, uint64_t t0);
/* The context that started a device's sampler is going away: stop it and
 * keep what it holds. */
void td_pms_context_ending(uint32_t context);
/* At exit (or a deadly signal): stops every sampler, decodes and writes
 * what is left. */
void td_pms_stop_all(void);

/* The model's counters in the order PM sampling tries them: the table's
 * set first, then thread_inst_executed, then all stall reasons together
 * (Frontend/Backend need every one). Returns the count written (<= cap);
 * *base: how many of them are the table's set. Pure: no CUPTI. */
size_t td_pms_candidates(const td_arch *arch, const char **names, size_t cap, size_t *base);

/* The samples of the counter-data image each decode fills: two decode
 * periods at interval_ns (16 more), as many as fit TD_PMS_IMAGE_BYTES
 * with CUPTI's header and per-sample sizes, at least
 * TD_PMS_IMAGE_MIN_SAMPLES and at most TD_PMS_IMAGE_MAX_SAMPLES. A fixed
 * 20000 samples took 831 MB of the app's memory on GH100. Pure: no CUPTI. */
#define TD_PMS_IMAGE_BYTES ((size_t)32 << 20)
#define TD_PMS_IMAGE_MIN_SAMPLES 16
#define TD_PMS_IMAGE_MAX_SAMPLES 20000
size_t td_pms_image_samples(size_t header_bytes, size_t sample_bytes, uint64_t interval_ns);

/* Whether CUPTI gave a sample both its times. On GH100 (CUPTI 13.0) the
 * first sample of each decoded image came with start 0 and the last of a
 * full one with end 0 (a sample split over two images): such a sample is
 * left out, its counts with it, rather than drawn over the run from 0. */
int td_pms_sample_timed(uint64_t start, uint64_t end);

/* The drain at the end decodes up to the app's end and stops there: the
 * buffer is empty, the last decoded sample ends at or after end_ts (the
 * rest is the GPU's idle time), or TD_PMS_DRAIN_MAX_NS of decoding are
 * spent (the samples left are said to be lost). Pure: no CUPTI. */
#define TD_PMS_DRAIN_MAX_NS 1000000000ull
/* Below this share of the run's time covered by samples, the sampler says
 * that samples were lost (the GPU outran the decoding). */
#define TD_PMS_COVERED_ENOUGH 0.9
typedef enum td_pms_drain {
    TD_PMS_DRAIN_MORE,
    TD_PMS_DRAIN_EMPTY,
    TD_PMS_DRAIN_CAUGHT_UP,
    TD_PMS_DRAIN_OUT_OF_TIME
} td_pms_drain;
td_pms_drain td_pms_drain_next(int buffer_more, uint64_t last_end, uint64_t end_ts,
                               uint64_t spent_ns, uint64_t max_ns);

#endif
