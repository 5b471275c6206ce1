/* Issue 27, item 6: the documented exit codes hold for every command, one
 * table over commands x error classes. A missing or unreadable file, a
 * bad value, an unknown option and options that conflict are a bad
 * command line (2); a file that opens but is no result is topdown failing
 * on it (1). Each case also says one line on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "td_shell.h"

enum { MISSING, UNREADABLE, BAD_VALUE, UNKNOWN_OPTION, CONFLICT, CORRUPT, N_CLASSES };

static const char *const class_names[N_CLASSES] = {
    "missing file", "unreadable file", "bad value", "unknown option", "conflicting options",
    "corrupt file"};
static const int expected[N_CLASSES] = {2, 2, 2, 2, 2, 1};

/* Per command, its command line for each class (NULL: the class does not
 * arise). Words: GOOD a result, MISSING no file, UNREAD a file it cannot
 * read, CORRUPT a truncated result. */
static const char *const cases[][N_CLASSES] = {
    {"report MISSING", "report UNREAD", "report GOOD -k '#11'", "report GOOD --bogus",
     "report GOOD --by-region --timeline '#1'", "report CORRUPT"},
    {"report GOOD --arch nope", NULL, "report GOOD -l 9", "report GOOD --top 3",
     "report GOOD --pm-timeline --timeline '#1'", NULL},
    {"plot MISSING -o p.png", "plot UNREAD -o p.png", "plot GOOD -o x.pdf",
     "plot GOOD --kernels 3", "plot GOOD --timeline '#1' --pm-timeline", "plot CORRUPT -o p.png"},
    {"diff GOOD MISSING", "diff GOOD UNREAD", "diff GOOD GOOD --fail-if 'Nope>1'",
     "diff GOOD GOOD --desc", "diff GOOD GOOD --csv GOOD -f", "diff GOOD CORRUPT"},
    {"trace MISSING -o t.json", "trace UNREAD -o t.json", "trace GOOD -o t.json --arch nope",
     "trace GOOD -o t.json --bogus", "trace GOOD -o GOOD -f", "trace CORRUPT -o t.json"},
    {"source MISSING '#1'", "source UNREAD '#1'", "source GOOD '#99'",
     "source GOOD '#1' --bogus", "source GOOD '#1' --csv GOOD -f", "source CORRUPT '#1'"},
    {"imbalance MISSING", "imbalance UNREAD", "imbalance GOOD --kernels x",
     "imbalance GOOD --bogus", NULL, "imbalance CORRUPT"},
    {"merge MISSING -o m.json", "merge UNREAD -o m.json", NULL,
     "merge GOOD -o m.json --bogus", "merge GOOD -o GOOD -f", "merge CORRUPT -o m.json"},
    {"import-spool MISSING -o s.json", "import-spool UNREAD -o s.json", NULL,
     "import-spool GOOD -o s.json --bogus", "import-spool GOOD -o GOOD -f", NULL},
    {"import-nvprof MISSING --arch gp100 -o n.json", "import-nvprof UNREAD --arch gp100 -o n.json",
     "import-nvprof GOOD --arch nope -o n.json", "import-nvprof GOOD --bogus",
     "import-nvprof GOOD --arch gp100 -o GOOD -f", NULL},
    {NULL, NULL, "describe Nonsense", "describe L1_Bound --bogus", NULL, NULL},
    {NULL, NULL, "list-nodes -l 9", "list-nodes --csv x.csv", NULL, NULL},
    {NULL, NULL, "list-archs extra", "list-archs -v", NULL, NULL},
    {"-- ./missing-app", "-- ./UNREAD", "--overhead 0 -- true", "--bogus -- true",
     "--no-nvtx --nvtx-include x -- true", NULL},
    {NULL, NULL, "--arch nope -- true", "-l 2 report GOOD", "--csv GOOD -- true", NULL},
    {NULL, NULL, "-o 'bad.%z.json' -- true", "--csv out.txt true", "-o GOOD -- true", NULL},
    {NULL, NULL, "--replay-mode app -- true", NULL,
     "--replay-mode application --sample-every 10 -- true", NULL},
    {NULL, NULL, NULL, NULL, "--replay-mode application --source -- true", NULL},
};

static char dir[] = "/tmp/td_exitXXXXXX";

/* cmd with its words replaced by the test folder's files. */
static void expand(const char *cmd, const char *unread, char *out, size_t size)
{
    static const char *const words[][2] = {
        {"GOOD", "good.json"}, {"MISSING", "missing.json"}, {"CORRUPT", "corrupt.json"},
        {"UNREAD", NULL}};
    size_t used = 0;
    while (*cmd && used + 1 < size) {
        size_t w = 0;
        while (w < 4 && strncmp(cmd, words[w][0], strlen(words[w][0])) != 0)
            w++;
        if (w == 4) {
            out[used++] = *cmd++;
            continue;
        }
        const char *file = words[w][1] ? words[w][1] : unread;
        used += (size_t)snprintf(out + used, size - used, "%s", file);
        cmd += strlen(words[w][0]);
    }
    out[used < size ? used : size - 1] = '\0';
}

static int one_line(void)
{
    char path[256], text[4096];
    snprintf(path, sizeof path, "%s/err.txt", dir);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    int lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    return lines == 1 && strncmp(text, "topdown: ", 9) == 0;
}

int main(void)
{
    const char *bin = getenv("TOPDOWN_BIN"), *src = getenv("TOPDOWN_REPO_DIR");
    if (!bin || !src || !mkdtemp(dir)) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_REPO_DIR must be set\n");
        return 1;
    }
    CHECK(td_shell_run(dir, "cp '%s/benchmarks/results/h100_td_bench.topdown.json' good.json && "
                       "head -c 300 good.json > corrupt.json && echo x > noread.json && "
                       "chmod 000 noread.json && mkdir folder", src) == 0);
    /* root reads any file: a folder is what it cannot read as a file */
    const char *unread = geteuid() == 0 ? "folder" : "noread.json";
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int e = 0; e < N_CLASSES; e++) {
            if (!cases[k][e])
                continue;
            char cmd[512];
            expand(cases[k][e], unread, cmd, sizeof cmd);
            int rc = td_shell_run(dir, "'%s' %s", bin, cmd);
            int ok = rc == expected[e] && one_line();
            if (!ok)
                fprintf(stderr, "topdown %s (%s): exit %d, expected %d with one line on "
                        "stderr\n", cmd, class_names[e], rc, expected[e]);
            CHECK(ok);
        }
    td_shell_run(dir, "chmod 600 noread.json");
    td_shell_remove_dir(dir);
    return td_check_summary();
}
