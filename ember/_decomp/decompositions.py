"""The decompositions themselves (torch/_decomp/decompositions.py's formulas, written
with ember's aten overloads). Each computes its op's result (values and dtype) from ops
nearer the core opset; tests/decomp checks every one against its op on the op's samples,
forward and backward.
"""
from __future__ import annotations

import functools
import math

import numpy as np

import ember
from ember.dispatch.dispatcher import ops

from . import register_decomposition

aten = ops.aten
MEAN, SUM = 1, 2        # reduction= values (none is 0)


def _reduce(loss, reduction):
    if reduction == MEAN:
        return aten.mean.default(loss)
    if reduction == SUM:
        return aten.sum.default(loss)
    return loss


def _opmath(fn):
    """torch's pw_cast_for_opmath: float16/bfloat16 tensors are computed in float32 and
    the result cast back to the inputs' promoted dtype (as the op's kernel does)."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        tensors = [a for a in args if isinstance(a, ember.Tensor)]
        dt = functools.reduce(ember.promote_types, [t.dtype for t in tensors])
        if dt not in (ember.float16, ember.bfloat16):
            return fn(*args, **kwargs)
        up = [aten._to_copy.default(a, dtype=ember.float32) if isinstance(a, ember.Tensor)
              and a.dtype in (ember.float16, ember.bfloat16) else a for a in args]
        return aten._to_copy.default(fn(*up, **kwargs), dtype=dt)
    return run


def _scalar_like(x, value):
    """A 0-d tensor of x's dtype and device holding `value`."""
    return aten.scalar_tensor.default(value, dtype=x.dtype, device=x.device)


# --- activations ---------------------------------------------------------------------------------
@register_decomposition(aten.silu.default)
@_opmath
def silu(self):
    return aten.mul.Tensor(self, aten.sigmoid.default(self))


@register_decomposition(aten.softplus.default)
@_opmath
def softplus(self, beta=1, threshold=20):
    scaled = aten.mul.Tensor(self, beta)
    soft = aten.div.Tensor(aten.log1p.default(aten.exp.default(scaled)), beta)
    return aten.where.self(aten.gt.Scalar(scaled, threshold), self, soft)


# --- their backward ops ---------------------------------------------------------------------------
def _promoted(grad_output, self):
    """grad_output in the dtype the backward op returns (its inputs' promoted one)."""
    dt = ember.promote_types(grad_output.dtype, self.dtype)
    return grad_output if dt is grad_output.dtype else aten._to_copy.default(grad_output,
                                                                            dtype=dt)


@register_decomposition(aten.threshold_backward.default)
def threshold_backward(grad_output, self, threshold):
    grad_output = _promoted(grad_output, self)
    return aten.where.self(aten.le.Scalar(self, threshold), _scalar_like(grad_output, 0),
                           grad_output)


@register_decomposition(aten.sigmoid_backward.default)
@_opmath
def sigmoid_backward(grad_output, output):
    return aten.mul.Tensor(aten.mul.Tensor(grad_output, aten.rsub.Scalar(output, 1)), output)


@register_decomposition(aten.tanh_backward.default)
@_opmath
def tanh_backward(grad_output, output):
    return aten.mul.Tensor(grad_output,
                           aten.rsub.Scalar(aten.mul.Tensor(output, output), 1))


@register_decomposition(aten.silu_backward.default)
@_opmath
def silu_backward(grad_output, self):
    sig = aten.sigmoid.default(self)
    inner = aten.add.Scalar(aten.mul.Tensor(self, aten.rsub.Scalar(sig, 1)), 1)
    return aten.mul.Tensor(grad_output, aten.mul.Tensor(sig, inner))


@register_decomposition(aten.leaky_relu_backward.default)
def leaky_relu_backward(grad_output, self, negative_slope, self_is_result):
    grad_output = _promoted(grad_output, self)
    return aten.where.self(aten.gt.Scalar(self, 0), grad_output,
                           aten.mul.Tensor(grad_output, negative_slope))


