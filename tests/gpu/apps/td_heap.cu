// td_heap: kernels that use the device heap, as a ray tracer building its
// scene with `new` in device code does: create_world<<<1,1>>> allocates
// objects that later kernels read. Kernel replay cannot repeat that
// faithfully (the heap is not restored between passes), so topdown must
// not replay it; the output and exit code must be the same under topdown
// as without it. Options: --frames N (default 50).
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            fprintf(stderr, "td_heap: %s: %s\n", #call, cudaGetErrorString(e_));  \
            exit(3);                                                             \
        }                                                                        \
    } while (0)

struct Sphere {
    float x, y, r;
};

__global__ void create_world(Sphere **world, int n)
{
    if (threadIdx.x != 0 || blockIdx.x != 0)
        return;
    Sphere **list = new Sphere *[n];
    for (int i = 0; i < n; i++)
        list[i] = new Sphere{0.1f * i, 0.05f * i, 0.5f + 0.01f * i};
    *world = (Sphere *)list; /* the list, read back as Sphere** below */
}

__global__ void render(Sphere **world, int n, float *image, int width)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    if (px >= width * width)
        return;
    Sphere **list = (Sphere **)*world;
    float u = (px % width) / (float)width, v = (px / width) / (float)width, hit = 0;
    for (int i = 0; i < n; i++) {
        const Sphere *s = list[i];
        float dx = u - s->x, dy = v - s->y;
        hit += dx * dx + dy * dy < s->r * s->r;
    }
    image[px] = hit;
}

__global__ void free_world(Sphere **world, int n)
{
    Sphere **list = (Sphere **)*world;
    for (int i = 0; i < n; i++)
        delete list[i];
    delete[] list;
}

int main(int argc, char **argv)
{
    int frames = 50, n = 16, width = 256;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--frames"))
            frames = atoi(argv[i + 1]);
    Sphere **world;
    float *image;
    CHECK(cudaMalloc(&world, sizeof *world));
    CHECK(cudaMalloc(&image, width * width * sizeof *image));
    create_world<<<1, 1>>>(world, n);
    CHECK(cudaGetLastError());
    for (int f = 0; f < frames; f++)
        render<<<(width * width + 255) / 256, 256>>>(world, n, image, width);
    CHECK(cudaDeviceSynchronize());
    float *host = (float *)malloc(width * width * sizeof *host);
    CHECK(cudaMemcpy(host, image, width * width * sizeof *host, cudaMemcpyDeviceToHost));
    double sum = 0;
    for (int i = 0; i < width * width; i++)
        sum += host[i];
    free_world<<<1, 1>>>(world, n);
    CHECK(cudaDeviceSynchronize());
    printf("td_heap: %d frames, image sum %.0f\n", frames, sum);
    free(host);
    return 0;
}
