/* A whole profiling run (td_profile_run): the app's first run under the
 * collector (profile.c), then the later runs its mode asks for: one per
 * counter group for --replay-mode application (app_replay.c), one with PC
 * sampling for --time-sampled (time_sampled.c). Those call back into
 * profile.c's runs of the app, never into this file. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topdown/nvtx_env.h"
#include "topdown/profile.h"

/* specs one per line (nvtx_filter.h's list form); -1 when they do not fit. */
static int join_lines(const char *const *specs, size_t n, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(out + len, size - len, "%s%s", i ? "\n" : "", specs[i]);
        if (w < 0 || (size_t)w >= size - len)
            return -1;
        len += (size_t)w;
    }
    return 0;
}

int td_profile_run(const td_profile_options *opts, td_profile_outcome *out, td_result *res,
                   td_error *err)
{
    memset(out, 0, sizeof *out);
    memset(res, 0, sizeof *res);
    char app[PATH_MAX], lib[PATH_MAX], archs[PATH_MAX], spool[PATH_MAX + 16] = "";
    int reserved = 0;
    if (!opts->app_argv || !opts->app_argv[0])
        return td_fail(err, "no app to profile: topdown [options] [--] APP [ARGS...]");
    if (td_profile_prepare(opts, app, lib, archs, err))
        return -1;
    static char nvtx_path[PATH_MAX], include[8192], exclude[8192];
    if (opts->no_nvtx) { /* the app's NVTX calls stay where they were going */
        nvtx_path[0] = '\0';
        out->nvtx_note[0] = '\0';
    } else {
        td_nvtx_env_plan(lib, getenv("NVTX_INJECTION64_PATH"),
                         opts->n_nvtx_include + opts->n_nvtx_exclude > 0, nvtx_path,
                         sizeof nvtx_path, out->nvtx_note, sizeof out->nvtx_note);
    }
    if (join_lines(opts->nvtx_include, opts->n_nvtx_include, include, sizeof include) ||
        join_lines(opts->nvtx_exclude, opts->n_nvtx_exclude, exclude, sizeof exclude))
        return td_fail(err, "--nvtx-include/--nvtx-exclude: the specs are too long together "
                       "(at most %zu characters)", sizeof include - 1);
    td_collect_opts collect;
    if (td_profile_collect_opts(opts, archs, include, exclude, td_collect_getenv, &collect)) {
        td_collect_opts_free(&collect);
        return td_fail(err, "out of memory for the collector's options");
    }
    launch_plan plan = {opts, app, lib, spool, &collect, nvtx_path, 0};
    int rc = td_profile_run_first(&plan, spool, sizeof spool, out, res, &reserved, err);
    if (rc == 0 && collect.app_pass == 0 && out->result_written)
        rc = td_app_replay_passes(&plan, &collect, out, res, err);
    if (rc == 0 && opts->time_sampled && out->result_written)
        rc = td_time_sampled_pass(&plan, &collect, out, res, err);
    td_collect_opts_free(&collect);
    if (rc) {
        if (reserved)
            unlink(out->result_path);
        return -1;
    }
    if (reserved && !out->result_written)
        unlink(out->result_path); /* nothing measured: no empty file, no -N pile-up */
    return 0;
}
