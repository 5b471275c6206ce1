/* The recordings of 2026-11-26 (benchmarks/results/recordings_2026-11-26/,
 * issue 24), read with the built topdown without a GPU: each one loads and
 * goes through report, csv and trace (and plot, where it has counters and
 * gnuplot is here); what each was recorded to show is still in it: the
 * PyTorch loop's >= 100,000 launches on an H100 in the current schema, the
 * conditions (caches flushed, clocks locked), the NVTX regions of the
 * PyTorch loop and --nvtx-include 'forward/' profiling only forward
 * launches, td_bench's PC samples with their cubins (bench_l1_bound's
 * hottest line on its TD_HOT marker, td_bench.cu:211 at the recording's
 * commit) and the note saying why that run has no counters, and the PM
 * timeline. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"
#include "metrics/file_text.h"
#include "metrics/result/compress.h"
#include "metrics/result/pcsamp.h"
#include "metrics/result/result.h"

#define BUNDLE "benchmarks/results/recordings_2026-11-26"

static const char *bin;
static char dir[] = "/tmp/td_recXXXXXX";
static char bundle[2048];
static int have_gnuplot;

#define run(...) td_shell_run(dir, __VA_ARGS__)

static int load(const char *name, td_result *res)
{
    return td_shell_load_result(bundle, name, res);
}

static int has(const char *text, const char *needle)
{
    int found = text && strstr(text, needle) != NULL;
    if (!found)
        fprintf(stderr, "output lacks \"%s\"\n", needle);
    return found;
}

/* Every recording: the report (level 3), the CSV on stdout, the trace (a
 * JSON object with events) and, for those with counters, the plot. */
static void test_readable(const char *name, int plot)
{
    printf("  %s\n", name);
    CHECK(run("%s report '%s/%s' -l 3", bin, bundle, name) == 0);
    char *out = td_shell_read_file(dir, "out.txt");
    CHECK(has(out, "Device:   NVIDIA H"));
    free(out);
    CHECK(run("%s report '%s/%s' --csv -", bin, bundle, name) == 0);
    out = td_shell_read_file(dir, "out.txt");
    const char *nl = out ? strchr(out, '\n') : NULL;
    CHECK(nl && nl[1] != '\0'); /* a header and rows */
    free(out);
    CHECK(run("%s trace '%s/%s' -o trace.json -f", bin, bundle, name) == 0);
    cJSON *root = td_shell_read_json(dir, "trace.json");
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK(cJSON_IsArray(events) && cJSON_GetArraySize(events) > 0);
    cJSON_Delete(root);
    if (plot && have_gnuplot) {
        CHECK(run("%s plot '%s/%s' -o plot.png -f", bin, bundle, name) == 0);
        CHECK(td_shell_file_size(dir, "plot.png") > 1000);
    }
}

/* The PyTorch loop of 2000 steps: >= 100,000 launches on an H100, in the
 * schema topdown writes now, some of them profiled. */
