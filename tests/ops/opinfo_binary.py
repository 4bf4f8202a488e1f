"""Samples for the binary op family (schema section "binary"; kernels in
kernels/cpu/binary.py and kernels/meta/binary.py, formulas in
ember/autograd/formulas/binary.py), registered into `opinfo.OPS`.

opinfo.py imports this module at its end; `grad_extra()` adds gradient samples to
tests/autograd/grad_samples.py's EXTRA (called with opinfo's random generator seeded).
"""
from __future__ import annotations

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
    S,
    binary_samples,
    dtname,
    inplace_binary_samples,
    make,
    offset,
    out_of,
    register,
    scalar_samples,
    strided,
    transposed,
)

_NZ = {"nonzero": True}


# ---- arithmetic core: add, sub, mul, div, pow, comparisons, where, clamp, masked_fill ----
def _alpha_samples(inplace=False):
    def samples():
        out = (inplace_binary_samples() if inplace else binary_samples())
        out += [S(make((3, 4), F32), make((3, 4), F32), alpha=2, name="alpha_int"),
                S(make((3, 4), F64), make((4,), F64), alpha=0.5, name="alpha_float"),
                S(make((3, 4), I64), make((3, 4), I64), alpha=3, name="int64_alpha_int"),
                S(make((3, 4), I64), make((3, 4), I64), alpha=0.5, name="int64_alpha_float_error"),
                S(make((3, 4), BOOL), make((3, 4), BOOL), alpha=True, name="bool_alpha_bool")]
        return out
    return samples


def _alpha_scalar_samples(inplace=False):
    def samples():
        out = scalar_samples()
        out += [S(make((3, 4), F32), 3, 2, name="alpha_int"),
                S(make((3, 4), I64), 3, 2, name="int64_alpha_int"),
                S(make((3, 4), F32), 1.5, 0.5, name="alpha_float")]
        if inplace:
            out += [S(make((3, 4), I64), 2.5, name="int64_float_error"),
                    S(make((3, 4), BOOL), 2, name="bool_int_error")]
        return out
    return samples


for _op in ("add", "sub"):
    register(f"{_op}.Tensor", _alpha_samples())
    out_of(f"{_op}.out", f"{_op}.Tensor")
    register(f"{_op}.Scalar", _alpha_scalar_samples())
    register(f"{_op}_.Tensor", _alpha_samples(inplace=True))
    register(f"{_op}_.Scalar", _alpha_scalar_samples(inplace=True))

register("mul.Tensor", binary_samples)
out_of("mul.out", "mul.Tensor")
register("mul.Scalar", scalar_samples)
register("mul_.Tensor", inplace_binary_samples)
register("mul_.Scalar", lambda: scalar_samples() + [
    S(make((3, 4), I32), 2.5, name="int32_float_error")])

register("div.Tensor", lambda: binary_samples(rhs=_NZ, scalars=(2, 2.5, True)))
out_of("div.out", "div.Tensor")


def _div_mode_samples(inplace=False):
    def samples():
        out = []
        for mode in ("trunc", "floor", None):
            for dt in (U8, I32, I64, F16, BF16, F32, F64):
                out.append(S(make((3, 4), dt), make((3, 4), dt, nonzero=True), rounding_mode=mode,
                             name=f"{dtname(dt)}_{mode}"))
        out += [S(make((3, 4), I64), make((4,), I64, nonzero=True), rounding_mode="floor",
                  name="int64_floor_broadcast"),
                S(make((3, 4), I32), make((3, 4), F32, nonzero=True), rounding_mode="trunc",
                  name="int32_float32_trunc"),
                S(transposed((3, 4), F32), make((3, 4), F32, nonzero=True), rounding_mode="floor",
                  name="transposed_floor"),
                S(make((3, 4), I64), make((3, 4), I64, nonzero=True), rounding_mode="round",
                  name="bad_mode_error"),
                S(make((3, 4), BOOL), make((3, 4), BOOL), rounding_mode="trunc", name="bool_trunc")]
        if inplace:
            out += [S(make((3, 4), I64), make((3, 4), I64, nonzero=True), rounding_mode=None,
                      name="int64_true_div_error")]
        else:
            out += [S(make((), F32), make((), F32, nonzero=True), rounding_mode="floor", name="0d"),
                    S(make((0, 4), F32), make((4,), F32, nonzero=True), rounding_mode="trunc",
                      name="empty"),
                    S(make((3, 1), I32), 2, rounding_mode="floor", name="int32_with_int")]
        return out
    return samples


