/* Reading the collection spool (docs/COLLECTION.md): JSON lines written by
 * the injection library, turned into a td_result. Launch records carry the
 * counters; kernel_time records carry durations measured by CUPTI's
 * activity API (and, optionally, the kernel record's registers and shared
 * memory) and are joined to their launch by correlation id. */
#include "metrics/spool/spool.h"
#include "metrics/result/pm_samples.h"

#include "metrics/file_text.h"
#include "metrics/intern.h"
#include "metrics/json_field.h"
#include "metrics/result/conditions.h"
#include "metrics/result/pcsamp.h"
#include "metrics/result/result_io.h"
#include "metrics/spool/spool_scan.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One device section per (process, context) pair. */
typedef struct dev_slot {
    uint64_t pid;
    uint64_t context;
    size_t index;        /* into res->devices */
    uint32_t *corr;      /* correlation id of each launch, launch order */
    size_t n_corr, cap_corr;
} dev_slot;

typedef struct kernel_time {
    uint64_t pid, context, corr;
    uint64_t start_ns;
    double duration_ns;
    td_launch_resources resources; /* optional "res" */
} kernel_time;

/* A kernel record (spool/2): launches of its process name it by k. */
typedef struct spool_kernel {
    char *name, *mangled;
    size_t dev;                   /* device the pointers below belong to, + 1 */
    const char *dev_name, *dev_mangled;
} spool_kernel;

typedef struct kernel_key {
    uint64_t pid, k;
} kernel_key;

/* A copy whose context had no device record when it was read. */
typedef struct pending_copy {
    uint64_t pid, context;
    long device;          /* the copy's device ordinal, -1: unknown */
    td_copy copy;
} pending_copy;

typedef struct reader {
    const char *name;
    long line;
    char where[600];     /* "spool NAME line N" */
    td_jctx c;
    td_result *res;
    td_spool_summary *sum;
    td_error *err;
    dev_slot *slots;
    size_t n_slots, cap_slots;
    kernel_time *times;
    size_t n_times, cap_times;
    td_keyset kernel_ids; /* kernel_key -> index into kernels */
    spool_kernel *kernels;
    size_t cap_kernels;
    double *values;       /* one launch's counters, scratch */
    size_t cap_values;
    pending_copy *pending;
    size_t n_pending, cap_pending;
} reader;

#define MAX_PID 4294967295.0
#define MAX_KERNEL_ID 9007199254740992.0 /* 2^53 */

static int grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t cap2 = *cap ? *cap * 2 : 16;
    while (cap2 < need)
        cap2 *= 2;
    void *bigger = realloc(*items, cap2 * size);
    if (!bigger)
        return -1;
    *items = bigger;
    *cap = cap2;
    return 0;
}

static int fail_line(reader *r, const char *what)
{
    return td_fail(r->err, "spool %s line %ld: %s", r->name, r->line, what);
}

/* Appends msg to a "; "-joined list unless it is already there. */
static int add_message(char **list, const char *msg)
{
    if (*list && strstr(*list, msg))
        return 0;
    size_t old = *list ? strlen(*list) : 0;
    char *bigger = realloc(*list, old + strlen(msg) + 3);
    if (!bigger)
        return -1;
    if (old)
        strcpy(bigger + old, "; ");
    strcpy(bigger + (old ? old + 2 : 0), msg);
    *list = bigger;
    return 0;
}

/* ---- records ------------------------------------------------------------ */

static dev_slot *find_slot(reader *r, uint64_t pid, uint64_t context)
{
    for (size_t i = 0; i < r->n_slots; i++)
        if (r->slots[i].pid == pid && r->slots[i].context == context)
            return &r->slots[i];
    return NULL;
}

/* --cache-control: the start record says what was asked; a device record
 * says "none" when its context could not flush (a warning record says
 * why), and the result then says none: it holds unflushed passes. */
static int read_cache_control(reader *r, const cJSON *obj, int from_device)
{
    const char *word = NULL;
    if (td_json_string(&r->c, obj, "cache_control", 0, &word))
        return -1;
    if (!word)
        return 0;
    if (strcmp(word, "all") != 0 && strcmp(word, "none") != 0)
        return fail_line(r, "\"cache_control\" is neither all nor none");
    td_conditions *c = &r->res->conditions;
    if (c->cache_control && !(from_device && strcmp(word, "none") == 0))
        return 0;
    free(c->cache_control);
    if (!(c->cache_control = td_strdup(word)))
        return td_fail(r->err, "out of memory");
    return 0;
}

