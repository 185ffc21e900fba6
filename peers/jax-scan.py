"""jax-scan.py — peer jax-scan: the linear recurrence h_t = a_t h_{t-1} + b_t (kind kernel) by
JAX, on logt's layout [T][C] (C = B·D, channel fastest; scan over axis 0), h_{-1} = 0.

knobs: route = associative (default: jax.lax.associative_scan with the combine
(a1, b1) ∘ (a2, b2) = (a1 a2, a2 b1 + b2), reverse = True for scan-reverse) | sequential
(jax.lax.scan over T with the carry h [C], reverse = True for scan-reverse).
The function is jitted and compiled before the warmup; each call and, after it, a jitted
copy of one [T][C] array (copy_ms) are timed with perf_counter around block_until_ready.
The result is checked against a float64 loop on 64 channels before the response.
"""
import common  # first: it answers with a skip where numpy is missing
import numpy as np
from common import ok, perf_clock, time_repeats

KNOBS = {"route": ("associative", "sequential")}


def scan_fn(jax, impl, reverse):
    lax, jnp = jax.lax, jax.numpy

    def combine(x, y):
        return x[0] * y[0], y[0] * x[1] + y[1]

    def associative(a, b):
        return lax.associative_scan(combine, (a, b), reverse=reverse, axis=0)[1]

    def sequential(a, b):
        def step(h, ab):
            h = ab[0] * h + ab[1]
            return h, h
        return lax.scan(step, jnp.zeros(a.shape[1], a.dtype), (a, b), reverse=reverse)[1]

    return associative if impl == "associative" else sequential


def run(text):
    req = common.parse_request(text, "jax-scan", ("kernel",), KNOBS)
    import jax_util as ju
    jax, jnp = ju.jax, ju.jnp
    dev = ju.device(req)
    impl = req.knob("route", "associative")
    reverse = req.kernel == "scan-reverse"
    a64, b64 = common.scan_inputs(req)
    dt = ju.JAX_DTYPES[req.dtype]
    a = jax.device_put(jnp.asarray(a64, dtype=dt), dev)
    b = jax.device_put(jnp.asarray(b64, dtype=dt), dev)
    scan = ju.compiled(scan_fn(jax, impl, reverse), a, b)
    copy = ju.compiled(lambda x: jnp.copy(x), a)
    times, copies = time_repeats(req, ju.synced(scan, a, b), perf_clock, ju.synced(copy, a))

    cols = common.scan_columns(a.shape[1])
    h = np.asarray(scan(a, b)[:, cols], dtype=np.float64)
    a_c, b_c = (np.asarray(v[:, cols], np.float64) for v in (a, b))
    common.verify_scan(req, a_c, b_c, h)
    what = (f"jax.lax.associative_scan{' reverse=True' if reverse else ''}" if impl == "associative"
            else f"jax.lax.scan over T{' reverse=True' if reverse else ''}, carry [C]")
    return ok(ju.version_line(dev), f"{what} on [T][C] {req.dtype}, jit; copy: jnp.copy, jit",
              times, copies, ju.peak(dev))


if __name__ == "__main__":
    common.serve("jax-scan", run)