register("div.Tensor_mode", _div_mode_samples())
out_of("div.out_mode", "div.Tensor_mode")
register("div.Scalar", lambda: scalar_samples(values=(2, 2.5, True)) + [
    S(make((3, 4), I64), 0, name="int64_by_zero")])
register("div_.Tensor", lambda: inplace_binary_samples(dtypes=FLOATS, rhs=_NZ) + [
    S(make((3, 4), I64), make((3, 4), I64, nonzero=True), name="int64_error")])
register("div_.Tensor_mode", _div_mode_samples(inplace=True))

_POW_BASE = {"low": 0, "high": 4}
_POW_EXP = {"low": 0, "high": 3}
register("pow.Tensor_Tensor", lambda: binary_samples(lhs=_POW_BASE, rhs=_POW_EXP,
                                                    scalars=(2, 0.5, True)) + [
    S(make((3, 4), F32, low=0.5, high=3), make((3, 4), F32, low=-2, high=2),
      name="float_negative_exp"),
    S(make((3,), I64), np.array([-1, 0, 2], np.int64), name="int64_negative_exp_tensor")])
out_of("pow.Tensor_Tensor_out", "pow.Tensor_Tensor")
register("pow.Tensor_Scalar", lambda: scalar_samples(lhs=_POW_BASE, values=(2, 0.5, True)) + [
    S(make((3, 4), F32, low=0.5, high=3), -1, name="float32_exp_-1"),
    S(make((3, 4), I64, low=0, high=4), 0, name="int64_exp_0"),
    S(make((3, 4), I64, low=0, high=4), 3, name="int64_exp_3"),
    S(make((3, 4), I64), -2, name="int64_negative_exp_error"),
    S(make((3, 4), F16, low=0, high=3), 1.5, name="float16_exp_1.5")])
register("pow.Scalar", lambda: [
    S(2, make((3, 4), dt, low=0, high=4), name=f"2_{dtname(dt)}") for dt in ALL] + [
    S(2.5, make((3, 4), I64, low=0, high=4), name="float_base_int64"),
    S(True, make((3, 4), F32, low=-2, high=2), name="bool_base"),
    S(3, make((), F32), name="0d"), S(2, make((0, 2), I32), name="empty"),
    S(1.5, transposed((3, 4), F64), name="transposed")])
register("pow_.Tensor", lambda: inplace_binary_samples(lhs=_POW_BASE, rhs=_POW_EXP))

_CMP = ("eq", "ne", "lt", "le", "gt", "ge")
for _op in _CMP:
    register(f"{_op}.Tensor", lambda: binary_samples() + [
        S(make((3, 4), F32), np.array([np.nan, 1.0, -np.inf, np.inf], np.float32), name="nan_inf")])
    out_of(f"{_op}.Tensor_out", f"{_op}.Tensor")
for _op in ("eq", "lt", "gt"):
    register(f"{_op}.Scalar", lambda: scalar_samples(values=(2, -1.5, True)))


