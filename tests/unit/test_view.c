/* Everyday use, the presentation (issue 27): what the text report says
 * about spreads, counter groups and kernels without a bottleneck; the
 * closing hints; widths; one format per output; names that select their
 * kernel; list-nodes' levels and stall reasons. On the bundled H200
 * recordings, with the real arch tables. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../check.h"
#include "td_testlib.h"

static char dir[64];
static char smoke[512], pytorch[512], groups[512];

typedef td_run_output run_output;

static void run(const char *args, run_output *r)
{
    td_test_run_topdown(dir, args, r);
}

static void runf(run_output *r, const char *fmt, const char *file)
{
    char args[2048];
    snprintf(args, sizeof args, fmt, file);
    run(args, r);
}

/* The block of one kernel ("Kernel N/M: ...") up to the next one. */
static const char *kernel_block(const char *text, const char *head, char *buf, size_t size)
{
    const char *p = strstr(text, head);
    if (!p)
        return "";
    const char *end = strstr(p + 1, "\nKernel ");
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n >= size)
        n = size - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

/* Item 13: no "+-0.0" from one launch, no line of empty counter groups,
 * and a Retire-bound kernel says so. */
static void test_verdicts(void)
{
    run_output r;
    char block[4096];
    runf(&r, "report '%s' -l 1 --spread-threshold 0", smoke);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "+-0.0") == NULL); /* each kernel: one profiled launch */
    CHECK(strstr(r.out, "launches per counter group") == NULL); /* all replayed */
    runf(&r, "report '%s' -l 1 --spread-threshold 0", groups);
    CHECK(r.status == 0 && strstr(r.out, "launches per counter group: ") != NULL);
    CHECK(strstr(r.out, " +-") != NULL);
    CHECK(r.status == 0);
    kernel_block(r.out, "Kernel 3/10:", block, sizeof block);
    CHECK(strstr(block, "Retire  ") != NULL && strstr(block, "<==") == NULL);
    CHECK(strstr(block, "Retire-bound (99.2% of slots): no loss over its threshold") != NULL);
    kernel_block(r.out, "Kernel 4/10:", block, sizeof block);
    CHECK(strstr(block, "<==") != NULL && strstr(block, "bound (") == NULL);
    /* one launch of 450 measured: level 1 not known, no verdict either way
     * (it said "Retire-bound (86.0% of slots)") */
    runf(&r, "report '%s' -l 2", pytorch);
    CHECK(r.status == 0);
    kernel_block(r.out, "Kernel 1/46:", block, sizeof block);
    CHECK(strstr(block, "Retire  ") != NULL && strstr(block, "<==") == NULL);
    CHECK(strstr(block, "bound (") == NULL);
    CHECK(strstr(block, "No verdict: its level-1 shares are not known (n/k)") != NULL);
}

/* topdown with stderr on a terminal (script(1) gives it one), stdout into
 * dir/out; what the terminal showed into r->err. */
static void run_tty(const char *env, const char *args, run_output *r)
{
    char cmd[4096], path[256];
    snprintf(cmd, sizeof cmd,
             "script -qec \"%s '%s' %s >'%s/out'\" /dev/null >'%s/tty' 2>&1 </dev/null",
             env, getenv("TOPDOWN_BIN"), args, dir, dir);
    int status = system(cmd);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
    snprintf(path, sizeof path, "%s/out", dir);
    td_test_slurp(path, r->out, sizeof r->out);
    snprintf(path, sizeof path, "%s/tty", dir);
    td_test_slurp(path, r->err, sizeof r->err);
}

static void touch(const char *name)
{
    FILE *f = fopen(name, "w");
    if (f)
        fclose(f);
}

/* Item 8: hints on a terminal only, once, never the command just run,
 * names that work when the hint is run (twice), none for a result without
 * counters, none with --quiet or TOPDOWN_HINTS=0. */
