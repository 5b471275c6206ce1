/* td_reattribute IN OUT: a --time-sampled result's launches given their
 * counters again by this build's attribution (levels/attribute.h), from
 * the PM and PC samples the result keeps: the way to judge a change of the
 * attribution on recorded runs without a GPU (test_truth_table case 20).
 * Exit 0, 1 on an error (said on stderr), 2 on bad arguments. */
#include <stdio.h>
#include <stdlib.h>

#include "levels/attribute.h"
#include "metrics/arch/arch.h"
#include "metrics/result/result.h"

static int reattribute(td_result *res, const td_arch_set *archs, td_error *err)
{
    for (size_t d = 0; d < res->n_devices; d++) {
        td_device *dev = &res->devices[d];
        const td_arch *arch = dev->arch ? td_arch_find(archs, dev->arch) : NULL;
        if (!dev->pm)
            continue;
        if (!arch)
            return td_fail(err, "device section %zu: no arch table %s", d,
                           dev->arch ? dev->arch : "(none)");
        for (size_t i = 0; i < dev->n_launches; i++) {
            td_launch *l = &dev->launches[i];
            free(l->counters);
            l->counters = NULL;
            l->profiled = 0;
            l->group = TD_GROUP_ALL;
        }
        td_attrib_stats st;
        if (td_attribute_device(dev, arch, &st, err))
            return -1;
        fprintf(stderr, "device section %zu: %zu of %zu launches given counters, %zu kernels "
                "never alone in a sample\n", d, st.sampled, st.launches, st.unseparated);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: td_reattribute IN.json[.xz] OUT.json[.xz]\n");
        return 2;
    }
    td_result res;
    td_arch_set archs;
    td_error err;
    char dir[4096];
    if (td_arch_default_dir(dir, sizeof dir, &err) || td_arch_load_dir(dir, &archs, &err)) {
        fprintf(stderr, "td_reattribute: %s\n", err.msg);
        return 1;
    }
    int rc = td_result_load(argv[1], &res, &err) || reattribute(&res, &archs, &err) ||
             td_result_save(argv[2], &res, &err);
    if (rc)
        fprintf(stderr, "td_reattribute: %s\n", err.msg);
    td_result_free(&res);
    td_arch_set_free(&archs);
    return rc ? 1 : 0;
}
