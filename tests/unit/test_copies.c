/* Issue 14 item 4 (offline): copies (memcpy, memset, peer copies) from
 * spool lines to the result's "copies" (configurations stored once, read
 * back exactly), in the report's header, on the trace's tracks with their
 * bandwidth, carried by merge; a result of two device sections gets a tree
 * per device; results without copies load and save as before. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"
#include "metrics/result/result.h"
#include "metrics/spool/spool.h"
#include "topdown/cli.h"

static const char *bin;
static char dir[] = "/tmp/td_copiesXXXXXX";
static char groups[4200];

#define run(...) td_shell_run(dir, __VA_ARGS__)

static td_copy make_copy(int kind, int direction, uint64_t bytes, uint64_t stream,
                         uint64_t start, double duration, int src, int dst)
{
    td_copy c;
    memset(&c, 0, sizeof c);
    c.kind = (uint8_t)kind;
    c.direction = (uint8_t)direction;
    c.bytes = bytes;
    c.stream = stream;
    c.start_ns = start;
    c.duration_ns = duration;
    c.src_device = src;
    c.dst_device = dst;
    return c;
}

enum { HTOD = 1, DTOH = 2 };

/* The H200 recording as two device sections (GPU 0 and GPU 1 of one
 * process) with copies on both: 3 HtoD of 8 MB at 20 GB/s and a peer copy
 * of 16 MB at 50 GB/s on GPU 0 (the peer copy on a stream of its own), a
 * memset of 1 MB at 50 GB/s and a DtoH of 4 MB at 40 GB/s on GPU 1. */
static int make_two_gpu_result(td_result *res)
{
    td_result other;
    if (td_shell_load_result("", groups, res) || td_shell_load_result("", groups, &other))
        return -1;
    td_device *bigger = realloc(res->devices, 2 * sizeof *bigger);
    if (!bigger) {
        td_result_free(&other);
        return -1;
    }
    res->devices = bigger;
    res->devices[1] = other.devices[0]; /* moved */
    res->n_devices = 2;
    other.n_devices = 0;
    td_result_free(&other);
    res->devices[1].index = 1;
    res->devices[1].context = 2;
    uint64_t t = res->devices[0].launches[0].start_ns;
    td_error err;
    td_copy copies0[] = {
        make_copy(TD_COPY_MEMCPY, HTOD, 8000000, 7, t + 10, 400000, -1, 0),
        make_copy(TD_COPY_PEER, TD_COPY_DIR_PTOP, 16000000, 21, t + 20, 320000, 0, 1),
        make_copy(TD_COPY_MEMCPY, HTOD, 8000000, 7, t + 500000, 400000, -1, 0),
        make_copy(TD_COPY_MEMCPY, HTOD, 8000000, 7, t + 900000, 400000, -1, 0),
    };
    td_copy copies1[] = {
        make_copy(TD_COPY_MEMSET, TD_COPY_DIR_UNKNOWN, 1000000, 7, t + 30, 20000, -1, 1),
        make_copy(TD_COPY_MEMCPY, DTOH, 4000000, 7, t + 40, 100000, 1, -1),
    };
    for (size_t i = 0; i < 4; i++)
        if (td_device_add_copy(&res->devices[0], &copies0[i], &err))
            return -1;
    for (size_t i = 0; i < 2; i++)
        if (td_device_add_copy(&res->devices[1], &copies1[i], &err))
            return -1;
    return 0;
}

static int same_copy(const td_copy *a, const td_copy *b)
{
    return a->kind == b->kind && a->direction == b->direction && a->bytes == b->bytes &&
           a->stream == b->stream && a->start_ns == b->start_ns &&
           a->duration_ns == b->duration_ns && a->src_device == b->src_device &&
           a->dst_device == b->dst_device;
}

