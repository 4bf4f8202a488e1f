"""Samples for the activation op family (issue 4), registered into `opinfo.OPS`.

opinfo.py imports this module at its end; `grad_extra()` adds gradient samples to
tests/autograd/grad_samples.py's EXTRA (called with opinfo's random generator seeded).
"""
from __future__ import annotations

import numpy as np
from opinfo import (
    ALL,
    BF16,
    BOOL,
    F16,
    F32,
    F64,
    I32,
    I64,
    OPS,
    U8,
    S,
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

# (no infinities: torch's vectorised float32 kernels give NaN for some, e.g. gelu(inf))
_SPECIAL = np.array([np.nan, 0.0, -0.0, 1e-8, 30.0, -30.0, 2.0, -2.0], np.float32)


def _with(samples, *args, **kwargs):
    """`samples` with extra trailing positional args / kwargs."""
    return [S(*s.args, *args, name=s.name, **s.kwargs, **kwargs) for s in samples]


def _float_unary(name, params=(), *, inplace=True, out=True, extra=()):
    """gelu-like ops: a dtype sweep (integral/bool inputs must raise) with each parameter
    set of `params` ((args, kwargs, label) triples), special values, and `extra`."""
    params = params or (((), {}, ""),)

    def samples(inplace_=False):
        def make_samples():
            out_ = []
            for args, kwargs, label in params:
                if inplace_ and label.startswith("negative"):
                    continue   # torch's in-place backward refuses negative slopes
                for s in _with(unary_samples(inplace=inplace_), *args, **kwargs):
                    s.name = f"{s.name}_{label}" if label else s.name
                    out_.append(s)
            args, kwargs, _ = params[0]
            out_.append(S(_SPECIAL.copy(), *args, name="special_values", **kwargs))
            if not inplace_:
                out_ += [s() for s in extra]
            return out_
        return make_samples

    register(f"{name}.default", samples())
    if out:
        out_of(f"{name}.out", f"{name}.default")
    if inplace:
        register(f"{name}_.default", samples(True))


# ---- gelu / silu / softplus / leaky_relu / elu ---------------------------------------------
_float_unary("gelu", (((), {}, ""), ((), {"approximate": "tanh"}, "tanh")),
             extra=(lambda: S(make((3, 4), F32), approximate="foo", name="bad_approximate_error"),))
_float_unary("silu")
_float_unary("softplus", (((), {}, ""), ((2, 1), {}, "beta2_threshold1"),
                          ((0.5, 3.0), {}, "beta_half")),
             inplace=False, extra=(lambda: S(make((3, 4), F32), -1, 2, name="negative_beta"),))
_float_unary("leaky_relu", (((), {}, ""), ((0.2,), {}, "slope"), ((-0.5,), {}, "negative")),
             extra=(lambda: S(make((3, 4), F32), 2, name="int_slope"),))
_float_unary("elu", (((), {}, ""), ((0.5, 2.0, 1.5), {}, "params")),
             extra=(lambda: S(make((3, 4), F32), -1.5, name="negative_alpha"),))


# ---- hardtanh --------------------------------------------------------------------------------
def _hardtanh_samples(inplace=False):
    def samples():
        out = [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL]
        out += [S(make((3, 4), F32), -2, 3, name="bounds"),
                S(make((3, 4), F64), -0.5, 0.5, name="float_bounds"),
                S(make((3, 4), I64), -0.5, 2.5, name="int64_float_bounds_truncate"),
                S(make((3, 4), I32), -3, 4, name="int32_bounds"),
                S(make((3, 4), U8), 2, 5, name="uint8_positive_bounds"),
                S(make((3, 4), U8), -1, 5, name="uint8_negative_bound_error"),
                S(make((3, 4), F32), 1, -1, name="min_gt_max"),
                S(make((), F32), name="0d"), S(make((0, 3), F32), name="empty"),
                S(transposed((3, 4), F32), -0.5, 2, name="transposed"),
                S(offset((3, 4), F16), name="offset"),
                S(_SPECIAL.copy(), name="special_values")]
        if not inplace:
            out.append(S(expanded((3, 4), F32), name="expanded"))
        return out
    return samples


register("hardtanh.default", _hardtanh_samples())
out_of("hardtanh.out", "hardtanh.default")
register("hardtanh_.default", _hardtanh_samples(True))


# ---- relu and its backward -------------------------------------------------------------------
register("relu.default", lambda: unary_samples())
register("relu_.default", lambda: unary_samples(inplace=True))
register("threshold_backward.default", lambda: [
    S(make((3, 4), F32), make((3, 4), F32), 0, name="float32"),
    S(make((3, 4), F64), make((4,), F32), 0.5, name="broadcast_promote"),
    S(make((3, 4), F32).T, make((4, 3), F32), -1, name="noncontiguous")])


# ---- threshold -------------------------------------------------------------------------------
def _threshold_samples(inplace=False):
    def samples():
        out = [S(make((3, 4), dt), 1, 7, name=dtname(dt)) for dt in ALL]
        out += [S(make((3, 4), F32), 0.5, -2.5, name="float"),
                S(make((3, 4), I64), -0.5, 2.7, name="int64_float_scalars_truncate"),
                S(np.array([-1, 0, 1, 2], np.int32), -0.5, 7, name="int32_threshold_cast"),
                S(make((3, 4), U8), 1, 300, name="uint8_overflow_error"),
                S(make((3, 4), F16), 1, 70000.0, name="float16_overflow_error"),
                S(make((), F64), 0, 1, name="0d"), S(make((0, 3), F32), 0, 1, name="empty"),
                S(transposed((3, 4), F32), 0, 1, name="transposed"),
                S(strided((3, 4), BF16), 0.5, 1, name="strided"),
                S(_SPECIAL.copy(), 0.0, 5.0, name="special_values")]
        if not inplace:
            out.append(S(expanded((3, 4), F32), 0, 1, name="expanded"))
        return out
    return samples


register("threshold.default", _threshold_samples())
out_of("threshold.out", "threshold.default")
register("threshold_.default", _threshold_samples(True))


# ---- the *_backward ops --------------------------------------------------------------------
def _backward_samples(arrange, *, broadcast=True, promote=True):
    """(grad_output, input) pairs: a dtype sweep (integral/bool must raise), 0-d, empty,
    non-contiguous, promotion and broadcasting; `arrange(g, x)` -> the op's args."""
    def samples():
        out = [S(*arrange(make((3, 4), dt), make((3, 4), dt)), name=dtname(dt)) for dt in ALL]
        out += [S(*arrange(make((), F32), make((), F32)), name="0d"),
                S(*arrange(make((0, 3), F64), make((0, 3), F64)), name="empty"),
                S(*arrange(transposed((3, 4), F32), strided((3, 4), F32)),
                  name="noncontiguous"),
                S(*arrange(make((3, 4), F32), make((3, 4), F32, low=-1, high=1)),
                  name="small_inputs")]
        if promote:
            out.append(S(*arrange(make((3, 4), F32), make((3, 4), F64)), name="float32_float64"))
            out.append(S(*arrange(make((3, 4), F32), make((3, 4), I64)), name="float32_int64"))
        if broadcast:
            out.append(S(*arrange(make((3, 4), F32), make((4,), F32)), name="broadcast_input"))
            out.append(S(*arrange(make((4,), F32), make((3, 4), F32)), name="broadcast_grad"))
            out.append(S(*arrange(make((3, 4), F32), make((4, 3), F32)), name="shape_error"))
        return out
    return samples


def _gx(*rest, **kw):
    return lambda g, x: (g, x, *rest)


# torch's gelu_backward goes through oneDNN, which refuses broadcasting and a float64 grad
register("gelu_backward.default", lambda: _backward_samples(_gx(), broadcast=False)() + [
    S(*_gx()(make((3, 4), F32), make((3, 4), F32)), approximate="tanh", name="tanh"),
    S(*_gx()(make((2, 3), F64), make((2, 3), F64)), approximate="tanh", name="tanh_float64"),
    S(*_gx()(make((3, 4), F32), make((3, 4), F32)), approximate="bad", name="bad_error")],
    # the tanh form's float64 gradient rounds differently from torch's by up to ~10 ulps of
    # the largest value (measured over 12,800 points)
    tols={"float64": 16})
register("silu_backward.default", _backward_samples(_gx()))
register("softplus_backward.default", lambda: _backward_samples(_gx(1, 20))() + [
    S(make((3, 4), F32), make((3, 4), F32), 2, 1, name="beta2_threshold1"),
    S(make((3, 4), F64), make((3, 4), F64), 0.5, 1.5, name="beta_half")])
register("leaky_relu_backward.default", lambda: _backward_samples(_gx(0.1, False))() + [
    S(make((3, 4), F32), make((3, 4), F32), -0.2, False, name="negative_slope"),
    S(make((3, 4), F32), make((3, 4), F32), 0.3, True, name="self_is_result"),
    S(make((3, 4), F32), make((3, 4), F32), -0.2, True, name="negative_slope_result_error")])


def _elu_args(alpha=1, scale=1, input_scale=1, is_result=False):
    return lambda g, x: (g, alpha, scale, input_scale, is_result, x)


register("elu_backward.default", lambda: _backward_samples(_elu_args())() + [
    S(*_elu_args(0.5, 2, 1.5)(make((3, 4), F32), make((3, 4), F32)), name="params"),
    S(*_elu_args(0.5, 2, 1.5, True)(make((3, 4), F64), make((3, 4), F64, low=-0.9)),
      name="is_result"),
    S(*_elu_args(-1, 1, 1, True)(make((3, 4), F32), make((3, 4), F32)),
      name="negative_alpha_result_error")])
register("hardtanh_backward.default", lambda: _backward_samples(_gx(-1, 1))() + [
    S(make((3, 4), F32), make((3, 4), F32), -2, 0.5, name="bounds"),
    S(make((4,), F32), np.array([-1, 1, 0.5, -1.5], np.float32), -1, 1, name="nonsmooth_at_bounds")])
register("sigmoid_backward.default", _backward_samples(_gx()))
register("tanh_backward.default", _backward_samples(_gx()))


# ---- clamp_min / clamp_max / clamp_.Tensor / out variants ----------------------------------
def _tensor_bound(samples):
    """Samples whose bound is a tensor (torch's Tensor overloads take no Python numbers)."""
    return [s for s in samples if not isinstance(s.args[1], (bool, int, float))]


def _clamp_bound_scalar(inplace=False):
    def samples():
        out = scalar_samples(values=(2, -1.5, True))
        out += [S(make((3, 4), U8), -1, name="uint8_negative_bound"),
                S(make((3, 4), F32), float("nan"), name="nan_bound"),
                S(_SPECIAL.copy(), 0.5, name="special_values")]
        if not inplace:
            out.append(S(expanded((3, 4), F32), 0.5, name="expanded"))
        return out
    return samples


def _clamp_bound_tensor():
    return _tensor_bound(binary_samples()) + [
        S(make((3, 4), BOOL), make((3, 4), BOOL), name="bool_bool"),
        S(make((3, 4), I64), np.array(1.5, F64), name="int64_with_0d_float64"),
        S(_SPECIAL.copy(), np.array([np.nan, 1, 1, 1, 1, 1, 1, 1], np.float32), name="nan_bound")]


def _clamp_bound_tensor_():
    return _tensor_bound(inplace_binary_samples()) + [
        S(make((3, 4), BOOL), make((3, 4), BOOL), name="bool_bool"),
        S(make((3, 4), I64), np.array(1.5, F32), name="int64_with_0d_float32_error")]


for _op in ("clamp_min", "clamp_max"):
    register(f"{_op}.default", _clamp_bound_scalar())
    out_of(f"{_op}.out", f"{_op}.default")
    register(f"{_op}.Tensor", _clamp_bound_tensor)
    out_of(f"{_op}.Tensor_out", f"{_op}.Tensor")
    register(f"{_op}_.default", _clamp_bound_scalar(True))
    register(f"{_op}_.Tensor", _clamp_bound_tensor_)


def _clamp_tensor_inplace():
    return OPS["clamp.Tensor"].samples() + [
        S(make((3, 4), BOOL), make((3, 4), BOOL), None, name="bool"),
        S(make((3, 4), I64), make((3, 4), F32), None, name="int64_float_min_error"),
        S(make((4,), F32), make((3, 4), F32), None, name="self_smaller_than_broadcast_error"),
        S(transposed((3, 4), F32), make((4,), F32, high=0), make((), F32, low=0),
          name="transposed_self")]


register("clamp_.Tensor", _clamp_tensor_inplace)
out_of("clamp.Tensor_out", "clamp.Tensor")
out_of("relu.out", "relu.default")


def _a(*values):
    return np.array(values, np.float32)


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    x = _a(-1.5, -0.5, 0.0, 0.5, 2.0)
    return {
        "leaky_relu.default": [S(x, 0.2, name="nonsmooth_zero")],
        "leaky_relu_.default": [S(make((3, 4), F32), 0.3, name="slope")],
        "elu.default": [S(x, 1.5, 2, 0.5, name="nonsmooth_zero")],
        "elu_.default": [S(make((3, 4), F32), 0.5, 2, 1.5, name="params")],
        "hardtanh.default": [S(_a(-1.0, 1.0, 0.5, -2.0, 3.0), name="nonsmooth_at_bounds"),
                             S(make((3, 4), F32), -2, 2.5, name="bounds")],
        "hardtanh_.default": [S(make((3, 4), F32), -0.5, 0.5, name="bounds")],
        "threshold.default": [S(x, 0.5, 3.0, name="nonsmooth_at_threshold")],
        "threshold_.default": [S(make((3, 4), F32), 0.5, 3.0, name="float32")],
        "clamp_min.default": [S(x, 0.5, name="nonsmooth_at_bound")],
        "clamp_max.default": [S(x, 0.5, name="nonsmooth_at_bound")],
        "clamp_min.Tensor": [S(x, _a(0.5, 0.0, 0.0, 1.0, 2.0), name="nonsmooth_at_bound"),
                             S(make((3, 4), F32), make((4,), F64), name="broadcast_min_float64")],
        "clamp_max.Tensor": [S(x, _a(0.5, 0.0, 0.0, 1.0, 2.0), name="nonsmooth_at_bound"),
                             S(make((3, 1), F32), make((4,), F32), name="broadcast_self")],
        "clamp_.Tensor": [S(make((3, 4), F32), make((4,), F32, high=0), make((3, 1), F32, low=0),
                            name="float32")],
        "gelu_backward.default": [S(make((2, 3), F32), make((2, 3), F32), approximate="tanh",
                                    name="tanh")],
        "softplus.default": [S(make((3, 4), F32), 2, 4, name="beta2_threshold4")],
    }


def _threshold_backward_extra():
    return [S(transposed((3, 4), F32), make((3, 4), F32), 0.5, name="transposed_grad"),
            S(make((3, 4), F32), transposed((3, 4), F64), 0, name="transposed_self"),
            S(make((3, 4), BOOL), make((3, 4), BOOL), 0, name="bool_error"),
            S(make((3, 4), BOOL), make((3, 4), F32), 0, name="bool_grad"),
            S(np.array([-1, 0, 1, 2], np.int64), np.array([-1, 0, 1, 2], np.int64), -0.5,
              name="int64_threshold_cast"),
            S(_SPECIAL.copy(), np.array([-1, 2, 0, 1, -1, 3, 0, 5], np.float32), 0,
              name="nan_grad_below_threshold"),
            S(make((0, 3), F32), make((3,), F32), 0, name="empty_broadcast")]



def _extend(name, more):
    """More samples for an overload registered in opinfo.py (ops this family owns)."""
    base = OPS[name].samples
    OPS[name].samples = lambda: base() + more()


_extend("threshold_backward.default", _threshold_backward_extra)
_extend("clamp.Tensor", lambda: [
    S(make((3, 4), BOOL), make((3, 4), BOOL), None, name="bool"),
    S(make((3, 4), I64), np.array(1.5, F64), None, name="int64_with_0d_float64")])


for _op in ("gelu_backward", "silu_backward", "softplus_backward", "leaky_relu_backward",
            "elu_backward", "hardtanh_backward", "threshold_backward", "sigmoid_backward",
            "tanh_backward"):
    out_of(f"{_op}.grad_input", f"{_op}.default")
