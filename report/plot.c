#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np (glibc 2.29) */
#include "report/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/columns.h"
#include "report/kname.h"
#include "report/output.h"
#include "report/wrap.h"

#define LABEL_CHARS 40
#define TITLE_NAME_CHARS 80 /* a kernel's label in a plot's title */
#define TITLE_CHAR_PIXELS 7.5 /* a title character's width, font 10 */
#define BAR_NAME_CHARS 28  /* a bar's kernel name, elided in the middle */
#define DIFF_NAME_CHARS 34 /* a diff kernel's name in the list under the bars */
#define DIFF_LIST_COLUMNS 3
#define BAR_PIXELS 72      /* canvas width per bar (or per pair of a diff) */
#define MIN_SHARE 0.0001 /* a segment below 0.01% in every bar is left out */

/* ---- colours: one per node and stall reason, the same in every plot ---- */

typedef struct colour {
    const char *key; /* node path or stall reason */
    const char *rgb;
} colour;

/* Stall reasons are the arch tables' words, not nodes: their colours are
 * kept here, shades of their node's family (the nodes' colours are in
 * their records, levels/tree.c). */
static const colour reason_colours[] = {
    /* CC >= 7.5 */
    {"no_instruction", "#08306b"},
    {"branch_resolving", "#2171b5"},
    {"barrier", "#6baed6"},
    {"membar", "#9ecae1"},
    {"sleeping", "#c6dbef"},
    {"dispatch_stall", "#0e8a96"},
    {"misc", "#8fdbe3"},
    {"long_scoreboard", "#67000d"},
    {"lg_throttle", "#a50f15"},
    {"tex_throttle", "#cb181d"},
    {"mio_throttle", "#ef3b2c"},
    {"short_scoreboard", "#fb6a4a"},
    {"imc_miss", "#fc9272"},
    {"drain", "#fcbba1"},
    {"math_pipe_throttle", "#d94801"},
    {"wait", "#fdae6b"},
    {"gmma", "#8c510a"},
    /* nvprof (CC < 7.5) */
    {"inst_fetch", "#08306b"},
    {"sync", "#6baed6"},
    {"other", "#8fdbe3"},
    {"memory_dependency", "#a50f15"},
    {"constant_memory_dependency", "#fc9272"},
    {"memory_throttle", "#ef3b2c"},
    {"texture", "#cb181d"},
    {"pipe_busy", "#d94801"},
    {"exec_dependency", "#fdae6b"},
};

#define UNATTRIBUTED_COLOUR "#bdbdbd"
#define NOT_KNOWN_COLOUR "#f2f2f2"
#define NOT_KNOWN_TITLE "Not known (n/k)"
#define UNKNOWN_COLOUR "#7f7f7f"

const char *td_plot_colour(const char *path_or_reason)
{
    const td_node_set *set = td_nodes_builtin();
    for (int n = 0; n < set->count; n++)
        if (strcmp(set->nodes[n].path, path_or_reason) == 0)
            return set->nodes[n].colour;
    if (strcmp(path_or_reason, "Unattributed") == 0)
        return UNATTRIBUTED_COLOUR;
    for (size_t i = 0; i < sizeof reason_colours / sizeof *reason_colours; i++)
        if (strcmp(reason_colours[i].key, path_or_reason) == 0)
            return reason_colours[i].rgb;
    return UNKNOWN_COLOUR;
}

/* A node's colour is its record's; a reason no table above knows takes
 * its node's colour. */
static const char *column_colour(const td_column *c)
{
    if (!c->reason)
        return c->record->colour;
    const char *rgb = td_plot_colour(c->reason);
    return strcmp(rgb, UNKNOWN_COLOUR) == 0 ? c->record->colour : rgb;
}

void td_plot_options_init(td_plot_options *o)
{
    memset(o, 0, sizeof *o);
    o->level = 1;
    o->top = TD_PLOT_TOP_DEFAULT;
    o->phase_threshold = TD_PHASE_THRESHOLD_DEFAULT;
}

/* ---- files ------------------------------------------------------------- */

typedef struct plot_files {
    char dir[PATH_MAX];
    char image[PATH_MAX];  /* base names: the script runs in dir */
    char script[PATH_MAX];
    char data[PATH_MAX];
    char script_path[PATH_MAX];
    char data_path[PATH_MAX];
    int svg;
} plot_files;

/* The folder and the file name of path (libgen.h, on a copy: both may
 * modify their argument). */
static void split_script_path(const char *path, char *dir, size_t dir_size, char *base,
                              size_t base_size)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(dir, dir_size, "%s", dirname(copy));
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(base, base_size, "%s", basename(copy));
}