static void test_file_round_trip(void)
{
    td_result res, back;
    td_error err;
    char path[4300];
    CHECK(make_two_gpu_result(&res) == 0);
    snprintf(path, sizeof path, "%s/copies.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    CHECK(td_shell_load_result(dir, "copies.json", &back) == 0);
    CHECK(back.n_devices == 2);
    for (size_t d = 0; d < 2 && back.n_devices == 2; d++) {
        CHECK(back.devices[d].n_copies == res.devices[d].n_copies);
        for (size_t i = 0; i < back.devices[d].n_copies && i < res.devices[d].n_copies; i++)
            CHECK(same_copy(&back.devices[d].copies[i], &res.devices[d].copies[i]));
        CHECK(back.devices[d].n_launches == res.devices[d].n_launches);
    }
    td_result_free(&back);
    /* what a copy moves is stored once: 3 HtoD of one buffer, one peer */
    cJSON *root = td_shell_read_json(dir, "copies.json");
    const cJSON *dev0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "devices"), 0);
    const cJSON *copies = cJSON_GetObjectItemCaseSensitive(dev0, "copies");
    CHECK(td_shell_json_num(copies, "count") == 4);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(copies, "configs")) == 2);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(copies, "config")) == 4);
    cJSON_Delete(root);
    /* a copy the reader would refuse is refused before writing */
    res.devices[1].copies[0].duration_ns = 0.0 / 0.0;
    snprintf(path, sizeof path, "%s/nan.json", dir);
    CHECK(td_result_save(path, &res, &err) != 0);
    CHECK(strstr(err.msg, "copy 0") && strstr(err.msg, "duration_ns"));
    CHECK(access(path, F_OK) != 0);
    td_result_free(&res);
}

