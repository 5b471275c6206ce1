/* The arch table's optional "memory" section (docs/ARCH_TABLES.md, the
 * model in docs/MODEL.md "Level 5: where the data came from"): which
 * counters say where a kernel's loads were served (L1, L2, DRAM) and at
 * what latency, so a stall reason (long_scoreboard) can be split by
 * source, and which say what the MIO served (shared memory, the ADU, the
 * XU), so that its stalls (mio_throttle, short_scoreboard) can be split
 * too; and the counters of each unit's throughput against its peak
 * (speed of light). Pure data: levels/memory.h computes from it. */
#ifndef TD_ARCH_MEMORY_H
#define TD_ARCH_MEMORY_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "metrics/error.h"

#define TD_MEM_MAX_SOURCES 10
#define TD_MEM_MAX_UNITS 8
#define TD_MEM_MAX_COUNTS 4
/* The most metrics a section can name. */
#define TD_MEM_MAX_METRICS (TD_MEM_MAX_SOURCES + TD_MEM_MAX_UNITS * (TD_MEM_MAX_COUNTS + 2))

/* One place a stall's wait can come from: a level-5 node below the stall
 * reason it splits. The sources of one stall share it in proportion to
 * (metric / per_sector) x latency_cycles. */
typedef struct td_mem_source {
    char *name;            /* node name: "L2_Hit" */
    char *split;           /* the stall reason it splits (the section's "split" unless named) */
    char *metric;          /* what it counts: sectors, bytes, wavefronts, instructions */
    double per_sector;     /* the metric's units per 32-byte sector (1, or 32 for bytes) */
    double latency_cycles; /* the cycles one unit costs: a load's load-to-use latency,
                              an MIO operation's service time, SM cycles */
    int unit;              /* the throughput unit that serves it (its first entry), -1: none */
    char *desc;            /* what the metric counts, for the description; NULL: loads */
    char *fix;             /* its "Fix: ..." line; NULL: its unit's or its stall's */
    int replay_only;       /* no counter group carries it (they have no room): measured
                              where every metric is (--replay-mode kernel); the same for
                              every source of its stall */
} td_mem_source;

/* One measure of a unit's throughput: the work it did over the most it
 * could do in the cycles that elapsed (what ncu calls
 * pct_of_peak_sustained_elapsed). Entries of one name are one unit's
 * measures, and its throughput is the highest (ncu's lts__throughput is
 * the highest of its sub-units': tag lookups, the fabric between the L2
 * halves, ...). */
typedef struct td_mem_unit {
    char *name;                       /* "DRAM" */
    char *work[TD_MEM_MAX_COUNTS];    /* summed: bytes, sectors, wavefronts */
    size_t n_work;
    char *peak;                       /* the work's peak per cycle (.peak_sustained) */
    char *cycles;                     /* the unit's elapsed cycles (.avg) */
} td_mem_unit;

typedef struct td_arch_memory {
    char *split;           /* the stall reason its sources split unless they name
                              another; NULL: no split */
    char *latency_source;  /* where the latencies come from (said by describe) */
    td_mem_source sources[TD_MEM_MAX_SOURCES];
    size_t n_sources;
    td_mem_unit units[TD_MEM_MAX_UNITS];
    size_t n_units;
} td_arch_memory;

/* Parses the section (NULL: none; *out stays empty). path names the
 * table in messages. */
int td_arch_memory_parse(const cJSON *memory, td_arch_memory *out, const char *path,
                         td_error *err);
/* Every metric the section names, in section order, duplicates kept;
 * returns the count (all of them, even past cap). */
size_t td_arch_memory_metrics(const td_arch_memory *m, const char **names, size_t cap);
/* Whether sources a and b split the same stall reason. */
int td_mem_same_split(const td_arch_memory *m, size_t a, size_t b);
/* Whether metric is a source of replay-only splits alone. */
int td_arch_memory_replay_only(const td_arch_memory *m, const char *metric);
/* Whether the section names metric. */
int td_arch_memory_uses(const td_arch_memory *m, const char *metric);
void td_arch_memory_free(td_arch_memory *m);

#endif
