"""The KOSMOS kernels for NumPy and PyTorch: `gemm`, the fused tensor-parallel ops and the
one-launch MoE layer on a `World` of emulated ranks, and the fused ops on a `JoinedWorld`
whose ranks are processes. `kosmos.torch` (needs torch) registers
them as torch custom ops with autograd and drop-in parallel linear modules.
docs/python.md describes the API, the stream and no-copy rules and the errors."""

from kosmos._native import KosmosError, cuda_device_count
from kosmos._ops import JoinedWorld, SymmetricArray, World, gemm

__all__ = ["JoinedWorld", "KosmosError", "SymmetricArray", "World", "cuda_device_count", "gemm"]
