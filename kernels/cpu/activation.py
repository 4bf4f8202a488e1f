"""CPU kernels of the activation ops (gelu, silu, softplus, leaky_relu, elu, hardtanh,
threshold, clamp_min/clamp_max and the *_backward helpers their derivatives call), over
NumPy. Layouts, dtypes and errors come from kernels/meta/activation.py; float16 and
bfloat16 compute in float32 like torch's CPU kernels.

    >>> leaky_relu(from_array(np.array([-2.0, 3.0], np.float32)), 0.5).numpy()
    array([-1.,  3.], dtype=float32)
"""
from __future__ import annotations

import math

import numpy as np

from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.factory_args import checked_scalar
from ember.core.tensor import Tensor, contiguous_strides, from_array
from ember.kernels.common import _pointwise as P
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.cpu import _special as special
from ember.kernels.cpu._compiled import compiled
from ember.kernels.cpu._pointwise import _arr, _check_devices, _clamp_into
from ember.kernels.cpu.unary import _unary, _unary_inplace
from ember.kernels.meta import activation as M
from ember.kernels.meta import unary as MU

_HALF = (D.float16, D.bfloat16)
_SQRT_PI = math.sqrt(math.pi)


# --- helpers ------------------------------------------------------------------------------
def _compute_np(dt: D.dtype):
    """The NumPy dtype a result of `dt` is computed in (float32 for float16/bfloat16)."""
    return np.dtype(np.float32) if dt in _HALF else dt.np


def _operand(x, dt, cnp):
    """A tensor's array (or a wrapped Python number) in the compute dtype, cast to the
    result dtype `dt` first as torch's TensorIterator (int32 2**31 - 1 is inf in float16)."""
    a = x._np if isinstance(x, Tensor) else np.asarray(x)
    if a.dtype != dt.np:
        a = a.astype(dt.np)
    return a if a.dtype == cnp else a.astype(cnp)


def _run(layout, fn, *operands):
    """fn over the operands (arrays in the compute dtype), written into a fresh tensor of
    the Meta layout."""
    dt = layout._dtype
    cnp = _compute_np(dt)
    arrays = [_operand(x, dt, cnp) for x in operands]
    with np.errstate(all="ignore"):   # (overflow gives inf like torch, also in the cast)
        r = np.asarray(fn(*arrays))
        if (r.shape == tuple(layout._shape) and r.dtype == dt.np and r.flags.c_contiguous and
                tuple(layout._stride) == contiguous_strides(tuple(layout._shape)) and
                not any(isinstance(a, np.ndarray) and np.may_share_memory(r, a)
                        for a in arrays)):
            return from_array(r, dt)
        out = empty_cpu(layout._shape, dt, layout._stride)
        np.copyto(out._np, r, casting="unsafe")
    return out


def _write_back(self, result):
    """In-place ops: the functional result copied into self."""
    np.copyto(self._np, result._np, casting="unsafe")
    return self


# --- gelu -----------------------------------------------------------------------------------
_K_BETA_TANH = math.sqrt(2) * (2 / _SQRT_PI) * 0.5   # sqrt(2 / pi)
_K_KAPPA = 0.044715
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _gelu_np(approximate):
    def fn(a):
        if approximate == "none" and a.dtype == np.float32:
            return compiled("_activation_loop").gelu(a)
        if approximate == "tanh":
            # float32 in float64, rounded once: 1 + tanh cancels for x below -2, where
            # float32 steps lose ~1e-5 relative (torch's own loses ~1e-5 there too)
            x = a.astype(np.float64) if a.dtype == np.float32 else a
            inner = _K_BETA_TANH * (x + _K_KAPPA * x * x * x)
            return (0.5 * x * (1 + np.tanh(inner))).astype(a.dtype)
        erf = special.erf(a * math.sqrt(0.5))
        return (a * 0.5 * (1 + erf)).astype(a.dtype)
    return fn