static void test_hints(void)
{
    run_output r;
    char args[2048];
    runf(&r, "report '%s' -l 2", smoke);
    CHECK(r.status == 0 && strstr(r.err, "next:") == NULL); /* a file, not a terminal */
    snprintf(args, sizeof args, "report '%s' -l 2", smoke);
    run_tty("", args, &r);
    CHECK(r.status == 0 && strstr(r.out, "Kernel 1/6") != NULL);
    const char *next = strstr(r.err, "next:");
    CHECK(next != NULL && strstr(next + 1, "next:") == NULL); /* once */
    CHECK(strstr(r.err, " -l 4 --desc") != NULL);
    /* topdown as it was run: the hints work where it is not on PATH */
    char named[1024];
    snprintf(named, sizeof named, "%s report ", getenv("TOPDOWN_BIN"));
    CHECK(strstr(r.err, named) != NULL);
    CHECK(strstr(r.err, " -o bars.png") != NULL && strstr(r.err, "--csv kernels.csv") != NULL);
    /* the hint's files exist: the next hint names fresh ones */
    touch("kernels.csv");
    touch("bars.gp");
    run_tty("", args, &r);
    CHECK(strstr(r.err, "--csv kernels-2.csv") != NULL && strstr(r.err, " -o bars-2.png") != NULL);
    /* never the command just run */
    snprintf(args, sizeof args, "report '%s' -l 4 --desc --csv k.csv", smoke);
    run_tty("", args, &r);
    CHECK(r.status == 0 && strstr(r.err, "next:") != NULL);
    CHECK(strstr(r.err, "--desc") == NULL && strstr(r.err, "--csv") == NULL);
    /* off */
    snprintf(args, sizeof args, "report '%s' --quiet", smoke);
    run_tty("", args, &r);
    CHECK(r.status == 0 && strstr(r.out, "Kernel 1/6") != NULL && strstr(r.err, "next:") == NULL);
    snprintf(args, sizeof args, "report '%s'", smoke);
    run_tty("TOPDOWN_HINTS=0", args, &r);
    CHECK(r.status == 0 && strstr(r.out, "Kernel 1/6") != NULL && strstr(r.err, "next:") == NULL);
    /* a result without counters: nothing to plot or explain */
    char path[256];
    td_test_write(dir, "untimed.json",
                  "{\"schema\": \"topdown-result/1\", \"app\": {\"argv\": [\"./app\"], "
                  "\"exit_code\": 0}, \"devices\": [{\"arch\": \"gh100\", \"name\": \"G\", "
                  "\"metrics\": [], \"launches\": [{\"kernel\": \"k(int)\", "
                  "\"duration_ns\": 1000, \"profiled\": false}]}]}",
                  path, sizeof path);
    run_tty("", "report untimed.json", &r);
    CHECK(r.status == 0 && strstr(r.out, "Kernel 1/1: k") != NULL);
    CHECK(strstr(r.err, "next:") == NULL);
}

/* The widest line of text, and how many lines it has. */
static size_t widest(const char *text, int *lines)
{
    size_t most = 0;
    *lines = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        most = len > most ? len : most;
        (*lines)++;
        p += len + (nl != NULL);
    }
    return most;
}

/* The name after "Kernel N/M: " on the title line of kernel N. */
static void title_name(const char *text, const char *head, char *buf, size_t size)
{
    const char *p = strstr(text, head);
    buf[0] = '\0';
    if (!p)
        return;
    p += strlen(head);
    size_t n = strcspn(p, "\n");
    snprintf(buf, size, "%.*s", (int)n, p);
}

