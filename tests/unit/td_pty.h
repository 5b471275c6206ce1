/* Runs topdown on a terminal (a pseudo-terminal of cols columns) for the
 * tests of what a terminal gets: width, colour. */
#ifndef TD_PTY_H
#define TD_PTY_H

#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs topdown with args (NULL-ended) on a terminal of cols columns, with
 * env ("NAME=value" pairs, NULL-ended) set and COLUMNS unset unless env
 * sets it; what it printed, its "\r\n" as "\n", into out. Its exit status,
 * or -1. */
static inline int td_pty_run(int cols, const char *const *env, const char *const *args,
                             char *out, size_t size)
{
    struct winsize ws = {.ws_row = 50, .ws_col = (unsigned short)cols};
    int fd;
    pid_t pid = forkpty(&fd, NULL, NULL, &ws);
    if (pid < 0)
        return -1;
    if (pid == 0) {
        unsetenv("COLUMNS");
        unsetenv("NO_COLOR");
        for (size_t i = 0; env && env[i]; i++) {
            char name[64];
            size_t eq = strcspn(env[i], "=");
            snprintf(name, sizeof name, "%.*s", (int)eq, env[i]);
            setenv(name, env[i][eq] ? env[i] + eq + 1 : "", 1);
        }
        const char *argv[32] = {"topdown"};
        for (size_t i = 0; args[i] && i < 30; i++)
            argv[i + 1] = args[i];
        execv(getenv("TOPDOWN_BIN"), (char *const *)argv);
        _exit(127);
    }
    size_t n = 0;
    char buf[4096];
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0) /* EIO once the child is gone */
        for (ssize_t i = 0; i < got; i++)
            if (buf[i] != '\r' && n + 1 < size)
                out[n++] = buf[i];
    out[n] = '\0';
    close(fd);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The longest line of text. */
static inline size_t td_longest_line(const char *text)
{
    size_t longest = 0;
    while (*text) {
        size_t len = strcspn(text, "\n");
        if (len > longest)
            longest = len;
        text += len + (text[len] == '\n');
    }
    return longest;
}

#endif
