/* Issue 15, item 2: kernel-name selection with ncu's habits
 * (metrics/kmatch.c), the module the collector and the offline commands
 * share: "regex:RE" and plain RE (Perl-style, PCRE2, searched for), the
 * literal match of a plain argument, and each --kernel-name-base, on the
 * real PyTorch/cuBLAS/CUTLASS names of the H200 recording. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metrics/kernel_base.h"
#include "metrics/kmatch.h"
#include "metrics/result/result.h"

#define MAX_KERNELS 256

/* The recording's distinct kernels: demangled and mangled names. */
static const char *demangled[MAX_KERNELS], *mangled[MAX_KERNELS];
static size_t n_kernels;

static void collect_kernels(const td_result *res)
{
    for (size_t d = 0; d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_launches; i++) {
            const td_launch *l = &res->devices[d].launches[i];
            size_t k = 0;
            while (k < n_kernels && strcmp(demangled[k], l->kernel) != 0)
                k++;
            if (k == n_kernels && n_kernels < MAX_KERNELS) {
                demangled[n_kernels] = l->kernel;
                mangled[n_kernels++] = l->mangled;
            }
        }
}

/* How many of the recording's kernels arg selects under base; -1 when it
 * does not compile. */
static int count(const char *arg, td_name_base base)
{
    td_kmatch *m = NULL;
    td_error err;
    if (td_kmatch_compile(arg, base, &m, &err))
        return -1;
    int n = 0;
    for (size_t k = 0; k < n_kernels; k++)
        n += td_kmatch_test(m, demangled[k], mangled[k]);
    td_kmatch_free(m);
    return n;
}

static void test_base_names(void)
{
    char out[512];
    td_kernel_base_name("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
                        "at::native::(anonymous namespace)::TensorListMetadata<1>, float>("
                        "at::native::(anonymous namespace)::TensorListMetadata<1>, int)",
                        out, sizeof out);
    CHECK_STR(out, "multi_tensor_apply_kernel");
    td_kernel_base_name("void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>("
                        "cutlass_80_simt_sgemm_64x64_8x5_tn_align1::Params)", out, sizeof out);
    CHECK_STR(out, "Kernel2");
    td_kernel_base_name("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8", out, sizeof out);
    CHECK_STR(out, "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8");
    td_kernel_base_name("bench_constant(Sink, int)", out, sizeof out);
    CHECK_STR(out, "bench_constant");
    char buf[64];
    CHECK_STR(td_kernel_name_in(TD_NAME_FUNCTION, "void triad(float*)", "_Z5triadPf", buf,
                                sizeof buf), "triad");
    CHECK_STR(td_kernel_name_in(TD_NAME_DEMANGLED, "void triad(float*)", "_Z5triadPf", buf,
                                sizeof buf), "void triad(float*)");
    CHECK_STR(td_kernel_name_in(TD_NAME_MANGLED, "void triad(float*)", "_Z5triadPf", buf,
                                sizeof buf), "_Z5triadPf");
    /* no mangled name recorded: the demangled one stands in */
    CHECK_STR(td_kernel_name_in(TD_NAME_MANGLED, "triad", NULL, buf, sizeof buf), "triad");
    td_name_base base = TD_NAME_FUNCTION;
    td_error err;
    CHECK(td_name_base_parse("mangled", &base, &err) == 0 && base == TD_NAME_MANGLED);
    CHECK(td_name_base_parse("full", &base, &err) == -1 && strstr(err.msg, "\"full\""));
    CHECK_STR(td_name_base_word(TD_NAME_DEMANGLED), "demangled");
}

/* The default base: the function's name, templates and parameters left
 * out, as ncu matches -k. */