static void test_pytorch(void)
{
    const char *name = "h100_pytorch_mlp_2000.json.xz";
    char path[4096], *text = NULL;
    size_t len = 0;
    td_error err = {{0}};
    snprintf(path, sizeof path, "%s/%s", bundle, name);
    CHECK(td_read_text_file(path, &text, &len, &err) == 0 &&
          td_decompress_text(path, &text, &len, &err) == 0);
    static const char head[] = "{\"schema\":\"" TD_RESULT_SCHEMA "\"";
    CHECK(text && strncmp(text, head, sizeof head - 1) == 0);
    free(text);
    td_result res;
    if (load(name, &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK(res.n_devices == 1 && !res.synthetic);
    if (res.n_devices == 1) {
        const td_device *d = &res.devices[0];
        size_t profiled = 0;
        for (size_t i = 0; i < d->n_launches; i++)
            profiled += d->launches[i].profiled != 0;
        printf("  pytorch: %zu launches, %zu profiled on %s\n", d->n_launches, profiled,
               d->name);
        CHECK(d->name && strstr(d->name, "H100"));
        CHECK(d->n_launches >= 100000);
        CHECK(profiled > 0 && profiled < d->n_launches);
    }
    td_result_free(&res);
}

/* td_stencil under --cache-control all --clock-control base. */
static void test_conditions(void)
{
    td_result res;
    if (load("h100_td_stencil_conditions.json.xz", &res) != 0) {
        CHECK(0);
        return;
    }
    const td_conditions *c = &res.conditions;
    printf("  conditions: cache-control %s, clock-control %s, %.0f MHz\n",
           c->cache_control ? c->cache_control : "-", c->clock_control ? c->clock_control : "-",
           c->clock_mhz);
    CHECK_STR(c->cache_control, "all");
    CHECK(c->clock_control &&
          (strcmp(c->clock_control, "base") == 0 || strcmp(c->clock_control, "preset") == 0));
    CHECK(c->clock_mhz > 100);
    CHECK(res.n_devices == 1 && res.devices[0].name && strstr(res.devices[0].name, "H100"));
    td_result_free(&res);
    CHECK(run("%s report '%s/h100_td_stencil_conditions.json.xz'", bin, bundle) == 0);
    char *out = td_shell_read_file(dir, "out.txt");
    CHECK(has(out, "\nConditions: cache-control all (caches flushed before each profiled pass)"));
    free(out);
}

static size_t profiled_in(const td_device *d, const char *region, size_t *all)
{
    size_t n = 0;
    *all = 0;
    for (size_t i = 0; i < d->n_launches; i++) {
        const td_launch *l = &d->launches[i];
        if (!l->profiled)
            continue;
        ++*all;
        n += l->region && strcmp(l->region, region) == 0;
    }
    return n;
}

/* The PyTorch loop with NVTX ranges: a tree per region, step/forward among
 * them; under --nvtx-include 'forward/' every profiled launch is a forward
 * one, and fewer are profiled than without it, of the same launches. */
static void test_nvtx(void)
{
    CHECK(run("%s report '%s/h100_pytorch_nvtx.json.xz' --by-region -l 2", bin, bundle) == 0);
    char *out = td_shell_read_file(dir, "out.txt");
    CHECK(has(out, "\n=== NVTX region 2/4: step/forward | 4,800 launches, "));
    CHECK(has(out, ": step/backward | "));
    CHECK(has(out, ": step/optimizer | "));
    free(out);
    td_result all, fwd;
    if (load("h100_pytorch_nvtx.json.xz", &all) != 0) {
        CHECK(0);
        return;
    }
    if (load("h100_pytorch_nvtx_forward.json.xz", &fwd) != 0) {
        CHECK(0);
        td_result_free(&all);
        return;
    }
    CHECK(all.n_devices == 1 && fwd.n_devices == 1);
    if (all.n_devices == 1 && fwd.n_devices == 1) {
        size_t all_profiled, fwd_profiled;
        size_t all_in_fwd = profiled_in(&all.devices[0], "step/forward", &all_profiled);
        size_t fwd_in_fwd = profiled_in(&fwd.devices[0], "step/forward", &fwd_profiled);
        printf("  nvtx: %zu profiled (%zu forward); --nvtx-include 'forward/': %zu (%zu forward)\n",
               all_profiled, all_in_fwd, fwd_profiled, fwd_in_fwd);
        CHECK(fwd.devices[0].n_launches == all.devices[0].n_launches);
        CHECK(fwd_profiled > 0 && fwd_in_fwd == fwd_profiled);
        CHECK(all_in_fwd < all_profiled); /* the filter made the difference */
        CHECK(fwd_profiled < all_profiled);
    }
    td_result_free(&all);
    td_result_free(&fwd);
}

/* td_bench under --source (H200): PC samples and the cubin beside
 * the result, bench_l1_bound's hottest line td_bench.cu:211, no counters
 * and the note saying why. */
static void test_source(const char *gpu)
{
    char name[128];
    snprintf(name, sizeof name, "%s_td_bench_source.json.xz", gpu);
    td_result res;
    if (load(name, &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK(res.note && strstr(res.note, "beside --source's PC sampling"));
    CHECK(res.n_devices == 1);
    if (res.n_devices == 1) {
        const td_device *d = &res.devices[0];
        CHECK(d->name && strstr(d->name, strcmp(gpu, "h200") == 0 ? "H200" : "H100"));
        CHECK(d->pcsamp && d->pcsamp->total_samples > 0 && d->pcsamp->n_modules == 1 &&
              d->pcsamp->cubin_dir);
        /* every PC CUPTI handed back at Disable: more than the 4,096 that
         * the first recording of the day was cut to */
        CHECK(d->pcsamp && d->pcsamp->n_records > 4096);
    }
    td_result_free(&res);
    CHECK(run("%s source '%s/%s' '^bench_l1_bound' --csv - -n 1", bin, bundle, name) == 0);
    char *out = td_shell_read_file(dir, "out.txt");
    const char *row = out ? strchr(out, '\n') : NULL;
    /* rank,location,file,line,...: the file and line come from the cubin */
    char file[1024] = "";
    unsigned rank = 0, line = 0;
    CHECK(row && sscanf(row + 1, "%u,%*[^,],%1023[^,],%u,", &rank, file, &line) == 3);
    printf("  %s: bench_l1_bound's hottest line %s:%u\n", gpu, file, line);
    size_t n = strlen(file);
    CHECK(rank == 1 && n >= 11 && strcmp(file + n - 11, "td_bench.cu") == 0);
    CHECK(line == 211); /* TD_HOT(l1_bound) at commit 61a4cf9 */
    free(out);
}

/* The PyTorch loop under --pm-interval 100: the timeline. */
static void test_pm(void)
{
    CHECK(run("%s report '%s/h100_pytorch_pm.json.xz' --pm-timeline", bin, bundle) == 0);
    char *out = td_shell_read_file(dir, "out.txt");
    CHECK(has(out, "PM-sampling timeline, device 0: NVIDIA H100 80GB HBM3"));
    CHECK(has(out, "interval 100.0 us"));
    free(out);
    if (have_gnuplot) {
        CHECK(run("%s plot '%s/h100_pytorch_pm.json.xz' --pm-timeline -o pm.png -f", bin,
                  bundle) == 0);
        CHECK(td_shell_file_size(dir, "pm.png") > 1000);
    }
}

int main(void)
{
    const char *src;
    if (td_shell_start(dir, &bin, &src) != 0)
        return 1;
    snprintf(bundle, sizeof bundle, "%s/" BUNDLE, src);
    have_gnuplot = system("command -v gnuplot >/dev/null 2>&1") == 0;
    if (!have_gnuplot)
        printf("  no gnuplot here: plots not drawn\n");
    test_readable("h100_pytorch_mlp_2000.json.xz", 1);
    test_readable("h100_td_stencil_conditions.json.xz", 1);
    test_readable("h100_pytorch_nvtx.json.xz", 1);
    test_readable("h100_pytorch_nvtx_forward.json.xz", 1);
    test_readable("h100_pytorch_pm.json.xz", 0);      /* no counters: --pm-timeline */
    test_readable("h200_td_bench_source.json.xz", 0); /* no counters: topdown source */
    test_pytorch();
    test_conditions();
    test_nvtx();
    test_source("h200");
    test_pm();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
