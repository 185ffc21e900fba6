"""test_torch.py — logt.torch: python python/tests/test_torch.py

CPU: torch.autograd.gradcheck in float64 for every module (through parameters, input and
initial state) and for the scan; LSTM.from_torch / to_torch against nn.LSTM and the gru cell
against nn.GRU; refusals of wrong inputs before anything runs; a short training loop that
lowers its loss, and one that gives the runner's losses step for step. CUDA (where a GPU is
visible): every module in f32 (and FlashRNN in bf16) against the float64 CPU path, forward and
gradients, on awkward shapes; LSTM, lstm-cudnn and the gru cell against nn.LSTM / nn.GRU on
the GPU; a call on a side stream; refusals; the scan. Skips (exit code 0, with a message)
where torch is not installed.
"""
import copy
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
try:
    import torch
except ImportError:
    print("test_torch.py: torch not installed, skipping")
    sys.exit(0)

from torch import nn  # noqa: E402
from torch.autograd import gradcheck  # noqa: E402
from torch.func import functional_call  # noqa: E402

import numpy as np  # noqa: E402

import logt.torch as lt  # noqa: E402
from logt import core  # noqa: E402

T, B, I, D = 4, 2, 3, 4
f64 = torch.float64


def modules():
    return [
        ("LSTM", lt.LSTM(I, D, num_layers=2), True),
        ("FlashRNN lstm", lt.FlashRNN(I, D, cell="lstm", head_dim=2), True),
        ("FlashRNN gru", lt.FlashRNN(I, D, cell="gru", head_dim=2, num_layers=2), False),
        ("SRU", lt.SRU(I, D), False),
        ("GILRLSTM", lt.GILRLSTM(I, D), True),
        ("DEER gru quasi", lt.DEER(I, D, cell="gru", mode="quasi", tol=1e-14), False),
        ("DEER gru full", lt.DEER(I, D, cell="gru", mode="full", tol=1e-14), False),
        ("DEER lstm damped", lt.DEER(I, D, cell="lstm", mode="damped", tol=1e-14), True),
        ("Layer gilr", lt.Layer("gilr", I, D), False),
    ]


def test_gradcheck_modules():
    g = torch.Generator().manual_seed(0)
    for name, m, with_c0 in modules():
        L = m.num_layers
        x = torch.randn(T, B, I, dtype=f64, generator=g, requires_grad=True)
        h0 = (0.5 * torch.randn(L, B, D, dtype=f64, generator=g)).requires_grad_()
        c0 = (0.5 * torch.randn(L, B, D, dtype=f64, generator=g)).requires_grad_() if with_c0 else None
        w = (m.weight.detach() + 0.1 * torch.randn(m.weight.shape, dtype=f64, generator=g)).requires_grad_()

        def f(w, x, h0, c0):
            return functional_call(m, {"weight": w}, (x, h0, c0))

        assert gradcheck(f, (w, x, h0, c0), eps=1e-6, atol=1e-6, rtol=1e-5), name
        print(f"  ok  gradcheck {name}")


def test_parameter_gradient_and_two_calls():
    """Two calls of one module before one backward: each call's gradient is its own."""
    m = lt.SRU(I, D)
    g = torch.Generator().manual_seed(1)
    x1, x2 = torch.randn(2, T, B, I, dtype=f64, generator=g)
    (m(x1).sum() + 2 * m(x2).pow(2).sum()).backward()
    got = m.weight.grad.clone()
    m.weight.grad = None
    m(x1).sum().backward()
    m(x2).pow(2).sum().mul(2).backward()
    assert torch.allclose(got, m.weight.grad, atol=1e-12, rtol=1e-10)


