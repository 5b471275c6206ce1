/* The injection library's launch filter (topdown/inject/kernels.c, built
 * into this test; it needs no CUPTI), from the options as the collector
 * reads them (collect_opts.c, fed the text of TOPDOWN_COLLECT):
 * kernel_regex matched as the offline commands match -k
 * (metrics/kmatch.c) on the name base of name_base, then --launch-skip,
 * --launch-count and --per-kernel. Names are demangled by libstdc++'s
 * __cxa_demangle, as in an app. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "topdown/inject/kernels.h"
#include "topdown/inject/opts_text.h"

/* td_smoke's kernels (tests/gpu/apps/td_smoke.cu) as the driver names them */
#define TRIAD "_Z5triadPKfS0_Pffm"          /* triad(float const*, float const*, float*, float, unsigned long) */
#define SCALE "_Z5scaleIfEvPT_S0_m"         /* void scale<float>(float*, float, unsigned long) */
#define FMA "_Z9fma_chainPfi"               /* fma_chain(float*, int) */
#define PLAIN_C "sm80_xmma_gemm_f32f32_tn"  /* a C name (cuBLAS): not mangled */

/* The options' text: a line for each of these five given, none for NULL. */
static const char *const names[] = {"kernel_regex", "name_base", "launch_skip", "launch_count",
                                    "per_kernel"};
static char text[1024];

static void set_options(const char *regex, const char *base, const char *skip, const char *count,
                    const char *per_kernel)
{
    const char *values[] = {regex, base, skip, count, per_kernel};
    size_t len = 0;
    text[0] = '\0';
    for (int i = 0; i < 5; i++)
        if (values[i])
            len = td_opts_text_put(text, sizeof text, len, names[i], values[i]);
}

/* The filter of the options' text, as InitializeInjection makes it:
 * -1 with msg when the options or the regex are refused. */
static int filter_from_options(td_filter *f, char *msg, size_t size)
{
    td_collect_opts o;
    int opts_ok = td_collect_opts_parse(&o, text, msg, size) == 0;
    int rc = td_filter_from_opts(f, &o, msg, size) == 0 && opts_ok ? 0 : -1;
    td_collect_opts_free(&o);
    return rc;
}

/* Which of the four kernels the filter of these options selects, as a
 * string of 0/1 (triad, scale, fma_chain, the C name); "error" when the
 * options are refused. */
static const char *selected(const char *regex, const char *base, char *out)
{
    set_options(regex, base, NULL, NULL, NULL);
    td_filter f;
    char msg[512];
    if (filter_from_options(&f, msg, sizeof msg)) {
        td_filter_release(&f);
        return "error";
    }
    const char *mangled[] = {TRIAD, SCALE, FMA, PLAIN_C};
    for (int i = 0; i < 4; i++) {
        td_kernel *k = td_kernel_get(mangled[i], &f);
        out[i] = k && k->matches ? '1' : '0';
    }
    out[4] = '\0';
    td_filter_release(&f);
    td_kernels_reset(); /* the next filter sees every kernel anew */
    return out;
}

static void test_demangling(void)
{
    set_options(NULL, NULL, NULL, NULL, NULL);
    td_filter f;
    char msg[512];
    CHECK(filter_from_options(&f, msg, sizeof msg) == 0);
    td_kernel *k = td_kernel_get(SCALE, &f);
    CHECK(k && strcmp(k->name, "void scale<float>(float*, float, unsigned long)") == 0);
    CHECK(k && strcmp(k->mangled, SCALE) == 0 && k->matches);
    k = td_kernel_get(PLAIN_C, &f);
    CHECK(k && strcmp(k->name, PLAIN_C) == 0);
    CHECK(td_kernel_count() == 2);
    CHECK(td_kernel_get(SCALE, &f) != NULL && td_kernel_count() == 2); /* seen once */
    td_filter_release(&f);
    td_kernels_reset();
    CHECK(td_kernel_count() == 0);
}

/* A launch's kernel by its function handle: the handle's last kernel
 * while the names agree; a handle reused for another function (its module
 * unloaded) finds that one; handles sharing a cache slot, and launches
 * without a handle, still find their own. */
