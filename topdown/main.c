/* topdown: the command line. Every command returns an exit code or -1 with
 * a td_error; only main prints errors and exits. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../levels/aggregate.h"
#include "../metrics/arch.h"
#include "../metrics/nvprof.h"
#include "../metrics/result.h"
#include "../report/text.h"
#include "profile.h"

#define EXIT_USAGE 2

static const char usage_text[] =
    "usage: topdown [options] [--] APP [ARGS...]   profile APP, print the tree\n"
    "       topdown report FILE [options]          print the tree of a result file\n"
    "       topdown list-archs                     list the architecture tables\n"
    "       topdown list-nodes [-l N]              list the model's nodes\n"
    "       topdown describe NODE                  explain one node\n"
    "       topdown import-nvprof METRICS.csv [--times TIMES.csv] --arch NAME -o OUT.json\n"
    "                                              legacy GPUs (CC < 7.5): nvprof CSV to a result\n"
    "\n"
    "report options (profiling and `report`):\n"
    "  -l, --level N        tree depth, 1 to 4 (default 1; 4 lists stall reasons)\n"
    "  -v, --verbose        also show nodes below threshold, marked '<'\n"
    "      --no-desc        no description lines\n"
    "      --kernels N      kernels listed, heaviest first (default 10, 0 = all)\n"
    "      --app-only       only the application tree\n"
    "      --arch NAME      arch table to use instead of the detected/recorded one\n"
    "profiling options:\n"
    "  -o, --output FILE    result file (default: APP.topdown.json, never overwritten)\n"
    "  -f, --force          overwrite the result file given with -o\n"
    "  -k, --kernel-name RE profile only kernels whose name matches RE (POSIX ERE)\n"
    "      --launch-skip N  skip the first N matching launches\n"
    "      --launch-count N profile at most N launches\n"
    "      --per-kernel N   profile the first N launches of each kernel, time the rest\n"
    "      --no-progress    no progress line on stderr\n"
    "  -h, --help           this help;  -V, --version  the version\n";

enum long_only_options {
    OPT_NO_DESC = 256,
    OPT_KERNELS,
    OPT_APP_ONLY,
    OPT_ARCH,
    OPT_LAUNCH_SKIP,
    OPT_LAUNCH_COUNT,
    OPT_PER_KERNEL,
    OPT_NO_PROGRESS,
};

static const struct option long_options[] = {
    {"level", required_argument, NULL, 'l'},
    {"verbose", no_argument, NULL, 'v'},
    {"no-desc", no_argument, NULL, OPT_NO_DESC},
    {"kernels", required_argument, NULL, OPT_KERNELS},
    {"app-only", no_argument, NULL, OPT_APP_ONLY},
    {"arch", required_argument, NULL, OPT_ARCH},
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, 'f'},
    {"kernel-name", required_argument, NULL, 'k'},
    {"launch-skip", required_argument, NULL, OPT_LAUNCH_SKIP},
    {"launch-count", required_argument, NULL, OPT_LAUNCH_COUNT},
    {"per-kernel", required_argument, NULL, OPT_PER_KERNEL},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

typedef struct cli {
    td_report_options report;
    td_profile_options profile;
    const char *arch;
    int profiling_option_seen; /* a profiling-only option, for `report` */
    int help, version;
} cli;

static int parse_count(const char *text, const char *option, long min, long max,
                       long *out, td_error *err)
{
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || !end || *end || end == text || value < min || value > max)
        return td_fail(err, "%s needs an integer from %ld to %ld, not \"%s\"", option,
                       min, max, text);
    *out = value;
    return 0;
}

