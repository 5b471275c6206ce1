#include "metrics/json_field.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the document ------------------------------------------------------- */

static int is_json_space(unsigned char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* Offset of the first raw control character inside a string or outside
 * the JSON whitespace, or len when there is none. */
static size_t control_char_at(const char *text, size_t len, int *in_string)
{
    int in_str = 0, escaped = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch < 0x20 && (in_str || !is_json_space(ch))) {
            *in_string = in_str;
            return i;
        }
        if (escaped)
            escaped = 0;
        else if (in_str && ch == '\\')
            escaped = 1;
        else if (ch == '"')
            in_str = !in_str;
    }
    return len;
}

int td_json_parse(const char *text, size_t len, const char *name, cJSON **out,
                  td_error *err)
{
    *out = NULL;
    int in_string = 0;
    size_t bad = control_char_at(text, len, &in_string);
    if (bad < len)
        return td_fail(err, "%s: a raw control character (0x%02x) %s at byte %zu; the file is damaged",
                       name, (unsigned)(unsigned char)text[bad],
                       in_string ? "inside a string" : "outside any string", bad);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        const char *stop = cJSON_GetErrorPtr();
        long offset = stop ? (long)(stop - text) : -1;
        return td_fail(err, "%s: malformed or truncated JSON near byte %ld of %zu; the file is damaged (re-run or re-export it)",
                       name, offset, len);
    }
    size_t pos = end ? (size_t)(end - text) : len;
    while (pos < len && is_json_space((unsigned char)text[pos]))
        pos++;
    if (pos < len) {
        cJSON_Delete(root);
        return td_fail(err, "%s: data after the end of the JSON document at byte %zu of %zu; the file is damaged",
                       name, pos, len);
    }
    *out = root;
    return 0;
}

/* ---- values ------------------------------------------------------------- */

/* "\"key\"" or "\"key\"[3]" */
static const char *label(char *buf, size_t size, const char *what, long index)
{
    if (index >= 0)
        snprintf(buf, size, "%s[%ld]", what, index);
    else
        snprintf(buf, size, "%s", what);
    return buf;
}

static int finite_number(const td_jctx *c, const cJSON *v, const char *what, long index,
                         double *out)
{
    char name[128];
    if (!cJSON_IsNumber(v))
        return td_fail(c->err, "%s: %s is not a number", c->where,
                       label(name, sizeof name, what, index));
    if (!isfinite(v->valuedouble))
        return td_fail(c->err, "%s: %s is not a finite number", c->where,
                       label(name, sizeof name, what, index));
    *out = v->valuedouble;
    return 0;
}

static int in_range(const td_jctx *c, double x, const char *what, long index, double lo,
                    double hi)
{
    char name[128];
    if (x < lo)
        return td_fail(c->err, "%s: %s is %s (%g); the least it can be is %g", c->where,
                       label(name, sizeof name, what, index), x < 0 ? "negative" : "too small",
                       x, lo);
    if (x > hi)
        return td_fail(c->err, "%s: %s is %g, out of range (at most %g)", c->where,
                       label(name, sizeof name, what, index), x, hi);
    return 0;
}

int td_json_number_value(const td_jctx *c, const cJSON *v, const char *what, long index,
                         double lo, double hi, double *out)
{
    double x = 0;
    if (finite_number(c, v, what, index, &x) || in_range(c, x, what, index, lo, hi))
        return -1;
    *out = x;
    return 0;
}

int td_json_amount_value(const td_jctx *c, const cJSON *v, const char *what, long index,
                         double max, double *out)
{
    double x = 0;
    char name[128];
    if (finite_number(c, v, what, index, &x))
        return -1;
    if (x < 0)
        return td_fail(c->err, "%s: %s is negative (%g); counters and durations cannot be",
                       c->where, label(name, sizeof name, what, index), x);
    if (x > max)
        return td_fail(c->err, "%s: %s is %g, more than any real measurement (at most %g)",
                       c->where, label(name, sizeof name, what, index), x, max);
    *out = x;
    return 0;
}

