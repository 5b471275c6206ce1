/* `topdown source`: PC samples by line or instruction (report/source.h). */
#include "report/source.h"

#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/arch/cubin.h"
#include "metrics/intern.h"
#include "metrics/result/pcsamp.h"
#include "report/output.h"
#include "report/sass_text.h"

#define SPLIT_SHOWN 3 /* buckets named in a text row's split */

/* ---- the node rows are sorted by ------------------------------------------ */

static int choose_node(const td_model *m, const td_kernel_summary *ks, const char *node,
                       td_source_table *t, td_error *err)
{
    t->node = -1;
    if (node) {
        int n = td_model_find(m, node);
        if (n < 0)
            return td_fail(err, "--node %s is not a node of the model (topdown list-nodes -l 3 "
                           "lists them)", node);
        if (m->tree[n].level > 3 || m->tree[n].kind == TD_KIND_STALL)
            return td_fail(err, "--node %s: PC samples reach the model's leaves (level 3); give "
                           "a node of level 1 to 3, such as %s", node,
                           m->tree[m->tree[n].parent].path);
        t->node = n;
    } else if (ks->has_data) {
        for (int level = 3; level >= 1 && t->node < 0; level--)
            t->node = ks->verdict.bottleneck[level];
        while (t->node >= 0 && m->tree[t->node].level > 3)
            t->node = m->tree[t->node].parent;
        t->node_is_bottleneck = t->node >= 0;
    }
    if (t->node >= 0)
        snprintf(t->node_path, sizeof t->node_path, "%s", m->tree[t->node].path);
    t->node_slots = t->node >= 0 && ks->has_data && td_node_present(m, &ks->mean, t->node)
                        ? ks->mean.value[t->node]
                        : -1;
    return 0;
}

/* Whether tree node n is `node` or lies below it. */
static int under(const td_model *m, int n, int node)
{
    for (; n >= 0; n = m->tree[n].parent)
        if (n == node)
            return 1;
    return 0;
}

/* ---- buckets ----------------------------------------------------------------- */

static long bucket_of(td_source_table *t, const char *label, int node, int known, td_error *err)
{
    for (size_t b = 0; b < t->n_buckets; b++)
        if (t->buckets[b].node == node && strcmp(t->buckets[b].label, label) == 0)
            return (long)b;
    if (t->n_buckets == TD_SOURCE_MAX_BUCKETS)
        return td_fail(err, "more than %d kinds of PC samples", TD_SOURCE_MAX_BUCKETS);
    td_source_bucket *b = &t->buckets[t->n_buckets];
    snprintf(b->label, sizeof b->label, "%s", label);
    b->node = node;
    b->known = known;
    return (long)t->n_buckets++;
}

/* The bucket of each reason of a device section; -1 for a _not_issued
 * subset, which is not counted. */
static int map_reasons(const td_model *m, const td_pcsamp *p, td_source_table *t, long *bucket,
                       td_error *err)
{
    for (size_t r = 0; r < p->n_reasons; r++) {
        char name[128];
        int counted = td_pcsamp_short_reason(p->reasons[r], name, sizeof name);
        bucket[r] = -1;
        if (counted <= 0)
            continue;
        const td_pc_map *e = td_arch_pc_reason(m->arch, name);
        int node = -1;
        if (e && e->node && (node = td_model_find(m, e->node)) < 0)
            return td_fail(err, "arch table %s maps PC-sampling reason %s to %s, which is not a "
                           "node of the model", m->arch->name, name, e->node);
        bucket[r] = bucket_of(t, node >= 0 ? m->tree[node].name : name, node, e != NULL, err);
        if (bucket[r] < 0)
            return -1;
    }
    return 0;
}

/* ---- the kernel's functions and its cubins ------------------------------------- */

/* The names CUPTI gives the kernel's function: the mangled names of its
 * launches (an extern "C" kernel's plain name), and the demangled name. */
typedef struct fn_names {
    const char *name[16];
    size_t n;
} fn_names;

