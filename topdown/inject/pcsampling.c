/* --source: PC sampling (topdown/inject/pcsampling.h). The sequence follows
 * cupti_pcsampling.h: per context cuptiPCSamplingEnable, then the stall
 * reason table (GetNumStallReasons, GetStallReasons), then the
 * configuration (continuous mode, the period, the buffer CUPTI fills on
 * Disable); cuptiPCSamplingGetData at sync-free points until
 * remainingNumPcs is 0; cuptiPCSamplingDisable at the end, whose records
 * land in the configured buffer. */
#include "topdown/inject/pcsampling.h"

#include <cupti_pcsampling.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics/result/pcsamp.h"
#include "topdown/inject/pcsamp_records.h"
#include "topdown/inject/debug.h"
#include "topdown/inject/spool_writer.h"

enum {
    BUFFER_PCS = 4096,   /* PCs per GetData call */
    /* PCs cuptiPCSamplingDisable can hand back: what no GetData took
     * before (on the H100 and H200 all of it; td_bench's 8 kernels have
     * more than 4,096 PCs, and with the GetData buffer's size here 61% of
     * the H200's samples were lost) */
    DISABLE_PCS = 32768,
    TICK_LAUNCHES = 256, /* launches of a context between collections */
    MAX_GETDATA = 10000  /* calls per collection, against a CUPTI that never empties */
};

typedef struct pcs_ctx {
    CUcontext ctx;
    uint32_t uid;
    int on;                     /* enabled and configured */
    size_t n_reasons;
    uint32_t *reason_index;
    char **reason_names;
    CUpti_PCSamplingData config_buf; /* filled by cuptiPCSamplingDisable */
    CUpti_PCSamplingData get_buf;    /* filled by cuptiPCSamplingGetData */
    long launches;
    struct pcs_ctx *next;
} pcs_ctx;

static struct {
    int enabled;
    int only;                   /* --source-only: no counters */
    uint32_t period;            /* 0: CUPTI's default */
    char cubin_dir[4096];       /* "" where none could be made */
    int dir_made;
    td_pcs_selected_fn selected;
    pcs_ctx *contexts;
    int said_full, said_save, said_early, said_left;
} s;

/* TOPDOWN_DEBUG: what PC sampling does (debug.h). */
#define DBG(...) td_debug("pcs", __VA_ARGS__)

static const char *why(CUptiResult rc)
{
    const char *name = "?";
    cuptiGetResultString(rc, &name);
    return name;
}

/* TOPDOWN_CUBIN_DIR, else next to the result: <result>.cubins. */
static void cubin_dir_from_opts(const td_collect_opts *o)
{
    if (o->cubin_dir)
        snprintf(s.cubin_dir, sizeof s.cubin_dir, "%s", o->cubin_dir);
    else
        td_pcsamp_cubin_dir_for_spool(o->spool, s.cubin_dir, sizeof s.cubin_dir);
}

void td_pcs_init(td_pcs_selected_fn selected, const td_collect_opts *o)
{
    s.only = o->source_only;
    s.enabled = o->source;
    s.selected = selected;
    long p = o->pc_period;
    s.period = p >= TD_PCSAMP_PERIOD_MIN && p <= TD_PCSAMP_PERIOD_MAX ? (uint32_t)p : 0;
    cubin_dir_from_opts(o);
}

int td_pcs_enabled(void)
{
    return s.enabled;
}

int td_pcs_only(void)
{
    return s.only;
}

/* ---- buffers ------------------------------------------------------------------ */

static int alloc_buffer(CUpti_PCSamplingData *d, size_t n_reasons, size_t pcs)
{
    memset(d, 0, sizeof *d);
    d->size = sizeof *d;
    d->collectNumPcs = pcs;
    d->pPcData = calloc(pcs, sizeof *d->pPcData);
    if (!d->pPcData)
        return -1;
    for (size_t i = 0; i < pcs; i++) {
        d->pPcData[i].size = sizeof d->pPcData[i];
        d->pPcData[i].stallReason = calloc(n_reasons ? n_reasons : 1,
                                           sizeof *d->pPcData[i].stallReason);
        if (!d->pPcData[i].stallReason)
            return -1;
    }
    return 0;
}

static void free_buffer(CUpti_PCSamplingData *d)
{
    for (size_t i = 0; d->pPcData && i < d->collectNumPcs; i++)
        free(d->pPcData[i].stallReason);
    free(d->pPcData);
    memset(d, 0, sizeof *d);
}

