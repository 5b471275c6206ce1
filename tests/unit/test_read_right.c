/* What users read must be right (issue 41), through the binary on the
 * bundled recordings: --by-region's header is the run's; no verdict over
 * mostly unattributed slots; the clock asked beside the clock measured;
 * diff's times per launch; --timeline with --csv refused; a result given
 * where an app goes; bad values and files said as such. */
#include <stdlib.h>

#include "../check.h"
#include "levels/model.h"
#include "metrics/result/conditions.h"
#include "td_testlib.h"

static char dir[64];
static const char *repo;

static td_run_output r;

static void run(const char *args)
{
    td_test_run_topdown(dir, args, &r);
}

/* The header of a text report: what comes before the line starting with
 * stop, copied into buf. */
static void header_until(const char *text, const char *stop, char *buf, size_t size)
{
    const char *end = strstr(text, stop);
    size_t n = end ? (size_t)(end - text) : strlen(text);
    if (n >= size)
        n = size - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
}

/* --by-region's header holds the run's totals and notes, not region 1's. */
static void test_by_region_header(void)
{
    static char whole[1 << 13], regions[1 << 13];
    char args[1024];
    snprintf(args, sizeof args,
             "report '%s/benchmarks/results/recordings_2026-11-26/h100_pytorch_nvtx.json.xz'",
             repo);
    run(args);
    CHECK(r.status == 0);
    header_until(r.out, "\n\nApplication:", whole, sizeof whole);
    strncat(args, " --by-region", sizeof args - strlen(args) - 1);
    run(args);
    CHECK(r.status == 0);
    header_until(r.out, "\n\n=== NVTX region 1/", regions, sizeof regions);
    CHECK(strstr(regions, "46 kernels, 17,122 launches") != NULL);
    CHECK(strcmp(whole, regions) == 0);
}

/* A kernel of the merged DDP ranks whose slots are 87% unattributed: "not
 * enough data" with the fix, no "Retire-bound". */
static void test_not_enough_data(void)
{
    char args[1024];
    snprintf(args, sizeof args,
             "merge '%s'/benchmarks/results/multigpu_NVIDIA_H200_2026-11-26/ddp.0.json.xz "
             "'%s'/benchmarks/results/multigpu_NVIDIA_H200_2026-11-26/ddp.1.json.xz -o '%s/ddp.json'",
             repo, repo, dir);
    run(args);
    CHECK(r.status == 0);
    snprintf(args, sizeof args, "report '%s/ddp.json' -l 3 -k CatArray", dir);
    run(args);
    CHECK(r.status == 0);
    const char *kernel = strstr(r.out, "Kernel 35/35: CatArray");
    CHECK(kernel != NULL);
    if (!kernel)
        return;
    CHECK(strstr(kernel, "Not enough data: 87.3% of slots Unattributed, no verdict;") != NULL);
    CHECK(strstr(kernel, "--overhead unlimited") != NULL);
    CHECK(strstr(kernel, "--replay-mode kernel") != NULL);
    CHECK(strstr(kernel, "Retire-bound") == NULL);
    CHECK(strstr(kernel, "<==") == NULL);
}

/* The verdict: a Backend over its threshold is the bottleneck while most
 * slots are known, and none is named when most are unattributed. */
static void test_verdict_unattributed(void)
{
    char path[512];
    td_error err;
    td_arch arch;
    td_model model;
    td_test_write(dir, "testarch.json", td_test_arch_json, path, sizeof path);
    CHECK(td_arch_load_file(path, &arch, &err) == 0);
    CHECK(td_model_init(&model, &arch, &err) == 0);
    td_breakdown b;
    memset(&b, 0, sizeof b);
    b.has_slots = 1;
    b.node[TD_N_RETIRE] = 0.10;
    b.node[TD_N_BACKEND] = 0.45;
    b.unattributed = 0.45;
    td_verdict v;
    td_model_judge(&model, &b, &v);
    CHECK(!v.not_enough_data && v.bottleneck[1] == td_model_find(&model, "Backend"));
    b.node[TD_N_BACKEND] = 0.30;
    b.unattributed = 0.60;
    td_model_judge(&model, &b, &v);
    CHECK(v.not_enough_data && v.bottleneck[1] == -1 && v.bottleneck[3] == -1);
    td_arch_free(&arch);
}

/* The stencil locked to 1980 MHz ran at 1586: both said, and a warning. */
static void test_clock_not_held(void)
{
    char args[1024];
    snprintf(args, sizeof args, "report '%s/benchmarks/results/recordings_2026-11-26/"
             "h100_td_stencil_conditions.json.xz' -l 1", repo);
    run(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "(locked\n          to base, 1980 MHz asked, 1586 MHz measured)") != NULL);
    CHECK(strstr(r.out, "WARNING:  the clock did not hold: the launches measured 1586 MHz") != NULL);
    CHECK(strstr(r.out, "20% below the 1980 MHz asked") != NULL);
    /* within 10% of the clock asked, or not locked: no warning */
    td_conditions c = {.cache_control = "all", .clock_control = "base", .clock_mhz = 1980};
    CHECK(td_conditions_clock_missed(&c, 1586));
    CHECK(td_conditions_clock_missed(&c, 2200));
    CHECK(!td_conditions_clock_missed(&c, 1800));
    CHECK(!td_conditions_clock_missed(&c, 0));
    char text[256];
    td_conditions_describe(&c, 0, text, sizeof text);
    CHECK(strstr(text, "(locked to base, 1980 MHz)") != NULL);
    c.clock_control = "none";
    CHECK(!td_conditions_clock_missed(&c, 1586));
    td_conditions_describe(&c, 1586, text, sizeof text);
    CHECK(strstr(text, "(clocks not locked)") != NULL);
}

