"""What the ops need of an array, for numpy arrays and torch tensors alike, without
importing torch: the native view (bfloat16 numpy arrays as their uint16 bits), the caller's
CUDA stream, and new outputs of the same kind on the same device."""

import numpy as np

try:
    import ml_dtypes

    BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a dependency
    BFLOAT16 = None

DTYPES = ("float32", "bfloat16")


def is_torch(x):
    return type(x).__module__.split(".")[0] == "torch"


def native(x, name):
    """`x` as the native layer takes it: a torch tensor detached, numpy bfloat16 (ml_dtypes)
    as its uint16 view, the only bf16 route numpy has (plain uint16 arrays are refused, so
    bit patterns are never taken for numbers by mistake), a symmetric array as its native
    object."""
    if hasattr(x, "_symmetric"):
        return x._symmetric
    if not hasattr(x, "__dlpack__"):
        raise TypeError(
            f"{name}: not a DLPack array (numpy array, torch tensor): got {type(x).__name__}"
        )
    if is_torch(x):
        # A tensor that requires grad refuses DLPack export; the ops never differentiate.
        return x.detach()
    if isinstance(x, np.ndarray):
        if BFLOAT16 is not None and x.dtype == BFLOAT16:
            return x.view(np.uint16)
        if x.dtype == np.uint16:
            raise TypeError(
                f"{name}: uint16 array; bfloat16 operands are ml_dtypes.bfloat16 arrays "
                "(numpy) or torch.bfloat16 tensors"
            )
    return x


def stream_of(*arrays):
    """The current stream of the arrays' CUDA device (torch), else 0."""
    for x in arrays:
        if is_torch(x) and x.is_cuda:
            import torch

            return torch.cuda.current_stream(x.device).cuda_stream
    return 0


def empty(like, shape, dtype):
    """An uninitialised array of `shape` and `dtype` ("float32" or "bfloat16"), of the kind
    of `like` (numpy, or torch on its device; a torch tensor on the GPU of a CUDA symmetric
    array)."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype {dtype!r}: expected one of {DTYPES}")
    if is_torch(like):
        import torch

        return torch.empty(shape, dtype=getattr(torch, dtype), device=like.device)
    if hasattr(like, "_symmetric") and like.device != "cpu":
        import torch

        return torch.empty(shape, dtype=getattr(torch, dtype), device=like.device)
    return np.empty(shape, dtype=np.float32 if dtype == "float32" else BFLOAT16)


def dtype_name(x):
    """"float32" or "bfloat16" for an output given by the caller (else its dtype's name)."""
    if is_torch(x):
        return str(x.dtype).replace("torch.", "")
    return "bfloat16" if x.dtype == BFLOAT16 else str(x.dtype)
