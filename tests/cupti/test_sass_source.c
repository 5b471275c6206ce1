/* Issue 13: PCs to source lines on the host, through CUPTI (no GPU), on a
 * real cubin compiled at build time with -lineinfo (data/td_lines.cu,
 * $TOPDOWN_TEST_CUBIN): its CRC, the line of each PC, and `topdown source`
 * on a result whose PC samples point into it, with the cubin saved next
 * to the result as --source saves it (RESULT.cubins/<crc>.cubin). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../check.h"
#include "../td_shell.h"
#include "metrics/arch/cubin.h"
#include "metrics/result/pcsamp.h"
#include "metrics/result/result.h"
#include "topdown/cli.h"

#define KERNEL "td_lines_kernel"

static char dir[] = "/tmp/td_sassXXXXXX";
static const char *bin, *src_dir;
static void *cubin;
static size_t cubin_size;
static unsigned line_load, line_math, line_store; /* the marked lines of td_lines.cu */
static uint64_t pc_load, pc_math, pc_store;       /* a PC of each */
static uint64_t pc_load2, pc_math2;               /* another PC of the line */
static uint64_t crc;

/* The number of the line holding marker in the CUDA file. */
static unsigned marked_line(const char *cu_file, const char *marker)
{
    FILE *f = fopen(cu_file, "r");
    char line[512];
    unsigned n = 0, found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, marker))
            found = n;
    }
    if (f)
        fclose(f);
    return found;
}

static void test_lines(const char *cu_file)
{
    td_error err;
    uint64_t again = 0;
    CHECK(td_cubin_crc(cubin, cubin_size, &crc, &err) == 0 && crc != 0);
    CHECK(td_cubin_crc(cubin, cubin_size, &again, &err) == 0 && again == crc);
    line_load = marked_line(cu_file, "TD_LINE_LOAD");
    line_math = marked_line(cu_file, "TD_LINE_MATH");
    line_store = marked_line(cu_file, "TD_LINE_STORE");
    CHECK(line_load && line_math > line_load && line_store > line_math);
    /* every instruction (16 bytes on sm_90) until the function ends */
    size_t found = 0, past_end = 0;
    for (uint64_t pc = 0; pc < 0x2000; pc += 16) {
        char file[1024];
        unsigned line = 0;
        int rc = td_cubin_source_line(cubin, cubin_size, KERNEL, pc, file, sizeof file, &line, &err);
        CHECK(rc >= 0);
        if (rc <= 0) {
            past_end += found > 0;
            continue;
        }
        found++;
        CHECK(strstr(file, "td_lines.cu") != NULL);
        CHECK(line >= 4 && line <= line_store + 1); /* inside the kernel */
        if (line == line_load && pc_load && !pc_load2)
            pc_load2 = pc;
        if (line == line_load && !pc_load)
            pc_load = pc;
        if (line == line_math && pc_math && !pc_math2)
            pc_math2 = pc;
        if (line == line_math && !pc_math)
            pc_math = pc;
        if (line == line_store && !pc_store)
            pc_store = pc;
    }
    CHECK(found >= 10 && past_end > 0);
    CHECK(pc_load && pc_math && pc_store && pc_load2 && pc_math2);
    /* no such function, and bytes that are no cubin: no line, no error */
    char file[64];
    unsigned line = 0;
    CHECK(td_cubin_source_line(cubin, cubin_size, "no_such_kernel", 0, file, sizeof file,
                               &line, &err) == 0);
    static const char junk[256] = "not an ELF file";
    CHECK(td_cubin_source_line(junk, sizeof junk, KERNEL, 0, file, sizeof file, &line, &err) <= 0);
}

/* A result with one timed launch of the kernel and PC samples at its
 * three marked lines (several PCs of the math line), the cubin folder as
 * the spool names it: cubin_dir. */
