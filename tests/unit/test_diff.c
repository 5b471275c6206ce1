/* Diff: a result against itself is zero everywhere; two crafted results
 * (a level-3 table and a legacy level-2 one) show the known differences,
 * "-" where a table has no value, and the kernels found on one side only. */
#include <math.h>

#include "../check.h"
#include "report/diff.h"
#include "td_outputs_testlib.h"

static const fx_shares a_k1 = {.retire = 0.40, .branch = 0.10, .noinst = 1, .longsb = 2, .wait = 1};
static const fx_shares b_k1 = {.retire = 0.30, .branch = 0.05, .replay = 0.05, .noinst = 1, .longsb = 1, .wait = 2};
static const fx_shares k2 = {.retire = 0.20, .noinst = 1, .longsb = 1, .lgthr = 1, .wait = 1};

static void build(td_result *res, const char *arch, int side_b)
{
    memset(res, 0, sizeof *res);
    td_device *dev = fx_device(res, arch, 0);
    fx_launch(dev, "void k1<int, 2>(int*, int)", 3000, side_b ? b_k1 : a_k1);
    fx_launch(dev, "k2", 1000, k2);
    fx_launch(dev, side_b ? "only_b" : "only_a", 1000, k2);
    fx_launch(dev, "void k1<int, 2>(int*, int)", 1000, side_b ? b_k1 : a_k1);
}

/* The level-2 share of a node for crafted shares, in %. */
static double share(const fx_shares *s, int node)
{
    double stalled = 1 - s->retire - s->branch - s->replay;
    double sum = s->noinst + s->longsb + s->lgthr + s->wait;
    switch (node) {
    case TD_N_RETIRE: return 100 * s->retire;
    case TD_N_DIVERGENCE: return 100 * (s->branch + s->replay);
    case TD_N_FETCH: return 100 * stalled * s->noinst / sum;
    case TD_N_MEMORY_BOUND: return 100 * stalled * (s->longsb + s->lgthr) / sum;
    case TD_N_CORE_BOUND: return 100 * stalled * s->wait / sum;
    default: return NAN;
    }
}

/* Reads the diff CSV back: header and rows, kernel name first. */
typedef struct parsed {
    td_csv_record header;
    td_csv_record rows[16];
    size_t n;
} parsed;

static void parse(FILE *f, parsed *p)
{
    memset(p, 0, sizeof *p);
    rewind(f);
    CHECK(td_csv_next(f, &p->header) == 1);
    while (p->n < 16 && td_csv_next(f, &p->rows[p->n]) == 1) {
        CHECK(p->rows[p->n].count == p->header.count);
        p->n++;
    }
}

static void parsed_free(parsed *p)
{
    td_csv_free(&p->header);
    for (size_t i = 0; i < 16; i++)
        td_csv_free(&p->rows[i]);
}

static const td_csv_record *row_of(const parsed *p, const char *kernel)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->rows[i].fields[0], kernel) == 0)
            return &p->rows[i];
    return NULL;
}

static double field(const parsed *p, const td_csv_record *r, const char *column)
{
    int i = fx_field_index(&p->header, column);
    CHECK(i >= 0);
    return i >= 0 && r ? fx_number(r->fields[i]) : -1e300;
}