static int read_start(reader *r, const cJSON *obj)
{
    const char *format = NULL, *mode = NULL;
    double overhead = 0;
    if (td_json_string(&r->c, obj, "format", 1, &format))
        return -1;
    if (strcmp(format, TD_SPOOL_FORMAT) != 0 && strcmp(format, TD_SPOOL_FORMAT_V1) != 0)
        return td_fail(r->err,
                       "spool %s is format %s, this topdown reads %s and %s: topdown and "
                       "libtopdown_inject.so come from different builds; rebuild both",
                       r->name, format, TD_SPOOL_FORMAT, TD_SPOOL_FORMAT_V1);
    if (td_json_string(&r->c, obj, "replay_mode", 0, &mode) ||
        td_json_number(&r->c, obj, "overhead_pct", 0, 0, 1e9, &overhead))
        return -1;
    if (mode && !mode[0])
        return fail_line(r, "\"replay_mode\" is empty");
    if (mode && !r->res->replay_mode && !(r->res->replay_mode = td_strdup(mode)))
        return td_fail(r->err, "out of memory");
    if (overhead > 0 && r->res->overhead_pct == 0)
        r->res->overhead_pct = overhead;
    if (read_cache_control(r, obj, 0))
        return -1;
    r->sum->processes++;
    return 0;
}

static int read_cc(reader *r, const cJSON *obj, td_device *dev)
{
    const cJSON *cc = cJSON_GetObjectItemCaseSensitive(obj, "cc");
    if (!cc)
        return 0;
    if (!cJSON_IsArray(cc) || cJSON_GetArraySize(cc) != 2)
        return fail_line(r, "\"cc\" is not [major, minor]");
    long major, minor;
    if (td_json_int_value(&r->c, cc->child, "\"cc\"", 0, 0, 999, &major) ||
        td_json_int_value(&r->c, cc->child->next, "\"cc\"", 1, 0, 999, &minor))
        return -1;
    dev->cc_major = (int)major;
    dev->cc_minor = (int)minor;
    return 0;
}

static int read_device_identity(reader *r, const cJSON *obj, td_device *dev)
{
    const char *name = NULL, *chip = NULL, *arch = NULL;
    long index = 0, sm = 0, passes = 0, clock = 0;
    if (td_json_string(&r->c, obj, "name", 0, &name) ||
        td_json_string(&r->c, obj, "chip", 0, &chip) ||
        td_json_string(&r->c, obj, "arch", 0, &arch) ||
        td_json_int(&r->c, obj, "device", 1, 0, INT_MAX, &index) ||
        td_json_int(&r->c, obj, "sm_count", 0, 0, 1000000, &sm) ||
        td_json_int(&r->c, obj, "clock_mhz", 0, 0, TD_MAX_CLOCK_MHZ, &clock) ||
        td_json_int(&r->c, obj, "passes", 0, 0, 1000000, &passes) || read_cc(r, obj, dev))
        return -1;
    dev->index = (int)index;
    dev->sm_count = (int)sm;
    dev->clock_mhz = (int)clock;
    dev->passes = (int)passes;
    dev->name = td_strdup(name ? name : "unknown");
    dev->chip = td_strdup(chip ? chip : "unknown");
    dev->arch = td_strdup(arch ? arch : "none");
    if (!dev->name || !dev->chip || !dev->arch)
        return td_fail(r->err, "out of memory");
    if (dev->passes > r->sum->passes)
        r->sum->passes = dev->passes;
    return 0;
}

static int read_device_metrics(reader *r, const cJSON *obj, td_device *dev)
{
    const cJSON *metrics;
    size_t n;
    if (td_json_array(&r->c, obj, "metrics", 0, &metrics, &n))
        return -1;
    if (!metrics)
        return 0;
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (!names)
        return td_fail(r->err, "out of memory");
    size_t i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, metrics) {
        if (!cJSON_IsString(m) || !m->valuestring[0]) {
            free(names);
            return fail_line(r, "\"metrics\" holds something other than a metric name");
        }
        names[i++] = m->valuestring;
    }
    int rc = td_device_set_metrics(dev, names, n, r->err);
    free(names);
    return rc;
}

static int read_device(reader *r, const cJSON *obj)
{
    uint64_t pid = 0, context = 0;
    if (td_json_uint(&r->c, obj, "pid", 1, MAX_PID, &pid) ||
        td_json_uint(&r->c, obj, "context", 1, UINT32_MAX, &context))
        return -1;
    if (find_slot(r, pid, context))
        return fail_line(r, "a second device record for the same process and context");
    if (grow((void **)&r->slots, &r->cap_slots, r->n_slots + 1, sizeof *r->slots))
        return td_fail(r->err, "out of memory");
    td_device *dev = td_result_add_device(r->res, r->err);
    if (!dev)
        return -1;
    dev->context = (uint32_t)context;
    dev_slot *slot = &r->slots[r->n_slots++];
    memset(slot, 0, sizeof *slot);
    slot->pid = pid;
    slot->context = context;
    slot->index = r->res->n_devices - 1;
    return read_device_identity(r, obj, dev) || read_device_metrics(r, obj, dev) ||
                   td_result_read_groups(obj, dev, &r->c) || read_cache_control(r, obj, 1)
               ? -1
               : 0;
}

