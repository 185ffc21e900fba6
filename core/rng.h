/* rng.h — reproducible random numbers on the host.
 *
 * Counter-based: the i-th number of stream `stream` under `seed` is a hash of the
 * three, so parameters come out the same whatever order or device asks for them.
 * Parameters are generated once here and copied to the device: one seed gives the
 * same initial weights on CPU and CUDA.
 */
#ifndef LOGT_RNG_H
#define LOGT_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint64_t logt_hash64(uint64_t seed, uint64_t stream, uint64_t i);
/* Uniform in [0, 1) with 53 random bits. */
double logt_uniform(uint64_t seed, uint64_t stream, uint64_t i);

/* out[i] = lo + (hi - lo) * logt_uniform(seed, stream, i) for i < n, with (seed, stream)
 * mixed once: one mix per element instead of logt_hash64's three. */
void logt_uniform_fill(uint64_t seed, uint64_t stream, double *out, int64_t n, double lo, double hi);

/* A sequential generator for datasets: state advanced by each draw. */
typedef struct logt_rng { uint64_t seed, stream, i; } logt_rng;
static inline logt_rng logt_rng_make(uint64_t seed, uint64_t stream) { return (logt_rng){seed, stream, 0}; }
double logt_rng_uniform(logt_rng *r);            /* [0, 1)  */
uint64_t logt_rng_below(logt_rng *r, uint64_t n); /* [0, n)  */
double logt_rng_normal(logt_rng *r);             /* N(0, 1) */

#ifdef __cplusplus
}
#endif
#endif
