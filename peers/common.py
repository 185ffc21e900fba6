"""common.py — what every peer adapter shares: the request, the response, inputs, timing, and the
files of a check.

A peer is one original implementation that logt runs as a subprocess (`python3 peers/NAME.py`):
one JSON request on stdin, one JSON response on stdout, exit status 0 (the protocol:
peers/README.md). An adapter calls `serve(PEER, run)`: `run(text)` parses the request
(parse_request), returns the response's fields (ok) or raises Skip (a package, module, GPU or path is missing) or PeerError (a configuration the
peer does not support, or an error inside it).

stdout carries the response alone: serve points file descriptor 1 at stderr before the adapter
runs, so that a library's prints, and a compiler's that a JIT build starts, go to stderr.

Shapes: T steps, B batch, I input, D hidden, H heads of dh units, C = B·D scan channels.
"""
import json
import math
import os
import sys
import time
import traceback

try:
    import numpy as np
except ImportError:   # the protocol's skip, before anything else can fail without it
    sys.stdout.write(json.dumps({"ok": False, "skip": True, "message":
                                 "numpy is not installed for %s: pip install numpy" % sys.executable}) + "\n")
    sys.exit(0)

DTYPES = ("f32", "bf16", "f16")
PASSES = ("forward", "fwdbwd")
KERNELS = ("scan", "scan-reverse")
DEVICES = ("cuda", "cpu")
MAX_LAYERS = 16

# peers/site: the packages that install-wheels.sh installed offline; after the machine's own
# packages on sys.path, and its bin (ninja, which the JIT builds of sru, flashrnn and
# accelerated-scan run) first on PATH.
SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "site")
if os.path.isdir(SITE):
    sys.path.append(SITE)
    if os.path.isdir(os.path.join(SITE, "bin")):
        os.environ["PATH"] = os.path.join(SITE, "bin") + os.pathsep + os.environ.get("PATH", "")

# Where peers/README.md says how to install a package on a machine without network.
OFFLINE_HINT = ("on a machine without network: run peers/fetch-wheels.sh where pip works, carry "
                "peers/wheels, then peers/install-wheels.sh there (or pip install --no-index "
                "--find-links peers/wheels NAME; peers/README.md)")


class Skip(Exception):
    """Something to install or set is missing: the runner stores the run as skipped."""


class PeerError(Exception):
    """A configuration the peer does not support, or an error inside it."""


# ---- the request ------------------------------------------------------------------------

class Request:
    """The parsed request: every field of the protocol as an attribute (knobs a dict of str;
    `pass` as pass_), with heads = D / head_dim, input_size and head_dim resolved from 0."""

    def __init__(self, fields):
        self.__dict__.update(fields)

    def knob(self, name, default):
        return self.knobs.get(name, default)


def _int(obj, name, default, lo, hi=None):
    v = obj.get(name, default)
    if v is None or isinstance(v, bool) or not isinstance(v, int):
        raise PeerError(f"'{name}' must be an integer, not {json.dumps(v)}")
    if v < lo or (hi is not None and v > hi):
        bound = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise PeerError(f"'{name}' = {v}: it must be {bound}")
    return v


def _choice(obj, name, default, allowed):
    v = obj.get(name, default)
    if v not in allowed:
        raise PeerError(f"'{name}' = {json.dumps(v)}: it must be one of {', '.join(allowed)}")
    return v


def _knobs(obj, allowed):
    """The knobs as {name: str}; names checked against `allowed` ({name: tuple of values, or
    None for any value}), values too where the tuple is given."""
    raw = obj.get("knobs") or {}
    if not isinstance(raw, dict):
        raise PeerError(f"'knobs' must be an object of name: value, not {json.dumps(raw)}")
    out = {}
    for k, v in raw.items():
        if k not in allowed:
            names = ", ".join(allowed) if allowed else "none"
            raise PeerError(f"unknown knob '{k}': this peer takes {names}")
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            raise PeerError(f"knob {k} = {json.dumps(v)}: a knob's value is a string or a number")
        v = str(v)
        if allowed[k] is not None and v not in allowed[k]:
            raise PeerError(f"knob {k} = '{v}': it must be one of {', '.join(allowed[k])}")
        out[k] = v
    return out


def _check(obj):
    c = obj.get("check")
    if c is None:
        return None
    if not isinstance(c, dict) or not all(isinstance(c.get(k), str) and c.get(k) for k in "xwh"):
        raise PeerError('\'check\' must be null or {"x": PATH, "w": PATH, "h": PATH}')
    for k in "xw":
        if not os.path.isfile(c[k]):
            raise Skip(f"check: the {k} file {c[k]} does not exist")
    hdir = os.path.dirname(os.path.abspath(c["h"]))
    if not os.path.isdir(hdir):
        raise Skip(f"check: the folder {hdir} of the h file does not exist")
    return {k: c[k] for k in "xwh"}


