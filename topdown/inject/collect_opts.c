#include "topdown/inject/collect_opts.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topdown/inject/opts_text.h"

/* What a field holds, and so how its value is written and read. */
typedef enum field_type {
    F_TEXT,      /* char *: any bytes; empty is NULL */
    F_COUNT,     /* long, a launch count: -1 (no limit) or more */
    F_LONG,      /* long: a whole number, the collector bounds it */
    F_DOUBLE,    /* double, finite, written so that it reads back exactly */
    F_U64,       /* uint64_t */
    F_FLAG,      /* int: 0 or 1 */
    F_REPLAY,    /* td_replay_mode, as its word */
    F_NAME_BASE, /* td_name_base, as its word */
} field_type;

/* Every option, once: its name in the text is its field's name. */
static const struct field {
    const char *name;
    field_type type;
    size_t offset;
} fields[] = {
#define FIELD(name, type) {#name, type, offsetof(td_collect_opts, name)}
    FIELD(spool, F_TEXT),
    FIELD(archs, F_TEXT),
    FIELD(arch, F_TEXT),
    FIELD(kernel_regex, F_TEXT),
    FIELD(name_base, F_NAME_BASE),
    FIELD(launch_skip, F_COUNT),
    FIELD(launch_count, F_COUNT),
    FIELD(per_kernel, F_COUNT),
    FIELD(sample_every, F_TEXT),
    FIELD(nvtx_include, F_TEXT),
    FIELD(nvtx_exclude, F_TEXT),
    FIELD(replay_mode, F_REPLAY),
    FIELD(app_pass, F_LONG),
    FIELD(overhead_pct, F_DOUBLE),
    FIELD(batch, F_LONG),
    FIELD(graph_view, F_FLAG),
    FIELD(flush_caches, F_FLAG),
    FIELD(no_rotation, F_FLAG),
    FIELD(cover_launches, F_LONG),
    FIELD(budget_ranges, F_FLAG),
    FIELD(budget_per_thread, F_FLAG),
    FIELD(budget_all, F_FLAG),
    FIELD(natural_min, F_LONG),
    FIELD(natural_rule, F_LONG),
    FIELD(natural_idle, F_LONG),
    FIELD(natural_defer, F_LONG),
    FIELD(heavy_pct, F_LONG),
    FIELD(renew_launches, F_LONG),
    FIELD(rotation_ranges, F_LONG),
    FIELD(activity_kb, F_LONG),
    FIELD(activity_device_kb, F_LONG),
    FIELD(activity_per_thread, F_LONG),
    FIELD(pm_interval_ns, F_U64),
    FIELD(source, F_FLAG),
    FIELD(source_only, F_FLAG),
    FIELD(pc_period, F_LONG),
    FIELD(cubin_dir, F_TEXT),
    FIELD(no_timing, F_FLAG),
    FIELD(no_copies, F_FLAG),
    FIELD(debug, F_FLAG),
#undef FIELD
};
#define N_FIELDS (sizeof fields / sizeof *fields)

static const char *const mode_words[] = {"auto", "none", "kernel"};

const char *td_collect_getenv(const char *name)
{
    return getenv(name);
}

static void *field_at(td_collect_opts *o, const struct field *f)
{
    return (char *)o + f->offset;
}

static const void *field_in(const td_collect_opts *o, const struct field *f)
{
    return (const char *)o + f->offset;
}

void td_collect_opts_init(td_collect_opts *o)
{
    memset(o, 0, sizeof *o);
    o->name_base = TD_NAME_FUNCTION;
    o->launch_count = -1;
    o->per_kernel = -1;
    o->replay_mode = TD_REPLAY_AUTO;
    o->app_pass = -1;
    o->overhead_pct = TD_OVERHEAD_DEFAULT;
    o->cover_launches = -1;
    o->natural_min = -1;
    o->natural_idle = -1;
    o->natural_defer = -1;
    o->heavy_pct = -1;
    o->renew_launches = -1;
    o->rotation_ranges = -1;
    o->activity_kb = -1;
    o->activity_device_kb = -1;
    o->activity_per_thread = -1;
}

