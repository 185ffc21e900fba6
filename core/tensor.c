/* tensor.c — allocation, views and conversions of logt_tensor.
 *
 * Cross-device copies that change dtype go through a host staging buffer: the
 * conversion happens on the host and one memcpy moves the result. Copies that
 * stay on the device and change dtype run a conversion kernel.
 */
#include "tensor.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"

size_t logt_dtype_size(logt_dtype dt)
{
    switch (dt) {
    case LOGT_F64: return 8;
    case LOGT_F32: return 4;
    case LOGT_BF16: return 2;
    case LOGT_F16: return 2;
    }
    return 0;
}

const char *logt_dtype_name(logt_dtype dt)
{
    switch (dt) {
    case LOGT_F64: return "f64";
    case LOGT_F32: return "f32";
    case LOGT_BF16: return "bf16";
    case LOGT_F16: return "f16";
    }
    return "?";
}

logt_status logt_dtype_parse(const char *s, logt_dtype *out)
{
    if (!strcmp(s, "f64") || !strcmp(s, "float64")) *out = LOGT_F64;
    else if (!strcmp(s, "f32") || !strcmp(s, "float32")) *out = LOGT_F32;
    else if (!strcmp(s, "bf16") || !strcmp(s, "bfloat16")) *out = LOGT_BF16;
    else if (!strcmp(s, "f16") || !strcmp(s, "float16")) *out = LOGT_F16;
    else return LOGT_FAIL(LOGT_EINVAL, "unknown dtype '%s': expected f64, f32, bf16 or f16", s);
    return LOGT_OK;
}

const char *logt_device_name(logt_device dev) { return dev == LOGT_CPU ? "cpu" : "cuda"; }

/* ---- device memory accounting ---------------------------------------------- */

static _Atomic long long mem_cur, mem_peak;

void logt_mem_track(ptrdiff_t delta)
{
    long long now = atomic_fetch_add(&mem_cur, (long long)delta) + delta;
    long long peak = atomic_load(&mem_peak);
    while (now > peak && !atomic_compare_exchange_weak(&mem_peak, &peak, now)) {}
}
size_t logt_mem_current(void) { return (size_t)atomic_load(&mem_cur); }
size_t logt_mem_peak(void) { return (size_t)atomic_load(&mem_peak); }
void logt_mem_reset_peak(void) { atomic_store(&mem_peak, atomic_load(&mem_cur)); }

/* ---- allocation ------------------------------------------------------------- */

static logt_status raw_alloc(void **p, logt_device dev, size_t bytes)
{
    *p = NULL;
    if (bytes == 0) bytes = 1;
    if (dev == LOGT_CPU) {
        *p = malloc(bytes);
        if (!*p) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory allocating %zu bytes", bytes);
        return LOGT_OK;
    }
#ifdef LOGT_HAVE_CUDA
    return logt_cuda_malloc(p, bytes, "tensor");
#else
    return LOGT_FAIL(LOGT_EUNSUPPORTED,
                     "a CUDA tensor was requested but logt was built without CUDA. "
                     "HINT: install the CUDA toolkit (nvcc) and rebuild, or use --backend cpu");
#endif
}

logt_status logt_tensor_new(logt_tensor *t, logt_device dev, logt_dtype dt, int ndim,
                            const int64_t *shape)
{
    memset(t, 0, sizeof *t);
    if (ndim < 1 || ndim > LOGT_MAXDIM)
        return LOGT_FAIL(LOGT_EINVAL, "tensor rank %d is out of range 1..%d", ndim, LOGT_MAXDIM);
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return LOGT_FAIL(LOGT_EINVAL, "tensor dimension %d is negative (%lld)", i,
                             (long long)shape[i]);
        if (shape[i] > 0 && n > INT64_MAX / 8 / shape[i])
            return LOGT_FAIL(LOGT_EINVAL, "tensor of that shape overflows 64-bit sizes");
        n *= shape[i];
        t->shape[i] = shape[i];
    }
    t->ndim = ndim;
    t->numel = n;
    t->dtype = dt;
    t->device = dev;
    LOGT_TRY(raw_alloc(&t->data, dev, (size_t)n * logt_dtype_size(dt)));
    t->owns = 1;
    return LOGT_OK;
}

logt_status logt_tensor_new1(logt_tensor *t, logt_device dev, logt_dtype dt, int64_t a)
{
    return logt_tensor_new(t, dev, dt, 1, (int64_t[]){a});
}
logt_status logt_tensor_new2(logt_tensor *t, logt_device dev, logt_dtype dt, int64_t a, int64_t b)
{
    return logt_tensor_new(t, dev, dt, 2, (int64_t[]){a, b});
}
logt_status logt_tensor_new3(logt_tensor *t, logt_device dev, logt_dtype dt, int64_t a, int64_t b,
                             int64_t c)
{
    return logt_tensor_new(t, dev, dt, 3, (int64_t[]){a, b, c});
}

