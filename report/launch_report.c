#include "report/launch_report.h"

#include <cjson/cJSON.h>
#include <math.h>

#include "report/wrap.h"

/* ---- text --------------------------------------------------------------- */

/* The unit the longest of the figures reads best in, and its ns. */
static const char *duration_unit(double max_ns, double *scale, int *decimals)
{
    if (max_ns >= 1e6) {
        *scale = 1e6;
        *decimals = 3;
        return "ms";
    }
    if (max_ns >= 1e3) {
        *scale = 1e3;
        *decimals = 3;
        return "us";
    }
    *scale = 1;
    *decimals = 0;
    return "ns";
}

void td_print_durations(FILE *out, const td_duration_stats *d)
{
    if (d->count < 2)
        return;
    double scale;
    int dec;
    const char *unit = duration_unit(d->max_ns, &scale, &dec);
    fprintf(out, "  per launch (%s): mean %.*f, median %.*f, min %.*f, max %.*f, std %.*f\n",
            unit, dec, d->mean_ns / scale, dec, d->median_ns / scale, dec, d->min_ns / scale,
            dec, d->max_ns / scale, dec, d->std_ns / scale);
}

void td_print_beyond_measured(FILE *out, const td_launch_stats *ls)
{
    double share = td_launch_beyond_share(ls);
    if (share < TD_BEYOND_NOTE)
        return;
    double scale_max, scale_measured;
    int dec_max, dec_measured;
    const char *unit_max = duration_unit(ls->durations.max_ns, &scale_max, &dec_max);
    const char *unit_measured = duration_unit(ls->measured_max_ns, &scale_measured, &dec_measured);
    fprintf(out, "  NOTE: %.0f%% of its time is in launches over %.0fx longer than any it "
            "measured (up to %.*f %s, the measured ones up to %.*f %s): its tree stands for its "
            "shorter launches; --overhead unlimited measures every launch\n",
            100.0 * share, TD_BEYOND_MEASURED, dec_max,
            ls->durations.max_ns / scale_max, unit_max, dec_measured,
            ls->measured_max_ns / scale_measured, unit_measured);
}

static unsigned block_warps(const td_launch_config *c)
{
    unsigned long long threads = (unsigned long long)c->block[0] * c->block[1] * c->block[2];
    return (unsigned)((threads + 31) / 32);
}

/* Grid and block, the waves of blocks the grid makes on the device's SMs,
 * then registers and shared memory (ncu's Launch Statistics). */
static void print_launch_lines(FILE *out, const td_launch_stats *ls)
{
    const td_launch_config *c = &ls->config;
    const td_launch_resources *r = &c->resources;
    fprintf(out, "  Launch: grid %ux%ux%u, block %ux%ux%u (%u warp%s)", c->grid[0], c->grid[1],
            c->grid[2], c->block[0], c->block[1], c->block[2], block_warps(c),
            block_warps(c) == 1 ? "" : "s");
    if (!isnan(ls->waves))
        fprintf(out, ", %.2f waves", ls->waves);
    if (ls->configs > 1)
        fprintf(out, "; the commonest of %s configurations (%s of %s launches)",
                TD_COUNT(ls->configs), TD_COUNT(c->launches), TD_COUNT(ls->durations.count));
    if (r->recorded)
        fprintf(out, "\n  Resources: %u registers/thread, shared memory %s B static + %s B "
                "dynamic per block\n", r->registers, TD_COUNT(r->static_shared),
                TD_COUNT(r->dynamic_shared));
    else
        fputs("\n  Resources: registers and shared memory not recorded\n", out);
}

/* The theoretical occupancy and its limiter, then the achieved (ncu's
 * Occupancy). */
static void print_occupancy_lines(FILE *out, const td_device *dev, const td_launch_stats *ls)
{
    if (ls->max_warps == 0) {
        fprintf(out, "  Occupancy: %s (the arch table has no SM limits for CC %d.%d)\n",
                TD_NOT_MEASURED, dev->cc_major, dev->cc_minor);
        return;
    }
    const td_occupancy *o = &ls->theoretical;
    char limiters[64];
    if (ls->has_theoretical)
        fprintf(out, "  Occupancy: theoretical %.1f%% (%u of %u warps, %u block%s per SM), "
                "limited by %s\n", o->pct, o->warps, o->max_warps, o->blocks,
                o->blocks == 1 ? "" : "s",
                td_occ_limiters_text(o->limiters, limiters, sizeof limiters));
    else
        fprintf(out, "  Occupancy: theoretical %s (without registers and shared memory)\n",
                TD_NOT_MEASURED);
    fputs("  Achieved occupancy: ", out);
    if (isnan(ls->achieved_pct))
        fprintf(out, "%s (no profiled launch measured sm__warps_active)\n", TD_NOT_MEASURED);
    else
        fprintf(out, "%.1f%% of %u warps per SM (%s profiled launch%s)\n", ls->achieved_pct,
                ls->max_warps, TD_COUNT(ls->achieved_launches),
                ls->achieved_launches == 1 ? "" : "es");
}

void td_print_launch_details(FILE *out, const td_result *res, const td_kernel_summary *ks)
{
    const td_launch_stats *ls = &ks->launch;
    if (ls->durations.count == 0)
        return;
    print_launch_lines(out, ls);
    print_occupancy_lines(out, &res->devices[ls->config.dev], ls);
}

/* ---- JSON --------------------------------------------------------------- */

static int add_number_or_null(cJSON *obj, const char *key, int known, double value)
{
    return (known && isfinite(value) ? cJSON_AddNumberToObject(obj, key, value)
                                     : cJSON_AddNullToObject(obj, key)) != NULL;
}

