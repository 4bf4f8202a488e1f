"""Backward helpers of softmax, the losses and the normalisations."""
from __future__ import annotations

import math

import ember

from .common import grad_to_dtype, reduce_to


def softmax_double_backward(grad, grad_output, dim, output):
    """d/d(output) of output * (grad_output - sum(grad_output * output))."""
    s = (grad_output * output).sum(dim, keepdim=True)
    return grad * (grad_output - s) - grad_output * (grad * output).sum(dim, keepdim=True)


def log_softmax_double_backward_grad_output(grad, dim, output):
    """d/d(grad_output) of grad_output - exp(output) * sum(grad_output)."""
    return grad - (grad * output.exp()).sum(dim, keepdim=True)


def log_softmax_double_backward_output(grad, grad_output, dim, output):
    """d/d(output) of grad_output - exp(output) * sum(grad_output)."""
    return (grad * output.exp()) * grad_output.sum(dim, keepdim=True).neg()


def nll_loss_backward_grad_output(grad, target, weight, reduction, ignore_index, total_weight):
    """nll_loss_backward is linear in grad_output: its gradient is the loss of `grad`
    (rows picked at the targets), divided by total_weight for the mean."""
    out = ember.nll_loss_forward(grad, target, weight, 0 if reduction == 0 else 2,
                                 ignore_index)[0]
    if reduction == 1:
        out = out / total_weight
    return out


def _bce_scale(g, weight, reduction, numel):
    if weight is not None:
        g = g * weight
    if reduction == 1:
        g = g / numel
    return g


def binary_cross_entropy_target_backward(grad, self, target, weight, reduction):
    """d/d(target) of binary_cross_entropy: grad * (log(1 - x) - log(x))."""
    g = grad * ((1 - self).log() - self.log())
    return reduce_to(_bce_scale(g, weight, reduction, self.numel()), target.shape, target.dtype)


def binary_cross_entropy_double_backward(grad_output, grad, self, target, weight, reduction):
    """d/d(self) of binary_cross_entropy_backward (torch's formula, eps 1e-12)."""
    eps = 1e-12
    num = self * self - self * target * 2 + target
    den = (self + eps).pow(2) * (1 - self + eps).pow(2)
    g = num / den * (grad * grad_output)
    return reduce_to(_bce_scale(g, weight, reduction, self.numel()), self.shape, self.dtype)


def binary_cross_entropy_double_backward_grad_output(grad, self, target, weight, reduction,
                                                     grad_output):
    """d/d(grad_output) of binary_cross_entropy_backward."""
    eps = 1e-12
    g = (self - target) / ((self + eps) * (1 - self + eps)) * grad
    if weight is not None:
        g = g * weight
    if reduction == 1:
        g = g.sum() / max(self.numel(), 1)
    elif reduction == 2:
        g = g.sum()
    return reduce_to(g, grad_output.shape, grad_output.dtype)


def binary_cross_entropy_double_backward_target(grad, grad_output, self, target, weight,
                                                reduction):
    """d/d(target) of binary_cross_entropy_backward: -grad * grad_output / (x (1 - x))."""
    g = (grad * grad_output).neg()
    if weight is not None:
        g = g * weight
    g = g / ((1 - self) * self).clamp(min=1e-12)
    if reduction == 1:
        g = g / self.numel()
    return reduce_to(g, target.shape, target.dtype)


def _norm_stats(x, rdims, eps):
    """(mean, rstd) over `rdims` (keepdim), in ember ops."""
    mean = x.mean(rdims, keepdim=True)
    d = x - mean
    return mean, ((d * d).mean(rdims, keepdim=True) + eps).pow(-0.5)


def _norm_grads(go, x, mean, rstd, w, rdims, bdims):
    """(dx, dweight, dbias) of y = (x - mean) * rstd * w + b, mean and rstd the statistics
    over `rdims` (their dependence on x included), in ember ops."""
    xhat = (x - mean) * rstd
    g = go if w is None else go * w
    a = g.mean(rdims, keepdim=True)
    c = (g * xhat).mean(rdims, keepdim=True)
    dx = rstd * (g - a - xhat * c)
    return dx, (go * xhat).sum(bdims), go.sum(bdims)


def _ln_dims(input, normalized_shape):
    axis = input.dim() - len(normalized_shape)
    return list(range(axis, input.dim())), list(range(axis))


def _sum_or_self(t, dims):
    return t.sum(dims) if dims else t


def layer_norm_backward_composite(grad, input, normalized_shape, weight, bias, eps, mean,
                                  rstd):
    """native_layer_norm's gradient: without create_graph, native_layer_norm_backward's
    kernel on the saved mean and rstd; with it, in ember ops recomputing them from input
    (so that the double backward reaches input through them)."""
    if not ember.is_grad_enabled():
        return ember.native_layer_norm_backward(
            grad, input, normalized_shape, mean, rstd, weight, bias,
            [True, weight is not None, bias is not None])
    rdims, bdims = _ln_dims(input, normalized_shape)
    mean, rstd = _norm_stats(input, rdims, eps)
    xhat = (input - mean) * rstd
    g = grad if weight is None else grad * weight
    dx = rstd * (g - g.mean(rdims, keepdim=True)
                 - xhat * (g * xhat).mean(rdims, keepdim=True))
    dw = None if weight is None else _sum_or_self(grad * xhat, bdims)
    db = None if bias is None else _sum_or_self(grad, bdims)
    return dx, dw, db


