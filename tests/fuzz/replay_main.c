/* Runs a fuzz target's entry point on every file under the folders given
 * (its seeds and the crashes found before): the regression test CTest runs
 * in the normal and the sanitizer builds, without libFuzzer. */
#define _DEFAULT_SOURCE /* DT_DIR */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long replayed;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, used = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        used += fread(buf + used, 1, cap - used, f);
        if (used < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    if (!buf)
        return -1;
    /* An exact-size copy, so that a read past the input is one ASan sees. */
    uint8_t *exact = malloc(used ? used : 1);
    if (exact) {
        memcpy(exact, buf, used);
        LLVMFuzzerTestOneInput(exact, used);
        replayed++;
    }
    free(exact);
    free(buf);
    return exact ? 0 : -1;
}

static int replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    struct dirent **entries = NULL;
    int n = scandir(path, &entries, NULL, alphasort);
    int rc = n < 0 ? -1 : 0;
    for (int i = 0; i < n; i++) {
        if (entries[i]->d_name[0] != '.' && rc == 0) {
            char child[4096];
            snprintf(child, sizeof child, "%s/%s", path, entries[i]->d_name);
            rc = replay_path(child);
        }
        free(entries[i]);
    }
    free(entries);
    return rc;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (replay_path(argv[i]) != 0)
            return 1;
    printf("%ld inputs replayed without a crash\n", replayed);
    return replayed > 0 ? 0 : 1;
}
