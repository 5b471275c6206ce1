/* gnuplot plots. Each plot OUT.png (or .svg) comes with OUT.gp, the
 * gnuplot script, and OUT.dat, its data (tab-separated, C locale), so users
 * can restyle it and run `gnuplot OUT.gp` in that folder. Every node has
 * one fixed colour in every plot. gnuplot is started with posix_spawnp,
 * never through a shell. */
#ifndef TD_REPORT_PLOT_H
#define TD_REPORT_PLOT_H

#include <stdio.h>

#include "levels/aggregate.h"
#include "report/diff.h"
#include "report/timeline.h"

#define TD_PLOT_TOP_DEFAULT 10

typedef struct td_plot_options {
    int level;              /* 1..4 */
    long top;               /* kernels drawn, heaviest first; the rest as "other" */
    const char *output;     /* OUT.png or OUT.svg */
    const char *title;      /* first title line; NULL: none */
    const char *gnuplot;    /* program run; NULL: "gnuplot" from PATH */
    int no_run;             /* write OUT.gp and OUT.dat only */
    double phase_threshold; /* timeline: phase boundaries drawn */
    int name_base;          /* td_name_base (report/kname.h): kernel labels */
    const td_result *res;   /* the result drawn (mangled names); may be NULL */
    const unsigned char *kept; /* bars: per kernel of the summary, whether it is drawn
                                * (-k); NULL: every kernel */
} td_plot_options;

void td_plot_options_init(td_plot_options *o);

/* The fixed colour of a node path (its record's) or stall reason ("#rrggbb"). */
const char *td_plot_colour(const char *path_or_reason);
/* Writes s as a gnuplot single-quoted string: '' stands for ', control
 * characters become spaces, no escapes otherwise. */
void td_plot_gp_string(FILE *f, const char *s);

/* Stacked bars: the application, the top kernels, "other". */
int td_plot_bars(const td_summary *s, const td_plot_options *o, td_error *err);
/* Stacked areas of one kernel's invocations, phase boundaries marked. */
int td_plot_timeline(const td_timeline *t, const td_summary *s, const td_plot_options *o,
                     td_error *err);
/* Clustered stacked bars: A and B side by side for the application and the
 * top kernels found in both (heaviest in A first). */
int td_plot_diff(const td_diff_side *a, const td_diff_side *b, const td_plot_options *o,
                 td_error *err);

/* The data and script files that come with the image output (OUT.dat,
 * OUT.gp); fails when output does not end in .png or .svg. */
int td_plot_output_files(const char *output, char *data, char *script, size_t size,
                         td_error *err);

/* Runs program (NULL: "gnuplot") on script in the script's folder; fails
 * naming the package when gnuplot is missing, with gnuplot's first error
 * line when it fails. */
int td_gnuplot_run(const char *script, const char *program, td_error *err);

#endif
