/* Copies on one GPU (issue 14 item 4): topdown runs td_peer --devices 1
 * (tests/gpu/apps): the result must hold its HtoD, memset, DtoD and DtoH
 * copies of 8 MiB, each timed, with a real bandwidth, in the one device
 * section beside the kernels; the report's header counts them; the trace
 * draws them on the kernels' stream; TOPDOWN_NO_COPIES=1 leaves them out
 * and changes nothing else. Skipped (77) without a GPU or td_peer. */
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
static char dir[] = "/tmp/td_gpucopiesXXXXXX";

#define BYTES 8388608u
#define run(...) td_shell_run(dir, __VA_ARGS__)

enum { HTOD = 1, DTOH = 2, DTOD = 8 };

static const td_copy *find(const td_device *d, int kind, int direction)
{
    for (size_t i = 0; i < d->n_copies; i++)
        if (d->copies[i].kind == kind && d->copies[i].direction == direction &&
            d->copies[i].bytes == BYTES)
            return &d->copies[i];
    return NULL;
}

static void check_copy(const td_copy *c, int src, int dst)
{
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK(c->start_ns > 0 && c->duration_ns > 0);
    double gbps = (double)c->bytes / c->duration_ns;
    CHECK(gbps > 0.1 && gbps < 20000);
    CHECK(c->src_device == src && c->dst_device == dst);
}

static void test_one_gpu(void)
{
    CHECK(run("%s -o one.json -- %s --devices 1 --exit 4", bin, app) == 4);
    CHECK(td_shell_file_has(dir, "out.txt", "td_peer: 1 device, 6 kernel launches, 4 copies, "
                            "check ok"));
    CHECK(td_shell_file_has(dir, "out.txt", "Copies:   "));
    td_result res;
    if (td_shell_load_result(dir, "one.json", &res) != 0) {
        CHECK(0);
        return;
    }
    CHECK(res.n_devices == 1 && res.exit_code == 4);
    if (res.n_devices == 1) {
        const td_device *d = &res.devices[0];
        for (size_t i = 0; i < d->n_copies; i++)
            printf("copy %s %s %llu bytes, %d -> %d, %.0f ns, stream %llu\n",
                   td_copy_kind_name(d->copies[i].kind),
                   td_copy_direction_name(d->copies[i].direction),
                   (unsigned long long)d->copies[i].bytes, d->copies[i].src_device,
                   d->copies[i].dst_device, d->copies[i].duration_ns,
                   (unsigned long long)d->copies[i].stream);
        CHECK(d->n_launches == 6);
        check_copy(find(d, TD_COPY_MEMCPY, HTOD), -1, 0);
        check_copy(find(d, TD_COPY_MEMCPY, DTOH), 0, -1);
        check_copy(find(d, TD_COPY_MEMCPY, DTOD), 0, 0);
        check_copy(find(d, TD_COPY_MEMSET, TD_COPY_DIR_UNKNOWN), -1, 0);
        for (size_t i = 1; i < d->n_copies; i++)
            CHECK(d->copies[i].start_ns >= d->copies[i - 1].start_ns);
    }
    td_result_free(&res);
    CHECK(run("%s trace one.json -o trace.json && grep -c '\"cat\":\"memcpy\"' trace.json", bin) ==
          0);
    CHECK(td_shell_file_has(dir, "out.txt", "3\n"));
    CHECK(run("TOPDOWN_NO_COPIES=1 %s -o none.json -- %s --devices 1", bin, app) == 0);
    if (td_shell_load_result(dir, "none.json", &res) == 0) {
        CHECK(res.n_devices == 1 && res.devices[0].n_copies == 0 &&
              res.devices[0].n_launches == 6);
        td_result_free(&res);
    } else {
        CHECK(0);
    }
}

int main(void)
{
    bin = getenv("TOPDOWN_BIN");
    if (!bin || !td_gpu_present() || !td_gpu_program(app, sizeof app, "tests/gpu/td_peer"))
        return TD_GPU_SKIP;
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_one_gpu();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
