#include "topdown/inject/activity.h"

#include <cupti.h>
#include <stdlib.h>
#include <string.h>

#include "topdown/inject/cache_flush.h"
#include "topdown/inject/kernel_times.h"
#include "topdown/inject/kernels.h"
#include "metrics/result/result.h"
#include "topdown/inject/spool_writer.h"

/* Buffers of 1 MiB (about 4,800 kernel records of 216 bytes). The budget
 * learns kernels' durations from the records CUPTI returns during the run
 * (kernel_times.h); on CUDA 13.0 (H200, driver 580) none came back before
 * the forced flush at exit, in td_sort or in PyTorch's 20 steps, with
 * buffers of 4 KiB to 1 MiB, device buffers of 4 KiB to 3 MB, global or
 * per-thread buffers, or a default flush of ours every 10-100 ms
 * (benchmarks/results/waves_NVIDIA_H200_2026-11-29/). TOPDOWN_ACTIVITY_KB,
 * _DEVICE_KB and _PER_THREAD keep those arms. */
enum { BUFFER_KB = 1024, BUFFER_KB_MIN = 4, BUFFER_KB_MAX = 64 << 10 };
enum { BUFFER_ALIGN = 8, FLUSH_PERIOD_MS = 100 };

static uint64_t start_time;
static uint64_t (*new_launch_id)(void);
static size_t buffer_bytes = (size_t)BUFFER_KB << 10;

/* TOPDOWN_ACTIVITY_KB's kb (-1: the default) as bytes, within bounds. */
static size_t bytes_of_kb(long kb)
{
    if (kb < 0)
        kb = BUFFER_KB;
    if (kb < BUFFER_KB_MIN)
        kb = BUFFER_KB_MIN;
    if (kb > BUFFER_KB_MAX)
        kb = BUFFER_KB_MAX;
    return (size_t)kb << 10;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(BUFFER_ALIGN, buffer_bytes);
    *size = *buffer ? buffer_bytes : 0;
    *max_records = 0;
}

static cJSON *dims_json(int32_t x, int32_t y, int32_t z)
{
    int v[3] = {x, y, z};
    return cJSON_CreateIntArray(v, 3);
}

static uint64_t ns_since_start(uint64_t t)
{
    return t > start_time ? t - start_time : 0;
}

static double since_start(uint64_t t)
{
    return (double)ns_since_start(t);
}

/* The graph exec of each recent cuGraphLaunch, by correlation id (direct
 * mapped: activity records follow their launch within a few thousand
 * calls), so a graph's kernels carry the id its whole launches are
 * recorded under; CUPTI's own graphId names another graph object. */
enum { GRAPH_SLOTS = 8192 };
static struct {
    uint32_t corr, exec;
} graph_launches[GRAPH_SLOTS];

void td_activity_graph_launch(uint32_t corr, uint32_t exec)
{
    graph_launches[corr % GRAPH_SLOTS].corr = corr;
    graph_launches[corr % GRAPH_SLOTS].exec = exec;
}

static uint32_t graph_exec_of(const CUpti_ActivityKernel10 *k)
{
    uint32_t slot = k->correlationId % GRAPH_SLOTS;
    if (graph_launches[slot].corr == k->correlationId && graph_launches[slot].exec)
        return graph_launches[slot].exec;
    return k->graphId;
}

/* Registers and shared memory, for launch statistics and occupancy
 * (issue 42): the record's, as ncu's Launch Statistics shows them. */
static void resources_of(const CUpti_ActivityKernel10 *k, uint32_t res[TD_SW_RES_FIELDS])
{
    res[0] = k->registersPerThread;
    res[1] = k->staticSharedMemory > 0 ? (uint32_t)k->staticSharedMemory : 0;
    res[2] = k->dynamicSharedMemory > 0 ? (uint32_t)k->dynamicSharedMemory : 0;
    res[3] = k->sharedMemoryExecuted;
}