static void test_function_base(void)
{
    CHECK(n_kernels == 46);
    CHECK(count("^multi_tensor_apply_kernel$", TD_NAME_FUNCTION) == 7);
    CHECK(count("regex:^multi_tensor_apply_kernel$", TD_NAME_FUNCTION) == 7);
    CHECK(count("^Kernel2$", TD_NAME_FUNCTION) == 5);        /* cutlass::Kernel2<...> */
    CHECK(count("cutlass", TD_NAME_FUNCTION) == 0);          /* only in the namespace */
    CHECK(count("^nvjet_sm90", TD_NAME_FUNCTION) == 4);      /* C names: the whole name */
    CHECK(count("^sm80_xmma_gemm", TD_NAME_FUNCTION) == 6);
    CHECK(count("^softmax_warp_(forward|backward)$", TD_NAME_FUNCTION) == 4);
    CHECK(count("^void ", TD_NAME_FUNCTION) == 0);
    CHECK(count("Softmax", TD_NAME_FUNCTION) == 0);          /* case-sensitive, as ncu */
    CHECK(count("(?i)Softmax", TD_NAME_FUNCTION) == 4);      /* Perl's inline flag */
}

static void test_demangled_and_mangled_bases(void)
{
    CHECK(count("^void ", TD_NAME_DEMANGLED) == 36);
    CHECK(count("cutlass", TD_NAME_DEMANGLED) == 5);
    CHECK(count("gemm_\\d+", TD_NAME_DEMANGLED) == 2);       /* simt_sgemm_64x64, _256x128 */
    CHECK(count("gemm_\\d+", TD_NAME_FUNCTION) == 0);        /* Kernel2 hides them */
    CHECK(count("regex:gemm_\\d+", TD_NAME_MANGLED) == 2);
    CHECK(count("^_ZN2at6native", TD_NAME_MANGLED) == 25);
    CHECK(count("^_ZN2at6native", TD_NAME_DEMANGLED) == 0);
    CHECK(count("^\\(anonymous namespace\\)", TD_NAME_DEMANGLED) == 0);
    CHECK(count("^void \\(anonymous namespace\\)::softmax", TD_NAME_DEMANGLED) == 4);
}

/* A plain argument equal to a name selects it, parentheses and all (as a
 * regex its parentheses are a group and it would match nothing); the
 * regex: form is a regex only. */
static void test_literal_name(void)
{
    const char *full = "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>("
                       "cutlass_80_simt_sgemm_64x64_8x5_tn_align1::Params)";
    char prefixed[512];
    snprintf(prefixed, sizeof prefixed, "regex:%s", full);
    CHECK(count(full, TD_NAME_DEMANGLED) == 1);
    CHECK(count(prefixed, TD_NAME_DEMANGLED) == 0);
    CHECK(count(full, TD_NAME_FUNCTION) == 0);
}

static void test_bad_patterns(void)
{
    td_kmatch *m = NULL;
    td_error err;
    CHECK(td_kmatch_compile("gemm(", TD_NAME_FUNCTION, &m, &err) == -1 && m == NULL);
    CHECK(strstr(err.msg, "bad kernel-name regex 'gemm(': missing closing parenthesis") != NULL);
    CHECK(strchr(err.msg, '\n') == NULL);
    CHECK(td_kmatch_compile("regex:[a-", TD_NAME_FUNCTION, &m, &err) == -1);
    CHECK(strstr(err.msg, "bad kernel-name regex 'regex:[a-'") != NULL);
    CHECK(td_kmatch_compile("regex:", TD_NAME_FUNCTION, &m, &err) == -1);
    CHECK(strstr(err.msg, "empty kernel-name regex") != NULL);
    CHECK(td_kmatch_compile("", TD_NAME_FUNCTION, &m, &err) == -1);
    /* a regex that compiles keeps its base */
    CHECK(td_kmatch_compile("x", TD_NAME_MANGLED, &m, &err) == 0 && m);
    CHECK(m && td_kmatch_base(m) == TD_NAME_MANGLED);
    CHECK(m && td_kmatch_test(m, "a", NULL) == 0 && td_kmatch_test(m, "ax", NULL) == 1);
    td_kmatch_free(m);
}

int main(void)
{
    const char *src = getenv("TOPDOWN_REPO_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/h200/h200_pytorch_mlp.topdown.json",
             src ? src : ".");
    td_result res;
    td_error err;
    if (td_result_load(path, &res, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    collect_kernels(&res);
    test_base_names();
    test_function_base();
    test_demangled_and_mangled_bases();
    test_literal_name();
    test_bad_patterns();
    td_result_free(&res);
    return td_check_summary();
}