static void kernel_functions(const td_result *res, const char *kernel, fn_names *out)
{
    out->n = 0;
    out->name[out->n++] = kernel;
    for (size_t d = 0; d < res->n_devices; d++) {
        const td_device *dev = &res->devices[d];
        const char *last = NULL; /* launches share the device's interned names */
        for (size_t i = 0; i < dev->n_launches; i++) {
            const td_launch *l = &dev->launches[i];
            const char *name = l->mangled ? l->mangled : l->kernel;
            if (name == last || strcmp(l->kernel, kernel) != 0)
                continue;
            last = name;
            size_t k = 0;
            while (k < out->n && strcmp(out->name[k], name) != 0)
                k++;
            if (k == out->n && out->n < sizeof out->name / sizeof *out->name)
                out->name[out->n++] = name;
        }
    }
}

static int is_kernel_function(const fn_names *names, const char *function)
{
    for (size_t k = 0; k < names->n; k++)
        if (strcmp(names->name[k], function) == 0)
            return 1;
    return 0;
}

typedef struct cubin {
    void *data;
    size_t size;
    char *path; /* where it was read from */
} cubin;

/* Reads cubin `name` from the folder the result names, else (the result
 * and its cubin folder were moved together) from the folder of that name
 * next to the result. */
static int read_cubin(const char *cubin_dir, const char *result_dir, const char *name,
                      cubin *out, char *tried, size_t tried_size)
{
    char path[8192], base[PATH_MAX];
    td_error ignored;
    if (cubin_dir[0] == '/') {
        snprintf(path, sizeof path, "%s/%s", cubin_dir, name);
        if (td_cubin_read(path, &out->data, &out->size, &ignored) == 0)
            return (out->path = td_strdup(path)) ? 0 : -1;
    }
    snprintf(base, sizeof base, "%s", cubin_dir);
    snprintf(path, sizeof path, "%s/%s/%s", result_dir,
             cubin_dir[0] == '/' ? basename(base) : cubin_dir, name);
    if (td_cubin_read(path, &out->data, &out->size, &ignored) == 0)
        return (out->path = td_strdup(path)) ? 0 : -1;
    snprintf(tried, tried_size, "%s", path);
    return -1;
}

/* The device section's cubins that were saved (data NULL where not). */
static void load_cubins(const td_pcsamp *p, const char *result_path, cubin *out,
                        td_source_table *t)
{
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%s", result_path ? result_path : ".");
    const char *dir = dirname(folder);
    for (size_t i = 0; i < p->n_modules; i++) {
        char name[40];
        td_pcsamp_cubin_name(p->modules[i], name, sizeof name);
        out[i].data = NULL;
        if (!p->cubin_dir)
            snprintf(t->cubin_note, sizeof t->cubin_note, "the result names no cubin folder");
        else if (read_cubin(p->cubin_dir, dir, name, &out[i], t->cubin_note,
                            sizeof t->cubin_note) == 0)
            continue;
        out[i].data = NULL;
    }
}

static void free_cubins(cubin *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++) {
        free(c[i].data);
        free(c[i].path);
    }
    free(c);
}

/* ---- rows --------------------------------------------------------------------- */

typedef struct builder {
    td_source_table *t;
    td_names keys;      /* row keys, interned */
    td_keyset index;    /* interned key pointer -> row */
    size_t cap;
} builder;

static td_source_row *row_for(builder *b, const char *key, td_error *err)
{
    const char *interned = td_names_intern(&b->keys, key);
    int added = 0;
    long i = interned ? td_keyset_add(&b->index, &interned, &added) : -1;
    if (i < 0) {
        td_fail(err, "out of memory");
        return NULL;
    }
    td_source_table *t = b->t;
    if (added) {
        if (t->n_rows == b->cap) {
            size_t cap = b->cap ? 2 * b->cap : 64;
            td_source_row *bigger = realloc(t->rows, cap * sizeof *bigger);
            if (!bigger) {
                td_fail(err, "out of memory");
                return NULL;
            }
            t->rows = bigger;
            b->cap = cap;
        }
        memset(&t->rows[t->n_rows++], 0, sizeof *t->rows);
        t->rows[i].pc = UINT64_MAX;
    }
    return &t->rows[i];
}

