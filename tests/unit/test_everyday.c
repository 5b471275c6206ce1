/* Everyday use through the binary (issue 15): short kernel names and
 * labels that stay distinct, descriptions once with the "Fix:" advice,
 * compressed results read and written, the closing hint, describe's
 * suggestions and stall reasons, list-nodes' threshold key. */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../check.h"
#include "td_testlib.h"
#include "td_shell.h"

static char dir[64];

typedef td_run_output run_output;

static void run(const char *args, run_output *r)
{
    td_test_run_topdown(dir, args, r);
}

#define LAUNCH(name, mangled, ns)                                                          \
    "{\"kernel\": \"" name "\", \"mangled\": \"" mangled "\", \"duration_ns\": " ns          \
    ", \"counters\": {" TD_TEST_COUNTERS(ns) "}}"

/* Three kernels, two of one base name (they differ in a template argument). */
static const char result_json[] =
    "{\"schema\": \"topdown-result/1\", \"app\": {\"argv\": [\"./app\"], \"exit_code\": 0},"
    " \"devices\": [{\"arch\": \"testarch\", \"name\": \"Test GPU\","
    "  \"metrics\": [\"smsp__inst_executed.sum\", \"smsp__inst_issued.sum\","
    "   \"smsp__thread_inst_executed.sum\", \"sm__cycles_active.sum\", \"gpu__time_duration.sum\","
    "   \"s.no_instruction\", \"s.long_scoreboard\", \"s.lg_throttle\", \"s.wait\"],"
    "  \"launches\": ["
    LAUNCH("void at::native::(anonymous namespace)::apply_kernel<at::native::Meta<1>, float>(int, float*)",
           "_Z12apply_kernelILi1EEviPf", "5000") ","
    LAUNCH("void at::native::(anonymous namespace)::apply_kernel<at::native::Meta<2>, float>(int, float*)",
           "_Z12apply_kernelILi2EEviPf", "4000") ","
    LAUNCH("void gemm<float, 4>(float const*, int)", "_Z4gemmIfLi4EEvPKfi", "3000")
    "]}]}";

static void test_names(void)
{
    run_output r;
    run("report names.json -l 3", &r);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "Kernel 3/3: gemm\n") != NULL);
    CHECK(strstr(r.out, "Kernel 1/3: apply_kernel [Meta<1>") != NULL);
    CHECK(strstr(r.out, "Kernel 2/3: apply_kernel [Meta<2>") != NULL);
    CHECK(strstr(r.out, "(anonymous namespace)") == NULL);
    run("report names.json -l 1 --kernel-name-base demangled", &r);
    CHECK(r.status == 0 && strstr(r.out, "Kernel 3/3: void gemm<float, 4>(float const*, int)\n"));
    run("report names.json -l 1 --kernel-name-base mangled", &r);
    CHECK(r.status == 0 && strstr(r.out, "Kernel 3/3: _Z4gemmIfLi4EEvPKfi\n"));
    run("report names.json --kernel-name-base short", &r);
    CHECK(r.status != 0 && strstr(r.err, "function, demangled or mangled") != NULL);
    /* the CSV: full names, and the base name in a column of its own */
    run("report names.json -l 1 --csv -", &r);
    CHECK(strstr(r.out, ",bottleneck,kernel_function,Retire_lo,Retire_hi,") != NULL);
    CHECK(strstr(r.out, "\"void gemm<float, 4>(float const*, int)\",") != NULL);
    CHECK(strstr(r.out, ",gemm,") != NULL); /* then the intervals */
    /* plot labels: base names, the colliding ones kept apart */
    run("plot names.json -l 1 -o bars.png", &r);
    char dat[1 << 14];
    td_test_slurp("bars.dat", dat, sizeof dat);
    CHECK(strstr(dat, "\ngemm #3 (") != NULL); /* its rank: distinct, what -k takes */
    CHECK(strstr(dat, "\napply_kernel [Meta<1>") != NULL);
    CHECK(strstr(dat, "\napply_kernel [Meta<2>") != NULL);
    /* diff labels */
    run("diff names.json names.json -l 1", &r);
    CHECK(r.status == 0 && strstr(r.out, "Kernel 3/3: gemm\n") != NULL);
    CHECK(strstr(r.out, ": apply_kernel [Meta<2>") != NULL);
}

