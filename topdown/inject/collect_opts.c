#include "topdown/inject/collect_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/strcopy.h"

/* The strings, copied and freed through this one table. */
static const struct {
    const char *name;
    size_t offset;
} texts[] = {
    {"TOPDOWN_SPOOL", offsetof(td_collect_opts, spool)},
    {"TOPDOWN_ARCHS", offsetof(td_collect_opts, archs)},
    {"TOPDOWN_ARCH", offsetof(td_collect_opts, arch)},
    {"TOPDOWN_KERNEL_REGEX", offsetof(td_collect_opts, kernel_regex)},
    {"TOPDOWN_SAMPLE_EVERY", offsetof(td_collect_opts, sample_every)},
    {"TOPDOWN_NVTX_INCLUDE", offsetof(td_collect_opts, nvtx_include)},
    {"TOPDOWN_NVTX_EXCLUDE", offsetof(td_collect_opts, nvtx_exclude)},
    {"TOPDOWN_CUBIN_DIR", offsetof(td_collect_opts, cubin_dir)},
};
#define N_TEXTS (sizeof texts / sizeof *texts)

static const char *const mode_words[] = {"auto", "none", "kernel"};

const char *td_collect_getenv(const char *name)
{
    return getenv(name);
}

static char **text_field(td_collect_opts *o, size_t i)
{
    return (char **)(void *)((char *)o + texts[i].offset);
}

/* -1 when out of memory. */
static int read_texts(td_collect_opts *o, td_collect_getenv_fn get)
{
    int rc = 0;
    for (size_t i = 0; i < N_TEXTS; i++) {
        const char *text = get(texts[i].name);
        if (!text || !*text)
            continue;
        *text_field(o, i) = td_strdup(text);
        if (!*text_field(o, i))
            rc = -1;
    }
    return rc;
}

void td_collect_opts_free(td_collect_opts *o)
{
    for (size_t i = 0; i < N_TEXTS; i++)
        free(*text_field(o, i));
    memset(o, 0, sizeof *o);
}

/* A launch count: unset or empty is fallback; -1 and up, else refused. */
static int read_count(td_collect_getenv_fn get, const char *name, long fallback, long *out,
                      char *msg, size_t size)
{
    const char *text = get(name);
    *out = fallback;
    if (!text || !*text)
        return 0;
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || v < -1) {
        snprintf(msg, size, "%s=%s is not a count", name, text);
        return -1;
    }
    *out = v;
    return 0;
}

/* The filter's counts and name base, in this order; the first bad one
 * ends it. */
static int read_filter(td_collect_opts *o, td_collect_getenv_fn get, char *msg, size_t size)
{
    if (read_count(get, "TOPDOWN_LAUNCH_SKIP", 0, &o->launch_skip, msg, size) ||
        read_count(get, "TOPDOWN_LAUNCH_COUNT", -1, &o->launch_count, msg, size) ||
        read_count(get, "TOPDOWN_PER_KERNEL", -1, &o->per_kernel, msg, size))
        return -1;
    const char *word = get("TOPDOWN_KERNEL_NAME_BASE");
    td_error err;
    o->name_base = TD_NAME_FUNCTION;
    if (word && *word && td_name_base_parse(word, &o->name_base, &err)) {
        snprintf(msg, size, "TOPDOWN_KERNEL_NAME_BASE: %s", err.msg);
        return -1;
    }
    return 0;
}

static int equals(td_collect_getenv_fn get, const char *name, const char *word)
{
    const char *text = get(name);
    return text && strcmp(text, word) == 0;
}

/* strtol without checks, 0 when unset: the callers bound it. */
static long loose_long(td_collect_getenv_fn get, const char *name)
{
    const char *text = get(name);
    return text ? strtol(text, NULL, 10) : 0;
}

static void read_collection(td_collect_opts *o, td_collect_getenv_fn get)
{
    const char *mode = get("TOPDOWN_REPLAY_MODE");
    o->replay_mode = TD_REPLAY_AUTO;
    for (size_t m = 0; mode && m < sizeof mode_words / sizeof *mode_words; m++)
        if (strcmp(mode, mode_words[m]) == 0)
            o->replay_mode = (td_replay_mode)m;
    const char *overhead = get("TOPDOWN_OVERHEAD");
    o->overhead_pct = overhead && *overhead ? strtod(overhead, NULL) : TD_OVERHEAD_DEFAULT;
    o->batch = loose_long(get, "TOPDOWN_BATCH");
    o->graph_view = equals(get, "TOPDOWN_GRAPH_PROFILING", "graph");
    o->flush_caches = equals(get, "TOPDOWN_CACHE_CONTROL", "all");
    o->no_rotation = equals(get, "TOPDOWN_ROTATION", "0");
    const char *pm = get("TOPDOWN_PM_INTERVAL_NS");
    o->pm_interval_ns = pm && *pm ? strtoull(pm, NULL, 10) : 0;
}

static void read_flags(td_collect_opts *o, td_collect_getenv_fn get)
{
    o->source_only = equals(get, "TOPDOWN_SOURCE", "only");
    o->source = o->source_only || equals(get, "TOPDOWN_SOURCE", "1");
    o->pc_period = loose_long(get, "TOPDOWN_PC_PERIOD");
    o->no_timing = get("TOPDOWN_NO_TIMING") != NULL;
    o->no_copies = get("TOPDOWN_NO_COPIES") != NULL;
    o->debug = get("TOPDOWN_DEBUG") != NULL;
}

int td_collect_opts_read(td_collect_opts *o, td_collect_getenv_fn get, char *msg, size_t size)
{
    memset(o, 0, sizeof *o);
    int filter_ok = read_filter(o, get, msg, size) == 0;
    int texts_ok = read_texts(o, get) == 0;
    if (!filter_ok) { /* the filter is off: no regex either */
        free(o->kernel_regex);
        o->kernel_regex = NULL;
    }
    read_collection(o, get);
    read_flags(o, get);
    if (filter_ok && !texts_ok)
        snprintf(msg, size, "out of memory reading the TOPDOWN_* variables");
    return filter_ok && texts_ok ? 0 : -1;
}

const char *td_replay_mode_word(td_replay_mode mode)
{
    return mode >= TD_REPLAY_AUTO && mode <= TD_REPLAY_KERNEL ? mode_words[mode] : "?";
}
