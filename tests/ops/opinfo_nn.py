"""Samples for the nn op family (issue 4), registered into `opinfo.OPS`.

opinfo.py imports this module at its end; `grad_extra()` adds gradient samples to
tests/autograd/grad_samples.py's EXTRA (called with opinfo's random generator seeded).
"""
from __future__ import annotations

import numpy as np
from helpers import ACCUMULATING_ULPS, FLOAT32_IN_FLOAT64
from opinfo import (
    ALL,
    BF16,
    BOOL,
    F16,
    F32,
    F64,
    FLOATS,
    I32,
    I64,
    OPS,
    U8,
    E,
    S,
    View,
    dtname,
    make,
    out_of,
    own_rng,
    register,
    strided,
    transposed,
)

# losses of a float32 input and a float64 target: float64 results, float32 math (torch's)
_MIXED_ULPS = {**ACCUMULATING_ULPS, "float64": FLOAT32_IN_FLOAT64}


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
        "native_batch_norm.default": [
            S(make((2, 3, 2), F32), make((3,), F32), make((3,), F32), _const(0.3, (3,)),
              _const(1.5, (3,)), False, 0.1, 1e-5, name="eval_const_stats"),
            S(make((4, 2), F64), None, None, None, None, True, 0.1, 1e-5, name="train_2d")],
        "nll_loss2d_forward.default": [
            S(make((2, 3, 2, 2), F32), make((2, 2, 2), I64, low=0, high=3), _const(0.5, (3,)),
              red, 1, name=f"const_weight_ignore_reduction{red}") for red in (0, 1, 2)],
        "nll_loss_forward.default": [
            S(make((3, 4), F32), _t(0, 3, 1), _const(0.5, (4,)), red, 3,
              name=f"const_weight_ignore_reduction{red}") for red in (0, 1, 2)],
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


register("dot.default", _dot_samples, tols=ACCUMULATING_ULPS)
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


register("mv.default", _mv_samples, tols=ACCUMULATING_ULPS)
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


register("baddbmm.default", _baddbmm_samples(), tols=ACCUMULATING_ULPS)
out_of("baddbmm.out", "baddbmm.default")
register("baddbmm_.default", _baddbmm_samples(True), tols=ACCUMULATING_ULPS)


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


register("einsum.default", _einsum_samples, tols=ACCUMULATING_ULPS)


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


for _op in ("_softmax", "_log_softmax"):
    register(f"{_op}.default", _softmax_samples)
    out_of(f"{_op}.out", f"{_op}.default")
    register(f"{_op[1:]}.int", _softmax_int_samples)
    out_of(f"{_op[1:]}.int_out", f"{_op[1:]}.int")
    register(f"{_op}_backward_data.default",
             lambda log=_op == "_log_softmax": _softmax_backward_samples(log))
    out_of(f"{_op}_backward_data.out", f"{_op}_backward_data.default")
    # torch checks the out= dtype against `dtype=` before computing
    OPS[f"{_op[1:]}.int_out"].samples = lambda: [s for s in _softmax_int_samples()
                                                 if s.name != "to_int64_error"]


# ---- losses ------------------------------------------------------------------------------
def _t(*values):
    return np.array(values, I64)


def _const(value, shape=(), dt=F32):
    """A tensor full of `value` that never requires grad in the gradient tests, of the
    leaves' dtype there (float64 in gradcheck): 0 * base + value, detached."""
    if dt == BF16:   # add.Scalar/mul.Scalar give bfloat16 results float32 storage for now
        return np.full(shape, value, dt)
    zero = View(np.zeros(shape, dt), "mul.Scalar", (0,))
    return View(View(zero, "add.Scalar", (value,)), "detach.default", ())


def _nll_samples():
    x = make((3, 4), F32)
    w = make((4,), F32, low=0.1, high=2)
    tg = _t(0, 3, 1)
    out = [S(make((3, 4), dt), tg, None, 1, -100, name=dtname(dt)) for dt in FLOATS]
    for red in (0, 1, 2):
        out += [S(x, tg, None, red, -100, name=f"reduction{red}"),
                S(x, tg, w, red, -100, name=f"weight_reduction{red}"),
                S(x, tg, w, red, 3, name=f"ignore_weight_reduction{red}"),
                S(make((4,), F64), np.array(2, I64), w.astype(F64), red, -100,
                  name=f"1d_reduction{red}"),
                S(make((0, 4), F32), _t(), None, red, -100, name=f"empty_reduction{red}")]
    out += [S(x, _t(3, 3, 3), None, 1, 3, name="all_ignored_mean"),
            S(x, _t(3, 3, 3), None, 2, 3, name="all_ignored_sum"),
            S(x, tg.astype(np.uint8), None, 1, -100, name="uint8_target"),
            S(x, tg, None, 3, -100, name="reduction3"),
            S(transposed((3, 4), F32), tg, None, 0, -100, name="transposed"),
            S(strided((3, 4), F64), tg, None, 1, 0, name="strided_ignore0"),
            S(x, tg.astype(I32), None, 1, -100, name="int32_target_error"),
            S(x, tg.astype(F32), None, 1, -100, name="float_target_error"),
            S(make((3, 4), I64), tg, None, 1, -100, name="int64_input_error"),
            S(x, _t(0, 4, 1), None, 1, -100, name="out_of_bounds_error"),
            S(x, _t(0, -1, 1), None, 1, -100, name="negative_target_error"),
            S(x, tg[:2], None, 1, -100, name="batch_mismatch_error"),
            S(x, tg, w[:3], 1, -100, name="weight_size_error"),
            S(x, tg, w.astype(F64), 1, -100, name="weight_dtype_error"),
            S(make((2, 3, 4), F32), tg, None, 1, -100, name="3d_error"),
            S(x, tg[:, None], None, 1, -100, name="2d_target_error")]
    return out