def _norm_vjp(gx, gw, gb, go, x, mean, rstd, w, rdims, bdims):
    """The vector-Jacobian product of (dx, dw, db) = _norm_grads(go, x, mean, rstd, w) with
    mean and rstd independent inputs: (d go, d x, d mean, d rstd, d w); gx/gw/gb may be None.
    mean, rstd and w are broadcast against x; d mean and d rstd keep their dims."""
    xhat = (x - mean) * rstd
    g = go if w is None else go * w
    a = g.mean(rdims, keepdim=True)
    c = (g * xhat).mean(rdims, keepdim=True)
    d_go = go.new_zeros(()) if gb is None else gb
    d_xhat = x.new_zeros(())
    d_rstd = rstd.new_zeros(())
    d_w = None
    if gw is not None:
        d_go = d_go + gw * xhat
        d_xhat = d_xhat + go * gw
    if gx is not None:
        u = rstd * gx
        uxhat = (u * xhat).mean(rdims, keepdim=True)
        d_g = u - u.mean(rdims, keepdim=True) - xhat * uxhat
        d_xhat = d_xhat - u * c - g * uxhat
        d_rstd = (gx * (g - a - xhat * c)).sum(rdims, keepdim=True)
        d_go = d_go + (d_g if w is None else d_g * w)
        if w is not None:
            d_w = d_g * go
    d_x = d_xhat * rstd
    d_mean = d_x.sum(rdims, keepdim=True).neg()
    d_rstd = d_rstd + (d_xhat * (x - mean)).sum(rdims, keepdim=True)
    return d_go, d_x, d_mean, d_rstd, d_w


def _weight_grad(d_w, weight, dims):
    """d_w (weight-broadcast, or None for zero) summed over `dims` to the weight."""
    if weight is None:
        return None
    if d_w is None:
        return weight.new_zeros(weight.shape)
    return reduce_to(_sum_or_self(d_w, dims), weight.shape, weight.dtype)


def layer_norm_backward_vjp(grads, grad_out, input, normalized_shape, mean, rstd, weight):
    """Gradients of native_layer_norm_backward's outputs w.r.t. grad_out, input, mean,
    rstd and weight (mean and rstd as independent inputs)."""
    rdims, bdims = _ln_dims(input, normalized_shape)
    stats = tuple(input.shape[:len(bdims)]) + (1,) * len(rdims)
    m, r = mean.reshape(stats), rstd.reshape(stats)
    gx, gw, gb = grads
    d_go, d_x, d_mean, d_rstd, d_w = _norm_vjp(gx, gw, gb, grad_out, input, m, r, weight,
                                               rdims, bdims)
    d_w = _weight_grad(d_w, weight, bdims)
    return (reduce_to(d_go, grad_out.shape, grad_out.dtype),
            reduce_to(d_x, input.shape, input.dtype),
            reduce_to(d_mean, stats, mean.dtype).reshape(mean.shape),
            reduce_to(d_rstd, stats, rstd.dtype).reshape(rstd.shape), d_w)


def _bn_dims(input):
    c = input.shape[1]
    view = (1, c) + (1,) * (input.dim() - 2)
    return [0] + list(range(2, input.dim())), view


def batch_norm_backward_composite(grad, input, weight, bias, running_mean, running_var,
                                  training, eps, save_mean, save_invstd):
    """native_batch_norm's gradient: without create_graph, native_batch_norm_backward's
    kernel on the saved batch statistics (training) or the running ones (eval); with it,
    in ember ops with the batch statistics recomputed from input, so that the double
    backward reaches input through them (the saved ones are not differentiable outputs)."""
    if not ember.is_grad_enabled():
        return ember.native_batch_norm_backward(
            grad, input, weight, running_mean, running_var, save_mean, save_invstd, training,
            eps, [True, weight is not None, bias is not None])
    rdims, view = _bn_dims(input)
    w = None if weight is None else weight.view(view)
    if training:
        mean, rstd = _norm_stats(input, rdims, eps)
        dx, dw, db = _norm_grads(grad, input, mean, rstd, w, rdims, rdims)
    else:
        mean = running_mean.view(view)
        rstd = (running_var.view(view) + eps).pow(-0.5)
        dx = grad * rstd if w is None else grad * w * rstd
        dw, db = (grad * ((input - mean) * rstd)).sum(rdims), grad.sum(rdims)
    return (dx, None if weight is None else grad_to_dtype(dw, weight.dtype),
            None if bias is None else grad_to_dtype(db, bias.dtype))


