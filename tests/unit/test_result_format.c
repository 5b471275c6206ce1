/* The result file, schema topdown-result/2: every field survives save ->
 * load; the /1 files in the tree load and convert to /2 unchanged; kernel
 * names are stored once; what topdown writes it reads back (no inf/nan, no
 * empty names); and the reader refuses what cannot be real (values out of
 * range, trailing data, raw control characters) with one line. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "../check.h"
#include "metrics/json_field.h"
#include "metrics/result/result.h"
#include "td_testlib.h"

static const char *const names[] = {"a.sum", "b.sum", "c.sum", "d.sum"};
#define LONG_NAME "void ns::k<float, 128, ns::Policy<4, 2>>(ns::Params<float> const&, int)"
#define LONG_MANGLED "_ZN2ns1kIfLi128ENS_6PolicyILi4ELi2EEEEEvRKNS_6ParamsIfEEi"

static td_launch *add(td_device *dev, const char *kernel, const double *c, uint64_t id,
                      double duration)
{
    td_error err;
    td_launch *l = td_device_add_launch(dev, kernel, c, &err);
    l->id = id;
    l->duration_ns = duration;
    if (strcmp(kernel, LONG_NAME) == 0)
        l->mangled = td_device_intern(dev, LONG_MANGLED);
    return l;
}

/* Two devices, groups, group launches, graph ids, replay mode, overhead. */
static void build(td_result *res)
{
    td_error err;
    memset(res, 0, sizeof *res);
    res->status = td_strdup("complete");
    res->replay_mode = td_strdup("none");
    res->overhead_pct = 7.5;
    res->note = td_strdup("line one\nline \"two\"\ttabbed");
    res->argv = calloc(1, sizeof *res->argv);
    res->argv[res->argc++] = td_strdup("./app");
    td_device *dev = td_result_add_device(res, &err);
    dev->name = td_strdup("GPU0");
    dev->chip = td_strdup("GH100");
    dev->arch = td_strdup("gh100");
    dev->cc_major = 9;
    dev->sm_count = 132;
    dev->context = 4000000000u;
    CHECK(td_device_set_metrics(dev, names, 4, &err) == 0);
    size_t g0[] = {2, 0}, g1[] = {1, 3};
    td_counter_group groups[] = {{g0, 2}, {g1, 2}};
    CHECK(td_device_set_groups(dev, groups, 2, &err) == 0);
    double all[4] = {1, 2, 3, 123456789012345.0};
    double grp0[4] = {10.5, 0, 30, 0};
    double grp1[4] = {0, 20, 0, 40};
    td_launch *l = add(dev, LONG_NAME, all, 0, 1500.25);
    l->grid[0] = 4294967295u;
    l->block[0] = 256;
    l->stream = 7;
    l->start_ns = 9007199254740991ull; /* 2^53 - 1: exact in a double */
    l->resources = (td_launch_resources){255, 49152, 4294967295u, 233472, 1};
    l = add(dev, LONG_NAME, grp0, 1, 100);
    l->resources = (td_launch_resources){32, 0, 0, 0, 1};
    l->group = 0;
    l->graph_id = 3;
    l->graph_node = 12;
    l = add(dev, LONG_NAME, grp1, 2, 100);
    l->group = 1;
    l->graph_id = 3;
    l->graph_node = 13;
    add(dev, "other", NULL, 10, 5)->stream = 9;
    add(dev, "other", NULL, 11, 0);
    td_device *dev2 = td_result_add_device(res, &err);
    dev2->index = 1;
    dev2->arch = td_strdup("gh100");
    CHECK(td_device_set_metrics(dev2, names, 2, &err) == 0);
    double two[2] = {5, 6};
    add(dev2, LONG_NAME, two, 0, 42);
    add(dev2, "only_on_1", NULL, 1, 43);
}