@register_decomposition(aten.hardtanh_backward.default)
def hardtanh_backward(grad_output, self, min_val, max_val):
    grad_output = _promoted(grad_output, self)
    outside = aten.logical_or.default(aten.le.Scalar(self, min_val),
                                      aten.ge.Scalar(self, max_val))
    return aten.where.self(outside, _scalar_like(grad_output, 0), grad_output)


@register_decomposition(aten.gelu_backward.default)
@_opmath
def gelu_backward(grad_output, self, approximate="none"):
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        x_sq = aten.mul.Tensor(self, self)
        inner = aten.mul.Tensor(aten.add.Tensor(self, aten.mul.Tensor(
            aten.mul.Tensor(x_sq, self), 0.044715)), k)
        t = aten.tanh.default(inner)
        left = aten.mul.Tensor(aten.add.Scalar(t, 1), 0.5)
        d_inner = aten.mul.Tensor(aten.add.Scalar(aten.mul.Tensor(x_sq, 3 * 0.044715), 1), k)
        right = aten.mul.Tensor(aten.mul.Tensor(aten.mul.Tensor(
            aten.rsub.Scalar(aten.mul.Tensor(t, t), 1), d_inner), self), 0.5)
        return aten.mul.Tensor(grad_output, aten.add.Tensor(left, right))
    cdf = aten.mul.Tensor(aten.add.Scalar(aten.erf.default(
        aten.mul.Tensor(self, math.sqrt(0.5))), 1), 0.5)
    pdf = aten.mul.Tensor(aten.exp.default(aten.mul.Tensor(aten.mul.Tensor(self, self), -0.5)),
                          1 / math.sqrt(2 * math.pi))
    return aten.mul.Tensor(grad_output, aten.add.Tensor(cdf, aten.mul.Tensor(self, pdf)))


@register_decomposition(aten._softmax_backward_data.default)
def softmax_backward_data(grad_output, output, dim, input_dtype):
    """(in grad_output's dtype: the CPU kernel's, which does not follow input_dtype)"""
    prod = aten.mul.Tensor(grad_output, output)
    return aten.sub.Tensor(prod, aten.mul.Tensor(output, aten.sum.dim_IntList(prod, [dim], True)))


def _integral(t) -> bool:
    """An integer or bool tensor (neither floating point nor complex)."""
    return not (t.is_floating_point() or t.is_complex())


# --- pointwise -----------------------------------------------------------------------------------
@register_decomposition(aten.addcmul.default)
@_opmath
def addcmul(self, tensor1, tensor2, value=1):
    if _integral(self):                     # an integer self takes int(value), as the op
        value = int(value)
    return aten.add.Tensor(self, aten.mul.Tensor(aten.mul.Tensor(tensor1, tensor2), value))


@register_decomposition(aten.addcdiv.default)
@_opmath
def addcdiv(self, tensor1, tensor2, value=1):
    return aten.add.Tensor(self, aten.mul.Tensor(aten.div.Tensor(tensor1, tensor2), value))


def _lerp(self, end, weight, small):
    """torch's formula: from the nearer end, for accuracy at both ends."""
    diff = aten.sub.Tensor(end, self)
    low = aten.add.Tensor(self, aten.mul.Tensor(diff, weight))
    high = aten.sub.Tensor(end, aten.mul.Tensor(diff, aten.rsub.Scalar(weight, 1)
                                               if isinstance(weight, ember.Tensor)
                                               else 1 - weight))
    return aten.where.self(small, low, high)


@register_decomposition(aten.lerp.Scalar)
@_opmath
def lerp_scalar(self, end, weight):
    """A number weight picks torch's branch now: self + w * (end - self) as add's alpha
    (one fused multiply-add, torch's `fma(w, diff, self)`), or end + (w - 1) * (end - self);
    no mask the size of self and no second branch (an optimizer's moment update)."""
    dt = ember.promote_types(self.dtype, end.dtype)
    if dt not in (ember.float32, ember.float64) or isinstance(weight, complex):
        small = aten.full_like.default(self, abs(weight) < 0.5, dtype=ember.bool)
        return _lerp(self, end, weight, small)
    diff = aten.sub.Tensor(end, self)
    if abs(weight) < 0.5:
        return aten.add.Tensor(self, diff, alpha=weight)
    if dt is ember.float32:         # (w - 1 in the dtype, as torch's kernel)
        return aten.add.Tensor(end, diff, alpha=float(np.float32(weight) - np.float32(1)))
    return aten.add.Tensor(end, diff, alpha=weight - 1)