static int plot_files_init(plot_files *p, const char *output, td_error *err)
{
    size_t len = strlen(output);
    if (len + 64 >= PATH_MAX)
        return td_fail(err, "plot output path too long");
    char base[PATH_MAX];
    split_script_path(output, p->dir, sizeof p->dir, base, sizeof base);
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base || output[len - 1] == '/' ||
        (strcmp(dot, ".png") != 0 && strcmp(dot, ".svg") != 0))
        return td_fail(err, "plot output \"%s\" must end in .png or .svg (e.g. -o plot.png)", output);
    p->svg = strcmp(dot, ".svg") == 0;
    int stem = (int)(dot - base);
    snprintf(p->image, sizeof p->image, "%s", base);
    snprintf(p->script, sizeof p->script, "%.*s.gp", stem, base);
    snprintf(p->data, sizeof p->data, "%.*s.dat", stem, base);
    int out_stem = (int)(len - strlen(dot)); /* output without .png/.svg */
    snprintf(p->script_path, sizeof p->script_path, "%.*s.gp", out_stem, output);
    snprintf(p->data_path, sizeof p->data_path, "%.*s.dat", out_stem, output);
    return 0;
}

void td_plot_gp_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("''", f);
        else
            fputc((unsigned char)*s < ' ' ? ' ' : *s, f);
    }
    fputc('\'', f);
}

/* A label in the tab-separated data: no tab, line break, quote or leading '#'. */
static void dat_label(FILE *f, const char *s)
{
    /* '#' only inside a label: at its start it would comment the row out */
    for (const char *p = s; *p; p++)
        fputc((unsigned char)*p < ' ' || *p == '"' || (*p == '#' && p == s) ? ' ' : *p, f);
}

/* One kernel's label under o->name_base, cut to max_chars: bars need
 * short labels; the CSV keeps full names. */
static void one_label(const td_plot_options *o, const char *name, size_t max_chars,
                      char *out, size_t size)
{
    char whole[512];
    if (o->name_base == TD_NAME_FUNCTION)
        td_kernel_base_name(name, whole, sizeof whole);
    else
        snprintf(whole, sizeof whole, "%s",
                 o->name_base == TD_NAME_MANGLED ? td_kernel_mangled(o->res, name) : name);
    td_label_fit(whole, max_chars, out, size);
}

/* ---- rows and segments ----------------------------------------------------- */

typedef struct plot_row {
    char label[128];
    const td_model *model;
    const td_breakdown *b;
    double x; /* timeline: the invocation */
} plot_row;

typedef struct segments {
    td_columns cols;    /* the leaves drawn */
    td_columns all;     /* every leaf of the level, drawn or not */
    int unattributed;   /* an "Unattributed" segment on top */
    int not_known;      /* then a "Not known" one: the leaves whose 95% interval
                           is too wide to give a number, together */
} segments;

static double row_value(const plot_row *r, const td_column *c)
{
    double v = td_column_value(c, r->model, r->b);
    return isnan(v) ? 0.0 : 100.0 * v;
}

/* The share of a row's slots in leaves not known, in %. */
static double row_not_known(const plot_row *r, const segments *seg)
{
    double sum = 0;
    for (size_t c = 0; c < seg->all.count; c++)
        sum += td_column_not_known_share(&seg->all.items[c], r->model, r->b);
    return 100.0 * sum;
}

static void segments_free(segments *seg)
{
    td_columns_free(&seg->cols);
    td_columns_free(&seg->all);
}

/* The level's leaves that some row has, plus Unattributed and Not known
 * if any row has. */
static int choose_segments(segments *seg, const td_model *const *models, size_t n_models,
                           int level, const plot_row *rows, size_t n_rows, td_error *err)
{
    memset(&seg->all, 0, sizeof seg->all);
    if (td_columns_segments(&seg->cols, models, n_models, level, err) ||
        td_columns_segments(&seg->all, models, n_models, level, err))
        return -1;
    size_t kept = 0;
    for (size_t c = 0; c < seg->cols.count; c++) {
        int used = 0;
        for (size_t r = 0; r < n_rows && !used; r++)
            used = row_value(&rows[r], &seg->cols.items[c]) > 100 * MIN_SHARE;
        if (used)
            seg->cols.items[kept++] = seg->cols.items[c];
    }
    seg->cols.count = kept;
    seg->unattributed = seg->not_known = 0;
    for (size_t r = 0; r < n_rows; r++) {
        seg->unattributed |= rows[r].b->unattributed > MIN_SHARE;
        seg->not_known |= row_not_known(&rows[r], seg) > 100 * MIN_SHARE;
    }
    return 0;
}

static size_t segment_count(const segments *seg)
{
    return seg->cols.count + (size_t)seg->unattributed + (size_t)seg->not_known;
}

static const char *segment_title(const segments *seg, size_t i)
{
    if (i < seg->cols.count)
        return seg->cols.items[i].path;
    return i == seg->cols.count && seg->unattributed ? "Unattributed" : NOT_KNOWN_TITLE;
}

static const char *segment_colour(const segments *seg, size_t i)
{
    if (i < seg->cols.count)
        return column_colour(&seg->cols.items[i]);
    return i == seg->cols.count && seg->unattributed ? UNATTRIBUTED_COLOUR : NOT_KNOWN_COLOUR;
}

static void dat_header(FILE *f, const char *first, const segments *seg)
{
    fprintf(f, "# %s", first);
    for (size_t i = 0; i < segment_count(seg); i++)
        fprintf(f, "\t%s", segment_title(seg, i));
    fputc('\n', f);
}

