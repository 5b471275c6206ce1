/* Text that fits a terminal: long lines wrapped at spaces, long names
 * elided in the middle. */
#ifndef TD_REPORT_WRAP_H
#define TD_REPORT_WRAP_H

#include <stddef.h>
#include <stdio.h>

#include "metrics/error.h"

/* Columns of the text outputs unless --wide. */
#define TD_TEXT_WIDTH 100

/* Writes text (lines ending in '\n') to out, each line longer than width
 * broken after a ", " or " | ", or at a space; a continued line is indented by
 * cont_indent, or, when it is negative, by the line's own indent (at
 * least 8, a description) plus 2, 10 for a line without one ("Device:   "
 * values). A word longer than the width stays whole. */
void td_wrap_text(FILE *out, const char *text, int width, int cont_indent);

/* A text output: writes to out; 0, or -1 with err set. */
typedef int (*td_text_writer)(FILE *out, const void *ctx, td_error *err);

/* Runs write into memory, then writes its text wrapped to TD_TEXT_WIDTH
 * (td_wrap_text, own indent); with wide, straight to out. */
int td_write_wrapped(FILE *out, int wide, td_text_writer write, const void *ctx,
                     td_error *err);

/* s in at most max characters: its start and end, "..." between them. */
void td_elide_middle(const char *s, size_t max, char *out, size_t size);

/* 1 when text matches pattern, where each "..." of pattern stands for
 * any run of characters (a name shown elided): "ab...yz" matches
 * "abcdxyz". Without "...", equality. */
int td_elided_match(const char *pattern, const char *text);

#endif
