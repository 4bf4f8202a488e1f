"""Samples for the nn op family (issue 4), registered into `opinfo.OPS`.

opinfo.py imports this module at its end; `grad_extra()` adds gradient samples to
tests/autograd/grad_samples.py's EXTRA (called with opinfo's random generator seeded).
"""
from __future__ import annotations

import numpy as np
from opinfo import (  # noqa: F401
    ALL,
    BF16,
    BOOL,
    DEVICE,
    F16,
    F32,
    F64,
    FLOATS,
    I32,
    I64,
    NUMERIC,
    OPS,
    U8,
    E,
    S,
    View,
    binary_samples,
    dtname,
    expanded,
    inplace_binary_samples,
    make,
    offset,
    out_of,
    register,
    scalar_samples,
    strided,
    transposed,
    unary_samples,
)


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    bad = [S(make((2, 2, 3), F32), make((2, 2, 4), F32), make((2, 4, 3), F32), name="small"),
           S(make((3,), F64), make((2, 2, 4), F64), make((2, 4, 3), F64), beta=0.5, alpha=2,
             name="broadcast_beta_alpha"),
           S(transposed((2, 2, 3), F32), make((2, 2, 2), F32), strided((2, 2, 3), F32),
             beta=0, name="beta0")]
    return {
        "dot.default": [S(make((4,), F64), make((4,), F64), name="float64")],
        "mv.default": [S(transposed((3, 4), F32), make((4,), F32), name="transposed")],
        "baddbmm.default": bad,
        "baddbmm_.default": [s for s in bad if s.name != "broadcast_beta_alpha"],
    }


# ---- linear algebra ------------------------------------------------------------------
def _dot_samples():
    out = [S(make((5,), dt), make((5,), dt), name=dtname(dt)) for dt in ALL]
    out += [S(make((0,), F32), make((0,), F32), name="empty"),
            S(strided((4,), F32), make((4,), F32), name="strided"),
            S(make((3,), F32), make((3,), F64), name="dtype_mismatch_error"),
            S(make((3,), F32), make((4,), F32), name="size_mismatch_error"),
            S(make((3, 2), F32), make((3,), F32), name="2d_error")]
    return out


