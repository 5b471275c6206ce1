/* Level 5 and speed of light (levels/memory.h) from an arch table's
 * "memory" section: the loader's checks, the source nodes under the split
 * stall reason, the split by sectors x latency from the launches that
 * measured them, the throughput against the peak, and a result without
 * the section's counters modelled as before (no level 5, no throughput). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "levels/aggregate.h"
#include "metrics/strcopy.h"

#define ARCH_HEAD                                                                            \
    "{\"schema\": \"topdown-arch/1\", \"name\": \"memtest\", \"family\": \"Test\","          \
    " \"compute_capabilities\": [\"9.7\"], \"chips\": [\"MEM1\"], \"ipc_max\": 4,"           \
    " \"source\": \"range_profiler\","                                                       \
    " \"counters\": {\"inst_executed\": \"inst\", \"inst_issued\": \"issued\","              \
    "  \"thread_inst_executed\": \"threads\", \"cycles_active\": \"cycles\","                \
    "  \"duration_ns\": \"duration\"},"                                                      \
    " \"stalls\": ["                                                                         \
    "  {\"reason\": \"long_scoreboard\", \"metric\": \"s.longsb\", \"node\": \"Backend.Memory_Bound.L1_Bound\"}," \
    "  {\"reason\": \"wait\", \"metric\": \"s.wait\", \"node\": \"Backend.Core_Bound.Dependency_Wait\"}],"

/* L1 hits 10 cycles, L2 100, DRAM (bytes, 32 a sector) 500; DRAM
 * throughput from bytes over peak x cycles. */
#define MEMORY_SECTION(split, dram_group_metric)                                             \
    " \"memory\": {\"split\": \"" split "\", \"latency_source\": \"made up\","                \
    "  \"sources\": [{\"name\": \"L1_Hit\", \"metric\": \"l1hit\", \"latency_cycles\": 10},"  \
    "   {\"name\": \"L2_Hit\", \"metric\": \"l2hit\", \"latency_cycles\": 100},"              \
    "   {\"name\": \"DRAM\", \"metric\": \"dramrd\", \"per_sector\": 32, \"latency_cycles\": 500}]," \
    "  \"throughput\": [{\"unit\": \"DRAM\", \"work\": [\"dramrd\", \"dramwr\"],"             \
    "   \"peak\": \"drampeak\", \"cycles\": \"dramcyc\"}]},"                                  \
    " \"groups\": [[\"inst\", \"issued\", \"threads\", \"cycles\", \"duration\", \"s.wait\"],"  \
    "  [\"cycles\", \"duration\", \"s.longsb\", \"l1hit\", \"l2hit\", \"" dram_group_metric "\"," \
    "   \"dramwr\", \"drampeak\", \"dramcyc\"]]}"

static const char arch_json[] = ARCH_HEAD MEMORY_SECTION("long_scoreboard", "dramrd");

enum { M_INST, M_ISSUED, M_THREADS, M_CYCLES, M_DURATION, M_LONGSB, M_WAIT, M_L1HIT, M_L2HIT,
       M_DRAMRD, M_DRAMWR, M_DRAMPEAK, M_DRAMCYC, M_COUNT };
static const char *const metric_names[M_COUNT] = {
    "inst", "issued", "threads", "cycles", "duration", "s.longsb", "s.wait",
    "l1hit", "l2hit", "dramrd", "dramwr", "drampeak", "dramcyc"};
static const size_t group0[] = {M_INST, M_ISSUED, M_THREADS, M_CYCLES, M_DURATION, M_WAIT};
static const size_t group1[] = {M_CYCLES, M_DURATION, M_LONGSB, M_L1HIT, M_L2HIT,
                                M_DRAMRD, M_DRAMWR, M_DRAMPEAK, M_DRAMCYC};
static const td_counter_group groups[2] = {{(size_t *)group0, 6}, {(size_t *)group1, 9}};