static int add_record(builder *b, const td_pcsamp *p, const td_pc_record *r, size_t dev,
                      const cubin *cubins, const long *bucket, td_error *err)
{
    char file[512] = "", key[700];
    unsigned line = 0;
    const cubin *c = &cubins[r->module];
    if (c->data &&
        td_cubin_source_line(c->data, c->size, p->functions[r->function], r->pc, file,
                             sizeof file, &line, err) < 0)
        return -1;
    if (line && !b->t->by_pc)
        snprintf(key, sizeof key, "L%s\n%u", file, line);
    else
        snprintf(key, sizeof key, "P%zu\n%zu\n%" PRIu64, dev, r->module, r->pc);
    td_source_row *row = row_for(b, key, err);
    if (!row)
        return -1;
    if (r->pc < row->pc) {
        row->pc = r->pc;
        row->module = r->module;
        row->dev = dev;
        row->function = r->function;
    }
    snprintf(row->file, sizeof row->file, "%s", file);
    row->line = line;
    row->pcs++;
    for (size_t k = 0; k < r->n_counts; k++)
        if (bucket[k] >= 0) {
            row->bucket[bucket[k]] += r->counts[k];
            row->samples += r->counts[k];
        }
    return 0;
}

/* --sass: each row's instruction, where nvdisasm can say it. */
static int add_sass_text(td_source_table *t, const td_pcsamp *p, size_t dev,
                         const cubin *cubins, const unsigned char *mine, td_error *err)
{
    for (size_t m = 0; m < p->n_modules; m++)
        for (size_t f = 0; cubins[m].path && f < p->n_functions; f++) {
            if (!mine[f])
                continue;
            td_sass_listing listing = {0};
            int rc = td_sass_disassemble(cubins[m].path, p->functions[f], &listing, err);
            for (size_t i = 0; rc == 0 && i < t->n_rows; i++) {
                td_source_row *row = &t->rows[i];
                const char *text = row->dev == dev && row->module == m && row->function == f
                                       ? td_sass_at(&listing, row->pc) : NULL;
                if (text)
                    snprintf(row->sass, sizeof row->sass, "%s", text);
            }
            td_sass_free(&listing);
            if (rc)
                return -1;
        }
    return 0;
}

static int add_device(builder *b, const td_result *res, const td_model *m, size_t d,
                      const fn_names *names, const char *result_path, td_error *err)
{
    const td_pcsamp *p = res->devices[d].pcsamp;
    long *bucket = calloc(p->n_reasons ? p->n_reasons : 1, sizeof *bucket);
    cubin *cubins = calloc(p->n_modules ? p->n_modules : 1, sizeof *cubins);
    unsigned char *mine = calloc(p->n_functions ? p->n_functions : 1, 1);
    int rc = !bucket || !cubins || !mine ? td_fail(err, "out of memory") : 0;
    if (rc == 0)
        rc = map_reasons(m, p, b->t, bucket, err);
    for (size_t f = 0; rc == 0 && f < p->n_functions; f++)
        mine[f] = (unsigned char)is_kernel_function(names, p->functions[f]);
    int loaded = 0;
    for (size_t i = 0; rc == 0 && i < p->n_records; i++) {
        const td_pc_record *r = &p->records[i];
        if (!mine[r->function])
            continue;
        if (!loaded++)
            load_cubins(p, result_path, cubins, b->t);
        if (!b->t->period)
            b->t->period = p->period;
        rc = add_record(b, p, r, d, cubins, bucket, err);
    }
    if (rc == 0 && b->t->by_pc && loaded)
        rc = add_sass_text(b->t, p, d, cubins, mine, err);
    free_cubins(cubins, p->n_modules);
    free(bucket);
    free(mine);
    return rc;
}

static int by_node_samples(const void *pa, const void *pb)
{
    const td_source_row *a = pa, *b = pb;
    if (a->node_samples != b->node_samples)
        return a->node_samples < b->node_samples ? 1 : -1;
    if (a->samples != b->samples)
        return a->samples < b->samples ? 1 : -1;
    int c = strcmp(a->file, b->file);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    return (a->pc > b->pc) - (a->pc < b->pc);
}

static void finish(td_source_table *t, const td_model *m)
{
    for (size_t i = 0; i < t->n_rows; i++) {
        td_source_row *row = &t->rows[i];
        for (size_t b = 0; b < t->n_buckets; b++)
            if (t->node >= 0 && t->buckets[b].node >= 0 && under(m, t->buckets[b].node, t->node))
                row->node_samples += row->bucket[b];
        t->total += row->samples;
        t->node_total += row->node_samples;
        t->no_line += row->line == 0;
    }
    if (t->n_rows > 1)
        qsort(t->rows, t->n_rows, sizeof *t->rows, by_node_samples);
}