static void dat_values(FILE *f, const plot_row *r, const segments *seg)
{
    for (size_t c = 0; c < seg->cols.count; c++)
        fprintf(f, "\t%.4f", row_value(r, &seg->cols.items[c]));
    if (seg->unattributed)
        fprintf(f, "\t%.4f", 100.0 * r->b->unattributed);
    if (seg->not_known)
        fprintf(f, "\t%.4f", row_not_known(r, seg));
    fputc('\n', f);
}

/* ---- scripts --------------------------------------------------------------- */

/* The deepest level drawn: less than asked where a table stops earlier. */
static int segments_level(const segments *seg)
{
    int level = 1;
    for (size_t i = 0; i < seg->cols.count; i++)
        if (seg->cols.items[i].level > level)
            level = seg->cols.items[i].level;
    return level;
}

static void script_header(FILE *f, const plot_files *p, const td_plot_options *o,
                          const segments *seg, const char *what, int width, int height)
{
    int level = segments_level(seg);
    fprintf(f, "# topdown %s: %s, level %d. Restyle freely, then run in this folder:\n",
            TOPDOWN_VERSION, what, level);
    fprintf(f, "#   gnuplot %s\n", p->script);
    fprintf(f, "# Data: %s (tab-separated, %% of issue slots; first line names the columns).\n",
            p->data);
    if (p->svg)
        fprintf(f, "set terminal svg size %d,%d dynamic font 'Sans,11' noenhanced background rgb 'white'\n",
                width, height);
    else
        fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                   "    set terminal pngcairo size %d,%d font 'Sans,10' noenhanced\n"
                   "} else {\n"
                   "    set terminal png size %d,%d noenhanced\n"
                   "}\n", width, height, width, height);
    fputs("set output ", f);
    td_plot_gp_string(f, p->image);
    fputs("\nset datafile separator '\\t'\nset title ", f);
    char title[1200], rest[600];
    snprintf(rest, sizeof rest, "%s (level %d%s)", what, level,
             level < o->level ? ", the deepest these arch tables fill" : "");
    snprintf(title, sizeof title, "%s%s%s", o->title ? o->title : "topdown",
             o->title ? " - " : ": ", rest);
    if (o->title && strlen(title) * TITLE_CHAR_PIXELS > width) {
        /* wider than the canvas: the result on one line, the rest under it */
        td_plot_gp_string(f, o->title);
        fputs(" . \"\\n\" . ", f);
        td_plot_gp_string(f, rest);
    } else {
        td_plot_gp_string(f, title);
    }
    fputs(" noenhanced\n", f);
    fputs("set ylabel '% of issue slots'\nset yrange [0:100]\nset ytics 10\n"
          "set grid ytics lc rgb '#dddddd'\n"
          "set key outside right top invert noenhanced  # top entry = top segment\n"
          "set style fill solid 0.9 border rgb '#404040'\n", f);
}

/* Tic labels at 45 degrees: the bottom margin holds the longest (in
 * character heights), the left one a label that leans past the first bars;
 * longest_label 0: short labels, not rotated. */
static void histogram_style(FILE *f, size_t longest_label)
{
    fputs("set style data histograms\nset style histogram rowstacked\nset boxwidth 0.75\n", f);
    if (longest_label == 0)
        fputs("set xtics norotate nomirror noenhanced\n", f);
    else
        fprintf(f, "set xtics rotate by 45 right nomirror noenhanced\nset bmargin %d\n"
                   "set lmargin 14\n",
                (int)(0.36 * (double)longest_label) + 3);
}

/* The width of a canvas for n bars: room for each, at least `least`. */
static int canvas_width(size_t n, int least)
{
    int width = 260 + (int)n * BAR_PIXELS;
    return width > least ? width : least;
}

/* One rowstacked histogram of the rows of data block `index` (-1: the
 * whole file); key entries only when titled (the first block). */
static void histogram_clauses(FILE *f, const plot_files *p, const segments *seg, int index,
                              int titled)
{
    for (size_t i = 0; i < segment_count(seg); i++) {
        if (i == 0)
            td_plot_gp_string(f, p->data);
        else
            fputs(", \\\n     ''", f);
        if (index >= 0)
            fprintf(f, " index %d", index);
        fprintf(f, " using %zu%s", i + 2, i == 0 ? ":xtic(1)" : "");
        if (titled) {
            fputs(" title ", f);
            td_plot_gp_string(f, segment_title(seg, i));
        } else {
            fputs(" notitle", f);
        }
        fprintf(f, " lc rgb '%s'", segment_colour(seg, i));
    }
}

/* ---- running gnuplot -------------------------------------------------------- */

/* gnuplot prints the failing line, a caret, then "file" line N: message;
 * keep the last non-empty line, the message. */
static void last_line(char *text)
{
    size_t len = strlen(text);
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
        text[--len] = '\0';
    char *start = strrchr(text, '\n');
    if (start)
        memmove(text, start + 1, strlen(start + 1) + 1);
}

/* Starts program on script file base in folder dir, its stderr into
 * err_fd, its stdout to /dev/null. 0, or the errno of what failed (an exec
 * failure included: glibc's posix_spawnp reports it). */
