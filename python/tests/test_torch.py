"""test_torch.py — logt.torch on the CPU path: python python/tests/test_torch.py

torch.autograd.gradcheck in float64 for every module (through parameters, input and initial
state) and for the scan; LSTM.from_torch / to_torch against nn.LSTM's output; refusals of
wrong inputs before anything runs; a short training loop that lowers its loss. Skips (exit
code 0, with a message) where torch is not installed.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
try:
    import torch
except ImportError:
    print("test_torch.py: torch not installed, skipping")
    sys.exit(0)

from torch import nn  # noqa: E402
from torch.autograd import gradcheck  # noqa: E402
from torch.func import functional_call  # noqa: E402

import logt.torch as lt  # noqa: E402

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


def main():
    tests = [(n, f) for n, f in globals().items() if n.startswith("test_") and callable(f)]
    for name, fn in tests:
        fn()
        print(f"ok  {name}")
    print(f"all {len(tests)} tests passed")


if __name__ == "__main__":
    main()
