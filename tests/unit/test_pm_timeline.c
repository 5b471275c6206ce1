/* The PM-sampling timeline (--pm-interval) without a GPU: bounded sample
 * storage (merging keeps the sums), the result's "pm_samples" round trip
 * and old files without it, the spool's batches, the level-1 split per
 * sample with the model's formulas (and what the GH100 set cannot split),
 * the text report with kernels laid over it, and the plot files. */
#include <math.h>
#include <sys/stat.h>

#include "../check.h"
#include "metrics/result/pm_samples.h"
#include "metrics/spool/spool.h"
#include "report/pm_timeline.h"
#include "td_outputs_testlib.h"
#include "td_shell.h"

/* The GH100 table's "pm_sampling" set. */
static const char *const gh100_pm[3] = {"sm__cycles_active.sum", "smsp__inst_executed.sum",
                                         "smsp__inst_issued.sum"};
enum { C_CYCLES, C_INST, C_ISSUED };

static void test_bounded_merge(void)
{
    td_pm_samples *pm = NULL;
    td_error err;
    CHECK(td_pm_create(&pm, gh100_pm, 3, 1000, 4, &err) == 0);
    if (!pm)
        return;
    double total[3] = {0, 0, 0};
    for (int i = 0; i < 11; i++) {
        double v[3] = {100.0 + i, 2.0 * i, 3.0 * i};
        CHECK(td_pm_add(pm, 1000u * (unsigned)i, 1000u * (unsigned)i + 1000, v, &err) == 0);
        for (int m = 0; m < 3; m++)
            total[m] += v[m];
    }
    CHECK(pm->n <= 4);
    CHECK(pm->samples == 11);
    CHECK(pm->merges == 2); /* 11 samples in 4 rows: up to 4 a row */
    double sum[3] = {0, 0, 0};
    for (size_t r = 0; r < pm->n; r++) {
        for (int m = 0; m < 3; m++)
            sum[m] += td_pm_row(pm, r)[m];
        CHECK(pm->end_ns[r] > pm->start_ns[r]);
        if (r)
            CHECK(pm->start_ns[r] == pm->end_ns[r - 1]); /* contiguous, in order */
    }
    for (int m = 0; m < 3; m++)
        CHECK_NEAR(sum[m], total[m], 1e-9);
    CHECK(pm->start_ns[0] == 0 && pm->end_ns[pm->n - 1] == 11000);
    /* Rows of 4 samples, the last partial: 4 + 4 + 3. */
    CHECK(pm->n == 3);
    CHECK_NEAR(td_pm_row(pm, 0)[0], 100 + 101 + 102 + 103, 1e-9);
    CHECK(pm->end_ns[0] == 4000);
    /* Metrics that differ do not join. */
    td_pm_samples *other = NULL;
    const char *names[3] = {"sm__cycles_active.sum", "x", "smsp__inst_issued.sum"};
    CHECK(td_pm_create(&other, names, 3, 1000, 0, &err) == 0);
    CHECK(td_pm_append(pm, other, &err) == -1 && strstr(err.msg, "x") != NULL);
    td_pm_free(other);
    CHECK(td_pm_create(&other, gh100_pm, 0, 1000, 0, &err) == -1);
    td_pm_free(pm);
}

/* 30 samples of 100 us: alpha's stretch (Retire 50%, Replay 5%), beta's
 * (Retire 10%), then idle. Launches of alpha and beta lie over them. */
static void build_result(td_result *res, const td_arch *gh100)
{
    memset(res, 0, sizeof *res);
    td_error err;
    td_device *dev = td_result_add_device(res, &err);
    dev->arch = td_strdup("gh100");
    dev->name = td_strdup("NVIDIA H100 80GB HBM3");
    dev->chip = td_strdup("GH100");
    const char *names[64];
    size_t n = td_arch_metrics(gh100, names, 64);
    CHECK(td_device_set_metrics(dev, names, n, &err) == 0);
    CHECK(td_pm_create(&dev->pm, gh100_pm, 3, 100000, 0, &err) == 0);
    for (unsigned i = 0; i < 30; i++) {
        double cycles = i < 20 ? 132 * 100000.0 : 0, ipc = i < 10 ? 2.0 : 0.4;
        double v[3] = {cycles, ipc * cycles, (i < 10 ? 1.1 : 1.0) * ipc * cycles};
        CHECK(td_pm_add(dev->pm, 1000000 + 100000ull * i, 1000000 + 100000ull * (i + 1), v,
                        &err) == 0);
    }
    for (int i = 0; i < 4; i++) {
        td_launch *l = fx_unprofiled(dev, i < 2 ? "void alpha(float*)" : "void beta<int>(int)",
                                     450000);
        l->start_ns = 1000000 + (i < 2 ? 0 : 1000000) + 500000ull * (unsigned)(i % 2);
    }
}