register("dot.default", _dot_samples, tols={"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 1e-1)})
out_of("dot.out", "dot.default")


def _mv_samples():
    out = [S(make((3, 4), dt), make((4,), dt), name=dtname(dt)) for dt in ALL]
    out += [S(transposed((3, 4), F32), make((4,), F32), name="transposed"),
            S(make((0, 4), F32), make((4,), F32), name="empty_rows"),
            S(make((3, 0), F32), make((0,), F32), name="empty_inner"),
            S(strided((3, 4), F64), strided((4,), F64), name="strided"),
            S(make((3, 4), F32), make((5,), F32), name="size_mismatch_error"),
            S(make((3, 4), F32), make((4,), F64), name="dtype_mismatch_error"),
            S(make((4,), F32), make((4,), F32), name="1d_error")]
    return out


register("mv.default", _mv_samples, tols={"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 1e-1)})
out_of("mv.out", "mv.default")


def _outer_samples():
    out = [S(make((3,), dt), make((4,), dt), name=dtname(dt)) for dt in ALL]
    out += [S(make((3,), I64), make((2,), F32), name="promotion"),
            S(make((0,), F32), make((2,), F32), name="empty"),
            S(strided((3,), F32), make((2,), F64), name="strided"),
            S(make((3, 1), F32), make((2,), F32), name="2d_error")]
    return out


register("outer.default", _outer_samples)
out_of("outer.out", "outer.default")


def _baddbmm_samples(inplace=False):
    def samples():
        out = [S(make((2, 3, 5), dt), make((2, 3, 4), dt), make((2, 4, 5), dt), name=dtname(dt))
               for dt in ALL]
        out += [S(make((2, 3, 5), F32), make((2, 3, 4), F32), make((2, 4, 5), F32), beta=0.5,
                  alpha=2, name="beta_alpha"),
                S(make((2, 3, 5), I64), make((2, 3, 4), I64), make((2, 4, 5), I64), beta=2,
                  alpha=3, name="int64_beta_alpha"),
                S(np.full((2, 3, 5), np.nan, F32), make((2, 3, 4), F32), make((2, 4, 5), F32),
                  beta=0, name="beta0_ignores_nan"),
                S(transposed((2, 3, 5), F32), transposed((2, 3, 4), F32),
                  strided((2, 4, 5), F32), name="noncontiguous"),
                S(make((2, 3, 5), F32), make((2, 3, 4), F32), make((2, 4, 5), F64),
                  name="batch_dtype_error"),
                S(make((2, 3, 5), F32), make((2, 3, 4), F32), make((2, 3, 5), F32),
                  name="inner_mismatch_error"),
                S(make((2, 3, 5), F32), make((3, 4), F32), make((2, 4, 5), F32),
                  name="2d_batch_error")]
        if inplace:
            out.append(S(make((3, 5), F32), make((2, 3, 4), F32), make((2, 4, 5), F32),
                         name="self_broadcast_error"))
        else:
            out += [S(make((5,), F32), make((2, 3, 4), F32), make((2, 4, 5), F32),
                      name="self_broadcast"),
                    S(make((0, 3, 5), F32), make((0, 3, 4), F32), make((0, 4, 5), F32),
                      name="empty_batch"),
                    S(make((2, 3, 5), F64), make((2, 3, 4), F32), make((2, 4, 5), F32),
                      name="self_dtype_error"),
                    S(make((4,), F32), make((2, 3, 4), F32), make((2, 4, 5), F32),
                      name="self_shape_error")]
        return out
    return samples


_MM_TOLS = {"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 1e-1), "float32": (1e-5, 1e-4)}
register("baddbmm.default", _baddbmm_samples(), tols=_MM_TOLS)
out_of("baddbmm.out", "baddbmm.default")
register("baddbmm_.default", _baddbmm_samples(True), tols=_MM_TOLS)


def _einsum_samples():
    a, b = make((2, 3), F32), make((3, 4), F32)
    out = [S("ij,jk->ik", [make((2, 3), dt), make((3, 4), dt)], name=dtname(dt))
           for dt in (U8, I32, I64, F16, BF16, F32, F64)]
    out += [S("ij,jk", [a, b], name="implicit_output"),
            S("ij,kj->ki", [a, make((4, 3), F32)], name="permuted_output"),
            S("ii->i", [make((3, 3), F32)], name="diagonal_view"),
            S("ii", [make((3, 3), F64)], name="trace"),
            S("ij->ji", [a], name="transpose_view"),
            S("ij->", [a], name="sum_all"),
            S("ij->j", [make((2, 3), I32)], name="int32_sum_promotes"),
            S("ij,ij->ji", [a, make((2, 3), F32)], name="hadamard_transposed"),
            S("i,j->ij", [make((3,), F32), make((4,), F32)], name="outer"),
            S("i,j,k->ijk", [make((2,), F32), make((3,), F32), make((2,), F32)], name="three"),
            S("bij,bjk->bik", [make((2, 3, 4), F32), make((1, 4, 2), F32)], name="bmm_broadcast"),
            S("bij,bjk->bki", [make((2, 3, 4), F32), make((2, 4, 2), F32)], name="bmm_permuted"),
            S("...ij->...ji", [make((2, 2, 3), F32)], name="ellipsis"),
            S("...ij,...jk->...ik", [make((2, 2, 3), F32), make((3, 4), F32)],
              name="ellipsis_broadcast"),
            S("ij,jk->i", [a, b], name="private_label"),
            S("i,i->i", [make((3,), F32), make((1,), F32)], name="size1_broadcast"),
            S("ij,jk->ik", [transposed((2, 3), F32), strided((3, 4), F32)],
              name="noncontiguous"),
            S("ij,jk->ik", [make((0, 3), F32), b], name="empty"),
            S("ij,jk->ik", [a, make((3, 4), F64)], name="dtype_mismatch_error"),
            S("ij,jk->ik", [a, a], name="size_mismatch_error"),
            S("ij,jk->ik", [a], name="too_few_operands_error"),
            S("ij->ik", [a], name="unknown_output_error"),
            S("ijk->ij", [a], name="wrong_ndim_error"),
            S("ij->ii", [a], name="repeated_output_error"),
            S("ij,jk->ik", [make((2, 3), BOOL), make((3, 4), BOOL)], name="bool_error")]
    return out


register("einsum.default", _einsum_samples, tols=_MM_TOLS)


# ---- softmax -----------------------------------------------------------------------------
def _softmax_samples():
    out = [S(make((3, 4), dt), 1, False, name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 4), F32), 0, False, name="dim0"),
            S(make((3, 4), I64), 0, False, name="int64_dim0"),
            S(make((2, 3, 4), F64), -2, False, name="middle"),
            S(make((), F32), 0, False, name="0d"),
            S(make((), F32), -1, False, name="0d_neg"),
            S(make((0, 3), F32), 1, False, name="empty"),
            S(make((0, 3), I64), 1, False, name="empty_int64"),
            S(np.array([[-np.inf, 0.0, 1.0], [50.0, 100.0, -100.0]], F32), 1, False,
              name="extremes"),
            S(transposed((3, 4), F32), 1, False, name="transposed"),
            S(strided((3, 4), F16), 0, False, name="strided_float16"),
            S(make((3, 4), F32), 2, False, name="dim_error"),
            S(make((3, 4), F16), 1, True, name="half_to_float_error")]
    return out


def _softmax_int_samples():
    out = [S(make((3, 4), dt), 1, name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 4), I64), 0, E.float64, name="int64_to_float64"),
            S(make((3, 4), F16), 1, E.float32, name="float16_to_float32"),
            S(make((3, 4), F32), -1, E.float16, name="float32_to_float16"),
            S(make((3, 4), F32), 1, E.int64, name="to_int64_error"),
            S(transposed((3, 4), F32), 0, name="transposed"),
            S(make((), F64), 0, name="0d"),
            S(make((3, 4), F32), -3, name="dim_error")]
    return out


def _softmax_backward_samples(log=False):
    out = [S(make((3, 4), dt), make((3, 4), dt, low=0, high=1), 1, E.float32,
             name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 4), F32), make((3, 4), F32), 0, E.float32, name="dim0"),
            S(make((3, 4), F64), make((3, 4), F64), 1, E.float64, name="float64"),
            S(make((3, 4), F16), make((3, 4), F16), 1, E.float16, name="float16"),
            S(make((3, 4), F32), make((3, 4), F32), 1, E.float64, name="input_dtype_float64"),
            S(make((3, 4), F16), make((3, 4), F16), 1, E.float32, name="half_input_float32"),
            S(make((), F32), make((), F32), 0, E.float32, name="0d"),
            S(make((0, 2), F32), make((0, 2), F32), 1, E.float32, name="empty"),
            S(transposed((3, 4), F32), strided((3, 4), F32), 1, E.float32,
              name="noncontiguous"),
            S(make((3, 4), F32), make((3, 4), F32), 1, E.float16, name="float_input_half_error"),
            S(make((3, 4), F32), make((3, 4), F64), 1, E.float32, name="dtype_mismatch_error"),
            S(make((3, 4), F32), make((3, 4), F32), 2, E.float32, name="dim_error")]
    if not log:   # torch's log_softmax backward does not check the shapes
        out.append(S(make((3, 4), F32), make((2, 4), F32), 1, E.float32, name="shape_error"))
    return out


_SOFTMAX_TOLS = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 2e-2)}
for _op in ("_softmax", "_log_softmax"):
    register(f"{_op}.default", _softmax_samples, tols=_SOFTMAX_TOLS)
    out_of(f"{_op}.out", f"{_op}.default")
    register(f"{_op[1:]}.int", _softmax_int_samples, tols=_SOFTMAX_TOLS)
    out_of(f"{_op[1:]}.int_out", f"{_op[1:]}.int")
    register(f"{_op}_backward_data.default",
             lambda log=_op == "_log_softmax": _softmax_backward_samples(log), tols=_SOFTMAX_TOLS)
    out_of(f"{_op}_backward_data.out", f"{_op}_backward_data.default")
    # torch checks the out= dtype against `dtype=` before computing
    OPS[f"{_op[1:]}.int_out"].samples = lambda: [s for s in _softmax_int_samples()
                                                 if s.name != "to_int64_error"]
