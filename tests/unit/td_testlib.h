/* Helpers shared by the unit tests: temp files and a small arch table. */
#ifndef TD_TESTLIB_H
#define TD_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A table with the counters of MODEL.md section 2 and four stall reasons. */
static const char td_test_arch_json[] =
    "{\"schema\": \"topdown-arch/1\", \"name\": \"testarch\", \"family\": \"Test\","
    " \"compute_capabilities\": [\"9.9\"], \"chips\": [\"TEST1\"], \"ipc_max\": 4,"
    " \"source\": \"range_profiler\","
    " \"counters\": {\"inst_executed\": \"smsp__inst_executed.sum\","
    "   \"inst_issued\": \"smsp__inst_issued.sum\","
    "   \"thread_inst_executed\": \"smsp__thread_inst_executed.sum\","
    "   \"cycles_active\": \"sm__cycles_active.sum\","
    "   \"duration_ns\": \"gpu__time_duration.sum\"},"
    " \"stalls\": ["
    "  {\"reason\": \"no_instruction\", \"metric\": \"s.no_instruction\", \"node\": \"Frontend.Fetch.Instruction_Fetch\"},"
    "  {\"reason\": \"long_scoreboard\", \"metric\": \"s.long_scoreboard\", \"node\": \"Backend.Memory_Bound.L1_Bound\"},"
    "  {\"reason\": \"lg_throttle\", \"metric\": \"s.lg_throttle\", \"node\": \"Backend.Memory_Bound.L1_Bound\"},"
    "  {\"reason\": \"wait\", \"metric\": \"s.wait\", \"node\": \"Backend.Core_Bound.Dependency_Wait\"}"
    " ]}";

/* A launch's counters under td_test_arch_json, as a result's JSON holds
 * them: one profile, its duration ns (a string literal). */
#define TD_TEST_COUNTERS(ns)                                                               \
    "\"smsp__inst_executed.sum\": 2000, \"smsp__inst_issued.sum\": 2200,"                  \
    " \"smsp__thread_inst_executed.sum\": 48000, \"sm__cycles_active.sum\": 1000,"         \
    " \"gpu__time_duration.sum\": " ns ", \"s.no_instruction\": 100,"                      \
    " \"s.long_scoreboard\": 240, \"s.lg_throttle\": 60, \"s.wait\": 100"

/* The counters of td_test_arch_json, in the order the tests store them. */
static const char *const td_test_metric_names[9] = {
    "smsp__inst_executed.sum", "smsp__inst_issued.sum", "smsp__thread_inst_executed.sum",
    "sm__cycles_active.sum", "gpu__time_duration.sum", "s.no_instruction",
    "s.long_scoreboard", "s.lg_throttle", "s.wait"};

/* A legacy (nvprof) table: level 2 is its deepest tree level. */
static const char td_test_legacy_arch_json[] =
    "{\"schema\": \"topdown-arch/1\", \"name\": \"legacy\", \"family\": \"Pascal\","
    " \"compute_capabilities\": [\"6.0\"], \"chips\": [\"GP100\"], \"ipc_max\": 4,"
    " \"source\": \"nvprof\","
    " \"counters\": {\"ipc\": \"ipc\", \"issued_ipc\": \"issued_ipc\","
    "   \"warp_execution_efficiency\": \"warp_execution_efficiency\"},"
    " \"stalls\": ["
    "  {\"reason\": \"inst_fetch\", \"metric\": \"stall_inst_fetch\", \"node\": \"Frontend.Fetch\"},"
    "  {\"reason\": \"memory_dependency\", \"metric\": \"stall_memory_dependency\", \"node\": \"Backend.Memory_Bound\"},"
    "  {\"reason\": \"exec_dependency\", \"metric\": \"stall_exec_dependency\", \"node\": \"Backend.Core_Bound\"}"
    " ]}";
static const char *const td_test_legacy_metric_names[6] = {
    "ipc", "issued_ipc", "warp_execution_efficiency", "stall_inst_fetch",
    "stall_memory_dependency", "stall_exec_dependency"};

/* Writes text to DIR/name and returns the path in buf. */
static inline const char *td_test_write(const char *dir, const char *name,
                                        const char *text, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", dir, name);
    FILE *f = fopen(buf, "w");
    if (!f) {
        perror(buf);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
    return buf;
}

/* DIR/archs holding the test table, named by TOPDOWN_ARCHS for the topdown
 * runs that follow, then DIR as the current folder: chdir's result. */
static inline int td_test_enter_with_archs(const char *dir)
{
    char archs[256], path[512];
    snprintf(archs, sizeof archs, "%s/archs", dir);
    mkdir(archs, 0700);
    td_test_write(archs, "testarch.json", td_test_arch_json, path, sizeof path);
    setenv("TOPDOWN_ARCHS", archs, 1);
    return chdir(dir);
}

/* A fresh temp folder; removed by td_test_cleanup. */
static inline char *td_test_tmpdir(char *buf, size_t size)
{
    snprintf(buf, size, "/tmp/topdown-test-XXXXXX");
    if (!mkdtemp(buf)) {
        perror("mkdtemp");
        exit(2);
    }
    return buf;
}

/* The start of a test that runs the topdown binary (TOPDOWN_BIN) on
 * result files: a fresh temp folder with the test table (dir), entered.
 * 0, or 1 (said) when it cannot start. */
static inline int td_test_start_cli(char *dir, size_t size)
{
    if (!getenv("TOPDOWN_BIN")) {
        fprintf(stderr, "TOPDOWN_BIN is not set\n");
        return 1;
    }
    td_test_tmpdir(dir, size);
    return td_test_enter_with_archs(dir) != 0;
}

static inline void td_test_cleanup(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* topdown (TOPDOWN_BIN) run with a shell-quoted string of fixed test
 * words, from the current folder, its exit status and what it printed
 * (kept in dir/out and dir/err). */
typedef struct td_run_output {
    int status;
    char out[1 << 17];
    char err[8192];
} td_run_output;

static inline void td_test_slurp(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

static inline void td_test_run_topdown(const char *dir, const char *args, td_run_output *r)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s/out' 2>'%s/err'", getenv("TOPDOWN_BIN"), args,
             dir, dir);
    int status = system(cmd);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
    char path[256];
    snprintf(path, sizeof path, "%s/out", dir);
    td_test_slurp(path, r->out, sizeof r->out);
    snprintf(path, sizeof path, "%s/err", dir);
    td_test_slurp(path, r->err, sizeof r->err);
}

#endif
