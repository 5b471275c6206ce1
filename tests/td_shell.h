/* Running commands from tests: a shell command in a test folder with its
 * stdout and stderr kept in out.txt and err.txt there, and looking into
 * those files and the results written there. Shared by the launcher and collection tests. */
#ifndef TD_SHELL_H
#define TD_SHELL_H

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "metrics/result/result.h"

/* A stand-in app's shell words for the value of the collector's option
 * name (a string literal): its line of TOPDOWN_COLLECT (docs/COLLECTION.md)
 * with %3D and %25 turned back into '=' and '%' (in that order, so that
 * "%253D" is "%3D"); other escapes stay, which the tests' paths and
 * numbers need not (no control byte). No single quote, so it fits in
 * sh -c '...'. A printf format ("%%" is one '%'): the tests write their
 * scripts and commands with printf. */
#define TD_SHELL_OPTION(name) \
    "\"$(printf \"%%s\\n\" \"$TOPDOWN_COLLECT\" | " \
    "sed -n -e s/%%3D/=/g -e s/%%25/%%/g -e s/^" name "=//p)\""

/* Runs the printf-formatted command in dir; returns its exit code, or
 * 128+signal when a signal ended it. */
static inline int td_shell_run(const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int td_shell_run(const char *dir, const char *fmt, ...)
{
    char cmd[4096], full[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "cd %s && %s >out.txt 2>err.txt", dir, cmd);
    int status = system(full);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

/* Whether dir/name contains needle; says what it holds when not. */
static inline int td_shell_file_has(const char *dir, const char *name, const char *needle)
{
    char path[4096];
    static char text[1 << 16];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    int found = strstr(text, needle) != NULL;
    if (!found)
        fprintf(stderr, "%s lacks \"%s\":\n%s\n", name, needle, text);
    return found;
}

/* Loads dir/name; prints why when it cannot. */
static inline int td_shell_load_result(const char *dir, const char *name, td_result *res)
{
    char path[4096];
    td_error err = {{0}};
    snprintf(path, sizeof path, "%s/%s", dir, name);
    memset(res, 0, sizeof *res);
    if (td_result_load(path, res, &err) == 0)
        return 0;
    fprintf(stderr, "%s\n", err.msg);
    return -1;
}

/* dir/name's whole text (malloc'd), NULL when it cannot be read. */
static inline char *td_shell_read_file(const char *dir, const char *name)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    size_t n = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    if (text)
        text[n] = '\0';
    return text;
}

/* dir/name parsed as JSON (cJSON_Delete it), NULL when it is not. */
static inline cJSON *td_shell_read_json(const char *dir, const char *name)
{
    char *text = td_shell_read_file(dir, name);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    return root;
}

/* obj's number at key, -1 when absent or not a number. */
static inline double td_shell_json_num(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(item) ? item->valuedouble : -1;
}

/* obj's string at key, "" when absent or not a string. */
static inline const char *td_shell_json_str(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(item) ? item->valuestring : "";
}

/* dir/name's size in bytes; -1 when it cannot be read. */
static inline long td_shell_file_size(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (f)
        fclose(f);
    return size;
}

/* A test's start: TOPDOWN_BIN (an executable) and TOPDOWN_REPO_DIR from
 * ctest's environment, and its scratch folder made from dir, a mkdtemp
 * template. 0, or -1 with the reason printed. */
static inline int td_shell_start(char *dir, const char **bin, const char **src)
{
    *bin = getenv("TOPDOWN_BIN");
    *src = getenv("TOPDOWN_REPO_DIR");
    if (!*bin || !*src || access(*bin, X_OK) != 0) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_REPO_DIR must be set\n");
        return -1;
    }
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

static inline void td_shell_remove_dir(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

#endif
