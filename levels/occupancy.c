#include "levels/occupancy.h"

#include <math.h>
#include <stdio.h>

#define WARP_SIZE 32u

static unsigned divide_up(unsigned x, unsigned y)
{
    return (unsigned)(((unsigned long long)x + y - 1) / y);
}

/* Registers go to warps in units, and to each sub-partition's share of the
 * file; the hardware refuses a block whose warps, rounded up to the
 * sub-partitions, would pass the per-block registers (cuda_occupancy.h's
 * cudaOccMaxBlocksPerSMRegsLimit). */
static unsigned register_limit_of(const td_sm_limits *sm, unsigned sub_partitions,
                                  unsigned registers, unsigned block_warps)
{
    if (registers == 0)
        return TD_OCC_NO_LIMIT;
    if (registers > sm->max_registers_thread)
        return 0;
    unsigned long long unit = sm->register_unit;
    unsigned long long per_warp = ((unsigned long long)registers * WARP_SIZE + unit - 1) / unit * unit;
    unsigned long long assumed = per_warp * divide_up(block_warps, sub_partitions) *
                                 sub_partitions;
    if (assumed > sm->max_registers_block || per_warp * block_warps > sm->max_registers_block)
        return 0;
    unsigned long long warps_per_part = sm->registers / sub_partitions / per_warp;
    return (unsigned)(warps_per_part * sub_partitions / block_warps);
}

/* The same, and 0 where the family's other SMs could not hold a block. */
static unsigned register_limit(const td_sm_limits *sm, unsigned registers, unsigned block_warps)
{
    unsigned limit = register_limit_of(sm, sm->sub_partitions, registers, block_warps);
    if (sm->family_sub_partitions &&
        register_limit_of(sm, sm->family_sub_partitions, registers, block_warps) == 0)
        return 0;
    return limit;
}

/* A block's shared memory and the driver's own are allocated in units; the
 * SM holds the carveout the driver set, or its largest when unknown
 * (cudaOccMaxBlocksPerSMSmemLimit with no preference). */
static unsigned shared_limit(const td_sm_limits *sm, const td_occ_launch *l)
{
    unsigned long long used = (unsigned long long)l->shared + sm->shared_reserved;
    unsigned long long allocated = (used + sm->shared_unit - 1) / sm->shared_unit * sm->shared_unit;
    if (allocated > (unsigned long long)sm->max_shared_block + sm->shared_reserved)
        return 0;
    if (allocated == 0)
        return TD_OCC_NO_LIMIT;
    unsigned per_sm = l->shared_config >= allocated ? l->shared_config : sm->shared;
    return (unsigned)(per_sm / allocated);
}

void td_occupancy_theoretical(const td_sm_limits *sm, const td_occ_launch *l,
                              td_occupancy *out)
{
    unsigned block_warps = l->threads ? divide_up(l->threads, WARP_SIZE) : 1;
    out->block_limit[TD_OCC_WARPS] = sm->max_warps / block_warps;
    out->block_limit[TD_OCC_BLOCKS] = sm->max_blocks;
    out->block_limit[TD_OCC_REGISTERS] = register_limit(sm, l->registers, block_warps);
    out->block_limit[TD_OCC_SHARED] = shared_limit(sm, l);
    out->blocks = TD_OCC_NO_LIMIT;
    for (int i = 0; i < TD_OCC_LIMITS; i++)
        if (out->block_limit[i] < out->blocks)
            out->blocks = out->block_limit[i];
    out->limiters = 0;
    for (int i = 0; i < TD_OCC_LIMITS; i++)
        if (out->block_limit[i] == out->blocks)
            out->limiters |= 1u << i;
    out->warps = out->blocks * block_warps;
    out->max_warps = sm->max_warps;
    out->pct = 100.0 * out->warps / sm->max_warps;
}

double td_occupancy_achieved(double warps_active, double cycles_active, unsigned max_warps)
{
    if (!(cycles_active > 0) || max_warps == 0 || !(warps_active >= 0))
        return NAN;
    return 100.0 * warps_active / cycles_active / max_warps;
}

const char *td_occ_limit_name(td_occ_limit limit)
{
    static const char *const names[TD_OCC_LIMITS] = {"warps", "blocks", "registers",
                                                     "shared memory"};
    return limit < TD_OCC_LIMITS ? names[limit] : "?";
}

const char *td_occ_limiters_text(unsigned limiters, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < TD_OCC_LIMITS && used < size; i++)
        if (limiters & (1u << i))
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? " and " : "",
                                     td_occ_limit_name((td_occ_limit)i));
    return buf;
}
