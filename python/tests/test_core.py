"""test_core.py — logt.core through liblogt.so, NumPy only: python3 python/tests/test_core.py

Every model's CPU path: forward (lstm against a NumPy LSTM, the scan against a loop),
gradients against central differences; errors crossing as exceptions; handles destroyed
twice or used after destroy; several layers in one process and in threads. Fails with an
AssertionError (exit code 1) at the first wrong result.
"""
import ctypes
import os
import sys
import threading
import zlib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import logt  # noqa: E402
from logt import _lib  # noqa: E402

T, B, I, D = 5, 3, 3, 4
EPS = 1e-6

# (name, Layer arguments, gives c0): every model with a cpu path, its cells and modes
CASES = [
    ("lstm", dict(model="lstm", layers=2), True),
    ("gilr", dict(model="gilr"), False),
    ("gilr-lstm", dict(model="gilr-lstm", layers=2), True),
    ("sru", dict(model="sru"), False),
    ("sru v=zero", dict(model="sru", v="zero"), False),
    ("flashrnn lstm dh=2", dict(model="flashrnn", cell="lstm", head_dim=2, layers=2), True),
    ("flashrnn gru dh=2", dict(model="flashrnn", cell="gru", head_dim=2), False),
    ("deer gru full", dict(model="deer", cell="gru", mode="full", tol=1e-14), False),
    ("deer gru quasi", dict(model="deer", cell="gru", mode="quasi", tol=1e-14), False),
    ("deer gru damped", dict(model="deer", cell="gru", mode="damped", tol=1e-14), False),
    ("deer lstm quasi", dict(model="deer", cell="lstm", mode="quasi", tol=1e-14), True),
    ("deer tanh full", dict(model="deer", cell="tanh", mode="full", tol=1e-14), False),
]


def close(a, b, atol, rtol, what):
    err = np.abs(a - b)
    bad = err > atol + rtol * np.abs(b)
    assert not bad.any(), (f"{what}: {bad.sum()} of {bad.size} differ, max abs err "
                           f"{err.max():.3g}, first at {np.argwhere(bad)[0].tolist()}: "
                           f"{a[bad][0]!r} vs {b[bad][0]!r}")


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def lstm_numpy(layer, w, x, h0, c0):
    """README's LSTM formula, layer after layer, from the named slices of w."""
    out = x
    for l in range(layer.layers):
        W, R, b = (layer.view(w, f"l{l}.{n}") for n in "WRb")
        h, c = h0[l].copy(), c0[l].copy()
        ys = []
        for t in range(out.shape[0]):
            z = out[t] @ W.T + h @ R.T + b
            i, f, g, o = sigmoid(z[:, :D]), sigmoid(z[:, D:2 * D]), np.tanh(z[:, 2 * D:3 * D]), \
                sigmoid(z[:, 3 * D:])
            c = f * c + i * g
            h = o * np.tanh(c)
            ys.append(h)
        out = np.stack(ys)
    return out


def test_lstm_forward_formula():
    rng = np.random.default_rng(1)
    with logt.Layer("lstm", I, D, layers=2, seed=7) as layer:
        w = layer.params()
        assert np.abs(w).max() <= 1 / np.sqrt(D) + 1e-15, "init is uniform in ±1/√D"
        x = rng.standard_normal((T, B, I))
        h0, c0 = rng.standard_normal((2, 2, B, D))
        close(layer.forward(x, w, h0, c0), lstm_numpy(layer, w, x, h0, c0), 1e-13, 1e-12,
              "lstm vs NumPy")
        close(layer.forward(x), lstm_numpy(layer, w, x, 0 * h0, 0 * c0), 1e-13, 1e-12,
              "lstm vs NumPy, zero state, own parameters")


def test_lstm_layout():
    with logt.Layer("lstm", I, D, layers=2) as layer:
        names = [(s.name, s.shape) for s in layer.slices]
        assert names == [("l0.W", (4 * D, I)), ("l0.R", (4 * D, D)), ("l0.b", (4 * D,)),
                         ("l1.W", (4 * D, D)), ("l1.R", (4 * D, D)), ("l1.b", (4 * D,))], names
        assert layer.nparams == sum(s.numel for s in layer.slices)
        assert layer.nstate == 2 and layer.layers == 2 and layer.dtype == "f64"


def sample(n, k, rng):
    return rng.choice(n, size=min(n, k), replace=False)