static int read_kernel(reader *r, const cJSON *obj)
{
    kernel_key key;
    const char *name = NULL, *mangled = NULL;
    memset(&key, 0, sizeof key);
    if (td_json_uint(&r->c, obj, "pid", 1, MAX_PID, &key.pid) ||
        td_json_uint(&r->c, obj, "k", 1, MAX_KERNEL_ID, &key.k) ||
        td_json_string(&r->c, obj, "name", 1, &name) ||
        td_json_string(&r->c, obj, "mangled", 0, &mangled))
        return -1;
    int added;
    long i = -1;
    if (grow((void **)&r->kernels, &r->cap_kernels, r->kernel_ids.count + 1,
             sizeof *r->kernels) ||
        (i = td_keyset_add(&r->kernel_ids, &key, &added)) < 0)
        return td_fail(r->err, "out of memory");
    spool_kernel *k = &r->kernels[i];
    if (!added) {
        int same = strcmp(k->name, name) == 0 &&
                   ((!k->mangled && !mangled) ||
                    (k->mangled && mangled && strcmp(k->mangled, mangled) == 0));
        return same ? 0 : fail_line(r, "a second kernel record with the same \"k\" and other names");
    }
    memset(k, 0, sizeof *k);
    k->name = td_strdup(name[0] ? name : "?");
    k->mangled = mangled && mangled[0] ? td_strdup(mangled) : NULL;
    if (!k->name || (mangled && mangled[0] && !k->mangled))
        return td_fail(r->err, "out of memory");
    return 0;
}

/* The names of kernel record k of process pid, interned in the slot's
 * device. */
static int kernel_of(reader *r, uint64_t pid, uint64_t k_id, const dev_slot *slot,
                     const char **kernel, const char **mangled)
{
    kernel_key key = {pid, k_id};
    long i = td_keyset_find(&r->kernel_ids, &key);
    if (i < 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "kernel %llu of process %llu has no kernel record before it",
                 (unsigned long long)k_id, (unsigned long long)pid);
        return fail_line(r, msg);
    }
    spool_kernel *k = &r->kernels[i];
    if (k->dev != slot->index + 1) {
        td_device *dev = &r->res->devices[slot->index];
        k->dev_name = td_device_intern(dev, k->name);
        k->dev_mangled = k->mangled ? td_device_intern(dev, k->mangled) : NULL;
        if (!k->dev_name || (k->mangled && !k->dev_mangled))
            return td_fail(r->err, "out of memory");
        k->dev = slot->index + 1;
    }
    *kernel = k->dev_name;
    *mangled = k->dev_mangled;
    return 0;
}

/* The launch's names, interned in its device: "k" (spool/2) or "kernel"
 * and "mangled" (spool/1). */
static int launch_names(reader *r, const cJSON *obj, uint64_t pid, const dev_slot *slot,
                        const char **kernel, const char **mangled)
{
    td_device *dev = &r->res->devices[slot->index];
    if (cJSON_HasObjectItem(obj, "k")) {
        uint64_t k = 0;
        if (td_json_uint(&r->c, obj, "k", 1, MAX_KERNEL_ID, &k))
            return -1;
        return kernel_of(r, pid, k, slot, kernel, mangled);
    }
    const char *name = NULL, *m = NULL;
    if (td_json_string(&r->c, obj, "kernel", 1, &name) ||
        td_json_string(&r->c, obj, "mangled", 0, &m))
        return -1;
    *kernel = td_device_intern(dev, name[0] ? name : "?");
    *mangled = m && m[0] ? td_device_intern(dev, m) : NULL;
    if (!*kernel || (m && m[0] && !*mangled))
        return td_fail(r->err, "out of memory");
    return 0;
}

/* "counters": every metric, or with "group": g that group's values. */
static int read_counters(reader *r, const cJSON *obj, const td_device *dev, int *group,
                         double **out)
{
    const cJSON *counters = cJSON_GetObjectItemCaseSensitive(obj, "counters");
    long g = TD_GROUP_ALL;
    *out = NULL;
    *group = TD_GROUP_ALL;
    if (!counters)
        return cJSON_HasObjectItem(obj, "group")
                   ? fail_line(r, "a \"group\" without \"counters\"")
                   : 0;
    if (cJSON_HasObjectItem(obj, "group")) {
        if (!dev->n_groups)
            return fail_line(r, "a launch of a counter group, but its device record has no \"groups\"");
        if (td_json_int(&r->c, obj, "group", 1, 0, (long)dev->n_groups - 1, &g))
            return -1;
    }
    if (grow((void **)&r->values, &r->cap_values, dev->n_metrics ? dev->n_metrics : 1,
             sizeof *r->values))
        return td_fail(r->err, "out of memory");
    if (td_result_read_group_counters(counters, dev, (int)g, r->values, &r->c, "\"counters\"", -1))
        return -1;
    *group = (int)g;
    *out = r->values;
    return 0;
}

static int remember_corr(reader *r, dev_slot *slot, uint64_t corr)
{
    if (grow((void **)&slot->corr, &slot->cap_corr, slot->n_corr + 1, sizeof *slot->corr))
        return td_fail(r->err, "out of memory");
    slot->corr[slot->n_corr++] = (uint32_t)corr;
    return 0;
}

/* The optional "res": [registers, static shared, dynamic shared, shared
 * config] of CUPTI's kernel record. */
static int read_resources(reader *r, const cJSON *obj, td_launch_resources *out)
{
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(obj, "res");
    return res ? td_result_read_resources(res, "\"res\"", -1, out, &r->c) : 0;
}

