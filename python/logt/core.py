"""core.py — logt's layers and the linear scan on NumPy arrays (the float64 CPU path).

A Layer is one of logt's models stacked `layers` deep. Arrays are time-major and packed:
x [T][B][I], y [T][B][D], h0 and c0 [layers][B][D], the parameters w [nparams] in logt's
flat layout (Layer.slices names its pieces). Every array is float64 and C-contiguous: any
other is refused before the library is called. Errors from the library raise LogtError with
its message.
"""
import ctypes
import threading
from collections import namedtuple

import numpy as np

from . import _lib as L

Slice = namedtuple("Slice", "name offset numel shape")

DTYPES = {"f64": L.F64, "f32": L.F32, "bf16": L.BF16, "f16": L.F16}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
DEVICES = {"cpu": L.CPU, "cuda": L.CUDA}


class LogtError(RuntimeError):
    """A failure reported by liblogt: .status (the code), .status_name, .message."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = L.lib().logt_abi_status_name(status).decode()
        self.message = message
        super().__init__(f"logt: {self.status_name}: {message}")


class LogtValueError(LogtError, ValueError):
    """An argument refused before the library is called (shape, size, layout)."""


class LogtTypeError(LogtError, TypeError):
    """An argument of the wrong type or dtype, refused before the library is called."""


def version():
    """(ABI version, build string) of the loaded library."""
    lib = L.lib()
    return lib.logt_abi_version(), lib.logt_abi_build().decode()


def models():
    """The model ids the library knows."""
    lib = L.lib()
    n = lib.logt_abi_models(None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    lib.logt_abi_models(buf, n + 1)
    return buf.value.decode().split(", ")


def backend_available(device):
    return bool(L.lib().logt_abi_backend_available(DEVICES[device]))


def _check(status, handle=None):
    """Raise the failed call's error with its message: this thread's (logt_abi_errmsg), which
    another thread using the same layer cannot overwrite."""
    if status == L.OK:
        return
    raise LogtError(status, L.lib().logt_abi_errmsg().decode(errors="replace"))


def _ptr(a):
    return None if a is None else a.ctypes.data


def _array(a, name, shape):
    """a as it crosses the ABI: a float64 C-contiguous ndarray of `shape`, or refused."""
    if not isinstance(a, np.ndarray):
        raise LogtTypeError(L.EINVAL, f"{name} must be a numpy.ndarray, not {type(a).__name__}")
    if a.dtype != np.float64:
        raise LogtTypeError(L.EINVAL, f"{name} is {a.dtype} but the cpu path takes float64: "
                                      f"pass {name}.astype(np.float64)")
    if tuple(a.shape) != tuple(shape):
        raise LogtValueError(L.EINVAL, f"{name} has shape {list(a.shape)} but must be {list(shape)}")
    if not a.flags.c_contiguous:
        raise LogtValueError(L.EINVAL, f"{name} is not C-contiguous: pass np.ascontiguousarray({name})")
    return a


def _layer_from_config(config):
    return Layer(**config)


class Layer:
    """One of logt's models as a layer; model is a registry id ("lstm", "flashrnn", "sru",
    "gilr", "gilr-lstm", "deer", ...), knobs its settings (mode="quasi", forget_init=1, ...).
    device "cpu" or "cuda"; dtype None takes the device's default (f64 on cpu, f32 on cuda).
    The NumPy methods (forward, backward, params) run on cpu layers; forward_ptr and
    backward_ptr take raw pointers and a stream (what logt.torch uses on CUDA)."""

    def __init__(self, model, input_size, hidden_size, *, layers=1, cell="", head_dim=0,
                 device="cpu", dtype=None, seed=1, **knobs):
        lib = L.lib()
        if device not in DEVICES:
            raise LogtValueError(L.EINVAL, f"device '{device}': cpu or cuda")
        if dtype is not None and dtype not in DTYPES:
            raise LogtValueError(L.EINVAL, f"dtype '{dtype}': one of {', '.join(DTYPES)}")
        self.handle = 0
        keys = [str(k).encode() for k in knobs]
        vals = [str(v).encode() for v in knobs.values()]
        ckeys = (ctypes.c_char_p * max(1, len(keys)))(*keys)
        cvals = (ctypes.c_char_p * max(1, len(vals)))(*vals)
        h = ctypes.c_uint64(0)
        _check(lib.logt_layer_create(model.encode(), int(input_size), int(hidden_size),
                                     int(layers), (cell or "").encode(), int(head_dim),
                                     DEVICES[device], -1 if dtype is None else DTYPES[dtype],
                                     int(seed), len(keys), ckeys, cvals, ctypes.byref(h)))
        self.handle = h.value
        # one call sequence at a time from Python: a forward and what it leaves for backward
        # (x kept alive, the shape) change together, and a backward reads them unchanged
        self.lock = threading.RLock()
        self.model, self.cell, self.knobs, self.seed = model, cell, dict(knobs), seed
        self.input_size = self._get(L.INPUT_SIZE)
        self.hidden_size = self._get(L.HIDDEN_SIZE)
        self.layers = self._get(L.LAYERS)
        self.nstate = self._get(L.NSTATE)
        self.head_dim = self._get(L.HEAD_DIM)
        self.device = "cuda" if self._get(L.DEVICE) == L.CUDA else "cpu"
        self.dtype = DTYPE_NAMES[self._get(L.DTYPE)]
        self.param_dtype = DTYPE_NAMES[self._get(L.PARAM_DTYPE)]
        self.cuda_device = self._get(L.CUDA_DEVICE)
        self.nparams = self._get(L.NPARAMS)
        self.slices = [self._slice(i) for i in range(self._get(L.NSLICES))]

    def _get(self, what):
        v = ctypes.c_int64(0)
        _check(L.lib().logt_layer_get(self.handle, what, ctypes.byref(v)), self.handle)
        return v.value

    def _slice(self, i):
        name = ctypes.create_string_buffer(64)
        off, numel, ndim = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int()
        shape = (ctypes.c_int64 * 3)()
        _check(L.lib().logt_layer_slice(self.handle, i, name, 64, ctypes.byref(off),
                                        ctypes.byref(numel), ctypes.byref(ndim), shape), self.handle)
        return Slice(name.value.decode(), off.value, numel.value, tuple(shape[:ndim.value]))

    def slice(self, name):
        """The Slice called `name` ("l0.W")."""
        for s in self.slices:
            if s.name == name:
                return s
        raise KeyError(f"no slice {name!r}: the slices are {', '.join(s.name for s in self.slices)}")

    def view(self, w, name):
        """The piece `name` of the flat parameters w, in its shape (a view)."""
        s = self.slice(name)
        return w[s.offset:s.offset + s.numel].reshape(s.shape)

    # ---- raw pointers: the ABI's calls as they are ---------------------------------------

    def forward_ptr(self, w, T, B, x, h0, c0, y, stream=None):
        _check(L.lib().logt_layer_forward(self.handle, w, T, B, x, h0, c0, y, stream), self.handle)

    def backward_ptr(self, T, B, dy, dx, dw, dh0, dc0, stream=None):
        _check(L.lib().logt_layer_backward(self.handle, T, B, dy, dx, dw, dh0, dc0, stream),
               self.handle)

    def params_ptr(self, w, stream=None):
        _check(L.lib().logt_layer_params(self.handle, w, stream), self.handle)

    # ---- NumPy, cpu ----------------------------------------------------------------------

    def _require_cpu(self, what):
        if self.device != "cpu":
            raise LogtValueError(L.EINVAL, f"{what} takes NumPy arrays: a cpu layer's; this one "
                                           "is on cuda (use logt.torch)")

    def params(self):
        """The layer's own parameters (its initialisation from the seed) as a new array."""
        self._require_cpu("params")
        w = np.empty(self.nparams, np.float64)
        self.params_ptr(_ptr(w))
        return w

    def _state_shape(self, B):
        return (self.layers, B, self.hidden_size)

    def forward(self, x, w=None, h0=None, c0=None):
        """y [T][B][D] over x [T][B][I] with parameters w (None: the layer's own) from the
        initial state h0, c0 [layers][B][D] (None: zeros)."""
        self._require_cpu("forward")
        if not isinstance(x, np.ndarray) or x.ndim != 3:
            _array(x, "x", ("T", "B", self.input_size))
        T, B = x.shape[0], x.shape[1]
        _array(x, "x", (T, B, self.input_size))
        if w is not None:
            _array(w, "w", (self.nparams,))
        if h0 is not None:
            _array(h0, "h0", self._state_shape(B))
        if c0 is not None:
            _array(c0, "c0", self._state_shape(B))
        y = np.empty((T, B, self.hidden_size), np.float64)
        with self.lock:
            self.__dict__.pop("_last", None)   # a forward that fails leaves no backward
            self.forward_ptr(_ptr(w), T, B, _ptr(x), _ptr(h0), _ptr(c0), _ptr(y))
            # the library reads x again in backward: keep it alive until the next forward
            self._x = x
            self._last = (T, B, h0 is not None, c0 is not None)
        return y

    def backward(self, dy):
        """Gradients of the last forward from dy = dL/dy: (dx, dw, dh0, dc0); dh0 and dc0
        are None when that forward started from zeros."""
        self._require_cpu("backward")
        with self.lock:
            if not hasattr(self, "_last"):
                raise LogtValueError(L.EINVAL, "backward called before a forward that succeeded")
            T, B, has_h0, has_c0 = self._last
            _array(dy, "dy", (T, B, self.hidden_size))
            dx = np.empty((T, B, self.input_size), np.float64)
            dw = np.empty(self.nparams, np.float64)
            dh0 = np.empty(self._state_shape(B), np.float64) if has_h0 else None
            dc0 = np.empty(self._state_shape(B), np.float64) if has_c0 else None
            self.backward_ptr(T, B, _ptr(dy), _ptr(dx), _ptr(dw), _ptr(dh0), _ptr(dc0))
        return dx, dw, dh0, dc0

    # ---- lifetime ------------------------------------------------------------------------

    def close(self):
        """Destroy the layer; later calls raise LogtError (bad handle). Safe to repeat."""
        h, self.handle = self.handle, 0
        if h:
            L.lib().logt_layer_destroy(h)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def config(self):
        """What makes this layer: Layer(**layer.config()) is a new one like it."""
        return dict(model=self.model, input_size=self.input_size, hidden_size=self.hidden_size,
                    layers=self.layers, cell=self.cell, head_dim=self.head_dim, device=self.device,
                    dtype=self.dtype, seed=self.seed, **self.knobs)

    # a copy or a pickle is a new C layer from the same configuration, never the same handle
    def __deepcopy__(self, memo):
        return Layer(**self.config())

    def __copy__(self):
        return Layer(**self.config())

    def __reduce__(self):
        return (_layer_from_config, (self.config(),))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        extra = "".join(f", {k}={v!r}" for k, v in self.knobs.items())
        cell = f", cell={self.cell!r}" if self.cell else ""
        return (f"logt.core.Layer({self.model!r}, {self.input_size}, {self.hidden_size}, "
                f"layers={self.layers}{cell}, device={self.device!r}, dtype={self.dtype!r}{extra})")