def batch_norm_backward_vjp(grads, grad_out, input, weight, running_mean, running_var,
                            save_mean, save_invstd, train, eps):
    """Gradients of native_batch_norm_backward's outputs w.r.t. grad_out, input, weight,
    save_mean and save_invstd (training: the saved statistics as independent inputs)."""
    rdims, view = _bn_dims(input)
    gx, gw, gb = grads
    gw = None if gw is None else gw.view(view)
    gb = None if gb is None else gb.view(view)
    w = None if weight is None else weight.view(view)
    if train:
        m, r = save_mean.view(view), save_invstd.view(view)
        d_go, d_x, d_mean, d_rstd, d_w = _norm_vjp(gx, gw, gb, grad_out, input, m, r, w,
                                                   rdims, rdims)
        d_mean = reduce_to(d_mean, view, save_mean.dtype).view(save_mean.shape)
        d_rstd = reduce_to(d_rstd, view, save_invstd.dtype).view(save_invstd.shape)
    else:
        r = (running_var.view(view) + eps).pow(-0.5)
        xhat = (input - running_mean.view(view)) * r
        d_go = grad_out.new_zeros(())
        d_x = input.new_zeros(())
        d_w = None
        if gx is not None:
            d_go = d_go + (gx * r if w is None else gx * w * r)
            if w is not None:
                d_w = gx * grad_out * r
        if gw is not None:
            d_go = d_go + gw * xhat
            d_x = d_x + gw * grad_out * r
        if gb is not None:
            d_go = d_go + gb
        d_mean = d_rstd = None
    d_w = _weight_grad(d_w, weight, rdims)
    return (reduce_to(d_go, grad_out.shape, grad_out.dtype),
            reduce_to(d_x, input.shape, input.dtype), d_w, d_mean, d_rstd)


def nll_loss2d_backward_grad_output(grad, target, weight, reduction, ignore_index,
                                    total_weight):
    """nll_loss2d_backward is linear in grad_output (see nll_loss_backward_grad_output)."""
    out = ember.nll_loss2d_forward(grad, target, weight, 0 if reduction == 0 else 2,
                                   ignore_index)[0]
    if reduction == 1:
        out = out / total_weight
    return out


def smooth_l1_loss_double_backward(grad, self, target, reduction, beta, input):
    """d/d(self) of smooth_l1_loss_backward: grad / beta where |self - target| < beta,
    else 0 (divided by numel for the mean; all 0 for beta 0, as torch), summed to
    `input`'s shape (self or target); `grad` is already grad * grad_output."""
    if beta == 0:
        g = ember.zeros_like(grad)
    else:
        g = grad * ((self - target).abs() < beta).to(grad.dtype) / beta
        if reduction == 1:
            g = g / max(self.numel(), 1)
    return reduce_to(g, input.shape, input.dtype)


def smooth_l1_loss_double_backward_grad_output(grad, self, target, reduction, beta,
                                               grad_output):
    """smooth_l1_loss_backward is linear in grad_output: its gradient is the backward of
    `grad`, summed to grad_output's shape."""
    g = ember.smooth_l1_loss_backward(grad, self, target, reduction, beta)
    return reduce_to(g, grad_output.shape, grad_output.dtype)


def flash_attention_cpu_backward(grad, query, key, value, out, logsumexp, dropout_p,
                                 is_causal, attn_mask, scale):
    """(d query, d key, d value) of _scaled_dot_product_flash_attention_for_cpu: without
    create_graph its backward kernel; with it, in ember ops that recompute the attention
    probabilities from query and key (so that the double backward reaches them).

    With P = softmax(S), S = q k^T * scale (+ mask): dv = P^T g, dS = P * (g v^T - rowsum),
    dq = dS k * scale, dk = dS^T q * scale."""
    if not ember.is_grad_enabled():
        return ember._scaled_dot_product_flash_attention_for_cpu_backward(
            grad, query, key, value, out, logsumexp, dropout_p, is_causal,
            attn_mask=attn_mask, scale=scale)
    s = _attention_scale(query, scale)
    scores = ember.matmul(query, key.transpose(-2, -1)) * s
    if is_causal:
        n, m = scores.shape[-2:]
        scores = scores.masked_fill(ember.ones(n, m, dtype=ember.bool, device=scores.device)
                                    .triu(1), float("-inf"))
    if attn_mask is not None:
        scores = (scores.masked_fill(attn_mask.logical_not(), float("-inf"))
                  if attn_mask.dtype == ember.bool else scores + attn_mask)
    p = ember.softmax(scores, -1)
    dp = ember.matmul(grad, value.transpose(-2, -1))
    ds = p * (dp - (dp * p).sum(-1, keepdim=True))
    return (ember.matmul(ds, key) * s, ember.matmul(ds.transpose(-2, -1), query) * s,
            ember.matmul(p.transpose(-2, -1), grad))


def _attention_scale(query, scale):
    """scale, or torch's default 1 / sqrt(head dim)."""
    if scale is not None:
        return scale
    e = query.shape[-1]
    return 1.0 / math.sqrt(e) if e else float("inf")