@register_decomposition(aten.lerp.Tensor)
@_opmath
def lerp_tensor(self, end, weight):
    return _lerp(self, end, weight, aten.lt.Scalar(aten.abs.default(weight), 0.5))


@register_decomposition(aten.frac.default)
def frac(self):
    return aten.sub.Tensor(self, aten.trunc.default(self))


@register_decomposition(aten.clamp_min.default)
def clamp_min(self, min):
    return aten.clamp.default(self, min, None)


@register_decomposition(aten.clamp_max.default)
def clamp_max(self, max):
    return aten.clamp.default(self, None, max)


@register_decomposition(aten.clamp_min.Tensor)
def clamp_min_tensor(self, min):
    return aten.clamp.Tensor(self, min, None)


@register_decomposition(aten.clamp_max.Tensor)
def clamp_max_tensor(self, max):
    return aten.clamp.Tensor(self, None, max)


@register_decomposition(aten.masked_fill.Scalar)
def masked_fill_scalar(self, mask, value):
    return aten.where.self(mask, _scalar_like(self, value), self)


@register_decomposition(aten.masked_fill.Tensor)
def masked_fill_tensor(self, mask, value):
    if value.dim() != 0:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    return aten.where.self(mask, aten._to_copy.default(value, dtype=self.dtype), self)


@register_decomposition(aten.exp2.default, core=False)
def exp2(self):
    if _integral(self):                   # integers: the default float dtype, as the op
        self = aten._to_copy.default(self, dtype=ember.get_default_dtype())
    return aten.pow.Scalar(2, self)


@register_decomposition(aten.floor_divide.default)
def floor_divide(self, other):
    return aten.div.Tensor_mode(self, other, rounding_mode="floor")


# --- reductions ----------------------------------------------------------------------------------
@register_decomposition(aten.logsumexp.default)
def logsumexp(self, dim, keepdim=False):
    if _integral(self):                     # integers and bools: the default float dtype
        self = aten._to_copy.default(self, dtype=ember.get_default_dtype())
    if self.numel() == 0:
        return aten.log.default(aten.sum.dim_IntList(aten.exp.default(self), dim, keepdim))
    # (a complex self shifts by the largest real part, as torch)
    maxes = aten.amax.default(aten.real.default(self) if self.is_complex() else self, dim, True)
    finite = aten.where.self(aten.isinf.default(maxes), _scalar_like(maxes, 0), maxes)
    total = aten.sum.dim_IntList(aten.exp.default(aten.sub.Tensor(self, finite)), dim, keepdim)
    shift = finite if keepdim else aten.squeeze.dims(finite, dim if dim else
                                                     list(range(self.dim())))
    return aten.add.Tensor(aten.log.default(total), shift)


@register_decomposition(aten.var_mean.correction, core=False)
def var_mean(self, dim=None, *, correction=None, keepdim=False):
    return (aten.var.correction(self, dim, correction=correction, keepdim=keepdim),
            aten.mean.dim(self, dim, keepdim))


@register_decomposition(aten.std_mean.correction)
def std_mean(self, dim=None, *, correction=None, keepdim=False):
    return (aten.std.correction(self, dim, correction=correction, keepdim=keepdim),
            aten.mean.dim(self, dim, keepdim))


@register_decomposition(aten.linalg_vector_norm.default, core=False)
def linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None):
    x = self if dtype is None else aten._to_copy.default(self, dtype=dtype)
    if x.is_complex():      # the norm of |z| (real)
        x = aten.abs.default(x)
    dims = [] if dim is None else dim
    if ord == math.inf:
        return aten.amax.default(aten.abs.default(x), dims, keepdim)
    if ord == -math.inf:
        return aten.amin.default(aten.abs.default(x), dims, keepdim)
    if ord == 0:
        nonzero = aten._to_copy.default(aten.ne.Scalar(x, 0), dtype=x.dtype)
        return aten.sum.dim_IntList(nonzero, dims, keepdim)
    if ord == 1:
        return aten.sum.dim_IntList(aten.abs.default(x), dims, keepdim)
    if ord == 2:
        return aten.sqrt.default(aten.sum.dim_IntList(aten.mul.Tensor(x, x), dims, keepdim))
    powered = aten.pow.Tensor_Scalar(aten.abs.default(x), ord)
    return aten.pow.Tensor_Scalar(aten.sum.dim_IntList(powered, dims, keepdim), 1.0 / ord)