static void test_round_trip(const char *dir, const td_result *res)
{
    char path[512];
    td_error err;
    snprintf(path, sizeof path, "%s/pm.topdown.json", dir);
    CHECK(td_result_save(path, res, &err) == 0);
    td_result back;
    CHECK(td_result_load(path, &back, &err) == 0);
    const td_pm_samples *a = res->devices[0].pm, *b = back.devices[0].pm;
    CHECK(b != NULL);
    if (b) {
        CHECK(b->n == a->n && b->n_metrics == 3 && b->interval_ns == 100000);
        CHECK(b->samples == a->samples && b->merges == a->merges);
        CHECK(strcmp(b->metrics[1], "smsp__inst_executed.sum") == 0);
        for (size_t r = 0; r < a->n; r++) {
            CHECK(a->start_ns[r] == b->start_ns[r] && a->end_ns[r] == b->end_ns[r]);
            for (int m = 0; m < 3; m++)
                CHECK(td_pm_row(a, r)[m] == td_pm_row(b, r)[m]);
        }
    }
    td_result_free(&back);

    /* A file of before --pm-interval loads with no samples. */
    char fixture[512];
    CHECK(td_result_load(fx_fixture("h100", fixture, sizeof fixture), &back, &err) == 0);
    for (size_t d = 0; d < back.n_devices; d++)
        CHECK(back.devices[d].pm == NULL);
    td_result_free(&back);

    /* A column of the wrong length is refused with its name. */
    const char *bad = "{\"schema\":\"topdown-result/2\",\"tool_version\":\"x\",\"kernels\":[],"
                      "\"devices\":[{\"index\":0,\"name\":\"g\",\"chip\":\"GH100\",\"cc\":[9,0],"
                      "\"arch\":\"gh100\",\"metrics\":[\"a\"],\"configs\":[],"
                      "\"launches\":{\"count\":0,\"id_runs\":[],\"config\":[],\"duration_ns\":[]},"
                      "\"pm_samples\":{\"interval_ns\":1000,\"metrics\":[\"a\",\"b\"],"
                      "\"start_ns\":[0,10],\"end_ns\":[10,20],\"values\":[[1,2],[3]]}}]}";
    CHECK(td_result_parse(bad, strlen(bad), "bad.json", &back, &err) == -1);
    CHECK(strstr(err.msg, "\"values\"[1] must hold 2 numbers") != NULL);
    td_result_free(&back);
}

