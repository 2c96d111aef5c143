"""JAX arrays as operands (CPU): the ops take any DLPack producer, not only numpy and torch;
results come back as numpy arrays (JAX arrays are immutable, so `out=` takes numpy)."""

import numpy as np
import pytest

import kosmos
from conftest import F32_TOL, bf16, f64, poisoned, relerr

jax = pytest.importorskip("jax", reason="jax is not installed")
jnp = jax.numpy


@pytest.fixture(autouse=True)
def host_arrays():
    """JAX makes its arrays on a GPU where it has one; these tests take host arrays."""
    with jax.default_device(jax.devices("cpu")[0]):
        yield


def test_gemm_takes_jax_arrays(rng):
    a, b = bf16(rng, 40, 24), bf16(rng, 24, 16)
    got = kosmos.gemm(jnp.asarray(a), jnp.asarray(b), out=poisoned((40, 16), np.float32))
    assert relerr(got, f64(a) @ f64(b)) < F32_TOL
    allocated = kosmos.gemm(jnp.asarray(a), jnp.asarray(b))
    assert isinstance(allocated, np.ndarray) and allocated.dtype == np.float32
    assert relerr(allocated, f64(a) @ f64(b)) < F32_TOL


def test_a_fused_op_takes_jax_arrays(rng):
    ranks, shard, k, n = 2, 16, 24, 8
    x, w = bf16(rng, ranks, shard, k), bf16(rng, ranks, k, n)
    y = kosmos.World(ranks).ag_gemm(jnp.asarray(x), jnp.asarray(w),
                                    out=poisoned((ranks, ranks * shard, n), np.float32))
    gathered = f64(x).reshape(ranks * shard, k)
    for r in range(ranks):
        assert relerr(y[r], gathered @ f64(w[r])) < F32_TOL, f"rank {r}"


def test_jax_arrays_of_the_wrong_dtype_or_shape_are_refused(rng):
    a, b = bf16(rng, 40, 24), bf16(rng, 24, 16)
    with pytest.raises(TypeError, match="a: expected bfloat16 elements, got float32"):
        kosmos.gemm(jnp.asarray(a, dtype=jnp.float32), jnp.asarray(b))
    with pytest.raises(ValueError, match="op\\(b\\) needs 24 rows"):
        kosmos.gemm(jnp.asarray(a), jnp.asarray(b[:16]))
