/* topdown's command line: the table of options, the usage and the
 * completion's lists made from it and the table of commands
 * (command_table.c), and the parsing shared by the commands. */
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics/result/pcsamp.h"
#include "topdown/inject/nvtx_filter.h"
#include "topdown/inject/sample_policy.h"
#include "report/columns.h"
#include "report/kname.h"
#include "report/plot.h"
#include "report/timeline.h"
#include "report/wrap.h"
#include "topdown/cli.h"
#include "topdown/command_table.h"

/* The usage's sections, in order; a row is listed under its section. */
typedef enum cli_section { S_REPORT, S_PLOT, S_DIFF, S_SOURCE, S_TRACE, S_PROFILING, S_END, S_COUNT } cli_section;

static const char *const section_headers[S_COUNT] = {
    [S_REPORT] = "report options (profiling and `report`):\n",
    [S_PLOT] = "plot options (also -l, -o, --timeline; see docs/OUTPUTS.md):\n",
    [S_DIFF] = "diff and import-nvprof options:\n",
    [S_SOURCE] = "source options (also --csv, --arch; docs/SOURCE.md):\n",
    [S_TRACE] = "trace options (also -o, -k; docs/OUTPUTS.md):\n",
    [S_PROFILING] = "profiling options:\n",
    [S_END] = "",
};

/* takes_value of an option whose value may be left out: --csv alone
 * writes to stdout (ncu's --csv); --csv=FILE, or a next word that is "-"
 * or ends in .csv, is its file. */
#define VALUE_OPTIONAL 2

/* What an option's value is, for the completion (topdown help --options). */
typedef enum cli_value {
    V_NONE,  /* a flag */
    V_TEXT,  /* anything (a number, a pattern): nothing to offer */
    V_FILE,
    V_ARCH,  /* an arch table's name (topdown list-archs) */
    V_NODE,  /* a node's name (topdown list-nodes -l 4) */
    V_RANGE, /* a whole number from the row's min to max (a short range) */
    V_WORDS  /* one of the row's words */
} cli_value;

typedef struct cli_option cli_option;
typedef int (*cli_apply)(cli *c, const cli_option *o, const char *arg, td_error *err);

struct cli_option {
    const char *name;   /* long name */
    char short_name;    /* 0: none */
    int takes_value;    /* 0, 1, or VALUE_OPTIONAL (see parse) */
    cli_value value;
    const char *const *words; /* V_WORDS: its values, NULL-terminated */
    cli_apply apply;    /* set_flag, set_string, set_count: into field; or its own */
    size_t field;       /* offsetof(cli, ...) for the generic setters */
    long min, max;      /* set_count's range */
    cli_section section;
    const char *usage;  /* its usage line(s); NULL: said in its section's header or another row */
};

/* The exit codes, each with the one command it is for (TD_CMD_COUNT: all):
 * a command's help lists those that apply to it, topdown --help all. */
static const struct exit_code_line {
    td_command only;
    const char *text;
} exit_code_lines[] = {
    {TD_CMD_COUNT, "  0  success\n"},
    {TD_CMD_COUNT, "  1  topdown failed (a file that is no result, a write, the collection)\n"},
    {TD_CMD_COUNT, "  2  bad command line (unknown option, bad value, missing file, -k naming\n"
                   "     no kernel, an output that exists without -f)\n"},
    {TD_CMD_PROFILE, "  3  profiling: nothing measured: no GPU, no kernel launched, or no launch\n"
                     "     profiled (when the collection itself failed, the app's code instead,\n"
                     "     and why)\n"},
    {TD_CMD_DIFF, "  4  diff --fail-if: a rule broke, or no kernel is in both results\n"},
    {TD_CMD_PROFILE, "  profiling: the app's own exit code wins when it is not 0 (128+N: signal N)\n"},
};

/* The exit codes of command (TD_CMD_COUNT: of every command). */
static void print_exit_codes(FILE *out, td_command command)
{
    fputs("exit codes:\n", out);
    for (size_t i = 0; i < sizeof exit_code_lines / sizeof exit_code_lines[0]; i++)
        if (command == TD_CMD_COUNT || exit_code_lines[i].only == TD_CMD_COUNT ||
            exit_code_lines[i].only == command)
            fputs(exit_code_lines[i].text, out);
}

static const char environment_help[] =
    "environment:\n"
    "  TOPDOWN_ARCHS       folder of the arch tables (default: archs/ of the build or install)\n"
    "  TOPDOWN_KEEP_SPOOL  keep the collection spool after the run (for bug reports)\n"
    "  TOPDOWN_DEBUG       the injection library's per-batch decoding on stderr\n"
    "  TOPDOWN_HINTS       0: no \"next:\" hints after a report (as --quiet)\n"
    "  (topdown sets the other TOPDOWN_* variables for the app: docs/COLLECTION.md)\n";

/* ---- values ------------------------------------------------------------------ */

static int parse_count(const char *text, const char *option, long min, long max,
                       long *out, td_error *err)
{
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if ((errno || !end || *end || end == text || value < min || value > max) && max == LONG_MAX)
        return td_fail(err, "%s needs a whole number, %ld or more, not \"%s\"", option, min,
                       text);
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
    char listed[256] = ""; /* "a, b or c": every word */
    for (const char *const *w = words; *w; w++)
        snprintf(listed + strlen(listed), sizeof listed - strlen(listed), "%s%s",
                 w == words ? "" : w[1] ? ", " : " or ", *w);
    return td_fail(err, "%s takes %s, not \"%s\"", option, listed, text);
}

