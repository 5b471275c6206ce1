/* `topdown source`: a kernel's PC samples (--source) by source line, or by
 * instruction (--sass), each with its share of the kernel's samples and its
 * split over the model's leaves (the arch table's "pc_sampling" map),
 * sorted by one node's samples (default: the kernel's bottleneck). Lines
 * come from the cubins saved beside the result (metrics/arch/cubin.h); a PC
 * without line information is shown as "pc+0x1a0". docs/SOURCE.md. */
#ifndef TD_REPORT_SOURCE_H
#define TD_REPORT_SOURCE_H

#include <stdint.h>
#include <stdio.h>

#include "levels/aggregate.h"

/* Where samples go: a node of the kernel's model, or a reason the table
 * maps to no node (not_selected) or does not know. */
typedef struct td_source_bucket {
    char label[128];  /* node name ("L1_Bound"), or the reason's short name */
    int node;        /* tree index; -1: no node */
    int known;       /* the arch table lists the reason */
} td_source_bucket;

#define TD_SOURCE_MAX_BUCKETS 64

typedef struct td_source_row {
    char file[512];     /* "" when the PC has no line information */
    unsigned line;
    uint64_t pc;        /* the row's lowest PC offset */
    size_t module;      /* (device section, module, function) of that PC */
    size_t dev;
    size_t function;
    char sass[96];      /* --sass: the instruction (nvdisasm on PATH), else "" */
    size_t pcs;         /* PC records folded into the row */
    uint64_t samples;   /* every counted sample (no _not_issued subsets) */
    uint64_t node_samples;
    uint64_t bucket[TD_SOURCE_MAX_BUCKETS];
} td_source_row;

typedef struct td_source_table {
    const char *kernel;       /* demangled, borrowed from the summary */
    size_t rank;              /* 1-based, as the report numbers it */
    int by_pc;                /* --sass: one row per instruction */
    int node;                 /* tree index rows are sorted by; -1: none */
    char node_path[160];
    int node_is_bottleneck;
    double node_slots;        /* the node's share of issue slots in the kernel's
                                 tree (0..1); -1: no tree */
    td_source_bucket buckets[TD_SOURCE_MAX_BUCKETS];
    size_t n_buckets;
    uint64_t total;           /* the kernel's counted samples */
    uint64_t node_total;
    int period;               /* log2 cycles, 0 unknown */
    size_t no_line;           /* rows without line information */
    char cubin_note[8192];    /* a cubin not found (where it was looked for), "" if none */
    td_source_row *rows;
    size_t n_rows;
} td_source_table;

/* The rows of kernel k of the summary. node: a node path or name of the
 * kernel's model, NULL for its bottleneck. result_path locates the cubins
 * (the result's "cubin_dir" is relative to its folder). Fails (one line)
 * when the result holds no PC samples of the kernel or node is not a node
 * of level 1 to 3 of its model. */
int td_source_build(const td_result *res, const td_summary *s, size_t k, const char *node,
                    int by_pc, const char *result_path, td_source_table *out, td_error *err);
void td_source_free(td_source_table *t);

/* The top rows (top <= 0: all) as text. */
int td_source_text(FILE *out, const td_source_table *t, long top, td_error *err);
/* Every row as CSV (docs/SOURCE.md): rank, location, file, line, pc,
 * samples, share_pct, node, node_samples, node_share_pct, then one column
 * of samples per bucket. */
int td_source_csv(FILE *out, const td_source_table *t, long top, td_error *err);

#endif
