/* Strings every module of metrics/ copies: its own module, so that the
 * result's sections (conditions, PC samples, PM samples) need not include
 * the result that includes them. */
#ifndef TD_STRCOPY_H
#define TD_STRCOPY_H

/* A malloc'd copy of s; NULL for NULL or when out of memory. */
char *td_strdup(const char *s);

#endif
