#include "metrics/file_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A regular file, or a pipe some program writes to; never a folder or a
 * device (/dev/zero would never end). */
static int check_kind(int fd, const char *path, int *is_fifo, td_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return td_fail(err, "cannot read %s: %s", path, strerror(errno));
    *is_fifo = S_ISFIFO(st.st_mode);
    if (S_ISREG(st.st_mode) || *is_fifo)
        return 0;
    return td_fail(err, "%s is %s, not a file; give the path of a file", path,
                   S_ISDIR(st.st_mode) ? "a folder" : "a device or socket");
}

static int blocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
}

/* Reads fd to its end. It was opened non-blocking so that a FIFO with no
 * writer does not hang: its first read then says end of file at once. */
static int read_all(int fd, int is_fifo, const char *path, char **text, size_t *len,
                    td_error *err)
{
    size_t cap = 1 << 16, used = 0;
    int waiting = 1; /* non-blocking until the FIFO proved to have a writer */
    char *buf = malloc(cap + 1);
    while (buf) {
        if (used == cap) {
            char *bigger = realloc(buf, cap * 2 + 1);
            if (!bigger)
                break;
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + used, cap - used);
        if (n > 0 || (n < 0 && errno == EAGAIN)) {
            if (waiting && blocking(fd) == 0)
                waiting = 0;
            used += n > 0 ? (size_t)n : 0;
        } else if (n == 0) {
            if (is_fifo && waiting && used == 0) {
                free(buf);
                return td_fail(err, "%s is a FIFO that no program is writing to; give a file",
                               path);
            }
            buf[used] = '\0';
            *text = buf;
            *len = used;
            return 0;
        } else if (errno != EINTR) {
            int saved = errno;
            free(buf);
            return td_fail(err, "cannot read %s: %s", path, strerror(saved));
        }
    }
    free(buf);
    return td_fail(err, "out of memory reading %s", path);
}

int td_read_text_file(const char *path, char **text, size_t *len, td_error *err)
{
    int fd = strcmp(path, "-") == 0 ? dup(STDIN_FILENO)
                                    : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return td_fail(err, "cannot open %s: %s", path, strerror(errno));
    int is_fifo = 0;
    int rc = check_kind(fd, path, &is_fifo, err);
    if (rc == 0)
        rc = read_all(fd, is_fifo, path, text, len, err);
    close(fd);
    return rc;
}