static int fill_launch(reader *r, const cJSON *obj, td_launch *l)
{
    return td_json_uint(&r->c, obj, "id", 1, TD_JSON_MAX_UINT64, &l->id) ||
                   td_json_uint(&r->c, obj, "stream", 0, TD_JSON_MAX_UINT64, &l->stream) ||
                   td_json_uint(&r->c, obj, "start_ns", 0, TD_JSON_MAX_UINT64, &l->start_ns) ||
                   td_json_amount(&r->c, obj, "duration_ns", 0, TD_JSON_MAX_DURATION_NS,
                                  &l->duration_ns) ||
                   td_json_uint(&r->c, obj, "graph", 0, TD_JSON_MAX_UINT64, &l->graph_id) ||
                   td_json_uint(&r->c, obj, "graph_node", 0, TD_JSON_MAX_UINT64, &l->graph_node) ||
                   td_json_dim3(&r->c, obj, "grid", l->grid) ||
                   td_json_dim3(&r->c, obj, "block", l->block) ||
                   read_resources(r, obj, &l->resources)
               ? -1
               : 0;
}

static int read_launch(reader *r, const cJSON *obj)
{
    uint64_t pid = 0, context = 0, corr = 0;
    if (td_json_uint(&r->c, obj, "pid", 1, MAX_PID, &pid) ||
        td_json_uint(&r->c, obj, "context", 1, UINT32_MAX, &context) ||
        td_json_uint(&r->c, obj, "corr", 0, UINT32_MAX, &corr))
        return -1;
    if (!cJSON_HasObjectItem(obj, "k") && !cJSON_HasObjectItem(obj, "kernel"))
        return fail_line(r, "\"kernel\" is missing (and no \"k\")");
    dev_slot *slot = find_slot(r, pid, context);
    if (!slot)
        return fail_line(r, "a launch before the device record of its context");
    td_device *dev = &r->res->devices[slot->index];
    const char *kernel = NULL, *mangled = NULL;
    double *values = NULL;
    int group = TD_GROUP_ALL;
    if (launch_names(r, obj, pid, slot, &kernel, &mangled) ||
        read_counters(r, obj, dev, &group, &values))
        return -1;
    td_launch *l = td_device_append_launch(dev, kernel, values, r->err);
    if (!l)
        return -1;
    l->mangled = mangled;
    l->group = group;
    const char *region = NULL;
    if (fill_launch(r, obj, l) || remember_corr(r, slot, corr) ||
        td_json_string(&r->c, obj, "region", 0, &region))
        return -1;
    if (region && region[0] && !(l->region = td_device_intern(dev, region)))
        return td_fail(r->err, "out of memory");
    r->sum->launches++;
    return 0;
}

static int add_kernel_time(reader *r, const kernel_time *t)
{
    if (grow((void **)&r->times, &r->cap_times, r->n_times + 1, sizeof *r->times))
        return td_fail(r->err, "out of memory");
    r->times[r->n_times++] = *t;
    return 0;
}

static int read_kernel_time(reader *r, const cJSON *obj)
{
    kernel_time t = {0};
    if (td_json_uint(&r->c, obj, "pid", 1, MAX_PID, &t.pid) ||
        td_json_uint(&r->c, obj, "context", 1, UINT32_MAX, &t.context) ||
        td_json_uint(&r->c, obj, "corr", 1, UINT32_MAX, &t.corr) ||
        td_json_uint(&r->c, obj, "start_ns", 0, TD_JSON_MAX_UINT64, &t.start_ns) ||
        td_json_amount(&r->c, obj, "duration_ns", 1, TD_JSON_MAX_DURATION_NS, &t.duration_ns) ||
        read_resources(r, obj, &t.resources))
        return -1;
    return add_kernel_time(r, &t);
}

/* The device section of a record's (pid, context); NULL (error set) when
 * the fields are bad or its device record has not come yet. what: the
 * record, for the message ("PC samples"). */
static td_device *record_device(reader *r, const cJSON *obj, const char *what)
{
    uint64_t pid = 0, context = 0;
    if (td_json_uint(&r->c, obj, "pid", 1, MAX_PID, &pid) ||
        td_json_uint(&r->c, obj, "context", 1, UINT32_MAX, &context))
        return NULL;
    const dev_slot *slot = find_slot(r, pid, context);
    if (!slot) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s before the device record of their context", what);
        fail_line(r, msg);
        return NULL;
    }
    return &r->res->devices[slot->index];
}

/* The PC samples of the device section of a pcsamp_config or pcsamp
 * record's (pid, context), which must come first; NULL (error set) when
 * there is none or out of memory. */
static td_pcsamp *pcsamp_of(reader *r, const cJSON *obj)
{
    td_device *dev = record_device(r, obj, "PC samples");
    if (!dev)
        return NULL;
    if (!dev->pcsamp && !(dev->pcsamp = td_pcsamp_new()))
        td_fail(r->err, "out of memory");
    return dev->pcsamp;
}

/* --source: the context's period, cubin folder and CUPTI's reasons. */
static int read_pcsamp_config(reader *r, const cJSON *obj)
{
    td_pcsamp *p = pcsamp_of(r, obj);
    return p ? td_pcsamp_read_pcsamp_config_record(obj, p, &r->c) : -1;
}

