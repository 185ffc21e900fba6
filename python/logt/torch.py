"""torch.py — logt's layers as torch.autograd.Functions and nn.Modules.

CPU tensors run the float64 CPU reference; CUDA tensors run logt's CUDA path on the tensors'
device pointers, ordered on torch.cuda.current_stream(). Tensors are time-major like
nn.LSTM's default: x [T][B][I] -> y [T][B][D]; h0, c0 [num_layers][B][D]. A module's
parameters are one nn.Parameter, `weight`, in logt's flat layout (module.slices names the
pieces, module.param(name) views one); it is float64 and is cast to float32 on the way into a
CUDA layer (logt's parameters there). Inputs of the wrong type, dtype, device, shape or
layout raise LogtTypeError / LogtValueError before anything runs; the library's own refusals
raise LogtError with its message.
"""
import torch
from torch import nn
from torch.autograd.function import once_differentiable

from . import _lib as L
from . import core
from .core import LogtError, LogtTypeError, LogtValueError

__all__ = ["Layer", "LSTM", "FlashRNN", "SRU", "GILRLSTM", "DEER", "LayerFunction", "scan",
           "LogtError", "LogtTypeError", "LogtValueError"]

_DTYPE_NAMES = {torch.float64: "f64", torch.float32: "f32", torch.bfloat16: "bf16",
                torch.float16: "f16"}
_DTYPE_CODES = {"f64": L.F64, "f32": L.F32, "bf16": L.BF16, "f16": L.F16}


def _param_dtype(device):
    return torch.float64 if device.type == "cpu" else torch.float32


def _stream(device):
    return torch.cuda.current_stream(device).cuda_stream if device.type == "cuda" else None


def _ptr(t):
    return None if t is None else t.data_ptr()


def _check(t, name, shape, dtype, device):
    """t as it crosses the ABI: a contiguous tensor of this shape, dtype and device."""
    if not isinstance(t, torch.Tensor):
        raise LogtTypeError(L.EINVAL, f"{name} must be a torch.Tensor, not {type(t).__name__}")
    if t.device != device:
        raise LogtValueError(L.EINVAL, f"{name} is on {t.device} but must be on {device}")
    if t.dtype != dtype:
        raise LogtTypeError(L.EINVAL, f"{name} is {t.dtype} but must be {dtype}")
    if tuple(t.shape) != tuple(shape):
        raise LogtValueError(L.EINVAL, f"{name} has shape {list(t.shape)} but must be "
                                       f"{list(shape)}")
    if not t.is_contiguous():
        raise LogtValueError(L.EINVAL, f"{name} is not contiguous: pass {name}.contiguous()")


class _Device:
    """The tensor's CUDA device made current for a call (nothing on the CPU)."""

    def __init__(self, device):
        self.ctx = torch.cuda.device(device) if device.type == "cuda" else None

    def __enter__(self):
        if self.ctx:
            self.ctx.__enter__()

    def __exit__(self, *exc):
        if self.ctx:
            self.ctx.__exit__(*exc)


def _forward(layer, w, x, h0, c0):
    """Run the forward; the C layer now keeps its activations and reads x again in backward,
    so the token names this forward and the x it read (its address). Call under layer.lock."""
    T, B = x.shape[0], x.shape[1]
    y = torch.empty((T, B, layer.hidden_size), dtype=x.dtype, device=x.device)
    layer.token = None   # a forward that fails leaves no backward
    with _Device(x.device):
        layer.forward_ptr(_ptr(w), T, B, _ptr(x), _ptr(h0), _ptr(c0), _ptr(y), _stream(x.device))
    layer.token = (object(), x.data_ptr())
    return y, layer.token


