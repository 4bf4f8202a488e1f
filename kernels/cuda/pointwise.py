"""CUDA pointwise kernels: arithmetic, comparisons, logical ops, where, clamp, masked_fill,
lerp/addcmul/addcdiv (ternary.cu), unary math, activations (with parameters: activation.cu)
and their backward. Each runs the Meta kernel first (torch's checks,
the result's shape, strides and dtype), casts the operands to the compute dtype on the device,
and launches elementwise.cu's `<family>_<op>_<dtype>`.

    >>> (ember.ones(2, device="cuda") + 1).cpu()                 # doctest: +SKIP
    tensor([2., 2.])
"""
import numpy as np

from ember.core import dtype as D
from ember.core.tensor import contiguous_strides, make_view
from ember.kernels.common import _pointwise as P
from ember.kernels.cpu.activation import _check_not_bool as check_not_bool
from ember.kernels.cuda import _launch as L
from ember.kernels.meta import activation as MA
from ember.kernels.meta import binary as MB
from ember.kernels.meta import unary as MU

_BOOL_RESULT = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}


def _store(out, name, result_dt, *inputs, scalars=(), module="elementwise"):
    """Runs kernel `name` (which writes `result_dt`) into out, through a temporary when out
    has another dtype (in-place ops whose computation is wider than self)."""
    if out._dtype is result_dt:
        return L.elementwise(name, out, *inputs, scalars=scalars, module=module)
    tmp = L.empty(out._device, out._shape, contiguous_strides(out._shape), result_dt)
    L.elementwise(name, tmp, *inputs, scalars=scalars, module=module)
    return L.elementwise(f"cast_{result_dt.name}_{out._dtype.name}", out, tmp)


def binary(op, out_layout, compute, a, b, alpha=0, out=None):
    """out (new, with out_layout's layout, or given) = op(a, b) computed in dtype `compute`."""
    dev = L.cuda_device(a, b) if out is None else out._device
    if out is None:
        out = L.empty(dev, out_layout._shape, out_layout._stride, out_layout._dtype)
    x, y = L.to_device_dtype(a, compute, dev), L.to_device_dtype(b, compute, dev)
    return _store(out, f"binary_{op}_{compute.name}", D.bool_ if op in _BOOL_RESULT else compute,
                  x, y, scalars=(L.acc_scalar(compute, alpha),))


# --- arithmetic ------------------------------------------------------------------------------
def add(self, other, alpha=1):
    dt = D.result_type(self, other)
    a = P.alpha_value(dt, alpha)
    return binary("add", MB.mul_layout(self, other), dt, self, other, a)


def sub(self, other, alpha=1):
    P.check_bool_sub(self, other)
    dt = D.result_type(self, other)
    a = P.alpha_value(dt, alpha, negate=True)
    return binary("add", MB.mul_layout(self, other), dt, self, other, a)


def rsub(self, other, alpha=1):
    lay = MB.rsub_layout(self, other, alpha)
    return binary("add", lay, lay._dtype, other, self,
                  P.alpha_value(lay._dtype, alpha, negate=True))


def mul(self, other):
    lay = MB.mul_layout(self, other)
    return binary("mul", lay, lay._dtype, self, other)


def div(self, other):
    lay = MB.div_layout(self, other)
    return binary("div", lay, lay._dtype, self, other)


def add_(self, other, alpha=1):
    MB.add_(self, other, alpha)
    dt = D.result_type(self, other)
    return binary("add", None, dt, self, other, P.alpha_value(dt, alpha), out=self)


def sub_(self, other, alpha=1):
    MB.sub_(self, other, alpha)
    dt = D.result_type(self, other)
    return binary("add", None, dt, self, other, P.alpha_value(dt, alpha, negate=True), out=self)


def mul_(self, other):
    MB.mul_(self, other)
    return binary("mul", None, D.result_type(self, other), self, other, out=self)