static int same_name(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_same_launch(const td_device *da, const td_launch *a, const td_launch *b)
{
    CHECK_STR(a->kernel, b->kernel);
    CHECK(same_name(a->mangled, b->mangled));
    CHECK(a->id == b->id && a->stream == b->stream && a->start_ns == b->start_ns);
    CHECK(memcmp(a->grid, b->grid, sizeof a->grid) == 0);
    CHECK(memcmp(a->block, b->block, sizeof a->block) == 0);
    CHECK(a->duration_ns == b->duration_ns);
    CHECK(a->profiled == b->profiled && a->group == b->group);
    CHECK(a->graph_id == b->graph_id && a->graph_node == b->graph_node);
    CHECK(memcmp(&a->resources, &b->resources, sizeof a->resources) == 0);
    for (size_t m = 0; a->profiled && b->profiled && m < da->n_metrics; m++)
        CHECK(a->counters[m] == b->counters[m]);
}

static void check_same_device(const td_device *a, const td_device *b)
{
    CHECK(a->index == b->index && a->context == b->context);
    CHECK(same_name(a->name ? a->name : "unknown", b->name));
    CHECK(same_name(a->arch, b->arch));
    CHECK(a->cc_major == b->cc_major && a->cc_minor == b->cc_minor);
    CHECK(a->sm_count == b->sm_count && a->passes == b->passes);
    CHECK(a->n_metrics == b->n_metrics && a->n_groups == b->n_groups);
    for (size_t m = 0; m < a->n_metrics && m < b->n_metrics; m++)
        CHECK_STR(a->metrics[m], b->metrics[m]);
    for (size_t g = 0; g < a->n_groups && g < b->n_groups; g++) {
        CHECK(a->groups[g].n == b->groups[g].n);
        for (size_t i = 0; i < a->groups[g].n && i < b->groups[g].n; i++)
            CHECK(a->groups[g].metrics[i] == b->groups[g].metrics[i]);
    }
    CHECK(a->n_launches == b->n_launches);
    for (size_t i = 0; i < a->n_launches && i < b->n_launches; i++)
        check_same_launch(a, &a->launches[i], &b->launches[i]);
}

static void check_same_result(const td_result *a, const td_result *b)
{
    CHECK(same_name(a->replay_mode, b->replay_mode));
    CHECK(a->overhead_pct == b->overhead_pct);
    CHECK(same_name(a->note, b->note) && same_name(a->status, b->status));
    CHECK(a->synthetic == b->synthetic && a->exit_code == b->exit_code);
    CHECK(a->argc == b->argc);
    CHECK(a->n_devices == b->n_devices);
    for (size_t d = 0; d < a->n_devices && d < b->n_devices; d++)
        check_same_device(&a->devices[d], &b->devices[d]);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = calloc((size_t)n + 1, 1);
    if (fread(text, 1, (size_t)n, f) != (size_t)n)
        text[0] = '\0';
    fclose(f);
    return text;
}

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void test_round_trip(const char *dir)
{
    td_result res, back;
    td_error err = {{0}};
    build(&res);
    /* Launch names are interned: one copy per device. */
    CHECK(res.devices[0].launches[0].kernel == res.devices[0].launches[2].kernel);
    char path[512];
    snprintf(path, sizeof path, "%s/v2.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    int loaded = td_result_load(path, &back, &err) == 0;
    if (!loaded)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(loaded);
    if (loaded) {
        check_same_result(&res, &back);
        CHECK(back.devices[0].launches[1].kernel == back.devices[0].launches[0].kernel);
        td_result_free(&back);
    }
    char *text = slurp(path);
    CHECK(text && strstr(text, "\"schema\":\"topdown-result/2\""));
    CHECK(text && count_of(text, "ns::Policy<4, 2>") == 1); /* once, for 2 devices */
    CHECK(text && count_of(text, LONG_MANGLED) == 1);
    /* registers and shared memory once per configuration; a configuration
     * without them is null, a section without any has no key */
    CHECK(text && count_of(text, "\"config_resources\"") == 1);
    CHECK(text && strstr(text, "[255,49152,4294967295,233472]"));
    CHECK(text && strstr(text, "[32,0,0,0]"));
    free(text);
    td_result_free(&res);
}

/* The /1 files of the tree load as before and convert to /2 unchanged,
 * smaller. */
static void test_v1_files(const char *dir)
{
    const char *src = getenv("TOPDOWN_REPO_DIR");
    const char *files[] = {"tests/fixtures/h100/td_smoke.topdown.json",
                           "tests/fixtures/h100/td_bench.topdown.json",
                           "tests/fixtures/outputs/p100_synthetic.topdown.json",
                           "benchmarks/results/h100_td_bench_64mb.topdown.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char in[4096], out[512];
        snprintf(in, sizeof in, "%s/%s", src ? src : "..", files[i]);
        snprintf(out, sizeof out, "%s/converted.json", dir);
        td_result v1, v2;
        td_error err = {{0}};
        int ok = td_result_load(in, &v1, &err) == 0;
        if (!ok)
            fprintf(stderr, "%s\n", err.msg);
        CHECK(ok);
        if (!ok)
            continue;
        CHECK(v1.n_devices > 0 && v1.devices[0].n_launches > 0);
        CHECK(td_result_save(out, &v1, &err) == 0);
        CHECK(td_result_load(out, &v2, &err) == 0);
        check_same_result(&v1, &v2);
        struct stat a, b;
        CHECK(stat(in, &a) == 0 && stat(out, &b) == 0 && b.st_size < a.st_size / 2);
        td_result_free(&v1);
        td_result_free(&v2);
    }
}

/* Empty names are never written: they become "?", which reads back. */
static void test_empty_names(const char *dir)
{
    td_result res = {0}, back;
    td_error err;
    td_device *dev = td_result_add_device(&res, &err);
    dev->arch = td_strdup("gh100");
    CHECK(td_device_set_metrics(dev, names, 1, &err) == 0);
    double one = 1;
    add(dev, "", &one, 0, 1);
    td_launch *l = add(dev, "k", NULL, 1, 1);
    l->kernel = "";  /* set by hand, past td_device_add_launch */
    l->mangled = ""; /* an empty mangled name is no mangled name */
    char path[512];
    snprintf(path, sizeof path, "%s/empty.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    CHECK(td_result_load(path, &back, &err) == 0);
    if (back.n_devices == 1 && back.devices[0].n_launches == 2) {
        CHECK_STR(back.devices[0].launches[0].kernel, "?");
        CHECK_STR(back.devices[0].launches[1].kernel, "?");
        CHECK(back.devices[0].launches[1].mangled == NULL);
    }
    td_result_free(&back);
    td_result_free(&res);
    const char *empty_metric[] = {""};
    td_result r2 = {0};
    dev = td_result_add_device(&r2, &err);
    CHECK(td_device_set_metrics(dev, empty_metric, 1, &err) == -1);
    td_result_free(&r2);
}

/* A value the reader would refuse is not written: inf, nan, negative. */
static void expect_refused(td_result *res, const char *dir, const char *needle)
{
    char path[512];
    td_error err = {{0}};
    snprintf(path, sizeof path, "%s/refused.json", dir);
    unlink(path);
    CHECK(td_result_save(path, res, &err) == -1);
    CHECK(strstr(err.msg, needle) != NULL);
    CHECK(strchr(err.msg, '\n') == NULL);
    struct stat st;
    CHECK(stat(path, &st) != 0);
}

static void test_unwritable_values(const char *dir)
{
    td_result res;
    build(&res);
    td_launch *l = &res.devices[0].launches[0];
    l->duration_ns = INFINITY;
    expect_refused(&res, dir, "duration_ns");
    l->duration_ns = 1;
    l->counters[1] = NAN;
    expect_refused(&res, dir, "b.sum");
    l->counters[1] = -3;
    expect_refused(&res, dir, "b.sum");
    l->counters[1] = 1;
    l->group = 5;
    expect_refused(&res, dir, "group");
    l->group = TD_GROUP_ALL;
    res.overhead_pct = NAN;
    expect_refused(&res, dir, "overhead_pct");
    res.overhead_pct = 0;
    res.devices[0].cc_major = -1;
    expect_refused(&res, dir, "compute capability");
    td_result_free(&res);
}

/* ---- bad input ----------------------------------------------------------- */

static void expect_error(const char *text, const char *needle)
{
    td_result res;
    td_error err = {{0}};
    int rc = td_result_parse(text, strlen(text), "bad.json", &res, &err);
    CHECK(rc == -1);
    if (rc == 0) {
        fprintf(stderr, "accepted: %s\n", text);
        td_result_free(&res);
        return;
    }
    if (!strstr(err.msg, needle))
        fprintf(stderr, "expected \"%s\" in: %s\n", needle, err.msg);
    CHECK(strstr(err.msg, needle) != NULL);
    CHECK(strchr(err.msg, '\n') == NULL);
}

static void expect_ok(const char *text)
{
    td_result res;
    td_error err = {{0}};
    int rc = td_result_parse(text, strlen(text), "good.json", &res, &err);
    if (rc)
        fprintf(stderr, "refused: %s\n", err.msg);
    CHECK(rc == 0);
    if (rc == 0)
        td_result_free(&res);
}

#define V1 "{\"schema\": \"topdown-result/1\", \"devices\": [{\"arch\": \"a\", \"metrics\": [\"m\"]"
#define V1L V1 ", \"launches\": [{\"kernel\": \"k\", \"duration_ns\": 5, \"profiled\": false"
#define END "}]}]}"

static void test_v1_hardening(void)
{
    expect_ok(V1L END);
    expect_ok(V1L END "\n \t\r\n");
    expect_error(V1L END " {}", "after the end");
    expect_error(V1L END "x", "after the end");
    expect_error(V1L ", \"mangled\": \"a\tb\"" END, "control character");
    expect_error(V1L ", \"mangled\": \"a\x01" "b\"" END, "control character");
    expect_error(V1L ", \"id\": 1e300" END, "\"id\"");
    expect_error(V1L ", \"id\": 1.5" END, "integer");
    expect_error(V1L ", \"stream\": -1" END, "stream");
    expect_error(V1L ", \"start_ns\": 1e20" END, "start_ns");
    expect_error(V1L ", \"grid\": [-5, 1, 1]" END, "grid");
    expect_error(V1L ", \"block\": [1, 1e10, 1]" END, "block");
    expect_error(V1 ", \"launches\": [{\"kernel\": \"k\", \"duration_ns\": 4e16, \"profiled\": false" END,
                 "duration_ns");
    expect_error(V1 ", \"launches\": [{\"kernel\": \"k\", \"duration_ns\": 1e999, \"profiled\": false" END,
                 "finite");
    expect_error(V1 ", \"launches\": [{\"kernel\": \"k\", \"duration_ns\": 1, \"counters\": {\"m\": 1e301}" END,
                 "more than any real");
    expect_error(V1 ", \"compute_capability\": \"99999999999.0\", \"launches\": []}]}", "compute_capability");
    expect_error(V1 ", \"compute_capability\": \"9.0x\", \"launches\": []}]}", "compute_capability");
    expect_error(V1 ", \"index\": 1e20, \"launches\": []}]}", "index");
    expect_error(V1 ", \"context\": -1, \"launches\": []}]}", "context");
    expect_error(V1 ", \"sm_count\": 1e300, \"launches\": []}]}", "sm_count");
    expect_error(V1 ", \"groups\": [[0, 1]], \"launches\": []}]}", "groups");
    expect_error(V1 ", \"groups\": [[]], \"launches\": []}]}", "group 0");
    expect_error("{\"schema\": \"topdown-result/1\", \"app\": {\"exit_code\": 1e20}, \"devices\": []}",
                 "exit_code");
    expect_error("{\"schema\": \"topdown-result/1\", \"overhead_pct\": -1, \"devices\": []}",
                 "overhead_pct");
}

#define V2 "{\"schema\": \"topdown-result/2\", \"kernels\": [[\"k\", \"_Z1kv\"], [\"j\"]], " \
           "\"devices\": [{\"arch\": \"a\", \"metrics\": [\"m\", \"n\"], \"groups\": [[1], [0]], " \
           "\"configs\": [[0, 1, 1, 1, 32, 1, 1, 7], [1, 2, 1, 1, 64, 1, 1, 7]]"
#define V2L(ids, cfg, dur) ", \"launches\": {\"count\": 2, \"id_runs\": " ids ", \"config\": " cfg \
                           ", \"duration_ns\": " dur "}"
#define GOOD_LAUNCHES V2L("[[0, 2]]", "[0, 1]", "[5, 6]")

/* "config_resources": a row per configuration, null where not recorded. */
static void test_v2_resources(void)
{
    td_result res;
    td_error err = {{0}};
    const char *text = V2 ", \"config_resources\": [null, [40, 1024, 2048, 102400]]" GOOD_LAUNCHES
                       "}]}";
    CHECK(td_result_parse(text, strlen(text), "r.json", &res, &err) == 0);
    if (res.n_devices == 1 && res.devices[0].n_launches == 2) {
        const td_launch *a = &res.devices[0].launches[0], *b = &res.devices[0].launches[1];
        CHECK(!a->resources.recorded);
        CHECK(b->resources.recorded && b->resources.registers == 40 &&
              b->resources.static_shared == 1024 && b->resources.dynamic_shared == 2048 &&
              b->resources.shared_config == 102400);
    }
    td_result_free(&res);
    expect_error(V2 ", \"config_resources\": [null]" GOOD_LAUNCHES "}]}",
                 "1 rows for 2 configurations");
    expect_error(V2 ", \"config_resources\": [null, [40, 1024, 2048]]" GOOD_LAUNCHES "}]}",
                 "\"config_resources\"[1] must be");
    expect_error(V2 ", \"config_resources\": [null, [40, 1024, 2048, 5e9]]" GOOD_LAUNCHES "}]}",
                 "config_resources");
    expect_error(V2 ", \"config_resources\": [null, [-1, 0, 0, 0]]" GOOD_LAUNCHES "}]}",
                 "config_resources");
    expect_error(V2 ", \"config_resources\": 5" GOOD_LAUNCHES "}]}", "config_resources");
}

static void test_v2_reader(void)
{
    expect_ok(V2 GOOD_LAUNCHES "}]}");
    expect_ok(V2 GOOD_LAUNCHES ", \"profiled\": {\"launch\": [1], \"group\": [0], \"counters\": [[3]]}}]}");
    td_result res;
    td_error err = {{0}};
    const char *text = V2 V2L("[[4, 1], [9, 1]]", "[1, 0]", "[5, 6]")
        ", \"profiled\": {\"launch\": [0, 1], \"group\": [0, -1], \"counters\": [[3], [1, 2]]}}]}";
    CHECK(td_result_parse(text, strlen(text), "g.json", &res, &err) == 0);
    if (res.n_devices == 1 && res.devices[0].n_launches == 2) {
        const td_launch *a = &res.devices[0].launches[0], *b = &res.devices[0].launches[1];
        CHECK(a->id == 4 && b->id == 9);
        CHECK_STR(a->kernel, "j");
        CHECK(a->mangled == NULL && b->mangled && strcmp(b->mangled, "_Z1kv") == 0);
        CHECK(a->grid[0] == 2 && a->block[0] == 64 && a->stream == 7);
        CHECK(a->group == 0 && a->counters[0] == 0 && a->counters[1] == 3); /* expanded */
        CHECK(b->group == TD_GROUP_ALL && b->counters[0] == 1 && b->counters[1] == 2);
    }
    td_result_free(&res);
    expect_error(V2 V2L("[[0, 2]]", "[0, 2]", "[5, 6]") "}]}", "\"config\"[1]");
    test_v2_resources();
    expect_error(V2 V2L("[[0, 2]]", "[0]", "[5, 6]") "}]}", "1 values for 2 launches");
    /* a count the file does not hold is refused before anything is allocated */
    expect_error(V2 ", \"launches\": {\"count\": 3000000000, \"id_runs\": [[0, 2]], "
                 "\"config\": [0, 1], \"duration_ns\": [5, 6]}}]}", "2 values for 3000000000 launches");
    expect_error(V2 V2L("[[0, 1]]", "[0, 1]", "[5, 6]") "}]}", "id_runs");
    expect_error(V2 V2L("[[0, 3]]", "[0, 1]", "[5, 6]") "}]}", "id_runs");
    expect_error(V2 V2L("[[1e300, 2]]", "[0, 1]", "[5, 6]") "}]}", "id_runs");
    expect_error(V2 V2L("[[0, 2]]", "[0, 1]", "[5, -6]") "}]}", "negative");
    expect_error(V2 GOOD_LAUNCHES ", \"profiled\": {\"launch\": [1], \"group\": [0], \"counters\": [[3, 4]]}}]}",
                 "1 numbers");
    expect_error(V2 GOOD_LAUNCHES ", \"profiled\": {\"launch\": [1], \"group\": [2], \"counters\": [[3]]}}]}",
                 "group");
    expect_error(V2 GOOD_LAUNCHES ", \"profiled\": {\"launch\": [2], \"counters\": [[3, 4]]}}]}",
                 "launch");
    expect_error(V2 GOOD_LAUNCHES ", \"profiled\": {\"launch\": [1, 1], \"counters\": [[3, 4], [3, 4]]}}]}",
                 "not after");
    expect_error("{\"schema\": \"topdown-result/2\", \"kernels\": [[\"k\"]], \"devices\": [{\"arch\": \"a\", "
                 "\"metrics\": [], \"configs\": [[1, 1, 1, 1, 1, 1, 1, 0]]" GOOD_LAUNCHES "}]}",
                 "configs");
    expect_error("{\"schema\": \"topdown-result/2\", \"kernels\": [[\"\"]], \"devices\": []}", "kernels");
    expect_error("{\"schema\": \"topdown-result/2\", \"devices\": []}", "kernels");
}

/* The shared reader: escapes do not fool the string scanner, and numbers
 * written read back exactly. */
static void test_json_field(void)
{
    const char *good[] = {"{\"a\": \"x\\\"y\\\\\"}", "[\"\\u0001\", \"\\n\"]\r\n", " 1 "};
    const char *bad[] = {"{\"a\": \"x\\\\\"\x01}", "[1] [2]", "\x01[1]", "[1]\x00"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        cJSON *root = NULL;
        td_error err = {{0}};
        CHECK(td_json_parse(good[i], strlen(good[i]), "t", &root, &err) == 0);
        cJSON_Delete(root);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *root = NULL;
        td_error err = {{0}};
        size_t len = strlen(bad[i]) + (i == 3); /* the last one holds a NUL byte */
        CHECK(td_json_parse(bad[i], len, "t", &root, &err) == -1 && root == NULL);
    }
    const double values[] = {0.1, 1.0 / 3, 9007199254740993.0, 1e300, 123456789012345678.0, 5e-324};
    cJSON *arr = td_json_exact_numbers(values, 6);
    char *text = cJSON_PrintUnformatted(arr);
    cJSON *back = cJSON_Parse(text);
    for (int i = 0; i < 6; i++)
        CHECK(cJSON_GetArrayItem(back, i)->valuedouble == values[i]);
    cJSON_Delete(back);
    free(text);
    cJSON_Delete(arr);
}

/* td_json_exact_numbers prints, without an item per number, what an
 * array of td_json_exact_number items prints. */
static void test_exact_numbers_as_items(void)
{
    const double values[] = {0, -0.0, 1, -1, 7, 2147483647.0, 2147483648.0, -2147483648.0,
                             -2147483649.0, 4294967295.0, 1e14, 999999999999999.0, 1e15,
                             -999999999999999.0, 9007199254740993.0, 1.8446744073709552e19,
                             0.5, 0.1, 1.0 / 3, -2.5e-7, 1e300, 5e-324, 123456.789};
    size_t n = sizeof values / sizeof *values;
    cJSON *items = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(items, td_json_exact_number(values[i]));
    cJSON *column = td_json_exact_numbers(values, n);
    cJSON *empty = td_json_exact_numbers(values, 0);
    char *want = cJSON_PrintUnformatted(items), *got = cJSON_PrintUnformatted(column);
    char *none = cJSON_PrintUnformatted(empty);
    CHECK_STR(got, want);
    CHECK_STR(none, "[]");
    free(want);
    free(got);
    free(none);
    cJSON_Delete(items);
    cJSON_Delete(column);
    cJSON_Delete(empty);
}

int main(void)
{
    test_json_field();
    test_exact_numbers_as_items();
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    test_round_trip(dir);
    test_v1_files(dir);
    test_empty_names(dir);
    test_unwritable_values(dir);
    test_v1_hardening();
    test_v2_reader();
    td_test_cleanup(dir);
    return td_check_summary();
}