/* A kernel of a CUDA graph: no launch callback saw it, so it is a launch of
 * its own, timed; its tree is its graph's (levels/aggregate.c). */
static void emit_graph_launch(const CUpti_ActivityKernel10 *k)
{
    cJSON *rec = td_sw_record("launch");
    if (!rec)
        return;
    char *name = td_demangle(k->name);
    cJSON_AddNumberToObject(rec, "context", k->contextId);
    cJSON_AddNumberToObject(rec, "id", (double)new_launch_id());
    cJSON_AddNumberToObject(rec, "corr", k->correlationId);
    cJSON_AddStringToObject(rec, "kernel", name ? name : "?");
    if (k->name)
        cJSON_AddStringToObject(rec, "mangled", k->name);
    cJSON_AddItemToObject(rec, "grid", dims_json(k->gridX, k->gridY, k->gridZ));
    cJSON_AddItemToObject(rec, "block", dims_json(k->blockX, k->blockY, k->blockZ));
    cJSON_AddNumberToObject(rec, "stream", k->streamId);
    cJSON_AddNumberToObject(rec, "start_ns", since_start(k->start));
    cJSON_AddNumberToObject(rec, "duration_ns", (double)(k->end - k->start));
    cJSON_AddNumberToObject(rec, "graph", graph_exec_of(k));
    cJSON_AddNumberToObject(rec, "graph_node", (double)k->graphNodeId);
    uint32_t res[TD_SW_RES_FIELDS];
    resources_of(k, res);
    cJSON *res_json = cJSON_CreateArray();
    for (int i = 0; res_json && i < TD_SW_RES_FIELDS; i++)
        cJSON_AddItemToArray(res_json, cJSON_CreateNumber(res[i]));
    if (res_json)
        cJSON_AddItemToObject(rec, "res", res_json);
    free(name);
    td_sw_emit(rec);
}

static void emit_kernel_time(const CUpti_ActivityKernel10 *k)
{
    double threads = (double)k->gridX * k->gridY * k->gridZ * k->blockX * k->blockY * k->blockZ;
    td_ktimes_add(k->name, threads, k->end - k->start);
    uint32_t res[TD_SW_RES_FIELDS];
    resources_of(k, res);
    td_sw_emit_kernel_time(k->contextId, k->correlationId,
                           ns_since_start(k->start), k->end - k->start, res);
}

/* ---- copies: memcpy, memset, peer copies -------------------------------- */

static int is_device_side(uint8_t direction, int source)
{
    switch (direction) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return !source;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return source;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN: return 0;
    default: return 1; /* DtoD, AtoA, AtoD, DtoA: both ends on the device */
    }
}

static void emit_copy(uint32_t context, uint32_t device, int kind, uint8_t direction,
                      uint64_t bytes, uint64_t start, uint64_t end, uint32_t stream,
                      uint32_t corr, long src, long dst)
{
    if (end < start)
        return; /* an incomplete record */
    cJSON *rec = td_sw_record("copy");
    if (!rec)
        return;
    cJSON_AddNumberToObject(rec, "context", context);
    cJSON_AddNumberToObject(rec, "device", device);
    cJSON_AddNumberToObject(rec, "kind", kind);
    cJSON_AddNumberToObject(rec, "direction", direction);
    cJSON_AddNumberToObject(rec, "bytes", (double)bytes);
    cJSON_AddNumberToObject(rec, "start_ns", since_start(start));
    cJSON_AddNumberToObject(rec, "duration_ns", (double)(end - start));
    cJSON_AddNumberToObject(rec, "stream", stream);
    cJSON_AddNumberToObject(rec, "corr", corr);
    /* -1 (host memory, or none) is the reader's default: left out, as a
     * million copies make a million lines */
    if (src >= 0)
        cJSON_AddNumberToObject(rec, "src_device", (double)src);
    if (dst >= 0)
        cJSON_AddNumberToObject(rec, "dst_device", (double)dst);
    td_sw_emit(rec);
}

