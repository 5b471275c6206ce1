/* Crafted results for the output tests (CSV, plot, timeline, diff): the
 * test arch table of td_testlib.h and a legacy (nvprof) table, and
 * launches built from the level-1 shares they should have. */
#ifndef TD_OUTPUTS_TESTLIB_H
#define TD_OUTPUTS_TESTLIB_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "levels/aggregate.h"
#include "metrics/csv_read.h"
#include "td_testlib.h"

/* Range-profiler counters of the test table, in this order. */
enum { FX_INST, FX_ISSUED, FX_THREADS, FX_CYCLES, FX_DURATION, FX_NOINST, FX_LONGSB,
       FX_LGTHR, FX_WAIT, FX_COUNT };

enum { FXL_IPC, FXL_ISSUED, FXL_EFF, FXL_FETCH, FXL_MEM, FXL_EXEC, FXL_COUNT };

/* Writes both tables into DIR/archs and loads them (testarch, legacy). */
static inline void fx_load_archs(const char *dir, td_arch_set *set)
{
    char archs[256], path[512];
    td_error err;
    snprintf(archs, sizeof archs, "%s/archs", dir);
    mkdir(archs, 0700);
    td_test_write(archs, "testarch.json", td_test_arch_json, path, sizeof path);
    td_test_write(archs, "legacy.json", td_test_legacy_arch_json, path, sizeof path);
    if (td_arch_load_dir(archs, set, &err)) {
        fprintf(stderr, "fx_load_archs: %s\n", err.msg);
        exit(2);
    }
}

/* The wanted shares of a launch, as fractions: retire, branch (divergent
 * threads) and replay; the stalled rest split by the stall weights
 * (no_instruction = Frontend, long_scoreboard + lg_throttle = L1_Bound,
 * wait = Dependency_Wait). */
typedef struct fx_shares {
    double retire, branch, replay;
    double noinst, longsb, lgthr, wait;
} fx_shares;

static inline td_device *fx_device(td_result *res, const char *arch, int index)
{
    td_error err;
    td_device *dev = td_result_add_device(res, &err);
    int legacy = strcmp(arch, "legacy") == 0;
    dev->arch = td_strdup(arch);
    dev->index = index;
    dev->name = td_strdup(legacy ? "Tesla P100" : "NVIDIA Test");
    dev->chip = td_strdup(legacy ? "GP100" : "TEST1");
    if (td_device_set_metrics(dev, legacy ? td_test_legacy_metric_names : td_test_metric_names,
                              legacy ? FXL_COUNT : FX_COUNT, &err)) {
        fprintf(stderr, "fx_device: %s\n", err.msg);
        exit(2);
    }
    return dev;
}

/* Adds a profiled launch with those shares (IPC_MAX 4, 1000 cycles). */
static inline td_launch *fx_launch(td_device *dev, const char *kernel, double duration_ns,
                                   fx_shares s)
{
    td_error err;
    double used = s.retire + s.branch;
    double ipc = 4.0 * used, warp_eff = used > 0 ? s.retire / used : 1.0;
    td_launch *l;
    if (strcmp(dev->arch, "legacy") == 0) {
        double c[FXL_COUNT] = {ipc, ipc + 4.0 * s.replay, 100.0 * warp_eff,
                               s.noinst, s.longsb + s.lgthr, s.wait};
        l = td_device_add_launch(dev, kernel, c, &err);
    } else {
        double cycles = 1000, inst = ipc * cycles;
        double c[FX_COUNT] = {inst, inst + 4.0 * s.replay * cycles, 32.0 * inst * warp_eff,
                              cycles, duration_ns, s.noinst, s.longsb, s.lgthr, s.wait};
        l = td_device_add_launch(dev, kernel, c, &err);
    }
    if (!l) {
        fprintf(stderr, "fx_launch: %s\n", err.msg);
        exit(2);
    }
    l->id = dev->n_launches - 1;
    l->duration_ns = duration_ns;
    return l;
}

static inline td_launch *fx_unprofiled(td_device *dev, const char *kernel, double duration_ns)
{
    td_error err;
    td_launch *l = td_device_add_launch(dev, kernel, NULL, &err);
    l->id = dev->n_launches - 1;
    l->duration_ns = duration_ns;
    return l;
}

/* Index of a header field, or -1. */
static inline int fx_field_index(const td_csv_record *header, const char *name)
{
    for (size_t i = 0; i < header->count; i++)
        if (strcmp(header->fields[i], name) == 0)
            return (int)i;
    return -1;
}

/* Number of a CSV field, NAN when empty. */
static inline double fx_number(const char *field)
{
    if (!*field)
        return NAN;
    char *end;
    double v = strtod(field, &end);
    return *end ? -1e300 : v; /* an unparsable number fails any comparison */
}

/* ---- the CLI, run as a user would (TOPDOWN_BIN) ---- */

typedef struct fx_output {
    int status;       /* exit code */
    char out[65536];  /* stdout */
    char err[4096];   /* stderr */
} fx_output;

static inline void fx_slurp(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* Runs "[env] topdown args" (fixed test words, shell-quoted by the caller)
 * with stdout and stderr into dir. */
static inline void fx_run(const char *dir, const char *env, const char *args, fx_output *r)
{
    char cmd[4096], path[512];
    snprintf(cmd, sizeof cmd, "%s '%s' %s >'%s/stdout' 2>'%s/stderr'", env ? env : "",
             getenv("TOPDOWN_BIN"), args, dir, dir);
    int status = system(cmd);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
    snprintf(path, sizeof path, "%s/stdout", dir);
    fx_slurp(path, r->out, sizeof r->out);
    snprintf(path, sizeof path, "%s/stderr", dir);
    fx_slurp(path, r->err, sizeof r->err);
}

/* A synthetic result of tests/fixtures/outputs (h100, a100, p100). */
static inline const char *fx_fixture(const char *gpu, char *buf, size_t size)
{
    snprintf(buf, size, "%s/tests/fixtures/outputs/%s_synthetic.topdown.json",
             getenv("TOPDOWN_REPO_DIR"), gpu);
    return buf;
}

/* The real arch tables (TOPDOWN_ARCHS), for the fixtures. */
static inline void fx_real_archs(td_arch_set *set)
{
    td_error err;
    if (td_arch_load_dir(getenv("TOPDOWN_ARCHS"), set, &err)) {
        fprintf(stderr, "fx_real_archs: %s\n", err.msg);
        exit(2);
    }
}

#endif