def parse_request(text, peer, kinds, knobs, dtypes=DTYPES, cells=None):
    """Parse and check one request for `peer`. kinds: the kinds it serves; knobs: as _knobs;
    dtypes: those it runs; cells: for kind speed, those it has (the first the default)."""
    try:
        obj = json.loads(text)
    except ValueError as e:
        raise PeerError(f"the request is not JSON: {e}")
    if not isinstance(obj, dict):
        raise PeerError("the request must be one JSON object")
    if obj.get("peer") != peer:
        raise PeerError(f"request for peer {json.dumps(obj.get('peer'))} sent to {peer}")
    kind = _choice(obj, "kind", None, kinds)
    f = {"peer": peer, "kind": kind,
         "T": _int(obj, "T", None, 1), "B": _int(obj, "B", None, 1), "D": _int(obj, "D", None, 1),
         "dtype": _choice(obj, "dtype", "f32", dtypes),
         "warmup": _int(obj, "warmup", 2, 0), "repeats": _int(obj, "repeats", 5, 1),
         "seed": _int(obj, "seed", 1, 0),
         "device": _choice(obj, "device", "cuda", DEVICES),
         "knobs": _knobs(obj, knobs)}
    if kind == "kernel":
        f["kernel"] = _choice(obj, "kernel", None, KERNELS)
        f["check"] = None
    else:
        f["input_size"] = _int(obj, "input_size", 0, 0) or f["D"]
        hd = _int(obj, "head_dim", 0, 0) or f["D"]
        if f["D"] % hd:
            raise PeerError(f"head_dim = {hd} does not divide D = {f['D']}")
        f["head_dim"], f["heads"] = hd, f["D"] // hd
        f["layers"] = _int(obj, "layers", 1, 1, MAX_LAYERS)
        cells = cells or ("",)
        cell = obj.get("cell") or cells[0]
        f["cell"] = _choice({"cell": cell}, "cell", None, cells)
        f["pass_"] = _choice(obj, "pass", "forward", PASSES)   # `pass` is a keyword
        if f["knobs"].get("inference") == "on" and f["pass_"] == "fwdbwd":
            raise PeerError("inference = on is for pass = forward (no backward without a graph)")
        f["check"] = _check(obj)
    return Request(f)


# ---- the response -----------------------------------------------------------------------

def ok(version, impl, times_ms, copy_ms=None, peak_mem_bytes=None):
    """The fields of a successful response (times in ms, every repeat)."""
    for t in list(times_ms) + list(copy_ms or []):
        if not math.isfinite(t):
            raise PeerError(f"a time is not finite ({t}): the timer failed")
    return {"ok": True, "version": version, "impl": impl,
            "times_ms": [float(t) for t in times_ms],
            "copy_ms": None if copy_ms is None else [float(t) for t in copy_ms],
            "peak_mem_bytes": None if peak_mem_bytes is None else int(peak_mem_bytes)}


def serve(peer, run):
    """Read the request, call run(text) -> response dict, write the response; exit 0 unless the
    response itself cannot be written."""
    out = os.fdopen(os.dup(1), "w")
    sys.stdout.flush()
    os.dup2(2, 1)           # whatever else prints, prints to stderr
    sys.stdout = sys.stderr
    try:
        resp = run(sys.stdin.read())
    except Skip as e:
        resp = {"ok": False, "skip": True, "message": f"{peer}: {e}"}
    except PeerError as e:
        resp = {"ok": False, "skip": False, "message": f"{peer}: {e}"}
    except Exception as e:   # an error inside the peer: a message, and the trace on stderr
        traceback.print_exc(file=sys.stderr)
        last = (str(e).strip().splitlines() or [""])[-1]
        resp = {"ok": False, "skip": False,
                "message": f"{peer}: {type(e).__name__}: {last} (trace on stderr)"}
    out.write(json.dumps(resp) + "\n")
    out.flush()


def need(module, pip_name):
    """Import `module`, or Skip with what to install. The peers' folder is left out of the
    search, so that peers/flashrnn.py and peers/sru.py do not shadow the packages they run."""
    import importlib
    here = os.path.dirname(os.path.abspath(__file__))
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise Skip(f"Python module {module} not found ({e}): pip install {pip_name} "
                   f"(no package here); {OFFLINE_HINT.replace('NAME', pip_name)}")
    finally:
        sys.path[:] = saved


