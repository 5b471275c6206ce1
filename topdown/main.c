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
#include "../report/csv.h"
#include "../report/diff.h"
#include "../report/plot.h"
#include "../report/text.h"
#include "../report/timeline.h"
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
    "       topdown plot FILE [-l N] [-o OUT.png|OUT.svg] [--top K] [--timeline KERNEL]\n"
    "                                              gnuplot plot (+ OUT.gp, OUT.dat to restyle)\n"
    "       topdown plot --diff A.json B.json [-l N] [-o OUT.png] [--top K]\n"
    "       topdown diff A.json B.json [-l N] [--csv FILE] [--kernels N]\n"
    "                                              compare two results node by node\n"
    "\n"
    "report options (profiling and `report`):\n"
    "  -l, --level N        tree depth, 1 to 4 (default 1; 4 lists stall reasons)\n"
    "  -v, --verbose        also show nodes below threshold, marked '<'\n"
    "      --no-desc        no description lines\n"
    "      --kernels N      kernels listed, heaviest first (default 10, 0 = all)\n"
    "      --app-only       only the application tree\n"
    "      --arch NAME      arch table to use instead of the detected/recorded one\n"
    "      --csv FILE       also write one CSV row per kernel and the app (- = stdout)\n"
    "      --csv-launches FILE  also write one CSV row per profiled launch\n"
    "      --timeline KERNEL    the kernel's invocations and phases instead of the tree\n"
    "      --phase-threshold PCT  level-1 jump that starts a phase (default 5 points)\n"
    "plot options: --top K (kernels drawn, default 10, rest as \"other\"), -o OUT,\n"
    "  --timeline KERNEL, --diff A.json B.json; see docs/OUTPUTS.md\n"
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
    OPT_CSV,
    OPT_CSV_LAUNCHES,
    OPT_TIMELINE,
    OPT_PHASE_THRESHOLD,
    OPT_TOP,
    OPT_DIFF,
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
    {"csv", required_argument, NULL, OPT_CSV},
    {"csv-launches", required_argument, NULL, OPT_CSV_LAUNCHES},
    {"timeline", required_argument, NULL, OPT_TIMELINE},
    {"phase-threshold", required_argument, NULL, OPT_PHASE_THRESHOLD},
    {"top", required_argument, NULL, OPT_TOP},
    {"diff", no_argument, NULL, OPT_DIFF},
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
    /* outputs of docs/OUTPUTS.md */
    const char *csv, *csv_launches, *timeline;
    double phase_threshold;
    long top;
    int plot_diff;
    int plot_option_seen; /* --top or --diff: only for `plot` */
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

static int parse_points(const char *text, const char *option, double *out, td_error *err)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (errno || !end || *end || end == text || !(value >= 0 && value <= 100))
        return td_fail(err, "%s needs points of issue-slot share from 0 to 100, not \"%s\"",
                       option, text);
    *out = value;
    return 0;
}