/* --from / --to MS: a time in milliseconds, 0 or more. */
static int parse_ms(const char *text, const char *option, double *out, td_error *err)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (errno || !end || *end || end == text || !(value >= 0 && value <= 1e12))
        return td_fail(err, "%s needs milliseconds from the run's first start, 0 or more "
                       "(12.5), not \"%s\"", option, text);
    *out = value;
    return 0;
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
                       "(40: profiling adds at most 40%%) or 'unlimited', not \"%s\"", text);
    *out = value;
    return 0;
}

/* ---- applying each option ------------------------------------------------------ */

/* The generic setters store into the row's field. */
static int set_flag(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)arg, (void)err;
    *(int *)((char *)c + o->field) = 1;
    return 0;
}

static int set_string(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)err;
    *(const char **)((char *)c + o->field) = arg;
    return 0;
}

static int set_count(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    char label[64];
    snprintf(label, sizeof label, "--%s", o->name);
    return parse_count(arg, label, o->min, o->max, (long *)((char *)c + o->field), err);
}

/* One of the row's words, into its field (a const char *). */
static int set_word(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    char label[64];
    snprintf(label, sizeof label, "--%s", o->name);
    return parse_word(arg, label, o->words, (const char **)((char *)c + o->field), err);
}

static int set_level(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    long value = 0;
    if (parse_count(arg, "-l/--level", o->min, o->max, &value, err))
        return -1;
    c->report.level = (int)value;
    return 0;
}

/* One table for the model and for the collection. */
static int set_arch(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o, (void)err;
    c->arch = arg;
    c->profile.arch = arg;
    return 0;
}

static int set_phase_threshold(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o;
    return parse_points(arg, "--phase-threshold", &c->phase_threshold, err);
}

static int set_spread_threshold(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o;
    return parse_points(arg, "--spread-threshold", &c->report.spread_threshold, err);
}

static int set_from(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o;
    return parse_ms(arg, "--from", &c->from_ms, err);
}

static int set_to(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o;
    return parse_ms(arg, "--to", &c->to_ms, err);
}

static int set_overhead(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o;
    return parse_overhead(arg, &c->profile.overhead_pct, err);
}

static int set_name_base(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o;
    td_name_base base;
    if (td_name_base_parse(arg, &base, err))
        return -1;
    c->report.name_base = (int)base;
    c->profile.name_base = (int)base; /* what -k matches, too */
    return 0;
}

/* --source-only: PC sampling without the Range Profiler (profile.source 2). */
static int set_source_only(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o, (void)arg, (void)err;
    c->profile.source = 2;
    return 0;
}

/* --nvtx-include / --nvtx-exclude: checked here (ncu's syntax), handed to
 * the injection library one per line. */
static int add_nvtx_spec(const char *arg, int exclude, const char **list, size_t *n,
                         td_error *err)
{
    const char *option = exclude ? "--nvtx-exclude" : "--nvtx-include";
    if (*n == 32)
        return td_fail(err, "%s: at most 32 of them", option);
    if (strchr(arg, '\n'))
        return td_fail(err, "%s '%s': a range name cannot hold a newline", option, arg);
    td_nvtx_filter f;
    memset(&f, 0, sizeof f);
    int rc = td_nvtx_filter_add(&f, arg, exclude, err);
    td_nvtx_filter_free(&f);
    if (rc)
        return -1;
    list[(*n)++] = arg;
    return 0;
}

static int set_nvtx_include(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o;
    return add_nvtx_spec(arg, 0, c->profile.nvtx_include, &c->profile.n_nvtx_include, err);
}

static int set_nvtx_exclude(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o;
    return add_nvtx_spec(arg, 1, c->profile.nvtx_exclude, &c->profile.n_nvtx_exclude, err);
}

static int set_sample_every(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o;
    td_sample_every policy;
    if (td_sample_every_parse(arg, &policy, err))
        return -1;
    c->profile.sample_every = arg;
    return 0;
}

/* report --page (ncu's pages): details, raw, session; source is a command of its own. */
static int set_color(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)c;
    for (const char *const *w = o->words; *w; w++)
        if (strcmp(arg, *w) == 0) {
            td_set_text_color(td_choose_color(arg, isatty(STDOUT_FILENO), getenv("NO_COLOR")));
            return 0;
        }
    return td_fail(err, "--color takes auto, always or never, not \"%s\"", arg);
}

static int set_page(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    for (const char *const *p = o->words; *p; p++)
        if (strcmp(arg, *p) == 0) {
            c->page = *p;
            return 0;
        }
    if (strcmp(arg, "source") == 0)
        return td_fail(err, "--page source: the source page is a command of its own: "
                       "topdown source FILE KERNEL (a result profiled with --source; "
                       "docs/SOURCE.md)");
    return td_fail(err, "--page takes details, raw, session or source, not \"%s\"", arg);
}

static int set_nodes(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o;
    c->report.nodes = arg;
    return td_nodes_check(arg, err);
}

static int set_no_progress(cli *c, const cli_option *o, const char *arg, td_error *err)
{
    (void)o, (void)arg, (void)err;
    c->profile.progress = 0;
    return 0;
}

/* ---- the table ------------------------------------------------------------------ */

/* An option's value: none, one of a kind, one that may be left out, or
 * one of a few words. */
