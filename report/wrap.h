/* Text that fits a terminal: long lines wrapped at spaces, long names
 * elided in the middle. */
#ifndef TD_REPORT_WRAP_H
#define TD_REPORT_WRAP_H

#include <stddef.h>
#include <stdio.h>

#include "metrics/error.h"

/* Columns of the text outputs unless --wide, into a pipe or a file. */
#define TD_TEXT_WIDTH 100
/* The fewest and most columns a terminal's width is taken as. */
#define TD_TEXT_WIDTH_MIN 60
#define TD_TEXT_WIDTH_MAX 400

/* The columns text is wrapped to: TD_TEXT_WIDTH unless set. */
int td_text_width(void);
void td_set_text_width(int width);

/* Marks around a coloured part of a text output's line, no column wide:
 * td_write_wrapped writes them as the terminal's colours when
 * td_text_color(), else drops them. */
#define TD_MARK_ALERT "\001" /* the bottleneck: bold red */
#define TD_MARK_NOTE "\002"  /* a node over its threshold: yellow */
#define TD_MARK_END "\003"

/* Whether the text outputs are coloured: off unless set. */
int td_text_color(void);
void td_set_text_color(int on);

/* Colour for standard output: mode "always" or "never" (--color), else
 * (auto, NULL) on a terminal (is_tty) unless NO_COLOR is set and not
 * empty. */
int td_choose_color(const char *mode, int is_tty, const char *no_color);

/* The width for standard output: on a terminal (is_tty), COLUMNS when it
 * is a number, else tty_cols (TIOCGWINSZ; 0: unknown), within
 * TD_TEXT_WIDTH_MIN..MAX; TD_TEXT_WIDTH in a pipe or when unknown. */
int td_choose_text_width(int is_tty, const char *columns, int tty_cols);

/* Writes text (lines ending in '\n') to out, each line longer than width
 * broken after a ", " or " | ", or at a space; a continued line is indented by
 * cont_indent, or, when it is negative, by the line's own indent (at
 * least 8, a description) plus 2, 10 for a line without one ("Device:   "
 * values). A word longer than the width stays whole. */
void td_wrap_text(FILE *out, const char *text, int width, int cont_indent);

/* The fewest columns td_wrap_hanging's continued lines keep at its
 * column; fewer, and they start at column 8. */
#define TD_HANGING_ROOM 16

/* Writes line (no '\n') and a newline, in lines of width, the continued
 * ones starting at column (a table's last column). */
void td_wrap_hanging(FILE *out, const char *line, int column, int width);

/* A text output: writes to out; 0, or -1 with err set. */
typedef int (*td_text_writer)(FILE *out, const void *ctx, td_error *err);

/* Runs write into memory, then writes its text wrapped to td_text_width()
 * (td_wrap_text, own indent; with wide, as it is), its marks as colours
 * or dropped. */
int td_write_wrapped(FILE *out, int wide, td_text_writer write, const void *ctx,
                     td_error *err);

/* What the text outputs print for a value that was not measured (a
 * stall split not made, a kernel without a profiled launch): the CSVs
 * leave the field empty, the JSON outputs and the trace write null. */
#define TD_NOT_MEASURED "n/m"
/* ... and for a value measured but not known: its 95% interval wider than
 * levels/spread.h allows (the CSVs leave the field empty, the JSON
 * outputs write null with "not_known": true). */
#define TD_NOT_KNOWN "n/k"

/* n in buf with a comma between each three digits ("114,022"): counts
 * in the text outputs (not in CSV or JSON). */
const char *td_count_text(unsigned long long n, char *buf, size_t size);
/* td_count_text into a buffer of the statement: for a printf's "%s". */
#define TD_COUNT(n) td_count_text((unsigned long long)(n), (char[32]){0}, 32)

/* A time in ns as milliseconds with 3 decimals, its whole part
 * separated as td_count_text's ("3,787.201"). */
const char *td_ms_text(double ns, char *buf, size_t size);
#define TD_MS(ns) td_ms_text((ns), (char[48]){0}, 48)

/* s in at most max characters: its start and end, "..." between them. */
void td_elide_middle(const char *s, size_t max, char *out, size_t size);

/* 1 when text matches pattern, where each "..." of pattern stands for
 * any run of characters (a name shown elided): "ab...yz" matches
 * "abcdxyz". Without "...", equality. */
int td_elided_match(const char *pattern, const char *text);

#endif
