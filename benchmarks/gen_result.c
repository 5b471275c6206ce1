/* Makes a large synthetic result file for measuring the result format
 * (benchmarks/result_size.sh): N launches of K kernels with long C++
 * names, one launch in P profiled, counters and durations taken from the
 * profiled launches of a real recording (TEMPLATE) with a little noise,
 * so that the model runs on it as on a real run.
 *
 *   td_gen_result TEMPLATE.json N OUT.json [--kernels K] [--profile-every P]
 *                 [--groups]
 *
 * --groups splits the metrics into 4 counter groups and gives each
 * profiled launch one of them, as replay-free collection does.
 *
 *   td_gen_result --resave IN.json OUT.json
 *
 * loads any result file (topdown-result/1 or /2) and writes it again in
 * the current schema, to compare sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/result/result.h"

typedef struct gen_opts {
    const char *template_path, *out;
    size_t launches, kernels, every;
    int groups;
} gen_opts;

static int parse_args(int argc, char **argv, gen_opts *o)
{
    if (argc < 4)
        return -1;
    *o = (gen_opts){argv[1], argv[3], strtoul(argv[2], NULL, 10), 50, 20, 0};
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc)
            o->kernels = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--profile-every") == 0 && i + 1 < argc)
            o->every = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--groups") == 0)
            o->groups = 1;
        else
            return -1;
    }
    return o->launches && o->kernels && o->every ? 0 : -1;
}

/* A name like the ones templated C++ libraries give their kernels. */
static void kernel_name(size_t k, char *demangled, size_t dsize, char *mangled, size_t msize)
{
    snprintf(demangled, dsize,
             "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_%zu_128x128_32x3_nn_align4>"
             "(cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::threadblock::MmaMultistage<"
             "cutlass::gemm::GemmShape<128, 128, 32>, cutlass::transform::threadblock::"
             "PredicatedTileAccessIterator<cutlass::MatrixShape<128, 32>, float, "
             "cutlass::layout::RowMajor, 1, %zu>, float, cutlass::arch::OpMultiplyAdd>>::Params)",
             k, k % 7);
    snprintf(mangled, msize,
             "_ZN7cutlass7Kernel2I52cutlass_80_tensorop_s1688gemm_%zu_128x128_32x3_nn_align4"
             "EEvNT_6ParamsENS_4gemm6kernel13GemmUniversalINS3_11threadblock14MmaMultistage"
             "INS3_9GemmShapeILi128ELi128ELi32EEENS_9transform11threadblock%zuEEE",
             k, k % 7);
}

static double noise(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return 0.95 + 0.1 * ((*seed >> 8) & 0xffff) / 65535.0;
}

/* Four groups covering every metric, as a replay-free split would. */
static int set_groups(td_device *dev, td_error *err)
{
    td_counter_group groups[4];
    size_t *idx = malloc(dev->n_metrics * sizeof *idx);
    if (!idx)
        return td_fail(err, "out of memory");
    size_t at = 0;
    for (size_t g = 0; g < 4; g++) {
        groups[g].metrics = idx + at;
        groups[g].n = 0;
        for (size_t m = g; m < dev->n_metrics; m += 4)
            idx[at + groups[g].n++] = m;
        at += groups[g].n;
    }
    int rc = td_device_set_groups(dev, groups, 4, err);
    free(idx);
    return rc;
}