static int load(const char *text, td_arch *arch, td_error *err)
{
    return td_arch_parse(text, strlen(text), "memtest.json", arch, err);
}

/* A launch of kernel k with counters c, measured by group. */
static void add_launch(td_device *dev, int group, const double *c)
{
    td_error err;
    td_launch *l = td_device_add_launch(dev, "k", c, &err);
    l->id = dev->n_launches - 1;
    l->group = group;
    l->duration_ns = 5000;
    l->grid[0] = l->grid[1] = l->grid[2] = 1;
    l->block[0] = 128, l->block[1] = l->block[2] = 1;
}

/* A device section of the memtest table recording n_metrics of names. */
static td_device *new_device_named(td_result *res, const char *const *names, size_t n_metrics)
{
    td_error err;
    memset(res, 0, sizeof *res);
    td_device *dev = td_result_add_device(res, &err);
    dev->arch = td_strdup("memtest");
    dev->name = td_strdup("NVIDIA Sim");
    dev->chip = td_strdup("MEM1");
    CHECK(td_device_set_metrics(dev, names, n_metrics, &err) == 0);
    return dev;
}

static td_device *new_device(td_result *res, size_t n_metrics)
{
    return new_device_named(res, metric_names, n_metrics);
}

/* Writes json as memtest.json in a new folder from the template dir and
 * loads the folder. */
static int load_as_memtest(char *dir, const char *json, td_arch_set *archs)
{
    td_error err;
    char path[600];
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/memtest.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(json, f);
    fclose(f);
    return td_arch_load_dir(dir, archs, &err);
}

static void remove_memtest(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/memtest.json", dir);
    remove(path);
    rmdir(dir);
}

/* A table that breaks one rule is refused, naming it. */
static void refused(const char *text, const char *says)
{
    td_arch arch;
    td_error err = {{0}};
    CHECK(load(text, &arch, &err) != 0);
    if (!strstr(err.msg, says))
        fprintf(stderr, "expected \"%s\" in: %s\n", says, err.msg);
    CHECK(strstr(err.msg, says) != NULL);
}

static void test_loader(void)
{
    td_arch arch;
    td_error err;
    CHECK(load(arch_json, &arch, &err) == 0);
    CHECK(arch.memory.n_sources == 3 && arch.memory.n_units == 1);
    CHECK(strcmp(arch.memory.split, "long_scoreboard") == 0);
    CHECK(arch.memory.sources[2].per_sector == 32 && arch.memory.sources[0].per_sector == 1);
    /* the full set holds the section's metrics once each, after the stalls */
    const char *names[32];
    size_t n = td_arch_metrics(&arch, names, 32);
    CHECK(n == M_COUNT);
    CHECK(n == M_COUNT && strcmp(names[n - 1], "dramcyc") == 0);
    td_arch_free(&arch);
    refused(ARCH_HEAD MEMORY_SECTION("barrier", "dramrd"), "not a stall reason");
    /* DRAM reads moved out of the split's group */
    static const char moved[] = ARCH_HEAD
        " \"memory\": {\"split\": \"long_scoreboard\","
        "  \"sources\": [{\"name\": \"L1_Hit\", \"metric\": \"l1hit\", \"latency_cycles\": 10},"
        "   {\"name\": \"DRAM\", \"metric\": \"dramrd\", \"latency_cycles\": 500}]},"
        " \"groups\": [[\"inst\", \"issued\", \"threads\", \"cycles\", \"duration\", \"s.wait\", \"dramrd\"],"
        "  [\"cycles\", \"duration\", \"s.longsb\", \"l1hit\"]]}";
    refused(moved, "must be in every group of s.longsb");
    static const char one[] = ARCH_HEAD
        " \"memory\": {\"split\": \"long_scoreboard\","
        "  \"sources\": [{\"name\": \"L1_Hit\", \"metric\": \"l1hit\", \"latency_cycles\": 10}]}}";
    refused(one, "splits long_scoreboard by one source (L1_Hit)");
    static const char twice[] = ARCH_HEAD
        " \"memory\": {\"split\": \"long_scoreboard\","
        "  \"sources\": [{\"name\": \"L1_Hit\", \"metric\": \"l1hit\", \"latency_cycles\": 10},"
        "   {\"name\": \"L1_Hit\", \"metric\": \"l2hit\", \"latency_cycles\": 50}]}}";
    refused(twice, "names source L1_Hit of long_scoreboard twice");
    static const char no_latency[] = ARCH_HEAD
        " \"memory\": {\"split\": \"long_scoreboard\","
        "  \"sources\": [{\"name\": \"L1_Hit\", \"metric\": \"l1hit\"},"
        "   {\"name\": \"L2_Hit\", \"metric\": \"l2hit\", \"latency_cycles\": 50}]}}";
    refused(no_latency, "latency_cycles");
    static const char own_split_unknown[] = ARCH_HEAD
        " \"memory\": {\"split\": \"long_scoreboard\","
        "  \"sources\": [{\"name\": \"L1_Hit\", \"metric\": \"l1hit\", \"latency_cycles\": 10},"
        "   {\"name\": \"L2_Hit\", \"metric\": \"l2hit\", \"latency_cycles\": 50},"
        "   {\"name\": \"A\", \"split\": \"barrier\", \"metric\": \"xa\", \"latency_cycles\": 1},"
        "   {\"name\": \"B\", \"split\": \"barrier\", \"metric\": \"xb\", \"latency_cycles\": 1}]}}";
    refused(own_split_unknown, "splits \"barrier\", which is not a stall reason");
}

