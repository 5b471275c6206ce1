#include "topdown/inject/budget.h"

double td_budget_native(const td_budget *b, double now_s)
{
    double host = now_s - b->start_s - b->spent_s - b->once_s;
    return host > b->gpu_s ? host : b->gpu_s;
}

int td_budget_allows(const td_budget *b, double now_s)
{
    if (b->overhead <= 0)
        return 1;
    return b->spent_s <= b->overhead * td_budget_native(b, now_s);
}

void td_budget_launched(td_budget *b, double est_s)
{
    if (est_s > 0)
        b->gpu_s += est_s;
}