/* The options of the outputs (CSV, timeline, plot); 1 if opt is not one. */
static int apply_output_option(cli *c, int opt, const char *arg, td_error *err)
{
    switch (opt) {
    case OPT_CSV: c->csv = arg; return 0;
    case OPT_CSV_LAUNCHES: c->csv_launches = arg; return 0;
    case OPT_TIMELINE: c->timeline = arg; return 0;
    case OPT_PHASE_THRESHOLD:
        return parse_points(arg, "--phase-threshold", &c->phase_threshold, err);
    case OPT_TOP:
        c->plot_option_seen = 1;
        return parse_count(arg, "--top", 0, LONG_MAX, &c->top, err);
    case OPT_DIFF: c->plot_option_seen = 1; c->plot_diff = 1; return 0;
    default: return 1;
    }
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
    int output_option = apply_output_option(c, opt, arg, err);
    if (output_option <= 0)
        return output_option;
    c->profiling_option_seen++;
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
    c->phase_threshold = TD_PHASE_THRESHOLD_DEFAULT;
    c->top = TD_PLOT_TOP_DEFAULT;
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

static int print_timeline(const td_result *res, const td_summary *s, const cli *c,
                          td_error *err)
{
    const char *name = NULL;
    if (td_kernel_lookup(s, c->timeline, &name, err))
        return -1;
    td_timeline t;
    if (td_timeline_build(res, s, name, &t, err))
        return -1;
    int rc = td_timeline_text(stdout, &t, s, c->report.level, c->phase_threshold, err);
    td_timeline_free(&t);
    return rc;
}

/* The CSV files asked for, then the tree (or the timeline) unless a CSV
 * went to stdout. */
static int write_outputs(const char *path, const td_result *res, const td_summary *s,
                         const cli *c, td_error *err)
{
    int level = c->report.level;
    if (c->csv && td_csv_kernels_file(c->csv, s, level, err))
        return -1;
    if (c->csv_launches && td_csv_launches_file(c->csv_launches, res, s, level, err))
        return -1;
    if (c->timeline)
        return print_timeline(res, s, c, err);
    if ((c->csv && strcmp(c->csv, "-") == 0) ||
        (c->csv_launches && strcmp(c->csv_launches, "-") == 0))
        return 0;
    td_report_options o = c->report;
    o.source = path;
    return td_report_text(stdout, res, s, &o, err);
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
        rc = write_outputs(path, &res, &summary, c, err);
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
                          strcmp(argv[i], "--kernels") == 0 || strcmp(argv[i], "--arch") == 0 ||
                          strcmp(argv[i], "--csv") == 0 || strcmp(argv[i], "--csv-launches") == 0 ||
                          strcmp(argv[i], "--timeline") == 0 ||
                          strcmp(argv[i], "--phase-threshold") == 0 || strcmp(argv[i], "--top") == 0;
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
    if (c.plot_option_seen)
        return td_fail(err, "--top and --diff are options of `topdown plot`; see topdown --help");
    if (!file)
        return td_fail(err, "topdown report needs a result file: topdown report FILE [-l N]");
    return print_result_file(file, &c, err) ? -1 : 0;
}

static int cmd_list_archs(td_error *err)
{
    td_arch_set archs;
    if (load_archs(&archs, err))
        return -1;
    printf("%-8s %-14s %-16s %-7s %-7s %-7s %s\n", "table", "family", "CC", "IPC_MAX",
           "source", "stalls", "chips");
    for (size_t i = 0; i < archs.count; i++) {
        const td_arch *a = &archs.items[i];
        char ccs[64] = "", chips[256] = "";
        for (size_t j = 0; j < a->n_ccs; j++)
            snprintf(ccs + strlen(ccs), sizeof ccs - strlen(ccs), "%s%s", j ? "," : "", a->ccs[j]);
        for (size_t j = 0; j < a->n_chips; j++)
            snprintf(chips + strlen(chips), sizeof chips - strlen(chips), "%s%s", j ? " " : "",
                     a->chips[j]);
        printf("%-8s %-14s %-16s %-7g %-7s %-7zu %s\n", a->name, a->family, ccs, a->ipc_max,
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

/* ---- plot and diff (docs/OUTPUTS.md) ---- */

/* Whether an option (as written, "--name" or "-x") takes the next word as
 * its value. */
static int option_takes_value(const char *arg)
{
    if (arg[1] != '-')
        return arg[2] == '\0' && strchr("lok", arg[1]) != NULL;
    if (strchr(arg, '='))
        return 0;
    for (const struct option *o = long_options; o->name; o++)
        if (strcmp(arg + 2, o->name) == 0)
            return o->has_arg == required_argument;
    return 0;
}

/* Options may come before or after the file names: rest gets argv[0] and
 * the options with their values, files the other words. */
static int split_args(int argc, char **argv, char **rest, int *n_rest, const char **files,
                      int max_files, int *n_files, td_error *err)
{
    *n_rest = 0;
    *n_files = 0;
    rest[(*n_rest)++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            rest[(*n_rest)++] = argv[i];
            if (option_takes_value(argv[i]) && i + 1 < argc)
                rest[(*n_rest)++] = argv[++i];
        } else if (*n_files < max_files) {
            files[(*n_files)++] = argv[i];
        } else {
            return td_fail(err, "%s takes %d result file%s; \"%s\" is one too many", argv[0],
                           max_files, max_files == 1 ? "" : "s", argv[i]);
        }
    }
    return 0;
}

static int parse_with_files(int argc, char **argv, cli *c, const char **files, int max_files,
                            int *n_files, td_error *err)
{
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return td_fail(err, "out of memory");
    int n = 0;
    int rc = split_args(argc, argv, rest, &n, files, max_files, n_files, err);
    if (rc == 0)
        rc = parse_options(n, rest, c, err);
    free(rest);
    return rc;
}

/* Loads a result file and models it with its recorded arch table (or arch). */
static int load_result(const char *path, const char *arch, const td_arch_set *archs,
                       td_result *res, td_summary *s, td_error *err)
{
    if (td_result_load(path, res, err))
        return -1;
    if (td_summarize(res, archs, arch, s, err)) {
        td_result_free(res);
        return td_fail_context(err, "%s", path);
    }
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* "file.json (GPU name)": how plots and diffs name a result. */
static void result_label(const char *path, const td_result *res, char *buf, size_t size)
{
    const char *gpu = res->n_devices && res->devices[0].name ? res->devices[0].name : NULL;
    snprintf(buf, size, "%s%s%s%s", base_name(path), gpu ? " (" : "", gpu ? gpu : "",
             gpu ? ")" : "");
}

/* FILE.json -> FILE<suffix>, next to it. */
static void default_output(const char *file, const char *suffix, char *buf, size_t size)
{
    size_t len = strlen(file);
    if (len > 5 && strcmp(file + len - 5, ".json") == 0)
        len -= 5;
    snprintf(buf, size, "%.*s%s", (int)len, file, suffix);
}

static int plot_one(const char *file, const cli *c, td_plot_options *o,
                    const td_arch_set *archs, td_error *err)
{
    td_result res;
    td_summary s;
    if (load_result(file, c->arch, archs, &res, &s, err))
        return -1;
    char title[512];
    result_label(file, &res, title, sizeof title);
    o->title = title;
    int rc;
    if (c->timeline) {
        const char *name = NULL;
        td_timeline t;
        rc = td_kernel_lookup(&s, c->timeline, &name, err);
        if (rc == 0 && (rc = td_timeline_build(&res, &s, name, &t, err)) == 0) {
            rc = td_plot_timeline(&t, &s, o, err);
            td_timeline_free(&t);
        }
    } else {
        rc = td_plot_bars(&s, o, err);
    }
    td_summary_free(&s);
    td_result_free(&res);
    return rc;
}

/* Two results side by side, for `diff` and `plot --diff`. */
typedef struct result_pair {
    td_result res[2];
    td_summary sum[2];
    char label[2][512];
    td_diff_side side[2];
} result_pair;

static int load_pair(const char *const *files, const td_arch_set *archs, result_pair *p,
                     td_error *err)
{
    if (load_result(files[0], NULL, archs, &p->res[0], &p->sum[0], err))
        return -1;
    if (load_result(files[1], NULL, archs, &p->res[1], &p->sum[1], err)) {
        td_summary_free(&p->sum[0]);
        td_result_free(&p->res[0]);
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        result_label(files[i], &p->res[i], p->label[i], sizeof p->label[i]);
        p->side[i] = (td_diff_side){p->label[i], &p->res[i], &p->sum[i]};
    }
    return 0;
}

static void free_pair(result_pair *p)
{
    for (int i = 0; i < 2; i++) {
        td_summary_free(&p->sum[i]);
        td_result_free(&p->res[i]);
    }
}

static int plot_two(const char *const *files, td_plot_options *o, const td_arch_set *archs,
                    td_error *err)
{
    result_pair p;
    if (load_pair(files, archs, &p, err))
        return -1;
    o->title = "topdown diff";
    int rc = td_plot_diff(&p.side[0], &p.side[1], o, err);
    free_pair(&p);
    return rc;
}

static int cmd_plot(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[2] = {NULL, NULL};
    int n_files = 0;
    if (parse_with_files(argc, argv, &c, files, 2, &n_files, err))
        return -1;
    if (c.help) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (c.profiling_option_seen > (c.profile.output ? 1 : 0) || c.csv || c.csv_launches)
        return td_fail(err, "topdown plot takes -l, -o, --top, --timeline, --phase-threshold, --arch and --diff; see docs/OUTPUTS.md");
    int want = c.plot_diff ? 2 : 1;
    if (n_files != want)
        return td_fail(err, "%s", c.plot_diff ? "usage: topdown plot --diff A.json B.json [-l N] [-o OUT.png]"
                                              : "usage: topdown plot FILE [-l N] [-o OUT.png|OUT.svg] [--top K] [--timeline KERNEL]");
    if (c.plot_diff && (c.timeline || c.arch))
        return td_fail(err, "plot --diff draws two results with their own arch tables; --timeline and --arch do not apply");
    char output[PATH_MAX];
    if (c.profile.output)
        snprintf(output, sizeof output, "%s", c.profile.output);
    else
        default_output(files[0], c.plot_diff ? ".diff.png" : (c.timeline ? ".timeline.png" : ".png"),
                       output, sizeof output);
    td_plot_options o;
    td_plot_options_init(&o);
    o.level = c.report.level;
    o.top = c.top;
    o.phase_threshold = c.phase_threshold;
    o.output = output;
    td_arch_set archs;
    if (load_archs(&archs, err))
        return -1;
    int rc = c.plot_diff ? plot_two(files, &o, &archs, err) : plot_one(files[0], &c, &o, &archs, err);
    td_arch_set_free(&archs);
    if (rc == 0)
        fprintf(stderr, "topdown: wrote %s (restyle: edit the .gp script next to it, data in the .dat)\n",
                output);
    return rc;
}

static int diff_outputs(const char *const *files, const cli *c, const td_arch_set *archs,
                        td_error *err)
{
    result_pair p;
    if (load_pair(files, archs, &p, err))
        return -1;
    int rc = 0;
    if (c->csv)
        rc = td_diff_csv_file(c->csv, &p.side[0], &p.side[1], c->report.level, err);
    if (rc == 0 && !(c->csv && strcmp(c->csv, "-") == 0))
        rc = td_diff_text(stdout, &p.side[0], &p.side[1], c->report.level,
                          c->report.max_kernels, err);
    free_pair(&p);
    return rc;
}

static int cmd_diff(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[2] = {NULL, NULL};
    int n_files = 0;
    if (parse_with_files(argc, argv, &c, files, 2, &n_files, err))
        return -1;
    if (c.help) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (c.profiling_option_seen || c.plot_option_seen || c.csv_launches || c.timeline || c.arch)
        return td_fail(err, "topdown diff takes -l, --csv and --kernels (each result keeps its own arch table); for a plot: topdown plot --diff A.json B.json -o OUT.png");
    if (n_files != 2)
        return td_fail(err, "usage: topdown diff A.json B.json [-l N] [--csv FILE] [--kernels N]");
    td_arch_set archs;
    if (load_archs(&archs, err))
        return -1;
    int rc = diff_outputs(files, &c, &archs, err);
    td_arch_set_free(&archs);
    return rc;
}

static int cmd_profile(int argc, char **argv, td_error *err)
{
    cli c;
    if (parse_options(argc, argv, &c, err))
        return -1;
    if (c.plot_option_seen)
        return td_fail(err, "--top and --diff are options of `topdown plot`; see topdown --help");
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
    if (outcome.message[0])
        fprintf(stderr, "topdown: %s\n", outcome.message);
    if (!outcome.result_written) {
        fprintf(stderr, "topdown: no result written (%ld kernel launches seen)\n", outcome.launches);
        return outcome.app_exit_code;
    }
    td_error report_err;
    if (outcome.launches > 0 && print_result_file(outcome.result_path, &c, &report_err))
        fprintf(stderr, "topdown: %s\n", report_err.msg);
    fprintf(stderr, "topdown: result saved to %s (%ld launches, %ld profiled, %d replay pass%s)\n",
            outcome.result_path, outcome.launches, outcome.profiled, outcome.passes,
            outcome.passes == 1 ? "" : "es");
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
    else if (strcmp(cmd, "plot") == 0)
        rc = cmd_plot(argc - 1, argv + 1, &err);
    else if (strcmp(cmd, "diff") == 0)
        rc = cmd_diff(argc - 1, argv + 1, &err);
    else
        rc = cmd_profile(argc, argv, &err);
    if (rc < 0) {
        fprintf(stderr, "topdown: %s\n", err.msg);
        return 1;
    }
    return rc;
}
