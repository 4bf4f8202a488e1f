"""Samples for the random op family (issue 4), registered into `opinfo.OPS`.

opinfo.py imports this module at its end; `grad_extra()` adds gradient samples to
tests/autograd/grad_samples.py's EXTRA (called with opinfo's random generator seeded).

Random values cannot match torch's (PCG64 vs Mersenne Twister), so random ops compare
shape, dtype and strides only (`values=False`); tests/ops/test_random_ops.py checks the
distributions. A `generator=` value in a sample is an ember.Generator; the harnesses give
each side a fresh generator with its seed (ember's or torch's). Training dropout samples
with 0 < p < 1 have more than 24 elements, so the gradient tests (which compare with
torch's gradients, i.e. its mask) only use the deterministic ones (p = 0 or 1, eval).
Each op's samples draw from a generator seeded by its name (`register` here wraps
opinfo's), so adding samples here never changes other families' random inputs.
"""
from __future__ import annotations

import zlib

import numpy as np
import opinfo
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
    NUMERIC,
    U8,
    E,
    S,
    View,
    dtname,
    expanded,
    make,
    offset,
    out_of,
    strided,
    transposed,
)
from opinfo import register as _register


def _own_rng(name, samples):
    """`samples` drawing its arrays from a generator seeded by the op's name, not from
    opinfo's shared one: the family's samples neither depend on nor shift other ops'."""
    def wrapped():
        saved = opinfo._rng
        opinfo._rng = np.random.default_rng(zlib.crc32(name.encode()))
        try:
            return samples()
        finally:
            opinfo._rng = saved
    return wrapped


def register(name, samples, **flags):
    _register(name, _own_rng(name, samples), **flags)


def G(seed=0):
    """A seeded generator argument."""
    return E.Generator().manual_seed(seed)


def _with_gen(samples):
    """The same samples, each also given generator=G()."""
    def gen_samples():
        out = []
        for s in samples():
            out.append(S(*s.args, generator=G(), name=s.name, **s.kwargs))
        return out + [S(*samples()[0].args, generator=None, name="generator_none")]
    return gen_samples


def _rand_samples():
    return [S([2, 3], name="2x3"), S([], name="0d"), S([0, 3], name="empty"),
            S([2, 3], dtype=E.float16, name="float16"), S([2, 3], dtype=E.bfloat16, name="bfloat16"),
            S([2, 3], dtype=E.float64, name="float64"), S([2, 3], dtype=E.int64, name="int64")]


# ---- rand / randn / *_like with a generator ------------------------------------------
register("rand.generator", _with_gen(_rand_samples), values=False, exact_strides=True)
register("randn.generator", _with_gen(_rand_samples), values=False, exact_strides=True)


def _size_out_samples():
    return [S([2, 3], name="2x3"), S([], name="0d"), S([4], name="1d")]


register("rand.out", _size_out_samples, values=False, functional="rand.default")
register("randn.out", _size_out_samples, values=False, functional="randn.default")
register("rand.generator_out", _with_gen(_size_out_samples), values=False,
         functional="rand.generator")
register("randn.generator_out", _with_gen(_size_out_samples), values=False,
         functional="randn.generator")


def _rand_like_gen_samples():
    return [S(make((3, 4), dt), generator=G(), name=dtname(dt)) for dt in (F16, BF16, F32, F64)] + [
        S(make((), F32), generator=G(), name="0d"), S(make((0, 2), F32), generator=G(), name="empty"),
        S(transposed((3, 4), F32), generator=G(), name="transposed_preserved"),
        S(make((2, 3), I64), generator=G(), name="int64_error"),
        S(make((2, 3), I64), generator=None, dtype=E.float32, name="int64_to_float32")]


register("rand_like.generator", _rand_like_gen_samples, values=False, exact_strides=True)
register("randn_like.generator", _rand_like_gen_samples, values=False, exact_strides=True)


# ---- linspace, eye -------------------------------------------------------------------
register("linspace.default", lambda: [
    S(0, 10, 5, name="int_ends"), S(-1.5, 2.5, 9, name="float_ends"),
    S(0, 10, 4, dtype=E.int64, name="int64"), S(10, -3, 4, dtype=E.int32, name="int32_down"),
    S(0.5, 10.7, 4, dtype=E.int64, name="int64_fractional_ends"),
    S(0, 10, 4, dtype=E.uint8, name="uint8"), S(-3, 10, 5, dtype=E.uint8, name="uint8_wrapping"),
    S(-3, 10, 101, dtype=E.float16, name="float16_many"),
    S(-1, 1, 7, dtype=E.bfloat16, name="bfloat16"), S(0, 1, 5, dtype=E.float16, name="float16"),
    S(0, 1, 11, dtype=E.float64, name="float64"), S(True, False, 3, name="bool_ends"),
    S(3, 10, 1, name="one_step"), S(3, 10, 0, name="empty"),
    S(0, 1, 3, dtype=E.bool, name="bool_error"), S(0, 1, -1, name="negative_steps_error")],
    exact_strides=True)
register("linspace.out", lambda: [S(0, 10, 5, name="int_ends"), S(-2, 2, 9, name="float_ends"),
                                  S(1, 2, 0, name="empty")],
         functional="linspace.default", exact_strides=True)
register("eye.default", lambda: [
    S(3, name="3"), S(0, name="empty"), S(1, name="1"), S(3, dtype=E.bool, name="bool"),
    S(2, dtype=E.int32, name="int32"), S(2, dtype=E.bfloat16, name="bfloat16"),
    S(-1, name="negative_error")], exact_strides=True)