int td_source_build(const td_result *res, const td_summary *s, size_t k, const char *node,
                    int by_pc, const char *result_path, td_source_table *out, td_error *err)
{
    memset(out, 0, sizeof *out);
    const td_kernel_summary *ks = &s->kernels[k];
    out->kernel = ks->name;
    out->rank = k + 1;
    out->by_pc = by_pc;
    if (ks->model < 0 || (size_t)ks->model >= s->n_models)
        return td_fail(err, "kernel #%zu has no model (no device section)", k + 1);
    const td_model *m = &s->models[ks->model];
    if (choose_node(m, ks, node, out, err))
        return -1;
    builder b = {.t = out};
    td_keyset_init(&b.index, sizeof(const char *));
    fn_names names;
    kernel_functions(res, ks->name, &names);
    int rc = 0, any = 0;
    for (size_t d = 0; rc == 0 && d < res->n_devices; d++)
        if (res->devices[d].pcsamp) {
            any = 1;
            rc = add_device(&b, res, m, d, &names, result_path, err);
        }
    td_keyset_free(&b.index);
    td_names_free(&b.keys);
    if (rc == 0 && !any)
        rc = td_fail(err, "the result holds no PC samples: profile with --source (docs/SOURCE.md)");
    else if (rc == 0 && out->n_rows == 0)
        rc = td_fail(err, "no PC samples of kernel #%zu \"%s\" (its launches were not selected "
                     "for --source, or too short to be sampled)", k + 1, ks->name);
    if (rc) {
        td_source_free(out);
        return -1;
    }
    finish(out, m);
    return 0;
}

void td_source_free(td_source_table *t)
{
    free(t->rows);
    t->rows = NULL;
    t->n_rows = 0;
}

/* ---- text and CSV --------------------------------------------------------------- */

static void location(const td_source_row *row, int by_pc, int full, char *buf, size_t size)
{
    if (row->line && !by_pc) {
        const char *slash = full ? NULL : strrchr(row->file, '/');
        snprintf(buf, size, "%s:%u", slash ? slash + 1 : row->file, row->line);
    } else {
        snprintf(buf, size, "pc+0x%" PRIx64, row->pc);
    }
}

/* --sass: "pc+0x1a0 td_bench.cu:204  LDG.E R2, ... ;", the line and the
 * instruction where they are known. */
static void text_location(const td_source_row *row, int by_pc, char *buf, size_t size)
{
    location(row, by_pc, 0, buf, size);
    size_t len = strlen(buf);
    if (by_pc && row->line) {
        const char *slash = strrchr(row->file, '/');
        snprintf(buf + len, size - len, " %s:%u", slash ? slash + 1 : row->file, row->line);
        len = strlen(buf);
    }
    if (row->sass[0])
        snprintf(buf + len, size - len, "  %s", row->sass);
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* "L1_Bound 90%, Retire 6%, not_selected 3%": the row's largest buckets. */
static void split_text(const td_source_table *t, const td_source_row *row, char *buf,
                       size_t size)
{
    unsigned char used[TD_SOURCE_MAX_BUCKETS] = {0};
    buf[0] = '\0';
    for (int shown = 0; shown < SPLIT_SHOWN; shown++) {
        size_t best = t->n_buckets;
        for (size_t b = 0; b < t->n_buckets; b++)
            if (!used[b] && row->bucket[b] &&
                (best == t->n_buckets || row->bucket[b] > row->bucket[best]))
                best = b;
        if (best == t->n_buckets)
            break;
        used[best] = 1;
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s %.0f%%", shown ? ", " : "", t->buckets[best].label,
                 pct(row->bucket[best], row->samples));
    }
}

static size_t shown_rows(const td_source_table *t, long top)
{
    return top > 0 && (size_t)top < t->n_rows ? (size_t)top : t->n_rows;
}