static int write_result(const char *name, const char *cubin_dir)
{
    td_result res;
    td_error err;
    memset(&res, 0, sizeof res);
    res.tool_version = td_strdup("test");
    res.status = td_strdup("complete");
    td_device *dev = td_result_add_device(&res, &err);
    dev->arch = td_strdup("gh100");
    dev->chip = td_strdup("GH100");
    dev->name = td_strdup("test GPU");
    dev->cc_major = 9;
    td_launch *l = td_device_add_launch(dev, KERNEL, NULL, &err);
    l->duration_ns = 1000;
    td_pcsamp *p = td_pcsamp_new();
    long f = td_pcsamp_function(p, KERNEL), m = td_pcsamp_module(p, crc);
    long ls = td_pcsamp_reason(p, TD_PCSAMP_PREFIX "long_scoreboard");
    long wait = td_pcsamp_reason(p, TD_PCSAMP_PREFIX "wait");
    long sel = td_pcsamp_reason(p, TD_PCSAMP_PREFIX "selected");
    int rc = f < 0 || m < 0 || ls < 0 || wait < 0 || sel < 0;
    rc |= td_pcsamp_add(p, 0, 0, pc_math, (size_t)wait, 300, &err);
    rc |= td_pcsamp_add(p, 0, 0, pc_math2, (size_t)wait, 200, &err);
    rc |= td_pcsamp_add(p, 0, 0, pc_load2, (size_t)ls, 100, &err);
    rc |= td_pcsamp_add(p, 0, 0, pc_load, (size_t)ls, 150, &err);
    rc |= td_pcsamp_add(p, 0, 0, pc_store, (size_t)sel, 50, &err);
    p->cubin_dir = cubin_dir ? td_strdup(cubin_dir) : NULL;
    dev->pcsamp = p;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    rc |= td_result_save(path, &res, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    td_result_free(&res);
    return rc;
}

static void save_cubin(const char *folder)
{
    char path[4200], name[40];
    td_pcsamp_cubin_name(crc, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, folder);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s", dir, folder, name);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(cubin, 1, cubin_size, f) == cubin_size);
    if (f)
        fclose(f);
}

static void test_source_command(void)
{
    char line[64], abs_dir[4300], wide[4400];
    snprintf(abs_dir, sizeof abs_dir, "%s/r.json.cubins", dir);
    save_cubin("r.json.cubins");
    CHECK(write_result("r.json", abs_dir) == 0);
    CHECK(td_shell_run(dir, "%s source r.json " KERNEL, bin) == 0);
    /* no tree (a timed launch only): by samples; the math line's PCs folded */
    CHECK(td_shell_file_has(dir, "out.txt", "800 PC samples, sorted by samples"));
    snprintf(line, sizeof line, "62.5%%            td_lines.cu:%u", line_math);
    CHECK(td_shell_file_has(dir, "out.txt", line));
    snprintf(line, sizeof line, "31.2%%            td_lines.cu:%u", line_load);
    CHECK(td_shell_file_has(dir, "out.txt", line));
    /* sorted by L1_Bound: the load's line first */
    CHECK(td_shell_run(dir, "%s source r.json " KERNEL " --node L1_Bound --csv - ", bin) == 0);
    snprintf(wide, sizeof wide, "\n1,%s/tests/cupti/data/td_lines.cu:%u,", src_dir, line_load);
    CHECK(td_shell_file_has(dir, "out.txt", wide));
    CHECK(td_shell_file_has(dir, "out.txt", ",250,100.00,")); /* the load line's L1_Bound */
    /* --sass: one row per PC */
    CHECK(td_shell_run(dir, "%s source r.json " KERNEL " --sass -n 0", bin) == 0);
    snprintf(line, sizeof line, "pc+0x%llx", (unsigned long long)pc_math2);
    CHECK(td_shell_file_has(dir, "out.txt", line));
    /* --sass with nvdisasm on PATH (a stand-in printing its layout): the
     * instruction of each PC, and its line */
    char script[4300];
    snprintf(script, sizeof script, "%s/nvdisasm", dir);
    FILE *f = fopen(script, "w");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "#!/bin/sh\n[ \"$1\" = -c ] || exit 1\n"
                   "printf '\\t.section\\t.text." KERNEL ",\"ax\",@progbits\\n'\n"
                   "printf '        /*%04llx*/   FFMA R5, R5, R4, 1 ;   /* 0x0 */\\n'\n",
                (unsigned long long)pc_math2);
        fclose(f);
        chmod(script, 0755);
    }
    CHECK(td_shell_run(dir, "PATH=%s:$PATH %s source r.json " KERNEL " --sass -n 0", dir, bin) == 0);
    snprintf(wide, sizeof wide, "pc+0x%llx td_lines.cu:%u  FFMA R5, R5, R4, 1 ;",
             (unsigned long long)pc_math2, line_math);
    CHECK(td_shell_file_has(dir, "out.txt", wide));
    /* the result and its cubins moved together: found next to the result */
    CHECK(write_result("moved.json", "/nowhere/r.json.cubins") == 0);
    CHECK(td_shell_run(dir, "%s source moved.json " KERNEL, bin) == 0);
    snprintf(line, sizeof line, "td_lines.cu:%u", line_math);
    CHECK(td_shell_file_has(dir, "out.txt", line));
    /* no cubin: PCs, and where it was looked for */
    CHECK(write_result("nocubin.json", "/nowhere/gone.cubins") == 0);
    CHECK(td_shell_run(dir, "%s source nocubin.json " KERNEL, bin) == 0);
    CHECK(td_shell_file_has(dir, "out.txt", "5 PCs without line information"));
    CHECK(td_shell_file_has(dir, "out.txt", "cubin not found: "));
    CHECK(td_shell_file_has(dir, "out.txt", "gone.cubins/"));
}

int main(void)
{
    const char *path = getenv("TOPDOWN_TEST_CUBIN");
    const char *src = getenv("TOPDOWN_REPO_DIR");
    bin = getenv("TOPDOWN_BIN");
    src_dir = src;
    td_error err;
    if (!path || !src || !bin) {
        printf("skipped: no cubin (built only where nvcc is)\n");
        return 77;
    }
    if (td_cubin_read(path, &cubin, &cubin_size, &err) != 0 || !mkdtemp(dir)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    char cu_file[4200];
    snprintf(cu_file, sizeof cu_file, "%s/tests/cupti/data/td_lines.cu", src);
    test_lines(cu_file);
    test_source_command();
    free(cubin);
    td_shell_remove_dir(dir);
    return td_check_summary();
}