/* Two batches of one context's samples become one timeline. */
static void test_spool_batches(void)
{
    const char *text =
        "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\",\"replay_mode\":\"auto\"}\n"
        "{\"type\":\"device\",\"pid\":7,\"context\":1,\"device\":0,\"chip\":\"GH100\",\"cc\":[9,0],"
        "\"arch\":\"gh100\",\"passes\":0,\"metrics\":[]}\n"
        "{\"type\":\"pm_samples\",\"pid\":7,\"context\":1,\"interval_ns\":1000,"
        "\"metrics\":[\"sm__cycles_active.sum\",\"smsp__inst_executed.sum\"],"
        "\"start_ns\":[0,1000],\"end_ns\":[1000,2000],\"values\":[[10,10],[5,6]]}\n"
        "{\"type\":\"pm_samples\",\"pid\":7,\"context\":1,\"interval_ns\":1000,\"overflows\":1,"
        "\"metrics\":[\"sm__cycles_active.sum\",\"smsp__inst_executed.sum\"],"
        "\"start_ns\":[2000],\"end_ns\":[3000],\"values\":[[10],[7]]}\n"
        "{\"type\":\"end\",\"pid\":7}\n";
    td_result res;
    td_spool_summary sum;
    td_error err;
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "t.spool", &res, &sum, &err) == 0);
    CHECK(res.n_devices == 1 && res.devices[0].pm != NULL);
    if (res.n_devices == 1 && res.devices[0].pm) {
        const td_pm_samples *pm = res.devices[0].pm;
        CHECK(pm->n == 3 && pm->overflows == 1);
        CHECK(td_pm_row(pm, 2)[1] == 7 && pm->end_ns[2] == 3000);
    }
    td_spool_summary_free(&sum);
    td_result_free(&res);
    /* Samples of a context with no device record: an error naming them. */
    const char *orphan =
        "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\"}\n"
        "{\"type\":\"pm_samples\",\"pid\":7,\"context\":3,\"interval_ns\":1000,"
        "\"metrics\":[\"a\"],\"start_ns\":[0],\"end_ns\":[1],\"values\":[[1]]}\n";
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(orphan, strlen(orphan), "o.spool", &res, &sum, &err) == -1);
    CHECK(strstr(err.msg, "PM samples") != NULL);
    td_spool_summary_free(&sum);
    td_result_free(&res);
}

static void test_model(const td_result *res, const td_arch_set *real, const td_arch_set *test)
{
    td_summary s;
    td_error err;
    CHECK(td_summarize(res, real, NULL, &s, &err) == 0);
    td_pm_timeline t;
    CHECK(td_pm_timeline_build(res, &s, 0, 100, &t, &err) == 0);
    CHECK(t.n_bins == 30 && t.rows_per_bin == 1);
    /* GH100's one-pass set: no Branch, no Frontend/Backend split. */
    CHECK(!t.model.split_branch && t.model.split_replay && !t.model.split_stalls);
    char why[512];
    CHECK(td_pm_model_unsplit(&t.model, why, sizeof why) == 2);
    CHECK(strstr(why, "Retire includes Divergence.Branch") != NULL);
    CHECK(strstr(why, "Frontend and Backend are not split") != NULL);
    const td_pm_bin *a = &t.bins[0], *b = &t.bins[15], *idle = &t.bins[25];
    CHECK(a->p.busy && b->p.busy && !idle->p.busy);
    CHECK_NEAR(a->p.share[TD_PM_RETIRE], 50.0, 1e-9);     /* IPC 2 of 4 */
    CHECK_NEAR(a->p.share[TD_PM_DIVERGENCE], 5.0, 1e-9);  /* issued 2.2: Replay 0.2 of 4 */
    CHECK_NEAR(a->p.share[TD_PM_STALLED], 45.0, 1e-9);
    CHECK_NEAR(b->p.share[TD_PM_RETIRE], 10.0, 1e-9);
    CHECK(a->p.share[TD_PM_FRONTEND] == 0 && a->p.share[TD_PM_BACKEND] == 0);
    for (size_t i = 0; i < t.n_bins; i++) {
        double total = 0;
        for (int c = 0; c < TD_PM_COLUMNS; c++)
            total += t.bins[i].p.share[c];
        CHECK(t.bins[i].p.busy ? fabs(total - 100.0) < 1e-6 : total == 0);
    }
    /* Kernels laid over: alpha in the first millisecond, beta in the second. */
    CHECK(a->kernel[0] && strcmp(a->kernel[0], "void alpha(float*)") == 0);
    CHECK(b->kernel[0] && strcmp(b->kernel[0], "void beta<int>(int)") == 0);
    CHECK(idle->kernel[0] == NULL);
    CHECK_NEAR(t.bins[0].kernel_ns[0], 100000, 1e-9);
    CHECK_NEAR(t.bins[4].kernel_ns[0], 50000, 1e-9); /* the launch ends half-way */
    CHECK_NEAR(t.bins[9].kernel_ns[0], 50000, 1e-9); /* alpha's second, 1.5 to 1.95 ms */
    CHECK(t.bins[10].kernel[0] && strcmp(t.bins[10].kernel[0], "void beta<int>(int)") == 0);
    td_pm_timeline_free(&t);
    /* Three bins of ten: sums over the samples, then the split. */
    CHECK(td_pm_timeline_build(res, &s, 0, 3, &t, &err) == 0);
    CHECK(t.n_bins == 3 && t.rows_per_bin == 10);
    CHECK_NEAR(t.bins[0].p.share[TD_PM_RETIRE], 50.0, 1e-9);
    CHECK(t.bins[0].end_ns - t.bins[0].start_ns == 1000000);
    td_pm_timeline_free(&t);
    td_summary_free(&s);

    /* Every counter sampled (the test table): everything splits, with the
     * model's formulas: Retire 0.8 x IPC/4, Frontend 1/4 of the stalled. */
    const td_arch *testarch = td_arch_find(test, "testarch");
    td_pm_samples *full = NULL;
    CHECK(td_pm_create(&full, td_test_metric_names, 9, 1000, 0, &err) == 0);
    td_pm_model m;
    CHECK(td_pm_model_init(&m, testarch, full, &err) == 0);
    CHECK(m.split_branch && m.split_replay && m.split_stalls);
    CHECK(td_pm_model_unsplit(&m, why, sizeof why) == 0 && why[0] == '\0');
    double row[9] = {2000, 2000, 0.8 * 32 * 2000, 1000, 0, 1, 3, 0, 0};
    td_pm_point p;
    td_pm_model_point(&m, row, 1, &p);
    CHECK_NEAR(p.share[TD_PM_RETIRE], 40.0, 1e-9);
    CHECK_NEAR(p.share[TD_PM_DIVERGENCE], 10.0, 1e-9);
    CHECK_NEAR(p.share[TD_PM_FRONTEND], 12.5, 1e-9);
    CHECK_NEAR(p.share[TD_PM_BACKEND], 37.5, 1e-9);
    CHECK(p.share[TD_PM_STALLED] == 0);
    td_pm_free(full);
    /* No executed instructions sampled: no level 1 at all. */
    const char *only[1] = {"sm__cycles_active.sum"};
    CHECK(td_pm_create(&full, only, 1, 1000, 0, &err) == 0);
    CHECK(td_pm_model_init(&m, testarch, full, &err) == -1);
    CHECK(strstr(err.msg, "smsp__inst_executed.sum") != NULL);
    td_pm_free(full);
}