/* Damaged "copies" sections: one line naming the problem. */
static void test_reader_refuses(void)
{
    char *text = td_shell_read_file(dir, "copies.json");
    if (!text) {
        CHECK(0);
        return;
    }
    static const struct {
        const char *from, *to, *message;
    } cases[] = {
        {"\"count\":4,", "\"count\":5,", "\"copies\" \"config\" holds 4 values for 5 copies"},
        {"\"configs\":[[0,1,", "\"configs\":[[7,1,", "\"copies\" \"configs\" value[0]"},
        {"21,0,1]],\"config\":[0,", "21,0,1]],\"config\":[9,", "\"copies\" \"config\"[0]"},
        {"\"copies\":{", "\"copies\":[],\"x\":{", "\"copies\" must be an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *at = strstr(text, cases[i].from);
        CHECK(at != NULL);
        if (!at)
            continue;
        size_t head = (size_t)(at - text), from = strlen(cases[i].from);
        char *bad = malloc(strlen(text) + strlen(cases[i].to) + 1);
        memcpy(bad, text, head);
        strcpy(bad + head, cases[i].to);
        strcat(bad, at + from);
        td_result res;
        td_error err;
        CHECK(td_result_parse(bad, strlen(bad), "bad.json", &res, &err) != 0);
        if (!strstr(err.msg, cases[i].message))
            fprintf(stderr, "case %zu: %s\n", i, err.msg);
        CHECK(strstr(err.msg, cases[i].message) != NULL);
        free(bad);
    }
    free(text);
}

/* An old result (no copies) loads with none and saves without the key. */
static void test_old_result_unchanged(void)
{
    td_result res;
    td_error err;
    char path[4300];
    CHECK(td_shell_load_result("", groups, &res) == 0);
    CHECK(res.n_devices == 1 && res.devices[0].n_copies == 0);
    snprintf(path, sizeof path, "%s/old.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    td_result_free(&res);
    char *text = td_shell_read_file(dir, "old.json");
    CHECK(text && !strstr(text, "copies"));
    free(text);
    CHECK(run("%s report %s > with.txt && %s report old.json > without.txt && "
              "! grep -q Copies with.txt && ! grep -q '^Device ' with.txt",
              bin, groups, bin) == 0);
}

static void test_report(void)
{
    CHECK(run("%s report copies.json --wide", bin) == 0); /* the lines whole */
    CHECK(td_shell_file_has(dir, "out.txt",
                            "Copies:   6 copies, 45.0 MB (HtoD 3: 24.0 MB, DtoH 1: 4.0 MB, "
                            "memset 1: 1.0 MB, peer 1: 16.0 MB), copy time 1.640 ms"));
    CHECK(td_shell_file_has(dir, "out.txt", "\nApplication: IPC"));
    CHECK(td_shell_file_has(dir, "out.txt",
                            "\nDevice 1/2: GPU 0 (NVIDIA H200), context 1: 250 launches"));
    CHECK(td_shell_file_has(dir, "out.txt", "4 copies, 40.0 MB (HtoD 3: 24.0 MB, peer 1: "
                            "16.0 MB), copy time 1.520 ms\n  IPC "));
    CHECK(td_shell_file_has(dir, "out.txt",
                            "\nDevice 2/2: GPU 1 (NVIDIA H200), context 2: 250 launches"));
    char *text = td_shell_read_file(dir, "out.txt");
    const char *dev2 = text ? strstr(text, "\nDevice 2/2") : NULL;
    const char *kernel1 = dev2 ? strstr(dev2, "\nKernel 1/") : NULL;
    const char *retire = dev2 ? strstr(dev2, "Retire") : NULL;
    CHECK(retire && kernel1 && retire < kernel1); /* the device has its tree */
    free(text);
    /* one section: no device trees */
    CHECK(run("%s report %s", bin, groups) == 0);
    text = td_shell_read_file(dir, "out.txt");
    CHECK(text && strstr(text, "\nApplication: ") && !strstr(text, "\nDevice 1/"));
    free(text);
}

/* The copy events of the trace, checked against what they came from. */
static void check_copy_event(const cJSON *e, size_t *n_copies, int *peer_seen)
{
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
    (*n_copies)++;
    double bytes = td_shell_json_num(args, "bytes"), dur_ns = td_shell_json_num(args, "duration_ns");
    CHECK(bytes > 0 && dur_ns > 0);
    CHECK_NEAR(td_shell_json_num(args, "bandwidth_GBps"), bytes / dur_ns, 1e-9);
    CHECK_NEAR(td_shell_json_num(e, "dur") * 1e3, dur_ns, 1e-6);
    const char *name = td_shell_json_str(e, "name");
    if (strcmp(name, "peer copy 0->1") == 0) {
        *peer_seen = 1;
        CHECK(td_shell_json_num(e, "pid") == 0 && td_shell_json_num(e, "tid") == 21);
        CHECK_NEAR(td_shell_json_num(args, "bandwidth_GBps"), 50, 1e-9);
        CHECK(td_shell_json_num(args, "src_device") == 0 && td_shell_json_num(args, "dst_device") == 1);
        CHECK_STR(td_shell_json_str(args, "direction"), "PtoP");
        CHECK_STR(td_shell_json_str(e, "cat"), "peer");
    } else if (strcmp(name, "memset") == 0) {
        CHECK(td_shell_json_num(e, "pid") == 1 && td_shell_json_num(e, "tid") == 7 && bytes == 1e6);
        CHECK_NEAR(td_shell_json_num(args, "bandwidth_GBps"), 50, 1e-9);
    } else if (strcmp(name, "memcpy HtoD") == 0) {
        CHECK(td_shell_json_num(e, "pid") == 0 && td_shell_json_num(e, "tid") == 7 && bytes == 8e6);
        CHECK_NEAR(td_shell_json_num(args, "bandwidth_GBps"), 20, 1e-9);
        CHECK(td_shell_json_num(args, "dst_device") == 0 && td_shell_json_num(args, "src_device") == -1);
    } else {
        CHECK_STR(name, "memcpy DtoH");
        CHECK(td_shell_json_num(e, "pid") == 1 && bytes == 4e6);
        CHECK_NEAR(td_shell_json_num(args, "bandwidth_GBps"), 40, 1e-9);
    }
}

static void test_trace(void)
{
    CHECK(run("%s trace copies.json -o trace.json", bin) == 0);
    cJSON *root = td_shell_read_json(dir, "trace.json");
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK(cJSON_IsArray(events));
    size_t n_copies = 0, n_kernels = 0;
    int peer_seen = 0, stream21_named = 0;
    double last_ts = -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, events) {
        if (strcmp(td_shell_json_str(e, "ph"), "M") == 0) {
            const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
            stream21_named |= td_shell_json_num(e, "pid") == 0 && td_shell_json_num(e, "tid") == 21 &&
                              strcmp(td_shell_json_str(args, "name"), "stream 21") == 0;
            continue;
        }
        CHECK(td_shell_json_num(e, "ts") >= last_ts);
        last_ts = td_shell_json_num(e, "ts");
        if (strcmp(td_shell_json_str(e, "cat"), "kernel") == 0)
            n_kernels++;
        else
            check_copy_event(e, &n_copies, &peer_seen);
    }
    CHECK(n_copies == 6 && peer_seen && stream21_named);
    CHECK(n_kernels == 500);
    cJSON_Delete(root);
}

static void test_merge_keeps_copies(void)
{
    CHECK(run("cp copies.json again.json && %s merge copies.json again.json -o m.json", bin) == 0);
    td_result a, m;
    CHECK(td_shell_load_result(dir, "copies.json", &a) == 0);
    CHECK(td_shell_load_result(dir, "m.json", &m) == 0);
    CHECK(m.n_devices == 4);
    for (size_t d = 0; d < m.n_devices && a.n_devices == 2; d++) {
        const td_device *from = &a.devices[d % 2], *to = &m.devices[d];
        CHECK(to->n_copies == from->n_copies);
        for (size_t i = 0; i < to->n_copies && i < from->n_copies; i++)
            CHECK(same_copy(&to->copies[i], &from->copies[i]));
    }
    td_result_free(&a);
    td_result_free(&m);
}

/* Spool copy lines: into their context's section; one read before its
 * context's device record waits for it; one on a context without a
 * device record goes to its process's section of that device, else it is
 * counted in a warning. */
static void test_spool(void)
{
    const char *spool =
        "{\"type\":\"start\",\"pid\":5,\"format\":\"topdown-spool/2\"}\n"
        "{\"type\":\"device\",\"pid\":5,\"context\":1,\"device\":0,\"arch\":\"gh100\"}\n"
        "{\"type\":\"copy\",\"pid\":5,\"context\":2,\"device\":1,\"kind\":1,\"bytes\":100,"
        "\"start_ns\":50,\"duration_ns\":10,\"stream\":3,\"dst_device\":1}\n"
        "{\"type\":\"copy\",\"pid\":5,\"context\":1,\"device\":0,\"kind\":2,\"direction\":10,"
        "\"bytes\":4096,\"start_ns\":900,\"duration_ns\":64,\"stream\":9,\"corr\":77,"
        "\"src_device\":0,\"dst_device\":1}\n"
        "{\"type\":\"copy\",\"pid\":5,\"context\":1,\"device\":0,\"kind\":0,\"direction\":1,"
        "\"bytes\":2048,\"start_ns\":300,\"duration_ns\":32,\"stream\":7,\"dst_device\":0}\n"
        "{\"type\":\"copy\",\"pid\":5,\"context\":3,\"device\":0,\"kind\":0,\"direction\":2,"
        "\"bytes\":8,\"start_ns\":700,\"duration_ns\":1,\"src_device\":0}\n"
        "{\"type\":\"copy\",\"pid\":5,\"context\":9,\"device\":5,\"kind\":0,\"direction\":8,"
        "\"bytes\":8,\"duration_ns\":1}\n"
        "{\"type\":\"device\",\"pid\":5,\"context\":2,\"device\":1,\"arch\":\"gh100\"}\n"
        "{\"type\":\"launch\",\"pid\":5,\"context\":2,\"id\":0,\"kernel\":\"k\","
        "\"duration_ns\":5}\n"
        "{\"type\":\"end\",\"pid\":5}\n";
    td_result res;
    td_spool_summary sum;
    td_error err;
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(spool, strlen(spool), "s", &res, &sum, &err) == 0);
    CHECK(res.n_devices == 2 && sum.copies == 4);
    if (res.n_devices == 2) {
        const td_device *d0 = &res.devices[0], *d1 = &res.devices[1];
        CHECK(d0->n_copies == 3 && d1->n_copies == 1);
        if (d0->n_copies == 3) { /* by start: HtoD 300, DtoH 700 (context 3), peer 900 */
            CHECK(d0->copies[0].start_ns == 300 && d0->copies[0].direction == 1);
            CHECK(d0->copies[1].start_ns == 700 && d0->copies[1].direction == 2);
            const td_copy *p = &d0->copies[2];
            CHECK(p->kind == TD_COPY_PEER && p->bytes == 4096 && p->corr == 77 &&
                  p->src_device == 0 && p->dst_device == 1 && p->stream == 9 &&
                  p->duration_ns == 64);
        }
        if (d1->n_copies == 1)
            CHECK(d1->copies[0].kind == TD_COPY_MEMSET && d1->copies[0].bytes == 100 &&
                  d1->copies[0].src_device == -1 && d1->copies[0].dst_device == 1);
    }
    CHECK(sum.warnings && strstr(sum.warnings, "1 copy ran on a context where the process "
                                                "launched no kernel"));
    td_spool_summary_free(&sum);
    td_result_free(&res);
    const char *bad = "{\"type\":\"start\",\"pid\":5,\"format\":\"topdown-spool/2\"}\n"
                      "{\"type\":\"copy\",\"pid\":5,\"context\":1,\"kind\":3,\"bytes\":1,"
                      "\"duration_ns\":1}\n";
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(bad, strlen(bad), "s", &res, &sum, &err) != 0);
    CHECK(strstr(err.msg, "spool s line 2") && strstr(err.msg, "\"kind\""));
    td_spool_summary_free(&sum);
    td_result_free(&res);
}

