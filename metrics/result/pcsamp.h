/* PC samples of one device section (`topdown --source`): CUPTI's PC
 * sampling API counts, per instruction (function, cubin, PC offset), how
 * often a warp was sampled there and in which state (stall reason). The
 * result keeps them in the device section's optional "pc_sampling" object
 * (docs/RESULT_FORMAT.md); the spool carries them as "pcsamp_config" and
 * "pcsamp" records (docs/COLLECTION.md). Mapping reasons to the model's
 * leaves is the arch tables' job (metrics/arch/arch.h, "pc_sampling"). */
#ifndef TD_PCSAMP_H
#define TD_PCSAMP_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/error.h"
#include "metrics/intern.h"
#include "metrics/json_field.h"

/* CUPTI names its reasons smsp__pcsamp_warps_issue_stalled_<reason>, and
 * the samples of each reason in which the warp issued nothing once more
 * as <...>_not_issued (a subset, never added to the total). */
#define TD_PCSAMP_PREFIX "smsp__pcsamp_warps_issue_stalled_"
#define TD_PCSAMP_SUBSET_SUFFIX "_not_issued"
/* CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD: 2^N cycles. */
#define TD_PCSAMP_PERIOD_MIN 5
#define TD_PCSAMP_PERIOD_MAX 31

typedef struct td_pc_record {
    size_t function;  /* index into functions */
    size_t module;    /* index into modules */
    uint64_t pc;      /* offset of the instruction in its function */
    uint64_t *counts; /* samples per reason (index into reasons); n_counts of
                         them, reasons past n_counts have 0 */
    size_t n_counts;
} td_pc_record;

typedef struct td_pcsamp {
    int period;               /* log2 of the sampling period in cycles; 0: unknown */
    uint64_t total_samples;   /* CUPTI's totals: every sample, with other */
    uint64_t dropped_samples; /* processes' kernels and the dropped ones */
    char **reasons;           /* CUPTI's names, in the order counts use */
    size_t n_reasons;
    uint32_t *cupti_index;    /* spool only: CUPTI's index of each reason */
    char **functions;         /* function names as CUPTI gives them (mangled) */
    size_t n_functions;
    uint64_t *modules;        /* cubin CRCs (cuptiGetCubinCrc) */
    size_t n_modules;
    td_pc_record *records;
    size_t n_records, cap_records;
    td_keyset keys;           /* (function, module, pc) -> record */
    char *cubin_dir;          /* where the cubins were saved, relative to the
                                 result's folder: <dir>/<td_pcsamp_cubin_name>;
                                 NULL: none */
} td_pcsamp;

td_pcsamp *td_pcsamp_new(void);
void td_pcsamp_free(td_pcsamp *p);

/* Index of a name (added when new); -1 when out of memory. */
long td_pcsamp_reason(td_pcsamp *p, const char *name);
long td_pcsamp_function(td_pcsamp *p, const char *name);
long td_pcsamp_module(td_pcsamp *p, uint64_t crc);
/* Adds samples of a reason to the record of (function, module, pc). */
int td_pcsamp_add(td_pcsamp *p, size_t function, size_t module, uint64_t pc, size_t reason,
                  uint64_t samples, td_error *err);
/* A record's samples of a reason (0 past its counts). */
static inline uint64_t td_pc_count(const td_pc_record *r, size_t reason)
{
    return reason < r->n_counts ? r->counts[reason] : 0;
}

/* The reason's short name (TD_PCSAMP_PREFIX taken off) into buf; returns 1
 * for a reason, 0 for a _not_issued subset (not counted), -1 when the name
 * does not fit buf. A name without the prefix is taken as it is. */
int td_pcsamp_short_reason(const char *name, char *buf, size_t size);

/* The file name a cubin is saved under: its CRC as 16 hex digits + ".cubin". */
void td_pcsamp_cubin_name(uint64_t crc, char *buf, size_t size);

/* Merges src into dst (the same context seen in two spool records). */
int td_pcsamp_merge(td_pcsamp *dst, const td_pcsamp *src, td_error *err);

/* The result's "pc_sampling" object; NULL when out of memory. */
cJSON *td_pcsamp_json(const td_pcsamp *p);
/* Reads it back; *out stays NULL when obj has no "pc_sampling". */
int td_pcsamp_read(const cJSON *dev_obj, td_pcsamp **out, const td_jctx *c);

/* Spool records (docs/COLLECTION.md): "pcsamp_config" (period, CUPTI's
 * reason table) and "pcsamp" (rows of samples). */
int td_pcsamp_read_pcsamp_config_record(const cJSON *rec, td_pcsamp *p,
                                        const td_jctx *c);
int td_pcsamp_read_pcsamp_record(const cJSON *rec, td_pcsamp *p, const td_jctx *c);

#endif
