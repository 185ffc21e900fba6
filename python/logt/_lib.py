"""_lib.py — finds liblogt.so and declares lib/logt.h's functions to ctypes."""
import ctypes
import os
from pathlib import Path

ABI_VERSION = 2

# status codes, devices, dtypes and properties of lib/logt.h
OK, EINVAL, ENOMEM, ECUDA, EIO, EUNSUPPORTED, ENUMERIC, EHANDLE = 0, 1, 2, 3, 4, 5, 6, 16
CPU, CUDA = 0, 1
F64, F32, BF16, F16 = 0, 1, 2, 3
(INPUT_SIZE, HIDDEN_SIZE, LAYERS, NSTATE, DEVICE, DTYPE, PARAM_DTYPE, NPARAMS, NSLICES,
 HEAD_DIM, CUDA_DEVICE) = range(11)

_NAME = "liblogt.so"


def candidates():
    """Where the library is looked for: LOGT_LIB (a file or a directory) alone when it is set;
    else the repository's build/lib (this package in python/logt/), then the package directory."""
    out = []
    env = os.environ.get("LOGT_LIB")
    if env:   # named: that library or none, never another one found elsewhere
        p = Path(env)
        return [p / _NAME if p.is_dir() else p]
    here = Path(__file__).resolve().parent
    out.append(here.parent.parent / "build" / "lib" / _NAME)
    out.append(here / _NAME)
    return out


def _declare(lib):
    c_int, c_i64, c_u64, c_p, c_s, c_sz = (ctypes.c_int, ctypes.c_int64, ctypes.c_uint64,
                                           ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t)
    sig = {
        "logt_abi_version": (c_int, []),
        "logt_abi_build": (c_s, []),
        "logt_abi_status_name": (c_s, [c_int]),
        "logt_abi_errmsg": (c_s, []),
        "logt_abi_models": (c_sz, [c_s, c_sz]),
        "logt_abi_backend_available": (c_int, [c_int]),
        "logt_layer_create": (c_int, [c_s, c_int, c_int, c_int, c_s, c_int, c_int, c_int, c_u64,
                                      c_int, ctypes.POINTER(c_s), ctypes.POINTER(c_s),
                                      ctypes.POINTER(c_u64)]),
        "logt_layer_destroy": (c_int, [c_u64]),
        "logt_layer_get": (c_int, [c_u64, c_int, ctypes.POINTER(c_i64)]),
        "logt_layer_slice": (c_int, [c_u64, c_int, c_s, c_sz, ctypes.POINTER(c_i64),
                                     ctypes.POINTER(c_i64), ctypes.POINTER(c_int),
                                     ctypes.POINTER(c_i64)]),
        "logt_layer_params": (c_int, [c_u64, c_p, c_p]),
        "logt_layer_forward": (c_int, [c_u64, c_p, c_i64, c_i64, c_p, c_p, c_p, c_p, c_p]),
        "logt_layer_backward": (c_int, [c_u64, c_i64, c_i64, c_p, c_p, c_p, c_p, c_p, c_p]),
        "logt_layer_errmsg": (c_sz, [c_u64, c_s, c_sz]),
        "logt_scan": (c_int, [c_int, c_int, c_int, c_i64, c_i64, c_p, c_p, c_p, c_p, c_p]),
        "logt_scan_backward": (c_int, [c_int, c_int, c_i64, c_i64, c_p, c_p, c_p, c_p, c_p, c_p,
                                       c_p, c_p]),
        "logt_abi_uniform": (c_int, [c_u64, c_u64, c_i64, ctypes.c_double, ctypes.c_double, c_p]),
        "logt_task_info": (c_int, [c_s, c_int, c_u64] + [ctypes.POINTER(c_int)] * 4),
        "logt_task_batch": (c_int, [c_s, c_int, c_u64, c_int, c_u64, c_int, c_p, c_p]),
        "logt_readout_init_params": (c_int, [c_int, c_int, c_u64, c_p]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


_lib = None


def lib():
    """The loaded library (loaded once), its ABI version checked."""
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for p in candidates():
        if p.is_file():
            l = _declare(ctypes.CDLL(str(p)))
            v = l.logt_abi_version()
            if v != ABI_VERSION:
                raise ImportError(f"{p} has ABI version {v}, this package speaks {ABI_VERSION}: "
                                  "rebuild it (make lib) or reinstall the package")
            _lib = l
            _lib.path = str(p)
            return _lib
        tried.append(str(p))
    raise ImportError("liblogt.so not found (looked at: " + ", ".join(tried) + "). HINT: run "
                      "`make lib` in the logt repository and set LOGT_LIB=<repo>/build/lib")
