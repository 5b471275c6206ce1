/* Issue 13: the --source spool records as the injection library writes
 * them from CUPTI's structures (topdown/inject/pcsamp_records.c), read back by the
 * spool reader: what a GPU run would hand over, checked without one. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "metrics/result/pcsamp.h"
#include "topdown/inject/pcsamp_records.h"
#include "metrics/result/result.h"
#include "metrics/spool/spool.h"

#define P TD_PCSAMP_PREFIX

static int keep_k(const char *function)
{
    return strcmp(function, "_Z1kPf") == 0;
}

/* A line of the spool: rec with its type and pid. */
static void append(char *buf, size_t size, cJSON *rec, const char *type)
{
    cJSON_AddStringToObject(rec, "type", type);
    cJSON_AddNumberToObject(rec, "pid", 42);
    char *text = cJSON_PrintUnformatted(rec);
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s\n", text);
    free(text);
    cJSON_Delete(rec);
}

static void test_round_trip(void)
{
    static char spool[1 << 16];
    snprintf(spool, sizeof spool,
             "{\"type\":\"start\",\"pid\":42,\"format\":\"topdown-spool/2\",\"tool_version\":\"t\"}\n"
             "{\"type\":\"device\",\"pid\":42,\"context\":3,\"device\":0,\"name\":\"G\","
             "\"chip\":\"GH100\",\"cc\":[9,0],\"sm_count\":132,\"arch\":\"gh100\",\"passes\":1,"
             "\"batch\":64,\"metrics\":[]}\n");
    /* CUPTI's reason table: indices need not be 0..n-1 */
    uint32_t index[3] = {7, 8, 30};
    char *names[3] = {P "long_scoreboard", P "long_scoreboard_not_issued", P "selected"};
    cJSON *config = cJSON_CreateObject();
    CHECK(td_pcsamp_config_fill(config, 3, 11, "/r/x.json.cubins", index, names, 3) == 0);
    append(spool, sizeof spool, config, "pcsamp_config");

    /* a buffer as GetData fills it: three PCs, one of another kernel */
    CUpti_PCSamplingStallReason r0[3] = {{7, 40}, {8, 30}, {30, 0}};
    CUpti_PCSamplingStallReason r1[1] = {{30, 9}};
    CUpti_PCSamplingStallReason r2[1] = {{7, 5}};
    CUpti_PCSamplingPCData pcs[4];
    memset(pcs, 0, sizeof pcs);
    char kname[] = "_Z1kPf", other[] = "_Z5otherv";
    pcs[0] = (CUpti_PCSamplingPCData){.size = sizeof pcs[0], .cubinCrc = 0xfedcba9876543210ULL,
                                      .pcOffset = 0x1a0, .functionName = kname,
                                      .stallReasonCount = 3, .stallReason = r0};
    pcs[1] = (CUpti_PCSamplingPCData){.size = sizeof pcs[1], .cubinCrc = 0xfedcba9876543210ULL,
                                      .pcOffset = 0x1b0, .functionName = kname,
                                      .stallReasonCount = 1, .stallReason = r1};
    pcs[2] = (CUpti_PCSamplingPCData){.size = sizeof pcs[2], .cubinCrc = 0x1,
                                      .pcOffset = 0x10, .functionName = other,
                                      .stallReasonCount = 1, .stallReason = r2};
    pcs[3] = pcs[0]; /* past totalNumPcs: never read */
    CUpti_PCSamplingData d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.collectNumPcs = 4;
    d.totalNumPcs = 3;
    d.totalSamples = 1000;
    d.droppedSamples = 2;
    d.pPcData = pcs;
    cJSON *rows = cJSON_CreateObject();
    CHECK(td_pcsamp_rows_fill(rows, 3, &d, 4, keep_k) == 2);
    append(spool, sizeof spool, rows, "pcsamp");
    /* the same buffer again (a second GetData): samples add up; no filter */
    rows = cJSON_CreateObject();
    CHECK(td_pcsamp_rows_fill(rows, 3, &d, 2, NULL) == 2); /* cap: the first 2 */
    append(spool, sizeof spool, rows, "pcsamp");
    strcat(spool, "{\"type\":\"end\",\"pid\":42,\"launches\":0,\"profiled\":0}\n");

    td_result res;
    td_spool_summary sum;
    td_error err;
    memset(&res, 0, sizeof res);
    int rc = td_spool_parse(spool, strlen(spool), "records", &res, &sum, &err);
    if (rc)
        fprintf(stderr, "%s\n%s", err.msg, spool);
    CHECK(rc == 0);
    const td_pcsamp *p = rc == 0 && res.n_devices == 1 ? res.devices[0].pcsamp : NULL;
    CHECK(p != NULL);
    if (p) {
        CHECK(p->period == 11 && p->total_samples == 2000 && p->dropped_samples == 4);
        CHECK_STR(p->cubin_dir, "/r/x.json.cubins");
        CHECK(p->n_functions == 1 && strcmp(p->functions[0], "_Z1kPf") == 0);
        CHECK(p->n_modules == 1 && p->modules[0] == 0xfedcba9876543210ULL);
        CHECK(p->n_reasons == 3 && p->n_records == 2);
        if (p->n_records == 2) {
            CHECK(p->records[0].pc == 0x1a0 && p->records[1].pc == 0x1b0);
            CHECK(td_pc_count(&p->records[0], 0) == 80);  /* long_scoreboard, twice */
            CHECK(td_pc_count(&p->records[0], 1) == 60);  /* its not-issued subset */
            CHECK(td_pc_count(&p->records[0], 2) == 0);
            CHECK(td_pc_count(&p->records[1], 2) == 18);  /* selected */
        }
    }
    td_result_free(&res);
    td_spool_summary_free(&sum);
}

static void test_cubin_dir(void)
{
    char buf[256];
    td_pcsamp_cubin_dir_for_spool("/home/me/run.topdown.json.Ab12Cd.spool", buf, sizeof buf);
    CHECK_STR(buf, "/home/me/run.topdown.json.cubins");
    td_pcsamp_cubin_dir_for_spool("/t/a.b/run.json.xz.x1Y2z3.spool", buf, sizeof buf);
    CHECK_STR(buf, "/t/a.b/run.json.xz.cubins");
    td_pcsamp_cubin_dir_for_spool("/t/a.b/nodot.spool", buf, sizeof buf);
    CHECK_STR(buf, ""); /* the only other dot is in a folder name */
    td_pcsamp_cubin_dir_for_spool("/t/run.json", buf, sizeof buf);
    CHECK_STR(buf, "");
    td_pcsamp_cubin_dir_for_spool(NULL, buf, sizeof buf);
    CHECK_STR(buf, "");
    td_pcsamp_cubin_dir_for_spool("/t/run.json.Ab12Cd.spool", buf, 8);
    CHECK_STR(buf, ""); /* does not fit: none rather than a cut name */
}

int main(void)
{
    test_round_trip();
    test_cubin_dir();
    return td_check_summary();
}
