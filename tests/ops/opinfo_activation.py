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
    own_rng,
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


def _float_unary(name, params=(), *, inplace=True, out=True, extra=(), tols=None, rng=None):
    """gelu-like ops: a dtype sweep (integral/bool inputs must raise) with each parameter
    set of `params` ((args, kwargs, label) triples), special values, and `extra`; `tols`:
    the allowed errors per dtype, where they differ from helpers.ULPS; `rng`: a generator of
    the op's own (its values then stay as they are when other samples are added)."""
    params = params or (((), {}, ""),)
    mk = {} if rng is None else {"rng": rng}

    def samples(inplace_=False):
        def make_samples():
            out_ = []
            for args, kwargs, label in params:
                if inplace_ and label.startswith("negative"):
                    continue   # torch's in-place backward refuses negative slopes
                for s in _with(unary_samples(inplace=inplace_, **mk), *args, **kwargs):
                    s.name = f"{s.name}_{label}" if label else s.name
                    out_.append(s)
            args, kwargs, _ = params[0]
            out_.append(S(_SPECIAL.copy(), *args, name="special_values", **kwargs))
            if not inplace_:
                out_ += [s() for s in extra]
            return out_
        return make_samples

    kw = {} if tols is None else {"tols": tols}
    register(f"{name}.default", samples(), **kw)
    if out:
        out_of(f"{name}.out", f"{name}.default")
    if inplace:
        register(f"{name}_.default", samples(True), **kw)


# ---- gelu / silu / softplus / leaky_relu / elu ---------------------------------------------
# (torch's float32 tanh approximation cancels in 1 + tanh below x = -2: ~1e-5 relative,
# ~55 eps at x = -2.88, where ember computes in float64; further down, thousands of eps: a
# 0-d sample at -3.5 was 2e-4 off. Its own generator keeps its values above that.)
_float_unary("gelu", (((), {}, ""), ((), {"approximate": "tanh"}, "tanh")),
             extra=(lambda: S(make((3, 4), F32), approximate="foo", name="bad_approximate_error"),),
             tols={"float32": 64}, rng=own_rng(41))
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
def _backward_samples(arrange, *, broadcast=True, promote=True, rng=None):
    """(grad_output, input) pairs: a dtype sweep (integral/bool must raise), 0-d, empty,
    non-contiguous, promotion and broadcasting; `arrange(g, x)` -> the op's args. `rng`:
    a generator of the op's own (samples added after others)."""
    def samples():
        mk = {"rng": rng} if rng is not None else {}
        out = [S(*arrange(make((3, 4), dt, **mk), make((3, 4), dt, **mk)), name=dtname(dt))
               for dt in ALL]
        out += [S(*arrange(make((), F32, **mk), make((), F32, **mk)), name="0d"),
                S(*arrange(make((0, 3), F64, **mk), make((0, 3), F64, **mk)), name="empty"),
                S(*arrange(transposed((3, 4), F32, **mk), strided((3, 4), F32, **mk)),
                  name="noncontiguous"),
                S(*arrange(make((3, 4), F32, **mk), make((3, 4), F32, low=-1, high=1, **mk)),
                  name="small_inputs")]
        if promote:
            out.append(S(*arrange(make((3, 4), F32, **mk), make((3, 4), F64, **mk)),
                         name="float32_float64"))
            out.append(S(*arrange(make((3, 4), F32, **mk), make((3, 4), I64, **mk)),
                         name="float32_int64"))
        if broadcast:
            out.append(S(*arrange(make((3, 4), F32, **mk), make((4,), F32, **mk)),
                         name="broadcast_input"))
            out.append(S(*arrange(make((4,), F32, **mk), make((3, 4), F32, **mk)),
                         name="broadcast_grad"))
            out.append(S(*arrange(make((3, 4), F32, **mk), make((4, 3), F32, **mk)),
                         name="shape_error"))
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



# ---- hardswish / hardsigmoid / mish / hardshrink / softshrink / glu / log_sigmoid / celu /
# selu / relu6 / prelu / rrelu: their samples draw from a generator of their own (the
# samples above keep their data)
_R = own_rng(33)
# the kinks of the hard* ops (+-3) and shrink's default lambd (+-0.5) among special values
_KINKS = np.array([np.nan, 0.0, -0.0, 3.0, -3.0, 0.5, -0.5, 30.0, -30.0, 2.0, -4.0],
                  np.float32)


def _mk(shape, dtype=F32, **kw):
    return make(shape, dtype, rng=_R, **kw)


def _own_unary(*args, inplace=False, extra=(), **kwargs):
    """unary_samples (dtype sweep, 0-d, empty, non-contiguous) with trailing args, the kinks,
    and `extra` samples."""
    def samples():
        out = _with(unary_samples(inplace=inplace, rng=_R), *args, **kwargs)
        out.append(S(_KINKS.copy(), *args, name="special_values", **kwargs))
        return out + [e() for e in extra]
    return samples


for _op in ("hardswish", "hardsigmoid", "mish"):
    register(f"{_op}.default", _own_unary())
    out_of(f"{_op}.out", f"{_op}.default")
    register(f"{_op}_.default", _own_unary(inplace=True))

