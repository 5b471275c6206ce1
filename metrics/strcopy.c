#include "metrics/strcopy.h"

#include <stdlib.h>
#include <string.h>

char *td_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t len = strlen(s) + 1;
    char *copy = malloc(len);
    if (copy)
        memcpy(copy, s, len);
    return copy;
}