register("eye.m", lambda: [
    S(2, 4, name="wide"), S(4, 2, name="tall"), S(0, 3, name="empty"), S(3, 0, name="empty_m"),
    S(3, 3, dtype=E.float16, name="float16"), S(2, 3, dtype=E.uint8, name="uint8"),
    S(2, -1, name="negative_m_error"), S(-2, 1, name="negative_n_error")], exact_strides=True)
register("eye.out", lambda: [S(3, name="3"), S(0, name="empty")], functional="eye.default",
         exact_strides=True)
register("eye.m_out", lambda: [S(2, 4, name="wide"), S(3, 1, name="tall")], functional="eye.m",
         exact_strides=True)


# ---- randint, randperm ----------------------------------------------------------------
def _randint_samples():
    return [S(10, [2, 3], name="int64"), S(10, [], name="0d"), S(10, [0], name="empty"),
            S(2, [4], dtype=E.bool, name="bool"), S(100, [2, 3], dtype=E.float32, name="float32"),
            S(200, [5], dtype=E.uint8, name="uint8"), S(50, [3], dtype=E.float16, name="float16"),
            S(5000, [4], dtype=E.float16, name="float16_imprecise_range"),
            S(7, [2, 2], dtype=E.int32, name="int32"),
            S(0, [2], name="empty_range_error"), S(-3, [2], name="negative_high_error"),
            S(300, [2], dtype=E.uint8, name="uint8_overflow_error"),
            S(3, [2], dtype=E.bool, name="bool_overflow_error"),
            S(2**40, [2], dtype=E.int32, name="int32_overflow_error"),
            S(10, [-1], name="negative_size_error")]


def _randint_low_samples():
    return [S(3, 10, [2, 3], name="int64"), S(-5, 5, [4], dtype=E.int32, name="int32"),
            S(0, 2, [3], dtype=E.bool, name="bool"), S(3, 10, [2], dtype=E.float64, name="float64"),
            S(-100, -90, [], name="0d_negative"), S(-(2**40), 2**40, [3], name="wide_int64"),
            S(5, 3, [2], name="reversed_error"), S(4, 4, [2], name="empty_range_error"),
            S(-2, 3, [5], dtype=E.uint8, name="uint8_negative_error"),
            S(0, 300, [2], dtype=E.bfloat16, name="bfloat16_imprecise")]


register("randint.default", _randint_samples, values=False, exact_strides=True)
register("randint.generator", _with_gen(_randint_samples), values=False, exact_strides=True)
register("randint.low", _randint_low_samples, values=False, exact_strides=True)
register("randint.low_generator", _with_gen(_randint_low_samples), values=False,
         exact_strides=True)
register("randint.out", lambda: [S(10, [2, 3], name="2x3"), S(5, [], name="0d"),
                                 S(0, [2], name="empty_range_error")],
         values=False, functional="randint.default")
register("randint.generator_out", lambda: [S(10, [2, 3], generator=G(), name="2x3"),
                                           S(10, [4], generator=None, name="generator_none")],
         values=False, functional="randint.generator")
register("randint.low_out", lambda: [S(-3, 3, [2, 3], name="2x3"), S(1, 2, [4], name="constant")],
         values=False, functional="randint.low")
register("randint.low_generator_out", lambda: [S(-3, 3, [2, 3], generator=G(), name="2x3")],
         values=False, functional="randint.low_generator")


def _randperm_samples():
    return [S(5, name="int64"), S(0, name="empty"), S(1, name="one"),
            S(6, dtype=E.float32, name="float32"), S(10, dtype=E.int32, name="int32"),
            S(256, dtype=E.uint8, name="uint8_full"), S(2049, dtype=E.float16, name="float16_max"),
            S(40, dtype=E.bfloat16, name="bfloat16"),
            S(3, dtype=E.bool, name="bool_error"), S(257, dtype=E.uint8, name="uint8_overflow_error"),
            S(3000, dtype=E.float16, name="float16_too_large_error"), S(-1, name="negative_error")]


register("randperm.default", _randperm_samples, values=False, exact_strides=True)
register("randperm.generator", _with_gen(_randperm_samples), values=False, exact_strides=True)
register("randperm.out", lambda: [S(5, name="5"), S(0, name="empty")], values=False,
         functional="randperm.default")
register("randperm.generator_out", lambda: [S(5, generator=G(), name="5")], values=False,
         functional="randperm.generator")


# ---- randint_like ----------------------------------------------------------------------
def _randint_like_samples(lead, gen=False):
    """lead: the arguments after self (high, or low and high)."""
    def samples():
        kw = {"generator": G()} if gen else {}
        out = [S(make((3, 4), dt), *lead, name=dtname(dt), **kw) for dt in (F32, I64, I32, F16)]
        out += [S(make((), F32), *lead, name="0d", **kw),
                S(make((0, 3), F32), *lead, name="empty", **kw),
                S(transposed((3, 4), F32), *lead, name="transposed_preserved", **kw),
                S(transposed((3, 4), F32), *lead, memory_format=E.contiguous_format,
                  name="contiguous_format", **kw),
                S(make((3, 4), F32), *lead, dtype=E.int32, name="dtype_override", **kw),
                S(make((2, 2), U8), 0, 300, name="uint8_overflow_error", **kw) if len(lead) == 2
                else S(make((2, 2), U8), 300, name="uint8_overflow_error", **kw),
                S(make((2, 2), F32), 5, 3, name="reversed_error", **kw) if len(lead) == 2
                else S(make((2, 2), F32), 0, name="empty_range_error", **kw)]
        return out
    return samples


