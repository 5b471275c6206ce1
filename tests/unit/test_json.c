/* `topdown report FILE --json`: the modelled tree parses back with cJSON
 * and holds, for the application and every kernel, exactly the nodes the
 * model resolved (tree order, path, level, kind), their values, which are
 * over threshold and the one bottleneck, as td_summarize computes them. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "levels/aggregate.h"
#include "levels/spread.h"
#include "report/json.h"
#include "td_testlib.h"

static char *run_json(const char *dir, const char *file, int level)
{
    char cmd[2048], out[512];
    snprintf(out, sizeof out, "%s/tree.json", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' report %s -l %d --json >'%s'",
             getenv("TOPDOWN_REPO_DIR"), getenv("TOPDOWN_BIN"), file, level, out);
    CHECK(system(cmd) == 0);
    FILE *f = fopen(out, "r");
    if (!f)
        return NULL;
    static char text[1 << 21];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

/* The nodes a view should list: measured, present, down to level, pre-order. */
static void expected_nodes(const td_model *m, const td_breakdown *b, int node, int level,
                           int *out, int *n)
{
    const td_tree_node *t = &m->tree[node];
    if (t->level > level || !t->measured || !td_node_present(m, b, node))
        return;
    out[(*n)++] = node;
    for (int c = td_model_next_child(m, node, -1); c >= 0; c = td_model_next_child(m, node, c))
        expected_nodes(m, b, c, level, out, n);
}

static void check_view(const cJSON *view, const td_model *m, const td_breakdown *b,
                       const td_verdict *v, int has_data, int level)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(view, "nodes");
    CHECK(cJSON_IsArray(nodes));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(view, "has_data")) == has_data);
    int want[TD_TREE_MAX], n_want = 0;
    for (int n = td_model_next_child(m, -1, -1); has_data && n >= 0; n = td_model_next_child(m, -1, n))
        expected_nodes(m, b, n, level, want, &n_want);
    CHECK(cJSON_GetArraySize(nodes) == n_want);
    double level1 = 0;
    int flagged = 0, i = 0, all_known = 1;
    const cJSON *node;
    cJSON_ArrayForEach(node, nodes) {
        if (i >= n_want)
            break;
        const td_tree_node *t = &m->tree[want[i]];
        const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(node, "path"));
        CHECK_STR(path, t->path);
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(node, "level")) == t->level);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(node, "kind")),
                  td_kind_name(t->kind));
        const cJSON *value = cJSON_GetObjectItemCaseSensitive(node, "pct_slots");
        double pct = cJSON_GetNumberValue(value);
        double lo = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(node, "lo"));
        double hi = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(node, "hi"));
        int not_known = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(node, "not_known"));
        CHECK(not_known == (td_node_measured(m, b, want[i]) && !td_node_known(m, b, want[i])));
        if (td_node_known(m, b, want[i])) { /* its value inside its interval, inside 0..100 */
            CHECK_NEAR(pct, 100.0 * b->value[want[i]], 1e-9);
            CHECK(0 <= lo && lo <= pct + 1e-9 && pct <= hi + 1e-9 && hi <= 100);
            CHECK(hi - lo <= 100.0 * TD_SPREAD_KNOWN_MAX + 1e-9);
        } else { /* no number: n/m, or n/k with its wide interval */
            CHECK(cJSON_IsNull(value));
            CHECK(!not_known || hi - lo > 100.0 * TD_SPREAD_KNOWN_MAX);
            all_known &= t->level != 1;
        }
        CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(node, "over_threshold")) ==
              v->over[want[i]]);
        int is_bottleneck = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(node, "bottleneck"));
        CHECK(is_bottleneck == td_verdict_names_node(v, level, want[i]));
        flagged += is_bottleneck;
        if (t->level == 1 && !isnan(pct))
            level1 += pct;
        i++;
    }
    CHECK(flagged == (has_data ? (v->bottleneck[level] >= 0) + (v->runner_up[level] >= 0) : 0));
    const cJSON *bottleneck = cJSON_GetObjectItemCaseSensitive(view, "bottleneck");
    char names[420];
    if (has_data && v->bottleneck[level] >= 0)
        CHECK_STR(cJSON_GetStringValue(bottleneck), td_verdict_names(m, v, level, names,
                                                                     sizeof names));
    else
        CHECK(cJSON_IsNull(bottleneck));
    if (has_data && all_known)
        CHECK_NEAR(level1 + cJSON_GetNumberValue(
                                cJSON_GetObjectItemCaseSensitive(view, "unattributed_pct")),
                   100.0, 1e-6);
}