def _gelu_backward_np(approximate):
    def fn(g, a):
        if approximate == "none" and g.dtype == a.dtype == np.float32:
            return compiled("_activation_loop").gelu_backward(g, a)
        if approximate == "tanh":
            # in float64, rounded once: below x = -2 the two halves cancel, and float32 steps
            # (torch's too) lose up to ~1e-6 of a result near 1e-5
            out_dtype = np.result_type(g, a)
            a = a.astype(np.float64, copy=False)
            x_sq = a * a
            inner = _K_BETA_TANH * (a + _K_KAPPA * x_sq * a)
            t = np.tanh(inner)
            left_derivative = 0.5 * (1 + t)
            right_derivative = 0.5 * a * (1 - t * t) * _K_BETA_TANH * (1 + 3 * _K_KAPPA * x_sq)
            return (g * (left_derivative + right_derivative)).astype(out_dtype, copy=False)
        # in a's dtype, as torch's kernel (float64 temporaries had cost twice the time)
        cdf = special.erf(a * math.sqrt(0.5))
        cdf += 1
        cdf *= 0.5
        pdf = np.square(a, out=np.empty_like(a))      # (an array also for 0-d a)
        pdf *= -0.5
        np.exp(pdf, out=pdf)
        pdf *= _INV_SQRT_2PI
        pdf *= a
        pdf += cdf
        return (g * pdf).astype(np.result_type(g, a), copy=False)
    return fn


def gelu(self, approximate="none"):
    M.check_approximate(approximate)
    return _run(M.float_unary_layout(self, "GeluKernelImpl"), _gelu_np(approximate), self)


def gelu_backward(grad_output, self, approximate="none"):
    M.check_approximate(approximate)
    layout = M.float_backward_layout(grad_output, self, "GeluBackwardKernelImpl")
    return _run(layout, _gelu_backward_np(approximate), grad_output, self)


# --- silu -----------------------------------------------------------------------------------
def _silu_np(a):
    return a / (1 + np.exp(-a))


def _silu_backward_np(g, a):
    s = 1 / (1 + np.exp(-a))
    return g * s * (1 + a * (1 - s))


def silu(self):
    return _run(M.float_unary_layout(self, "silu_cpu"), _silu_np, self)


def silu_(self):
    return _write_back(self, silu(self))


def silu_backward(grad_output, self):
    layout = M.float_backward_layout(grad_output, self, "silu_backward_cpu")
    return _run(layout, _silu_backward_np, grad_output, self)


# --- softplus -------------------------------------------------------------------------------
def softplus(self, beta=1, threshold=20):
    layout = M.float_unary_layout(self, "softplus_cpu")
    beta, threshold = P.opmath_scalars(layout._dtype, beta, threshold)

    def fn(a):
        xb = a * beta
        return np.where(xb > threshold, a, np.log1p(np.exp(xb)) / beta)
    return _run(layout, fn, self)


def softplus_backward(grad_output, self, beta, threshold):
    layout = M.float_backward_layout(grad_output, self, "softplus_backward_cpu")
    beta, threshold = P.opmath_scalars(layout._dtype, beta, threshold)

    def fn(g, a):
        xb = a * beta
        z = np.exp(xb)
        return np.where(xb > threshold, g, g * z / (z + 1))
    return _run(layout, fn, grad_output, self)


# --- leaky_relu -----------------------------------------------------------------------------
def leaky_relu(self, negative_slope=0.01):
    layout = M.float_unary_layout(self, "leaky_relu_cpu")
    slope = P.scalar_arg(negative_slope, P.opmath_dtype(layout._dtype))

    def fn(a):
        return np.where(a > 0, a, a * slope)
    return _run(layout, fn, self)


def leaky_relu_(self, negative_slope=0.01):
    return _write_back(self, leaky_relu(self, negative_slope))


def leaky_relu_backward(grad_output, self, negative_slope, self_is_result):
    M.check_inplace_negative_slope(self_is_result, negative_slope, "leakyReLu")
    layout = M.float_backward_layout(grad_output, self, "leaky_relu_backward_cpu", True)
    if isinstance(negative_slope, complex):     # (torch's to<scalar_t>: no imaginary part)
        negative_slope, = P.opmath_scalars(layout._dtype, negative_slope)

    def fn(g, a):
        return np.where(a > 0, g, g * negative_slope)
    return _run(layout, fn, grad_output, self)


