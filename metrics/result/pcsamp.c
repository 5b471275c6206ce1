/* PC samples of a device section: building, merging, the result's
 * "pc_sampling" object and the spool's pcsamp records. */
#include "metrics/result/pcsamp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/strcopy.h"
#include "metrics/result/result.h"
#include "metrics/result/section.h"

#define MAX_PC 9007199254740992.0 /* 2^53: exact in a JSON number */
#define MAX_SAMPLES 9007199254740992.0

typedef struct pc_key {
    uint64_t function, module, pc;
} pc_key;

td_pcsamp *td_pcsamp_new(void)
{
    td_pcsamp *p = calloc(1, sizeof *p);
    if (p)
        td_keyset_init(&p->keys, sizeof(pc_key));
    return p;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

void td_pcsamp_free(td_pcsamp *p)
{
    if (!p)
        return;
    free_names(p->reasons, p->n_reasons);
    free_names(p->functions, p->n_functions);
    free(p->cupti_index);
    free(p->modules);
    for (size_t i = 0; i < p->n_records; i++)
        free(p->records[i].counts);
    free(p->records);
    td_keyset_free(&p->keys);
    free(p->cubin_dir);
    free(p);
}

/* Index of name in names, appended when new. */
static long name_index(char ***names, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*names)[i], name) == 0)
            return (long)i;
    char **bigger = realloc(*names, (*n + 1) * sizeof *bigger);
    if (!bigger)
        return -1;
    *names = bigger;
    if (!(bigger[*n] = td_strdup(name)))
        return -1;
    return (long)(*n)++;
}

long td_pcsamp_reason(td_pcsamp *p, const char *name)
{
    size_t before = p->n_reasons;
    long i = name_index(&p->reasons, &p->n_reasons, name);
    if (i >= 0 && p->n_reasons > before) {
        uint32_t *bigger = realloc(p->cupti_index, p->n_reasons * sizeof *bigger);
        if (!bigger)
            return -1;
        p->cupti_index = bigger;
        bigger[i] = UINT32_MAX;
    }
    return i;
}

long td_pcsamp_function(td_pcsamp *p, const char *name)
{
    return name_index(&p->functions, &p->n_functions, name);
}

long td_pcsamp_module(td_pcsamp *p, uint64_t crc)
{
    for (size_t i = 0; i < p->n_modules; i++)
        if (p->modules[i] == crc)
            return (long)i;
    uint64_t *bigger = realloc(p->modules, (p->n_modules + 1) * sizeof *bigger);
    if (!bigger)
        return -1;
    p->modules = bigger;
    bigger[p->n_modules] = crc;
    return (long)p->n_modules++;
}

static td_pc_record *record_of(td_pcsamp *p, size_t function, size_t module, uint64_t pc)
{
    pc_key key = {function, module, pc};
    int added = 0;
    long i = td_keyset_add(&p->keys, &key, &added);
    if (i < 0)
        return NULL;
    if (added) {
        if (p->n_records == p->cap_records) {
            size_t cap = p->cap_records ? 2 * p->cap_records : 64;
            td_pc_record *bigger = realloc(p->records, cap * sizeof *bigger);
            if (!bigger)
                return NULL;
            p->records = bigger;
            p->cap_records = cap;
        }
        td_pc_record *r = &p->records[p->n_records++];
        memset(r, 0, sizeof *r);
        r->function = function;
        r->module = module;
        r->pc = pc;
    }
    return &p->records[i];
}

