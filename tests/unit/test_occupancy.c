/* levels/occupancy.h against figures worked out by hand as the CUDA
 * occupancy calculator does (cuda_occupancy.h; on 16 compute capabilities
 * it agreed with the shipped tables on 320,000 random launches when this
 * was written), and the arch tables' "occupancy" rows: one for every
 * compute capability of every shipped table, and what the loader refuses. */
#include <stdlib.h>

#include "../check.h"
#include "levels/occupancy.h"
#include "metrics/arch/arch.h"
#include "metrics/file_text.h"

static td_arch_set archs;

static const td_sm_limits *limits(int major, int minor)
{
    for (size_t a = 0; a < archs.count; a++) {
        const td_arch *t = &archs.items[a];
        const td_sm_limits *sm = td_sm_limits_find(t->sm_limits, t->n_sm_limits, major, minor);
        if (sm)
            return sm;
    }
    return NULL;
}

static td_occupancy occupancy(int major, int minor, unsigned threads, unsigned registers,
                              unsigned shared, unsigned shared_config)
{
    td_occupancy o;
    memset(&o, 0, sizeof o);
    const td_sm_limits *sm = limits(major, minor);
    CHECK(sm != NULL);
    if (sm) {
        td_occ_launch l = {threads, registers, shared, shared_config};
        td_occupancy_theoretical(sm, &l, &o);
    }
    return o;
}

static unsigned bit(td_occ_limit limit)
{
    return 1u << limit;
}

static void hopper(void)
{
    /* 8 warps a block: 64 / 8 = 8 blocks by warps; 32 registers are 1024
     * a warp, 16 warps per sub-partition: 8 blocks too */
    td_occupancy o = occupancy(9, 0, 256, 32, 0, 0);
    CHECK_NEAR(o.pct, 100, 1e-9);
    CHECK(o.blocks == 8 && o.warps == 64 && o.max_warps == 64);
    CHECK(o.limiters == (bit(TD_OCC_WARPS) | bit(TD_OCC_REGISTERS)));
    CHECK(o.block_limit[TD_OCC_SHARED] == 228); /* the driver's 1 KB a block */
    /* 128 registers: 4096 a warp, 4 warps per sub-partition, 16 an SM: 2 blocks */
    o = occupancy(9, 0, 256, 128, 0, 0);
    CHECK_NEAR(o.pct, 25, 1e-9);
    CHECK(o.blocks == 2 && o.limiters == bit(TD_OCC_REGISTERS));
    /* 48 KB of shared memory: 49,152 + 1,024 a block, 4 in 228 KB */
    o = occupancy(9, 0, 256, 32, 48 * 1024, 0);
    CHECK_NEAR(o.pct, 50, 1e-9);
    CHECK(o.blocks == 4 && o.limiters == bit(TD_OCC_SHARED));
    /* one warp a block: 32 blocks at most, half the warps */
    o = occupancy(9, 0, 32, 16, 0, 0);
    CHECK_NEAR(o.pct, 50, 1e-9);
    CHECK(o.limiters == bit(TD_OCC_BLOCKS));
    /* 40 registers: 1,280 a warp, 12 warps per sub-partition (not 51 an
     * SM): 24 blocks of 2 warps */
    o = occupancy(9, 0, 64, 40, 0, 0);
    CHECK(o.blocks == 24);
    CHECK_NEAR(o.pct, 75, 1e-9);
    /* a block of 33 threads holds 2 warps */
    o = occupancy(9, 0, 33, 0, 0, 0);
    CHECK(o.blocks == 32 && o.warps == 64);
    /* a block no SM holds (a damaged record): none, never a division by 0 */
    o = occupancy(9, 0, 0xffffffffu, 32, 0, 0);
    CHECK(o.blocks == 0 && o.pct == 0);
}

static void carveout(void)
{
    /* 16 KB a block: 13 of 17,408 bytes in 228 KB, but the driver set 100 KB: 5 */
    td_occupancy o = occupancy(9, 0, 256, 32, 16 * 1024, 0);
    CHECK(o.blocks == 8);
    o = occupancy(9, 0, 256, 32, 16 * 1024, 100 * 1024);
    CHECK(o.blocks == 5 && o.limiters == bit(TD_OCC_SHARED));
    CHECK_NEAR(o.pct, 62.5, 1e-9);
    /* a config below what a block needs is not what ran: the largest is taken */
    o = occupancy(9, 0, 256, 32, 16 * 1024, 8 * 1024);
    CHECK(o.blocks == 8);
}

