#define _GNU_SOURCE /* memmem */
#include "topdown/inject/device_heap.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>

/* An entry "malloc" or "free" between NULs anywhere in p[0..size). */
static int names_heap_call(const char *p, size_t size)
{
    /* memmem, not a loop over every byte: PyTorch's modules are megabytes */
    static const char malloc_entry[] = "\0malloc", free_entry[] = "\0free";
    static const struct {
        const char *text;
        size_t len; /* with both NULs */
    } calls[] = {{malloc_entry, sizeof malloc_entry}, {free_entry, sizeof free_entry}};
    for (size_t c = 0; c < sizeof calls / sizeof *calls; c++)
        if (memmem(p, size, calls[c].text, calls[c].len))
            return 1;
    return 0;
}

/* Whether [offset, offset + len) lies within size, without overflow. */
static int within(uint64_t offset, uint64_t len, size_t size)
{
    return offset <= size && len <= size - offset;
}

/* The answer from the ELF's string tables alone (where the symbols of
 * the functions a cubin calls are named): 0 or 1, or -1 when the buffer
 * is not a 64-bit little-endian ELF whose section headers all lie
 * inside it, or has no string table. */
static int from_string_tables(const char *cubin, size_t size)
{
    Elf64_Ehdr eh;
    if (size < sizeof eh)
        return -1;
    memcpy(&eh, cubin, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shnum == 0 || !within(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size))
        return -1;
    int tables = 0, found = 0;
    for (unsigned s = 0; s < eh.e_shnum; s++) {
        Elf64_Shdr sh;
        memcpy(&sh, cubin + eh.e_shoff + (uint64_t)s * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_STRTAB)
            continue;
        if (!within(sh.sh_offset, sh.sh_size, size))
            return -1;
        tables++;
        found |= names_heap_call(cubin + sh.sh_offset, sh.sh_size);
    }
    return tables ? found : -1;
}

int td_cubin_uses_device_heap(const char *cubin, size_t size)
{
    if (!cubin)
        return 0;
    /* An ELF's string tables are a small part of it: scanning the whole
     * of PyTorch's 25 modules (76 MB) took 33-41 ms inside its first
     * launches (H200). Anything else is scanned whole. */
    int answer = from_string_tables(cubin, size);
    return answer >= 0 ? answer : names_heap_call(cubin, size);
}
