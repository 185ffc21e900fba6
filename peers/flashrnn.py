"""flashrnn.py — peer flashrnn: the authors' FlashRNN (Pöppel et al., ICLR 2025; PyPI flashrnn,
github.com/NX-AI/flashrnn), `flashrnn.flashrnn(Wx, R, b, config=FlashRNNConfig(...))`.

FlashRNN's kernel takes the input projection Wx = W x_t precomputed; with proj = on (default,
their benchmark's "withlinear") the adapter computes it with one torch matmul inside the timed
region, so a row covers the same layer as logt's flashrnn (W x + recurrence); proj = off times
their kernel alone on a random Wx [T][B][G][H][dh].

cells: lstm (default), gru, slstm (the sLSTM of xLSTM: their vanilla/slstm.py and
fused/slstm_fused_pointwise.cuh) and elman (h = tanh(W x + R h + b): vanilla/elman.py,
fused/elman_fused_pointwise.cuh), FlashRNN's `function`.

knobs: route = cuda_fused (default: their persistent fused kernel) | cuda (alternating: a
cuBLAS GEMM and a pointwise kernel per step) | triton (their triton_fused; lstm and slstm) |
vanilla (their pure-PyTorch loop, the only one on the cpu and the only one in float64);
proj = on | off; inference = off | on (forward under no_grad).
All tensors (x, W, R, b) in the request's dtype, as in their own speed benchmark.

logt's layout (models/flashrnn/flashrnn.h) against theirs (recurrent_shape GHDP, bias GHD):
  W [G·D][I], rows q·D + k·dh + j   -> Wx = x Wᵀ viewed [T][B][G][H][dh] (input_shape TBGHD)
  R [H][dh][G·dh], R[k][m][q·dh + j] -> R_fl[q'][k][j][m]
  b [G·D]                           -> b_fl[q'][k][j]
  lstm: gates i f g o in both (q' = q)
  slstm: gates i f z o in both (q' = q); states h, c, n, m start at zero in both
  elman: the one gate (q' = q = 0)
  gru:  their recurrent gates are [n r z] (Ry[0] is R_n h), their 4 biases [bn, b_r, b_z, b_n]:
        q' = (2, 0, 1)[q] for R, and b_fl = [bn, b_r, b_z, b_n]
The forms agree: n = tanh(W_n x + b_n + r ⊙ (R_n h + bn)), h = z h_prev + (1 − z) n in both;
the slstm's stabiliser and first-step rule are theirs (models/cells/slstm_cell.h).

Patched at run time: cuda_fused first builds FlashRNN's `gpu_info2` extension
(flashrnn/gpu_info/gpu_info.cc), which copies every field of cudaDeviceProp into a dict, and
CUDA 13 removed eight of them (clockRate, deviceOverlap, kernelExecTimeoutEnabled, computeMode,
maxTexture1DLinear, memoryClockRate, singleToDoublePrecisionPerfRatio,
cooperativeMultiDeviceLaunch): "Error building extension 'gpu_info2'". The adapter imports a copy
of the installed package (under $LOGT_PEERS_CACHE, default ~/.cache/logt-peers) in which those
eight assignments sit under `#if CUDART_VERSION < 13000`, and says so in impl. FlashRNN reads
four other fields of that dict (maxThreadsPerBlock, regsPerMultiprocessor, multiProcessorCount,
sharedMemPerBlockOptin, for its tiling search). And in the same copy, one Triton kernel line:
their LSTM backward (flashrnn/triton_fused/lstm_bw.py) takes tanh of the loaded 16-bit cell state
through tl.exp, which the Triton of torch 2.11 refuses for bf16 and f16 ("CompilationError" at
`triton_tanh(matC_t)`); the copy casts that state to fp32 first, as their forward's tanh inputs
already are (fp32 products). No CUDA kernel source changes.
"""
import os
import re
import shutil
import sys

import common  # first: it answers with a skip where numpy is missing
import numpy as np
from common import PeerError, Slicer, ok, uniform, STREAM_W

KNOBS = {"route": ("cuda_fused", "cuda", "triton", "vanilla"), "proj": ("on", "off"),
         "inference": ("off", "on")}
THEIR_BACKEND = {"cuda_fused": "cuda_fused", "cuda": "cuda", "triton": "triton_fused",
                 "vanilla": "vanilla"}
GATES = {"lstm": 4, "gru": 3, "slstm": 4, "elman": 1}
DTYPE_NAMES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16", "f64": "float64"}

# The cudaDeviceProp fields that CUDA 13 removed and flashrnn 1.0.8's gpu_info.cc copies into its
# dict (no caller reads them); each `dict["F"] = prop.F;` is compiled only before CUDA 13.
GPU_INFO = os.path.join("flashrnn", "flashrnn", "gpu_info", "gpu_info.cc")
REMOVED_IN_CUDA13 = ("clockRate", "deviceOverlap", "kernelExecTimeoutEnabled", "computeMode",
                     "maxTexture1DLinear", "memoryClockRate", "singleToDoublePrecisionPerfRatio",
                     "cooperativeMultiDeviceLaunch")
