/* Issue 41 item 11: the plots of the bundled recordings read right. The
 * PM timeline's kernel names never run into one another and its x axis is
 * the data's; a timeline of a few measured invocations marks them; titles
 * tell same-named kernels apart. The .gp scripts are read (gnuplot draws
 * them too: gnuplot-nox, as test_plot). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "td_shell.h"

static const char *bin, *src;
static char dir[] = "/tmp/td_plotlabelsXXXXXX";

#define RECORDINGS "benchmarks/results/recordings_2026-11-26"
#define run(...) td_shell_run(dir, __VA_ARGS__)

/* The first and last x of a .dat's rows (first column, header skipped). */
static void dat_x_range(const char *text, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (const char *p = strchr(text, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        double x = strtod(p + 1, NULL);
        *lo = fmin(*lo, x);
        *hi = fmax(*hi, x);
    }
}

/* PM timeline: "set xrange [A:B]" within a bin (under 2 ms here) of the
 * first and last bin's middles; the kernel labels (set label N < 900)
 * at least 2% of the axis apart, each with its rank. */
static void test_pm_timeline(void)
{
    CHECK(run("%s plot '%s/" RECORDINGS "/h100_pytorch_pm.json.xz' "
              "--pm-timeline -o pm.png", bin, src) == 0);
    char *gp = td_shell_read_file(dir, "pm.gp"), *dat = td_shell_read_file(dir, "pm.dat");
    CHECK(gp && dat);
    if (!gp || !dat) {
        free(gp);
        free(dat);
        return;
    }
    double lo, hi, from = 0, to = 0;
    dat_x_range(dat, &lo, &hi);
    const char *range = strstr(gp, "set xrange [");
    CHECK(range && sscanf(range, "set xrange [%lf:%lf]", &from, &to) == 2);
    CHECK(from <= lo && lo - from < 2 && to >= hi && to - hi < 2);
    size_t labels = 0;
    double last = -INFINITY, min_gap = INFINITY;
    for (const char *p = strstr(gp, "\nset label "); p; p = strstr(p + 1, "\nset label ")) {
        int n = 0;
        double x = 0;
        const char *at = strstr(p, "' at ");
        if (sscanf(p, "\nset label %d", &n) != 1 || n >= 900 || !at)
            continue;
        CHECK(sscanf(at, "' at %lf", &x) == 1);
        const char *hash = strstr(p, " #");
        CHECK(hash && hash < at && hash[2] >= '1' && hash[2] <= '9');
        min_gap = fmin(min_gap, x - last);
        last = x;
        labels++;
    }
    printf("pm timeline: %zu labels, closest %.1f ms apart over %.1f ms\n", labels, min_gap,
           to - from);
    CHECK(labels >= 8 && min_gap >= 0.02 * (to - from) - 1e-6);
    free(gp);
    free(dat);
}

/* The title line of a .gp (malloc'd), NULL when none. */
static char *title_of(const char *name)
{
    char *gp = td_shell_read_file(dir, name);
    const char *t = gp ? strstr(gp, "\nset title ") : NULL;
    char *line = t ? strndup(t + 1, strcspn(t + 1, "\n")) : NULL;
    free(gp);
    return line;
}

/* Kernels #4 and #6 are both multi_tensor_apply_kernel: their timelines'
 * titles differ, by the part of the name that differs and the rank; the
 * 8 measured invocations of 8000 are marked as points. */
static void test_timeline(void)
{
    CHECK(run("%s plot '%s/" RECORDINGS "/h100_pytorch_mlp_2000.json.xz' "
              "--timeline '#4' -o t4.png", bin, src) == 0);
    CHECK(run("%s plot '%s/" RECORDINGS "/h100_pytorch_mlp_2000.json.xz' "
              "--timeline '#6' -o t6.png", bin, src) == 0);
    char *t4 = title_of("t4.gp"), *t6 = title_of("t6.gp");
    CHECK(t4 && t6 && strcmp(t4, t6) != 0);
    CHECK(t4 && strstr(t4, "multi_tensor_apply_kernel [TensorListMetadata<1>") &&
          strstr(t4, "#4 over its invocations"));
    CHECK(t6 && strstr(t6, "multi_tensor_apply_kernel [TensorListMetadata<3>") &&
          strstr(t6, "#6 over its invocations"));
    free(t4);
    free(t6);
    char *gp = td_shell_read_file(dir, "t4.gp");
    CHECK(gp && strstr(gp, "with points pt 7") && strstr(gp, "title 'measured'"));
    CHECK(gp && strstr(gp, "the 8 measured of 8000"));
    free(gp);
}

int main(void)
{
    if (td_shell_start(dir, &bin, &src) != 0)
        return 1;
    test_pm_timeline();
    test_timeline();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