static void test_launch_handles(void)
{
    set_options(NULL, NULL, NULL, NULL, NULL);
    td_filter f;
    char msg[512];
    CHECK(filter_from_options(&f, msg, sizeof msg) == 0);
    static char handles[2 * 512 * 16];
    void *triad_fn = &handles[16], *scale_fn = &handles[16 + 512 * 16];
    td_kernel *triad = td_kernel_of_launch(triad_fn, TRIAD, &f);
    CHECK(triad && strcmp(triad->mangled, TRIAD) == 0);
    CHECK(td_kernel_of_launch(triad_fn, TRIAD, &f) == triad);
    CHECK(td_kernel_of_launch(NULL, TRIAD, &f) == triad);
    /* the same slot (512 handles of 16 bytes apart), another kernel */
    td_kernel *scale = td_kernel_of_launch(scale_fn, SCALE, &f);
    CHECK(scale && scale != triad && strcmp(scale->mangled, SCALE) == 0);
    CHECK(td_kernel_of_launch(triad_fn, TRIAD, &f) == triad);
    CHECK(td_kernel_of_launch(scale_fn, SCALE, &f) == scale);
    /* triad's handle now names fma's function */
    td_kernel *fma = td_kernel_of_launch(triad_fn, FMA, &f);
    CHECK(fma && fma != triad && strcmp(fma->mangled, FMA) == 0);
    CHECK(td_kernel_of_launch(triad_fn, TRIAD, &f) == triad);
    CHECK(td_kernel_count() == 3);
    td_filter_release(&f);
    td_kernels_reset();
    /* a fresh table: the cache forgot the kernels it pointed to */
    CHECK(filter_from_options(&f, msg, sizeof msg) == 0);
    td_kernel *again = td_kernel_of_launch(scale_fn, SCALE, &f);
    CHECK(again && strcmp(again->mangled, SCALE) == 0 && td_kernel_count() == 1);
    td_filter_release(&f);
    td_kernels_reset();
}

static void test_name_bases(void)
{
    char s[8];
    /* function (the default): templates and parameters left out */
    CHECK_STR(selected("^scale$", NULL, s), "0100");
    CHECK_STR(selected("regex:^scale$", "function", s), "0100");
    CHECK_STR(selected("^(triad|fma_chain)$", NULL, s), "1010");
    CHECK_STR(selected("regex:gemm_f\\d+", NULL, s), "0001");
    CHECK_STR(selected("float", NULL, s), "0000");
    /* demangled: the whole name */
    CHECK_STR(selected("float", "demangled", s), "1110");
    CHECK_STR(selected("^void scale<float>", "demangled", s), "0100");
    /* mangled */
    CHECK_STR(selected("regex:^_Z\\d+triad", "mangled", s), "1000");
    CHECK_STR(selected("^_Z", "mangled", s), "1110");
    CHECK_STR(selected("^_Z", "function", s), "0000");
    /* a plain argument equal to the name: parentheses and all */
    CHECK_STR(selected("fma_chain(float*, int)", "demangled", s), "0010");
    /* refused: the injection library then profiles every launch */
    CHECK_STR(selected("gemm(", NULL, s), "error");
    CHECK_STR(selected("x", "full", s), "error");
}

static void test_bad_options_say_why(void)
{
    td_filter f;
    char msg[512];
    set_options("gemm(", NULL, NULL, NULL, NULL);
    CHECK(filter_from_options(&f, msg, sizeof msg) == -1);
    CHECK(strstr(msg, "TOPDOWN_COLLECT, kernel_regex: bad kernel-name regex 'gemm('") != NULL);
    td_filter_release(&f);
    set_options("x", "full", NULL, NULL, NULL);
    CHECK(filter_from_options(&f, msg, sizeof msg) == -1);
    CHECK_STR(msg, "TOPDOWN_COLLECT, line 2: name_base=full is not function, demangled or "
              "mangled");
    td_filter_release(&f);
}

/* The counts apply to matching launches only: skip 1 of them, then at
 * most 3 profiled, at most 2 of each kernel. */
static void test_counts(void)
{
    set_options("^(triad|scale)$", NULL, "1", "3", "2");
    td_filter f;
    char msg[512];
    CHECK(filter_from_options(&f, msg, sizeof msg) == 0);
    const char *order[] = {TRIAD, FMA, TRIAD, TRIAD, TRIAD, SCALE, FMA, SCALE, SCALE};
    /* triad #1 skipped, 2 triads (per-kernel 2: not the 3rd), 1 scale: 3 in all */
    const char *want = "001101000";
    char got[16];
    long profiled[16] = {0}; /* per kernel ordinal, as one context counts them */
    for (int i = 0; i < 9; i++) {
        td_kernel *k = td_kernel_get(order[i], &f);
        int allowed = k && k->ordinal < 16 && td_filter_allows(&f, k, profiled[k->ordinal]);
        if (allowed) {
            td_filter_count_profiled(&f);
            profiled[k->ordinal]++;
        }
        got[i] = allowed ? '1' : '0';
    }
    got[9] = '\0';
    CHECK_STR(got, want);
    td_kernel *triad = td_kernel_get(TRIAD, &f);
    CHECK(triad && triad->launches == 4 && profiled[triad->ordinal] == 2);
    CHECK(f.matched == 7 && f.profiled == 3);
    td_filter_release(&f);
    td_kernels_reset();
}

int main(void)
{
    test_demangling();
    test_launch_handles();
    test_name_bases();
    test_bad_options_say_why();
    test_counts();
    return td_check_summary();
}
