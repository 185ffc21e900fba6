"""deer-jax.py — peer deer-jax: the DEER authors' JAX code (Lim et al., ICLR 2024;
github.com/machine-discovery/deer, no PyPI package), found through $LOGT_DEER_PATH (a checkout).

Their solver: deer.fseq1d.seq1d(func, y0, xinp, params, method=DEER(...)), Newton over the
whole sequence with the dense Jacobian of func (jax.jacfwd) and a matrix associative scan:
what logt's deer calls mode = full. Their code has no quasi (diagonal) mode. As in their speed
benchmark (experiments/01_speed_benchmark/seq1d.py), the batch is jax.vmap of seq1d over B and
the cell computes its input projection inside func. The package's __init__ imports optimistix
for the ODE solvers; the adapter loads deer.fseq1d (and deer_iter, maths, utils) without it.

Cells in logt's layout (models/deer/deer.h, flashrnn's one-head layout), func(h, x, params):
  gru   W [3D][I], R [1][D][3D] (h·R), b [3D], bn [D]:
        r = σ(W_r x + b_r + (hR)_r), z = σ(W_z x + b_z + (hR)_z),
        n = tanh(W_n x + b_n + r ⊙ ((hR)_n + bn)),  h' = (1 − z) n + z h
  tanh  W [D][I], R [1][D][D], b [D]:  h' = tanh(W x + b + hR)
knobs: method = deer (default) | sequential (their Sequential: jax.lax.scan); mode = full
(the only one); max_iter (default theirs, 10000), atol, rtol (default theirs: 1e-4, 1e-3 in
float32). Speed: forward only, f32, one layer; a solve that did not converge is an error.
check: float64 (jax_enable_x64), atol = rtol = 1e-12 unless the knobs say otherwise.
"""
import importlib
import os
import subprocess
import sys
import types

import common  # first: it answers with a skip where numpy is missing
import numpy as np
from common import PeerError, Skip, Slicer, ok, perf_clock, time_repeats, uniform

KNOBS = {"method": ("deer", "sequential"), "mode": ("full", "quasi"), "max_iter": None,
         "atol": None, "rtol": None}
GATES = {"gru": 3, "tanh": 1}
CLONE = ("git clone https://github.com/machine-discovery/deer and set LOGT_DEER_PATH to the "
         "checkout (the folder that holds deer/fseq1d.py)")


def number(req, name, kind, default):
    v = req.knob(name, None)
    if v is None:
        return default
    try:
        x = kind(v)
    except ValueError:
        x = None
    if x is None or not x > 0:
        raise PeerError(f"knob {name} = '{v}': it must be a positive {kind.__name__}")
    return x


def validate(req):
    if req.knob("mode", "full") == "quasi":
        raise PeerError("the authors' DEER code has full DEER only (dense Jacobians, "
                        "deer.fseq1d.seq1d); no quasi mode: use mode = full")
    if req.pass_ != "forward" and not req.check:
        raise PeerError("deer-jax times the forward only: use pass = forward")
    if req.heads != 1 or req.layers != 1:
        raise PeerError("deer-jax runs one layer of one head: head_dim 0 and layers 1")


def import_fseq1d():
    root = os.environ.get("LOGT_DEER_PATH")
    if not root:
        raise Skip(f"LOGT_DEER_PATH is not set: {CLONE}")
    pkgdir = os.path.join(root, "deer")
    if not os.path.isfile(os.path.join(pkgdir, "fseq1d.py")):
        raise Skip(f"LOGT_DEER_PATH = {root} holds no deer/fseq1d.py: {CLONE}")
    pkg = types.ModuleType("deer")   # the package without its __init__ (optimistix)
    pkg.__path__ = [pkgdir]
    sys.modules["deer"] = pkg
    try:
        fseq1d = importlib.import_module("deer.fseq1d")
    except ImportError as e:
        raise Skip(f"importing deer.fseq1d from {root} failed ({e}): see its setup.py")
    rev = ""
    if os.path.exists(os.path.join(root, ".git")):   # its own checkout, not a folder in another
        try:
            rev = subprocess.run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"], text=True,
                                 capture_output=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return fseq1d, f"deer checkout {root} at {rev or 'an unknown commit'}"


