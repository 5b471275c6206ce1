/* The copies of a device section (memcpy, memset, peer copies from CUPTI's
 * activity API): building them, their names, and their place in a
 * "topdown-result/2" file, a "copies" object of columns like "launches"
 * (docs/RESULT_FORMAT.md). A section without copies has no "copies". */
#include "metrics/intern.h"
#include "metrics/json_field.h"
#include "metrics/result/result.h"
#include "metrics/result/section.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COPIES 4e9 /* per device section, as launches */

static const char *const kind_names[TD_COPY_KINDS] = {"memcpy", "memset", "peer"};

/* CUpti_ActivityMemcpyKind's order. */
static const char *const direction_names[TD_COPY_DIRECTIONS] = {
    "unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};

const char *td_copy_kind_name(unsigned kind)
{
    return kind < TD_COPY_KINDS ? kind_names[kind] : "?";
}

const char *td_copy_direction_name(unsigned direction)
{
    return direction < TD_COPY_DIRECTIONS ? direction_names[direction] : "?";
}

/* ---- building ------------------------------------------------------------ */

static int reserve_copies(td_device *dev, size_t need, td_error *err)
{
    if (need <= dev->cap_copies)
        return 0;
    size_t cap = dev->cap_copies ? dev->cap_copies * 2 : 64;
    if (cap < need)
        cap = need;
    td_copy *bigger = realloc(dev->copies, cap * sizeof *bigger);
    if (!bigger)
        return td_fail(err, "out of memory");
    dev->copies = bigger;
    dev->cap_copies = cap;
    return 0;
}

int td_device_reserve_copies(td_device *dev, size_t n, td_error *err)
{
    return reserve_copies(dev, dev->n_copies + n, err);
}

int td_device_add_copy(td_device *dev, const td_copy *copy, td_error *err)
{
    if (reserve_copies(dev, dev->n_copies + 1, err))
        return -1;
    dev->copies[dev->n_copies++] = *copy;
    return 0;
}

/* ---- checking (what the reader refuses, refused before writing) ---------- */

static int check_copies(const td_device *dev, size_t d, td_error *err)
{
    for (size_t i = 0; i < dev->n_copies; i++) {
        const td_copy *c = &dev->copies[i];
        if (c->kind >= TD_COPY_KINDS || c->direction >= TD_COPY_DIRECTIONS ||
            c->src_device < -1 || c->dst_device < -1)
            return td_fail(err, "device section %zu, copy %zu: kind, direction or device out of range",
                           d, i);
        if (!isfinite(c->duration_ns) || c->duration_ns < 0 ||
            c->duration_ns > TD_JSON_MAX_DURATION_NS)
            return td_fail(err, "device section %zu, copy %zu: duration_ns %g is not a duration",
                           d, i, c->duration_ns);
        if ((double)c->start_ns > TD_JSON_MAX_UINT64 || (double)c->bytes > TD_JSON_MAX_UINT64 ||
            (double)c->stream > TD_JSON_MAX_UINT64)
            return td_fail(err, "device section %zu, copy %zu: a value beyond 2^64 - 2048", d, i);
    }
    return 0;
}

/* ---- writing ---------------------------------------------------------------
 * A loop copies the same buffers again and again: what a copy moves (kind,
 * direction, bytes, stream, devices) is stored once per section as a
 * configuration, and each copy is three numbers (configuration, start,
 * duration), as launches are. */

typedef struct copy_key {
    uint64_t bytes, stream;
    int32_t src_device, dst_device;
    uint32_t kind, direction;
} copy_key;

static copy_key key_of(const td_copy *c)
{
    copy_key k;
    memset(&k, 0, sizeof k); /* compared byte for byte */
    k.bytes = c->bytes;
    k.stream = c->stream;
    k.src_device = c->src_device;
    k.dst_device = c->dst_device;
    k.kind = c->kind;
    k.direction = c->direction;
    return k;
}

static int attach(cJSON *obj, const char *key, cJSON *item)
{
    if (item && cJSON_AddItemToObject(obj, key, item))
        return 0;
    cJSON_Delete(item);
    return -1;
}

static cJSON *configs_json(const td_keyset *configs)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < configs->count; i++) {
        const copy_key *k = td_keyset_key(configs, i);
        double row[6] = {k->kind, k->direction, (double)k->bytes, (double)k->stream,
                         k->src_device, k->dst_device};
        cJSON *item = td_json_exact_numbers(row, 6);
        if (!item || !cJSON_AddItemToArray(arr, item)) {
            cJSON_Delete(item);
            cJSON_Delete(arr);
            arr = NULL;
        }
    }
    return arr;
}

/* The columns: configuration, start, duration of each copy. */
static int add_columns(cJSON *obj, const td_device *dev, td_keyset *configs, double *scratch)
{
    for (size_t i = 0; i < dev->n_copies; i++) {
        copy_key k = key_of(&dev->copies[i]);
        int added;
        long c = td_keyset_add(configs, &k, &added);
        if (c < 0)
            return -1;
        scratch[i] = (double)c;
    }
    if (attach(obj, "configs", configs_json(configs)) ||
        attach(obj, "config", td_json_exact_numbers(scratch, dev->n_copies)))
        return -1;
    for (size_t i = 0; i < dev->n_copies; i++)
        scratch[i] = (double)dev->copies[i].start_ns;
    if (attach(obj, "start_ns", td_json_exact_numbers(scratch, dev->n_copies)))
        return -1;
    for (size_t i = 0; i < dev->n_copies; i++)
        scratch[i] = dev->copies[i].duration_ns;
    return attach(obj, "duration_ns", td_json_exact_numbers(scratch, dev->n_copies));
}

