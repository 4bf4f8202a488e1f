"""The kernels' C helpers against their twins: ember/_speedups_gemm.c's bias_gemm against
kernels/cpu/linalg.py's _bias_gemm over f2py's gemm, ember/_speedups_fma.c's fma_update
against the numba loop (_fma_loop.fma_inplace). The same bits for every case they serve, and
a refusal (None / False: the twin runs) for everything else; the public ops give the same
results either way."""
from __future__ import annotations

import numpy as np
import pytest

import ember
from ember._accel import speedups
from ember.kernels.cpu import binary as B
from ember.kernels.cpu import linalg as L
from ember.kernels.cpu._compiled import compiled

needs_c = pytest.mark.skipif(speedups is None, reason="ember._speedups is not built")


def python_bias_gemm(s, a, b):
    """The Python path: a fresh result holding the bias, then gemm over it."""
    out = np.empty((a.shape[0], b.shape[1]), a.dtype)
    out[...] = s
    assert L._gemm_into(out, a, b)
    return out


def layouts(m):
    """The matrix m C-contiguous and F-contiguous."""
    return [np.ascontiguousarray(m), np.asfortranarray(m)]


SHAPES = [(64, 64, 128), (64, 128, 10), (7, 33, 5), (2, 1, 2), (3, 256, 2), (2, 5, 1000)]


@needs_c
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,k,p", SHAPES)
def test_same_bits_as_python(dtype, n, k, p):
    rng = np.random.default_rng(n * k + p)
    a0 = rng.standard_normal((n, k)).astype(dtype)
    b0 = rng.standard_normal((k, p)).astype(dtype)
    biases = [rng.standard_normal(p).astype(dtype), rng.standard_normal((1, p)).astype(dtype),
              rng.standard_normal((n, p)).astype(dtype)]
    for a in layouts(a0):
        for b in layouts(b0):
            for s in biases:
                got = speedups.bias_gemm(s, a, b)
                want = python_bias_gemm(s, a, b)
                assert got.dtype == want.dtype and got.shape == want.shape
                assert got.flags.c_contiguous and got.tobytes() == want.tobytes()


@needs_c
def test_cases_left_to_python():
    """None for what the C path does not serve; the Python path then runs."""
    f32 = np.ones((4, 3), np.float32)
    w = np.ones((3, 5), np.float32)
    bias = np.ones(5, np.float32)
    cases = {
        "float16": (bias.astype(np.float16), f32.astype(np.float16), w.astype(np.float16)),
        "int64": (bias.astype(np.int64), f32.astype(np.int64), w.astype(np.int64)),
        "mixed dtypes": (bias, f32.astype(np.float64), w),
        "bias of another dtype": (bias.astype(np.float64), f32, w),
        "k above 256": (bias, np.ones((4, 257), np.float32), np.ones((257, 5), np.float32)),
        "one row": (bias, f32[:1], w),
        "one column": (bias[:1], f32, w[:, :1]),
        "empty k": (bias, f32[:, :0], w[:0]),
        "strided operand": (bias, np.ones((4, 6), np.float32)[:, ::2], w),
        "strided bias": (np.ones(10, np.float32)[::2], f32, w),
        "column bias": (np.ones((4, 1), np.float32), f32, w),
        "0-d bias": (np.float32(1).reshape(()), f32, w),
        "shared memory": (np.ones(4, np.float32), f32, f32.T),
        "not arrays": (None, f32, w),
        "a list": (bias, f32.tolist(), w),
        "3-D": (bias, f32[None], w),
    }
    for name, (s, a, b) in cases.items():
        assert speedups.bias_gemm(s, a, b) is None, name


