"""Backward helpers of convolution, pooling and embedding (incl. double backward)."""
from __future__ import annotations

import ember


def convolution_backward_formula(grad, input, weight, bias, stride, padding, dilation,
                                 transposed, output_padding, groups):
    """(grad_input, grad_weight, grad_bias) of a convolution, by the convolution_backward op
    (differentiable itself, so double backward works)."""
    has_bias = bias is not None
    # like torch's grad_input_mask: no col2im for an input that needs no gradient
    mask = [input.requires_grad, weight.requires_grad, has_bias and bias.requires_grad]
    gi, gw, gb = ember.convolution_backward(
        grad, input, weight, [bias.shape[0]] if has_bias else None, stride, padding, dilation,
        transposed, output_padding, groups, mask)
    return gi, gw, gb


def convolution_double_backward(ggi, ggw, ggb, grad_output, input, weight, stride, padding,
                                dilation, transposed, output_padding, groups):
    """The gradients of convolution_backward's (grad_input, grad_weight, grad_bias) with
    respect to (grad_output, input, weight), given their incoming gradients ggi, ggw, ggb
    (torch's _convolution_double_backward): grad_input is linear in (grad_output, weight)
    and grad_weight in (input, grad_output), so each term is a convolution or its backward."""
    args = (stride, padding, dilation, transposed, output_padding, groups)
    g_out = g_in = g_w = None
    if ggi is not None:
        g_out = ember.convolution(ggi, weight, None, *args)
        g_w = ember.convolution_backward(grad_output, ggi, weight, None, *args,
                                         [False, True, False])[1]
    if ggw is not None:
        t = ember.convolution(input, ggw, None, *args)
        g_out = t if g_out is None else g_out + t
        g_in = ember.convolution_backward(grad_output, input, ggw, None, *args,
                                          [True, False, False])[0]
    if ggb is not None:
        t = ggb.reshape([1, -1] + [1] * (grad_output.dim() - 2)).expand(grad_output.shape)
        g_out = t if g_out is None else g_out + t
    return g_out, g_in, g_w


def max_pool_double_backward(grad, indices):
    """max_pool2d_with_indices_backward is linear in grad_output: its gradient gathers
    `grad` (input-shaped) at the argmax indices (torch's max_pool_double_backward)."""
    h, w = grad.shape[-2:]
    flat = grad.reshape(-1, h * w)
    idx = indices.reshape(flat.shape[0], -1)
    rows = ember.arange(flat.shape[0], device=grad.device).reshape(-1, 1)
    return flat[rows, idx].reshape(indices.shape)


def embedding_dense_double_backward(grad, indices, padding_idx, scale_grad_by_freq):
    """embedding_dense_backward is linear in grad_output: its gradient reads the rows of
    `grad` at `indices`, zero at padding_idx, divided by the index counts when scaling."""
    out = grad[indices]
    if scale_grad_by_freq:
        flat = indices.reshape(-1)
        counts = (flat.unsqueeze(1) == flat.unsqueeze(0)).sum(1).to(grad.dtype)
        out = out / counts.reshape(tuple(indices.shape) + (1,))
    if padding_idx >= 0:
        out = out.masked_fill((indices == padding_idx).unsqueeze(-1), 0)
    return out
