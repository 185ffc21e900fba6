/* rng.c — splitmix64-style hashing of (seed, stream, counter). */
#include "rng.h"

#include <math.h>

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t logt_hash64(uint64_t seed, uint64_t stream, uint64_t i)
{
    return mix(mix(mix(seed) ^ stream) ^ i);
}

void logt_uniform_fill(uint64_t seed, uint64_t stream, double *out, int64_t n, double lo, double hi)
{
    const uint64_t key = mix(mix(seed) ^ stream);   /* logt_hash64's prefix, hoisted */
    for (int64_t i = 0; i < n; i++)
        out[i] = lo + (hi - lo) * ((double)(mix(key ^ (uint64_t)i) >> 11) * 0x1.0p-53);
}

double logt_uniform(uint64_t seed, uint64_t stream, uint64_t i)
{
    return (double)(logt_hash64(seed, stream, i) >> 11) * 0x1.0p-53;
}

double logt_rng_uniform(logt_rng *r) { return logt_uniform(r->seed, r->stream, r->i++); }

uint64_t logt_rng_below(logt_rng *r, uint64_t n)
{
    /* Lemire's multiply-shift; the bias for n << 2^64 is far below anything we measure. */
    return (uint64_t)(((unsigned __int128)logt_hash64(r->seed, r->stream, r->i++) * n) >> 64);
}

double logt_rng_normal(logt_rng *r)
{
    double u1 = logt_rng_uniform(r), u2 = logt_rng_uniform(r);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
}
