/* A stand-in for libnvidia-ml.so.1 with the calls --clock-control base
 * makes (topdown/nvml_clocks.c loads it through TOPDOWN_NVML_LIB), for
 * tests/unit/test_clock_launcher.c: each call is appended to the file
 * FAKE_NVML_LOG ("init", "lock 0", "reset 0", "shutdown"), and
 * FAKE_NVML_MODE picks the machine: "ok" (two GPUs), "noperm" (not root),
 * "preset" (GPU 1 already locked with nvidia-smi -lgc). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *nvml_device;
static int gpus[2] = {0, 1};

static void say(const char *what, long gpu)
{
    const char *path = getenv("FAKE_NVML_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f)
        return;
    if (gpu < 0)
        fprintf(f, "%s\n", what);
    else
        fprintf(f, "%s %ld\n", what, gpu);
    fclose(f);
}

static int mode_is(const char *m)
{
    const char *mode = getenv("FAKE_NVML_MODE");
    return mode && strcmp(mode, m) == 0;
}

static long gpu_of(nvml_device d)
{
    return (long)(*(int *)d);
}

int nvmlInit_v2(void)
{
    say("init", -1);
    return 0;
}

int nvmlShutdown(void)
{
    say("shutdown", -1);
    return 0;
}

int nvmlDeviceGetCount_v2(unsigned *n)
{
    *n = 2;
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, nvml_device *d)
{
    if (i > 1)
        return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *d = &gpus[i];
    return 0;
}

int nvmlDeviceGetHandleByUUID(const char *uuid, nvml_device *d)
{
    (void)uuid;
    *d = &gpus[0];
    return 0;
}

int nvmlDeviceSetGpuLockedClocks(nvml_device d, unsigned lo, unsigned hi)
{
    if (mode_is("noperm"))
        return 4; /* NVML_ERROR_NO_PERMISSION */
    if (lo != 0xffffff01u || hi != 0xffffff01u)
        return 2;
    say("lock", gpu_of(d));
    return 0;
}

int nvmlDeviceResetGpuLockedClocks(nvml_device d)
{
    say("reset", gpu_of(d));
    return 0;
}

int nvmlDeviceGetClockInfo(nvml_device d, int type, unsigned *mhz)
{
    (void)d, (void)type;
    *mhz = 1590;
    return 0;
}

int nvmlDeviceGetCurrentClocksEventReasons(nvml_device d, unsigned long long *reasons)
{
    *reasons = mode_is("preset") && gpu_of(d) == 1 ? 0x2 : 0x1;
    return 0;
}

const char *nvmlErrorString(int rc)
{
    return rc == 4 ? "Insufficient Permissions" : "Invalid Argument";
}
