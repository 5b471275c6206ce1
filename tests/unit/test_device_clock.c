/* The GPU's own SM clock (the device record's clock_mhz, CUDA's CLOCK_RATE
 * attribute) from the spool to the result and back, refused out of range,
 * and the report's warning when a kernel's launches ran 10% or more below
 * it: the H200 stride run of td_stencil (measured at 1963-1974 MHz) said
 * nothing against its 1980 MHz and warns against a GPU of 2400. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "td_shell.h"
#include "metrics/result/result.h"
#include "metrics/spool/spool.h"

static const char *bin, *src;
static char dir[] = "/tmp/td_devclockXXXXXX";

#define run(...) td_shell_run(dir, __VA_ARGS__)

static void test_spool_reads_it(void)
{
    const char *text =
        "{\"type\":\"start\",\"pid\":7,\"format\":\"topdown-spool/2\"}\n"
        "{\"type\":\"device\",\"pid\":7,\"context\":1,\"device\":0,\"chip\":\"GH100\","
        "\"cc\":[9,0],\"sm_count\":132,\"clock_mhz\":1980,\"arch\":\"gh100\",\"passes\":1,"
        "\"metrics\":[\"a\"]}\n"
        "{\"type\":\"end\",\"pid\":7}\n";
    td_result res;
    td_spool_summary sum;
    td_error err;
    memset(&res, 0, sizeof res);
    CHECK(td_spool_parse(text, strlen(text), "clock", &res, &sum, &err) == 0);
    CHECK(res.n_devices == 1 && res.devices[0].clock_mhz == 1980);
    td_spool_summary_free(&sum);
    td_result_free(&res);
}

/* path: the bundled run with its device's clock set to mhz, saved in dir. */
static int with_clock(const char *name, int mhz, td_error *err)
{
    char in[4096], out[4200];
    snprintf(in, sizeof in, "%s/benchmarks/results/truth_h200_stride/td_stencil.sampled.json.xz",
             src);
    snprintf(out, sizeof out, "%s/%s", dir, name);
    td_result res;
    if (td_result_load(in, &res, err))
        return -1;
    for (size_t d = 0; d < res.n_devices; d++)
        res.devices[d].clock_mhz = mhz;
    int rc = td_result_save(out, &res, err);
    td_result_free(&res);
    return rc;
}

static void test_round_trip_and_range(void)
{
    td_error err;
    CHECK(with_clock("c1980.json", 1980, &err) == 0);
    td_result back;
    CHECK(td_shell_load_result(dir, "c1980.json", &back) == 0);
    CHECK(back.n_devices == 1 && back.devices[0].clock_mhz == 1980);
    td_result_free(&back);
    CHECK(with_clock("bad.json", 200000, &err) != 0); /* over TD_MAX_CLOCK_MHZ */
    CHECK(strstr(err.msg, "clock_mhz") != NULL);
}

static void test_warning(void)
{
    td_error err;
    CHECK(with_clock("c1980.json", 1980, &err) == 0 && with_clock("c2400.json", 2400, &err) == 0);
    CHECK(run("%s report c1980.json -l 1 --kernels 1", bin) == 0);
    CHECK(!td_shell_file_has(dir, "out.txt", "below the GPU's"));
    CHECK(run("%s report c2400.json -l 1 --kernels 1", bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "  SM clock 1971 MHz (median of 45 measured"));
    CHECK(td_shell_file_has(dir, "out.txt", "WARNING: its launches ran 18% below the GPU's 2400 MHz"));
}

int main(void)
{
    if (td_shell_start(dir, &bin, &src) != 0)
        return 1;
    test_spool_reads_it();
    test_round_trip_and_range();
    test_warning();
    td_shell_remove_dir(dir);
    return td_check_summary();
}