# --- linear algebra and losses ---------------------------------------------------------------------
@register_decomposition(aten.baddbmm.default)
def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
    prod = aten.bmm.default(batch1, batch2)
    if alpha != 1:
        prod = aten.mul.Tensor(prod, alpha)
    if beta == 0:     # self is ignored (its nan and inf too), as the op does
        return prod
    return aten.add.Tensor(aten.mul.Tensor(self, beta) if beta != 1 else self, prod)


@register_decomposition(aten.dot.default)
def dot(self, tensor):
    prod = aten.mul.Tensor(self, tensor)
    return aten.sum.default(prod, dtype=prod.dtype)


@register_decomposition(aten.mv.default)
def mv(self, vec):
    prod = aten.mul.Tensor(self, vec)
    return aten.sum.dim_IntList(prod, [-1], False, dtype=prod.dtype)


@register_decomposition(aten.outer.default)
def outer(self, vec2):
    return aten.mul.Tensor(aten.unsqueeze.default(self, 1), vec2)


@register_decomposition(aten.binary_cross_entropy.default)
def binary_cross_entropy(self, target, weight=None, reduction=MEAN):
    floor = _scalar_like(self, -100)
    loss = aten.sub.Tensor(
        aten.mul.Tensor(aten.sub.Scalar(target, 1),
                        aten.maximum.default(aten.log1p.default(aten.neg.default(self)), floor)),
        aten.mul.Tensor(target, aten.maximum.default(aten.log.default(self), floor)))
    if weight is not None:
        loss = aten.mul.Tensor(loss, aten._to_copy.default(weight, dtype=loss.dtype))
    return _reduce(loss, reduction)


# --- losses and their backward ops -------------------------------------------------------------
@register_decomposition(aten.mse_loss.default)
def mse_loss(self, target, reduction=MEAN):
    return _reduce(aten.pow.Tensor_Scalar(aten.sub.Tensor(self, target), 2), reduction)


@register_decomposition(aten.l1_loss.default)
def l1_loss(self, target, reduction=MEAN):
    return _reduce(aten.abs.default(aten.sub.Tensor(self, target)), reduction)


def _channel_shape(self, weight, channel_dim):
    """weight (C,) shaped to broadcast along self's class dimension."""
    if self.dim() < 2:
        return weight
    shape = [1] * self.dim()
    shape[channel_dim] = weight.shape[0]
    return aten.view.default(weight, shape)


@register_decomposition(aten.nll_loss_forward.default)
def nll_loss_forward(self, target, weight, reduction, ignore_index):
    channel_dim = 0 if self.dim() < 2 else 1
    if weight is not None:
        weight = _channel_shape(self, weight, channel_dim)
        self = aten.mul.Tensor(self, weight)
    kept = aten.ne.Scalar(target, ignore_index)
    safe = aten.where.self(kept, target, aten.zeros_like.default(target))
    index = aten.unsqueeze.default(aten._to_copy.default(safe, dtype=ember.int64), channel_dim)
    picked = aten.squeeze.dim(aten.gather.default(self, channel_dim, index), channel_dim)
    zero = _scalar_like(self, 0)
    result = aten.where.self(kept, aten.neg.default(picked), zero)
    if reduction == 0 and self.dim() > 1:
        return result, aten.full.default([], 0.0, dtype=self.dtype, device=self.device)
    if weight is not None:
        w = aten.expand.default(weight, list(self.shape))
        picked_w = aten.squeeze.dim(aten.gather.default(w, channel_dim, index), channel_dim)
        total = aten.sum.default(aten.where.self(kept, picked_w, zero))
    else:
        total = aten._to_copy.default(aten.sum.default(kept), dtype=self.dtype)
    result = aten.sum.default(result)      # (as the kernel: any reduction but none sums)
    if reduction == MEAN:
        result = aten.div.Tensor(result, total)
    return result, total


