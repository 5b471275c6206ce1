/* Adding a node touches one record and the arch table, nothing else: a
 * hypothetical leaf Backend.Core_Bound.Uniform is one more record after
 * the built-in ones, and a scratch table maps a stall reason "uniform" to
 * it. With no other change, the model computes it and rolls it up, the
 * bottleneck search reaches it, and the text tree, the CSV, the JSON view
 * and the plot (in the record's colour) all show it. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../check.h"
#include "levels/aggregate.h"
#include "report/csv.h"
#include "report/json.h"
#include "report/plot.h"
#include "report/text.h"
#include "td_testlib.h"

#define UNIFORM_PATH "Backend.Core_Bound.Uniform"
#define UNIFORM_COLOUR "#123456"

/* The test table of td_testlib.h with a fifth reason on the new leaf. */
static const char scratch_arch_json[] =
    "{\"schema\": \"topdown-arch/1\", \"name\": \"scratch\", \"family\": \"Test\","
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
    "  {\"reason\": \"wait\", \"metric\": \"s.wait\", \"node\": \"Backend.Core_Bound.Dependency_Wait\"},"
    "  {\"reason\": \"uniform\", \"metric\": \"s.uniform\", \"node\": \"" UNIFORM_PATH "\"}"
    " ]}";

enum { C_INST, C_ISSUED, C_THREADS, C_CYCLES, C_DURATION, C_NOINST, C_LONGSB, C_LGTHR, C_WAIT,
       C_UNIFORM, C_COUNT };
static const char *const metric_names[C_COUNT] = {
    "smsp__inst_executed.sum", "smsp__inst_issued.sum", "smsp__thread_inst_executed.sum",
    "sm__cycles_active.sum", "gpu__time_duration.sum", "s.no_instruction",
    "s.long_scoreboard", "s.lg_throttle", "s.wait", "s.uniform"};

/* The one record: everything the program knows about the new node. */
static const td_node_info uniform_record = {
    "Uniform", UNIFORM_PATH, TD_N_CORE_BOUND, 3, "BE", 0.10,
    "Waiting on the (hypothetical) uniform datapath.",
    TD_KIND_STALL_SPLIT, NULL, UNIFORM_COLOUR,
    "Stall reason uniform. A test node: the uniform datapath was busy."};

static td_node_info records[1 + TD_NODE_COUNT];
static const td_node_set extended = {records, 1 + TD_NODE_COUNT};

static void make_records(void)
{
    memcpy(records, td_nodes_builtin()->nodes, TD_NODE_COUNT * sizeof *records);
    records[TD_NODE_COUNT] = uniform_record;
}

/* Retire 25%; the unused 75% split 10:20:10:20:140 over the five reasons. */
static void make_result(td_result *res)
{
    td_error err;
    memset(res, 0, sizeof *res);
    td_device *dev = td_result_add_device(res, &err);
    dev->arch = td_strdup("scratch");
    dev->name = td_strdup("NVIDIA Test");
    dev->chip = td_strdup("TEST1");
    CHECK(td_device_set_metrics(dev, metric_names, C_COUNT, &err) == 0);
    const double c[C_COUNT] = {1000, 1000, 32000, 1000, 5000, 10, 20, 10, 20, 140};
    for (int i = 0; i < 2; i++) {
        td_launch *l = td_device_add_launch(dev, "uniform_kernel", c, &err);
        CHECK(l != NULL);
        if (l) {
            l->id = (uint64_t)i;
            l->duration_ns = 5000;
        }
    }
}