/* --source: a batch of PC samples, added to the context's. */
static int read_pcsamp(reader *r, const cJSON *obj)
{
    td_pcsamp *p = pcsamp_of(r, obj);
    return p ? td_pcsamp_read_pcsamp_record(obj, p, &r->c) : -1;
}

/* A memcpy, memset or peer copy (activity.c): into its context's device
 * section, or held until the end when that has no device record yet. */
static int read_copy(reader *r, const cJSON *obj)
{
    uint64_t pid = 0, context = 0, kind = 0, direction = 0, corr = 0;
    long src = -1, dst = -1, device = -1;
    td_copy copy;
    memset(&copy, 0, sizeof copy);
    if (td_json_uint(&r->c, obj, "pid", 1, MAX_PID, &pid) ||
        td_json_uint(&r->c, obj, "context", 1, UINT32_MAX, &context) ||
        td_json_uint(&r->c, obj, "kind", 1, TD_COPY_KINDS - 1, &kind) ||
        td_json_uint(&r->c, obj, "direction", 0, TD_COPY_DIRECTIONS - 1, &direction) ||
        td_json_uint(&r->c, obj, "bytes", 1, TD_JSON_MAX_UINT64, &copy.bytes) ||
        td_json_uint(&r->c, obj, "start_ns", 0, TD_JSON_MAX_UINT64, &copy.start_ns) ||
        td_json_amount(&r->c, obj, "duration_ns", 1, TD_JSON_MAX_DURATION_NS,
                       &copy.duration_ns) ||
        td_json_uint(&r->c, obj, "stream", 0, TD_JSON_MAX_UINT64, &copy.stream) ||
        td_json_uint(&r->c, obj, "corr", 0, UINT32_MAX, &corr) ||
        td_json_int(&r->c, obj, "src_device", 0, -1, INT32_MAX, &src) ||
        td_json_int(&r->c, obj, "dst_device", 0, -1, INT32_MAX, &dst) ||
        td_json_int(&r->c, obj, "device", 0, -1, INT32_MAX, &device))
        return -1;
    copy.kind = (uint8_t)kind;
    copy.direction = (uint8_t)direction;
    copy.corr = (uint32_t)corr;
    copy.src_device = (int32_t)src;
    copy.dst_device = (int32_t)dst;
    r->sum->copies++;
    const dev_slot *slot = find_slot(r, pid, context);
    if (slot)
        return td_device_add_copy(&r->res->devices[slot->index], &copy, r->err);
    if (grow((void **)&r->pending, &r->cap_pending, r->n_pending + 1, sizeof *r->pending))
        return td_fail(r->err, "out of memory");
    r->pending[r->n_pending++] = (pending_copy){pid, context, device, copy};
    return 0;
}

static int read_message(reader *r, const cJSON *obj, char **list)
{
    const char *msg = NULL;
    if (td_json_string(&r->c, obj, "message", 1, &msg))
        return -1;
    if (add_message(list, msg))
        return td_fail(r->err, "out of memory");
    return 0;
}

/* Its message joins the errors; the codes profiler_failed and
 * cupti_failed say that topdown's collection failed. */
static int read_error(reader *r, const cJSON *obj)
{
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(obj, "code");
    if (cJSON_IsString(code) && (strcmp(code->valuestring, "profiler_failed") == 0 ||
                                 strcmp(code->valuestring, "cupti_failed") == 0))
        r->sum->collector_failed = 1;
    return read_message(r, obj, &r->sum->errors);
}

static int read_warning(reader *r, const cJSON *obj)
{
    return read_message(r, obj, &r->sum->warnings);
}

/* The process is dying of this signal. */
static int read_signal(reader *r, const cJSON *obj)
{
    long sig = 0;
    if (td_json_int(&r->c, obj, "signal", 1, 0, 1024, &sig))
        return -1;
    r->sum->last_signal = (int)sig;
    return 0;
}

/* A batch of PM samples of the device section of (pid, context); batches
 * add up in the section, within its bound on rows. */
static int read_pm_samples(reader *r, const cJSON *obj)
{
    td_device *dev = record_device(r, obj, "PM samples");
    if (!dev)
        return -1;
    td_pm_samples *batch = NULL;
    if (td_pm_from_json(obj, &batch, &r->c))
        return -1;
    if (!dev->pm) {
        dev->pm = batch;
        batch->max_rows = TD_PM_MAX_ROWS_DEFAULT > batch->n ? TD_PM_MAX_ROWS_DEFAULT : batch->n;
        return 0;
    }
    int rc = td_pm_append(dev->pm, batch, r->err);
    td_pm_free(batch);
    return rc;
}

/* A process's end record: what its collection cost, added to the
 * result's. Collectors before elapsed_s wrote counts only, and a null
 * elapsed_s (a NaN) gives no run to compare with: no cost then. */
static int read_end(reader *r, const cJSON *obj)
{
    r->sum->ended++;
    const cJSON *elapsed = cJSON_GetObjectItemCaseSensitive(obj, "elapsed_s");
    if (!elapsed || cJSON_IsNull(elapsed))
        return 0;
    td_cost one;
    if (td_cost_read_end_record(obj, &one, &r->c))
        return -1;
    td_cost_add(&r->res->cost, &one);
    return 0;
}

