"""torch-gru.py — peer torch-gru: torch.nn.GRU (cuDNN through PyTorch); the work is in
torch_rnn.py.
knobs: inference = off (default: forward with autograd on) | on (forward under no_grad)."""
import common

KNOBS = {"inference": ("off", "on")}


def run(text):
    req = common.parse_request(text, "torch-gru", ("speed",), KNOBS, cells=("gru",))
    import torch_rnn   # after the request is checked: torch is found, or the run is skipped
    return torch_rnn.run(req)


if __name__ == "__main__":
    common.serve("torch-gru", run)
