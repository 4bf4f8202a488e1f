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
    out_of,
    register,
    scalar_samples,
    schema_kind,
    transposed,
    unary_samples,
)
from opinfo_binary import _out_subset
from opinfo_special import _private

_BEFORE = set(OPS)  # the overloads registered before this module (see the end)

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
    """No gradient samples: every overload here is CompositeImplicitAutograd (the ops it calls
    have theirs; tests/api/test_surface_ops.py compares gradients with torch) or integer-only."""
    return {}


# ---- products, norms and Tensor utilities (kernels/composite/products.py) -------------------
def _mats(*shapes, dtype=F32):
    return [make(s, dtype) for s in shapes]


register("kron.default", lambda: [
    S(*_mats((2, 3), (3, 2)), name="float32"), S(*_mats((2,), (2, 2, 2)), name="ranks"),
    S(make((2, 3), I64), make((2,), F32), name="int64_float32")])
# (no transposed sample: torch's kron views its input and raises for a transposed one)
out_of("kron.out", "kron.default")
register("inner.default", lambda: [
    S(*_mats((2, 3), (4, 3)), name="float32"), S(*_mats((3,), (3,)), name="vectors"),
    S(make((2, 3)), make((), F32), name="0d"), S(*_mats((2, 3), (3, 4)), name="mismatch_error")])
out_of("inner.out", "inner.default")
register("vdot.default", lambda: [
    S(*_mats((4,), (4,)), name="float32"), S(*_mats((4,), (4,), dtype=F64), name="float64"),
    S(*_mats((4,), (4,), dtype=np.complex64), name="complex64"),
    S(*_mats((2, 2), (2, 2)), name="2d_error"), S(make((4,)), make((4,), F64), name="dtype_error")],
    tols={"float32": 16})
out_of("vdot.out", "vdot.default")
register("tensordot.default", lambda: [
    S(*_mats((2, 3), (3, 4)), [1], [0], name="matmul"),
    S(*_mats((2, 3, 4), (4, 3, 5)), [1, 2], [1, 0], name="two_dims"),
    S(*_mats((2, 3), (4,)), [], [], name="outer"),
    S(*_mats((2, 3), (3, 4)), [0], [0], name="mismatch_error")], tols={"float32": 16})
out_of("tensordot.out", "tensordot.default")
register("dist.default", lambda: [
    S(*_mats((3, 4), (3, 4)), name="p2"), S(*_mats((3, 4), (4,)), 1, name="p1_broadcast"),
    S(*_mats((3, 4), (3, 4)), float("inf"), name="inf"), S(*_mats((3, 4), (3, 4)), 0, name="p0"),
    S(make((3,), I64), make((3,), I64), name="int64_error")], tols={"float32": 16})
register("renorm.default", lambda: [
    S(make((3, 4)), 2, 0, 1.0, name="p2"), S(make((3, 4), F64), 1, 1, 5.0, name="p1_dim1"),
    S(make((2, 3, 4)), 3, -1, 2.0, name="3d"), S(make((3, 4)), 0, 0, 1.0, name="p0_error"),
    S(make((3, 4)), 2, 0, -1.0, name="maxnorm_error")], tols={"float32": 16})
out_of("renorm.out", "renorm.default")
register("renorm_.default", lambda: OPS["renorm.default"].samples(), tols={"float32": 16})
register("addmv.default", lambda: [
    S(*_mats((2,), (2, 3), (3,)), name="float32"),
    S(*_mats((1,), (2, 3), (3,)), beta=0.5, alpha=2, name="broadcast_scaled"),
    S(*_mats((2,), (2, 3), (3,)), beta=0, name="beta0"),
    S(*_mats((3,), (2, 3), (3,)), name="size_error")], tols={"float32": 16})
out_of("addmv.out", "addmv.default")
register("addmv_.default", lambda: [
    S(*_mats((2,), (2, 3), (3,)), alpha=2, name="float32")], tols={"float32": 16})
register("addr.default", lambda: [
    S(*_mats((2, 3), (2,), (3,)), name="float32"),
    S(*_mats((3,), (2,), (3,)), beta=2, alpha=0.5, name="broadcast_scaled")], tols={"float32": 16})
out_of("addr.out", "addr.default")
register("addr_.default", lambda: [S(*_mats((2, 3), (2,), (3,)), alpha=3, name="float32")],
         tols={"float32": 16})
register("addbmm.default", lambda: [
    S(*_mats((2, 4), (3, 2, 5), (3, 5, 4)), name="float32"),
    S(*_mats((4,), (3, 2, 5), (3, 5, 4)), beta=0.5, alpha=2, name="broadcast_scaled")],
    tols={"float32": 32})
out_of("addbmm.out", "addbmm.default")
register("addbmm_.default", lambda: [S(*_mats((2, 4), (3, 2, 5), (3, 5, 4)), name="float32")],
         tols={"float32": 32})
register("type_as.default", lambda: [
    S(make((3, 4)), make((2,), I64), name="to_int64"), S(make((3, 4), I32), make((), F64),
                                                         name="to_float64"),
    S(make((3, 4)), make((2,)), name="same")])
register("sum_to_size.default", lambda: [
    S(make((3, 4)), [1, 4], name="keep"), S(make((2, 3, 4)), [3, 1], name="leading"),
    S(make((3, 4)), [3, 4], name="same"), S(make((3, 4)), [4, 4], name="error")],
    tols={"float32": 16})
register("fill_diagonal_.default", lambda: [
    S(make((3, 4)), 2.5, name="wide"), S(make((5, 2)), 1, True, name="tall_wrap"),
    S(make((5, 2), I32), 7, name="tall"), S(make((3, 3, 3)), 0, name="cube"),
    S(make((3,)), 1, name="1d_error")])
register("isreal.default", lambda: [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL] + [
    S(np.array([1 + 0j, 2 - 1j, 0j], dtype=np.complex64), name="complex64")])


for _i, _name in enumerate(sorted(set(OPS) - _BEFORE)):
    OPS[_name].samples = _private(OPS[_name].samples, 2900 + _i)
