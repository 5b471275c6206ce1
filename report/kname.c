#include "report/kname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_CHARS 36 /* the differing part kept in a label, at first */
#define DIFF_STEP 8   /* more of it, while labels of a group are alike */

static int opens(char c)
{
    return c == '<' || c == '(' || c == '[' || c == '{';
}

static int closes(char c)
{
    return c == '>' || c == ')' || c == ']' || c == '}';
}

const char *td_kernel_mangled(const td_result *res, const char *name)
{
    for (size_t d = 0; res && d < res->n_devices; d++)
        for (size_t i = 0; i < res->devices[d].n_launches; i++) {
            const td_launch *l = &res->devices[d].launches[i];
            if (l->mangled && l->mangled[0] && strcmp(l->kernel, name) == 0)
                return l->mangled;
        }
    return name;
}

/* The name without "void " and namespace qualifiers ("at::native::",
 * "(anonymous namespace)::"), templates and parameters kept: what the
 * differing part of colliding names is taken from. */
static char *compact_name(const char *name)
{
    if (strncmp(name, "void ", 5) == 0)
        name += 5;
    size_t len = strlen(name);
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t used = 0, word = 0; /* word: where the current qualifier began in out */
    for (size_t i = 0; i < len; i++) {
        if (name[i] == ':' && name[i + 1] == ':') {
            used = word; /* drop "qualifier::" */
            i++;
            continue;
        }
        if (strncmp(name + i, "(anonymous namespace)", 21) == 0) {
            memcpy(out + used, name + i, 21);
            used += 21;
            i += 20;
            continue;
        }
        out[used++] = name[i];
        if (!(name[i] == '_' || (name[i] >= '0' && name[i] <= '9') ||
              (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z')))
            word = used;
    }
    out[used] = '\0';
    return out;
}

static size_t common_prefix(const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    return i;
}

static size_t common_suffix(const char *a, size_t la, const char *b, size_t lb)
{
    size_t i = 0;
    while (i < la && i < lb && a[la - 1 - i] == b[lb - 1 - i])
        i++;
    return i;
}

/* "base [differing part]": the window of compact name i that holds a
 * difference from every other name of its group, elided in the middle to
 * budget characters. */
static char *distinct_label(char *const *compact, size_t n_group, size_t i, const char *base,
                            size_t budget)
{
    const char *mine = compact[i];
    size_t len = strlen(mine), first = len, tail = len;
    for (size_t j = 0; j < n_group; j++) {
        if (j == i)
            continue;
        size_t p = common_prefix(mine, compact[j]);
        size_t s = common_suffix(mine, len, compact[j], strlen(compact[j]));
        first = p < first ? p : first;
        tail = s < tail ? s : tail;
    }
    size_t end = len - (tail < len - first ? tail : len - first);
    /* back to the start of the template argument the difference is in */
    const char *angle = strchr(mine, '<');
    size_t floor = angle ? (size_t)(angle - mine) + 1 : 0;
    while (first > floor && !strchr(",( ", mine[first - 1]))
        first--;
    /* on to where the brackets opened in it close ("Meta<1" -> "Meta<1>") */
    int depth = 0;
    for (size_t k = first; k < end; k++)
        depth += opens(mine[k]) ? 1 : closes(mine[k]) ? -1 : 0;
    for (; depth > 0 && end < len; end++)
        depth += opens(mine[end]) ? 1 : closes(mine[end]) ? -1 : 0;
    size_t width = end > first ? end - first : 0;
    size_t head = width > budget ? budget / 2 : width;
    size_t rest = width > budget ? budget - 3 - head : 0; /* the window's end */
    size_t size = strlen(base) + width + 16;
    char *label = malloc(size);
    if (label)
        snprintf(label, size, "%s [%.*s%s%.*s]", base, (int)head, mine + first,
                 rest ? "..." : "", (int)rest, mine + end - rest);
    return label;
}

/* Whether the n labels differ from one another. */
static int all_distinct(char *const *labels, size_t n)
{
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++)
            if (strcmp(labels[a], labels[b]) == 0)
                return 0;
    return 1;
}

static void free_labels(char **labels, size_t n)
{
    for (size_t g = 0; labels && g < n; g++) {
        free(labels[g]);
        labels[g] = NULL;
    }
}

/* fresh[g]: the labels of the group's compact names, their differing
 * parts elided in the middle (unless wide) to the fewest characters,
 * DIFF_CHARS or more, that keep them apart. */
static int group_labels(char *const *compact, size_t n_group, const char *base, int wide,
                        char **fresh)
{
    size_t longest = 0;
    for (size_t g = 0; g < n_group; g++)
        longest = strlen(compact[g]) > longest ? strlen(compact[g]) : longest;
    for (size_t budget = DIFF_CHARS;; budget += DIFF_STEP) {
        if (wide || budget > longest)
            budget = (size_t)-1; /* the whole differing part */
        for (size_t g = 0; g < n_group; g++)
            if (!(fresh[g] = distinct_label(compact, n_group, g, base, budget)))
                return -1;
        if (budget == (size_t)-1 || all_distinct(fresh, n_group))
            return 0;
        free_labels(fresh, n_group);
    }
}

/* The names sharing labels[i]'s base name get distinct labels; each is
 * marked done. */
static int resolve_group(const char *const *names, size_t n, char **labels, size_t i,
                         size_t *group, char *done, int wide)
{
    size_t n_group = 0;
    for (size_t j = i; j < n; j++)
        if (!done[j] && strcmp(labels[j], labels[i]) == 0)
            group[n_group++] = j;
    for (size_t g = 0; g < n_group; g++)
        done[group[g]] = 1;
    if (n_group < 2)
        return 0;
    char base[512];
    snprintf(base, sizeof base, "%s", labels[i]);
    char **compact = calloc(n_group, sizeof *compact);
    char **fresh = calloc(n_group, sizeof *fresh);
    int rc = compact && fresh ? 0 : -1;
    for (size_t g = 0; g < n_group && rc == 0; g++)
        rc = (compact[g] = compact_name(names[group[g]])) ? 0 : -1;
    if (rc == 0)
        rc = group_labels(compact, n_group, base, wide, fresh);
    for (size_t g = 0; g < n_group; g++) {
        if (rc == 0) {
            free(labels[group[g]]);
            labels[group[g]] = fresh[g];
        } else if (fresh) {
            free(fresh[g]);
        }
        if (compact)
            free(compact[g]);
    }
    free(fresh);
    free(compact);
    return rc;
}

/* Labels still equal (identical windows): " #N" by position. */
static int number_duplicates(char **labels, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (strcmp(labels[i], labels[j]) != 0)
                continue;
            size_t size = strlen(labels[j]) + 24;
            char *numbered = malloc(size);
            if (!numbered)
                return -1;
            snprintf(numbered, size, "%s #%zu", labels[j], j + 1);
            free(labels[j]);
            labels[j] = numbered;
        }
    return 0;
}

static char *first_label(const char *name, td_name_base mode, const td_result *res)
{
    if (mode == TD_NAME_DEMANGLED)
        return td_strdup(name);
    if (mode == TD_NAME_MANGLED)
        return td_strdup(td_kernel_mangled(res, name));
    char base[512];
    td_kernel_base_name(name, base, sizeof base);
    return td_strdup(base);
}

int td_kernel_labels(const char *const *names, size_t n, td_name_base mode,
                     const td_result *res, char ***labels, td_error *err)
{
    return td_kernel_labels_wide(names, n, mode, res, 0, labels, err);
}

int td_kernel_labels_wide(const char *const *names, size_t n, td_name_base mode,
                          const td_result *res, int wide, char ***labels, td_error *err)
{
    char **out = calloc(n ? n : 1, sizeof *out);
    size_t *group = malloc((n ? n : 1) * sizeof *group);
    char *done = calloc(n ? n : 1, 1);
    int rc = out && group && done ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = (out[i] = first_label(names[i], mode, res)) ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0 && mode == TD_NAME_FUNCTION; i++)
        if (!done[i])
            rc = resolve_group(names, n, out, i, group, done, wide);
    if (rc == 0 && mode == TD_NAME_FUNCTION)
        rc = number_duplicates(out, n);
    free(group);
    free(done);
    if (rc) {
        td_kernel_labels_free(out, out ? n : 0);
        return td_fail(err, "out of memory");
    }
    *labels = out;
    return 0;
}

void td_kernel_labels_free(char **labels, size_t n)
{
    for (size_t i = 0; labels && i < n; i++)
        free(labels[i]);
    free(labels);
}

void td_label_fit(const char *label, size_t max, char *out, size_t size)
{
    size_t len = strlen(label);
    const char *bracket = strstr(label, " [");
    size_t tail = bracket ? strlen(bracket) : 0;
    if (len <= max || max < 4)
        snprintf(out, size, "%s", label);
    else if (bracket && tail + 6 <= max)
        snprintf(out, size, "%.*s...%s", (int)(max - tail - 3), label, bracket);
    else
        snprintf(out, size, "%.*s...", (int)max - 3, label);
}
