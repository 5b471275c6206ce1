/* Issue 27, item 10: ncu's and toplev's habits. --csv alone prints CSV on
 * stdout and never takes the result file for its name (--csv FILE.csv,
 * --csv=FILE and --csv - still write a file or stdout); -i FILE names the
 * result; --print-summary per-kernel and -x SEP print one line per kernel;
 * -c/-s/-o given to report are refused naming the option. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"

static const char *bin;
static char dir[] = "/tmp/td_habitsXXXXXX";
static char bench[4200], bench64[4200];

#define run(...) td_shell_run(dir, __VA_ARGS__)

static int has(const char *file, const char *needle)
{
    return td_shell_file_has(dir, file, needle);
}

static int starts(const char *file, const char *prefix)
{
    char path[4300], text[256] = "";
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

static int begins(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

static void test_csv_flag(void)
{
    const char *header = "kernel,launches,profiled_launches,";
    CHECK(run("%s report --csv %s", bin, bench) == 0 && starts("out.txt", header));
    CHECK(run("%s report %s --csv", bin, bench) == 0 && starts("out.txt", header));
    CHECK(run("%s report %s --csv -", bin, bench) == 0 && starts("out.txt", header));
    CHECK(run("%s report %s --csv k.csv", bin, bench) == 0 && starts("k.csv", header) &&
          has("out.txt", "Application"));
    CHECK(run("%s report %s --csv=k.txt", bin, bench) == 0 && starts("k.txt", header));
    CHECK(run("%s report %s --csv k.txt", bin, bench) == 2 &&
          has("err.txt", "is one too many (--csv takes a name ending in .csv, or --csv=FILE)"));
    CHECK(run("%s diff %s %s --csv", bin, bench, bench) == 0 && starts("out.txt", "kernel,in,"));
}

static void test_input_and_summary(void)
{
    CHECK(run("%s report -i %s -l 2", bin, bench) == 0 && has("out.txt", "Application"));
    CHECK(run("%s report -i %s %s", bin, bench, bench) == 2 && has("err.txt", "one too many"));
    CHECK(run("%s report -i %s --print-summary per-kernel", bin, bench) == 0);
    CHECK(starts("out.txt", "kernel                                    time%     Retire "
                 "Divergence   Frontend    Backend  bottleneck\n"));
    CHECK(has("out.txt", "\nbench_l1_bound                              3.3        2.3        "
              "0.0        0.0       97.7  Backend.Memory_Bound.L1_Bound\n"));
    CHECK(has("out.txt", "\n<application>                             100.0       17.0"));
    CHECK(run("%s report %s -x ,", bin, bench) == 0);
    CHECK(starts("out.txt", "kernel,time%,Retire,Divergence,Frontend,Backend,bottleneck\n"));
    CHECK(has("out.txt", "\n\"bench_ifetch(Sink, int)\",39.8,3.9,0.0,95.6,0.6,"
              "Frontend.Fetch.Instruction_Fetch\n"));
    CHECK(run("%s report %s -x ';' -l 4 -k l1_bound", bin, bench) == 0);
    CHECK(has("out.txt", "\nbench_l1_bound(Sink, unsigned int const*, unsigned int, int);3.3;"
              "2.3;0.0;0.0;97.7;Backend.Memory_Bound.L1_Bound.long_scoreboard\n"));
    CHECK(run("%s report %s --print-summary per-gpu", bin, bench) == 2);
    CHECK(run("%s report %s -x , --json", bin, bench) == 2);
}

static void test_profiling_options_named(void)
{
    CHECK(run("%s report %s -c 5", bin, bench) == 2 &&
          has("err.txt", "option -c/--launch-count does not apply to `topdown report`"));
    CHECK(run("%s report %s -s 2", bin, bench) == 2 &&
          has("err.txt", "option -s/--launch-skip does not apply to `topdown report`"));
    CHECK(run("%s report %s -o x.json", bin, bench) == 2 &&
          has("err.txt", "option -o/--output does not apply to `topdown report`"));
}

/* --json on every command that prints a table: list-nodes, describe,
 * diff, imbalance (report's is test_json's). */