static void test_descriptions(void)
{
    run_output r;
    /* the bottleneck's description once, its advice under each <== */
    run("report names.json -l 3 --kernels 0", &r);
    CHECK(r.status == 0);
    CHECK(td_count(r.out, "<==") == 4);
    CHECK(td_count(r.out, "Waiting for L1TEX") == 1);
    CHECK(td_count(r.out, "        Fix: coalesce accesses") == 4);
    CHECK(strstr(r.out, "Issue slots that retired") == NULL);
    run("report names.json -l 3 --kernels 0 --desc", &r);
    CHECK(td_count(r.out, "Issue slots that retired") == 4);
    CHECK(td_count(r.out, "Waiting for L1TEX") == 4);
    run("report names.json -l 3 --no-desc", &r);
    CHECK(strstr(r.out, "Fix:") == NULL && strstr(r.out, "Waiting for L1TEX") == NULL);
}

static int file_starts_with(const char *path, const char *magic, size_t n)
{
    char head[8] = {0};
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, n, f) : 0;
    if (f)
        fclose(f);
    return got == n && memcmp(head, magic, n) == 0;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_compressed(void)
{
    const char *src = getenv("TOPDOWN_REPO_DIR");
    char args[2048], archs[1024];
    run_output r;
    /* written compressed when the name says so, and read back everywhere */
    const char *saved = getenv("TOPDOWN_ARCHS");
    char *keep = saved ? strdup(saved) : NULL;
    snprintf(archs, sizeof archs, "%s/archs", src);
    setenv("TOPDOWN_ARCHS", archs, 1);
    /* the project's own PyTorch recording, read as it is */
    snprintf(args, sizeof args,
             "report '%s/benchmarks/results/h100_pytorch_mlp.topdown.json.xz' -l 2", src);
    run(args, &r);
    CHECK(r.status == 0 && strstr(r.out, "Kernels:  46 kernels, 17,122 launches") != NULL);
    CHECK(strstr(r.out, "h100_pytorch_mlp.topdown.json.xz") != NULL); /* its name in the header */
    CHECK(strstr(r.out, "multi_tensor_apply_kernel [") != NULL);
    static const char *const names[] = {"imported.json.xz", "imported.json.gz"};
    static const char *const magic[] = {"\xFD" "7zXZ", "\x1F\x8B"};
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args,
                 "import-nvprof '%s/tests/fuzz/nvprof/seeds/metrics_and_times.csv' --arch gp100 -o %s",
                 src, names[i]);
        run(args, &r);
        CHECK(r.status == 0);
        CHECK(file_starts_with(names[i], magic[i], i == 0 ? 5 : 2));
        snprintf(args, sizeof args, "report %s -l 2", names[i]);
        run(args, &r);
        CHECK(r.status == 0 && strstr(r.out, "Kernel 1/") != NULL);
        snprintf(args, sizeof args, "report %s --csv -", names[i]);
        run(args, &r);
        CHECK(r.status == 0 && strstr(r.out, "kernel,launches,") == r.out);
        snprintf(args, sizeof args, "diff %s %s", names[0], names[i]);
        run(args, &r);
        CHECK(r.status == 0 && strstr(r.out, "Kernels: ") != NULL);
        snprintf(args, sizeof args, "plot %s -f", names[i]);
        run(args, &r);
        CHECK(r.status == 0);
    }
    CHECK(exists("imported.png") && exists("imported.dat")); /* FILE.json.xz -> FILE.png */
    if (keep)
        setenv("TOPDOWN_ARCHS", keep, 1);
    free(keep);
    /* a damaged one is named as such */
    FILE *f = fopen("damaged.json.xz", "wb");
    if (f) {
        fwrite("\xFD" "7zXZ\0garbage", 1, 13, f);
        fclose(f);
    }
    run("report damaged.json.xz", &r);
    CHECK(r.status != 0 && strstr(r.err, "damaged xz data") != NULL);
}

/* After the text report: the hints are for a terminal (test_view runs
 * one), never into a pipe or a file. */
static void test_hint(void)
{
    run_output r;
    run("report names.json -l 2", &r);
    CHECK(r.status == 0 && strstr(r.err, "next:") == NULL);
    run("report names.json --json", &r);
    CHECK(r.status == 0 && r.err[0] == '\0');
    run("report names.json --csv -", &r);
    CHECK(r.status == 0 && r.err[0] == '\0');
}