PATCH_MARK = "// logt peers/flashrnn.py: fields removed in CUDA 13 are left out below"
PATCH_ID = "gpu_info-cuda13-v1,lstm-bw-tanh-f32-v1"   # a new id refreshes the cached copy
LSTM_BW = os.path.join("flashrnn", "flashrnn", "triton_fused", "lstm_bw.py")
TANH_C = "triton_tanh(matC_t)"
TANH_C_F32 = "triton_tanh(matC_t.to(tl.float32))"


def patch_gpu_info(text):
    """gpu_info.cc with each removed field's assignment under #if CUDART_VERSION < 13000."""
    if PATCH_MARK in text:
        return text
    for f in REMOVED_IN_CUDA13:
        stmt = re.compile(r'dict\["%s"\]\s*=\s*prop\.%s\s*;' % (f, f))
        if not stmt.search(text):
            raise PeerError(f"{GPU_INFO}: no assignment of prop.{f} to patch (not flashrnn 1.0.8?)")
        text = stmt.sub(lambda m: "\n#if CUDART_VERSION < 13000\n" + m.group(0) + "\n#endif\n", text)
    return PATCH_MARK + "\n" + text


def patch_lstm_bw(text):
    """lstm_bw.py with tanh of the cell state taken in fp32 (the one 16-bit tl.exp argument)."""
    if TANH_C_F32 in text:
        return text
    if text.count(TANH_C) != 1:
        raise PeerError(f"{LSTM_BW}: {TANH_C} found {text.count(TANH_C)} times, not once (not flashrnn 1.0.8?)")
    return text.replace(TANH_C, TANH_C_F32)


