"""torch_rnn.py — the peers torch-lstm and torch-gru: torch.nn.LSTM / nn.GRU (cuDNN on CUDA),
sequence-first [T][B][I] -> [T][B][D], `layers` stacked by PyTorch, zero initial state.

check maps logt's flat parameters onto PyTorch's, exactly (one layer after another):
  lstm  (models/lstm/lstm.h)         W [4D][I] -> weight_ih, R [4D][D] -> weight_hh,
                                     b [4D] -> bias_ih, 0 -> bias_hh; gates i f g o in both
  gru   (models/flashrnn/flashrnn.h, one head; deer's gru is the same layout)
                                     W [3D][I] -> weight_ih, R [1][D][3D] (h·R) -> weight_hh = Rᵀ,
                                     b [3D] -> bias_ih, [0, 0, bn] -> bias_hh; gates r z n in both,
                                     n = tanh(W_n x + b_n + r ⊙ (R_n h + bn)) in both
"""
from common import PeerError, Slicer, check_inputs, ok, write_h  # first: numpy may be missing
import numpy as np
import torch_util as tu
from torch_util import torch

GATES = {"lstm": 4, "gru": 3}


def layer_params(cell, s, I, D):
    """One layer's (weight_ih, weight_hh, bias_ih, bias_hh) from logt's layout, float64 numpy."""
    G = GATES[cell]
    W = s.take(G * D, I)
    if cell == "lstm":
        R = s.take(G * D, D)
        b = s.take(G * D)
        return W, R, b, np.zeros(G * D)
    R = s.take(1, D, G * D)[0].T   # h·R: R[m][q·D + j] -> weight_hh[q·D + j][m]
    b = s.take(G * D)
    bn = s.take(D)
    return W, R, b, np.concatenate([np.zeros(2 * D), bn])


def numel(cell, L, I, D):
    G = GATES[cell]
    n = 0
    for l in range(L):
        Il = I if l == 0 else D
        n += G * D * Il + G * D * D + G * D + (D if cell == "gru" else 0)
    return n


def make(cell, I, D, L):
    cls = torch.nn.LSTM if cell == "lstm" else torch.nn.GRU
    return cls(I, D, num_layers=L)


def check(req, dev):
    """One float64 forward on logt's x and parameters; h to the check's h file."""
    I, D, L = req.input_size, req.D, req.layers
    x, w = check_inputs(req, numel(req.cell, L, I, D))
    rnn = make(req.cell, I, D, L).to(dev, torch.float64)
    s = Slicer(w)
    with torch.no_grad():
        for l in range(L):
            for name, v in zip(("weight_ih", "weight_hh", "bias_ih", "bias_hh"),
                               layer_params(req.cell, s, I if l == 0 else D, D)):
                getattr(rnn, f"{name}_l{l}").copy_(torch.from_numpy(np.ascontiguousarray(v)))
        h, _ = rnn(torch.from_numpy(x).to(dev))
    write_h(req, h.cpu().numpy())


def run(req):
    """req: a parsed speed request whose cell is lstm or gru."""
    cell = req.cell
    if req.heads != 1:
        raise PeerError(f"nn.{cell.upper()} has one head: head_dim must be 0 or D = {req.D}, "
                        f"not {req.head_dim}")
    dev = tu.device(req)
    what = f"nn.{cell.upper()}"
    if req.check:
        check(req, dev)
        return ok(tu.version_line(what), f"torch.{what} float64 forward on {dev.type} (check)", [])
    dt = tu.TORCH_DTYPES[req.dtype]
    if dev.type == "cpu" and dt == torch.float16:
        raise PeerError("f16 on the cpu is not supported here: use f32 or bf16, or device = cuda")
    x, dh = tu.inputs(req, dev, dt, req.input_size, req.D)
    tu.reset_peak(dev)
    rnn = make(cell, req.input_size, req.D, req.layers).to(dev, dt)
    times, _ = tu.time_pass(req, dev, lambda x: rnn(x)[0], rnn.parameters(), x, dh)
    cudnn = " (cuDNN)" if dev.type == "cuda" and torch.backends.cudnn.enabled else ""
    impl = (f"torch.{what}({req.input_size}, {req.D}, num_layers={req.layers}) {req.dtype} on "
            f"{dev.type}{cudnn}, {tu.pass_words(req)}")
    return ok(tu.version_line(what), impl, times, None, tu.peak(dev))