def _where_samples():
    out = [S(make((3, 4), BOOL), make((3, 4), dt), make((3, 4), dt), name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 1), BOOL), make((1, 4), F32), make((4,), F32), name="broadcast"),
            S(make((3, 4), BOOL), make((3, 4), I32), make((3, 4), F64), name="int32_float64"),
            S(make((3, 4), BOOL), make((3, 4), F16), make((), F64), name="float16_with_0d_float64"),
            S(make((), BOOL), make((), I64), make((), I64), name="0d"),
            S(make((0, 4), BOOL), make((4,), F32), make((0, 1), F32), name="empty"),
            S(transposed((3, 4), BOOL), strided((3, 4), F32), offset((3, 4), F32),
              name="noncontiguous"),
            S(make((3, 4), U8, low=0, high=2), make((3, 4), F32), make((3, 4), F32),
              name="uint8_cond_deprecated"),
            S(make((3, 4), BOOL), make((3, 4), F32), make((2, 4), F32), name="shape_error")]
    return out


register("where.self", _where_samples)
out_of("where.self_out", "where.self")


def _clamp_samples(inplace=False):
    def samples():
        out = [S(make((3, 4), dt), -2, 3, name=dtname(dt)) for dt in NUMERIC]
        out += [S(make((3, 4), F32), -1.5, name="min_only"),
                S(make((3, 4), F32), None, 1.5, name="max_only"),
                S(make((3, 4), F32), 2, -2, name="min_gt_max"),
                S(make((3, 4), F32), name="none_error"),
                S(make((3, 4), F32), 0.5, 0.5, name="equal_bounds"),
                S(make((3, 4), BOOL), False, True, name="bool"),
                S(make((), F64), -1, 1, name="0d"), S(make((0, 3), F32), -1, 1, name="empty"),
                S(transposed((3, 4), F32), -1, 1, name="transposed"),
                S(np.array([np.nan, 1, -7, 7], np.float32), -2, 2, name="nan")]
        if inplace:
            out.append(S(make((3, 4), I64), -1.5, 2.5, name="int64_float_bounds_error"))
        else:
            out.append(S(make((3, 4), I64), -1.5, 2.5, name="int64_float_bounds"))
        return out
    return samples


register("clamp.default", _clamp_samples())
out_of("clamp.out", "clamp.default")
register("clamp.Tensor", lambda: [
    S(make((3, 4), dt), make((3, 4), dt), make((3, 4), dt), name=dtname(dt))
    for dt in (U8, I64, F16, F32)] + [
    S(make((3, 4), F32), make((4,), F32, low=-5, high=0), make((3, 1), F32, low=0, high=5),
      name="broadcast"),
    S(make((3, 4), F32), make((), F32), None, name="min_only"),
    S(make((3, 4), F32), None, make((4,), F32), name="max_only"),
    S(make((3, 4), I32), make((3, 4), F32, low=-5, high=0), None, name="int32_float_min"),
    S(make((3, 4), F32), None, None, name="none_error"),
    S(transposed((3, 4), F32), strided((3, 4), F32, high=0), offset((3, 4), F32, low=0),
      name="noncontiguous"),
    S(make((0, 2), F32), make((2,), F32), make((2,), F32), name="empty")])
register("clamp_.default", _clamp_samples(inplace=True))


def _masked_fill_samples(tensor_value, inplace=False):
    def val(v, dt=None):
        if not tensor_value:
            return v
        return np.array(v, dt or np.result_type(type(v)))

    def samples():
        out = [S(make((3, 4), dt), make((3, 4), BOOL), val(2), name=dtname(dt)) for dt in ALL]
        out += [S(make((3, 4), F32), make((4,), BOOL), val(-1.5), name="broadcast_mask"),
                S(make((3, 4), I32), make((3, 4), BOOL), val(2.5), name="float_value_into_int32"),
                S(make((3, 4), F16), make((3, 4), BOOL), val(True), name="bool_value"),
                S(make((), F32), make((), BOOL), val(7), name="0d"),
                S(make((0, 3), F32), make((3,), BOOL), val(1), name="empty"),
                S(transposed((3, 4), F32), strided((3, 4), BOOL), val(0), name="noncontiguous"),
                S(make((3, 4), F32), make((3, 4), U8), val(1), name="uint8_mask_error")]
        if inplace:
            out.append(S(make((4,), F32), make((3, 4), BOOL), val(1), name="mask_larger_error"))
        else:
            out.append(S(make((4,), F32), make((3, 4), BOOL), val(1), name="broadcast_self"))
        if tensor_value:
            out += [S(make((3, 4), F32), make((3, 4), BOOL), make((2,), F32),
                      name="1d_value_error"),
                    S(make((3, 4), I64), make((3, 4), BOOL), np.array(2.5, F64),
                      name="float64_0d_into_int64")]
        return out
    return samples


