"""test_peers.py — tests of the peer adapters, on the cpu: `python3 peers/test_peers.py [NAME...]`
(plain Python; NAME filters the tests by substring). Each adapter runs as logt runs it, a
subprocess with the request on stdin; a test passes when its response is the one expected.

Covered: a bad request to every adapter; a skip when its package (or GPU, or checkout) is
missing; the torch and JAX peers timed on the cpu; the scans checked against a float64 loop
inside the adapters; `check` of torch-lstm, torch-gru, flashrnn (their vanilla backend, every
cell), sru (their cpu loop) and deer-jax against float64 NumPy references written here from
logt's headers (models/lstm/lstm.h, models/flashrnn/flashrnn.h, models/sru/sru.h, models/deer/deer.h);
where nvcc is, flashrnn's gpu_info2 JIT build from the adapter's patched copy (no GPU needed).
A test whose module is absent from this Python is reported as skipped, not passed.
Env: LOGT_DEER_PATH (a checkout of machine-discovery/deer) for the deer-jax runs.
Last line: 'N passed, N failed, N skipped'; exit status 1 when any failed.
"""
import json
import os
import subprocess
import sys
import tempfile
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402

TESTS = []


class SkipTest(Exception):
    pass


def test(fn):
    TESTS.append(fn)
    return fn


def has(module):
    import importlib.util
    return importlib.util.find_spec(module) is not None


def need(*modules):
    for m in modules:
        if not has(m):
            raise SkipTest(f"no module {m} in this Python")


def gpu():
    if not has("torch"):
        return False
    import torch
    return torch.cuda.is_available()


# A prelude that hides modules from the adapter, as if they were not installed.
BLOCK = """
import sys, runpy
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {names!r}:
            raise ImportError('blocked by the test: ' + name)
sys.meta_path.insert(0, Block())
sys.argv = [{path!r}]
sys.path.insert(0, {here!r})
runpy.run_path({path!r}, run_name='__main__')
"""


def call(peer, req, env=None, block=(), timeout=600):
    """Run peers/PEER.py on req (a dict, or a str sent as is); returns the response dict. The
    protocol: exit status 0 and exactly one JSON object on stdout."""
    path = os.path.join(HERE, f"{peer}.py")
    cmd = [sys.executable, path]
    if block:
        cmd = [sys.executable, "-c", BLOCK.format(names=set(block), path=path, here=HERE)]
    e = dict(os.environ)
    e.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")   # a JIT build without a GPU needs an arch
    e.update(env or {})
    text = req if isinstance(req, str) else json.dumps(req)
    p = subprocess.run(cmd, input=text, capture_output=True, text=True, env=e, timeout=timeout)
    if p.returncode != 0:
        raise AssertionError(f"{peer}: exit status {p.returncode}; stderr: {p.stderr[-2000:]}")
    lines = p.stdout.splitlines()
    if len(lines) != 1:
        raise AssertionError(f"{peer}: stdout must be one JSON line, got {p.stdout[-2000:]!r}")
    resp = json.loads(lines[0])
    resp["_stderr"] = p.stderr
    return resp


def expect_ok(resp, repeats=None, copy=False):
    assert resp.get("ok") is True, f"not ok: {resp.get('message')}\n{resp.get('_stderr', '')[-3000:]}"
    for k in ("version", "impl"):
        assert isinstance(resp[k], str) and resp[k] and resp[k].isascii(), (k, resp[k])
    t = resp["times_ms"]
    assert isinstance(t, list) and all(isinstance(x, float) and x > 0 for x in t), t
    if repeats is not None:
        assert len(t) == repeats, (len(t), repeats)
    if copy:
        assert len(resp["copy_ms"]) == len(t) and all(x > 0 for x in resp["copy_ms"])
    else:
        assert resp["copy_ms"] is None
    assert resp["peak_mem_bytes"] is None or resp["peak_mem_bytes"] > 0
    return resp


def expect_fail(resp, skip, *words):
    assert resp.get("ok") is False and resp.get("skip") is skip, resp
    for w in words:
        assert w in resp["message"], f"'{w}' not in: {resp['message']}"
    return resp


def speed(peer, **kw):
    r = {"peer": peer, "kind": "speed", "T": 16, "B": 3, "D": 8, "input_size": 0, "head_dim": 0,
         "layers": 1, "dtype": "f32", "cell": "", "pass": "forward", "warmup": 1, "repeats": 2,
         "seed": 1, "knobs": {}, "check": None}
    r.update(kw)
    return r