def _randint_like_tensor_samples(gen=False):
    def samples():
        kw = {"generator": G()} if gen else {}
        x = make((3, 4), F32)
        return [S(x, np.array(10), name="0d_high", **kw),
                S(make((3, 4), I32), np.array(10.5), name="float_high", **kw),
                S(transposed((3, 4), F32), np.array([7]), name="one_element_high", **kw),
                S(x, np.array([10, 3]), name="two_element_high_error", **kw)] + (
            # torch's Meta Tensor_generator refuses any meta `high`: no value error there
            [] if gen else [S(x, np.array(0), name="empty_range_error")])
    return samples


register("randint_like.default", _randint_like_samples((10,)), values=False, exact_strides=True)
register("randint_like.generator", _randint_like_samples((10,), True), values=False,
         exact_strides=True)
register("randint_like.low_dtype", _randint_like_samples((-4, 6)), values=False,
         exact_strides=True)
register("randint_like.low_generator_dtype", _randint_like_samples((-4, 6), True), values=False,
         exact_strides=True)
register("randint_like.Tensor", _randint_like_tensor_samples(), values=False, exact_strides=True)
register("randint_like.Tensor_generator", _randint_like_tensor_samples(True), values=False,
         exact_strides=True)


# ---- in-place sampling -----------------------------------------------------------------
def _float_self_samples(*args, **kw):
    """Floating selves of several layouts, integer/bool selves (torch refuses them)."""
    return ([S(make((3, 4), dt), *args, name=dtname(dt), **kw) for dt in FLOATS]
            + [S(make((), F32), *args, name="0d", **kw),
               S(make((0, 3), F32), *args, name="empty", **kw),
               S(transposed((3, 4), F32), *args, name="transposed", **kw),
               S(offset((3, 4), F64), *args, name="offset", **kw),
               S(make((3, 4), I64), *args, name="int64_error", **kw),
               S(make((2,), BOOL), *args, name="bool_error", **kw)])


register("uniform_.default", lambda: _float_self_samples() + [
    S(make((3, 4), F32), 2, 3, name="from_to"), S(make((3, 4), F64), -1, 1, generator=G(),
                                                  name="generator"),
    S(make((3,), F32), 2, 2, name="from_equals_to"), S(make((3,), F32), 2, 1, name="reversed_error"),
    S(make((3,), F16), 0, 1e6, name="float16_out_of_bounds_error"),
    S(make((3,), F16), -60000, 60000, name="float16_range_too_wide_error"),
    S(make((3,), F32), 0, float("inf"), name="infinite_error"),
    S(make((0,), I64), name="empty_int64_error")], values=False)
register("normal_.default", lambda: _float_self_samples() + [
    S(make((3, 4), F32), 2, 3, name="mean_std"), S(make((3, 4), F64), -1, 0.5, generator=G(),
                                                   name="generator"),
    S(make((3,), F32), 2, 0, name="zero_std"), S(make((3,), F32), 0, -1, name="negative_std_error"),
    S(make((0,), I64), name="empty_int64")], values=False)
register("exponential_.default", lambda: _float_self_samples() + [
    S(make((3, 4), F32), 2.5, name="lambd"), S(make((3, 4), F64), 0.5, generator=G(),
                                                name="generator"),
    S(make((3,), F32), float("inf"), name="infinite_lambd"),
    S(make((3,), F32), 0, name="zero_lambd_error"), S(make((0,), F32), -1, name="negative_lambd_error"),
    S(make((0,), I64), name="empty_int64")], values=False)


def _all_dtype_selves(*args, **kw):
    return ([S(make((3, 4), dt), *args, name=dtname(dt), **kw) for dt in ALL]
            + [S(make((), F32), *args, name="0d", **kw), S(make((0, 3), I32), *args, name="empty", **kw),
               S(transposed((3, 4), F32), *args, name="transposed", **kw)])


register("random_.default", lambda: _all_dtype_selves() + [
    S(make((2, 3), F64), generator=G(), name="generator")], values=False)
register("random_.to", lambda: _all_dtype_selves(2) + [
    S(make((2, 3), F32), 1000, generator=G(), name="generator"),
    S(make((2,), F32), 0, name="empty_range_error"), S(make((2,), BOOL), 3, name="bool_overflow_error"),
    S(make((2,), U8), 256, name="uint8_full"), S(make((2,), U8), 257, name="uint8_overflow_error")],
    values=False)
register("random_.from", lambda: _all_dtype_selves(0, 2) + [
    S(make((3,), F32), -3, 5, name="negative_from"), S(make((3,), I32), -3, None, name="to_none"),
    S(make((3,), F16), 10, None, name="float16_to_none"),
    S(make((3,), F16), 5000, None, name="float16_from_too_large_error"),
    S(make((3,), U8), -3, 5, name="uint8_negative_error"),
    S(make((0,), U8), -3, 5, name="empty_uint8_negative_error"),
    S(make((3,), I64), -(2**63), None, name="int64_full_range"),
    S(make((3,), BF16), -(2**63), None, name="bfloat16_full_range"),
    S(make((3,), U8), -(2**63), None, name="uint8_full_range_error"),
    S(make((3,), F16), -(2**63), None, name="float16_full_range_error"),
    S(make((0,), F16), -(2**63), None, name="empty_float16_full_range"),
    S(make((3,), F16), 0, 2**31, name="float16_huge_to_error"),
    S(make((3,), F32), 5, 5, name="empty_range_error"),
    S(make((2, 3), F64), 1, 9, generator=G(), name="generator")], values=False)