register("nll_loss_forward.default", _nll_samples, tols=ACCUMULATING_ULPS)
out_of("nll_loss_forward.output", "nll_loss_forward.default")


def _nll_backward_samples():
    x = make((3, 4), F32)
    w = make((4,), F32, low=0.1, high=2)
    tg = _t(0, 3, 1)
    g0 = make((), F32)
    g1 = make((3,), F32)
    tw = _const(3.0)
    out = [S(make((), dt), make((3, 4), dt), tg, None, 1, -100, _const(3.0, dt=dt),
             name=dtname(dt)) for dt in FLOATS]
    out += [S(g1, x, tg, None, 0, -100, _const(0.0), name="reduction0"),
            S(g0, x, tg, None, 1, -100, tw, name="reduction1"),
            S(g0, x, tg, None, 2, -100, tw, name="reduction2"),
            S(g0, x, tg, _const(0.5, (4,)), 1, 3, _const(1.0), name="weight_ignore_mean"),
            S(g1, x, tg, _const(0.5, (4,)), 0, 3, _const(0.0), name="weight_ignore_none"),
            S(g0, x, tg, None, 3, -100, tw, name="reduction3"),
            S(make((), F64), make((4,), F64), np.array(2, I64), None, 0, -100,
              _const(1.0, dt=F64), name="1d"),
            S(g0, transposed((3, 4), F32), tg, None, 2, -100, tw, name="transposed"),
            S(g0, x, tg, w, 1, -100, tw, name="weight_leaf"),
            S(g0, x, tg, None, 1, -100, np.array(3.0, F32), name="total_weight_leaf"),
            S(make((2,), F32), x, tg, None, 0, -100, tw, name="grad_size_error"),
            S(g1, x, tg, None, 1, -100, tw, name="grad_not_scalar_error"),
            S(g0, x, tg, None, 0, -100, tw, name="grad_0d_none_error"),
            S(g0, x, tg, None, 1, -100, _const(1.0, (2,)), name="total_weight_size_error"),
            S(g0, x, tg, None, 1, -100, np.array(3.0, F64), name="total_weight_dtype_error"),
            S(g0.astype(F64), x, tg, None, 1, -100, tw, name="grad_dtype_error"),
            S(g0, x, _t(0, 4, 1), None, 1, -100, tw, name="out_of_bounds_error"),
            S(g0, x, tg, w[:3], 1, -100, tw, name="weight_size_error")]
    return out


register("nll_loss_backward.default", _nll_backward_samples)
out_of("nll_loss_backward.grad_input", "nll_loss_backward.default")


def _nll_loss_samples(nd=False):
    def samples():
        x = make((3, 4), F32)
        tg = _t(0, 3, 1)
        out = [S(x, tg, name="default"),
               S(x, tg, make((4,), F32, low=0.1, high=2), 0, name="weight_none"),
               S(x, tg, None, 2, 1, name="sum_ignore"),
               S(make((4,), F64), np.array(1, I64), name="1d"),
               S(make((2, 3, 4), F32), tg, name="3d_error" if not nd else "3d_target_error")]
        if nd:
            out += [S(make((2, 3, 2), F32), _t(0, 2, 1, 1).reshape(2, 2), name="3d"),
                    S(make((2, 3, 2), F32), _t(0, 2, 1, 1).reshape(2, 2), None, 0, name="3d_none"),
                    S(make((2, 3, 2, 2), F64), make((2, 2, 2), I64, low=0, high=3),
                      make((3,), F64, low=0.5, high=1), 1, 1, name="4d_weight_ignore"),
                    S(make((2, 3, 1, 2, 1), F32), make((2, 1, 2, 1), I64, low=0, high=3), None, 0,
                      name="5d_none"),
                    S(make((0, 3, 2), F32), np.zeros((0, 2), I64), None, 2, name="empty_3d"),
                    S(make((2, 3, 2), F32), _t(0, 1, 2), name="batch_error"),
                    S(make((2, 3, 2), F32), _t(0, 1, 2, 0).reshape(2, 2, 1), name="target_error"),
                    S(make((), F32), np.array(0, I64), name="0d_error")]
        return out
    return samples


register("nll_loss.default", _nll_loss_samples(), tols=ACCUMULATING_ULPS)
out_of("nll_loss.out", "nll_loss.default")
register("nll_loss_nd.default", _nll_loss_samples(True), tols=ACCUMULATING_ULPS)


