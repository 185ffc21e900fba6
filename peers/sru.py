"""sru.py — peer sru: the authors' SRU layer (Lei et al., EMNLP 2018; PyPI sru,
github.com/asappresearch/sru), `sru.SRU(I, D, num_layers=L, ...)` on [T][B][I], zero c0.

Its CUDA kernel is compiled when `sru` is imported (torch.utils.cpp_extension.load: nvcc and a
C++ compiler on the machine, ninja). sru 2.6.0's kernel passes `U.type()` to AT_DISPATCH, which
current PyTorch no longer accepts; the adapter imports a patched copy of the installed package
(under $LOGT_PEERS_CACHE, default ~/.cache/logt-peers) where those calls read `U.scalar_type()`,
and says so in impl. A failed build, which sru itself only warns about before loading a stub
that raises at the first call, is an error here.

The form is logt's sru (models/sru/sru.h) exactly:
  f = σ(W_f x + v_f ⊙ c_{t-1} + b_f),  r = σ(W_r x + v_r ⊙ c_{t-1} + b_r)
  c = f ⊙ c_{t-1} + (1 − f) ⊙ W x,    h = r ⊙ c + (1 − r) ⊙ α x'   (x' = x, or W_p x if I != D)
knobs: v = on (default) | zero (the 2017 form: their v1 = True, weight_c ≡ 0);
highway_scale = off (α = 1, default) | sqrt3 | a positive number (their rescale: scale_x = α,
which is their sqrt(1 + 2 e^highway_bias) = sqrt3 at highway_bias = 0); inference = off | on.
dtype f32; bf16 / f16 run under torch.autocast (their way): the GEMM in that dtype, their
recurrence in fp32 (amp_recurrence_fp16 off), as logt's sru keeps its recurrence in fp32.

check maps logt's layout (per layer W [3D][I] rows z f r, Wp [D][I] when I != D, v [2D] when
v = on, b [2D]) to theirs: weight [I][D·k] with column d·k + j = row d of W_j (j = z, f, r, and
α·W_p for k = 4), weight_c = v (f then r), bias = b (f then r). On the cpu their recurrence is
a Python loop (with autograd on), so the check runs in float64 there; on CUDA in float32.
"""
import math
import os
import shutil
import sys
import warnings

import common  # first: it answers with a skip where numpy is missing
import numpy as np
from common import PeerError, Skip, Slicer, ok

KNOBS = {"v": ("on", "zero"), "highway_scale": None, "inference": ("off", "on")}

# What current PyTorch rejects in sru 2.6.0 (file under sru/csrc, text, replacement).
PATCHES = [("sru_cuda_kernel.cu", "AT_DISPATCH_FLOATING_TYPES_AND_HALF(U.type(),",
            "AT_DISPATCH_FLOATING_TYPES_AND_HALF(U.scalar_type(),")]
BUILD_FAILED = "Just-in-time loading and compiling the CUDA kernels of SRU was unsuccessful"


def alpha_of(req):
    hs = req.knob("highway_scale", "off")
    if hs == "off":
        return 1.0
    if hs == "sqrt3":
        return math.sqrt(3.0)
    try:
        a = float(hs)
    except ValueError:
        a = float("nan")
    if not (a > 0 and math.isfinite(a)):
        raise PeerError(f"highway_scale = '{hs}' is not a scale: use off (1), sqrt3 or a positive "
                        "number")
    return a


def patched_copy():
    """Copy the installed sru into the cache with PATCHES applied; returns (folder to put on
    sys.path, list of the patches that changed a file)."""
    src, version, root = common.installed_source("sru", "sru==2.6.0")
    dst = os.path.join(root, "sru")
    stamp = os.path.join(root, "source")
    if not (os.path.isfile(stamp) and open(stamp).read() == src):
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        with open(stamp, "w") as f:
            f.write(src)
    applied = []
    for name, old, new in PATCHES:
        fn = os.path.join(dst, "csrc", name)
        text = open(fn).read()
        if old in text:
            with open(fn, "w") as f:
                f.write(text.replace(old, new))
        if new in open(fn).read():
            applied.append(f"{name}: {old.split('(')[1]} -> {new.split('(')[1].rstrip(',')}")
    return root, applied