register("masked_fill.Scalar", _masked_fill_samples(False))
register("masked_fill.Tensor", _masked_fill_samples(True))
register("masked_fill_.Scalar", _masked_fill_samples(False, True))
register("masked_fill_.Tensor", _masked_fill_samples(True, True))


# ---- the rest of the family ----------------------------------------------------------
_NUMBER = (bool, int, float)


def _tensors_only(samples):
    """Samples without Python numbers for Tensor arguments (torch's maximum, atan2,
    logical_* & co. reject them)."""
    return [s for s in samples if not any(isinstance(a, _NUMBER) for a in s.args[1:])]


def _a(*rows, dtype=F32):
    return np.array(rows, dtype)


def _out_subset(name, functional, drop=(), tensors_only=False):
    """The out= variant of `functional` on its samples minus those named with `drop`
    (torch checks the out= dtype before the dtype support those samples test) or, with
    `tensors_only`, those passing a number for a Tensor (torch's binding has no out= then)."""
    f = opinfo.OPS[functional]

    def samples():
        out = [s for s in f.samples() if not any(d in s.name for d in drop)]
        return _tensors_only(out) if tensors_only else out
    opinfo.OPS[name] = opinfo.OpInfo(name, samples, kind="out", values=f.values, tols=f.tols,
                                     functional=functional)


def _int_zero_samples():
    return [S(make((3, 4), I64), np.array([[1, 0, 2, 3]] * 3, np.int64), name="int64_by_zero"),
            S(make((3, 4), F32), _a([1.0, 0.0, -2.0, 0.0]), name="float32_by_zero")]


# ---- rsub ----------------------------------------------------------------------------------
register("rsub.Tensor", _alpha_samples())
_out_subset("rsub.Tensor_out", "rsub.Tensor", tensors_only=True)
register("rsub.Scalar", lambda: _alpha_scalar_samples()() + [
    S(make((3, 4), I64), 2, 0.5, name="int64_alpha_float_error"),
    S(make((3, 4), BOOL), True, name="bool_bool_error")])
out_of("rsub.Scalar_out", "rsub.Scalar")

# ---- floor_divide / remainder / fmod ---------------------------------------------------------
register("floor_divide.default", lambda: binary_samples(rhs=_NZ) + _int_zero_samples())
out_of("floor_divide.out", "floor_divide.default")
register("floor_divide.Scalar", lambda: scalar_samples(values=(2, -2.5, True)) + [
    S(make((3, 4), I64), 0, name="int64_by_zero"), S(make((3, 4), F32), 0, name="float_by_zero")])
out_of("floor_divide.Scalar_out", "floor_divide.Scalar")
register("floor_divide_.Tensor", lambda: inplace_binary_samples(rhs=_NZ))
register("floor_divide_.Scalar", lambda: scalar_samples(values=(2, -2.5)) + [
    S(make((3, 4), I64), 0, name="int64_by_zero")])