def _cross_entropy_samples():
    x = make((3, 4), F32)
    tg = _t(0, 3, 1)
    w = make((4,), F32, low=0.1, high=2)
    p = make((3, 4), F32, low=0, high=1)
    x3 = make((2, 4, 2), F64)
    t3 = _t(0, 3, 1, 1).reshape(2, 2)
    out = [S(make((3, 4), dt), tg, name=dtname(dt)) for dt in FLOATS]
    out += [S(x, tg, w, 0, name="weight_none"),
            S(x, tg, w, 1, 3, name="weight_ignore_mean"),
            S(x, tg, None, 2, 1, name="sum_ignore"),
            S(make((4,), F32), np.array(2, I64), name="1d"),
            S(x3, t3, name="3d"),
            S(x3, t3, make((4,), F64, low=0.1, high=2), 0, 1, 0.1, name="3d_smoothing_none"),
            S(x, tg, None, 1, -100, 0.2, name="smoothing_mean"),
            S(x, tg, w, 1, 3, 0.3, name="smoothing_weight_ignore_mean"),
            S(x, tg, w, 2, 3, 0.3, name="smoothing_weight_ignore_sum"),
            S(x, tg, None, 1, 0, 0.3, name="smoothing_ignore_mean"),
            S(x, p, name="probabilities"),
            S(x, p, w, 0, name="probabilities_weight_none"),
            S(x, p, w, 2, -100, 0.25, name="probabilities_smoothing_sum"),
            S(make((4,), F32), p[0], None, 1, name="probabilities_1d"),
            S(x3, make((2, 4, 2), F64, low=0, high=1), None, 1, name="probabilities_3d"),
            S(make((0, 4), F32), np.zeros((0, 4), F32), None, 1, name="probabilities_empty"),
            S(x, p, None, 1, 1, name="probabilities_ignore_error"),
            S(x, p.astype(F64), name="probabilities_dtype_promotes"),
            S(x, tg.astype(F32)[:, None].repeat(4, 1).astype(I64), name="int_probabilities_error"),
            S(x, tg, None, 1, -100, 1.5, name="smoothing_error"),
            S(x, p, w[:3], name="probabilities_weight_error"),
            S(x, tg, None, 5, -100, 0.1, name="smoothing_reduction_error"),
            S(make((3, 4), I64), tg, name="int64_error")]
    return out


register("cross_entropy_loss.default", _cross_entropy_samples, tols=_MIXED_ULPS)


def _regression_loss_samples():
    x, y = make((3, 4), F32), make((3, 4), F32)
    out = [S(make((3, 4), dt), make((3, 4), dt), name=dtname(dt)) for dt in ALL]
    out += [S(x, y, 0, name="none"), S(x, y, 2, name="sum"),
            S(transposed((3, 4), F32), y, 0, name="transposed_none"),
            S(x, make((4,), F64), 0, name="broadcast_promote"),
            S(make((4,), F32), y, 1, name="broadcast_self"),
            S(make((3, 4), I64), make((3, 4), I64), 0, name="int64_none"),
            S(make((3, 4), I64), make((3, 4), I64), 2, name="int64_sum"),
            S(make((3, 4), I64), y, 1, name="int64_float"),
            S(make((), F64), make((), F64), name="0d"),
            S(make((0, 4), F32), make((0, 4), F32), name="empty_mean"),
            S(x, make((2, 4), F32), name="shape_error")]
    return out


register("mse_loss.default", _regression_loss_samples, tols=ACCUMULATING_ULPS)
out_of("mse_loss.out", "mse_loss.default")
register("l1_loss.default", _regression_loss_samples, tols=ACCUMULATING_ULPS)


def _prob(shape, dt=F32):
    return make(shape, dt, low=0.05, high=0.95)


def _bce_samples():
    x, y = _prob((3, 4)), _prob((3, 4))
    w = make((4,), F32, low=0.1, high=2)
    out = [S(_prob((3, 4), dt), _prob((3, 4), dt), name=dtname(dt)) for dt in FLOATS]
    out += [S(x, y, None, 0, name="none"), S(x, y, None, 2, name="sum"),
            S(x, y, w, 0, name="weight_none"), S(x, y, w.astype(F64), 1, name="weight_float64"),
            S(x, y, _const(0.7, (4,)), 1, name="const_weight_mean"),
            S(transposed((3, 4), F32, low=0.05, high=0.95), y, None, 0, name="transposed_none"),
            S(x, _prob((4,)), None, 0, name="broadcast_target"),
            S(np.array([0.0, 1.0, 0.5], F32), np.array([1.0, 0.0, 0.5], F32), None, 0,
              name="nonsmooth_log_clamped"),
            S(x, y, None, 3, name="reduction3"),
            S(_prob((), F64), _prob((), F64), name="0d"),
            S(make((0, 4), F32), make((0, 4), F32), name="empty_mean"),
            S(x, y.astype(F64), name="target_dtype_error"),
            S(make((3, 4), F32, low=1.5, high=2), y, name="input_range_error"),
            S(x, make((3, 4), F32, low=1.5, high=2), name="target_range_error"),
            S(x, y, make((3,), F32), name="weight_shape_error"),
            S(make((3, 4), I64, low=0, high=2), make((3, 4), I64, low=0, high=2),
              name="int64_error")]
    return out


def _functional_into_out(functional, *out_names):
    """A torch reference for an out= overload: the functional op (or a torch function)
    copied into the outs (torch's binary_cross_entropy.out writes the unreduced loss into out before reducing
    it; native_batch_norm.out assumes out has the input's layout)."""
    out_names = out_names or ("out",)

    def ref(*args, **kwargs):
        import torch
        outs = [kwargs.pop(n) for n in out_names]
        fn = functional if callable(functional) else getattr(torch.ops.aten, functional).default
        results = fn(*args, **kwargs)
        results = results if isinstance(results, tuple) else (results,)
        for out, result in zip(outs, results):
            if out.numel() == 0:
                out.resize_(result.shape)
            out.copy_(result)
        return outs[0] if len(outs) == 1 else tuple(outs)
    return ref


register("binary_cross_entropy.default", _bce_samples)
out_of("binary_cross_entropy.out", "binary_cross_entropy.default",
       ref=_functional_into_out("binary_cross_entropy"))


