/* The periodic analysis: phase detection on synthetic series with known
 * boundaries, a crafted result's timeline and phases, kernel lookup. */
#include <math.h>

#include "../check.h"
#include "report/timeline.h"
#include "td_outputs_testlib.h"

/* Three phases (0..9, 10..19, 20..29) with noise well under the threshold. */
static void test_split_synthetic(void)
{
    enum { N = 30, W = 4 };
    double series[N * W];
    size_t starts[N];
    srand(7);
    for (size_t i = 0; i < N; i++) {
        double retire = i < 10 ? 40 : (i < 20 ? 20 : 60);
        double noise = (rand() % 200 - 100) / 100.0; /* +-1 point */
        series[i * W + 0] = retire + noise;
        series[i * W + 1] = 5;
        series[i * W + 2] = 15;
        series[i * W + 3] = 80 - retire - noise;
    }
    size_t n = td_phase_split(series, N, W, 5.0, starts);
    CHECK(n == 3);
    CHECK(starts[0] == 0 && starts[1] == 10 && starts[2] == 20);
    /* A threshold above the jumps: one phase. */
    CHECK(td_phase_split(series, N, W, 45.0, starts) == 1);
    /* A threshold below the noise: more phases than the three. */
    CHECK(td_phase_split(series, N, W, 0.1, starts) > 3);
    /* A jump of exactly the threshold does not start a phase ("more than"). */
    double step[2 * W] = {10, 20, 30, 40, 15, 20, 30, 35};
    CHECK(td_phase_split(step, 2, W, 5.0, starts) == 1);
    CHECK(td_phase_split(step, 2, W, 4.9, starts) == 2);
    CHECK(td_phase_split(series, 0, W, 5.0, starts) == 0);
}

static const fx_shares phase_a = {.retire = 0.40, .branch = 0.05, .noinst = 1, .longsb = 2, .wait = 1};
static const fx_shares phase_b = {.retire = 0.15, .branch = 0.05, .noinst = 1, .longsb = 6, .wait = 1};

/* "void step(int)": 4 invocations like A, one unprofiled, 5 like B, 3 like
 * A; "other" launches in between. */
static void build_result(td_result *res)
{
    memset(res, 0, sizeof *res);
    td_device *dev = fx_device(res, "testarch", 0);
    for (int i = 0; i < 13; i++) {
        if (i == 4)
            fx_unprofiled(dev, "void step(int)", 100);
        else
            fx_launch(dev, "void step(int)", 100 + i, (i < 4 || i > 9) ? phase_a : phase_b);
        if (i % 3 == 0)
            fx_launch(dev, "void other(int)", 50, phase_b);
    }
    fx_launch(dev, "void stepper(float)", 10, phase_a);
}

static void check_phase(const td_phase *p, const td_timeline *t, size_t first_inv,
                        size_t last_inv, const fx_shares *want)
{
    CHECK(t->points[p->first].invocation == first_inv);
    CHECK(t->points[p->last].invocation == last_inv);
    CHECK_NEAR(p->mean.node[TD_N_RETIRE], want->retire, 1e-9);
    CHECK_NEAR(p->mean.node[TD_N_DIVERGENCE], want->branch, 1e-9);
    double stalled = 1 - want->retire - want->branch;
    double sum = want->noinst + want->longsb + want->lgthr + want->wait;
    CHECK_NEAR(p->mean.node[TD_N_FRONTEND], stalled * want->noinst / sum, 1e-9);
    CHECK_NEAR(p->mean.node[TD_N_L1_BOUND], stalled * (want->longsb + want->lgthr) / sum, 1e-9);
}