@needs_c
def test_bad_call():
    with pytest.raises(TypeError, match=r"bias_gemm\(bias, a, b\)"):
        speedups.bias_gemm(1, 2)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_linear_and_addmm_same_with_and_without_c(monkeypatch, dtype):
    """The public ops give the same bits on the C path and on the Python one."""
    x = ember.randn(16, 32, dtype=dtype)
    w = ember.randn(24, 32, dtype=dtype)
    b = ember.randn(24, dtype=dtype)
    with_c = [ember.linear(x, w, b), ember.addmm(b, x, w.t()), ember.addmm(b.expand(16, 24), x, w.t())]
    monkeypatch.setattr(L, "_c_bias_gemm", None)
    without = [ember.linear(x, w, b), ember.addmm(b, x, w.t()), ember.addmm(b.expand(16, 24), x, w.t())]
    for u, v in zip(with_c, without):
        assert u.stride() == v.stride() and u.numpy().tobytes() == v.numpy().tobytes()


# --- fma_update ---------------------------------------------------------------------------------
def special_values(dtype, n, seed):
    """Random values with zeros of both signs, infinities, NaN, subnormals and huge ones."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(dtype) * dtype(10) ** rng.integers(-3, 4, n).astype(dtype)
    info = np.finfo(dtype)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, info.tiny / 4, -info.tiny, info.max,
                info.eps]
    x[rng.integers(0, n, 40)] = rng.choice(np.array(specials, dtype), 40)
    return x


@needs_c
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("y", [-0.1, 3.0, -1e30, 0.0])
def test_fma_update_same_bits_as_numba(dtype, y):
    loops = compiled("_fma_loop")
    for n, shape in ((1000, (1000,)), (12, (3, 4)), (1, ()), (0, (0, 5))):
        x = special_values(dtype, max(n, 1), n)[:n].reshape(shape)
        z0 = special_values(dtype, max(n, 1), n + 1)[:n].reshape(shape)
        yy = dtype(y)
        want = z0.copy()
        loops.fma_inplace(x, yy, want)
        got = z0.copy()
        assert speedups.fma_update(x, yy, got) is True
        assert got.tobytes() == want.tobytes()
        same = z0.copy()                        # x is z: z = z * y + z
        want_same = z0.copy()
        loops.fma_inplace(want_same, yy, want_same)
        assert speedups.fma_update(same, yy, same) is True
        assert same.tobytes() == want_same.tobytes()


@needs_c
def test_fma_update_cases_left_to_numba():
    f32 = np.ones(6, np.float32)
    y = np.float32(0.5)
    cases = {
        "int y": (f32, 2, f32.copy()),
        "object y": (f32, "0.5", f32.copy()),
        "strided x": (np.ones(12, np.float32)[::2], y, f32.copy()),
        "strided z": (f32, y, np.ones(12, np.float32)[::2]),
        "read-only z": (f32, y, np.ones(6, np.float32).copy()),
        "shapes": (f32, y, np.ones((2, 3), np.float32)),
        "dtypes": (f32, y, np.ones(6, np.float64)),
        "float16": (f32.astype(np.float16), y, f32.astype(np.float16)),
        "int32": (f32.astype(np.int32), y, f32.astype(np.int32)),
        "overlapping": None,
        "not arrays": ([1.0] * 6, y, f32.copy()),
    }
    cases["read-only z"][2].flags.writeable = False
    base = np.ones(8, np.float32)
    cases["overlapping"] = (base[:6], y, base[2:])
    for name, (x, yy, z) in cases.items():
        before = np.array(z, copy=True)
        assert speedups.fma_update(x, yy, z) is False, name
        assert np.array_equal(np.asarray(z), before, equal_nan=True), name
    with pytest.raises(TypeError, match=r"fma_update\(x, y, z\)"):
        speedups.fma_update(f32, y)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_sgd_update_same_with_and_without_c(monkeypatch, dtype):
    """p.sub_(g, alpha=lr) and p.add_(g, alpha=...) give the same bits on both paths."""
    def run():
        ember.manual_seed(1)
        p = ember.randn(64, 33, dtype=dtype)
        g = ember.randn(64, 33, dtype=dtype)
        p.sub_(g, alpha=0.1)
        p.add_(p, alpha=-1e-3)
        p.add_(g[::2].repeat(2, 1), alpha=7)
        return p.numpy().tobytes()

    with_c = run()
    monkeypatch.setattr(B, "_c_fma_update", None)
    assert run() == with_c
