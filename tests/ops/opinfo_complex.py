"""Samples for the complex op family (view_as_real, view_as_complex, real, imag, conj,
angle, sgn, polar, complex, ...), registered into `opinfo.OPS`, and complex samples for
the existing ops torch computes on complex tensors (arithmetic, exp/log/sqrt/trig,
reductions, matmul) or refuses (comparisons, max/min, clamp, floor, ...: the schema test
then checks ember raises torch's exception type and message).
"""
from __future__ import annotations

import numpy as np
from opinfo import (
    C64,
    C128,
    F32,
    F64,
    I32,
    I64,
    S,
    View,
    add_samples,
    expanded,
    make,
    out_of,
    own_maker,
    register,
    transposed,
)

_own = own_maker(22)   # samples from a generator of their own


def _z(shape=(3, 4), dtype=C64, **kw):
    return _own(make)(shape, dtype, **kw)


def _tz(shape=(3, 4), dtype=C64):
    return _own(transposed)(shape, dtype)


def _complex_unary(extra=()):
    """Complex inputs of both precisions, 0-d, empty, transposed, a strided view and a
    stride-0 one, zeros, and `extra` real ones."""
    def samples():
        zeros = np.array([0j, 1 + 0j, -2j, complex(0.0, -0.0)], C64)
        return [S(_z(), name="complex64"), S(_z(dtype=C128), name="complex128"),
                S(_z(()), name="0d"), S(_z((0, 3)), name="empty"),
                S(_tz(), name="transposed"),
                S(View(_z((4, 3)), "slice.Tensor", (0, None, None, 2)), name="strided"),
                S(_own(expanded)((3, 4), C64), name="expanded"),
                S(zeros, name="nonsmooth_zeros"), *extra]
    return samples


def _real_extra():
    return [S(_own(make)((3, 4), F32), name="float32"), S(_own(make)((3, 4), F64), name="float64"),
            S(_own(make)((3, 4), I64), name="int64")]


# ---- views ------------------------------------------------------------------------------
register("view_as_real.default", _complex_unary([S(_own(make)((2, 3), F32), name="float32_error")]),
         exact_strides=True)
register("view_as_complex.default", lambda: [
    S(_own(make)((3, 2), F32), name="float32"), S(_own(make)((2, 3, 2), F64), name="float64"),
    S(_own(make)((0, 2), F32), name="empty"),
    S(View(_own(make)((4, 2), F32), "slice.Tensor", (0, None, None, 2)), name="strided_rows"),
    S(_own(make)((3, 2), I32), name="int32_error"),
    S(_own(make)((), F32), name="0d_error"), S(_own(make)((2, 3), F32), name="last_dim_3_error"),
    S(_own(transposed)((3, 2), F32), name="last_stride_error"),
    S(View(_own(make)((5,), F32), "slice.Tensor", (0, 1, 5, 1)), name="offset_1d_error"),
    S(View(_own(make)((3, 3), F32), "slice.Tensor", (1, 0, 2, 1)), name="odd_stride_error")],
    exact_strides=True)
register("real.default", _complex_unary(_real_extra()), exact_strides=True)
register("imag.default", _complex_unary([S(_own(make)((3, 4), F32), name="float32_error")]),
         exact_strides=True)
register("conj_physical.default", _complex_unary(_real_extra()))
out_of("conj_physical.out", "conj_physical.default")


# ---- pointwise ------------------------------------------------------------------------------
def _angle_samples():
    special = np.array([-1.0, 0.0, -0.0, 2.0, np.nan, -np.inf], F32)
    return _complex_unary(_real_extra() + [S(special, name="special_float32")])()


register("angle.default", _angle_samples)
out_of("angle.out", "angle.default")
add_samples("sgn.default", _complex_unary())   # (real ones: opinfo_special)
out_of("sgn.out", "sgn.default")


def _pair_samples():
    """polar / complex: two float tensors of one dtype (broadcast), torch's dtype errors."""
    return [S(_own(make)((3, 4), F32, low=0.1, high=3), _own(make)((3, 4), F32), name="float32"),
            S(_own(make)((3, 4), F64, low=0.1, high=3), _own(make)((3, 4), F64), name="float64"),
            S(_own(make)((3, 1), F32, low=0.1, high=3), _own(make)((4,), F32), name="broadcast"),
            S(_own(transposed)((3, 4), F32, low=0.1, high=3), _own(make)((3, 4), F32), name="transposed"),
            S(_own(make)((0, 2), F32), _own(make)((0, 2), F32), name="empty"),
            S(_own(make)((3,), F32), _own(make)((3,), F64), name="mixed_dtype_error"),
            S(_own(make)((3,), I64), _own(make)((3,), I64), name="int64_error"),
            S(_own(make)((3,), F32), _own(make)((4,), F32), name="shape_error")]


register("polar.default", _pair_samples)
out_of("polar.out", "polar.default")
register("complex.default", _pair_samples)
out_of("complex.out", "complex.default")