static int integral(const td_jctx *c, double x, const char *what, long index)
{
    char name[128];
    if (x != floor(x))
        return td_fail(c->err, "%s: %s must be an integer (is %g)", c->where,
                       label(name, sizeof name, what, index), x);
    return 0;
}

int td_json_uint_value(const td_jctx *c, const cJSON *v, const char *what, long index,
                       double max, uint64_t *out)
{
    double x = 0;
    if (finite_number(c, v, what, index, &x) || in_range(c, x, what, index, 0, max) ||
        integral(c, x, what, index))
        return -1;
    *out = (uint64_t)x;
    return 0;
}

int td_json_int_value(const td_jctx *c, const cJSON *v, const char *what, long index,
                      long lo, long hi, long *out)
{
    double x;
    if (finite_number(c, v, what, index, &x) ||
        in_range(c, x, what, index, (double)lo, (double)hi) || integral(c, x, what, index))
        return -1;
    *out = (long)x;
    return 0;
}

/* ---- members ------------------------------------------------------------ */

/* The member, or NULL (absent); -1 when absent and required. */
static int member(const td_jctx *c, const cJSON *obj, const char *key, int required,
                  const cJSON **out)
{
    *out = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!*out && required)
        return td_fail(c->err, "%s: \"%s\" is missing", c->where, key);
    return 0;
}

static const char *quoted(char *buf, size_t size, const char *key)
{
    snprintf(buf, size, "\"%s\"", key);
    return buf;
}

/* A whole number in lo..hi: the common case, checked before any message
 * is formatted (a spool of 10^5 launches reads 10^6 of them). */
static int whole_in_range(const cJSON *v, double lo, double hi, double *out)
{
    if (!cJSON_IsNumber(v))
        return 0;
    double x = v->valuedouble;
    if (!(isfinite(x) && x >= lo && x <= hi && x == floor(x)))
        return 0;
    *out = x;
    return 1;
}

int td_json_number(const td_jctx *c, const cJSON *obj, const char *key, int required,
                   double lo, double hi, double *out)
{
    const cJSON *v;
    char q[96];
    if (member(c, obj, key, required, &v))
        return -1;
    return v ? td_json_number_value(c, v, quoted(q, sizeof q, key), -1, lo, hi, out) : 0;
}

int td_json_amount(const td_jctx *c, const cJSON *obj, const char *key, int required,
                   double max, double *out)
{
    const cJSON *v;
    char q[96];
    if (member(c, obj, key, required, &v))
        return -1;
    if (v && cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= max) {
        *out = v->valuedouble; /* the common case, no message formatted */
        return 0;
    }
    return v ? td_json_amount_value(c, v, quoted(q, sizeof q, key), -1, max, out) : 0;
}

int td_json_uint(const td_jctx *c, const cJSON *obj, const char *key, int required,
                 double max, uint64_t *out)
{
    const cJSON *v;
    char q[96];
    double x;
    if (member(c, obj, key, required, &v))
        return -1;
    if (v && whole_in_range(v, 0, max, &x)) {
        *out = (uint64_t)x;
        return 0;
    }
    return v ? td_json_uint_value(c, v, quoted(q, sizeof q, key), -1, max, out) : 0;
}

int td_json_int(const td_jctx *c, const cJSON *obj, const char *key, int required,
                long lo, long hi, long *out)
{
    const cJSON *v;
    char q[96];
    double x;
    if (member(c, obj, key, required, &v))
        return -1;
    if (v && whole_in_range(v, (double)lo, (double)hi, &x)) {
        *out = (long)x;
        return 0;
    }
    return v ? td_json_int_value(c, v, quoted(q, sizeof q, key), -1, lo, hi, out) : 0;
}

int td_json_string(const td_jctx *c, const cJSON *obj, const char *key, int required,
                   const char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v))
        return required ? td_fail(c->err, "%s: \"%s\" is missing", c->where, key) : 0;
    if (!cJSON_IsString(v))
        return td_fail(c->err, "%s: \"%s\" is not a string", c->where, key);
    *out = v->valuestring;
    return 0;
}