static int read_record(reader *r, const cJSON *obj)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(obj, "type");
    if (!cJSON_IsString(type))
        return fail_line(r, "a record without a \"type\"");
    const char *t = type->valuestring;
    if (strcmp(t, "start") == 0)
        return read_start(r, obj);
    if (r->sum->processes == 0)
        return td_fail(r->err, "%s is not a topdown spool: it does not begin with a start "
                       "record", r->name);
    if (strcmp(t, "device") == 0)
        return read_device(r, obj);
    if (strcmp(t, "kernel") == 0)
        return read_kernel(r, obj);
    if (strcmp(t, "launch") == 0)
        return read_launch(r, obj);
    if (strcmp(t, "kernel_time") == 0)
        return read_kernel_time(r, obj);
    if (strcmp(t, "pcsamp_config") == 0)
        return read_pcsamp_config(r, obj);
    if (strcmp(t, "pcsamp") == 0)
        return read_pcsamp(r, obj);
    if (strcmp(t, "pm_samples") == 0)
        return read_pm_samples(r, obj);
    if (strcmp(t, "copy") == 0)
        return read_copy(r, obj);
    if (strcmp(t, "error") == 0)
        return read_error(r, obj);
    if (strcmp(t, "warning") == 0)
        return read_warning(r, obj);
    if (strcmp(t, "signal") == 0)
        return read_signal(r, obj);
    if (strcmp(t, "end") == 0)
        return read_end(r, obj);
    return 0; /* debug records, and record types of a later version: ignored */
}

/* ---- joining durations and ordering launches ---------------------------- */

typedef struct corr_index {
    uint32_t corr;
    size_t launch;
} corr_index;

static int by_corr(const void *a, const void *b)
{
    uint32_t x = ((const corr_index *)a)->corr, y = ((const corr_index *)b)->corr;
    return (x > y) - (x < y);
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const td_launch *)a)->id, y = ((const td_launch *)b)->id;
    return (x > y) - (x < y);
}

/* Whether n items of size bytes are already in cmp's order (a run's
 * launches and correlation ids nearly always are: no sort then). */
static int in_order(const void *items, size_t n, size_t size,
                    int (*cmp)(const void *, const void *))
{
    const char *at = items;
    for (size_t i = 1; i < n; i++)
        if (cmp(at + (i - 1) * size, at + i * size) > 0)
            return 0;
    return 1;
}

/* The first kernel_time of a correlation id wins: kernel replay may time
 * the same launch once per pass. Durations from counters are kept. */
static int join_times(reader *r, dev_slot *slot)
{
    td_device *dev = &r->res->devices[slot->index];
    corr_index *idx = malloc((slot->n_corr ? slot->n_corr : 1) * sizeof *idx);
    char *timed = calloc(slot->n_corr ? slot->n_corr : 1, 1);
    if (!idx || !timed) {
        free(idx);
        free(timed);
        return td_fail(r->err, "out of memory");
    }
    for (size_t i = 0; i < slot->n_corr; i++)
        idx[i] = (corr_index){slot->corr[i], i};
    if (!in_order(idx, slot->n_corr, sizeof *idx, by_corr))
        qsort(idx, slot->n_corr, sizeof *idx, by_corr);
    for (size_t t = 0; t < r->n_times; t++) {
        const kernel_time *kt = &r->times[t];
        if (kt->pid != slot->pid || kt->context != slot->context || kt->corr == 0)
            continue;
        corr_index key = {(uint32_t)kt->corr, 0};
        corr_index *hit = bsearch(&key, idx, slot->n_corr, sizeof *idx, by_corr);
        if (!hit || timed[hit->launch])
            continue;
        timed[hit->launch] = 1;
        td_launch *l = &dev->launches[hit->launch];
        if (!l->start_ns)
            l->start_ns = (uint64_t)kt->start_ns;
        /* A launch measured in a user range (a counter group) has the
         * range's time, the kernel's plus the range's own (td_bfs's
         * frontier_compact, H200: 52 us against 8 us unprofiled): its
         * kernel's record is the time the estimator's strata and weights
         * need. A replayed launch keeps its counters' time (its record
         * may be any of its passes). */
        if (l->duration_ns <= 0 || (l->counters && l->group != TD_GROUP_ALL))
            l->duration_ns = kt->duration_ns;
        if (kt->resources.recorded && !l->resources.recorded)
            l->resources = kt->resources;
    }
    free(idx);
    free(timed);
    return 0;
}

