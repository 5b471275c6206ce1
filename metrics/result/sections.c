/* The table of a result file's optional sections (section.h), and the
 * records of the root's two sections. conditions.c and cost.c know only
 * their own struct, which the result holds (result.h includes their
 * headers); their records, which take the result, are here, so that
 * neither module includes the result that includes it. */
#include "metrics/result/section.h"

#include "metrics/result/conditions.h"
#include "metrics/result/cost.h"
#include "metrics/result/result.h"

/* ---- "conditions" (conditions.h) ------------------------------------------ */

static int read_conditions(const cJSON *root, td_result *res, const td_jctx *c)
{
    return td_conditions_read(root, &res->conditions, c->where, c->err);
}

static int check_conditions(const td_result *res, td_error *err)
{
    return td_conditions_check(&res->conditions, err);
}

static int write_conditions(cJSON *root, const td_result *res)
{
    return td_conditions_add_json(root, &res->conditions);
}

static void free_conditions(td_result *res)
{
    td_conditions_free(&res->conditions);
}

const td_section td_conditions_section = {
    .key = "conditions",
    .read_root = read_conditions,
    .check_root = check_conditions,
    .write_root = write_conditions,
    .free_root = free_conditions,
};

/* ---- "cost" (cost.h) ---------------------------------------------------------- */

static int read_cost(const cJSON *root, td_result *res, const td_jctx *c)
{
    return td_cost_read(root, &res->cost, c->where, c->err);
}

static int check_cost(const td_result *res, td_error *err)
{
    return td_cost_check(&res->cost, err);
}

static int write_cost(cJSON *root, const td_result *res)
{
    return td_cost_add_json(root, &res->cost, 0);
}

static void free_cost(td_result *res)
{
    res->cost = (td_cost){0};
}

const td_section td_cost_section = {
    .key = "cost",
    .read_root = read_cost,
    .check_root = check_cost,
    .write_root = write_cost,
    .free_root = free_cost,
};

/* ---- the table ---------------------------------------------------------------- */

const td_section *const td_sections[] = {
    &td_conditions_section, /* root */
    &td_cost_section,
    &td_copies_section,     /* each device section, in this order */
    &td_pcsamp_section,
    &td_pm_section,
    NULL,
};
