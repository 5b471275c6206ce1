/* NVTX_INJECTION64_PATH for the app (topdown/nvtx_env.c): the libcupti a
 * library loads is found by loading it (here the test library that links
 * only CUPTI, as the injection library needs the driver), a user's own
 * value is kept, and the note says so only when NVTX filters were asked
 * for. */
#include "../../topdown/nvtx_env.c" /* first: it defines _GNU_SOURCE */

#include <unistd.h>

#include "../check.h"

int main(void)
{
    char lib[4096], path[4096], note[1024];
    snprintf(lib, sizeof lib, "%s/tests/gpu/libtd_other_subscriber.so",
             getenv("TOPDOWN_BUILD_DIR") ? getenv("TOPDOWN_BUILD_DIR") : ".");
    CHECK(access(lib, R_OK) == 0);

    CHECK(td_cupti_path_of(lib, path, sizeof path) == 0);
    CHECK(path[0] == '/');
    CHECK(strstr(path, "/libcupti.so") != NULL);
    CHECK(access(path, R_OK) == 0);
    CHECK(td_cupti_path_of("/nonexistent/libnothing.so", path, sizeof path) == -1);
    /* With the library loaded, this process's own libcupti is the same one
     * (what the launcher, which links it, hands the app without loading
     * the injection library and the driver). */
    char found_by_loading[4096], loaded[4096];
    CHECK(td_cupti_path_of(lib, found_by_loading, sizeof found_by_loading) == 0);
    void *keep = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
    CHECK(keep != NULL);
    CHECK(td_cupti_path_loaded(loaded, sizeof loaded) == 0);
    CHECK(strcmp(loaded, found_by_loading) == 0);

    /* No value of the user's: libcupti's path, nothing to say. */
    td_nvtx_env_plan(lib, NULL, 1, path, sizeof path, note, sizeof note);
    CHECK(strstr(path, "/libcupti.so") != NULL);
    CHECK(note[0] == '\0');
    /* The user's own tool: kept; said when filters were asked for. */
    td_nvtx_env_plan(lib, "/opt/tool/libnvtxtool.so", 1, path, sizeof path, note, sizeof note);
    CHECK(path[0] == '\0');
    CHECK(strstr(note, "NVTX_INJECTION64_PATH=/opt/tool/libnvtxtool.so is kept") != NULL);
    td_nvtx_env_plan(lib, "/opt/tool/libnvtxtool.so", 0, path, sizeof path, note, sizeof note);
    CHECK(path[0] == '\0' && note[0] == '\0');
    /* The user's own libcupti: kept, nothing to say. */
    td_nvtx_env_plan(lib, "/usr/local/cuda/lib64/libcupti.so.13", 1, path, sizeof path, note,
                     sizeof note);
    CHECK(path[0] == '\0' && note[0] == '\0');
    /* A library that does not load: no value; said when filters were asked for. */
    td_nvtx_env_plan("/nonexistent/libtopdown_inject.so", NULL, 1, path, sizeof path, note,
                     sizeof note);
    CHECK(path[0] == '\0');
    CHECK(strstr(note, "libcupti was not found") != NULL);
    if (keep)
        dlclose(keep);
    return td_check_summary();
}