# ---- conj / resolve_conj: the same values as torch's (its results carry the conjugate bit,
# which tests/complex/test_complex.py compares)
register("conj.default", _complex_unary(_real_extra()))
register("resolve_conj.default", _complex_unary(_real_extra()))
register("resolve_neg.default", _complex_unary(_real_extra()))
register("_conj.default", _complex_unary([S(_own(make)((2, 3), F32), name="float32_error")]),
         exact_strides=True)
register("_conj_physical.default", _complex_unary(_real_extra()))


# ---- complex samples of existing ops ------------------------------------------------------
def _binary_complex(numbers=True):
    return [S(_z(), _z(), name="complex64_pair"),
            S(_z(dtype=C128), _z((4,), C128), name="complex128_broadcast"),
            S(_z(), _own(make)((3, 4), F64), name="complex64_float64"),
            S(_own(make)((3, 4), F32), _z(), name="float32_complex64"),
            S(_own(make)((3, 4), I64), _z((), C128), name="int64_0d_complex128"),
            S(_tz(), _z(), name="complex_transposed")] + ([
            S(_z(), 2.5, name="complex_with_float"), S(_own(make)((3, 4), F32), 1 - 2j,
                                                        name="float32_with_complex"),
            S(_own(make)((3, 4), F64), 2j, name="float64_with_complex")] if numbers else [])


for _name in ("add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "eq.Tensor", "ne.Tensor",
              "lt.Tensor", "gt.Tensor", "le.Tensor", "ge.Tensor", "remainder.Tensor",
              "floor_divide.default"):
    add_samples(_name, _binary_complex)
for _name in ("maximum.default", "minimum.default", "atan2.default"):   # (tensors only)
    add_samples(_name, lambda: _binary_complex(numbers=False))
add_samples("pow.Tensor_Scalar", lambda: [S(_z(), 2, name="complex_square"),
                                          S(_z(), 0.5, name="complex_sqrt"),
                                          S(_z(dtype=C128), -1.5, name="complex128_neg_float")])
add_samples("pow.Tensor_Tensor", lambda: [S(_z(), _z(), name="complex64_pair")])


def _unary_complex():
    return [S(_z(low=-2, high=2), name="complex64"), S(_z(dtype=C128, low=-2, high=2),
                                                       name="complex128"),
            S(_tz(), name="complex_transposed")]


for _name in ("exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos",
              "atan", "exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "reciprocal",
              "sigmoid", "neg", "abs", "isnan", "isinf", "isfinite", "logical_not", "floor",
              "ceil", "round", "trunc", "frac", "sign", "signbit", "erf", "relu", "bitwise_not"):
    add_samples(f"{_name}.default", _unary_complex)
for _name in ("sum.default", "mean.default", "prod.default", "max.default", "min.default",
              "argmax.default", "amax.default"):
    add_samples(_name, lambda: [S(_z((3, 4), low=-1, high=1), name="complex64"),
                                S(_z((2, 3), C128, low=-1, high=1), name="complex128")])
add_samples("clamp.default", lambda: [S(_z(), 0, 1, name="complex_error")])
add_samples("mm.default", lambda: [S(_z((2, 3)), _z((3, 4)), name="complex64"),
                                   S(_z((2, 3), C128), _own(make)((3, 2), F64), name="mixed_error")])
add_samples("clone.default", _unary_complex)
add_samples("sort.default", lambda: [S(_z((5,)), name="complex_error")])
add_samples("topk.default", lambda: [S(_z((5,)), 2, name="complex_error")])
add_samples("_to_copy.default", lambda: [S(_z(), dtype=None, name="complex64"),
                                         S(_own(make)((3, 4), F32), dtype=None, name="float32")])


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples: complex leaves
    (gradcheck in complex128 with the conjugate Wirtinger convention)."""
    z, w = _z((2, 3), C128, low=-1, high=1), _z((2, 3), C128, low=-1, high=1)
    out = {
        "angle.default": [S(z, name="complex128")],
        "sgn.default": [S(z, name="complex128")],
        "abs.default": [S(z, name="complex128")],
        "_conj_physical.default": [S(z, name="complex128")],
        "_conj.default": [S(z, name="complex128")],
        "view_as_real.default": [S(z, name="complex128")],
        "mul.Tensor": [S(z, w, name="complex128"), S(z, _own(make)((3,), F64), name="complex_real")],
        "div.Tensor": [S(z, w, name="complex128")],
        "exp.default": [S(z, name="complex128")],
        "log.default": [S(z, name="complex128")],
        "sin.default": [S(z, name="complex128")],
        "tanh.default": [S(z, name="complex128")],
        "sigmoid.default": [S(z, name="complex128")],
        "mm.default": [S(z, _z((3, 2), C128), name="complex128")],
        "sum.default": [S(z, name="complex128")],
        "prod.default": [S(z, name="complex128")],
        "polar.default": [S(_own(make)((2, 3), F64, low=0.5, high=2), _own(make)((2, 3), F64), name="float64")],
    }
    return out
