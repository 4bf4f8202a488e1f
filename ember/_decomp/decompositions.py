"""The decompositions themselves (torch/_decomp/decompositions.py's formulas, written
with ember's aten overloads). Each computes its op's result (values and dtype) from ops
nearer the core opset; tests/decomp checks every one against its op on the op's samples,
forward and backward.
"""
from __future__ import annotations

import functools
import math

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
    small = aten.full_like.default(self, abs(weight) < 0.5, dtype=ember.bool)
    return _lerp(self, end, weight, small)


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