# ---- bernoulli -------------------------------------------------------------------------
def _p(shape, dtype=F32):
    return make(shape, dtype, low=0, high=1)


register("bernoulli.default", lambda: [
    S(_p((3, 4), dt), name=dtname(dt)) for dt in FLOATS] + [
    S(_p(()), name="0d"), S(_p((0, 3)), name="empty"),
    S(View(_p((4, 3)), "transpose.int", (0, 1)), name="transposed_made_contiguous"),
    S(_p((3, 4), F64), generator=G(), name="generator"),
    S(make((3,), I64, low=0, high=2), name="int64_error"), S(make((3,), BOOL), name="bool_error"),
    S(np.full((3,), 1.5, np.float32), name="p_above_one_error"),
    S(np.full((3,), -0.5, np.float32), name="p_below_zero_error")], values=False)
out_of("bernoulli.out", "bernoulli.default")
register("bernoulli.p", lambda: [
    S(make((3, 4), dt), 0.3, name=dtname(dt)) for dt in ALL] + [
    S(make((), F32), 0.5, name="0d"), S(make((0, 3), F32), 0.5, name="empty"),
    S(transposed((3, 4), F32), 0.7, name="transposed_made_contiguous"),
    S(make((3, 4), F64), 1.0, name="p_one"), S(make((3, 4), F64), 0.0, name="p_zero"),
    S(make((3,), F32), 0.5, generator=G(), name="generator"),
    S(make((3,), F32), 1.5, name="p_above_one_error")], values=False)
register("bernoulli.Tensor", lambda: [
    S(make((3, 4), F32), _p((3, 4)), name="float32"),
    S(make((3, 4), I64), _p((4,), F64), name="int64_self_float64_p"),
    S(make((3, 4), BOOL), _p((3, 1), F16), name="bool_self_float16_p"),
    S(make((3, 4), F32), _p(()), name="0d_p"),
    S(transposed((3, 4), F32), _p((3, 4)), generator=G(), name="generator"),
    S(make((3, 4), F32), make((4,), I64, low=0, high=2), name="int64_p_error"),
    S(make((4,), F32), _p((3, 4)), name="p_larger_than_self_error"),
    S(make((2, 4), F32), _p((3, 4)), name="p_shape_mismatch_error")], values=False)
out_of("bernoulli.Tensor_out", "bernoulli.Tensor")
register("bernoulli_.float", lambda: [
    S(make((3, 4), dt), 0.3, name=dtname(dt)) for dt in ALL] + [
    S(make((3, 4), F32), name="default_p"), S(make((), F32), 0.5, name="0d"),
    S(make((0, 3), F32), 0.5, name="empty"), S(transposed((3, 4), F64), 0.2, name="transposed"),
    S(make((3,), F32), 0.5, generator=G(), name="generator"),
    S(make((3,), F32), -0.1, name="negative_p_error")], values=False)
register("bernoulli_.Tensor", lambda: [
    S(make((3, 4), F32), _p((4,)), name="broadcast_p"),
    S(make((3, 4), I64), _p((4,), F64), name="int64_self_float64_p"),
    S(make((3, 4), BOOL), _p((3, 4), BF16), name="bool_self_bfloat16_p"),
    S(transposed((3, 4), F32), _p(()), generator=G(), name="transposed_generator"),
    S(make((4,), F32), make((4,), BOOL), name="bool_p_error"),
    S(make((4,), F32), _p((3, 4)), name="p_larger_than_self_error"),
    S(make((4,), F32), np.full((4,), 2.0, np.float32), name="p_above_one_error")], values=False)


# ---- dropout ---------------------------------------------------------------------------
def _dropout_samples():
    """Training samples with 0 < p < 1 are 5x6 (random: no gradient comparison)."""
    def samples():
        big = (5, 6)
        out = [S(make(big, dt), 0.5, True, name=f"train_{dtname(dt)}") for dt in FLOATS]
        out += [S(make((3, 4), F32), 0.5, False, name="eval"),
                S(make((3, 4), F64), 0.0, True, name="p_zero"),
                S(make((3, 4), F64), 1.0, True, name="p_one"),
                S(make((0, 3), F32), 0.5, True, name="empty"),
                S(make((3, 4), I64), 0.5, False, name="int64_eval"),
                S(make((3, 4), I64), 0.5, True, name="int64_train_error"),
                S(make((3, 4), F32), 1.5, True, name="p_above_one_error"),
                S(make((3, 4), F32), -0.5, False, name="negative_p_eval_error")]
        out.append(S(transposed((6, 5), F32), 0.3, True, name="transposed"))
        return out
    return samples


