/* Reading the collection spool (docs/COLLECTION.md): JSON lines written by
 * the injection library, turned into a td_result. Launch records carry the
 * counters; kernel_time records carry durations measured by CUPTI's
 * activity API and are joined to their launch by correlation id. */
#include "spool.h"

#include "file_text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One device section per (process, context) pair. */
typedef struct dev_slot {
    double pid;
    double context;
    size_t index;        /* into res->devices */
    uint32_t *corr;      /* correlation id of each launch, launch order */
    size_t n_corr, cap_corr;
} dev_slot;

typedef struct kernel_time {
    double pid, context, corr;
    double start_ns, duration_ns;
} kernel_time;

typedef struct reader {
    const char *name;
    long line;
    td_result *res;
    td_spool_summary *sum;
    td_error *err;
    dev_slot *slots;
    size_t n_slots, cap_slots;
    kernel_time *times;
    size_t n_times, cap_times;
} reader;

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

/* ---- fields ------------------------------------------------------------- */

static int get_number(reader *r, const cJSON *obj, const char *key, int required,
                      double *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!item) {
        if (!required)
            return 0;
        return td_fail(r->err, "spool %s line %ld: \"%s\" is missing", r->name,
                       r->line, key);
    }
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return td_fail(r->err, "spool %s line %ld: \"%s\" is not a number", r->name,
                       r->line, key);
    *out = item->valuedouble;
    return 0;
}

static const char *get_string(reader *r, const cJSON *obj, const char *key, int required,
                              int *failed)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsString(item))
        return item->valuestring;
    if (item || required) {
        td_fail(r->err, "spool %s line %ld: \"%s\" is %s", r->name, r->line, key,
                item ? "not a string" : "missing");
        *failed = 1;
    }
    return NULL;
}

static int get_dim3(reader *r, const cJSON *obj, const char *key, unsigned out[3])
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!arr)
        return 0;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != 3)
        return td_fail(r->err, "spool %s line %ld: \"%s\" is not [x, y, z]", r->name,
                       r->line, key);
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetArrayItem(arr, i);
        if (!cJSON_IsNumber(v) || v->valuedouble < 0)
            return td_fail(r->err, "spool %s line %ld: \"%s\" holds a non-count",
                           r->name, r->line, key);
        out[i] = (unsigned)v->valuedouble;
    }
    return 0;
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

static dev_slot *find_slot(reader *r, double pid, double context)
{
    for (size_t i = 0; i < r->n_slots; i++)
        if (r->slots[i].pid == pid && r->slots[i].context == context)
            return &r->slots[i];
    return NULL;
}

static int read_start(reader *r, const cJSON *obj)
{
    int failed = 0;
    const char *format = get_string(r, obj, "format", 1, &failed);
    if (failed)
        return -1;
    if (strcmp(format, TD_SPOOL_FORMAT) != 0)
        return td_fail(r->err,
                       "spool %s is format %s, this topdown reads %s: topdown and "
                       "libtopdown_inject.so come from different builds; rebuild both",
                       r->name, format, TD_SPOOL_FORMAT);
    r->sum->processes++;
    /* How the library collected: the first process's word is kept. */
    const char *mode = get_string(r, obj, "replay_mode", 0, &failed);
    double overhead = 0;
    if (failed || get_number(r, obj, "overhead_pct", 0, &overhead))
        return -1;
    if (mode && !r->res->replay_mode && !(r->res->replay_mode = td_strdup(mode)))
        return td_fail(r->err, "out of memory");
    if (mode && r->res->overhead_pct == 0)
        r->res->overhead_pct = overhead;
    return 0;
}

static int read_device_identity(reader *r, const cJSON *obj, td_device *dev)
{
    int failed = 0;
    double index = 0, sm = 0, passes = 0;
    const char *name = get_string(r, obj, "name", 0, &failed);
    const char *chip = get_string(r, obj, "chip", 0, &failed);
    const char *arch = get_string(r, obj, "arch", 0, &failed);
    if (failed || get_number(r, obj, "device", 1, &index) ||
        get_number(r, obj, "sm_count", 0, &sm) || get_number(r, obj, "passes", 0, &passes))
        return -1;
    const cJSON *cc = cJSON_GetObjectItemCaseSensitive(obj, "cc");
    if (cc && (!cJSON_IsArray(cc) || cJSON_GetArraySize(cc) != 2 ||
               !cJSON_IsNumber(cJSON_GetArrayItem(cc, 0)) ||
               !cJSON_IsNumber(cJSON_GetArrayItem(cc, 1))))
        return fail_line(r, "\"cc\" is not [major, minor]");
    if (cc) {
        dev->cc_major = cJSON_GetArrayItem(cc, 0)->valueint;
        dev->cc_minor = cJSON_GetArrayItem(cc, 1)->valueint;
    }
    dev->index = (int)index;
    dev->sm_count = (int)sm;
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
    const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(obj, "metrics");
    if (!metrics)
        return 0;
    if (!cJSON_IsArray(metrics))
        return fail_line(r, "\"metrics\" is not a list of names");
    size_t n = (size_t)cJSON_GetArraySize(metrics);
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (!names)
        return td_fail(r->err, "out of memory");
    size_t i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, metrics) {
        if (!cJSON_IsString(m)) {
            free(names);
            return fail_line(r, "\"metrics\" holds a non-string");
        }
        names[i++] = m->valuestring;
    }
    int rc = td_device_set_metrics(dev, names, n, r->err);
    free(names);
    return rc;
}

