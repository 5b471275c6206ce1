/* TOPDOWN_DEBUG: what the injection library decodes and decides, on
 * stderr (docs/COLLECTION.md "Expert variables"). The variable is read
 * once, at injection. */
#ifndef TD_INJECT_DEBUG_H
#define TD_INJECT_DEBUG_H

/* debug: TOPDOWN_DEBUG is set (collect_opts.h); InitializeInjection calls
 * it before any thread. */
void td_debug_init(int debug);
/* Whether TOPDOWN_DEBUG is set. */
int td_debug_on(void);
/* "topdown-debug WHO[pid]: message" on stderr when it is. */
void td_debug(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