def import_sru(dev):
    """Import the patched sru (its import compiles the CUDA kernel); PeerError when that build
    fails on a CUDA run."""
    root, applied = patched_copy()
    sys.path.insert(0, root)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import sru
    for w in caught:
        msg = str(w.message)
        if BUILD_FAILED in msg:
            if dev.type == "cuda":
                errors = [line for line in msg.splitlines() if "error" in line.lower()]
                raise PeerError("sru's CUDA kernel did not build (nvcc, ninja, CUDA_HOME?): "
                                + " | ".join(errors)[-600:])
        else:
            print(f"sru import: {msg.splitlines()[0] if msg else w.category.__name__}",
                  file=sys.stderr)
    if not os.path.abspath(sru.__file__).startswith(os.path.abspath(root)):
        raise PeerError(f"imported sru from {sru.__file__}, not the patched copy in {root}")
    return sru, applied


def load_logt(torch, model, req, w, alpha):
    """Set model's parameters from logt's flat vector w (float64 numpy), layer by layer."""
    s, D, v_on = Slicer(w), req.D, req.knob("v", "on") == "on"
    with torch.no_grad():
        for l, cell in enumerate(model.rnn_lst):
            I = req.input_size if l == 0 else D
            mats = list(s.take(3, D, I))
            if I != D:
                mats.append(alpha * s.take(D, I))
            k = len(mats)
            weight = np.stack(mats, axis=1).reshape(D * k, I).T   # column d·k + j
            v = s.take(2 * D) if v_on else np.zeros(2 * D)
            b = s.take(2 * D)
            for p, a in ((cell.weight, weight), (cell.weight_c, v), (cell.bias, b)):
                p.copy_(torch.from_numpy(np.ascontiguousarray(a)))
            cell.scale_x.fill_(alpha)


def numel(req):
    n, D, v_on = 0, req.D, req.knob("v", "on") == "on"
    for l in range(req.layers):
        I = req.input_size if l == 0 else D
        n += 3 * D * I + (D * I if I != D else 0) + (2 * D if v_on else 0) + 2 * D
    return n


def run(text):
    req = common.parse_request(text, "sru", ("speed",), KNOBS, cells=("sru",))
    if req.heads != 1:
        raise PeerError(f"sru has no heads: head_dim must be 0 or D = {req.D}")
    alpha = alpha_of(req)
    import torch_util as tu
    torch = tu.torch
    dev = tu.device(req)
    sru, applied = import_sru(dev)
    v_on = req.knob("v", "on") == "on"

    def make():
        m = sru.SRU(req.input_size, req.D, num_layers=req.layers, dropout=0.0, rescale=alpha != 1.0,
                    v1=not v_on, highway_bias=0.0, has_skip_term=True, layer_norm=False)
        if alpha != 1.0:
            for cell in m.rnn_lst:
                cell.scale_x.fill_(alpha)
        return m

    patch = f"patched ({'; '.join(applied)})" if applied else "unpatched"
    version = f"sru {sru.__version__}, {tu.version_line('SRU')}"
    form = f"v = {'on' if v_on else 'zero'}, alpha = {alpha:.6g}"
    if req.check:
        dt = torch.float64 if dev.type == "cpu" else torch.float32
        x, w = common.check_inputs(req, numel(req))
        m = make().to(dev, dt)
        load_logt(torch, m, req, w, alpha)
        with torch.enable_grad():   # on the cpu their float64-capable path is the autograd loop
            h, _ = m(torch.from_numpy(x).to(dev, dt))
        common.write_h(req, h.detach().double().cpu().numpy())
        return ok(version, f"sru.SRU {form}, one {str(dt)[6:]} forward on {dev.type} (check), "
                  f"{patch}", [])

    dt = tu.TORCH_DTYPES[req.dtype]
    x, dh = tu.inputs(req, dev, dt, req.input_size, req.D)
    tu.reset_peak(dev)
    m = make().to(dev)
    if dt == torch.float32:
        fwd, how = (lambda x: m(x)[0]), "f32"
    else:
        def fwd(x):
            with torch.autocast(dev.type, dtype=dt):
                return m(x)[0]
        how = f"{req.dtype} under torch.autocast (recurrence fp32)"
    times, _ = tu.time_pass(req, dev, fwd, m.parameters(), x, dh)
    impl = (f"sru.SRU({req.input_size}, {req.D}, num_layers={req.layers}) {form}, {how} on "
            f"{dev.type}, {tu.pass_words(req)}; {patch}")
    return ok(version, impl, times, None, tu.peak(dev))


if __name__ == "__main__":
    common.serve("sru", run)