def _native_dropout_samples():
    big = (5, 6)
    return [S(make(big, dt), 0.5, True, name=f"train_{dtname(dt)}") for dt in FLOATS] + [
        S(make(big, F32), 0.2, None, name="train_none"),
        S(make((3, 4), F32), 0.5, False, name="eval"),
        S(make((3, 4), F64), 0.3, False, name="eval_float64"),
        S(make((3, 4), F64), 0.0, True, name="p_zero"),
        S(make((3, 4), F64), 1.0, True, name="p_one"),
        S(make((), F64), 0.5, False, name="0d_eval"),
        S(make((0, 3), F32), 0.5, True, name="empty"),
        S(transposed((6, 5), F32), 0.3, True, name="transposed"),
        S(transposed((3, 4), F64), 0.3, False, name="transposed_eval"),
        S(strided((3, 4), F64), 0.0, True, name="strided_p_zero"),
        S(make((3, 4), I64), 0.5, False, name="int64_eval"),
        S(make((3, 4), BOOL), 0.5, False, name="bool_eval"),
        S(make((3, 4), F32), 1.5, False, name="p_above_one_eval"),
        S(make((3, 4), I64), 0.5, True, name="int64_train_error"),
        S(make((3, 4), U8), 0.5, None, name="uint8_train_error"),
        S(make((3, 4), F32), -0.1, True, name="negative_p_train_error")]


register("native_dropout.default", _native_dropout_samples, values=False)


def _dropout_backward_samples():
    m = make((3, 4), BOOL)
    return [S(make((3, 4), dt), m, 2.0, name=dtname(dt)) for dt in (F16, BF16, F32, F64)] + [
        S(make((3, 4), F32), make((3, 4), I64, low=0, high=2), 1.25, name="int64_mask"),
        S(make((5, 6), F32), make((5, 6), F16, low=0, high=2).round(), 2.0, name="float16_mask"),
        S(make((3, 4), I64), m, 2.0, name="int64_grad"),
        S(make((3, 4), F32), make((4,), BOOL), 2.0, name="broadcast_mask"),
        S(make((4,), F64), m, 0.5, name="broadcast_grad"),
        S(transposed((3, 4), F32), m, 3.0, name="transposed_grad"),
        S(make((), F64), np.array(True), 2.0, name="0d"),
        S(make((0, 4), F32), make((0, 4), BOOL), 2.0, name="empty"),
        S(make((3, 4), F32), make((4, 3), BOOL), 2.0, name="shape_mismatch_error")]


register("native_dropout_backward.default", _dropout_backward_samples)
out_of("native_dropout_backward.out", "native_dropout_backward.default")
register("dropout.default", _dropout_samples(), values=False)
register("dropout_.default", _dropout_samples(), values=False)


def _feature_dropout_samples():
    out = _dropout_samples()()
    return out + [S(make((2, 3, 4, 5), F32), 0.4, True, name="4d_train"),
                  S(make((2, 3, 4), F64), 0.4, True, name="3d_train"),
                  S(make((6,), F32), 0.4, True, name="1d_train"),
                  S(make((6,), F32), 0.4, False, name="1d_eval")]


for _name in ("feature_dropout", "alpha_dropout", "feature_alpha_dropout"):
    register(f"{_name}.default", _feature_dropout_samples, values=False)
    register(f"{_name}_.default", _feature_dropout_samples, values=False)


register("normal.float_float", lambda: [
    S(0.0, 1.0, [2, 3], name="standard"), S(2, 3, [4], dtype=E.float16, name="float16"),
    S(-1.0, 0.5, [], generator=G(), name="0d_generator"), S(0.0, 1.0, [0, 2], name="empty"),
    S(1.0, 2.0, [3], dtype=E.float64, generator=None, name="float64"),
    S(0.0, -1.0, [2], name="negative_std_error"),
    S(0.0, 1.0, [2], dtype=E.int64, name="int64_error")], values=False, exact_strides=True)
register("normal.float_float_out", lambda: [S(0.0, 1.0, [2, 3], name="standard"),
                                            S(1.0, 2.0, [4], generator=G(), name="generator")],
         values=False, functional="normal.float_float")


def _normal_tensor_float():
    return [S(make((3, 4), dt), name=dtname(dt)) for dt in FLOATS] + [
        S(make((3, 4), F32), 2.5, name="std"), S(transposed((3, 4), F64), 0.5, name="transposed"),
        S(make((), F32), 1.0, generator=G(), name="0d_generator"),
        S(make((0, 2), F32), name="empty"), S(make((3,), F32), 0.0, name="zero_std"),
        S(make((3,), I64), name="int64_error"), S(make((3,), F32), -2.0, name="negative_std_error")]


def _normal_float_tensor():
    return [S(1.5, _p((3, 4), dt), name=dtname(dt)) for dt in FLOATS] + [
        S(-1, View(_p((4, 3)), "transpose.int", (0, 1)), name="transposed"),
        S(0.0, _p(()), generator=G(), name="0d_generator"), S(2.0, _p((0, 3)), name="empty"),
        S(0.0, make((3,), I64, low=0, high=3), name="int64_error"),
        S(0.0, make((3,), F32, low=-2, high=-1), name="negative_std_error")]


def _normal_tensor_tensor():
    return [S(make((3, 4), dt), _p((3, 4), dt), name=dtname(dt)) for dt in FLOATS] + [
        S(make((3, 4), F32), _p((4,)), name="broadcast_std"),
        S(make((3, 1), F64), _p((4,), F32), name="broadcast_both_float64_mean"),
        S(make((3,), F16), _p((3,), F64), name="float16_mean_float64_std"),
        S(transposed((3, 4), F32), _p((3, 4)), generator=G(), name="transposed_generator"),
        S(make((0, 3), F32), _p((3,)), name="empty"),
        S(make((12,), F32), _p((3, 4)), name="shape_mismatch_error"),
        S(make((3,), I64), _p((3,)), name="int64_mean_error"),
        S(make((3,), F32), make((3,), F32, low=-2, high=-1), name="negative_std_error")]


