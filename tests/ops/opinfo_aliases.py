"""Samples for torch's alias ops (schema: "torch's alias ops", kernels/composite/aliases.py)
and the bitwise shifts, registered into `opinfo.OPS`.

An alias takes the samples (and flags) of the overload it calls: `absolute.out` is checked
against `torch.ops.aten.absolute.out` on `abs.out`'s samples. opinfo.py imports this module
last (its family comes last, so its random draws leave every other family's samples as they
were); `grad_extra()` adds gradient samples.
"""
from __future__ import annotations

import numpy as np
from opinfo import (
    ALL,
    BOOL,
    F32,
    F64,
    I32,
    I64,
    OPS,
    U8,
    OpInfo,
    S,
    binary_samples,
    dtname,
    inplace_binary_samples,
    make,
    register,
    scalar_samples,
    schema_kind,
    transposed,
    unary_samples,
)
from opinfo_binary import _out_subset

# alias overload -> the overload whose samples it takes
_ALIASES = {
    "absolute.default": "abs.default", "absolute.out": "abs.out", "absolute_.default": "abs_.default",
    "negative.default": "neg.default", "negative.out": "neg.out", "negative_.default": "neg_.default",
    "fix.default": "trunc.default", "fix.out": "trunc.out", "fix_.default": "trunc_.default",
    "arctan2.default": "atan2.default", "arctan2.out": "atan2.out",
    "arctan2_.default": "atan2_.default",
    "clip.default": "clamp.default", "clip.out": "clamp.out", "clip.Tensor": "clamp.Tensor",
    "clip.Tensor_out": "clamp.Tensor_out", "clip_.default": "clamp_.default",
    "clip_.Tensor": "clamp_.Tensor",
    "concat.default": "cat.default", "concat.out": "cat.out",
    "concatenate.default": "cat.default", "concatenate.out": "cat.out",
    "swapaxes_.default": "transpose_.default", "swapdims_.default": "transpose_.default",
    "ldexp_.default": "ldexp.Tensor", "sgn_.default": "sgn.default",
    "square.default": "abs.default", "square_.default": "abs_.default", "square.out": "abs.out",
}
for _a, _t in (("arccos", "acos"), ("arcsin", "asin"), ("arctan", "atan"), ("arccosh", "acosh"),
               ("arcsinh", "asinh"), ("arctanh", "atanh")):
    _ALIASES.update({f"{_a}.default": f"{_t}.default", f"{_a}.out": f"{_t}.out",
                     f"{_a}_.default": f"{_t}_.default"})
for _a, _t in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"),
               ("not_equal", "ne")):
    for _ov in ("Tensor", "Scalar", "Tensor_out", "Scalar_out"):
        _ALIASES[f"{_a}.{_ov}"] = f"{_t}.{_ov}"
    for _ov in ("Tensor", "Scalar"):
        _ALIASES[f"{_a}_.{_ov}"] = f"{_t}_.{_ov}"
for _a, _t, _ovs in (("multiply", "mul", ("Tensor", "Scalar", "out")),
                     ("subtract", "sub", ("Tensor", "Scalar", "out")),
                     ("true_divide", "div", ("Tensor", "Scalar", "out")),
                     ("divide", "div", ("Tensor", "Scalar", "out", "Tensor_mode", "Scalar_mode",
                                        "out_mode"))):
    for _ov in _ovs:
        _ALIASES[f"{_a}.{_ov}"] = f"{_t}.{_ov}"
        if "out" not in _ov:
            _ALIASES[f"{_a}_.{_ov}"] = f"{_t}_.{_ov}"


def _alias_info(name, target):
    t = OPS[target]
    functional = None
    if t.kind == "out":
        functional = next(a for a, b in _ALIASES.items() if b == t.functional
                          and a.split(".")[0] == name.split(".")[0])
    return OpInfo(name, t.samples, kind=schema_kind(name), values=t.values,
                  exact_strides=t.exact_strides, tols=t.tols, functional=functional)


for _name, _target in _ALIASES.items():
    assert _name not in OPS, _name
    OPS[_name] = _alias_info(_name, _target)

# square is pow(self, 2): a bool squares to int64 (its own samples, not abs's)
OPS["square.default"].samples = lambda: unary_samples() + [S(make((3, 4), BOOL), name="bool_int64")]
OPS["square_.default"].samples = lambda: unary_samples(inplace=True) + [
    S(make((3, 4), BOOL), name="bool_error")]


def _float_power_(scalar):
    def samples():
        other = (lambda dt: 2.5) if scalar else (lambda dt: make((3, 4), dt, low=0, high=3))
        out = [S(make((3, 4), dt, low=0.5, high=3), other(dt), name=dtname(dt))
               for dt in (F32, F64, I64)]
        out.append(S(make((3, 4), np.complex128), other(F64), name="complex128"))
        if not scalar:
            out.append(S(make((3, 4), F64, low=0.5, high=3), make((4,), I32, low=0, high=3),
                         name="broadcast_int32"))
        return out
    return samples


register("float_power_.Tensor", _float_power_(False))
register("float_power_.Scalar", _float_power_(True))


# ---- bitwise shifts: amounts below 0 and at least the bit width are torch's 0 / sign fill ---
def _shift_samples():
    return binary_samples(dtypes=ALL, rhs={"low": -2, "high": 10}, scalars=(3, True, 40)) + [
        S(make((3, 4), I64), make((3, 4), I64, low=-70, high=70), name="int64_out_of_range"),
        S(make((3, 4), U8), make((3, 4), U8), name="uint8"),
        S(make((3, 4), I32, low=-9), make((4,), I64, low=30, high=34), name="int32_int64_wide")]


def _shift_inplace():
    return inplace_binary_samples(dtypes=ALL, rhs={"low": -2, "high": 10})


for _op in ("bitwise_left_shift", "bitwise_right_shift"):
    register(f"{_op}.Tensor", _shift_samples)
    _out_subset(f"{_op}.Tensor_out", f"{_op}.Tensor", drop=("float",))
    register(f"{_op}.Tensor_Scalar", lambda: scalar_samples(dtypes=(BOOL, U8, I32, I64, F32),
                                                            values=(3, 70, -1, True)))
    _out_subset(f"{_op}.Tensor_Scalar_out", f"{_op}.Tensor_Scalar", drop=("float",))
    register(f"{_op}.Scalar_Tensor", lambda: [
        S(v, make((3, 4), dt, low=0, high=9), name=f"{type(v).__name__}_{dtname(dt)}")
        for dt in (U8, I32, I64, F32) for v in (6, -5)] + [
        S(3, transposed((3, 4), I32, low=0, high=9), name="transposed")])
    _out_subset(f"{_op}.Scalar_Tensor_out", f"{_op}.Scalar_Tensor", drop=("float",))
    register(f"{_op}_.Tensor", _shift_inplace)
    register(f"{_op}_.Tensor_Scalar", lambda: scalar_samples(dtypes=(BOOL, U8, I32, I64, F32),
                                                             values=(3, 70, -1)))


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    x = make((2, 3), F64, low=-0.9, high=0.9)
    return {"arcsin.default": [S(x, name="float64")], "square.default": [S(x, name="float64")],
            "divide.Tensor_mode": [S(x, make((3,), F64, low=1, high=2), rounding_mode=None,
                                     name="true")],
            "subtract.Tensor": [S(x, make((3,), F64), alpha=3, name="alpha")],
            "clip.default": [S(x, -0.5, 0.5, name="bounds")],
            "concat.default": [S([x, make((1, 3), F64)], 0, name="two")]}