static void test_crafted_timeline(const td_arch_set *archs)
{
    td_result res;
    td_summary s;
    td_error err;
    build_result(&res);
    CHECK(td_summarize(&res, archs, NULL, &s, &err) == 0);
    const char *name = NULL;
    /* named as -k names it: a regex on the base name (step, not stepper) */
    CHECK(td_kernel_lookup(&s, &res, "^step$", TD_NAME_FUNCTION, &name, &err) == 0);
    CHECK_STR(name, "void step(int)");
    CHECK(td_kernel_lookup(&s, &res, "regex:step\\(", TD_NAME_DEMANGLED, &name, &err) == 0);
    CHECK_STR(name, "void step(int)");
    CHECK(td_kernel_lookup(&s, &res, "step(", TD_NAME_FUNCTION, &name, &err) == -1);
    CHECK(strstr(err.msg, "bad kernel-name regex 'step('") != NULL);
    td_timeline t;
    CHECK(td_timeline_build(&res, &s, name, &t, &err) == 0);
    CHECK(t.invocations == 13);
    CHECK(t.n_points == 12);
    CHECK(t.points[4].invocation == 5); /* invocation 4 was not profiled */
    CHECK_NEAR(t.points[0].duration_ns, 100, 0);
    td_phase *phases = NULL;
    size_t n = 0;
    CHECK(td_timeline_phases(&t, TD_PHASE_THRESHOLD_DEFAULT, &phases, &n, &err) == 0);
    CHECK(n == 3);
    if (n == 3) {
        check_phase(&phases[0], &t, 0, 3, &phase_a);
        check_phase(&phases[1], &t, 5, 9, &phase_b);
        check_phase(&phases[2], &t, 10, 12, &phase_a);
        CHECK_NEAR(phases[1].total_ns, 105 + 106 + 107 + 108 + 109, 1e-9);
    }
    free(phases);

    FILE *f = tmpfile();
    CHECK(td_timeline_text(f, &t, &s, 2, TD_PHASE_THRESHOLD_DEFAULT, &err) == 0);
    rewind(f);
    char text[8192] = "";
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    CHECK(strstr(text, "Phases: 3") != NULL);
    CHECK(strstr(text, "phase 2: invocations 5..9 (5, ") != NULL);
    CHECK(strstr(text, "Memory_Bound") != NULL);
    CHECK(strstr(text, "bottleneck Backend.Memory_Bound") != NULL);
    td_timeline_free(&t);

    /* Lookup: a whole name (in full, or the base name "step") wins over a
     * substring; ambiguity and absence are errors. */
    CHECK(td_kernel_lookup(&s, &res, "void step(int)", TD_NAME_FUNCTION, &name, &err) == 0);
    CHECK(td_kernel_lookup(&s, &res, "step", TD_NAME_FUNCTION, &name, &err) == 0 &&
          strcmp(name, "void step(int)") == 0);
    CHECK(td_kernel_lookup(&s, &res, "ste", TD_NAME_FUNCTION, &name, &err) == -1);
    CHECK(strstr(err.msg, "ambiguous") && strstr(err.msg, "void stepper(float)") &&
          strstr(err.msg, "void step(int)"));
    CHECK(td_kernel_lookup(&s, &res, "nosuch", TD_NAME_FUNCTION, &name, &err) == -1);
    CHECK(strstr(err.msg, "nosuch") && strstr(err.msg, " other"));
    td_summary_free(&s);
    td_result_free(&res);
}

/* The CLI on the H100 fixture, whose stencil kernel changes phase at
 * invocations 15 and 30 (tests/fixtures/outputs/make_fixtures.py). */
static void test_cli(const char *dir)
{
    static fx_output r;
    char fixture[512], args[1024];
    fx_fixture("h100", fixture, sizeof fixture);
    snprintf(args, sizeof args, "report '%s' --timeline stencil -l 3", fixture);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "Timeline of kernel void stencil_3d<7>(float*, float const*, int, int, int)") != NULL);
    CHECK(strstr(r.out, "Phases: 3 ") != NULL);
    CHECK(strstr(r.out, "phase 1: invocations 0..14 (15, ") != NULL);
    CHECK(strstr(r.out, "phase 2: invocations 15..29 (15, ") != NULL);
    CHECK(strstr(r.out, "bottleneck Backend.Memory_Bound.MIO_Bound") != NULL);
    CHECK(strstr(r.out, "bottleneck Backend.Memory_Bound.L1_Bound") != NULL);
    /* A threshold above the jumps: one phase. */
    snprintf(args, sizeof args, "report '%s' --timeline stencil --phase-threshold 40", fixture);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0 && strstr(r.out, "Phases: 1 ") != NULL);
    /* "gemm" is in two names: an error listing both. */
    snprintf(args, sizeof args, "report '%s' --timeline gemm", fixture);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 2);
    CHECK(strstr(r.err, "ambiguous") && strstr(r.err, "gemm_tile") && strstr(r.err, "wgmma_gemm"));
    CHECK(strchr(r.err, '\n') == r.err + strlen(r.err) - 1); /* one line */
    snprintf(args, sizeof args, "report '%s' --timeline nosuchkernel", fixture);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 2 && strstr(r.err, "no kernel matches 'nosuchkernel'"));
    snprintf(args, sizeof args, "report '%s' --timeline stencil --phase-threshold five", fixture);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 2 && strstr(r.err, "--phase-threshold needs"));
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    td_arch_set archs;
    fx_load_archs(dir, &archs);
    test_split_synthetic();
    test_crafted_timeline(&archs);
    test_cli(dir);
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