static void test_cli(const char *dir)
{
    char args[1024];
    td_run_output r;
    snprintf(args, sizeof args, "report '%s/pm.topdown.json' --pm-timeline", dir);
    td_test_run_topdown(dir, args, &r);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "PM-sampling timeline, device 0: NVIDIA H100 80GB HBM3 (GH100)") != NULL);
    CHECK(strstr(r.out, "cannot split with these counters:") != NULL);
    CHECK(strstr(r.out, "- Retire includes Divergence.Branch") != NULL);
    CHECK(strstr(r.out, "  start ms    span ms     Retire Divergence    Stalled   kernels") != NULL);
    CHECK(strstr(r.out, "alpha") != NULL && strstr(r.out, "   beta\n") != NULL);
    CHECK(strstr(r.out, "idle") != NULL);
    CHECK(strstr(r.out, "  1.000      0.100       50.0        5.0       45.0   alpha\n") != NULL);
    if (r.status)
        fprintf(stderr, "%s", r.err);

    snprintf(args, sizeof args, "report '%s/pm.topdown.json' --pm-timeline --timeline alpha", dir);
    td_test_run_topdown(dir, args, &r);
    CHECK(r.status == 2 && strstr(r.err, "--pm-timeline") != NULL);

    char fixture[512];
    snprintf(args, sizeof args, "report '%s' --pm-timeline", fx_fixture("h100", fixture, sizeof fixture));
    td_test_run_topdown(dir, args, &r);
    CHECK(r.status == 1 && strstr(r.err, "--pm-interval USEC") != NULL);

    td_test_run_topdown(dir, "--pm-interval 0 -- true", &r);
    CHECK(r.status == 2 && strstr(r.err, "--pm-interval") != NULL);
    /* Options that choose profiled launches do nothing with it: refused. */
    td_test_run_topdown(dir, "--pm-interval 100 --sample-every 4 -- true", &r);
    CHECK(r.status == 2 && strstr(r.err, "--sample-every chooses profiled launches") != NULL);
    td_test_run_topdown(dir, "--replay-mode none --pm-interval 100 -- true", &r);
    CHECK(r.status == 2 && strstr(r.err, "--replay-mode") != NULL);
    snprintf(args, sizeof args, "report '%s/pm.topdown.json' --pm-timeline --by-region", dir);
    td_test_run_topdown(dir, args, &r);
    CHECK(r.status == 2 && strstr(r.err, "without --by-region") != NULL);
}

