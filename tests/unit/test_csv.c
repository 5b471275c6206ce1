/* The CSV outputs parsed back and checked against td_summarize and
 * td_summary_launch on the same result, at every level, with a kernel name
 * that needs quoting, and under a locale whose decimal sign is a comma. */
#include <locale.h>
#include <math.h>

#include "../check.h"
#include "report/columns.h"
#include "report/csv.h"
#include "td_outputs_testlib.h"

#define TEMPLATE_KERNEL "void foo<int, float>(float*, \"x\", int)"

static void build_result(td_result *res)
{
    memset(res, 0, sizeof *res);
    td_device *dev = fx_device(res, "testarch", 0);
    fx_shares mem = {.retire = 0.3, .branch = 0.1, .replay = 0.05, .longsb = 3, .lgthr = 1, .wait = 1};
    fx_shares fe = {.retire = 0.5, .noinst = 4, .wait = 1};
    fx_launch(dev, TEMPLATE_KERNEL, 4000, mem);
    fx_launch(dev, "bar", 1000, fe);
    fx_launch(dev, TEMPLATE_KERNEL, 2000, fe);
    fx_unprofiled(dev, "bar", 3000);
    fx_launch(dev, "bar", 500, mem);
    fx_unprofiled(dev, "only_timed", 700);
    /* No stall sample at all: the stalled slots stay unattributed. */
    fx_launch(dev, "quiet", 100, (fx_shares){.retire = 0.25});
}

static const char *const kernel_fixed[] = {
    "kernel", "launches", "profiled_launches", "total_ns", "gpu_time_pct", "ipc"};

/* Header: the fixed columns, the node columns in tree order, then the
 * trailing three, then (kernel CSV) "<node>_lo" and "<node>_hi" per node
 * column and the per-launch durations; returns the columns the level
 * should have. */
static const char *const duration_names[] = {"mean_ns", "min_ns", "median_ns", "max_ns",
                                              "std_ns"};
#define N_DURATIONS 5
static void check_header(const td_csv_record *h, const char *const *fixed, size_t n_fixed,
                         const td_summary *s, int level, td_columns *cols, int spread)
{
    td_error err;
    const td_model *models[1] = {&s->models[0]};
    CHECK(td_columns_build(cols, models, 1, level, 3, &err) == 0);
    CHECK(h->count == n_fixed + cols->count * (spread ? 3 : 1) + 3 + (spread ? N_DURATIONS : 0));
    for (size_t i = 0; spread && i < N_DURATIONS && n_fixed + 3 * cols->count + 3 + i < h->count;
         i++)
        CHECK_STR(h->fields[n_fixed + 3 * cols->count + 3 + i], duration_names[i]);
    for (size_t i = 0; spread && i < 2 * cols->count && n_fixed + cols->count + 3 + i < h->count;
         i++) {
        char name[TD_PATH_MAX + 16];
        snprintf(name, sizeof name, "%s_%s", cols->items[i / 2].path, i % 2 ? "hi" : "lo");
        CHECK_STR(h->fields[n_fixed + cols->count + 3 + i], name);
    }
    for (size_t i = 0; i < n_fixed && i < h->count; i++)
        CHECK_STR(h->fields[i], fixed[i]);
    for (size_t i = 0; i < cols->count && n_fixed + i < h->count; i++)
        CHECK_STR(h->fields[n_fixed + i], cols->items[i].path);
    CHECK(fx_field_index(h, "unattributed") == (int)(n_fixed + cols->count));
    CHECK(fx_field_index(h, "bottleneck") == (int)(n_fixed + cols->count + 1));
    CHECK(fx_field_index(h, "kernel_function") == (int)(n_fixed + cols->count + 2));
}