/* 1 when the record was a copy (and written). */
static int take_copy(const CUpti_Activity *record)
{
    if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)record;
        long dev = (long)m->deviceId;
        emit_copy(m->contextId, m->deviceId, TD_COPY_MEMCPY, m->copyKind, m->bytes, m->start,
                  m->end, m->streamId, m->correlationId,
                  is_device_side(m->copyKind, 1) ? dev : -1,
                  is_device_side(m->copyKind, 0) ? dev : -1);
        return 1;
    }
    if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY2) {
        const CUpti_ActivityMemcpyPtoP4 *p = (const CUpti_ActivityMemcpyPtoP4 *)record;
        emit_copy(p->contextId, p->deviceId, TD_COPY_PEER, p->copyKind, p->bytes, p->start,
                  p->end, p->streamId, p->correlationId, (long)p->srcDeviceId,
                  (long)p->dstDeviceId);
        return 1;
    }
    if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)record;
        emit_copy(m->contextId, m->deviceId, TD_COPY_MEMSET, TD_COPY_DIR_UNKNOWN, m->bytes,
                  m->start, m->end, m->streamId, m->correlationId, -1, (long)m->deviceId);
        return 1;
    }
    return 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    CUpti_Activity *record = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (take_copy(record))
            continue;
        if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
            record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
        if (k->end < k->start)
            continue; /* an incomplete record */
        if (k->name && strcmp(k->name, TD_FLUSH_KERNEL) == 0)
            continue; /* topdown's cache flush (--cache-control all) */
        if (k->graphId != 0)
            emit_graph_launch(k);
        else
            emit_kernel_time(k);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
        td_sw_warning("CUPTI dropped %zu activity records; those launches have no "
                      "duration, those copies are missing", dropped);
    free(buffer);
}

/* CUPTI keeps kernels' timestamps in device buffers of ~3 MB (100,000
 * kernels) and completes their records from them; TOPDOWN_ACTIVITY_DEVICE_KB
 * sets another size (an arm, as above). */
static void set_device_buffer(long device_kb)
{
    if (device_kb <= 0)
        return;
    size_t bytes = (size_t)(device_kb > BUFFER_KB_MAX ? BUFFER_KB_MAX : device_kb) << 10;
    size_t size = sizeof bytes;
    if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &size, &bytes) !=
        CUPTI_SUCCESS)
        td_sw_warning("CUPTI refused a device buffer of %zu bytes for kernel timestamps; "
                      "its default stays", bytes);
}

/* CUPTI 13 keeps activity buffers per thread by default;
 * TOPDOWN_ACTIVITY_PER_THREAD=0 asks for its global buffers (an arm, as
 * above). Set before the callbacks are registered, as CUPTI requires. */
static void set_per_thread(long per_thread)
{
    if (per_thread < 0)
        return;
    uint8_t value = per_thread != 0;
    size_t size = sizeof value;
    if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &value) !=
        CUPTI_SUCCESS)
        td_sw_warning("CUPTI refused TOPDOWN_ACTIVITY_PER_THREAD=%u; its default stays", value);
}

int td_activity_start(uint64_t t0, uint64_t (*next_id)(void), int copies, long buffer_kb,
                      long device_kb, long per_thread)
{
    buffer_bytes = bytes_of_kb(buffer_kb);
    set_device_buffer(device_kb);
    set_per_thread(per_thread);
    start_time = t0;
    new_launch_id = next_id;
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS)
        return -1;
    if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)
        return -1;
    cuptiActivityFlushPeriod(FLUSH_PERIOD_MS); /* full buffers back within 100 ms */
    /* Copies are extra: a device without them still has its kernels. */
    if (copies &&
        (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS ||
         cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY2) != CUPTI_SUCCESS ||
         cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET) != CUPTI_SUCCESS))
        td_sw_warning("CUPTI cannot record memory copies here: the result has none");
    return 0;
}

void td_activity_flush(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}
