"""ember/_speedups_gemm.c's bias_gemm against its Python twin (kernels/cpu/linalg.py's
_bias_gemm over f2py's gemm): the same bits for every layout it serves, None (the Python path
runs) for everything else, and addmm / linear give the same results either way."""
from __future__ import annotations

import numpy as np
import pytest

import ember
from ember._accel import speedups
from ember.kernels.cpu import linalg as L

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
