/* td_clock_ops on NVML (the driver's libnvidia-ml.so.1), loaded with
 * dlopen so topdown runs, and reads results, where no driver is. The few
 * NVML declarations below are its stable C ABI (nvml.h); the toolkit here
 * ships no nvml.h. Base clock = NVML_CLOCK_LIMIT_ID_TDP for both bounds
 * of nvmlDeviceSetGpuLockedClocks: the rated (TDP) frequency, which is
 * what ncu's and CUPTI's "base" lock to. */
#include "topdown/clocks.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvml_ret;
typedef void *nvml_device;
#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_LIMIT_ID_TDP 0xffffff01u
/* nvmlClocksEventReasonApplicationsClocksSetting (formerly
 * ...ThrottleReasonUserDefinedClocks): clocks set by nvidia-smi -lgc/-ac. */
#define NVML_REASON_USER_CLOCKS 0x2ull

typedef struct nvml_api {
    void *lib;
    nvml_ret (*init)(void);
    nvml_ret (*shutdown)(void);
    nvml_ret (*count)(unsigned *);
    nvml_ret (*by_index)(unsigned, nvml_device *);
    nvml_ret (*by_uuid)(const char *, nvml_device *);
    nvml_ret (*set_locked)(nvml_device, unsigned, unsigned);
    nvml_ret (*reset_locked)(nvml_device);
    nvml_ret (*clock_info)(nvml_device, int, unsigned *);
    nvml_ret (*default_app_clock)(nvml_device, int, unsigned *);
    nvml_ret (*reasons)(nvml_device, unsigned long long *);
    const char *(*error_string)(nvml_ret);
    nvml_device gpus[TD_CLOCK_MAX_GPUS];
    size_t n_gpus;
    char last[128];
} nvml_api;

static nvml_api api;

static td_clk_status status_of(nvml_ret rc)
{
    if (rc != NVML_SUCCESS) {
        const char *text = api.error_string ? api.error_string(rc) : NULL;
        snprintf(api.last, sizeof api.last, "%s (error %d)", text ? text : "?", rc);
    }
    switch (rc) {
    case NVML_SUCCESS: return TD_CLK_OK;
    case NVML_ERROR_NO_PERMISSION: return TD_CLK_NO_PERMISSION;
    case NVML_ERROR_NOT_SUPPORTED: return TD_CLK_NOT_SUPPORTED;
    default: return TD_CLK_ERROR;
    }
}

#define LOAD(field, name) (*(void **)&api.field = dlsym(api.lib, name))