def div_(self, other):
    MB.div_(self, other)
    return binary("div", None, P.float_result(D.result_type(self, other)), self, other, out=self)


def remainder(self, other):
    """Python's modulo; an integer divisor of 0 gives 0 (torch's CPU raises, its CUDA does
    not check either)."""
    lay = MB.remainder_layout(self, other)
    op = "remainder" if lay._dtype.category == D.FLOAT else "remainder_int"
    return binary(op, lay, lay._dtype, self, other)


def fmod(self, other):
    lay = MB.fmod_layout(self, other)
    op = "fmod" if lay._dtype.category == D.FLOAT else "fmod_int"
    return binary(op, lay, lay._dtype, self, other)


def pow(self, exponent):
    lay = MB.pow_layout(self, exponent)
    if lay._dtype.category == D.FLOAT:
        return binary("pow", lay, lay._dtype, self, exponent)
    compute = D.uint8 if lay._dtype is D.bool_ else lay._dtype   # bool: in uint8, cast back
    return binary("pow_int", lay, compute, self, exponent)


def maximum(self, other):
    lay = MB.promote_layout(self, other)
    return binary("maximum", lay, lay._dtype, self, other)


def minimum(self, other):
    lay = MB.promote_layout(self, other)
    return binary("minimum", lay, lay._dtype, self, other)


def atan2(self, other):
    lay = MB.atan2_layout(self, other)
    return binary("atan2", lay, lay._dtype, self, other)


# --- comparisons and logical ops ---------------------------------------------------------------
def _compare(op):
    def kernel(self, other):
        return binary(op, MB.compare_layout(self, other), D.result_type(self, other), self, other)
    kernel.__name__ = kernel.__qualname__ = op
    kernel.__doc__ = f"{op}(self, other) -> bool tensor."
    return kernel


eq = _compare("eq")
ne = _compare("ne")
lt = _compare("lt")
le = _compare("le")
gt = _compare("gt")
ge = _compare("ge")


def _logical(op):
    def kernel(self, other):
        return binary(op, MB.logical_layout(self, other), D.result_type(self, other), self, other)
    kernel.__name__ = kernel.__qualname__ = op
    return kernel


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")


def _bitwise(op):
    layout = getattr(MB, f"{op}_layout")

    def kernel(self, other):
        lay = layout(self, other)
        return binary(op, lay, lay._dtype, self, other)
    kernel.__name__ = kernel.__qualname__ = op
    return kernel


def _bitwise_(op):
    check = getattr(MB, f"{op}_")

    def kernel(self, other):
        check(self, other)
        return binary(op, None, D.result_type(self, other), self, other, out=self)
    kernel.__name__ = kernel.__qualname__ = op + "_"
    return kernel


bitwise_and = _bitwise("bitwise_and")
bitwise_or = _bitwise("bitwise_or")
bitwise_xor = _bitwise("bitwise_xor")
bitwise_and_ = _bitwise_("bitwise_and")
bitwise_or_ = _bitwise_("bitwise_or")
bitwise_xor_ = _bitwise_("bitwise_xor")


# --- where, clamp, masked_fill -------------------------------------------------------------
def _where_into(out, condition, a, b):
    dev, dt = out._device, out._dtype
    c = L.to_device_dtype(condition, D.bool_, dev)
    x, y = L.to_device_dtype(a, dt, dev), L.to_device_dtype(b, dt, dev)
    return L.elementwise(f"where_{dt.name}", out, c, x, y)


def where(condition, self, other):
    lay = MB.where_layout(condition, self, other)
    out = L.empty(L.cuda_device(condition, self, other), lay._shape, lay._stride, lay._dtype)
    return _where_into(out, condition, self, other)


def _clamp_into(out, self, lo, hi):
    """out = minimum(maximum(self, lo), hi): NaN in self or in a bound propagates (torch)."""
    dt = out._dtype
    src = self
    for op, bound in (("maximum", lo), ("minimum", hi)):
        bound, = P.real_bounds(bound)
        if bound is not None:
            binary(op, None, dt, src, bound, out=out)
            src = out
    if src is self:
        L.elementwise(f"cast_{self._dtype.name}_{dt.name}", out, self)
    return out