/* Item 9: 100 columns unless --wide; errors in a few wrapped lines. */
static void test_widths(void)
{
    run_output r;
    int lines = 0;
    runf(&r, "report '%s' -l 4 --kernels 0 --desc", pytorch);
    CHECK(r.status == 0 && widest(r.out, &lines) <= 100 && lines > 400);
    runf(&r, "report '%s' -l 3 --wide", pytorch);
    CHECK(r.status == 0 && widest(r.out, &lines) > 120);
    /* errors: wrapped on a terminal, one line (for grep) elsewhere */
    char args[1024];
    snprintf(args, sizeof args, "report '%s' -k no_such_kernel", pytorch);
    run_tty("", args, &r);
    CHECK(r.status != 0 && widest(r.err, &lines) <= 101 && lines <= 6); /* + the tty's \r */
    CHECK(strstr(r.err, "#1 Kernel2 [") != NULL);
    snprintf(args, sizeof args, "report '%s' --timeline no_such_kernel", pytorch);
    run_tty("", args, &r);
    CHECK(r.status != 0 && widest(r.err, &lines) <= 101 && lines <= 6);
    run(args, &r);
    CHECK(r.status != 0 && strchr(r.err, '\n') == r.err + strlen(r.err) - 1);
    CHECK(strlen(r.err) < 500);
}

/* The widest line of dir/out, whole (r.out holds its first 128 KiB). */
static size_t widest_out(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/out", dir);
    FILE *f = fopen(path, "r");
    size_t most = 0, len = 0;
    for (int c; f && (c = fgetc(f)) != EOF; len = c == '\n' ? 0 : len + 1)
        most = len + (c != '\n') > most ? len + (c != '\n') : most;
    if (f)
        fclose(f);
    return most;
}

/* Item 9: report --timeline, --by-region and diff fit 100 columns on
 * every bundled result (names elided, the timeline's node columns in
 * blocks); --wide keeps full lines. */
static void test_widths_everywhere(void)
{
    const char *src = getenv("TOPDOWN_REPO_DIR");
    static const char *const files[] = {
        "benchmarks/results/h100_td_bench.topdown.json",
        "benchmarks/results/h100_pytorch_mlp.topdown.json.xz",
        "tests/fixtures/h200/h200_bench_groups.topdown.json",
        "tests/fixtures/h200/h200_bench_kernel.topdown.json",
        "tests/fixtures/h200/h200_graphs.topdown.json",
        "tests/fixtures/h200/h200_pytorch_mlp.topdown.json",
        "tests/fixtures/h200/h200_smoke.topdown.json"};
    size_t n = sizeof files / sizeof *files;
    run_output r;
    char args[2048];
    for (size_t i = 0; i < n; i++) {
        for (int level = 1; level <= 4; level++) {
            for (int k = 1; k <= 2; k++) {
                snprintf(args, sizeof args, "report '%s/%s' -l %d --timeline '#%d'", src,
                         files[i], level, k);
                run(args, &r);
                CHECK(r.status == 0 && widest_out() <= 100);
            }
            snprintf(args, sizeof args, "report '%s/%s' -l %d --by-region", src, files[i],
                     level);
            run(args, &r);
            CHECK(r.status == 0 && widest_out() <= 100 && strstr(r.out, "=== NVTX region"));
            snprintf(args, sizeof args, "diff '%s/%s' '%s/%s' -l %d -v --kernels 0", src,
                     files[i], src, files[(i + 1) % n], level);
            run(args, &r);
            CHECK(r.status == 0 && widest_out() <= 100 && strstr(r.out, "Application: "));
        }
    }
    snprintf(args, sizeof args, "report '%s/%s' -l 3 --timeline '#1' --wide", src, files[1]);
    run(args, &r);
    CHECK(r.status == 0 && widest_out() > 100);
    snprintf(args, sizeof args, "diff '%s/%s' '%s/%s' --wide", src, files[1], src, files[5]);
    run(args, &r);
    CHECK(r.status == 0 && widest_out() > 100);
}

/* Item 7: a kernel's whole name, under any base, or as the report shows
 * it, selects it for -k as for --timeline. */
