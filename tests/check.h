/* A minimal test harness: CHECK records a failure and goes on; main ends
 * with return td_check_summary(), which prints "N passed, N failed". */
#ifndef TD_CHECK_H
#define TD_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int td_checks_passed, td_checks_failed;

/* How many times needle occurs in text (overlaps counted; 0 for NULL). */
static inline int td_count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text ? strstr(text, needle) : NULL; p; p = strstr(p + 1, needle))
        n++;
    return n;
}

#define CHECK(cond) \
    do { \
        if (cond) { \
            td_checks_passed++; \
        } else { \
            td_checks_failed++; \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        } \
    } while (0)

#define CHECK_NEAR(a, b, tol) \
    do { \
        double td_a_ = (a), td_b_ = (b); \
        if (fabs(td_a_ - td_b_) <= (tol)) { \
            td_checks_passed++; \
        } else { \
            td_checks_failed++; \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.9g, %s = %.9g\n", \
                    __FILE__, __LINE__, #a, td_a_, #b, td_b_); \
        } \
    } while (0)

#define CHECK_STR(a, b) \
    do { \
        const char *td_a_ = (a), *td_b_ = (b); \
        if (td_a_ && td_b_ && strcmp(td_a_, td_b_) == 0) { \
            td_checks_passed++; \
        } else { \
            td_checks_failed++; \
            fprintf(stderr, "%s:%d: CHECK_STR failed: \"%s\" != \"%s\"\n", __FILE__, \
                    __LINE__, td_a_ ? td_a_ : "(null)", td_b_ ? td_b_ : "(null)"); \
        } \
    } while (0)

static inline int td_check_summary(void)
{
    printf("%d passed, %d failed\n", td_checks_passed, td_checks_failed);
    return td_checks_failed ? 1 : 0;
}

#endif