static int apply_option(cli *c, int opt, const char *arg, td_error *err)
{
    long value = 0;
    switch (opt) {
    case 'l':
        if (parse_count(arg, "-l/--level", 1, TD_MAX_LEVEL, &value, err))
            return -1;
        c->report.level = (int)value;
        return 0;
    case 'v': c->report.verbose = 1; return 0;
    case OPT_NO_DESC: c->report.no_desc = 1; return 0;
    case OPT_APP_ONLY: c->report.app_only = 1; return 0;
    case OPT_KERNELS:
        return parse_count(arg, "--kernels", 0, LONG_MAX, &c->report.max_kernels, err);
    case OPT_ARCH: c->arch = arg; c->profile.arch = arg; return 0;
    case 'h': c->help = 1; return 0;
    case 'V': c->version = 1; return 0;
    default: break;
    }
    c->profiling_option_seen = 1;
    switch (opt) {
    case 'o': c->profile.output = arg; return 0;
    case 'f': c->profile.force = 1; return 0;
    case 'k': c->profile.kernel_filter = arg; return 0;
    case OPT_NO_PROGRESS: c->profile.progress = 0; return 0;
    case OPT_LAUNCH_SKIP:
        return parse_count(arg, "--launch-skip", 0, LONG_MAX, &c->profile.launch_skip, err);
    case OPT_LAUNCH_COUNT:
        return parse_count(arg, "--launch-count", 1, LONG_MAX, &c->profile.launch_count, err);
    case OPT_PER_KERNEL:
        return parse_count(arg, "--per-kernel", 1, LONG_MAX, &c->profile.per_kernel, err);
    default:
        return td_fail(err, "unknown option; see topdown --help");
    }
}

/* Parses options up to the first non-option (the app, or a file). */
static int parse_options(int argc, char **argv, cli *c, td_error *err)
{
    memset(c, 0, sizeof *c);
    td_report_options_init(&c->report);
    td_profile_options_init(&c->profile);
    opterr = 0;
    optind = 0; /* 0: GNU getopt fully reinitialises */
    int opt;
    while ((opt = getopt_long(argc, argv, "+l:vo:fk:hV", long_options, NULL)) != -1) {
        if (opt == '?') {
            if (optopt)
                return td_fail(err, "option -%c is unknown or lacks its value; see topdown --help", optopt);
            return td_fail(err, "option %s is unknown or lacks its value; see topdown --help",
                           argv[optind - 1]);
        }
        if (opt == ':')
            return td_fail(err, "option %s needs a value", argv[optind - 1]);
        if (apply_option(c, opt, optarg, err))
            return -1;
    }
    return 0;
}

static int load_archs(td_arch_set *archs, td_error *err)
{
    char dir[PATH_MAX];
    if (td_arch_default_dir(dir, sizeof dir, err))
        return -1;
    return td_arch_load_dir(dir, archs, err);
}

/* Loads, models and prints one result file. */
static int print_result_file(const char *path, const cli *c, td_error *err)
{
    td_arch_set archs;
    if (load_archs(&archs, err))
        return -1;
    td_result res;
    if (td_result_load(path, &res, err)) {
        td_arch_set_free(&archs);
        return -1;
    }
    td_summary summary;
    int rc = td_summarize(&res, &archs, c->arch, &summary, err);
    if (rc == 0) {
        td_report_options o = c->report;
        o.source = path;
        rc = td_report_text(stdout, &res, &summary, &o, err);
        td_summary_free(&summary);
    }
    if (rc)
        td_fail_context(err, "%s", path);
    td_result_free(&res);
    td_arch_set_free(&archs);
    return rc;
}

static int cmd_report(int argc, char **argv, td_error *err)
{
    cli c;
    /* Options may come before or after the file name. */
    const char *file = NULL;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return td_fail(err, "out of memory");
    int n = 0;
    rest[n++] = argv[0];
    for (int i = 1; i < argc; i++) {
        int takes_value = strcmp(argv[i], "-l") == 0 || strcmp(argv[i], "--level") == 0 ||
                          strcmp(argv[i], "--kernels") == 0 || strcmp(argv[i], "--arch") == 0;
        if (argv[i][0] == '-' && argv[i][1]) {
            rest[n++] = argv[i];
            if (takes_value && i + 1 < argc)
                rest[n++] = argv[++i];
        } else if (!file) {
            file = argv[i];
        } else {
            free(rest);
            return td_fail(err, "report takes one result file, got \"%s\" and \"%s\"", file, argv[i]);
        }
    }
    int rc = parse_options(n, rest, &c, err);
    free(rest);
    if (rc)
        return -1;
    if (c.help) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (c.profiling_option_seen)
        return td_fail(err, "that option is for profiling, not for `topdown report`; see topdown --help");
    if (!file)
        return td_fail(err, "topdown report needs a result file: topdown report FILE [-l N]");
    return print_result_file(file, &c, err) ? -1 : 0;
}