#define FLAG_ONLY 0, V_NONE, NULL
#define VALUE(kind) 1, kind, NULL
#define OPTIONAL(kind) VALUE_OPTIONAL, kind, NULL
#define WORDS(...) 1, V_WORDS, ((const char *const[]){__VA_ARGS__, NULL})

/* How it is applied. */
#define FLAG(member) set_flag, offsetof(cli, member), 0, 0
#define WORD(member) set_word, offsetof(cli, member), 0, 0
#define STRING(member) set_string, offsetof(cli, member), 0, 0
#define COUNT(member, min, max) set_count, offsetof(cli, member), min, max
#define OWN(fn) fn, 0, 0, 0

static const cli_option options[] = {
    {"level", 'l', VALUE(V_RANGE), set_level, 0, 1, TD_MAX_LEVEL, S_REPORT,
     "  -l, --level N        tree depth, 1 to 5 (default 1; 4 lists stall reasons, 5\n"
     "                       where long_scoreboard's loads were served: L1, L2, DRAM)\n"},
    {"verbose", 'v', FLAG_ONLY, FLAG(report.verbose), S_REPORT,
     "  -v, --verbose        also show nodes below threshold, marked '<'\n"},
    {"no-desc", 0, FLAG_ONLY, FLAG(report.no_desc), S_REPORT,
     "      --no-desc        no description lines\n"},
    {"desc", 0, FLAG_ONLY, FLAG(report.desc), S_REPORT,
     "      --desc           every node's description (default: the bottleneck's, once)\n"},
    {"kernel-name-base", 0, WORDS("function", "demangled", "mangled"), OWN(set_name_base), S_REPORT,
     "      --kernel-name-base function|demangled|mangled  kernel names in the text,\n"
     "                       plots and diff, and the name -k and --timeline match\n"
     "                       (default function: base name, no templates or\n"
     "                       parameters; CSVs keep full names)\n"},
    {"kernels", 0, VALUE(V_TEXT), COUNT(report.max_kernels, 0, LONG_MAX), S_REPORT,
     "      --kernels N      kernels listed, heaviest first (default 10, 0 = all)\n"},
    {"app-only", 0, FLAG_ONLY, FLAG(report.app_only), S_REPORT,
     "      --app-only       only the application tree\n"},
    {"spread-threshold", 0, VALUE(V_TEXT), OWN(set_spread_threshold), S_REPORT,
     "      --spread-threshold POINTS  show a node's 95% interval (+-P, +P-M) where it\n"
     "                       reaches past this many points (default 1, 0 = always)\n"},
    {"arch", 0, VALUE(V_ARCH), OWN(set_arch),
     S_REPORT,
     "      --arch NAME      arch table to use instead of the detected/recorded one\n"},
    {"csv", 0, OPTIONAL(V_FILE), STRING(csv), S_REPORT,
     "      --csv [FILE]     also write one CSV row per kernel and the app; alone (or\n"
     "                       -): to stdout instead of the text (tree or timeline);\n"
     "                       FILE ends in .csv, or --csv=FILE for any name\n"},
    {"csv-launches", 0, VALUE(V_FILE), STRING(csv_launches), S_REPORT,
     "      --csv-launches FILE  also write one CSV row per profiled launch\n"},
    {"timeline", 0, VALUE(V_TEXT), STRING(timeline), S_REPORT,
     "      --timeline KERNEL    the kernel's invocations and phases instead of the tree\n"},
    {"pm-timeline", 0, FLAG_ONLY, FLAG(pm_timeline),
     S_REPORT,
     "      --pm-timeline    the PM-sampling timeline (level 1 over wall time, kernels\n"
     "                       laid over it) instead of the tree; record with --pm-interval\n"},
    {"phase-threshold", 0, VALUE(V_TEXT), OWN(set_phase_threshold), S_REPORT,
     "      --phase-threshold PCT  level-1 jump that starts a phase (default 5 points)\n"},
    {"by-region", 0, FLAG_ONLY, FLAG(report.by_region), S_REPORT,
     "      --by-region      one tree per NVTX region (the ranges launches were made in);\n"
     "                       --csv gets one row per region and kernel, a region column\n"},
    {"wide", 0, FLAG_ONLY, FLAG(report.wide), S_REPORT,
     "      --wide           full lines and kernel names (default: the terminal's\n"
     "                       width, 100 columns in a pipe, long names elided in the\n"
     "                       middle, lines wrapped)\n"},
    {"color", 0, WORDS("auto", "always", "never"), OWN(set_color), S_REPORT,
     "      --color WHEN     colour the bottleneck and the nodes over their threshold:\n"
     "                       auto (default: on a terminal, unless NO_COLOR), always,\n"
     "                       never\n"},
    {"quiet", 0, FLAG_ONLY, FLAG(quiet), S_REPORT,
     "      --quiet          no \"next:\" hints after the report (also TOPDOWN_HINTS=0;\n"
     "                       they show only when stderr is a terminal)\n"},
    {"json", 0, FLAG_ONLY, FLAG(json), S_REPORT,
     "      --json           the modelled tree (or --timeline) as JSON instead of the text\n"
     "                       (docs/OUTPUTS.md)\n"},
    {"print-summary", 0, WORDS("per-kernel", "none"), WORD(print_summary), S_REPORT,
     "      --print-summary per-kernel  one line per kernel instead of the tree: its\n"
     "                       share of GPU time, level 1 and bottleneck (ncu's form)\n"},
    {"separator", 'x', VALUE(V_TEXT), STRING(separator), S_REPORT,
     "  -x, --separator SEP  those lines with fields separated by SEP, names whole\n"
     "                       (toplev's -x ,)\n"},
    {"nodes", 0, VALUE(V_NODE), OWN(set_nodes), S_REPORT,
     "      --nodes LIST     only these nodes (comma-separated paths or names, toplev's\n"
     "                       --nodes), with the nodes above and below them, in the\n"
     "                       tree, the CSVs' node columns and --json; the\n"
     "                       --print-summary columns: these nodes\n"},
    {"page", 0, WORDS("details", "raw", "session"), OWN(set_page), S_REPORT,
     "      --page PAGE      report: details (the tree and each kernel's launch,\n"
     "                       registers, shared memory and occupancy; without --page:\n"
     "                       the tree), raw (each kernel's counter values the model\n"
     "                       read; --csv: kernel,metric,value,launches), session (the\n"
     "                       header only); source: see topdown source FILE KERNEL\n"
     "                       (ncu's --page)\n"},
    {"input", 'i', VALUE(V_FILE), STRING(input), S_REPORT,
     "  -i, --input FILE     the result file to read (ncu's -i), as the first file\n"},
    {"top", 0, VALUE(V_TEXT), COUNT(top, 0, LONG_MAX), S_PLOT,
     "      --top K          kernels drawn, heaviest first (default 10, the rest as \"other\")\n"},
    {"diff", 0, FLAG_ONLY, FLAG(plot_diff), S_PLOT,
     "      --diff A.json B.json  clustered bars of two results\n"},
    {"fail-if", 0, VALUE(V_TEXT), STRING(fail_if), S_DIFF,
     "      --fail-if RULES  diff exits 4 when the app or a kernel in both results\n"
     "                       breaks a rule, or when no kernel is in both: NODE>+P /\n"
     "                       NODE<-P (B-A in points), NODE>P / NODE<P (B's share),\n"
     "                       time>+P% / time<-P% (GPU time per launch, B against A);\n"
     "                       comma-separated, e.g. 'Backend.Memory_Bound>+5,time>+10%'\n"},
    {"times", 0, VALUE(V_FILE), STRING(times), S_DIFF,
     "      --times FILE     import-nvprof: nvprof's GPU-trace CSV, for the durations\n"},
    {"lines", 'n', VALUE(V_TEXT), COUNT(lines, 0, LONG_MAX), S_SOURCE,
     "  -n, --lines N        source: lines (or instructions) shown, hottest first\n"
     "                       (default 20, 0 = all)\n"},
    {"node", 0, VALUE(V_NODE), STRING(node), S_SOURCE,
     "      --node NODE      source: sort by this node's samples (a level 1-3 node of\n"
     "                       topdown list-nodes; default: the kernel's bottleneck)\n"},
    {"sass", 0, FLAG_ONLY, FLAG(sass), S_SOURCE,
     "      --sass           source: one row per instruction (PC) instead of per line\n"},
    {"output", 'o', VALUE(V_FILE), STRING(profile.output),
     S_PROFILING,
     "  -o, --output FILE    result file (default: APP.topdown.json, never overwritten);\n"
     "                       one per process: %p the app's pid, %h the host, %q{VAR}\n"
     "                       a variable (run.%q{OMPI_COMM_WORLD_RANK}), %i first free number\n"},
    /* every output: the result, CSVs, plots, import-spool's result */
    {"force", 'f', FLAG_ONLY, FLAG(profile.force), S_PROFILING,
     "  -f, --force          overwrite existing output files (result, CSV, plot); only\n"
     "                       regular files, never an input of the command\n"},
    {"from", 0, VALUE(V_TEXT), OWN(set_from), S_TRACE,
     "      --from MS        only the events that end at or after MS ms from the run's\n"
     "                       first start (the trace's time 0)\n"},
    {"to", 0, VALUE(V_TEXT), OWN(set_to), S_TRACE,
     "      --to MS          only the events that start at or before MS ms\n"},
    {"kernel-name", 'k', VALUE(V_TEXT), STRING(profile.kernel_filter), S_PROFILING,
     "  -k, --kernel-name RE profile only kernels whose name matches RE: a Perl-style\n"
     "                       regex ('gemm_\\d+', '^sgemm') or ncu's regex:RE, searched\n"
     "                       for in the --kernel-name-base name (default: the function's\n"
     "                       base name); report, plot, diff and trace -k RE show only those\n"
     "                       (text, CSV, JSON, bars, the gate), -k '#4' the 4th kernel\n"},
    {"launch-skip", 's', VALUE(V_TEXT), COUNT(profile.launch_skip, 0, LONG_MAX),
     S_PROFILING, "  -s, --launch-skip N  skip the first N matching launches\n"},
    {"launch-count", 'c', VALUE(V_TEXT), COUNT(profile.launch_count, 1, LONG_MAX), S_PROFILING,
     "  -c, --launch-count N profile at most N launches\n"},
    {"per-kernel", 0, VALUE(V_TEXT), COUNT(profile.per_kernel, 1, LONG_MAX),
     S_PROFILING,
     "      --per-kernel N   profile at most N launches of each kernel, time the rest\n"},
    {"replay-mode", 0, WORDS("auto", "none", "kernel", "application"), WORD(profile.replay_mode),
     S_PROFILING,
     "      --replay-mode M  auto (default): a kernel's first launch replayed for the\n"
     "                       full counter set, later sampled launches measure one\n"
     "                       counter group each without replay, groups rotated over\n"
     "                       the run; none: never replay; kernel: replay every\n"
     "                       profiled launch for the full set (slow); application:\n"
     "                       run the app once per counter group, every launch\n"
     "                       measured, joined by kernel name and order (the app must\n"
     "                       launch the same kernels each run; later runs are silent)\n"},
    {"overhead", 0, VALUE(V_TEXT), OWN(set_overhead), S_PROFILING,
     "      --overhead PCT   profile as many launches as keep the run within PCT% of\n"
     "                       native time (default 40); 'unlimited' profiles every launch\n"},
    {"graph-profiling", 0, WORDS("node", "graph"), WORD(profile.graph_profiling),
     S_PROFILING,
     "      --graph-profiling node|graph  kernels of CUDA graphs: each node its own\n"
     "                       range (default), or one range per graph launch\n"},
    {"source", 0, FLAG_ONLY, FLAG(profile.source), S_PROFILING,
     "      --source         also sample the selected kernels' PCs (CUPTI PC sampling,\n"
     "                       no replay) for `topdown source`; saves their cubins in\n"
     "                       RESULT.cubins/ (docs/SOURCE.md)\n"},
    {"source-only", 0, FLAG_ONLY, OWN(set_source_only), S_PROFILING,
     "      --source-only    PC samples without counters: kernels are timed and sampled,\n"
     "                       not profiled (no tree; `topdown source` sorts by samples)\n"},
    {"pc-sampling-period", 0, VALUE(V_TEXT),
     COUNT(profile.pc_period, TD_PCSAMP_PERIOD_MIN, TD_PCSAMP_PERIOD_MAX), S_PROFILING,
     "      --pc-sampling-period N  with --source or --time-sampled: sampling period\n"
     "                       of 2^N cycles, N from 5 to 31 (default: CUPTI's, chosen\n"
     "                       by the SM count)\n"},
    {"cache-control", 0, WORDS("none", "all"), WORD(profile.cache_control), S_PROFILING,
     "      --cache-control none|all  none (default): caches as the app leaves them;\n"
     "                       all: L2 flushed before each profiled pass, as ncu does\n"},
    {"clock-control", 0, WORDS("none", "base"), WORD(profile.clock_control), S_PROFILING,
     "      --clock-control none|base  none (default): clocks as the GPU runs them;\n"
     "                       base: locked to base while the app runs, as ncu does\n"
     "                       (needs root; restored after)\n"},
    {"nvtx-include", 0, VALUE(V_TEXT), OWN(set_nvtx_include), S_PROFILING,
     "      --nvtx-include SPEC  profile only launches in these NVTX ranges (ncu's\n"
     "                       syntax: 'fwd/' push/pop range, 'Dom@fwd/' in a domain,\n"
     "                       'a/*/b', '[a/', 'b]', 'epoch' start/end range); repeatable:\n"
     "                       any of them; the others are timed only\n"},
    {"nvtx-exclude", 0, VALUE(V_TEXT), OWN(set_nvtx_exclude), S_PROFILING,
     "      --nvtx-exclude SPEC  do not profile launches in these NVTX ranges (repeatable)\n"},
    {"no-nvtx", 0, FLAG_ONLY, FLAG(profile.no_nvtx), S_PROFILING,
     "      --no-nvtx        do not follow the app's NVTX ranges (launches get no region)\n"},
    {"sample-every", 0, VALUE(V_TEXT), OWN(set_sample_every), S_PROFILING,
     "      --sample-every N|T   profile each kernel periodically over the whole run:\n"
     "                       every Nth invocation, or every T of its own GPU time\n"
     "                       (5ms, 250us); each point measures every counter group\n"
     "                       on consecutive invocations (report --timeline KERNEL)\n"},
    {"pm-interval", 0, VALUE(V_TEXT), COUNT(profile.pm_interval_us, 1, 10000000),
     S_PROFILING,
     "      --pm-interval USEC  also record a GPU-wide level-1 timeline with CUPTI's PM\n"
     "                       sampling, one sample every USEC microseconds; turns\n"
     "                       per-launch counters off (launches are only timed)\n"},
    {"time-sampled", 0, FLAG_ONLY, FLAG(profile.time_sampled), S_PROFILING,
     "      --time-sampled   the tree of every launch from samples, no range and no\n"
     "                       replay: PM samples (--pm-interval, default 100) give each\n"
     "                       launch its level 1 by time, PC samples of a second run of\n"
     "                       the app split its kernel's stalled slots (the app must run\n"
     "                       the same kernels again; the second run is silent)\n"},
    {"no-progress", 0, FLAG_ONLY, OWN(set_no_progress), S_PROFILING,
     "      --no-progress    no progress line on stderr\n"},
    /* topdown help --commands / --options [COMMAND]: the completion's lists */
    {"commands", 0, FLAG_ONLY, FLAG(list_commands), S_END, NULL},
    {"options", 0, FLAG_ONLY, FLAG(list_options), S_END, NULL},
    {"help", 'h', FLAG_ONLY, FLAG(help), S_END,
     "  -h, --help           this help (topdown COMMAND --help, or topdown help\n"
     "                       COMMAND: the command's)\n"},
    {"version", 'V', FLAG_ONLY, FLAG(version), S_END,
     "  -V, --version        the version\n"},
};

