/* Issue 15, item 3: a kernel picked out of a result, through the binary:
 * report -k RE (the kernels shown), "#N" (the report's "Kernel N/M")
 * wherever a kernel is named, and ambiguous names listed where they
 * differ. On the recorded PyTorch (H200) and benchmark (H100) results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"

static const char *bin;
static char dir[] = "/tmp/td_selectXXXXXX";
static char torch[4200], bench[4200];

#define run(...) td_shell_run(dir, __VA_ARGS__)

static int has(const char *file, const char *needle)
{
    return td_shell_file_has(dir, file, needle);
}

static int lacks(const char *file, const char *needle)
{
    char path[4300], text[1 << 16];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    return strstr(text, needle) == NULL;
}

static void test_report_k(void)
{
    /* Full names (--kernel-name-base demangled): the selection is what is tested. */
    CHECK(run("%s report %s -k multi_tensor --no-desc --kernels 0 --kernel-name-base demangled --wide",
              bin, torch) == 0);
    CHECK(has("out.txt", "Kernels shown: 7 of 46 (-k 'multi_tensor')"));
    CHECK(has("out.txt", "\nKernel 4/46: void at::native::(anonymous namespace)::multi_tensor"));
    CHECK(has("out.txt", "\nKernel 11/46: "));
    CHECK(lacks("out.txt", "Kernel 1/46:") && lacks("out.txt", "Kernel 8/46:"));
    CHECK(run("%s report %s -k 'multi_tensor' --kernels 2 --no-desc", bin, torch) == 0);
    CHECK(has("out.txt", "... 5 more kernels"));
    CHECK(run("%s report %s -k '#4' --no-desc --kernel-name-base demangled --wide", bin,
              torch) == 0);
    CHECK(has("out.txt", "Kernels shown: 1 of 46 (-k '#4')"));
    CHECK(has("out.txt", "\nKernel 4/46: void at::native::(anonymous namespace)::multi_tensor_"
              "apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>"));
    CHECK(lacks("out.txt", "Kernel 5/46"));
    CHECK(run("%s report %s -k 'bench_(l1|mio)' --no-desc", bin, bench) == 0);
    CHECK(has("out.txt", "Kernels shown: 2 of 10"));
    /* errors: nothing printed, one line */
    CHECK(run("%s report %s -k zzz", bin, torch) == 2);
    CHECK(has("err.txt", "no kernel matches 'zzz' (of 46; a pattern on the function names of "
              "--kernel-name-base, a whole name, or #N); the heaviest: #1 "));
    CHECK(lacks("out.txt", "topdown"));
    CHECK(run("%s report %s -k '#99'", bin, torch) == 2);
    CHECK(has("err.txt", "the result has 46 kernels (#1 to #46"));
    CHECK(run("%s report %s -k '('", bin, torch) == 2);
    CHECK(has("err.txt", "bad kernel-name regex '('"));
}

static void test_rank_everywhere(void)
{
    CHECK(run("%s report %s --timeline '#4' --wide", bin, torch) == 0);
    CHECK(has("out.txt", "Timeline of kernel void at::native::(anonymous namespace)::multi_tensor_"
              "apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>"));
    CHECK(run("%s report %s --timeline '#2'", bin, bench) == 0);
    CHECK(has("out.txt", "Timeline of kernel bench_constant(Sink, int)"));
    CHECK(run("%s plot %s --timeline '#2' -o t.png", bin, bench) == 0);
    CHECK(has("t.gp", "bench_constant"));
    CHECK(run("%s report %s --timeline '#0'", bin, bench) == 2);
    CHECK(has("err.txt", "the result has 10 kernels"));
}

/* Seven multi_tensor_apply_kernel names share their first 90 characters
 * (#7 and #9 their first 150): each candidate is shown from where it
 * differs from the others, with its rank. */
static void test_ambiguous_lists_differences(void)
{
    CHECK(run("%s report %s --timeline multi_tensor", bin, torch) == 2);
    CHECK(has("err.txt", "kernel \"multi_tensor\" is ambiguous: 7 kernels match it"));
    CHECK(has("err.txt", "#7 \"...namespace)::TernaryOpScalarFunctor<float, 2, 2, 0>"));
    CHECK(has("err.txt", "#9 \"...namespace)::UnaryOpFunctor<float, 2, 1, 1>"));
    CHECK(has("err.txt", "#4 \"...istMetadata<1>, at::native::(anonymous namespace)::BinaryOp"));
    CHECK(has("err.txt", "or its rank: --timeline '#4'"));
    CHECK(lacks("err.txt", "#5 \"void at::native::(anonymous namespace)::multi_tensor_apply_k"));
}

/* ncu's habits: regex: and Perl-style regexes, on the name base that
 * --kernel-name-base chooses (function by default); -k and --timeline
 * select the same kernels for the same argument. */