/* The node, unattributed and bottleneck fields of one row against b. */
static void check_tree(const td_csv_record *r, size_t first, const td_columns *cols,
                       const td_model *m, const td_breakdown *b, int has_data, int level)
{
    double level1 = 0;
    int all_level1 = 1; /* a level-1 node not known (empty) leaves the sum short */
    for (size_t i = 0; i < cols->count; i++) {
        double got = fx_number(r->fields[first + i]);
        double want = has_data ? 100.0 * td_column_value(&cols->items[i], m, b) : NAN;
        if (isnan(want))
            CHECK(isnan(got));
        else
            CHECK_NEAR(got, want, 1e-4);
        if (cols->items[i].level == 1 && !isnan(got))
            level1 += got;
        all_level1 &= cols->items[i].level != 1 || !td_column_not_known(&cols->items[i], m, b);
    }
    double unattributed = fx_number(r->fields[first + cols->count]);
    if (has_data) {
        CHECK_NEAR(unattributed, 100.0 * b->unattributed, 1e-4);
        if (all_level1)
            CHECK_NEAR(level1 + unattributed, 100.0, 1e-3);
        char path[420];
        td_verdict v;
        td_model_judge(m, b, &v);
        CHECK_STR(r->fields[first + cols->count + 1], td_verdict_names(m, &v, level, path,
                                                                       sizeof path));
    } else {
        CHECK(isnan(unattributed));
        CHECK_STR(r->fields[first + cols->count + 1], "");
    }
}

/* The duration fields of a kernel row against its launches' figures;
 * the application's are empty. */
static void check_durations(const td_csv_record *r, size_t first, const td_duration_stats *d)
{
    const double want[N_DURATIONS] = {d ? d->mean_ns : 0, d ? d->min_ns : 0, d ? d->median_ns : 0,
                                      d ? d->max_ns : 0, d ? d->std_ns : 0};
    for (size_t i = 0; i < N_DURATIONS; i++) {
        if (d)
            CHECK_NEAR(fx_number(r->fields[first + i]), want[i], 0.5);
        else
            CHECK_STR(r->fields[first + i], "");
    }
}

/* The interval fields of a kernel row against the summary's: inside
 * 0..100, around the value. */
static void check_spread(const td_csv_record *r, size_t first, const td_columns *cols,
                         const td_model *m, const td_breakdown *mean,
                         const td_breakdown *spread, int has_data)
{
    for (size_t i = 0; i < cols->count; i++) {
        double lo = fx_number(r->fields[first + 2 * i]), hi = fx_number(r->fields[first + 2 * i + 1]);
        td_interval in;
        if (!has_data || !td_column_interval(&cols->items[i], m, mean, spread, &in)) {
            CHECK(isnan(lo) && isnan(hi));
            continue;
        }
        CHECK_NEAR(lo, 100.0 * in.lo, 1e-4);
        CHECK_NEAR(hi, 100.0 * in.hi, 1e-4);
        CHECK(lo >= 0 && lo <= hi && hi <= 100);
        double v = 100.0 * td_column_value(&cols->items[i], m, mean);
        CHECK(isnan(v) || (lo <= v + 1e-4 && v <= hi + 1e-4));
    }
}

static FILE *reopen(FILE *f)
{
    fflush(f);
    rewind(f);
    return f;
}

static void check_kernels_csv(FILE *f, const td_summary *s, int level)
{
    td_csv_record r = {0};
    td_columns cols;
    CHECK(td_csv_next(reopen(f), &r) == 1);
    check_header(&r, kernel_fixed, 6, s, level, &cols, 1);
    size_t rows = 0;
    while (td_csv_next(f, &r) == 1) {
        CHECK(r.count == 6 + 3 * cols.count + 3 + N_DURATIONS);
        if (r.count != 6 + 3 * cols.count + 3 + N_DURATIONS)
            break;
        int app = rows == s->n_kernels;
        const td_kernel_summary *ks = app ? NULL : &s->kernels[rows];
        CHECK_STR(r.fields[0], app ? TD_APP_ROW : ks->name);
        CHECK_NEAR(fx_number(r.fields[1]), app ? s->launches : ks->launches, 0);
        CHECK_NEAR(fx_number(r.fields[2]), app ? s->profiled : ks->profiled, 0);
        CHECK_NEAR(fx_number(r.fields[3]), app ? s->total_ns : ks->total_ns, 0.5);
        CHECK_NEAR(fx_number(r.fields[4]), app ? 100 : 100 * ks->total_ns / s->total_ns, 1e-4);
        const td_breakdown *b = app ? &s->app : &ks->mean;
        int has_data = app ? s->app_has_data : ks->has_data;
        if (has_data)
            CHECK_NEAR(fx_number(r.fields[5]), b->ipc, 1e-4);
        else
            CHECK(isnan(fx_number(r.fields[5])));
        check_tree(&r, 6, &cols, td_summary_model(s), b, has_data, level);
        check_spread(&r, 6 + cols.count + 3, &cols, td_summary_model(s), b,
                     app ? &s->app_spread : &ks->spread, has_data);
        check_durations(&r, 6 + 3 * cols.count + 3, app ? NULL : &ks->launch.durations);
        CHECK(app || ks->launch.durations.count == ks->launches);
        rows++;
    }
    CHECK(rows == s->n_kernels + 1);
    td_columns_free(&cols);
    td_csv_free(&r);
}