#define N_OPTIONS (sizeof options / sizeof *options)
_Static_assert(sizeof options / sizeof *options <= TD_CLI_MAX_OPTIONS,
               "raise TD_CLI_MAX_OPTIONS");

/* ---- the commands' options ------------------------------------------------------ */

static int row_named(const char *name, size_t len)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (strlen(options[i].name) == len && strncmp(options[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

/* takes[row]: whether the command takes that option. Fails on a name of
 * the command table that is no option (a slip in this file). */
static int command_options(td_command command, unsigned char *takes, td_error *err)
{
    memset(takes, 0, N_OPTIONS);
    for (const char *p = td_commands[command].options; *p;) {
        size_t len = strcspn(p, " ");
        int row = len ? row_named(p, len) : -1;
        if (len && row < 0)
            return td_fail(err, "internal: command table names no option \"%.*s\"", (int)len, p);
        if (row >= 0)
            takes[row] = 1;
        p += len + (p[len] == ' ');
    }
    return 0;
}

/* "topdown report", or "topdown" for profiling. */
static void command_title(td_command command, char *buf, size_t size)
{
    snprintf(buf, size, "topdown%s%s", td_commands[command].name[0] ? " " : "",
             td_commands[command].name);
}

/* "-o/--output" or "--top". */
static void option_title(const cli_option *o, char *buf, size_t size)
{
    if (o->short_name)
        snprintf(buf, size, "-%c/--%s", o->short_name, o->name);
    else
        snprintf(buf, size, "--%s", o->name);
}

/* The commands that take row, as "profiling, report and diff". */
static void commands_taking(int row, char *buf, size_t size)
{
    unsigned char takes[TD_CLI_MAX_OPTIONS];
    const char *names[TD_CMD_COUNT];
    size_t n = 0, used = 0;
    for (int k = 0; k < TD_CMD_COUNT; k++)
        if (command_options((td_command)k, takes, NULL) == 0 && takes[row])
            names[n++] = td_commands[k].name[0] ? td_commands[k].name : "profiling";
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                 i == 0 ? "" : i + 1 == n ? " and " : ", ", names[i]);
}

/* An option the command does not take: named, with where it belongs. */
static int not_taken(td_command command, int row, td_error *err)
{
    char title[64], option[64], where[512];
    command_title(command, title, sizeof title);
    option_title(&options[row], option, sizeof option);
    commands_taking(row, where, sizeof where);
    return td_usage_fail(err, "option %s does not apply to `%s` (it is for %s); see %s --help",
                         option, title, where, title);
}

void td_cli_usage(FILE *out)
{
    for (int k = 0; k < TD_CMD_COUNT; k++)
        if (td_commands[k].summary)
            fputs(td_commands[k].summary, out);
    fputs("\n", out);
    for (int section = 0; section < S_COUNT; section++) {
        fputs(section_headers[section], out);
        for (size_t i = 0; i < N_OPTIONS; i++)
            if (options[i].section == (cli_section)section && options[i].usage)
                fputs(options[i].usage, out);
    }
    print_exit_codes(out, TD_CMD_COUNT);
    fputs(environment_help, out);
}

/* The usage of option row i in command's help: the command's own, or the row's. */
static const char *option_usage(td_command command, size_t i)
{
    for (const td_option_usage *u = td_commands[command].own; u && u->option; u++)
        if (strcmp(u->option, options[i].name) == 0)
            return u->usage;
    return options[i].usage;
}

void td_cli_command_usage(FILE *out, td_command command)
{
    const td_command_def *cmd = &td_commands[command];
    unsigned char takes[TD_CLI_MAX_OPTIONS];
    if (command_options(command, takes, NULL))
        return;
    fputs(cmd->synopsis, out);
    int listed = 0;
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (takes[i] && options[i].usage) {
            fputs(listed++ ? "" : "options:\n", out);
            fputs(option_usage(command, i), out);
        }
    fprintf(out, "examples:\n%s", cmd->examples);
    print_exit_codes(out, command);
    fputs(environment_help, out);
}

void td_cli_list_commands(FILE *out)
{
    for (int k = 0; k < TD_CMD_COUNT; k++)
        if (td_commands[k].name[0])
            fprintf(out, "%s\t%s\n", td_commands[k].name, td_commands[k].operands);
}

/* What the completion offers for an option's value. */
static void print_value(FILE *out, const cli_option *o)
{
    static const char *const kinds[] = {[V_TEXT] = "text", [V_FILE] = "file",
                                        [V_ARCH] = "arch", [V_NODE] = "node"};
    if (o->value == V_NONE)
        return;
    if (o->value == V_RANGE) {
        fputs("\twords", out);
        for (long v = o->min; v <= o->max; v++)
            fprintf(out, " %ld", v);
        return;
    }
    if (o->value == V_WORDS) {
        fputs("\twords", out);
        for (const char *const *w = o->words; *w; w++)
            fprintf(out, " %s", *w);
        return;
    }
    fprintf(out, "\t%s", kinds[o->value]);
}

int td_cli_list_options(FILE *out, td_command command, td_error *err)
{
    unsigned char takes[TD_CLI_MAX_OPTIONS];
    if (command_options(command, takes, err))
        return -1;
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (!takes[i])
            continue;
        if (options[i].short_name)
            fprintf(out, "-%c ", options[i].short_name);
        fprintf(out, "--%s", options[i].name);
        print_value(out, &options[i]);
        fputc('\n', out);
    }
    return 0;
}

td_command td_cli_command_named(const char *name)
{
    for (int k = 0; k < TD_CMD_COUNT; k++)
        if (td_commands[k].name[0] && strcmp(td_commands[k].name, name) == 0)
            return (td_command)k;
    return TD_CMD_COUNT;
}

const char *td_cli_command_name(td_command command)
{
    return td_commands[command].name;
}

/* Levenshtein distance, case-insensitive, of two short words. */
size_t td_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 127 || lb > 127)
        return (size_t)-1;
    size_t row[128];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            int same = (a[i - 1] | 0x20) == (b[j - 1] | 0x20);
            size_t best = diag + !same;
            best = row[j] + 1 < best ? row[j] + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *td_cli_command_near(const char *word)
{
    const char *best = NULL;
    size_t best_d = strlen(word) / 3 + 2; /* reach: a typo or two */
    for (int k = 0; k < TD_CMD_COUNT; k++) {
        const char *name = td_commands[k].name;
        size_t d = name[0] ? td_edit_distance(word, name) : (size_t)-1;
        if (d < best_d) {
            best = name;
            best_d = d;
        }
    }
    return best;
}

