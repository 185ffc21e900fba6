"""torch_util.py — what the PyTorch-based peers share: the device, dtypes, CUDA-event timing,
peak memory, the forward / fwdbwd step and the version line."""
from common import PeerError, Skip, need, perf_clock, time_repeats, uniform, STREAM_DH, STREAM_X

torch = need("torch", "torch")

TORCH_DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def device(req, cuda_only=False):
    """The request's torch device; Skip when it is cuda and there is none. cuda_only: the peer's
    kernels exist only for CUDA (a cpu request is refused)."""
    if req.device == "cpu":
        if cuda_only:
            raise PeerError("this peer runs CUDA kernels only: device = cpu is not supported")
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise Skip("no GPU here (torch.cuda.is_available() is false): run on the GPU machine")
    return torch.device("cuda")


def cuda_clock(fn):
    """ms of fn() between two CUDA events on the current stream, synchronised after each."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def clock_of(dev):
    return cuda_clock if dev.type == "cuda" else perf_clock


def reset_peak(dev):
    """Start counting peak memory here (what is allocated now counts too, as in logt)."""
    if dev.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def peak(dev):
    return torch.cuda.max_memory_allocated() if dev.type == "cuda" else None


def inputs(req, dev, dt, I, D):
    """x [T][B][I] and, for fwdbwd, dh [T][B][D] uniform in [-1, 1], of dtype dt on dev."""
    x = torch.from_numpy(uniform(req.seed, STREAM_X, (req.T, req.B, I))).to(dev, dt)
    dh = None
    if req.pass_ == "fwdbwd":
        dh = torch.from_numpy(uniform(req.seed, STREAM_DH, (req.T, req.B, D))).to(dev, dt)
        x.requires_grad_(True)
    return x, dh


def time_pass(req, dev, forward, params, x, dh, prime=False):
    """Time forward(x) -> h [T][B][D] (pass forward), or forward then backward of sum(h * dh)
    into x.grad and every parameter's grad (fwdbwd). Gradients are reset to None outside the
    timed region. knob inference = on: forward under torch.no_grad (inference kernels).
    prime: one more untimed call before the warmup, for a peer that builds its kernels at the
    first call (so that warmup = 0 does not time a compilation)."""
    inference = req.knob("inference", "off") == "on"   # with fwdbwd: refused by parse_request

    def step():
        if req.pass_ == "fwdbwd":
            torch.autograd.backward(forward(x), dh)
        elif inference:
            with torch.no_grad():
                forward(x)
        else:
            forward(x)

    clock = clock_of(dev)

    def timed(fn):
        for p in list(params) + [x]:
            p.grad = None
        return clock(fn)

    if prime:
        timed(step)
    return time_repeats(req, step, timed)


def pass_words(req):
    if req.pass_ == "fwdbwd":
        return "forward + backward of sum(h*dh) (grads of x and parameters)"
    if req.knob("inference", "off") == "on":
        return "forward under no_grad (inference)"
    return "forward with autograd on (activations kept for backward)"


def version_line(what):
    v = f"torch {torch.__version__}"
    if torch.cuda.is_available():
        cudnn = torch.backends.cudnn.version()
        v += f", CUDA {torch.version.cuda}"
        if cudnn:
            v += f", cuDNN {cudnn // 10000}.{cudnn // 100 % 100}.{cudnn % 100}"
    return f"{v} ({what})"
