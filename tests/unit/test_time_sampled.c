/* --time-sampled through the launcher, without a GPU: a stand-in app
 * writes, as the injection library would, PM samples and timed launches
 * when TOPDOWN_COLLECT asks for PM sampling, PC samples when it asks for
 * them alone. topdown must run it twice (PM first, PC second, the second
 * silent), give every launch its counters from the samples, and report
 * the kernels' trees; a second run that exits otherwise leaves the stalls
 * unsplit and says why; options that choose launches are refused. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../check.h"
#include "metrics/result/pcsamp.h"
#include "metrics/result/result.h"
#include "td_shell.h"
#include "td_testlib.h"

/* alpha [100, 300) us: 100 cycles, 200 instructions, 220 issued per ns;
 * beta twice in [400, 500) us: 100, 40, 40. Samples every 100 us. */
static const char pm_spool[] =
    "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\",\"tool_version\":\"t\"}\n"
    "{\"type\":\"device\",\"pid\":7,\"context\":1,\"device\":0,\"name\":\"NVIDIA H200\","
    "\"chip\":\"GH100\",\"cc\":[9,0],\"sm_count\":132,\"arch\":\"gh100\",\"passes\":0,"
    "\"batch\":64,\"metrics\":[]}\n"
    "{\"type\":\"warning\",\"pid\":7,\"message\":\"--pm-interval: PM sampling and per-launch "
    "counters (the Range Profiler) share the GPU's counters, so launches are only timed; the "
    "level-1 split is in the PM timeline (topdown report FILE --pm-timeline)\"}\n"
    "{\"type\":\"warning\",\"pid\":7,\"message\":\"another warning\"}\n"
    "{\"type\":\"kernel\",\"pid\":7,\"k\":0,\"name\":\"alpha(float*)\",\"mangled\":\"_Z5alphaPf\"}\n"
    "{\"type\":\"kernel\",\"pid\":7,\"k\":1,\"name\":\"beta()\",\"mangled\":\"_Z4betav\"}\n"
    "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":0,\"corr\":1,\"k\":0,\"grid\":[264,1,1],"
    "\"block\":[256,1,1],\"stream\":13,\"start_ns\":100000,\"duration_ns\":200000}\n"
    "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":1,\"corr\":2,\"k\":1,\"grid\":[8,1,1],"
    "\"block\":[64,1,1],\"stream\":13,\"start_ns\":400000,\"duration_ns\":50000}\n"
    "{\"type\":\"launch\",\"pid\":7,\"context\":1,\"id\":2,\"corr\":3,\"k\":1,\"grid\":[8,1,1],"
    "\"block\":[64,1,1],\"stream\":13,\"start_ns\":450000,\"duration_ns\":50000}\n"
    "{\"type\":\"pm_samples\",\"pid\":7,\"context\":1,\"device\":0,\"interval_ns\":100000,"
    "\"metrics\":[\"sm__cycles_active.sum\",\"smsp__inst_executed.sum\",\"smsp__inst_issued.sum\"],"
    "\"samples\":6,\"merges\":0,\"overflows\":0,"
    "\"start_ns\":[0,100000,200000,300000,400000,500000],"
    "\"end_ns\":[100000,200000,300000,400000,500000,600000],"
    "\"values\":[[0,1e7,1e7,0,1e7,0],[0,2e7,2e7,0,4e6,0],[0,2.2e7,2.2e7,0,4e6,0]]}\n"
    "{\"type\":\"end\",\"pid\":7,\"launches\":3,\"profiled\":0}\n";

