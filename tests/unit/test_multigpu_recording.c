/* The bundled two-H200 recording (benchmarks/results/
 * multigpu_NVIDIA_H200_2026-11-26/, issue 25), read with the built topdown
 * without a GPU: td_peer, one process on two GPUs, gives a result of two
 * H200 sections with a peer copy each way and a report of a tree per
 * device beside the Copies line; the 2-rank DDP loop (rank 1 with a 1.5x
 * batch) merged gives an imbalance report that names the slower rank per
 * kernel, NCCL kernels among them, and a trace in which both ranks have
 * their kernels, NCCL's included, as complete events; td_peer's trace has
 * each peer copy on its stream's track. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"
#include "metrics/result/result.h"

#define BUNDLE "benchmarks/results/multigpu_NVIDIA_H200_2026-11-26"
#define PEER_BYTES 268435456ull /* td_peer --bytes of the recording */

static const char *bin;
static char dir[] = "/tmp/td_mgrecXXXXXX";
static char bundle[2048];

#define run(...) td_shell_run(dir, __VA_ARGS__)

/* Whether text has a level-1 tree (its Retire and Backend lines) between
 * from and the next occurrence of to (or the end). */
static int tree_between(const char *text, const char *from, const char *to)
{
    const char *start = text ? strstr(text, from) : NULL;
    if (!start)
        return 0;
    const char *end = to ? strstr(start + 1, to) : NULL;
    const char *ret = strstr(start, "  RET   Retire ");
    const char *be = strstr(start, "  BE    Backend ");
    return ret && be && (!end || (ret < end && be < end));
}

static size_t peer_copies(const td_device *d, int src, int dst)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_copies; i++) {
        const td_copy *c = &d->copies[i];
        n += c->kind == TD_COPY_PEER && c->direction == TD_COPY_DIR_PTOP &&
             c->src_device == src && c->dst_device == dst && c->bytes == PEER_BYTES &&
             c->duration_ns > 0 && c->start_ns > 0;
    }
    return n;
}

static int load(const char *name, td_result *res)
{
    return td_shell_load_result(bundle, name, res);
}

/* td_peer's result: two sections, H200s, GPUs 0 and 1 in their own
 * contexts, each with its peer copy out. */