def _bce_backward_samples():
    x, y = _prob((3, 4)), _prob((3, 4))
    w = make((4,), F32, low=0.1, high=2)
    g = make((3, 4), F32)
    out = [S(make((), dt), _prob((3, 4), dt), _prob((3, 4), dt), name=dtname(dt))
           for dt in FLOATS]
    out += [S(g, x, y, None, 0, name="none"), S(make((), F32), x, y, None, 2, name="sum"),
            S(g, x, y, w, 0, name="weight_none"),
            S(make((), F64), _prob((3, 4), F64), _prob((3, 4), F64), _const(1.5, (4,), F64), 1,
              name="const_weight_mean"),
            S(transposed((3, 4), F32), transposed((3, 4), F32, low=0.05, high=0.95), y, None, 0,
              name="transposed_none"),
            S(make((), F32), make((0, 4), F32), make((0, 4), F32), name="empty"),
            S(g, x, y.astype(F64), None, 0, name="target_dtype_error"),
            S(g.astype(F64), x, y, None, 0, name="grad_dtype_error"),
            S(make((), F32), make((3, 4), I64, low=0, high=2), make((3, 4), I64, low=0, high=2),
              name="int64_error")]
    return out


register("binary_cross_entropy_backward.default", _bce_backward_samples)
out_of("binary_cross_entropy_backward.grad_input", "binary_cross_entropy_backward.default",
       ref=_functional_into_out("binary_cross_entropy_backward", "grad_input"))


def _smooth_l1_samples():
    x, y = make((3, 4), F32, low=-3, high=3), make((3, 4), F32)
    out = [S(make((3, 4), dt, low=-3, high=3), make((3, 4), dt), name=dtname(dt))
           for dt in FLOATS]
    out += [S(x, y, 0, name="none"), S(x, y, 2, name="sum"), S(x, y, 1, 0.25, name="beta"),
            S(x, y, 0, 2.5, name="none_beta"), S(x, y, 1, 0.0, name="beta_zero"),
            S(x, y, 1, -1.0, name="negative_beta_error"),
            S(make((3, 1), F32), make((4,), F32), 0, name="broadcast_none"),
            S(transposed((3, 4), F32), y, 0, name="transposed_none"),
            S(x, y.astype(F64), 0, name="promotes"),
            S(make((0, 4), F32), make((0, 4), F32), name="empty_mean"),
            S(make((3, 4), I64, low=0, high=3), make((3, 4), I64, low=0, high=3),
              name="int64_error")]
    return out


_SMOOTH_L1_RNG = own_rng(51)   # (its per-dtype samples leave the shared stream: the one-ulp
# checks of bfloat16 need differences of one magnitude, not whatever later ops leave behind)


def _smooth_l1_backward_samples():
    x, y, g = make((3, 4), F32, low=-3, high=3), make((3, 4), F32), make((3, 4), F32)
    r = _SMOOTH_L1_RNG
    out = [S(make((), dt, rng=r), make((3, 4), dt, low=-3, high=3, rng=r),
             make((3, 4), dt, rng=r), 1, 1.0, name=dtname(dt)) for dt in FLOATS]
    out += [S(g, x, y, 0, 1.0, name="none"), S(make((), F32), x, y, 2, 0.5, name="sum"),
            S(transposed((3, 4), F32), transposed((3, 4), F32, low=-3, high=3), y, 0, 0.7,
              name="transposed_none"),
            S(make((), F32), make((0, 4), F32), make((0, 4), F32), 1, 1.0, name="empty"),
            S(make((), F32), x, y, 2, 0.0, name="beta_zero"),
            S(g, x, y.astype(F64), 0, 1.0, name="promotes"),
            S(make((), F32), make((3, 1), F32), make((4,), F32), 1, 1.0,
              name="broadcast")]
    return out


register("smooth_l1_loss.default", _smooth_l1_samples)
register("smooth_l1_loss_backward.default", _smooth_l1_backward_samples)


def _bce_logits_samples():
    x, y = make((3, 4), F32), _prob((3, 4))
    w = make((4,), F32, low=0.1, high=2)
    out = [S(make((3, 4), dt), _prob((3, 4), dt), name=dtname(dt)) for dt in FLOATS]
    out += [S(x, y, None, None, 0, name="none"), S(x, y, None, None, 2, name="sum"),
            S(x, y, w, None, 0, name="weight_none"),
            S(x, y, None, make((4,), F32, low=0.5, high=3), 1, name="pos_weight_mean"),
            S(x, y, w, make((4,), F32, low=0.5, high=3), 0, name="weight_pos_weight_none"),
            S(make((3, 4), F32, low=-40, high=40), y, None, None, 0, name="large_logits"),
            S(transposed((3, 4), F32), y, None, None, 0, name="transposed_none"),
            S(make((4,), F32), _prob((3, 4)), None, None, 0, name="broadcast_self"),
            S(x, _prob((3, 4), F64), None, None, 0, name="float64_target"),
            S(x.astype(F64), y, None, None, 0, name="float64_self"),
            S(make((), F64), _prob((), F64), name="0d"),
            S(make((0, 4), F32), make((0, 4), F32), name="empty_mean"),
            S(x, _prob((4,)), None, None, 0, name="target_broadcast_error"),
            S(x, y, make((3,), F32), None, 1, name="weight_shape_error"),
            S(make((3, 4), I64), make((3, 4), I64, low=0, high=2), name="int64_error")]
    return out


register("binary_cross_entropy_with_logits.default", _bce_logits_samples, tols=_MIXED_ULPS)
out_of("binary_cross_entropy_with_logits.out", "binary_cross_entropy_with_logits.default")


