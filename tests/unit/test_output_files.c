/* The files the offline commands write (issue 10): an output never
 * destroys an input, replaces an existing file only with -f, a write error
 * (disk full) is an error that leaves the old file as it was, and standard
 * output is checked too. */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "report/csv.h"
#include "report/text.h"
#include "td_outputs_testlib.h"
#include "td_shell.h"

static char dir[64];
static const char *bin;

#define run(...) td_shell_run(dir, __VA_ARGS__)

static int has(const char *name, const char *needle)
{
    return td_shell_file_has(dir, name, needle);
}

static int one_line(const char *name)
{
    char path[256], text[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    fx_slurp(path, text, sizeof text);
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    if (lines != 1)
        fprintf(stderr, "%s has %d lines:\n%s", name, lines, text);
    return lines == 1;
}

static int still_a_result(const char *name)
{
    td_result res;
    int ok = td_shell_load_result(dir, name, &res) == 0;
    if (ok)
        td_result_free(&res);
    return ok;
}

/* Item 3: --csv, --csv-launches and diff --csv pointed at an input. */
static void test_outputs_never_overwrite_inputs(void)
{
    CHECK(run("%s report r.json --csv=r.json", bin) != 0);
    CHECK(has("err.txt", "input") && one_line("err.txt"));
    CHECK(run("%s report r.json --csv-launches ./r.json -f", bin) != 0);
    CHECK(run("%s diff r.json b.json --csv=b.json -f", bin) != 0);
    CHECK(has("err.txt", "input"));
    CHECK(run("ln -s r.json link.json && %s report r.json --csv=link.json -f", bin) != 0);
    /* --csv alone never takes a name that does not end in .csv (issue 27) */
    CHECK(run("%s report r.json --csv r.json", bin) == 2 && has("err.txt", "one too many"));
    CHECK(still_a_result("r.json") && still_a_result("b.json"));
}

/* Item 3: an existing file is replaced only with -f, for every output. */
static void test_existing_files_need_force(void)
{
    CHECK(run("echo old > k.csv && %s report r.json --csv k.csv", bin) != 0);
    CHECK(has("err.txt", "-f") && one_line("err.txt"));
    CHECK(has("k.csv", "old"));
    CHECK(run("%s diff r.json b.json --csv k.csv", bin) != 0);
    CHECK(has("k.csv", "old"));
    CHECK(run("echo old > p.dat && %s plot r.json -o p.png", bin) != 0);
    CHECK(has("err.txt", "p.dat") && has("p.dat", "old"));
    CHECK(run("%s report r.json --csv k.csv -f", bin) == 0);
    CHECK(has("k.csv", "kernel,launches"));
    CHECK(run("%s report r.json --csv k.csv --csv-launches k.csv -f", bin) != 0);
    CHECK(has("err.txt", "same file"));
}

/* Item 6: standard output that cannot be written is an error. */
static void test_stdout_write_error(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && %s report r.json >/dev/full 2>err.txt", dir, bin);
    int status = system(cmd);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CHECK(has("err.txt", "standard output") && one_line("err.txt"));
    snprintf(cmd, sizeof cmd, "cd %s && %s diff r.json b.json --csv - >/dev/full 2>err.txt",
             dir, bin);
    status = system(cmd);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) != 0);
}

/* Item 11: a full disk (here a file size limit) while writing a CSV over an
 * existing one: an error, the old file untouched, no partial file left. */
static void test_full_disk_leaves_old_file(void)
{
    char path[256], input[512];
    td_error err = {{0}};
    td_arch_set archs;
    fx_real_archs(&archs);
    td_result res;
    snprintf(input, sizeof input, "%s/tests/fixtures/h100/td_smoke.topdown.json",
             getenv("TOPDOWN_REPO_DIR"));
    CHECK(td_result_load(input, &res, &err) == 0);
    td_summary s;
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == 0);
    td_test_write(dir, "full.csv", "old\n", path, sizeof path);
    struct rlimit saved, small = {2048, 2048};
    getrlimit(RLIMIT_FSIZE, &saved);
    signal(SIGXFSZ, SIG_IGN);
    small.rlim_max = saved.rlim_max;
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    int rc = td_csv_launches_file(path, &res, &s, 4, NULL, &err);
    setrlimit(RLIMIT_FSIZE, &saved);
    CHECK(rc == -1 && strstr(err.msg, "full.csv"));
    CHECK(has("full.csv", "old"));
    CHECK(run("ls | grep -c tmp") == 1); /* grep found nothing */
    td_summary_free(&s);
    td_result_free(&res);
    td_arch_set_free(&archs);
}