def gradcheck(name, kw, with_c0):
    """Central differences of L = sum(r * y) against backward, for w, x, h0 (and c0)."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    kw = dict(kw)
    model = kw.pop("model")
    with logt.Layer(model, I, D, seed=3, **kw) as layer:
        L = layer.layers
        w = layer.params() + 0.1 * rng.standard_normal(layer.nparams)
        x = rng.standard_normal((T, B, I))
        h0 = 0.5 * rng.standard_normal((L, B, D))
        c0 = 0.5 * rng.standard_normal((L, B, D)) if with_c0 else None
        r = rng.standard_normal((T, B, D))

        def loss(w, x, h0, c0):
            return float((r * layer.forward(x, w, h0, c0)).sum())

        y = layer.forward(x, w, h0, c0)
        assert np.isfinite(y).all(), f"{name}: forward not finite"
        dx, dw, dh0, dc0 = layer.backward(r)
        assert (dc0 is None) == (c0 is None)
        args = {"w": w, "x": x, "h0": h0, "c0": c0}
        grads = {"w": dw, "x": dx, "h0": dh0, "c0": dc0}
        for key in ("w", "x", "h0", "c0"):
            if args[key] is None:
                continue
            flat = args[key].reshape(-1)
            idx = sample(flat.size, 48, rng)
            fd = np.empty(idx.size)
            for j, e in enumerate(idx):
                keep = flat[e]
                flat[e] = keep + EPS
                up = loss(**args)
                flat[e] = keep - EPS
                down = loss(**args)
                flat[e] = keep
                fd[j] = (up - down) / (2 * EPS)
            close(grads[key].reshape(-1)[idx], fd, 1e-7, 1e-5, f"{name}: d{key} vs central differences")


def test_every_model_gradients():
    for name, kw, with_c0 in CASES:
        gradcheck(name, kw, with_c0)
        print(f"  ok  gradients of {name}")


def test_backward_without_state():
    rng = np.random.default_rng(2)
    with logt.Layer("sru", I, D) as layer:
        x = rng.standard_normal((T, B, I))
        layer.forward(x)
        dx, dw, dh0, dc0 = layer.backward(np.ones((T, B, D)))
        assert dh0 is None and dc0 is None and np.isfinite(dx).all() and np.isfinite(dw).all()


def test_scan():
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, (7, 2, 3))
    b = rng.standard_normal((7, 2, 3))
    h0 = rng.standard_normal((2, 3))
    ref, h = np.empty_like(a), h0.copy()
    for t in range(7):
        h = a[t] * h + b[t]
        ref[t] = h
    close(logt.scan(a, b, h0), ref, 1e-14, 1e-13, "scan vs loop")
    rev, h = np.empty_like(a), h0.copy()
    for t in reversed(range(7)):
        h = a[t] * h + b[t]
        rev[t] = h
    close(logt.scan(a, b, h0, reverse=True), rev, 1e-14, 1e-13, "reversed scan vs loop")
    close(logt.scan(a, b), logt.scan(a, b, np.zeros((2, 3))), 0, 0, "scan, h0 None is zeros")

    r = rng.standard_normal(a.shape)
    da, db, dh0 = logt.scan_backward(a, h0, logt.scan(a, b, h0), r)
    for name, v, g in (("a", a, da), ("b", b, db), ("h0", h0, dh0)):
        flat, fd = v.reshape(-1), np.empty(v.size)
        for e in range(v.size):
            keep = flat[e]
            flat[e] = keep + EPS
            up = (r * logt.scan(a, b, h0)).sum()
            flat[e] = keep - EPS
            down = (r * logt.scan(a, b, h0)).sum()
            flat[e] = keep
            fd[e] = (up - down) / (2 * EPS)
        close(g.reshape(-1), fd, 1e-8, 1e-6, f"scan: d{name} vs central differences")


def raises(fn, cls, *words):
    try:
        fn()
    except cls as e:
        for w in words:
            assert w in str(e), f"message {str(e)!r} lacks {w!r}"
        return e
    raise AssertionError(f"no {cls.__name__} raised (wanted one mentioning {words})")


def test_errors_cross_as_exceptions():
    e = raises(lambda: logt.Layer("nope", I, D), logt.LogtError, "unknown model 'nope'", "lstm")
    assert e.status == _lib.EINVAL and e.status_name == "invalid argument"
    raises(lambda: logt.Layer("deer", I, D, mode="bogus"), logt.LogtError, "mode = 'bogus'")
    raises(lambda: logt.Layer("lstm", I, D, color="red"), logt.LogtError, "color")
    raises(lambda: logt.Layer("flashrnn", I, D, head_dim=3), logt.LogtError, "does not divide")
    raises(lambda: logt.Layer("lstm", I, D, dtype="f32"), logt.LogtError, "f32")
    raises(lambda: logt.Layer("lstm-cudnn", I, D), logt.LogtError, "cpu")
    if not logt.backend_available("cuda"):
        raises(lambda: logt.Layer("lstm", I, D, device="cuda"), logt.LogtError, "cuda")
    with logt.Layer("lstm", I, D) as layer:
        raises(lambda: layer.backward(np.ones((T, B, D))), logt.LogtValueError, "before a forward")
        raises(lambda: layer.forward(np.zeros((T, B, I), np.float32)), logt.LogtTypeError, "float64")
        raises(lambda: layer.forward(np.zeros((T, B, I + 1))), logt.LogtValueError, "shape")
        raises(lambda: layer.forward(np.zeros((T, I, B)).transpose(0, 2, 1)), logt.LogtValueError,
               "contiguous")
        raises(lambda: layer.forward([[[0.0] * I]]), logt.LogtTypeError, "ndarray")
        raises(lambda: layer.forward(np.zeros((T, B, I)), h0=np.zeros((1, B + 1, D))),
               logt.LogtValueError, "h0")
        # the library's own checks, through the raw ABI: T = 0, and backward before forward
        h = layer.handle
        lib = _lib.lib()
        st = lib.logt_layer_forward(h, None, 0, B, 1, None, None, 1, None)
        assert st == _lib.EINVAL
        buf = ctypes.create_string_buffer(256)
        lib.logt_layer_errmsg(h, buf, 256)
        assert b"T = 0" in buf.value, buf.value
        assert b"T = 0" in lib.logt_abi_errmsg(), "the thread's message too"
        st = lib.logt_layer_backward(h, T, B, 1, None, None, None, None, None)
        assert st == _lib.EINVAL and b"before forward" in lib.logt_abi_errmsg()
    with logt.Layer("sru", I, D) as layer:   # c0 for a model without a cell state
        raises(lambda: layer.forward(np.zeros((T, B, I)), c0=np.zeros((1, B, D))), logt.LogtError,
               "no cell state")
    raises(lambda: logt.scan(np.ones((3, 2)), np.ones((3, 3))), logt.LogtValueError, "shape")


def test_handles():
    lib = _lib.lib()
    layer = logt.Layer("lstm", I, D)
    h = layer.handle
    assert lib.logt_layer_destroy(h) == _lib.OK
    assert lib.logt_layer_destroy(h) == _lib.EHANDLE, "double destroy is refused, no crash"
    assert b"not a live layer" in lib.logt_abi_errmsg()
    v = ctypes.c_int64()
    assert lib.logt_layer_get(h, _lib.NPARAMS, ctypes.byref(v)) == _lib.EHANDLE
    y = np.empty((T, B, D))
    x = np.zeros((T, B, I))
    assert lib.logt_layer_forward(h, None, T, B, x.ctypes.data, None, None, y.ctypes.data,
                                  None) == _lib.EHANDLE, "use after destroy is refused"
    e = raises(lambda: layer.forward(x), logt.LogtError, "not a live layer")
    assert e.status == _lib.EHANDLE
    layer.handle = 0
    layer.close()
    layer.close()
    # the slot is reused with a new generation: the old handle stays dead
    other = logt.Layer("sru", I, D)
    assert other.handle & 0xffffffff == h & 0xffffffff and other.handle != h
    assert lib.logt_layer_destroy(h) == _lib.EHANDLE
    assert other.forward(x).shape == (T, B, D)
    for bogus in (0, 1, 12345678, 2**64 - 1, (7 << 32) | 4097):
        assert lib.logt_layer_destroy(bogus) == _lib.EHANDLE
    other.close()


def test_a_failed_forward_leaves_no_backward():
    """A forward that fails (a NaN the solver cannot converge through) leaves the layer with
    no backward to run: the earlier forward's state is gone, half replaced."""
    core = logt.core
    l = core.Layer("deer", 3, 4, cell="gru", mode="quasi", tol=np.float64(1e-8))  # NumPy knob
    x = np.random.default_rng(3).uniform(-1, 1, (20, 2, 3))
    y = l.forward(x)
    l.backward(np.ones_like(y))
    bad = x.copy()
    bad[3, 0, 1] = np.nan
    try:
        l.forward(bad)
    except core.LogtError:
        pass
    else:
        raise AssertionError("a NaN input converged")
    try:
        l.backward(np.ones_like(y))
    except core.LogtError as e:
        assert "before a forward that succeeded" in str(e), e
    else:
        raise AssertionError("backward ran after a failed forward")
    # the C side refuses too, whatever the caller keeps
    dw = np.empty(l.nparams)
    dy = np.ones_like(y)
    st = _lib.lib().logt_layer_backward(l.handle, 20, 2, dy.ctypes.data, None, dw.ctypes.data,
                                        None, None, None)
    assert st != 0, "the ABI ran a backward after a failed forward"
    l.close()