register("hardshrink.default", lambda: _own_unary()() + _own_unary(1.5)()[:8] + [
    S(_KINKS.copy(), 0.0, name="zero_lambd"), S(_KINKS.copy(), -1.0, name="negative_lambd"),
    S(_mk((3, 4), F16), 1e6, name="float16_lambd_overflow_error")])
out_of("hardshrink.out", "hardshrink.default")
register("softshrink.default", lambda: _own_unary()() + _own_unary(1.5)()[:8] + [
    S(_KINKS.copy(), 0.0, name="zero_lambd"), S(_KINKS.copy(), -1.0, name="negative_lambd_error"),
    S(_mk((3, 4), F16), 7e4, name="float16_lambd_above_max_error")])
out_of("softshrink.out", "softshrink.default")

register("hardswish_backward.default", _backward_samples(_gx(), rng=_R))
out_of("hardswish_backward.out", "hardswish_backward.default")
register("hardsigmoid_backward.default", _backward_samples(_gx(), rng=_R))
register("mish_backward.default", _backward_samples(_gx(), rng=_R))
for _op in ("hardshrink_backward", "softshrink_backward"):
    register(f"{_op}.default", lambda: _backward_samples(_gx(0.5), rng=_R)() + [
        S(_mk((11,), F32), _KINKS.copy(), 0.5, name="at_lambd"),
        S(_mk((3, 4), F32), _mk((3, 4), F32), 2.5, name="lambd")])
for _op in ("hardsigmoid_backward", "hardshrink_backward", "softshrink_backward"):
    out_of(f"{_op}.grad_input", f"{_op}.default")


# ---- glu -------------------------------------------------------------------------------------
def _glu_samples():
    out = [S(_mk((4, 6), dt), name=dtname(dt)) for dt in ALL]
    return out + [
        S(_mk((4, 6), F32), 0, name="dim0"), S(_mk((2, 4, 3), F64), 1, name="dim1"),
        S(transposed((4, 6), F32, rng=_R), 0, name="transposed"),
        S(_mk((2, 0), F32), name="empty"), S(_mk((4,), F32), name="1d"),
        S(_mk((), F32), 0, name="0d_error"), S(_mk((3, 3), F32), 0, name="odd_error"),
        S(_mk((4, 4), F32), 3, name="dim_error")]


register("glu.default", _glu_samples)
out_of("glu.out", "glu.default")


def _glu_backward_samples():
    out = [S(_mk((4, 3), dt), _mk((4, 6), dt), -1, name=dtname(dt)) for dt in ALL]
    return out + [
        S(_mk((2, 6), F32), _mk((4, 6), F32), 0, name="dim0"),
        S(_mk((2, 2, 3), F64), _mk((2, 4, 3), F64), 1, name="dim1"),
        S(_mk((4, 3), F32), transposed((4, 6), F32, rng=_R), -1, name="transposed_self"),
        S(_mk((4, 3), F32), _mk((4, 6), F64), -1, name="float32_grad_float64_self_error"),
        S(_mk((2, 3), F32), _mk((2, 4), F32), 1, name="shape_error")]


register("glu_backward.default", _glu_backward_samples)
# (errors=False: torch checks a grad_input= of another dtype first, against its dtype)
out_of("glu_backward.grad_input", "glu_backward.default", errors=False)


# ---- log_sigmoid -----------------------------------------------------------------------------
register("log_sigmoid.default", _own_unary())
out_of("log_sigmoid.out", "log_sigmoid.default")
register("log_sigmoid_forward.default", _own_unary())
out_of("log_sigmoid_forward.output", "log_sigmoid_forward.default")


def _buffer(x):
    return np.asarray(np.exp(-np.abs(x))).astype(x.dtype) if x.dtype.kind == "f" else x


def _log_sigmoid_backward_samples():
    out = []
    for dt in ALL:
        x = _mk((3, 4), dt)
        out.append(S(_mk((3, 4), dt), x, _buffer(x), name=dtname(dt)))
    x = _mk((3, 4), F64)
    return out + [
        S(_mk((3, 4), F32), x, _buffer(x), name="float32_grad_float64_self"),
        S(_mk((4,), F32), _KINKS[:4].copy(), _buffer(_KINKS[:4]), name="special_values"),
        S(_mk((), F32), np.array(-1.5, F32), _buffer(np.array(-1.5, F32)), name="0d")]


register("log_sigmoid_backward.default", _log_sigmoid_backward_samples)
out_of("log_sigmoid_backward.grad_input", "log_sigmoid_backward.default")


# ---- celu / selu / relu6 -----------------------------------------------------------------------
def _celu_samples(inplace=False):
    def samples():
        out = _own_unary(inplace=inplace)() + _own_unary(0.5, inplace=inplace)()[:8]
        out += [S(_mk((3, 4), F32), 0, name="zero_alpha_error")]
        if not inplace:
            out.append(S(_mk((3, 4), F64), -1.5, name="negative_alpha"))
        return out
    return samples


