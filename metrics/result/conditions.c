/* Measurement conditions (conditions.h). */
#include "metrics/result/conditions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/json_field.h"
#include "metrics/strcopy.h"

static const char *const cache_words[] = {"all", "none", NULL};
static const char *const clock_words[] = {"base", "none", "preset", NULL};

static int one_of(const char *word, const char *const *words)
{
    for (; *words; words++)
        if (strcmp(word, *words) == 0)
            return 1;
    return 0;
}

static int check_words(const td_conditions *c, const char *where, td_error *err)
{
    if (c->cache_control && !one_of(c->cache_control, cache_words))
        return td_fail(err, "%s: \"cache_control\" is \"%s\", not all or none", where,
                       c->cache_control);
    if (c->clock_control && !one_of(c->clock_control, clock_words))
        return td_fail(err, "%s: \"clock_control\" is \"%s\", not base, none or preset", where,
                       c->clock_control);
    return 0;
}

int td_conditions_read(const cJSON *root, td_conditions *out, const char *name,
                       td_error *err)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "conditions");
    if (!obj)
        return 0;
    char where[600];
    snprintf(where, sizeof where, "%s: \"conditions\"", name);
    if (!cJSON_IsObject(obj))
        return td_fail(err, "%s must be an object", where);
    td_jctx c = {where, err};
    if (td_json_string_dup(&c, obj, "cache_control", 0, &out->cache_control) ||
        td_json_string_dup(&c, obj, "clock_control", 0, &out->clock_control) ||
        td_json_number(&c, obj, "clock_mhz", 0, 0, TD_MAX_CLOCK_MHZ, &out->clock_mhz))
        return -1;
    return check_words(out, where, err);
}

int td_conditions_check(const td_conditions *c, td_error *err)
{
    if (!isfinite(c->clock_mhz) || c->clock_mhz < 0 || c->clock_mhz > TD_MAX_CLOCK_MHZ)
        return td_fail(err, "conditions: clock_mhz %g is out of range", c->clock_mhz);
    return check_words(c, "conditions", err);
}

int td_conditions_recorded(const td_conditions *c)
{
    return c->cache_control || c->clock_control;
}

int td_conditions_add_json(cJSON *root, const td_conditions *c)
{
    if (!td_conditions_recorded(c))
        return 0;
    cJSON *obj = cJSON_AddObjectToObject(root, "conditions");
    if (!obj)
        return -1;
    if (c->cache_control && !cJSON_AddStringToObject(obj, "cache_control", c->cache_control))
        return -1;
    if (c->clock_control && !cJSON_AddStringToObject(obj, "clock_control", c->clock_control))
        return -1;
    if (c->clock_mhz > 0) {
        cJSON *mhz = td_json_exact_number(c->clock_mhz);
        if (!mhz || !cJSON_AddItemToObject(obj, "clock_mhz", mhz)) {
            cJSON_Delete(mhz);
            return -1;
        }
    }
    return 0;
}

int td_conditions_copy(td_conditions *dst, const td_conditions *src)
{
    dst->cache_control = td_strdup(src->cache_control);
    dst->clock_control = td_strdup(src->clock_control);
    dst->clock_mhz = src->clock_mhz;
    return (src->cache_control && !dst->cache_control) ||
                   (src->clock_control && !dst->clock_control)
               ? -1
               : 0;
}

void td_conditions_free(td_conditions *c)
{
    free(c->cache_control);
    free(c->clock_control);
    memset(c, 0, sizeof *c);
}

static const char *cache_meaning(const char *word)
{
    return strcmp(word, "all") == 0 ? "caches flushed before each profiled pass"
                                    : "caches as the app left them";
}

static int clock_locked(const td_conditions *c)
{
    return c->clock_control && strcmp(c->clock_control, "none") != 0;
}

static void clock_meaning(const td_conditions *c, double measured_mhz, char *buf, size_t size)
{
    const char *how = strcmp(c->clock_control, "base") == 0 ? "locked to base"
                                                             : "locked by someone else";
    if (!clock_locked(c))
        snprintf(buf, size, "clocks not locked");
    else if (c->clock_mhz > 0 && measured_mhz > 0)
        snprintf(buf, size, "%s, %g MHz asked, %.0f MHz measured", how, c->clock_mhz,
                 measured_mhz);
    else if (c->clock_mhz > 0)
        snprintf(buf, size, "%s, %g MHz", how, c->clock_mhz);
    else
        snprintf(buf, size, "%s", how);
}

int td_conditions_clock_missed(const td_conditions *c, double measured_mhz)
{
    return clock_locked(c) && c->clock_mhz > 0 && measured_mhz > 0 &&
           fabs(measured_mhz - c->clock_mhz) > TD_CLOCK_HELD_MAX * c->clock_mhz;
}

void td_conditions_describe(const td_conditions *c, double measured_mhz, char *buf,
                            size_t size)
{
    char clock[128] = "";
    buf[0] = '\0';
    if (c->clock_control)
        clock_meaning(c, measured_mhz, clock, sizeof clock);
    if (c->cache_control && c->clock_control)
        snprintf(buf, size, "cache-control %s (%s), clock-control %s (%s)", c->cache_control,
                 cache_meaning(c->cache_control), c->clock_control, clock);
    else if (c->cache_control)
        snprintf(buf, size, "cache-control %s (%s)", c->cache_control,
                 cache_meaning(c->cache_control));
    else if (c->clock_control)
        snprintf(buf, size, "clock-control %s (%s)", c->clock_control, clock);
}

static int words_differ(const char *a, const char *b)
{
    return a && b && strcmp(a, b) != 0;
}

int td_conditions_differ(const td_conditions *a, const td_conditions *b)
{
    return words_differ(a->cache_control, b->cache_control) ||
           words_differ(a->clock_control, b->clock_control);
}