/* A second split, of the wait reason (as gh100 splits the MIO's stalls
 * besides long_scoreboard): its sources sit under wait, share it among
 * themselves, and come from the group that measured wait; a result
 * recorded without the second split's counters keeps the first. */
static const char two_splits_json[] = ARCH_HEAD
    " \"memory\": {\"split\": \"long_scoreboard\","
    "  \"sources\": [{\"name\": \"L1_Hit\", \"metric\": \"l1hit\", \"latency_cycles\": 10},"
    "   {\"name\": \"L2_Hit\", \"metric\": \"l2hit\", \"latency_cycles\": 100},"
    "   {\"name\": \"Shared\", \"split\": \"wait\", \"metric\": \"xa\", \"latency_cycles\": 1},"
    "   {\"name\": \"XU\", \"split\": \"wait\", \"metric\": \"xb\", \"latency_cycles\": 4}]},"
    " \"groups\": [[\"inst\", \"issued\", \"threads\", \"cycles\", \"duration\", \"s.wait\", \"xa\", \"xb\"],"
    "  [\"cycles\", \"duration\", \"s.longsb\", \"l1hit\", \"l2hit\"]]}";

enum { T_INST, T_ISSUED, T_THREADS, T_CYCLES, T_DURATION, T_LONGSB, T_WAIT, T_L1HIT, T_L2HIT,
       T_XA, T_XB, T_COUNT };

/* Summarises three launches of each group of two_splits_json, on a
 * device that recorded n_metrics of the T_ list. */