static void test_json_everywhere(void)
{
    CHECK(run("%s list-nodes --json", bin) == 0);
    cJSON *root = td_shell_read_json(dir, "out.txt");
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    CHECK(cJSON_GetArraySize(nodes) == 22 && !cJSON_GetObjectItemCaseSensitive(root, "stall_reasons"));
    CHECK(strcmp(td_shell_json_str(cJSON_GetArrayItem(nodes, 0), "path"), "Retire") == 0);
    cJSON_Delete(root);
    CHECK(run("%s list-nodes -l 4 --json", bin) == 0);
    root = td_shell_read_json(dir, "out.txt");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "stall_reasons")) > 100);
    cJSON_Delete(root);
    CHECK(run("%s describe L1_Bound --json", bin) == 0);
    root = td_shell_read_json(dir, "out.txt");
    CHECK(strcmp(td_shell_json_str(root, "path"), "Backend.Memory_Bound.L1_Bound") == 0 &&
          td_shell_json_num(root, "threshold_pct") == 10);
    cJSON *gh100 = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "stall_reasons"), "gh100");
    CHECK(cJSON_GetArraySize(gh100) == 3);
    cJSON_Delete(root);
    CHECK(run("%s describe long_scoreboard --json", bin) == 0);
    root = td_shell_read_json(dir, "out.txt");
    CHECK(strcmp(td_shell_json_str(root, "node"), "Backend.Memory_Bound.L1_Bound") == 0);
    cJSON_Delete(root);
    CHECK(run("%s diff %s %s --json -l 2", bin, bench, bench) == 0);
    root = td_shell_read_json(dir, "out.txt");
    CHECK(strcmp(td_shell_json_str(root, "schema"), "topdown-diff/1") == 0);
    cJSON *kernels = cJSON_GetObjectItemCaseSensitive(root, "kernels");
    CHECK(cJSON_GetArraySize(kernels) == 10);
    cJSON *first = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(kernels, 0), "nodes"), 0);
    CHECK(td_shell_json_num(first, "diff") == 0 &&
          strcmp(td_shell_json_str(first, "path"), "Retire") == 0);
    cJSON_Delete(root);
    CHECK(run("%s diff %s %s --json --csv -", bin, bench, bench) == 2);
    CHECK(run("%s imbalance %s %s --json", bin, bench, bench64) == 0);
    root = td_shell_read_json(dir, "out.txt");
    CHECK(strcmp(td_shell_json_str(root, "schema"), "topdown-imbalance/1") == 0 &&
          td_shell_json_num(root, "ranks") == 2);
    cJSON_Delete(root);
}

/* toplev's --nodes: the nodes of the tree (with those above and below
 * them) and the columns of the per-kernel lines. */
static void test_nodes(void)
{
    CHECK(run("%s report %s -l 3 --app-only --no-desc --nodes Memory_Bound", bin, bench) == 0);
    CHECK(has("out.txt", "  BE    Backend                 ") &&
          has("out.txt", "  BE    Backend.Memory_Bound.L1_Bound "));
    char *text = td_shell_read_file(dir, "out.txt");
    CHECK(text && !strstr(text, "  Retire") && !strstr(text, "Frontend.Fetch") &&
          !strstr(text, "Core_Bound"));
    free(text);
    CHECK(run("%s report %s --print-summary per-kernel --nodes Retire,Memory_Bound", bin,
              bench) == 0);
    CHECK(starts("out.txt", "kernel                                    time%     Retire "
                 "Backend.Memory_Bound  bottleneck\n"));
    CHECK(run("%s report %s --nodes Nope", bin, bench) == 2 && has("err.txt", "\"Nope\" is no node"));
    /* the CSVs and --json hold the nodes the text shows */
    CHECK(run("%s report %s -l 3 --nodes Memory_Bound --csv", bin, bench) == 0);
    char *csv = td_shell_read_file(dir, "out.txt");
    CHECK(csv && begins(csv, "kernel,launches,profiled_launches,total_ns,gpu_time_pct,ipc,"
                         "Backend,Backend.Memory_Bound,Backend.Memory_Bound.L1_Bound,"
                         "Backend.Memory_Bound.MIO_Bound,Backend.Memory_Bound.Constant_Memory,"
                         "Backend.Memory_Bound.Drain,unattributed,bottleneck,kernel_function,"
                         "Backend_lo,Backend_hi,Backend.Memory_Bound_lo,"));
    free(csv);
    CHECK(run("%s report %s -l 4 --nodes L1_Bound --csv-launches -", bin, bench) == 0);
    csv = td_shell_read_file(dir, "out.txt");
    CHECK(csv && begins(csv, "kernel,invocation,launch_id,device,start_ns,duration_ns,ipc,"
                         "Backend,Backend.Memory_Bound,Backend.Memory_Bound.L1_Bound,"
                         "Backend.Memory_Bound.L1_Bound.long_scoreboard,"
                         "Backend.Memory_Bound.L1_Bound.tex_throttle,"
                         "Backend.Memory_Bound.L1_Bound.lg_throttle,unattributed,bottleneck,"
                         "kernel_function\n"));
    free(csv);
    CHECK(run("%s report %s --by-region --nodes Retire --csv -", bin, bench) == 0 &&
          starts("out.txt", "kernel,launches,profiled_launches,total_ns,gpu_time_pct,ipc,Retire,"
                 "unattributed,bottleneck,kernel_function,Retire_lo,Retire_hi,mean_ns,min_ns,"
                 "median_ns,max_ns,std_ns,region\n"));
    CHECK(run("%s report %s -l 3 --nodes Memory_Bound,Retire --json", bin, bench) == 0 &&
          has("out.txt", "\"path\":\t\"Backend.Memory_Bound.L1_Bound\"") &&
          has("out.txt", "\"path\":\t\"Retire\"") &&
          !has("out.txt", "\"path\":\t\"Frontend") &&
          !has("out.txt", "\"path\":\t\"Backend.Core_Bound"));
    CHECK(run("%s report %s -l 2 --json", bin, bench) == 0 &&
          has("out.txt", "\"path\":\t\"Frontend.Fetch\""));
}

