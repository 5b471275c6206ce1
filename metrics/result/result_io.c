/* The result file: loading it (header, schema, then the layout's device
 * sections), checking a result as the reader would and saving it
 * atomically, compressed when its name says so. */
#include "metrics/result/result.h"

#include "metrics/result/compress.h"
#include "metrics/file_text.h"
#include "metrics/result/result_io.h"
#include "metrics/result/section.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- loading: the header -------------------------------------------------- */

static int parse_argv(const cJSON *app, td_result *res, const parse_ctx *ctx)
{
    const cJSON *argv = cJSON_GetObjectItemCaseSensitive(app, "argv");
    if (!argv)
        return 0;
    if (!cJSON_IsArray(argv))
        return td_fail(ctx->err, "%s: \"app.argv\" must be a list of strings", ctx->name);
    size_t n = (size_t)cJSON_GetArraySize(argv);
    res->argv = calloc(n ? n : 1, sizeof *res->argv);
    if (!res->argv)
        return td_fail(ctx->err, "out of memory");
    const cJSON *item;
    cJSON_ArrayForEach(item, argv) {
        if (!cJSON_IsString(item))
            return td_fail(ctx->err, "%s: \"app.argv\" must hold strings", ctx->name);
        if (!(res->argv[res->argc] = td_strdup(item->valuestring)))
            return td_fail(ctx->err, "out of memory");
        res->argc++;
    }
    return 0;
}

static int parse_app(const cJSON *root, td_result *res, const parse_ctx *ctx)
{
    const cJSON *app = cJSON_GetObjectItemCaseSensitive(root, "app");
    if (!app)
        return 0;
    if (!cJSON_IsObject(app))
        return td_fail(ctx->err, "%s: \"app\" must be an object", ctx->name);
    char where[600];
    snprintf(where, sizeof where, "%s: \"app\"", ctx->name);
    td_jctx c = {where, ctx->err};
    long code = 0, sig = 0;
    if (parse_argv(app, res, ctx) ||
        td_json_int(&c, app, "exit_code", 0, INT_MIN, INT_MAX, &code) ||
        td_json_int(&c, app, "signal", 0, 0, TD_MAX_SIGNAL, &sig) ||
        td_json_string_dup(&c, app, "status", 0, &res->status))
        return -1;
    res->exit_code = (int)code;
    res->term_signal = (int)sig;
    return 0;
}

static int parse_header(const cJSON *root, td_result *res, const parse_ctx *ctx)
{
    char where[600];
    snprintf(where, sizeof where, "%s", ctx->name);
    td_jctx c = {where, ctx->err};
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(root, "tool");
    if (cJSON_IsObject(tool) &&
        td_json_string_dup(&c, tool, "version", 0, &res->tool_version))
        return -1;
    res->synthetic = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "synthetic"));
    if (td_json_string_dup(&c, root, "created", 0, &res->created) ||
        td_json_string_dup(&c, root, "note", 0, &res->note) ||
        td_json_string_dup(&c, root, "replay_mode", 0, &res->replay_mode) ||
        td_json_number(&c, root, "overhead_pct", 0, 0, TD_MAX_OVERHEAD_PCT,
                       &res->overhead_pct))
        return -1;
    if (res->replay_mode && !res->replay_mode[0])
        return td_fail(ctx->err, "%s: \"replay_mode\" is empty", ctx->name);
    const td_jctx file = {ctx->name, ctx->err};
    for (const td_section *const *s = td_sections; *s; s++)
        if ((*s)->read_root && (*s)->read_root(root, res, &file))
            return -1;
    return parse_app(root, res, ctx);
}

/* ---- loading: the file ------------------------------------------------- */

static int parse_v1_devices(const cJSON *root, td_result *res, const parse_ctx *ctx)
{
    const cJSON *devices = cJSON_GetObjectItemCaseSensitive(root, "devices");
    if (!cJSON_IsArray(devices))
        return td_fail(ctx->err, "%s: no \"devices\" array; the file is incomplete",
                       ctx->name);
    size_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, devices) {
        char where[600];
        snprintf(where, sizeof where, "%s: device section %zu", ctx->name, i);
        td_jctx c = {where, ctx->err};
        if (!cJSON_IsObject(item))
            return td_fail(ctx->err, "%s is not an object", where);
        td_device *dev = td_result_add_device(res, ctx->err);
        if (!dev || td_result_read_device_head(item, dev, &c) ||
            td_result_read_v1_launches(item, dev, i, ctx))
            return -1;
        i++;
    }
    return 0;
}