static int add_launch(td_device *dev, const td_device *tpl, const size_t *profiled,
                      size_t n_profiled, const gen_opts *o, size_t i, unsigned *seed,
                      double *values, td_error *err)
{
    size_t k = (i * 7 + i / 13) % o->kernels;
    const td_launch *src = &tpl->launches[profiled[k % n_profiled]];
    int measure = i % o->every == 0;
    char name[1024], mangled[512];
    kernel_name(k, name, sizeof name, mangled, sizeof mangled);
    int group = measure && o->groups ? (int)((i / o->every) % 4) : TD_GROUP_ALL;
    for (size_t m = 0; measure && m < dev->n_metrics; m++) {
        int in_group = group == TD_GROUP_ALL || m % 4 == (size_t)group;
        values[m] = in_group ? (double)(long long)(src->counters[m] * noise(seed)) : 0;
    }
    td_launch *l = td_device_add_launch(dev, name, measure ? values : NULL, err);
    if (!l || !(l->mangled = td_device_intern(dev, mangled)))
        return -1;
    l->group = group;
    l->id = i;
    l->stream = 7 + k % 3;
    memcpy(l->grid, src->grid, sizeof l->grid);
    memcpy(l->block, src->block, sizeof l->block);
    l->duration_ns = (double)(long long)(src->duration_ns * noise(seed));
    l->start_ns = 861945892ull + i * 25000ull;
    return 0;
}

static int generate(const td_result *tpl_res, const gen_opts *o, td_result *out,
                    td_error *err)
{
    const td_device *tpl = &tpl_res->devices[0];
    size_t *profiled = calloc(tpl->n_launches + 1, sizeof *profiled);
    double *values = calloc(tpl->n_metrics + 1, sizeof *values);
    size_t n_profiled = 0;
    for (size_t i = 0; profiled && i < tpl->n_launches; i++)
        if (tpl->launches[i].profiled)
            profiled[n_profiled++] = i;
    td_device *dev = profiled && values ? td_result_add_device(out, err) : NULL;
    int rc = dev && n_profiled ? 0 : td_fail(err, "no profiled launch in the template");
    if (rc == 0) {
        dev->name = td_strdup(tpl->name);
        dev->chip = td_strdup(tpl->chip);
        dev->arch = td_strdup(tpl->arch);
        dev->cc_major = tpl->cc_major;
        dev->cc_minor = tpl->cc_minor;
        dev->sm_count = tpl->sm_count;
        dev->passes = o->groups ? 1 : tpl->passes;
        rc = td_device_set_metrics(dev, (const char *const *)tpl->metrics, tpl->n_metrics, err);
    }
    if (rc == 0 && o->groups)
        rc = set_groups(dev, err);
    unsigned seed = 1;
    for (size_t i = 0; rc == 0 && i < o->launches; i++)
        rc = add_launch(dev, tpl, profiled, n_profiled, o, i, &seed, values, err);
    free(profiled);
    free(values);
    return rc;
}

static int resave(const char *in, const char *out)
{
    td_result res;
    td_error err = {{0}};
    int rc = td_result_load(in, &res, &err);
    if (rc == 0) {
        rc = td_result_save(out, &res, &err);
        td_result_free(&res);
    }
    if (rc)
        fprintf(stderr, "td_gen_result: %s\n", err.msg);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--resave") == 0)
        return resave(argv[2], argv[3]);
    gen_opts o;
    if (parse_args(argc, argv, &o)) {
        fprintf(stderr, "usage: td_gen_result TEMPLATE.json N OUT.json [--kernels K] "
                        "[--profile-every P] [--groups]\n"
                        "       td_gen_result --resave IN.json OUT.json\n");
        return 2;
    }
    td_error err = {{0}};
    td_result tpl, out;
    memset(&out, 0, sizeof out);
    if (td_result_load(o.template_path, &tpl, &err)) {
        fprintf(stderr, "td_gen_result: %s\n", err.msg);
        return 1;
    }
    int rc = tpl.n_devices ? generate(&tpl, &o, &out, &err)
                           : td_fail(&err, "%s has no device section", o.template_path);
    if (rc == 0) {
        out.synthetic = 1;
        out.note = td_strdup("synthetic: benchmarks/gen_result.c, for measuring the result format");
        out.status = td_strdup("complete");
        out.replay_mode = td_strdup(o.groups ? "none" : "kernel");
        rc = td_result_save(o.out, &out, &err);
    }
    if (rc)
        fprintf(stderr, "td_gen_result: %s\n", err.msg);
    td_result_free(&tpl);
    td_result_free(&out);
    return rc ? 1 : 0;
}