int td_json_string_dup(const td_jctx *c, const cJSON *obj, const char *key, int required,
                       char **out)
{
    const char *s = NULL;
    if (td_json_string(c, obj, key, required, &s))
        return -1;
    if (!s)
        return 0;
    size_t len = strlen(s) + 1;
    char *copy = malloc(len);
    if (!copy)
        return td_fail(c->err, "out of memory");
    memcpy(copy, s, len);
    free(*out);
    *out = copy;
    return 0;
}

int td_json_dim3(const td_jctx *c, const cJSON *obj, const char *key, unsigned out[3])
{
    out[0] = out[1] = out[2] = 1;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!arr)
        return 0;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != 3)
        return td_fail(c->err, "%s: \"%s\" must be [x, y, z]", c->where, key);
    char q[96];
    long i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, arr) {
        double d;
        uint64_t x;
        if (whole_in_range(v, 0, 4294967295.0, &d))
            x = (uint64_t)d; /* the common case, no message formatted */
        else if (td_json_uint_value(c, v, quoted(q, sizeof q, key), i, 4294967295.0, &x))
            return -1;
        out[i++] = (unsigned)x;
    }
    return 0;
}

int td_json_array(const td_jctx *c, const cJSON *obj, const char *key, int required,
                  const cJSON **out, size_t *n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    *n = 0;
    if (!v)
        return required ? td_fail(c->err, "%s: \"%s\" is missing", c->where, key) : 0;
    if (!cJSON_IsArray(v))
        return td_fail(c->err, "%s: \"%s\" must be an array", c->where, key);
    *out = v;
    *n = (size_t)cJSON_GetArraySize(v);
    return 0;
}

/* ---- writing ------------------------------------------------------------ */

/* x as the exact number item prints: plain digits for an integer below
 * 10^15 (as cJSON prints it), else the fewest of 15 to 17 significant
 * digits that read back as x. Returns the length written (at most 39). */
static size_t exact_text(double x, char text[40])
{
    if (x == floor(x) && fabs(x) < 1e15) {
        long long whole = (long long)x;
        unsigned long long u = whole < 0 ? 0ull - (unsigned long long)whole
                                         : (unsigned long long)whole;
        char digits[24];
        size_t n = 0, len = 0;
        do {
            digits[n++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (whole < 0)
            text[len++] = '-';
        while (n)
            text[len++] = digits[--n];
        text[len] = '\0';
        return len;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, 40, "%.*g", digits, x);
        if (strtod(text, NULL) == x)
            break;
    }
    return strlen(text);
}

cJSON *td_json_exact_number(double x)
{
    if (x == floor(x) && fabs(x) < 1e15)
        return cJSON_CreateNumber(x);
    char text[40];
    exact_text(x, text);
    return cJSON_CreateRaw(text);
}

/* The array item by item: for -0, which cJSON versions print as "0" or
 * "-0". */
static cJSON *array_of_items(const double *v, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) {
        cJSON *item = td_json_exact_number(v[i]);
        if (!item || !cJSON_AddItemToArray(arr, item)) {
            cJSON_Delete(item);
            cJSON_Delete(arr);
            arr = NULL;
        }
    }
    return arr;
}

cJSON *td_json_exact_numbers(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == 0 && signbit(v[i]))
            return array_of_items(v, n);
    /* "[" + up to 40 bytes a value + "]": the text cJSON would print for
     * an array of td_json_exact_number items, without an item each */
    char *text = malloc(n * 40 + 3);
    if (!text)
        return NULL;
    size_t len = 0;
    text[len++] = '[';
    for (size_t i = 0; i < n; i++) {
        if (i)
            text[len++] = ',';
        len += exact_text(v[i], text + len);
    }
    memcpy(text + len, "]", 2);
    cJSON *raw = cJSON_CreateRaw(text);
    free(text);
    return raw;
}