def kernel(peer, **kw):
    r = {"peer": peer, "kind": "kernel", "kernel": "scan", "T": 64, "B": 2, "D": 5, "dtype": "f32",
         "warmup": 1, "repeats": 2, "seed": 1, "knobs": {}}
    r.update(kw)
    return r


# ---- float64 references from logt's headers -----------------------------------------------

def sig(v):
    return 1 / (1 + np.exp(-v))


def lstm_ref(x, w, D, L):
    """models/lstm/lstm.h: per layer W [4D][I], R [4D][D], b [4D], gates i f g o."""
    s = common.Slicer(w)
    for _ in range(L):
        T, B, I = x.shape
        W, R, b = s.take(4 * D, I), s.take(4 * D, D), s.take(4 * D)
        h, c, out = np.zeros((B, D)), np.zeros((B, D)), np.zeros((T, B, D))
        for t in range(T):
            a = x[t] @ W.T + h @ R.T + b
            i, f, g, o = sig(a[:, :D]), sig(a[:, D:2 * D]), np.tanh(a[:, 2 * D:3 * D]), sig(a[:, 3 * D:])
            c = f * c + i * g
            h = o * np.tanh(c)
            out[t] = h
        x = out
    return x


def flashrnn_ref(cell, x, w, D, H, L):
    """models/flashrnn/flashrnn.h: W [G·D][I], R [H][dh][G·dh], b [G·D], bn [D] (gru); the
    slstm stabilised as there, from the zero state (m = i at the first step, where n = 0)."""
    G, dh, s = {"lstm": 4, "gru": 3, "slstm": 4, "elman": 1}[cell], D // H, common.Slicer(w)
    for _ in range(L):
        T, B, I = x.shape
        W, R, b = s.take(G * D, I), s.take(H, dh, G * dh), s.take(G * D)
        bn = s.take(D) if cell == "gru" else None
        h, c, out = np.zeros((B, D)), np.zeros((B, D)), np.zeros((T, B, D))
        n, m = np.zeros((B, D)), np.zeros((B, D))
        for t in range(T):
            xa = (x[t] @ W.T + b).reshape(B, G, H, dh)
            ra = np.einsum("bkm,kmn->bkn", h.reshape(B, H, dh), R).reshape(B, H, G, dh)
            ra = ra.transpose(0, 2, 1, 3)   # [B][G][H][dh], like xa
            if cell == "lstm":
                a = (xa + ra).reshape(B, G, D)
                i, f, g, o = sig(a[:, 0]), sig(a[:, 1]), np.tanh(a[:, 2]), sig(a[:, 3])
                c = f * c + i * g
                h = o * np.tanh(c)
            elif cell == "slstm":
                a = (xa + ra).reshape(B, G, D)
                lf = -np.logaddexp(0, -a[:, 1]) + m   # log σ(f) + m
                m = np.where(n == 0, a[:, 0], np.maximum(a[:, 0], lf))
                i, f = np.exp(a[:, 0] - m), np.exp(lf - m)
                c = f * c + i * np.tanh(a[:, 2])
                n = f * n + i
                h = sig(a[:, 3]) * c / n
            elif cell == "elman":
                h = np.tanh((xa + ra).reshape(B, D))
            else:
                xa, ra = xa.reshape(B, G, D), ra.reshape(B, G, D)
                r, z = sig(xa[:, 0] + ra[:, 0]), sig(xa[:, 1] + ra[:, 1])
                n = np.tanh(xa[:, 2] + r * (ra[:, 2] + bn))
                h = (1 - z) * n + z * h
            out[t] = h
        x = out
    return x


def tanh_ref(x, w, D):
    """models/deer/deer.h, cell tanh: W [D][I], R [1][D][D], b [D]; h = tanh(W x + b + h·R)."""
    T, B, I = x.shape
    s = common.Slicer(w)
    W, R, b = s.take(D, I), s.take(D, D), s.take(D)
    h, out = np.zeros((B, D)), np.zeros((T, B, D))
    for t in range(T):
        h = np.tanh(x[t] @ W.T + b + h @ R)
        out[t] = h
    return out