# --- elu ------------------------------------------------------------------------------------
def elu(self, alpha=1, scale=1, input_scale=1):
    layout = M.float_unary_layout(self, "elu_cpu")
    alpha, scale, input_scale = P.opmath_scalars(layout._dtype, alpha, scale, input_scale)

    def fn(a):
        # (x = 0 takes x * scale: torch's elu(0) is 0 even for a NaN alpha or input_scale)
        return np.where(a < 0, np.expm1(a * input_scale) * (alpha * scale), a * scale)
    return _run(layout, fn, self)


def elu_(self, alpha=1, scale=1, input_scale=1):
    return _write_back(self, elu(self, alpha, scale, input_scale))


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    M.check_inplace_negative_slope(is_result, alpha, "elu")
    layout = M.float_backward_layout(grad_output, self_or_result, "elu_backward_cpu")
    alpha, scale, input_scale = P.opmath_scalars(layout._dtype, alpha, scale, input_scale)
    negcoef = alpha * scale

    def fn(g, x):
        if is_result:
            neg = g * input_scale * (x + negcoef)
        else:
            neg = g * input_scale * negcoef * np.exp(x * input_scale)
        return np.where(x <= 0, neg, g * scale)
    return _run(layout, fn, grad_output, self_or_result)


# --- hardtanh -------------------------------------------------------------------------------
def hardtanh(self, min_val=-1, max_val=1):
    layout = M.hardtanh_layout(self)
    lo, hi = M.hardtanh_bounds(self, min_val, max_val)
    lo, hi = P.scalar_arg(lo, layout._dtype), P.scalar_arg(hi, layout._dtype)

    def fn(a):
        return np.minimum(np.maximum(a, lo), hi)
    return _run(layout, fn, self)


def hardtanh_(self, min_val=-1, max_val=1):
    return _write_back(self, hardtanh(self, min_val, max_val))


def hardtanh_backward(grad_output, self, min_val, max_val):
    def fn(g, a):
        return np.where((a <= min_val) | (a >= max_val), np.zeros((), g.dtype), g)
    layout = M.float_backward_layout(grad_output, self, "hardshrink_backward_cpu")
    return _run(layout, fn, grad_output, self)


# --- threshold ------------------------------------------------------------------------------
def _threshold(self, thr, value):
    layout = M.threshold_layout(self)
    dt = layout._dtype
    thr, value = P.scalar_arg(thr, P.opmath_dtype(dt)), P.scalar_arg(value, dt)

    def fn(a):
        return np.where(a <= thr, value, a)
    return _run(layout, fn, self)


def threshold(self, threshold, value):
    return _threshold(self, threshold, value)


def threshold_(self, threshold, value):
    return _write_back(self, _threshold(self, threshold, value))


# --- sigmoid / tanh backward ----------------------------------------------------------------
def sigmoid_backward(grad_output, output):
    def fn(g, y):
        return g * np.conjugate((1 - y) * y)
    layout = M.float_backward_layout(grad_output, output, "sigmoid_backward_cpu", complex_ok=True)
    return _run(layout, fn, grad_output, output)


def tanh_backward(grad_output, output):
    def fn(g, y):
        return g * np.conjugate(1 - y * y)
    layout = M.float_backward_layout(grad_output, output, "tanh_backward_cpu", complex_ok=True)
    return _run(layout, fn, grad_output, output)


# --- clamp_min / clamp_max / clamp.Tensor ---------------------------------------------------
def _clamp_bound(self, bound, name, ufunc):
    layout = M.clamp_bound_layout(self, bound, name)
    _check_devices(self, *P.tensors_of(bound))
    dt = layout._dtype
    out = empty_cpu(layout._shape, dt, layout._stride)
    ufunc(_arr(self, dt), _arr(P.scalar_arg(bound, dt), dt), out=out._np, casting="unsafe")
    return out


def _clamp_bound_(self, bound, name, ufunc):
    """clamp_min_ / clamp_max_ with a number (not derived: torch's cast error names self's
    dtype in C++, like clamp_'s)."""
    dt = M.check_bound_inplace(self, bound, name)
    r = ufunc(_arr(self, dt), _arr(P.scalar_arg(bound, dt), dt))
    np.copyto(self._np, r, casting="unsafe")
    return self


def clamp_min(self, min):
    return _clamp_bound(self, min, "clamp_min", np.maximum)


def clamp_max(self, max):
    return _clamp_bound(self, max, "clamp_max", np.minimum)