static void free_ctx(pcs_ctx *c)
{
    for (size_t i = 0; c->reason_names && i < c->n_reasons; i++)
        free(c->reason_names[i]);
    free(c->reason_names);
    free(c->reason_index);
    free_buffer(&c->config_buf);
    free_buffer(&c->get_buf);
    free(c);
}

/* ---- records -------------------------------------------------------------------- */

static void emit_config(const pcs_ctx *c, uint32_t period)
{
    cJSON *rec = td_sw_record("pcsamp_config");
    if (!rec)
        return;
    if (td_pcsamp_config_fill(rec, c->uid, period, s.dir_made ? s.cubin_dir : NULL,
                              c->reason_index, c->reason_names, c->n_reasons) == 0)
        td_sw_emit(rec);
    else
        cJSON_Delete(rec);
}

/* One "pcsamp" record of a filled buffer: the selected kernels' PCs. The
 * function names are CUPTI's, shared between records: never freed here. */
static void emit_buffer(const pcs_ctx *c, const CUpti_PCSamplingData *d)
{
    DBG("context %u: buffer: %zu PCs (%zu remaining), %llu samples, %llu dropped, %llu in "
        "non-user kernels, hardware buffer full %d", c->uid, d->totalNumPcs, d->remainingNumPcs,
        (unsigned long long)d->totalSamples, (unsigned long long)d->droppedSamples,
        (unsigned long long)d->nonUsrKernelsTotalSamples, (int)d->hardwareBufferFull);
    for (size_t i = 0; td_debug_on() && i < d->totalNumPcs && i < d->collectNumPcs && i < 4; i++)
        DBG("  pc %zu: %s +0x%llx, %zu reasons, selected %d", i,
            d->pPcData[i].functionName ? d->pPcData[i].functionName : "(null)",
            (unsigned long long)d->pPcData[i].pcOffset, d->pPcData[i].stallReasonCount,
            d->pPcData[i].functionName && s.selected ? s.selected(d->pPcData[i].functionName) : -1);
    if (d->totalNumPcs == 0 && d->totalSamples == 0)
        return;
    cJSON *rec = td_sw_record("pcsamp");
    if (!rec)
        return;
    if (td_pcsamp_rows_fill(rec, c->uid, d, d->collectNumPcs, s.selected) >= 0)
        td_sw_emit(rec);
    else
        cJSON_Delete(rec);
}

static int make_dir(void);

/* ---- contexts ---------------------------------------------------------------------- */

static pcs_ctx *find(uint32_t uid)
{
    for (pcs_ctx *c = s.contexts; c; c = c->next)
        if (c->uid == uid)
            return c;
    return NULL;
}

static int read_reasons(pcs_ctx *c)
{
    CUpti_PCSamplingGetNumStallReasonsParams num = {0};
    num.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
    num.ctx = c->ctx;
    num.numStallReasons = &c->n_reasons;
    CUptiResult rc = cuptiPCSamplingGetNumStallReasons(&num);
    DBG("context %u: %zu stall reasons (rc %d)", c->uid, c->n_reasons, (int)rc);
    if (rc != CUPTI_SUCCESS)
        return (int)rc;
    c->reason_index = calloc(c->n_reasons ? c->n_reasons : 1, sizeof *c->reason_index);
    c->reason_names = calloc(c->n_reasons ? c->n_reasons : 1, sizeof *c->reason_names);
    if (!c->reason_index || !c->reason_names)
        return (int)CUPTI_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < c->n_reasons; i++)
        if (!(c->reason_names[i] = calloc(CUPTI_STALL_REASON_STRING_SIZE, 1)))
            return (int)CUPTI_ERROR_OUT_OF_MEMORY;
    CUpti_PCSamplingGetStallReasonsParams names = {0};
    names.size = CUpti_PCSamplingGetStallReasonsParamsSize;
    names.ctx = c->ctx;
    names.numStallReasons = c->n_reasons;
    names.stallReasonIndex = c->reason_index;
    names.stallReasons = c->reason_names;
    rc = cuptiPCSamplingGetStallReasons(&names);
    for (size_t i = 0; rc == CUPTI_SUCCESS && i < c->n_reasons; i++)
        DBG("  reason %u: %s", c->reason_index[i], c->reason_names[i]);
    return (int)rc;
}

