/* Occupancy, as ncu's Occupancy section and the CUDA occupancy calculator
 * (cuda_occupancy.h) give it. Theoretical: the warps an SM can hold of a
 * launch's blocks, limited by the SM's warps, its blocks, its registers or
 * its shared memory (metrics/arch/sm_limits.h), over the SM's most warps.
 * Achieved: the warps resident per active cycle over the same most
 * (sm__warps_active.sum / sm__cycles_active.sum). Pure. */
#ifndef TD_OCCUPANCY_H
#define TD_OCCUPANCY_H

#include "metrics/arch/sm_limits.h"

/* What may limit the blocks an SM holds, in the order a tie is named. */
typedef enum td_occ_limit {
    TD_OCC_WARPS,     /* the SM's most resident warps */
    TD_OCC_BLOCKS,    /* the SM's most resident blocks */
    TD_OCC_REGISTERS, /* its register file */
    TD_OCC_SHARED,    /* its shared memory */
    TD_OCC_LIMITS
} td_occ_limit;

#define TD_OCC_NO_LIMIT 0xffffffffu /* a resource the launch does not use */

/* What a launch asks of an SM. */
typedef struct td_occ_launch {
    unsigned threads;       /* per block */
    unsigned registers;     /* per thread */
    unsigned shared;        /* bytes per block, static and dynamic */
    unsigned shared_config; /* the SM's shared memory the driver set, bytes;
                               0: unknown, the SM's largest is taken */
} td_occ_launch;

typedef struct td_occupancy {
    unsigned block_limit[TD_OCC_LIMITS]; /* blocks per SM each allows, or TD_OCC_NO_LIMIT */
    unsigned blocks;    /* resident blocks per SM: the least of them */
    unsigned warps;     /* resident warps per SM */
    unsigned max_warps; /* the SM's most */
    double pct;         /* 100 * warps / max_warps */
    unsigned limiters;  /* a bit (1 << td_occ_limit) for each limit that gives blocks */
} td_occupancy;

/* The theoretical occupancy of launch l on an SM of sm. */
void td_occupancy_theoretical(const td_sm_limits *sm, const td_occ_launch *l,
                              td_occupancy *out);

/* Achieved occupancy in %: warp-cycles resident over active cycles, over
 * max_warps; NAN when there are no cycles or no maximum. */
double td_occupancy_achieved(double warps_active, double cycles_active, unsigned max_warps);

/* "warps", "blocks", "registers", "shared memory". */
const char *td_occ_limit_name(td_occ_limit limit);

/* The limits in *limiters named and joined by " and ", into buf. */
const char *td_occ_limiters_text(unsigned limiters, char *buf, size_t size);

#endif