/* The launcher without a GPU: a stand-in app writes the fuzz seed's
 * spool (two pm_samples batches, one timed launch) as the injection
 * library would; --pm-interval reaches it in ns (TOPDOWN_COLLECT's
 * pm_interval_ns), a run measured by its samples alone is not "nothing
 * measured", and the run prints the PM timeline instead of the tree. */
static void test_launcher(const char *dir)
{
    char app[512], args[2048];
    snprintf(app, sizeof app, "%s/fake_app.sh", dir);
    FILE *f = fopen(app, "w");
    if (!f)
        return;
    fprintf(f, "#!/bin/sh\necho " TD_SHELL_OPTION("pm_interval_ns") " > '%s/pm_env'\n"
            "cat '%s/tests/fuzz/spool/seeds/pm_samples.spool' >> " TD_SHELL_OPTION("spool") "\n",
            dir, getenv("TOPDOWN_REPO_DIR"));
    fclose(f);
    chmod(app, 0755);
    td_run_output r;
    char env[64], path[512];
    snprintf(args, sizeof args, "--pm-interval 250 -o '%s/run.json' -- '%s'", dir, app);
    td_test_run_topdown(dir, args, &r);
    CHECK(r.status == 0);
    if (r.status)
        fprintf(stderr, "%s", r.err);
    snprintf(path, sizeof path, "%s/pm_env", dir);
    td_test_slurp(path, env, sizeof env);
    CHECK(strcmp(env, "250000\n") == 0);
    CHECK(strstr(r.out, "PM-sampling timeline, device 0") != NULL);
    CHECK(strstr(r.out, "alpha") != NULL);
    CHECK(strstr(r.err, "nothing measured") == NULL);
    td_result res;
    td_error err;
    snprintf(path, sizeof path, "%s/run.json", dir);
    CHECK(td_result_load(path, &res, &err) == 0);
    CHECK(res.n_devices == 1 && res.devices[0].pm && res.devices[0].pm->n == 4);
    CHECK(res.n_devices == 1 && res.devices[0].pm && res.devices[0].pm->overflows == 1);
    td_result_free(&res);
    /* Without the option the interval is 0: no PM sampling. */
    snprintf(args, sizeof args, "-f -o '%s/run.json' -- '%s'", dir, app);
    td_test_run_topdown(dir, args, &r);
    snprintf(path, sizeof path, "%s/pm_env", dir);
    td_test_slurp(path, env, sizeof env);
    CHECK(strcmp(env, "0\n") == 0);
}

