"""`kosmos.gemm` on host arrays (the CPU device) against a float64 NumPy reference, every
layout and result type; bad input refused with a clear message."""

import contextlib
import itertools

import numpy as np
import pytest

import kosmos
from conftest import BF16, BF16_TOL, F32_TOL, bf16, f64, poisoned, relerr

LAYOUTS = list(itertools.product([False, True], [False, True], ["float32", "bfloat16"]))


def stored(x, transposed):
    return np.ascontiguousarray(x.T) if transposed else x


@pytest.mark.parametrize("a_t,b_t,out_dtype", LAYOUTS)
def test_gemm_every_layout_matches_the_float64_reference(rng, a_t, b_t, out_dtype):
    m, n, k = 136, 72, 88
    a, b = bf16(rng, m, k), bf16(rng, k, n)
    out = poisoned((m, n), np.float32 if out_dtype == "float32" else BF16)
    got = kosmos.gemm(stored(a, a_t), stored(b, b_t), a_transposed=a_t, b_transposed=b_t,
                      out=out)
    assert got is out
    tol = F32_TOL if out_dtype == "float32" else BF16_TOL
    assert relerr(got, f64(a) @ f64(b)) < tol


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (37, 29, 23), (130, 9, 200)])
def test_gemm_ragged_shapes(rng, m, n, k):
    a, b = bf16(rng, m, k), bf16(rng, k, n)
    got = kosmos.gemm(a, b, out=poisoned((m, n), np.float32))
    assert got.dtype == np.float32 and got.shape == (m, n)
    assert relerr(got, f64(a) @ f64(b)) < F32_TOL


def test_gemm_allocates_its_result(rng):
    a, b = bf16(rng, 16, 8), bf16(rng, 8, 24)
    got = kosmos.gemm(a, b, out_dtype="bfloat16")
    assert got.dtype == BF16 and got.shape == (16, 24)
    assert relerr(got, f64(a) @ f64(b)) < BF16_TOL


@contextlib.contextmanager
def raises(kind, *fragments):
    """Expects `kind` with every fragment in its message."""
    with pytest.raises(kind) as info:
        yield
    for f in fragments:
        assert f in str(info.value), f"{f!r} not in {str(info.value)!r}"


def test_bad_input_is_refused_naming_the_argument(rng):
    a, b = bf16(rng, 16, 8), bf16(rng, 8, 24)
    with raises(TypeError, "a: expected bfloat16", "got float32"):
        kosmos.gemm(a.astype(np.float32), b)
    with raises(TypeError, "b: expected bfloat16", "got float64"):
        kosmos.gemm(a, b.astype(np.float64))
    with raises(TypeError, "c: expected float32 or bfloat16", "got int32"):
        kosmos.gemm(a, b, out=np.zeros((16, 24), np.int32))
    with raises(TypeError, "a: uint16 array"):
        kosmos.gemm(a.view(np.uint16), b)
    with raises(ValueError, "a: not C-contiguous", "strides"):
        kosmos.gemm(bf16(rng, 16, 16)[:, ::2], b)
    with raises(ValueError, "b: not C-contiguous"):
        kosmos.gemm(a, np.asfortranarray(b))
    with raises(ValueError, "op(b) needs 8 rows", "7 x 24"):
        kosmos.gemm(a, bf16(rng, 7, 24))
    with raises(ValueError, "c: expected shape [16, 24]", "got [16, 23]"):
        kosmos.gemm(a, b, out=np.zeros((16, 23), np.float32))
    with raises(ValueError, "a: expected 2 dimensions"):
        kosmos.gemm(bf16(rng, 2, 16, 8), b)
    read_only = np.zeros((16, 24), np.float32)
    read_only.flags.writeable = False
    with pytest.raises((ValueError, TypeError, BufferError)):
        kosmos.gemm(a, b, out=read_only)
    with raises(TypeError, "a: not a DLPack array"):
        kosmos.gemm([[1.0]], b)


def test_transposed_layouts_need_whole_16_byte_rows(rng):
    # a^T is stored k x m: rows of m = 12 elements are not whole 16-byte chunks.
    a, b = bf16(rng, 8, 12), bf16(rng, 8, 16)
    with raises(ValueError, "gemm_plan", "multiple of 8"):
        kosmos.gemm(a, b, a_transposed=True)
