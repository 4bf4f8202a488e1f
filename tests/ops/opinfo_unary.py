"""Samples for the unary op family, registered into `opinfo.OPS`.

opinfo.py imports this module at its end; `grad_extra()` adds gradient samples to
tests/autograd/grad_samples.py's EXTRA (called with opinfo's random generator seeded).
"""
from __future__ import annotations

import numpy as np
from opinfo import (
    BF16,
    BOOL,
    F16,
    F32,
    F64,
    FLOATS,
    I32,
    I64,
    U8,
    S,
    View,
    dtname,
    expanded,
    make,
    out_of,
    register,
    transposed,
    unary_samples,
)

_INF, _NAN = np.inf, np.nan
_POSITIVE_DOMAIN = {"low": 0.1, "high": 5}
# zeros, signed zeros, infinities, NaN, tiny and large values, halves (rounding ties)
_SPECIAL = (0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-30, 100.0, -100.0,
            _INF, -_INF, _NAN)


def _special(dt=F32):
    return np.array(_SPECIAL, dt)


def _unary_op(name, *, out=True, inplace=True, extra=None, **mk):
    """functional (+ out=, + in place) samples: unary_samples within the domain `mk`,
    special values in float32 / float16 / float64, and `extra()` samples."""
    def integral():  # the domain `mk` is for floats; integral samples take make's defaults
        return [S(make((3, 4), dt), name=dtname(dt)) for dt in (BOOL, U8, I32, I64)]

    def functional():
        return unary_samples(dtypes=FLOATS, **mk) + integral() + [
            S(_special(F32), name="special_float32"), S(_special(F16), name="special_float16"),
            S(_special(F64), name="special_float64"),
            S(make((2, 3), I64, low=1, high=9), name="int64_positive")] + (
            extra() if extra else [])

    def in_place():
        return unary_samples(dtypes=FLOATS, inplace=True, **mk) + integral() + [
            S(_special(F32), name="special_float32"),
            S(expanded((3, 4), F32, **mk), name="expanded_overlap_error")]
    register(f"{name}.default", functional)
    if out:
        out_of(f"{name}.out", f"{name}.default")
    if inplace:
        register(f"{name}_.default", in_place)


# ---- neg (bool raises, like torch; an expanded self cannot be written) -------------------
register("neg.default", lambda: unary_samples())
out_of("neg.out", "neg.default")
register("neg_.default", lambda: unary_samples(inplace=True) + [
    S(expanded((3, 4), F32), name="expanded_overlap_error")])


# ---- float ops (integral and bool inputs give the default float dtype) ----------------
for _name, _mk in [("exp", {}), ("log", _POSITIVE_DOMAIN), ("sigmoid", {}), ("tanh", {})]:
    _unary_op(_name, **_mk)
_POSITIVE = {"low": 0.1, "high": 5}
for _name, _mk in [("exp2", {}), ("expm1", {}), ("log2", _POSITIVE), ("log10", _POSITIVE),
                   ("log1p", {"low": -0.9, "high": 5}), ("sqrt", _POSITIVE), ("rsqrt", _POSITIVE),
                   ("reciprocal", {"low": 0.2, "high": 5}), ("sin", {}), ("cos", {}),
                   ("tan", {"low": -1.3, "high": 1.3}), ("asin", {"low": -0.95, "high": 0.95}),
                   ("acos", {"low": -0.95, "high": 0.95}), ("atan", {}), ("sinh", {}), ("cosh", {}),
                   ("erf", {})]:
    _unary_op(_name, **_mk)


# ---- dtype-keeping ops (abs/floor/...: integral dtypes kept; bool raises where torch does)
def _ints():
    return [S(np.array([-128, -1, 0, 7, 127], np.int8), name="int8"),
            S(np.array([-2 ** 63, -3, 0, 5], np.int64), name="int64_extremes"),
            S(np.array([0, 200, 255], np.uint8), name="uint8_values"),
            S(np.array([True, False]), name="bool_values")]


def _rounding_extra():
    """floor/ceil/round/trunc/frac: their float samples sit in (0.05, 0.45), away from the
    jumps (finite differences across one fail gradcheck); wide values here."""
    return _ints() + [S(make((3, 4), dt), name=f"nonsmooth_wide_{dtname(dt)}")
                      for dt in FLOATS]


for _name in ("abs", "sign", "bitwise_not"):
    _unary_op(_name, extra=_ints)
for _name in ("floor", "ceil", "round", "trunc", "frac"):
    _unary_op(_name, extra=_rounding_extra, low=0.05, high=0.45)