static void check_file(const char *dir, const char *file, const td_arch_set *archs)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", getenv("TOPDOWN_REPO_DIR"), file);
    td_result res;
    td_summary s;
    td_error err;
    if (td_result_load(path, &res, &err) || td_summarize(&res, archs, NULL, &s, &err)) {
        fprintf(stderr, "%s: %s\n", file, err.msg);
        CHECK(0);
        return;
    }
    for (int level = 1; level <= TD_MAX_LEVEL; level++) {
        cJSON *root = cJSON_Parse(run_json(dir, file, level));
        CHECK(root != NULL);
        if (!root)
            continue;
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "schema")),
                  TD_TREE_SCHEMA);
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(root, "level")) == level);
        const cJSON *app = cJSON_GetObjectItemCaseSensitive(root, "application");
        check_view(app, td_summary_model(&s), &s.app, &s.app_verdict, s.app_has_data, level);
        const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(root, "kernels");
        CHECK(cJSON_GetArraySize(kernels) == (int)s.n_kernels);
        size_t k = 0;
        const cJSON *kernel;
        cJSON_ArrayForEach(kernel, kernels) {
            if (k >= s.n_kernels)
                break;
            const td_kernel_summary *ks = &s.kernels[k++];
            CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(kernel, "name")),
                      ks->name);
            check_view(kernel, &s.models[ks->model], &ks->mean, &ks->verdict, ks->has_data,
                       level);
        }
        cJSON_Delete(root);
    }
    td_summary_free(&s);
    td_result_free(&res);
}

/* At level 4 the stall reasons are nodes like any other: their path is
 * their node's path and the reason, their kind "stall". */
static void check_stall_nodes(const char *dir)
{
    cJSON *root = cJSON_Parse(run_json(dir, "tests/fixtures/h100/td_bench.topdown.json", 4));
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "application"), "nodes");
    int stalls = 0;
    const cJSON *node;
    cJSON_ArrayForEach(node, nodes) {
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(node, "kind"));
        const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(node, "path"));
        if (kind && strcmp(kind, "stall") == 0) {
            stalls++;
            CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(node, "level")) == 4);
            CHECK(path && (strncmp(path, "Backend.", 8) == 0 || strncmp(path, "Frontend.", 9) == 0));
        }
    }
    CHECK(stalls >= 15); /* gh100 lists 17 stall reasons */
    cJSON_Delete(root);
}

int main(void)
{
    if (!getenv("TOPDOWN_REPO_DIR") || !getenv("TOPDOWN_BIN")) {
        fprintf(stderr, "TOPDOWN_REPO_DIR and TOPDOWN_BIN must be set (ctest sets them)\n");
        return 2;
    }
    char dir[256], archs_dir[1024];
    td_test_tmpdir(dir, sizeof dir);
    snprintf(archs_dir, sizeof archs_dir, "%s/archs", getenv("TOPDOWN_REPO_DIR"));
    td_arch_set archs;
    td_error err;
    CHECK(td_arch_load_dir(archs_dir, &archs, &err) == 0);
    static const char *const files[] = {
        "benchmarks/results/h100_td_bench.topdown.json",
        "tests/fixtures/h100/td_smoke.topdown.json",
        "tests/fixtures/outputs/p100_synthetic.topdown.json", /* legacy: stalls at level 3 */
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        check_file(dir, files[i], &archs);
    check_stall_nodes(dir);
    td_arch_set_free(&archs);
    td_test_cleanup(dir);
    return td_check_summary();
}
