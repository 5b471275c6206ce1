#include "metrics/arch/sm_limits.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/json_field.h"

/* A row's fields: key, where it goes, the smallest value allowed (0 only
 * where none may be: the reserved shared memory before Ampere), whether
 * it may be left out (0 then). */
typedef struct limit_field {
    const char *key;
    size_t offset;
    unsigned min;
    int optional;
} limit_field;

#define FIELD(key, member, min) {key, offsetof(td_sm_limits, member), min, 0}
static const limit_field fields[] = {
    FIELD("max_warps_per_sm", max_warps, 1),
    FIELD("max_blocks_per_sm", max_blocks, 1),
    FIELD("registers_per_sm", registers, 1),
    FIELD("max_registers_per_block", max_registers_block, 1),
    FIELD("max_registers_per_thread", max_registers_thread, 1),
    FIELD("register_allocation_unit", register_unit, 1),
    FIELD("sub_partitions", sub_partitions, 1),
    FIELD("shared_per_sm", shared, 1),
    FIELD("max_shared_per_block", max_shared_block, 1),
    FIELD("shared_allocation_unit", shared_unit, 1),
    FIELD("shared_reserved_per_block", shared_reserved, 0),
    {"family_sub_partitions", offsetof(td_sm_limits, family_sub_partitions), 1, 1},
};
#define N_FIELDS (sizeof fields / sizeof fields[0])
#define MAX_LIMIT 1e9 /* no SM figure comes near: 64 Ki registers, 228 KiB */

static int parse_cc(const char *text, int *major, int *minor)
{
    char tail;
    return sscanf(text, "%d.%d%c", major, minor, &tail) == 2 && *major >= 0 && *minor >= 0;
}

static int cc_listed(const char *cc, char *const *ccs, size_t n_ccs)
{
    for (size_t i = 0; i < n_ccs; i++)
        if (strcmp(ccs[i], cc) == 0)
            return 1;
    return 0;
}

static int parse_row(const cJSON *row, size_t r, char *const *ccs, size_t n_ccs,
                     td_sm_limits *out, const char *path, td_error *err)
{
    char where[600];
    snprintf(where, sizeof where, "%s: \"occupancy\" row %zu", path, r);
    td_jctx c = {where, err};
    const char *cc = NULL;
    if (!cJSON_IsObject(row))
        return td_fail(err, "%s must be an object", where);
    if (td_json_string(&c, row, "cc", 1, &cc))
        return -1;
    if (!parse_cc(cc, &out->cc_major, &out->cc_minor) || !cc_listed(cc, ccs, n_ccs))
        return td_fail(err, "%s: \"cc\" %s is not one of the table's compute_capabilities",
                       where, cc);
    for (size_t f = 0; f < N_FIELDS; f++) {
        uint64_t v = 0;
        if (td_json_uint(&c, row, fields[f].key, !fields[f].optional, MAX_LIMIT, &v))
            return -1;
        if (v < fields[f].min && !(fields[f].optional && !cJSON_HasObjectItem(row, fields[f].key)))
            return td_fail(err, "%s: \"%s\" must be at least %u", where, fields[f].key,
                           fields[f].min);
        *(unsigned *)((char *)out + fields[f].offset) = (unsigned)v;
    }
    return 0;
}

int td_sm_limits_parse(const cJSON *occupancy, char *const *ccs, size_t n_ccs,
                       td_sm_limits **out, size_t *n, const char *path, td_error *err)
{
    *out = NULL;
    *n = 0;
    if (!occupancy)
        return 0;
    td_jctx c = {path, err};
    const char *source = NULL;
    const cJSON *rows;
    size_t n_rows;
    if (!cJSON_IsObject(occupancy))
        return td_fail(err, "%s: \"occupancy\" must be an object with \"source\" and \"limits\"",
                       path);
    if (td_json_string(&c, occupancy, "source", 1, &source) ||
        td_json_array(&c, occupancy, "limits", 1, &rows, &n_rows))
        return -1;
    if (!source[0])
        return td_fail(err, "%s: \"occupancy\" needs its \"source\": where its figures come from",
                       path);
    *out = calloc(n_rows ? n_rows : 1, sizeof **out);
    if (!*out)
        return td_fail(err, "out of memory");
    const cJSON *row;
    cJSON_ArrayForEach(row, rows) {
        td_sm_limits *l = &(*out)[*n];
        if (parse_row(row, *n, ccs, n_ccs, l, path, err))
            return -1;
        if (td_sm_limits_find(*out, *n, l->cc_major, l->cc_minor))
            return td_fail(err, "%s: \"occupancy\" lists cc %d.%d twice", path, l->cc_major,
                           l->cc_minor);
        (*n)++;
    }
    return 0;
}

const td_sm_limits *td_sm_limits_find(const td_sm_limits *rows, size_t n, int major,
                                      int minor)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].cc_major == major && rows[i].cc_minor == minor)
            return &rows[i];
    return NULL;
}
