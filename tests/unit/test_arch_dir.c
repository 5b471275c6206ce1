/* Arch tables (issue 10, item 12): one malformed table is left out with a
 * message and the others load; a table counting a metric twice is
 * rejected; a FIFO given as input is an error, not a hang. */
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "metrics/arch/arch.h"
#include "td_shell.h"
#include "td_testlib.h"

static char dir[64];

static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    if (!at || !out) {
        free(out);
        return NULL;
    }
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

static void test_bad_table_left_out(void)
{
    char archs[128], path[256];
    td_error err = {{0}};
    snprintf(archs, sizeof archs, "%s/archs", dir);
    mkdir(archs, 0700);
    td_test_write(archs, "testarch.json", td_test_arch_json, path, sizeof path);
    td_test_write(archs, "broken.json", "{\"schema\": ", path, sizeof path);
    td_arch_set set;
    CHECK(td_arch_load_dir(archs, &set, &err) == 0);
    CHECK(set.count == 1 && set.count && strcmp(set.items[0].name, "testarch") == 0);
    CHECK(set.skipped && strstr(set.skipped, "broken.json"));
    td_arch_set_free(&set);
    /* The commands go on with the others, saying which was left out. */
    const char *bin = getenv("TOPDOWN_BIN");
    CHECK(td_shell_run(dir, "TOPDOWN_ARCHS=%s %s list-archs", archs, bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "testarch"));
    CHECK(td_shell_file_has(dir, "err.txt", "broken.json"));
    /* None usable: an error naming the problem. */
    unlink(path);
    snprintf(path, sizeof path, "%s/testarch.json", archs);
    unlink(path);
    td_test_write(archs, "broken.json", "[", path, sizeof path);
    CHECK(td_arch_load_dir(archs, &set, &err) == -1 && strstr(err.msg, "broken.json"));
}

static void expect_rejected(const char *from, const char *to, const char *needle)
{
    char path[256];
    td_error err = {{0}};
    char *text = replaced(td_test_arch_json, from, to);
    CHECK(text != NULL);
    if (!text)
        return;
    td_test_write(dir, "testarch.json", text, path, sizeof path);
    free(text);
    td_arch arch;
    CHECK(td_arch_load_file(path, &arch, &err) == -1);
    if (!strstr(err.msg, needle))
        fprintf(stderr, "expected \"%s\" in: %s\n", needle, err.msg);
    CHECK(strstr(err.msg, needle) != NULL);
}

static void test_metric_counted_twice(void)
{
    /* The same metric under two stall reasons of two nodes. */
    expect_rejected("\"s.wait\"", "\"s.long_scoreboard\"", "counted twice");
    /* The same metric under two reasons of one node. */
    expect_rejected("\"s.lg_throttle\"", "\"s.long_scoreboard\"", "counted twice");
    /* A counter key given twice (found by fuzz_arch: the first value leaked). */
    expect_rejected("\"cycles_active\": \"sm__cycles_active.sum\",",
                    "\"cycles_active\": \"sm__cycles_active.sum\", \"inst_issued\": \"x\",",
                    "listed twice");
    /* A counter's metric also a stall reason. */
    expect_rejected("\"s.wait\"", "\"sm__cycles_active.sum\"", "both counter");
}

static void test_fifo_inputs(void)
{
    const char *bin = getenv("TOPDOWN_BIN");
    CHECK(td_shell_run(dir, "mkfifo in.json && timeout 20 %s report in.json", bin) == 1);
    CHECK(td_shell_file_has(dir, "err.txt", "FIFO"));
    CHECK(td_shell_run(dir, "timeout 20 %s import-nvprof in.json --arch gp100 -o o.json", bin) == 1);
    CHECK(td_shell_file_has(dir, "err.txt", "FIFO"));
    CHECK(td_shell_run(dir, "timeout 20 %s report .", bin) == 2); /* a bad argument */
    CHECK(td_shell_file_has(dir, "err.txt", "folder"));
    /* A pipe with a program writing to it still reads. */
    CHECK(td_shell_run(dir, "cat '%s/tests/fixtures/h100/td_smoke.topdown.json' | "
                       "timeout 20 %s report /dev/stdin", getenv("TOPDOWN_REPO_DIR"), bin) == 0);
}

int main(void)
{
    if (!getenv("TOPDOWN_BIN") || !getenv("TOPDOWN_REPO_DIR")) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_REPO_DIR must be set\n");
        return 1;
    }
    td_test_tmpdir(dir, sizeof dir);
    test_bad_table_left_out();
    test_metric_counted_twice();
    test_fifo_inputs();
    td_test_cleanup(dir);
    return td_check_summary();
}