static int load_api(void)
{
    /* TOPDOWN_NVML_LIB: another library with NVML's calls (the tests' fake). */
    const char *path = getenv("TOPDOWN_NVML_LIB");
    api.lib = dlopen(path && *path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!api.lib)
        return -1;
    LOAD(init, "nvmlInit_v2");
    LOAD(shutdown, "nvmlShutdown");
    LOAD(count, "nvmlDeviceGetCount_v2");
    LOAD(by_index, "nvmlDeviceGetHandleByIndex_v2");
    LOAD(by_uuid, "nvmlDeviceGetHandleByUUID");
    LOAD(set_locked, "nvmlDeviceSetGpuLockedClocks");
    LOAD(reset_locked, "nvmlDeviceResetGpuLockedClocks");
    LOAD(clock_info, "nvmlDeviceGetClockInfo");
    LOAD(default_app_clock, "nvmlDeviceGetDefaultApplicationsClock");
    LOAD(error_string, "nvmlErrorString");
    if (!LOAD(reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
        LOAD(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (api.init && api.shutdown && api.count && api.by_index && api.by_uuid &&
        api.set_locked && api.reset_locked && api.clock_info)
        return 0;
    snprintf(api.last, sizeof api.last, "this driver's NVML lacks the locked-clocks calls");
    return 1;
}

/* The GPUs the app sees: CUDA_VISIBLE_DEVICES's, else all. NVML numbers
 * GPUs in PCI bus order, as CUDA does with CUDA_DEVICE_ORDER=PCI_BUS_ID
 * (a UUID is exact in any order). */
static td_clk_status pick_gpus(void)
{
    td_visible_gpu visible[TD_CLOCK_MAX_GPUS];
    int n = td_clocks_visible(getenv("CUDA_VISIBLE_DEVICES"), visible, TD_CLOCK_MAX_GPUS);
    if (n < 0) {
        unsigned count = 0;
        td_clk_status st = status_of(api.count(&count));
        for (unsigned i = 0; st == TD_CLK_OK && i < count && i < TD_CLOCK_MAX_GPUS; i++)
            if ((st = status_of(api.by_index(i, &api.gpus[api.n_gpus]))) == TD_CLK_OK)
                api.n_gpus++;
        return st;
    }
    for (int i = 0; i < n; i++) {
        if (strncmp(visible[i].uuid, "MIG-", 4) == 0) {
            snprintf(api.last, sizeof api.last, "%s is a MIG instance", visible[i].uuid);
            return TD_CLK_NOT_SUPPORTED;
        }
        nvml_ret rc = visible[i].index < 0
                          ? api.by_uuid(visible[i].uuid, &api.gpus[api.n_gpus])
                          : api.by_index((unsigned)visible[i].index, &api.gpus[api.n_gpus]);
        if (rc != NVML_SUCCESS)
            return status_of(rc);
        api.n_gpus++;
    }
    return TD_CLK_OK;
}

static td_clk_status nvml_open(void *ctx, size_t *n_gpus)
{
    (void)ctx;
    memset(&api, 0, sizeof api);
    int loaded = load_api();
    if (loaded < 0)
        return TD_CLK_NO_LIBRARY;
    if (loaded > 0)
        return TD_CLK_NOT_SUPPORTED;
    td_clk_status st = status_of(api.init());
    if (st != TD_CLK_OK)
        return st;
    st = pick_gpus();
    *n_gpus = api.n_gpus;
    return st;
}

/* A failed query says "not locked": the lock itself then tells. */
static td_clk_status nvml_is_locked(void *ctx, size_t gpu, int *locked)
{
    (void)ctx;
    unsigned long long reasons = 0;
    *locked = api.reasons && api.reasons(api.gpus[gpu], &reasons) == NVML_SUCCESS &&
              (reasons & NVML_REASON_USER_CLOCKS);
    return TD_CLK_OK;
}

static td_clk_status nvml_lock_base(void *ctx, size_t gpu)
{
    (void)ctx;
    nvml_ret rc = api.set_locked(api.gpus[gpu], NVML_CLOCK_LIMIT_ID_TDP, NVML_CLOCK_LIMIT_ID_TDP);
    unsigned mhz = 0;
    /* Drivers older than the symbolic limits: the default applications
     * clock, which is the base clock of datacenter GPUs. */
    if (rc == NVML_ERROR_INVALID_ARGUMENT && api.default_app_clock &&
        api.default_app_clock(api.gpus[gpu], NVML_CLOCK_GRAPHICS, &mhz) == NVML_SUCCESS)
        rc = api.set_locked(api.gpus[gpu], mhz, mhz);
    return status_of(rc);
}

static td_clk_status nvml_clock_mhz(void *ctx, size_t gpu, unsigned *mhz)
{
    (void)ctx;
    return status_of(api.clock_info(api.gpus[gpu], NVML_CLOCK_GRAPHICS, mhz));
}

static td_clk_status nvml_reset(void *ctx, size_t gpu)
{
    (void)ctx;
    return status_of(api.reset_locked(api.gpus[gpu]));
}

static const char *nvml_last_error(void *ctx)
{
    (void)ctx;
    return api.last;
}

static void nvml_close(void *ctx)
{
    (void)ctx;
    if (api.shutdown)
        api.shutdown();
    if (api.lib)
        dlclose(api.lib);
    memset(&api, 0, sizeof api);
}

const td_clock_ops *td_nvml_clock_ops(void)
{
    static const td_clock_ops ops = {NULL,           nvml_open,  nvml_is_locked,
                                     nvml_lock_base, nvml_clock_mhz, nvml_reset,
                                     nvml_last_error, nvml_close};
    return &ops;
}
