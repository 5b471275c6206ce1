/* NVTX_INJECTION64_PATH for the app. NVTX reaches a tool only through the
 * library this variable names, which NVTX reads once, at the app's first
 * NVTX call: often before cuInit loads topdown's injection library, so the
 * injection library cannot set it; the launcher does, before exec. It
 * names the libcupti the injection library links, so that CUPTI's NVTX
 * callback domain sees the ranges (topdown/inject/nvtx.c). */
#ifndef TD_NVTX_ENV_H
#define TD_NVTX_ENV_H

#include <stddef.h>

/* The absolute path of the libcupti that inject_lib loads, found by
 * loading it as the app would (same search path); -1 when it does not
 * load (no driver) or links no libcupti. */
int td_cupti_path_of(const char *inject_lib, char *out, size_t size);

/* The absolute path of the libcupti this process has loaded; -1: none. */
int td_cupti_path_loaded(char *out, size_t size);

/* What the app gets: *value (empty: leave the variable alone) and a note
 * for the user (empty: nothing to say). The libcupti is the launcher's own
 * when it has one loaded, else the one inject_lib loads; none when
 * inject_lib cannot be read. A user's own value is kept; the
 * note says so when it is not a libcupti and regions were asked for
 * (wanted: --nvtx-include/--nvtx-exclude given). */
void td_nvtx_env_plan(const char *inject_lib, const char *user_value, int wanted, char *value,
                      size_t value_size, char *note, size_t note_size);

#endif