void td_collect_opts_free(td_collect_opts *o)
{
    for (size_t i = 0; i < N_FIELDS; i++)
        if (fields[i].type == F_TEXT)
            free(*(char **)field_at(o, &fields[i]));
    memset(o, 0, sizeof *o);
}

const char *td_replay_mode_word(td_replay_mode mode)
{
    return mode >= TD_REPLAY_AUTO && mode <= TD_REPLAY_KERNEL ? mode_words[mode] : "?";
}

int td_replay_mode_parse(const char *word, td_replay_mode *out)
{
    for (size_t m = 0; word && m < sizeof mode_words / sizeof *mode_words; m++)
        if (strcmp(word, mode_words[m]) == 0) {
            *out = (td_replay_mode)m;
            return 0;
        }
    return -1;
}

/* ---- writing ------------------------------------------------------------ */

/* The shortest of %.15g and %.17g that reads back as exactly value
 * (--overhead 12.5 arrives as 12.5, not 12). */
static const char *double_text(double value, char *buf, size_t size)
{
    snprintf(buf, size, "%.15g", value);
    if (strtod(buf, NULL) != value)
        snprintf(buf, size, "%.17g", value);
    return buf;
}

/* Field f of o as its value's text: o's string, a word, or buf. */
static const char *field_text(const td_collect_opts *o, const struct field *f, char *buf,
                              size_t size)
{
    const void *p = field_in(o, f);
    switch (f->type) {
    case F_TEXT:
        return *(char *const *)p;
    case F_COUNT:
    case F_LONG:
        snprintf(buf, size, "%ld", *(const long *)p);
        return buf;
    case F_DOUBLE:
        return double_text(*(const double *)p, buf, size);
    case F_U64:
        snprintf(buf, size, "%" PRIu64, *(const uint64_t *)p);
        return buf;
    case F_FLAG:
        return *(const int *)p ? "1" : "0";
    case F_REPLAY:
        return td_replay_mode_word(*(const td_replay_mode *)p);
    case F_NAME_BASE:
        return td_name_base_word(*(const td_name_base *)p);
    }
    return "";
}

/* The text into out (size bytes); its length, like snprintf. */
static size_t write_fields(const td_collect_opts *o, char *out, size_t size)
{
    size_t len = 0;
    char buf[48];
    for (size_t i = 0; i < N_FIELDS; i++)
        len = td_opts_text_put(out, size, len, fields[i].name,
                               field_text(o, &fields[i], buf, sizeof buf));
    return len;
}

char *td_collect_opts_format(const td_collect_opts *o)
{
    size_t len = write_fields(o, NULL, 0);
    char *text = malloc(len + 1);
    if (text)
        write_fields(o, text, len + 1);
    return text;
}

/* ---- reading ------------------------------------------------------------ */

/* text as a whole long: an optional '-', digits, nothing else. */
static int whole_long(const char *text, long *out)
{
    if (*text != '-' && !isdigit((unsigned char)*text))
        return -1;
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end)
        return -1;
    *out = v;
    return 0;
}

