/* The table of a result file's optional sections (section.h). */
#include "metrics/result/section.h"

const td_section *const td_sections[] = {
    &td_conditions_section, /* root */
    &td_cost_section,
    &td_copies_section,     /* each device section, in this order */
    &td_pcsamp_section,
    &td_pm_section,
    NULL,
};
