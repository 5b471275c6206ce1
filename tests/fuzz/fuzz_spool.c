/* Fuzz target: the collection spool reader (td_spool_parse), and the
 * model on what it read; and, line by line, the scanner of the collector's
 * own lines (metrics/spool_scan.h) against cJSON: a line it reads must be
 * a JSON object with the same values. */
#include <cjson/cJSON.h>

#include "fuzz_common.h"
#include "levels/aggregate.h"
#include "metrics/spool/spool.h"
#include "metrics/spool/spool_scan.h"

/* cJSON's value of obj[key] (or obj[key][index] when index >= 0) must be
 * x; aborts when it is not. */
static void same(const cJSON *obj, const char *key, int index, double x)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    int n = strcmp(key, "res") == 0 ? 4 : 3;
    if (index >= 0)
        v = cJSON_IsArray(v) && cJSON_GetArraySize(v) == n ? cJSON_GetArrayItem(v, index) : NULL;
    if (!cJSON_IsNumber(v) || v->valuedouble != x) {
        fprintf(stderr, "fuzz_spool: the scanner read \"%s\" as %.17g, cJSON does not\n", key, x);
        abort();
    }
}

/* fields: the members the scanned form has */
static void same_type(const cJSON *obj, const char *type, int fields)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(obj, "type");
    if (!cJSON_IsString(t) || strcmp(t->valuestring, type) != 0 ||
        cJSON_GetArraySize(obj) != fields)
        abort();
}

static void check_scanned_line(const char *line, size_t len)
{
    td_scan_launch l;
    td_scan_kernel_time t;
    int is_launch = td_scan_launch_line(line, len, &l);
    int is_time = !is_launch && td_scan_kernel_time_line(line, len, &t);
    if (!is_launch && !is_time)
        return;
    cJSON *obj = cJSON_ParseWithLength(line, len);
    if (!cJSON_IsObject(obj))
        abort(); /* the scanner read what is no JSON object */
    if (is_launch) {
        same_type(obj, "launch", 9);
        same(obj, "pid", -1, l.pid);
        same(obj, "context", -1, l.context);
        same(obj, "id", -1, l.id);
        same(obj, "corr", -1, l.corr);
        same(obj, "k", -1, l.k);
        same(obj, "stream", -1, l.stream);
        for (int d = 0; d < 3; d++) {
            same(obj, "grid", d, l.grid[d]);
            same(obj, "block", d, l.block[d]);
        }
    } else {
        same_type(obj, "kernel_time", t.has_res ? 7 : 6);
        same(obj, "pid", -1, t.pid);
        same(obj, "context", -1, t.context);
        same(obj, "corr", -1, t.corr);
        same(obj, "start_ns", -1, t.start_ns);
        same(obj, "duration_ns", -1, t.duration_ns);
        for (int i = 0; t.has_res && i < 4; i++)
            same(obj, "res", i, t.res[i]);
    }
    cJSON_Delete(obj);
}

static void check_scanner(const char *text, size_t size)
{
    size_t pos = 0;
    while (pos < size) {
        const char *nl = memchr(text + pos, '\n', size - pos);
        size_t end = nl ? (size_t)(nl - text) : size;
        check_scanned_line(text + pos, end - pos);
        pos = end + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_result res;
    td_spool_summary sum;
    td_error err;
    check_scanner((const char *)data, size);
    memset(&res, 0, sizeof res);
    memset(&sum, 0, sizeof sum);
    if (td_spool_parse((const char *)data, size, "fuzz.spool", &res, &sum, &err) == 0) {
        td_summary s;
        if (td_summarize(&res, fuzz_archs(), NULL, &s, &err) == 0)
            td_summary_free(&s);
        td_spool_complete(&sum);
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
    return 0;
}
