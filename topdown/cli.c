/* topdown's command line: the usage text, the option table and the parsing
 * shared by the commands. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report/plot.h"
#include "../report/timeline.h"
#include "cli.h"

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
    "       topdown import-spool SPOOL -o OUT.json  the result of a run whose saving failed\n"
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
    "  -f, --force          overwrite existing output files (result, CSV, plot); only\n"
    "                       regular files, never an input of the command\n"
    "  -k, --kernel-name RE profile only kernels whose name matches RE (POSIX ERE)\n"
    "      --launch-skip N  skip the first N matching launches\n"
    "      --launch-count N profile at most N launches\n"
    "      --per-kernel N   profile at most N launches of each kernel, time the rest\n"
    "      --replay-mode M  auto (default): one counter group per launch, rotated over\n"
    "                       a kernel's launches, kernel replay for a kernel's first\n"
    "                       launch; none: never replay; kernel: replay every profiled\n"
    "                       launch for the full counter set (slow)\n"
    "      --overhead PCT   profile as many launches as keep the run within PCT%% of\n"
    "                       native time (default 50); 'unlimited' profiles every launch\n"
    "      --graph-profiling node|graph  kernels of CUDA graphs: each node its own\n"
    "                       range (default), or one range per graph launch\n"
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
    OPT_REPLAY_MODE,
    OPT_OVERHEAD,
    OPT_GRAPH_PROFILING,
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
    {"replay-mode", required_argument, NULL, OPT_REPLAY_MODE},
    {"overhead", required_argument, NULL, OPT_OVERHEAD},
    {"graph-profiling", required_argument, NULL, OPT_GRAPH_PROFILING},
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

void td_cli_usage(FILE *out)
{
    fputs(usage_text, out);
}

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

/* One of a fixed list of words (NULL-terminated). */
static int parse_word(const char *text, const char *option, const char *const *words,
                      const char **out, td_error *err)
{
    for (const char *const *w = words; *w; w++)
        if (strcmp(text, *w) == 0) {
            *out = *w;
            return 0;
        }
    return td_fail(err, "%s takes %s or %s%s%s, not \"%s\"", option, words[0], words[1],
                   words[2] ? " or " : "", words[2] ? words[2] : "", text);
}

/* --overhead PCT: a share of native time from 1 to 10000 %, or unlimited. */
static int parse_overhead(const char *text, double *out, td_error *err)
{
    if (strcmp(text, "unlimited") == 0) {
        *out = 0;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (errno || !end || *end || end == text || !(value >= 1 && value <= 10000))
        return td_fail(err, "--overhead needs a percentage of native time from 1 to 10000 "
                       "(50: at most 1.5x native) or 'unlimited', not \"%s\"", text);
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
    case 'f': c->profile.force = 1; return 0; /* every output: result, CSV, plot */
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
    case 'k': c->profile.kernel_filter = arg; return 0;
    case OPT_NO_PROGRESS: c->profile.progress = 0; return 0;
    case OPT_LAUNCH_SKIP:
        return parse_count(arg, "--launch-skip", 0, LONG_MAX, &c->profile.launch_skip, err);
    case OPT_LAUNCH_COUNT:
        return parse_count(arg, "--launch-count", 1, LONG_MAX, &c->profile.launch_count, err);
    case OPT_PER_KERNEL:
        return parse_count(arg, "--per-kernel", 1, LONG_MAX, &c->profile.per_kernel, err);
    case OPT_REPLAY_MODE: {
        static const char *const modes[] = {"auto", "none", "kernel", NULL};
        return parse_word(arg, "--replay-mode", modes, &c->profile.replay_mode, err);
    }
    case OPT_OVERHEAD:
        return parse_overhead(arg, &c->profile.overhead_pct, err);
    case OPT_GRAPH_PROFILING: {
        static const char *const views[] = {"node", "graph", NULL};
        return parse_word(arg, "--graph-profiling", views, &c->profile.graph_profiling, err);
    }
    default:
        return td_fail(err, "unknown option; see topdown --help");
    }
}

/* Parses options up to the first non-option (the app, or a file). */
int td_cli_parse_options(int argc, char **argv, cli *c, td_error *err)
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

int td_cli_load_archs(td_arch_set *archs, td_error *err)
{
    char dir[PATH_MAX];
    if (td_arch_default_dir(dir, sizeof dir, err))
        return -1;
    if (td_arch_load_dir(dir, archs, err))
        return -1;
    /* One bad table does not stop the others; it is said once. */
    if (archs->skipped)
        fprintf(stderr, "topdown: warning: arch table left out: %s\n", archs->skipped);
    return 0;
}

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

int td_cli_parse_with_files(int argc, char **argv, cli *c, const char **files, int max_files,
                            int *n_files, td_error *err)
{
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return td_fail(err, "out of memory");
    int n = 0;
    int rc = split_args(argc, argv, rest, &n, files, max_files, n_files, err);
    if (rc == 0)
        rc = td_cli_parse_options(n, rest, c, err);
    free(rest);
    return rc;
}