def test_scan():
    g = torch.Generator().manual_seed(2)
    a = torch.rand(6, 2, 3, dtype=f64, generator=g).requires_grad_()
    b = torch.randn(6, 2, 3, dtype=f64, generator=g, requires_grad=True)
    h0 = torch.randn(2, 3, dtype=f64, generator=g, requires_grad=True)
    ref, h = [], h0
    for t in range(6):
        h = a[t] * h + b[t]
        ref.append(h)
    assert torch.allclose(lt.scan(a, b, h0), torch.stack(ref), atol=1e-14)
    ref, h = [None] * 6, h0
    for t in reversed(range(6)):
        h = a[t] * h + b[t]
        ref[t] = h
    assert torch.allclose(lt.scan(a, b, h0, reverse=True), torch.stack(ref), atol=1e-14)
    for rev in (False, True):
        assert gradcheck(lambda a, b, h0: lt.scan(a, b, h0, reverse=rev), (a, b, h0))
        assert gradcheck(lambda a, b: lt.scan(a, b, reverse=rev), (a, b))


def test_lstm_round_trip():
    torch.manual_seed(3)
    ref = nn.LSTM(I, D, num_layers=2, dtype=f64)
    x = torch.randn(T, B, I, dtype=f64)
    h0, c0 = torch.randn(2, 2, B, D, dtype=f64)
    want, _ = ref(x, (h0, c0))
    m = lt.LSTM.from_torch(ref)
    assert torch.allclose(m(x, h0, c0), want, atol=1e-13, rtol=1e-12), "from_torch"
    back = m.to_torch()
    got, _ = back(x, (h0, c0))
    assert torch.allclose(got, want, atol=1e-13, rtol=1e-12), "to_torch"
    # logt's own initialisation, out to nn.LSTM and back
    m2 = lt.LSTM(I, D, seed=9)
    assert torch.allclose(lt.LSTM.from_torch(m2.to_torch()).weight, m2.weight)
    assert torch.allclose(m2.to_torch()(x)[0], m2(x), atol=1e-13)


def refuses(fn, cls, word):
    try:
        fn()
    except cls as e:
        assert word in str(e), f"{e!s} lacks {word!r}"
        return
    raise AssertionError(f"no {cls.__name__} mentioning {word!r}")


def test_refusals():
    m = lt.LSTM(I, D)
    x = torch.randn(T, B, I, dtype=f64)
    refuses(lambda: m(x.float()), lt.LogtError, "f32")   # the library: lstm on cpu takes f64
    refuses(lambda: m(x.to(torch.int32)), lt.LogtTypeError, "int32")
    refuses(lambda: m(torch.randn(T, B, I + 1, dtype=f64)), lt.LogtValueError, "shape")
    refuses(lambda: m(torch.randn(T, I, B, dtype=f64).transpose(1, 2)), lt.LogtValueError,
            "contiguous")
    refuses(lambda: m(x, torch.zeros(1, B + 1, D, dtype=f64)), lt.LogtValueError, "h0")
    refuses(lambda: lt.SRU(I, D)(x, None, torch.zeros(1, B, D, dtype=f64)), lt.LogtValueError,
            "cell state")
    refuses(lambda: lt.DEER(I, D, mode="bogus"), lt.LogtError, "bogus")
    refuses(lambda: lt.scan(torch.ones(3, 2), torch.ones(3, 2)), lt.LogtTypeError, "float64")
    refuses(lambda: lt.scan(torch.ones(3, 2, dtype=f64), torch.ones(3, 3, dtype=f64)),
            lt.LogtValueError, "shape")
    if not torch.cuda.is_available():
        refuses(lambda: lt.LSTM(I, D, cudnn=True)(x), lt.LogtError, "cpu")


def test_training_lowers_the_loss():
    torch.manual_seed(4)
    m = lt.FlashRNN(I, D, cell="gru", head_dim=2)
    head = nn.Linear(D, 1, dtype=f64)
    opt = torch.optim.Adam(list(m.parameters()) + list(head.parameters()), lr=0.05)
    x = torch.randn(T, 8, I, dtype=f64)
    target = x.sum(0)[:, :1]
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = (head(m(x)[-1]) - target).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.2 * losses[0], losses[::10]