/* diff -k: the kernels of both sides that -k names, in the text and the
 * --fail-if gate (the application rows stay the whole runs). */
static void test_diff_k(void)
{
    CHECK(run("%s diff %s %s -k 'l1|sgemm' --fail-if 'time<-1%%'", bin, bench, bench64) == 4);
    CHECK(has("out.txt", "Kernels: 2 in both, 0 only in A, 0 only in B\n"
              "Kernels shown: those -k 'l1|sgemm' names;"));
    CHECK(has("err.txt", "2 rule breaks in the application and the 2 kernels of both results"));
    CHECK(run("%s diff %s %s -k nope", bin, bench, bench64) == 2 &&
          has("err.txt", "names no kernel of either result"));
}

/* A result read from standard input (-), also compressed; once only. */
static void test_stdin(void)
{
    CHECK(run("cat %s | %s report - --print-summary per-kernel", bench, bin) == 0 &&
          has("out.txt", "\nbench_l1_bound  "));
    CHECK(run("xz -c %s | %s report - -x ,", bench, bin) == 0 &&
          has("out.txt", "\n\"bench_ifetch(Sink, int)\",39.8,"));
    CHECK(run("%s diff - %s -l 1 < %s", bin, bench64, bench) == 0 &&
          has("out.txt", "Kernels: 10 in both"));
    CHECK(run("%s diff - - < %s", bin, bench) == 2 && has("err.txt", "can be read once"));
    CHECK(run("%s plot - < %s", bin, bench) == 2 && has("err.txt", "-o OUT.png"));
    CHECK(run("%s plot - -o s.png < %s", bin, bench) == 0);
}

/* ncu's --page: details (the tree), raw (each kernel's counters, the
 * duration-weighted mean per launch; --csv: kernel,metric,value,launches),
 * session (the header alone); source is a command of its own (exit 2). */
static void test_pages(void)
{
    CHECK(run("%s report %s --page details -l 1", bin, bench) == 0 &&
          has("out.txt", "\nApplication: "));
    CHECK(run("%s report %s --page session", bin, bench) == 0 &&
          has("out.txt", "Command:  build/benchmarks/td_bench  (exit code 0)\n") &&
          has("out.txt", "Device:   NVIDIA H100 80GB HBM3") &&
          has("out.txt", "\nCollection: kernel replay") && !has("out.txt", "Application"));
    CHECK(run("%s report %s --page raw", bin, bench) == 0 &&
          has("out.txt", "\nbench_ifetch(Sink, int):\n  metric ") &&
          has("out.txt", "\n  smsp__inst_executed.sum                                "
              "430.58 M inst         3\n") &&
          has("out.txt", "\n<application>:\n") && !has("out.txt", "Retire"));
    CHECK(run("%s report %s --page raw --csv", bin, bench) == 0 &&
          starts("out.txt", "kernel,metric,value,launches\n\"bench_ifetch(Sink, int)\","
                 "smsp__inst_executed.sum,430575245,3\n") &&
          has("out.txt", "\n\"bench_ifetch(Sink, int)\",sm__cycles_active.sum,"
              "2793998090.08719,3\n") &&
          has("out.txt", "\n<application>,sm__cycles_active.sum,"));
    CHECK(run("%s report %s --page raw -k '#2' --csv r.csv", bin, bench) == 0 &&
          starts("r.csv", "kernel,metric,value,launches\n\"bench_constant(Sink, int)\",") &&
          !has("r.csv", "bench_ifetch") && has("out.txt", "\nbench_constant(Sink, int):\n"));
    CHECK(run("%s report %s --page source", bin, bench) == 2 &&
          has("err.txt", "topdown source FILE KERNEL"));
    CHECK(run("%s report %s --page nope", bin, bench) == 2 &&
          has("err.txt", "--page takes details, raw, session or source, not \"nope\""));
    CHECK(run("%s report %s --page raw --json", bin, bench) == 2);
    CHECK(run("%s report %s --page session --csv", bin, bench) == 2);
    CHECK(run("%s diff %s %s --page raw", bin, bench, bench) == 2 &&
          has("err.txt", "option --page does not apply to `topdown diff`"));
}

/* Issue 27, item 15: describe suggests node names holding the word first. */
static void test_describe_suggestions(void)
{
    CHECK(run("%s describe Memory", bin) == 2 &&
          has("err.txt", "did you mean Memory_Bound, Constant_Memory or membar?"));
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    const char *src = getenv("TOPDOWN_REPO_DIR");
    if (!bin || !src || !mkdtemp(dir)) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_REPO_DIR must be set\n");
        return 1;
    }
    snprintf(bench, sizeof bench, "'%s/benchmarks/results/h100_td_bench.topdown.json'", src);
    snprintf(bench64, sizeof bench64, "'%s/benchmarks/results/h100_td_bench_64mb.topdown.json'",
             src);
    test_csv_flag();
    test_input_and_summary();
    test_profiling_options_named();
    test_json_everywhere();
    test_describe_suggestions();
    test_stdin();
    test_nodes();
    test_diff_k();
    test_pages();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