static void test_self(const td_arch_set *archs)
{
    td_result res;
    td_summary s;
    td_error err;
    build(&res, "testarch", 0);
    CHECK(td_summarize(&res, archs, NULL, &s, &err) == 0);
    td_diff_side side = {"self.json", &res, &s};
    for (int level = 1; level <= TD_MAX_LEVEL; level++) {
        FILE *f = tmpfile();
        CHECK(td_diff_csv(f, &side, &side, level, &err) == 0);
        parsed p;
        parse(f, &p);
        fclose(f);
        CHECK(p.n == s.n_kernels + 1);
        size_t diffs = 0;
        for (size_t c = 0; c < p.header.count; c++) {
            if (strncmp(p.header.fields[c], "diff:", 5) != 0)
                continue;
            for (size_t r = 0; r < p.n; r++) {
                double d = fx_number(p.rows[r].fields[c]);
                CHECK(isnan(d) || d == 0);
                diffs += !isnan(d);
            }
        }
        CHECK(diffs >= p.n * 4); /* at least the level-1 nodes */
        for (size_t r = 0; r < p.n; r++) {
            CHECK_STR(p.rows[r].fields[1], "both");
            CHECK_STR(p.rows[r].fields[fx_field_index(&p.header, "a_bottleneck")],
                      p.rows[r].fields[fx_field_index(&p.header, "b_bottleneck")]);
        }
        parsed_free(&p);
    }
    FILE *f = tmpfile();
    CHECK(td_diff_text(f, &side, &side, 3, 0, &err) == 0);
    char text[16384] = "";
    rewind(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    CHECK(strstr(text, "Only in") == NULL);
    CHECK(strstr(text, "(differs)") == NULL);
    CHECK(strstr(text, "3 in both, 0 only in A, 0 only in B") != NULL);
    td_summary_free(&s);
    td_result_free(&res);
}

static void check_k1(const parsed *p)
{
    const td_csv_record *r = row_of(p, "void k1<int, 2>(int*, int)");
    CHECK(r != NULL);
    if (!r)
        return;
    CHECK_STR(r->fields[1], "both");
    static const int nodes[] = {TD_N_RETIRE, TD_N_DIVERGENCE, TD_N_FETCH, TD_N_MEMORY_BOUND,
                                TD_N_CORE_BOUND};
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
        char a[200], b[200], d[200];
        const char *path = td_node_get(nodes[i])->path;
        snprintf(a, sizeof a, "a:%s", path);
        snprintf(b, sizeof b, "b:%s", path);
        snprintf(d, sizeof d, "diff:%s", path);
        CHECK_NEAR(field(p, r, a), share(&a_k1, nodes[i]), 1e-4);
        CHECK_NEAR(field(p, r, b), share(&b_k1, nodes[i]), 1e-4);
        CHECK_NEAR(field(p, r, d), share(&b_k1, nodes[i]) - share(&a_k1, nodes[i]), 2e-4);
    }
    CHECK_NEAR(field(p, r, "diff:Retire"), -10, 1e-4);
    CHECK_NEAR(field(p, r, "a_total_ns"), 4000, 0);
    /* Level 3: measured on A, not on the legacy B. */
    CHECK_NEAR(field(p, r, "a:Backend.Memory_Bound.L1_Bound"), share(&a_k1, TD_N_MEMORY_BOUND), 1e-4);
    CHECK(isnan(field(p, r, "b:Backend.Memory_Bound.L1_Bound")));
    CHECK(isnan(field(p, r, "diff:Backend.Memory_Bound.L1_Bound")));
    CHECK_STR(r->fields[fx_field_index(&p->header, "a_bottleneck")], "Backend.Memory_Bound.L1_Bound");
    /* A legacy table's level below 2 is its stall reasons (as in the tree). */
    CHECK_STR(r->fields[fx_field_index(&p->header, "b_bottleneck")],
              "Backend.Core_Bound.exec_dependency");
}

static void test_two_tables(const td_arch_set *archs)
{
    td_result ra, rb;
    td_summary sa, sb;
    td_error err;
    build(&ra, "testarch", 0);
    build(&rb, "legacy", 1);
    CHECK(td_summarize(&ra, archs, NULL, &sa, &err) == 0);
    CHECK(td_summarize(&rb, archs, NULL, &sb, &err) == 0);
    td_diff_side a = {"a.json", &ra, &sa}, b = {"b.json", &rb, &sb};

    td_diff d;
    CHECK(td_diff_match(&sa, &sb, &d, &err) == 0);
    CHECK(d.n_both == 2 && d.n_only_a == 1 && d.n_only_b == 1 && d.n_rows == 4);
    CHECK_STR(d.rows[0].kernel, "void k1<int, 2>(int*, int)"); /* heaviest in A first */
    CHECK_STR(d.rows[2].kernel, "only_a");
    CHECK(d.rows[2].b == NULL && d.rows[3].a == NULL);
    CHECK_STR(d.rows[3].kernel, "only_b");
    td_diff_free(&d);

    FILE *f = tmpfile();
    CHECK(td_diff_csv(f, &a, &b, 3, &err) == 0);
    parsed p;
    parse(f, &p);
    fclose(f);
    CHECK(p.n == 5);
    check_k1(&p);
    const td_csv_record *r = row_of(&p, "only_a");
    CHECK(r && strcmp(r->fields[1], "a") == 0);
    CHECK(isnan(field(&p, r, "b:Retire")) && isnan(field(&p, r, "diff:Retire")));
    CHECK_NEAR(field(&p, r, "a:Retire"), 20, 1e-4);
    r = row_of(&p, "only_b");
    CHECK(r && strcmp(r->fields[1], "b") == 0);
    /* The app: k1 4000 ns, k2 and the one-side kernel 1000 ns each. */
    r = row_of(&p, TD_APP_ROW);
    double want = (4000 * share(&b_k1, TD_N_RETIRE) + 2000 * share(&k2, TD_N_RETIRE)) / 6000 -
                  (4000 * share(&a_k1, TD_N_RETIRE) + 2000 * share(&k2, TD_N_RETIRE)) / 6000;
    CHECK_NEAR(field(&p, r, "diff:Retire"), want, 2e-4);
    parsed_free(&p);

    f = tmpfile();
    CHECK(td_diff_text(f, &a, &b, 3, 0, &err) == 0);
    char text[16384] = "";
    rewind(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    CHECK(strstr(text, "Only in A (1 kernel):\n  only_a") != NULL);
    CHECK(strstr(text, "Only in B (1 kernel):\n  only_b") != NULL);
    CHECK(strstr(text, "legacy: no level 3") != NULL);
    CHECK(strstr(text, "(differs)") != NULL);
    /* A level-3 row with a value on A only: B and B-A are "n/m". */
    const char *line = strstr(text, "  Backend.Memory_Bound.L1_Bound");
    CHECK(line != NULL);
    if (line) {
        char row[128];
        sscanf(line, "%*s %*s %127s", row);
        CHECK_STR(row, "n/m");
    }
    td_summary_free(&sa);
    td_summary_free(&sb);
    td_result_free(&ra);
    td_result_free(&rb);
}

/* The CLI: H100 against A100 (each with one kernel of its own) and against
 * the legacy P100, on the fixtures. */
static void test_cli(const char *dir)
{
    static fx_output r;
    char h100[512], a100[512], p100[512], args[2048], csv[512];
    fx_fixture("h100", h100, sizeof h100);
    fx_fixture("a100", a100, sizeof a100);
    fx_fixture("p100", p100, sizeof p100);
    snprintf(args, sizeof args, "diff '%s' '%s' -l 2 --kernels 2", h100, a100);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "Kernels: 12 in both, 1 only in A, 1 only in B") != NULL);
    CHECK(strstr(r.out, "Only in A (1 kernel):\n  wgmma_gemm  (") != NULL);
    CHECK(strstr(r.out, "Only in B (1 kernel):\n  mma_gemm_sm80  (") != NULL);
    CHECK(strstr(r.out, "... 10 more kernels in both") != NULL);
    snprintf(csv, sizeof csv, "%s/diff.csv", dir);
    snprintf(args, sizeof args, "diff '%s' '%s' -l 3 --csv '%s'", h100, p100, csv);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0);
    CHECK(strstr(r.out, "legacy: no level 3") != NULL);
    FILE *f = fopen(csv, "r");
    CHECK(f != NULL);
    if (f) {
        parsed p;
        parse(f, &p);
        fclose(f);
        CHECK(p.n == 14); /* 12 in both, 1 only in A (P100 has no kernel of its own), the app */
        const td_csv_record *app = row_of(&p, TD_APP_ROW);
        CHECK(app && isnan(field(&p, app, "b:Backend.Memory_Bound.L1_Bound")));
        CHECK(app && !isnan(field(&p, app, "diff:Backend.Memory_Bound")));
        parsed_free(&p);
    }
    snprintf(args, sizeof args, "diff '%s'", h100);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 2 && strstr(r.err, "usage: topdown diff A.json B.json"));
    snprintf(args, sizeof args, "diff '%s' '%s' --arch gh100", h100, a100);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 2 && strstr(r.err, "option --arch does not apply to `topdown diff`"));
}

