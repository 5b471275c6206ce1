/* Byte-identical outputs: every case of tests/fixtures/golden/cases.txt
 * (the text tree at levels 1-4 with and without -v, the CSVs, timelines,
 * plots' scripts and data, diffs, list-nodes, describe, usage and error
 * messages, on the H100 recordings and the synthetic fixtures) prints
 * exactly what the reference build printed (NAME.out, recorded by
 * tests/fixtures/golden/make.sh before the model tree was rebuilt). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "td_testlib.h"

#define MAX_OUTPUT (1 << 20)

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(MAX_OUTPUT);
    *len = buf ? fread(buf, 1, MAX_OUTPUT - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[*len] = '\0';
    return buf;
}

/* The line where two texts first differ, for the failure message. */
static void show_first_difference(const char *name, const char *want, const char *got)
{
    size_t line = 1, i = 0;
    for (; want[i] && want[i] == got[i]; i++)
        line += want[i] == '\n';
    size_t start = i;
    while (start > 0 && want[start - 1] != '\n')
        start--;
    fprintf(stderr, "%s: differs at line %zu\n  want: %.*s\n  got:  %.*s\n", name, line,
            (int)strcspn(want + start, "\n"), want + start, (int)strcspn(got + start, "\n"),
            got + start);
}

static void run_case(const char *repo, const char *scratch, const char *name,
                     const char *command)
{
    char out_dir[4400], script_path[4410], got_path[4410], want_path[4600], shell[16384];
    snprintf(out_dir, sizeof out_dir, "%s/%s", scratch, name);
    snprintf(script_path, sizeof script_path, "%s.sh", out_dir);
    snprintf(got_path, sizeof got_path, "%s.stdout", out_dir);
    snprintf(want_path, sizeof want_path, "%s/tests/fixtures/golden/%s.out", repo, name);
    FILE *script = fopen(script_path, "w");
    CHECK(script != NULL && mkdir(out_dir, 0700) == 0);
    if (!script)
        return;
    fprintf(script, "%s\n", command);
    fclose(script);
    snprintf(shell, sizeof shell, "cd '%s' && OUT='%s' TD='%s' sh '%s' >'%s' 2>/dev/null",
             repo, out_dir, getenv("TOPDOWN_BIN"), script_path, got_path);
    if (system(shell) < 0)
        fprintf(stderr, "%s: cannot run\n", name);
    size_t want_len = 0, got_len = 0;
    char *want = read_all(want_path, &want_len);
    char *got = read_all(got_path, &got_len);
    CHECK(want != NULL && got != NULL);
    if (want && got) {
        int same = want_len == got_len && memcmp(want, got, want_len) == 0;
        CHECK(same);
        if (!same)
            show_first_difference(name, want, got);
    }
    free(want);
    free(got);
}

int main(void)
{
    const char *repo = getenv("TOPDOWN_REPO_DIR");
    if (!repo || !getenv("TOPDOWN_BIN")) {
        fprintf(stderr, "TOPDOWN_REPO_DIR and TOPDOWN_BIN must be set (ctest sets them)\n");
        return 2;
    }
    char cases_path[1024], scratch[256];
    snprintf(cases_path, sizeof cases_path, "%s/tests/fixtures/golden/cases.txt", repo);
    FILE *cases = fopen(cases_path, "r");
    CHECK(cases != NULL);
    if (!cases)
        return td_check_summary();
    td_test_tmpdir(scratch, sizeof scratch);
    char line[4096];
    size_t n_cases = 0;
    while (fgets(line, sizeof line, cases)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = '\0';
        run_case(repo, scratch, line, tab + 1);
        n_cases++;
    }
    fclose(cases);
    CHECK(n_cases > 200);
    td_test_cleanup(scratch);
    return td_check_summary();
}