def scan_ptr(device, dtype, reverse, T, C, a, b, h0, h, stream=None):
    _check(L.lib().logt_scan(device, dtype, int(reverse), T, C, a, b, h0, h, stream))


def scan_backward_ptr(device, dtype, T, C, a, h0, h, dh, da, db, dh0, stream=None):
    _check(L.lib().logt_scan_backward(device, dtype, T, C, a, h0, h, dh, da, db, dh0, stream))


def scan(a, b, h0=None, reverse=False):
    """h_t = a_t * h_{t-1} + b_t over axis 0 (reverse: from the last step down, h0 = h_T);
    a, b [T][...] float64, h0 [...] or None (zeros)."""
    _array(a, "a", a.shape if isinstance(a, np.ndarray) else ())
    _array(b, "b", a.shape)
    if a.ndim < 1 or a.shape[0] < 1:
        raise LogtValueError(L.EINVAL, "a must be [T][...] with T >= 1")
    if h0 is not None:
        _array(h0, "h0", a.shape[1:])
    T, C = a.shape[0], a[0].size
    h = np.empty_like(a)
    scan_ptr(L.CPU, L.F64, reverse, T, C, _ptr(a), _ptr(b), _ptr(h0), _ptr(h))
    return h


def scan_backward(a, h0, h, dh):
    """Gradients of a forward scan: (da, db, dh0) from its a, h0 (None: zeros), h and
    dh = dL/dh; dh0 is None when h0 is."""
    _array(a, "a", a.shape if isinstance(a, np.ndarray) else ())
    for name, v in (("h", h), ("dh", dh)):
        _array(v, name, a.shape)
    if h0 is not None:
        _array(h0, "h0", a.shape[1:])
    T, C = a.shape[0], a[0].size
    da, db = np.empty_like(a), np.empty_like(a)
    dh0 = None if h0 is None else np.empty_like(h0)
    scan_backward_ptr(L.CPU, L.F64, T, C, _ptr(a), _ptr(h0), _ptr(h), _ptr(dh), _ptr(da),
                      _ptr(db), _ptr(dh0))
    return da, db, dh0


