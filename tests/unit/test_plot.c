/* Plots: the .dat files hold the model's numbers (each bar sums to 100%),
 * the .gp scripts run through gnuplot to PNGs of non-trivial size, every
 * node keeps its colour across plots, and the errors (no gnuplot, a failing
 * script, a bad output name) are clear. Needs gnuplot (gnuplot-nox). */
#include <math.h>

#include "../check.h"
#include "report/plot.h"
#include "td_outputs_testlib.h"

#define MIN_PNG_BYTES 20000 /* an empty 1200x720 frame with axes is ~10 KB */

/* Names that need escaping in gnuplot strings and data files. */
static const char *const kernels[] = {
    "void gemm<float, 'T'>(float const*, float*, int)", "stencil\"#3d(float*)", "k2", "k3",
    "k4", "k5"};

static void build(td_result *res, const char *arch, double shift)
{
    memset(res, 0, sizeof *res);
    td_device *dev = fx_device(res, arch, 0);
    for (int step = 0; step < 12; step++)
        for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
            fx_shares s = {.retire = 0.1 + 0.1 * (double)k + shift, .branch = 0.05,
                           .replay = 0.01, .noinst = 1 + (double)k, .longsb = 3,
                           .lgthr = step >= 6 && k == 1 ? 12 : 1, .wait = 2};
            fx_launch(dev, kernels[k], 1000.0 * (double)(6 - k), s);
        }
    /* A launch with no stall sample: an Unattributed segment. */
    fx_launch(dev, "k5", 100, (fx_shares){.retire = 0.3});
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    return size;
}

static void check_png(const char *path)
{
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8] = {0};
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fread(head, 1, 8, f) == 8);
    fclose(f);
    CHECK(memcmp(head, signature, 8) == 0);
    long size = file_size(path);
    CHECK(size > MIN_PNG_BYTES);
    printf("%s: %ld bytes\n", path, size);
}

/* Rows of a .dat: label (or x) and values; each row must sum to 100%. */
static size_t check_dat(const char *path, size_t want_columns, char first_labels[][64])
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return 0;
    char line[4096];
    size_t rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\n")] = '\0';
        double sum = 0;
        size_t columns = 0;
        char *save = NULL;
        for (char *field = strtok_r(line, "\t", &save); field; field = strtok_r(NULL, "\t", &save)) {
            if (columns == 0 && first_labels && rows < 4)
                snprintf(first_labels[rows], 64, "%s", field);
            else if (columns > 0)
                sum += fx_number(field);
            columns++;
        }
        CHECK(columns == want_columns);
        CHECK_NEAR(sum, 100.0, 0.01);
        rows++;
    }
    fclose(f);
    return rows;
}

/* The colour a script gives each titled segment (not a line of points)
 * agrees with the table. */
static size_t check_colours(const char *script)
{
    FILE *f = fopen(script, "r");
    char line[1024];
    size_t checked = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *title = strstr(line, " title '");
        char *rgb = strstr(line, " lc rgb '");
        if (!title || !rgb || strstr(line, " with points ")) /* the timeline's marks */
            continue;
        char name[256] = "", colour[16] = "";
        sscanf(title + 8, "%255[^']", name);
        sscanf(rgb + 9, "%15[^']", colour);
        const char *want = td_plot_colour(strcmp(name, "Unattributed") == 0 ? name
                                          : strrchr(name, '.') && td_node_find(name) < 0
                                              ? strrchr(name, '.') + 1 : name);
        CHECK_STR(colour, want);
        CHECK(strcmp(colour, "#7f7f7f") != 0); /* every node has its own colour */
        checked++;
    }
    if (f)
        fclose(f);
    return checked;
}

static void path_in(const char *dir, const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", dir, name);
}

static void test_bars(const char *dir, const td_summary *s)
{
    td_error err;
    td_plot_options o;
    td_plot_options_init(&o);
    char png[512], dat[512], gp[512];
    for (int level = 1; level <= TD_MAX_LEVEL; level++) {
        char name[32];
        snprintf(name, sizeof name, "bars%d.png", level);
        path_in(dir, name, png, sizeof png);
        o.level = level;
        o.top = 3;
        o.output = png;
        o.title = "it's a \"test\"";
        int rc = td_plot_bars(s, &o, &err);
        if (rc != 0)
            printf("%s\n", err.msg);
        CHECK(rc == 0);
        check_png(png);
        snprintf(name, sizeof name, "bars%d.dat", level);
        path_in(dir, name, dat, sizeof dat);
        snprintf(name, sizeof name, "bars%d.gp", level);
        path_in(dir, name, gp, sizeof gp);
        char labels[4][64] = {{0}};
        /* app, 3 kernels, "other": values per segment + the label. */
        size_t segments = check_colours(gp);
        CHECK(segments >= (size_t)(level == 1 ? 4 : 6));
        CHECK(check_dat(dat, segments + 1, labels) == 5);
        CHECK_STR(labels[0], "application");
        CHECK(strncmp(labels[1], "gemm #", 6) == 0); /* the base function name, the rank */
        CHECK(strncmp(labels[2], "stencil #3d #", 13) == 0); /* '#' inside a row is kept */
        err.msg[0] = '\0';
    }
}