register("normal.Tensor_float", _normal_tensor_float, values=False)
out_of("normal.Tensor_float_out", "normal.Tensor_float")
register("normal.float_Tensor", _normal_float_tensor, values=False)
out_of("normal.float_Tensor_out", "normal.float_Tensor")
register("normal.Tensor_Tensor", _normal_tensor_tensor, values=False)
out_of("normal.Tensor_Tensor_out", "normal.Tensor_Tensor")


register("log_normal_.default", lambda: _float_self_samples() + [
    S(make((3, 4), F32), 0.5, 0.25, name="mean_std"),
    S(make((3,), F64), 0.0, 1.0, generator=G(), name="generator"),
    S(make((3,), F32), 1.0, 0.0, name="zero_std_error"), S(make((0,), I64), name="empty_int64")],
    values=False)
register("cauchy_.default", lambda: _float_self_samples() + [
    S(make((3, 4), F32), 2.0, 0.5, name="median_sigma"),
    S(make((3,), F64), 0.0, 1.0, generator=G(), name="generator"),
    S(make((3,), F32), 0.0, 0.0, name="zero_sigma_error"),
    S(make((0,), I64), name="empty_int64_error")], values=False)
register("geometric_.default", lambda: [
    S(make((3, 4), dt), 0.3, name=dtname(dt)) for dt in NUMERIC] + [
    S(make((), F32), 0.5, name="0d"), S(make((0, 3), BOOL), 0.5, name="empty_bool"),
    S(transposed((3, 4), F64), 0.7, name="transposed"),
    S(make((3,), F64), 0.2, generator=G(), name="generator"),
    S(make((3,), BOOL), 0.5, name="bool_error"), S(make((3,), F32), 0.0, name="p_zero_error"),
    S(make((3,), F32), 1.0, name="p_one_error")], values=False)


def _multinomial_samples():
    w = _p((5,))
    return [S(w, 3, name="1d"), S(w, 8, True, name="1d_replacement"), S(w, 1, name="one_sample"),
            S(_p((3, 5), F64), 2, name="2d"), S(_p((3, 5), F16), 6, True, name="2d_replacement_float16"),
            S(View(_p((5, 3)), "transpose.int", (0, 1)), 4, True, name="transposed"),
            S(np.array([0.0, 1.0, 1.0], np.float32), 3, name="zero_weights_last"),
            S(_p((0, 3)), 1, name="no_rows"), S(w, 2, True, generator=G(), name="generator"),
            S(w, 6, name="too_many_without_replacement_error"), S(w, 0, name="zero_samples_error"),
            S(make((2, 2, 2), F32), 1, name="3d_error"), S(np.array(1.0, np.float32), 1, name="0d_error"),
            S(make((3,), I64, low=0, high=3), 1, name="int64_error"),
            S(np.array([-0.2, 0.8], np.float32), 1, name="negative_weight_error"),
            S(np.array([0.0, 0.0], np.float32), 1, name="zero_sum_error"),
            S(np.array([1.0, np.inf], np.float32), 1, name="inf_weight_error")]


register("multinomial.default", _multinomial_samples, values=False)
out_of("multinomial.out", "multinomial.default")
register("poisson.default", lambda: [
    S(make((3, 4), dt, low=0, high=10), name=dtname(dt)) for dt in FLOATS] + [
    S(make((), F32, low=0, high=3), name="0d"), S(make((0, 2), F32), name="empty"),
    S(View(make((4, 3), F32, low=0, high=5), "transpose.int", (0, 1)), name="transposed"),
    S(make((3,), F64, low=0, high=5), G(), name="generator"),
    S(make((3,), I64, low=0, high=5), name="int64_error"),
    S(np.array([-1.0, 2.0], np.float32), name="negative_rate_error")], values=False)
out_of("poisson.out", "poisson.default")


register("logspace.default", lambda: [
    S(0, 3, 4, name="default_base"), S(0, 3, 4, 2.0, name="base2"), S(-1, 1, 9, 3.0, dtype=E.float64,
                                                                      name="float64"),
    S(0, 2.5, 4, dtype=E.int64, name="int64_fractional_end"), S(0, 2, 3, dtype=E.uint8, name="uint8"),
    S(-2, 2, 5, dtype=E.float16, name="float16"), S(-1, 1, 9, dtype=E.bfloat16, name="bfloat16"),
    S(0, 3, 4, -2.0, dtype=E.int64, name="negative_base_int64"), S(2, 3, 1, name="one_step"),
    S(-1, 1, 0, name="empty"), S(2, 3, -1, name="negative_steps_error"),
    S(2, 3, 3, dtype=E.bool, name="bool_error")], exact_strides=True)
register("logspace.out", lambda: [S(0, 3, 4, name="default_base"), S(0, 2, 3, 2.0, name="base2")],
         functional="logspace.default", exact_strides=True)
register("empty_permuted.default", lambda: [
    S([2, 3, 4], [0, 2, 1], name="permuted"), S([2, 3, 4, 5], [0, 2, 3, 1], name="channels_last"),
    S([2, 0, 4], [2, 1, 0], dtype=E.int64, name="empty_reversed"), S([], [], name="0d"),
    S([2, 3, 4], [0, 2], name="wrong_length_error"), S([2, 3, 4], [0, 2, 2], name="duplicate_error"),
    S([2, 3, 4], [0, -1, 1], name="negative_dim_error")], values=False, exact_strides=True)
