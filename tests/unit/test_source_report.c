/* Issue 13 (offline): PC samples in the spool and the result, the arch
 * tables' "pc_sampling" maps, and `topdown source` on a result holding
 * made-up PC samples of two td_bench kernels of the H100 recording (whose
 * trees give the default node): ordering, shares, --node, -n, --csv read
 * back, and the errors. No cubins here: rows are PCs (tests/cupti/
 * test_sass_source.c has the lines). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "td_shell.h"
#include "levels/model.h"
#include "metrics/arch/arch.h"
#include "metrics/csv_read.h"
#include "metrics/result/pcsamp.h"
#include "metrics/result/result.h"
#include "metrics/spool/spool.h"
#include "report/sass_text.h"
#include "topdown/cli.h"

#define P TD_PCSAMP_PREFIX

static const char *bin;
static char dir[] = "/tmp/td_sourceXXXXXX";
static char bench[2048];

#define run(...) td_shell_run(dir, __VA_ARGS__)

/* ---- the arch tables' maps ------------------------------------------------------ */

/* Counter stall reasons whose PC-sampling reason has another name. */
static const char *pc_name_of(const char *counter_reason)
{
    if (strcmp(counter_reason, "no_instruction") == 0)
        return "no_instructions";
    if (strcmp(counter_reason, "gmma") == 0)
        return "warpgroup_arrive"; /* the wait on WARPGROUP.ARRIVES */
    return counter_reason;
}

static void test_arch_maps(void)
{
    td_arch_set set;
    td_error err;
    char archs[4200];
    snprintf(archs, sizeof archs, "%s", getenv("TOPDOWN_ARCHS"));
    CHECK(td_arch_load_dir(archs, &set, &err) == 0);
    size_t with_map = 0;
    for (size_t i = 0; i < set.count; i++) {
        const td_arch *t = &set.items[i];
        if (t->source != TD_BACKEND_RANGE_PROFILER) {
            CHECK(t->n_pc_reasons == 0);
            continue;
        }
        with_map++;
        td_model m;
        CHECK(td_model_init(&m, t, &err) == 0);
        /* every mapped node is a leaf the model has: a stall leaf, or Retire */
        for (size_t r = 0; r < t->n_pc_reasons; r++) {
            const td_pc_map *e = &t->pc_reasons[r];
            if (!e->node) {
                /* no loss: not_selected; or a CUPTI counter that is no warp
                 * state, named in full (GH100: smsp__pcsamp_sample_count) */
                if (strcmp(e->reason, "not_selected") != 0)
                    CHECK(strncmp(e->reason, "smsp__pcsamp_", 13) == 0);
                continue;
            }
            int n = td_model_find(&m, e->node);
            CHECK(n >= 0);
            if (n >= 0 && strcmp(e->node, "Retire") != 0 &&
                !(td_kind_takes_stalls(m.tree[n].kind) && m.tree[n].level == 3)) {
                fprintf(stderr, "%s: %s -> %s is not a stall leaf\n", t->name, e->reason, e->node);
                CHECK(0);
            }
        }
        /* every stall reason of the counters has its PC-sampling reason, on
         * the same leaf */
        for (size_t k = 0; k < t->n_stalls; k++) {
            const td_pc_map *e = td_arch_pc_reason(t, pc_name_of(t->stalls[k].reason));
            if (!e || !e->node || strcmp(e->node, t->stalls[k].node) != 0) {
                fprintf(stderr, "%s: stall %s (%s) has no PC-sampling reason there\n", t->name,
                        t->stalls[k].reason, t->stalls[k].node);
                CHECK(0);
            }
        }
        CHECK(td_arch_pc_reason(t, P "selected") && td_arch_pc_reason(t, "not_selected"));
        CHECK(td_arch_pc_reason(t, "no_instruction") == NULL); /* the counter's name */
    }
    CHECK(with_map == 7);
    td_arch_set_free(&set);
    /* a map that names the prefix, or is not an object, is refused */
    static const char bad[] =
        "{\"schema\": \"topdown-arch/1\", \"name\": \"bad\", \"family\": \"T\","
        " \"compute_capabilities\": [\"9.9\"], \"chips\": [\"T\"], \"ipc_max\": 4,"
        " \"source\": \"range_profiler\", \"counters\": {\"inst_executed\": \"a\","
        " \"inst_issued\": \"b\", \"thread_inst_executed\": \"c\", \"cycles_active\": \"d\","
        " \"duration_ns\": \"e\"},"
        " \"stalls\": [{\"reason\": \"wait\", \"metric\": \"s.wait\", \"node\": \"Backend.Core_Bound.Dependency_Wait\"}],"
        " \"pc_sampling\": {\"" P "wait\": \"Backend.Core_Bound.Dependency_Wait\"}}";
    td_arch a;
    CHECK(td_arch_parse(bad, sizeof bad - 1, "x/bad.json", &a, &err) != 0);
    if (!strstr(err.msg, "without the prefix")) {
        fprintf(stderr, "%s\n", err.msg);
        CHECK(0);
    }
}

