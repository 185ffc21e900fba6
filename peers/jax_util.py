"""jax_util.py — what the JAX peers share: the device, dtypes, timing and peak memory.

JAX would take 75% of the GPU's memory when it starts; logt, which runs the peer, holds its own
buffers meanwhile, so the peers allocate on demand (XLA_PYTHON_CLIENT_PREALLOCATE=false, unless
the caller set it). Timing: time.perf_counter around each call and its block_until_ready.
"""
import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

from common import PeerError, Skip, need  # noqa: E402

jax = need("jax", "jax")
jnp = jax.numpy

JAX_DTYPES = {"f32": jnp.float32, "bf16": jnp.bfloat16, "f16": jnp.float16}


def device(req):
    """The request's JAX device; Skip when it is cuda and JAX has no GPU backend."""
    if req.device == "cpu":
        return jax.devices("cpu")[0]
    try:
        return jax.devices("gpu")[0]
    except RuntimeError as e:
        raise Skip(f"no GPU here for JAX ({str(e).splitlines()[0]}): run on the GPU machine, "
                   "with jax's CUDA plugin (pip install 'jax[cuda13]')")


def peak(dev):
    """The process's peak device memory, where the backend tells it (the peer process does
    only this run, so it is the run's peak, inputs included)."""
    try:
        stats = dev.memory_stats()
    except Exception:
        return None
    return stats.get("peak_bytes_in_use") if stats else None


def version_line(dev):
    import jaxlib
    return f"jax {jax.__version__}, jaxlib {jaxlib.__version__} ({dev.platform}: {dev.device_kind})"


def compiled(fn, *args):
    """fn jitted and compiled ahead of time for args: no compilation inside warmup or repeats."""
    try:
        return jax.jit(fn).lower(*args).compile()
    except Exception as e:
        raise PeerError(f"XLA could not compile the peer's function: {str(e).splitlines()[0]}")


def synced(fn, *args):
    """A step for common.perf_clock: fn(*args), returning when the device is done."""
    return lambda: jax.block_until_ready(fn(*args))