for _op in ("remainder", "fmod"):
    register(f"{_op}.Tensor", lambda: binary_samples(rhs=_NZ, scalars=(3, -2.5, True)) + [
        S(make((3, 4), I32), make((4,), I32, nonzero=True), name="int32_broadcast"),
        S(_a([5.5, -5.5, 5.5, -5.5]), _a([2.0, 2.0, -2.0, -2.0]), name="signs")]
        + _int_zero_samples())
    out_of(f"{_op}.Tensor_out", f"{_op}.Tensor")
    register(f"{_op}.Scalar", lambda: scalar_samples(values=(3, -2.5, True)) + [
        S(make((3, 4), I64), 0, name="int64_by_zero"),
        S(make((3, 4), F64), 0.0, name="float64_by_zero")])
    out_of(f"{_op}.Scalar_out", f"{_op}.Scalar")
    register(f"{_op}_.Tensor", lambda: inplace_binary_samples(rhs=_NZ) + [
        S(make((3, 4), I64), np.zeros((3, 4), np.int64), name="int64_by_zero")])
    register(f"{_op}_.Scalar", lambda: scalar_samples(values=(3, -2.5)) + [
        S(make((3, 4), I32), 2.5, name="int32_float_error")])

register("remainder.Scalar_Tensor", lambda: [
    S(v, make((3, 4), dt, nonzero=True), name=f"{type(v).__name__}_{dtname(dt)}")
    for dt in ALL for v in (7, -2.5)] + [
    S(True, make((3, 4), BOOL), name="bool_bool"), S(3, make((), F32, nonzero=True), name="0d"),
    S(5, transposed((3, 4), I64, nonzero=True), name="transposed"),
    S(5, np.array([1, 0, 2], np.int64), name="int_by_zero")])
out_of("remainder.Scalar_Tensor_out", "remainder.Scalar_Tensor")

# ---- maximum / minimum / atan2 ----------------------------------------------------------------
_NAN = S(_a([np.nan, 1.0, np.nan, -np.inf]), _a([0.0, np.nan, np.nan, 2.0]), name="nan")
for _op in ("maximum", "minimum"):
    register(f"{_op}.default", lambda: _tensors_only(binary_samples()) + [
        _NAN, S(_a([1.0, 2.0, 3.0]), _a([1.0, 5.0, 3.0]), name="ties")])
    out_of(f"{_op}.out", f"{_op}.default")
register("atan2.default", lambda: _tensors_only(binary_samples()) + [
    _NAN, S(_a([0.0, -0.0, 1.0, -1.0]), _a([0.0, -1.0, 0.0, -0.0]), name="nonsmooth_zeros")])
out_of("atan2.out", "atan2.default")
register("atan2_.default", lambda: _tensors_only(inplace_binary_samples()))

# ---- logical / bitwise ------------------------------------------------------------------------
for _op in ("logical_and", "logical_or", "logical_xor"):
    register(f"{_op}.default", lambda: _tensors_only(binary_samples()) + [
        _NAN, S(make((3, 4), I64, low=-1, high=2), make((3, 4), F32, low=-1, high=1),
                name="int64_float32")])
    out_of(f"{_op}.out", f"{_op}.default")
    register(f"{_op}_.default", lambda: _tensors_only(inplace_binary_samples()) + [
        S(make((3, 4), I32, low=-1, high=2), make((3, 4), F64), name="int32_float64")])

_INTS = (BOOL, U8, I32, I64)
for _op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    register(f"{_op}.Tensor", lambda: binary_samples(scalars=(3, True, -2)) + [
        S(make((3, 4), I64), make((3, 4), BOOL), name="int64_bool"),
        S(make((3, 4), U8), make((4,), I32), name="uint8_int32_broadcast")])
    _out_subset(f"{_op}.Tensor_out", f"{_op}.Tensor", drop=("float",))
    register(f"{_op}.Scalar", lambda: scalar_samples(values=(3, True, 2.5)))
    _out_subset(f"{_op}.Scalar_out", f"{_op}.Scalar", drop=("float",))
    register(f"{_op}.Scalar_Tensor", lambda: [
        S(v, make((3, 4), dt), name=f"{type(v).__name__}_{dtname(dt)}")
        for dt in (BOOL, U8, I32, I64, F32) for v in (6, True)] + [
        S(2.5, make((3, 4), I64), name="float_error"),
        S(-3, transposed((3, 4), I32), name="transposed")])
    out_of(f"{_op}.Scalar_Tensor_out", f"{_op}.Scalar_Tensor")
    register(f"{_op}_.Tensor", lambda: inplace_binary_samples(dtypes=ALL) + [
        S(make((3, 4), BOOL), make((3, 4), I64), name="bool_int64_error"),
        S(make((3, 4), I64), make((4,), BOOL), name="int64_bool")])
    register(f"{_op}_.Scalar", lambda: scalar_samples(dtypes=_INTS + (F32,), values=(3, True)))


