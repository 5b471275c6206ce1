/* Issue 26: one table of commands. For every command of the table (as
 * topdown help --commands prints it) and profiling: topdown --help and the
 * man page name it, its own help and `help COMMAND` agree, the bash
 * completion offers it, its options and their values, and main reaches
 * its parser (an unknown option, and one it does not take, are exit 2
 * naming the command). */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "td_testlib.h"
#include "topdown/cli.h"

#define MAX_COMMANDS 32
#define MAX_OPTIONS 64

/* A line of topdown help --options: "-l --level", "words 1 2 3 4". */
typedef struct option_line {
    char names[64];
    char value[256]; /* "" for a flag */
} option_line;

typedef struct command_row {
    char name[32]; /* "" for profiling */
    option_line options[MAX_OPTIONS];
    int n_options;
} command_row;

static char dir[64];
static td_run_output r, h; /* large: not on the stack */
static char global_help[1 << 17], man[1 << 17];
static command_row rows[MAX_COMMANDS + 1];
static int n_rows;

static void run(const char *args, td_run_output *out)
{
    td_test_run_topdown(dir, args, out);
}

/* word in text as a whole word (not a prefix of --source-only for --source). */
static int mentions(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        char after = p[n];
        int in_word = (after >= 'a' && after <= 'z') || after == '-';
        int starts = p == text || !((p[-1] >= 'a' && p[-1] <= 'z') || p[-1] == '-');
        if (starts && !in_word)
            return 1;
    }
    return 0;
}

/* word as a whole line of text. */
static int has_line(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return 1;
    return 0;
}

/* The long name of an option line ("--level"). */
static const char *long_name(const option_line *o)
{
    const char *space = strrchr(o->names, ' ');
    return space ? space + 1 : o->names;
}

/* The options of the row, from topdown help --options NAME. */
static int read_options(command_row *row)
{
    char args[128];
    if ((size_t)snprintf(args, sizeof args, "help --options '%s'", row->name) >= sizeof args)
        return -1;
    run(args, &r);
    if (r.status != 0)
        return -1;
    row->n_options = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        if (row->n_options == MAX_OPTIONS)
            return -1;
        option_line *o = &row->options[row->n_options++];
        char *tab = strchr(line, '\t');
        if (tab)
            *tab = '\0';
        /* a line longer than the fields is a failure, not cut */
        if ((size_t)snprintf(o->value, sizeof o->value, "%s", tab ? tab + 1 : "") >=
                sizeof o->value ||
            (size_t)snprintf(o->names, sizeof o->names, "%s", line) >= sizeof o->names)
            return -1;
    }
    return row->n_options > 0 ? 0 : -1;
}

/* The table: profiling, then each command of topdown help --commands. */
static int read_table(void)
{
    run("help --commands", &r);
    if (r.status != 0)
        return -1;
    n_rows = 1;
    rows[0].name[0] = '\0';
    static char listing[sizeof r.out]; /* read_options runs topdown again */
    memcpy(listing, r.out, sizeof listing);
    for (char *line = strtok(listing, "\n"); line && n_rows <= MAX_COMMANDS;
         line = strtok(NULL, "\n")) {
        line[strcspn(line, "\t")] = '\0';
        snprintf(rows[n_rows++].name, sizeof rows[0].name, "%s", line);
    }
    for (int i = 0; i < n_rows; i++)
        if (read_options(&rows[i]))
            return -1;
    return 0;
}

/* The completion's answer, one word a line, for the words typed after
 * topdown (the cursor on the last; double-quoted words). */
static void complete(const char *words, char *out, size_t size)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "bash -c 'source \"%s/scripts/topdown-completion.bash\"; "
             "COMP_WORDS=(\"%s\" %s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _topdown; "
             "printf \"%%s\\n\" \"${COMPREPLY[@]}\"' > completion.txt 2>&1",
             getenv("TOPDOWN_REPO_DIR"), getenv("TOPDOWN_BIN"), words);
    CHECK(system(cmd) == 0);
    td_test_slurp("completion.txt", out, size);
}

/* "topdown NAME" as the man page (roff, '-' as "\-") writes it. */
static void man_form(const char *name, char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "topdown ");
    for (const char *p = name; *p && n + 3 < size; p++) {
        if (*p == '-')
            out[n++] = '\\';
        out[n++] = *p;
    }
    out[n] = '\0';
}

static void check_help(const command_row *row)
{
    char args[128], title[64];
    snprintf(title, sizeof title, "topdown%s%s", row->name[0] ? " " : "", row->name);
    CHECK(strstr(global_help, title) != NULL);
    if (man[0]) {
        char roff[96];
        man_form(row->name, roff, sizeof roff);
        if (!strstr(man, roff))
            fprintf(stderr, "the man page does not name %s\n", title);
        CHECK(strstr(man, roff) != NULL);
    }
    snprintf(args, sizeof args, "%s --help", row->name);
    run(args, &r);
    char usage[96];
    size_t n = (size_t)snprintf(usage, sizeof usage, "usage: %s", title);
    CHECK(r.status == 0 && strncmp(r.out, usage, n) == 0 &&
          (r.out[n] == ' ' || r.out[n] == '\n'));
    snprintf(args, sizeof args, "help %s", row->name);
    run(args, &h);
    CHECK(h.status == 0 && strcmp(r.out, h.out) == 0);
    /* every option it takes is in its help, unless hidden from all help */
    for (int i = 0; i < row->n_options; i++) {
        const char *name = long_name(&row->options[i]);
        int ok = mentions(r.out, name) || !mentions(global_help, name);
        if (!ok)
            fprintf(stderr, "%s --help does not list %s\n", title, name);
        CHECK(ok);
    }
}