def clamp(self, min=None, max=None):
    lay = MB.clamp_layout(self, min, max)
    out = L.empty(L.cuda_device(self, min, max), lay._shape, lay._stride, lay._dtype)
    return _clamp_into(out, self, min, max)


def clamp_tensor(self, min=None, max=None):
    lay = MA.clamp_tensor_layout(self, min, max)
    out = L.empty(L.cuda_device(self, min, max), lay._shape, lay._stride, lay._dtype)
    return _clamp_into(out, self, min, max)


def clamp_(self, min=None, max=None):
    MB.clamp_(self, min, max)
    return _clamp_into(self, self, min, max)


def masked_fill(self, mask, value):
    lay = MB.masked_fill_layout(self, mask, value)
    out = L.empty(L.cuda_device(self, mask), lay._shape, lay._stride, lay._dtype)
    return _where_into(out, mask, P.fill_value(value, lay._dtype), self)


def masked_fill_(self, mask, value):
    MB.masked_fill_(self, mask, value)
    return _where_into(self, mask, P.fill_value(value, self._dtype), self)


# --- lerp, addcmul, addcdiv (ternary.cu) ------------------------------------------------------
def _ternary(op, out, compute, a, b, c, value):
    """out = op(a, b, c, value) computed in dtype `compute` (c None: the op ignores it)."""
    dev = out._device
    x, y = L.to_device_dtype(a, compute, dev), L.to_device_dtype(b, compute, dev)
    z = x if c is None else L.to_device_dtype(c, compute, dev)
    return _store(out, f"ternary_{op}_{compute.name}", compute, x, y, z,
                  scalars=(L.acc_scalar(compute, P.scalar_arg(value, compute)),),
                  module="ternary")


def _new(lay, *tensors):
    return L.empty(L.cuda_device(*tensors), lay._shape, lay._stride, lay._dtype)


def _lerp_into(out, self, end, weight):
    if hasattr(weight, "_dtype"):
        return _ternary("lerp_tensor", out, out._dtype, self, end, weight, 0)
    return _ternary("lerp_scalar", out, out._dtype, self, end, None, weight)


def lerp(self, end, weight):
    return _lerp_into(_new(MB.lerp_layout(self, end, weight), self, end), self, end, weight)


def lerp_(self, end, weight):
    MB.lerp_(self, end, weight)
    return _lerp_into(self, self, end, weight)


def _addc_into(op, out, compute, self, tensor1, tensor2, value):
    name = op if compute.category == D.FLOAT else f"{op}_int"
    return _ternary(name, out, compute, self, tensor1, tensor2, value)


def addcmul(self, tensor1, tensor2, value=1):
    lay = MB.addcmul_layout(self, tensor1, tensor2, value)
    return _addc_into("addcmul", _new(lay, self, tensor1, tensor2), lay._dtype, self, tensor1,
                      tensor2, value)


def addcmul_(self, tensor1, tensor2, value=1):
    MB.addcmul_(self, tensor1, tensor2, value)
    return _addc_into("addcmul", self, MB.addcmul_dtype(self, tensor1, tensor2), self, tensor1,
                      tensor2, value)


def addcdiv(self, tensor1, tensor2, value=1):
    lay = MB.addcdiv_layout(self, tensor1, tensor2, value)
    return _addc_into("addcdiv", _new(lay, self, tensor1, tensor2), lay._dtype, self, tensor1,
                      tensor2, value)


def addcdiv_(self, tensor1, tensor2, value=1):
    MB.addcdiv_(self, tensor1, tensor2, value)
    return _addc_into("addcdiv", self, MB.addcdiv_dtype(self, tensor1, tensor2), self, tensor1,
                      tensor2, value)