static cJSON *durations_json(const td_launch_stats *ls)
{
    const td_duration_stats *d = &ls->durations;
    cJSON *obj = cJSON_CreateObject();
    int known = d->count > 0, measured = ls->measured_max_ns > 0;
    int ok = obj && cJSON_AddNumberToObject(obj, "count", (double)d->count) &&
             cJSON_AddNumberToObject(obj, "total_ns", d->total_ns) &&
             add_number_or_null(obj, "mean_ns", known, d->mean_ns) &&
             add_number_or_null(obj, "min_ns", known, d->min_ns) &&
             add_number_or_null(obj, "median_ns", known, d->median_ns) &&
             add_number_or_null(obj, "max_ns", known, d->max_ns) &&
             add_number_or_null(obj, "std_ns", known, d->std_ns) &&
             add_number_or_null(obj, "measured_max_ns", measured, ls->measured_max_ns) &&
             add_number_or_null(obj, "beyond_measured_ns", measured, ls->beyond_measured_ns);
    return ok ? obj : (cJSON_Delete(obj), NULL);
}

static cJSON *dims_json(const unsigned v[3])
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < 3; i++)
        if (!cJSON_AddItemToArray(arr, cJSON_CreateNumber(v[i])))
            return cJSON_Delete(arr), NULL;
    return arr;
}

static cJSON *launch_json(const td_launch_stats *ls)
{
    const td_launch_config *c = &ls->config;
    const td_launch_resources *r = &c->resources;
    cJSON *obj = cJSON_CreateObject();
    int ok = obj && cJSON_AddItemToObject(obj, "grid", dims_json(c->grid)) &&
             cJSON_AddItemToObject(obj, "block", dims_json(c->block)) &&
             cJSON_AddNumberToObject(obj, "warps_per_block", block_warps(c)) &&
             cJSON_AddNumberToObject(obj, "launches", (double)c->launches) &&
             cJSON_AddNumberToObject(obj, "configs", (double)ls->configs) &&
             cJSON_AddBoolToObject(obj, "resources_recorded", r->recorded) &&
             add_number_or_null(obj, "registers_per_thread", r->recorded, r->registers) &&
             add_number_or_null(obj, "static_shared_bytes", r->recorded, r->static_shared) &&
             add_number_or_null(obj, "dynamic_shared_bytes", r->recorded, r->dynamic_shared) &&
             add_number_or_null(obj, "shared_config_bytes", r->recorded && r->shared_config,
                                r->shared_config);
    return ok ? obj : (cJSON_Delete(obj), NULL);
}

static cJSON *block_limits_json(const td_occupancy *o)
{
    cJSON *obj = cJSON_CreateObject();
    for (int i = 0; obj && i < TD_OCC_LIMITS; i++)
        if (!add_number_or_null(obj, td_occ_limit_name((td_occ_limit)i),
                                o->block_limit[i] != TD_OCC_NO_LIMIT, o->block_limit[i]))
            return cJSON_Delete(obj), NULL;
    return obj;
}

static cJSON *limiters_json(const td_occupancy *o)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < TD_OCC_LIMITS; i++)
        if ((o->limiters & (1u << i)) &&
            !cJSON_AddItemToArray(arr, cJSON_CreateString(td_occ_limit_name((td_occ_limit)i))))
            return cJSON_Delete(arr), NULL;
    return arr;
}

static int add_theoretical(cJSON *obj, const td_launch_stats *ls)
{
    const td_occupancy *o = &ls->theoretical;
    int known = ls->has_theoretical;
    if (!known)
        return cJSON_AddNullToObject(obj, "theoretical_pct") &&
                       cJSON_AddNullToObject(obj, "blocks_per_sm") &&
                       cJSON_AddNullToObject(obj, "warps_per_sm") &&
                       cJSON_AddNullToObject(obj, "limiters") &&
                       cJSON_AddNullToObject(obj, "block_limits")
                   ? 0 : -1;
    return cJSON_AddNumberToObject(obj, "theoretical_pct", o->pct) &&
                   cJSON_AddNumberToObject(obj, "blocks_per_sm", o->blocks) &&
                   cJSON_AddNumberToObject(obj, "warps_per_sm", o->warps) &&
                   cJSON_AddItemToObject(obj, "limiters", limiters_json(o)) &&
                   cJSON_AddItemToObject(obj, "block_limits", block_limits_json(o))
               ? 0 : -1;
}

static cJSON *occupancy_json(const td_launch_stats *ls)
{
    cJSON *obj = cJSON_CreateObject();
    int ok = obj && add_number_or_null(obj, "max_warps_per_sm", ls->max_warps > 0, ls->max_warps) &&
             add_theoretical(obj, ls) == 0 &&
             add_number_or_null(obj, "waves", 1, ls->waves) &&
             add_number_or_null(obj, "achieved_pct", 1, ls->achieved_pct) &&
             cJSON_AddNumberToObject(obj, "achieved_launches", (double)ls->achieved_launches);
    return ok ? obj : (cJSON_Delete(obj), NULL);
}

int td_launch_stats_add_json(cJSON *obj, const td_launch_stats *ls)
{
    cJSON *parts[3] = {durations_json(ls), launch_json(ls), occupancy_json(ls)};
    const char *keys[3] = {"durations", "launch", "occupancy"};
    int rc = 0;
    for (int i = 0; i < 3; i++) {
        if (rc == 0 && parts[i] && cJSON_AddItemToObject(obj, keys[i], parts[i]))
            continue;
        cJSON_Delete(parts[i]);
        rc = -1;
    }
    return rc;
}