static int summarize_two(const td_arch_set *archs, size_t n_metrics, td_result *res,
                         td_summary *s)
{
    static const char *const names[T_COUNT] = {"inst", "issued", "threads", "cycles", "duration",
                                               "s.longsb", "s.wait", "l1hit", "l2hit", "xa",
                                               "xb"};
    static const size_t g0[] = {T_INST, T_ISSUED, T_THREADS, T_CYCLES, T_DURATION, T_WAIT,
                                T_XA, T_XB};
    static const size_t g1[] = {T_CYCLES, T_DURATION, T_LONGSB, T_L1HIT, T_L2HIT};
    const td_counter_group two[2] = {{(size_t *)g0, n_metrics > T_XB ? 8 : 6},
                                     {(size_t *)g1, 5}};
    td_error err;
    td_device *dev = new_device_named(res, names, n_metrics);
    CHECK(td_device_set_groups(dev, two, 2, &err) == 0);
    /* wait: 600 warp-cycles; xa 80 units x 1 cycle, xb 30 x 4: shares 0.4, 0.6 */
    const double c0[T_COUNT] = {2000, 2200, 48000, 1000, 5000, 0, 600, 0, 0, 80, 30};
    /* long_scoreboard: 300; L1 10 x 10, L2 1 x 100: shares 1/2, 1/2 */
    const double c1[T_COUNT] = {0, 0, 0, 1000, 5000, 300, 0, 10, 1, 0, 0};
    for (int i = 0; i < 3; i++) {
        add_launch(dev, 0, c0);
        add_launch(dev, 1, c1);
    }
    return td_summarize(res, archs, NULL, s, &err);
}

static void test_two_splits(void)
{
    char dir[] = "/tmp/td_memory_two_XXXXXX";
    td_arch_set archs;
    CHECK(load_as_memtest(dir, two_splits_json, &archs) == 0);
    remove_memtest(dir);

    td_result res;
    td_summary s;
    CHECK(summarize_two(&archs, T_COUNT, &res, &s) == 0);
    const td_model *m = &s.models[0];
    const td_kernel_summary *k = &s.kernels[0];
    int wait = td_model_stall_index(m, 1), longsb = td_model_stall_index(m, 0);
    int shared = td_model_find(m, "Backend.Core_Bound.Dependency_Wait.wait.Shared");
    int xu = td_model_find(m, "Backend.Core_Bound.Dependency_Wait.wait.XU");
    int l2 = td_model_find(m, "Backend.Memory_Bound.L1_Bound.long_scoreboard.L2_Hit");
    CHECK(shared >= 0 && xu >= 0 && l2 >= 0);
    CHECK(shared >= 0 && m->tree[shared].parent == wait && m->tree[shared].level == 5);
    CHECK(k->mean.sources == 15u);
    CHECK(k->mean.value[wait] > 0 && k->mean.value[longsb] > 0);
    CHECK_NEAR(k->mean.value[shared], 0.4 * k->mean.value[wait], 1e-12);
    CHECK_NEAR(k->mean.value[xu], 0.6 * k->mean.value[wait], 1e-12);
    CHECK_NEAR(k->mean.value[l2], 0.5 * k->mean.value[longsb], 1e-12);
    CHECK(k->mem.split_launches == 6);
    td_summary_free(&s);
    td_result_free(&res);

    /* recorded before the second split's counters: the first split stays */
    CHECK(summarize_two(&archs, T_XA, &res, &s) == 0);
    k = &s.kernels[0];
    CHECK(k->mean.sources == 3u);
    CHECK(td_node_present(m = &s.models[0], &k->mean, l2) && !td_node_present(m, &k->mean, xu));
    CHECK_NEAR(k->mean.value[l2], 0.5 * k->mean.value[longsb], 1e-12);
    td_summary_free(&s);
    td_result_free(&res);
    td_arch_set_free(&archs);
}

static void test_nodes(void)
{
    td_arch arch;
    td_model m;
    td_error err;
    CHECK(load(arch_json, &arch, &err) == 0);
    CHECK(td_model_init(&m, &arch, &err) == 0);
    int dram = td_model_find(&m, "Backend.Memory_Bound.L1_Bound.long_scoreboard.DRAM");
    int longsb = td_model_find(&m, "Backend.Memory_Bound.L1_Bound.long_scoreboard");
    CHECK(dram >= 0 && longsb >= 0);
    CHECK(dram >= 0 && m.tree[dram].parent == longsb && m.tree[dram].level == 5 &&
          m.tree[dram].kind == TD_KIND_SOURCE && m.tree[dram].source == 2);
    CHECK(m.max_level == 5);
    /* the wait reason has no children */
    CHECK(td_model_next_child(&m, td_model_stall_index(&m, 1), -1) < 0);
    td_arch_free(&arch);
}

