"""accelerated-scan.py — peer accelerated-scan: Kyrylov's accelerated-scan (PyPI accelerated-scan,
github.com/proger/accelerated-scan), the linear recurrence h_t = a_t h_{t-1} + b_t (kind kernel).

Its layout is (B, C, T) contiguous, time fastest; logt's is [T][C], channel fastest. The
adapter transposes a and b to [B][D][T] once, OUTSIDE the timed region, times the scan on
that layout, and transposes back only the channels it checks against a float64 loop.
knobs: route =
  warp (default)  accelerated_scan.warp: their CUDA kernel (warp shuffles, one block per
                  sequence), compiled when imported (torch load_inline: nvcc and ninja); its
                  -std=c++17 flag is dropped there (patch_std), as current PyTorch needs C++20.
                  T a power of 2 in [32, 65536]; f32, bf16, f16 (arithmetic in that dtype).
                  Timed: warpscan_forward(a, b, out, reverse) into an output allocated once
                  (their scan_forward allocates it with zeros_like every call).
  triton          accelerated_scan.scalar: their Triton kernel forward_scan, any T, forward
                  only; scan-reverse runs it on time-reversed copies of a and b (flipped
                  outside the timed region). Timed: the kernel launch into a preallocated out.
                  On the cpu only under TRITON_INTERPRET=1 (Triton's interpreter: for tests).
  ref             accelerated_scan.ref.scan: their pure-PyTorch tree scan (T padded to a
                  power of 2), the one that runs on the cpu.
After each call, a device-to-device copy of one [T][C] array (out.copy_(a), copy_ms).
"""
import os

import common
from common import PeerError, ok, time_repeats

KNOBS = {"route": ("warp", "triton", "ref")}


def validate(req):
    impl = req.knob("route", "warp")
    T = req.T
    if impl == "warp" and (T & (T - 1) or not 32 <= T <= 65536):
        raise PeerError(f"route = warp takes T a power of 2 in [32, 65536], not T = {T}: use "
                        "route = triton for other lengths")
    interpret = impl == "triton" and os.environ.get("TRITON_INTERPRET") == "1"
    if impl != "ref" and req.device == "cpu" and not interpret:
        raise PeerError(f"route = {impl} is CUDA only: on the cpu use route = ref (or, for "
                        "route = triton, set TRITON_INTERPRET=1: Triton's interpreter, for tests)")
    return impl


def patch_std(torch):
    """accelerated_scan.warp builds its kernel with -std=c++17, which current PyTorch's headers
    refuse (they need C++20). Drop that flag from the load_inline call it makes at import, so
    that torch's own -std applies; True when the flag was there."""
    import torch.utils.cpp_extension as ext
    orig, seen = ext.load_inline, []

    def load_inline(*args, **kw):
        flags = list(kw.get("extra_cuda_cflags") or [])
        seen.extend(f for f in flags if f == "-std=c++17")
        kw["extra_cuda_cflags"] = [f for f in flags if f != "-std=c++17"]
        return orig(*args, **kw)

    ext.load_inline = load_inline
    return seen


def run(text):
    req = common.parse_request(text, "accelerated-scan", ("kernel",), KNOBS)
    impl = validate(req)
    import torch_util as tu
    torch = tu.torch
    dev = tu.device(req)
    patched = patch_std(torch) if impl == "warp" else False
    module = {"warp": "warp", "triton": "scalar", "ref": "ref"}[impl]
    mod = common.need("accelerated_scan." + module, "accelerated-scan==0.3.1")
    reverse = req.kernel == "scan-reverse"
    flip = reverse and impl == "triton"
    T, B, D = req.T, req.B, req.D
    dt = tu.TORCH_DTYPES[req.dtype]
    a64, b64 = common.scan_inputs(req)

    def theirs(x):   # [T][C] -> [B][D][T] contiguous (time reversed for flip)
        x = torch.from_numpy(x[::-1].copy() if flip else x).to(dev, dt)
        return x.t().contiguous().view(B, D, T)

    a, b = theirs(a64), theirs(b64)
    tu.reset_peak(dev)
    out = torch.empty_like(b)
    flat = torch.from_numpy(a64).to(dev, dt)   # the copy's source: one [T][C] array
    copy_dst = torch.empty_like(flat)
    if impl == "warp":
        def step():
            mod.warpscan_forward(a, b, out, reverse)
        what = f"accelerated_scan.warp.warpscan_forward(reverse={reverse})"
    elif impl == "triton":
        def step():
            mod.forward_scan[(B, D)](a, b, out, seqlen=T, enable_fp_fusion=False)
        what = "accelerated_scan.scalar.forward_scan (Triton)" + (
            " on time-reversed a, b (flipped outside the timed region)" if flip else "")
    else:
        def step():
            out.copy_(mod.scan(a, b, reverse=reverse))
        what = f"accelerated_scan.ref.scan(reverse={reverse}) (+ a copy into out)"
    with torch.no_grad():
        times, copies = time_repeats(req, step, tu.clock_of(dev), lambda: copy_dst.copy_(flat))

        cols = common.scan_columns(B * D)
        def ours(x):   # [B][D][T] -> [T][C], the checked channels, float64
            x = x.view(B * D, T)[torch.from_numpy(cols).to(dev)].t().double().cpu().numpy()
            return x[::-1] if flip else x
        common.verify_scan(req, ours(a), ours(b), ours(out))
    version = (f"accelerated-scan {common.package_version('accelerated-scan')}, "
               f"{tu.version_line('accelerated-scan')}")
    impl_s = (f"{what} on [B][D][T] {req.dtype} (transposed from [T][C] outside the timed "
              f"region); copy: torch copy_ of one [T][C] array"
              + ("; patched: their -std=c++17 dropped (torch's own -std)" if patched else ""))
    return ok(version, impl_s, times, copies, tu.peak(dev))


if __name__ == "__main__":
    common.serve("accelerated-scan", run)
