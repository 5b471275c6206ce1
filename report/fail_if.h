/* diff --fail-if: a regression gate for CI. Rules on model nodes or GPU
 * time, checked on the application and on every kernel found in both
 * results (docs/OUTPUTS.md):
 *   NODE>+P  B-A above +P points      NODE<-P  B-A below -P points
 *   NODE>P   B's share above P %      NODE<P   B's share below P %
 *   time>+P% B's GPU time per launch more than P % above A's   time<-P% below
 * several separated by commas. NODE is a path of `topdown list-nodes`
 * (or a node's bare name, or a level-4 stall path). */
#ifndef TD_REPORT_FAIL_IF_H
#define TD_REPORT_FAIL_IF_H

#include <stdio.h>

#include "report/diff.h"

/* The name a hit of the application row carries. */
#define TD_FAIL_IF_APP "<application>"

typedef struct td_fail_rule {
    char node[160];   /* as given; "time" for a GPU-time rule */
    char text[200];   /* the rule as written, for messages */
    char op;          /* '>' or '<' */
    int relative;     /* +P / -P: on B-A; else on B's share */
    int time;         /* on GPU time: B against A in % (always relative) */
    double limit;     /* points, or % of A's time */
} td_fail_rule;

/* Parses RULES into *rules (malloc'ed, *n of them). */
int td_fail_rules_parse(const char *text, td_fail_rule **rules, size_t *n, td_error *err);

typedef struct td_fail_hit {
    const char *kernel; /* TD_FAIL_IF_APP for the application */
    size_t rule;        /* index into the rules */
    double a, b;        /* % of issue slots, or GPU time per launch in ns, on each side */
    double change;      /* B-A in points, or (B-A)/A in % for time */
} td_fail_hit;

/* Fails when a rule's node is found in neither side's tables. */
int td_fail_rules_check_nodes(const td_diff_side *a, const td_diff_side *b,
                              const td_fail_rule *rules, size_t n_rules, td_error *err);

/* The application and the kernels in both results that break a rule
 * (each once per rule it breaks), sorted by |change|, largest first;
 * *hits malloc'ed. *compared: kernels in both results (0: the gate could
 * only compare the application, and fails). */
int td_fail_if_check(const td_diff_side *a, const td_diff_side *b, const td_fail_rule *rules,
                     size_t n_rules, td_fail_hit **hits, size_t *n_hits, size_t *compared,
                     td_error *err);

/* One line per hit: the rule, the change, A and B, the kernel. */
void td_fail_if_print(FILE *out, const td_fail_rule *rules, const td_fail_hit *hits,
                      size_t n_hits);

#endif