int td_usage_fail(td_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return TD_USAGE_ERROR;
}

/* ---- parsing ------------------------------------------------------------------ */

/* getopt's view of the table: long options return 256 + row, short ones
 * their letter. The leading ':' makes a missing value ':' rather than '?';
 * '+' stops at the first non-option (the app of the profiling command).
 * Every option is known to getopt, so one a command does not take is
 * named as such rather than as unknown. */
#define LONG_ONLY_BASE 256

static void getopt_tables(struct option *longs, char *shorts, int stop_at_word)
{
    char *s = shorts;
    if (stop_at_word)
        *s++ = '+';
    *s++ = ':';
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const cli_option *o = &options[i];
        int has_arg = o->takes_value == VALUE_OPTIONAL ? optional_argument
                      : o->takes_value ? required_argument : no_argument;
        longs[i] = (struct option){o->name, has_arg, NULL,
                                   o->short_name ? o->short_name : LONG_ONLY_BASE + (int)i};
        if (o->short_name) {
            *s++ = o->short_name;
            if (o->takes_value)
                *s++ = ':';
        }
    }
    longs[N_OPTIONS] = (struct option){NULL, 0, NULL, 0};
    *s = '\0';
}

static int row_of(int opt)
{
    if (opt >= LONG_ONLY_BASE)
        return opt - LONG_ONLY_BASE < (int)N_OPTIONS ? opt - LONG_ONLY_BASE : -1;
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (options[i].short_name == opt)
            return (int)i;
    return -1;
}

