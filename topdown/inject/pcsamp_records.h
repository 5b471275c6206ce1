/* The spool records of `--source` built from CUPTI's own structures
 * (cupti_pcsampling.h): what the injection library writes, kept here so
 * that a test can feed them to the spool reader without a GPU
 * (tests/cupti/test_pcsamp_records.c). Format: docs/COLLECTION.md. */
#ifndef TD_PCSAMP_RECORDS_H
#define TD_PCSAMP_RECORDS_H

#include <cjson/cJSON.h>
#include <cupti_pcsampling.h>
#include <stddef.h>
#include <stdint.h>

/* Fills a "pcsamp_config" record (type and pid are the caller's):
 * context, period (0: left out), cubin_dir (NULL: left out), reasons as
 * [CUPTI index, name] pairs. 0, or -1 when out of memory. */
int td_pcsamp_config_fill(cJSON *rec, uint32_t context, uint32_t period, const char *cubin_dir,
                          const uint32_t *index, char *const *names, size_t n);

/* Fills a "pcsamp" record from a buffer CUPTI filled (GetData or Disable):
 * context, CUPTI's totals, and a row per PC of at most the first `cap` of
 * d->totalNumPcs whose function `keep` accepts (NULL: all):
 * [function, CRC as 16 hex digits, pc offset, (reason index, samples)...],
 * reasons without samples left out. Returns the rows written, -1 when out
 * of memory. */
long td_pcsamp_rows_fill(cJSON *rec, uint32_t context, const CUpti_PCSamplingData *d,
                         size_t cap, int (*keep)(const char *function));

/* <result>.XXXXXX.spool -> <result>.cubins: where --source saves the
 * cubins, next to the result the spool belongs to; "" when spool is not
 * such a name. */
void td_pcsamp_cubin_dir_for_spool(const char *spool, char *buf, size_t size);

#endif