static void test_short_reason(void)
{
    char buf[64];
    CHECK(td_pcsamp_short_reason(P "long_scoreboard", buf, sizeof buf) == 1);
    CHECK_STR(buf, "long_scoreboard");
    CHECK(td_pcsamp_short_reason(P "long_scoreboard_not_issued", buf, sizeof buf) == 0);
    CHECK(td_pcsamp_short_reason("wait", buf, sizeof buf) == 1);
    CHECK_STR(buf, "wait");
    td_pcsamp_cubin_name(0xabcULL, buf, sizeof buf);
    CHECK_STR(buf, "0000000000000abc.cubin");
}

/* nvdisasm's layout: a section per function, "/ *offset* /  INSTR ;  / *encoding* /"
 * lines, encoding continuation lines, labels. */
static const char nvdisasm_text[] =
    "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90\"\n"
    "//--------------------- .text._Z5otherv --------------------------\n"
    "\t.section\t.text._Z5otherv,\"ax\",@progbits\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;  /* 0x00000a00ff017b82 */\n"
    "//--------------------- .text._Z1kPf --------------------------\n"
    "\t.section\t.text._Z1kPf,\"ax\",@progbits\n"
    "        .global         _Z1kPf\n"
    "_Z1kPf:\n"
    ".text._Z1kPf:\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;                       /* 0x00000a00ff017b82 */\n"
    "                                                                                /* 0x000fe40000000800 */\n"
    "        /*0010*/              @!P0 LDG.E R2, desc[UR4][R2.64] ;                /* 0x0000000402028981 */\n"
    ".L_x_0:\n"
    "        /*01a0*/                   EXIT ;                                       /* 0x000000000000794d */\n";

static void test_sass_parse(void)
{
    td_sass_listing l = {0};
    td_error err;
    CHECK(td_sass_parse(nvdisasm_text, "_Z1kPf", &l, &err) == 0);
    CHECK(l.n == 3);
    CHECK_STR(td_sass_at(&l, 0x10), "@!P0 LDG.E R2, desc[UR4][R2.64] ;");
    CHECK_STR(td_sass_at(&l, 0x1a0), "EXIT ;");
    CHECK(td_sass_at(&l, 0x20) == NULL);
    td_sass_free(&l);
    CHECK(td_sass_parse(nvdisasm_text, "_Z5otherv", &l, &err) == 0 && l.n == 1);
    td_sass_free(&l);
    CHECK(td_sass_parse(nvdisasm_text, "_Z4nonev", &l, &err) == 0 && l.n == 0);
    /* no nvdisasm on PATH: an empty listing, no error */
    const char *path = getenv("PATH");
    char *saved = path ? strdup(path) : NULL;
    setenv("PATH", "/nonexistent", 1);
    CHECK(td_sass_disassemble("/dev/null", "_Z1kPf", &l, &err) == 0 && l.n == 0);
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);
}

/* ---- the spool -------------------------------------------------------------------- */

static const char spool_head[] =
    "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\",\"tool_version\":\"t\"}\n"
    "{\"type\":\"device\",\"pid\":7,\"context\":1,\"device\":0,\"name\":\"G\",\"chip\":\"GH100\","
    "\"cc\":[9,0],\"sm_count\":132,\"arch\":\"gh100\",\"passes\":1,\"batch\":64,\"metrics\":[]}\n";