static void cli_init(cli *c)
{
    memset(c, 0, sizeof *c);
    td_report_options_init(&c->report);
    td_profile_options_init(&c->profile);
    c->phase_threshold = TD_PHASE_THRESHOLD_DEFAULT;
    c->top = TD_PLOT_TOP_DEFAULT;
    c->lines = TD_SOURCE_LINES_DEFAULT;
    c->to_ms = -1; /* to the end */
}

/* The option as written, for messages: "-x" for a short option (optopt is
 * a letter only then), else the word getopt stopped at, up to its '='. */
static void option_as_written(char **argv, char *buf, size_t size)
{
    if (optopt > 0 && optopt < LONG_ONLY_BASE && optopt != '?') {
        snprintf(buf, size, "-%c", optopt);
        return;
    }
    const char *word = argv[optind - 1] ? argv[optind - 1] : "?";
    snprintf(buf, size, "%.*s", (int)strcspn(word, "="), word);
}

static int bad_option(char **argv, int opt, td_command command, td_error *err)
{
    char name[128], title[64];
    option_as_written(argv, name, sizeof name);
    command_title(command, title, sizeof title);
    if (opt == ':')
        return td_usage_fail(err, "option %s needs a value; see %s --help", name, title);
    return td_usage_fail(err, "option %s is unknown%s; see %s --help", name,
                         name[1] == '-' ? " (or an ambiguous abbreviation)" : "", title);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The value of a VALUE_OPTIONAL option given without '=': the next word
 * when it is "-" or ends in .csv (then consumed), else "-" (stdout). */
static const char *optional_value(int argc, char **argv)
{
    if (optind < argc && argv[optind] &&
        (strcmp(argv[optind], "-") == 0 || ends_with(argv[optind], ".csv")))
        return argv[optind++];
    return "-";
}

/* The command's options, each checked as it comes: one the command does
 * not take is a usage error before its value is read. */
static int parse(int argc, char **argv, td_command command, cli *c, td_error *err)
{
    cli_init(c);
    unsigned char takes[TD_CLI_MAX_OPTIONS];
    if (command_options(command, takes, err))
        return -1;
    struct option longs[N_OPTIONS + 1];
    char shorts[2 * N_OPTIONS + 3];
    getopt_tables(longs, shorts, command == TD_CMD_PROFILE);
    opterr = 0;
    optind = 0; /* 0: GNU getopt fully reinitialises */
    int opt;
    while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        int row = opt == '?' || opt == ':' ? -1 : row_of(opt);
        if (row < 0)
            return bad_option(argv, opt, command, err);
        if (!takes[row])
            return not_taken(command, row, err);
        c->seen[row] = 1;
        const char *value = optarg;
        if (options[row].takes_value == VALUE_OPTIONAL && !value)
            value = optional_value(argc, argv);
        if (options[row].apply(c, &options[row], value, err))
            return TD_USAGE_ERROR;
    }
    return 0;
}