def sru_ref(x, w, D, L, v_on, alpha):
    """models/sru/sru.h: W [3D][I] (z f r), Wp [D][I] if I != D, v [2D] if v = on, b [2D]."""
    s = common.Slicer(w)
    for _ in range(L):
        T, B, I = x.shape
        W = s.take(3 * D, I)
        Wp = s.take(D, I) if I != D else None
        v = s.take(2 * D) if v_on else np.zeros(2 * D)
        b = s.take(2 * D)
        c, out = np.zeros((B, D)), np.zeros((T, B, D))
        for t in range(T):
            u = x[t] @ W.T
            z, fx, rx = u[:, :D], u[:, D:2 * D], u[:, 2 * D:]
            xp = x[t] if Wp is None else x[t] @ Wp.T
            f = sig(fx + v[:D] * c + b[:D])
            r = sig(rx + v[D:] * c + b[D:])
            c = f * c + (1 - f) * z
            out[t] = r * c + (1 - r) * alpha * xp
        x = out
    return x


def run_check(peer, req, numel, ref, tol=1e-10, env=None):
    """Send a check request with random x and w (logt's layout), compare h with ref(x, w)."""
    rng = np.random.default_rng(7)
    T, B, I, D = req["T"], req["B"], req["input_size"] or req["D"], req["D"]
    x = rng.uniform(-1, 1, (T, B, I))
    w = rng.uniform(-0.6, 0.6, numel)
    with tempfile.TemporaryDirectory() as d:
        paths = {k: os.path.join(d, k) for k in "xwh"}
        x.tofile(paths["x"])
        w.tofile(paths["w"])
        resp = expect_ok(call(peer, dict(req, check=paths), env=env))
        h = np.fromfile(paths["h"], dtype="<f8").reshape(T, B, D)
    want = ref(x, w)
    err = np.abs(h - want).max()
    assert err <= tol, f"{peer} check: max |h - ref| = {err:.3g} > {tol}"
    print(f"  {peer} check {req.get('cell') or ''} {req.get('knobs') or ''}: max |h - ref| = "
          f"{err:.3g} (max |ref| {np.abs(want).max():.3g})")
    return resp, err


# ---- the tests ----------------------------------------------------------------------------

PEERS = ["torch-lstm", "torch-gru", "flashrnn", "sru", "accelerated-scan", "jax-scan", "deer-jax"]
KIND = {"accelerated-scan": kernel, "jax-scan": kernel}


@test
def bad_requests():
    """Every adapter answers a bad request with ok false, skip false, exit 0."""
    for peer in PEERS:
        mk = KIND.get(peer, speed)
        expect_fail(call(peer, "not json"), False, "not JSON")
        expect_fail(call(peer, "[1, 2]"), False, "one JSON object")
        expect_fail(call(peer, mk("some-other-peer")), False, "sent to " + peer)
        expect_fail(call(peer, dict(mk(peer), T=0)), False, "'T' = 0")
        expect_fail(call(peer, dict(mk(peer), B="16")), False, "'B' must be an integer")
        expect_fail(call(peer, dict(mk(peer), dtype="f8")), False, "'dtype'")
        expect_fail(call(peer, dict(mk(peer), knobs={"no_such_knob": "1"})), False, "unknown knob")
        other = "speed" if mk is kernel else "kernel"
        expect_fail(call(peer, dict(mk(peer), kind=other)), False, "'kind'")
        if mk is kernel:
            expect_fail(call(peer, dict(mk(peer), kernel="scan-serial")), False, "'kernel'")
        else:
            expect_fail(call(peer, dict(mk(peer), cell="mlstm")), False, "'cell'")
            expect_fail(call(peer, dict(mk(peer), head_dim=3)), False, "does not divide")
            expect_fail(call(peer, dict(mk(peer), check={"x": "/nonexistent/x", "w": "/w", "h": "/h"})),
                        True, "does not exist")
    expect_fail(call("flashrnn", speed("flashrnn", cell="gru", knobs={"route": "cuda_fused"})),
                False, "use route = cuda")
    for cell in ("gru", "elman"):
        expect_fail(call("flashrnn", speed("flashrnn", cell=cell, knobs={"route": "triton"})),
                    False, "lstm and slstm only")
    expect_fail(call("flashrnn", speed("flashrnn", knobs={"route": "cuda"}, device="cpu")),
                False, "CUDA only")
    expect_fail(call("accelerated-scan", kernel("accelerated-scan", T=100)), False, "power of 2")
    expect_fail(call("deer-jax", speed("deer-jax", knobs={"mode": "quasi"})), False, "full DEER only")
    expect_fail(call("deer-jax", speed("deer-jax", **{"pass": "fwdbwd"})), False, "forward only")
    expect_fail(call("sru", speed("sru", knobs={"highway_scale": "-2"})), False, "not a scale")
    expect_fail(call("torch-lstm", speed("torch-lstm", D=8, head_dim=4)), False, "one head")
    expect_fail(call("torch-lstm", speed("torch-lstm", knobs={"inference": "on"}, **{"pass": "fwdbwd"})),
                False, "inference = on is for pass = forward")


