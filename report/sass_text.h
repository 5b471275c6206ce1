/* SASS text for `topdown source --sass`: the instructions of one function
 * of a cubin, from the toolkit's nvdisasm when it is on PATH (optional:
 * without it the rows show PC offsets only). */
#ifndef TD_REPORT_SASS_TEXT_H
#define TD_REPORT_SASS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "metrics/error.h"

typedef struct td_sass_line {
    uint64_t pc;
    char text[96]; /* "LDG.E R2, desc[UR4][R2.64] ;" */
} td_sass_line;

typedef struct td_sass_listing {
    td_sass_line *lines;
    size_t n;
} td_sass_listing;

/* The instructions of function in nvdisasm's output (its ".text.<function>"
 * section; lines "/ *0040* /  INSTRUCTION ;"), appended to out. */
int td_sass_parse(const char *text, const char *function, td_sass_listing *out, td_error *err);

/* Runs `nvdisasm -c CUBIN` and parses function's instructions; 0 with an
 * empty listing when nvdisasm is not on PATH or fails. */
int td_sass_disassemble(const char *cubin_path, const char *function, td_sass_listing *out,
                        td_error *err);

/* The instruction at pc, NULL when the listing has none. */
const char *td_sass_at(const td_sass_listing *l, uint64_t pc);
void td_sass_free(td_sass_listing *l);

#endif