int td_source_text(FILE *out, const td_source_table *t, long top, td_error *err)
{
    td_c_numeric numeric;
    if (td_c_numeric_begin(&numeric, err))
        return -1;
    fprintf(out, "Kernel #%zu: %s\n", t->rank, t->kernel);
    fprintf(out, "%" PRIu64 " PC samples", t->total);
    if (t->period)
        fprintf(out, " (sampling period 2^%d cycles)", t->period);
    char slots[64] = "";
    if (t->node_slots >= 0)
        snprintf(slots, sizeof slots, "%s%.1f%% of issue slots", t->node_is_bottleneck ? ", " : "",
                 100 * t->node_slots);
    if (t->node >= 0)
        fprintf(out, ", sorted by %s%s%s%s%s: %" PRIu64 " samples (%.1f%%)\n", t->node_path,
                t->node_is_bottleneck || slots[0] ? " (" : "",
                t->node_is_bottleneck ? "the kernel's bottleneck" : "", slots,
                t->node_is_bottleneck || slots[0] ? ")" : "", t->node_total,
                pct(t->node_total, t->total));
    else
        fprintf(out, ", sorted by samples (the kernel has no bottleneck: --node picks one)\n");
    /* Divergence, say: no sampled state is a divergence stall */
    if (t->node >= 0 && t->node_total == 0)
        fprintf(out, "no PC sample falls in %s: rows sorted by samples%s\n", t->node_path,
                strncmp(t->node_path, "Divergence", 10) == 0
                    ? " (an instruction issued with lanes off is sampled as Retire's "
                      "'selected': --node Retire)"
                    : "");
    const char *unit = t->by_pc ? "instruction" : "line";
    if (t->no_line && !t->by_pc)
        fprintf(out, "%zu %s without line information (build with -lineinfo)%s%s\n", t->no_line,
                t->no_line == 1 ? "PC" : "PCs", t->cubin_note[0] ? "; cubin not found: " : "",
                t->cubin_note);
    const char *node_name = t->node >= 0 ? strrchr(t->node_path, '.') : NULL;
    node_name = node_name ? node_name + 1 : (t->node >= 0 ? t->node_path : "");
    fprintf(out, "\n  %4s %7s %9s  %-28s  %s\n", "#", "samples", t->node >= 0 ? "node" : "", unit,
            "split over the model's leaves");
    size_t n = shown_rows(t, top);
    for (size_t i = 0; i < n; i++) {
        const td_source_row *row = &t->rows[i];
        char loc[700], split[400], node_share[16] = "";
        text_location(row, t->by_pc, loc, sizeof loc);
        split_text(t, row, split, sizeof split);
        if (t->node >= 0)
            snprintf(node_share, sizeof node_share, "%.1f%%", pct(row->node_samples, t->node_total));
        fprintf(out, "  %4zu %6.1f%% %9s  %-28s  %s\n", i + 1, pct(row->samples, t->total),
                node_share, loc, split);
    }
    if (t->node >= 0)
        fprintf(out, "\nsamples: share of the kernel's samples; node: share of %s's samples\n",
                node_name);
    if (n < t->n_rows)
        fprintf(out, "(%zu more %ss: -n 0 lists all)\n", t->n_rows - n, unit);
    td_c_numeric_end(&numeric);
    return 0;
}

int td_source_csv(FILE *out, const td_source_table *t, long top, td_error *err)
{
    td_c_numeric numeric;
    if (td_c_numeric_begin(&numeric, err))
        return -1;
    fputs("rank,location,file,line,pc,samples,share_pct,node,node_samples,node_share_pct,sass",
          out);
    for (size_t b = 0; b < t->n_buckets; b++) {
        fputc(',', out);
        td_csv_field(out, t->buckets[b].label);
    }
    fputc('\n', out);
    size_t n = shown_rows(t, top);
    for (size_t i = 0; i < n; i++) {
        const td_source_row *row = &t->rows[i];
        char loc[600], pc[32];
        location(row, t->by_pc, 1, loc, sizeof loc);
        snprintf(pc, sizeof pc, "0x%" PRIx64, row->pc);
        fprintf(out, "%zu,", i + 1);
        td_csv_field(out, loc);
        fputc(',', out);
        td_csv_field(out, row->file);
        fprintf(out, ",%u,%s,%" PRIu64 ",", row->line, pc, row->samples);
        td_csv_number(out, pct(row->samples, t->total), 2);
        fputc(',', out);
        td_csv_field(out, t->node >= 0 ? t->node_path : "");
        fprintf(out, ",%" PRIu64 ",", row->node_samples);
        td_csv_number(out, pct(row->node_samples, t->node_total), 2);
        fputc(',', out);
        td_csv_field(out, row->sass);
        for (size_t b = 0; b < t->n_buckets; b++)
            fprintf(out, ",%" PRIu64, row->bucket[b]);
        fputc('\n', out);
    }
    td_c_numeric_end(&numeric);
    return 0;
}