int td_pcsamp_add(td_pcsamp *p, size_t function, size_t module, uint64_t pc, size_t reason,
                  uint64_t samples, td_error *err)
{
    if (function >= p->n_functions || module >= p->n_modules || reason >= p->n_reasons)
        return td_fail(err, "a PC sample names a function, module or reason that is not there");
    td_pc_record *r = record_of(p, function, module, pc);
    if (!r)
        return td_fail(err, "out of memory");
    if (reason >= r->n_counts) {
        uint64_t *bigger = realloc(r->counts, p->n_reasons * sizeof *bigger);
        if (!bigger)
            return td_fail(err, "out of memory");
        memset(bigger + r->n_counts, 0, (p->n_reasons - r->n_counts) * sizeof *bigger);
        r->counts = bigger;
        r->n_counts = p->n_reasons;
    }
    r->counts[reason] += samples;
    return 0;
}

int td_pcsamp_short_reason(const char *name, char *buf, size_t size)
{
    size_t plen = strlen(TD_PCSAMP_PREFIX);
    if (strncmp(name, TD_PCSAMP_PREFIX, plen) == 0)
        name += plen;
    size_t len = strlen(name), slen = strlen(TD_PCSAMP_SUBSET_SUFFIX);
    if (len >= size)
        return -1;
    memcpy(buf, name, len + 1);
    return !(len > slen && strcmp(name + len - slen, TD_PCSAMP_SUBSET_SUFFIX) == 0);
}

void td_pcsamp_cubin_name(uint64_t crc, char *buf, size_t size)
{
    snprintf(buf, size, "%016" PRIx64 ".cubin", crc);
}

int td_pcsamp_merge(td_pcsamp *dst, const td_pcsamp *src, td_error *err)
{
    if (!dst->period)
        dst->period = src->period;
    dst->total_samples += src->total_samples;
    dst->dropped_samples += src->dropped_samples;
    if (!dst->cubin_dir && src->cubin_dir && !(dst->cubin_dir = td_strdup(src->cubin_dir)))
        return td_fail(err, "out of memory");
    for (size_t i = 0; i < src->n_records; i++) {
        const td_pc_record *r = &src->records[i];
        long f = td_pcsamp_function(dst, src->functions[r->function]);
        long m = td_pcsamp_module(dst, src->modules[r->module]);
        if (f < 0 || m < 0)
            return td_fail(err, "out of memory");
        for (size_t k = 0; k < r->n_counts; k++) {
            if (!r->counts[k])
                continue;
            long reason = td_pcsamp_reason(dst, src->reasons[k]);
            if (reason < 0 || td_pcsamp_add(dst, (size_t)f, (size_t)m, r->pc, (size_t)reason,
                                            r->counts[k], err))
                return reason < 0 ? td_fail(err, "out of memory") : -1;
        }
    }
    return 0;
}

/* ---- the result's object -------------------------------------------------- */

static int attach(cJSON *to, const char *key, cJSON *item)
{
    if (!item)
        return -1;
    if (key)
        cJSON_AddItemToObject(to, key, item);
    else
        cJSON_AddItemToArray(to, item);
    return 0;
}

static cJSON *names_json(char *const *names, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++)
        if (attach(arr, NULL, cJSON_CreateString(names[i]))) {
            cJSON_Delete(arr);
            return NULL;
        }
    return arr;
}

