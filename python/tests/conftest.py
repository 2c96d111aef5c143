"""Shared helpers: fresh random inputs (the seed is printed on failure; KOSMOS_SEED replays
a run), bfloat16 arrays, relative errors against float64 references."""

import os

import ml_dtypes
import numpy as np
import pytest

BF16 = ml_dtypes.bfloat16


@pytest.fixture
def rng(request):
    seed = int(os.environ.get("KOSMOS_SEED", np.random.SeedSequence().entropy % 2**32))
    request.node.user_properties.append(("seed", seed))
    print(f"seed {seed} (KOSMOS_SEED={seed} replays)")
    return np.random.default_rng(seed)


def bf16(rng, *shape, scale=1.0):
    """Random bfloat16 values (as an ml_dtypes array)."""
    return (rng.standard_normal(shape) * scale).astype(BF16)


def f64(x):
    return np.asarray(x).astype(np.float64)


def relerr(got, want):
    """max |got - want| / max |want|."""
    got, want = f64(got), f64(want)
    assert np.isfinite(got).all(), "non-finite values: an element was not written"
    return np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)


def poisoned(shape, dtype):
    """An output filled with NaN, so an element the op does not write shows."""
    return np.full(shape, np.nan, dtype=np.float32).astype(dtype)


# Relative error bounds: f32 accumulation of bf16 products; a bf16 result adds its rounding.
F32_TOL = 1e-5
BF16_TOL = 1e-2