static int by_copy_start(const void *a, const void *b)
{
    const td_copy *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

/* A copy read before its context's device record goes to that context, or
 * else to a section of its process on its device; one that ran where the
 * process launched no kernel has no section and is counted in a warning. */
static int place_pending_copies(reader *r)
{
    size_t unplaced = 0;
    for (size_t i = 0; i < r->n_pending; i++) {
        const pending_copy *p = &r->pending[i];
        const dev_slot *slot = find_slot(r, p->pid, p->context);
        for (size_t s = 0; !slot && s < r->n_slots; s++)
            if (r->slots[s].pid == p->pid && p->device >= 0 &&
                r->res->devices[r->slots[s].index].index == p->device)
                slot = &r->slots[s];
        if (!slot) {
            unplaced++;
            continue;
        }
        if (td_device_add_copy(&r->res->devices[slot->index], &p->copy, r->err))
            return -1;
    }
    r->sum->copies -= (long)unplaced;
    if (unplaced) {
        char msg[200];
        snprintf(msg, sizeof msg, "%zu cop%s ran on a context where the process launched no "
                 "kernel: left out of the result", unplaced, unplaced == 1 ? "y" : "ies");
        if (add_message(&r->sum->warnings, msg))
            return td_fail(r->err, "out of memory");
    }
    for (size_t d = 0; d < r->res->n_devices; d++)
        if (r->res->devices[d].n_copies > 1)
            qsort(r->res->devices[d].copies, r->res->devices[d].n_copies,
                  sizeof(td_copy), by_copy_start);
    return 0;
}

static int finish(reader *r)
{
    if (place_pending_copies(r))
        return -1;
    for (size_t s = 0; s < r->n_slots; s++) {
        if (join_times(r, &r->slots[s]))
            return -1;
        td_device *dev = &r->res->devices[r->slots[s].index];
        if (dev->n_launches > 1 && /* a device without launches has none: qsort(NULL) */
            !in_order(dev->launches, dev->n_launches, sizeof *dev->launches, by_id))
            qsort(dev->launches, dev->n_launches, sizeof *dev->launches, by_id);
        for (size_t i = 0; i < dev->n_launches; i++) {
            r->sum->profiled += dev->launches[i].profiled != 0;
            r->sum->timed += dev->launches[i].duration_ns > 0;
        }
    }
    return 0;
}

/* ---- the collector's own lines, without a JSON tree --------------------- */

/* A scanned value (a whole number) as td_json_uint reads it: 1 (and
 * *out) when in [0, max]; 0 when not, and the line is then read as JSON,
 * which says what is wrong with it. The same line thus reads the same
 * either way: scanned only when every check of the JSON path passes. */
static int whole_upto(double x, double max, uint64_t *out)
{
    if (!(x >= 0 && x <= max))
        return 0;
    *out = (uint64_t)x;
    return 1;
}

/* read_launch for a timed launch line (no counters, times or region):
 * 1 when read, 0 when it must be read as JSON, -1 on error. */
static int scan_launch(reader *r, const char *text, size_t len)
{
    td_scan_launch s;
    uint64_t pid, context, id, corr, k, stream, dims[6];
    if (!td_scan_launch_line(text, len, &s) || r->sum->processes == 0 ||
        !whole_upto(s.pid, MAX_PID, &pid) || !whole_upto(s.context, UINT32_MAX, &context) ||
        !whole_upto(s.id, TD_JSON_MAX_UINT64, &id) || !whole_upto(s.corr, UINT32_MAX, &corr) ||
        !whole_upto(s.k, MAX_KERNEL_ID, &k) || !whole_upto(s.stream, TD_JSON_MAX_UINT64, &stream))
        return 0;
    for (int d = 0; d < 3; d++)
        if (!whole_upto(s.grid[d], UINT32_MAX, &dims[d]) ||
            !whole_upto(s.block[d], UINT32_MAX, &dims[3 + d]))
            return 0;
    dev_slot *slot = find_slot(r, pid, context);
    if (!slot)
        return fail_line(r, "a launch before the device record of its context");
    const char *kernel = NULL, *mangled = NULL;
    if (kernel_of(r, pid, k, slot, &kernel, &mangled))
        return -1;
    td_launch *l = td_device_append_launch(&r->res->devices[slot->index], kernel, NULL, r->err);
    if (!l)
        return -1;
    l->mangled = mangled;
    l->id = id;
    l->stream = stream;
    for (int d = 0; d < 3; d++) {
        l->grid[d] = (unsigned)dims[d];
        l->block[d] = (unsigned)dims[3 + d];
    }
    if (remember_corr(r, slot, corr))
        return -1;
    r->sum->launches++;
    return 1;
}

/* read_kernel_time for a kernel_time line: 1, 0 or -1 likewise. */
static int scan_kernel_time(reader *r, const char *text, size_t len)
{
    td_scan_kernel_time s;
    kernel_time t = {0};
    if (!td_scan_kernel_time_line(text, len, &s) || r->sum->processes == 0 ||
        !whole_upto(s.pid, MAX_PID, &t.pid) || !whole_upto(s.context, UINT32_MAX, &t.context) ||
        !whole_upto(s.corr, UINT32_MAX, &t.corr) ||
        !whole_upto(s.start_ns, TD_JSON_MAX_UINT64, &t.start_ns) ||
        !(s.duration_ns <= TD_JSON_MAX_DURATION_NS))
        return 0;
    uint64_t res[4];
    for (int i = 0; s.has_res && i < 4; i++)
        if (!whole_upto(s.res[i], UINT32_MAX, &res[i]))
            return 0;
    if (s.has_res)
        t.resources = (td_launch_resources){(uint32_t)res[0], (uint32_t)res[1], (uint32_t)res[2],
                                            (uint32_t)res[3], 1};
    t.duration_ns = s.duration_ns;
    return add_kernel_time(r, &t) ? -1 : 1;
}

/* ---- lines -------------------------------------------------------------- */

/* A line that does not parse is fatal unless it is the last one and cut
 * short (no newline): that is what a crash mid-write leaves. */
static int read_line(reader *r, const char *text, size_t len, int is_last_unterminated)
{
    int scanned = scan_launch(r, text, len);
    if (!scanned)
        scanned = scan_kernel_time(r, text, len);
    if (scanned)
        return scanned < 0 ? -1 : 0;
    cJSON *obj = NULL;
    td_error why = {{0}};
    if (td_json_parse(text, len, "the line", &obj, &why) == 0 && !cJSON_IsObject(obj))
        snprintf(why.msg, sizeof why.msg, "the line is not an object");
    if (!cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        if (is_last_unterminated && r->sum->processes > 0) {
            r->sum->truncated = 1;
            return 0;
        }
        if (r->sum->processes == 0)
            return td_fail(r->err, "%s is not a topdown spool: line %ld is not a JSON object",
                           r->name, r->line);
        return td_fail(r->err, "spool %s line %ld: not a JSON object (the file is damaged; %s)",
                       r->name, r->line, why.msg);
    }
    snprintf(r->where, sizeof r->where, "spool %s line %ld", r->name, r->line);
    int rc = read_record(r, obj);
    cJSON_Delete(obj);
    return rc;
}

static int is_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

static void reader_free(reader *r)
{
    for (size_t i = 0; i < r->n_slots; i++)
        free(r->slots[i].corr);
    free(r->slots);
    free(r->times);
    for (size_t i = 0; i < r->kernel_ids.count; i++) {
        free(r->kernels[i].name);
        free(r->kernels[i].mangled);
    }
    free(r->kernels);
    td_keyset_free(&r->kernel_ids);
    free(r->values);
    free(r->pending);
}

int td_spool_parse(const char *text, size_t len, const char *name, td_result *res,
                   td_spool_summary *sum, td_error *err)
{
    memset(sum, 0, sizeof *sum);
    reader r = {.name = name, .res = res, .sum = sum, .err = err};
    r.c = (td_jctx){r.where, err};
    td_keyset_init(&r.kernel_ids, sizeof(kernel_key));
    size_t pos = 0;
    int rc = 0;
    while (pos < len && rc == 0) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        r.line++;
        if (!is_blank(text + pos, end - pos))
            rc = read_line(&r, text + pos, end - pos, nl == NULL);
        pos = end + 1;
    }
    if (rc == 0)
        rc = finish(&r);
    reader_free(&r);
    return rc;
}