static void check_model(const td_summary *s)
{
    const td_model *m = td_summary_model(s);
    int uniform = td_model_find(m, UNIFORM_PATH);
    int core = td_model_find(m, "Backend.Core_Bound");
    int backend = td_model_find(m, "Backend");
    CHECK(uniform == TD_NODE_COUNT);
    CHECK(m->tree[uniform].measured && m->tree[uniform].record == &records[TD_NODE_COUNT]);
    const td_breakdown *b = &s->app;
    CHECK_NEAR(b->value[uniform], 0.75 * 140 / 200, 1e-12);
    CHECK_NEAR(b->value[core], 0.75 * 160 / 200, 1e-12);
    CHECK_NEAR(b->value[backend], 0.75 * 190 / 200, 1e-12);
    /* Every node is the sum of its children. */
    for (int n = 0; n < m->n_tree; n++) {
        double children = 0;
        int any = 0;
        for (int c = td_model_next_child(m, n, -1); c >= 0; c = td_model_next_child(m, n, c)) {
            children += b->value[c];
            any = 1;
        }
        if (any && m->tree[n].measured)
            CHECK_NEAR(children, b->value[n], 1e-12);
    }
    CHECK(s->app_verdict.bottleneck[1] == backend);
    CHECK(s->app_verdict.bottleneck[2] == core);
    CHECK(s->app_verdict.bottleneck[3] == uniform);
    int reason = s->app_verdict.bottleneck[4];
    CHECK(reason >= 0 && strcmp(m->tree[reason].path, UNIFORM_PATH ".uniform") == 0);
}

static const char *render(const char *dir, const char *name, const td_result *res,
                          const td_summary *s, int what)
{
    static char text[1 << 16];
    char path[512];
    td_error err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w+");
    if (!f)
        return "";
    td_report_options o;
    td_report_options_init(&o);
    o.level = 3;
    int rc = what == 0 ? td_report_text(f, res, s, &o, &err)
           : what == 1 ? td_csv_kernels(f, s, 4, &err)
                       : td_report_json(f, s, 3, NULL, NULL, NULL, NULL, &err);
    CHECK(rc == 0);
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void check_outputs(const char *dir, const td_result *res, const td_summary *s)
{
    const char *tree = render(dir, "tree.txt", res, s, 0);
    char line[200];
    snprintf(line, sizeof line, "  BE    %-52s  %% Slots %6.1f  <==\n", UNIFORM_PATH, 52.5);
    CHECK(strstr(tree, line) != NULL);
    CHECK(strstr(tree, uniform_record.desc) != NULL);
    const char *csv = render(dir, "kernels.csv", res, s, 1);
    CHECK(strstr(csv, ",Backend.Core_Bound.Tensor," UNIFORM_PATH "," UNIFORM_PATH ".uniform,") != NULL);
    CHECK(strstr(csv, "," UNIFORM_PATH ".uniform,") != NULL); /* the bottleneck column */
    const char *json = render(dir, "tree.json", res, s, 2);
    CHECK(strstr(json, "\"path\":\t\"" UNIFORM_PATH "\"") != NULL);
    CHECK(strstr(json, "\"bottleneck\":\t\"" UNIFORM_PATH "\"") != NULL);

    td_plot_options o;
    td_plot_options_init(&o);
    char image[512], script[512];
    snprintf(image, sizeof image, "%s/bars.png", dir);
    snprintf(script, sizeof script, "%s/bars.gp", dir);
    o.output = image;
    o.level = 3;
    o.no_run = 1;
    td_error err;
    CHECK(td_plot_bars(s, &o, &err) == 0);
    static char gp[1 << 16];
    FILE *f = fopen(script, "r");
    size_t n = f ? fread(gp, 1, sizeof gp - 1, f) : 0;
    if (f)
        fclose(f);
    gp[n] = '\0';
    CHECK(strstr(gp, "title '" UNIFORM_PATH "' lc rgb '" UNIFORM_COLOUR "'") != NULL);
}

int main(void)
{
    char dir[256], archs_dir[512], path[600];
    td_test_tmpdir(dir, sizeof dir);
    snprintf(archs_dir, sizeof archs_dir, "%s/archs", dir);
    mkdir(archs_dir, 0700);
    td_test_write(archs_dir, "scratch.json", scratch_arch_json, path, sizeof path);
    td_arch_set archs;
    td_error err;
    CHECK(td_arch_load_dir(archs_dir, &archs, &err) == 0);
    make_records();
    td_result res;
    make_result(&res);

    /* Without the record the table does not resolve: the record is the node. */
    td_summary s;
    CHECK(td_summarize(&res, &archs, NULL, &s, &err) == -1);
    CHECK(strstr(err.msg, "unknown node \"" UNIFORM_PATH "\"") != NULL);

    CHECK(td_summarize_nodes(&res, &archs, NULL, &extended, &s, &err) == 0);
    check_model(&s);
    check_outputs(dir, &res, &s);
    td_summary_free(&s);
    td_result_free(&res);
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