logt_status logt_tensor_ensure3(logt_tensor *t, logt_device dev, logt_dtype dt, int64_t a,
                                int64_t b, int64_t c)
{
    if (t->data && t->owns && t->device == dev && t->dtype == dt && t->ndim == 3 &&
        t->shape[0] == a && t->shape[1] == b && t->shape[2] == c)
        return LOGT_OK;
    logt_tensor_free(t);
    return logt_tensor_new3(t, dev, dt, a, b, c);
}

logt_status logt_tensor_reserve(logt_tensor *t, logt_device dev, logt_dtype dt, int64_t n,
                                int *fresh)
{
    if (n < 1) n = 1;
    if (fresh) *fresh = 0;
    if (t->data && t->owns && t->device == dev && t->dtype == dt && t->numel >= n) return LOGT_OK;
    logt_tensor_free(t);
    if (fresh) *fresh = 1;
    return logt_tensor_new1(t, dev, dt, n);
}

void logt_tensor_free(logt_tensor *t)
{
    if (!t) return;
    if (t->owns && t->data) {
        if (t->device == LOGT_CPU) free(t->data);
#ifdef LOGT_HAVE_CUDA
        else logt_cuda_free(t->data, logt_tensor_bytes(t) ? logt_tensor_bytes(t) : 1);
#endif
    }
    memset(t, 0, sizeof *t);
}

size_t logt_tensor_bytes(const logt_tensor *t) { return (size_t)t->numel * logt_dtype_size(t->dtype); }

void *logt_tensor_at(const logt_tensor *t, int64_t offset)
{
    return (char *)t->data + (size_t)offset * logt_dtype_size(t->dtype);
}

logt_tensor logt_tensor_view(const logt_tensor *t, int64_t offset, int ndim, const int64_t *shape)
{
    logt_tensor v = *t;
    v.owns = 0;
    v.data = logt_tensor_at(t, offset);
    v.ndim = ndim;
    v.numel = 1;
    for (int i = 0; i < ndim; i++) {
        v.shape[i] = shape[i];
        v.numel *= shape[i];
    }
    return v;
}

/* ---- conversions ------------------------------------------------------------ */

uint16_t logt_f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);   /* round to nearest, ties to even */
    return (uint16_t)(u >> 16);
}

float logt_bf16_to_f32(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t logt_f32_to_f16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    const uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) return sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u);   /* NaN, inf */
    if (a >= 0x477ff000u) return sign | 0x7c00u;   /* 65520 and up round past 65504 */
    uint32_t h, rem, half;
    if (a >= 0x38800000u) {   /* normal in f16: rebias the exponent, drop 13 mantissa bits */
        h = (a - 0x38000000u) >> 13, rem = a & 0x1fffu, half = 0x1000u;
    } else {                  /* subnormal in f16: units of 2^-24, the implicit 1 made explicit */
        if (a <= 0x33000000u) return sign;   /* at most 2^-25: rounds to zero */
        const uint32_t m = (a & 0x7fffffu) | 0x800000u, shift = 126u - (a >> 23);
        h = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    }
    if (rem > half || (rem == half && (h & 1u))) h++;   /* a carry into the exponent is right */
    return (uint16_t)(sign | h);
}