def _round_decimals(inplace):
    def samples():
        # float16/bfloat16 values often are ties (x.x5): not gradchecked
        out = [S(make((3, 4), dt), decimals=d,
                 name=("nonsmooth_" if dt in (F16, BF16) else "") + f"{dtname(dt)}_{d}")
               for dt in FLOATS for d in (0, 1, 2, -1)]
        out += [S(np.array([1.25, 1.35, -1.25, 1234.5, 0.125, 2.5], F32), decimals=2,
                  name="nonsmooth_ties"),
                S(np.array([1250.0, 1350.0, -1250.0, 51.0], F64), decimals=-2,
                  name="nonsmooth_negative"),
                S(make((3, 4), I64), decimals=1, name="int64_error"),
                S(make((3, 4), BOOL), decimals=1, name="bool_error"),
                S(_special(F32), decimals=3, name="special"),
                S(transposed((3, 4), F32), decimals=1, name="transposed"),
                S(make((0, 2), F32), decimals=1, name="empty"),
                S(make((), F64), decimals=1, name="0d")]
        if not inplace:
            out.append(S(expanded((3, 4), F32), decimals=1, name="expanded"))
        return out
    return samples


register("round.decimals", _round_decimals(False))
out_of("round.decimals_out", "round.decimals")
register("round_.decimals", _round_decimals(True))


# ---- nan_to_num ----------------------------------------------------------------------------
def _nan_to_num(inplace):
    def samples():
        out = unary_samples(inplace=inplace)
        for dt in (F16, BF16, F32, F64):
            out += [S(_special(dt), name=f"special_{dtname(dt)}"),
                    S(_special(dt), 1.5, 1e3, -1e3, name=f"given_{dtname(dt)}"),
                    S(_special(dt), nan=-2.0, posinf=1e6, neginf=-1e40,
                      name=f"overflowing_{dtname(dt)}")]
        out += [S(make((3, 4), I64), 1.5, 2.0, -2.0, name="int64_given"),
                S(make((3, 4), BOOL), nan=1.0, name="bool_given"),
                S(transposed((3, 4), F32), posinf=3.0, name="transposed_given")]
        return out
    return samples


register("nan_to_num.default", _nan_to_num(False))
out_of("nan_to_num.out", "nan_to_num.default")
register("nan_to_num_.default", _nan_to_num(True))


# ---- bool-valued ops (isfinite has no out=; only logical_not has an in-place variant) -----
for _name in ("logical_not", "isnan", "isinf", "isfinite", "signbit"):
    _unary_op(_name, out=_name != "isfinite", inplace=_name == "logical_not", extra=_ints)


_FRACTIONAL = {"low": 0.05, "high": 0.45}


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    out = {}
    for name, mk in [("exp2", {}), ("expm1", {}), ("log2", _POSITIVE), ("log10", _POSITIVE),
                     ("log1p", {"low": -0.5, "high": 3}), ("sqrt", _POSITIVE),
                     ("rsqrt", _POSITIVE), ("reciprocal", {"low": 0.5, "high": 3}),
                     ("sin", {}), ("cos", {}), ("tan", {"low": -1, "high": 1}),
                     ("asin", {"low": -0.9, "high": 0.9}), ("acos", {"low": -0.9, "high": 0.9}),
                     ("atan", {}), ("sinh", {}), ("cosh", {}), ("erf", {"low": -2, "high": 2}),
                     ("abs", {}), ("sign", {}), ("floor", _FRACTIONAL), ("ceil", _FRACTIONAL),
                     ("round", _FRACTIONAL), ("trunc", _FRACTIONAL), ("frac", _FRACTIONAL),
                     ("nan_to_num", {})]:
        out[f"{name}_.default"] = [
            S(View(make((4, 3), F32, **mk), "transpose.int", (0, 1)), name="transposed_view")]
        out[f"{name}.default"] = [S(make((2, 3), F64, **mk), name="float64")]
    out["reciprocal.default"].append(S(make((2, 3), F32, low=-3, high=-0.5), name="negative"))
    out["abs.default"].append(S(np.array([-1.0, 0.0, 2.0], F32), name="nonsmooth_zero"))
    out["round.decimals"] = [S(make((2, 3), F32), decimals=1, name="float32")]
    out["round_.decimals"] = [S(make((2, 3), F32), decimals=-1, name="float32")]
    out["nan_to_num.default"].append(S(make((2, 3), F32), 1.0, 2.0, -2.0, name="given"))
    return out
