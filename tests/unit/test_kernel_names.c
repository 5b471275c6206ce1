/* Kernel names that stay distinct (issue 41 item 12): PyTorch's
 * multi_tensor_apply_kernel instances of the bundled MLP recording differ
 * deep in their template arguments. Their labels show enough of the
 * differing part to tell them apart (not only by rank), --wide shows it
 * whole, and --print-summary elides names in the middle with their rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/kname.h"
#include "td_shell.h"

static const char *bin;
static char dir[] = "/tmp/td_knamesXXXXXX";
static char mlp[4200];

#define run(...) td_shell_run(dir, __VA_ARGS__)

/* The title of "Kernel K/N: " in text, without a trailing " #K", in out. */
static void title_of(const char *text, int k, char *out, size_t size)
{
    char head[32];
    snprintf(head, sizeof head, "\nKernel %d/", k);
    const char *p = text ? strstr(text, head) : NULL;
    p = p ? strstr(p, ": ") : NULL;
    out[0] = '\0';
    if (!p)
        return;
    p += 2;
    size_t len = strcspn(p, "\n");
    snprintf(out, size, "%.*s", (int)len, p);
    char rank[32];
    snprintf(rank, sizeof rank, " #%d", k);
    size_t r = strlen(rank), n = strlen(out);
    if (n > r && strcmp(out + n - r, rank) == 0)
        out[n - r] = '\0';
}

/* Three PyTorch optimiser kernels alike at both ends of their differing
 * part: 36 characters of it elided in the middle made two of them equal. */
static void test_labels(void)
{
    const char *names[] = {
        "void at::native::multi_tensor_apply_kernel<at::native::TensorListMetadata<1>, "
        "at::native::BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float>"
        "(at::native::TensorListMetadata<1>, float)",
        "void at::native::multi_tensor_apply_kernel<at::native::TensorListMetadata<3>, "
        "at::native::PointwiseOpScalarFunctor<float, 3, 3, 0>, std::multiplies<float>, float>"
        "(at::native::TensorListMetadata<3>, float)",
        "void at::native::multi_tensor_apply_kernel<at::native::TensorListMetadata<1>, "
        "at::native::BinaryOpScalarFunctor<float, 1, 1, 0>, std::plus<float>, float>"
        "(at::native::TensorListMetadata<1>, float)"};
    char **labels = NULL, **wide = NULL;
    td_error err;
    CHECK(td_kernel_labels(names, 3, TD_NAME_FUNCTION, NULL, &labels, &err) == 0);
    CHECK(td_kernel_labels_wide(names, 3, TD_NAME_FUNCTION, NULL, 1, &wide, &err) == 0);
    if (labels && wide) {
        for (int i = 0; i < 3; i++) {
            CHECK(strncmp(labels[i], "multi_tensor_apply_kernel [", 27) == 0);
            CHECK(strstr(labels[i], " #") == NULL); /* apart without a number */
            CHECK(strstr(wide[i], "...") == NULL);
            for (int j = 0; j < i; j++)
                CHECK(strcmp(labels[i], labels[j]) != 0);
        }
        CHECK(strstr(wide[0], "BinaryOpScalarFunctor<float, 1, 1, 0>, multiplies<float>, "
                              "float") != NULL);
    }
    td_kernel_labels_free(labels, 3);
    td_kernel_labels_free(wide, 3);
}

static void test_report(void)
{
    CHECK(run("%s report %s -l 1 --kernels 10", bin, mlp) == 0);
    char *text = td_shell_read_file(dir, "out.txt");
    char t4[512], t6[512], t10[512];
    title_of(text, 4, t4, sizeof t4);
    title_of(text, 6, t6, sizeof t6);
    title_of(text, 10, t10, sizeof t10);
    CHECK(strncmp(t4, "multi_tensor_apply_kernel [", 27) == 0);
    CHECK(strcmp(t4, t6) != 0 && strcmp(t4, t10) != 0 && strcmp(t6, t10) != 0);
    free(text);
    /* --wide: the differing part whole */
    CHECK(run("%s report %s -l 1 --kernels 10 --wide", bin, mlp) == 0);
    text = td_shell_read_file(dir, "out.txt");
    title_of(text, 4, t4, sizeof t4);
    CHECK(strstr(t4, "...") == NULL);
    CHECK(strstr(t4, "TensorListMetadata<1>, BinaryOpScalarFunctor<float, 1, 1, 0>, "
                     "multiplies<float>, float") != NULL);
    title_of(text, 2, t6, sizeof t6);
    CHECK(strcmp(t6, "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2"
                     "x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas") == 0);
    free(text);
    /* the wide title selects its kernel */
    CHECK(run("%s report %s -l 1 -k '%s'", bin, mlp, t4) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "Kernels shown: 1 of 46"));
    CHECK(td_shell_file_has(dir, "out.txt", "\nKernel 4/46: "));
}

/* --print-summary: a name cut in the middle, with its rank */
static void test_summary(void)
{
    CHECK(run("%s report %s --print-summary per-kernel", bin, mlp) == 0);
    char *text = td_shell_read_file(dir, "out.txt");
    char line[16][64];
    const char *p = text;
    for (int i = 0; i < 16 && p; i++) { /* the header, then kernels #1.. */
        snprintf(line[i], sizeof line[i], "%.40s", p);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    CHECK(strstr(line[4], "...") != NULL && strcmp(line[4] + 37, " #4") == 0);
    CHECK(strcmp(line[10] + 36, " #10") == 0);
    CHECK(strcmp(line[12], "unrolled_elementwise_kernel             ") == 0); /* it fits */
    for (int i = 1; i < 16; i++)
        for (int j = 1; j < i; j++)
            CHECK(strcmp(line[i], line[j]) != 0);
    free(text);
}

int main(void)
{
    const char *src;
    if (td_shell_start(dir, &bin, &src) != 0)
        return 1;
    snprintf(mlp, sizeof mlp,
             "%s/benchmarks/results/recordings_2026-11-26/h100_pytorch_mlp_2000.json.xz", src);
    test_labels();
    test_report();
    test_summary();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