# ---- normalisation -----------------------------------------------------------------------
def _layer_norm_samples():
    x = make((2, 3, 4), F32)
    w, b = make((4,), F32), make((4,), F32)
    out = [S(make((2, 3, 4), dt), [4], make((4,), dt), make((4,), dt), 1e-5, name=dtname(dt))
           for dt in FLOATS]
    out += [S(x, [3, 4], None, None, 1e-5, name="two_dims_no_params"),
            S(x, [4], w, None, 0.1, name="weight_only_eps"),
            S(transposed((2, 4, 3), F32), [3], None, make((3,), F32), 1e-5, name="transposed"),
            S(make((4,), F64), [4], make((4,), F64), make((4,), F64), 1e-5, name="1d"),
            S(make((0, 3, 4), F32), [4], w, b, 1e-5, name="empty_batch"),
            S(make((2, 3, 4), F16), [4], w, b, 1e-5, name="float16_float32_params"),
            S(make((2, 3, 4), BF16), [4], None, b, 1e-5, name="bfloat16_float32_bias"),
            S(x, [4], w.astype(F64), b, 1e-5, name="param_dtype_error"),
            S(x.astype(F64), [4], w, b, 1e-5, name="input_float64_params_float32_error"),
            S(make((2, 3, 4), I64), [4], None, None, 1e-5, name="int64_error"),
            S(x, [3], None, None, 1e-5, name="shape_error"),
            S(x, [], None, None, 1e-5, name="empty_normalized_shape_error"),
            S(x, [4], make((3,), F32), None, 1e-5, name="weight_shape_error"),
            S(x, [4], None, make((2, 2), F32), 1e-5, name="bias_shape_error"),
            S(x, [1, 2, 3, 4], None, None, 1e-5, name="too_many_dims_error")]
    return out


register("native_layer_norm.default", _layer_norm_samples, tols=ACCUMULATING_ULPS)
out_of("native_layer_norm.out", "native_layer_norm.default")
register("layer_norm.default", lambda: [
    S(make((2, 3, 4), F32), [4], name="default"),
    S(make((2, 3, 4), F64), [3, 4], make((3, 4), F64), make((3, 4), F64), 1e-3,
      name="params_eps"),
    S(transposed((2, 4, 3), F32), [3], make((3,), F32), name="transposed"),
    S(make((2, 3), F16), [3], name="float16"),
    S(make((2, 3), F32), [2], name="shape_error")], tols=ACCUMULATING_ULPS)


def _ln_stats(x, axis, dt):
    """Plausible mean and rstd arrays for layer norm backward samples."""
    shape = x.shape[:axis] + (1,) * (x.ndim - axis)
    return make(shape, dt), make(shape, dt, low=0.5, high=2)


def _layer_norm_backward_samples():
    out = []
    for dt in FLOATS:
        x = make((2, 3, 4), dt)
        m, r = _ln_stats(x, 2, dt)
        out.append(S(make((2, 3, 4), dt), x, [4], m, r, make((4,), dt), make((4,), dt),
                     [True, True, True], name=dtname(dt)))
    x = make((2, 3, 4), F32)
    m, r = _ln_stats(x, 1, F32)
    m2, r2 = _ln_stats(x, 2, F32)
    out += [S(make((2, 3, 4), F32), x, [3, 4], m, r, make((3, 4), F32), make((3, 4), F32),
              [True, True, True], name="two_dims"),
            S(transposed((2, 3, 4), F32), transposed((2, 3, 4), F32), [3],
              *_ln_stats(np.zeros((2, 4, 3)), 2, F32), make((3,), F32), make((3,), F32),
              [True, True, True], name="transposed"),
            S(make((2, 3, 4), F32), x, [4], m2.astype(F64), r2, make((4,), F32),
              make((4,), F32), [True, True, True], name="mean_dtype_error"),
            S(make((2, 3, 4), F32), x, [4], m2, r2, None, None, [True, True, False],
              name="no_weight_error")]
    return out


register("native_layer_norm_backward.default", _layer_norm_backward_samples,
         tols=ACCUMULATING_ULPS)
out_of("native_layer_norm_backward.out", "native_layer_norm_backward.default")


def _bn_params(c, dt=F32):
    return make((c,), dt), make((c,), dt)


def _running(c, dt=F32):
    return make((c,), dt), make((c,), dt, low=0.5, high=2)


def _batch_norm_samples():
    """Training samples have no running statistics (their in-place update is tested in
    tests/ops/test_nn.py: the suite checks inputs are left untouched)."""
    x = make((2, 3, 4), F32)
    out = [S(make((2, 3, 4), dt), *_bn_params(3, dt), None, None, True, 0.1, 1e-5,
             name=dtname(dt)) for dt in FLOATS]
    out += [S(x, *_bn_params(3), *_running(3), False, 0.1, 1e-5, name="eval"),
            S(x, None, None, *_running(3), False, 0.1, 1e-3, name="eval_no_params"),
            S(make((4, 3), F64), None, None, None, None, True, 0.1, 1e-5, name="2d"),
            S(make((2, 3, 2, 2), F32), *_bn_params(3), None, None, True, 0.1, 1e-5,
              name="4d"),
            S(View(make((2, 2, 2, 3), F32), "permute.default", ([0, 3, 1, 2],)), None, None,
              None, None, True, 0.1, 1e-5, name="channels_last"),
            S(transposed((2, 4, 3), F32), None, make((4,), F32), None, None, True, 0.1, 1e-5,
              name="transposed"),
            S(make((2, 3, 4), F16), *_bn_params(3), *_running(3), False, 0.1, 1e-5,
              name="float16_mixed_eval"),
            S(make((2, 3, 4), BF16), *_bn_params(3), None, None, True, 0.1, 1e-5,
              name="bfloat16_mixed"),
            S(x, make((3,), F64), None, None, None, True, 0.1, 1e-5, name="param_dtype_error"),
            S(make((2, 3, 4), I64), None, None, None, None, True, 0.1, 1e-5,
              name="int64_error"),
            S(make((3,), F32), None, None, None, None, True, 0.1, 1e-5, name="1d_error"),
            S(make((0, 3), F32), None, None, None, None, True, 0.1, 1e-5, name="empty_error"),
            S(x, None, None, make((3,), F32), None, True, 0.1, 1e-5,
              name="one_running_stat_error")]
    return out