# ---- what `logt run` feeds a layer, for comparisons with it ----------------------------------

RUNNER_X_STREAM, RUNNER_DY_STREAM = 0x78, 0x6468
Task = namedtuple("Task", "input_size output_size out_steps loss")


def uniform(seed, stream, shape, lo=-1.0, hi=1.0):
    """Values lo + (hi - lo) u, u in [0, 1) a hash of (seed, stream, index) in C order: what a
    speed run of `logt run` fills x (RUNNER_X_STREAM) and dy (RUNNER_DY_STREAM) with."""
    out = np.empty(shape, dtype=np.float64)
    _check(L.lib().logt_abi_uniform(seed, stream, out.size, lo, hi, _ptr(out)))
    return out


def task_info(task, T, seed=1):
    """The sizes of a training task of `logt run` ([train] task): Task(input_size,
    output_size, out_steps, loss "mse" or "xent")."""
    v = [ctypes.c_int() for _ in range(4)]
    _check(L.lib().logt_task_info(task.encode(), T, seed, *[ctypes.byref(c) for c in v]))
    return Task(v[0].value, v[1].value, v[2].value, "xent" if v[3].value else "mse")


def task_batch(task, T, B, index, seed=1, split=0):
    """Batch `index` of a split (0 train, 1 validation, 2 test) of the task: x [T][B][I] and
    the target, [out_steps][B][O] (mse) or class ids [out_steps][B] (xent). Training step k
    of `logt run` takes train batch k."""
    t = task_info(task, T, seed)
    x = np.empty((T, B, t.input_size))
    target = np.empty((t.out_steps, B, t.output_size) if t.loss == "mse" else (t.out_steps, B))
    _check(L.lib().logt_task_batch(task.encode(), T, seed, split, index, B, _ptr(x),
                                   _ptr(target)))
    return x, target


def readout_init(D, O, seed=1):
    """The initial readout of a training run of `logt run`: (V [O][D], c [O])."""
    w = np.empty(O * D + O)
    _check(L.lib().logt_readout_init_params(D, O, seed, _ptr(w)))
    return w[:O * D].reshape(O, D), w[O * D:]
