/* Copying a string, for every module of metrics/: its own module, so that
 * copying ties no module to the result. conditions.c, whose struct the
 * result holds, copies its words with it and does not include result.h
 * (its section's record is in metrics/result/sections.c). */
#ifndef TD_STRCOPY_H
#define TD_STRCOPY_H

/* A malloc'd copy of s; NULL for NULL or when out of memory. */
char *td_strdup(const char *s);

#endif
