/* Time-sampled collection (issue 38): every launch's counters from samples,
 * with no range and no replay. Pure: no CUDA, no CUPTI.
 *
 * PM samples (GPU-wide counter sums over intervals of GPU time, on the
 * launches' clock) are attributed to the launches that ran in them. A
 * sample inside one launch belongs to it. Where launches share a sample
 * (kernels shorter than the interval, concurrent streams), each kernel's
 * rate per ns of its launches' overlap is fitted by non-negative least
 * squares over all samples, and each sample's counts are split between its
 * launches in proportion to overlap x fitted rate, so that every sample's
 * counts are kept whole.
 *
 * A kernel never alone in any sample (TD_ATTRIB_ALONE_SHARE of its
 * launch time) is left unprofiled: where kernels always run in the same company, the fit
 * has no one answer and its rates are any split of their samples (on an
 * H200, td_manykernels' kernels of a few us under 100 us samples got
 * Retire 94% against 14% measured with ranges).
 *
 * PC samples (warp states per instruction, per function) give each
 * kernel's split of its stalled slots: the model divides the unused slots
 * by the stall reasons' shares (MODEL.md section 3), and a kernel's PC
 * samples per reason estimate those shares. Each launch gets stall values
 * that are the kernel's shares times its issue slots, so the model's
 * ratios are the samples'. */
#ifndef TD_ATTRIBUTE_H
#define TD_ATTRIBUTE_H

#include <stddef.h>

#include "metrics/arch/arch.h"
#include "metrics/error.h"
#include "metrics/result/result.h"

/* Kernels beyond which no rates are fitted (the dense normal matrix) and
 * shared samples are split by overlap time alone. */
#define TD_ATTRIB_MAX_FIT_KERNELS 4096
/* A kernel holding this share of a sample's launch time is alone in it:
 * a sliver of a short neighbour (td_stencil's 3 us heat_boundary after
 * each 56 us heat_stencil) does not make the long kernel unmeasurable. */
#define TD_ATTRIB_ALONE_SHARE 0.9

typedef struct td_attrib_stats {
    size_t launches;       /* launches of the section */
    size_t sampled;        /* of them, overlapping at least one PM sample: profiled now */
    size_t kernels;        /* kernels with a sampled launch, given counters */
    size_t unseparated;    /* kernels never alone in a sample: left unprofiled (their
                              samples' counts are their company's as much as theirs) */
    double unseparated_ns; /* those kernels' launch time */
    size_t pc_kernels;     /* kernels with PC samples of a stall reason */
    double covered_ns;     /* launch time inside PM samples */
    double launch_ns;      /* launch time in all */
    double samples_kept;   /* share of the PM samples' active cycles that fell on launches */
    int thread_inst;       /* 2: thread instructions measured, 1: by the arch table's
                              stand-in (predicate on), 0: not at all (32 per
                              instruction, Branch in Retire) */
} td_attrib_stats;

/* Fills dev's launches from dev->pm (required) and dev->pcsamp (optional:
 * without it the stalled slots stay unsplit). dev's metric list becomes
 * the arch table's (td_arch_metrics); every launch that overlaps a PM
 * sample is profiled with every metric (TD_GROUP_ALL), the others stay
 * unprofiled. Refused when a launch already has counters or the samples
 * lack active cycles or executed instructions. */
int td_attribute_device(td_device *dev, const td_arch *arch, td_attrib_stats *stats,
                        td_error *err);

/* Non-negative least squares by coordinate descent on the normal
 * equations: x >= 0 minimising |Ax - v|^2 given G = A'A (k x k, row-major)
 * and b = A'v. x holds the start and the answer. Exposed for tests. */
void td_attrib_nnls(const double *G, const double *b, size_t k, double *x);

#endif