float logt_f16_to_f32(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    uint32_t u;
    if (e == 0x1fu) u = sign | 0x7f800000u | (m << 13);   /* inf, NaN */
    else if (e) u = sign | ((e + 112u) << 23) | (m << 13);
    else {                                                  /* zero, subnormal: exact in f32 */
        const float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double load_host(const void *p, logt_dtype dt, int64_t i)
{
    switch (dt) {
    case LOGT_F64: return ((const double *)p)[i];
    case LOGT_F32: return ((const float *)p)[i];
    case LOGT_BF16: return logt_bf16_to_f32(((const uint16_t *)p)[i]);
    case LOGT_F16: return logt_f16_to_f32(((const uint16_t *)p)[i]);
    }
    return 0;
}

static void store_host(void *p, logt_dtype dt, int64_t i, double v)
{
    switch (dt) {
    case LOGT_F64: ((double *)p)[i] = v; break;
    case LOGT_F32: ((float *)p)[i] = (float)v; break;
    case LOGT_BF16: ((uint16_t *)p)[i] = logt_f32_to_bf16((float)v); break;
    case LOGT_F16: ((uint16_t *)p)[i] = logt_f32_to_f16((float)v); break;
    }
}

static void convert_host(void *dst, logt_dtype dd, const void *src, logt_dtype sd, int64_t n)
{
    if (dd == sd) {
        memcpy(dst, src, (size_t)n * logt_dtype_size(dd));
        return;
    }
    for (int64_t i = 0; i < n; i++) store_host(dst, dd, i, load_host(src, sd, i));
}

logt_status logt_tensor_onehot(logt_tensor *x, const int32_t *code, int I)
{
    if (I < 1 || x->numel % I)
        return LOGT_FAIL(LOGT_EINVAL, "one-hot rows of size %d do not tile a tensor of %lld elements",
                         I, (long long)x->numel);
    const int64_t n = x->numel / I;
    for (int64_t i = 0; i < n; i++)
        if (code[i] >= I || code[i] < -I)
            return LOGT_FAIL(LOGT_EINVAL, "one-hot code %d at row %lld is outside [-%d, %d) for "
                             "rows of size %d", (int)code[i], (long long)i, I, I, I);
    if (x->device == LOGT_CPU) {
        for (int64_t i = 0; i < n; i++) {
            const int32_t c = code[i], k = c < 0 ? ~c : c;
            for (int j = 0; j < I; j++) store_host(x->data, x->dtype, i * I + j, j == k ? (c < 0 ? -1.0 : 1.0) : 0.0);
        }
        return LOGT_OK;
    }
#ifdef LOGT_HAVE_CUDA
    void *dev = NULL;
    const size_t bytes = (size_t)n * sizeof *code;
    LOGT_TRY(logt_cuda_malloc(&dev, bytes, "one-hot codes"));
    logt_status s = logt_cuda_memcpy(dev, code, bytes, LOGT_H2D);
    if (s == LOGT_OK) s = logt_cuda_onehot(x->data, x->dtype, dev, n, I);
    logt_cuda_free(dev, bytes);
    return s;
#else
    return LOGT_FAIL(LOGT_EINVAL, "a cuda tensor in a build without CUDA");
#endif
}

logt_status logt_tensor_copy(logt_tensor *dst, const logt_tensor *src)
{
    if (dst->numel != src->numel)
        return LOGT_FAIL(LOGT_EINVAL, "copy between tensors of %lld and %lld elements",
                         (long long)dst->numel, (long long)src->numel);
    int64_t n = src->numel;
    if (n == 0) return LOGT_OK;
    if (dst->device == LOGT_CPU && src->device == LOGT_CPU) {
        convert_host(dst->data, dst->dtype, src->data, src->dtype, n);
        return LOGT_OK;
    }
#ifdef LOGT_HAVE_CUDA
    if (dst->device == LOGT_CUDA && src->device == LOGT_CUDA) {
        if (dst->dtype == src->dtype)
            return logt_cuda_memcpy(dst->data, src->data, logt_tensor_bytes(src), LOGT_D2D);
        return logt_cuda_convert(dst->data, dst->dtype, src->data, src->dtype, n);
    }
    if (dst->device == LOGT_CUDA) {   /* host -> device: convert on the host, then copy */
        if (dst->dtype == src->dtype)
            return logt_cuda_memcpy(dst->data, src->data, logt_tensor_bytes(src), LOGT_H2D);
        void *stage = malloc(logt_tensor_bytes(dst));
        if (!stage) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory staging a copy");
        convert_host(stage, dst->dtype, src->data, src->dtype, n);
        logt_status s = logt_cuda_memcpy(dst->data, stage, logt_tensor_bytes(dst), LOGT_H2D);
        free(stage);
        return s;
    }
    /* device -> host */
    if (dst->dtype == src->dtype)
        return logt_cuda_memcpy(dst->data, src->data, logt_tensor_bytes(src), LOGT_D2H);
    void *stage = malloc(logt_tensor_bytes(src));
    if (!stage) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory staging a copy");
    logt_status s = logt_cuda_memcpy(stage, src->data, logt_tensor_bytes(src), LOGT_D2H);
    if (s == LOGT_OK) convert_host(dst->data, dst->dtype, stage, src->dtype, n);
    free(stage);
    return s;
#else
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "copy to or from a CUDA tensor in a build without CUDA");
#endif
}

logt_status logt_tensor_zero(logt_tensor *t)
{
    if (t->numel == 0) return LOGT_OK;
    if (t->device == LOGT_CPU) {
        memset(t->data, 0, logt_tensor_bytes(t));
        return LOGT_OK;
    }
#ifdef LOGT_HAVE_CUDA
    return logt_cuda_memset0(t->data, logt_tensor_bytes(t));
#else
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "a CUDA tensor in a build without CUDA");
#endif
}

logt_status logt_tensor_to_f64(const logt_tensor *t, double *host)
{
    logt_tensor h = *t;
    h.device = LOGT_CPU;
    h.dtype = LOGT_F64;
    h.data = host;
    h.owns = 0;
    return logt_tensor_copy(&h, t);
}

logt_status logt_tensor_from_f64(logt_tensor *t, const double *host)
{
    logt_tensor h = *t;
    h.device = LOGT_CPU;
    h.dtype = LOGT_F64;
    h.data = (void *)host;
    h.owns = 0;
    return logt_tensor_copy(t, &h);
}