static int cmd_list_archs(td_error *err)
{
    td_arch_set archs;
    if (load_archs(&archs, err))
        return -1;
    printf("%-8s %-10s %-10s %-7s %-7s %-7s %s\n", "table", "family", "CC", "IPC_MAX",
           "source", "stalls", "chips");
    for (size_t i = 0; i < archs.count; i++) {
        const td_arch *a = &archs.items[i];
        char ccs[64] = "", chips[256] = "";
        for (size_t j = 0; j < a->n_ccs; j++)
            snprintf(ccs + strlen(ccs), sizeof ccs - strlen(ccs), "%s%s", j ? "," : "", a->ccs[j]);
        for (size_t j = 0; j < a->n_chips; j++)
            snprintf(chips + strlen(chips), sizeof chips - strlen(chips), "%s%s", j ? " " : "",
                     a->chips[j]);
        printf("%-8s %-10s %-10s %-7g %-7s %-7zu %s\n", a->name, a->family, ccs, a->ipc_max,
               a->source == TD_SOURCE_NVPROF ? "nvprof" : "cupti", a->n_stalls, chips);
    }
    printf("(%zu tables in %s)\n", archs.count, archs.dir);
    td_arch_set_free(&archs);
    return 0;
}

static int cmd_list_nodes(int argc, char **argv, td_error *err)
{
    cli c;
    if (parse_options(argc, argv, &c, err))
        return -1;
    int max_level = c.report.level > 1 ? c.report.level : 3;
    printf("%-4s %-3s %-42s %-9s %s\n", "area", "lvl", "node", "threshold", "description");
    for (int n = 0; n < TD_NODE_COUNT; n++) {
        const td_node_info *info = td_node_get(n);
        if (info->level > max_level)
            continue;
        char threshold[32] = "-";
        if (n != TD_N_RETIRE)
            snprintf(threshold, sizeof threshold, "%s%.0f%%", info->level == 1 ? "" : "p*",
                     100.0 * info->threshold);
        printf("%-4s %-3d %-42s %-9s %s\n", info->area, info->level, info->path, threshold,
               info->desc);
    }
    if (max_level >= 4)
        printf("Level 4: the stall reasons of each arch table, under their level-3 node (topdown describe NODE).\n");
    return 0;
}

static int cmd_describe(int argc, char **argv, td_error *err)
{
    if (argc != 2)
        return td_fail(err, "usage: topdown describe NODE (a name or path of `topdown list-nodes`)");
    int node = td_node_find(argv[1]);
    if (node < 0)
        return td_fail(err, "unknown node \"%s\"; `topdown list-nodes` lists them", argv[1]);
    const td_node_info *info = td_node_get(node);
    printf("%s (level %d, area %s)\n  %s\n  %s\n", info->path, info->level, info->area,
           info->desc, td_node_long_desc(node));
    if (node != TD_N_RETIRE)
        printf("  Threshold: %.0f%% of %s\n", 100.0 * info->threshold,
               info->level == 1 ? "all issue slots" : "its parent");
    td_arch_set archs;
    if (load_archs(&archs, err))
        return -1;
    if (node != TD_N_RETIRE && node != TD_N_DIVERGENCE && info->parent != TD_N_DIVERGENCE)
        printf("  Stall reasons under it, per arch table:\n");
    for (size_t i = 0; i < archs.count; i++) {
        const td_arch *a = &archs.items[i];
        int printed = 0;
        for (size_t s = 0; s < a->n_stalls; s++) {
            int n = td_node_find(a->stalls[s].node);
            while (n >= 0 && n != node)
                n = td_node_get(n)->parent;
            if (n != node)
                continue;
            printf("%s%s", printed ? ", " : "    ", printed ? "" : a->name);
            printf("%s%s", printed ? "" : ": ", a->stalls[s].reason);
            printed = 1;
        }
        if (printed)
            putchar('\n');
    }
    td_arch_set_free(&archs);
    return 0;
}

