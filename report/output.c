#define _DEFAULT_SOURCE /* realpath */
#include "report/output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int td_c_numeric_begin(td_c_numeric *state, td_error *err)
{
    state->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (state->c_locale == (locale_t)0)
        return td_fail(err, "cannot create the C locale: %s", strerror(errno));
    state->previous = uselocale(state->c_locale);
    return 0;
}

void td_c_numeric_end(td_c_numeric *state)
{
    uselocale(state->previous);
    freelocale(state->c_locale);
    state->c_locale = (locale_t)0;
}

typedef struct sort_item {
    const char *kernel;
    uint64_t id;
    td_launch_ref ref;
} sort_item;

static int by_launch_order(const sort_item *x, const sort_item *y)
{
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->ref.dev != y->ref.dev)
        return x->ref.dev < y->ref.dev ? -1 : 1;
    return x->ref.index < y->ref.index ? -1 : (x->ref.index > y->ref.index);
}

static int by_order(const void *a, const void *b)
{
    return by_launch_order(a, b);
}

static int by_kernel_then_order(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    int c = strcmp(x->kernel, y->kernel);
    return c ? c : by_launch_order(x, y);
}

int td_launches_in_order(const td_result *res, td_launch_ref **out, size_t *n,
                         td_error *err)
{
    size_t total = 0;
    for (size_t d = 0; d < res->n_devices; d++)
        total += res->devices[d].n_launches;
    sort_item *items = malloc((total ? total : 1) * sizeof *items);
    *out = malloc((total ? total : 1) * sizeof **out);
    if (!items || !*out) {
        free(items);
        free(*out);
        *out = NULL;
        return td_fail(err, "out of memory");
    }
    size_t k = 0;
    for (size_t d = 0; d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_launches; i++) {
            const td_launch *l = &res->devices[d].launches[i];
            items[k++] = (sort_item){l->kernel, l->id, {d, i, 0}};
        }
    /* Invocation numbers: launch order within each kernel. */
    qsort(items, total, sizeof *items, by_kernel_then_order);
    for (size_t i = 0; i < total; i++)
        items[i].ref.invocation =
            i > 0 && strcmp(items[i].kernel, items[i - 1].kernel) == 0
                ? items[i - 1].ref.invocation + 1 : 0;
    qsort(items, total, sizeof *items, by_order);
    for (size_t i = 0; i < total; i++)
        (*out)[i] = items[i].ref;
    free(items);
    *n = total;
    return 0;
}

void td_csv_field(FILE *out, const char *text)
{
    if (!strpbrk(text, ",\"\r\n")) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

void td_csv_number(FILE *out, double value, int decimals)
{
    if (isfinite(value)) /* the callers checked the values: never "inf" */
        fprintf(out, "%.*f", decimals, value);
}

/* The folder of path ("." when it has none) and its file name: libgen.h,
 * on copies (dirname and basename may modify their argument). */
static void folder_of(const char *path, char *buf, size_t size)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(buf, size, "%s", dirname(copy));
}

static void file_name_of(const char *path, char *buf, size_t size)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(buf, size, "%s", basename(copy));
}

/* The absolute name of path, its folder resolved; "" when the folder
 * cannot be. */
static void absolute_name(const char *path, char *buf, size_t size)
{
    char folder[PATH_MAX], real[PATH_MAX], base[PATH_MAX];
    folder_of(path, folder, sizeof folder);
    file_name_of(path, base, sizeof base);
    int len = realpath(folder, real) ? snprintf(buf, size, "%s/%s",
                                                strcmp(real, "/") == 0 ? "" : real, base)
                                     : -1;
    if (len < 0 || (size_t)len >= size)
        buf[0] = '\0'; /* unresolved or too long: no name */
}

int td_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char na[PATH_MAX + 256], nb[PATH_MAX + 256];
    absolute_name(a, na, sizeof na);
    absolute_name(b, nb, sizeof nb);
    return na[0] && strcmp(na, nb) == 0;
}

static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/* Creates and removes a file of the name td_output_open writes first:
 * the folder takes new files (root's access() says yes to /proc, a
 * read-only mount or a full quota). */
