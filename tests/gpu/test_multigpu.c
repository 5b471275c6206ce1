/* One process, two GPUs (issue 14 item 2): topdown runs td_peer
 * (tests/gpu/apps) on devices 0 and 1. The result must hold a device
 * section per GPU, each profiled (its own Range Profiler session) with its
 * kernels, the report a tree per device beside the application's, the
 * copies with their bytes and directions (HtoD and memset on each GPU, a
 * peer copy each way, a DtoH), the app's output and exit code passed
 * through, and a trace with the peer copies on their devices' tracks.
 * Skipped (77) with fewer than two GPUs or without td_peer. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"
#include "metrics/result/result.h"
#include "td_gpu.h"

static const char *bin;
static char app[4096];
static char dir[] = "/tmp/td_multigpuXXXXXX";

#define BYTES 8388608.0 /* td_peer's default --bytes */
#define REPS 3

#define run(...) td_shell_run(dir, __VA_ARGS__)

static size_t count_profiled(const td_device *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_launches; i++)
        n += d->launches[i].profiled != 0;
    return n;
}

/* Copies of the app's buffers (BYTES each) of this kind and direction;
 * the driver's own small copies, if any, are not counted. */
static size_t count_copies(const td_device *d, int kind, int direction, int src, int dst)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_copies; i++) {
        const td_copy *c = &d->copies[i];
        if (c->bytes != (uint64_t)BYTES || c->kind != kind ||
            (direction >= 0 && c->direction != direction) ||
            (src >= -1 && (c->src_device != src || c->dst_device != dst)))
            continue;
        CHECK(c->duration_ns > 0 && c->start_ns > 0);
        double gbps = (double)c->bytes / c->duration_ns;
        CHECK(gbps > 0.1 && gbps < 20000); /* a real bandwidth, GB/s */
        n++;
    }
    return n;
}

static void check_sections(const td_result *res)
{
    CHECK(res->n_devices == 2);
    if (res->n_devices != 2)
        return;
    CHECK(res->devices[0].index != res->devices[1].index);
    CHECK(res->devices[0].context != res->devices[1].context);
    size_t peer_01 = 0, peer_10 = 0, dtoh = 0;
    for (size_t s = 0; s < 2; s++) {
        const td_device *d = &res->devices[s];
        printf("section %zu: GPU %d, context %u, %zu launches (%zu profiled), %zu copies\n",
               s, d->index, d->context, d->n_launches, count_profiled(d), d->n_copies);
        for (size_t i = 0; i < d->n_copies; i++)
            printf("  copy %s %s %llu bytes, %d -> %d, %.0f ns\n",
                   td_copy_kind_name(d->copies[i].kind),
                   td_copy_direction_name(d->copies[i].direction),
                   (unsigned long long)d->copies[i].bytes, d->copies[i].src_device,
                   d->copies[i].dst_device, d->copies[i].duration_ns);
        CHECK(d->n_launches == 2 * REPS);
        CHECK(d->passes > 0 && d->n_metrics > 0);
        CHECK(count_profiled(d) > 0); /* its own profiler session */
        CHECK(count_copies(d, TD_COPY_MEMCPY, 1, -1, d->index) == 1); /* HtoD */
        CHECK(count_copies(d, TD_COPY_MEMSET, -1, -2, 0) == 1);
        peer_01 += count_copies(d, TD_COPY_PEER, TD_COPY_DIR_PTOP, 0, 1);
        peer_10 += count_copies(d, TD_COPY_PEER, TD_COPY_DIR_PTOP, 1, 0);
        dtoh += count_copies(d, TD_COPY_MEMCPY, 2, 0, -1);
    }
    CHECK(peer_01 == 1 && peer_10 == 1 && dtoh == 1);
}

static void test_two_gpus(void)
{
    CHECK(run("%s -o peer.json -- %s --exit 5", bin, app) == 5);
    CHECK(td_shell_file_has(dir, "out.txt", "td_peer: 2 devices, 12 kernel launches, 7 copies, "
                            "check ok"));
    CHECK(td_shell_file_has(dir, "out.txt", "\nApplication: "));
    td_result res;
    if (td_shell_load_result(dir, "peer.json", &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK(res.exit_code == 5);
    check_sections(&res);
    td_result_free(&res);
    /* a tree per device, after the whole application's */
    /* sh -c: run() sends the command's own stdout to out.txt */
    CHECK(run("sh -c '%s report peer.json -l 2 > report.txt'", bin) == 0);
    CHECK(td_shell_file_has(dir, "report.txt", "Copies:   "));
    CHECK(td_shell_file_has(dir, "report.txt", "\nDevice 1/2: GPU "));
    CHECK(td_shell_file_has(dir, "report.txt", "\nDevice 2/2: GPU "));
    CHECK(run("awk '/^Device 2\\/2/{d=1} d && /Retire/{print; exit}' report.txt | grep -q Retire "
              "&& awk '/^Device 1\\/2/{d=1} /^Device 2\\/2/{exit} d && /Retire/{print; exit}' "
              "report.txt | grep -q Retire") == 0);
    /* the trace: the peer copies on their devices' tracks */
    CHECK(run("%s trace peer.json -o trace.json", bin) == 0);
    char path[4300];
    snprintf(path, sizeof path, "%s/trace.json", dir);
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long size = 0;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0) {
        rewind(f);
        text = calloc((size_t)size + 1, 1);
        if (text && fread(text, 1, (size_t)size, f) != (size_t)size)
            text[0] = '\0';
    }
    if (f)
        fclose(f);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    size_t peers = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "traceEvents")) {
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        const cJSON *bw = cJSON_GetObjectItemCaseSensitive(args, "bandwidth_GBps");
        const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(args, "bytes");
        if (cJSON_IsString(cat) && strcmp(cat->valuestring, "peer") == 0) {
            peers += cJSON_IsNumber(bytes) && bytes->valuedouble >= BYTES;
            CHECK(cJSON_IsNumber(bw) && bw->valuedouble > 0);
        }
    }
    CHECK(peers == 2);
    cJSON_Delete(root);
}

/* GPUs nvidia-smi lists (no libcuda in this test: it must load, and
 * skip, where there is no driver). */
static int gpus_present(void)
{
    FILE *p = popen("nvidia-smi -L 2>/dev/null", "r");
    if (!p)
        return 0;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, p))
        n += strncmp(line, "GPU ", 4) == 0;
    pclose(p);
    return n;
}

int main(void)
{
    if (gpus_present() < 2) {
        printf("skipped: fewer than two GPUs\n");
        return TD_GPU_SKIP;
    }
    bin = getenv("TOPDOWN_BIN");
    if (!bin || !td_gpu_program(app, sizeof app, "tests/gpu/td_peer"))
        return TD_GPU_SKIP;
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_two_gpus();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
