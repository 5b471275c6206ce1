/* Issue 41 item 10: topdown trace on the bundled recordings, parsed back
 * with cJSON: unmeasured shares are null and grey, not 0 and green. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"
#include "topdown/cli.h"

static const char *bin, *src;
static char dir[] = "/tmp/td_traceXXXXXX";

#define run(...) td_shell_run(dir, __VA_ARGS__)

/* The first complete event named name, NULL when none. */
static const cJSON *event_named(const cJSON *root, const char *name)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "traceEvents"))
        if (strcmp(td_shell_json_str(e, "ph"), "X") == 0 &&
            strcmp(td_shell_json_str(e, "name"), name) == 0)
            return e;
    return NULL;
}

/* td_devheap's heap_init ran once: its level 1 is measured but for the
 * stall split (Frontend, Backend n/m in the report). */
static void test_unmeasured_is_null(void)
{
    CHECK(run("%s trace '%s/benchmarks/results/time_sampled_h200_2026-11-29/"
              "td_devheap.default.json.xz' -o heap.json", bin, src) == 0);
    cJSON *root = td_shell_read_json(dir, "heap.json");
    const cJSON *init = event_named(root, "heap_init");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(init, "args");
    CHECK(init != NULL);
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(args, "Frontend")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(args, "Backend")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(args, "bottleneck")));
    CHECK(td_shell_json_num(args, "Retire") > 0);
    CHECK_STR(td_shell_json_str(init, "cname"), "grey");
    /* a kernel measured whole keeps its numbers and colour */
    const cJSON *sum = event_named(root, "plain_sum");
    CHECK(td_shell_json_num(cJSON_GetObjectItemCaseSensitive(sum, "args"), "Backend") > 50);
    CHECK_STR(td_shell_json_str(sum, "cname"), "terrible");
    cJSON_Delete(root);
}

int main(void)
{
    if (td_shell_start(dir, &bin, &src) != 0)
        return 1;
    test_unmeasured_is_null();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
