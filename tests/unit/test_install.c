/* `cmake --install` puts topdown, its man page (help2man, from --help) and
 * its bash completion under the prefix; the man page renders and the
 * completion lists the commands, options and node names. */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "td_testlib.h"

static char dir[64];

static int sh(const char *cmd)
{
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* man -l where man-db is, else groff, else the roff source itself. */
static void check_man_page(const char *page)
{
    char cmd[1024], text[1 << 16];
    if (sh("command -v man >/dev/null 2>&1") == 0)
        snprintf(cmd, sizeof cmd, "MANWIDTH=100 man -l '%s' 2>/dev/null | col -b > man.txt", page);
    else if (sh("command -v groff >/dev/null 2>&1") == 0)
        snprintf(cmd, sizeof cmd, "groff -man -Tascii '%s' 2>/dev/null | col -b > man.txt", page);
    else
        snprintf(cmd, sizeof cmd, "cp '%s' man.txt", page);
    CHECK(sh(cmd) == 0);
    td_test_slurp("man.txt", text, sizeof text);
    CHECK(strstr(text, "TopDown bottleneck profiler for NVIDIA GPUs") != NULL);
    CHECK(strstr(text, "report") != NULL && strstr(text, "--kernel-name-base") != NULL);
    CHECK(strstr(text, "EXAMPLES") != NULL && strstr(text, "TOPDOWN_ARCHS") != NULL);
}

/* The completion's answer for the words typed (the cursor on the last;
 * words quoted with double quotes: the script is in single quotes). */
static void complete(const char *completion, const char *words, char *out, size_t size)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "bash -c 'source \"%s\"; COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
             "_topdown; printf \"%%s\\n\" \"${COMPREPLY[@]}\"' > completion.txt 2>&1",
             completion, words);
    CHECK(sh(cmd) == 0);
    td_test_slurp("completion.txt", out, size);
}

static void check_completion(const char *completion, const char *bin)
{
    char words[1200], out[1 << 14];
    snprintf(words, sizeof words, "\"%s\" \"\"", bin);
    complete(completion, words, out, sizeof out);
    CHECK(strstr(out, "report\n") && strstr(out, "plot\n") && strstr(out, "diff\n") &&
          strstr(out, "describe\n") && strstr(out, "list-nodes\n"));
    snprintf(words, sizeof words, "\"%s\" re", bin);
    complete(completion, words, out, sizeof out);
    CHECK(strstr(out, "report\n") != NULL && strstr(out, "plot\n") == NULL);
    snprintf(words, sizeof words, "\"%s\" report x.json --kernel-n", bin);
    complete(completion, words, out, sizeof out);
    CHECK(strstr(out, "--kernel-name-base\n") != NULL);
    snprintf(words, sizeof words, "\"%s\" report x.json --kernel-name-base \"\"", bin);
    complete(completion, words, out, sizeof out);
    CHECK(strstr(out, "demangled\n") != NULL);
    snprintf(words, sizeof words, "\"%s\" describe L1_", bin);
    complete(completion, words, out, sizeof out);
    CHECK(strstr(out, "L1_Bound\n") != NULL);
    /* issue 27, item 15: a command's own options (from its --help), each
     * node name once, and `help COMMAND` */
    snprintf(words, sizeof words, "\"%s\" plot x.json --", bin);
    complete(completion, words, out, sizeof out);
    CHECK(strstr(out, "--top\n") && !strstr(out, "--replay-mode") && !strstr(out, "--verbose"));
    snprintf(words, sizeof words, "\"%s\" describe Back", bin);
    complete(completion, words, out, sizeof out);
    CHECK(strstr(out, "Backend\n") &&
          !strstr(strstr(out, "Backend\n") + 1, "\nBackend\n"));
    snprintf(words, sizeof words, "\"%s\" help rep", bin);
    complete(completion, words, out, sizeof out);
    CHECK(strcmp(out, "report\n") == 0);
}

int main(void)
{
    const char *build = getenv("TOPDOWN_BUILD_DIR"), *cmake = getenv("TOPDOWN_CMAKE");
    if (!build || !cmake) {
        fprintf(stderr, "TOPDOWN_BUILD_DIR and TOPDOWN_CMAKE must be set (ctest sets them)\n");
        return 1;
    }
    td_test_tmpdir(dir, sizeof dir);
    if (chdir(dir) != 0)
        return 1;
    char cmd[2048], path[1024], completion[1024];
    snprintf(cmd, sizeof cmd, "'%s' --install '%s' --prefix '%s/prefix' >install.log 2>&1",
             cmake, build, dir);
    CHECK(sh(cmd) == 0);
    snprintf(path, sizeof path, "%s/prefix/bin/topdown", dir);
    CHECK(is_file(path));
    char bin[800];
    snprintf(bin, sizeof bin, "%.799s", path);
    snprintf(path, sizeof path, "%s/prefix/share/man/man1/topdown.1", dir);
    CHECK(is_file(path));
    if (!is_file(path))
        fprintf(stderr, "no man page installed: was help2man missing when cmake configured? "
                "(apt-get install help2man, then reconfigure)\n");
    check_man_page(path);
    snprintf(completion, sizeof completion,
             "%s/prefix/share/bash-completion/completions/topdown", dir);
    CHECK(is_file(completion));
    check_completion(completion, bin);
    if (chdir("/") != 0)
        return 1;
    td_test_cleanup(dir);
    return td_check_summary();
}
