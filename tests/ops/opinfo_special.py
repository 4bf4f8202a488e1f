"""Samples for torch.special and the pointwise math ops (schema: the end of the "unary"
section; kernels in kernels/cpu/special.py and kernels/meta/special.py, formulas in
ember/autograd/formulas/special.py), registered into `opinfo.OPS`.

opinfo.py imports this module at its end (its family comes last, so its random draws leave
every other family's samples as they were); `grad_extra()` adds gradient samples.
"""
from __future__ import annotations

import numpy as np
import opinfo
from opinfo import (
    ALL,
    BOOL,
    F16,
    F32,
    F64,
    FLOATS,
    I32,
    I64,
    OPS,
    U8,
    S,
    binary_samples,
    dtname,
    inplace_binary_samples,
    make,
    out_of,
    register,
    scalar_samples,
    transposed,
    unary_samples,
)
from opinfo_binary import _out_subset, _tensors_only
from opinfo_unary import _unary_op

_BEFORE = set(OPS)  # the overloads registered before this module (see the end)
_POSITIVE = {"low": 0.5, "high": 5}
_UNIT = {"low": -0.95, "high": 0.95}


def _a(*values, dtype=F32):
    return np.array(values, dtype)


# ---- unary float ops (bool/integral inputs give the default float dtype) ---------------------
for _name, _mk in [("digamma", _POSITIVE), ("lgamma", {}), ("erfinv", _UNIT), ("erfc", {}),
                   ("i0", {}), ("sinc", {}), ("deg2rad", {}), ("rad2deg", {})]:
    _unary_op(_name, **_mk)
for _name, _mk in [("special_i0e", {}), ("special_i1", {}), ("special_i1e", {}),
                   ("special_ndtr", {}), ("special_ndtri", {"low": 0.05, "high": 0.95}),
                   ("special_log_ndtr", {}), ("special_erfcx", {}),
                   ("special_entr", {"low": 0.05, "high": 5}), ("special_bessel_j0", {}),
                   ("special_bessel_j1", {}), ("special_bessel_y0", _POSITIVE),
                   ("special_bessel_y1", _POSITIVE), ("special_modified_bessel_i0", {}),
                   ("special_modified_bessel_i1", {}), ("special_modified_bessel_k0", _POSITIVE),
                   ("special_modified_bessel_k1", _POSITIVE),
                   ("special_scaled_modified_bessel_k0", _POSITIVE),
                   ("special_scaled_modified_bessel_k1", _POSITIVE),
                   ("special_spherical_bessel_j0", {}), ("special_airy_ai", {})]:
    _unary_op(_name, inplace=False, **_mk)


for _name, _mk in [("acosh", {"low": 1.05, "high": 5}), ("asinh", {}), ("atanh", _UNIT)]:
    _unary_op(_name, **_mk)
for _name in ("isposinf", "isneginf"):
    _unary_op(_name, inplace=False)
register("sgn.default", lambda: unary_samples() + [S(_a(0.0, -0.0, np.nan, -2.0), name="special")])
register("positive.default", lambda: unary_samples(dtypes=ALL[1:]) + [
    S(_a(True, False, dtype=BOOL), name="bool_error")])


def _logit(inplace):
    def samples():
        mk = {"low": 0.05, "high": 0.95}
        return unary_samples(dtypes=FLOATS, inplace=inplace, **mk) + [
            S(make((3, 4), dt), name=dtname(dt)) for dt in (BOOL, I32)] + [
            S(make((3, 4), F32, low=-0.5, high=1.5), 0.2, name="eps"),
            S(make((3, 4), F64, low=-0.5, high=1.5), eps=-1.0, name="negative_eps"),
            S(_a(0.0, 1.0, -0.5, 1.5, 0.5), name="bounds")]
    return samples


register("logit.default", _logit(False))
out_of("logit.out", "logit.default")
register("logit_.default", _logit(True))


def _polygamma():
    x = make((3, 4), F32, **_POSITIVE)
    return [S(n, x, name=f"n{n}") for n in range(4)] + [
        S(1, make((3, 4), dt, **_POSITIVE), name=dtname(dt)) for dt in ALL] + [
        S(2, transposed((3, 4), F64, **_POSITIVE), name="transposed"),
        S(1, make((0, 2), F32), name="empty"), S(0, make((), F64, low=1, high=3), name="0d"),
        S(-1, x, name="negative_n_error")]


register("polygamma.default", _polygamma)
out_of("polygamma.out", "polygamma.default")
register("polygamma_.default", lambda: [
    S(make((3, 4), F32, **_POSITIVE), n, name=f"n{n}") for n in range(3)] + [
    S(transposed((3, 4), F64, **_POSITIVE), 1, name="transposed"),
    S(make((3, 4), I64, low=1, high=5), 1, name="int64_error"),
    S(make((3, 4), F32, **_POSITIVE), -2, name="negative_n_error")])


