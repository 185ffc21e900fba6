"""logt — logt's recurrent layers from NumPy (logt.core) and PyTorch (logt.torch), over
liblogt.so (found through LOGT_LIB, the repository's build/lib, or this package's directory).

logt.torch is imported on demand (`import logt.torch`), so that logt.core works without torch.
"""
from .core import (Layer, LogtError, LogtTypeError, LogtValueError, Slice, backend_available,
                   models, scan, scan_backward, version)

__all__ = ["Layer", "LogtError", "LogtTypeError", "LogtValueError", "Slice", "backend_available",
           "models", "scan", "scan_backward", "version"]
