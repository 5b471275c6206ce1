#include "topdown/inject/budget.h"

static double host_native(const td_budget *b, double now_s)
{
    return now_s - b->start_s - b->spent_s - b->once_s;
}

double td_budget_native(const td_budget *b, double now_s)
{
    double host = host_native(b, now_s), gpu = b->gpu_from_s + b->gpu_s;
    return host > gpu ? host : gpu;
}

int td_budget_allows(td_budget *b, double now_s)
{
    if (b->overhead <= 0)
        return 1;
    double saved = b->overhead * td_budget_native(b, now_s) - b->spent_s - b->forgone_s;
    double per_sample = b->samples > 0 && b->spent_s > 0 ? b->spent_s / (double)b->samples
                                                          : TD_BUDGET_FIRST_SAMPLE_S;
    double cap = TD_BUDGET_BANK_SAMPLES * per_sample;
    if (saved > cap) {
        b->forgone_s += saved - cap;
        saved = cap;
    }
    if (saved < per_sample)
        return 0; /* a sample now would spend what the run has not yet earned */
    b->samples++;
    return 1;
}

void td_budget_launched(td_budget *b, double now_s, double est_s)
{
    if (!b->launched) {
        b->launched = 1;
        b->gpu_from_s = host_native(b, now_s);
    }
    if (est_s > 0)
        b->gpu_s += est_s;
}
