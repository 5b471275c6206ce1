/* --clock-control base through the launcher, with a fake NVML
 * (tests/tools/fake_nvml.c, TOPDOWN_NVML_LIB): the clocks are locked
 * before the app starts and reset after it, whether it exits, crashes or
 * topdown is sent SIGTERM while it runs; a GPU locked by someone else is
 * left alone and said; without the right, topdown stops before the app
 * starts (exit 1, one line naming the fix); --clock-control none never
 * touches NVML. The app is a shell script (no GPU here: no result is
 * written, which is not what is tested). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "td_testlib.h"

static char dir[64], log_path[128], marker[128];

static void use_fake(const char *mode)
{
    setenv("TOPDOWN_NVML_LIB", getenv("TOPDOWN_FAKE_NVML"), 1);
    setenv("FAKE_NVML_LOG", log_path, 1);
    setenv("FAKE_NVML_MODE", mode, 1);
    unsetenv("CUDA_VISIBLE_DEVICES"); /* every GPU of the fake */
}

static void run(const char *mode, const char *args, td_run_output *r)
{
    char full[2048];
    unlink(log_path);
    unlink(marker);
    use_fake(mode);
    snprintf(full, sizeof full, "--no-progress -o '%s/r.json' -f %s", dir, args);
    td_test_run_topdown(dir, full, r);
}

static const char *log_text(void)
{
    static char text[1024];
    td_test_slurp(log_path, text, sizeof text);
    return text;
}

static void test_exit_and_crash(void)
{
    td_run_output r;
    char args[512];
    snprintf(args, sizeof args, "--clock-control base -- sh -c 'touch %s; exit 5'", marker);
    run("ok", args, &r);
    CHECK(r.status == 5);
    CHECK(access(marker, F_OK) == 0);
    CHECK_STR(log_text(), "init\nlock 0\nlock 1\nreset 0\nreset 1\nshutdown\n");

    run("ok", "--clock-control base -- sh -c 'kill -SEGV $$'", &r);
    CHECK(r.status == 128 + SIGSEGV);
    CHECK_STR(log_text(), "init\nlock 0\nlock 1\nreset 0\nreset 1\nshutdown\n");
}

static void test_preset(void)
{
    td_run_output r;
    run("preset", "--clock-control base -- sh -c 'exit 0'", &r);
    CHECK_STR(log_text(), "init\nlock 0\nreset 0\nshutdown\n"); /* GPU 1 untouched */
    CHECK(strstr(r.err, "topdown: warning: --clock-control base: the clocks of GPU 1 were "
                 "already locked by someone else") != NULL);
}

static void test_no_permission(void)
{
    td_run_output r;
    char args[512];
    snprintf(args, sizeof args, "--clock-control base -- sh -c 'touch %s'", marker);
    run("noperm", args, &r);
    CHECK(r.status == 1);
    CHECK(access(marker, F_OK) != 0); /* the app never started */
    CHECK(strstr(r.err, "run topdown as root, or use --clock-control none") != NULL);
    CHECK(strstr(r.err, "Insufficient Permissions") != NULL);
    CHECK_STR(log_text(), "init\nshutdown\n");

    snprintf(args, sizeof args, "--clock-control none -- sh -c 'touch %s'", marker);
    run("noperm", args, &r);
    CHECK(access(marker, F_OK) == 0);
    CHECK_STR(log_text(), ""); /* NVML not even loaded */
}

/* SIGTERM to topdown alone (a scheduler's kill): forwarded to the app,
 * and the clocks given back once it died. */
static void test_signal(void)
{
    char cmd[1024];
    unlink(log_path);
    use_fake("ok");
    snprintf(cmd, sizeof cmd, "'%s' --no-progress -o '%s/s.json' -f --clock-control base -- "
             "sleep 30 2>/dev/null & pid=$!; sleep 1; kill -TERM $pid; wait $pid",
             getenv("TOPDOWN_BIN"), dir);
    int status = system(cmd);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM);
    CHECK_STR(log_text(), "init\nlock 0\nlock 1\nreset 0\nreset 1\nshutdown\n");
}

int main(void)
{
    if (!getenv("TOPDOWN_FAKE_NVML") || !getenv("TOPDOWN_BIN")) {
        fprintf(stderr, "TOPDOWN_FAKE_NVML and TOPDOWN_BIN are set by CTest\n");
        return 1;
    }
    td_test_tmpdir(dir, sizeof dir);
    snprintf(log_path, sizeof log_path, "%s/nvml.log", dir);
    snprintf(marker, sizeof marker, "%s/ran", dir);
    test_exit_and_crash();
    test_preset();
    test_no_permission();
    test_signal();
    td_test_cleanup(dir);
    return td_check_summary();
}