static void test_plot(const char *dir, const td_result *res, const td_arch_set *real)
{
    td_summary s;
    td_error err;
    CHECK(td_summarize(res, real, NULL, &s, &err) == 0);
    char png[512], gp[512], dat[512], text[65536];
    snprintf(png, sizeof png, "%s/pm.png", dir);
    snprintf(gp, sizeof gp, "%s/pm.gp", dir);
    snprintf(dat, sizeof dat, "%s/pm.dat", dir);
    td_plot_options o;
    td_plot_options_init(&o);
    o.output = png;
    o.no_run = 1;
    o.title = "t";
    CHECK(td_pm_timeline_plot(res, &s, &o, &err) == 0);
    td_test_slurp(gp, text, sizeof text);
    CHECK(strstr(text, "set output 'pm.png'") != NULL);
    CHECK(strstr(text, "'pm.dat' using 1:(0):($2) with filledcurves title 'Retire'") != NULL);
    CHECK(strstr(text, "using 1:($2+$3):($2+$3+$6) with filledcurves title 'Stalled'") != NULL);
    CHECK(strstr(text, "'Frontend'") == NULL); /* not split: not drawn */
    /* named with the report's rank (same-named kernels apart) */
    CHECK(strstr(text, "set label 1 'alpha #") != NULL);
    CHECK(strstr(text, "' at 1.000000") != NULL);
    CHECK(strstr(text, "set label 2 'beta #") != NULL);
    CHECK(strstr(text, "' at 2.000000") != NULL);
    CHECK(strstr(text, "set xrange [") != NULL);
    CHECK(strstr(text, "Retire includes Divergence.Branch") != NULL);
    td_test_slurp(dat, text, sizeof text);
    CHECK(strncmp(text, "time_ms\tRetire\tDivergence\tFrontend\tBackend\tStalled\tbusy\tkernel\n",
                  62) == 0);
    CHECK(strstr(text, "1.050000\t50.000\t5.000\t0.000\t0.000\t45.000\t1\talpha\n") != NULL);
    CHECK(strstr(text, "3.950000\t0.000\t0.000\t0.000\t0.000\t0.000\t0\t-\n") != NULL);
    size_t lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    CHECK(lines == 31);
    td_summary_free(&s);

    if (system("gnuplot --version >/dev/null 2>&1") == 0) {
        char args[1024];
        td_run_output r;
        snprintf(args, sizeof args, "plot '%s/pm.topdown.json' --pm-timeline -o '%s/cli.png'", dir, dir);
        td_test_run_topdown(dir, args, &r);
        CHECK(r.status == 0);
        snprintf(png, sizeof png, "%s/cli.png", dir);
        FILE *f = fopen(png, "rb");
        long size = -1;
        if (f && fseek(f, 0, SEEK_END) == 0)
            size = ftell(f);
        if (f)
            fclose(f);
        CHECK(size > 5000);
        if (r.status)
            fprintf(stderr, "%s", r.err);
    }
}

/* "pm_sampling" in a table: optional, and only metrics the table names. */
static void test_arch_field(void)
{
    char text[8192];
    td_arch a;
    td_error err;
    size_t len = strlen(td_test_arch_json) - 1; /* without the closing brace */
    snprintf(text, sizeof text, "%.*s, \"pm_sampling\": {\"metrics\": [\"sm__cycles_active.sum\", "
             "\"s.wait\"]}}", (int)len, td_test_arch_json);
    CHECK(td_arch_parse(text, strlen(text), "archs/testarch.json", &a, &err) == 0);
    CHECK(a.n_pm_metrics == 2 && strcmp(a.pm_metrics[1], "s.wait") == 0);
    td_arch_free(&a);
    snprintf(text, sizeof text, "%.*s, \"pm_sampling\": {\"metrics\": [\"nope.sum\"]}}", (int)len,
             td_test_arch_json);
    CHECK(td_arch_parse(text, strlen(text), "archs/testarch.json", &a, &err) == -1);
    CHECK(strstr(err.msg, "\"pm_sampling\" names nope.sum") != NULL);
    td_arch_free(&a);
    /* a stand-in for thread instructions: listed, named, kept */
    snprintf(text, sizeof text, "%.*s, \"pm_sampling\": {\"metrics\": [\"sm__cycles_active.sum\", "
             "\"t.pred_on\"], \"thread_inst_executed\": \"t.pred_on\"}}", (int)len,
             td_test_arch_json);
    CHECK(td_arch_parse(text, strlen(text), "archs/testarch.json", &a, &err) == 0);
    CHECK(a.pm_thread_inst && strcmp(a.pm_thread_inst, "t.pred_on") == 0);
    td_arch_free(&a);
    snprintf(text, sizeof text, "%.*s, \"pm_sampling\": {\"metrics\": [\"sm__cycles_active.sum\"], "
             "\"thread_inst_executed\": \"t.pred_on\"}}", (int)len, td_test_arch_json);
    CHECK(td_arch_parse(text, strlen(text), "archs/testarch.json", &a, &err) == -1);
    CHECK(strstr(err.msg, "t.pred_on is not one of its \"metrics\"") != NULL);
    td_arch_free(&a);
    snprintf(text, sizeof text, "%.*s, \"pm_sampling\": {\"metrics\": [\"sm__cycles_active.sum\"], "
             "\"thread_inst_executed\": 3}}", (int)len, td_test_arch_json);
    CHECK(td_arch_parse(text, strlen(text), "archs/testarch.json", &a, &err) == -1);
    CHECK(strstr(err.msg, "must be a metric name") != NULL);
    td_arch_free(&a);
    snprintf(text, sizeof text, "%.*s, \"pm_sampling\": [\"s.wait\"]}", (int)len, td_test_arch_json);
    CHECK(td_arch_parse(text, strlen(text), "archs/testarch.json", &a, &err) == -1);
    td_arch_free(&a);
    CHECK(td_arch_parse(td_test_arch_json, strlen(td_test_arch_json), "archs/testarch.json", &a,
                        &err) == 0);
    CHECK(a.n_pm_metrics == 0 && a.pm_metrics == NULL);
    td_arch_free(&a);
}