def clamp_min_(self, min):
    return _clamp_bound_(self, min, "clamp_min", np.maximum)


def clamp_max_(self, max):
    return _clamp_bound_(self, max, "clamp_max", np.minimum)


def clamp_tensor(self, min=None, max=None):
    layout = M.clamp_tensor_layout(self, min, max)
    _check_devices(self, *P.tensors_of(min, max))
    if layout._dtype is D.bool_ and min is not None and max is not None:
        # (one bound alone is torch's clamp_min/clamp_max, which have bool loops; Meta allows it)
        raise not_implemented_for("clamp_cpu", D.bool_)
    out = empty_cpu(layout._shape, layout._dtype, layout._stride)
    _clamp_into(out._np, _arr(self, layout._dtype), min, max, layout._dtype)
    return out


# --- relu and its backward -------------------------------------------------------------
def _relu(a):
    """max(a, 0) keeping -0.0 and NaN, as torch's clamp_min(a, 0) (np.maximum gives 0.0
    for -0.0)."""
    if a.dtype.kind == "f":
        return np.where(a < 0, a.dtype.type(0), a)
    return np.maximum(a, 0, dtype=a.dtype)


def _check_not_bool(name, meta):
    def checked(self):
        if self._dtype is D.bool_:
            raise RuntimeError(f"Boolean inputs not supported for {name}")
        return meta(self)
    return checked


_relu_unary = _unary(_relu, _check_not_bool("relu", MU.same_layout), half_in_float=False)


def relu(self):
    """max(self, 0); C-contiguous float32/float64 tensors take one compiled pass
    (_activation_loop.relu), the rest the NumPy kernel. -0.0 and NaN stay, as in torch.

    >>> relu(from_array(np.array([-1., -0., 2.])))
    tensor([0., -0., 2.], dtype=ember.float64)
    """
    a = self._np
    dt = self._dtype
    if (dt is D.float32 or dt is D.float64) and a is not None and a.flags.c_contiguous:
        return from_array(compiled("_activation_loop").relu(a), dt)
    return _relu_unary(self)


relu_ = _unary_inplace(relu, _check_not_bool("relu", MU.unary_inplace))


def threshold_backward(grad_output, self, threshold):
    """relu's backward: grad_output where self > threshold, else 0 (also for NaN grads).

    >>> threshold_backward(from_array(np.ones(2)), from_array(np.array([-1., 2.])), 0)
    tensor([0., 1.], dtype=ember.float64)
    """
    if isinstance(threshold, complex):     # (threshold's complex parameter, imaginary part 0)
        threshold = checked_scalar(threshold, P.opmath_dtype(self._dtype))
    g, x = grad_output._np, self._np
    # (a C-contiguous self gives a C-contiguous result whatever the gradient's strides:
    # torch's TensorIterator lays the output out like self, its first operand)
    if grad_output._dtype is self._dtype and self._dtype in (D.float32, D.float64) and \
            g is not None and x is not None and g.shape == x.shape and x.flags.c_contiguous:
        return from_array(compiled("_activation_loop").zero_where_at_most(g, x, threshold),
                          self._dtype)
    layout = M.threshold_backward_layout(grad_output, self)
    dt = layout._dtype
    g, x = _arr(grad_output, dt), _arr(self, dt)
    thr = np.asarray(threshold).astype(dt.np)[()] if dt.category == D.INT else threshold
    r = np.where(x <= thr, np.zeros((), dt.np), g)
    if r.shape == layout._shape and layout._stride == _np_contiguous(r):
        return from_array(r, dt)
    out = empty_cpu(layout._shape, dt, layout._stride)
    np.copyto(out._np, r)
    return out