static void test_spool(void)
{
    char text[4096];
    snprintf(text, sizeof text, "%s"
             "{\"type\":\"pcsamp_config\",\"pid\":7,\"context\":1,\"period\":10,"
             "\"cubin_dir\":\"/r/run.json.cubins\",\"reasons\":[[3,\"" P "wait\"],"
             "[9,\"" P "wait_not_issued\"],[12,\"" P "selected\"]]}\n"
             "{\"type\":\"pcsamp\",\"pid\":7,\"context\":1,\"total\":100,\"dropped\":1,"
             "\"pcs\":[[\"_Z1kv\",\"00000000deadbeef\",16,3,5,9,4],[\"_Z1kv\",\"deadbeef\",32,12,7]]}\n"
             "{\"type\":\"pcsamp\",\"pid\":7,\"context\":1,\"total\":50,"
             "\"pcs\":[[\"_Z1kv\",\"deadbeef\",16,3,2,12,1]]}\n"
             "{\"type\":\"end\",\"pid\":7,\"launches\":0,\"profiled\":0}\n", spool_head);
    td_result res;
    td_spool_summary sum;
    td_error err;
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "s", &res, &sum, &err) == 0);
    td_pcsamp *p = res.n_devices == 1 ? res.devices[0].pcsamp : NULL;
    CHECK(p != NULL);
    if (p) {
        CHECK(p->period == 10 && p->total_samples == 150 && p->dropped_samples == 1);
        CHECK(p->n_reasons == 3 && p->n_functions == 1 && p->n_modules == 1);
        CHECK(p->modules[0] == 0xdeadbeefULL);
        CHECK_STR(p->cubin_dir, "/r/run.json.cubins");
        CHECK(p->n_records == 2); /* PC 16 from two records is one */
        if (p->n_records == 2) {
            CHECK(p->records[0].pc == 16 && td_pc_count(&p->records[0], 0) == 7);
            CHECK(td_pc_count(&p->records[0], 1) == 4 && td_pc_count(&p->records[0], 2) == 1);
            CHECK(p->records[1].pc == 32 && td_pc_count(&p->records[1], 2) == 7);
        }
    }
    /* through the result file and back */
    char path[4300];
    snprintf(path, sizeof path, "%s/spool_result.json", dir);
    res.tool_version = td_strdup("t");
    res.status = td_strdup("complete");
    CHECK(td_result_save(path, &res, &err) == 0);
    td_result back;
    CHECK(td_result_load(path, &back, &err) == 0);
    td_pcsamp *q = back.n_devices == 1 ? back.devices[0].pcsamp : NULL;
    CHECK(q && q->n_records == 2 && q->period == 10 && q->total_samples == 150);
    if (q && p && q->n_records == 2) {
        CHECK_STR(q->reasons[1], P "wait_not_issued");
        CHECK(q->modules[0] == 0xdeadbeefULL);
        CHECK(td_pc_count(&q->records[0], 1) == 4 && td_pc_count(&q->records[1], 2) == 7);
    }
    td_result_free(&back);
    td_result_free(&res);
    td_spool_summary_free(&sum);

    /* samples of a reason no config record named, or before the device */
    snprintf(text, sizeof text, "%s{\"type\":\"pcsamp\",\"pid\":7,\"context\":1,"
             "\"pcs\":[[\"_Z1kv\",\"1\",16,44,5]]}\n", spool_head);
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "s", &res, &sum, &err) != 0);
    CHECK(strstr(err.msg, "line 3") && strstr(err.msg, "stall reason 44"));
    td_result_free(&res);
    td_spool_summary_free(&sum);
    snprintf(text, sizeof text, "%s{\"type\":\"pcsamp\",\"pid\":7,\"context\":2,\"pcs\":[]}\n",
             spool_head);
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "s", &res, &sum, &err) != 0);
    CHECK(strstr(err.msg, "before the device record"));
    td_result_free(&res);
    td_spool_summary_free(&sum);
}