static CUptiResult configure(pcs_ctx *c)
{
    CUpti_PCSamplingConfigurationInfo info[3];
    size_t n = 0;
    memset(info, 0, sizeof info);
    info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
    info[n++].attributeData.collectionModeData.collectionMode =
        CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
    info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
    info[n++].attributeData.samplingDataBufferData.samplingDataBuffer = &c->config_buf;
    if (s.period) {
        info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
        info[n++].attributeData.samplingPeriodData.samplingPeriod = s.period;
    }
    CUpti_PCSamplingConfigurationInfoParams p = {0};
    p.size = CUpti_PCSamplingConfigurationInfoParamsSize;
    p.ctx = c->ctx;
    p.numAttributes = n;
    p.pPCSamplingConfigurationInfo = info;
    return cuptiPCSamplingSetConfigurationAttribute(&p);
}

/* The period in force (CUPTI's default unless --pc-sampling-period). */
static uint32_t period_in_force(const pcs_ctx *c)
{
    CUpti_PCSamplingConfigurationInfo info;
    memset(&info, 0, sizeof info);
    info.attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    CUpti_PCSamplingConfigurationInfoParams p = {0};
    p.size = CUpti_PCSamplingConfigurationInfoParamsSize;
    p.ctx = c->ctx;
    p.numAttributes = 1;
    p.pPCSamplingConfigurationInfo = &info;
    if (cuptiPCSamplingGetConfigurationAttribute(&p) != CUPTI_SUCCESS)
        return s.period;
    return info.attributeData.samplingPeriodData.samplingPeriod;
}

static void disable(pcs_ctx *c)
{
    CUpti_PCSamplingDisableParams p = {0};
    p.size = CUpti_PCSamplingDisableParamsSize;
    p.ctx = c->ctx;
    CUptiResult rc = cuptiPCSamplingDisable(&p);
    DBG("context %u: disable rc %d (%s)", c->uid, (int)rc, why(rc));
}

void td_pcs_context_start(CUcontext ctx, uint32_t uid)
{
    if (!s.enabled || find(uid))
        return;
    pcs_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->ctx = ctx;
    c->uid = uid;
    c->next = s.contexts;
    s.contexts = c;
    CUpti_PCSamplingEnableParams en = {0};
    en.size = CUpti_PCSamplingEnableParamsSize;
    en.ctx = ctx;
    CUptiResult rc = cuptiPCSamplingEnable(&en);
    DBG("context %u: enable rc %d", uid, (int)rc);
    const char *step = "cuptiPCSamplingEnable";
    if (rc == CUPTI_SUCCESS && (rc = (CUptiResult)read_reasons(c)) != CUPTI_SUCCESS)
        step = "cuptiPCSamplingGetStallReasons";
    if (rc == CUPTI_SUCCESS && (alloc_buffer(&c->config_buf, c->n_reasons, DISABLE_PCS) ||
                                alloc_buffer(&c->get_buf, c->n_reasons, BUFFER_PCS))) {
        rc = CUPTI_ERROR_OUT_OF_MEMORY;
        step = "the sample buffers";
    }
    if (rc == CUPTI_SUCCESS && (rc = configure(c)) != CUPTI_SUCCESS)
        step = "cuptiPCSamplingSetConfigurationAttribute";
    if (rc != CUPTI_SUCCESS) {
        if (strcmp(step, "cuptiPCSamplingEnable") != 0)
            disable(c);
        td_sw_warning("--source: no PC sampling on context %u (%s: %s); the counters are "
                      "collected as usual", uid, step, why(rc));
        return;
    }
    c->on = 1;
    DBG("context %u: configured, period %u", uid, period_in_force(c));
    if (make_dir() != 0 && !s.said_save++)
        td_sw_warning("--source: cannot make %s for the app's cubins: `topdown source` will "
                      "show PC offsets, not lines", s.cubin_dir);
    emit_config(c, period_in_force(c));
}

/* GetData until CUPTI has nothing left (it never synchronises). */
static void collect(pcs_ctx *c)
{
    if (!c || !c->on)
        return;
    CUpti_PCSamplingGetDataParams p = {0};
    p.size = CUpti_PCSamplingGetDataParamsSize;
    p.ctx = c->ctx;
    p.pcSamplingData = &c->get_buf;
    for (int calls = 0; calls < MAX_GETDATA; calls++) {
        c->get_buf.totalNumPcs = 0;
        c->get_buf.remainingNumPcs = 0;
        CUptiResult rc = cuptiPCSamplingGetData(&p);
        DBG("context %u: GetData %d: rc %d (%s)", c->uid, calls, (int)rc, why(rc));
        if (rc == CUPTI_ERROR_OUT_OF_MEMORY && !s.said_full) {
            s.said_full = 1;
            td_sw_warning("--source: CUPTI's PC sampling hardware buffer filled up and samples "
                          "were lost; a longer --pc-sampling-period samples less often");
        }
        if (rc != CUPTI_SUCCESS)
            return;
        emit_buffer(c, &c->get_buf);
        if (c->get_buf.remainingNumPcs == 0)
            return;
    }
}

