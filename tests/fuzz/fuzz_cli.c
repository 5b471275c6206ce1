/* Fuzz target: the command-line parser. The input is the arguments,
 * separated by NUL bytes; parsed as the profiling command does
 * (td_cli_parse_options) and as report and diff do (with files). */
#include "fuzz_common.h"
#include "topdown/cli.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    char *argv[MAX_ARGS + 2];
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    int argc = 0;
    argv[argc++] = "topdown";
    for (size_t at = 0; at < size && argc < MAX_ARGS + 1;) {
        argv[argc++] = copy + at;
        at += strlen(copy + at) + 1;
    }
    argv[argc] = NULL;
    char *args[MAX_ARGS + 2];
    cli c;
    td_error err;
    memcpy(args, argv, sizeof args);
    td_cli_parse_options(argc, args, &c, &err);
    const char *files[2];
    int n_files = 0;
    static int quiet;
    if (!quiet && !freopen("/dev/null", "w", stdout)) /* --help prints there */
        abort();
    quiet = 1;
    const td_command commands[] = {TD_CMD_REPORT, TD_CMD_DIFF};
    for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
        memcpy(args, argv, sizeof args);
        td_cli_parse_command(argc, args, commands[k], &c, files, 2, &n_files, &err);
        if (n_files < 0 || n_files > 2)
            abort();
    }
    free(copy);
    return 0;
}
