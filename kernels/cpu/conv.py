"""Convolution (any number of spatial dims, transposed too) and its backward on CPU
tensors, vectorised with NumPy: im2col through `sliding_window_view` and one BLAS
matmul per group; the input gradient (and the transposed forward) is col2im, a
strided scatter-add per kernel tap. float16/bfloat16 compute in float32 and round once.

    >>> x = ember.ones(1, 1, 3, 3)
    >>> ember.convolution(x, ember.ones(1, 1, 2, 2), None, [1, 1], [0, 0], [1, 1], False,
    ...                   [0, 0], 1)
    tensor([[[[4., 4.],
              [4., 4.]]]])
"""
from __future__ import annotations

import itertools

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ember.core import dtype as D
from ember.core.tensor import from_array

from ..meta import conv as _meta

_F32 = np.dtype(np.float32)


def acc_dtype(dt):
    """The NumPy dtype the kernel computes in."""
    return _F32 if dt is D.float16 or dt is D.bfloat16 else dt.np


def _arr(t, acc):
    a = t._np
    return a if a.dtype == acc else a.astype(acc)


def _finish(a, dt, cl=False):
    """A fresh result in `dt`: contiguous, or channels_last (NHWC in memory) when `cl`."""
    if a.dtype != dt.np:
        a = a.astype(dt.np)
    if cl and a.ndim == 4:
        return from_array(np.ascontiguousarray(a.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2), dt)
    return from_array(a if a.flags.c_contiguous else np.ascontiguousarray(a), dt)


# ---------------------------------------------------------------- NumPy building blocks
def im2col(x, kernel, stride, padding, dilation, out):
    """(N, C, *spatial) -> the windows (N, C, *out, *kernel) of the zero-padded input
    (a view when there is no padding)."""
    d = len(kernel)
    if any(padding):
        x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    win = [dl * (k - 1) + 1 for k, dl in zip(kernel, dilation)]
    v = sliding_window_view(x, win, axis=tuple(range(2, 2 + d)))
    sl = ((slice(None),) * 2 + tuple(slice(0, s * (o - 1) + 1, s) for s, o in zip(stride, out))
          + tuple(slice(None, None, dl) for dl in dilation))
    return v[sl]