@test
def skip_when_package_missing():
    """With its package hidden, every adapter answers skip true and says what to install."""
    for peer, mod, word in [("torch-lstm", "torch", "pip install torch"),
                            ("torch-gru", "torch", "pip install torch"),
                            ("flashrnn", "flashrnn", "pip install flashrnn=="),
                            ("sru", "sru", "pip install sru=="),
                            ("accelerated-scan", "accelerated_scan", "pip install accelerated-scan=="),
                            ("jax-scan", "jax", "pip install jax")]:
        mk = KIND.get(peer, speed)
        req = dict(mk(peer), device="cpu")
        if peer == "flashrnn":
            req["knobs"] = {"route": "vanilla"}
        if peer == "accelerated-scan":
            req["knobs"] = {"route": "ref"}
        resp = expect_fail(call(peer, req, block=[mod]), True, word, "peers/wheels")
    expect_fail(call("deer-jax", speed("deer-jax", cell="gru", device="cpu"),
                     env={"LOGT_DEER_PATH": ""}), True, "git clone", "LOGT_DEER_PATH")
    expect_fail(call("deer-jax", speed("deer-jax", cell="gru", device="cpu"),
                     env={"LOGT_DEER_PATH": "/nonexistent"}), True, "holds no deer/fseq1d.py")


@test
def skip_without_gpu():
    """device cuda (the default) on a machine without a GPU: skip true, 'no GPU here'."""
    need("torch", "jax")
    if gpu():
        raise SkipTest("this machine has a GPU")
    for peer in ["torch-lstm", "torch-gru", "flashrnn", "sru", "accelerated-scan"]:
        expect_fail(call(peer, KIND.get(peer, speed)(peer)), True, "no GPU here")
    expect_fail(call("jax-scan", kernel("jax-scan")), True, "no GPU here")


@test
def stdout_is_the_response_alone():
    """Prints from Python and from C (file descriptor 1) inside a peer go to stderr."""
    code = ("import os, sys; sys.path.insert(0, %r); import common\n"
            "def run(text):\n"
            "    print('python noise'); os.write(1, b'c noise\\n')\n"
            "    return common.ok('v', 'i', [1.0])\n"
            "common.serve('x', run)\n" % HERE)
    p = subprocess.run([sys.executable, "-c", code], input="{}", capture_output=True, text=True)
    assert p.returncode == 0 and json.loads(p.stdout)["ok"] is True and len(p.stdout.splitlines()) == 1, p
    assert "python noise" in p.stderr and "c noise" in p.stderr


@test
def torch_cpu_runs():
    need("torch")
    for peer in ("torch-lstm", "torch-gru"):
        for ps in ("forward", "fwdbwd"):
            r = expect_ok(call(peer, speed(peer, device="cpu", layers=2, input_size=5,
                                           repeats=3, **{"pass": ps})), repeats=3)
            assert r["peak_mem_bytes"] is None
        expect_ok(call(peer, speed(peer, device="cpu", dtype="bf16", knobs={"inference": "on"})))
    expect_fail(call("torch-lstm", speed("torch-lstm", device="cpu", dtype="f16")), False, "f16")


@test
def jax_scan_cpu_runs():
    """Both impls, both directions, odd sizes; the adapter checks the result itself."""
    need("jax")
    for impl in ("associative", "sequential"):
        for k in ("scan", "scan-reverse"):
            for T, B, D in ((1, 1, 1), (1000, 3, 33)):
                expect_ok(call("jax-scan", kernel("jax-scan", kernel=k, T=T, B=B, D=D, device="cpu",
                                                  repeats=3, knobs={"route": impl})), 3, copy=True)
    expect_ok(call("jax-scan", kernel("jax-scan", T=4096, dtype="bf16", device="cpu")), copy=True)