def gru_from_torch(g, **kwargs):
    """A one-head logt FlashRNN gru with nn.GRU g's parameters: W = weight_ih, R = weight_hh
    transposed ([D][3D]: h_{t-1} R), b = bias_ih + bias_hh of r and z and bias_ih of n,
    bn = bias_hh of n (it sits inside r's product, as in nn.GRU)."""
    Dg = g.hidden_size
    m = lt.FlashRNN(g.input_size, Dg, cell="gru", head_dim=Dg, **kwargs)
    with torch.no_grad():
        m.param("l0.W").copy_(g.weight_ih_l0)
        m.param("l0.R").copy_(g.weight_hh_l0.t().reshape(1, Dg, 3 * Dg))
        b = g.bias_ih_l0.clone()
        b[:2 * Dg] += g.bias_hh_l0[:2 * Dg]
        m.param("l0.b").copy_(b)
        m.param("l0.bn").copy_(g.bias_hh_l0[2 * Dg:])
    return m


def test_gru_against_nn_gru():
    torch.manual_seed(5)
    g = nn.GRU(I, D, dtype=f64)
    m = gru_from_torch(g)
    x = torch.randn(T, B, I, dtype=f64, requires_grad=True)
    h0 = torch.randn(1, B, D, dtype=f64)
    want, _ = g(x, h0)
    got = m(x, h0)
    assert torch.allclose(got, want, atol=1e-13, rtol=1e-12), (got - want).abs().max()
    (dx_want,) = torch.autograd.grad(want.pow(2).sum(), x)
    (dx_got,) = torch.autograd.grad(got.pow(2).sum(), x)
    assert torch.allclose(dx_got, dx_want, atol=1e-12, rtol=1e-10)


# ---- the CUDA path (skipped without a GPU) ----------------------------------------------------

def cuda_modules():
    """(name, module, with c0, tolerance of f32 against the float64 cpu path, relative to the
    largest value), the shapes awkward."""
    Ic, Dc = 5, 32
    return Ic, Dc, [
        ("LSTM", lt.LSTM(Ic, Dc, num_layers=2), True, 1e-4),
        ("LSTM cudnn", lt.LSTM(Ic, Dc, cudnn=True), True, 1e-4),
        # flashrnn's f32 products run on tf32 tensor cores (10-bit mantissa): its tests' bounds
        ("FlashRNN lstm", lt.FlashRNN(Ic, Dc, cell="lstm", head_dim=16), True, 1e-2),
        ("FlashRNN gru", lt.FlashRNN(Ic, Dc, cell="gru", head_dim=32, num_layers=2), False, 1e-2),
        ("SRU", lt.SRU(Ic, Dc), False, 1e-4),
        ("GILRLSTM", lt.GILRLSTM(Ic, Dc), True, 1e-4),
        ("Layer gilr", lt.Layer("gilr", Ic, Dc), False, 1e-4),
        ("DEER gru quasi", lt.DEER(Ic, Dc, cell="gru", mode="quasi"), False, 1e-3),
    ]


def _grads(m, x, h0, c0):
    """y and the gradients of a fixed function of y wrt the parameters, x, h0 and c0."""
    for t in (x, h0, c0):
        if t is not None:
            t.requires_grad_()
    m.weight.grad = None
    y = m(x, h0, c0)
    (y.pow(2).sum() + y[-1].sum()).backward()
    out = [y, m.weight.grad, x.grad, h0.grad] + ([c0.grad] if c0 is not None else [])
    return [t.detach().double().cpu() for t in out]


def _close(got, want, tol, what):
    scale = max(want.abs().max().item(), 1.0)
    err = (got - want).abs().max().item()
    assert err <= tol * scale, f"{what}: max error {err:.3g} > {tol:g} x {scale:.3g}"
    return err / scale


