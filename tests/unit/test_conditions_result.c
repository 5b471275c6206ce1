/* Measurement conditions (metrics/result/conditions.h): saved and read back in a
 * result; old results (none recorded) and wrong words; the spool's start
 * and device records; the report header's line; `topdown diff`'s warning
 * when the two results were measured under different conditions (in the
 * text, or on stderr with --csv -), and
 * silence when they were not, or when one did not record them. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../check.h"
#include "metrics/spool/spool.h"
#include "report/diff.h"
#include "report/text.h"
#include "td_outputs_testlib.h"
#include "td_testreport.h"

static const fx_shares shares = {.retire = 0.3, .branch = 0.1, .noinst = 1, .longsb = 3, .wait = 1};

static void build(td_result *res, const char *cache, const char *clock, double mhz)
{
    memset(res, 0, sizeof *res);
    td_device *dev = fx_device(res, "testarch", 0);
    fx_launch(dev, "k1", 3000, shares);
    res->conditions.cache_control = cache ? td_strdup(cache) : NULL;
    res->conditions.clock_control = clock ? td_strdup(clock) : NULL;
    res->conditions.clock_mhz = mhz;
}

static void test_round_trip(const char *dir)
{
    td_result res, back;
    td_error err;
    char path[256];
    snprintf(path, sizeof path, "%s/cond.json", dir);
    build(&res, "all", "base", 1590);
    CHECK(td_result_save(path, &res, &err) == 0);
    CHECK(td_result_load(path, &back, &err) == 0);
    CHECK_STR(back.conditions.cache_control, "all");
    CHECK_STR(back.conditions.clock_control, "base");
    CHECK(back.conditions.clock_mhz == 1590);
    td_result_free(&back);
    td_result_free(&res);

    /* Without conditions: no "conditions" key written, none read. */
    build(&res, NULL, NULL, 0);
    CHECK(td_result_save(path, &res, &err) == 0);
    char text[1 << 14];
    fx_slurp(path, text, sizeof text);
    CHECK(strstr(text, "conditions") == NULL);
    CHECK(td_result_load(path, &back, &err) == 0);
    CHECK(back.conditions.cache_control == NULL && back.conditions.clock_control == NULL);
    td_result_free(&back);
    td_result_free(&res);

    /* What the reader refuses, the writer refuses. */
    build(&res, "some", "none", 0);
    CHECK(td_result_save(path, &res, &err) == -1 && strstr(err.msg, "\"some\""));
    td_result_free(&res);
    const char *bad = "{\"schema\":\"topdown-result/2\",\"conditions\":{\"clock_control\":"
                      "\"turbo\"},\"kernels\":[],\"devices\":[]}";
    CHECK(td_result_parse(bad, strlen(bad), "bad.json", &back, &err) == -1);
    CHECK(strstr(err.msg, "bad.json: \"conditions\"") && strstr(err.msg, "turbo"));
}

static void test_spool(void)
{
    const char *start = "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\","
                        "\"cache_control\":\"all\"}\n";
    const char *device = "{\"type\":\"device\",\"pid\":7,\"context\":%d,\"device\":0,"
                         "\"chip\":\"GH100\",\"cc\":[9,0],\"arch\":\"gh100\",\"metrics\":[],"
                         "\"cache_control\":\"%s\"}\n";
    char text[2048], line[512];
    td_result res;
    td_spool_summary sum;
    td_error err;
    snprintf(text, sizeof text, "%s", start);
    snprintf(line, sizeof line, device, 1, "all");
    strcat(text, line);
    strcat(text, "{\"type\":\"end\",\"pid\":7}\n");
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "t.spool", &res, &sum, &err) == 0);
    CHECK_STR(res.conditions.cache_control, "all");
    td_spool_summary_free(&sum);
    td_result_free(&res);

    /* A context that could not flush makes the result "none". */
    snprintf(text, sizeof text, "%s", start);
    snprintf(line, sizeof line, device, 1, "all");
    strcat(text, line);
    snprintf(line, sizeof line, device, 2, "none");
    strcat(text, line);
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "t.spool", &res, &sum, &err) == 0);
    CHECK_STR(res.conditions.cache_control, "none");
    td_spool_summary_free(&sum);
    td_result_free(&res);

    snprintf(text, sizeof text, "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\","
             "\"cache_control\":\"sometimes\"}\n");
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "t.spool", &res, &sum, &err) == -1);
    CHECK(strstr(err.msg, "cache_control") != NULL);
    td_result_free(&res);
}

static char *report_of(const td_result *res, const td_arch_set *archs)
{
    static char text[1 << 15];
    CHECK(td_test_level1_text(res, archs, 1 /* the Conditions line whole */, text, sizeof text) == 0);
    return text;
}

static void test_header(const td_arch_set *archs)
{
    td_result res;
    build(&res, "all", "base", 1590);
    CHECK(strstr(report_of(&res, archs),
                 "\nConditions: cache-control all (caches flushed before each profiled pass), "
                 "clock-control base (locked to base, 1590 MHz)\n") != NULL);
    td_result_free(&res);
    build(&res, "none", "preset", 0);
    CHECK(strstr(report_of(&res, archs), "\nConditions: cache-control none (caches as the app "
                 "left them), clock-control preset (locked by someone else)\n") != NULL);
    td_result_free(&res);
    build(&res, NULL, NULL, 0);
    CHECK(strstr(report_of(&res, archs), "Conditions:") == NULL);
    td_result_free(&res);
}