@register_decomposition(aten.nll_loss_backward.default)
def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    channel_dim = 0 if self.dim() < 2 else 1
    if reduction == MEAN:
        grad_output = aten.div.Tensor(grad_output, total_weight)
    target = aten.unsqueeze.default(target, channel_dim)
    kept = aten.ne.Scalar(target, ignore_index)
    safe = aten._to_copy.default(aten.where.self(kept, target, aten.zeros_like.default(target)),
                                 dtype=ember.int64)
    grad_input = aten.scatter.value(aten.zeros_like.default(self), channel_dim, safe, -1.0)
    if grad_input.dim() > grad_output.dim() > 0:
        grad_output = aten.unsqueeze.default(grad_output, channel_dim)
    if weight is not None:
        grad_output = aten.mul.Tensor(grad_output, _channel_shape(self, weight, channel_dim))
    grad_output = aten.where.self(kept, grad_output, _scalar_like(grad_output, 0))
    return aten.mul.Tensor(grad_input, grad_output)


@register_decomposition(aten._log_softmax_backward_data.default)
def log_softmax_backward_data(grad_output, output, dim, input_dtype):
    """(in grad_output's dtype, as the CPU kernel)"""
    total = aten.sum.dim_IntList(grad_output, [dim], True)
    return aten.sub.Tensor(grad_output, aten.mul.Tensor(aten.exp.default(output), total))


@register_decomposition(aten.softplus_backward.default)
@_opmath
def softplus_backward(grad_output, self, beta, threshold):
    scaled = aten.mul.Tensor(self, beta)
    z = aten.exp.default(scaled)
    soft = aten.div.Tensor(aten.mul.Tensor(grad_output, z), aten.add.Tensor(z, 1))
    return aten.where.self(aten.gt.Scalar(scaled, threshold), grad_output, soft)


@register_decomposition(aten.elu_backward.default)
@_opmath
def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    negative = aten.le.Scalar(self_or_result, 0)
    positive = aten.mul.Tensor(grad_output, scale)
    if is_result:
        neg = aten.mul.Tensor(aten.mul.Tensor(grad_output, input_scale),
                              aten.add.Tensor(self_or_result, alpha * scale))
    else:
        neg = aten.mul.Tensor(aten.mul.Tensor(grad_output, input_scale * alpha * scale),
                              aten.exp.default(aten.mul.Tensor(self_or_result, input_scale)))
    return aten.where.self(negative, neg, positive)


# --- hardswish, hardsigmoid, mish, the shrinks, glu, log_sigmoid, prelu (and backward) --------
def _relu6_of_shifted(self):
    """clamp(x + 3, 0, 6): what hardswish and hardsigmoid share."""
    return aten.clamp.default(aten.add.Scalar(self, 3), 0, 6)


@register_decomposition(aten.hardswish.default)
@_opmath
def hardswish(self):
    return aten.div.Scalar(aten.mul.Tensor(self, _relu6_of_shifted(self)), 6)


@register_decomposition(aten.hardsigmoid.default)
@_opmath
def hardsigmoid(self):
    return aten.div.Scalar(_relu6_of_shifted(self), 6)


@register_decomposition(aten.hardswish_backward.default)
@_opmath
def hardswish_backward(grad_output, self):
    grad_output = _promoted(grad_output, self)
    inside = aten.mul.Tensor(grad_output, aten.add.Scalar(aten.div.Scalar(self, 3), 0.5))
    upper = aten.where.self(aten.lt.Scalar(self, 3), inside, grad_output)
    return aten.where.self(aten.le.Scalar(self, -3), _scalar_like(upper, 0), upper)


@register_decomposition(aten.hardsigmoid_backward.default)
@_opmath
def hardsigmoid_backward(grad_output, self):
    inside = aten.logical_and.default(aten.gt.Scalar(self, -3), aten.lt.Scalar(self, 3))
    scaled = aten.mul.Tensor(_promoted(grad_output, self), float(np.float32(1 / 6)))
    return aten.where.self(inside, scaled, _scalar_like(scaled, 0))


