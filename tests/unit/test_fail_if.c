/* Issue 15, item 6: diff --fail-if, the regression gate, through the
 * binary on the recorded results (H100 and H200 benchmark runs) and the
 * synthetic H100/A100 pair: exit 4 when a kernel in both results breaks
 * a rule, the breaks listed largest change first; exit 0 when none does;
 * exit 2 for a bad rule, before any output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"

static const char *bin;
static char dir[] = "/tmp/td_failifXXXXXX";
static char bench[4200], bench64[4200], pytorch[4200], h100[4200], h200[4200], syn_h100[4200], syn_a100[4200];

#define run(...) td_shell_run(dir, __VA_ARGS__)

static char text[1 << 16];

static const char *slurp(const char *name)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    return text;
}

static int has(const char *file, const char *needle)
{
    return td_shell_file_has(dir, file, needle);
}

/* Whether the needles appear in this order in the file. */
static int in_order(const char *file, const char *const *needles, size_t n)
{
    const char *at = slurp(file);
    for (size_t i = 0; i < n; i++) {
        at = strstr(at, needles[i]);
        if (!at) {
            fprintf(stderr, "%s: \"%s\" missing or out of order:\n%s\n", file, needles[i], text);
            return 0;
        }
    }
    return 1;
}

static int count(const char *file, const char *needle)
{
    int n = 0;
    for (const char *at = slurp(file); (at = strstr(at, needle)); at++)
        n++;
    return n;
}

static void test_recorded_runs(void)
{
    CHECK(run("%s diff %s %s -l 2 --fail-if 'Backend.Memory_Bound>+5'", bin, bench, bench64) == 0);
    CHECK(has("err.txt", "--fail-if 'Backend.Memory_Bound>+5': passed (the application and the 10 kernels of both results)"));
    CHECK(has("out.txt", "Application: A"));
    /* two rules, comma-separated: the larger change first */
    CHECK(run("%s diff %s %s --fail-if 'Backend.Memory_Bound<-1,Retire>+1'", bin, bench,
              bench64) == 4);
    const char *two[] = {"2 rule breaks in the application and the 10 kernels of both results",
                         "Backend.Memory_Bound<-1      B-A   -1.6 (A  96.9, B  95.3)  bench_l1_bound",
                         "Retire>+1                    B-A   +1.1 (A   2.3, B   3.4)  bench_l1_bound"};
    CHECK(in_order("err.txt", two, 3));
    /* absolute: B's share over 30% */
    CHECK(run("%s diff %s %s --fail-if 'Backend.Memory_Bound>30'", bin, bench, bench64) == 4);
    CHECK(count("err.txt", "  Backend.Memory_Bound>30 ") == 4);
    const char *abs_order[] = {"B-A   -1.6 (A  96.9, B  95.3)  bench_l1_bound", "bench_constant"};
    CHECK(in_order("err.txt", abs_order, 2));
    /* H100 against H200 */
    CHECK(run("%s diff %s %s --fail-if 'Backend.Memory_Bound>+0.5,Backend.Memory_Bound<-0.5'",
              bin, h100, h200) == 4);
    CHECK(has("err.txt", "1 rule break in the application and the 10 kernels"));
    CHECK(has("err.txt", "Backend.Memory_Bound<-0.5    B-A   -1.3 (A  96.9, B  95.6)  bench_l1_bound"));
    /* bare node names and stall paths */
    CHECK(run("%s diff %s %s --fail-if 'L1_Bound>+0.5,Backend.Memory_Bound.L1_Bound.long_scoreboard>+50'",
              bin, h100, h200) == 0);
    /* the CSV to stdout, the verdict on stderr */
    CHECK(run("%s diff %s %s --csv - --fail-if 'Retire>+1'", bin, bench, bench64) == 4);
    CHECK(strncmp(slurp("out.txt"), "kernel,in,", 10) == 0);
}