register("celu.default", _celu_samples())
out_of("celu.out", "celu.default")
register("celu_.default", _celu_samples(True))
register("selu.default", _own_unary())
register("selu_.default", _own_unary(inplace=True))
register("relu6.default", _own_unary())
register("relu6_.default", _own_unary(inplace=True))


# ---- prelu -----------------------------------------------------------------------------------
def _prelu_samples():
    out = [S(_mk((2, 3, 4), dt), _mk((3,), dt), name=dtname(dt)) for dt in ALL]
    return out + [
        S(_mk((3, 4), F32), _mk((1,), F32), name="one_weight"),
        S(_mk((5,), F64), _mk((1,), F64), name="1d_input"),
        S(_mk((4,), F32), _mk((4,), F32, low=1), name="1d_input_weight_error"),
        S(_mk((), F32), _mk((1,), F32), name="0d_input"),
        S(_mk((), F32), _mk((), F32), name="0d_input_0d_weight"),
        S(transposed((3, 4), F32, rng=_R), _mk((4,), F32), name="transposed"),
        S(_mk((2, 3, 4), F32), _mk((3,), F64), name="promote_error"),
        S(_mk((2, 3), F32), _mk((2,), F32), name="channel_mismatch_error"),
        S(_mk((), F32), _mk((2,), F32), name="0d_input_two_weights_error"),
        S(_mk((2, 4), F32), _mk((1, 1), F32), name="2d_weight_error"),
        S(_KINKS.copy(), _mk((1,), F32), name="special_values")]


register("prelu.default", _prelu_samples)


def _prelu_kernel_samples():
    out = [S(_mk((2, 3, 4), dt), _mk((1, 3, 1), dt), name=dtname(dt)) for dt in ALL]
    return out + [S(_mk((3, 4), F32), _mk((4,), F32), name="broadcast"),
                  S(transposed((3, 4), F32, rng=_R), _mk((1, 4), F32), name="transposed"),
                  S(_mk((3, 4), F32), _mk((4,), F64), name="promote_error")]


register("_prelu_kernel.default", _prelu_kernel_samples)


def _prelu_kernel_backward_samples():
    out = [S(_mk((2, 3, 4), dt), _mk((2, 3, 4), dt), _mk((1, 3, 1), dt), name=dtname(dt))
           for dt in ALL]
    return out + [
        S(_mk((3, 4), F32), _mk((3, 4), F32), _mk((1,), F32), name="one_weight"),
        S(_mk((3, 4), F64), transposed((3, 4), F64, rng=_R), _mk((4,), F64),
          name="transposed_self"),
        S(_mk((3, 4), F32), _mk((3, 4), F32), _mk((4,), F64), name="promote_error")]


register("_prelu_kernel_backward.default", _prelu_kernel_backward_samples)


# ---- rrelu (eval: deterministic; training draws from the generator, tests/ops/
# test_activation_ops.py checks its distribution) -------------------------------------------
def _rrelu_samples(noise=False, inplace=False):
    def with_noise(x):
        return (x, np.zeros(np.shape(x.base if hasattr(x, "base") else x), F32)) \
            if noise else (x,)

    def samples():
        out = [S(*with_noise(s.args[0]), 0.1, 0.3, name=s.name)
               for s in unary_samples(inplace=inplace, rng=_R)
               if isinstance(s.args[0], np.ndarray) and s.args[0].dtype == F32 or
               s.name in ("bool", "int64")]
        out += [S(*with_noise(_KINKS.copy()), name="special_values_defaults"),
                S(*with_noise(_mk((3, 4), F32)), 0.5, 0.1, name="lower_above_upper_error"),
                S(*with_noise(_mk((3, 4), F32)), 0.5, 0.1, True,
                  name="lower_above_upper_training_error")]
        return out
    return samples


register("rrelu.default", _rrelu_samples())
register("rrelu_.default", _rrelu_samples(inplace=True))
register("rrelu_with_noise.default", _rrelu_samples(noise=True))
register("rrelu_with_noise_.default", _rrelu_samples(noise=True, inplace=True))
register("rrelu_with_noise_functional.default", _rrelu_samples(noise=True))
out_of("rrelu_with_noise.out", "rrelu_with_noise.default", errors=False)


def _rrelu_backward_samples():
    x, g = _mk((3, 4), F32), _mk((3, 4), F32)
    noise = np.where(x <= 0, _mk((3, 4), F32, low=0.1, high=0.3), 1).astype(F32)
    return [S(g, x, noise, 0.1, 0.3, True, False, name="training"),
            S(g, x, noise, 0.1, 0.3, False, False, name="eval"),
            S(g, x, noise, 0.2, 0.2, True, False, name="training_empty_range"),
            S(g, x, noise, 0.1, 0.3, False, True, name="eval_self_is_result"),
            S(_mk((3, 4), F64), _mk((3, 4), F64), noise.astype(F64), 0.1, 0.3, True, False,
              name="float64"),
            S(_mk((3, 4), I64), _mk((3, 4), I64), _mk((3, 4), I64), 0.1, 0.3, False, False,
              name="int64_eval_error")]


register("rrelu_with_noise_backward.default", _rrelu_backward_samples)
out_of("rrelu_with_noise_backward.out", "rrelu_with_noise_backward.default")