/* --pm-interval turns per-launch counters off: the options that only
 * choose or pace profiled launches would do nothing. */
static int check_pm_interval(const cli *c, td_error *err)
{
    static const char *const per_launch[] = {"replay-mode", "overhead", "per-kernel",
                                             "launch-skip", "launch-count", "sample-every",
                                             "nvtx-include", "nvtx-exclude", "cache-control",
                                             "kernel-name", "graph-profiling"};
    const char *mode = c->profile.time_sampled ? "--time-sampled" : "--pm-interval";
    if (c->profile.pm_interval_us <= 0 && !c->profile.time_sampled)
        return 0;
    for (size_t i = 0; i < N_OPTIONS; i++)
        for (size_t k = 0; c->seen[i] && k < sizeof per_launch / sizeof *per_launch; k++)
            if (strcmp(options[i].name, per_launch[k]) == 0)
                return td_usage_fail(err, "--%s chooses profiled launches, and %s "
                                     "profiles none with ranges (%s); give one of them",
                                     options[i].name, mode, c->profile.time_sampled
                                     ? "every launch gets its counters from samples"
                                     : "launches are only timed");
    if (c->profile.time_sampled && c->profile.source)
        return td_usage_fail(err, "--time-sampled takes its PC samples in a run of its own; "
                             "leave out --%s (the result works with `topdown source`)",
                             c->profile.source == 2 ? "source-only" : "source");
    return 0;
}