@test
def accelerated_scan_cpu_runs():
    """route = ref on the cpu (T padded by their code), and their Triton kernel in Triton's
    interpreter: the [T][C] <-> [B][D][T] transposes and the reversal are checked in the adapter."""
    need("torch", "accelerated_scan")
    for k in ("scan", "scan-reverse"):
        for T in (1000, 1024):
            expect_ok(call("accelerated-scan", kernel("accelerated-scan", kernel=k, T=T, B=3, D=7,
                                                      device="cpu", knobs={"route": "ref"})), copy=True)
        if has("triton"):
            expect_ok(call("accelerated-scan", kernel("accelerated-scan", kernel=k, T=200, B=2, D=3,
                                                      device="cpu", warmup=0, repeats=1,
                                                      knobs={"route": "triton"}),
                           env={"TRITON_INTERPRET": "1"}), copy=True)


@test
def verify_scan_catches_errors():
    """The adapters' own result check fails on the wrong direction and on a transposition."""
    req = common.Request({"T": 50, "kernel": "scan", "dtype": "f32"})
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.5, 1, (50, 4)), rng.uniform(-1, 1, (50, 4))
    h = np.zeros_like(b)
    s = np.zeros(4)
    for t in range(50):
        s = a[t] * s + b[t]
        h[t] = s
    common.verify_scan(req, a, b, h)
    for bad in (common.Request({"T": 50, "kernel": "scan-reverse", "dtype": "f32"}),):
        try:
            common.verify_scan(bad, a, b, h)
        except common.PeerError:
            continue
        raise AssertionError("a forward result passed as scan-reverse")
    try:
        common.verify_scan(req, a, b, h[:, ::-1])
    except common.PeerError:
        return
    raise AssertionError("permuted channels passed")


@test
def torch_lstm_check():
    need("torch")
    T, B, I, D, L = 9, 3, 5, 4, 2
    n = sum(4 * D * (I if l == 0 else D) + 4 * D * D + 4 * D for l in range(L))
    req = speed("torch-lstm", T=T, B=B, D=D, input_size=I, layers=L, device="cpu")
    run_check("torch-lstm", req, n, lambda x, w: lstm_ref(x, w, D, L), tol=1e-12)


@test
def torch_gru_check():
    need("torch")
    T, B, I, D, L = 9, 3, 5, 4, 2
    n = sum(3 * D * (I if l == 0 else D) + 3 * D * D + 4 * D for l in range(L))
    req = speed("torch-gru", T=T, B=B, D=D, input_size=I, layers=L, device="cpu")
    run_check("torch-gru", req, n, lambda x, w: flashrnn_ref("gru", x, w, D, 1, L), tol=1e-12)


@test
def flashrnn_check_vanilla():
    """Their pure-PyTorch backend in float64 on the cpu: the layout mapping, heads, the gru's
    gate order, the slstm's stabiliser and the elman, exact (the CUDA backends take the same
    mapping, in f32, on the GPU)."""
    need("torch", "flashrnn")
    T, B, I, D, H, L = 7, 3, 5, 8, 2, 2
    for cell, G in (("lstm", 4), ("gru", 3), ("slstm", 4), ("elman", 1)):
        dh = D // H
        n = sum(G * D * (I if l == 0 else D) + D * G * dh + G * D + (D if cell == "gru" else 0)
                for l in range(L))
        req = speed("flashrnn", T=T, B=B, D=D, input_size=I, head_dim=dh, layers=L, cell=cell,
                    device="cpu", knobs={"route": "vanilla"})
        resp, _ = run_check("flashrnn", req, n, lambda x, w: flashrnn_ref(cell, x, w, D, H, L),
                            tol=1e-12)
        assert "patched" in resp["impl"], resp["impl"]
        for ps in ("forward", "fwdbwd"):
            expect_ok(call("flashrnn", dict(req, check=None, **{"pass": ps})))
        expect_ok(call("flashrnn", dict(req, check=None, layers=1, knobs={"route": "vanilla",
                                                                          "proj": "off"})))


# Builds FlashRNN's gpu_info2 extension from the adapter's patched copy, through their own loader.
GPU_INFO_BUILD = """
import importlib.util, os, sys
sys.path.insert(0, {here!r})
spec = importlib.util.spec_from_file_location("flashrnn_adapter", os.path.join({here!r}, "flashrnn.py"))
adapter = importlib.util.module_from_spec(spec)
spec.loader.exec_module(adapter)
fl, patch = adapter.import_patched()
os.environ.setdefault("CUDA_LIB", os.path.join(sys.modules["flashrnn.flashrnn.cuda_init"].CUDA_HOME,
                                               "lib64"))   # set by flashrnn only where a GPU is
mod = sys.modules["flashrnn.flashrnn.gpu_info.gpu_info"]._GPUInfoCUDA.instance()
print("built", mod.__name__, "from", fl.__file__)
"""


