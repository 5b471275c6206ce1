/* One JSON reader for results, spools and arch tables: a
 * strict document parser and typed field readers that check ranges before
 * converting, so no out-of-range double ever reaches an integer. Every
 * reader writes one line into err on failure, "<where>: \"key\" ...". */
#ifndef TD_JSON_FIELD_H
#define TD_JSON_FIELD_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/error.h"

/* Largest values a file may hold. */
#define TD_JSON_MAX_COUNT 1e300                       /* a counter */
#define TD_JSON_MAX_DURATION_NS (365.25 * 86400 * 1e9) /* a year */
#define TD_JSON_MAX_UINT64 0x1.fffffffffffffp63        /* largest double < 2^64 */

/* Where a value comes from, for messages: "run.json: launch 3 of device 0",
 * "spool x.spool line 5". */
typedef struct td_jctx {
    const char *where;
    td_error *err;
} td_jctx;

/* Parses a whole document. Refuses what cJSON lets through: data after the
 * document and raw control characters inside strings (or anywhere outside
 * the JSON whitespace). name is used in messages. */
int td_json_parse(const char *text, size_t len, const char *name, cJSON **out,
                  td_error *err);

/* ---- one value (an array element or an object member) -----------------
 * what names the value ("\"grid\""); index >= 0 is appended as [index]. */

/* A finite number in [lo, hi]. */
int td_json_number_value(const td_jctx *c, const cJSON *v, const char *what, long index,
                         double lo, double hi, double *out);
/* A counter or duration: finite, not negative, at most max. */
int td_json_amount_value(const td_jctx *c, const cJSON *v, const char *what, long index,
                         double max, double *out);
/* An integer in [0, max] (max at most TD_JSON_MAX_UINT64). */
int td_json_uint_value(const td_jctx *c, const cJSON *v, const char *what, long index,
                       double max, uint64_t *out);
/* An integer in [lo, hi]. */
int td_json_int_value(const td_jctx *c, const cJSON *v, const char *what, long index,
                      long lo, long hi, long *out);

/* ---- object members: absent and not required leaves *out unchanged ---- */

int td_json_number(const td_jctx *c, const cJSON *obj, const char *key, int required,
                   double lo, double hi, double *out);
int td_json_amount(const td_jctx *c, const cJSON *obj, const char *key, int required,
                   double max, double *out);
int td_json_uint(const td_jctx *c, const cJSON *obj, const char *key, int required,
                 double max, uint64_t *out);
int td_json_int(const td_jctx *c, const cJSON *obj, const char *key, int required,
                long lo, long hi, long *out);
/* A string (null counts as absent); *out is borrowed from the tree. */
int td_json_string(const td_jctx *c, const cJSON *obj, const char *key, int required,
                   const char **out);
/* The same, copied (malloc'd) into *out, which is freed first when not
 * NULL; absent leaves *out as it is. */
int td_json_string_dup(const td_jctx *c, const cJSON *obj, const char *key, int required,
                       char **out);
/* [x, y, z] of unsigned integers; absent: 1, 1, 1. */
int td_json_dim3(const td_jctx *c, const cJSON *obj, const char *key, unsigned out[3]);
/* An array (absent and not required: *out = NULL); n = its length. */
int td_json_array(const td_jctx *c, const cJSON *obj, const char *key, int required,
                  const cJSON **out, size_t *n);

/* ---- writing ------------------------------------------------------------ */

/* A number item that reads back exactly: cJSON prints 15 significant
 * digits, which is exact for integers below 10^15; other values are
 * printed with as many digits as they need (at most 17). x must be finite.
 * NULL when out of memory. */
cJSON *td_json_exact_number(double x);
/* An array of such numbers, as one raw item: the text cJSON_PrintUnformatted
 * gives an array of them, made without an item per number (item by item
 * when one is -0, which cJSON versions print differently). */
cJSON *td_json_exact_numbers(const double *v, size_t n);

#endif