static void test_peer_result(void)
{
    td_result res;
    if (load("td_peer.json.xz", &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK(res.n_devices == 2);
    for (size_t s = 0; s < res.n_devices && s < 2; s++) {
        const td_device *d = &res.devices[s];
        CHECK(d->name && strstr(d->name, "H200"));
        CHECK(d->index == (int)s);
        CHECK(d->n_launches == 40); /* --reps 20: axpy and row_sum */
        CHECK(peer_copies(d, (int)s, 1 - (int)s) == 1);
        CHECK(peer_copies(d, 1 - (int)s, (int)s) == 0);
    }
    if (res.n_devices == 2)
        CHECK(res.devices[0].context != res.devices[1].context);
    td_result_free(&res);
}

/* td_peer's report: the Copies line with the peer copies, a tree per device. */
static void test_peer_report(void)
{
    CHECK(run("%s report '%s/td_peer.json.xz' -l 2 --kernels 0", bin, bundle) == 0);
    char *out = td_shell_read_file(dir, "out.txt");
    CHECK(out && td_count(out, "NVIDIA H200 (GH100, CC 9.0, 132 SMs)") == 2);
    CHECK(out && strstr(out, "\nCopies:   7 copies, 1879.0 MB (HtoD 2: 536.9 MB, DtoH 1: 268.4 MB, "
                             "memset 2: 536.9 MB,\n          peer 2: 536.9 MB), copy time "));
    CHECK(out && strstr(out, "\nDevice 1/2: GPU 0 (NVIDIA H200), context 1: 40 launches,"));
    CHECK(out && strstr(out, "\nDevice 2/2: GPU 1 (NVIDIA H200), context 2: 40 launches,"));
    CHECK(tree_between(out, "\nDevice 1/2: GPU 0", "\nDevice 2/2: "));
    CHECK(tree_between(out, "\nDevice 2/2: GPU 1", "\nKernel 1/2: "));
    CHECK(out && td_count(out, "peer 1: 268.4 MB") == 2); /* one out of each device */
    free(out);
}

/* Rank 0's NCCL all-reduce: 3 of its 83 measured launches have more
 * elapsed cycles than 4,000 MHz over their activity duration (up to 29,115
 * MHz: the profiled range outlasts the launch). Over the range's own
 * measured duration every one runs at 1964-1980 MHz, the H200's clock:
 * no launch is left out, and no warning that they ran at clocks 1370%
 * apart. */
static void test_nccl_clock(void)
{
    CHECK(run("%s report '%s/ddp.0.json.xz' -l 1 --kernels 1", bin, bundle) == 0);
    char *out = td_shell_read_file(dir, "out.txt");
    CHECK(out && strstr(out, "\n  SM clock 1980 MHz (median of 83 measured launches, 1964-1980)\n"));
    CHECK(out && !strstr(out, "left out"));
    CHECK(out && !strstr(out, "% apart"));
    free(out);
}

/* A result's note (here merge's) is in its report's header, for every
 * later report, not only on stderr at the run. */
static void test_note_in_header(void)
{
    CHECK(run("%s report '%s/ddp_ranks.json.xz' -l 1 --kernels 1", bin, bundle) == 0);
    char *out = td_shell_read_file(dir, "out.txt");
    CHECK(out && strstr(out, "\nNote:     merged from 2 results: "));
    CHECK(out && strstr(out, "Note:") < strstr(out, "Application:"));
    free(out);
}

/* The two ranks of the DDP job merge as they are; beside a synthetic
 * A100 result, not without --force. */
static void test_merge_job(void)
{
    CHECK(run("%s merge '%s/ddp.0.json.xz' '%s/ddp.1.json.xz' -o job.json", bin, bundle,
              bundle) == 0);
    CHECK(run("%s merge '%s/ddp.0.json.xz' '%s/../../../tests/fixtures/outputs/"
              "a100_synthetic.topdown.json' -o mixed.json", bin, bundle, bundle) == 1);
    CHECK(td_shell_file_has(dir, "err.txt", "are not processes of one job"));
}

/* The merged DDP ranks: the slower rank per kernel, ranked by the time
 * lost, NCCL's all-reduce (184 ms over the mean) first. */
static void test_imbalance(void)
{
    CHECK(run("%s imbalance '%s/ddp_ranks.json.xz' --kernels 0", bin, bundle) == 0);
    char *out = td_shell_read_file(dir, "out.txt");
    CHECK(out && strstr(out, "Imbalance across 2 ranks"));
    CHECK(out && strstr(out, "\nKernel 35/35: "));
    int r0 = td_count(out, ": slowest r0 "), r1 = td_count(out, ": slowest r1 ");
    printf("  imbalance: %d kernels slowest on r0, %d on r1\n", r0, r1);
    CHECK(r0 + r1 == 35);
    CHECK(r1 > r0); /* in this recording: rank 1, of the 1.5x batch, is slower on more */
    CHECK(out && strstr(out, "\nKernel 1/35: ncclDevKernel_AllReduce_Sum_f32_RING_LL\n  lost "
                             "184.168 ms: slowest r1 1748.186 ms, mean 1564.018 ms (max/mean "
                             "1.12); communication\n"));
    CHECK(td_count(out, "; communication\n") >= 3);
    /* the ranks' totals, communication apart */
    CHECK(out && strstr(out, "\n  r1   *      32     11624    2493.817    1770.374     723.444  "));
    free(out);
}

/* The merged DDP trace: a process per rank, each with every launch of its
 * section as a complete kernel event, NCCL kernels among them. */
static void test_ddp_trace(void)
{
    td_result res;
    if (load("ddp_ranks.json.xz", &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK(res.n_devices == 2);
    if (res.n_devices != 2) {
        td_result_free(&res);
        return;
    }
    CHECK(run("%s trace '%s/ddp_ranks.json.xz' -o trace.json", bin, bundle) == 0);
    cJSON *root = td_shell_read_json(dir, "trace.json");
    CHECK(root != NULL);
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK(cJSON_IsArray(events));
    size_t kernels[2] = {0, 0}, nccl[2] = {0, 0}, other_pid = 0;
    int named[2] = {0, 0};
    const cJSON *e;
    cJSON_ArrayForEach(e, events) {
        double pid = td_shell_json_num(e, "pid");
        int p = pid == 0 ? 0 : pid == 1 ? 1 : -1;
        if (p < 0) {
            other_pid++;
            continue;
        }
        const char *ph = td_shell_json_str(e, "ph");
        const char *name = td_shell_json_str(e, "name");
        if (strcmp(ph, "M") == 0 && strcmp(name, "process_name") == 0) {
            const char *what = td_shell_json_str(cJSON_GetObjectItemCaseSensitive(e, "args"),
                                                 "name");
            named[p] = strstr(what, p ? "ddp.1.json: GPU 1 (NVIDIA H200)"
                                      : "ddp.0.json: GPU 0 (NVIDIA H200)") != NULL;
        }
        if (strcmp(ph, "X") != 0 || strcmp(td_shell_json_str(e, "cat"), "kernel") != 0)
            continue;
        if (td_shell_json_num(e, "dur") <= 0 || td_shell_json_num(e, "ts") < 0)
            continue;
        kernels[p]++;
        nccl[p] += strncmp(name, "ncclDevKernel", 13) == 0;
    }
    printf("  trace: r0 %zu kernel events (%zu NCCL), r1 %zu (%zu NCCL)\n", kernels[0], nccl[0],
           kernels[1], nccl[1]);
    CHECK(other_pid == 0);
    for (int p = 0; p < 2; p++) {
        CHECK(named[p]);
        CHECK(kernels[p] == res.devices[p].n_launches);
        CHECK(nccl[p] >= 598); /* the AllReduces, one per bucket and step */
    }
    cJSON_Delete(root);
    td_result_free(&res);
}

/* td_peer's trace: each peer copy on its section's process, on the track
 * of the stream it ran on. */
static void test_peer_trace(void)
{
    CHECK(run("%s trace '%s/td_peer.json.xz' -o peer.json", bin, bundle) == 0);
    cJSON *root = td_shell_read_json(dir, "peer.json");
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK(cJSON_IsArray(events));
    int peers = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events) {
        if (strcmp(td_shell_json_str(e, "cat"), "peer") != 0)
            continue;
        peers++;
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        double pid = td_shell_json_num(e, "pid"), tid = td_shell_json_num(e, "tid");
        CHECK_STR(td_shell_json_str(e, "ph"), "X");
        CHECK_STR(td_shell_json_str(args, "direction"), "PtoP");
        CHECK(td_shell_json_num(args, "src_device") == pid);
        CHECK(td_shell_json_num(args, "dst_device") == 1 - pid);
        CHECK(td_shell_json_num(args, "bytes") == (double)PEER_BYTES);
        /* its track: a thread of that process named by the stream */
        char want[64];
        snprintf(want, sizeof want, "stream %.0f", tid);
        int track = 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, events) {
            track |= strcmp(td_shell_json_str(m, "ph"), "M") == 0 &&
                     strcmp(td_shell_json_str(m, "name"), "thread_name") == 0 &&
                     td_shell_json_num(m, "pid") == pid && td_shell_json_num(m, "tid") == tid &&
                     strcmp(td_shell_json_str(cJSON_GetObjectItemCaseSensitive(m, "args"), "name"),
                            want) == 0;
        }
        CHECK(track);
    }
    CHECK(peers == 2);
    cJSON_Delete(root);
}

int main(void)
{
    const char *src;
    if (td_shell_start(dir, &bin, &src) != 0)
        return 1;
    snprintf(bundle, sizeof bundle, "%s/" BUNDLE, src);
    test_peer_result();
    test_peer_report();
    test_imbalance();
    test_merge_job();
    test_nccl_clock();
    test_note_in_header();
    test_ddp_trace();
    test_peer_trace();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
