/* The "next:" lines after a text report: what to run on the result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topdown/commands.h"

/* Hints are for a person at a terminal: not into a pipe or a file, not
 * with --quiet or TOPDOWN_HINTS=0. */
static int hints_wanted(const cli *c)
{
    const char *env = getenv("TOPDOWN_HINTS");
    if (c->quiet || (env && strcmp(env, "0") == 0))
        return 0;
    return isatty(fileno(stderr));
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* STEM.EXT, or STEM-2.EXT, STEM-3.EXT... the first that exists with none
 * of the extensions (a plot also writes .dat and .gp): the hint works when
 * run, and again. */
static void fresh_name(char *buf, size_t size, const char *stem, const char *const *exts)
{
    char number[16] = "", name[256];
    for (int n = 2; n < 1000; n++) {
        int taken = 0;
        for (const char *const *e = exts; *e && !taken; e++) {
            snprintf(name, sizeof name, "%s%s.%s", stem, number, *e);
            taken = exists(name);
        }
        if (!taken)
            break;
        snprintf(number, sizeof number, "-%d", n);
    }
    snprintf(buf, size, "%s%s.%s", stem, number, exts[0]);
}

/* The path as one shell word: as it is when it needs no quoting. */
static void shell_word(char *buf, size_t size, const char *path)
{
    if (path[0] && strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789_./+-,:=@%") == strlen(path)) {
        snprintf(buf, size, "%s", path);
        return;
    }
    size_t n = 0;
    buf[n++] = '\'';
    for (const char *p = path; *p && n + 5 < size; p++) {
        if (*p == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *p;
        }
    }
    buf[n++] = '\'';
    buf[n] = '\0';
}

void cmd_print_hint(const char *path, const cli *c, int has_data)
{
    if (!has_data || !hints_wanted(c))
        return;
    if (fflush(stdout) != 0 || ferror(stdout))
        return; /* the report did not get there: main says so, nothing else */
    char file[1024], csv[64], png[64];
    shell_word(file, sizeof file, path);
    static const char *const csv_exts[] = {"csv", NULL};
    static const char *const png_exts[] = {"png", "dat", "gp", NULL};
    fresh_name(csv, sizeof csv, "kernels", csv_exts);
    fresh_name(png, sizeof png, "bars", png_exts);
    fprintf(stderr, "topdown: the result is %s; next:\n", path);
    /* never the command just run: report -l 4 --desc, report --csv */
    if (c->report.level != 4 || !c->report.desc)
        fprintf(stderr, "  stall reasons, each node explained:  topdown report %s -l 4 --desc\n",
                file);
    fprintf(stderr, "  stacked bars per kernel:             topdown plot %s -o %s\n", file,
            png);
    if (!c->csv)
        fprintf(stderr, "  one CSV row per kernel:              topdown report %s -l 3 --csv %s\n",
                file, csv);
    fprintf(stderr, "  compare with another run:            topdown diff %s OTHER.json\n", file);
    if (c->profile.source)
        fprintf(stderr, "  hottest source lines (--source):     topdown source %s '#1'\n", file);
}