/* "groups": [[metric indices], ...]: the replay-free counter groups. */
static int read_device_groups(reader *r, const cJSON *obj, td_device *dev)
{
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(obj, "groups");
    if (!groups)
        return 0;
    size_t n = cJSON_IsArray(groups) ? (size_t)cJSON_GetArraySize(groups) : 0;
    if (n == 0)
        return fail_line(r, "\"groups\" must be a non-empty list of metric index lists");
    td_counter_group *list = calloc(n, sizeof *list);
    size_t *indices = calloc(n * dev->n_metrics + 1, sizeof *indices);
    int rc = list && indices ? 0 : td_fail(r->err, "out of memory");
    size_t used = 0, g = 0;
    const cJSON *group;
    const cJSON *walked = rc == 0 ? groups : NULL;
    cJSON_ArrayForEach(group, walked) {
        list[g].metrics = indices + used;
        const cJSON *index;
        cJSON_ArrayForEach(index, group) {
            if (!cJSON_IsNumber(index) || index->valuedouble < 0 ||
                index->valuedouble >= (double)dev->n_metrics || list[g].n >= dev->n_metrics) {
                rc = fail_line(r, "a counter group holds a bad metric index");
                break;
            }
            list[g].metrics[list[g].n++] = (size_t)index->valuedouble;
        }
        if (rc == 0 && (!cJSON_IsArray(group) || list[g].n == 0))
            rc = fail_line(r, "a counter group is empty");
        if (rc)
            break;
        used += list[g].n;
        g++;
    }
    if (rc == 0)
        rc = td_device_set_groups(dev, list, n, r->err);
    free(list);
    free(indices);
    return rc;
}

static int read_device(reader *r, const cJSON *obj)
{
    double pid = 0, context = 0;
    if (get_number(r, obj, "pid", 1, &pid) || get_number(r, obj, "context", 1, &context))
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
    if (read_device_identity(r, obj, dev) || read_device_metrics(r, obj, dev) ||
        read_device_groups(r, obj, dev))
        return -1;
    return 0;
}

/* The counters of every metric, or (group >= 0) of the group's metrics in
 * group order, spread into out (n_metrics values, zero elsewhere). */
static int read_counters(reader *r, const cJSON *arr, const td_device *dev, int group,
                         double *out)
{
    size_t n = group == TD_GROUP_ALL ? dev->n_metrics : dev->groups[group].n;
    if (!cJSON_IsArray(arr) || (size_t)cJSON_GetArraySize(arr) != n) {
        char msg[160];
        snprintf(msg, sizeof msg, "\"counters\" must be a list of %zu numbers, one per metric%s",
                 n, group == TD_GROUP_ALL ? "" : " of its group");
        return fail_line(r, msg);
    }
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, arr) {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
            return fail_line(r, "\"counters\" holds a negative or non-numeric value");
        out[group == TD_GROUP_ALL ? i : dev->groups[group].metrics[i]] = v->valuedouble;
        i++;
    }
    return 0;
}

static int read_group(reader *r, const cJSON *obj, const td_device *dev, int *group)
{
    double value = 0;
    *group = TD_GROUP_ALL;
    if (!cJSON_GetObjectItemCaseSensitive(obj, "group"))
        return 0;
    if (get_number(r, obj, "group", 1, &value))
        return -1;
    if (value < 0 || value >= (double)dev->n_groups || value != (double)(size_t)value)
        return fail_line(r, "\"group\" is not one of the device's counter groups");
    *group = (int)value;
    return 0;
}

static int remember_corr(reader *r, dev_slot *slot, double corr)
{
    if (grow((void **)&slot->corr, &slot->cap_corr, slot->n_corr + 1, sizeof *slot->corr))
        return td_fail(r->err, "out of memory");
    slot->corr[slot->n_corr++] = (uint32_t)corr;
    return 0;
}

static int fill_launch(reader *r, const cJSON *obj, td_launch *l)
{
    int failed = 0;
    double id = 0, stream = 0, start = 0, duration = 0;
    const char *mangled = get_string(r, obj, "mangled", 0, &failed);
    if (failed || get_number(r, obj, "id", 1, &id) ||
        get_number(r, obj, "stream", 0, &stream) ||
        get_number(r, obj, "start_ns", 0, &start) ||
        get_number(r, obj, "duration_ns", 0, &duration) ||
        get_dim3(r, obj, "grid", l->grid) || get_dim3(r, obj, "block", l->block))
        return -1;
    if (duration < 0)
        return fail_line(r, "\"duration_ns\" is negative");
    l->id = (uint64_t)id;
    l->stream = (uint64_t)stream;
    l->start_ns = (uint64_t)start;
    l->duration_ns = duration;
    if (mangled && !(l->mangled = td_strdup(mangled)))
        return td_fail(r->err, "out of memory");
    return 0;
}

