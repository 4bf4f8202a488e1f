"""Gradient samples that tests/ops/opinfo.py lacks: more floating inputs, subgradient
points (ties, bounds) and in-place variants, for tests/autograd/test_op_gradients.py.

`EXTRA["amax.default"]` adds to the opinfo samples of that overload (which are reused
where their arrays are floating point). A sample named `nonsmooth_*` sits where the op
is not differentiable: only its gradients against torch's are checked, not gradcheck.

    >>> EXTRA["mm.default"][0].args[0].shape
    (2, 3)
"""
from __future__ import annotations

import numpy as np
import opinfo
from opinfo import F32, F64, I64, S, View, make, offset, strided, transposed

import ember


def _a(*rows):
    return np.array(rows, np.float32)


def _idx(*values):
    return np.array(values, np.int64)


I64_ZERO_D = np.array(1, I64)


def _extra():
    x34 = make((3, 4), F32)
    out = {
        "clone.default": [S(transposed((3, 4), F32), memory_format=ember.contiguous_format,
                            name="transposed_to_contiguous")],
        "copy_.default": [
            S(make((3, 4), F32), make((3, 1), F64), name="broadcast_promote_src"),
            S(transposed((3, 4), F32), make((4,), F32), name="view_self_broadcast_src")],
        "_to_copy.default": [S(make((2, 3), F64), dtype=ember.float32, name="float64_to_float32"),
                             S(transposed((3, 2), F32), name="transposed")],
        "fill_.Tensor": [S(make((3, 4), F32), make((), F32), name="float_value"),
                         S(make((3, 4), F32), make((), F64), name="float64_value")],
        "fill_.Scalar": [S(make((2, 3), F32), 2.5, name="float_fill")],
        "zero_.default": [S(make((2, 3), F32), name="float32")],
        "add.Scalar": [S(make((3, 4), F32), 2.5, 3, name="float32_alpha")],
        "add_.Scalar": [S(make((3, 4), F32), 2.5, 3, name="float32_alpha")],
        "sub.Scalar": [S(make((3, 4), F32), 1.5, 2, name="float32_alpha")],
        "sub_.Scalar": [S(make((3, 4), F32), 1.5, 2, name="float32_alpha")],
        "sub.Tensor": [S(make((3, 4), F32), make((3, 1), F64), alpha=2, name="promote_alpha")],
        "mul.Tensor": [S(make((2, 3), F32), make((3,), F64), name="broadcast_promote")],
        "div.Tensor": [S(make((2, 3), F32), make((3,), F32, nonzero=True, low=1, high=3),
                         name="broadcast_other")],
        "div.Tensor_mode": [
            S(make((2, 3), F32), make((2, 3), F32, low=1, high=3), rounding_mode="floor",
              name="floor"),
            S(make((2, 3), F32), make((3,), F32, low=1, high=3), rounding_mode="trunc",
              name="trunc_broadcast"),
            S(make((2, 3), F32), make((2, 3), F32, low=1, high=3), rounding_mode=None,
              name="true_division")],
        "div_.Tensor_mode": [
            S(make((2, 3), F32), make((2, 3), F32, low=1, high=3), rounding_mode="floor",
              name="floor"),
            S(make((2, 3), F32), make((3,), F32, low=1, high=3), rounding_mode=None,
              name="true_division")],
        "pow.Tensor_Tensor": [
            S(make((2, 3), F32, low=0.5, high=2), make((3,), F32, low=-2, high=2),
              name="broadcast_exponent"),
            S(_a([0.0, 1.5], [2.0, 0.0]), _a([2.0, 0.0], [1.5, 3.0]), name="nonsmooth_zero_base"),
            S(make((2, 3), F32, low=0.5, high=2), 2.5, name="number_exponent")],
        "pow_.Tensor": [S(make((2, 3), F32, low=0.5, high=2), make((2, 3), F32, low=-2, high=2),
                          name="float32")],
        "pow.Tensor_Scalar": [S(make((2, 3), F32, low=0.5, high=2), -1.5, name="negative_float"),
                              S(make((2, 3), F32), 0, name="exponent_0"),
                              S(make((2, 3), F32), 3, name="exponent_3")],
        "pow.Scalar": [S(2.5, make((2, 3), F32, low=-2, high=2), name="float_base"),
                       S(0, _a([-1.0, 0.5], [2.0, 1.0]), name="nonsmooth_zero_base")],
        "where.self": [S(make((3, 4), np.bool_), make((3, 4), F32), make((3, 4), F32),
                         name="float32"),
                       S(make((3, 1), np.bool_), make((3, 4), F32), 0.5, name="number_other")],
        "clamp.default": [S(make((3, 4), F32), -2, 3, name="float32"),
                          S(_a([-2.0, 1.0, 3.0, 4.0]), -2, 3, name="nonsmooth_at_bounds")],
        "clamp_.default": [S(make((3, 4), F32), -2, 3, name="float32")],
        "clamp.Tensor": [
            S(make((3, 4), F32), make((3, 4), F32, low=-5, high=0),
              make((3, 4), F32, low=0, high=5), name="float32"),
            S(make((3, 4), F32), make((3, 4), F32, low=0, high=2),
              make((3, 4), F32, low=-2, high=0), name="min_gt_max"),
            S(make((3, 4), F32), make((4,), F32, low=-2, high=0), None, name="min_only"),
            S(make((3, 1), F32), None, make((4,), F32), name="max_only_broadcast_self"),
            S(_a([-1.0, 1.0, 2.0]), _a([-1.0, 0.0, 0.0]), _a([1.0, 1.0, 2.0]),
              name="nonsmooth_at_bounds"),
            S(_a([-1.0, 0.5, 2.0]), _a([0.5, 0.5, 0.5]), _a([0.5, 0.5, 0.5]),
              name="nonsmooth_equal_bounds")],
        "masked_fill.Scalar": [S(make((3, 4), F32), make((3, 4), np.bool_), 2.5,
                                 name="float32")],
        "masked_fill.Tensor": [S(make((3, 4), F32), make((3, 4), np.bool_), make((), F32),
                                 name="float32"),
                               S(make((4,), F32), make((3, 4), np.bool_), make((), F64),
                                 name="broadcast_self_float64_value")],
        "masked_fill_.Scalar": [S(make((3, 4), F32), make((4,), np.bool_), 2.5, name="float32")],
        "masked_fill_.Tensor": [S(make((3, 4), F32), make((3, 4), np.bool_), make((), F32),
                                  name="float32")],
        "relu.default": [S(_a([-1.0, 0.0, 2.0]), name="nonsmooth_zero")],
        "threshold_backward.default": [
            S(make((2, 3), F32), make((2, 3), F32), 0.5, name="float32"),
            S(make((3,), F32), make((2, 3), F32), -1, name="broadcast_grad_output")],
        "sum.default": [S(make((3, 4), F32), dtype=ember.float64, name="float32_dtype_float64")],
        "mean.default": [S(make((3, 4), F32), dtype=ember.float64, name="float32_dtype_float64")],
        "amax.default": [
            S(_a([1.0, 3.0, 3.0], [2.0, 2.0, 0.0]), [1], name="nonsmooth_ties"),
            S(_a([1.0, 3.0, 3.0], [3.0, 2.0, 0.0]), name="nonsmooth_ties_all"),
            S(make((2, 3, 2), F32), [0, 2], name="two_dims")],
        "mm.default": [S(make((2, 3), F32), make((3, 2), F32), name="float32"),
                       S(transposed((2, 3), F32), strided((3, 2), F32), name="noncontiguous")],
        "bmm.default": [S(make((2, 2, 3), F32), make((2, 3, 2), F32), name="float32")],
        "addmm.default": [
            S(make((2,), F32), make((3, 2), F32), make((2, 2), F32), beta=0.5, alpha=2,
              name="beta_alpha"),
            S(make((3, 1), F32), transposed((3, 2), F32), make((2, 2), F32), beta=0,
              name="beta0")],
        "addmm_.default": [
            S(make((2, 2), F32), make((2, 3), F32), make((3, 2), F32), beta=0.5, alpha=2,
              name="beta_alpha"),
            S(transposed((2, 2), F32), make((2, 3), F32), strided((3, 2), F32), beta=0,
              name="beta0_noncontiguous")],
        "view.default": [S(make((3, 4), F32), [2, 6], name="float32")],
        "permute.default": [S(make((2, 3, 2), F32), [1, 2, 0], name="cycle")],
        "transpose.int": [S(make((2, 3), F32), 0, 1, name="2d")],
        "expand.default": [S(make((3, 1), F64), [2, 3, 4], name="new_dims")],
        "select.int": [S(make((3, 4), F32), 1, -1, name="float32")],
        "diagonal.default": [S(make((3, 4), F32), -1, name="below")],
        "split.Tensor": [S(make((5, 2), F32), 2, name="float32")],
        "unbind.int": [S(make((2, 3), F32), 1, name="dim1")],
        "alias.default": [S(make((2, 3), F32), name="float32")],
        "cat.default": [S([make((2, 3), F32), make((2, 3), F64)], name="promote_float64"),
                        S([make((2, 3), F32), make((0,), F32), make((1, 3), F32)],
                          name="legacy_empty_in_middle")],
        "index.Tensor": [S(x34, [_idx(0, 2, 2)], name="repeated_rows"),
                         S(make((3, 4), F32), [None, _idx(3, 3, 0)], name="repeated_cols"),
                         S(make((3, 4), F32), [make((3, 4), np.bool_)], name="bool_mask")],
        "index_put.default": [
            S(make((3, 4), F32), [_idx(0, 2)], make((4,), F32), name="broadcast_values"),
            S(make((3, 4), F32), [_idx(0, 2)], make((2, 4), F32), True, name="accumulate"),
            S(make((3, 4), F32), [None, _idx(1, 1)], make((3, 2), F32), True,
              name="accumulate_repeated"),
            S(make((3, 4), F32), [_idx(1, 1)], make((2, 4), F32), name="nonsmooth_overwrite")],
        "index_put_.default": [
            S(make((3, 4), F32), [_idx(0, 2)], make((4,), F32), name="broadcast_values"),
            S(make((3, 4), F32), [_idx(1, 1)], make((2, 4), F32), True,
              name="accumulate_repeated")],
    }
    for name in ("neg", "exp", "relu", "sigmoid", "tanh"):
        out.setdefault(f"{name}_.default", []).append(
            S(View(make((4, 3), F32), "transpose.int", (0, 1)), name="transposed_view"))
    out["log_.default"] = [S(View(make((4, 3), F32, low=0.5, high=3), "transpose.int", (0, 1)),
                             name="transposed_view")]
    out["mul_.Tensor"] = [S(offset((2, 3), F32), make((3,), F32), name="offset_view_broadcast")]
    out["add_.Tensor"] = [S(make((2, 3), F32), make((2, 3), F32), alpha=-2, name="alpha")]
    out["div_.Tensor"] = [S(make((2, 3), F32), make((3,), F32, low=1, high=3), name="float32")]
    out["mul_.Scalar"] = [S(make((2, 3), F32), 2.5, name="float32")]
    out["index.Tensor"].append(S(make((2, 3), F32), [I64_ZERO_D], name="0d_index"))
    # the fused recurrent cells: gates (B, 4H) / (B, 3H), the state (B, H), biases (G,)
    for op, gates in (("_thnn_fused_lstm_cell", 8), ("_thnn_fused_gru_cell", 6)):
        out[f"{op}.default"] = [
            S(make((3, gates), F32), make((3, gates), F32), make((3, 2), F32), name="no_bias"),
            S(make((3, gates), F32), make((3, gates), F32), make((3, 2), F32),
              make((gates,), F32), make((gates,), F32), name="biases")]
    out["_thnn_fused_lstm_cell_backward_impl.default"] = [
        S(make((3, 2), F32), make((3, 2), F32), make((3, 2), F32), make((3, 2), F32),
          make((3, 8), F32, low=0.1, high=0.9), True, name="not_implemented")]
    out["_thnn_fused_gru_cell_backward.default"] = [
        S(make((2, 2), F32), make((2, 10), F32, low=0.1, high=0.9), True,
          name="not_implemented")]
    for module in opinfo.FAMILY_MODULES:
        for name, samples in module.grad_extra().items():
            out.setdefault(name, []).extend(samples)
    return out


def seeded(fn, seed):
    """fn() with opinfo's random arrays drawn from a generator seeded with `seed` (not
    from opinfo's shared one, whose state depends on which samples were made before), and
    the sample modules' own generators restarted from their seeds, so a case's data does
    not depend on which cases were drawn before it."""
    saved = opinfo._rng
    saved_own = [rng.bit_generator.state for rng, _ in opinfo._OWN]
    opinfo._rng = np.random.default_rng(seed)
    opinfo.reseed_own()     # the sample modules' own generators from their seeds too
    try:
        return fn()
    finally:
        opinfo._rng = saved
        for (rng, _), state in zip(opinfo._OWN, saved_own):
            rng.bit_generator.state = state


EXTRA = seeded(_extra, 20240611)