/* alpha: long_scoreboard 30, wait 10, selected 60; beta: wait 45, long_scoreboard 5 */
static const char pc_spool[] =
    "{\"type\":\"start\",\"pid\":8,\"format\":\"topdown-spool/2\",\"tool_version\":\"t\"}\n"
    "{\"type\":\"device\",\"pid\":8,\"context\":1,\"device\":0,\"name\":\"NVIDIA H200\","
    "\"chip\":\"GH100\",\"cc\":[9,0],\"sm_count\":132,\"arch\":\"gh100\",\"passes\":0,"
    "\"batch\":64,\"metrics\":[]}\n"
    "{\"type\":\"kernel\",\"pid\":8,\"k\":0,\"name\":\"alpha(float*)\",\"mangled\":\"_Z5alphaPf\"}\n"
    "{\"type\":\"launch\",\"pid\":8,\"context\":1,\"id\":0,\"corr\":1,\"k\":0,\"grid\":[264,1,1],"
    "\"block\":[256,1,1],\"stream\":13,\"start_ns\":90000,\"duration_ns\":210000}\n"
    "{\"type\":\"warning\",\"pid\":8,\"message\":\"--source: 12 samples lost\"}\n"
    "{\"type\":\"pcsamp_config\",\"pid\":8,\"context\":1,\"period\":10,\"reasons\":["
    "[1,\"smsp__pcsamp_warps_issue_stalled_long_scoreboard\"],"
    "[2,\"smsp__pcsamp_warps_issue_stalled_wait\"],"
    "[3,\"smsp__pcsamp_warps_issue_stalled_selected\"]]}\n"
    "{\"type\":\"pcsamp\",\"pid\":8,\"context\":1,\"total\":150,\"dropped\":0,\"pcs\":["
    "[\"_Z5alphaPf\",\"00000000000000aa\",16,1,30,2,10,3,60],"
    "[\"_Z4betav\",\"00000000000000bb\",32,2,45,1,5]]}\n"
    "{\"type\":\"end\",\"pid\":8,\"launches\":1,\"profiled\":0}\n";

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

/* The stand-in app: which run it is goes to runs.txt; the PC run exits 3
 * when pc_fails exists. */
static void write_app(const char *dir)
{
    char app[512];
    snprintf(app, sizeof app, "%s/fake_app.sh", dir);
    FILE *f = fopen(app, "w");
    if (!f)
        return;
    fprintf(f, "#!/bin/sh\n"
            "pm=" TD_SHELL_OPTION("pm_interval_ns") "\n"
            "pc=" TD_SHELL_OPTION("source_only") "\n"
            "echo \"pm=$pm pc=$pc\" >> '%s/runs.txt'\n"
            "echo hello from the app\n"
            "if [ \"$pc\" = 1 ]; then\n"
            "  cat '%s/pc.spool' >> " TD_SHELL_OPTION("spool") "\n"
            "  [ -e '%s/pc_fails' ] && exit 3\n"
            "else\n"
            "  cat '%s/pm.spool' >> " TD_SHELL_OPTION("spool") "\n"
            "fi\n"
            "exit 0\n",
            dir, dir, dir, dir);
    fclose(f);
    chmod(app, 0755);
}

static double counter(const td_device *dev, const td_launch *l, const char *metric)
{
    int at = td_device_metric_index(dev, metric);
    return at >= 0 && l->counters ? l->counters[at] : -1;
}

