// A kernel for tests/cupti/test_sass_source.c, compiled to a cubin with
// -lineinfo at build time: the test maps its PCs back to these lines.
// The marked lines are found by their marker, not by number.
extern "C" __global__ void td_lines_kernel(const float *x, float *y, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i]; // TD_LINE_LOAD
    for (int k = 0; k < 64; k++)
        v = v * a + 1.0f; // TD_LINE_MATH
    y[i] = v; // TD_LINE_STORE
}
