/* workbench.cuh — what the workbenches that call the library share (kernels/dev/scan_multi.cu,
 * models/deer/dev/deer_multi.cu): checks that end the program with the call's text and its error
 * (CK: CUDA; OK: logt's message), inputs from a hash of (seed, global index), so that a piece
 * of a sequence on one GPU holds exactly its slice of the whole sequence on another, and the
 * median of the timed repeats, the provenance line. Define WORKBENCH (the program's name) before including. */
#ifndef LOGT_WORKBENCH_CUH
#define LOGT_WORKBENCH_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../core/status.h"

#define DIE(...) (fprintf(stderr, WORKBENCH ": " __VA_ARGS__), fputc('\n', stderr), exit(1))
#define CK(call)                                                                               \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) DIE("%s: %s", #call, cudaGetErrorString(e_));                   \
    } while (0)
#define OK(call)                                                                               \
    do {                                                                                       \
        if ((call) != LOGT_OK) DIE("%s: %s", #call, logt_errmsg());                            \
    } while (0)

/* u(seed, i) in [0, 1): splitmix64 of (seed, i), its top 24 bits */
__device__ __forceinline__ float hash_unit(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 16777216.0f);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0 .. n) (sorts v). */
static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Prints the provenance line (the GPUs, the CUDA runtime, the commit from env LOGT_COMMIT, the
 * date) and returns how many GPUs to drive: every visible one, at most `most`. */
static int workbench_start(int most)
{
    int G = 0, rt = 0;
    CK(cudaGetDeviceCount(&G));
    if (G < 1) DIE("no GPU");
    if (G > most) G = most;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    CK(cudaRuntimeGetVersion(&rt));
    const char *commit = getenv("LOGT_COMMIT");
    const time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    printf("# %s: %d x %s, CUDA runtime %d, commit %s, %s\n", WORKBENCH, G, prop.name, rt,
           commit ? commit : "unknown (set LOGT_COMMIT)", date);
    return G;
}

#endif