static const char *const launch_fixed[] = {
    "kernel", "invocation", "launch_id", "device", "start_ns", "duration_ns", "ipc"};

static void check_launches_csv(FILE *f, const td_result *res, const td_summary *s, int level)
{
    td_csv_record r = {0};
    td_columns cols;
    td_error err;
    CHECK(td_csv_next(reopen(f), &r) == 1);
    check_header(&r, launch_fixed, 7, s, level, &cols, 0);
    /* Expected: the profiled launches in order; invocations count all. */
    const td_device *dev = &res->devices[0];
    size_t row = 0, profiled = 0;
    for (size_t i = 0; i < dev->n_launches; i++) {
        const td_launch *l = &dev->launches[i];
        size_t invocation = 0;
        for (size_t j = 0; j < i; j++)
            invocation += strcmp(dev->launches[j].kernel, l->kernel) == 0;
        if (!l->profiled)
            continue;
        profiled++;
        CHECK(td_csv_next(f, &r) == 1);
        CHECK(r.count == 7 + cols.count + 3);
        if (r.count != 7 + cols.count + 3)
            break;
        CHECK_STR(r.fields[0], l->kernel);
        CHECK_NEAR(fx_number(r.fields[1]), invocation, 0);
        CHECK_NEAR(fx_number(r.fields[2]), l->id, 0);
        CHECK_NEAR(fx_number(r.fields[5]), l->duration_ns, 0.5);
        td_breakdown b;
        CHECK(td_summary_launch(s, res, 0, i, &b, &err) == 0);
        check_tree(&r, 7, &cols, &s->models[0], &b, b.has_slots, level);
        row++;
    }
    CHECK(row == profiled && row > 0);
    CHECK(td_csv_next(f, &r) == 0);
    td_columns_free(&cols);
    td_csv_free(&r);
}

static void check_all_levels(const td_result *res, const td_summary *s)
{
    td_error err;
    for (int level = 1; level <= TD_MAX_LEVEL; level++) {
        FILE *f = tmpfile();
        CHECK(td_csv_kernels(f, s, level, &err) == 0);
        setlocale(LC_ALL, "C"); /* parse back in C, whatever it was written in */
        check_kernels_csv(f, s, level);
        fclose(f);
        f = tmpfile();
        CHECK(td_csv_launches(f, res, s, level, &err) == 0);
        check_launches_csv(f, res, s, level);
        fclose(f);
    }
}

/* A locale with a decimal comma: de_DE if installed, else made with
 * localedef into the temp folder (LOCPATH). 0 if neither works. */
static int comma_locale(const char *dir)
{
    if (setlocale(LC_ALL, "de_DE.UTF-8"))
        return 1;
    char cmd[1024], locpath[256];
    snprintf(locpath, sizeof locpath, "%s/locale", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' 2>/dev/null",
             locpath, locpath);
    if (system(cmd) != 0)
        return 0;
    setenv("LOCPATH", locpath, 1);
    return setlocale(LC_ALL, "de_DE.UTF-8") != NULL;
}