@test
def flashrnn_gpu_info_builds():
    """cuda_fused's first JIT build, gpu_info2, compiles from the patched copy (CUDA 13 removed
    fields of cudaDeviceProp that flashrnn 1.0.8's gpu_info.cc reads). Needs nvcc, not a GPU."""
    need("torch", "flashrnn", "ninja")
    from torch.utils.cpp_extension import CUDA_HOME
    if not CUDA_HOME or not os.path.isfile(os.path.join(CUDA_HOME, "bin", "nvcc")):
        raise SkipTest("no nvcc (CUDA_HOME) here")
    with tempfile.TemporaryDirectory() as tmp:
        e = dict(os.environ, TORCH_EXTENSIONS_DIR=tmp)
        e.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
        p = subprocess.run([sys.executable, "-c", GPU_INFO_BUILD.format(here=HERE)], env=e,
                           capture_output=True, text=True, timeout=900)
        assert p.returncode == 0 and "built gpu_info2" in p.stdout, \
            f"gpu_info2 did not build: {p.stdout[-1000:]} {p.stderr[-3000:]}"
        print("  " + p.stdout.strip().splitlines()[-1])


@test
def sru_check_cpu():
    """Their recurrence on the cpu (the autograd loop: float64): v on and zero, I == D and
    I != D (their 4th matrix), the highway scale. Also times their cpu path."""
    need("torch", "sru")
    T, B, D, L = 8, 3, 4, 2
    for I, knobs in ((4, {}), (5, {"v": "zero", "highway_scale": "sqrt3"}),
                     (4, {"highway_scale": "1.7"}), (6, {"highway_scale": "0.5"})):
        v_on = knobs.get("v", "on") == "on"
        alpha = {"sqrt3": 3 ** 0.5, "1.7": 1.7, "0.5": 0.5}.get(knobs.get("highway_scale"), 1.0)
        n = 0
        for l in range(L):
            Il = I if l == 0 else D
            n += 3 * D * Il + (D * Il if Il != D else 0) + (2 * D if v_on else 0) + 2 * D
        req = speed("sru", T=T, B=B, D=D, input_size=I, layers=L, device="cpu", knobs=knobs)
        resp, _ = run_check("sru", req, n, lambda x, w: sru_ref(x, w, D, L, v_on, alpha), tol=1e-12)
        assert "patched" in resp["impl"], resp["impl"]
    for ps in ("forward", "fwdbwd"):
        expect_ok(call("sru", speed("sru", device="cpu", input_size=5, **{"pass": ps})))


@test
def deer_jax_cpu():
    """Their DEER (and Sequential) on the cpu: a timed run, and check in float64 for both
    cells. Needs LOGT_DEER_PATH."""
    need("jax")
    if not os.environ.get("LOGT_DEER_PATH"):
        raise SkipTest("LOGT_DEER_PATH is not set")
    T, B, I, D = 200, 4, 3, 5
    for method in ("deer", "sequential"):
        expect_ok(call("deer-jax", speed("deer-jax", T=T, B=B, D=D, cell="gru", device="cpu",
                                         knobs={"method": method})))
        for cell, G in (("gru", 3), ("tanh", 1)):
            n = G * D * I + D * G * D + G * D + (D if cell == "gru" else 0)
            ref = ((lambda x, w: flashrnn_ref("gru", x, w, D, 1, 1)) if cell == "gru"
                   else (lambda x, w: tanh_ref(x, w, D)))
            req = speed("deer-jax", T=T, B=B, D=D, input_size=I, cell=cell, device="cpu",
                        knobs={"method": method})
            run_check("deer-jax", req, n, ref, tol=1e-9)


def main(argv):
    passed = failed = skipped = 0
    for fn in TESTS:
        if argv and not any(a in fn.__name__ for a in argv):
            continue
        try:
            fn()
            passed += 1
            print(f"PASS {fn.__name__}")
        except SkipTest as e:
            skipped += 1
            print(f"SKIP {fn.__name__}: {e}")
        except Exception:
            failed += 1
            print(f"FAIL {fn.__name__}\n{traceback.format_exc()}")
        sys.stdout.flush()
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
