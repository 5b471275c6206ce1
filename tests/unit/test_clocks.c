/* --clock-control base's policy (topdown/clocks.c) driven by a fake NVML:
 * every GPU locked, and reset after; one found locked by someone else is
 * left alone and said; a refusal (no permission, not supported, no
 * library) resets what was locked before it, in order, and names the fix;
 * a failed reset names `nvidia-smi -rgc`; restore twice does nothing the
 * second time; CUDA_VISIBLE_DEVICES is read as CUDA reads it. */
#include <string.h>

#include "../check.h"
#include "topdown/clocks.h"

typedef struct fake {
    size_t n_gpus;
    td_clk_status open_status;
    int preset[8];           /* locked by someone else */
    td_clk_status lock_status[8];
    td_clk_status reset_status;
    char log[512];           /* "open lock0 lock1 reset0 close" */
    int closes;
} fake;

static void say(fake *f, const char *what, long gpu)
{
    size_t len = strlen(f->log);
    if (gpu < 0)
        snprintf(f->log + len, sizeof f->log - len, "%s%s", len ? " " : "", what);
    else
        snprintf(f->log + len, sizeof f->log - len, "%s%s%ld", len ? " " : "", what, gpu);
}

static td_clk_status f_open(void *ctx, size_t *n)
{
    fake *f = ctx;
    say(f, "open", -1);
    *n = f->n_gpus;
    return f->open_status;
}

static td_clk_status f_is_locked(void *ctx, size_t gpu, int *locked)
{
    *locked = ((fake *)ctx)->preset[gpu];
    return TD_CLK_OK;
}

static td_clk_status f_lock(void *ctx, size_t gpu)
{
    fake *f = ctx;
    say(f, "lock", (long)gpu);
    return f->lock_status[gpu];
}

static td_clk_status f_mhz(void *ctx, size_t gpu, unsigned *mhz)
{
    (void)ctx;
    *mhz = 1590 + (unsigned)gpu;
    return TD_CLK_OK;
}

static td_clk_status f_reset(void *ctx, size_t gpu)
{
    fake *f = ctx;
    say(f, "reset", (long)gpu);
    return f->reset_status;
}

static const char *f_error(void *ctx)
{
    (void)ctx;
    return "Insufficient Permissions";
}

static void f_close(void *ctx)
{
    fake *f = ctx;
    say(f, "close", -1);
    f->closes++;
}

static td_clock_ops ops_of(fake *f)
{
    td_clock_ops ops = {f, f_open, f_is_locked, f_lock, f_mhz, f_reset, f_error, f_close};
    return ops;
}

static void test_lock_and_restore(void)
{
    fake f = {.n_gpus = 2};
    td_clock_ops ops = ops_of(&f);
    td_clock_lock lk;
    td_error err;
    CHECK(td_clocks_lock(&lk, &ops, &err) == 0);
    CHECK_STR(f.log, "open lock0 lock1");
    CHECK(lk.mhz == 1590);
    CHECK_STR(td_clocks_condition(&lk), "base");
    CHECK(lk.notice[0] == '\0');
    CHECK(td_clocks_restore(&lk, &err) == 0);
    CHECK_STR(f.log, "open lock0 lock1 reset0 reset1 close");
    CHECK(td_clocks_restore(&lk, &err) == 0); /* a second call: nothing */
    CHECK(f.closes == 1);
}

static void test_preset_left_alone(void)
{
    fake f = {.n_gpus = 3, .preset = {0, 1, 0}};
    td_clock_ops ops = ops_of(&f);
    td_clock_lock lk;
    td_error err;
    CHECK(td_clocks_lock(&lk, &ops, &err) == 0);
    CHECK_STR(f.log, "open lock0 lock2");
    CHECK_STR(td_clocks_condition(&lk), "preset");
    CHECK(strstr(lk.notice, "GPU 1 were already locked by someone else") != NULL);
    CHECK(td_clocks_restore(&lk, &err) == 0);
    CHECK_STR(f.log, "open lock0 lock2 reset0 reset2 close"); /* never GPU 1 */
}

static void test_refusals(void)
{
    /* No permission on the second GPU: the first is given back. */
    fake f = {.n_gpus = 2, .lock_status = {TD_CLK_OK, TD_CLK_NO_PERMISSION}};
    td_clock_ops ops = ops_of(&f);
    td_clock_lock lk;
    td_error err;
    CHECK(td_clocks_lock(&lk, &ops, &err) == -1);
    CHECK_STR(f.log, "open lock0 lock1 reset0 close");
    CHECK(strstr(err.msg, "run topdown as root, or use --clock-control none") != NULL);
    CHECK(strstr(err.msg, "Insufficient Permissions") != NULL);
    CHECK(strchr(err.msg, '\n') == NULL);
    CHECK(td_clocks_restore(&lk, &err) == 0 && f.closes == 1);

    fake g = {.n_gpus = 1, .lock_status = {TD_CLK_NOT_SUPPORTED}};
    ops = ops_of(&g);
    CHECK(td_clocks_lock(&lk, &ops, &err) == -1);
    CHECK(strstr(err.msg, "cannot lock its clocks") && strstr(err.msg, "--clock-control none"));
    CHECK_STR(g.log, "open lock0 close");

    fake h = {.n_gpus = 1, .open_status = TD_CLK_NO_LIBRARY};
    ops = ops_of(&h);
    CHECK(td_clocks_lock(&lk, &ops, &err) == -1);
    CHECK(strstr(err.msg, "libnvidia-ml.so.1") != NULL);
    CHECK_STR(h.log, "open close");

    fake none = {.n_gpus = 0};
    ops = ops_of(&none);
    CHECK(td_clocks_lock(&lk, &ops, &err) == -1);
    CHECK(strstr(err.msg, "CUDA_VISIBLE_DEVICES") != NULL);
    CHECK_STR(none.log, "open close");
}

static void test_failed_reset(void)
{
    fake f = {.n_gpus = 2, .reset_status = TD_CLK_ERROR};
    td_clock_ops ops = ops_of(&f);
    td_clock_lock lk;
    td_error err;
    CHECK(td_clocks_lock(&lk, &ops, &err) == 0);
    CHECK(td_clocks_restore(&lk, &err) == -1);
    CHECK(strstr(err.msg, "GPU 0") && strstr(err.msg, "nvidia-smi -rgc"));
    CHECK_STR(f.log, "open lock0 lock1 reset0 reset1 close"); /* still tries GPU 1 */
}

static void test_visible_devices(void)
{
    td_visible_gpu v[8];
    CHECK(td_clocks_visible(NULL, v, 8) == -1);
    CHECK(td_clocks_visible("", v, 8) == 0);
    CHECK(td_clocks_visible("2,0", v, 8) == 2 && v[0].index == 2 && v[1].index == 0);
    CHECK(td_clocks_visible("1, GPU-8a3f-77", v, 8) == 2 && v[1].index == -1);
    CHECK_STR(v[1].uuid, "GPU-8a3f-77");
    CHECK(td_clocks_visible("0,x,1", v, 8) == 1); /* CUDA stops at the first bad one */
    CHECK(td_clocks_visible("-1", v, 8) == 0);    /* the usual way to hide every GPU */
    CHECK(td_clocks_visible("0,1,2", v, 2) == 2);
}

int main(void)
{
    test_lock_and_restore();
    test_preset_left_alone();
    test_refusals();
    test_failed_reset();
    test_visible_devices();
    return td_check_summary();
}