/* Legacy GPUs: nvprof's CSV becomes a result file like any other. */
static int cmd_import_nvprof(int argc, char **argv, td_error *err)
{
    const char *metrics = NULL, *times = NULL, *arch_name = NULL, *output = NULL;
    int force = 0;
    for (int i = 1; i < argc; i++) {
        int has_value = i + 1 < argc;
        if (strcmp(argv[i], "--times") == 0 && has_value)
            times = argv[++i];
        else if (strcmp(argv[i], "--arch") == 0 && has_value)
            arch_name = argv[++i];
        else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && has_value)
            output = argv[++i];
        else if (strcmp(argv[i], "-f") == 0 || strcmp(argv[i], "--force") == 0)
            force = 1;
        else if (argv[i][0] != '-' && !metrics)
            metrics = argv[i];
        else
            return td_fail(err, "import-nvprof: unexpected \"%s\"; usage: topdown import-nvprof METRICS.csv [--times TIMES.csv] --arch NAME -o OUT.json",
                           argv[i]);
    }
    if (!metrics || !arch_name || !output)
        return td_fail(err, "usage: topdown import-nvprof METRICS.csv [--times TIMES.csv] --arch NAME -o OUT.json (NAME: an nvprof table of topdown list-archs)");
    if (!force && access(output, F_OK) == 0)
        return td_fail(err, "%s exists; use -f to overwrite it", output);
    td_arch_set archs;
    if (load_archs(&archs, err))
        return -1;
    const td_arch *arch = td_arch_find(&archs, arch_name);
    td_result res;
    int rc = arch ? td_nvprof_import(metrics, times, arch, &res, err)
                  : td_fail(err, "unknown arch table \"%s\"; see topdown list-archs", arch_name);
    if (rc == 0) {
        rc = td_result_save(output, &res, err);
        td_result_free(&res);
    }
    td_arch_set_free(&archs);
    if (rc == 0)
        fprintf(stderr, "topdown: wrote %s; topdown report %s -l 2 prints it\n", output, output);
    return rc;
}

static int cmd_profile(int argc, char **argv, td_error *err)
{
    cli c;
    if (parse_options(argc, argv, &c, err))
        return -1;
    if (c.help) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (c.version) {
        printf("topdown %s\n", TOPDOWN_VERSION);
        return 0;
    }
    if (optind >= argc)
        return td_fail(err, "no application given: topdown [options] -- APP [ARGS...] (see topdown --help)");
    c.profile.app_argv = &argv[optind];
    td_profile_outcome outcome;
    memset(&outcome, 0, sizeof outcome);
    if (td_profile_run(&c.profile, &outcome, err))
        return -1;
    if (!outcome.result_written) {
        fprintf(stderr, "topdown: no result written (%ld kernel launches seen)\n", outcome.launches);
        return outcome.app_exit_code;
    }
    fprintf(stderr, "topdown: result saved to %s\n", outcome.result_path);
    td_error report_err;
    if (print_result_file(outcome.result_path, &c, &report_err))
        fprintf(stderr, "topdown: %s\n", report_err.msg);
    /* The app's exit code passes through, whatever the report said. */
    return outcome.app_exit_code;
}

int main(int argc, char **argv)
{
    td_error err = {{0}};
    int rc;
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    if (strcmp(cmd, "report") == 0)
        rc = cmd_report(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "list-archs") == 0)
        rc = cmd_list_archs(&err);
    else if (strcmp(cmd, "list-nodes") == 0)
        rc = cmd_list_nodes(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "describe") == 0)
        rc = cmd_describe(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "import-nvprof") == 0)
        rc = cmd_import_nvprof(argc - 1, argv + 1, &err);
    else
        rc = cmd_profile(argc, argv, &err);
    if (rc < 0) {
        fprintf(stderr, "topdown: %s\n", err.msg);
        return 1;
    }
    return rc;
}