/* Writes the text report and both CSVs of res into one buffer; -1 when
 * one of them refused. */
static int all_outputs(const td_result *res, const td_arch_set *archs, char **text,
                       td_error *err)
{
    size_t size = 0;
    FILE *out = open_memstream(text, &size);
    td_summary s;
    int rc = td_summarize(res, archs, NULL, &s, err);
    if (rc == 0) {
        td_report_options o;
        td_report_options_init(&o);
        o.level = 4;
        rc |= td_report_text(out, res, &s, &o, err);
        rc |= td_csv_kernels(out, &s, 4, err);
        rc |= td_csv_launches(out, res, &s, 4, err);
        td_summary_free(&s);
    }
    fclose(out);
    return rc ? -1 : 0;
}

static int printable(const char *text)
{
    int ok = !strstr(text, "nan") && !strstr(text, "inf") && !strstr(text, "NAN") &&
             !strstr(text, "INF");
    if (!ok)
        fprintf(stderr, "output holds nan or inf:\n%.2000s\n", text);
    return ok;
}

/* Item 8: extreme values never come out as nan or inf: durations near
 * 1e306 still print (their shares do not overflow), counters near 1e308
 * (level 1 would sum to 25%) and denormal cycle counts are errors. */
static void test_no_nan_or_inf_in_outputs(void)
{
    char input[512];
    td_error err = {{0}};
    td_arch_set archs;
    fx_real_archs(&archs);
    snprintf(input, sizeof input, "%s/tests/fixtures/h100/td_smoke.topdown.json",
             getenv("TOPDOWN_REPO_DIR"));
    for (int variant = 0; variant < 3; variant++) {
        td_result res;
        CHECK(td_result_load(input, &res, &err) == 0);
        td_device *dev = &res.devices[0];
        int cycles = td_device_metric_index(dev, "sm__cycles_active.sum");
        for (size_t i = 0; i < dev->n_launches; i++) {
            td_launch *l = &dev->launches[i];
            if (variant == 0)
                l->duration_ns = 1e306;
            for (size_t m = 0; l->counters && m < dev->n_metrics; m++)
                if (variant == 1)
                    l->counters[m] = 1e308;
            if (variant == 2 && l->counters && cycles >= 0)
                l->counters[cycles] = 5e-324;
        }
        char *text = NULL;
        int rc = all_outputs(&res, &archs, &text, &err);
        CHECK(printable(text));
        if (variant == 0)
            CHECK(rc == 0);
        else
            CHECK(rc == -1 && strstr(err.msg, "out of range"));
        free(text);
        td_result_free(&res);
    }
    td_arch_set_free(&archs);
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    if (!bin || !getenv("TOPDOWN_REPO_DIR")) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_REPO_DIR must be set\n");
        return 1;
    }
    td_test_tmpdir(dir, sizeof dir);
    CHECK(run("cp '%s/tests/fixtures/h100/td_smoke.topdown.json' r.json && "
              "cp '%s/tests/fixtures/h100/td_bench.topdown.json' b.json",
              getenv("TOPDOWN_REPO_DIR"), getenv("TOPDOWN_REPO_DIR")) == 0);
    test_outputs_never_overwrite_inputs();
    test_existing_files_need_force();
    test_stdout_write_error();
    test_full_disk_leaves_old_file();
    test_no_nan_or_inf_in_outputs();
    td_test_cleanup(dir);
    return td_check_summary();
}
