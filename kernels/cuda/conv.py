"""CUDA convolution (1-d, 2-d and 3-d; groups, strides, padding, dilation, transposed) as
im2col / col2im (conv.cu) around matmul.cu's batched products, and its backward:

    forward         out[n, g]  = W[g] @ im2col(x)[n, g]
    transposed      out        = col2im(W[g]^T @ x[n, g])      (also grad_input of forward)
    grad_weight     dW[g]      = sum_n grad[n, g] @ im2col(image)[n, g]^T

1-d and 2-d convolutions run as 3-d ones with leading sizes of 1. Results take the Meta
rules' layouts.

    >>> F.conv2d(ember.ones(1, 1, 3, 3, device="cuda"), ember.ones(1, 1, 2, 2, device="cuda"))  # doctest: +SKIP
"""
import math
from dataclasses import dataclass

import numpy as np

from ember.cuda import _runtime
from ember.kernels.cuda import _launch as L
from ember.kernels.cuda import pointwise as _pw
from ember.kernels.cuda import reduction as _red
from ember.kernels.cuda.copy import contiguous_on_device, copy_
from ember.kernels.cuda.linalg import _gemm
from ember.kernels.meta import conv as MC


@dataclass(frozen=True)
class _Window:
    """A 3-d window: kernel size, stride, padding, dilation (depth first)."""
    k: tuple
    s: tuple
    p: tuple
    d: tuple

    @staticmethod
    def of(weight, params):
        lead = 3 - params.dim
        return _Window((1,) * lead + tuple(weight._shape[2:]), (1,) * lead + params.stride,
                       (0,) * lead + params.padding, (1,) * lead + params.dilation)


def _as3d(t):
    """An (N, C, *spatial) tensor as (N, C, D, H, W), leading spatial sizes 1."""
    while t.dim() < 5:
        t = t.unsqueeze(2)
    return t


def _dense(t):
    return t if t.is_contiguous() else contiguous_on_device(t)


def _geometry(win, channels, image_size, cols_size, image):
    return _runtime.constant_buffer(
        _runtime.device_index(image._device),
        (channels, *image_size, *cols_size, *win.k, *win.s, *win.p, *win.d, *image.stride()))


def _im2col(img, win, cols_size):
    """(N, C * taps, column positions) columns of a 5-d image (any strides)."""
    n, c = img._shape[:2]
    shape = (n, c * math.prod(win.k), math.prod(cols_size))
    cols = L.empty(img._device, shape, (shape[1] * shape[2], shape[2], 1), img._dtype)
    if cols.numel():
        L.launch("conv", f"im2col_{img._dtype.name}", cols.numel(),
                 (np.int64(cols.numel()), _geometry(win, c, img._shape[2:], cols_size, img),
                  cols.data_ptr(), img.data_ptr()))
    return cols


def _col2im(cols, channels, image_size, win, cols_size):
    """The (N, C, D, H, W) image that sums contiguous columns back (im2col's adjoint)."""
    shape = (cols._shape[0], channels, *image_size)
    img = L.empty(cols._device, shape, L.contiguous_strides(shape), cols._dtype)
    if img.numel():
        L.launch("conv", f"col2im_{cols._dtype.name}", img.numel(),
                 (np.int64(img.numel()), _geometry(win, channels, image_size, cols_size, img),
                  img.data_ptr(), cols.data_ptr()))
    return img


def _groups(t, dim, groups):
    size = t._shape[dim] // groups
    return [t.narrow(dim, g * size, size) for g in range(groups)]


def _batched(a_parts, b_parts, shape):
    """[a @ b for each group] written side by side along dim 1 of a new (N, rows, cols)."""
    out = L.empty(b_parts[0]._device, shape, L.contiguous_strides(shape), b_parts[0]._dtype)
    for o, a, b in zip(_groups(out, 1, len(a_parts)), a_parts, b_parts):
        _gemm(o, a, b)
    return out


def _conv(x, w, groups, win, out_size):
    """out (N, O, *out_size) = W[g] @ im2col(x)[n, g] (x 5-d, w (O, C/g, *k))."""
    cols = _im2col(x, win, out_size)
    wm = _dense(w).view(w._shape[0], math.prod(w._shape[1:]))
    n, o = x._shape[0], w._shape[0]
    out = _batched(_groups(wm, 0, groups), _groups(cols, 1, groups),
                   (n, o, math.prod(out_size)))
    return out.view(n, o, *out_size)


def _conv_transposed(x, w, groups, win, image_size):
    """(N, C_out, *image_size) = col2im(W[g]^T @ x[n, g]) (x 5-d, w (C_in, C_out/g, *k))."""
    n, cin = x._shape[:2]
    xm = _dense(x).view(n, cin, math.prod(x._shape[2:]))
    wm = _dense(w).view(cin, math.prod(w._shape[1:]))
    cols = _batched([p.t() for p in _groups(wm, 0, groups)], _groups(xm, 1, groups),
                    (n, wm._shape[1] * groups, xm._shape[2]))
    return _col2im(cols, w._shape[1] * groups, image_size, win, x._shape[2:])


def _weight_grad(lhs, image, groups, win, weight):
    """sum_n lhs[n, g] @ im2col(image)[n, g]^T shaped like weight: lhs is grad_output (image:
    the input) for a convolution, the input (image: grad_output) for a transposed one."""
    n, rows = lhs._shape[:2]
    lm = _dense(lhs).view(n, rows, math.prod(lhs._shape[2:]))
    cols = _im2col(image, win, lhs._shape[2:])
    parts = _batched(_groups(lm, 1, groups), [c.transpose(1, 2) for c in _groups(cols, 1, groups)],
                     (n, rows, cols._shape[1] // groups))
    return _red.sum_dim(parts, [0], False, None).view(weight._shape)


def _into(meta, t):
    """t in the layout of a Meta result (t itself when it already has it)."""
    if t.stride() == meta._stride or t.numel() == 0:
        return t.view(meta._shape)
    return copy_(L.empty_like_meta(meta, t._device), t.view(meta._shape), False)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    m = MC.convolution(input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups)
    p = MC.conv_params(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                       groups)
    x, w, win = _as3d(input), _as3d(weight), _Window.of(weight, p)
    out_size = (1,) * (3 - p.dim) + p.out_shape[2:]
    if transposed:
        out = _conv_transposed(x, w, groups, win, out_size)
    else:
        out = _conv(x, w, groups, win, out_size)
    if bias is not None:
        out = _pw.add(out, bias.view(1, bias.numel(), 1, 1, 1))
    return _into(m, out)


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    metas = MC.convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
                                    dilation, transposed, output_padding, groups, output_mask)
    p = MC.conv_params(input, weight, None, stride, padding, dilation, transposed,
                       output_padding, groups)
    go, x, w, win = _as3d(grad_output), _as3d(input), _as3d(weight), _Window.of(weight, p)
    gi = gw = gb = None
    if output_mask[0]:
        gi = _conv(go, w, groups, win, x._shape[2:]) if transposed else \
            _conv_transposed(go, w, groups, win, x._shape[2:])
        gi = _into(metas[0], gi)
    if output_mask[1]:
        gw = _weight_grad(x, go, groups, win, w) if transposed else \
            _weight_grad(go, x, groups, win, w)
        gw = _into(metas[1], gw)
    if output_mask[2]:
        gb = _red.sum_dim(grad_output, [0, *range(2, grad_output.dim())], False, None)
    return gi, gw, gb