def cell_fn(jnp, jax, cell, D):
    sig = jax.nn.sigmoid

    def gru(h, x, p):   # h [D], x [I]
        W, R, b, bn = p
        xa, ra = W @ x + b, h @ R
        r, z = sig(xa[:D] + ra[:D]), sig(xa[D:2 * D] + ra[D:2 * D])
        n = jnp.tanh(xa[2 * D:] + r * (ra[2 * D:] + bn))
        return (1 - z) * n + z * h

    def tanh(h, x, p):
        W, R, b = p
        return jnp.tanh(W @ x + b + h @ R)

    return gru if cell == "gru" else tanh


def numel(req):
    G, D = GATES[req.cell], req.D
    return G * D * req.input_size + D * G * D + G * D + (D if req.cell == "gru" else 0)


def logt_params(req, w):
    """[W, R, b(, bn)] as float64 numpy from logt's flat vector w, or from logt's
    initialisation (uniform in ±1/sqrt(D)) when w is None."""
    G, D = GATES[req.cell], req.D
    if w is None:
        k = 1 / np.sqrt(D)
        w = uniform(req.seed, common.STREAM_W, numel(req), -k, k)
    s = Slicer(w)
    p = [s.take(G * D, req.input_size), s.take(1, D, G * D)[0], s.take(G * D)]
    if req.cell == "gru":
        p.append(s.take(D))
    return p


def run(text):
    req = common.parse_request(text, "deer-jax", ("speed",), KNOBS, dtypes=("f32",),
                               cells=("gru", "tanh"))
    validate(req)
    import jax_util as ju
    jax, jnp = ju.jax, ju.jnp
    if req.check:
        jax.config.update("jax_enable_x64", True)
    fseq1d, where = import_fseq1d()
    dev = ju.device(req)
    T, B, D = req.T, req.B, req.D
    tol = 1e-12 if req.check else None
    if req.knob("method", "deer") == "deer":
        method = fseq1d.DEER(max_iter=number(req, "max_iter", int, 10000),
                             atol=number(req, "atol", float, tol),
                             rtol=number(req, "rtol", float, tol))
        what = (f"deer.fseq1d.seq1d with DEER(max_iter={method.max_iter}, atol={method.atol}, "
                f"rtol={method.rtol}) (full Jacobians; None: their float32/64 defaults)")
    else:
        method, what = fseq1d.Sequential(), "deer.fseq1d.seq1d with Sequential() (jax.lax.scan)"
    func = cell_fn(jnp, jax, req.cell, D)

    def solve(x, params):   # x [T][B][I] -> h [T][B][D], converged [T][B][D]
        def one(x1):
            res = fseq1d.seq1d(func, jnp.zeros(D, x.dtype), x1, params, method=method)
            return res.value, res.success
        return jax.vmap(one, in_axes=1, out_axes=1)(x)

    dt = jnp.float64 if req.check else jnp.float32
    if req.check:
        x64, w = common.check_inputs(req, numel(req))
        params = logt_params(req, w)
    else:
        x64 = uniform(req.seed, common.STREAM_X, (T, B, req.input_size))
        params = logt_params(req, None)
    x = jax.device_put(jnp.asarray(x64, dt), dev)
    params = [jax.device_put(jnp.asarray(p, dt), dev) for p in params]
    fn = ju.compiled(solve, x, params)
    impl = f"{what}, jax.vmap over B, {req.cell} cell with W x inside func, {str(dt.dtype)}, jit"
    if req.check:
        h, conv = fn(x, params)
        if not bool(jnp.all(conv)):
            raise PeerError("check: DEER did not converge (raise max_iter, or loosen atol/rtol)")
        common.write_h(req, np.asarray(h, np.float64))
        return ok(f"{where}, {ju.version_line(dev)}", impl + " (check)", [])
    times, _ = time_repeats(req, ju.synced(fn, x, params), perf_clock)
    _, conv = fn(x, params)
    if not bool(jnp.all(conv)):
        raise PeerError(f"DEER did not converge in max_iter = {method.max_iter} (knobs max_iter, "
                        "atol, rtol)")
    return ok(f"{where}, {ju.version_line(dev)}", impl, times, None, ju.peak(dev))


if __name__ == "__main__":
    common.serve("deer-jax", run)