static void test_names(void)
{
    run_output r;
    char name[1024], args[2048];
    runf(&r, "report '%s' -l 1 --kernel-name-base demangled --wide", pytorch);
    title_name(r.out, "\nKernel 4/46: ", name, sizeof name);
    CHECK(strlen(name) > 100 && strchr(name, '\'') == NULL);
    snprintf(args, sizeof args, "report '%s' -l 1 -k '%s'", pytorch, name);
    run(args, &r);
    CHECK(r.status == 0 && strstr(r.out, "Kernels shown: 1 of 46") != NULL);
    CHECK(strstr(r.out, "\nKernel 4/46: ") != NULL);
    /* the names the default report shows: a label, an elided one */
    runf(&r, "report '%s' -l 1 --kernels 0", pytorch);
    static const char *const heads[] = {"\nKernel 1/46: ", "\nKernel 2/46: ", "\nKernel 11/46: "};
    for (int i = 0; i < 3; i++) {
        run_output one;
        title_name(r.out, heads[i], name, sizeof name);
        CHECK(name[0] != '\0' && strchr(name, '\'') == NULL);
        snprintf(args, sizeof args, "report '%s' -l 1 -k '%s'", pytorch, name);
        run(args, &one);
        CHECK(one.status == 0 && strstr(one.out, "Kernels shown: 1 of 46") != NULL);
        CHECK(strstr(one.out, heads[i]) != NULL);
        snprintf(args, sizeof args, "report '%s' --timeline '%s'", pytorch, name);
        run(args, &one);
        CHECK(one.status == 0 && strstr(one.out, "Timeline of kernel ") == one.out);
    }
}

/* Item 5: standard output holds one format: a CSV alone, the timeline as
 * JSON with --json; --timeline with --csv (the table of kernels) is refused
 * (issue 41). */
static void test_one_format(void)
{
    run_output r;
    char fixture[512];
    snprintf(fixture, sizeof fixture, "%s/tests/fixtures/outputs/h100_synthetic.topdown.json",
             getenv("TOPDOWN_REPO_DIR"));
    runf(&r, "report '%s' --timeline '#1' --csv -", fixture);
    CHECK(r.status == 2 && r.out[0] == '\0');
    CHECK(strstr(r.err, "--timeline prints one kernel's launches over time, and --csv the table "
                 "of kernels; leave out one") != NULL);
    runf(&r, "report '%s' --timeline stencil --csv-launches -", fixture);
    CHECK(r.status == 0 && strstr(r.out, "kernel,invocation,") == r.out);
    CHECK(strstr(r.out, "Timeline") == NULL);
    runf(&r, "report '%s' --timeline stencil -l 2 --json", fixture);
    cJSON *root = cJSON_Parse(r.out);
    CHECK(r.status == 0 && root != NULL);
    const cJSON *schema = cJSON_GetObjectItem(root, "schema");
    CHECK(cJSON_IsString(schema) && strcmp(schema->valuestring, "topdown-timeline/1") == 0);
    const cJSON *points = cJSON_GetObjectItem(root, "points");
    const cJSON *phases = cJSON_GetObjectItem(root, "phases");
    CHECK(cJSON_GetArraySize(points) == 45 && cJSON_GetArraySize(phases) == 3);
    const cJSON *first = cJSON_GetArrayItem(points, 0);
    const cJSON *pct = cJSON_GetObjectItem(first, "pct_slots");
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(pct, "Backend.Memory_Bound")));
    const cJSON *second = cJSON_GetArrayItem(phases, 1);
    CHECK(cJSON_GetObjectItem(second, "first_invocation") &&
          cJSON_GetObjectItem(second, "first_invocation")->valuedouble == 15);
    cJSON_Delete(root);
    runf(&r, "report '%s' --json --csv -", fixture);
    CHECK(r.status == 2 && r.out[0] == '\0');
}

/* Item 3: list-nodes -l N lists levels 1 to N; -l 4 the stall reasons
 * that describe and completion offer. */
