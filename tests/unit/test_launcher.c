/* The launcher without a GPU: topdown runs a plain program as it would a
 * CUDA app. Exit codes and output pass through, names never clobber
 * another run's result, bad apps get one clear line, and SIGTERM reaches
 * the app and leaves an "interrupted" result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"
#include "result.h"

static const char *bin;
static char dir[] = "/tmp/td_launcherXXXXXX";

#define run(...) td_shell_run(dir, __VA_ARGS__)

static int contains(const char *file, const char *needle)
{
    return td_shell_file_has(dir, file, needle);
}

static int exists(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static int load(const char *name, td_result *res)
{
    return td_shell_load_result(dir, name, res);
}

static void test_exit_code_and_output_pass_through(void)
{
    int rc = run("%s -o r1.json -- /bin/sh -c 'echo app-out; echo app-err >&2; exit 7'", bin);
    CHECK(rc == 7);
    CHECK(contains("out.txt", "app-out"));
    CHECK(contains("err.txt", "app-err"));
    td_result res;
    CHECK(load("r1.json", &res) == 0);
    CHECK(res.exit_code == 7 && res.term_signal == 0);
    CHECK_STR(res.status, "complete");
    CHECK(res.argc == 3);
    CHECK_STR(res.argv[0], "/bin/sh");
    td_result_free(&res);
    CHECK(!exists("r1.json.spool")); /* the spool is removed once read */
}

static void test_bad_apps(void)
{
    CHECK(run("%s -- ./no-such-app", bin) != 0);
    CHECK(contains("err.txt", "app not found"));
    CHECK(!exists("no-such-app.topdown.json"));
    CHECK(run("%s -- no-such-app-on-path-either", bin) != 0);
    CHECK(contains("err.txt", "not on PATH"));
    CHECK(run("touch plain.txt && chmod -x plain.txt && %s -- ./plain.txt", bin) != 0);
    CHECK(contains("err.txt", "not executable"));
    CHECK(!exists("plain.txt.topdown.json"));
    CHECK(run("%s -k '(' -- /bin/true", bin) != 0);
    CHECK(contains("err.txt", "regex"));
}

static void test_never_overwrites(void)
{
    CHECK(run("%s -o r1.json -- /bin/true", bin) != 0);
    CHECK(contains("err.txt", "-f"));
    td_result res;
    CHECK(load("r1.json", &res) == 0); /* still the first run's */
    CHECK(res.exit_code == 7);
    td_result_free(&res);
    CHECK(run("%s -f -o r1.json -- /bin/true", bin) == 0);
    CHECK(load("r1.json", &res) == 0);
    CHECK(res.exit_code == 0);
    td_result_free(&res);
    CHECK(run("%s -- true && %s -- true", bin, bin) == 0);
    CHECK(exists("true.topdown.json"));
    CHECK(exists("true.topdown-1.json"));
}

static void test_signals(void)
{
    /* The app asks topdown to stop, as `timeout` or a job scheduler would:
     * topdown forwards SIGTERM to it and keeps an interrupted result. */
    int rc = run("%s -o term.json -- /bin/sh -c 'kill -TERM $PPID; exec sleep 30'", bin);
    CHECK(rc == 128 + 15);
    td_result res;
    CHECK(load("term.json", &res) == 0);
    CHECK_STR(res.status, "interrupted");
    CHECK(res.term_signal == 15);
    td_result_free(&res);
    rc = run("%s -o segv.json -- /bin/sh -c 'kill -SEGV $$'", bin);
    CHECK(rc == 128 + 11);
    CHECK(load("segv.json", &res) == 0);
    CHECK_STR(res.status, "crashed");
    CHECK(res.exit_code == -1 && res.term_signal == 11);
    td_result_free(&res);
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    if (!bin || access(bin, X_OK) != 0) {
        fprintf(stderr, "TOPDOWN_BIN is not set to the topdown binary\n");
        return 1;
    }
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_exit_code_and_output_pass_through();
    test_bad_apps();
    test_never_overwrites();
    test_signals();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