# --- unary ---------------------------------------------------------------------------------
def unary(meta_fn, op, int_op=None):
    """A unary kernel: meta_fn gives the result (checks, dtype); the input is cast to it and
    `op` runs (`int_op` for integer and bool results, when they have their own)."""
    def kernel(self):
        m = meta_fn(self)
        out = L.empty_like_meta(m, self._device)
        dt = out._dtype
        name = op if dt.category == D.FLOAT or int_op is None else int_op
        x = L.to_device_dtype(self, dt, self._device)
        return L.elementwise(f"unary_{name}_{dt.name}", out, x)
    kernel.__name__ = kernel.__qualname__ = op
    kernel.__doc__ = f"{op}(self) on the device."
    return kernel


exp = unary(MU.unary_float, "exp")
log = unary(MU.unary_float, "log")
sigmoid = unary(MU.unary_float, "sigmoid")
tanh = unary(MU.unary_float, "tanh")
exp2 = unary(MU.unary_float, "exp2")
expm1 = unary(MU.unary_float, "expm1")
log2 = unary(MU.unary_float, "log2")
log10 = unary(MU.unary_float, "log10")
log1p = unary(MU.unary_float, "log1p")
sqrt = unary(MU.unary_float, "sqrt")
rsqrt = unary(MU.unary_float, "rsqrt")
reciprocal = unary(MU.unary_float, "reciprocal")
sin = unary(MU.unary_float, "sin")
cos = unary(MU.unary_float, "cos")
tan = unary(MU.unary_float, "tan")
asin = unary(MU.unary_float, "asin")
acos = unary(MU.unary_float, "acos")
atan = unary(MU.unary_float, "atan")
sinh = unary(MU.unary_float, "sinh")
cosh = unary(MU.unary_float, "cosh")
erf = unary(MU.unary_float, "erf")
neg = unary(MU.neg, "neg")
abs = unary(MU.abs, "abs")
relu = unary(check_not_bool("relu", MU.unary_same), "relu")
floor = unary(MU.floor, "floor", "positive")
ceil = unary(MU.ceil, "ceil", "positive")
round = unary(MU.round, "round", "positive")
trunc = unary(MU.trunc, "trunc", "positive")
frac = unary(MU.frac, "frac")
silu = unary(MA.silu, "silu")


def sign(self):
    return unary(MU.unary_same, "sign", "positive" if self._dtype is D.bool_ else "sign")(self)


def bitwise_not(self):
    return unary(MU.bitwise_not, "bitwise_not",
                 "logical_not" if self._dtype is D.bool_ else "bitwise_not")(self)


def logical_not(self):
    return unary(MU.unary_bool, "logical_not", "logical_not")(self)


def _complex_parts(self):
    """The real and imaginary parts of a complex tensor, as views of its real dtype."""
    dt, stride = self._dtype.to_real(), tuple(2 * s for s in self.stride())
    return [make_view(self, self._shape, stride, 2 * self._offset + i, dt) for i in (0, 1)]


def _classify(op, float_only_result):
    """isnan / isinf / isfinite: bool results; integers and bool give `float_only_result`;
    a complex element is NaN or infinite where a part is, finite where both are."""
    def kernel(self):
        if self._dtype.is_complex:
            re, im = (kernel(p) for p in _complex_parts(self))
            return (logical_and if op == "isfinite" else logical_or)(re, im)
        out = L.empty_like_meta(MU.unary_bool(self), self._device)
        if self._dtype.category != D.FLOAT:
            return L.fill(out, float_only_result)
        if op == "isnan":   # x != x
            return L.elementwise(f"binary_ne_{self._dtype.name}", out, self, self,
                                 scalars=(L.acc_scalar(self._dtype, 0),))
        return L.elementwise(f"unary_{op}_{self._dtype.name}", out, self)
    kernel.__name__ = kernel.__qualname__ = op
    kernel.__doc__ = f"{op}(self) -> bool tensor."
    return kernel