/* One launch's counters: stalls, and the memory counters given. */
static void add(td_device *dev, int group, double longsb, double l1, double l2, double dram_bytes,
                double dram_wr, double peak, double cycles)
{
    double c[M_COUNT] = {2000, 2200, 48000, 1000, 5000, longsb, 100, l1, l2, dram_bytes,
                         dram_wr, peak, cycles};
    for (size_t i = 0; group >= 0 && i < M_COUNT; i++) {
        int in = 0;
        for (size_t j = 0; j < groups[group].n; j++)
            in |= groups[group].metrics[j] == i;
        if (!in)
            c[i] = 0;
    }
    add_launch(dev, group, c);
}


static void test_split_and_throughput(const td_arch_set *archs)
{
    td_result res;
    td_device *dev = new_device(&res, M_COUNT);
    /* Sectors: L1 100, L2 50, DRAM 320 bytes = 10: weights 1000, 5000,
     * 5000, shares 1/11, 5/11, 5/11. DRAM: (320 + 80) bytes of 2 x 100. */
    add(dev, TD_GROUP_ALL, 300, 100, 50, 320, 80, 2, 100);
    add(dev, TD_GROUP_ALL, 300, 100, 50, 320, 80, 2, 100);
    td_summary s;
    td_error err;
    CHECK(td_summarize(&res, archs, NULL, &s, &err) == 0);
    const td_model *m = &s.models[0];
    const td_kernel_summary *k = &s.kernels[0];
    int longsb = td_model_stall_index(m, 0);
    int l1 = td_model_find(m, "Backend.Memory_Bound.L1_Bound.long_scoreboard.L1_Hit");
    int l2 = td_model_find(m, "Backend.Memory_Bound.L1_Bound.long_scoreboard.L2_Hit");
    int dram = td_model_find(m, "Backend.Memory_Bound.L1_Bound.long_scoreboard.DRAM");
    CHECK(k->mean.sources == 7u && td_node_present(m, &k->mean, dram));
    CHECK(k->mean.value[longsb] > 0);
    CHECK_NEAR(k->mean.value[l1], k->mean.value[longsb] / 11.0, 1e-12);
    CHECK_NEAR(k->mean.value[l2], k->mean.value[longsb] * 5.0 / 11.0, 1e-12);
    CHECK_NEAR(k->mean.value[dram], k->mean.value[longsb] * 5.0 / 11.0, 1e-12);
    /* the stall keeps its value: the sources do not add into it */
    CHECK_NEAR(k->mean.value[l1] + k->mean.value[l2] + k->mean.value[dram],
               k->mean.value[longsb], 1e-12);
    CHECK_NEAR(td_mem_pct(&k->mem, 0), 200.0, 1e-9);
    CHECK_NEAR(s.app_throughput[0], 200.0, 1e-9);
    CHECK(s.app.sources == 7u);
    CHECK_NEAR(s.app.value[dram], k->mean.value[dram], 1e-12);
    /* bottleneck down to level 5: L1_Bound's long_scoreboard, then its DRAM
     * or L2 (tied); never the L1 hits */
    int b5 = td_bottleneck(m, &k->mean, 5);
    CHECK(b5 == dram || b5 == l2);
    td_summary_free(&s);
    td_result_free(&res);
}

/* Counter-group launches: the split comes from the group that measured
 * the sources, the throughput likewise; a launch of the other group adds
 * nothing to either. */