register("empty_permuted.out", lambda: [S([2, 3], [1, 0], name="transposed")], values=False,
         functional="empty_permuted.default")


def _tri_indices_samples():
    return [S(3, 3, name="square"), S(3, 4, 1, name="wide_offset"), S(4, 3, -1, name="tall_negative"),
            S(5, 2, -1, name="narrow"), S(0, 3, name="no_rows"), S(3, 3, 10, name="big_offset"),
            S(3, 3, -10, name="small_offset"), S(3, 3, dtype=E.int32, name="int32"),
            S(-1, 3, name="negative_row_error"), S(3, -4, name="negative_col_error"),
            S(3, 3, dtype=E.float32, name="float32_error"), S(3, 3, dtype=E.uint8, name="uint8_error")]


register("tril_indices.default", _tri_indices_samples, exact_strides=True)
register("triu_indices.default", _tri_indices_samples, exact_strides=True)
register("tril_indices.out", lambda: [S(3, 4, 1, name="wide")], functional="tril_indices.default")
register("triu_indices.out", lambda: [S(4, 3, name="tall")], functional="triu_indices.default")


# ---- functional copy / fill / zero ---------------------------------------------------------
register("copy.default", lambda: [S(make((3, 4), dt), make((3, 4), F32), name=dtname(dt))
                                  for dt in (BOOL, I64, F16, F64)] + [
    S(transposed((3, 4), F32), make((4,), F64), name="transposed_self_broadcast"),
    S(strided((3, 4), F32), make((3, 4), I32), name="strided_self"),
    S(expanded((3, 4), F32), make((3, 4), F32), name="expanded_self"),
    S(make((), F64), make((), F32), name="0d"), S(make((0, 3), F32), make((3,), F32), name="empty"),
    S(make((3,), F32), make((2, 3), F32), name="src_larger_error"),
    S(make((3,), F32), make((4,), F32), name="shape_mismatch_error")], exact_strides=True)
out_of("copy.out", "copy.default")
register("fill.Scalar", lambda: [S(make((3, 4), dt), 2.5, name=dtname(dt)) for dt in ALL] + [
    S(transposed((3, 4), F32), 7, name="transposed"), S(expanded((3, 4), F32), 1, name="expanded"),
    S(make((), F64), True, name="0d"), S(make((0, 2), I32), 3, name="empty"),
    S(make((3,), U8), 300, name="uint8_overflow_error")], exact_strides=True)
out_of("fill.Scalar_out", "fill.Scalar")
register("fill.Tensor", lambda: [
    S(make((3, 4), F32), make((), F64), name="float32_float64_value"),
    S(transposed((3, 4), I64), make((), F32), name="transposed_int64"),
    S(make((2,), BOOL), make((), I32), name="bool"), S(make((0, 2), F32), make((), F32), name="empty"),
    S(make((3,), F32), make((1,), F32), name="1d_value_error")], exact_strides=True)
out_of("fill.Tensor_out", "fill.Tensor")
register("zero.default", lambda: [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL] + [
    S(transposed((3, 4), F32), name="transposed"), S(expanded((3, 4), F64), name="expanded"),
    S(make((), F32), name="0d"), S(make((0, 2), F32), name="empty")], exact_strides=True)
out_of("zero.out", "zero.default")


def _new_out_samples(*extra):
    def samples():
        return [S(make((2, 3), F32), [3, 2], *extra, name="float32"),
                S(make((2,), I64), [4], *extra, name="int64"), S(make((2,), F64), [], *extra, name="0d")]
    return samples


register("empty_strided.out", lambda: [S([2, 3], [1, 2], name="column_major"),
                                       S([3], [1], name="1d")],
         values=False, functional="empty_strided.default")
register("new_empty.out", _new_out_samples(), values=False, functional="new_empty.default")
register("new_empty_strided.out", lambda: [S(make((2, 3), F32), [2, 3], [1, 2], name="transposed"),
                                           S(make((2,), I64), [3], [1], name="int64")],
         values=False, functional="new_empty_strided.default")
register("new_full.out", _new_out_samples(2.5), functional="new_full.default")
register("new_zeros.out", _new_out_samples(), functional="new_zeros.default")
register("new_ones.out", _new_out_samples(), functional="new_ones.default")


# ---- out= variants of the factories -----------------------------------------------------
register("empty.out", lambda: [S([2, 3], name="2x3"), S([], name="0d"),
                               S([2, 3, 4, 5], memory_format=E.channels_last,
                                 name="memory_format_error")],
         values=False, functional="empty.memory_format")
register("zeros.out", lambda: [S([2, 3], name="2x3"), S([0, 2], name="empty")],
         functional="zeros.default")
register("ones.out", lambda: [S([2, 3], name="2x3"), S([], name="0d")], functional="ones.default")
register("full.out", lambda: [S([2, 3], 7, name="int_fill"), S([2], 2.5, name="float_fill"),
                              S([2], True, name="bool_fill")], functional="full.default")
register("scalar_tensor.out", lambda: [S(3, name="int"), S(2.5, name="float")],
         functional="scalar_tensor.default")
register("arange.out", lambda: [S(5, name="int"), S(4.5, name="float"), S(-1, name="negative_error")],
         functional="arange.default")
register("arange.start_out", lambda: [S(1, 7, 2, name="int"), S(0, 1, 0.25, name="float"),
                                      S(3, 1, name="wrong_direction_error")],
         functional="arange.start_step")


