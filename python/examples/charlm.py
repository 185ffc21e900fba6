"""charlm.py — a character-level language model with a logt layer, in a plain PyTorch loop.

    python python/examples/charlm.py [--model lstm|flashrnn|sru|gilr-lstm|deer] [--steps 300]

Text: datasets/data/fortunes.txt (`make datasets`) when present, else the repository's own
Markdown files. Characters are the 95 printable ASCII ones and newline. Embedding -> logt
layer -> linear -> cross-entropy on the next character; Adam. On a GPU (when torch sees one)
the layer runs logt's CUDA path in float32, else its CPU reference in float64. Prints the
loss in bits per character every 50 steps, and a sample at the end.
"""
import argparse
import math
import pathlib
import sys
import time

import torch
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
import logt.torch as lt  # noqa: E402

VOCAB = ["\n"] + [chr(c) for c in range(32, 127)]
INDEX = {c: i for i, c in enumerate(VOCAB)}


def load_text():
    fortunes = ROOT / "datasets" / "data" / "fortunes.txt"
    files = [fortunes] if fortunes.is_file() else sorted(ROOT.glob("**/*.md"))
    text = "\n".join(p.read_text(errors="ignore") for p in files)
    codes = [INDEX[c] for c in text.replace("\t", " ") if c in INDEX]
    return torch.tensor(codes, dtype=torch.long), (fortunes.name if fortunes.is_file()
                                                   else f"{len(files)} Markdown files")


def make_layer(name, dim):
    if name == "lstm":
        return lt.LSTM(dim, dim, forget_init=1)
    if name == "flashrnn":
        return lt.FlashRNN(dim, dim, cell="lstm", head_dim=dim // 4, forget_init=1)
    if name == "sru":
        return lt.SRU(dim, dim)
    if name == "gilr-lstm":
        return lt.GILRLSTM(dim, dim)
    if name == "deer":
        return lt.DEER(dim, dim, cell="gru", mode="quasi")
    raise SystemExit(f"unknown --model {name}")


class CharLM(nn.Module):
    def __init__(self, layer, dim):
        super().__init__()
        self.embed = nn.Embedding(len(VOCAB), dim)
        self.rnn = layer
        self.out = nn.Linear(dim, len(VOCAB))

    def forward(self, codes):                    # codes [T][B] -> logits [T][B][V]
        x = self.embed(codes).contiguous()
        return self.out(self.rnn(x))


def batch(data, T, B, gen):
    start = torch.randint(0, len(data) - T - 1, (B,), generator=gen)
    idx = start[None, :] + torch.arange(T + 1)[:, None]     # [T+1][B], time-major
    seq = data[idx]
    return seq[:-1], seq[1:]


@torch.no_grad()
def sample(model, prompt, n, device, window=64):
    codes = [INDEX[c] for c in prompt]
    for _ in range(n):
        ctx = torch.tensor(codes[-window:], device=device)[:, None]
        p = torch.softmax(model(ctx)[-1, 0].double(), 0)
        codes.append(int(torch.multinomial(p, 1)))
    return "".join(VOCAB[c] for c in codes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="lstm")
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    args = ap.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch.float32 if device.type == "cuda" else torch.float64
    data, source = load_text()
    torch.manual_seed(0)
    model = CharLM(make_layer(args.model, args.dim), args.dim).to(device)
    # the embedding and the head in the layer's activation dtype; on cuda the layer's own
    # float64 parameters are cast to float32 on the way in
    model.embed.to(dtype)
    model.out.to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    gen = torch.Generator().manual_seed(1)
    print(f"{args.model} D={args.dim} on {device} ({dtype}), {len(data)} characters of {source}")

    t0 = time.time()
    for step in range(1, args.steps + 1):
        x, y = (t.to(device) for t in batch(data, args.seq, args.batch, gen))
        logits = model(x)
        loss = nn.functional.cross_entropy(logits.reshape(-1, len(VOCAB)).float(), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 50 == 0 or step == 1:
            print(f"step {step:5d}  loss {loss.item() / math.log(2):.3f} bits/char  "
                  f"{time.time() - t0:.1f} s")
    print("sample:", repr(sample(model, "The ", 120, device)))


if __name__ == "__main__":
    main()