/* H100 against H200, 3 launches a kernel against 25: per launch, no
 * "+733%"; a speedup and the warnings on what differs. */
static void test_diff_per_launch(void)
{
    char args[1024];
    snprintf(args, sizeof args, "diff '%s/benchmarks/results/h100_td_bench.topdown.json' "
             "'%s/tests/fixtures/h200/h200_bench_kernel.topdown.json' --fail-if 'time>+10%%'",
             repo, repo);
    run(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "WARNING: the launch counts differ (A 30, B 250; 10 of the 10 kernels in "
                 "both):") != NULL);
    CHECK(strstr(r.out, "Kernel 1/10: bench_ifetch\n  A 3 launches, 35.850 ms (39.8% of GPU "
                 "time); B 25 launches, 289.738 ms (39.4% of GPU time)\n  per launch (median): "
                 "A 11.936 ms, B 11.589 ms, speedup 1.03x (A/B)\n") != NULL);
    CHECK(strstr(r.out, "different architectures") == NULL); /* both GH100 */
    snprintf(args, sizeof args, "diff '%s/tests/fixtures/outputs/h100_synthetic.topdown.json' "
             "'%s/tests/fixtures/outputs/a100_synthetic.topdown.json' -l 1", repo, repo);
    run(args);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "WARNING: A and B ran on different architectures (A gh100 (Hopper), B "
                 "ga100 (Ampere))") != NULL);
    CHECK(strstr(r.out, "launch counts differ") == NULL); /* 173 and 173 */
}

/* The table of kernels is no timeline: --timeline with --csv is refused. */
static void test_timeline_csv(void)
{
    char args[1024];
    snprintf(args, sizeof args,
             "report '%s/benchmarks/results/recordings_2026-11-26/h100_pytorch_nvtx.json.xz' "
             "--timeline '#2' --csv -", repo);
    run(args);
    CHECK(r.status == 2 && r.out[0] == '\0');
    CHECK(strstr(r.err, "leave out one (--timeline with --json gives the timeline as data)"));
}

/* A result named where the app goes: topdown report, not chmod +x. */
static void test_result_as_app(void)
{
    char path[512];
    td_test_write(dir, "results.json", "{}", path, sizeof path);
    char here[512];
    if (!getcwd(here, sizeof here) || chdir(dir) != 0) {
        CHECK(!"cd into the test folder");
        return;
    }
    static const char *const words[] = {"results.json", "./results.json", "-l 2 -- results.json"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        run(words[i]);
        CHECK(r.status == 2);
        CHECK(strstr(r.err, "is a result, not an app to profile: topdown report ") != NULL);
        CHECK(strstr(r.err, "chmod") == NULL);
    }
    CHECK(chdir(here) == 0);
}

/* Validation: each bad value a usage error (2) naming it, before output;
 * files that are no result said as such. */
static void test_validation(void)
{
    char bench[512], args[1536], path[512];
    snprintf(bench, sizeof bench, "'%s/benchmarks/results/h100_td_bench.topdown.json'", repo);
    snprintf(args, sizeof args, "report %s --nodes ''", bench);
    run(args);
    CHECK(r.status == 2 && strstr(r.err, "--nodes is empty") != NULL);
    snprintf(args, sizeof args, "report %s --arch gp100", bench);
    run(args);
    CHECK(r.status == 2 && strstr(r.err, "--arch gp100 does not fit this result") != NULL);
    /* a folder that takes no new file (root's access() allows /proc) */
    snprintf(args, sizeof args, "report %s --csv /proc/x.csv", bench);
    run(args);
    CHECK(r.status == 2 && r.out[0] == '\0' && strstr(r.err, "cannot write /proc/x.csv") != NULL);
    snprintf(args, sizeof args, "merge %s %s", bench, bench);
    run(args);
    CHECK(r.status == 2 && strstr(r.err, "merge needs -o ALL.json") != NULL);
    td_test_write(dir, "random.json.xz", "\x12\x34 not xz at all", path, sizeof path);
    snprintf(args, sizeof args, "report '%s'", path);
    run(args);
    CHECK(r.status == 1 && strstr(r.err, "not xz data") != NULL);
    static const char *const others[] = {"a,b\n1,2\n", "[1, 2]", "{\"kernels\": 3}",
                                         "{\"schema\": \"topdown-arch/1\"}"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        td_test_write(dir, "other.json", others[i], path, sizeof path);
        snprintf(args, sizeof args, "report '%s'", path);
        run(args);
        CHECK(r.status == 1 && strstr(r.err, "other.json: not a topdown result (") != NULL);
    }
}

int main(void)
{
    repo = getenv("TOPDOWN_REPO_DIR");
    if (!getenv("TOPDOWN_BIN") || !repo) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_REPO_DIR must be set\n");
        return 1;
    }
    td_test_tmpdir(dir, sizeof dir);
    test_by_region_header();
    test_not_enough_data();
    test_verdict_unattributed();
    test_clock_not_held();
    test_diff_per_launch();
    test_timeline_csv();
    test_result_as_app();
    test_validation();
    td_test_cleanup(dir);
    return td_check_summary();
}
