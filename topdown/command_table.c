/* The table of commands: for each, its name, the options it takes, its
 * summary in topdown --help, its usage and examples. cli.c parses and
 * makes the help (and so the man page, help2man) and the completion's
 * lists (topdown help --commands / --options) from it and from its table
 * of options; main.c dispatches to the handlers by the same enum. A new
 * command is a row here, an enum value in command_table.h, its handler
 * (commands.h) and its line in main.c's table of handlers. The rows name
 * no handler: the handlers use the parser, which reads this table. */
#include <stddef.h>

#include "topdown/command_table.h"

/* A command's own list of option usages, for td_command_def.own. */
#define USAGES(...) ((const td_option_usage[]){__VA_ARGS__, {NULL, NULL}})

/* The options of the tree printed by profiling and `report`. */
#define TREE_OPTIONS "level verbose no-desc desc kernel-name-base kernels app-only " \
                     "spread-threshold arch csv csv-launches timeline phase-threshold " \
                     "by-region wide color quiet json print-summary separator nodes force help "

const td_command_def td_commands[TD_CMD_COUNT] = {
    [TD_CMD_PROFILE] = {
        "", "app",
        TREE_OPTIONS "version output kernel-name launch-skip launch-count per-kernel "
        "replay-mode overhead graph-profiling source source-only pc-sampling-period "
        "cache-control clock-control nvtx-include nvtx-exclude no-nvtx sample-every "
        "pm-interval time-sampled no-progress",
        "usage: topdown [options] [--] APP [ARGS...]   profile APP, print the tree\n",
        "usage: topdown [options] [--] APP [ARGS...]\n"
        "Profiles APP (its kernel launches), saves APP.topdown.json and prints the tree.\n",
        "  topdown -l 3 -- ./app args\n"
        "  topdown -l 2 -o run.json -f -k 'gemm|conv' -- ./app\n"
        "  topdown -k 'regex:^sgemm_\\d+' -s 2 -c 5 -- ./app   (ncu's forms)\n"
        "  topdown --overhead 10 -- python train.py\n", NULL},
    [TD_CMD_REPORT] = {
        "report", "file", TREE_OPTIONS "pm-timeline kernel-name input page",
        "       topdown report FILE [options]          print the tree of a result file\n",
        "usage: topdown report FILE [options]\n"
        "Prints the tree of a result file (no GPU needed).\n",
        "  topdown report run.json -l 3\n"
        "  topdown report run.json -l 4 -v -k 'gemm'     kernels whose name matches\n"
        "  topdown report run.json -k '^Kernel2$' --kernel-name-base function\n"
        "  topdown report run.json -l 3 -k '#4'          the 4th kernel (\"Kernel 4/N\")\n"
        "  topdown report run.json --timeline '#2'       one kernel over its invocations\n"
        "  topdown report run.json -l 2 --csv k.csv\n"
        "  topdown report run.json --page raw --csv      the counters behind the trees\n",
        USAGES({"kernel-name",
                "  -k, --kernel-name K  show only these kernels in the text, the CSV rows and\n"
                "                       --json (the application row stays the whole run's):\n"
                "                       #N (the report's rank), a whole name as the report\n"
                "                       shows it or in full, or a Perl-style regex (or\n"
                "                       regex:RE) on the --kernel-name-base name\n"})},
    [TD_CMD_LIST_ARCHS] = {
        "list-archs", "", "help",
        "       topdown list-archs                     list the architecture tables\n",
        "usage: topdown list-archs\nLists the architecture tables.\n",
        "  topdown list-archs\n", NULL},
    [TD_CMD_LIST_NODES] = {
        "list-nodes", "", "level json help",
        "       topdown list-nodes [-l N]              list the model's nodes\n",
        "usage: topdown list-nodes [-l N] [--json]\n"
        "Lists the model's nodes and thresholds.\n",
        "  topdown list-nodes -l 4\n",
        USAGES({"level", "  -l, --level N        levels 1 to N (default 3: the fixed nodes; 4: also\n"
                         "                       every arch table's stall reasons, under their node)\n"},
               {"json", "      --json           the nodes (with -l 4 each table's stall reasons)\n"
                        "                       as JSON instead of the text\n"})},
    [TD_CMD_DESCRIBE] = {
        "describe", "node", "json help",
        "       topdown describe NODE                  explain one node\n",
        "usage: topdown describe NODE [--json]\n"
        "Explains one node (a name or path of `topdown list-nodes`).\n",
        "  topdown describe L1_Bound\n  topdown describe Backend.Memory_Bound\n",
        USAGES({"json", "      --json           the node (or stall reason) as JSON instead of the\n"
                        "                       text\n"})},
    [TD_CMD_IMPORT_NVPROF] = {
        "import-nvprof", "file", "times arch output force help",
        "       topdown import-nvprof METRICS.csv [--times TIMES.csv] --arch NAME -o OUT.json\n"
        "                                              legacy GPUs (CC < 7.5): nvprof CSV to a result\n",
        "usage: topdown import-nvprof METRICS.csv [--times TIMES.csv] --arch NAME -o OUT.json [-f]\n"
        "Legacy GPUs (CC < 7.5): nvprof's CSV to a result file.\n",
        "  topdown import-nvprof m.csv --times t.csv --arch gp100 -o old.json\n",
        USAGES({"output", "  -o, --output FILE    the result file to write\n"})},
    [TD_CMD_PLOT] = {
        "plot", "file",
        "level output force kernel-name kernel-name-base top diff timeline pm-timeline "
        "phase-threshold arch input help",
        "       topdown plot FILE [-l N] [-o OUT.png|OUT.svg] [--top K] [--timeline KERNEL]\n"
        "                                              gnuplot plot (+ OUT.gp, OUT.dat to restyle)\n"
        "       topdown plot --diff A.json B.json [-l N] [-o OUT.png] [--top K]\n"
        "                                              clustered bars of two results\n",
        "usage: topdown plot FILE [-l N] [-o OUT.png|OUT.svg] [--top K] [--timeline KERNEL]\n"
        "       topdown plot --diff A.json B.json [-l N] [-o OUT.png] [--top K]\n"
        "gnuplot plots (+ OUT.gp, OUT.dat to restyle); see docs/OUTPUTS.md.\n",
        "  topdown plot run.json -l 2 -o bars.png --top 5\n"
        "  topdown plot run.json -l 3 --timeline '#1' -o t.svg\n"
        "  topdown plot --diff a.json b.json -l 2 -o diff.png\n",
        USAGES({"output",
                "  -o, --output FILE    the plot, OUT.png or OUT.svg (default: next to FILE)\n"},
               {"kernel-name",
                "  -k, --kernel-name K  draw only these kernels' bars (the application bar\n"
                "                       stays the whole run's): #N (the report's rank), a\n"
                "                       whole name as the report shows it or in full, or a\n"
                "                       Perl-style regex (or regex:RE) on the\n"
                "                       --kernel-name-base name\n"})},
    [TD_CMD_DIFF] = {
        "diff", "file",
        "level verbose csv json kernels kernel-name fail-if force kernel-name-base input wide "
        "help",
        "       topdown diff A.json B.json [-l N] [--csv FILE] [--kernels N]\n"
        "                                              compare two results node by node\n",
        "usage: topdown diff A.json B.json [-l N] [-v] [--csv [FILE] | --json] [--kernels N]\n"
        "                    [--fail-if RULES]\n"
        "Compares two results node by node (kernels matched by name).\n",
        "  topdown diff before.json after.json -l 2\n"
        "  topdown diff base.json new.json -l 2 --fail-if 'Backend.Memory_Bound>+5'\n"
        "  topdown diff base.json new.json --fail-if 'Retire<-5,Frontend>30'   (CI gate)\n",
        USAGES({"kernel-name",
                "  -k, --kernel-name K  compare only these kernels of each side (text, CSV,\n"
                "                       JSON, the --fail-if gate): #N (the report's rank), a\n"
                "                       whole name as the report shows it or in full, or a\n"
                "                       Perl-style regex (or regex:RE) on the\n"
                "                       --kernel-name-base name\n"},
               {"json", "      --json           the comparison as JSON (topdown-diff/1) instead of\n"
                        "                       the text\n"})},
    [TD_CMD_IMPORT_SPOOL] = {
        "import-spool", "file", "output force help",
        "       topdown import-spool SPOOL -o OUT.json  the result of a run whose saving failed\n",
        "usage: topdown import-spool SPOOL -o OUT.json [-f]\n"
        "Makes the result of a run whose saving failed from its spool.\n",
        "  topdown import-spool run.json.Ab12Cd.spool -o run.json\n",
        USAGES({"output", "  -o, --output FILE    the result file to write\n"})},
    [TD_CMD_MERGE] = {
        "merge", "file", "output force help",
        "       topdown merge A.json B.json ... -o ALL.json  one result of several processes (ranks)\n",
        "usage: topdown merge A.json B.json ... -o ALL.json [-f]\n"
        "One result holding every input's device sections, each tagged with its\n"
        "source (the input's name); inputs of one chip must share an arch table.\n"
        "The inputs are the processes (ranks) of one job: one command (numbers\n"
        "aside: a rank, a port), all measured or all synthetic; --force merges\n"
        "others too.\n",
        "  topdown merge run.0.json run.1.json -o all.json\n"
        "  topdown imbalance all.json\n",
        USAGES({"output", "  -o, --output FILE    the merged result file to write\n"},
               {"force", "  -f, --force          overwrite ALL.json, and merge results that are not\n"
                         "                       the ranks of one job\n"})},
    [TD_CMD_IMBALANCE] = {
        "imbalance", "file", "kernels arch json input help",
        "       topdown imbalance ALL.json | A.json B.json ...  kernels' time and level 1 per rank\n",
        "usage: topdown imbalance ALL.json | A.json B.json ... [--kernels N] [--json]\n"
        "Each rank's totals (a merged result's sources, or each file; at least\n"
        "two), then per kernel (matched by name) GPU time and level-1 shares per\n"
        "rank, the slowest marked (*), kernels sorted by the time lost: the\n"
        "slowest rank's GPU time minus the mean over the ranks.\n",
        "  topdown imbalance run.0.json run.1.json run.2.json run.3.json\n"
        "  topdown imbalance all.json --kernels 0\n",
        USAGES({"json", "      --json           the ranks' totals and the kernels as JSON\n"
                        "                       (topdown-imbalance/1) instead of the text\n"})},
    [TD_CMD_TRACE] = {
        "trace", "file",
        "output force arch input kernel-name kernel-name-base from to help",
        "       topdown trace FILE -o TRACE.json       Chrome trace-event JSON (Perfetto, chrome://tracing)\n",
        "usage: topdown trace FILE -o TRACE.json[.gz] [-k K] [--from MS] [--to MS] [-f]\n"
        "The result's kernel launches and copies as Chrome trace events (Perfetto,\n"
        "chrome://tracing): a track per device section and stream, kernels\n"
        "coloured by their level-1 bottleneck (grey: not measured), and a track of\n"
        "the NVTX regions the launches were made in; see docs/OUTPUTS.md.\n"
        "Launches without a start time (replayed) cannot be placed: their number\n"
        "is said. For a big run, -k and --from/--to keep the file small.\n",
        "  topdown trace run.json -o run.trace.json\n"
        "  topdown trace run.json -o run.trace.json.gz -k gemm --from 200 --to 250\n",
        USAGES({"output",
                "  -o, --output FILE    the trace file to write (Chrome trace-event JSON;\n"
                "                       gzip- or xz-compressed when FILE ends in .gz or .xz)\n"},
               {"kernel-name",
                "  -k, --kernel-name K  only these kernels' launches (no copies): #N (the\n"
                "                       report's rank), a whole name, or a Perl-style regex\n"
                "                       (or regex:RE) on the --kernel-name-base name\n"})},
    [TD_CMD_SOURCE] = {
        "source", "file", "lines node sass csv force arch input help",
        "       topdown source FILE KERNEL [-n 20] [--node NODE] [--sass] [--csv FILE]\n"
        "                                              a kernel's hottest source lines (--source runs)\n",
        "usage: topdown source FILE KERNEL [-n N] [--node NODE] [--sass] [--csv FILE]\n"
        "A kernel's hottest source lines (PCs without line information, or\n"
        "instructions with --sass) from a result profiled with --source: each\n"
        "line's share of the kernel's PC samples and their split over the model's\n"
        "leaves, sorted by NODE's samples (default: the kernel's bottleneck).\n"
        "KERNEL: #N (the report's numbering) or a regex (report -k's rules).\n",
        "  topdown --source -k triad -- ./app         profile with PC sampling\n"
        "  topdown source app.topdown.json triad\n"
        "  topdown source run.json '#1' -n 5 --node Backend.Memory_Bound\n"
        "  topdown source run.json '#2' --sass --csv pcs.csv\n",
        USAGES({"csv", "      --csv [FILE]     the rows shown (-n 0: all) as CSV (alone or -: on\n"
                       "                       stdout); docs/SOURCE.md\n"})},
    /* Its summary is the -h/--help row's ("topdown help COMMAND"). */
    [TD_CMD_HELP] = {
        "help", "command", "commands options help", NULL,
        "usage: topdown help [COMMAND]\n"
        "topdown --help, or COMMAND --help (COMMAND: a command of topdown --help).\n",
        "  topdown help report\n", NULL},
};

