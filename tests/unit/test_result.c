/* The result file: a save/load round trip and every kind of bad input
 * giving one clear error, never a crash. */
#include <stdlib.h>
#include <sys/stat.h>

#include "../check.h"
#include "levels/aggregate.h"
#include "metrics/result/result.h"
#include "td_testlib.h"

static const char *const names[] = {"a.sum", "b.sum"};

static void test_round_trip(const char *dir)
{
    td_result res = {0};
    td_error err;
    res.status = td_strdup("partial");
    res.argv = calloc(2, sizeof *res.argv);
    res.argv[res.argc++] = td_strdup("./app");
    res.argv[res.argc++] = td_strdup("--size=1,5");
    res.exit_code = 3;
    td_device *dev = td_result_add_device(&res, &err);
    dev->name = td_strdup("NVIDIA Test");
    dev->chip = td_strdup("TEST1");
    dev->arch = td_strdup("testarch");
    dev->cc_major = 9;
    dev->passes = 2;
    CHECK(td_device_set_metrics(dev, names, 2, &err) == 0);
    double values[2] = {123456789012.0, 0.5};
    td_launch *l = td_device_add_launch(dev, "void k<int, float>(float*, int)", values, &err);
    l->grid[0] = 1024;
    l->block[0] = 256;
    l->duration_ns = 1500.25;
    l->id = 7;
    td_device_add_launch(dev, "other", NULL, &err)->duration_ns = 10;
    char path[512];
    snprintf(path, sizeof path, "%s/r.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    td_result back;
    CHECK(td_result_load(path, &back, &err) == 0);
    CHECK(back.n_devices == 1 && back.devices[0].n_launches == 2);
    CHECK_STR(back.status, "partial");
    CHECK(back.exit_code == 3 && back.argc == 2);
    CHECK_STR(back.argv[1], "--size=1,5");
    const td_launch *b = &back.devices[0].launches[0];
    CHECK_STR(b->kernel, "void k<int, float>(float*, int)");
    CHECK(b->profiled && b->grid[0] == 1024 && b->block[0] == 256 && b->id == 7);
    CHECK_NEAR(b->counters[0], 123456789012.0, 0);
    CHECK_NEAR(b->counters[1], 0.5, 0);
    CHECK_NEAR(b->duration_ns, 1500.25, 0);
    CHECK(!back.devices[0].launches[1].profiled);
    CHECK(back.devices[0].passes == 2 && back.devices[0].cc_major == 9);
    td_result_free(&back);
    td_result_free(&res);
}

/* Parses text and expects an error whose message contains needle. */
static void expect_error(const char *text, const char *needle)
{
    td_result res;
    td_error err = {{0}};
    int rc = td_result_parse(text, strlen(text), "bad.json", &res, &err);
    CHECK(rc == -1);
    if (rc == 0) {
        td_result_free(&res);
        return;
    }
    if (!strstr(err.msg, needle))
        fprintf(stderr, "expected \"%s\" in: %s\n", needle, err.msg);
    CHECK(strstr(err.msg, needle) != NULL);
    CHECK(strchr(err.msg, '\n') == NULL); /* one line */
}

#define HEAD "{\"schema\": \"topdown-result/1\", \"devices\": [{\"arch\": \"testarch\", \"metrics\": [\"a.sum\"], \"launches\": ["

static void test_bad_input(void)
{
    expect_error("{\"schema\": \"topdown-result/1\", \"devices\": [", "truncated");
    expect_error("not json at all", "not a topdown result");
    expect_error("[1, 2]", "not a topdown result");
    expect_error("{\"schema\": \"topdown-arch/1\"}", "not a topdown result (its schema is");
    expect_error("{\"devices\": []}", "schema");
    expect_error("{\"schema\": \"topdown-result/9\", \"devices\": []}", "not supported");
    expect_error("{\"schema\": \"topdown-result/1\"}", "devices");
    expect_error(HEAD "{\"kernel\": \"k\", \"duration_ns\": 5, \"counters\": {}}]}]}", "a.sum");
    expect_error(HEAD "{\"kernel\": \"k\", \"duration_ns\": 5, \"counters\": {\"a.sum\": -4}}]}]}", "negative");
    expect_error(HEAD "{\"kernel\": \"k\", \"duration_ns\": 5, \"counters\": {\"a.sum\": \"12\"}}]}]}", "not a number");
    expect_error(HEAD "{\"kernel\": \"k\", \"counters\": {\"a.sum\": 1}}]}]}", "duration_ns");
    expect_error(HEAD "{\"duration_ns\": 1, \"counters\": {\"a.sum\": 1}}]}]}", "kernel");
    expect_error(HEAD "{\"kernel\": \"k\", \"duration_ns\": 1}]}]}", "counters");
    expect_error(HEAD "{\"kernel\": \"k\", \"duration_ns\": 1, \"profiled\": false, \"grid\": [1]}]}]}", "grid");
}

static void test_summary_errors(const char *dir)
{
    char path[512];
    td_error err;
    td_arch_set set;
    char archs[300];
    snprintf(archs, sizeof archs, "%s/archs", dir);
    mkdir(archs, 0700);
    td_test_write(archs, "testarch.json", td_test_arch_json, path, sizeof path);
    CHECK(td_arch_load_dir(archs, &set, &err) == 0);
    td_result res;
    const char *empty = HEAD "]}]}";
    CHECK(td_result_parse(empty, strlen(empty), "empty.json", &res, &err) == 0);
    td_summary s;
    CHECK(td_summarize(&res, &set, NULL, &s, &err) == -1);
    CHECK(strstr(err.msg, "no kernel launch") != NULL);
    td_result_free(&res);
    /* The table needs counters this result lacks. */
    const char *lacking = HEAD "{\"kernel\": \"k\", \"duration_ns\": 1, \"counters\": {\"a.sum\": 1}}]}]}";
    CHECK(td_result_parse(lacking, strlen(lacking), "lacking.json", &res, &err) == 0);
    CHECK(td_summarize(&res, &set, NULL, &s, &err) == -1);
    CHECK(strstr(err.msg, "missing counter") != NULL);
    td_result_free(&res);
    td_arch_set_free(&set);
}

static void test_bad_arch_tables(const char *dir)
{
    char path[512];
    td_arch arch;
    td_error err;
    td_model model;
    /* A stall reason mapped to a node the model does not know. */
    char *text = strdup(td_test_arch_json);
    char *node = strstr(text, "Backend.Core_Bound.Dependency_Wait");
    memcpy(node, "Backend.Core_Bound.Dependency_Wa1t", 34);
    td_test_write(dir, "testarch.json", text, path, sizeof path);
    CHECK(td_arch_load_file(path, &arch, &err) == 0);
    CHECK(td_model_init(&model, &arch, &err) == -1);
    CHECK(strstr(err.msg, "Dependency_Wa1t") != NULL);
    td_arch_free(&arch);
    free(text);
    /* Truncated table. */
    td_test_write(dir, "testarch.json", "{\"schema\": \"topdown-arch/1\", \"name\":", path, sizeof path);
    CHECK(td_arch_load_file(path, &arch, &err) == -1);
    CHECK(strstr(err.msg, "malformed") != NULL);
    /* The name must match the file. */
    td_test_write(dir, "other.json", td_test_arch_json, path, sizeof path);
    CHECK(td_arch_load_file(path, &arch, &err) == -1);
    CHECK(strstr(err.msg, "testarch.json") != NULL);
    unlink(path);
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    test_round_trip(dir);
    test_bad_input();
    test_summary_errors(dir);
    test_bad_arch_tables(dir);
    td_test_cleanup(dir);
    return td_check_summary();
}