static void other_chips(void)
{
    /* Ada: 48 warps, 24 blocks */
    td_occupancy o = occupancy(8, 9, 256, 32, 0, 0);
    CHECK(o.blocks == 6 && o.max_warps == 48);
    CHECK_NEAR(o.pct, 100, 1e-9);
    o = occupancy(8, 9, 32, 0, 0, 0);
    CHECK(o.blocks == 24 && o.limiters == bit(TD_OCC_BLOCKS));
    CHECK_NEAR(o.pct, 50, 1e-9);
    o = occupancy(8, 9, 64, 0, 0, 0); /* 24 blocks of 2 warps: both limits */
    CHECK(o.blocks == 24 && o.limiters == (bit(TD_OCC_WARPS) | bit(TD_OCC_BLOCKS)));
    /* Turing: 32 warps; a 1024-thread block of 128 registers cannot run */
    o = occupancy(7, 5, 1024, 64, 0, 0);
    CHECK_NEAR(o.pct, 100, 1e-9);
    o = occupancy(7, 5, 1024, 128, 0, 0);
    CHECK(o.blocks == 0 && o.pct == 0 && o.limiters == bit(TD_OCC_REGISTERS));
    /* no shared memory and the driver reserving none (Volta): no limit */
    o = occupancy(7, 0, 128, 32, 0, 0);
    CHECK(o.block_limit[TD_OCC_SHARED] == TD_OCC_NO_LIMIT);
    /* more shared memory than a block may have */
    o = occupancy(8, 6, 128, 32, 100 * 1024, 0);
    CHECK(o.blocks == 0 && o.limiters == bit(TD_OCC_SHARED));
    /* GP100 holds 2 sub-partitions but refuses what GP10x (4) could not:
     * 10 warps of 192 registers (6,144 a warp) fit 2 sub-partitions of
     * 32 Ki, but rounded up to 12 warps for 4 they pass the block's 64 Ki */
    o = occupancy(6, 0, 320, 192, 0, 0);
    CHECK(o.blocks == 0 && o.limiters == bit(TD_OCC_REGISTERS));
    o = occupancy(6, 0, 192, 192, 0, 0);
    CHECK(o.blocks == 1);
}

static void achieved(void)
{
    CHECK_NEAR(td_occupancy_achieved(48000, 1000, 64), 75, 1e-9);
    CHECK(isnan(td_occupancy_achieved(1, 0, 64)));
    CHECK(isnan(td_occupancy_achieved(1, 10, 0)));
    char buf[64];
    CHECK_STR(td_occ_limiters_text(bit(TD_OCC_WARPS) | bit(TD_OCC_REGISTERS), buf, sizeof buf),
              "warps and registers");
    CHECK_STR(td_occ_limiters_text(bit(TD_OCC_SHARED), buf, sizeof buf), "shared memory");
}

/* Every compute capability of every shipped table has its row. */
static void every_cc_has_limits(void)
{
    for (size_t a = 0; a < archs.count; a++) {
        const td_arch *t = &archs.items[a];
        for (size_t c = 0; c < t->n_ccs; c++) {
            int major = 0, minor = 0;
            CHECK(sscanf(t->ccs[c], "%d.%d", &major, &minor) == 2);
            const td_sm_limits *sm = td_sm_limits_find(t->sm_limits, t->n_sm_limits, major, minor);
            if (!sm)
                fprintf(stderr, "%s: no occupancy row for cc %s\n", t->name, t->ccs[c]);
            CHECK(sm != NULL);
            CHECK(!sm || sm->max_warps * 32 <= 2048);
        }
        CHECK(t->n_sm_limits == t->n_ccs);
    }
}

static void expect_refused(const char *from, const char *to, const char *needle)
{
    char path[512], *text = NULL;
    size_t len = 0;
    td_error err = {{0}};
    snprintf(path, sizeof path, "%s/gh100.json", archs.dir);
    CHECK(td_read_text_file(path, &text, &len, &err) == 0);
    const char *at = text ? strstr(text, from) : NULL;
    CHECK(at != NULL);
    if (!at) {
        free(text);
        return;
    }
    size_t n = len - strlen(from) + strlen(to) + 1;
    char *edited = malloc(n);
    snprintf(edited, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    td_arch arch;
    CHECK(td_arch_parse(edited, strlen(edited), path, &arch, &err) == -1);
    if (!strstr(err.msg, needle))
        fprintf(stderr, "expected \"%s\" in: %s\n", needle, err.msg);
    CHECK(strstr(err.msg, needle) != NULL);
    free(edited);
    free(text);
}

static void loader_refuses(void)
{
    expect_refused("\"cc\": \"9.0\"", "\"cc\": \"8.0\"", "not one of the table's");
    expect_refused("\"max_warps_per_sm\": 64", "\"max_warps_per_sm\": 0", "at least 1");
    expect_refused("\"max_warps_per_sm\": 64, ", "", "\"max_warps_per_sm\"");
    expect_refused("\"sub_partitions\": 4", "\"sub_partitions\": 4.5", "sub_partitions");
    expect_refused("\"source\": \"cuda_occupancy.h", "\"source\": \"\", \"x\": \"", "source");
    expect_refused("\"limits\": [", "\"limits\": 3, \"y\": [", "limits");
    expect_refused("\"shared_reserved_per_block\": 1024}",
                   "\"shared_reserved_per_block\": 1024}, {\"cc\": \"9.0\", \"max_warps_per_sm\": 64, "
                   "\"max_blocks_per_sm\": 32, \"registers_per_sm\": 65536, "
                   "\"max_registers_per_block\": 65536, \"max_registers_per_thread\": 255, "
                   "\"register_allocation_unit\": 256, \"sub_partitions\": 4, "
                   "\"shared_per_sm\": 233472, \"max_shared_per_block\": 232448, "
                   "\"shared_allocation_unit\": 128, \"shared_reserved_per_block\": 1024}",
                   "twice");
}

int main(void)
{
    char dir[512];
    td_error err = {{0}};
    if (td_arch_default_dir(dir, sizeof dir, &err) || td_arch_load_dir(dir, &archs, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    CHECK(archs.skipped == NULL);
    hopper();
    carveout();
    other_chips();
    achieved();
    every_cc_has_limits();
    loader_refuses();
    td_arch_set_free(&archs);
    return td_check_summary();
}
