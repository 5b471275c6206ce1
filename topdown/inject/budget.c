#include "topdown/inject/budget.h"

#include <math.h>

static double host_native(const td_budget *b, double now_s)
{
    return now_s - b->start_s - b->spent_s - b->once_s - b->traced_s;
}

double td_budget_spent(const td_budget *b)
{
    return b->spent_s + (b->counts_all ? b->once_s + b->traced_s : 0);
}

double td_budget_native(const td_budget *b, double now_s)
{
    double host = host_native(b, now_s), gpu = b->gpu_from_s + b->gpu_s;
    return host > gpu ? host : gpu;
}

double td_budget_allowance(const td_budget *b, double now_s)
{
    double native = td_budget_native(b, now_s);
    if (!b->launched)
        return b->overhead * native;
    double before = b->gpu_from_s, since = native - before;
    double start_paid = before < TD_BUDGET_START_PACE * since ? before : TD_BUDGET_START_PACE * since;
    return b->overhead * (since + start_paid);
}

int td_budget_allows(const td_budget *b, double now_s)
{
    return b->overhead <= 0 || td_budget_spent(b) <= td_budget_allowance(b, now_s);
}

int td_budget_kernel_allows(const td_budget *b, double now_s, double kernel_spent_s,
                            double kernel_gpu_s)
{
    if (b->overhead <= 0)
        return 1;
    double allowance = td_budget_allowance(b, now_s), spent = td_budget_spent(b);
    if (!(b->share_gpu_s > 0) || !(kernel_gpu_s > 0))
        return spent <= allowance; /* its GPU time not known yet */
    double share = kernel_gpu_s / b->share_gpu_s;
    double mean = b->samples > 0 ? b->spent_s / (double)b->samples : 0;
    double slack = share >= TD_BUDGET_SLACK_SHARE ? TD_BUDGET_SAMPLE_S : 0;
    return kernel_spent_s + mean <= share * allowance + slack && spent + mean <= allowance;
}

int td_budget_kernel_may_move(const td_budget *b, double now_s, double kernel_gpu_s,
                              unsigned moves)
{
    if (b->overhead <= 0 || !(b->share_gpu_s > 0) || !(kernel_gpu_s > 0))
        return 1;
    double share = kernel_gpu_s / b->share_gpu_s;
    return (moves + 1.0) * TD_BUDGET_MOVE_S <=
           TD_BUDGET_MOVE_SHARE * share * td_budget_allowance(b, now_s);
}

static void add_estimate(double *sum, double change)
{
    if (isfinite(change))
        *sum += change;
    if (*sum < 0)
        *sum = 0;
}

void td_budget_launched(td_budget *b, double now_s, double est_s, double share_est_s)
{
    if (!b->launched) {
        b->launched = 1;
        b->gpu_from_s = host_native(b, now_s);
    }
    add_estimate(&b->gpu_s, est_s);
    add_estimate(&b->share_gpu_s, share_est_s);
}