/* setup.sh's build is not silent: its progress filter shows percentages. */
static void test_build_progress(void)
{
    char cmd[2048], err[1024];
    snprintf(cmd, sizeof cmd,
             "printf '[  5%%%%] a\\nwarning\\n[ 45%%%%] b\\n[100%%%%] c\\n' | "
             "bash '%s/scripts/build_progress.sh' build.log 2>progress.txt",
             getenv("TOPDOWN_REPO_DIR"));
    CHECK(system(cmd) == 0);
    td_test_slurp("progress.txt", err, sizeof err);
    CHECK(strstr(err, "setup: building... 45%\n") != NULL);
    CHECK(strstr(err, "setup: building... 100%\n") != NULL);
    td_test_slurp("build.log", err, sizeof err);
    CHECK(strstr(err, "warning\n") != NULL); /* the whole output is logged */
}

static void test_describe(void)
{
    run_output r;
    run("describe l1_bound", &r);
    CHECK(r.status == 0 && strstr(r.out, "Backend.Memory_Bound.L1_Bound (level 3") == r.out);
    run("describe LONG_Scoreboard", &r);
    CHECK(r.status == 0 && strstr(r.out, "long_scoreboard (stall reason, level 4)") == r.out);
    CHECK(strstr(r.out, "testarch: s.long_scoreboard under Backend.Memory_Bound.L1_Bound") != NULL);
    CHECK(strstr(r.out, "  Fix: coalesce accesses") != NULL);
    run("describe L1_bond", &r);
    CHECK(r.status != 0 && strstr(r.err, "did you mean L1_Bound?") != NULL);
    CHECK(strchr(r.err, '\n') == r.err + strlen(r.err) - 1);
    run("describe long_scorebord", &r);
    CHECK(r.status != 0 && strstr(r.err, "did you mean long_scoreboard") != NULL);
    run("describe zzzzzzzz", &r);
    CHECK(r.status != 0 && strstr(r.err, "did you mean") == NULL);
    run("list-nodes", &r);
    CHECK(r.status == 0 && strstr(r.out, "20% of all") != NULL);
    CHECK(strstr(r.out, "10% of parent") != NULL && strstr(r.out, "p*") == NULL);
    CHECK(strstr(r.out, "\nThreshold: a node counts") != NULL);
    run("report names.json --kernels -1", &r);
    CHECK(r.status != 0 && strstr(r.err, "0 or more") != NULL);
    CHECK(strstr(r.err, "9223372036854775807") == NULL);
    run("list-nodes -l 6", &r);
    CHECK(r.status != 0 && strstr(r.err, "from 1 to 5") != NULL);
}

/* `topdown -- sh train.sh` is train.topdown.json, not sh.topdown.json. */
static void test_script_name(void)
{
    /* The script plays a CUDA app: it hands topdown a recorded spool, so the
     * run measured something and writes its result. */
    FILE *f = fopen("train.sh", "w");
    if (f) {
        fprintf(f, "cat '%s/tests/fixtures/h100/td_smoke.spool' >> " TD_SHELL_OPTION("spool")
                   "\n",
                getenv("TOPDOWN_REPO_DIR"));
        fclose(f);
    }
    run_output r;
    /* the recorded spool is GH100's: the real tables read it */
    char *keep = strdup(getenv("TOPDOWN_ARCHS"));
    char archs[1024];
    snprintf(archs, sizeof archs, "%s/archs", getenv("TOPDOWN_REPO_DIR"));
    setenv("TOPDOWN_ARCHS", archs, 1);
    run("--no-progress -- sh train.sh", &r);
    setenv("TOPDOWN_ARCHS", keep, 1);
    free(keep);
    if (r.status != 0)
        fprintf(stderr, "topdown -- sh train.sh exited %d:\n%s\n", r.status, r.err);
    CHECK(r.status == 0);
    CHECK(exists("train.topdown.json"));
    CHECK(!exists("sh.topdown.json"));
}

int main(void)
{
    if (td_test_start_cli(dir, sizeof dir) != 0)
        return 1;
    char path[256];
    td_test_write(dir, "names.json", result_json, path, sizeof path);
    test_names();
    test_descriptions();
    test_compressed();
    test_script_name();
    test_hint();
    test_describe();
    test_build_progress();
    if (chdir("/") != 0)
        return 1;
    td_test_cleanup(dir);
    return td_check_summary();
}