static void test_groups(const td_arch_set *archs)
{
    td_result res;
    td_device *dev = new_device(&res, M_COUNT);
    td_error err;
    CHECK(td_device_set_groups(dev, groups, 2, &err) == 0);
    for (int i = 0; i < 6; i++) {
        add(dev, 0, 300, 999, 999, 999, 999, 999, 999);
        add(dev, 1, 300, 100, 0, 0, 0, 4, 100); /* all from L1 */
    }
    td_summary s;
    CHECK(td_summarize(&res, archs, NULL, &s, &err) == 0);
    const td_model *m = &s.models[0];
    const td_kernel_summary *k = &s.kernels[0];
    int l1 = td_model_find(m, "Backend.Memory_Bound.L1_Bound.long_scoreboard.L1_Hit");
    CHECK(k->mem.split_launches == 6 && k->mem.unit_launches[0] == 6);
    CHECK(k->mean.sources == 7u);
    CHECK_NEAR(k->mean.value[l1], k->mean.value[td_model_stall_index(m, 0)], 1e-12);
    CHECK_NEAR(td_mem_pct(&k->mem, 0), 0.0, 1e-12);
    td_summary_free(&s);
    td_result_free(&res);
}

/* A range that outlasts its kernel (twice its activity duration): the
 * peak counts only while the kernel ran, so the throughput doubles. */
static void test_range_outlasts(const td_arch_set *archs)
{
    td_result res;
    td_device *dev = new_device(&res, M_COUNT);
    td_error err;
    add(dev, TD_GROUP_ALL, 300, 100, 50, 320, 80, 2, 100);
    dev->launches[0].duration_ns = 2500; /* the range: 5000 ns */
    td_summary s;
    CHECK(td_summarize(&res, archs, NULL, &s, &err) == 0);
    CHECK_NEAR(td_mem_pct(&s.kernels[0].mem, 0), 400.0, 1e-9);
    td_summary_free(&s);
    td_result_free(&res);
}

/* The default's layout: kernel replay measures the model's metrics alone
 * (the full set, "full_set": the first 7), the groups the rest. A full
 * launch then says nothing of the memory counters, the file keeps that
 * through a save and a load, and the split comes from the group launches. */