def _like_out_samples(*extra, gen=False):
    def samples():
        kw = {"generator": G()} if gen else {}
        return [S(make((3, 4), F32), *extra, name="float32", **kw),
                S(transposed((3, 4), F64), *extra, name="transposed", **kw),
                S(make((2, 3), F32), *extra, memory_format=E.contiguous_format,
                  name="contiguous_format", **kw),
                S(make((), F32), *extra, name="0d", **kw)]
    return samples


register("empty_like.out", _like_out_samples(), values=False, functional="empty_like.default")
register("zeros_like.out", _like_out_samples(), functional="zeros_like.default")
register("ones_like.out", _like_out_samples(), functional="ones_like.default")
register("full_like.out", _like_out_samples(2.5), functional="full_like.default")
register("rand_like.out", _like_out_samples(), values=False, functional="rand_like.default")
register("randn_like.out", _like_out_samples(), values=False, functional="randn_like.default")
register("rand_like.generator_out", _like_out_samples(gen=True), values=False,
         functional="rand_like.generator")
register("randn_like.generator_out", _like_out_samples(gen=True), values=False,
         functional="randn_like.generator")
register("randint_like.out", _like_out_samples(10), values=False, functional="randint_like.default")
register("randint_like.generator_out", _like_out_samples(10, gen=True), values=False,
         functional="randint_like.generator")
register("randint_like.low_dtype_out", _like_out_samples(-3, 3), values=False,
         functional="randint_like.low_dtype")
register("randint_like.low_generator_dtype_out", _like_out_samples(-3, 3, gen=True), values=False,
         functional="randint_like.low_generator_dtype")
register("randint_like.Tensor_out", _like_out_samples(np.array(10)), values=False,
         functional="randint_like.Tensor")
register("randint_like.Tensor_generator_out", _like_out_samples(np.array(10), gen=True),
         values=False, functional="randint_like.Tensor_generator")
register("bernoulli.float_out", lambda: [
    S(_p((3, 4)), name="default_p"), S(make((3, 4), F64), 0.3, name="p"),
    S(make((2,), F32), 0.5, generator=G(), name="generator"),
    S(make((2,), F32), 1.5, name="p_above_one_error")], values=False, functional="bernoulli.p")


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    return {
        "native_dropout.default": [S(make((2, 3), F32), 0.0, True, name="p_zero_float32"),
                                   S(make((2, 3), F64), 0.25, False, name="eval_float64")],
        "native_dropout_backward.default": [
            S(make((2, 3), F64), make((2, 3), BOOL), 4.0, name="bool_mask")],
        "uniform_.default": [S(make((2, 3), F64), -2, 2, name="range_float64")],
        "random_.from": [S(make((2, 3), F64), 0, 1, name="constant")],
    }


# ---- functional twins of the in-place samplers ----------------------------------------------
def _register_functional_samplers():
    from opinfo import OPS
    pairs = [("uniform.default", "uniform_.default", "uniform.out"),
             ("exponential.default", "exponential_.default", "exponential.out"),
             ("geometric.default", "geometric_.default", "geometric.out"),
             ("log_normal.default", "log_normal_.default", "log_normal.out"),
             ("cauchy.default", "cauchy_.default", "cauchy.out"),
             ("random.from", "random_.from", "random.from_out"),
             ("random.to", "random_.to", "random.to_out"),
             ("random.default", "random_.default", "random.out"),
             ("normal_functional.default", "normal_.default", None)]
    for functional, inplace, out in pairs:
        register(functional, OPS[inplace].samples, values=False)
        if out is not None:
            out_of(out, functional)


_register_functional_samplers()


# ---- window functions --------------------------------------------------------------------
# torch's float16/bfloat16 windows differ from an op-by-op emulation by a few ulps


def _window_samples(*extra):
    def samples():
        out = [S(8, *extra, name="8"), S(1, *extra, name="one"), S(0, *extra, name="empty"),
               S(17, *extra, dtype=E.float64, name="float64"),
               S(9, *extra, dtype=E.float16, name="float16"),
               S(12, *extra, dtype=E.bfloat16, name="bfloat16"),
               S(-1, *extra, name="negative_error"), S(4, *extra, dtype=E.int64, name="int64_error")]
        return out
    return samples


for _base, _overloads in (("hann_window", ("default", "periodic")),
                          ("hamming_window", ("default", "periodic", "periodic_alpha",
                                              "periodic_alpha_beta")),
                          ("blackman_window", ("default", "periodic")),
                          ("bartlett_window", ("default", "periodic")),
                          ("kaiser_window", ("default", "periodic", "beta"))):
    for _ov in _overloads:
        _variants = {"default": [()], "periodic": [(True,), (False,)],
                     "periodic_alpha": [(True, 0.6), (False, 0.5)],
                     "periodic_alpha_beta": [(True, 0.6, 0.3), (False, 0.5, 0.5)],
                     "beta": [(True, 5.0), (False, 0.5)]}[_ov]

        def _samples(_variants=_variants):
            out = []
            for extra in _variants:
                for s in _window_samples(*extra)():
                    out.append(S(*s.args, name=f"{s.name}_{'_'.join(map(str, extra))}",
                                 **s.kwargs))
            return out
        register(f"{_base}.{_ov}", _samples, exact_strides=True)
        _out = "out" if _ov == "default" else f"{_ov}_out"
        register(f"{_base}.{_out}", lambda _v=_variants: [S(8, *_v[0], name="8"),
                                                          S(0, *_v[0], name="empty")],
                 functional=f"{_base}.{_ov}")