def import_patched():
    """Copy the installed flashrnn into the cache once (file times kept, so that torch's JIT
    builds are not redone), patch gpu_info.cc there and import the copy. Returns (module, a short
    note of the patch for impl: logt's runner keeps impl's first 159 characters, so it goes
    first)."""
    src, version, root = common.installed_source("flashrnn", "flashrnn==1.0.8")
    stamp = os.path.join(root, "source")
    want = f"{src}\n{PATCH_ID}"
    if not (os.path.isfile(stamp) and open(stamp).read() == want):
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(src, os.path.join(root, "flashrnn"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        for rel, patch in ((GPU_INFO, patch_gpu_info), (LSTM_BW, patch_lstm_bw)):
            fn = os.path.join(root, rel)
            with open(fn) as f:
                text = patch(f.read())
            with open(fn, "w") as f:
                f.write(text)
        with open(stamp, "w") as f:
            f.write(want)
    if PATCH_MARK not in open(os.path.join(root, GPU_INFO)).read() or \
            TANH_C_F32 not in open(os.path.join(root, LSTM_BW)).read():
        raise PeerError(f"{root}: the copy of flashrnn is not patched: remove {root}")
    sys.path.insert(0, root)
    try:
        fl = common.need("flashrnn", "flashrnn==1.0.8")
    finally:
        sys.path.remove(root)
    if not os.path.abspath(fl.__file__).startswith(os.path.abspath(root) + os.sep):
        raise PeerError(f"imported flashrnn from {fl.__file__}, not the patched copy in {root}")
    return fl, "patched at run time: gpu_info.cc for CUDA 13, Triton LSTM bwd tanh(c) in fp32"


def numel_layer(cell, I, D, dh):
    G = GATES[cell]
    return G * D * I + D * G * dh + G * D + (D if cell == "gru" else 0)


def logt_layer(req, l):
    """Layer l's parameters in logt's layout, initialised as logt does (W, b, bn uniform in
    ±1/sqrt(D), R in ±1/sqrt(dh)), float64."""
    G, D, dh = GATES[req.cell], req.D, req.head_dim
    I = req.input_size if l == 0 else D
    k, kr = 1 / np.sqrt(D), 1 / np.sqrt(dh)
    w = [uniform(req.seed, STREAM_W + l, G * D * I, -k, k),
         uniform(req.seed, STREAM_W + 100 + l, D * G * dh, -kr, kr),
         uniform(req.seed, STREAM_W + 200 + l, G * D + (D if req.cell == "gru" else 0), -k, k)]
    return np.concatenate(w)


def theirs(cell, s, I, D, H, dh):
    """One layer's (W [G·D][I], R_fl [G][H][dh][dh], b_fl [Gt][H][dh]) from logt's layout."""
    G = GATES[cell]
    W = s.take(G * D, I)
    R = s.take(H, dh, G, dh).transpose(2, 0, 3, 1)   # [k][m][q][j] -> [q][k][j][m]
    b = s.take(G, H, dh)
    if cell == "gru":
        bn = s.take(1, H, dh)
        R = R[[2, 0, 1]]
        b = np.concatenate([bn, b], axis=0)
    return W, np.ascontiguousarray(R), np.ascontiguousarray(b)


def check_dtype(backend):
    return "f64" if backend == "vanilla" else "f32"


def validate(req):
    be = req.knob("route", "cuda_fused")
    if req.cell == "gru" and be == "cuda_fused":
        raise PeerError("FlashRNN's cuda_fused has no gru (its config switches to the alternating "
                        "backend): use route = cuda, or vanilla")
    if req.cell in ("gru", "elman") and be == "triton":
        raise PeerError("FlashRNN's triton backend has lstm and slstm only: use cell = lstm or slstm, "
                        "or another route")
    if req.device == "cpu" and be != "vanilla":
        raise PeerError(f"backend {be} is CUDA only: on the cpu use route = vanilla")
    if req.knob("proj", "on") == "off" and req.layers > 1:
        raise PeerError("proj = off times one layer's kernel: layers must be 1")
    return be


def run(text):
    req = common.parse_request(text, "flashrnn", ("speed",), KNOBS, cells=tuple(GATES))
    be = validate(req)
    import torch_util as tu
    torch = tu.torch
    dev = tu.device(req)
    fl, patch = import_patched()
    L, T, B, D, H, dh = req.layers, req.T, req.B, req.D, req.heads, req.head_dim
    G = GATES[req.cell]
    dname = DTYPE_NAMES[check_dtype(be) if req.check else req.dtype]
    dt = getattr(torch, dname)

    def config():
        return fl.FlashRNNConfig(backend=THEIR_BACKEND[be], function=req.cell, num_heads=H,
                                 head_dim=dh, batch_size=B, input_shape="TBGHD",
                                 output_shape="STBHD", dtype=dname, dtype_w=dname, dtype_r=dname,
                                 dtype_b=dname)

    # parameters: logt's (check) or logt's initialisation (speed), mapped to FlashRNN's
    if req.check:
        I0 = req.input_size
        x, w = common.check_inputs(req, sum(numel_layer(req.cell, I0 if l == 0 else D, D, dh)
                                            for l in range(L)))
        s = Slicer(w)
    layers = []
    for l in range(L):
        Il = req.input_size if l == 0 else D
        src = s if req.check else Slicer(logt_layer(req, l))
        layers.append([torch.from_numpy(a).to(dev, dt).requires_grad_(req.pass_ == "fwdbwd")
                       for a in theirs(req.cell, src, Il, D, H, dh)])
    cfgs = [config() for _ in range(L)]

    def forward(x):   # x [T][B][I] -> h [T][B][D]
        for (W, R, b), cfg in zip(layers, cfgs):
            Wx = (x @ W.T).view(T, B, G, H, dh)
            h, _ = fl.flashrnn(Wx, R, b, config=cfg)   # h [S][T][B][H][dh], h[0] the hidden state
            x = h[0].reshape(T, B, D)
        return x

    def forward_wx(Wx):
        (_, R, b), = layers
        h, _ = fl.flashrnn(Wx, R, b, config=cfgs[0])
        return h[0].reshape(T, B, D)

    version = f"flashrnn {common.package_version('flashrnn')}, {tu.version_line('FlashRNN')}"
    if req.check:
        with torch.no_grad():
            h = forward(torch.from_numpy(x).to(dev, dt))
        common.write_h(req, h.double().cpu().numpy())
        return ok(version, f"flashrnn backend {THEIR_BACKEND[be]} ({patch}), {req.cell} H={H} "
                  f"dh={dh}, one {dname} forward on {dev.type} (check)", [])

    if req.knob("proj", "on") == "on":
        x, dh_ = tu.inputs(req, dev, dt, req.input_size, D)
        what = "x W^T by torch matmul + flashrnn"
        params, fn = [p for ly in layers for p in ly], forward
    else:
        x, dh_ = tu.inputs(req, dev, dt, G * D, D)
        x = x.detach().view(T, B, G, H, dh).requires_grad_(req.pass_ == "fwdbwd")
        what = "flashrnn alone on a given Wx"
        params, fn = layers[0][1:], forward_wx
    tu.reset_peak(dev)
    times, _ = tu.time_pass(req, dev, fn, params, x, dh_, prime=True)   # their JIT build
    impl = (f"flashrnn backend {THEIR_BACKEND[be]} ({patch}), {req.cell} H={H} dh={dh}, "
            f"{L} layer(s), {dname} (x, W, R, b), {what}, {tu.pass_words(req)}")
    return ok(version, impl, times, None, tu.peak(dev))


if __name__ == "__main__":
    common.serve("flashrnn", run)