@register_decomposition(aten.mish.default)
@_opmath
def mish(self):
    return aten.mul.Tensor(self, aten.tanh.default(aten.log1p.default(aten.exp.default(self))))


@register_decomposition(aten.hardshrink.default)
def hardshrink(self, lambd=0.5):
    inside = aten.le.Scalar(aten.abs.default(self), lambd)
    return aten.where.self(inside, _scalar_like(self, 0), self)


@register_decomposition(aten.softshrink.default)
@_opmath
def softshrink(self, lambd=0.5):
    below = aten.where.self(aten.lt.Scalar(self, -lambd), aten.add.Scalar(self, lambd),
                            aten.mul.Tensor(self, 0))        # (NaN stays NaN, as the kernel's)
    return aten.where.self(aten.gt.Scalar(self, lambd), aten.sub.Scalar(self, lambd), below)


@register_decomposition(aten.glu.default)
@_opmath
def glu(self, dim=-1):
    a, b = aten.chunk.default(self, 2, dim)
    return aten.mul.Tensor(a, aten.sigmoid.default(b))


@register_decomposition(aten.log_sigmoid_forward.default)
def log_sigmoid_forward(self):
    """(min(x, 0) - log1p(z), the buffer z = exp(-|x|)), not differentiable as the op's."""
    z = _opmath(lambda x: aten.exp.default(aten.neg.default(aten.abs.default(x))))(self)
    output = _opmath(lambda x, b: aten.sub.Tensor(aten.clamp.default(x, None, 0),
                                                  aten.log1p.default(b)))(self, z)
    return output, aten.detach.default(z)


@register_decomposition(aten._prelu_kernel.default)
def prelu_kernel(self, weight):
    return aten.where.self(aten.gt.Scalar(self, 0), self, aten.mul.Tensor(weight, self))


# --- layout, creation and small pointwise ops -------------------------------------------------------
@register_decomposition(aten.transpose.int)
def transpose(self, dim0, dim1):
    n = max(self.dim(), 1)
    dims = list(range(self.dim()))
    if dims:
        a, b = dim0 % n, dim1 % n
        dims[a], dims[b] = dims[b], dims[a]
    return aten.permute.default(self, dims)


@register_decomposition(aten.t.default)
def t(self):
    return transpose(self, 0, 1 if self.dim() == 2 else 0)


@register_decomposition(aten.rsub.Scalar)
def rsub_scalar(self, other, alpha=1):
    """other - alpha * self, as -(alpha * self - other) (no negative factor: uint8 wraps)"""
    return aten.neg.default(aten.sub.Scalar(aten.mul.Scalar(self, alpha), other))


@register_decomposition(aten.rsub.Tensor)
def rsub_tensor(self, other, alpha=1):
    if not isinstance(other, ember.Tensor):        # a Python number: a wrapped scalar
        return rsub_scalar(self, other, alpha)
    return aten.sub.Tensor(other, self, alpha=alpha)