/* The completion of the option's value: its words, or files. */
static void check_value(const command_row *row, const option_line *o)
{
    char words[256], out[1 << 14];
    if (strncmp(o->value, "words ", 6) == 0) {
        snprintf(words, sizeof words, "%s %s \"\"", row->name, long_name(o));
        complete(words, out, sizeof out);
        char list[256];
        snprintf(list, sizeof list, "%s", o->value + 6);
        for (char *w = strtok(list, " "); w; w = strtok(NULL, " ")) {
            if (!has_line(out, w))
                fprintf(stderr, "topdown %s %s <TAB> offers no %s\n", row->name,
                        long_name(o), w);
            CHECK(has_line(out, w));
        }
    } else if (strcmp(o->value, "file") == 0) {
        snprintf(words, sizeof words, "%s %s probe_", row->name, long_name(o));
        complete(words, out, sizeof out);
        CHECK(has_line(out, "probe_file.json"));
    } else {
        CHECK(o->value[0] == '\0' || strcmp(o->value, "text") == 0 ||
              strcmp(o->value, "arch") == 0 || strcmp(o->value, "node") == 0);
    }
}

static void check_completion(const command_row *row)
{
    char words[128], out[1 << 14];
    if (row->name[0]) {
        snprintf(words, sizeof words, "\"%.*s\"", 2, row->name);
        complete(words, out, sizeof out);
        if (!has_line(out, row->name))
            fprintf(stderr, "topdown %.2s<TAB> offers no %s\n", row->name, row->name);
        CHECK(has_line(out, row->name));
    }
    snprintf(words, sizeof words, "%s -", row->name);
    complete(words, out, sizeof out);
    for (int i = 0; i < row->n_options; i++) {
        char names[64];
        snprintf(names, sizeof names, "%s", row->options[i].names);
        for (char *n = strtok(names, " "); n; n = strtok(NULL, " ")) {
            if (!has_line(out, n))
                fprintf(stderr, "topdown %s -<TAB> offers no %s\n", row->name, n);
            CHECK(has_line(out, n));
        }
        check_value(row, &row->options[i]);
    }
}

/* The option of some other command that row does not take, or NULL. */
static const option_line *option_not_taken(const command_row *row)
{
    for (int k = 0; k < n_rows; k++)
        for (int i = 0; i < rows[k].n_options; i++) {
            int taken = 0;
            for (int j = 0; j < row->n_options; j++)
                taken |= strcmp(row->options[j].names, rows[k].options[i].names) == 0;
            if (!taken)
                return &rows[k].options[i];
        }
    return NULL;
}

static void check_dispatch(const command_row *row)
{
    char args[160], title[64], want[128];
    snprintf(title, sizeof title, "topdown%s%s", row->name[0] ? " " : "", row->name);
    snprintf(args, sizeof args, "%s --no-such-option", row->name);
    run(args, &r);
    snprintf(want, sizeof want, "see %s --help", title);
    CHECK(r.status == 2 && strstr(r.err, "--no-such-option is unknown") && strstr(r.err, want));
    const option_line *other = option_not_taken(row);
    CHECK(other != NULL);
    if (!other)
        return;
    snprintf(args, sizeof args, "%s %s%s", row->name, long_name(other),
             other->value[0] ? "=x" : "");
    run(args, &r);
    snprintf(want, sizeof want, "does not apply to `%s`", title);
    if (r.status != 2 || !strstr(r.err, want))
        fprintf(stderr, "topdown %s: exit %d, %s(expected 2 and \"%s\")\n", args, r.status,
                r.err, want);
    CHECK(r.status == 2 && strstr(r.err, want));
}

int main(void)
{
    if (!getenv("TOPDOWN_BIN") || !getenv("TOPDOWN_REPO_DIR")) {
        fprintf(stderr, "TOPDOWN_BIN and TOPDOWN_REPO_DIR must be set (ctest sets them)\n");
        return 1;
    }
    td_test_tmpdir(dir, sizeof dir);
    if (chdir(dir) != 0)
        return 1;
    char path[256];
    td_test_write(dir, "probe_file.json", "{}", path, sizeof path);
    run("--help", &r);
    CHECK(r.status == 0);
    memcpy(global_help, r.out, sizeof global_help);
    char man_path[1024];
    snprintf(man_path, sizeof man_path, "%s/topdown.1", getenv("TOPDOWN_BUILD_DIR"));
    td_test_slurp(man_path, man, sizeof man); /* "" without help2man */
    CHECK(read_table() == 0);
    /* every command of the enum has a named row, listed once */
    CHECK(n_rows == TD_CMD_COUNT);
    for (int i = 0; i < n_rows; i++) {
        check_help(&rows[i]);
        check_completion(&rows[i]);
        check_dispatch(&rows[i]);
    }
    if (chdir("/") != 0)
        return 1;
    td_test_cleanup(dir);
    return td_check_summary();
}