static void test_list_nodes(void)
{
    run_output r;
    run("list-nodes -l 1", &r);
    CHECK(r.status == 0 && strstr(r.out, "\nBE   1   Backend ") != NULL);
    CHECK(strstr(r.out, "Backend.Memory_Bound") == NULL && strstr(r.out, "   2   ") == NULL);
    run("list-nodes", &r); /* without -l: the fixed nodes */
    CHECK(strstr(r.out, "Backend.Memory_Bound.L1_Bound ") != NULL);
    CHECK(strstr(r.out, "long_scoreboard") == NULL);
    run("list-nodes -l 4", &r);
    CHECK(r.status == 0 && strstr(r.out, "Backend.Memory_Bound.L1_Bound.long_scoreboard ") != NULL);
    CHECK(strstr(r.out, "stall reason (") != NULL && strstr(r.out, "gh100") != NULL);
    run("describe Backend.Memory_Bound.L1_Bound.long_scoreboard", &r);
    CHECK(r.status == 0 && strstr(r.out, "long_scoreboard (stall reason") == r.out);
    /* describe long_<TAB> */
    char cmd[2048], out[1024];
    snprintf(cmd, sizeof cmd,
             "bash -c 'source \"%s/scripts/topdown-completion.bash\"; "
             "COMP_WORDS=(\"%s\" describe long_); COMP_CWORD=2; _topdown; "
             "echo \"${COMPREPLY[*]}\"' > completion.txt",
             getenv("TOPDOWN_REPO_DIR"), getenv("TOPDOWN_BIN"));
    CHECK(system(cmd) == 0);
    td_test_slurp("completion.txt", out, sizeof out);
    CHECK(strstr(out, "long_scoreboard") != NULL);
}

/* The labels (first field) of a plot's .dat rows, each once: 1 when all
 * rows' labels differ. */