def test_cuda_matches_the_cpu_path():
    if not torch.cuda.is_available():
        print("    (no GPU: skipped)")
        return
    Ic, Dc, ms = cuda_modules()
    Tc, Bc = 37, 3
    g = torch.Generator().manual_seed(2)
    for name, m, with_c0, tol in ms:
        L = m.num_layers
        x = torch.randn(Tc, Bc, Ic, dtype=f64, generator=g)
        h0 = 0.5 * torch.randn(L, Bc, Dc, dtype=f64, generator=g)
        c0 = 0.5 * torch.randn(L, Bc, Dc, dtype=f64, generator=g) if with_c0 else None
        cpu = m if m.model != "lstm-cudnn" else lt.LSTM(Ic, Dc)
        cpu.load_state_dict(m.state_dict())
        want = _grads(cpu, x.clone(), h0.clone(), None if c0 is None else c0.clone())
        mc = copy.deepcopy(m).cuda()
        f32 = lambda t: None if t is None else t.float().cuda()  # noqa: E731
        got = _grads(mc, f32(x), f32(h0), f32(c0))
        errs = [_close(a, b, tol, f"{name} {what}")
                for what, a, b in zip(("y", "dweight", "dx", "dh0", "dc0"), got, want)]
        print(f"  ok  cuda f32 {name} (largest error {max(errs):.2g} of the largest value)")
    # bf16 where the model has it: the same against the float64 path, to bf16's precision
    m = lt.FlashRNN(Ic, Dc, cell="lstm", head_dim=16)
    x = torch.randn(Tc, Bc, Ic, dtype=f64, generator=g)
    want = _grads(m, x.clone(), torch.zeros(1, Bc, Dc, dtype=f64), None)
    mc = copy.deepcopy(m).cuda()
    got = _grads(mc, x.to(torch.bfloat16).cuda(), torch.zeros(1, Bc, Dc, dtype=torch.bfloat16,
                                                                device="cuda"), None)
    errs = [_close(a, b, 5e-2, f"FlashRNN bf16 {what}")
            for what, a, b in zip(("y", "dweight", "dx"), got, want)]
    print(f"  ok  cuda bf16 FlashRNN lstm (largest error {max(errs):.2g} of the largest value)")


def test_cuda_against_torch_modules():
    if not torch.cuda.is_available():
        print("    (no GPU: skipped)")
        return
    torch.manual_seed(6)
    ref = nn.LSTM(I, 16, dtype=f64)
    x = torch.randn(29, 3, I, dtype=f64)
    tf32 = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False   # torch's cuDNN RNNs in full f32, as logt's here
    try:
        want = copy.deepcopy(ref).float().cuda()(x.float().cuda())[0]
        for cudnn in (False, True):
            m = lt.LSTM.from_torch(ref, cudnn=cudnn).cuda()
            _close(m(x.float().cuda()).double().cpu(), want.double().cpu(), 1e-5,
                   f"LSTM cudnn={cudnn} vs nn.LSTM")
        g = nn.GRU(I, 32, dtype=f64)
        m = gru_from_torch(g).cuda()   # flashrnn's products in tf32: its tests' bound
        want = copy.deepcopy(g).float().cuda()(x.float().cuda())[0]
        _close(m(x.float().cuda()).double().cpu(), want.double().cpu(), 5e-3,
               "FlashRNN gru vs nn.GRU")
    finally:
        torch.backends.cudnn.allow_tf32 = tf32
    print("  ok  cuda LSTM, lstm-cudnn and FlashRNN gru against nn.LSTM and nn.GRU")


