/* The "next:" lines after a text report: what to run on the result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topdown/cli.h"
#include "topdown/commands.h"

/* How topdown was run: the hints name it so ("build/topdown" when it is
 * not on PATH). */
static const char *program = "topdown";

void cmd_hint_program(const char *argv0)
{
    if (argv0 && strchr(argv0, '/') && strlen(argv0) < 512)
        program = argv0;
}

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

/* One hint: what, then the command; the command on a line of its own
 * where both would pass 100 columns. */
static void hint(const char *what, const char *command)
{
    if (2 + 37 + strlen(command) <= 100)
        fprintf(stderr, "  %-37s%s\n", what, command);
    else
        fprintf(stderr, "  %s\n    %s\n", what, command);
}

void cmd_print_hint(const char *path, const cli *c, int has_data)
{
    if (!has_data || !hints_wanted(c))
        return;
    if (fflush(stdout) != 0 || ferror(stdout))
        return; /* the report did not get there: main says so, nothing else */
    char file[1024], prog[1100], csv[64], png[64], command[2400];
    shell_word(file, sizeof file, path);
    shell_word(prog, sizeof prog, program);
    static const char *const csv_exts[] = {"csv", NULL};
    static const char *const png_exts[] = {"png", "dat", "gp", NULL};
    fresh_name(csv, sizeof csv, "kernels", csv_exts);
    fresh_name(png, sizeof png, "bars", png_exts);
    fprintf(stderr, "topdown: the result is %s; next:\n", path);
    /* never the command just run: report -l 4 --desc, report --csv */
    if (c->report.level != 4 || !c->report.desc) {
        snprintf(command, sizeof command, "%s report %s -l 4 --desc", prog, file);
        hint("stall reasons, each node explained:", command);
    }
    snprintf(command, sizeof command, "%s plot %s -o %s", prog, file, png);
    hint("stacked bars per kernel:", command);
    if (!c->csv) {
        snprintf(command, sizeof command, "%s report %s -l 3 --csv %s", prog, file, csv);
        hint("one CSV row per kernel:", command);
    }
    snprintf(command, sizeof command, "%s diff %s OTHER.json", prog, file);
    hint("compare with another run:", command);
    if (c->profile.source) {
        snprintf(command, sizeof command, "%s source %s '#1'", prog, file);
        hint("hottest source lines (--source):", command);
    }
}
