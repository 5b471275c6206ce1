/* The device-heap check of a cubin (topdown/inject/device_heap.c): a
 * string-table entry "malloc" or "free" between NULs, and nothing else.
 * In an ELF only its string tables count (made-up ELFs, and the cubins
 * of tests/fixtures/cubin/, nvcc 13.0, sm_90); any other buffer is
 * decided as the byte-by-byte scan before memmem decided, on planted and
 * random buffers. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "metrics/xorshift.h"
#include "topdown/inject/device_heap.h"

/* The scan before memmem: each NUL followed by the name and a NUL. */
static int reference(const char *cubin, size_t size)
{
    static const char *const calls[] = {"malloc", "free"};
    for (size_t c = 0; cubin && c < 2; c++) {
        size_t len = strlen(calls[c]);
        for (size_t i = 0; i + len + 2 <= size; i++)
            if (cubin[i] == '\0' && cubin[i + len + 1] == '\0' &&
                memcmp(cubin + i + 1, calls[c], len) == 0)
                return 1;
    }
    return 0;
}

static int check(const char *bytes, size_t size)
{
    int got = td_cubin_uses_device_heap(bytes, size);
    CHECK(got == reference(bytes, size));
    return got;
}

/* A made-up ELF: a NULL section, a string table holding strtab, a
 * PROGBITS section holding progbits; the section headers at the end. */
typedef struct made_elf {
    char bytes[512];
    size_t size;
    size_t shoff;
} made_elf;

static void make_elf(made_elf *e, const char *strtab, size_t strtab_len, const char *progbits,
                     size_t progbits_len)
{
    memset(e, 0, sizeof *e);
    Elf64_Ehdr eh = {.e_type = ET_EXEC, .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 3};
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    size_t at = sizeof eh;
    Elf64_Shdr sh[3] = {{0}};
    sh[1] = (Elf64_Shdr){.sh_type = SHT_STRTAB, .sh_offset = at, .sh_size = strtab_len};
    memcpy(e->bytes + at, strtab, strtab_len);
    at += strtab_len;
    sh[2] = (Elf64_Shdr){.sh_type = SHT_PROGBITS, .sh_offset = at, .sh_size = progbits_len};
    memcpy(e->bytes + at, progbits, progbits_len);
    at += progbits_len;
    eh.e_shoff = e->shoff = at;
    memcpy(e->bytes, &eh, sizeof eh);
    memcpy(e->bytes + at, sh, sizeof sh);
    e->size = at + sizeof sh;
}

static void test_made_elfs(void)
{
    made_elf e;
    make_elf(&e, "\0.text\0malloc\0", 15, "code", 4);
    CHECK(td_cubin_uses_device_heap(e.bytes, e.size) == 1);
    make_elf(&e, "\0free\0", 6, "code", 4); /* the table's first and last entry */
    CHECK(td_cubin_uses_device_heap(e.bytes, e.size) == 1);
    /* "free" in code or data is no call: the scan of the whole buffer said 1 */
    make_elf(&e, "\0.text\0", 7, "\0free\0", 6);
    CHECK(reference(e.bytes, e.size) == 1);
    CHECK(td_cubin_uses_device_heap(e.bytes, e.size) == 0);
    /* section headers cut off: not trusted, the whole buffer decides */
    CHECK(td_cubin_uses_device_heap(e.bytes, e.size - 1) == 1);
    /* a string table past the end: the whole buffer decides */
    make_elf(&e, "\0.text\0", 7, "\0free\0", 6);
    Elf64_Shdr sh;
    memcpy(&sh, e.bytes + e.shoff + sizeof sh, sizeof sh);
    sh.sh_size = 1u << 20;
    memcpy(e.bytes + e.shoff + sizeof sh, &sh, sizeof sh);
    CHECK(td_cubin_uses_device_heap(e.bytes, e.size) == 1);
    /* not 64-bit: the whole buffer decides */
    make_elf(&e, "\0.text\0", 7, "\0free\0", 6);
    e.bytes[EI_CLASS] = ELFCLASS32;
    CHECK(td_cubin_uses_device_heap(e.bytes, e.size) == 1);
}

static char *read_fixture(const char *name, size_t *size)
{
    const char *repo = getenv("TOPDOWN_REPO_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/cubin/%s", repo ? repo : "..", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 16);
    *size = buf ? fread(buf, 1, 1 << 16, f) : 0;
    fclose(f);
    return buf;
}

/* Real cubins: heap.cu's kernels call new and delete, noheap.cu's (one
 * named mallocx_named) do not. */
static void test_nvcc_cubins(void)
{
    size_t size = 0;
    char *heap = read_fixture("heap_sm90.cubin", &size);
    CHECK(heap && size > sizeof(Elf64_Ehdr));
    if (heap)
        CHECK(td_cubin_uses_device_heap(heap, size) == 1);
    free(heap);
    char *plain = read_fixture("noheap_sm90.cubin", &size);
    CHECK(plain && size > sizeof(Elf64_Ehdr));
    if (plain)
        CHECK(td_cubin_uses_device_heap(plain, size) == 0);
    free(plain);
}

int main(void)
{
    test_made_elfs();
    test_nvcc_cubins();
    CHECK(check("\0malloc\0", 8) == 1);
    CHECK(check("x\0free\0y", 8) == 1);
    CHECK(check("\0mallocx\0", 9) == 0);  /* another name */
    CHECK(check("xmalloc\0", 8) == 0);    /* not an entry of its own */
    CHECK(check("\0malloc", 7) == 0);     /* cut before its NUL */
    CHECK(check("\0free", 5) == 0);
    CHECK(check("", 0) == 0);
    CHECK(td_cubin_uses_device_heap(NULL, 16) == 0);
    /* random bytes over a small alphabet, so that entries come by chance */
    static const char alphabet[] = {'\0', 'm', 'a', 'l', 'o', 'c', 'f', 'r', 'e', 'x'};
    uint32_t rng = 12345;
    size_t found = 0;
    for (int round = 0; round < 2000; round++) {
        char buf[512];
        size_t size = 1 + td_xorshift32(&rng) % sizeof buf;
        for (size_t i = 0; i < size; i++)
            buf[i] = alphabet[td_xorshift32(&rng) % sizeof alphabet];
        if (td_xorshift32(&rng) % 4 == 0 && size > 8) /* plant one */
            memcpy(buf + td_xorshift32(&rng) % (size - 8), "\0malloc\0", 8);
        found += (size_t)check(buf, size);
    }
    CHECK(found > 100 && found < 2000); /* both answers were exercised */
    return td_check_summary();
}