/* Units' throughput over time: SM issue and DRAM from samples that carry
 * each's work, peak and cycles, over a bin of two rows (their peaks sum
 * to twice the peak); L2, of which the samples carry one measure of
 * three, is not shown; a sample without the units shows none. */
static void test_units(const td_arch *gh100)
{
    static const char *const names[] = {
        "sm__cycles_active.sum", "smsp__inst_executed.sum", "smsp__inst_issued.sum",
        "smsp__inst_issued.sum.peak_sustained", "smsp__cycles_elapsed.avg",
        "dram__bytes_read.sum", "dram__bytes_write.sum", "dram__bytes.sum.peak_sustained",
        "dram__cycles_elapsed.avg", "lts__t_sectors.sum", "lts__t_sectors.sum.peak_sustained",
        "lts__cycles_elapsed.avg"};
    enum { N = sizeof names / sizeof *names };
    td_pm_samples *pm = NULL;
    td_error err;
    CHECK(td_pm_create(&pm, names, N, 1000, 0, &err) == 0);
    td_pm_model m;
    CHECK(pm && td_pm_model_init(&m, gh100, pm, &err) == 0);
    /* two rows summed: issued 6000 of 4 a cycle (the peaks sum to 8) x 2000 cycles = 75%;
     * DRAM 1200 + 400 bytes of 32 a cycle (64 summed) x 100 cycles = 50% */
    const double row[N] = {4000, 5000, 6000, 8, 2000, 1200, 400, 64, 100, 999, 2, 10};
    td_pm_point p;
    td_pm_model_point(&m, row, 2, &p);
    const td_arch_memory *mem = &gh100->memory;
    size_t shown = 0;
    for (size_t u = 0; u < mem->n_units; u++) {
        if (!td_pm_model_shows_unit(&m, u))
            continue;
        shown++;
        if (strcmp(mem->units[u].name, "SM_Issue") == 0)
            CHECK_NEAR(p.unit_pct[u], 75.0, 1e-9);
        else if (strcmp(mem->units[u].name, "DRAM") == 0)
            CHECK_NEAR(p.unit_pct[u], 50.0, 1e-9);
        else
            CHECK(0); /* L1, L2: not every measure sampled */
    }
    CHECK(shown == 2);
    td_pm_free(pm);
    /* level 1 alone: no unit */
    CHECK(td_pm_create(&pm, names, 3, 1000, 0, &err) == 0);
    CHECK(pm && td_pm_model_init(&m, gh100, pm, &err) == 0);
    for (size_t u = 0; u < mem->n_units; u++)
        CHECK(!td_pm_model_shows_unit(&m, u));
    td_pm_model_point(&m, row, 1, &p);
    CHECK(isnan(p.unit_pct[0]));
    td_pm_free(pm);
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    td_arch_set real, test;
    fx_real_archs(&real);
    fx_load_archs(dir, &test);
    test_bounded_merge();
    test_arch_field();
    td_result res;
    build_result(&res, td_arch_find(&real, "gh100"));
    test_round_trip(dir, &res);
    test_spool_batches();
    test_model(&res, &real, &test);
    test_cli(dir);
    test_launcher(dir);
    test_plot(dir, &res, &real);
    test_units(td_arch_find(&real, "gh100"));
    td_result_free(&res);
    td_arch_set_free(&real);
    td_arch_set_free(&test);
    td_test_cleanup(dir);
    return td_check_summary();
}
