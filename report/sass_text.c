/* SASS text from nvdisasm (report/sass_text.h). */
#include "report/sass_text.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_OUTPUT (256u << 20) /* nvdisasm's text of one cubin, at most */

/* The function a ".text.<name>" line starts, into buf; 0 if none. */
static int section_name(const char *line, char *buf, size_t size)
{
    const char *p = strstr(line, ".text.");
    if (!p)
        return 0;
    p += 6;
    size_t n = strcspn(p, ",:\" \t\r\n");
    if (n >= size)
        return 0;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return 1;
}

static int add_line(td_sass_listing *out, uint64_t pc, const char *text, size_t len)
{
    td_sass_line *bigger = realloc(out->lines, (out->n + 1) * sizeof *bigger);
    if (!bigger)
        return -1;
    out->lines = bigger;
    td_sass_line *l = &bigger[out->n++];
    l->pc = pc;
    while (len && (text[0] == ' ' || text[0] == '\t'))
        text++, len--;
    snprintf(l->text, sizeof l->text, "%.*s", (int)len, text);
    return 0;
}

/* A line of code: spaces, the offset as hex digits in a C comment, the
 * instruction up to its ';' ("@P0 BRA 0x1f0 ;"), then its encoding in
 * another comment. */
static int parse_instruction(const char *line, td_sass_listing *out)
{
    const char *open = strstr(line, "/*");
    if (!open)
        return 0;
    char *end = NULL;
    unsigned long long pc = strtoull(open + 2, &end, 16);
    if (!end || end == open + 2 || strncmp(end, "*/", 2) != 0)
        return 0;
    const char *text = end + 2;
    const char *semi = strchr(text, ';');
    if (!semi)
        return 0;
    return add_line(out, pc, text, (size_t)(semi + 1 - text));
}

int td_sass_parse(const char *text, const char *function, td_sass_listing *out, td_error *err)
{
    char current[1024] = "", line[1024];
    for (const char *at = text; *at;) {
        const char *nl = strchr(at, '\n');
        size_t len = nl ? (size_t)(nl - at) : strlen(at);
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), at);
        char name[1024];
        if (section_name(line, name, sizeof name))
            snprintf(current, sizeof current, "%s", name);
        else if (strcmp(current, function) == 0 && parse_instruction(line, out) < 0)
            return td_fail(err, "out of memory");
        at += len + (nl != NULL);
    }
    return 0;
}

/* nvdisasm's standard output, NULL when it could not run. */
static char *run_nvdisasm(const char *cubin_path)
{
    int fd[2];
    if (pipe(fd) != 0)
        return NULL;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&actions, fd[0]);
    char *argv[] = {"nvdisasm", "-c", (char *)cubin_path, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "nvdisasm", &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fd[1]);
    if (rc != 0) {
        close(fd[0]);
        return NULL;
    }
    size_t len = 0, cap = 1 << 16;
    char *text = malloc(cap);
    ssize_t n = 0;
    while (text && (n = read(fd[0], text + len, cap - len - 1)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        len += (size_t)n;
        if (len + 1 == cap) {
            char *bigger = cap < MAX_OUTPUT ? realloc(text, cap * 2) : NULL;
            if (!bigger) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            cap *= 2;
        }
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!text || n < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(text);
        return NULL;
    }
    text[len] = '\0';
    return text;
}

int td_sass_disassemble(const char *cubin_path, const char *function, td_sass_listing *out,
                        td_error *err)
{
    char *text = run_nvdisasm(cubin_path);
    if (!text)
        return 0;
    int rc = td_sass_parse(text, function, out, err);
    free(text);
    return rc;
}

const char *td_sass_at(const td_sass_listing *l, uint64_t pc)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->lines[i].pc == pc)
            return l->lines[i].text;
    return NULL;
}

void td_sass_free(td_sass_listing *l)
{
    free(l->lines);
    l->lines = NULL;
    l->n = 0;
}