int td_spool_load(const char *path, td_result *res, td_spool_summary *sum, td_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *probe = fopen(path, "rb");
    if (!probe && errno == ENOENT) {
        memset(sum, 0, sizeof *sum);
        return 0;
    }
    if (probe)
        fclose(probe);
    if (td_read_text_file(path, &text, &len, err))
        return -1;
    int rc = td_spool_parse(text, len, path, res, sum, err);
    free(text);
    return rc;
}

int td_spool_complete(const td_spool_summary *sum)
{
    return sum->processes > 0 && sum->ended >= sum->processes && !sum->truncated;
}

void td_spool_summary_free(td_spool_summary *sum)
{
    free(sum->errors);
    free(sum->warnings);
    sum->errors = sum->warnings = NULL;
}

/* ---- progress ----------------------------------------------------------- */

static void count_line(td_spool_progress *p, const char *text, size_t len)
{
    cJSON *obj = cJSON_ParseWithLength(text, len);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(obj, "type");
    if (cJSON_IsString(type) && strcmp(type->valuestring, "launch") == 0) {
        p->launches++;
        p->profiled += cJSON_HasObjectItem(obj, "counters");
    } else if (cJSON_IsString(type) && strcmp(type->valuestring, "device") == 0) {
        const cJSON *passes = cJSON_GetObjectItemCaseSensitive(obj, "passes");
        if (cJSON_IsNumber(passes) && passes->valueint > p->passes)
            p->passes = passes->valueint;
    }
    cJSON_Delete(obj);
}

int td_spool_progress_update(const char *path, td_spool_progress *p)
{
    enum { CHUNK = 1 << 20 };
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char *buf = malloc(CHUNK);
    if (!buf || fseek(f, p->offset, SEEK_SET) != 0) {
        free(buf);
        fclose(f);
        return -1;
    }
    size_t n = fread(buf, 1, CHUNK, f);
    fclose(f);
    size_t pos = 0;
    for (;;) {
        const char *nl = memchr(buf + pos, '\n', n - pos);
        if (!nl) {
            if (pos == 0 && n == CHUNK)
                pos = n; /* a line longer than a chunk: not ours to count */
            break; /* an unfinished line waits for the next call */
        }
        size_t end = (size_t)(nl - buf);
        count_line(p, buf + pos, end - pos);
        pos = end + 1;
    }
    p->offset += (long)pos;
    free(buf);
    return 0;
}