static void test_comma_locale(const char *dir, const td_result *res, const td_summary *s)
{
    char probe[16];
    if (!comma_locale(dir)) {
        printf("no comma locale could be made; checking '.' decimals in C only\n");
    } else {
        snprintf(probe, sizeof probe, "%.1f", 1.5);
        CHECK_STR(probe, "1,5"); /* the locale really is a comma one */
    }
    td_error err;
    FILE *f = tmpfile();
    CHECK(td_csv_kernels(f, s, 3, &err) == 0);
    /* The process locale is untouched by the writer. */
    if (strcmp(setlocale(LC_ALL, NULL), "C") != 0) {
        snprintf(probe, sizeof probe, "%.1f", 1.5);
        CHECK_STR(probe, "1,5");
    }
    setlocale(LC_ALL, "C");
    check_kernels_csv(f, s, 3);
    fclose(f);
    f = tmpfile();
    comma_locale(dir);
    CHECK(td_csv_launches(f, res, s, 2, &err) == 0);
    setlocale(LC_ALL, "C");
    check_launches_csv(f, res, s, 2);
    fclose(f);
}

static void test_quoting(void)
{
    FILE *f = tmpfile();
    td_csv_field(f, "plain");
    fputc(',', f);
    td_csv_field(f, "a, \"b\"");
    fputc('\n', f);
    char line[64] = "";
    CHECK(fgets(line, sizeof line, reopen(f)) != NULL);
    CHECK_STR(line, "plain,\"a, \"\"b\"\"\"\n");
    fclose(f);
}

/* The CLI: --csv and --csv-launches on `topdown report` of a fixture made
 * with the real arch tables, checked against td_summarize of the same. */
static void test_cli(const char *dir)
{
    static fx_output r;
    char fixture[512], args[2048], kernels_csv[512], launches_csv[512];
    td_error err;
    fx_fixture("h100", fixture, sizeof fixture);
    snprintf(kernels_csv, sizeof kernels_csv, "%s/kernels.csv", dir);
    snprintf(launches_csv, sizeof launches_csv, "%s/launches.csv", dir);
    snprintf(args, sizeof args, "report '%s' -l 3 --csv '%s' --csv-launches '%s' --no-desc",
             fixture, kernels_csv, launches_csv);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "Application:") != NULL); /* the tree is still printed */
    td_arch_set archs;
    fx_real_archs(&archs);
    td_result res;
    td_summary s;
    CHECK(td_result_load(fixture, &res, &err) == 0);
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    FILE *f = fopen(kernels_csv, "r");
    CHECK(f != NULL);
    if (f) {
        check_kernels_csv(f, &s, 3);
        fclose(f);
    }
    f = fopen(launches_csv, "r");
    CHECK(f != NULL);
    if (f) {
        check_launches_csv(f, &res, &s, 3);
        fclose(f);
    }
    td_summary_free(&s);
    td_result_free(&res);
    td_arch_set_free(&archs);

    /* "-": the CSV alone on stdout. */
    snprintf(args, sizeof args, "report '%s' --csv -", fixture);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0);
    static const char header[] = "kernel,launches,profiled_launches,total_ns,gpu_time_pct,ipc,Retire,";
    CHECK(strncmp(r.out, header, sizeof header - 1) == 0);
    CHECK(strstr(r.out, "Application:") == NULL);
    CHECK(strstr(r.out, "\n" TD_APP_ROW ",173,173,") != NULL);

    snprintf(args, sizeof args, "report '%s' --csv /nonexistent/dir/k.csv", fixture);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 2); /* an output name that cannot be written: checked first */
    CHECK(strstr(r.err, "cannot write /nonexistent/dir/k.csv") != NULL);
}

int main(void)
{
    char dir[64];
    td_error err;
    td_test_tmpdir(dir, sizeof dir);
    td_arch_set archs;
    fx_load_archs(dir, &archs);
    td_result res;
    build_result(&res);
    td_summary s;
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    CHECK(s.n_kernels == 4);
    test_quoting();
    check_all_levels(&res, &s);
    test_comma_locale(dir, &res, &s);
    setlocale(LC_ALL, "C");
    test_cli(dir);
    /* A file that cannot be written is an error naming it. */
    CHECK(td_csv_kernels_file("/nonexistent/dir/k.csv", &s, 1, NULL, &err) == -1);
    CHECK(strstr(err.msg, "/nonexistent/dir/k.csv") != NULL);
    td_summary_free(&s);
    td_result_free(&res);
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
