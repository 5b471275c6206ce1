#define _GNU_SOURCE /* dl_iterate_phdr */
#include "topdown/nvtx_env.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct found {
    char *out;
    size_t size;
    int ok;
} found;

static int is_cupti(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libcupti.so", 11) == 0;
}

static int find_cupti(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    found *f = data;
    if (f->ok || !info->dlpi_name || !is_cupti(info->dlpi_name))
        return 0;
    char resolved[PATH_MAX];
    const char *path = realpath(info->dlpi_name, resolved) ? resolved : info->dlpi_name;
    f->ok = (size_t)snprintf(f->out, f->size, "%s", path) < f->size;
    return f->ok;
}

int td_cupti_path_loaded(char *out, size_t size)
{
    found f = {out, size, 0};
    dl_iterate_phdr(find_cupti, &f);
    return f.ok ? 0 : -1;
}

int td_cupti_path_of(const char *inject_lib, char *out, size_t size)
{
    void *lib = dlopen(inject_lib, RTLD_LAZY | RTLD_LOCAL);
    if (!lib)
        return -1;
    int ok = td_cupti_path_loaded(out, size);
    dlclose(lib);
    return ok;
}

void td_nvtx_env_plan(const char *inject_lib, const char *user_value, int wanted, char *value,
                      size_t value_size, char *note, size_t note_size)
{
    value[0] = '\0';
    note[0] = '\0';
    if (user_value && user_value[0]) {
        if (!is_cupti(user_value) && wanted)
            snprintf(note, note_size, "NVTX_INJECTION64_PATH=%s is kept (your own NVTX tool), "
                     "so NVTX ranges do not reach topdown: --nvtx-include/--nvtx-exclude "
                     "match no range and launches have no region; unset it to use them",
                     user_value);
        return;
    }
    /* The launcher links the libcupti the injection library links (one
     * build, one RUNPATH, the app's search path): loading the injection
     * library to ask would also load the driver and libnvperf_host, 70-80
     * ms of every run's start (H100). */
    if (access(inject_lib, R_OK) != 0 ||
        (td_cupti_path_loaded(value, value_size) != 0 &&
         td_cupti_path_of(inject_lib, value, value_size) != 0)) {
        value[0] = '\0';
        if (wanted)
            snprintf(note, note_size, "libcupti was not found next to the injection library "
                     "(%s): NVTX ranges are not recorded", inject_lib);
    }
}