static int read_launch(reader *r, const cJSON *obj)
{
    double pid = 0, context = 0, corr = 0;
    int failed = 0;
    if (get_number(r, obj, "pid", 1, &pid) || get_number(r, obj, "context", 1, &context) ||
        get_number(r, obj, "corr", 0, &corr))
        return -1;
    const char *kernel = get_string(r, obj, "kernel", 1, &failed);
    if (failed)
        return -1;
    dev_slot *slot = find_slot(r, pid, context);
    if (!slot)
        return fail_line(r, "a launch before the device record of its context");
    td_device *dev = &r->res->devices[slot->index];
    const cJSON *counters = cJSON_GetObjectItemCaseSensitive(obj, "counters");
    double *values = NULL;
    int group = TD_GROUP_ALL;
    if (counters) {
        values = calloc(dev->n_metrics ? dev->n_metrics : 1, sizeof *values);
        if (!values)
            return td_fail(r->err, "out of memory");
        if (read_group(r, obj, dev, &group) || read_counters(r, counters, dev, group, values)) {
            free(values);
            return -1;
        }
    }
    td_launch *l = td_device_add_launch(dev, kernel, values, r->err);
    free(values);
    if (!l || fill_launch(r, obj, l) || remember_corr(r, slot, corr))
        return -1;
    l->group = group;
    r->sum->launches++;
    return 0;
}

static int read_kernel_time(reader *r, const cJSON *obj)
{
    kernel_time t = {0};
    if (get_number(r, obj, "pid", 1, &t.pid) || get_number(r, obj, "context", 1, &t.context) ||
        get_number(r, obj, "corr", 1, &t.corr) ||
        get_number(r, obj, "start_ns", 0, &t.start_ns) ||
        get_number(r, obj, "duration_ns", 1, &t.duration_ns))
        return -1;
    if (t.duration_ns < 0)
        return fail_line(r, "\"duration_ns\" is negative");
    if (grow((void **)&r->times, &r->cap_times, r->n_times + 1, sizeof *r->times))
        return td_fail(r->err, "out of memory");
    r->times[r->n_times++] = t;
    return 0;
}

static int read_message(reader *r, const cJSON *obj, char **list)
{
    int failed = 0;
    const char *msg = get_string(r, obj, "message", 1, &failed);
    if (failed)
        return -1;
    if (add_message(list, msg))
        return td_fail(r->err, "out of memory");
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
    if (strcmp(t, "launch") == 0)
        return read_launch(r, obj);
    if (strcmp(t, "kernel_time") == 0)
        return read_kernel_time(r, obj);
    if (strcmp(t, "error") == 0)
        return read_message(r, obj, &r->sum->errors);
    if (strcmp(t, "warning") == 0)
        return read_message(r, obj, &r->sum->warnings);
    if (strcmp(t, "signal") == 0) {
        double sig = 0;
        if (get_number(r, obj, "signal", 1, &sig))
            return -1;
        r->sum->last_signal = (int)sig;
        return 0;
    }
    if (strcmp(t, "end") == 0) {
        r->sum->ended++;
        return 0;
    }
    return 0; /* a record type of a later version: ignored */
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
        if (l->duration_ns <= 0)
            l->duration_ns = kt->duration_ns;
    }
    free(idx);
    free(timed);
    return 0;
}

static int finish(reader *r)
{
    for (size_t s = 0; s < r->n_slots; s++) {
        if (join_times(r, &r->slots[s]))
            return -1;
        td_device *dev = &r->res->devices[r->slots[s].index];
        qsort(dev->launches, dev->n_launches, sizeof *dev->launches, by_id);
        for (size_t i = 0; i < dev->n_launches; i++) {
            r->sum->profiled += dev->launches[i].profiled != 0;
            r->sum->timed += dev->launches[i].duration_ns > 0;
        }
    }
    return 0;
}

/* ---- lines -------------------------------------------------------------- */

/* A line that does not parse is fatal unless it is the last one and cut
 * short (no newline): that is what a crash mid-write leaves. */
static int read_line(reader *r, const char *text, size_t len, int is_last_unterminated)
{
    cJSON *obj = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        if (is_last_unterminated && r->sum->processes > 0) {
            r->sum->truncated = 1;
            return 0;
        }
        if (r->sum->processes == 0)
            return td_fail(r->err, "%s is not a topdown spool: line %ld is not a JSON object",
                           r->name, r->line);
        return fail_line(r, "not a JSON object (the file is damaged)");
    }
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
}

int td_spool_parse(const char *text, size_t len, const char *name, td_result *res,
                   td_spool_summary *sum, td_error *err)
{
    memset(sum, 0, sizeof *sum);
    reader r = {.name = name, .res = res, .sum = sum, .err = err};
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