def _mvlgamma(inplace):
    def samples():
        return [S(make((3, 4), dt, low=2, high=6), p, name=f"{dtname(dt)}_p{p}")
                for dt in (F32, F64) for p in (1, 2, 3)] + [
            S(make((2, 3), F16, low=2, high=6), 2, name="float16"),
            S(transposed((3, 4), F64, low=2, high=6), 2, name="transposed"),
            S(make((2, 3), F32, low=2, high=6), 0, name="p0_error")] + (
            [] if inplace else [S(make((2, 3), I64, low=2, high=6), 2, name="int64")])
    return samples


register("mvlgamma.default", _mvlgamma(False))
out_of("mvlgamma.out", "mvlgamma.default")
register("mvlgamma_.default", _mvlgamma(True))

register("frexp.Tensor", lambda: [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL] + [
    S(_a(0.0, -0.0, 1.0, 0.75, -3.0, 1e-30, 1e30, np.inf, -np.inf, np.nan), name="special"),
    S(_a(0.0, 1.0, 0.75, -3.0, 6e-5, 6e4, np.inf, np.nan, dtype=F16), name="special_float16"),
    S(transposed((3, 4), F64), name="transposed"), S(make((0, 3), F32), name="empty")])


# ---- binary ops ---------------------------------------------------------------------------------
_NAN = S(_a(np.nan, 1.0, np.nan, -np.inf, 0.0), _a(0.0, np.nan, np.nan, 2.0, -0.0), name="nan")


def _binary(name, *, inplace=True, out=True, extra=(), **kw):
    """Tensor-only binary samples (torch's bindings take no number there) plus `extra`."""
    functional = name if "." in name else f"{name}.default"
    register(functional, lambda: _tensors_only(binary_samples(**kw)) + list(extra))
    packet, _, overload = name.partition(".")
    if out:
        out_of(f"{packet}.out", functional)
    if inplace:
        register(f"{packet}_.{overload or 'default'}",
                 lambda: _tensors_only(inplace_binary_samples(**kw)))


for _name in ("hypot", "nextafter"):
    _binary(_name, extra=[_NAN, S(_a(0.0, -0.0, 1.0, -1.0), _a(-1.0, 1.0, 1.0, -1.0),
                                  name="nonsmooth_zeros_and_ties")])
for _name in ("igamma", "igammac"):
    _binary(_name, lhs=_POSITIVE, rhs={"low": 0.1, "high": 6}, extra=[
        _NAN, S(_a(0.0, 1.0, -1.0, 2.0, 0.5), _a(0.0, 0.0, 1.0, -1.0, np.inf), name="edges")])
for _name in ("logaddexp", "logaddexp2"):
    _binary(_name, inplace=False, extra=[_NAN, S(_a(-np.inf, np.inf, np.inf, 3.0),
                                                   _a(-np.inf, np.inf, -np.inf, 3.0),
                                                   name="infinities")])
for _name in ("fmax", "fmin"):
    _binary(_name, inplace=False, extra=[_NAN, S(_a(1.0, 2.0, 3.0), _a(1.0, 5.0, 3.0),
                                                  name="nonsmooth_ties")])
# (torch checks the out= dtype before the float loops gcd lacks: those samples dropped)
_FLOAT_MIXED = ("int64_with_0d_float32", "int32_float16", "bool_float32", "int64_bfloat16")
for _name in ("gcd", "lcm"):
    _binary(_name, out=False, inplace=False, extra=[
        S(np.array([0, -4, 6, 12, 7], I64), np.array([0, 6, -4, 18, 0], I64),
          name="signs_and_zeros")])
    _out_subset(f"{_name}.out", f"{_name}.default", drop=_FLOAT_MIXED)
    register(f"{_name}_.default", lambda: _tensors_only(inplace_binary_samples()))
_binary("heaviside", extra=[S(_a(-1.0, 0.0, -0.0, 2.0, np.nan), _a(0.5, 0.5, 7.0, 0.5, 0.5),
                              name="zeros")])
_binary("copysign.Tensor", extra=[_NAN, S(_a(1.0, -2.0, 0.0, 3.0), _a(-0.0, 0.0, -1.0, np.inf),
                                          name="signed_zeros")])
register("copysign.Scalar", lambda: scalar_samples(values=(-2, 0.5, True)) + [
    S(_a(1.0, -0.0, np.nan, -np.inf), -0.0, name="signed_zero")])