static int labels_distinct(const char *dat, int *rows)
{
    char seen[64][160];
    *rows = 0;
    for (const char *p = strchr(dat, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        const char *start = p + 1;
        size_t n = strcspn(start, "\t\n");
        if (start[0] == '#' || n == 0 || n >= sizeof seen[0] || *rows == 64)
            continue;
        for (int i = 0; i < *rows; i++)
            if (strncmp(seen[i], start, n) == 0 && seen[i][n] == '\0')
                return 0;
        snprintf(seen[(*rows)++], sizeof seen[0], "%.*s", (int)n, start);
    }
    return 1;
}

/* Item 2: plot labels distinct (the rank), short, rotated with room; the
 * diff's group titles short, the names listed under the plot. */
static void test_plots(void)
{
    run_output r;
    char dat[1 << 15], gp[1 << 15];
    int rows = 0;
    runf(&r, "plot '%s' -l 2 --top 20 -o pbars.png", pytorch);
    CHECK(r.status == 0);
    td_test_slurp("pbars.dat", dat, sizeof dat);
    td_test_slurp("pbars.gp", gp, sizeof gp);
    CHECK(labels_distinct(dat, &rows) && rows == 22);
    CHECK(strstr(dat, "\nmulti_tensor") != NULL && strstr(dat, " #6 (") != NULL);
    CHECK(strstr(dat, "#6 #6") == NULL);
    for (const char *p = strchr(dat, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
        CHECK(strcspn(p + 1, "\t") <= 28 + 14); /* name, " #NN", " (12.3%)" */
    CHECK(strstr(gp, "set xtics rotate by 45 right") != NULL && strstr(gp, "set lmargin") != NULL);
    /* the one file on both sides: the same kernels */
    char args[2048];
    snprintf(args, sizeof args, "plot --diff '%s' '%s' -l 2 -o diff.png -f", pytorch, pytorch);
    run(args, &r);
    CHECK(r.status == 0);
    td_test_slurp("diff.gp", gp, sizeof gp);
    CHECK(strstr(gp, "newhistogram '#2', ") != NULL && strstr(gp, "newhistogram '#10', ") != NULL);
    CHECK(strstr(gp, "set label '#2 sm80_xmma_gemm") != NULL);
    struct stat st;
    CHECK(stat("diff.png", &st) == 0 && st.st_size > 0);
}

/* Item 16: help that says what each command does with an option; the
 * README's trace example works, and one without start times says why. */
static void test_help_and_trace(void)
{
    run_output r;
    run("report --help", &r);
    CHECK(r.status == 0 && strstr(r.out, "profile only kernels") == NULL);
    CHECK(strstr(r.out, "show only these kernels in the text") != NULL);
    run("source --help", &r);
    CHECK(r.status == 0 && strstr(r.out, "one CSV row per kernel") == NULL);
    CHECK(strstr(r.out, "the rows shown (-n 0: all) as CSV") != NULL);
    run("--help", &r);
    CHECK(strstr(r.out, "[--top K]\n                                              clustered bars") != NULL);
    char path[512], args[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/h200/h200_smoke.topdown.json",
             getenv("TOPDOWN_REPO_DIR"));
    snprintf(args, sizeof args, "trace '%s' -o smoke.trace.json", path);
    run(args, &r);
    CHECK(r.status == 0);
    snprintf(args, sizeof args, "trace '%s/benchmarks/results/h100_td_bench.topdown.json' -o t.json",
             getenv("TOPDOWN_REPO_DIR"));
    run(args, &r);
    CHECK(r.status == 1 && strstr(r.err, "no launch or copy of the result has a start time") &&
          strstr(r.err, "a run profiled by this version"));
}

/* Item 17: the first run: the recording shown says how it was collected;
 * quickstart says where topdown is, setup keeps apt's output in a log. */
static void test_first_run(void)
{
    run_output r;
    char args[1024], text[8192];
    const char *src = getenv("TOPDOWN_REPO_DIR");
    snprintf(args, sizeof args, "report '%s/benchmarks/results/h100_td_bench.topdown.json' -l 3",
             src);
    run(args, &r);
    CHECK(r.status == 0 && strstr(r.out, "\nCollection: kernel replay, 5 passes per profiled "
                                         "launch") != NULL);
    /* a graph's whole launches keep their name ("CUDA graph 2", was "2") */
    snprintf(args, sizeof args, "report '%s/tests/fixtures/h200/h200_graphs.topdown.json'", src);
    run(args, &r);
    CHECK(r.status == 0 && strstr(r.out, "\nKernel 3/4: CUDA graph 2\n") != NULL);
    runf(&r, "report '%s'", groups); /* replay-free: its own line */
    CHECK(strstr(r.out, "Collection: replay mode none") != NULL && strstr(r.out, "kernel replay, ") == NULL);
    snprintf(args, sizeof args, "%s/quickstart.sh", src);
    td_test_slurp(args, text, sizeof text);
    CHECK(strstr(text, "topdown is $PWD/build/topdown") != NULL);
    CHECK(strstr(text, "before replay-free collection became the default") != NULL);
    snprintf(args, sizeof args, "%s/scripts/setup.sh", src);
    td_test_slurp(args, text, sizeof text);
    CHECK(strstr(text, "> build/apt.log 2>&1") != NULL);
}

int main(void)
{
    const char *src = getenv("TOPDOWN_REPO_DIR");
    if (!getenv("TOPDOWN_BIN") || !src) {
        fprintf(stderr, "TOPDOWN_BIN or TOPDOWN_REPO_DIR is not set\n");
        return 1;
    }
    snprintf(smoke, sizeof smoke, "%s/tests/fixtures/h200/h200_smoke.topdown.json", src);
    snprintf(pytorch, sizeof pytorch, "%s/tests/fixtures/h200/h200_pytorch_mlp.topdown.json",
             src);
    snprintf(groups, sizeof groups, "%s/tests/fixtures/h200/h200_bench_groups.topdown.json",
             src);
    td_test_tmpdir(dir, sizeof dir);
    if (chdir(dir) != 0)
        return 1;
    test_verdicts();
    test_hints();
    test_widths();
    test_widths_everywhere();
    test_names();
    test_one_format();
    test_list_nodes();
    test_plots();
    test_help_and_trace();
    test_first_run();
    if (chdir("/") != 0)
        return 1;
    td_test_cleanup(dir);
    return td_check_summary();
}
