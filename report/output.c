#include "report/output.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

FILE *td_output_open(const char *path, td_error *err)
{
    if (strcmp(path, "-") == 0)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        td_fail(err, "cannot write %s: %s", path, strerror(errno));
    return f;
}

int td_output_close(FILE *f, const char *path, td_error *err)
{
    int failed = ferror(f);
    if (f == stdout)
        failed |= fflush(f) != 0;
    else
        failed |= fclose(f) != 0;
    if (failed)
        return td_fail(err, "error writing %s (disk full?)", path);
    return 0;
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
    if (!isnan(value))
        fprintf(out, "%.*f", decimals, value);
}