out_of("copysign.Scalar_out", "copysign.Scalar")
register("copysign_.Scalar", lambda: [
    S(make((3, 4), dt), v, name=f"{dtname(dt)}_{type(v).__name__}")
    for dt in (F32, F64, F16, I64) for v in (-3, 0.5)])
register("xlogy.Tensor", lambda: _tensors_only(binary_samples(rhs={"low": 0.1, "high": 5})) + [
    _NAN, S(_a(0.0, 0.0, 1.0, 2.0), _a(0.0, np.nan, 0.0, 3.0), name="zeros")])
out_of("xlogy.OutTensor", "xlogy.Tensor")
register("xlogy_.Tensor", lambda: _tensors_only(inplace_binary_samples(rhs={"low": 0.1, "high": 5})))
register("special_xlog1py.default", lambda: _tensors_only(
    binary_samples(rhs={"low": -0.9, "high": 5})) + [
    _NAN, S(_a(0.0, 0.0, 1.0, 2.0), _a(-1.0, np.nan, -1.0, 3.0), name="zeros")])
out_of("special_xlog1py.out", "special_xlog1py.default")
register("special_zeta.default", lambda: _tensors_only(
    binary_samples(lhs={"low": 1.5, "high": 5}, rhs={"low": 0.5, "high": 5})) + [
    S(_a(1.0, 2.0, 0.5, 3.0), _a(1.0, 1.0, 2.0, -2.5), name="poles")])
# (torch checks out='s dtype before its missing float16/bfloat16 loops: those samples dropped)
_HALF_MIXED = ("int32_float16", "int64_bfloat16")
_out_subset("special_zeta.out", "special_zeta.default", drop=_HALF_MIXED)

_POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
                "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")


def _polynomial_samples():
    """x in [-1, 1], orders 0..5 (float orders truncated), negative orders give 0."""
    return _tensors_only(binary_samples(lhs={"low": -1, "high": 1}, rhs={"low": 0, "high": 6})) + [
        S(_a(0.5, 1.0, -1.0, 0.0, 0.3, 2.0), _a(-1.0, 3.0, 3.0, 4.0, 2.7, 5.0), name="edges"),
        S(make((4,), F64, low=-1, high=1), np.array([0, 1, 2, 9], I64), name="int_orders")]


for _name in _POLYNOMIALS:
    register(f"special_{_name}.default", _polynomial_samples)
    _out_subset(f"special_{_name}.out", f"special_{_name}.default", drop=_HALF_MIXED)



# ---- Scalar overloads (a Python number for either operand: a wrapped number) ------------------
def _scalar_overloads(op, self_name, other_name, lhs, rhs, values, dtypes=ALL, drop=()):
    """Samples of `op.<self_name>(Scalar, Tensor)` and `op.<other_name>(Tensor, Scalar)`
    and of their out= variants (named `<overload>_out`, `drop` as _out_subset's)."""
    register(f"{op}.{self_name}", lambda: [
        S(v, make((3, 4), dt, **rhs), name=f"{type(v).__name__}_{dtname(dt)}")
        for dt in dtypes for v in values] + [
        S(values[0], make((), F64, **rhs), name="0d"),
        S(values[-1], transposed((3, 4), F32, **rhs), name="transposed")])
    register(f"{op}.{other_name}", lambda: scalar_samples(dtypes=dtypes, lhs=lhs, values=values))
    for name in (self_name, other_name):
        _out_subset(f"{op}.{name}_out", f"{op}.{name}", drop=drop)


register("special_xlogy.default", OPS["xlogy.Tensor"].samples)
out_of("special_xlogy.out", "special_xlogy.default")
register("xlogy.Scalar_Self", lambda: [
    S(v, make((3, 4), dt, low=0.1, high=5), name=f"{type(v).__name__}_{dtname(dt)}")
    for dt in ALL for v in (0, 2.5, True)] + [S(3, _a(0.0, np.nan, 2.0), name="nan")])
register("xlogy.Scalar_Other", lambda: scalar_samples(values=(2, 0.5, True)) + [
    S(_a(0.0, np.nan, 2.0), 0, name="log_zero")])
out_of("xlogy.OutScalar_Self", "xlogy.Scalar_Self")
out_of("xlogy.OutScalar_Other", "xlogy.Scalar_Other")
register("xlogy_.Scalar_Other", lambda: [
    S(make((3, 4), dt), v, name=f"{dtname(dt)}_{type(v).__name__}")
    for dt in (F32, F64, F16, I64) for v in (3, 0.5)])
_scalar_overloads("special_xlogy", "self_scalar", "other_scalar", {}, {"low": 0.1, "high": 5},
                  (2, 0.5, True))