static void test_bars_values(const char *dir, const td_summary *s)
{
    /* Level 1, all kernels: the app bar is the model's application row. */
    td_error err;
    td_plot_options o;
    td_plot_options_init(&o);
    char png[512], dat[512];
    path_in(dir, "values.png", png, sizeof png);
    path_in(dir, "values.dat", dat, sizeof dat);
    o.output = png;
    o.top = 0;
    o.no_run = 1;
    CHECK(td_plot_bars(s, &o, &err) == 0);
    FILE *f = fopen(dat, "r");
    char line[2048];
    CHECK(f && fgets(line, sizeof line, f)); /* header */
    CHECK(strstr(line, "Retire\tDivergence\tFrontend\tBackend\tUnattributed") != NULL);
    CHECK(f && fgets(line, sizeof line, f));
    double v[5];
    CHECK(sscanf(line, "application\t%lf\t%lf\t%lf\t%lf\t%lf", &v[0], &v[1], &v[2], &v[3], &v[4]) == 5);
    CHECK_NEAR(v[0], 100 * s->app.node[TD_N_RETIRE], 1e-3);
    CHECK_NEAR(v[3], 100 * s->app.node[TD_N_BACKEND], 1e-3);
    CHECK_NEAR(v[4], 100 * s->app.unattributed, 1e-3);
    size_t rows = 1;
    while (f && fgets(line, sizeof line, f))
        rows++;
    CHECK(rows == 1 + s->n_kernels); /* top 0: every kernel, no "other" */
    if (f)
        fclose(f);
    CHECK(file_size(png) < 0); /* no_run: gnuplot not run */
}

static void test_timeline(const char *dir, const td_result *res, const td_summary *s)
{
    td_error err;
    td_timeline t;
    CHECK(td_timeline_build(res, s, kernels[1], &t, &err) == 0);
    td_plot_options o;
    td_plot_options_init(&o);
    char png[512], dat[512], gp[512];
    path_in(dir, "timeline.png", png, sizeof png);
    path_in(dir, "timeline.dat", dat, sizeof dat);
    path_in(dir, "timeline.gp", gp, sizeof gp);
    o.output = png;
    o.level = 3;
    CHECK(td_plot_timeline(&t, s, &o, &err) == 0);
    check_png(png);
    size_t segments = check_colours(gp);
    CHECK(check_dat(dat, segments + 1, NULL) == 12);
    /* The lg_throttle jump at invocation 6 is drawn as a phase boundary. */
    FILE *f = fopen(gp, "r");
    char text[8192] = "";
    if (f) {
        text[fread(text, 1, sizeof text - 1, f)] = '\0';
        fclose(f);
    }
    CHECK(strstr(text, "set arrow from 5.5, graph 0") != NULL);
    CHECK(strstr(text, "phase 2") != NULL && strstr(text, "phase 3") == NULL);
    td_timeline_free(&t);
}

static void test_diff(const char *dir, const td_arch_set *archs, const td_result *ra,
                      const td_summary *sa)
{
    td_result rb;
    td_summary sb;
    td_error err;
    build(&rb, "legacy", -0.05);
    CHECK(td_summarize(&rb, archs, NULL, &sb, &err) == 0);
    td_diff_side a = {"a.json (Test GPU)", ra, sa}, b = {"b.json (P100's)", &rb, &sb};
    td_plot_options o;
    td_plot_options_init(&o);
    char png[512], gp[512];
    path_in(dir, "diff.png", png, sizeof png);
    path_in(dir, "diff.gp", gp, sizeof gp);
    o.output = png;
    o.level = 3; /* legacy B: drawn at level 2 */
    o.top = 4;
    CHECK(td_plot_diff(&a, &b, &o, &err) == 0);
    check_png(png);
    CHECK(check_colours(gp) >= 6);
    FILE *f = fopen(gp, "r");
    char text[16384] = "";
    if (f) {
        text[fread(text, 1, sizeof text - 1, f)] = '\0';
        fclose(f);
    }
    CHECK(strstr(text, "newhistogram '#1'") != NULL && strstr(text, "set label '#1 gemm'") != NULL);
    CHECK(strstr(text, "level 2, the deepest") != NULL);
    CHECK(strstr(text, "Backend.Memory_Bound.L1_Bound") == NULL);
    td_summary_free(&sb);
    td_result_free(&rb);
}