static cJSON *modules_json(const td_pcsamp *p)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < p->n_modules; i++) {
        char hex[17];
        snprintf(hex, sizeof hex, "%016" PRIx64, p->modules[i]);
        if (attach(arr, NULL, cJSON_CreateString(hex))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* [function, module, pc, reason, samples, reason, samples, ...] */
static cJSON *row_json(const td_pc_record *r)
{
    cJSON *row = cJSON_CreateArray();
    int bad = !row || attach(row, NULL, td_json_exact_number((double)r->function)) ||
              attach(row, NULL, td_json_exact_number((double)r->module)) ||
              attach(row, NULL, td_json_exact_number((double)r->pc));
    for (size_t k = 0; !bad && k < r->n_counts; k++)
        if (r->counts[k])
            bad = attach(row, NULL, td_json_exact_number((double)k)) ||
                  attach(row, NULL, td_json_exact_number((double)r->counts[k]));
    if (bad) {
        cJSON_Delete(row);
        return NULL;
    }
    return row;
}

cJSON *td_pcsamp_json(const td_pcsamp *p)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON *pcs = cJSON_CreateArray();
    int bad = !obj || !pcs;
    if (!bad && p->period)
        bad = attach(obj, "period", cJSON_CreateNumber(p->period));
    bad = bad || attach(obj, "total_samples", td_json_exact_number((double)p->total_samples)) ||
          attach(obj, "dropped_samples", td_json_exact_number((double)p->dropped_samples)) ||
          attach(obj, "reasons", names_json(p->reasons, p->n_reasons)) ||
          attach(obj, "functions", names_json(p->functions, p->n_functions)) ||
          attach(obj, "modules", modules_json(p));
    if (!bad && p->cubin_dir)
        bad = attach(obj, "cubin_dir", cJSON_CreateString(p->cubin_dir));
    for (size_t i = 0; !bad && i < p->n_records; i++)
        bad = attach(pcs, NULL, row_json(&p->records[i]));
    if (!bad) {
        cJSON_AddItemToObject(obj, "pcs", pcs);
        return obj;
    }
    cJSON_Delete(pcs);
    cJSON_Delete(obj);
    return NULL;
}

/* ---- reading ---------------------------------------------------------------- */

static int read_names(const cJSON *obj, const char *key, td_pcsamp *p,
                      long (*add)(td_pcsamp *, const char *), const td_jctx *c)
{
    const cJSON *arr, *item;
    size_t n;
    if (td_json_array(c, obj, key, 1, &arr, &n))
        return -1;
    size_t i = 0;
    cJSON_ArrayForEach(item, arr) {
        if (!cJSON_IsString(item) || !item->valuestring[0])
            return td_fail(c->err, "%s: \"%s\"[%zu] is not a non-empty string", c->where, key, i);
        size_t before = strcmp(key, "reasons") == 0 ? p->n_reasons : p->n_functions;
        if (add(p, item->valuestring) < 0)
            return td_fail(c->err, "out of memory");
        size_t after = strcmp(key, "reasons") == 0 ? p->n_reasons : p->n_functions;
        if (after == before)
            return td_fail(c->err, "%s: \"%s\" names \"%s\" twice", c->where, key,
                           item->valuestring);
        i++;
    }
    return 0;
}

static int parse_crc(const char *text, uint64_t *out)
{
    size_t len = strlen(text);
    if (len == 0 || len > 16 || strspn(text, "0123456789abcdefABCDEF") != len)
        return -1;
    *out = strtoull(text, NULL, 16);
    return 0;
}

static int read_modules(const cJSON *obj, td_pcsamp *p, const td_jctx *c)
{
    const cJSON *arr, *item;
    size_t n, i = 0;
    if (td_json_array(c, obj, "modules", 1, &arr, &n))
        return -1;
    cJSON_ArrayForEach(item, arr) {
        uint64_t crc = 0;
        if (!cJSON_IsString(item) || parse_crc(item->valuestring, &crc))
            return td_fail(c->err, "%s: \"modules\"[%zu] is not a cubin CRC (1 to 16 hex "
                           "digits)", c->where, i);
        size_t before = p->n_modules;
        if (td_pcsamp_module(p, crc) < 0)
            return td_fail(c->err, "out of memory");
        if (p->n_modules == before)
            return td_fail(c->err, "%s: \"modules\" names %s twice", c->where, item->valuestring);
        i++;
    }
    return 0;
}

/* Reads element i of a row as an integer in [0, max]. */
static int row_uint(const td_jctx *c, const cJSON *v, long row, double max, uint64_t *out)
{
    return td_json_uint_value(c, v, "\"pcs\" row", row, max, out);
}

static int read_row(const cJSON *row, long index, td_pcsamp *p, const td_jctx *c)
{
    if (!cJSON_IsArray(row))
        return td_fail(c->err, "%s: \"pcs\"[%ld] is not an array", c->where, index);
    int n = cJSON_GetArraySize(row);
    if (n < 3 || (n - 3) % 2)
        return td_fail(c->err, "%s: \"pcs\"[%ld] is not [function, module, pc, reason, "
                       "samples, ...]", c->where, index);
    const cJSON *v = row->child;
    uint64_t f, m, pc;
    if (row_uint(c, v, index, (double)p->n_functions - 1, &f) ||
        row_uint(c, v->next, index, (double)p->n_modules - 1, &m) ||
        row_uint(c, v->next->next, index, MAX_PC, &pc))
        return -1;
    for (v = v->next->next->next; v; v = v->next->next) {
        uint64_t reason, samples;
        if (row_uint(c, v, index, (double)p->n_reasons - 1, &reason) ||
            row_uint(c, v->next, index, MAX_SAMPLES, &samples) ||
            td_pcsamp_add(p, f, m, pc, reason, samples, c->err))
            return -1;
    }
    return 0;
}

static int read_object(const cJSON *obj, td_pcsamp *p, const td_jctx *c)
{
    long period = 0;
    uint64_t total = 0, dropped = 0;
    const cJSON *pcs, *row;
    size_t n;
    if (!cJSON_IsObject(obj))
        return td_fail(c->err, "%s: \"pc_sampling\" is not an object", c->where);
    if (td_json_int(c, obj, "period", 0, 0, TD_PCSAMP_PERIOD_MAX, &period) ||
        td_json_uint(c, obj, "total_samples", 0, MAX_SAMPLES, &total) ||
        td_json_uint(c, obj, "dropped_samples", 0, MAX_SAMPLES, &dropped) ||
        read_names(obj, "reasons", p, td_pcsamp_reason, c) ||
        read_names(obj, "functions", p, td_pcsamp_function, c) || read_modules(obj, p, c) ||
        td_json_string_dup(c, obj, "cubin_dir", 0, &p->cubin_dir) ||
        td_json_array(c, obj, "pcs", 1, &pcs, &n))
        return -1;
    p->period = (int)period;
    p->total_samples = total;
    p->dropped_samples = dropped;
    long i = 0;
    cJSON_ArrayForEach(row, pcs) {
        if (read_row(row, i++, p, c))
            return -1;
    }
    return 0;
}

int td_pcsamp_read(const cJSON *dev_obj, td_pcsamp **out, const td_jctx *c)
{
    *out = NULL;
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(dev_obj, "pc_sampling");
    if (!obj || cJSON_IsNull(obj))
        return 0;
    td_pcsamp *p = td_pcsamp_new();
    if (!p)
        return td_fail(c->err, "out of memory");
    if (read_object(obj, p, c)) {
        td_pcsamp_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

/* ---- spool records ----------------------------------------------------------- */

int td_pcsamp_read_pcsamp_config_record(const cJSON *rec, td_pcsamp *p,
                                        const td_jctx *c)
{
    long period = 0;
    const cJSON *reasons, *pair;
    size_t n;
    if (td_json_int(c, rec, "period", 0, 0, TD_PCSAMP_PERIOD_MAX, &period) ||
        td_json_string_dup(c, rec, "cubin_dir", 0, &p->cubin_dir) ||
        td_json_array(c, rec, "reasons", 1, &reasons, &n))
        return -1;
    if (period)
        p->period = (int)period;
    long i = 0;
    cJSON_ArrayForEach(pair, reasons) {
        uint64_t index;
        const cJSON *name = cJSON_IsArray(pair) ? cJSON_GetArrayItem(pair, 1) : NULL;
        if (cJSON_GetArraySize(pair) != 2 || !cJSON_IsString(name) || !name->valuestring[0])
            return td_fail(c->err, "%s: \"reasons\"[%ld] is not [index, name]", c->where, i);
        if (td_json_uint_value(c, pair->child, "\"reasons\" index", i, UINT32_MAX, &index))
            return -1;
        long r = td_pcsamp_reason(p, name->valuestring);
        if (r < 0)
            return td_fail(c->err, "out of memory");
        p->cupti_index[r] = (uint32_t)index;
        i++;
    }
    return 0;
}

static long reason_of_cupti(const td_pcsamp *p, uint64_t index)
{
    for (size_t i = 0; i < p->n_reasons; i++)
        if (p->cupti_index[i] == index)
            return (long)i;
    return -1;
}

/* [function name, crc hex, pc, cupti reason index, samples, ...] */
static int read_spool_row(const cJSON *row, long index, td_pcsamp *p, const td_jctx *c)
{
    int n = cJSON_IsArray(row) ? cJSON_GetArraySize(row) : 0;
    const cJSON *fn = n ? row->child : NULL;
    const cJSON *crc_text = fn ? fn->next : NULL;
    uint64_t crc = 0, pc = 0;
    if (n < 3 || (n - 3) % 2 || !cJSON_IsString(fn) || !fn->valuestring[0] ||
        !cJSON_IsString(crc_text) || parse_crc(crc_text->valuestring, &crc))
        return td_fail(c->err, "%s: \"pcs\"[%ld] is not [function, crc, pc, reason, samples, "
                       "...]", c->where, index);
    if (row_uint(c, crc_text->next, index, MAX_PC, &pc))
        return -1;
    long f = td_pcsamp_function(p, fn->valuestring), m = td_pcsamp_module(p, crc);
    if (f < 0 || m < 0)
        return td_fail(c->err, "out of memory");
    for (const cJSON *v = crc_text->next->next; v; v = v->next->next) {
        uint64_t cupti, samples;
        if (row_uint(c, v, index, UINT32_MAX, &cupti) ||
            row_uint(c, v->next, index, MAX_SAMPLES, &samples))
            return -1;
        long reason = reason_of_cupti(p, cupti);
        if (reason < 0)
            return td_fail(c->err, "%s: \"pcs\"[%ld] has stall reason %" PRIu64 ", which no "
                           "pcsamp_config record of its context names", c->where, index, cupti);
        if (td_pcsamp_add(p, (size_t)f, (size_t)m, pc, (size_t)reason, samples, c->err))
            return -1;
    }
    return 0;
}

int td_pcsamp_read_pcsamp_record(const cJSON *rec, td_pcsamp *p, const td_jctx *c)
{
    uint64_t total = 0, dropped = 0;
    const cJSON *pcs, *row;
    size_t n;
    if (td_json_uint(c, rec, "total", 0, MAX_SAMPLES, &total) ||
        td_json_uint(c, rec, "dropped", 0, MAX_SAMPLES, &dropped) ||
        td_json_array(c, rec, "pcs", 1, &pcs, &n))
        return -1;
    p->total_samples += total;
    p->dropped_samples += dropped;
    long i = 0;
    cJSON_ArrayForEach(row, pcs) {
        if (read_spool_row(row, i++, p, c))
            return -1;
    }
    return 0;
}

/* ---- its section of the result (section.h) ---------------------------------- */

static int read_section(const cJSON *dev_obj, td_device *dev, const td_jctx *c)
{
    return td_pcsamp_read(dev_obj, &dev->pcsamp, c);
}

static int write_section(cJSON *dev_obj, const td_device *dev)
{
    if (!dev->pcsamp)
        return 0;
    cJSON *item = td_pcsamp_json(dev->pcsamp);
    if (item && cJSON_AddItemToObject(dev_obj, "pc_sampling", item))
        return 0;
    cJSON_Delete(item);
    return -1;
}

static void free_section(td_device *dev)
{
    td_pcsamp_free(dev->pcsamp);
}

const td_section td_pcsamp_section = {
    .key = "pc_sampling",
    .read_device = read_section,
    .write_device = write_section,
    .free_device = free_section,
};
