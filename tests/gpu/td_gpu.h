/* The start every GPU test shares: CTest counts exit 77 as skipped, which
 * is what a test does without an NVIDIA GPU, or without the CUDA programs
 * it runs (built only where nvcc was found at configure time). */
#ifndef TD_GPU_TEST_H
#define TD_GPU_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define TD_GPU_SKIP 77

/* 1 when nvidia-smi lists a GPU; otherwise says the test is skipped. */
static inline int td_gpu_present(void)
{
    if (system("nvidia-smi -L >/dev/null 2>&1") == 0)
        return 1;
    printf("skipped: no NVIDIA GPU (nvidia-smi -L failed)\n");
    return 0;
}

/* buf = BUILD/rel (TOPDOWN_BUILD_DIR, "." when unset); 1 when it is an
 * executable, otherwise says the test is skipped for want of it. */
static inline int td_gpu_program(char *buf, size_t size, const char *rel)
{
    const char *build = getenv("TOPDOWN_BUILD_DIR");
    snprintf(buf, size, "%s/%s", build ? build : ".", rel);
    if (access(buf, X_OK) == 0)
        return 1;
    printf("skipped: %s is not built (needs nvcc at configure time)\n", buf);
    return 0;
}

#endif
