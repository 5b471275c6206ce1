/* The text report of a summary as a string, for the unit tests' checks of
 * what the report says. */
#ifndef TD_TESTREPORT_H
#define TD_TESTREPORT_H

#include <stdio.h>

#include "levels/aggregate.h"
#include "report/text.h"

/* Writes the report of res/s with o into buf (NUL-terminated, cut at
 * size - 1); 0, or -1 and "" when the report or its temporary file
 * failed. */
static inline int td_test_report_text(const td_result *res, const td_summary *s,
                                      const td_report_options *o, char *buf, size_t size)
{
    td_error err;
    buf[0] = '\0';
    FILE *f = tmpfile();
    if (!f)
        return -1;
    int rc = td_report_text(f, res, s, o, &err);
    rewind(f);
    if (rc == 0)
        buf[fread(buf, 1, size - 1, f)] = '\0';
    fclose(f);
    return rc == 0 ? 0 : -1;
}

/* The level-1 report of res (its header: Cost, Conditions), wide: lines
 * not wrapped; 0, or -1 and "" when summarising or the report failed. */
static inline int td_test_level1_text(const td_result *res, const td_arch_set *archs, int wide,
                                      char *buf, size_t size)
{
    td_summary s;
    td_error err;
    buf[0] = '\0';
    if (td_summarize(res, archs, NULL, &s, &err) != 0)
        return -1;
    td_report_options o;
    td_report_options_init(&o);
    o.level = 1;
    o.wide = wide;
    int rc = td_test_report_text(res, &s, &o, buf, size);
    td_summary_free(&s);
    return rc;
}

#endif
