/* Fuzz target: the result reader (td_result_parse), then everything a
 * parsed result goes through: the model and the text, CSV and timeline
 * outputs, the PM-sampling timeline included. A crash or sanitizer report anywhere is a finding. */
#include "fuzz_common.h"
#include "levels/aggregate.h"
#include "metrics/result/result.h"
#include "report/csv.h"
#include "report/pm_timeline.h"
#include "report/text.h"
#include "report/timeline.h"

static void outputs(const td_result *res, const td_summary *s)
{
    td_error err;
    FILE *out = fuzz_sink();
    for (int level = 1; level <= 4; level++) {
        td_report_options o;
        td_report_options_init(&o);
        o.level = level;
        o.verbose = 1;
        td_report_text(out, res, s, &o, &err);
        td_csv_kernels(out, s, level, &err);
        td_csv_launches(out, res, s, level, &err);
    }
    td_pm_timeline_report(out, res, s, &err); /* fails without PM samples */
    if (s->n_kernels == 0)
        return;
    td_timeline t;
    if (td_timeline_build(res, s, s->kernels[0].name, &t, &err) == 0) {
        td_timeline_text(out, &t, s, 3, 5.0, &err);
        td_timeline_free(&t);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_result res;
    td_error err;
    if (td_result_parse((const char *)data, size, "fuzz.json", &res, &err) != 0)
        return 0;
    td_summary s;
    if (td_summarize(&res, fuzz_archs(), NULL, &s, &err) == 0) {
        outputs(&res, &s);
        td_summary_free(&s);
    }
    td_result_free(&res);
    return 0;
}