# ---- lerp / addcmul / addcdiv -------------------------------------------------------------------
def _lerp_samples(tensor_weight, inplace=False):
    def w(v, dt=F32, shape=(3, 4)):
        if not tensor_weight:
            return v
        return np.full(shape, v, dt) if shape else np.array(v, dt)

    def samples():
        out = [S(make((3, 4), dt), make((3, 4), dt), w(0.3, dt), name=dtname(dt)) for dt in ALL]
        out += [S(make((3, 4), F32), make((3, 4), F32), w(0.7), name="weight_large"),
                S(make((3, 4), F64), make((3, 4), F64), w(-1.5, F64), name="weight_negative"),
                S(make((3, 4), F32), make((4,), F32), w(0.25), name="broadcast_end"),
                S(make((3, 4), F32), make((3, 4), F64), w(0.5), name="end_dtype_error"),
                S(make((), F32), make((), F32), w(0.4, shape=()), name="0d"),
                S(transposed((3, 4), F32), strided((3, 4), F32), w(0.6), name="noncontiguous"),
                S(make((0, 4), F32), make((4,), F32), w(0.5, shape=(4,)), name="empty")]
        if not inplace:
            out.append(S(make((4,), F32), make((3, 4), F32), w(0.5, shape=(4,)),
                         name="broadcast_self"))
        else:
            out.append(S(make((4,), F32), make((3, 4), F32), w(0.5, shape=(4,)),
                         name="broadcast_self_error"))
        if tensor_weight:
            out += [S(make((3, 4), F32), make((3, 4), F32), make((4,), F32, low=0, high=1),
                      name="weight_broadcast"),
                    S(make((3, 4), F32), make((3, 4), F32), np.array(0.75, F64),
                      name="weight_0d_float64"),
                    S(make((3, 4), F32), make((3, 4), F32), np.array(1, I64), name="weight_0d_int"),
                    S(make((3, 4), F32), make((3, 4), F32), make((3, 4), F64),
                      name="weight_dtype_error")]
            if not inplace:
                out.append(S(make((4,), F32), make((4,), F32), make((3, 4), F32, low=0, high=1),
                             name="weight_broadcasts_result"))
        else:
            out += [S(make((3, 4), F32), make((3, 4), F32), True, name="bool_weight"),
                    S(make((3, 4), F16), make((3, 4), F16), 2, name="int_weight")]
        return out
    return samples


register("lerp.Scalar", _lerp_samples(False))
out_of("lerp.Scalar_out", "lerp.Scalar")
register("lerp.Tensor", _lerp_samples(True))
out_of("lerp.Tensor_out", "lerp.Tensor")
register("lerp_.Scalar", _lerp_samples(False, True))
register("lerp_.Tensor", _lerp_samples(True, True))