def test_copies_and_pickles_are_new_layers():
    import copy
    import pickle
    core = logt.core
    l = core.Layer("lstm", 3, 4, layers=2, seed=5)
    x = np.random.default_rng(4).uniform(-1, 1, (6, 2, 3))
    for other in (copy.deepcopy(l), copy.copy(l), pickle.loads(pickle.dumps(l))):
        assert other.handle != l.handle and other.config() == l.config()
        assert np.array_equal(other.forward(x), l.forward(x))
        other.close()
    assert np.isfinite(l.forward(x)).all(), "closing a copy touched the original"
    l.close()


def test_two_layers_one_process():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((T, B, I))
    a, b = logt.Layer("lstm", I, D, seed=1), logt.Layer("deer", I, D, cell="gru", seed=2)
    ya, yb = a.forward(x), b.forward(x)
    ga, gb = a.backward(np.ones_like(ya)), b.backward(np.ones_like(yb))
    # interleaved: each layer keeps its own activations between forward and backward
    a.forward(x)
    b.forward(x)
    close(a.backward(np.ones_like(ya))[1], ga[1], 0, 0, "a's dw after b ran")
    close(b.backward(np.ones_like(yb))[1], gb[1], 0, 0, "b's dw after a ran")
    # in threads at once, a layer each, and one failing (its message stays its own)
    out, errs = {}, {}

    def run(key, layer):
        try:
            for _ in range(20):
                out[key] = layer.forward(x)
        except Exception as e:  # noqa: BLE001
            errs[key] = e

    def fail():
        try:
            for _ in range(20):
                logt.Layer("nope", 1, 1)
        except logt.LogtError as e:
            errs["bad"] = e

    ts = [threading.Thread(target=run, args=("a", a)), threading.Thread(target=run, args=("b", b)),
          threading.Thread(target=fail)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert set(errs) == {"bad"} and "unknown model" in str(errs["bad"]), errs
    close(out["a"], ya, 0, 0, "a in a thread")
    close(out["b"], yb, 0, 0, "b in a thread")
    a.close()
    b.close()


def test_runner_inputs_and_checksums():
    """The runner's inputs through the ABI reproduce its speed runs bit for bit: y, dx and dw
    of a layer on x and dy from logt.core.uniform have the CRC-32s that `logt run` stores
    ([speed] checksum = true). Skipped without h5py or a built runner."""
    try:
        import h5py
    except ImportError:
        print("    (h5py not installed: skipped)")
        return
    import subprocess
    import tempfile
    repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    exe = os.environ.get("LOGT_BIN") or os.path.join(repo, "build", "bin", "logt")
    if not os.path.exists(exe):
        print(f"    ({exe} not built: skipped)")
        return
    u = logt.core.uniform(7, 9, (4, 3))
    assert u.min() >= -1 and u.max() < 1 and np.array_equal(u, logt.core.uniform(7, 9, (4, 3)))
    assert not np.array_equal(u, logt.core.uniform(7, 10, (4, 3)))
    Tr, Br, Ir, Dr, seed = 23, 3, 5, 6, 4
    for model, cell, hd in (("lstm", "", 0), ("flashrnn", "gru", 3), ("sru", "", 0)):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "exp"))
            with open(os.path.join(d, "exp", "experiment.ini"), "w") as f:
                f.write(f"[experiment]\nname = ck\nkind = speed\nmodels = {model}\n"
                        f"backend = cpu\n[sweep]\nT = {Tr}\nB = {Br}\nD = {Dr}\n"
                        f"input_size = {Ir}\nhead_dim = {hd}\n"
                        + (f"cell = {cell}\n" if cell else "") + "pass = fwdbwd\n"
                        f"seed = {seed}\n[speed]\nwarmup = 0\nrepeats = 1\nchecksum = true\n")
            out = os.path.join(d, "out.h5")
            subprocess.run([exe, "run", os.path.join(d, "exp"), "--out", out], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with h5py.File(out, "r") as f:
                run = dict(f["runs"]["000000"].attrs)
        lay = logt.core.Layer(model, Ir, Dr, cell=cell, head_dim=hd, seed=seed)
        x = logt.core.uniform(seed, logt.core.RUNNER_X_STREAM, (Tr, Br, Ir))
        dy = logt.core.uniform(seed, logt.core.RUNNER_DY_STREAM, (Tr, Br, Dr))
        y = lay.forward(x)
        dx, dw, _, _ = lay.backward(dy)
        for name, v in (("y", y), ("dx", dx), ("dw", dw)):
            assert zlib.crc32(v.tobytes()) == run[f"crc32_{name}"], f"{model} {name}"
        lay.close()


def main():
    print(f"logt {logt.version()} from {_lib.lib().path}")
    tests = [(n, f) for n, f in globals().items() if n.startswith("test_") and callable(f)]
    for name, fn in tests:
        fn()
        print(f"ok  {name}")
    print(f"all {len(tests)} tests passed")


if __name__ == "__main__":
    main()