/* Damaged "pc_sampling" objects are refused with a line naming the problem. */
static void test_result_refuses(void)
{
    static const char *const bad[][2] = {
        {"{\"reasons\":[\"a\"],\"functions\":[\"f\"],\"modules\":[\"1\"],\"pcs\":[[0,0,16,1,5]]}",
         "\"pcs\" row"},
        {"{\"reasons\":[\"a\"],\"functions\":[\"f\"],\"modules\":[\"xyz\"],\"pcs\":[]}",
         "cubin CRC"},
        {"{\"reasons\":[\"a\",\"a\"],\"functions\":[\"f\"],\"modules\":[],\"pcs\":[]}", "twice"},
        {"{\"reasons\":[\"a\"],\"functions\":[\"f\"],\"modules\":[\"1\"],\"pcs\":[[0,0,16,0]]}",
         "[function, module, pc"},
        {"{\"reasons\":[\"a\"],\"functions\":[\"f\"],\"modules\":[\"1\"],\"pcs\":[[0,0,16,0,-3]]}",
         "\"pcs\" row"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *json = malloc(strlen(bad[i][0]) + 64);
        sprintf(json, "{\"pc_sampling\": %s}", bad[i][0]);
        cJSON *obj = cJSON_Parse(json);
        td_error err = {{0}};
        td_jctx c = {"r.json: device section 0", &err};
        td_pcsamp *p = NULL;
        CHECK(obj && td_pcsamp_read(obj, &p, &c) != 0 && p == NULL);
        if (!strstr(err.msg, bad[i][1])) {
            fprintf(stderr, "case %zu: %s\n", i, err.msg);
            CHECK(0);
        }
        cJSON_Delete(obj);
        free(json);
    }
}

/* ---- topdown source ----------------------------------------------------------------- */

/* The mangled name of a kernel of the result. */
static const char *mangled_of(const td_result *res, const char *kernel)
{
    const td_device *d = &res->devices[0];
    for (size_t i = 0; i < d->n_launches; i++)
        if (strcmp(d->launches[i].kernel, kernel) == 0)
            return d->launches[i].mangled ? d->launches[i].mangled : d->launches[i].kernel;
    return NULL;
}

static void add(td_pcsamp *p, long f, uint64_t pc, const char *reason, uint64_t n)
{
    td_error err;
    long r = td_pcsamp_reason(p, reason);
    CHECK(r >= 0 && td_pcsamp_add(p, (size_t)f, 0, pc, (size_t)r, n, &err) == 0);
}

/* bench_l1_bound (bottleneck L1_Bound): 2000 samples at four PCs, 700 of
 * them L1_Bound; bench_dependency (Dependency_Wait) at one. */
static void make_result(void)
{
    td_result res;
    td_error err;
    CHECK(td_shell_load_result("", bench, &res) == 0);
    td_pcsamp *p = td_pcsamp_new();
    const char *l1 = mangled_of(&res, "bench_l1_bound(Sink, unsigned int const*, unsigned int, int)");
    const char *dep = mangled_of(&res, "bench_dependency(Sink, int)");
    CHECK(l1 && dep);
    if (!l1 || !dep)
        return;
    long fl1 = td_pcsamp_function(p, l1), fdep = td_pcsamp_function(p, dep);
    CHECK(td_pcsamp_module(p, 0x1234) == 0);
    p->period = 9;
    add(p, fl1, 0x100, P "long_scoreboard", 600);
    add(p, fl1, 0x100, P "long_scoreboard_not_issued", 500); /* a subset: not counted */
    add(p, fl1, 0x100, P "selected", 50);
    add(p, fl1, 0x200, P "wait", 300);
    add(p, fl1, 0x200, P "long_scoreboard", 100);
    add(p, fl1, 0x300, P "selected", 900);
    add(p, fl1, 0x400, P "mystery", 30);
    add(p, fl1, 0x400, P "not_selected", 20);
    add(p, fdep, 0x80, P "wait", 77);
    res.devices[0].pcsamp = p;
    char path[4300];
    snprintf(path, sizeof path, "%s/pcs.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    td_result_free(&res);
}

/* Rows of a CSV: fields of row r (0 = header). */
static size_t read_csv(const char *name, char rows[][16][128], size_t max_rows)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    td_csv_record rec = {0};
    size_t n = 0;
    while (f && n < max_rows && td_csv_next(f, &rec) == 1) {
        for (size_t i = 0; i < rec.count && i < 16; i++)
            snprintf(rows[n][i], sizeof rows[n][i], "%s", rec.fields[i]);
        n++;
    }
    td_csv_free(&rec);
    if (f)
        fclose(f);
    return n;
}

static int column(char rows[][16][128], const char *name)
{
    for (int i = 0; i < 16; i++)
        if (strcmp(rows[0][i], name) == 0)
            return i;
    return -1;
}

static void test_source_default_node(void)
{
    CHECK(run("%s source pcs.json bench_l1_bound", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "Kernel #8: bench_l1_bound(Sink"));
    CHECK(td_shell_file_has(dir, "out.txt", "2000 PC samples (sampling period 2^9 cycles)"));
    CHECK(td_shell_file_has(dir, "out.txt", "sorted by Backend.Memory_Bound.L1_Bound (the "
                            "kernel's bottleneck, 96.9% of issue slots): 700 samples (35.0%)"));
    CHECK(td_shell_file_has(dir, "out.txt", "4 PCs without line information"));
    /* L1_Bound's samples first, then by samples: 0x100, 0x200, 0x300, 0x400 */
    CHECK(td_shell_file_has(dir, "out.txt",
                            "     1   32.5%     85.7%  pc+0x100                      L1_Bound 92%, Retire 8%\n"
                            "     2   20.0%     14.3%  pc+0x200                      Dependency_Wait 75%, L1_Bound 25%\n"
                            "     3   45.0%      0.0%  pc+0x300                      Retire 100%\n"
                            "     4    2.5%      0.0%  pc+0x400                      mystery 60%, not_selected 40%\n"));
}

static void test_source_node_and_top(void)
{
    CHECK(run("%s source pcs.json '^bench_l1_bound$' -n 1", bin) == 0); /* kmatch's rules */
    CHECK(td_shell_file_has(dir, "out.txt", "Kernel #8: bench_l1_bound("));
    CHECK(run("%s source pcs.json '#8' --node Retire -n 2", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "sorted by Retire (2.3% of issue slots): 950 samples (47.5%)"));
    CHECK(td_shell_file_has(dir, "out.txt", "     1   45.0%     94.7%  pc+0x300"));
    CHECK(td_shell_file_has(dir, "out.txt", "     2   32.5%      5.3%  pc+0x100"));
    CHECK(td_shell_file_has(dir, "out.txt", "(2 more lines: -n 0 lists all)"));
    /* a node no sample falls in: said, and the order is by samples */
    CHECK(run("%s source pcs.json bench_l1_bound --node Divergence -n 1", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "no PC sample falls in Divergence"));
    CHECK(td_shell_file_has(dir, "out.txt", "     1   45.0%      0.0%  pc+0x300"));
    /* a level-2 node adds its leaves: Backend = L1_Bound + Dependency_Wait */
    CHECK(run("%s source pcs.json bench_l1_bound --node Backend --sass", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "sorted by Backend (97.7% of issue slots): 1000 samples (50.0%)"));
    CHECK(td_shell_file_has(dir, "out.txt", "     2   20.0%     40.0%  pc+0x200"));
    CHECK(td_shell_file_has(dir, "out.txt", "instruction"));
    /* the other kernel: its own bottleneck */
    CHECK(run("%s source pcs.json bench_dependency", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "sorted by Backend.Core_Bound.Dependency_Wait (the "
                            "kernel's bottleneck, 74.1% of issue slots): 77 samples (100.0%)"));
}

static void test_source_csv(void)
{
    static char rows[8][16][128];
    CHECK(run("%s source pcs.json bench_l1_bound --csv pcs.csv", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "pc+0x100")); /* the text too */
    size_t n = read_csv("pcs.csv", rows, 8);
    CHECK(n == 5);
    int loc = column(rows, "location"), samples = column(rows, "samples");
    int share = column(rows, "share_pct"), node = column(rows, "node");
    int node_samples = column(rows, "node_samples"), l1 = column(rows, "L1_Bound");
    int retire = column(rows, "Retire"), pc = column(rows, "pc"), line = column(rows, "line");
    CHECK(loc >= 0 && samples >= 0 && share >= 0 && node >= 0 && node_samples >= 0 &&
          l1 >= 0 && retire >= 0 && pc >= 0 && line >= 0);
    if (n == 5 && loc >= 0 && samples >= 0 && share >= 0 && node >= 0 && node_samples >= 0 &&
        l1 >= 0 && retire >= 0 && pc >= 0 && line >= 0) {
        CHECK_STR(rows[1][loc], "pc+0x100");
        CHECK_STR(rows[1][pc], "0x100");
        CHECK_STR(rows[1][line], "0");
        CHECK_STR(rows[1][samples], "650");
        CHECK_STR(rows[1][share], "32.50");
        CHECK_STR(rows[1][node], "Backend.Memory_Bound.L1_Bound");
        CHECK_STR(rows[1][node_samples], "600");
        CHECK_STR(rows[1][l1], "600");
        CHECK_STR(rows[1][retire], "50");
        CHECK_STR(rows[3][loc], "pc+0x300");
        CHECK_STR(rows[3][retire], "900");
        long total = 0;
        for (size_t r = 1; r < n; r++)
            total += strtol(rows[r][samples], NULL, 10);
        CHECK(total == 2000);
    }
    /* - is stdout, and then no text */
    CHECK(run("%s source pcs.json bench_l1_bound --csv - -n 1", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "rank,location,file,line,pc,samples"));
    n = read_csv("out.txt", rows, 8);
    CHECK(n == 2);
}

static void test_source_errors(void)
{
    CHECK(run("%s source pcs.json no_such_kernel", bin) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "no kernel matches 'no_such_kernel' (of 10;"));
    CHECK(run("%s source pcs.json bench", bin) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "matches 10 kernels"));
    CHECK(run("%s source pcs.json '#11'", bin) == TD_EXIT_USAGE);
    CHECK(run("%s source pcs.json bench_l1_bound --node Nope", bin) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "--node Nope is not a node of the model"));
    CHECK(run("%s source pcs.json bench_l1_bound --node Backend.Memory_Bound.L1_Bound.long_scoreboard",
              bin) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "level 1 to 3"));
    CHECK(run("%s source pcs.json", bin) == TD_EXIT_USAGE);
    CHECK(run("%s source pcs.json bench_l1_bound -l 3", bin) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "option -l/--level does not apply to `topdown source`"));
    /* a kernel without samples, and a result without any */
    CHECK(run("%s source pcs.json bench_retire", bin) == TD_EXIT_FAILURE);
    CHECK(td_shell_file_has(dir, "err.txt", "no PC samples of kernel #4"));
    CHECK(run("%s source %s '#1'", bin, bench) == TD_EXIT_FAILURE);
    CHECK(td_shell_file_has(dir, "err.txt", "holds no PC samples: profile with --source"));
    /* one line each */
    CHECK(run("%s source pcs.json no_such_kernel 2>&1 | wc -l | grep -qx 1", bin) == 0);
    /* --source and --pc-sampling-period are profiling options */
    CHECK(run("%s --pc-sampling-period 4 -- true", bin) == TD_EXIT_USAGE);
    CHECK(td_shell_file_has(dir, "err.txt", "--pc-sampling-period needs an integer from 5 to 31"));
    CHECK(run("%s report pcs.json --source", bin) == TD_EXIT_USAGE);
    /* a bad regex is a usage error, as for report -k */
    CHECK(run("%s source pcs.json 'bench_(l1'", bin) == TD_EXIT_USAGE);
    /* profiling with --source where nothing launches a kernel: nothing
     * measured (3), no result, no cubin folder */
    CHECK(run("%s --source --pc-sampling-period 9 -o none.json -- true", bin) ==
          TD_EXIT_NOTHING_MEASURED);
    CHECK(run("test ! -e none.json && test ! -e none.json.cubins") == 0);
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    const char *src = getenv("TOPDOWN_REPO_DIR");
    if (!bin || !src || !mkdtemp(dir)) {
        fprintf(stderr, "needs TOPDOWN_BIN, TOPDOWN_REPO_DIR and a temp folder\n");
        return 1;
    }
    snprintf(bench, sizeof bench, "%s/benchmarks/results/h100_td_bench.topdown.json", src);
    test_arch_maps();
    test_short_reason();
    test_sass_parse();
    test_spool();
    test_result_refuses();
    make_result();
    test_source_default_node();
    test_source_node_and_top();
    test_source_csv();
    test_source_errors();
    if (!getenv("TD_KEEP_TEST_DIR"))
        td_shell_remove_dir(dir);
    return td_check_summary();
}
