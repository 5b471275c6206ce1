#include "metrics/kernel_base.h"

#include <stdio.h>
#include <string.h>

static const char *const base_words[] = {"function", "demangled", "mangled"};

int td_name_base_parse(const char *text, td_name_base *out, td_error *err)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(text, base_words[i]) == 0) {
            *out = (td_name_base)i;
            return 0;
        }
    return td_fail(err, "--kernel-name-base takes function, demangled or mangled, not \"%s\"",
                   text);
}

const char *td_name_base_word(td_name_base base)
{
    return base >= TD_NAME_FUNCTION && base <= TD_NAME_MANGLED ? base_words[base] : "?";
}

/* The length of name without its parameter list: the last top-level
 * "(...)" (a "(anonymous namespace)" earlier is not one). */
static size_t without_params(const char *name)
{
    size_t len = strlen(name);
    while (len > 0 && name[len - 1] == ' ')
        len--;
    if (len == 0 || name[len - 1] != ')')
        return len;
    int depth = 0;
    for (size_t i = len; i-- > 0;) {
        depth += name[i] == ')' ? 1 : (name[i] == '(' ? -1 : 0);
        if (depth == 0)
            return i > 0 ? i : len;
    }
    return len;
}

static int opens(char c)
{
    return c == '<' || c == '(' || c == '[' || c == '{';
}

static int closes(char c)
{
    return c == '>' || c == ')' || c == ']' || c == '}';
}

void td_kernel_base_name(const char *name, char *out, size_t size)
{
    /* words without a parameter list are no C++ function ("CUDA graph 2",
     * a graph's whole launches): the whole name */
    if (!strchr(name, '(') && strchr(name, ' ')) {
        snprintf(out, size, "%s", name);
        return;
    }
    size_t len = without_params(name);
    /* the last component: after the last top-level "::" or space */
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        if (opens(name[i]))
            depth++;
        else if (closes(name[i]) && depth > 0)
            depth--;
        else if (depth == 0 && name[i] == ':' && i + 1 < len && name[i + 1] == ':')
            start = i + 2;
        else if (depth == 0 && name[i] == ' ')
            start = i + 1;
    }
    /* its top-level characters: template arguments left out */
    size_t used = 0;
    depth = 0;
    for (size_t i = start; i < len && used + 1 < size; i++) {
        if (name[i] == '<')
            depth++;
        else if (name[i] == '>' && depth > 0)
            depth--;
        else if (depth == 0)
            out[used++] = name[i];
    }
    if (size > 0)
        out[used] = '\0';
    if (used == 0)
        snprintf(out, size, "%s", name);
}

const char *td_kernel_name_in(td_name_base base, const char *demangled, const char *mangled,
                              char *buf, size_t size)
{
    if (base == TD_NAME_MANGLED)
        return mangled && mangled[0] ? mangled : demangled;
    if (base == TD_NAME_DEMANGLED)
        return demangled;
    td_kernel_base_name(demangled, buf, size);
    return buf;
}