/* The diff's text of two results with the given conditions. */
static int diff_warns(const td_arch_set *archs, const char *ca, const char *ka,
                      const char *cb, const char *kb, char *text, size_t size)
{
    td_result ra, rb;
    td_summary sa, sb;
    td_error err;
    build(&ra, ca, ka, 0);
    build(&rb, cb, kb, 0);
    CHECK(td_summarize(&ra, archs, NULL, &sa, &err) == 0);
    CHECK(td_summarize(&rb, archs, NULL, &sb, &err) == 0);
    td_diff_side a = {"a.json", &ra, &sa}, b = {"b.json", &rb, &sb};
    FILE *f = tmpfile();
    text[0] = '\0';
    if (f && td_diff_text(f, &a, &b, 1, 0, &err) == 0) {
        rewind(f);
        text[fread(text, 1, size - 1, f)] = '\0';
    }
    if (f)
        fclose(f);
    char line[768];
    int warned = td_diff_conditions_warning(&ra, &rb, line, sizeof line);
    td_summary_free(&sa);
    td_summary_free(&sb);
    td_result_free(&ra);
    td_result_free(&rb);
    return warned;
}

static void test_diff(const td_arch_set *archs)
{
    static char text[1 << 15];
    CHECK(diff_warns(archs, "all", "base", "none", "none", text, sizeof text) == 1);
    const char *w = strstr(text, "\nWARNING: A and B were measured under different conditions "
                           "(A: cache-control all (caches flushed before each profiled pass), "
                           "clock-control base (locked to base); B: cache-control none");
    CHECK(w != NULL);
    CHECK(w && strchr(w + 1, '\n') && strstr(strchr(w + 1, '\n'), "WARNING") == NULL);
    CHECK(diff_warns(archs, "none", "none", "none", "base", text, sizeof text) == 1);
    CHECK(strstr(text, "WARNING: A and B") != NULL);
    CHECK(diff_warns(archs, "all", "base", "all", "base", text, sizeof text) == 0);
    CHECK(strstr(text, "WARNING") == NULL);
    /* An old result (nothing recorded) is no evidence of a difference. */
    CHECK(diff_warns(archs, "all", "base", NULL, NULL, text, sizeof text) == 0);
    CHECK(strstr(text, "WARNING") == NULL && strstr(text, "A: a.json") != NULL);
}

/* The command: with --csv - there is no text, so the warning goes to stderr. */
static void test_diff_command(const char *dir)
{
    td_result ra, rb;
    td_error err;
    char a[128], b[128], args[512];
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    build(&ra, "all", "base", 1590);
    build(&rb, "none", "none", 0);
    CHECK(td_result_save(a, &ra, &err) == 0 && td_result_save(b, &rb, &err) == 0);
    td_result_free(&ra);
    td_result_free(&rb);
    char archs[128];
    snprintf(archs, sizeof archs, "%s/archs", dir);
    setenv("TOPDOWN_ARCHS", archs, 1);
    td_run_output r;
    snprintf(args, sizeof args, "diff '%s' '%s' -l 1 --csv -", a, b);
    td_test_run_topdown(dir, args, &r);
    CHECK(r.status == 0);
    CHECK(strstr(r.err, "topdown: warning: A and B were measured under different conditions")
          != NULL);
    CHECK(strstr(r.out, "WARNING") == NULL && strstr(r.out, "kernel,in,") == r.out);
    snprintf(args, sizeof args, "diff '%s' '%s' -l 1", a, b);
    td_test_run_topdown(dir, args, &r);
    CHECK(r.status == 0 && strstr(r.out, "\nWARNING: A and B were measured") != NULL);
    CHECK(strstr(r.err, "warning") == NULL); /* said once, in the text */
    snprintf(args, sizeof args, "report '%s' -l 1", a);
    td_test_run_topdown(dir, args, &r);
    CHECK(strstr(r.out, "\nConditions: cache-control all") != NULL);
    /* --json carries them as the result stores them; an old result has none */
    snprintf(args, sizeof args, "report '%s' -l 1 --json", a);
    td_test_run_topdown(dir, args, &r);
    cJSON *tree = cJSON_Parse(r.out);
    const cJSON *cond = cJSON_GetObjectItemCaseSensitive(tree, "conditions");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cond, "cache_control")), "all");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cond, "clock_control")), "base");
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cond, "clock_mhz")) == 1590);
    cJSON_Delete(tree);
    td_result old;
    char c[128];
    snprintf(c, sizeof c, "%s/c.json", dir);
    build(&old, NULL, NULL, 0);
    CHECK(td_result_save(c, &old, &err) == 0);
    td_result_free(&old);
    snprintf(args, sizeof args, "report '%s' -l 1 --json", c);
    td_test_run_topdown(dir, args, &r);
    tree = cJSON_Parse(r.out);
    CHECK(tree != NULL && cJSON_GetObjectItemCaseSensitive(tree, "conditions") == NULL);
    cJSON_Delete(tree);
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    td_arch_set archs;
    fx_load_archs(dir, &archs);
    test_round_trip(dir);
    test_spool();
    test_header(&archs);
    test_diff(&archs);
    test_diff_command(dir);
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
