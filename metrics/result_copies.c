/* The copies of a device section (memcpy, memset, peer copies from CUPTI's
 * activity API): building them, their names, and their place in a
 * "topdown-result/2" file, a "copies" object of columns like "launches"
 * (docs/RESULT_FORMAT.md). A section without copies has no "copies". */
#include "result_io.h"

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

int td_result_check_copies(const td_device *dev, size_t d, td_error *err)
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

/* ---- writing --------------------------------------------------------------- */

typedef double (*copy_field)(const td_copy *c);
static double f_kind(const td_copy *c) { return c->kind; }
static double f_direction(const td_copy *c) { return c->direction; }
static double f_bytes(const td_copy *c) { return (double)c->bytes; }
static double f_start(const td_copy *c) { return (double)c->start_ns; }
static double f_duration(const td_copy *c) { return c->duration_ns; }
static double f_stream(const td_copy *c) { return (double)c->stream; }
static double f_src(const td_copy *c) { return c->src_device; }
static double f_dst(const td_copy *c) { return c->dst_device; }
static double f_corr(const td_copy *c) { return c->corr; }

static const struct column {
    const char *key;
    copy_field get;
} columns[] = {
    {"kind", f_kind},       {"direction", f_direction},   {"bytes", f_bytes},
    {"start_ns", f_start},  {"duration_ns", f_duration},  {"stream", f_stream},
    {"src_device", f_src},  {"dst_device", f_dst},        {"corr", f_corr},
};
enum { N_COLUMNS = sizeof columns / sizeof *columns };

static int add_column(cJSON *obj, const td_device *dev, const struct column *col,
                      double *scratch)
{
    for (size_t i = 0; i < dev->n_copies; i++)
        scratch[i] = col->get(&dev->copies[i]);
    cJSON *arr = td_json_exact_numbers(scratch, dev->n_copies);
    if (arr && cJSON_AddItemToObject(obj, col->key, arr))
        return 0;
    cJSON_Delete(arr);
    return -1;
}

int td_result_write_copies(cJSON *dev_obj, const td_device *dev)
{
    if (dev->n_copies == 0)
        return 0;
    cJSON *obj = cJSON_AddObjectToObject(dev_obj, "copies");
    double *scratch = malloc(dev->n_copies * sizeof *scratch);
    int rc = obj && scratch &&
                     cJSON_AddItemToObject(obj, "count",
                                           td_json_exact_number((double)dev->n_copies))
                 ? 0
                 : -1;
    for (size_t k = 0; rc == 0 && k < N_COLUMNS; k++)
        rc = add_column(obj, dev, &columns[k], scratch);
    free(scratch);
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

/* One value of column k into copy i, range-checked. */
static int read_value(const cJSON *v, size_t k, size_t i, td_copy *copy, const td_jctx *c)
{
    char what[64];
    snprintf(what, sizeof what, "\"copies\" \"%s\"", columns[k].key);
    uint64_t u = 0;
    long s = 0;
    switch (k) {
    case 0: /* kind */
        if (td_json_uint_value(c, v, what, (long)i, TD_COPY_KINDS - 1, &u))
            return -1;
        copy->kind = (uint8_t)u;
        return 0;
    case 1: /* direction */
        if (td_json_uint_value(c, v, what, (long)i, TD_COPY_DIRECTIONS - 1, &u))
            return -1;
        copy->direction = (uint8_t)u;
        return 0;
    case 4:
        return td_json_amount_value(c, v, what, (long)i, TD_JSON_MAX_DURATION_NS,
                                    &copy->duration_ns);
    case 6:
    case 7: /* src_device, dst_device */
        if (td_json_int_value(c, v, what, (long)i, -1, INT32_MAX, &s))
            return -1;
        *(k == 6 ? &copy->src_device : &copy->dst_device) = (int32_t)s;
        return 0;
    case 8: /* corr */
        if (td_json_uint_value(c, v, what, (long)i, UINT32_MAX, &u))
            return -1;
        copy->corr = (uint32_t)u;
        return 0;
    default: /* bytes, start_ns, stream */
        if (td_json_uint_value(c, v, what, (long)i, TD_JSON_MAX_UINT64, &u))
            return -1;
        *(k == 2 ? &copy->bytes : k == 3 ? &copy->start_ns : &copy->stream) = u;
        return 0;
    }
}

int td_result_read_copies(const cJSON *dev_obj, td_device *dev, const td_jctx *c)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(dev_obj, "copies");
    if (!obj)
        return 0; /* older files, and sections without copies */
    if (!cJSON_IsObject(obj))
        return td_fail(c->err, "%s: \"copies\" must be an object", c->where);
    uint64_t count;
    const cJSON *cols[N_COLUMNS];
    /* Every column is checked against the count before anything is
     * allocated for it: a file cannot ask for more copies than it holds. */
    if (td_json_uint(c, obj, "count", 1, MAX_COPIES, &count))
        return -1;
    for (size_t k = 0; k < N_COLUMNS; k++)
        if (copy_column(obj, columns[k].key, (size_t)count, &cols[k], c))
            return -1;
    if (td_device_reserve_copies(dev, (size_t)count, c->err))
        return -1;
    if (count)
        memset(dev->copies, 0, (size_t)count * sizeof *dev->copies);
    for (size_t k = 0; k < N_COLUMNS; k++) {
        size_t i = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, cols[k]) {
            if (read_value(v, k, i, &dev->copies[i], c))
                return -1;
            i++;
        }
    }
    dev->n_copies = (size_t)count;
    return 0;
}
