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
static char bench[4200];

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

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    const char *src = getenv("TOPDOWN_SOURCE_DIR");
    if (!bin || !src || !mkdtemp(dir)) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_SOURCE_DIR must be set\n");
        return 1;
    }
    snprintf(bench, sizeof bench, "'%s/benchmarks/results/h100_td_bench.topdown.json'", src);
    test_csv_flag();
    test_input_and_summary();
    test_profiling_options_named();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