static void test_errors(const char *dir, const td_summary *s)
{
    td_error err;
    td_plot_options o;
    td_plot_options_init(&o);
    char path[512];
    path_in(dir, "plot.jpg", path, sizeof path);
    o.output = path;
    CHECK(td_plot_bars(s, &o, &err) == -1);
    CHECK(strstr(err.msg, ".png or .svg") != NULL);

    path_in(dir, "nognuplot.png", path, sizeof path);
    o.output = path;
    o.gnuplot = "topdown-test-no-such-gnuplot";
    CHECK(td_plot_bars(s, &o, &err) == -1);
    CHECK(strstr(err.msg, "apt-get install gnuplot-nox") != NULL);
    path_in(dir, "nognuplot.gp", path, sizeof path);
    CHECK(file_size(path) > 0); /* the script is there to run later */

    char script[512];
    td_test_write(dir, "broken.gp", "set terminal pngcairo\nplot nosuchfunction(x)\n", script,
                  sizeof script);
    CHECK(td_gnuplot_run(script, NULL, &err) == -1);
    CHECK(strstr(err.msg, "gnuplot failed on") && strstr(err.msg, "nosuchfunction"));

    /* A program that fills stderr far past the pipe's buffer before it
     * fails: read to its end (no deadlock), run in the script's folder,
     * its exit status said. */
    char loud[512], cmd[1200];
    td_test_write(dir, "loud.sh", "#!/bin/sh\n[ -f broken.gp ] || exit 9\n"
                  "head -c 300000 /dev/zero | tr '\\000' x >&2\nexit 3\n", loud, sizeof loud);
    snprintf(cmd, sizeof cmd, "chmod +x '%s'", loud);
    CHECK(system(cmd) == 0);
    CHECK(td_gnuplot_run(script, loud, &err) == -1);
    CHECK(strstr(err.msg, "gnuplot failed on") && strstr(err.msg, "(exit status 3)"));
    CHECK(strstr(err.msg, "xxxx") != NULL && strlen(err.msg) < sizeof err.msg);
}

/* The CLI: the three plots from the fixtures, and a PATH without gnuplot. */
static void test_cli(const char *dir)
{
    static fx_output r;
    char h100[512], a100[512], args[2048], png[512];
    fx_fixture("h100", h100, sizeof h100);
    fx_fixture("a100", a100, sizeof a100);
    snprintf(png, sizeof png, "%s/cli_bars.png", dir);
    snprintf(args, sizeof args, "plot '%s' -l 2 --top 4 -o '%s'", h100, png);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0);
    check_png(png);
    snprintf(png, sizeof png, "%s/cli_timeline.png", dir);
    snprintf(args, sizeof args, "plot '%s' --timeline stencil -l 3 -o '%s'", h100, png);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0);
    check_png(png);
    snprintf(png, sizeof png, "%s/cli_diff.png", dir);
    snprintf(args, sizeof args, "plot --diff '%s' '%s' -o '%s'", h100, a100, png);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0);
    check_png(png);
    snprintf(png, sizeof png, "%s/cli_nognuplot.png", dir);
    snprintf(args, sizeof args, "plot '%s' -o '%s'", h100, png);
    fx_run(dir, "PATH=/nonexistent", args, &r);
    CHECK(r.status == 1 && strstr(r.err, "apt-get install gnuplot-nox"));
    snprintf(args, sizeof args, "plot '%s' -o '%s/x.jpg'", h100, dir);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 2 && strstr(r.err, ".png or .svg"));
    snprintf(args, sizeof args, "plot --diff '%s' -o '%s'", h100, png);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 2 && strstr(r.err, "usage: topdown plot --diff A.json B.json"));
}

static int have_gnuplot(void)
{
    return system("gnuplot --version >/dev/null 2>&1") == 0;
}

int main(void)
{
    if (!have_gnuplot()) {
        fprintf(stderr, "test_plot needs gnuplot: apt-get install gnuplot-nox (scripts/setup.sh does)\n");
        return 1;
    }
    char dir[64];
    td_error err;
    td_test_tmpdir(dir, sizeof dir);
    td_arch_set archs;
    fx_load_archs(dir, &archs);
    td_result res;
    td_summary s;
    build(&res, "testarch", 0);
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    test_bars(dir, &s);
    test_bars_values(dir, &s);
    test_timeline(dir, &res, &s);
    test_diff(dir, &archs, &res, &s);
    test_errors(dir, &s);
    test_cli(dir);
    td_summary_free(&s);
    td_result_free(&res);
    td_arch_set_free(&archs);
    if (getenv("TOPDOWN_KEEP_PLOTS"))
        printf("plots kept in %s\n", dir);
    else
        td_test_cleanup(dir);
    return td_check_summary();
}