/* A result is one JSON object: text that does not start with '{' is some
 * other file, not a damaged result. */
static int check_starts_as_object(const char *text, size_t len, const char *name,
                                  td_error *err)
{
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (i < len && text[i] == '{')
        return 0;
    return td_fail(err, "%s: not a topdown result (a result is one JSON object, and this file "
                   "does not start with '{'); topdown report reads the files topdown wrote",
                   name);
}

/* The schema of another kind of file, or of another result version. */
static int unsupported_schema(const char *schema, const parse_ctx *ctx)
{
    if (strncmp(schema, "topdown-result/", strlen("topdown-result/")) != 0)
        return td_fail(ctx->err, "%s: not a topdown result (its schema is \"%s\", another kind "
                       "of file); topdown report reads the files topdown wrote", ctx->name,
                       schema);
    return td_fail(ctx->err, "%s: schema \"%s\" is not supported (this topdown reads \"%s\" and \"%s\"); use a matching topdown version",
                   ctx->name, schema, TD_RESULT_SCHEMA, TD_RESULT_SCHEMA_V1);
}

static int parse_root(const cJSON *root, td_result *res, const parse_ctx *ctx)
{
    if (!cJSON_IsObject(root))
        return td_fail(ctx->err, "%s: not a JSON object; expected a topdown result file",
                       ctx->name);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsString(schema))
        return td_fail(ctx->err, "%s: not a topdown result (no \"schema\" field)",
                       ctx->name);
    int v1 = strcmp(schema->valuestring, TD_RESULT_SCHEMA_V1) == 0;
    if (!v1 && strcmp(schema->valuestring, TD_RESULT_SCHEMA) != 0)
        return unsupported_schema(schema->valuestring, ctx);
    if (parse_header(root, res, ctx))
        return -1;
    return v1 ? parse_v1_devices(root, res, ctx) : td_result_read_v2(root, res, ctx);
}

int td_result_parse(const char *text, size_t len, const char *name,
                    td_result *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    parse_ctx ctx = {name, err};
    cJSON *root;
    if (check_starts_as_object(text, len, name, err) || td_json_parse(text, len, name, &root, err))
        return -1;
    int rc = parse_root(root, out, &ctx);
    cJSON_Delete(root);
    if (rc)
        td_result_free(out);
    return rc;
}

int td_result_load(const char *path, td_result *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    if (td_read_text_file(path, &text, &len, err))
        return td_fail_context(err, "result file");
    if (td_decompress_text(path, &text, &len, err)) {
        free(text);
        return -1;
    }
    parse_ctx ctx = {path, err};
    cJSON *root;
    int rc = check_starts_as_object(text, len, path, err) ||
             td_json_parse(text, len, path, &root, err) ? -1 : 0;
    free(text); /* the tree holds copies: the text need not stay */
    if (rc)
        return -1;
    rc = parse_root(root, out, &ctx);
    cJSON_Delete(root);
    if (rc)
        td_result_free(out);
    return rc;
}

/* ---- saving ------------------------------------------------------------ */

static int check_launch(const td_device *dev, const td_launch *l, size_t d, size_t i,
                        td_error *err)
{
    if (!isfinite(l->duration_ns) || l->duration_ns < 0 ||
        l->duration_ns > TD_JSON_MAX_DURATION_NS)
        return td_fail(err, "device section %zu, launch %zu: duration_ns %g is not a duration",
                       d, i, l->duration_ns);
    if ((double)l->id > TD_JSON_MAX_UINT64 || (double)l->stream > TD_JSON_MAX_UINT64 ||
        (double)l->start_ns > TD_JSON_MAX_UINT64 || (double)l->graph_id > TD_JSON_MAX_UINT64 ||
        (double)l->graph_node > TD_JSON_MAX_UINT64)
        return td_fail(err, "device section %zu, launch %zu: an id beyond 2^64 - 2048", d, i);
    if (l->group != TD_GROUP_ALL && (l->group < 0 || (size_t)l->group >= dev->n_groups))
        return td_fail(err, "device section %zu, launch %zu: group %d of %zu", d, i, l->group,
                       dev->n_groups);
    if (!l->profiled || !l->counters)
        return 0;
    for (size_t m = 0; m < dev->n_metrics; m++)
        if (!isfinite(l->counters[m]) || l->counters[m] < 0 ||
            l->counters[m] > TD_JSON_MAX_COUNT)
            return td_fail(err, "device section %zu, launch %zu: counter %s is %g, not a count",
                           d, i, dev->metrics[m], l->counters[m]);
    return 0;
}