class LayerFunction(torch.autograd.Function):
    """y = layer(x; w) from (h0, c0), for a logt.core.Layer of x's device and dtype. The
    arguments are checked by the caller (Layer.forward)."""

    @staticmethod
    def forward(ctx, layer, w, x, h0, c0):
        with layer.lock:
            y, ctx.token = _forward(layer, w, x, h0, c0)
        ctx.layer = layer
        ctx.save_for_backward(w, x, h0, c0)
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        layer = ctx.layer
        w, x, h0, c0 = ctx.saved_tensors
        dy = dy.contiguous()
        T, B = x.shape[0], x.shape[1]
        need = ctx.needs_input_grad
        dw = torch.empty_like(w) if need[1] else None
        dx = torch.empty_like(x) if need[2] else None
        dh0 = torch.empty_like(h0) if h0 is not None and need[3] else None
        dc0 = torch.empty_like(c0) if c0 is not None and need[4] else None
        with layer.lock:
            # the C layer must hold this forward's activations, over this very x (a saved
            # tensor may come back as a copy, the original freed): else run it again
            if layer.token is not ctx.token or ctx.token[1] != x.data_ptr():
                _, ctx.token = _forward(layer, w, x, h0, c0)
            with _Device(x.device):
                layer.backward_ptr(T, B, _ptr(dy), _ptr(dx), _ptr(dw), _ptr(dh0), _ptr(dc0),
                                   _stream(x.device))
        return None, dw, dx, dh0, dc0


class Layer(nn.Module):
    """One of logt's models (model = "lstm", "flashrnn", "sru", "gilr", "gilr-lstm", "deer",
    "lstm-cudnn" on CUDA only) stacked num_layers deep, with its knobs (mode="quasi",
    forget_init=1, ...). The C layers are made on first use, one per device and dtype of x."""

    def __init__(self, model, input_size, hidden_size, num_layers=1, *, cell="", head_dim=0,
                 seed=1, **knobs):
        super().__init__()
        self.model, self.input_size, self.hidden_size = model, input_size, hidden_size
        self.num_layers, self.cell, self.head_dim, self.seed = num_layers, cell, head_dim, seed
        self.knobs = dict(knobs)
        # the configuration is checked here, on a cpu layer, and gives the initial parameters
        # (models without a cpu path, lstm-cudnn, take lstm's: the same layout and init)
        ref = model if model != "lstm-cudnn" else "lstm"
        ref_knobs = knobs if ref == model else {k: v for k, v in knobs.items() if k == "forget_init"}
        cpu = core.Layer(ref, input_size, hidden_size, layers=num_layers, cell=cell,
                         head_dim=head_dim, seed=seed, **ref_knobs)
        self.slices = cpu.slices
        self.nstate = cpu.nstate
        self.weight = nn.Parameter(torch.from_numpy(cpu.params()))
        self._layers = {("cpu", None, "f64"): cpu} if ref == model else {}

    def _layer(self, x):
        dt = _DTYPE_NAMES.get(x.dtype)
        if dt is None:
            raise LogtTypeError(L.EINVAL, f"x is {x.dtype}: logt takes float64 on the cpu and "
                                          "float32, bfloat16 or float16 on cuda (per model)")
        key = (x.device.type, x.device.index, dt)
        if key not in self._layers:
            with _Device(x.device):
                self._layers[key] = core.Layer(self.model, self.input_size, self.hidden_size,
                                               layers=self.num_layers, cell=self.cell,
                                               head_dim=self.head_dim, device=x.device.type,
                                               dtype=dt, seed=self.seed, **self.knobs)
        return self._layers[key]

    def param(self, name):
        """The piece `name` ("l0.W") of self.weight, in its shape (a view)."""
        for s in self.slices:
            if s.name == name:
                return self.weight[s.offset:s.offset + s.numel].view(s.shape)
        raise KeyError(f"no slice {name!r}: the slices are {', '.join(s.name for s in self.slices)}")

    def forward(self, x, h0=None, c0=None):
        if not isinstance(x, torch.Tensor) or x.dim() != 3:
            raise LogtValueError(L.EINVAL, f"x must be a tensor [T][B][{self.input_size}]")
        layer = self._layer(x)
        T, B = x.shape[0], x.shape[1]
        _check(x, "x", (T, B, self.input_size), x.dtype, x.device)
        state = (self.num_layers, B, self.hidden_size)
        if h0 is not None:
            _check(h0, "h0", state, x.dtype, x.device)
        if c0 is not None:
            if self.nstate < 2:
                raise LogtValueError(L.EINVAL, f"{self.model} has no cell state c0")
            _check(c0, "c0", state, x.dtype, x.device)
        w = self.weight
        if w.device != x.device:
            raise LogtValueError(L.EINVAL, f"the parameters are on {w.device} but x is on "
                                           f"{x.device}: move the module (module.to(x.device))")
        w = w.to(_param_dtype(x.device))
        _check(w, "weight", (layer.nparams,), w.dtype, x.device)
        return LayerFunction.apply(layer, w, x, h0, c0)

    def extra_repr(self):
        extra = "".join(f", {k}={v!r}" for k, v in self.knobs.items())
        cell = f", cell={self.cell!r}" if self.cell else ""
        hd = f", head_dim={self.head_dim}" if self.head_dim else ""
        return (f"{self.model!r}, {self.input_size}, {self.hidden_size}, "
                f"num_layers={self.num_layers}{cell}{hd}{extra}")