register("native_batch_norm.default", _batch_norm_samples, tols=ACCUMULATING_ULPS)
out_of("native_batch_norm.out", "native_batch_norm.default",
       ref=_functional_into_out("native_batch_norm", "out", "save_mean", "save_invstd"))
register("batch_norm.default", lambda: [
    S(make((2, 3, 4), F32), *_bn_params(3), None, None, True, 0.1, 1e-5, False, name="train"),
    S(make((2, 3), F64), None, None, *_running(3, F64), False, 0.1, 1e-5, False, name="eval"),
    S(make((2, 3, 2, 2), F32), None, make((3,), F32), None, None, True, 0.2, 1e-3, True,
      name="4d_bias"),
    S(make((2, 3), F32), None, None, None, None, False, 0.1, 1e-5, False,
      name="eval_without_stats_error"),
    S(make((2, 3), F32), make((4,), F32), None, None, None, True, 0.1, 1e-5, False,
      name="weight_size_error")], tols=ACCUMULATING_ULPS)


def _batch_norm_backward_samples():
    out = []
    for dt in FLOATS:
        out.append(S(make((2, 3, 4), dt), make((2, 3, 4), dt), make((3,), dt), None, None,
                     make((3,), dt), make((3,), dt, low=0.5, high=2), True, 1e-5,
                     [True, True, True], name=dtname(dt)))
    g, x = make((2, 3, 4), F32), make((2, 3, 4), F32)
    sm, si = make((3,), F32), make((3,), F32, low=0.5, high=2)
    out += [S(g, x, None, None, None, sm, si, True, 1e-5, [True, True, True],
              name="no_weight"),
            S(g, x, make((3,), F32), *_running(3), None, None, False, 1e-5, [True, True, True],
              name="eval"),
            S(make((2, 3, 2, 2), F32), make((2, 3, 2, 2), F32), make((3,), F32), None, None,
              sm, si, True, 1e-5, [True, True, True], name="4d"),
            S(View(make((2, 2, 2, 3), F32), "permute.default", ([0, 3, 1, 2],)),
              View(make((2, 2, 2, 3), F32), "permute.default", ([0, 3, 1, 2],)), None, None,
              None, sm, si, True, 1e-5, [True, True, True], name="channels_last"),
            S(make((2, 3, 4), F16), make((2, 3, 4), F16), make((3,), F32), None, None, sm, si,
              True, 1e-5, [True, True, True], name="float16_mixed"),
            S(g, x.astype(F64), make((3,), F32), None, None, sm, si, True, 1e-5,
              [True, True, True], name="dtype_error")]
    return out


register("native_batch_norm_backward.default", _batch_norm_backward_samples,
         tols=ACCUMULATING_ULPS)
out_of("native_batch_norm_backward.out", "native_batch_norm_backward.default")


# ---- attention ---------------------------------------------------------------------------
def _sdpa_samples():
    q, k, v = make((2, 2, 3, 4), F32), make((2, 2, 5, 4), F32), make((2, 2, 5, 3), F32)
    rows_masked = np.ones((3, 5), bool)
    rows_masked[1] = False
    # no bfloat16 yet: bfloat16 * Python number gives a float32-backed result (pointwise bug)
    out = [S(make((2, 3, 4), dt), make((2, 5, 4), dt), make((2, 5, 3), dt), name=dtname(dt))
           for dt in (F16, F32, F64)]
    out += [S(q, k, v, name="4d"),
            S(q, k, v, is_causal=True, name="causal"),
            S(q, k, v, make((3, 5), BOOL), name="bool_mask"),
            S(q, k, v, rows_masked, name="bool_mask_dead_row"),
            S(q, k, v, make((2, 1, 3, 5), F32), name="float_mask"),
            # torch's flash kernel: the output laid out as a query of unit last stride
            S(View(make((3, 2, 2, 4), F32), "permute.default", ([1, 2, 0, 3],)), k,
              make((2, 2, 5, 4), F32), None, 0.0, True, name="flash_sequence_first"),
            S(transposed((2, 2, 4, 3), F32), k, make((2, 2, 5, 4), F32), None, 0.0, True,
              name="flash_transposed_query_takes_the_math_path"),
            S(q, k, v, scale=0.3, name="scale"),
            S(q, k, v, scale=-0.5, name="negative_scale"),
            S(make((3, 4), F64), make((5, 4), F64), make((5, 2), F64), None, 0.0, True,
              name="2d_causal"),
            S(q, make((2, 1, 5, 4), F32), make((2, 1, 5, 3), F32), enable_gqa=True, name="gqa"),
            S(q, make((2, 1, 5, 4), F32), make((2, 1, 5, 3), F32), name="broadcast_heads"),
            S(transposed((2, 2, 4, 3), F32), k, v, name="transposed_query"),
            S(make((2, 0, 4), F32), make((2, 5, 4), F32), make((2, 5, 3), F32), name="empty"),
            S(q, k, v, make((3, 5), F32), 0.0, True, name="mask_and_causal_error"),
            S(q.astype(F64), k, v, name="dtype_error"),
            S(q, k, v, make((3, 5), F64), name="mask_dtype_error"),
            S(q, make((2, 2, 5, 3), F32), v, name="head_dim_error"),
            S(make((2, 3, 4), I64), make((2, 5, 4), I64), make((2, 5, 3), I64),
              name="int64_error")]
    return out


