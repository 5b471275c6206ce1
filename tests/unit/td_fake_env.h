/* A fake environment for the readers that take theirs as a function
 * (td_collect_getenv_fn): the test points td_fake_env at name=value pairs,
 * NULL-terminated, and hands td_fake_getenv to the reader. */
#ifndef TD_FAKE_ENV_H
#define TD_FAKE_ENV_H

#include <string.h>

static const char *const *td_fake_env;

static inline const char *td_fake_getenv(const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = td_fake_env; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

#endif