/* Issue 27, item 14: signed changes, never "-0.0" or "-0.0000", only the
 * nodes that moved (-v: all), '~' on a change within the spread. */
static void test_changes(const char *dir)
{
    fx_output r;
    char a[512], b[512], args[2048];
    const char *src = getenv("TOPDOWN_REPO_DIR");
    snprintf(a, sizeof a, "%s/tests/fixtures/h100/td_bench.topdown.json", src);
    snprintf(b, sizeof b, "%s/tests/fixtures/h200/h200_bench_groups.topdown.json", src);
    snprintf(args, sizeof args, "diff '%s' '%s' -l 3", a, b);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0 && !strstr(r.out, "-0.0 ") && !strstr(r.out, "-0.0\n"));
    /* a kernel's spread is at least half a point (the counters' own) */
    CHECK(strstr(r.out, "  Retire                                               17.0     17.6     +0.6\n"));
    CHECK(strstr(r.out, "  Backend.Memory_Bound.L1_Bound                         3.5      2.6     -0.9\n"));
    CHECK(strstr(r.out, "  Divergence                                            9.3      9.5     +0.2 ~\n"));
    CHECK(strstr(r.out, "  Frontend.Fetch.Synchronization                        9.3      9.5     +0.2 ~\n"));
    CHECK(strstr(r.out, "(~: B-A within the spread of A and B over their launches)"));
    CHECK(strstr(r.out, "(14 nodes moved less than 0.05 points; -v lists every node)"));
    CHECK(!strstr(r.out, "  Divergence.Replay "));
    snprintf(args, sizeof args, "diff '%s' '%s' -l 3 -v", a, b);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0 && strstr(r.out, "  Divergence.Replay ") && !strstr(r.out, "moved less"));
    CHECK(strstr(r.out, "     0.0 ~\n") && !strstr(r.out, "-0.0 ") && !strstr(r.out, "-0.0\n"));
    snprintf(args, sizeof args, "diff '%s' '%s' -l 4 --csv -", a, b);
    fx_run(dir, NULL, args, &r);
    CHECK(r.status == 0 && strstr(r.out, ",0.0000") && !strstr(r.out, "-0.0000"));
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    td_arch_set archs;
    fx_load_archs(dir, &archs);
    test_self(&archs);
    test_two_tables(&archs);
    test_cli(dir);
    test_changes(dir);
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