static void test_ncu_forms(void)
{
    CHECK(run("%s report %s -k 'regex:^multi_tensor_apply_kernel$' --no-desc", bin, torch) == 0);
    CHECK(has("out.txt", "Kernels shown: 7 of 46"));
    CHECK(run("%s report %s -k '^sm80_xmma' --no-desc", bin, torch) == 0);
    CHECK(has("out.txt", "Kernels shown: 6 of 46"));
    /* cutlass::Kernel2<cutlass_80_simt_sgemm_64x64...>: the digits are in
     * the template argument, outside the function's base name */
    CHECK(run("%s report %s -k 'gemm_\\d+' --no-desc", bin, torch) == 2);
    CHECK(has("err.txt", "no kernel matches 'gemm_\\d+' (of 46; a pattern on the function names"));
    CHECK(run("%s report %s -k 'gemm_\\d+' --kernel-name-base demangled --no-desc", bin,
              torch) == 0);
    CHECK(has("out.txt", "Kernels shown: 2 of 46"));
    CHECK(run("%s report %s -k '^_ZN7cutlass' --kernel-name-base mangled --no-desc", bin,
              torch) == 0);
    CHECK(has("out.txt", "Kernels shown: 5 of 46"));
    CHECK(run("%s report %s -k '^Kernel2$' --no-desc", bin, torch) == 0);
    CHECK(has("out.txt", "Kernels shown: 5 of 46"));
    /* the same arguments name the same kernels in --timeline */
    CHECK(run("%s report %s --timeline '^Kernel2$'", bin, torch) == 2);
    CHECK(has("err.txt", "kernel \"^Kernel2$\" is ambiguous: 5 kernels match it"));
    CHECK(run("%s report %s --timeline 'regex:simt_sgemm_64x64' --kernel-name-base demangled "
              "--wide", bin, torch) == 0);
    CHECK(has("out.txt", "Timeline of kernel void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_"));
    CHECK(run("%s report %s -k 'regex:simt_sgemm_64x64' --kernel-name-base demangled "
              "--no-desc", bin, torch) == 0);
    CHECK(has("out.txt", "Kernels shown: 1 of 46"));
    CHECK(run("%s report %s --timeline 'simt_sgemm_64x64'", bin, torch) == 2);
    CHECK(has("err.txt", "no kernel matches 'simt_sgemm_64x64' (of 46; a pattern on the function names"));
    CHECK(run("%s report %s --timeline 'regex:(' ", bin, torch) == 2);
    CHECK(has("err.txt", "bad kernel-name regex 'regex:('"));
    CHECK(run("%s report %s -k 'regex:'", bin, torch) == 2);
    CHECK(has("err.txt", "empty kernel-name regex"));
}

/* Issue 27, item 12: -k chooses the kernels of every output: the CSV, the
 * JSON and the plot's bars, not the text only; the application row stays. */
static void test_k_every_output(void)
{
    CHECK(run("%s report %s -k 'l1|sgemm' --csv -", bin, bench) == 0);
    CHECK(has("out.txt", "\"bench_l1_bound(") && has("out.txt", "\"bench_sgemm(") &&
          has("out.txt", "\n<application>,30,") && lacks("out.txt", "bench_ifetch"));
    CHECK(run("%s report %s -k 'l1|sgemm' --csv-launches -", bin, bench) == 0);
    CHECK(has("out.txt", "\n\"bench_sgemm(") && lacks("out.txt", "bench_ifetch"));
    CHECK(run("%s report %s -k '#2' --json", bin, bench) == 0);
    CHECK(has("out.txt", "\"bench_constant(Sink, int)\"") && lacks("out.txt", "bench_ifetch") &&
          has("out.txt", "\"<application>\""));
    CHECK(run("%s plot %s -k 'l1|sgemm' -o bars.png", bin, bench) == 0);
    /* each bar labelled with its rank in the whole run, as -k '#N' takes it */
    CHECK(has("bars.dat", "\nbench_l1_bound #8 (") && has("bars.dat", "\nbench_sgemm #9 (") &&
          lacks("bars.dat", "bench_ifetch"));
    CHECK(run("%s plot %s -k nope -o none.png", bin, bench) == 2);
    CHECK(run("%s plot --diff %s %s -k l1 -o d.png", bin, bench, bench) == 2);
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    const char *src = getenv("TOPDOWN_REPO_DIR");
    if (!bin || !src || !mkdtemp(dir)) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_REPO_DIR must be set\n");
        return 1;
    }
    snprintf(torch, sizeof torch, "'%s/tests/fixtures/h200/h200_pytorch_mlp.topdown.json'", src);
    snprintf(bench, sizeof bench, "'%s/benchmarks/results/h100_td_bench.topdown.json'", src);
    test_report_k();
    test_rank_everywhere();
    test_ambiguous_lists_differences();
    test_ncu_forms();
    test_k_every_output();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