register("scaled_dot_product_attention.default", _sdpa_samples, tols=ACCUMULATING_ULPS)


def _flash_cpu_samples():
    q, k, v = make((2, 2, 3, 4), F32), make((2, 2, 5, 4), F32), make((2, 2, 5, 4), F32)
    out = [S(make((1, 2, 3, 4), dt), make((1, 2, 3, 4), dt), make((1, 2, 3, 4), dt),
             name=dtname(dt)) for dt in (F32, F64)]
    out += [S(q, k, v, name="cross"), S(q, k, v, 0.0, True, name="causal"),
            S(k, q, q, 0.0, True, name="causal_longer_query"),
            S(q, k, v, scale=0.3, name="scale"),
            S(transposed((2, 2, 4, 3), F32), k, v, 0.0, True, name="transposed_query"),
            S(View(make((3, 2, 2, 4), F32), "permute.default", ([1, 2, 0, 3],)), k, v, 0.0,
              True, name="sequence_first_query"),  # (MHA's layout: the output keeps it)
            S(q, k, make((2, 2, 5, 3), F32), name="head_size_error")]
    return out


def _flash_cpu_backward_samples():
    q, k, v = make((2, 2, 3, 4), F32), make((2, 2, 5, 4), F32), make((2, 2, 5, 4), F32)
    g, o, lse = make((2, 2, 3, 4), F32), make((2, 2, 3, 4), F32), make((2, 2, 3), F32)
    out = [S(g, q, k, v, o, lse, 0.0, False, name="cross"),
           S(g, q, k, v, o, lse, 0.0, True, name="causal"),
           S(g, q, k, v, o, lse, 0.0, True, scale=-0.5, name="scale")]
    q64, o64 = make((1, 2, 3, 4), F64), make((1, 2, 3, 4), F64)
    out.append(S(o64, q64, q64, q64, o64, make((1, 2, 3), F64), 0.0, True, name="float64"))
    return out


register("_scaled_dot_product_flash_attention_for_cpu.default", _flash_cpu_samples,
         tols=ACCUMULATING_ULPS)
register("_scaled_dot_product_flash_attention_for_cpu_backward.default",
         _flash_cpu_backward_samples, tols=ACCUMULATING_ULPS)


# ---- out= variants of matmul and linear (their functional samples are in opinfo.py) -----
out_of("matmul.out", "matmul.default")
out_of("linear.out", "linear.default")


# ---- nll_loss2d --------------------------------------------------------------------------
def _t2d(n=2, h=2, w=2, c=3):
    return make((n, h, w), I64, low=0, high=c)


def _nll2d_samples():
    x = make((2, 3, 2, 2), F32)
    tg = _t2d()
    w = make((3,), F32, low=0.1, high=2)
    out = [S(make((2, 3, 2, 2), dt), tg, None, 1, -100, name=dtname(dt)) for dt in FLOATS]
    for red in (0, 1, 2):
        out += [S(x, tg, w, red, 1, name=f"weight_ignore_reduction{red}"),
                S(make((0, 3, 2, 2), F32), np.zeros((0, 2, 2), I64), None, red, -100,
                  name=f"empty_reduction{red}")]
    # more than 24 elements: no gradient test (torch's backward refuses channels-last input)
    out += [S(View(make((2, 2, 3, 3), F32), "permute.default", ([0, 3, 1, 2],)),
              make((2, 2, 3), I64, low=0, high=3), None, 0, -100, name="channels_last"),
            S(x, tg, None, 3, -100, name="reduction3"),
            S(x, tg.astype(np.uint8), None, 1, -100, name="uint8_target_error"),
            S(x[0], tg[0], None, 1, -100, name="3d_error"),
            S(x, tg[:, :1], None, 1, -100, name="size_error"),
            S(x, tg.astype(I32), None, 1, -100, name="target_dtype_error"),
            S(x, tg, make((4,), F32), 1, -100, name="weight_size_error"),
            S(x, tg + 3, None, 1, -100, name="out_of_bounds_error"),
            S(make((2, 3, 2, 2), I64), tg, None, 1, -100, name="int64_error")]
    return out


register("nll_loss2d_forward.default", _nll2d_samples, tols=ACCUMULATING_ULPS)
out_of("nll_loss2d_forward.output", "nll_loss2d_forward.default")


def _nll2d_backward_samples():
    x = make((2, 3, 2, 2), F32)
    tg = np.array([[[0, 1], [2, 1]], [[1, 1], [0, 2]]], I64)
    g0, g3 = make((), F32), make((2, 2, 2), F32)
    # (the grad away from 0, where its few nonzero results would fall below the tolerance's
    # floor; the same draws from the shared stream)
    out = [S(make((), dt, low=0.5, high=2.0), make((2, 3, 2, 2), dt), tg, None, 1, -100,
             _const(8.0, dt=dt), name=dtname(dt)) for dt in FLOATS]
    out += [S(g3, x, tg, None, 0, -100, _const(0.0), name="reduction0"),
            S(g0, x, tg, None, 2, -100, _const(8.0), name="reduction2"),
            S(g0, x, tg, _const(0.5, (3,)), 1, 1, _const(2.0), name="weight_ignore_mean"),
            S(g0, x, tg, None, 1, -100, np.array(8.0, F32), name="total_weight_leaf"),
            S(g0, x, tg, None, 0, -100, _const(0.0), name="grad_0d_none_error"),
            S(g3, x, tg, None, 1, -100, _const(8.0), name="grad_not_scalar_error"),
            S(g0, x, tg, None, 1, -100, _const(1.0, (2,)), name="total_weight_size_error"),
            S(g0, View(make((2, 2, 2, 3), F32), "permute.default", ([0, 3, 1, 2],)), tg, None,
              1, -100, _const(8.0), name="channels_last_error")]
    return out