_scalar_overloads("special_xlog1py", "self_scalar", "other_scalar", {},
                  {"low": -0.9, "high": 5}, (2, 0.5, True))
_scalar_overloads("special_zeta", "self_scalar", "other_scalar", {"low": 1.5, "high": 5},
                  {"low": 0.5, "high": 5}, (3, 2.5), drop=("float16", "bfloat16"))
for _name in _POLYNOMIALS:
    _scalar_overloads(f"special_{_name}", "x_scalar", "n_scalar", {"low": -1, "high": 1},
                      {"low": 0, "high": 6}, (0.5, 3), dtypes=(F32, F64, I64),
                      drop=("float16", "bfloat16"))

# torch's float64 Bessel and polygamma kernels are accurate to ~1e-8 (relative to the largest
# value; scipy's, which ember uses, agree with mpmath to an ulp), its Airy function to ~1e-5,
# its float32 polynomial recurrences to ~3e-6
_TORCH_LOOSER = {"float64": 2 ** 27, "float32": 64}
for _name in ("special_bessel_j0", "special_bessel_j1", "special_bessel_y0", "special_bessel_y1",
              "polygamma", "polygamma_", "special_ndtr",
              *(f"special_{p}" for p in _POLYNOMIALS)):
    OPS[f"{_name}.default"].tols.update(_TORCH_LOOSER)
# torch's float32 ndtr and Airy function lose up to ~3e-5 (relative) in their tails
OPS["special_airy_ai.default"].tols.update({"float64": 2 ** 36, "float32": 512})
OPS["special_ndtr.default"].tols.update({"float32": 512})

# ---- composites: ldexp, float_power ----------------------------------------------------------
register("ldexp.Tensor", lambda: _tensors_only(binary_samples(rhs={"low": -4, "high": 5})))
register("float_power.Tensor_Tensor", lambda: _tensors_only(
    binary_samples(lhs={"low": 0.1, "high": 3}, rhs={"low": -2, "high": 3})))
register("float_power.Tensor_Scalar", lambda: scalar_samples(
    lhs={"low": 0.1, "high": 3}, values=(2, 0.5, True)))
register("float_power.Scalar", lambda: [
    S(2.5, make((3, 4), dt, low=-2, high=3), name=dtname(dt)) for dt in (U8, I64, F16, F32)] + [
    S(2, transposed((3, 4), F32), name="int_base"), S(True, make((2,), F64), name="bool_base")])




def _private(samples, seed):
    """`samples` drawing from a generator of its own: opinfo's shared one (the other families'
    data, whichever order the tests make samples in) is left as it was."""
    def make_samples():
        saved = opinfo._rng
        opinfo._rng = np.random.default_rng(seed)
        try:
            return samples()
        finally:
            opinfo._rng = saved
    return make_samples


for _i, _name in enumerate(sorted(set(OPS) - _BEFORE)):
    OPS[_name].samples = _private(OPS[_name].samples, 2200 + _i)


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    out = {}
    for name, mk in [("acosh", {"low": 1.2, "high": 4}), ("asinh", {}), ("atanh", _UNIT),
                     ("digamma", _POSITIVE), ("lgamma", _POSITIVE), ("erfinv", _UNIT),
                     ("erfc", {}), ("i0", {}), ("sinc", {}), ("deg2rad", {}), ("rad2deg", {})]:
        out[f"{name}.default"] = [S(make((2, 3), F64, **mk), name="float64")]
    # (torch's formula, like ember's, is 0 at 0 by a mask: its second derivative there is 0,
    # not -pi^2/3: compared with torch only)
    out["sinc.default"].append(S(_a(0.0, 0.5, -1.5), name="nonsmooth_zero"))
    out["special_i1.default"] = [S(_a(0.0, 1e-9, -2.0, 3.0, dtype=F64), name="zero")]
    # (i1e has a kink at 0: |x| in exp(-|x|))
    out["special_i1e.default"] = [S(_a(0.0, 1e-9, -2.0, 3.0, dtype=F64), name="nonsmooth_zero")]
    out["logit.default"] = [S(make((2, 3), F64, low=0.1, high=0.9), 0.2, name="eps_float64")]
    out["hypot.default"] = [S(make((2, 3), F32), make((3,), F64), name="broadcast_promote")]
    out["xlogy.Tensor"] = [S(make((2, 3), F32), make((3,), F32, low=0.5, high=3),
                             name="broadcast")]
    out["special_zeta.default"] = [S(make((2, 3), F64, low=2, high=4).round(),
                                     make((3,), F64, low=1, high=3), name="broadcast")]
    out["fmax.default"] = [S(make((2, 3), F32), make((3,), F64), name="broadcast_promote")]
    return out
