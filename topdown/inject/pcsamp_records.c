/* The --source spool records from CUPTI's structures (pcsamp_records.h). */
#include "topdown/inject/pcsamp_records.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int add(cJSON *arr, cJSON *item)
{
    if (!item)
        return -1;
    cJSON_AddItemToArray(arr, item);
    return 0;
}

int td_pcsamp_config_fill(cJSON *rec, uint32_t context, uint32_t period, const char *cubin_dir,
                          const uint32_t *index, char *const *names, size_t n)
{
    if (!cJSON_AddNumberToObject(rec, "context", context) ||
        (period && !cJSON_AddNumberToObject(rec, "period", period)) ||
        (cubin_dir && !cJSON_AddStringToObject(rec, "cubin_dir", cubin_dir)))
        return -1;
    cJSON *reasons = cJSON_AddArrayToObject(rec, "reasons");
    for (size_t i = 0; reasons && i < n; i++) {
        cJSON *pair = cJSON_CreateArray();
        if (!pair || add(pair, cJSON_CreateNumber(index[i])) ||
            add(pair, cJSON_CreateString(names[i]))) {
            cJSON_Delete(pair);
            return -1;
        }
        cJSON_AddItemToArray(reasons, pair);
    }
    return reasons ? 0 : -1;
}

static cJSON *row_json(const CUpti_PCSamplingPCData *pc)
{
    char crc[17];
    snprintf(crc, sizeof crc, "%016" PRIx64, pc->cubinCrc);
    cJSON *row = cJSON_CreateArray();
    int bad = !row || add(row, cJSON_CreateString(pc->functionName)) ||
              add(row, cJSON_CreateString(crc)) ||
              add(row, cJSON_CreateNumber((double)pc->pcOffset));
    for (size_t k = 0; !bad && k < pc->stallReasonCount; k++) {
        if (!pc->stallReason[k].samples)
            continue;
        bad = add(row, cJSON_CreateNumber(pc->stallReason[k].pcSamplingStallReasonIndex)) ||
              add(row, cJSON_CreateNumber(pc->stallReason[k].samples));
    }
    if (bad) {
        cJSON_Delete(row);
        return NULL;
    }
    return row;
}

long td_pcsamp_rows_fill(cJSON *rec, uint32_t context, const CUpti_PCSamplingData *d,
                         size_t cap, int (*keep)(const char *function))
{
    if (!cJSON_AddNumberToObject(rec, "context", context) ||
        !cJSON_AddNumberToObject(rec, "total", (double)d->totalSamples) ||
        !cJSON_AddNumberToObject(rec, "dropped", (double)d->droppedSamples))
        return -1;
    cJSON *pcs = cJSON_AddArrayToObject(rec, "pcs");
    if (!pcs)
        return -1;
    size_t n = d->totalNumPcs < cap ? d->totalNumPcs : cap;
    long rows = 0;
    for (size_t i = 0; i < n; i++) {
        const CUpti_PCSamplingPCData *pc = &d->pPcData[i];
        if (!pc->functionName || (keep && !keep(pc->functionName)))
            continue;
        if (add(pcs, row_json(pc)))
            return -1;
        rows++;
    }
    return rows;
}

void td_pcsamp_cubin_dir_for_spool(const char *spool, char *buf, size_t size)
{
    char base[4096];
    buf[0] = '\0';
    if (!spool || snprintf(base, sizeof base, "%s", spool) >= (int)sizeof base)
        return;
    char *dot = strrchr(base, '.');
    if (!dot || strcmp(dot, ".spool") != 0)
        return;
    *dot = '\0';
    dot = strrchr(base, '.');
    if (!dot || strchr(dot, '/') || dot == base)
        return;
    *dot = '\0';
    if ((size_t)snprintf(buf, size, "%s.cubins", base) >= size)
        buf[0] = '\0';
}