/* Options that cannot go together. */
static int check_conflicts(const cli *c, td_command command, td_error *err)
{
    if (command == TD_CMD_PROFILE && check_pm_interval(c, err))
        return TD_USAGE_ERROR;
    int app_replay = c->profile.replay_mode && strcmp(c->profile.replay_mode, "application") == 0;
    if (command == TD_CMD_PROFILE && app_replay && (c->profile.sample_every || c->profile.source))
        return td_usage_fail(err, "--replay-mode application measures every launch of each run; "
                             "--%s chooses launches (or samples PCs) in one run: leave it out, "
                             "or use another replay mode", c->profile.sample_every
                             ? "sample-every" : "source");
    if (command == TD_CMD_PROFILE && c->profile.no_nvtx &&
        c->profile.n_nvtx_include + c->profile.n_nvtx_exclude > 0)
        return td_usage_fail(err, "--nvtx-include/--nvtx-exclude need the NVTX ranges that "
                             "--no-nvtx turns off; give one or the other");
    int lines = (c->print_summary && strcmp(c->print_summary, "per-kernel") == 0) ||
                c->separator;
    if (lines && (c->timeline || c->json || c->report.by_region || c->pm_timeline))
        return td_usage_fail(err, "--print-summary/-x print a line per kernel instead of the "
                             "tree; leave out --%s", c->timeline ? "timeline" : c->json ? "json"
                             : c->report.by_region ? "by-region" : "pm-timeline");
    int page = c->page && strcmp(c->page, "details") != 0;
    if (page && (c->timeline || c->json || c->report.by_region || c->pm_timeline || lines))
        return td_usage_fail(err, "--page %s is a page of its own; leave out --%s", c->page,
                             c->timeline ? "timeline" : c->json ? "json"
                             : c->report.by_region ? "by-region"
                             : c->pm_timeline ? "pm-timeline" : "print-summary/-x");
    if (page && strcmp(c->page, "session") == 0 && (c->csv || c->csv_launches))
        return td_usage_fail(err, "--page session prints the header only; leave out --%s",
                             c->csv ? "csv" : "csv-launches");
    if (command == TD_CMD_DIFF && c->json && c->csv && strcmp(c->csv, "-") == 0)
        return td_usage_fail(err, "--json and --csv - both print on stdout; give --csv a file");
    if (c->timeline && c->csv)
        return td_usage_fail(err, "--timeline prints one kernel's launches over time, and --csv "
                             "the table of kernels; leave out one (--timeline with --json gives "
                             "the timeline as data)");
    if (c->report.by_region && (c->timeline || c->json))
        return td_usage_fail(err, "--by-region prints one tree per NVTX region; leave out --%s, "
                             "or --by-region", c->timeline ? "timeline" : "json");
    return 0;
}

int td_cli_parse_options(int argc, char **argv, cli *c, td_error *err)
{
    int rc = parse(argc, argv, TD_CMD_PROFILE, c, err);
    return rc ? rc : check_conflicts(c, TD_CMD_PROFILE, err);
}

int td_cli_given(const cli *c, const char *long_name)
{
    int row = row_named(long_name, strlen(long_name));
    return row >= 0 && c->seen[row];
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

int td_cli_parse_command(int argc, char **argv, td_command command, cli *c,
                         const char **files, int max_files, int *n_files, td_error *err)
{
    *n_files = 0;
    int rc = parse(argc, argv, command, c, err);
    if (rc)
        return rc;
    if (c->help) {
        td_cli_command_usage(stdout, command);
        return 1;
    }
    if (c->input && max_files > 0)
        files[(*n_files)++] = c->input; /* -i FILE: the first file */
    for (int i = optind; i < argc; i++) {
        int csv = row_named("csv", 3);
        if (*n_files == max_files)
            return td_usage_fail(err, "%s takes %d %s; \"%s\" is one too many%s", argv[0],
                                 max_files, max_files == 1 ? "file" : "files", argv[i],
                                 csv >= 0 && c->seen[csv] && strcmp(c->csv, "-") == 0
                                     ? " (--csv takes a name ending in .csv, or --csv=FILE)"
                                     : "");
        files[(*n_files)++] = argv[i];
    }
    return check_conflicts(c, command, err);
}