static void test_sorted_by_change(void)
{
    CHECK(run("%s diff %s %s --fail-if 'Backend.Memory_Bound>+5'", bin, syn_h100, syn_a100) == 4);
    const char *order[] = {"+10.9 (A  10.7, B  21.6)  compute_dt", "+9.0 (A  33.9, B  42.9)  apply_bc",
                           "+5.6 (A   4.5, B  10.1)  void gemm_tile"};
    CHECK(in_order("err.txt", order, 3));
    CHECK(count("err.txt", "Backend.Memory_Bound>+5 ") == 13); /* 12 kernels, the app */
    /* the other way round: the same moves are drops */
    CHECK(run("%s diff %s %s --fail-if 'Backend.Memory_Bound<-5'", bin, syn_a100, syn_h100) == 4);
    CHECK(count("err.txt", "Backend.Memory_Bound<-5 ") == 13);
    CHECK(run("%s diff %s %s --fail-if 'Backend.Memory_Bound>+5'", bin, syn_a100, syn_h100) == 0);
}

static void test_bad_rules(void)
{
    const char *bad[] = {"Nope>3", "Retire>+x", "Retire", ">5", "Retire>+5,", "Retire>200",
                         "time>10%", "time>+10", "time>+x%"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = run("%s diff %s %s --fail-if '%s'", bin, bench, bench64, bad[i]);
        if (rc != 2)
            fprintf(stderr, "--fail-if '%s': exit %d, not 2\n", bad[i], rc);
        CHECK(rc == 2);
        CHECK(slurp("out.txt")[0] == '\0');
        CHECK(has("err.txt", "--fail-if '"));
    }
    CHECK(run("%s report %s --fail-if 'Retire>+5'", bin, bench) == 2);
}

/* Issue 27, item 1: a gate that compared no kernel fails (exit 4); the
 * application row is gated too; GPU-time rules. */
static void test_gate_compares_something(void)
{
    /* td_bench and PyTorch share no kernel: never "passed" */
    CHECK(run("%s diff %s %s --fail-if 'Backend>+50'", bin, bench, pytorch) == 4);
    CHECK(has("err.txt", "failed: no kernel is in both results"));
    CHECK(!has("err.txt", "passed"));
    /* the application's Retire moved 17.0 -> 44.4 */
    CHECK(run("%s diff %s %s --fail-if 'Retire>+10'", bin, bench, pytorch) == 4);
    CHECK(has("err.txt", "Retire>+10                   B-A  +27.4 (A  17.0, B  44.4)  <application>"));
    /* GPU time per launch (a kernel's median): td_bench's 64 MB run (5
     * launches a kernel, not 3) takes as long a launch but in
     * bench_l1_bound, a third faster */
    CHECK(run("%s diff %s %s --fail-if 'time>+10%%'", bin, bench, bench64) == 0);
    CHECK(run("%s diff %s %s --fail-if 'time<-10%%'", bin, bench, bench64) == 4);
    CHECK(has("err.txt", "1 rule break in the application and the 10 kernels"));
    CHECK(has("err.txt", "time<-10%                    B/A  -33.3% (A 0.991 ms, B 0.661 ms per "
              "launch, median)  bench_l1_bound("));
    CHECK(run("%s diff %s %s --fail-if 'time>+10%%'", bin, bench64, bench) == 4);
}

static void fixture(char *buf, const char *src, const char *path)
{
    snprintf(buf, 4200, "'%s/%s'", src, path);
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    const char *src = getenv("TOPDOWN_REPO_DIR");
    if (!bin || !src || !mkdtemp(dir)) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_REPO_DIR must be set\n");
        return 1;
    }
    fixture(bench, src, "benchmarks/results/h100_td_bench.topdown.json");
    fixture(bench64, src, "benchmarks/results/h100_td_bench_64mb.topdown.json");
    fixture(pytorch, src, "tests/fixtures/h200/h200_pytorch_mlp.topdown.json");
    fixture(h100, src, "tests/fixtures/h100/td_bench.topdown.json");
    fixture(h200, src, "tests/fixtures/h200/h200_bench_groups.topdown.json");
    fixture(syn_h100, src, "tests/fixtures/outputs/h100_synthetic.topdown.json");
    fixture(syn_a100, src, "tests/fixtures/outputs/a100_synthetic.topdown.json");
    test_recorded_runs();
    test_sorted_by_change();
    test_bad_rules();
    test_gate_compares_something();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