isnan = _classify("isnan", False)
isinf = _classify("isinf", False)
isfinite = _classify("isfinite", True)


def relu_(self):
    check_not_bool("relu", MU.unary_inplace)(self)
    return L.elementwise(f"unary_relu_{self._dtype.name}", self, self)


# --- activation backward ----------------------------------------------------------------
def sigmoid_backward(grad_output, output):
    m = MA.sigmoid_backward(grad_output, output)
    return binary("sigmoid_backward", m, m._dtype, grad_output, output)


def tanh_backward(grad_output, output):
    m = MA.tanh_backward(grad_output, output)
    return binary("tanh_backward", m, m._dtype, grad_output, output)


def threshold_backward(grad_output, self, threshold):
    m = MA.threshold_backward(grad_output, self, threshold)
    return binary("threshold_backward", m, m._dtype, grad_output, self, threshold)


# --- activations with parameters (activation.cu) ----------------------------------------------
def _act(op, out, x, *params):
    """out = act_<op>(x, params) in out's dtype (params padded to the kernel's three)."""
    dt = out._dtype
    x = L.to_device_dtype(x, dt, out._device)
    scalars = [L.acc_scalar(dt, p) for p in (*params, 0, 0, 0)[:3]]
    return L.elementwise(f"act_{op}_{dt.name}", out, x, scalars=scalars, module="activation")


def _act_backward(op, m, grad_output, x, *params):
    """act_<op>_backward(grad_output, x, params) into a new tensor of the Meta result m."""
    out = L.empty_like_meta(m, grad_output._device)
    dt = out._dtype
    g, x = (L.to_device_dtype(t, dt, out._device) for t in (grad_output, x))
    scalars = [L.acc_scalar(dt, p) for p in (*params, 0, 0, 0)[:3]]
    return L.elementwise(f"act_{op}_backward_{dt.name}", out, g, x, scalars=scalars,
                         module="activation")


def _gelu_op(approximate):
    return "gelu_tanh" if approximate == "tanh" else "gelu"


def gelu(self, approximate="none"):
    return _act(_gelu_op(approximate), L.empty_like_meta(MA.gelu(self, approximate),
                                                         self._device), self)


def gelu_backward(grad_output, self, approximate="none"):
    m = MA.gelu_backward(grad_output, self, approximate)
    return _act_backward(_gelu_op(approximate), m, grad_output, self)


def silu_(self):
    MA.silu_(self)
    return L.elementwise(f"unary_silu_{self._dtype.name}", self, self)


def silu_backward(grad_output, self):
    return _act_backward("silu", MA.silu_backward(grad_output, self), grad_output, self)


def softplus(self, beta=1, threshold=20):
    out = L.empty_like_meta(MA.softplus(self, beta, threshold), self._device)
    return _act("softplus", out, self, *P.opmath_scalars(out._dtype, beta, threshold))


def softplus_backward(grad_output, self, beta, threshold):
    m = MA.softplus_backward(grad_output, self, beta, threshold)
    beta, threshold = P.opmath_scalars(m._dtype, beta, threshold)
    return _act_backward("softplus", m, grad_output, self, beta, threshold)


def _slope(dt, negative_slope):
    return P.scalar_arg(negative_slope, P.opmath_dtype(dt))


def leaky_relu(self, negative_slope=0.01):
    out = L.empty_like_meta(MA.leaky_relu(self, negative_slope), self._device)
    return _act("leaky_relu", out, self, _slope(out._dtype, negative_slope))


def leaky_relu_(self, negative_slope=0.01):
    MA.leaky_relu_(self, negative_slope)
    return _act("leaky_relu", self, self, _slope(self._dtype, negative_slope))


def leaky_relu_backward(grad_output, self, negative_slope, self_is_result):
    m = MA.leaky_relu_backward(grad_output, self, negative_slope, self_is_result)
    return _act_backward("leaky_relu", m, grad_output, self, negative_slope)