static void test_full_set(const td_arch_set *archs, const char *dir)
{
    td_result res;
    td_device *dev = new_device(&res, M_COUNT);
    td_error err;
    CHECK(td_device_set_groups(dev, groups, 2, &err) == 0);
    dev->n_full = M_L1HIT;
    add(dev, TD_GROUP_ALL, 300, 0, 0, 0, 0, 0, 0); /* replayed: no memory counter */
    for (int i = 0; i < 3; i++)
        add(dev, 1, 300, 0, 10, 0, 0, 4, 100); /* all from L2 */
    CHECK(td_device_full_set(dev) == M_L1HIT);
    CHECK(td_launch_measured(dev, &dev->launches[0], M_LONGSB) &&
          !td_launch_measured(dev, &dev->launches[0], M_L2HIT));
    res.tool_version = td_strdup("test");
    res.created = td_strdup("2026-11-29T00:00:00Z");
    res.status = td_strdup("complete");
    char path[600];
    snprintf(path, sizeof path, "%s/full.topdown.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    td_result_free(&res);
    td_result back;
    CHECK(td_result_load(path, &back, &err) == 0);
    remove(path);
    const td_device *d = &back.devices[0];
    CHECK(d->n_full == M_L1HIT && d->n_launches == 4 && d->launches[0].group == TD_GROUP_ALL);
    CHECK(!td_launch_measured(d, &d->launches[0], M_L2HIT));
    td_summary s;
    CHECK(td_summarize(&back, archs, NULL, &s, &err) == 0);
    const td_model *m = &s.models[0];
    int l2 = td_model_find(m, "Backend.Memory_Bound.L1_Bound.long_scoreboard.L2_Hit");
    CHECK(s.kernels[0].mem.split_launches == 3 && s.kernels[0].mean.sources == 7u);
    CHECK_NEAR(s.kernels[0].mean.value[l2], s.kernels[0].mean.value[td_model_stall_index(m, 0)],
               1e-12);
    td_summary_free(&s);
    td_result_free(&back);
}

/* A result recorded without the section's counters: no level 5, no
 * throughput, the rest as before. */
static void test_without_counters(const td_arch_set *archs)
{
    td_result res;
    td_device *dev = new_device(&res, M_L1HIT); /* inst .. s.wait only */
    td_error err;
    double c[M_L1HIT] = {2000, 2200, 48000, 1000, 5000, 300, 100};
    td_launch *l = td_device_add_launch(dev, "k", c, &err);
    l->group = TD_GROUP_ALL;
    l->duration_ns = 5000;
    td_summary s;
    CHECK(td_summarize(&res, archs, NULL, &s, &err) == 0);
    const td_model *m = &s.models[0];
    const td_kernel_summary *k = &s.kernels[0];
    int dram = td_model_find(m, "Backend.Memory_Bound.L1_Bound.long_scoreboard.DRAM");
    CHECK(k->has_data && k->mean.sources == 0 && !td_node_present(m, &k->mean, dram));
    CHECK(isnan(td_mem_pct(&k->mem, 0)) && isnan(s.app_throughput[0]));
    CHECK(td_bottleneck(m, &k->mean, 5) == td_model_stall_index(m, 0));
    td_summary_free(&s);
    td_result_free(&res);
}

/* A unit measured two ways: its throughput is the higher measure's
 * (ncu's throughput is its busiest sub-unit's); the outputs name it once. */
static void test_unit_measures(void)
{
    static const char two[] = ARCH_HEAD
        " \"memory\": {\"throughput\": ["
        "  {\"unit\": \"L2\", \"work\": [\"l2hit\"], \"peak\": \"drampeak\", \"cycles\": \"dramcyc\"},"
        "  {\"unit\": \"DRAM\", \"work\": [\"dramrd\"], \"peak\": \"drampeak\", \"cycles\": \"dramcyc\"},"
        "  {\"unit\": \"L2\", \"work\": [\"l1hit\"], \"peak\": \"drampeak\", \"cycles\": \"dramcyc\"}]}}";
    td_arch arch;
    td_error err;
    CHECK(load(two, &arch, &err) == 0);
    td_mem_totals t;
    memset(&t, 0, sizeof t);
    double work[3] = {30, 10, 70};
    for (size_t u = 0; u < 3; u++) {
        t.work[u] = work[u];
        t.capacity[u] = 100;
        t.unit_launches[u] = 1;
    }
    CHECK_NEAR(td_mem_unit_pct(&arch.memory, &t, 0), 70.0, 1e-12);
    CHECK_NEAR(td_mem_unit_pct(&arch.memory, &t, 2), 70.0, 1e-12);
    CHECK_NEAR(td_mem_unit_pct(&arch.memory, &t, 1), 10.0, 1e-12);
    CHECK(td_mem_unit_first(&arch.memory, 0) && td_mem_unit_first(&arch.memory, 1) &&
          !td_mem_unit_first(&arch.memory, 2));
    t.unit_launches[2] = 0; /* not measured: the other measure alone */
    CHECK_NEAR(td_mem_unit_pct(&arch.memory, &t, 0), 30.0, 1e-12);
    td_arch_free(&arch);
}

int main(void)
{
    test_unit_measures();
    test_loader();
    test_nodes();
    char dir[] = "/tmp/td_memory_XXXXXX";
    td_arch_set archs;
    CHECK(load_as_memtest(dir, arch_json, &archs) == 0);
    test_split_and_throughput(&archs);
    test_groups(&archs);
    test_range_outlasts(&archs);
    test_without_counters(&archs);
    test_full_set(&archs, dir);
    test_two_splits();
    td_arch_set_free(&archs);
    remove_memtest(dir);
    return td_check_summary();
}