static int whole_u64(const char *text, uint64_t *out)
{
    if (!isdigit((unsigned char)*text))
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static int finite_double(const char *text, double *out)
{
    if (!*text || isspace((unsigned char)*text))
        return -1;
    char *end = NULL;
    double v = strtod(text, &end);
    if (*end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int read_flag(const char *text, int *out)
{
    if ((text[0] != '0' && text[0] != '1') || text[1])
        return -1;
    *out = text[0] == '1';
    return 0;
}

/* A count: -1 (no limit) or more. */
static int read_count(const char *text, long *out)
{
    long v;
    if (whole_long(text, &v) || v < -1)
        return -1;
    *out = v;
    return 0;
}

/* What a value of each type must be, for the refusal. */
static const char *const type_wants[] = {
    [F_COUNT] = "a count (a whole number, -1 or more)",
    [F_LONG] = "a whole number",
    [F_DOUBLE] = "a finite number",
    [F_U64] = "a whole number, 0 or more",
    [F_FLAG] = "0 or 1",
    [F_REPLAY] = "auto, none or kernel",
    [F_NAME_BASE] = "function, demangled or mangled",
};

/* *value into field f of o (a text is taken: *value is then NULL); -1
 * when it is not of f's type. */
static int read_value(td_collect_opts *o, const struct field *f, char **value)
{
    void *p = field_at(o, f);
    td_error err;
    switch (f->type) {
    case F_TEXT:
        if (**value)
            *(char **)p = *value, *value = NULL;
        return 0;
    case F_COUNT:
        return read_count(*value, (long *)p);
    case F_LONG:
        return whole_long(*value, (long *)p);
    case F_DOUBLE:
        return finite_double(*value, (double *)p);
    case F_U64:
        return whole_u64(*value, (uint64_t *)p);
    case F_FLAG:
        return read_flag(*value, (int *)p);
    case F_REPLAY:
        return td_replay_mode_parse(*value, (td_replay_mode *)p);
    case F_NAME_BASE:
        return td_name_base_parse(*value, (td_name_base *)p, &err);
    }
    return -1;
}

static const struct field *field_named(const char *name)
{
    for (size_t i = 0; i < N_FIELDS; i++)
        if (strcmp(fields[i].name, name) == 0)
            return &fields[i];
    return NULL;
}

/* One line read into o; -1 with why. seen: a bit per field given. */
static int read_line(td_collect_opts *o, const char *name, char **value, uint64_t *seen,
                     char *why, size_t size)
{
    const struct field *f = field_named(name);
    if (!f) {
        snprintf(why, size, "'%s' is no option of the collector", name);
        return -1;
    }
    uint64_t bit = (uint64_t)1 << (f - fields);
    if (*seen & bit) {
        snprintf(why, size, "%s is given twice", name);
        return -1;
    }
    *seen |= bit;
    if (read_value(o, f, value) == 0)
        return 0;
    snprintf(why, size, "%s=%.64s is not %s", name, *value, type_wants[f->type]);
    return -1;
}

/* The kernel filter back at its defaults: every launch profiled. */
static void reset_filter(td_collect_opts *o)
{
    td_collect_opts defaults;
    td_collect_opts_init(&defaults);
    free(o->kernel_regex);
    o->kernel_regex = NULL;
    o->name_base = defaults.name_base;
    o->launch_skip = defaults.launch_skip;
    o->launch_count = defaults.launch_count;
    o->per_kernel = defaults.per_kernel;
}

int td_collect_opts_parse(td_collect_opts *o, const char *text, char *msg, size_t size)
{
    _Static_assert(N_FIELDS <= 64, "a bit per field in read_line's seen");
    td_collect_opts_init(o);
    td_opts_cursor c;
    td_opts_cursor_init(&c, text);
    uint64_t seen = 0;
    int rc = 0, got;
    char name[TD_OPTS_NAME_MAX], why[256], *value;
    while ((got = td_opts_text_next(&c, name, &value, why, sizeof why)) != 0) {
        if (got > 0 && read_line(o, name, &value, &seen, why, sizeof why) != 0)
            got = -1;
        free(value);
        if (got < 0 && rc == 0)
            snprintf(msg, size, "%s, line %d: %s", TD_COLLECT_VAR, c.line, why);
        rc = got < 0 ? -1 : rc;
    }
    if (rc)
        reset_filter(o);
    o->source = o->source || o->source_only;
    return rc;
}

int td_collect_opts_read(td_collect_opts *o, td_collect_getenv_fn get, char *msg, size_t size)
{
    return td_collect_opts_parse(o, get(TD_COLLECT_VAR), msg, size);
}