static int check_result(const td_result *res, td_error *err)
{
    if (!isfinite(res->overhead_pct) || res->overhead_pct < 0 ||
        res->overhead_pct > TD_MAX_OVERHEAD_PCT)
        return td_fail(err, "overhead_pct %g is out of range", res->overhead_pct);
    if (res->term_signal < 0 || res->term_signal > TD_MAX_SIGNAL)
        return td_fail(err, "signal %d is out of range", res->term_signal);
    if (res->replay_mode && !res->replay_mode[0])
        return td_fail(err, "replay_mode is empty");
    for (const td_section *const *s = td_sections; *s; s++)
        if ((*s)->check_root && (*s)->check_root(res, err))
            return -1;
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        if (td_result_check_device_head(dev, d, err))
            return -1;
        for (const td_section *const *s = td_sections; *s; s++)
            if ((*s)->check_device && (*s)->check_device(dev, d, err))
                return -1;
        for (size_t i = 0; i < dev->n_launches; i++)
            if (check_launch(dev, &dev->launches[i], d, i, err))
                return -1;
    }
    return 0;
}

static cJSON *header_json(const td_result *res)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", TD_RESULT_SCHEMA);
    cJSON *tool = cJSON_AddObjectToObject(root, "tool");
    cJSON_AddStringToObject(tool, "name", "topdown");
    cJSON_AddStringToObject(tool, "version",
                            res->tool_version ? res->tool_version : TOPDOWN_VERSION);
    if (res->created)
        cJSON_AddStringToObject(root, "created", res->created);
    cJSON_AddBoolToObject(root, "synthetic", res->synthetic);
    if (res->note)
        cJSON_AddStringToObject(root, "note", res->note);
    if (res->replay_mode)
        cJSON_AddStringToObject(root, "replay_mode", res->replay_mode);
    if (res->overhead_pct > 0)
        cJSON_AddItemToObject(root, "overhead_pct", td_json_exact_number(res->overhead_pct));
    for (const td_section *const *s = td_sections; *s; s++)
        if ((*s)->write_root && (*s)->write_root(root, res)) {
            cJSON_Delete(root);
            return NULL;
        }
    cJSON *app = cJSON_AddObjectToObject(root, "app");
    cJSON *argv = cJSON_AddArrayToObject(app, "argv");
    for (size_t i = 0; i < res->argc; i++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(res->argv[i] ? res->argv[i] : ""));
    cJSON_AddNumberToObject(app, "exit_code", res->exit_code);
    cJSON_AddNumberToObject(app, "signal", res->term_signal);
    cJSON_AddStringToObject(app, "status", res->status ? res->status : "complete");
    return root;
}

static int write_atomically(const char *path, const char *text, size_t len, td_error *err)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return td_fail(err, "cannot write %s: %s", tmp, strerror(errno));
    int ok = fwrite(text, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        return td_fail(err, "cannot write %s: %s", path, strerror(saved));
    }
    return 0;
}

int td_result_save(const char *path, const td_result *res, td_error *err)
{
    if (check_result(res, err))
        return td_fail_context(err, "refusing to write %s, it could not be read back", path);
    cJSON *root = header_json(res);
    if (!root || td_result_write_v2(root, res, err)) {
        cJSON_Delete(root);
        return td_fail(err, "out of memory writing %s", path);
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    size_t len = text ? strlen(text) : 0;
    char *lined = text ? realloc(text, len + 2) : NULL;
    if (!lined) {
        free(text);
        return td_fail(err, "out of memory writing %s", path);
    }
    memcpy(lined + len, "\n", 2);
    len++;
    /* .xz or .gz: compressed as the name says (read back by its first bytes) */
    int kind = td_compression_of(path);
    char *packed = NULL;
    size_t packed_len = 0;
    int rc = kind ? td_compress_text(kind, lined, len, &packed, &packed_len, err) : 0;
    if (rc == 0)
        rc = write_atomically(path, kind ? packed : lined, kind ? packed_len : len, err);
    free(packed);
    free(lined);
    return rc;
}
