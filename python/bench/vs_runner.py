"""vs_runner.py — a logt layer through logt.torch against `logt run` on the same layer: the
time of forward + backward through autograd, and the outputs and gradients bit for bit.

    python python/bench/vs_runner.py [--logt CMD] [--model flashrnn --cell lstm --head-dim 64
        --dtype bf16 --D 768 --B 16 --T 1024] [--kernel fused] [--rounds 3]

The runner times `pass = fwdbwd` on x and dy filled from the seed (logt.core.uniform, the
streams it uses) and, with `[speed] checksum = true`, stores the CRC-32 of y, dx and dw of
its last pass; this script gives the same x and dy to the module, compares zlib.crc32 of the
module's y, x.grad and weight.grad (cast back to the float32 the layer computed it in) with
the runner's, then times module(x).backward(dy) with CUDA events (warm-ups, repeats, median).
Each is timed twice: as called (the events around the call: the host's time to queue the
first kernel counts, as in a loop that waits for every step) and with a head start (the GPU
kept busy --head-start-ms before each timed pass, the runner's head_start_us, torch.cuda._sleep
here, so that the host has queued the pass: the GPU's time alone). Runner and binding
alternate `rounds` times in one process on one GPU; the report gives every round's medians
and the ratios of their medians. Needs torch, h5py and a logt build with CUDA
(--logt: the command that runs logt, e.g. "bundle/run logt"). Prints one JSON object last, and
writes it to --out with its provenance (GPU, commit: LOGT_COMMIT or git's, date).
"""
import argparse
import datetime
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import logt.torch as lt  # noqa: E402
from logt import core  # noqa: E402

TORCH_DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16,
                "f64": torch.float64}


def runner_runs(cmd, ini, workdir):
    """Run `logt run` on the experiment text `ini`; the attributes of each run of its file."""
    exp = os.path.join(workdir, "exp")
    os.makedirs(exp, exist_ok=True)
    with open(os.path.join(exp, "experiment.ini"), "w") as f:
        f.write(ini)
    out = os.path.join(workdir, "runner.h5")
    if os.path.exists(out):
        os.remove(out)
    subprocess.run(shlex.split(cmd) + ["run", exp, "--out", out], check=True)
    with h5py.File(out, "r") as f:
        return [dict(f["runs"][k].attrs) for k in sorted(f["runs"])]


def crc32(t):
    """zlib.crc32 of a tensor's bytes as stored (what the runner's checksum reads)."""
    return zlib.crc32(t.detach().contiguous().cpu().view(torch.uint8).numpy().tobytes())


def experiment(a, device, head_start_us=0):
    knobs = f"\n[model.{a.model}]\nkernel = {a.kernel}\n" if a.kernel else ""
    return f"""[experiment]
name = vs-runner
kind = speed
models = {a.model}
backend = {device}
[sweep]
T = {a.T}
B = {a.B}
D = {a.D}
input_size = {a.D}
head_dim = {a.head_dim}
cell = {a.cell}
dtype = {a.dtype}
pass = fwdbwd
seed = {a.seed}
[speed]
warmup = {a.warmup}
repeats = {a.repeats}
head_start_us = {head_start_us}
checksum = true
{knobs}"""


def module_and_inputs(a, device):
    knobs = {"kernel": a.kernel} if a.kernel else {}
    m = lt.Layer(a.model, a.D, a.D, cell=a.cell, head_dim=a.head_dim, seed=a.seed, **knobs)
    m = m.to(device)
    dt = TORCH_DTYPES[a.dtype]
    shape = (a.T, a.B, a.D)

    def runner_values(stream):   # rounded to float32, then to the dtype, as the runner does
        v = torch.from_numpy(core.uniform(a.seed, stream, shape))
        return (v.float() if dt != torch.float64 else v).to(dt).to(device)

    return m, runner_values(core.RUNNER_X_STREAM), runner_values(core.RUNNER_DY_STREAM)