def _addc_samples(div, inplace=False):
    nz = {"nonzero": True, "low": 1, "high": 4} if div else {}

    def samples():
        dts = FLOATS if div else ALL
        out = [S(make((3, 4), dt), make((3, 4), dt), make((3, 4), dt, **nz), name=dtname(dt))
               for dt in dts]
        out += [S(make((3, 4), F32), make((3, 4), F32), make((3, 4), F32, **nz), value=0.5,
                  name="value_float"),
                S(make((3, 4), F64), make((4,), F64), make((3, 1), F64, **nz), value=-2,
                  name="broadcast_value_int"),
                S(make((3, 4), F32), make((3, 4), I64), make((3, 4), F32, **nz),
                  name="int64_tensor1"),
                S(make((3, 4), F32), make((3, 4), F16), make((), F64, **nz), name="mixed"),
                S(make((), F32), make((), F32), make((), F32, **nz), name="0d"),
                S(transposed((3, 4), F32), strided((3, 4), F32), offset((3, 4), F32, **nz),
                  name="noncontiguous"),
                S(make((0, 4), F32), make((4,), F32), make((4,), F32, **nz), name="empty"),
                S(make((3, 4), F32), make((3, 4), F32), make((4, 3), F32, **nz),
                  name="shape_mismatch_error")]
        if div:
            out += [S(make((3, 4), F32), make((3, 4), I64), make((3, 4), I64, **nz),
                      name="integer_division_error"),
                    S(make((3, 4), I64), make((3, 4), F32), make((3, 4), F32, **nz),
                      name="int64_self_float_tensors")]
        else:
            out += [S(make((3, 4), I64), make((3, 4), I64), make((3, 4), I64), value=3,
                      name="int64_value_int"),
                    S(make((3, 4), I32), make((3, 4), I32), make((3, 4), I32), value=0.5,
                      name="int32_value_float"),
                    S(make((3, 4), BOOL), make((3, 4), BOOL), make((3, 4), BOOL), value=True,
                      name="bool_error")]
        if not inplace:
            out.append(S(make((4,), F32), make((3, 4), F32), make((3, 4), F32, **nz),
                         name="broadcast_self"))
        else:
            out.append(S(make((4,), F32), make((3, 4), F32), make((3, 4), F32, **nz),
                         name="broadcast_self_error"))
        return out
    return samples


register("addcmul.default", _addc_samples(False))
out_of("addcmul.out", "addcmul.default")
register("addcmul_.default", _addc_samples(False, True))
register("addcdiv.default", _addc_samples(True))
out_of("addcdiv.out", "addcdiv.default")
register("addcdiv_.default", _addc_samples(True, True))

# ---- comparisons ------------------------------------------------------------------------------
for _op in ("ne", "le", "ge"):
    register(f"{_op}.Scalar", lambda: scalar_samples(values=(2, -1.5, True)) + [
        S(make((3, 4), U8), 300, name="uint8_out_of_range"),
        S(make((3, 4), F32), float("nan"), name="nan")])
for _op in ("eq", "ne", "lt", "le", "gt", "ge"):
    out_of(f"{_op}.Scalar_out", f"{_op}.Scalar")
    register(f"{_op}_.Tensor", lambda: inplace_binary_samples() + [
        S(make((3, 4), I64), make((3, 4), F32), name="int64_with_float32"),
        S(make((3, 4), BOOL), make((3, 4), I32), name="bool_with_int32")])
    register(f"{_op}_.Scalar", lambda: scalar_samples(values=(2, -1.5, True)))

# ---- div / pow / where overloads, out= of Scalar overloads -------------------------------------
for _op in ("add", "sub", "mul", "div"):
    out_of(f"{_op}.Scalar_out", f"{_op}.Scalar")
out_of("pow.Tensor_Scalar_out", "pow.Tensor_Scalar")
out_of("pow.Scalar_out", "pow.Scalar")
out_of("masked_fill.Scalar_out", "masked_fill.Scalar")
out_of("masked_fill.Tensor_out", "masked_fill.Tensor")


def _div_scalar_mode_samples(inplace=False):
    def samples():
        out = []
        for mode in ("trunc", "floor", None):
            for dt in (BOOL, U8, I32, I64, F16, BF16, F32, F64):
                for v in (3, -2.5):
                    out.append(S(make((3, 4), dt), v, rounding_mode=mode,
                                 name=f"{dtname(dt)}_{type(v).__name__}_{mode}"))
        out += [S(make((3, 4), I64), 0, rounding_mode="floor", name="int64_by_zero"),
                S(make((3, 4), F32), 0, rounding_mode="trunc", name="float32_by_zero"),
                S(transposed((3, 4), F32), 2, rounding_mode="floor", name="transposed"),
                S(make((3, 4), F32), 2, rounding_mode="round", name="bad_mode_error"),
                S(make((3, 4), BOOL), True, rounding_mode="trunc", name="bool_bool")]
        return out
    return samples