static int write_copies(cJSON *dev_obj, const td_device *dev)
{
    if (dev->n_copies == 0)
        return 0;
    td_keyset configs;
    td_keyset_init(&configs, sizeof(copy_key));
    cJSON *obj = cJSON_AddObjectToObject(dev_obj, "copies");
    double *scratch = malloc(dev->n_copies * sizeof *scratch);
    int rc = obj && scratch && attach(obj, "count", td_json_exact_number((double)dev->n_copies)) == 0
                 ? add_columns(obj, dev, &configs, scratch)
                 : -1;
    free(scratch);
    td_keyset_free(&configs);
    return rc;
}

/* ---- reading ----------------------------------------------------------------- */

static int copy_column(const cJSON *obj, const char *key, size_t n, const cJSON **out,
                       const td_jctx *c)
{
    size_t len;
    if (td_json_array(c, obj, key, 1, out, &len))
        return -1;
    if (len != n)
        return td_fail(c->err, "%s: \"copies\" \"%s\" holds %zu values for %zu copies", c->where,
                       key, len, n);
    return 0;
}

/* [kind, direction, bytes, stream, src device, dst device] */
static int read_config(const cJSON *row, size_t i, td_copy *out, const td_jctx *c)
{
    if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != 6)
        return td_fail(c->err, "%s: \"copies\" \"configs\"[%zu] must be [kind, direction, bytes, "
                       "stream, src device, dst device]", c->where, i);
    const char *what = "\"copies\" \"configs\" value";
    const cJSON *v = row->child;
    uint64_t kind, direction;
    long src, dst;
    memset(out, 0, sizeof *out);
    if (td_json_uint_value(c, v, what, (long)i, TD_COPY_KINDS - 1, &kind) ||
        td_json_uint_value(c, v->next, what, (long)i, TD_COPY_DIRECTIONS - 1, &direction) ||
        td_json_uint_value(c, v->next->next, what, (long)i, TD_JSON_MAX_UINT64, &out->bytes) ||
        td_json_uint_value(c, v->next->next->next, what, (long)i, TD_JSON_MAX_UINT64,
                           &out->stream) ||
        td_json_int_value(c, v->next->next->next->next, what, (long)i, -1, INT32_MAX, &src) ||
        td_json_int_value(c, v->next->next->next->next->next, what, (long)i, -1, INT32_MAX,
                          &dst))
        return -1;
    out->kind = (uint8_t)kind;
    out->direction = (uint8_t)direction;
    out->src_device = (int32_t)src;
    out->dst_device = (int32_t)dst;
    return 0;
}

static int read_configs(const cJSON *obj, td_copy **out, size_t *n, const td_jctx *c)
{
    const cJSON *arr, *row;
    if (td_json_array(c, obj, "configs", 1, &arr, n))
        return -1;
    *out = calloc(*n ? *n : 1, sizeof **out);
    if (!*out)
        return td_fail(c->err, "out of memory");
    size_t i = 0;
    cJSON_ArrayForEach(row, arr) {
        if (read_config(row, i, &(*out)[i], c))
            return -1;
        i++;
    }
    return 0;
}

/* The columns, their lengths checked: each copy from its configuration. */
static int read_columns(const cJSON *config, const cJSON *start, const cJSON *duration,
                        const td_copy *configs, size_t n_configs, td_device *dev,
                        const td_jctx *c)
{
    const cJSON *k = config->child, *s = start->child, *d = duration->child;
    for (size_t i = 0; i < dev->n_copies; i++) {
        uint64_t which;
        td_copy *copy = &dev->copies[i];
        if (td_json_uint_value(c, k, "\"copies\" \"config\"", (long)i, (double)n_configs - 1,
                               &which))
            return -1;
        *copy = configs[which];
        if (td_json_uint_value(c, s, "\"copies\" \"start_ns\"", (long)i, TD_JSON_MAX_UINT64,
                               &copy->start_ns) ||
            td_json_amount_value(c, d, "\"copies\" \"duration_ns\"", (long)i,
                                 TD_JSON_MAX_DURATION_NS, &copy->duration_ns))
            return -1;
        k = k->next;
        s = s->next;
        d = d->next;
    }
    return 0;
}

static int read_copies(const cJSON *dev_obj, td_device *dev, const td_jctx *c)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(dev_obj, "copies");
    if (!obj)
        return 0; /* older files, and sections without copies */
    if (!cJSON_IsObject(obj))
        return td_fail(c->err, "%s: \"copies\" must be an object", c->where);
    uint64_t count;
    const cJSON *config, *start, *duration;
    /* The columns are checked against the count before anything is
     * allocated for it: a file cannot ask for more copies than it holds. */
    if (td_json_uint(c, obj, "count", 1, MAX_COPIES, &count) ||
        copy_column(obj, "config", (size_t)count, &config, c) ||
        copy_column(obj, "start_ns", (size_t)count, &start, c) ||
        copy_column(obj, "duration_ns", (size_t)count, &duration, c))
        return -1;
    td_copy *configs = NULL;
    size_t n_configs = 0;
    int rc = read_configs(obj, &configs, &n_configs, c) ||
             td_device_reserve_copies(dev, (size_t)count, c->err);
    if (rc == 0) {
        dev->n_copies = (size_t)count;
        rc = read_columns(config, start, duration, configs, n_configs, dev, c);
        if (rc)
            dev->n_copies = 0;
    }
    free(configs);
    return rc ? -1 : 0;
}

static void free_copies(td_device *dev)
{
    free(dev->copies);
}

const td_section td_copies_section = {
    .key = "copies",
    .read_device = read_copies,
    .check_device = check_copies,
    .write_device = write_copies,
    .free_device = free_copies,
};