def test_cuda_stream_and_refusals():
    if not torch.cuda.is_available():
        print("    (no GPU: skipped)")
        return
    m = lt.FlashRNN(I, 32, cell="lstm", head_dim=16).cuda()
    x = torch.randn(300, 4, I, device="cuda")
    want = m(x)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):   # ordered on the side stream: a kernel queued first delays it
        torch.cuda._sleep(50_000_000)
        got = m(x)
    torch.cuda.current_stream().wait_stream(s)
    assert torch.equal(got, want), "the same call on another stream"
    refuses(lambda: lt.FlashRNN(I, 32, cell="lstm").cpu()(x), lt.LogtValueError, "move the module")
    refuses(lambda: m(x.double()), lt.LogtError, "f64")
    refuses(lambda: m(x[:, :, :2]), lt.LogtValueError, "shape")
    a = torch.rand(100, 7, device="cuda")
    b = torch.randn(100, 7, device="cuda")
    h = lt.scan(a, b)
    want = core.scan(a.double().cpu().numpy(), b.double().cpu().numpy())
    _close(h.double().cpu(), torch.from_numpy(want), 1e-5, "scan f32")
    hb = lt.scan(a.bfloat16(), b.bfloat16())
    _close(hb.double().cpu(), torch.from_numpy(want), 5e-2, "scan bf16")
    hh = lt.scan(a.half(), b.half())
    _close(hh.double().cpu(), torch.from_numpy(want), 1e-2, "scan f16")
    print("  ok  cuda streams, refusals and the scan")


def _runner_losses(ini, steps):
    """The per-step training losses of `logt run` on the experiment `ini` (one run), or None
    (with a message) where the runner or h5py is missing."""
    try:
        import h5py
    except ImportError:
        print("    (h5py not installed: the comparison with the runner skipped)")
        return None
    repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    exe = os.environ.get("LOGT_BIN") or os.path.join(repo, "build", "bin", "logt")
    if not os.path.exists(exe):
        print(f"    ({exe} not built: the comparison with the runner skipped)")
        return None
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "exp"))
        with open(os.path.join(d, "exp", "experiment.ini"), "w") as f:
            f.write(ini)
        out = os.path.join(d, "out.h5")
        subprocess.run([exe, "run", os.path.join(d, "exp"), "--backend", "cpu", "--out", out],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        with h5py.File(out, "r") as f:
            found = []
            f.visititems(lambda name, obj: found.append(obj[()]) if name.endswith("/loss")
                         and isinstance(obj, h5py.Dataset) else None)
    assert len(found) == 1 and len(found[0]) == steps, [len(v) for v in found]
    return found[0]


def test_training_matches_the_runner():
    """The runner's training loop (readout, MSE, Adam) written in plain PyTorch around
    logt.torch.LSTM, on the runner's batches and initial parameters: the same losses."""
    seed, task, Tn, Bn, Dn, steps, lr = 3, "adding", 12, 8, 6, 30, 0.01
    want = _runner_losses(f"""[experiment]
name = torch-match
kind = train
models = lstm
backend = cpu
[sweep]
seed = {seed}
[train]
task = {task}
T = {Tn}
B = {Bn}
D = {Dn}
steps = {steps}
lr = {lr}
clip = 0
eval_every = {steps}
""", steps)
    if want is None:
        return
    info = core.task_info(task, Tn, seed)
    m = lt.LSTM(info.input_size, Dn, seed=seed)
    head = nn.Linear(Dn, info.output_size, dtype=f64)
    V, c = core.readout_init(Dn, info.output_size, seed)
    with torch.no_grad():
        head.weight.copy_(torch.from_numpy(V))
        head.bias.copy_(torch.from_numpy(c))
    opt = torch.optim.Adam(list(m.parameters()) + list(head.parameters()), lr=lr,
                           betas=(0.9, 0.999), eps=1e-8)
    got = []
    for k in range(steps):
        x, target = core.task_batch(task, Tn, Bn, k, seed)
        opt.zero_grad()
        y = m(torch.from_numpy(x))
        loss = (head(y[-info.out_steps:]) - torch.from_numpy(target)).pow(2).mean()
        loss.backward()
        opt.step()
        got.append(loss.item())
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=0)
    assert got[-1] < got[0]


def main():
    tests = [(n, f) for n, f in globals().items() if n.startswith("test_") and callable(f)]
    for name, fn in tests:
        fn()
        print(f"ok  {name}")
    print(f"all {len(tests)} tests passed")


if __name__ == "__main__":
    main()