static int probe_create(const char *path, const char *folder, td_error *err)
{
    char tmp[PATH_MAX + 64];
    td_output_temp_name(path, tmp, sizeof tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return td_fail(err, "cannot write %s: %s cannot take a new file (%s); choose another "
                       "folder", path, folder, strerror(errno));
    close(fd);
    unlink(tmp);
    return 0;
}

static int check_folder(const char *path, td_error *err)
{
    char folder[PATH_MAX];
    struct stat st;
    folder_of(path, folder, sizeof folder);
    if (stat(folder, &st) != 0)
        return td_fail(err, "cannot write %s: folder %s does not exist; create it or choose "
                       "another name", path, folder);
    if (!S_ISDIR(st.st_mode))
        return td_fail(err, "cannot write %s: %s is not a folder", path, folder);
    if (access(folder, W_OK | X_OK) != 0)
        return td_fail(err, "cannot write %s: no permission to write in %s", path, folder);
    return probe_create(path, folder, err);
}

int td_output_check(const char *path, int force, const char *const *inputs,
                    size_t n_inputs, td_error *err)
{
    if (strcmp(path, "-") == 0)
        return 0;
    if (!path[0])
        return td_fail(err, "an output file name is empty");
    for (size_t i = 0; i < n_inputs; i++)
        if (inputs[i] && td_same_file(path, inputs[i]))
            return td_fail(err, "%s is also an input of this command%s%s%s: writing it would "
                           "destroy it; choose another output name", path,
                           strcmp(path, inputs[i]) ? " (" : "",
                           strcmp(path, inputs[i]) ? inputs[i] : "",
                           strcmp(path, inputs[i]) ? ")" : "");
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return td_fail(err, "%s is %s: topdown replaces only regular files, even with "
                           "-f; choose another output name", path, kind_of(st.st_mode));
        if (!force)
            return td_fail(err, "%s already exists: add -f to overwrite it, or choose "
                           "another name", path);
    }
    return check_folder(path, err);
}

int td_output_check_distinct(const char *const *paths, size_t n, td_error *err)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (paths[i] && paths[j] && strcmp(paths[i], "-") != 0 &&
                strcmp(paths[j], "-") != 0 && td_same_file(paths[i], paths[j]))
                return td_fail(err, "two outputs name the same file %s; give each its own",
                               paths[i]);
    return 0;
}

void td_output_temp_name(const char *path, char *buf, size_t size)
{
    static unsigned counter;
    snprintf(buf, size, "%s.tmp-%ld-%u", path, (long)getpid(), counter++);
}

int td_output_open(td_output *o, const char *path, td_error *err)
{
    memset(o, 0, sizeof *o);
    snprintf(o->path, sizeof o->path, "%s", path);
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        td_output_temp_name(path, o->tmp, sizeof o->tmp);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return td_fail(err, "cannot write %s: %s", path, strerror(errno));
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int saved = errno;
        close(fd);
        unlink(o->tmp);
        return td_fail(err, "cannot write %s: %s", path, strerror(saved));
    }
    return 0;
}

int td_output_commit(td_output *o, td_error *err)
{
    if (o->f == stdout) {
        int failed = fflush(stdout) != 0 || ferror(stdout);
        o->f = NULL;
        return failed ? td_fail(err, "error writing standard output: %s", strerror(errno))
                      : 0;
    }
    int failed = ferror(o->f);
    errno = 0;
    failed |= fflush(o->f) != 0;
    int saved = errno;
    failed |= fclose(o->f) != 0;
    if (!saved)
        saved = errno;
    o->f = NULL;
    if (!failed && rename(o->tmp, o->path) == 0)
        return 0;
    if (!failed)
        saved = errno;
    unlink(o->tmp);
    return td_fail(err, "error writing %s: %s; the file was not changed", o->path,
                   saved ? strerror(saved) : "write failed (disk full?)");
}

void td_output_discard(td_output *o)
{
    if (o->f && o->f != stdout) {
        fclose(o->f);
        unlink(o->tmp);
    }
    o->f = NULL;
}