class LSTM(Layer):
    """logt's LSTM (model lstm; cudnn=True: lstm-cudnn, CUDA only, same parameters). Its
    parameters map to nn.LSTM's as README.md's "The LSTM parameter layout" states:
    weight_ih_l{k} = l{k}.W, weight_hh_l{k} = l{k}.R, bias_ih_l{k} + bias_hh_l{k} = l{k}.b."""

    def __init__(self, input_size, hidden_size, num_layers=1, *, cudnn=False, seed=1, **knobs):
        super().__init__("lstm-cudnn" if cudnn else "lstm", input_size, hidden_size, num_layers,
                         seed=seed, **knobs)

    @classmethod
    def from_torch(cls, m, **kwargs):
        """A logt LSTM with nn.LSTM m's parameters (float64, on the cpu)."""
        if not isinstance(m, nn.LSTM):
            raise LogtTypeError(L.EINVAL, f"from_torch takes an nn.LSTM, not {type(m).__name__}")
        if m.bidirectional or m.proj_size or m.batch_first or m.dropout:
            raise LogtValueError(L.EINVAL, "from_torch: logt's LSTM is one-directional, "
                                           "time-major, without projections or dropout "
                                           "(bidirectional=False, proj_size=0, batch_first=False, "
                                           "dropout=0)")
        out = cls(m.input_size, m.hidden_size, m.num_layers, **kwargs)
        with torch.no_grad():
            for k in range(m.num_layers):
                out.param(f"l{k}.W").copy_(getattr(m, f"weight_ih_l{k}"))
                out.param(f"l{k}.R").copy_(getattr(m, f"weight_hh_l{k}"))
                b = out.param(f"l{k}.b")
                b.zero_()
                if m.bias:
                    b.add_(getattr(m, f"bias_ih_l{k}")).add_(getattr(m, f"bias_hh_l{k}"))
        return out

    def to_torch(self):
        """An nn.LSTM (float64, on the cpu, time-major) computing the same function."""
        m = nn.LSTM(self.input_size, self.hidden_size, self.num_layers, dtype=torch.float64)
        with torch.no_grad():
            for k in range(self.num_layers):
                getattr(m, f"weight_ih_l{k}").copy_(self.param(f"l{k}.W"))
                getattr(m, f"weight_hh_l{k}").copy_(self.param(f"l{k}.R"))
                getattr(m, f"bias_ih_l{k}").copy_(self.param(f"l{k}.b"))
                getattr(m, f"bias_hh_l{k}").zero_()
        return m


class FlashRNN(Layer):
    """FlashRNN's head-wise cells (cell "lstm", "gru", "slstm" or "elman"), D split into heads
    of head_dim (0: one head; on CUDA a multiple of 16)."""

    def __init__(self, input_size, hidden_size, num_layers=1, *, cell="lstm", head_dim=0, seed=1,
                 **knobs):
        super().__init__("flashrnn", input_size, hidden_size, num_layers, cell=cell,
                         head_dim=head_dim, seed=seed, **knobs)


