/* The floors of the house (docs/DESIGN.md): data flows collect -> raw
 * counters -> model -> report, and a folder includes only its own floor
 * and those below it:
 *   metrics/          metrics
 *   levels/           levels, metrics
 *   report/           report, levels, metrics
 *   topdown/inject/   topdown/inject, metrics (it runs inside the app: no
 *                     model, no report)
 *   topdown/          everything
 * and every include of the project's own headers is rooted at the
 * repository ("levels/model.h", never "model.h"). Each source file of
 * those folders is read and every `#include "..."` checked. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

typedef struct floor_rule {
    const char *folder;
    const char *allowed[5];
} floor_rule;

static const floor_rule rules[] = {
    {"metrics", {"metrics/", NULL}},
    {"levels", {"levels/", "metrics/", NULL}},
    {"report", {"report/", "levels/", "metrics/", NULL}},
    {"topdown/inject", {"topdown/inject/", "metrics/", NULL}},
    {"topdown", {"topdown/", "report/", "levels/", "metrics/", NULL}},
};

static int allowed(const floor_rule *r, const char *target)
{
    for (size_t i = 0; r->allowed[i]; i++)
        if (strncmp(target, r->allowed[i], strlen(r->allowed[i])) == 0)
            return 1;
    return 0;
}

static int is_source(const char *name)
{
    size_t n = strlen(name);
    return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h');
}

/* Checks one file's includes; returns how many it has. */
static size_t check_file(const floor_rule *r, const char *path, const char *name)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return 0;
    char line[1024];
    size_t includes = 0;
    while (fgets(line, sizeof line, f)) {
        char target[512];
        if (sscanf(line, " #include \"%511[^\"]\"", target) != 1)
            continue;
        includes++;
        /* the test programs' own helpers sit beside them, not in a floor */
        int rooted = strchr(target, '/') != NULL;
        int ok = rooted && allowed(r, target);
        if (!ok)
            fprintf(stderr, "%s/%s includes \"%s\": %s\n", r->folder, name, target,
                    rooted ? "a floor above it" : "not rooted at the repository");
        CHECK(ok);
    }
    fclose(f);
    return includes;
}

static size_t check_folder(const char *root, const floor_rule *r)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, r->folder);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d)
        return 0;
    size_t includes = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_source(e->d_name))
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        includes += check_file(r, path, e->d_name);
    }
    closedir(d);
    return includes;
}

int main(void)
{
    const char *root = getenv("TOPDOWN_SOURCE_DIR");
    CHECK(root != NULL);
    if (!root)
        return td_check_summary();
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        size_t n = check_folder(root, &rules[i]);
        printf("%s: %zu includes checked\n", rules[i].folder, n);
        CHECK(n > 0);
    }
    /* the check itself catches what it must */
    const floor_rule *metrics = &rules[0];
    CHECK(!allowed(metrics, "levels/model.h") && allowed(metrics, "metrics/result.h"));
    CHECK(!allowed(&rules[3], "report/text.h"));
    return td_check_summary();
}