static void test_two_runs(const char *dir)
{
    char args[2048], path[512], runs[256];
    td_run_output r;
    snprintf(args, sizeof args, "--time-sampled -l 3 -o '%s/run.json' -- '%s/fake_app.sh'", dir,
             dir);
    td_test_run_topdown(dir, args, &r);
    CHECK(r.status == 0);
    if (r.status)
        fprintf(stderr, "%s", r.err);
    snprintf(path, sizeof path, "%s/runs.txt", dir);
    td_test_slurp(path, runs, sizeof runs);
    CHECK(strcmp(runs, "pm=100000 pc=0\npm=0 pc=1\n") == 0); /* PM first, PC alone second */
    if (strcmp(runs, "pm=100000 pc=0\npm=0 pc=1\n") != 0)
        fprintf(stderr, "runs: %s", runs);
    /* only the first run's output reaches the user */
    const char *hello = strstr(r.out, "hello from the app");
    CHECK(hello != NULL && strstr(hello + 1, "hello from the app") == NULL);
    CHECK(strstr(r.out, "Collection: time-sampled") != NULL);
    CHECK(strstr(r.out, "IPC 2.00 of 4 (issued 2.20)") != NULL); /* alpha */
    CHECK(strstr(r.out, "IPC 0.40 of 4 (issued 0.40)") != NULL); /* beta */
    td_result res;
    td_error err;
    snprintf(path, sizeof path, "%s/run.json", dir);
    CHECK(td_result_load(path, &res, &err) == 0);
    CHECK(res.replay_mode && strcmp(res.replay_mode, "time-sampled") == 0);
    CHECK(res.note && strstr(res.note, "gave 3 of 3 launches their level 1") != NULL);
    CHECK(res.note && strstr(res.note, "share the GPU's counters") == NULL);
    CHECK(res.note && strstr(res.note, "PM timeline") == NULL);
    CHECK(res.note && strstr(res.note, "PC-sampling run: --source: 12 samples lost") != NULL);
    const char *want = "another warning; PC-sampling run: --source: 12 samples lost; "
                       "time-sampled: ";
    CHECK(res.note && strncmp(res.note, want, strlen(want)) == 0);
    if (res.n_devices == 1 && res.devices[0].n_launches == 3) {
        const td_device *dev = &res.devices[0];
        const td_launch *alpha = &dev->launches[0];
        CHECK(alpha->profiled && alpha->group == TD_GROUP_ALL);
        double lsb = counter(dev, alpha, "smsp__warps_issue_stalled_long_scoreboard.sum");
        double wait = counter(dev, alpha, "smsp__warps_issue_stalled_wait.sum");
        CHECK_NEAR(lsb / (lsb + wait), 0.75, 1e-12); /* selected is no stall */
        CHECK_NEAR(counter(dev, alpha, "smsp__inst_executed.sum"), 4e7, 1e-3);
        CHECK(dev->pcsamp && dev->pcsamp->n_records == 2); /* for `topdown source` */
    } else {
        CHECK(0);
    }
    td_result_free(&res);
}

static void test_second_run_differs(const char *dir)
{
    write_file(dir, "pc_fails", "");
    char args[2048], path[512];
    td_run_output r;
    snprintf(args, sizeof args, "--time-sampled -f -o '%s/run2.json' -- '%s/fake_app.sh'", dir,
             dir);
    td_test_run_topdown(dir, args, &r);
    CHECK(r.status == 0); /* the first run's exit code */
    td_result res;
    td_error err;
    snprintf(path, sizeof path, "%s/run2.json", dir);
    CHECK(td_result_load(path, &res, &err) == 0);
    CHECK(res.note && strstr(res.note, "the PC-sampling run of the app exited with 3 where "
                                       "the first exited with 0") != NULL);
    CHECK(res.n_devices == 1 && res.devices[0].pcsamp == NULL);
    CHECK(res.n_devices == 1 && res.devices[0].n_launches == 3 &&
          res.devices[0].launches[0].profiled); /* level 1 all the same */
    td_result_free(&res);
    snprintf(path, sizeof path, "%s/pc_fails", dir);
    remove(path);
}

static void test_refused(const char *dir)
{
    td_run_output r;
    td_test_run_topdown(dir, "--time-sampled --source -- true", &r);
    CHECK(r.status == 2 && strstr(r.err, "--time-sampled takes its PC samples") != NULL);
    td_test_run_topdown(dir, "--time-sampled --overhead 10 -- true", &r);
    CHECK(r.status == 2 && strstr(r.err, "--overhead chooses profiled launches") != NULL);
    td_test_run_topdown(dir, "--time-sampled --replay-mode kernel -- true", &r);
    CHECK(r.status == 2 && strstr(r.err, "--time-sampled") != NULL);
}

int main(void)
{
    char dir[64];
    td_test_tmpdir(dir, sizeof dir);
    write_file(dir, "pm.spool", pm_spool);
    write_file(dir, "pc.spool", pc_spool);
    write_app(dir);
    test_two_runs(dir);
    test_second_run_differs(dir);
    test_refused(dir);
    td_test_cleanup(dir);
    return td_check_summary();
}