def _group_cols(cols, groups):
    """(N, C, *out, *k) windows -> the (groups, N, Cg * K, L) matrices (one copy, whose
    innermost run is an output row: contiguous reads for stride 1)."""
    n, c = cols.shape[:2]
    d = (cols.ndim - 2) // 2
    out, kern = cols.shape[2:2 + d], cols.shape[2 + d:]
    # -> (N, C, *kernel, *out)
    perm = (0, 1) + tuple(range(2 + d, 2 + 2 * d)) + tuple(range(2, 2 + d))
    m = np.ascontiguousarray(cols.transpose(perm))
    m = m.reshape(n, groups, (c // groups) * int(np.prod(kern)), int(np.prod(out)))
    return m.transpose(1, 0, 2, 3)


def _grouped(gy, groups):
    """(N, O, *out) -> (groups, N, Og, L) (a view)."""
    n, o = gy.shape[:2]
    return gy.reshape(n, groups, o // groups, int(np.prod(gy.shape[2:]))).transpose(1, 0, 2, 3)


def _weight_matrix(w, groups):
    """(O, Cg, *k) -> (groups, 1, Og, Cg * K)."""
    o = w.shape[0]
    return w.reshape(groups, 1, o // groups, -1) if w.size else \
        np.zeros((groups, 1, o // groups, int(np.prod(w.shape[1:]))), w.dtype)


def conv_forward(x, w, stride, padding, dilation, groups, out):
    """y[n, o, *out] = sum_{c, k} w[o, c, k] x_padded[n, g*Cg + c, out*s + k*d]: one batched
    matmul (g, N, Og, L) per group, already in (N, O, *out) order when groups == 1."""
    n, o = x.shape[0], w.shape[0]
    cols = _group_cols(im2col(x, w.shape[2:], stride, padding, dilation, out), groups)
    y = np.matmul(_weight_matrix(w, groups), cols)               # (g, N, Og, L)
    y = y[0] if groups == 1 else y.transpose(1, 0, 2, 3)
    return np.ascontiguousarray(y).reshape((n, o) + tuple(out))


def conv_input_grad(gy, w, in_spatial, stride, padding, dilation, groups):
    """The adjoint of conv_forward in x (col2im): (N, O, *out) -> (N, C, *in_spatial)."""
    n = gy.shape[0]
    out = gy.shape[2:]
    cg = w.shape[1]
    kern = w.shape[2:]
    cols = np.matmul(_weight_matrix(w, groups).transpose(0, 1, 3, 2), _grouped(gy, groups))
    cols = (cols[0] if groups == 1 else cols.transpose(1, 0, 2, 3))  # (N, g, Cg*K, L)
    cols = cols.reshape((n, groups * cg) + tuple(kern) + tuple(out))
    padded = [s + 2 * p for s, p in zip(in_spatial, padding)]
    gx = np.zeros((n, groups * cg) + tuple(padded), cols.dtype)
    lead = (slice(None),) * 2
    for tap in itertools.product(*(range(k) for k in kern)):
        dst = tuple(slice(t * dl, t * dl + s * (oo - 1) + 1, s)
                    for t, dl, s, oo in zip(tap, dilation, stride, out))
        gx[lead + dst] += cols[lead + tap]
    if any(padding):
        gx = gx[lead + tuple(slice(p, p + s) for p, s in zip(padding, in_spatial))]
    return gx


def conv_weight_grad(x, gy, kern, stride, padding, dilation, groups):
    """The adjoint of conv_forward in w: sum over batch and positions of gy * windows(x)."""
    o = gy.shape[1]
    cg = x.shape[1] // groups
    cols = _group_cols(im2col(x, kern, stride, padding, dilation, gy.shape[2:]), groups)
    gw = np.matmul(_grouped(gy, groups), cols.transpose(0, 1, 3, 2)).sum(axis=1)
    return gw.reshape((o, cg) + tuple(kern))


# ---------------------------------------------------------------- kernels
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    p = _meta.conv_params(input, weight, bias, stride, padding, dilation, transposed,
                          output_padding, groups)
    _meta.check_conv_dtypes(input, weight, bias, transposed)
    dt = input._dtype
    acc = acc_dtype(dt)
    x, w = _arr(input, acc), _arr(weight, acc)
    out = p.out_shape[2:]
    if not transposed:
        y = conv_forward(x, w, p.stride, p.padding, p.dilation, groups, out)
    else:
        y = conv_input_grad(x, w, out, p.stride, p.padding, p.dilation, groups)
    if bias is not None:
        y = y + _arr(bias, acc).reshape((1, -1) + (1,) * p.dim)
    return _finish(y, dt, _meta.channels_last(input, weight))


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    p, _ = _meta.convolution_backward_shapes(grad_output, input, weight, bias_sizes, stride,
                                                  padding, dilation, transposed, output_padding,
                                                  groups, output_mask)
    dt = input._dtype
    acc = acc_dtype(dt)
    gy = _arr(grad_output, acc)
    cl = _meta.channels_last(input, weight)
    gx = gw = gb = None
    if output_mask[0]:
        w = _arr(weight, acc)
        if not transposed:
            gx = conv_input_grad(gy, w, input._shape[2:], p.stride, p.padding, p.dilation, groups)
        else:
            gx = conv_forward(gy, w, p.stride, p.padding, p.dilation, groups, input._shape[2:])
        gx = _finish(gx, dt, cl)
    if output_mask[1]:
        x = _arr(input, acc)
        if not transposed:
            gw = conv_weight_grad(x, gy, weight._shape[2:], p.stride, p.padding, p.dilation,
                                  groups)
        else:
            gw = conv_weight_grad(gy, x, weight._shape[2:], p.stride, p.padding, p.dilation,
                                  groups)
        gw = _finish(gw, dt, cl)
    if output_mask[2]:
        gb = _finish(gy.sum(axis=(0,) + tuple(range(2, gy.ndim))), dt)
    return gx, gw, gb


# ---------------------------------------------------------------- pooling
def _as4d(a):
    return a if a.ndim == 4 else a[None]


def max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
    p = _meta.pool2d_params(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    dt = self._dtype
    if dt is D.bool_:
        raise _meta.not_implemented_for("max_pool2d", dt)
    x = _as4d(self._np)
    if dt is D.bfloat16 or dt is D.float16:
        x = x.astype(_F32)
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = p.kernel, p.stride, p.padding, p.dilation
    oh, ow = p.out
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    rh = max(ph, (oh - 1) * sh + dh * (kh - 1) + 1 - h - ph)
    rw = max(pw, (ow - 1) * sw + dw * (kw - 1) + 1 - w - pw)
    xp = np.pad(x, ((0, 0), (0, 0), (ph, rh), (pw, rw)), constant_values=fill)
    win = im2col(xp, (kh, kw), (sh, sw), (0, 0), (dh, dw), (oh, ow))
    flat = win.reshape(n, c, oh, ow, kh * kw)
    am = flat.argmax(-1)
    vals = np.take_along_axis(flat, am[..., None], -1)[..., 0]
    ki, kj = np.divmod(am, kw)
    h0 = np.arange(oh)[:, None] * sh - ph
    w0 = np.arange(ow)[None, :] * sw - pw
    hh, ww = h0 + ki * dh, w0 + kj * dw
    # a padded position wins only when every value equals the fill: torch keeps the first
    # position inside the input then
    bad = (hh < 0) | (hh >= h) | (ww < 0) | (ww >= w)
    if bad.any():
        fh = h0 + (-(h0 // dh)).clip(0) * dh * (h0 < 0)
        fw = w0 + (-(w0 // dw)).clip(0) * dw * (w0 < 0)
        hh = np.where(bad, np.broadcast_to(fh, hh.shape), hh)
        ww = np.where(bad, np.broadcast_to(fw, ww.shape), ww)
    idx = (hh * w + ww).astype(np.int64)
    shape, cl = p.shape, _meta.channels_last(self)
    return _finish(vals.reshape(shape), dt, cl), _finish(idx.reshape(shape), D.int64, cl)


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    _meta.max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding,
                                           dilation, ceil_mode, indices)
    dt = self._dtype
    g = grad_output._np
    h, w = self._shape[-2:]
    planes = int(np.prod(self._shape[:-2]))
    idx = indices._np.reshape(planes, int(np.prod(indices._shape[-2:]))).astype(np.int64)
    flat = (np.arange(planes, dtype=np.int64)[:, None] * (h * w) + idx).ravel()
    gi = np.bincount(flat, weights=g.reshape(-1).astype(np.float64), minlength=planes * h * w)
    return _finish(gi.reshape(self._shape), dt, _meta.channels_last(self))


def _avg_divisor(p, h, w, count_include_pad, divisor_override):
    """(oH, oW) divisors of avg_pool2d (torch's pool_size / valid-element count)."""
    (kh, kw), (sh, sw), (ph, pw) = p.kernel, p.stride, p.padding
    oh, ow = p.out
    if divisor_override is not None:
        return np.full((oh, ow), divisor_override, np.int64)

    def sizes(o, k, s, pad, n):
        start = np.arange(o) * s - pad
        end = np.minimum(start + k, n + pad)
        if count_include_pad:
            return end - start
        return np.minimum(end, n) - np.maximum(start, 0)
    return sizes(oh, kh, sh, ph, h)[:, None] * sizes(ow, kw, sw, pw, w)[None, :]


def _int_div(a, b):
    """C++ integer division (truncates toward zero)."""
    q = np.abs(a) // b
    return np.where(a < 0, -q, q)


def avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
               divisor_override):
    p = _meta.avg_pool2d_params(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    _meta.check_avg_dtype(self)
    dt = self._dtype
    x = _arr(self, acc_dtype(dt))
    x = _as4d(x)
    h, w = x.shape[-2:]
    (kh, kw), (sh, sw), (ph, pw) = p.kernel, p.stride, p.padding
    oh, ow = p.out
    rh = max(ph, (oh - 1) * sh + kh - h - ph)
    rw = max(pw, (ow - 1) * sw + kw - w - pw)
    xp = np.pad(x, ((0, 0), (0, 0), (ph, rh), (pw, rw)))
    s = im2col(xp, (kh, kw), (sh, sw), (0, 0), (1, 1), (oh, ow)).sum(axis=(-2, -1))
    div = _avg_divisor(p, h, w, count_include_pad, divisor_override)
    y = _int_div(s, div) if x.dtype.kind == "i" else s / div.astype(x.dtype)
    return _finish(y.reshape(p.shape), dt, _meta.channels_last(self))


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
    p = _meta.avg_pool2d_params(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    _meta.check_pool_backward(grad_output, self, p)
    _meta.check_avg_dtype(self)
    dt = self._dtype
    g = _as4d(_arr(grad_output, acc_dtype(dt)))
    n, c, h, w = _as4d(self._np).shape
    (kh, kw), (sh, sw), (ph, pw) = p.kernel, p.stride, p.padding
    oh, ow = p.out
    div = _avg_divisor(p, h, w, count_include_pad, divisor_override)
    gd = _int_div(g, div) if g.dtype.kind == "i" else g / div.astype(g.dtype)
    rh = max(ph, (oh - 1) * sh + kh - h - ph)
    rw = max(pw, (ow - 1) * sw + kw - w - pw)
    gx = np.zeros((n, c, h + ph + rh, w + pw + rw), gd.dtype)
    for i in range(kh):
        for j in range(kw):
            gx[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw] += gd
    return _finish(gx[:, :, ph:ph + h, pw:pw + w].reshape(self._shape), dt,
                   _meta.channels_last(self))


def _adaptive_matrix(n_in, n_out, acc):
    """(n_out, n_in): row i averages input positions [floor(i*n/o), ceil((i+1)*n/o))."""
    i = np.arange(n_out)
    start = (i * n_in) // n_out
    end = ((i + 1) * n_in + n_out - 1) // n_out
    pos = np.arange(n_in)
    m = (pos[None, :] >= start[:, None]) & (pos[None, :] < end[:, None])
    return m.astype(acc) / (end - start).astype(acc)[:, None]


def adaptive_avg_pool2d_kernel(self, output_size):
    shape = _meta.adaptive_avg_pool2d_shape(self, output_size)
    dt = self._dtype
    acc = acc_dtype(dt)
    x = _arr(self, acc)
    ah = _adaptive_matrix(x.shape[-2], shape[-2], acc)
    aw = _adaptive_matrix(x.shape[-1], shape[-1], acc)
    return _finish(np.matmul(np.matmul(ah, x), aw.T), dt, _meta.channels_last(self))


def adaptive_avg_pool2d_backward_kernel(grad_output, self):
    _meta.check_adaptive_backward(grad_output, self)
    dt = self._dtype
    acc = acc_dtype(dt)
    g = _arr(grad_output, acc)
    ah = _adaptive_matrix(self._shape[-2], g.shape[-2], acc)
    aw = _adaptive_matrix(self._shape[-1], g.shape[-1], acc)
    return _finish(np.matmul(np.matmul(ah.T, g), aw), dt, _meta.channels_last(self))


# ---------------------------------------------------------------- padding
def constant_pad_nd(self, pad, value):
    from ember.core.factory_args import checked_scalar
    shape, plan = _meta.constant_pad_params(self, pad)
    dt = self._dtype
    out = np.full(shape, checked_scalar(value, dt), dt.np)
    src = [slice(None)] * len(shape)
    dst = [slice(None)] * len(shape)
    for i, before, after in plan:
        size = self._shape[i]
        lo, hi = max(-before, 0), size - max(-after, 0)
        if hi <= lo:
            return _finish(out, dt, _meta.channels_last(self))
        src[i] = slice(lo, hi)
        dst[i] = slice(max(before, 0), max(before, 0) + hi - lo)
    out[tuple(dst)] = self._np[tuple(src)]
    return _finish(out, dt, _meta.channels_last(self))


# ---------------------------------------------------------------- embedding
def embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
    _meta.embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)
    idx = indices._np
    n = weight._shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    return from_array(np.ascontiguousarray(weight._np[idx]), weight._dtype)


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    _meta.embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
                                   scale_grad_by_freq)
    dt = grad_output._dtype
    acc = acc_dtype(dt)
    d = grad_output._shape[-1]
    idx = indices._np.reshape(-1).astype(np.int64)
    g = _arr(grad_output, acc).reshape(idx.size, d)
    keep = idx != padding_idx
    gw = np.zeros((num_weights, d), acc)
    if scale_grad_by_freq and idx.size:
        counts = np.bincount(idx, minlength=num_weights)
        g = g / counts[idx][:, None].astype(acc)
    np.add.at(gw, idx[keep], g[keep])
    return _finish(gw, dt)