def _like(value):
    def fn(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        return aten.full_like.default(self, value, dtype=dtype, layout=layout, device=device,
                                      pin_memory=pin_memory, memory_format=memory_format)
    return fn


def _new(value):
    def fn(self, size, *, dtype=None, layout=None, device=None, pin_memory=None):
        return aten.full.default(size, value, dtype=dtype or self.dtype, layout=layout,
                                 device=device or self.device, pin_memory=pin_memory)
    return fn


register_decomposition(aten.zeros_like.default)(_like(0))
register_decomposition(aten.ones_like.default)(_like(1))
register_decomposition(aten.new_zeros.default)(_new(0))
register_decomposition(aten.new_ones.default)(_new(1))


@register_decomposition(aten.new_full.default)
def new_full(self, size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None):
    return aten.full.default(size, fill_value, dtype=dtype or self.dtype, layout=layout,
                             device=device or self.device, pin_memory=pin_memory)


@register_decomposition(aten.zero.default)
def zero(self):
    return aten.full_like.default(self, 0)


def _triangle(self, diagonal, keep_upper):
    """tril/triu: the entries on the kept side of `diagonal`, zeros elsewhere."""
    h, w = self.shape[-2], self.shape[-1]
    rows = aten.unsqueeze.default(aten.arange.default(h, device=self.device), -1)
    cols = aten.arange.default(w, device=self.device)
    offset = aten.sub.Tensor(cols, rows)
    mask = aten.ge.Scalar(offset, diagonal) if keep_upper else aten.le.Scalar(offset, diagonal)
    return aten.where.self(mask, self, _scalar_like(self, 0))


@register_decomposition(aten.tril.default)
def tril(self, diagonal=0):
    return _triangle(self, diagonal, keep_upper=False)


@register_decomposition(aten.triu.default)
def triu(self, diagonal=0):
    return _triangle(self, diagonal, keep_upper=True)


@register_decomposition(aten.deg2rad.default)
def deg2rad(self):
    return aten.mul.Scalar(self, math.pi / 180)


@register_decomposition(aten.rad2deg.default)
def rad2deg(self):
    return aten.mul.Scalar(self, 180 / math.pi)


@register_decomposition(aten.sinc.default)
@_opmath
def sinc(self):
    zero = aten.eq.Scalar(self, 0)
    # x = 0 takes another path, so its gradient does not meet 0/0 (the where-nan trap)
    x = aten.mul.Scalar(aten.where.self(zero, _scalar_like(self, 1), self), math.pi)
    ratio = aten.div.Tensor(aten.sin.default(x), x)
    return aten.where.self(zero, _scalar_like(ratio, 1), ratio)


@register_decomposition(aten.heaviside.default)
def heaviside(self, values):
    step = aten._to_copy.default(aten.gt.Scalar(self, 0), dtype=values.dtype)
    return aten.where.self(aten.eq.Scalar(self, 0), values, step)


@register_decomposition(aten.isposinf.default)
def isposinf(self):
    return aten.eq.Scalar(self, math.inf)


@register_decomposition(aten.isneginf.default)
def isneginf(self):
    return aten.eq.Scalar(self, -math.inf)


@register_decomposition(aten.nan_to_num.default)
def nan_to_num(self, nan=None, posinf=None, neginf=None):
    if not self.dtype.is_floating_point:
        return aten.clone.default(self)
    info = ember.finfo(self.dtype)

    def value(v):       # rounded to self's dtype like the kernel (1e10 in float16 is inf)
        return aten._to_copy.default(aten.scalar_tensor.default(v, dtype=ember.float64),
                                     dtype=self.dtype)
    out = aten.where.self(aten.isnan.default(self), value(nan or 0.0), self)
    out = aten.where.self(aten.eq.Scalar(self, math.inf),
                          value(info.max if posinf is None else posinf), out)
    return aten.where.self(aten.eq.Scalar(self, -math.inf),
                           value(info.min if neginf is None else neginf), out)


@register_decomposition(aten.trace.default)
def trace(self):
    return aten.sum.default(aten.diagonal.default(self))


@register_decomposition(aten.take.default)
def take(self, index):
    return aten.index.Tensor(aten.reshape.default(self, [-1]), [index])


@register_decomposition(aten.aminmax.default)
def aminmax(self, *, dim=None, keepdim=False):
    if dim is None:
        return aten.amin.default(self, [], keepdim), aten.amax.default(self, [], keepdim)
    return aten.amin.default(self, [dim], keepdim), aten.amax.default(self, [dim], keepdim)


@register_decomposition(aten.count_nonzero.dim_IntList)
def count_nonzero_dims(self, dim):
    return aten.sum.dim_IntList(aten.ne.Scalar(self, 0), list(dim), False)


@register_decomposition(aten.count_nonzero.default)
def count_nonzero(self, dim=None):
    return aten.sum.dim_IntList(aten.ne.Scalar(self, 0), [] if dim is None else [dim], False)


@register_decomposition(aten.linear.default)
def linear(input, weight, bias=None):
    if input.dim() == 2 and bias is not None:
        return aten.addmm.default(bias, input, aten.t.default(weight))
    out = aten.matmul.default(input, aten.t.default(weight))
    return out if bias is None else aten.add.Tensor(out, bias)