def sleep_cycles(ms):
    """The torch.cuda._sleep argument that keeps this GPU busy about ms milliseconds."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(1_000_000)
    end.record()
    end.synchronize()
    return int(1_000_000 * ms / start.elapsed_time(end))


def time_binding(m, x, dy, warmup, repeats, head_cycles=0):
    ms = []
    for i in range(warmup + repeats):
        x.grad, m.weight.grad = None, None
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if head_cycles:
            torch.cuda._sleep(head_cycles)
        start.record()
        m(x).backward(dy)
        end.record()
        end.synchronize()
        if i >= warmup:
            ms.append(start.elapsed_time(end))
    return statistics.median(ms)


def git_commit():
    try:
        return subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--logt", default=os.path.join(HERE, "..", "..", "build", "bin", "logt"))
    p.add_argument("--model", default="flashrnn")
    p.add_argument("--cell", default="lstm")
    p.add_argument("--kernel", default="fused", help="the model's kernel knob ('' for none)")
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--dtype", default="bf16")
    p.add_argument("--D", type=int, default=768)
    p.add_argument("--B", type=int, default=16)
    p.add_argument("--T", type=int, default=1024)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--head-start-ms", type=float, default=2.0)
    p.add_argument("--device", default="cuda")
    p.add_argument("--out", help="also write the report (with its provenance) to this file")
    a = p.parse_args()
    if a.device == "cuda" and not torch.cuda.is_available():
        sys.exit("vs_runner.py: no GPU visible to torch: run it where CUDA is (or --device cpu "
                 "--dtype f64 for the checksums alone)")

    m, x, dy = module_and_inputs(a, a.device)
    x.requires_grad_()
    y = m(x)
    y.backward(dy)
    dw = m.weight.grad.to(torch.float32 if a.device == "cuda" else torch.float64)
    mine = {"crc32_y": crc32(y), "crc32_dx": crc32(x.grad), "crc32_dw": crc32(dw)}

    runner_ms, binding_ms, runner_gpu, binding_gpu, theirs = [], [], [], [], None
    cuda = a.device == "cuda"
    cycles = sleep_cycles(a.head_start_ms) if cuda else 0
    with tempfile.TemporaryDirectory() as d:
        for r in range(a.rounds):
            for hs, out in ((0, runner_ms), (int(a.head_start_ms * 1000), runner_gpu)):
                if hs and not cuda:
                    continue
                run = runner_runs(a.logt, experiment(a, a.device, hs), d)[0]
                if run.get("status") != "ok":
                    sys.exit(f"vs_runner.py: the runner's run failed: {run.get('error', run)}")
                theirs = {k: int(run[k]) for k in mine}
                out.append(float(run["median_ms"]))
            if cuda:
                binding_ms.append(time_binding(m, x, dy, a.warmup, a.repeats))
                binding_gpu.append(time_binding(m, x, dy, a.warmup, a.repeats, cycles))
                print(f"round {r + 1}/{a.rounds}: as called runner {runner_ms[-1]:.4f} ms, binding "
                      f"{binding_ms[-1]:.4f} ms; with a head start runner {runner_gpu[-1]:.4f} ms, "
                      f"binding {binding_gpu[-1]:.4f} ms", file=sys.stderr)
    equal = {k: mine[k] == theirs[k] for k in mine}
    report = {
        "config": {k: getattr(a, k) for k in ("model", "cell", "kernel", "head_dim", "dtype", "D",
                                              "B", "T", "seed", "warmup", "repeats", "rounds")},
        "device": torch.cuda.get_device_name() if a.device == "cuda" else "cpu",
        "runner_impl": run.get("impl", ""),
        "crc32_binding": mine, "crc32_runner": theirs, "bit_equal": equal,
        "runner_median_ms": runner_ms, "binding_median_ms": binding_ms,
        "head_start_ms": a.head_start_ms if cuda else 0,
        "runner_head_start_median_ms": runner_gpu, "binding_head_start_median_ms": binding_gpu,
    }
    if binding_ms:
        report["ratio_as_called"] = statistics.median(binding_ms) / statistics.median(runner_ms)
        report["ratio_head_start"] = statistics.median(binding_gpu) / statistics.median(runner_gpu)
    report["provenance"] = {
        "commit": os.environ.get("LOGT_COMMIT") or git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "torch": torch.__version__, "library": core.version()[1],
        "command": "python python/bench/vs_runner.py " + shlex.join(sys.argv[1:]),
    }
    text = json.dumps(report, indent=1, default=str)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    return 0 if all(equal.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
