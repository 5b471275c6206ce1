/* What one SM holds at once, per compute capability: the figures the CUDA
 * occupancy calculator (cuda_occupancy.h) works from, kept as data in the
 * arch tables' "occupancy" (docs/ARCH_TABLES.md). levels/occupancy.h
 * computes a launch's theoretical occupancy from them. */
#ifndef TD_SM_LIMITS_H
#define TD_SM_LIMITS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "metrics/error.h"

typedef struct td_sm_limits {
    int cc_major, cc_minor;
    unsigned max_warps;            /* resident warps per SM */
    unsigned max_blocks;           /* resident blocks per SM */
    unsigned registers;            /* 32-bit registers per SM */
    unsigned max_registers_block;  /* per block */
    unsigned max_registers_thread; /* per thread */
    unsigned register_unit;        /* a warp's registers are allocated in units of this */
    unsigned sub_partitions;       /* the register file is split among them */
    unsigned family_sub_partitions; /* optional: a block must also fit an SM of this many
                                       (GP100 refuses what GP10x could not hold); 0: none */
    unsigned shared;               /* shared memory per SM at the largest carveout, bytes */
    unsigned max_shared_block;     /* per block (opt-in), bytes */
    unsigned shared_unit;          /* a block's shared memory is allocated in units of this */
    unsigned shared_reserved;      /* the driver's own shared memory per block, bytes */
} td_sm_limits;

/* The table's "occupancy" object (NULL: none, 0 rows): {"source": text,
 * "limits": [row per compute capability]}; each row's "cc" must be one of
 * the table's ccs, once. path names the table in messages. */
int td_sm_limits_parse(const cJSON *occupancy, char *const *ccs, size_t n_ccs,
                       td_sm_limits **out, size_t *n, const char *path, td_error *err);

/* The row of compute capability major.minor, or NULL. */
const td_sm_limits *td_sm_limits_find(const td_sm_limits *rows, size_t n, int major,
                                      int minor);

#endif