/* A million copies of a loop (four buffers) stay small: a few numbers
 * each in the file, 48 bytes each in memory. */
static void test_many_copies(void)
{
    enum { N = 1000000 };
    td_result res;
    td_error err;
    char path[4300];
    CHECK(td_shell_load_result("", groups, &res) == 0);
    td_device *dev = &res.devices[0];
    CHECK(td_device_reserve_copies(dev, N, &err) == 0);
    for (size_t i = 0; i < N; i++) {
        td_copy c = make_copy(TD_COPY_MEMCPY, 1 + (int)(i % 2), 4096u << (i % 4), 7,
                              1000 + 10 * (uint64_t)i, 5 + (double)(i % 3), -1, 0);
        td_device_add_copy(dev, &c, &err);
    }
    snprintf(path, sizeof path, "%s/many.json", dir);
    CHECK(td_result_save(path, &res, &err) == 0);
    td_result back;
    CHECK(td_shell_load_result(dir, "many.json", &back) == 0);
    CHECK(back.n_devices == 1 && back.devices[0].n_copies == N);
    if (back.n_devices == 1 && back.devices[0].n_copies == N) {
        CHECK(same_copy(&back.devices[0].copies[N - 1], &dev->copies[N - 1]));
        CHECK(same_copy(&back.devices[0].copies[12345], &dev->copies[12345]));
    }
    long size = td_shell_file_size(dir, "many.json");
    CHECK(size > 0 && size < 24L * N); /* a config index, a start, a duration */
    td_result_free(&back);
    td_result_free(&res);
}

int main(void)
{
    const char *src;
    if (td_shell_start(dir, &bin, &src) != 0)
        return 1;
    snprintf(groups, sizeof groups, "%s/tests/fixtures/h200/h200_bench_groups.topdown.json",
             src);
    test_file_round_trip();
    test_reader_refuses();
    test_old_result_unchanged();
    test_report();
    test_trace();
    test_merge_keeps_copies();
    test_spool();
    test_many_copies();
    if (!getenv("TD_KEEP_TEST_DIR"))
        td_shell_remove_dir(dir);
    else
        fprintf(stderr, "kept %s\n", dir);
    return td_check_summary();
}