static int spawn_gnuplot(const char *program, const char *dir, const char *base, int err_fd,
                         pid_t *pid)
{
    posix_spawn_file_actions_t actions;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc)
        return rc;
    rc = posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
    if (rc == 0)
        rc = posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_addchdir_np(&actions, dir);
    char *const argv[] = {(char *)program, (char *)base, NULL};
    if (rc == 0)
        rc = posix_spawnp(pid, program, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

/* Runs gnuplot on script; messages name the script shown instead (the
 * user's OUT.gp when a temporary copy is run). */
static int gnuplot_run_as(const char *script, const char *shown, const char *program,
                          td_error *err)
{
    if (!program)
        program = "gnuplot";
    char dir[PATH_MAX], run_dir[PATH_MAX], base[PATH_MAX], run_base[PATH_MAX];
    split_script_path(script, run_dir, sizeof run_dir, run_base, sizeof run_base);
    split_script_path(shown, dir, sizeof dir, base, sizeof base);
    int err_pipe[2];
    if (pipe2(err_pipe, O_CLOEXEC) != 0)
        return td_fail(err, "cannot run %s: %s", program, strerror(errno));
    pid_t pid = 0;
    int spawn_errno = spawn_gnuplot(program, run_dir, run_base, err_pipe[1], &pid);
    close(err_pipe[1]);
    if (spawn_errno) {
        close(err_pipe[0]);
        if (spawn_errno == ENOENT)
            return td_fail(err, "%s is not installed (Debian/Ubuntu: apt-get install gnuplot-nox); %s and its data are written, run `gnuplot %s` in %s once it is",
                           program, shown, base, dir);
        return td_fail(err, "cannot run %s in %s: %s", program, run_dir, strerror(spawn_errno));
    }
    /* the first 2 KB kept; the rest read and dropped, so gnuplot never
     * blocks on a full pipe */
    char messages[2048] = "", dropped[512];
    size_t got = 0;
    ssize_t n;
    for (;;) {
        int full = got == sizeof messages - 1;
        n = full ? read(err_pipe[0], dropped, sizeof dropped)
                 : read(err_pipe[0], messages + got, sizeof messages - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += full ? 0 : (size_t)n;
    }
    messages[got] = '\0';
    close(err_pipe[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        last_line(messages);
        return td_fail(err, "gnuplot failed on %s (%s %d)%s%s", shown,
                       WIFEXITED(status) ? "exit status" : "signal",
                       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                       messages[0] ? ": " : "", messages);
    }
    return 0;
}

int td_gnuplot_run(const char *script, const char *program, td_error *err)
{
    return gnuplot_run_as(script, script, program, err);
}

/* Writes the script and data through the callbacks, then runs gnuplot. */
typedef int (*write_fn)(FILE *f, const plot_files *p, const void *ctx, td_error *err);

static int write_file(const char *path, write_fn fn, const plot_files *p, const void *ctx,
                      td_error *err)
{
    td_output out;
    if (td_output_open(&out, path, err))
        return -1;
    td_c_numeric numeric;
    int rc = td_c_numeric_begin(&numeric, err);
    if (rc == 0) {
        rc = fn(out.f, p, ctx, err);
        td_c_numeric_end(&numeric);
    }
    if (rc) {
        td_output_discard(&out);
        return -1;
    }
    return td_output_commit(&out, err);
}

/* gnuplot draws into a temporary image, from a temporary copy of the
 * script that names it; the image is renamed over OUT once gnuplot made
 * it, so a failure leaves the old image or none. */
static int draw_image(const td_plot_options *o, const plot_files *p, write_fn script,
                      const void *ctx, td_error *err)
{
    plot_files tmp = *p;
    char image_tmp[PATH_MAX], script_tmp[PATH_MAX];
    td_output_temp_name(o->output, image_tmp, sizeof image_tmp);
    td_output_temp_name(p->script_path, script_tmp, sizeof script_tmp);
    char image_dir[PATH_MAX];
    split_script_path(image_tmp, image_dir, sizeof image_dir, tmp.image, sizeof tmp.image);
    memcpy(tmp.script_path, script_tmp, sizeof script_tmp);
    if (write_file(tmp.script_path, script, &tmp, ctx, err))
        return -1;
    int rc = gnuplot_run_as(tmp.script_path, p->script_path, o->gnuplot, err);
    unlink(tmp.script_path);
    struct stat st;
    if (rc == 0 && (stat(image_tmp, &st) != 0 || st.st_size == 0))
        rc = td_fail(err, "gnuplot ran but wrote no %s; run `gnuplot %s` in %s to see why",
                     o->output, p->script, p->dir);
    if (rc == 0 && rename(image_tmp, o->output) != 0)
        rc = td_fail(err, "cannot write %s: %s", o->output, strerror(errno));
    if (rc)
        unlink(image_tmp);
    return rc;
}

static int make_plot(const td_plot_options *o, write_fn script, write_fn data,
                     const void *ctx, td_error *err)
{
    plot_files p;
    if (plot_files_init(&p, o->output, err) ||
        write_file(p.data_path, data, &p, ctx, err) ||
        write_file(p.script_path, script, &p, ctx, err))
        return -1;
    if (o->no_run)
        return 0;
    return draw_image(o, &p, script, ctx, err);
}

int td_plot_output_files(const char *output, char *data, char *script, size_t size,
                         td_error *err)
{
    plot_files p;
    if (plot_files_init(&p, output, err))
        return -1;
    snprintf(data, size, "%s", p.data_path);
    snprintf(script, size, "%s", p.script_path);
    return 0;
}

/* ---- stacked bars ------------------------------------------------------------ */

typedef struct bars_ctx {
    const td_plot_options *o;
    plot_row *rows;
    size_t n_rows;
    segments seg;
    td_breakdown other;
    size_t n_hidden;
} bars_ctx;

static int bars_data(FILE *f, const plot_files *p, const void *ctx, td_error *err)
{
    (void)p;
    (void)err;
    const bars_ctx *c = ctx;
    dat_header(f, "bar", &c->seg);
    for (size_t r = 0; r < c->n_rows; r++) {
        dat_label(f, c->rows[r].label);
        dat_values(f, &c->rows[r], &c->seg);
    }
    return 0;
}

static int bars_script(FILE *f, const plot_files *p, const void *ctx, td_error *err)
{
    (void)err;
    const bars_ctx *c = ctx;
    size_t longest = 0;
    for (size_t r = 0; r < c->n_rows; r++)
        longest = strlen(c->rows[r].label) > longest ? strlen(c->rows[r].label) : longest;
    script_header(f, p, c->o, &c->seg, "share of issue slots per kernel",
                  canvas_width(c->n_rows, 1200), 600 + (int)(5 * longest));
    histogram_style(f, longest);
    fputs("plot ", f);
    histogram_clauses(f, p, &c->seg, -1, 1);
    fputc('\n', f);
    return 0;
}

/* label without the " #rank" kname numbers colliding names with (the
 * plots add the rank themselves), elided in the middle to max characters. */
static void unranked_name(const char *label, size_t rank, size_t max, char *out, size_t size)
{
    char suffix[32], bare[256];
    snprintf(suffix, sizeof suffix, " #%zu", rank);
    size_t len = strlen(label), slen = strlen(suffix);
    int numbered = len > slen && strcmp(label + len - slen, suffix) == 0;
    snprintf(bare, sizeof bare, "%.*s", (int)(numbered ? len - slen : len), label);
    td_elide_middle(bare, max, out, size);
}

/* "name #4 (8.7%)": the name elided in the middle, the report's rank
 * (distinct, what -k '#4' takes; next to the bar, where the rotated label
 * ends), the share of GPU time. */
static void bar_label(plot_row *r, size_t rank, const char *label, double ns, double total_ns)
{
    char shortened[BAR_NAME_CHARS + 8];
    unranked_name(label, rank, BAR_NAME_CHARS, shortened, sizeof shortened);
    snprintf(r->label, sizeof r->label, "%s #%zu (%.1f%%)", shortened, rank,
             total_ns > 0 ? 100.0 * (ns / total_ns) : 0.0);
}

/* Application first, then kernels with data heaviest first, the rest
 * merged into "other" (duration-weighted like the application). */
static int bars_rows(bars_ctx *c, const td_summary *s, char **labels, td_error *err)
{
    c->rows = calloc(s->n_kernels + 2, sizeof *c->rows);
    if (!c->rows)
        return td_fail(err, "out of memory");
    plot_row *app = &c->rows[c->n_rows++];
    snprintf(app->label, sizeof app->label, "application");
    app->model = td_summary_model(s);
    app->b = &s->app;
    double other_ns = 0;
    size_t shown = 0;
    for (size_t k = 0; k < s->n_kernels; k++) {
        const td_kernel_summary *ks = &s->kernels[k];
        if (!ks->has_data || (c->o->kept && !c->o->kept[k]))
            continue;
        if (c->o->top <= 0 || (long)shown < c->o->top) {
            plot_row *r = &c->rows[c->n_rows++];
            bar_label(r, k + 1, labels[k], ks->total_ns, s->total_ns);
            r->model = &s->models[ks->model];
            r->b = &ks->mean;
            shown++;
        } else {
            td_breakdown_accumulate(&c->other, &ks->mean, ks->total_ns);
            other_ns += ks->total_ns;
            c->n_hidden++;
        }
    }
    if (c->n_hidden && other_ns > 0) {
        td_breakdown_scale(&c->other, 1.0 / other_ns);
        plot_row *r = &c->rows[c->n_rows++];
        snprintf(r->label, sizeof r->label, "other %zu kernels (%.1f%%)", c->n_hidden,
                 s->total_ns > 0 ? 100.0 * (other_ns / s->total_ns) : 0.0);
        r->model = td_summary_model(s);
        r->b = &c->other;
    }
    return 0;
}

static const td_model **summary_models(const td_summary *s, size_t extra)
{
    const td_model **models = malloc((s->n_models + extra + 1) * sizeof *models);
    for (size_t m = 0; models && m < s->n_models; m++)
        models[m] = &s->models[m];
    return models;
}

/* Every kernel's label (report/kname.h): distinct where base names collide. */
static int kernel_labels(const td_plot_options *o, const td_summary *s, char ***labels,
                         td_error *err)
{
    const char **names = malloc((s->n_kernels ? s->n_kernels : 1) * sizeof *names);
    if (!names)
        return td_fail(err, "out of memory");
    for (size_t k = 0; k < s->n_kernels; k++)
        names[k] = s->kernels[k].name;
    int rc = td_kernel_labels(names, s->n_kernels, (td_name_base)o->name_base, o->res,
                              labels, err);
    free(names);
    return rc;
}

int td_plot_bars(const td_summary *s, const td_plot_options *o, td_error *err)
{
    if (td_summary_printable(s, err))
        return -1;
    if (!s->app_has_data)
        return td_fail(err, "nothing to plot: no profiled launch had active cycles");
    bars_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    const td_model **models = summary_models(s, 0);
    char **labels = NULL;
    int rc = models ? kernel_labels(o, s, &labels, err) : td_fail(err, "out of memory");
    if (rc == 0)
        rc = bars_rows(&c, s, labels, err);
    if (rc == 0)
        rc = choose_segments(&c.seg, models, s->n_models, o->level, c.rows, c.n_rows, err);
    if (rc == 0)
        rc = make_plot(o, bars_script, bars_data, &c, err);
    td_kernel_labels_free(labels, labels ? s->n_kernels : 0);
    segments_free(&c.seg);
    free(c.rows);
    free(models);
    return rc;
}

/* ---- timeline: stacked areas ------------------------------------------------- */

typedef struct timeline_ctx {
    const td_plot_options *o;
    const td_timeline *t;
    char name[TITLE_NAME_CHARS + 32]; /* the kernel's label and rank: "name [part] #4" */
    plot_row *rows;
    segments seg;
    td_phase *phases;
    size_t n_phases;
} timeline_ctx;

static int timeline_data(FILE *f, const plot_files *p, const void *ctx, td_error *err)
{
    (void)p;
    (void)err;
    const timeline_ctx *c = ctx;
    dat_header(f, "invocation", &c->seg);
    for (size_t i = 0; i < c->t->n_points; i++) {
        fprintf(f, "%zu", c->t->points[i].invocation);
        dat_values(f, &c->rows[i], &c->seg);
    }
    return 0;
}

/* Dashed lines where a phase starts, with its number. */
static void phase_marks(FILE *f, const timeline_ctx *c)
{
    for (size_t ph = 1; ph < c->n_phases; ph++) {
        double x = c->t->points[c->phases[ph].first].invocation - 0.5;
        fprintf(f, "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead front dt 2 lw 1.5 lc rgb '#202020'\n",
                x, x);
    }
    for (size_t ph = 0; ph < c->n_phases && c->n_phases > 1; ph++)
        fprintf(f, "set label 'phase %zu' at %.1f, graph 1.03 center front font ',9'\n", ph + 1,
                0.5 * (c->t->points[c->phases[ph].first].invocation +
                       c->t->points[c->phases[ph].last].invocation));
}

/* The measured invocations marked on each boundary between the areas (a
 * few samples over thousands of launches must not read as a measured
 * curve); one key entry. */
static void timeline_points(FILE *f, size_t n_segments)
{
    for (size_t i = 0; i + 1 < n_segments; i++) {
        fprintf(f, ", \\\n     '' using 1:(sum [c=2:%zu] column(c)) with points pt 7 ps 0.6 "
                "lc rgb '#202020' ", i + 2);
        fputs(i ? "notitle" : "title 'measured'", f);
    }
}

static int timeline_script(FILE *f, const plot_files *p, const void *ctx, td_error *err)
{
    (void)err;
    const timeline_ctx *c = ctx;
    char what[TITLE_NAME_CHARS + 64];
    snprintf(what, sizeof what, "%s over its invocations", c->name);
    script_header(f, p, c->o, &c->seg, what, 1200, 620);
    size_t first = c->t->points[0].invocation, last = c->t->points[c->t->n_points - 1].invocation;
    fprintf(f, "set xlabel 'invocation (points: the %zu measured of %zu; the areas join them)'\n"
            "set xrange [%zu:%zu]\nset tmargin 5\nset title offset 0,1\n", c->t->n_points,
            c->t->invocations, first, last > first ? last : first + 1);
    fputs("set style fill solid 0.9 noborder\n", f);
    /* Invocations are whole numbers: no ticks between them. */
    fprintf(f, "set xtics %zu\n", last - first <= 20 ? (size_t)1 : (last - first + 19) / 20);
    phase_marks(f, c);
    fputs("plot ", f);
    for (size_t i = 0; i < segment_count(&c->seg); i++) {
        if (i == 0)
            td_plot_gp_string(f, p->data);
        else
            fputs(", \\\n     ''", f);
        /* Filled between the sum of the columns below and that plus this one. */
        if (i == 0)
            fputs(" using 1:(0):2", f);
        else
            fprintf(f, " using 1:(sum [c=2:%zu] column(c)):(sum [c=2:%zu] column(c))", i + 1, i + 2);
        fputs(" with filledcurves title ", f);
        td_plot_gp_string(f, segment_title(&c->seg, i));
        fprintf(f, " lc rgb '%s'", segment_colour(&c->seg, i));
    }
    timeline_points(f, segment_count(&c->seg));
    fputc('\n', f);
    return 0;
}

/* The kernel as the report names it: its label (distinct where base names
 * collide, report/kname.h) fitted to TITLE_NAME_CHARS, and its rank. */
static int timeline_name(const td_plot_options *o, const td_summary *s, const char *kernel,
                         char *out, size_t size, td_error *err)
{
    size_t k = 0;
    while (k < s->n_kernels && strcmp(s->kernels[k].name, kernel) != 0)
        k++;
    if (k == s->n_kernels) { /* not a kernel of s: its name alone */
        one_label(o, kernel, LABEL_CHARS, out, size);
        return 0;
    }
    char **labels = NULL, bare[256], fitted[TITLE_NAME_CHARS + 8];
    if (kernel_labels(o, s, &labels, err))
        return -1;
    unranked_name(labels[k], k + 1, sizeof bare - 1, bare, sizeof bare);
    if (strstr(bare, " [")) /* the part that tells it apart stays whole */
        td_label_fit(bare, TITLE_NAME_CHARS, fitted, sizeof fitted);
    else /* a long name: both ends, as the report's title */
        td_elide_middle(bare, TITLE_NAME_CHARS, fitted, sizeof fitted);
    snprintf(out, size, "%s #%zu", fitted, k + 1);
    td_kernel_labels_free(labels, s->n_kernels);
    return 0;
}

int td_plot_timeline(const td_timeline *t, const td_summary *s, const td_plot_options *o,
                     td_error *err)
{
    if (t->n_points < 2)
        return td_fail(err, "kernel %s has %zu profiled invocation%s with active cycles; a timeline needs 2 or more (profile more launches, e.g. --per-kernel N)",
                       t->kernel, t->n_points, t->n_points == 1 ? "" : "s");
    timeline_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.t = t;
    c.rows = calloc(t->n_points, sizeof *c.rows);
    const td_model **models = summary_models(s, 0);
    if (!c.rows || !models) {
        free(c.rows);
        free(models);
        return td_fail(err, "out of memory");
    }
    /* Only the tables of the devices the kernel ran on set the segments. */
    size_t n_models = 0;
    for (size_t i = 0; i < t->n_points; i++) {
        c.rows[i].model = &s->models[t->points[i].dev];
        c.rows[i].b = &t->points[i].b;
        int seen = 0;
        for (size_t m = 0; m < n_models; m++)
            seen |= models[m] == c.rows[i].model;
        if (!seen)
            models[n_models++] = c.rows[i].model;
    }
    int rc = timeline_name(o, s, t->kernel, c.name, sizeof c.name, err);
    if (rc == 0)
        rc = choose_segments(&c.seg, models, n_models, o->level, c.rows, t->n_points, err);
    if (rc == 0)
        rc = td_timeline_phases(t, o->phase_threshold, &c.phases, &c.n_phases, err);
    if (rc == 0)
        rc = make_plot(o, timeline_script, timeline_data, &c, err);
    free(c.phases);
    segments_free(&c.seg);
    free(c.rows);
    free(models);
    return rc;
}

/* ---- diff: clustered stacked bars --------------------------------------------- */

typedef struct diff_ctx {
    const td_plot_options *o;
    const td_diff_side *a, *b;
    plot_row *rows;      /* pairs: A then B of each group */
    char (*groups)[128]; /* group titles: "#N", the kernel's place in `topdown diff` */
    char (*names)[128];  /* "#N name", listed beside the bars */
    size_t n_groups;
    segments seg;
} diff_ctx;

static int diff_data(FILE *f, const plot_files *p, const void *ctx, td_error *err)
{
    (void)p;
    (void)err;
    const diff_ctx *c = ctx;
    dat_header(f, "side", &c->seg);
    for (size_t g = 0; g < c->n_groups; g++) {
        fprintf(f, "%s# group %zu: ", g ? "\n\n" : "", g);
        dat_label(f, c->groups[g]);
        fputc('\n', f);
        for (int side = 0; side < 2; side++) {
            dat_label(f, c->rows[2 * g + (size_t)side].label);
            dat_values(f, &c->rows[2 * g + (size_t)side], &c->seg);
        }
    }
    return 0;
}

static int diff_script(FILE *f, const plot_files *p, const void *ctx, td_error *err)
{
    (void)err;
    const diff_ctx *c = ctx;
    char what[PATH_MAX * 2 + 32];
    snprintf(what, sizeof what, "A = %s, B = %s", c->a->label, c->b->label);
    /* short group titles ("#4") under the pairs; the names they stand for
     * in columns under the plot */
    size_t rows = (c->n_groups - 1 + DIFF_LIST_COLUMNS - 1) / DIFF_LIST_COLUMNS;
    int line = 16, height = 720 + (int)rows * line;
    script_header(f, p, c->o, &c->seg, what, canvas_width(2 * c->n_groups, 1300), height);
    histogram_style(f, 0);
    fprintf(f, "set bmargin %d\n"
               "set style histogram rowstacked title offset 0,-1\n", 6 + (int)rows);
    for (size_t g = 1; g < c->n_groups; g++) {
        size_t col = (g - 1) / (rows ? rows : 1), row = (g - 1) % (rows ? rows : 1);
        fprintf(f, "set label ");
        td_plot_gp_string(f, c->names[g]);
        fprintf(f, " at graph %.3f, screen %.4f left noenhanced\n",
                (double)col / DIFF_LIST_COLUMNS,
                (double)((rows - row) * (size_t)line) / height);
    }
    fputs("plot ", f);
    for (size_t g = 0; g < c->n_groups; g++) {
        fputs(g ? ", \\\n     newhistogram " : "newhistogram ", f);
        td_plot_gp_string(f, c->groups[g]);
        fputs(", ", f);
        histogram_clauses(f, p, &c->seg, (int)g, g == 0);
    }
    fputc('\n', f);
    return 0;
}

static void diff_pair(diff_ctx *c, size_t g, size_t rank, const char *label,
                      const td_diff_side *a, const td_kernel_summary *ka,
                      const td_diff_side *b, const td_kernel_summary *kb)
{
    char shortened[DIFF_NAME_CHARS + 8];
    unranked_name(label, rank, DIFF_NAME_CHARS, shortened, sizeof shortened);
    if (rank) {
        snprintf(c->groups[g], sizeof c->groups[g], "#%zu", rank);
        snprintf(c->names[g], sizeof c->names[g], "#%zu %s", rank, shortened);
    } else {
        snprintf(c->groups[g], sizeof c->groups[g], "%s", label);
        snprintf(c->names[g], sizeof c->names[g], "%s", label);
    }
    plot_row *ra = &c->rows[2 * g], *rb = &c->rows[2 * g + 1];
    snprintf(ra->label, sizeof ra->label, "A");
    snprintf(rb->label, sizeof rb->label, "B");
    ra->model = ka ? &a->s->models[ka->model] : td_summary_model(a->s);
    rb->model = kb ? &b->s->models[kb->model] : td_summary_model(b->s);
    ra->b = ka ? &ka->mean : &a->s->app;
    rb->b = kb ? &kb->mean : &b->s->app;
}

static int diff_rows(diff_ctx *c, const td_diff *d, td_error *err)
{
    size_t groups = 1 + d->n_both;
    c->rows = calloc(2 * groups, sizeof *c->rows);
    c->groups = calloc(groups, sizeof *c->groups);
    c->names = calloc(groups, sizeof *c->names);
    const char **names = malloc(groups * sizeof *names);
    char **labels = NULL;
    int rc = c->rows && c->groups && c->names && names ? 0 : td_fail(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < d->n_both; i++)
        names[i] = d->rows[i].kernel;
    if (rc == 0)
        rc = td_kernel_labels(names, d->n_both, (td_name_base)c->o->name_base, c->a->res,
                              &labels, err);
    if (rc == 0)
        diff_pair(c, c->n_groups++, 0, "application", c->a, NULL, c->b, NULL);
    for (size_t i = 0; rc == 0 && i < d->n_both; i++) {
        if (c->o->top > 0 && (long)(c->n_groups - 1) >= c->o->top)
            break;
        if (!d->rows[i].a->has_data || !d->rows[i].b->has_data)
            continue;
        diff_pair(c, c->n_groups++, i + 1, labels[i], c->a, d->rows[i].a, c->b, d->rows[i].b);
    }
    td_kernel_labels_free(labels, labels ? d->n_both : 0);
    free(names);
    return rc;
}

int td_plot_diff(const td_diff_side *a, const td_diff_side *b, const td_plot_options *o,
                 td_error *err)
{
    if (td_summary_printable(a->s, err))
        return td_fail_context(err, "A (%s)", a->label);
    if (td_summary_printable(b->s, err))
        return td_fail_context(err, "B (%s)", b->label);
    if (!a->s->app_has_data || !b->s->app_has_data)
        return td_fail(err, "nothing to plot: %s has no profiled launch with active cycles",
                       a->s->app_has_data ? b->label : a->label);
    diff_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.a = a;
    c.b = b;
    td_diff d;
    if (td_diff_match(a->s, b->s, &d, err))
        return -1;
    const td_model **models = summary_models(a->s, b->s->n_models);
    int rc = models ? diff_rows(&c, &d, err) : td_fail(err, "out of memory");
    if (rc == 0) {
        for (size_t m = 0; m < b->s->n_models; m++)
            models[a->s->n_models + m] = &b->s->models[m];
        rc = choose_segments(&c.seg, models, a->s->n_models + b->s->n_models, o->level,
                             c.rows, 2 * c.n_groups, err);
    }
    if (rc == 0)
        rc = make_plot(o, diff_script, diff_data, &c, err);
    segments_free(&c.seg);
    free(c.rows);
    free(c.groups);
    free(c.names);
    free(models);
    td_diff_free(&d);
    return rc;
}