def installed_source(name, pin):
    """The folder of the installed package `name` (not a file of this directory that shares its
    name), its version and the cache folder for a patched copy of it (LOGT_PEERS_CACHE, default
    ~/.cache/logt-peers); raises Skip saying to install `pin` where it is missing."""
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        spec = importlib.util.find_spec(name)
    except ImportError:
        spec = None
    finally:
        sys.path[:] = saved
    if spec is None or not spec.submodule_search_locations:
        need(name, pin)   # raises the Skip with what to install
    version = package_version(name)
    cache = os.environ.get("LOGT_PEERS_CACHE") or os.path.expanduser("~/.cache/logt-peers")
    return list(spec.submodule_search_locations)[0], version, os.path.join(cache, f"{name}-{version}-patched")


def package_version(dist):
    from importlib import metadata
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"


# ---- inputs -----------------------------------------------------------------------------

def uniform(seed, stream, shape, lo=-1.0, hi=1.0):
    """float64 uniform in [lo, hi) from (seed, stream): the distribution of logt's inputs
    (x, dh in [-1, 1], a scan's a in [0.5, 1)), not its values."""
    return np.random.default_rng([seed, stream]).uniform(lo, hi, size=shape)


STREAM_X, STREAM_DH, STREAM_W, STREAM_A, STREAM_B = 0x78, 0x6468, 0x77, 0x61, 0x62


def read_f64(path, numel, what):
    a = np.fromfile(path, dtype="<f8")
    if a.size != numel:
        raise PeerError(f"check: {what} ({path}) holds {a.size} float64 values, expected {numel}")
    return a


def check_inputs(req, numel_w):
    """x [T][B][I] and the flat parameter vector w (numel_w values) of a check request."""
    x = read_f64(req.check["x"], req.T * req.B * req.input_size, "x [T][B][I]")
    w = read_f64(req.check["w"], numel_w, "w (logt's flat parameters)")
    return x.reshape(req.T, req.B, req.input_size), w


def write_h(req, h):
    h = np.ascontiguousarray(h, dtype="<f8")
    if h.shape != (req.T, req.B, req.D):
        raise PeerError(f"check: h has shape {h.shape}, expected {(req.T, req.B, req.D)}")
    h.tofile(req.check["h"])


class Slicer:
    """Takes consecutive slices of a flat vector: logt's layout, in order."""

    def __init__(self, w):
        self.w, self.at = w, 0

    def take(self, *shape):
        n = int(np.prod(shape))
        s = self.w[self.at:self.at + n].reshape(shape)
        self.at += n
        return s


# ---- timing -----------------------------------------------------------------------------

def time_repeats(req, step, clock, copy=None):
    """warmup untimed then repeats timed calls of step(); after each, copy() when given (a
    device-to-device copy timed the same way). Returns (times_ms, copy_ms or None)."""
    times, copies = [], ([] if copy else None)
    for i in range(req.warmup + req.repeats):
        timed = i >= req.warmup
        t = clock(step)
        if timed:
            times.append(t)
        if copy:
            t = clock(copy)
            if timed:
                copies.append(t)
    return times, copies


def perf_clock(fn):
    """ms of fn(), which returns when its work is done (cpu, or JAX after block_until_ready)."""
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


# ---- scans (kind kernel) ------------------------------------------------------------------

def scan_inputs(req):
    """a [T][C] uniform in [0.5, 1) and b [T][C] in [-1, 1), float64: logt's kernel inputs'
    distribution (C = B·D, channel fastest)."""
    C = req.B * req.D
    return (uniform(req.seed, STREAM_A, (req.T, C), 0.5, 1.0),
            uniform(req.seed, STREAM_B, (req.T, C), -1.0, 1.0))


def scan_columns(C, n=64):
    """The channels whose result is checked against a float64 loop: n spread over C."""
    return np.unique(np.linspace(0, C - 1, min(C, n)).round().astype(np.int64))


# |h - ref| <= TOL * (1 + max |ref| of the channel): loose enough for the dtype's rounding over
# long scans (bf16 arithmetic in accelerated-scan's warp kernel), tight enough that a wrong
# layout or direction (errors of the order of |ref|) fails.
SCAN_TOL = {"f32": 1e-3, "f16": 5e-2, "bf16": 0.25}


def verify_scan(req, a, b, h):
    """a, b: float64 [T][k] of the checked channels as the peer held them (rounded to its
    dtype); h its result there. PeerError when h is not the scan of (a, b)."""
    ref = np.zeros_like(b)
    s = np.zeros(b.shape[1])
    steps = range(req.T - 1, -1, -1) if req.kernel == "scan-reverse" else range(req.T)
    for t in steps:
        s = a[t] * s + b[t]
        ref[t] = s
    scale = 1.0 + np.abs(ref).max(axis=0)
    err = (np.abs(h - ref) / scale).max()
    if not err <= SCAN_TOL[req.dtype]:
        raise PeerError(f"{req.kernel} result differs from a float64 loop: max |h - ref| / "
                        f"(1 + max |ref|) = {err:.3g} > {SCAN_TOL[req.dtype]} ({req.dtype})")