void td_pcs_tick(CUcontext ctx, uint32_t uid)
{
    (void)ctx;
    pcs_ctx *c = s.enabled ? find(uid) : NULL;
    if (c && ++c->launches % TICK_LAUNCHES == 0)
        collect(c);
}

void td_pcs_collect(CUcontext ctx, uint32_t uid)
{
    (void)ctx;
    if (s.enabled)
        collect(find(uid));
}

static void end(pcs_ctx *c)
{
    if (c->on) {
        collect(c);
        c->config_buf.totalNumPcs = 0;
        DBG("context %u: disabling", c->uid);
        disable(c);
        emit_buffer(c, &c->config_buf); /* what Disable copied out */
        if (c->config_buf.remainingNumPcs > 0 && !s.said_left++)
            td_sw_warning("--source: %zu PCs of context %u did not fit the %zu that CUPTI "
                          "hands back at the end; their samples are left out",
                          c->config_buf.remainingNumPcs, c->uid, c->config_buf.collectNumPcs);
    }
    free_ctx(c);
}

void td_pcs_context_end(CUcontext ctx, uint32_t uid)
{
    (void)ctx;
    for (pcs_ctx **p = &s.contexts; s.enabled && *p; p = &(*p)->next)
        if ((*p)->uid == uid) {
            pcs_ctx *c = *p;
            *p = c->next;
            end(c);
            return;
        }
}

void td_pcs_end_all(void)
{
    while (s.contexts) {
        pcs_ctx *c = s.contexts;
        s.contexts = c->next;
        end(c);
    }
}

/* ---- cubins ------------------------------------------------------------------------ */

static int make_dir(void)
{
    if (s.dir_made)
        return 0;
    if (!s.cubin_dir[0] || (mkdir(s.cubin_dir, 0777) != 0 && errno != EEXIST))
        return -1;
    s.dir_made = 1;
    return 0;
}

static int write_all(int fd, const char *data, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

/* A module loaded before its context's sampling was enabled gets no
 * samples (H200: td_bench's constant kernel after its cudaMemcpyToSymbol,
 * and every kernel under CUDA_MODULE_LOADING=EAGER, 0 PCs). Enabling
 * sampling at the context's creation instead fails the Range Profiler
 * (cuptiProfilerGetCounterAvailability, then cuptiRangeProfilerStart:
 * CUPTI_ERROR_INVALID_PARAMETER, H100 and H200), and disabling it for the
 * Range Profiler's set-up loses the module again: so it is said. The other
 * side of it: a module loaded after sampling is enabled gets samples, but
 * the Range Profiler's Start then fails on its context (batch.c). */
static void say_early_module(uint32_t uid, const char *cubin_name)
{
    const pcs_ctx *c = find(uid);
    if ((c && c->on) || s.said_early++)
        return;
    td_sw_warning("--source: module %s was loaded on context %u before its first kernel "
                  "launch (by cudaMemcpyToSymbol, cudaFuncGetAttributes or "
                  "CUDA_MODULE_LOADING=EAGER); CUPTI takes no PC samples of its kernels. "
                  "Launch a kernel first, or leave CUDA_MODULE_LOADING lazy", cubin_name,
                  uid);
}

void td_pcs_module_loaded(uint32_t uid, const void *cubin, size_t size)
{
    if (!s.enabled || !cubin || !size)
        return;
    CUpti_GetCubinCrcParams crc = {0};
    crc.size = CUpti_GetCubinCrcParamsSize;
    crc.cubin = cubin;
    crc.cubinSize = size;
    char name[40], path[4200];
    if (cuptiGetCubinCrc(&crc) != CUPTI_SUCCESS || make_dir() != 0) {
        if (!s.said_save++)
            td_sw_warning("--source: cannot save the app's cubins in %s: `topdown source` "
                          "will show PC offsets, not lines", s.cubin_dir);
        return;
    }
    td_pcsamp_cubin_name(crc.cubinCrc, name, sizeof name);
    DBG("module loaded: %zu bytes, %s", size, name);
    say_early_module(uid, name);
    snprintf(path, sizeof path, "%s/%s", s.cubin_dir, name);
    /* O_EXCL: the same module loaded twice (or by another process) is kept once. */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    int failed = write_all(fd, cubin, size) != 0;
    failed |= close(fd) != 0;
    if (failed)
        unlink(path);
}