class SRU(Layer):
    """The Simple Recurrent Unit (v="zero": the 2017 form)."""

    def __init__(self, input_size, hidden_size, num_layers=1, *, seed=1, **knobs):
        super().__init__("sru", input_size, hidden_size, num_layers, seed=seed, **knobs)


class GILRLSTM(Layer):
    """Martin & Cundy's GILR-LSTM: two linear scans."""

    def __init__(self, input_size, hidden_size, num_layers=1, *, seed=1, **knobs):
        super().__init__("gilr-lstm", input_size, hidden_size, num_layers, seed=seed, **knobs)


class DEER(Layer):
    """A GRU, LSTM or tanh RNN (cell) solved by Newton's method over the sequence: mode
    "full", "quasi" or "damped"."""

    def __init__(self, input_size, hidden_size, num_layers=1, *, cell="gru", mode="quasi", seed=1,
                 **knobs):
        super().__init__("deer", input_size, hidden_size, num_layers, cell=cell, seed=seed,
                         mode=mode, **knobs)


def _scan_dtype(t):
    ok = (torch.float64,) if t.device.type == "cpu" else (torch.float32, torch.bfloat16, torch.float16)
    if t.dtype not in ok:
        raise LogtTypeError(L.EINVAL, f"the scan on {t.device.type} takes "
                                      f"{' or '.join(map(str, ok))}, not {t.dtype}")
    return _DTYPE_CODES[_DTYPE_NAMES[t.dtype]]


class ScanFunction(torch.autograd.Function):
    """The forward linear scan h_t = a_t * h_{t-1} + b_t over dim 0 (arguments checked by scan)."""

    @staticmethod
    def forward(ctx, a, b, h0):
        dev, dt = L.CUDA if a.is_cuda else L.CPU, _scan_dtype(a)
        T, C = a.shape[0], a[0].numel()
        h = torch.empty_like(a)
        with _Device(a.device):
            core.scan_ptr(dev, dt, 0, T, C, _ptr(a), _ptr(b), _ptr(h0), _ptr(h), _stream(a.device))
        ctx.save_for_backward(a, h0, h)
        return h

    @staticmethod
    @once_differentiable
    def backward(ctx, dh):
        a, h0, h = ctx.saved_tensors
        dh = dh.contiguous()
        dev, dt = L.CUDA if a.is_cuda else L.CPU, _scan_dtype(a)
        T, C = a.shape[0], a[0].numel()
        da, db = torch.empty_like(a), torch.empty_like(a)
        dh0 = torch.empty_like(h0) if h0 is not None else None
        with _Device(a.device):
            core.scan_backward_ptr(dev, dt, T, C, _ptr(a), _ptr(h0), _ptr(h), _ptr(dh), _ptr(da),
                                   _ptr(db), _ptr(dh0), _stream(a.device))
        return da, db, dh0


def scan(a, b, h0=None, reverse=False):
    """h_t = a_t * h_{t-1} + b_t over dim 0 of a, b [T][...] from h0 [...] (None: zeros);
    reverse: from the last step down, h0 = h_T. cpu: float64; cuda: float32, bfloat16 or
    float16."""
    if not isinstance(a, torch.Tensor) or a.dim() < 1 or a.shape[0] < 1:
        raise LogtValueError(L.EINVAL, "a must be a tensor [T][...] with T >= 1")
    _scan_dtype(a)
    _check(a, "a", a.shape, a.dtype, a.device)
    _check(b, "b", a.shape, a.dtype, a.device)
    if h0 is not None:
        _check(h0, "h0", a.shape[1:], a.dtype, a.device)
    if reverse:
        return ScanFunction.apply(a.flip(0), b.flip(0), h0).flip(0)
    return ScanFunction.apply(a, b, h0)