register("nll_loss2d_backward.default", _nll2d_backward_samples)
out_of("nll_loss2d_backward.grad_input", "nll_loss2d_backward.default")
# torch's grad_input= variant writes into the given (contiguous) tensor without that check
OPS["nll_loss2d_backward.grad_input"].samples = lambda: [
    s for s in _nll2d_backward_samples() if s.name != "channels_last_error"]
register("nll_loss2d.default", lambda: [
    S(make((2, 3, 2, 2), F32), _t2d(), name="default"),
    S(make((2, 3, 2, 2), F64), _t2d(), make((3,), F64, low=0.5, high=1), 0, 2,
      name="weight_none_ignore"),
    S(make((2, 3, 4), F32), _t2d()[:, 0], name="3d_error")], tols=ACCUMULATING_ULPS)
out_of("nll_loss2d.out", "nll_loss2d.default")
register("ger.default", _outer_samples)   # torch.ger: outer under its old name
out_of("ger.out", "ger.default")


# --------------------------------------------------------------------------- fused cells
# torch has CUDA kernels only: the references are its CPU cells' formulas (the errors and
# the None bias gradients: tests/nn/test_rnn_fused.py)
def _torch_lstm_cell(ig, hg, cx, ib=None, hb=None):
    import torch
    gates = ig + hg if ib is None else ig + hg + ib + hb
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * cx + i * g
    return o * cy.tanh(), cy, torch.cat([i, f, g, o], 1)


def _torch_lstm_cell_backward(ghy, gcy, cx, cy, workspace, has_bias):
    import torch
    i, f, g, o = workspace.chunk(4, 1)
    t = cy.tanh()
    gc = ghy * o * (1 - t * t) + gcy
    gates = torch.cat([gc * g * (1 - i) * i, gc * cx * (1 - f) * f, gc * i * (1 - g * g),
                       ghy * t * (1 - o) * o], 1)
    return gates, gc * f, gates.sum(0) if has_bias else None


def _torch_gru_cell(ig, hg, hx, ib=None, hb=None):
    import torch
    if ib is not None:
        ig, hg = ig + ib, hg + hb
    xr, xz, xn = ig.chunk(3, 1)
    hr, hz, hn = hg.chunk(3, 1)
    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return n + z * (hx - n), torch.cat([r, z, n, hx, hn], 1)


def _torch_gru_cell_backward(ghy, workspace, has_bias):
    import torch
    r, z, n, hx, hn = workspace.chunk(5, 1)
    gz = ghy * (hx - n) * (1 - z) * z
    gn = ghy * (1 - z) * (1 - n * n)
    gr = gn * hn * (1 - r) * r
    gx, gh = torch.cat([gr, gz, gn], 1), torch.cat([gr, gz, gn * r], 1)
    return gx, gh, ghy * z, gx.sum(0), gh.sum(0)


def _cell_samples(gates):
    return [S(make((3, gates * 2), F32), make((3, gates * 2), F32), make((3, 2), F32),
              name="no_bias"),
            S(make((2, gates * 3), F64), make((2, gates * 3), F64), make((2, 3), F64),
              make((gates * 3,), F64), make((gates * 3,), F64), name="biases")]


for _op, _gates, _ref, _outs in (
        ("_thnn_fused_lstm_cell", 4, _torch_lstm_cell, ("out0", "out1", "out2")),
        ("_thnn_fused_gru_cell", 3, _torch_gru_cell, ("out0", "out1"))):
    register(f"{_op}.default", lambda g=_gates: _cell_samples(g), ref=_ref,
             tols=ACCUMULATING_ULPS)
    out_of(f"{_op}.out", f"{_op}.default", ref=_functional_into_out(_ref, *_outs),
           errors=False)

register("_thnn_fused_lstm_cell_backward_impl.default", lambda: [
    S(make((3, 2), F32), make((3, 2), F32), make((3, 2), F32), make((3, 2), F32),
      make((3, 8), F32, low=0.1, high=0.9), True, name="has_bias"),
    S(make((2, 3), F64), make((2, 3), F64), make((2, 3), F64), make((2, 3), F64),
      make((2, 12), F64, low=0.1, high=0.9), True, name="float64")],
    ref=_torch_lstm_cell_backward, tols=ACCUMULATING_ULPS)
out_of("_thnn_fused_lstm_cell_backward_impl.out", "_thnn_fused_lstm_cell_backward_impl.default",
       ref=_functional_into_out(_torch_lstm_cell_backward, "out0", "out1", "out2"))
register("_thnn_fused_gru_cell_backward.default", lambda: [
    S(make((3, 2), F32), make((3, 10), F32, low=0.1, high=0.9), True, name="has_bias")],
    ref=_torch_gru_cell_backward, tols=ACCUMULATING_ULPS)
out_of("_thnn_fused_gru_cell_backward.out", "_thnn_fused_gru_cell_backward.default",
       ref=_functional_into_out(_torch_gru_cell_backward, "out0", "out1", "out2", "out3",
                                "out4"))