def _np_contiguous(a) -> tuple:
    return tuple(s // a.itemsize for s in a.strides) if a.flags.c_contiguous else ()


# --- hardswish / hardsigmoid ----------------------------------------------------------------
def _relu6_of_shifted(a):
    """min(max(x + 3, 0), 6): the shared part of hardswish and hardsigmoid (NaN stays NaN)."""
    return np.minimum(np.maximum(a + 3, 0), 6)


def hardswish(self):
    return _run(M.float_unary_layout(self, "hardswish_cpu"),
                lambda a: a * _relu6_of_shifted(a) / 6, self)


def hardswish_(self):
    return _write_back(self, hardswish(self))


def _hardswish_backward_np(g, a):
    # (torch's kernel: 0 up to -3, grad * (x / 3 + 1/2) inside (-3, 3), grad from 3 on and
    # for NaN x)
    return np.where(a <= -3, np.zeros((), g.dtype), np.where(a < 3, g * (a / 3 + 0.5), g))


def hardswish_backward(grad_output, self):
    layout = M.float_backward_layout(grad_output, self, "hardswish_backward_cpu")
    return _run(layout, _hardswish_backward_np, grad_output, self)


def hardsigmoid(self):
    return _run(M.float_unary_layout(self, "hardsigmoid_cpu"),
                lambda a: _relu6_of_shifted(a) / 6, self)


def hardsigmoid_(self):
    return _write_back(self, hardsigmoid(self))


def hardsigmoid_backward(grad_output, self):
    layout = M.float_backward_layout(grad_output, self, "hardsigmoid_backward")
    one_sixth = float(np.float32(1 / 6))     # (torch's constant is a float's 1.0f / 6.0f)

    def fn(g, a):
        return np.where((a > -3) & (a < 3), g * one_sixth, np.zeros((), g.dtype))
    return _run(layout, fn, grad_output, self)


# --- mish -----------------------------------------------------------------------------------
def _mish_np(a):
    return a * np.tanh(np.log1p(np.exp(a)))


def _mish_backward_np(g, a):
    sigmoid = 1 / (1 + np.exp(-a))
    tanh_softplus = np.tanh(np.log1p(np.exp(a)))
    return g * (tanh_softplus + a * sigmoid * (1 - tanh_softplus * tanh_softplus))


def mish(self):
    return _run(M.float_unary_layout(self, "mish_cpu"), _mish_np, self)


def mish_(self):
    return _write_back(self, mish(self))


def mish_backward(grad_output, self):
    layout = M.mish_backward_layout(grad_output, self)
    common = D.result_type(grad_output, self)     # (computed in it, then cast to self's)
    cnp = _compute_np(common)
    with np.errstate(all="ignore"):
        r = _mish_backward_np(_operand(grad_output, common, cnp), _operand(self, common, cnp))
        r = r.astype(common.np, copy=False)      # (rounded to it, then cast to self's dtype)
    return _run(layout, lambda _: r, self)


# --- hardshrink / softshrink ----------------------------------------------------------------
def _lambd(lambd, dt):
    """A shrink's lambd as torch's kernels read it: converted (checked) to the tensor dtype,
    then compared in the compute dtype."""
    return float(P.scalar_arg(lambd, dt))


def hardshrink(self, lambd=0.5):
    layout = M.float_unary_layout(self, "hardshrink_cpu")
    lambd = _lambd(lambd, layout._dtype)

    def fn(a):
        return np.where((a >= -lambd) & (a <= lambd), np.zeros((), a.dtype), a)
    return _run(layout, fn, self)


def _shrink_backward(grad_output, self, lambd):
    layout = M.shrink_backward_layout(grad_output, self)
    lambd = _lambd(lambd, layout._dtype)

    def fn(g, a):
        return np.where((a >= -lambd) & (a <= lambd), np.zeros((), g.dtype), g)
    return _run(layout, fn, grad_output, self)


def hardshrink_backward(grad_out, self, lambd):
    return _shrink_backward(grad_out, self, lambd)


def softshrink(self, lambd=0.5):
    layout = M.softshrink_layout(self, lambd)
    lambd = P.opmath_scalars(layout._dtype, lambd)[0]

    def fn(a):
        # x - clamp(x, -lambd, lambd): x - lambd above, x + lambd below, 0 between, NaN for
        # NaN (one clip and one subtraction instead of torch's branches)
        return np.subtract(a, np.clip(a, -lambd, lambd), dtype=a.dtype)
    return _run(layout, fn, self)


def softshrink_backward(grad_output, self, lambd):
    return _shrink_backward(grad_output, self, lambd)


# --- glu ------------------------------------------------------------------------------------
def _halves(a, dim):
    n = a.shape[dim] // 2
    return np.split(a, [n], axis=dim)


def glu(self, dim=-1):
    """a * sigmoid(b) for self's halves a, b along dim."""
    layout = M.glu_layout(self, dim)
    dim = M.glu_dim(self, dim)

    def fn(x):
        a, b = _halves(x, dim)
        return a / (1 + np.exp(-b))
    return _run(layout, fn, self)


def glu_backward(grad_output, self, dim):
    """(sigmoid(b) * grad, a * sigmoid(b) * (1 - sigmoid(b)) * grad), joined along dim."""
    layout = M.glu_backward_layout(grad_output, self, dim)
    dim = M.glu_dim(self, dim)

    def fn(g, x):
        a, b = _halves(x, dim)
        sig_b = 1 / (1 + np.exp(-b))
        grad_a = sig_b * g
        return np.concatenate([grad_a, grad_a * a * (1 - sig_b)], axis=dim)
    return _run(layout, fn, grad_output, self)


# --- log_sigmoid ----------------------------------------------------------------------------
def log_sigmoid_forward(self):
    """(log(sigmoid(x)), buffer exp(-|x|)) as torch's CPU kernel: min(x, 0) - log1p(buffer)."""
    layout = M.log_sigmoid_forward_layout(self)
    buffer = _run(layout, lambda a: np.exp(-np.abs(a)), self)
    output = _run(layout, lambda a, z: np.minimum(a, 0) - np.log1p(z), self, buffer)
    return output, buffer


def log_sigmoid_backward(grad_output, self, buffer):
    """grad * (1[x < 0] - sign * z / (1 + z)), sign = 1 for x < 0 else -1, z the buffer."""
    layout = M.log_sigmoid_backward_layout(grad_output, self, buffer)

    def fn(x, z, g):
        z_ratio = z / (1 + z)
        return np.where(x < 0, 1 - z_ratio, z_ratio) * g
    return _run(layout, fn, self, buffer, grad_output)


# --- prelu's kernel -------------------------------------------------------------------------
def prelu_kernel(self, weight):
    """self where self > 0, weight * self elsewhere (weight broadcast against self)."""
    layout = M.prelu_layout(self, weight)
    return _run(layout, lambda x, w: np.where(x > 0, x, w * x), self, weight)


def prelu_kernel_backward(grad_output, self, weight):
    """(grad where self > 0 else weight * grad, self * grad where self <= 0 else 0), both
    of the broadcast shape (autograd sums the second to weight's)."""
    layout = M.prelu_kernel_backward_layout(grad_output, self, weight)
    grad_self = _run(layout, lambda x, w, g: np.where(x > 0, g, w * g), self, weight,
                     grad_output)
    grad_weight = _run(layout, lambda x, g: np.where(x > 0, np.zeros((), g.dtype), x * g),
                       self, grad_output)
    return grad_self, grad_weight


# --- rrelu_with_noise -----------------------------------------------------------------------
def _rrelu_train_np(x, lower, upper, rng):
    """(output, noise): a slope drawn from U(lower, upper) for each x <= 0, 1 elsewhere."""
    negative = x <= 0
    noise = np.ones_like(x)
    noise[negative] = rng.uniform(lower, upper, int(negative.sum()))
    return x * noise, noise


def _rrelu_with_noise(self, noise, lower, upper, training, generator):
    M.check_rrelu(self, noise, lower, upper, training)
    if not training:
        return leaky_relu(self, (lower + upper) / 2)
    from ember.kernels.cpu.random import rng_of
    layout = M.float_unary_layout(self, "rrelu_with_noise_out_cpu")
    cnp = _compute_np(layout._dtype)
    out, slopes = _rrelu_train_np(_operand(self, layout._dtype, cnp), float(lower),
                                  float(upper), rng_of(generator))
    np.copyto(noise._np, slopes, casting="unsafe")
    return _run(layout, lambda _: out, self)


def rrelu_with_noise(self, noise, lower=0.125, upper=1 / 3, training=False, generator=None):
    """leaky_relu with the mean slope (lower + upper) / 2 in eval; in training a random
    slope per element <= 0, written into noise (1 for the others)."""
    return _rrelu_with_noise(self, noise, lower, upper, training, generator)


def rrelu_with_noise_(self, noise, lower=0.125, upper=1 / 3, training=False, generator=None):
    return _write_back(self, _rrelu_with_noise(self, noise, lower, upper, training, generator))