def elu(self, alpha=1, scale=1, input_scale=1):
    out = L.empty_like_meta(MA.elu(self, alpha, scale, input_scale), self._device)
    return _act("elu", out, self, *P.opmath_scalars(out._dtype, alpha, scale, input_scale))


def elu_(self, alpha=1, scale=1, input_scale=1):
    MA.elu_(self, alpha, scale, input_scale)
    return _act("elu", self, self, *P.opmath_scalars(self._dtype, alpha, scale, input_scale))


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    m = MA.elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result)
    alpha, scale, input_scale = P.opmath_scalars(m._dtype, alpha, scale, input_scale)
    return _act_backward("elu_result" if is_result else "elu", m, grad_output, self_or_result,
                         alpha * scale, scale, input_scale)


def _hardtanh_into(out, self, min_val, max_val):
    lo, hi = MA.hardtanh_bounds(self, min_val, max_val)
    return _act("hardtanh", out, self, P.scalar_arg(lo, out._dtype), P.scalar_arg(hi, out._dtype))


def hardtanh(self, min_val=-1, max_val=1):
    out = L.empty_like_meta(MA.hardtanh(self, min_val, max_val), self._device)
    return _hardtanh_into(out, self, min_val, max_val)


def hardtanh_(self, min_val=-1, max_val=1):
    MA.hardtanh_(self, min_val, max_val)
    return _hardtanh_into(self, self, min_val, max_val)


def hardtanh_backward(grad_output, self, min_val, max_val):
    m = MA.hardtanh_backward(grad_output, self, min_val, max_val)
    return _act_backward("hardtanh", m, grad_output, self, min_val, max_val)


# --- hardswish / hardsigmoid / mish / hardshrink / softshrink --------------------------------
def hardswish(self):
    return _act("hardswish", L.empty_like_meta(MA.hardswish(self), self._device), self)


def hardswish_(self):
    MA.hardswish_(self)
    return _act("hardswish", self, self)


def hardswish_backward(grad_output, self):
    return _act_backward("hardswish", MA.hardswish_backward(grad_output, self), grad_output, self)


def hardsigmoid(self):
    return _act("hardsigmoid", L.empty_like_meta(MA.hardsigmoid(self), self._device), self)


def hardsigmoid_(self):
    MA.hardsigmoid_(self)
    return _act("hardsigmoid", self, self)


def hardsigmoid_backward(grad_output, self):
    m = MA.hardsigmoid_backward(grad_output, self)
    # (torch's constant is a float's 1.0f / 6.0f, also for double)
    return _act_backward("hardsigmoid", m, grad_output, self, float(np.float32(1 / 6)))


def mish(self):
    return _act("mish", L.empty_like_meta(MA.mish(self), self._device), self)


def mish_(self):
    MA.mish_(self)
    return _act("mish", self, self)


def mish_backward(grad_output, self):
    return _act_backward("mish", MA.mish_backward(grad_output, self), grad_output, self)


def _lambd(lambd, dt):
    return float(P.scalar_arg(lambd, dt))


def hardshrink(self, lambd=0.5):
    out = L.empty_like_meta(MA.hardshrink(self, lambd), self._device)
    return _act("hardshrink", out, self, _lambd(lambd, out._dtype))


def softshrink(self, lambd=0.5):
    out = L.empty_like_meta(MA.softshrink(self, lambd), self._device)
    return _act("softshrink", out, self, *P.opmath_scalars(out._dtype, lambd))


def _shrink_backward(grad_output, self, lambd):
    m = MA.shrink_backward_layout(grad_output, self)
    m = MA._meta(m)
    return _act_backward("shrink", m, grad_output, self, _lambd(lambd, m._dtype))


def hardshrink_backward(grad_out, self, lambd):
    return _shrink_backward(grad_out, self, lambd)


def softshrink_backward(grad_output, self, lambd):
    return _shrink_backward(grad_output, self, lambd)