register("div.Scalar_mode", _div_scalar_mode_samples())
out_of("div.Scalar_mode_out", "div.Scalar_mode")
register("div_.Scalar_mode", _div_scalar_mode_samples(True))
register("div_.Scalar", lambda: scalar_samples(values=(2, 2.5, True)) + [
    S(make((3, 4), F32), 0, name="float32_by_zero")])
register("pow_.Scalar", lambda: scalar_samples(lhs={"low": 0, "high": 4}, values=(2, 0.5, True))
         + [S(make((3, 4), I64), -2, name="int64_negative_exp_error"),
            S(make((3, 4), F32, low=0.5, high=3), -1.5, name="float32_negative")])


def _where_number_samples(kind):
    def samples():
        out = []
        for dt in (BOOL, U8, I32, I64, F16, BF16, F32, F64):
            for v in (2, -1.5, True):
                t = make((3, 4), dt)
                args = {"ScalarSelf": (v, t), "ScalarOther": (t, v), "Scalar": (v, 0)}[kind]
                out.append(S(make((3, 4), BOOL), *args, name=f"{dtname(dt)}_{type(v).__name__}"))
        t = make((4,), F32)
        args = {"ScalarSelf": (2.5, t), "ScalarOther": (t, 2.5), "Scalar": (2.5, False)}[kind]
        out += [S(make((3, 1), BOOL), *args, name="broadcast"),
                S(make((3, 4), I64), *args, name="int64_condition_error"),
                S(make((), BOOL), *args[:1], 7, name="0d") if kind == "Scalar" else
                S(make((), BOOL), *args, name="0d")]
        return out
    return samples


for _kind in ("ScalarSelf", "ScalarOther", "Scalar"):
    register(f"where.{_kind}", _where_number_samples(_kind))


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    out = {
        "maximum.default": [S(_a([1.0, 2.0, 3.0]), _a([1.0, 5.0, 3.0]), name="nonsmooth_ties"),
                            S(make((2, 3), F32), make((3,), F64), name="broadcast_promote")],
        "minimum.default": [S(_a([1.0, 2.0, 3.0]), _a([1.0, 5.0, 3.0]), name="nonsmooth_ties"),
                            S(make((2, 3), F32), make((3,), F64), name="broadcast_promote")],
        "rsub.Scalar": [S(make((2, 3), F32), 2.5, 3, name="float32_alpha")],
        "rsub.Tensor": [S(make((2, 3), F32), make((3,), F64), alpha=2, name="promote_alpha")],
        "atan2.default": [S(make((2, 3), F32), make((3,), F32, low=1, high=3), name="broadcast")],
        "lerp.Tensor": [S(make((2, 3), F32), make((2, 3), F32), make((3,), F32, low=0, high=1),
                          name="float32_weight_broadcast")],
        "addcdiv.default": [S(make((2, 3), F32), make((2, 3), F32),
                              make((3,), F32, low=1, high=3), value=0.5, name="value")],
        "addcmul.default": [S(make((2, 3), F32), make((2, 3), F32), make((3,), F32),
                              value=-2, name="value")],
        "div.Scalar_mode": [S(make((2, 3), F32), 2.5, rounding_mode="floor", name="floor"),
                            S(make((2, 3), F32), 2.5, rounding_mode=None, name="true")],
        "div_.Scalar": [S(make((2, 3), F32), 2.5, name="float32")],
        "pow_.Scalar": [S(make((2, 3), F32, low=0.5, high=2), 1.5, name="float32")],
    }
    return out
