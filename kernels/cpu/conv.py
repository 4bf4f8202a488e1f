"""Convolution (any number of spatial dims, transposed too) and its backward on CPU
tensors, vectorised with NumPy: im2col through `sliding_window_view` copied in the
layout of one float32/float64 BLAS matmul (batched over images and groups), the batch
taken in cache-sized blocks; the weight gradient is one GEMM over each block's images;
the input gradient (and the transposed forward) is col2im, a strided add per kernel tap
(with stride 1 along the last dim, that dim's taps go into the GEMM and only the leading
taps are added). Pooling: one vectorised op per window tap on strided slabs.
float16/bfloat16 compute in float32 and round once.

    >>> x = ember.ones(1, 1, 3, 3)
    >>> ember.convolution(x, ember.ones(1, 1, 2, 2), None, [1, 1], [0, 0], [1, 1], False,
    ...                   [0, 0], 1)
    tensor([[[[4., 4.],
              [4., 4.]]]])
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.tensor import from_array

from ..meta import conv as _meta
from ._compiled import compiled

_F32 = np.dtype(np.float32)
_FLOATS = (_F32, np.dtype(np.float64))


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
# The im2col matrix of a whole batch is large (here 32 x 144 x 784 float32 = 14 MB) and
# leaves the cache before the GEMM reads it back: the batch is processed in blocks whose
# columns take about this many bytes (one or a few images), each block one vectorised
# copy + one BLAS matmul into a reused buffer. Measured 1.5-2x faster than one big block.
_BLOCK_BYTES = 1 << 20


def _block(n, per_item):
    """Images per block: whole batch when small, else ~_BLOCK_BYTES of columns."""
    return max(1, min(n, _BLOCK_BYTES // max(per_item, 1)))


def _blocks(n, per_item):
    b = _block(n, per_item)
    return [(i, min(b, n - i)) for i in range(0, n, b)]


def _pad(x, padding, fill=0):
    """x zero- (or `fill`-) padded on its trailing spatial dims: `padding` is one int per
    dim (both sides) or a (before, after) pair per dim. One allocation, one copy."""
    pairs = [(p, p) if isinstance(p, int) else tuple(p) for p in padding]
    if not any(a or b for a, b in pairs):
        return x
    lead = x.ndim - len(pairs)
    shape = x.shape[:lead] + tuple(s + a + b for s, (a, b) in zip(x.shape[lead:], pairs))
    out = np.zeros(shape, x.dtype) if fill == 0 else np.full(shape, fill, x.dtype)
    out[(slice(None),) * lead + tuple(slice(a, a + s) for s, (a, _) in
                                      zip(x.shape[lead:], pairs))] = x
    return out


def im2col(x, kernel, stride, padding, dilation, out):
    """(N, C, *spatial) -> the windows (N, C, *out, *kernel) of the zero-padded input
    (a view when there is no padding)."""
    d = len(kernel)
    x = _pad(x, padding)
    win = [dl * (k - 1) + 1 for k, dl in zip(kernel, dilation)]
    v = sliding_window_view(x, win, axis=tuple(range(2, 2 + d)))
    sl = ((slice(None),) * 2 + tuple(slice(0, s * (o - 1) + 1, s) for s, o in zip(stride, out))
          + tuple(slice(None, None, dl) for dl in dilation))
    return v[sl]


def _windows(x, kernel, stride, padding, dilation, out, weight_layout=False):
    """The windows of x as a strided view (N, C, *kernel, *out) (the im2col matrix
    (N, C*K, L) once copied), or with `weight_layout` (C, *kernel, N, *out)
    ((C*K, N*L): the whole batch as one GEMM operand for the weight gradient)."""
    d = len(kernel)
    v = im2col(x, kernel, stride, padding, dilation, out)          # (N, C, *out, *k)
    outs, ks = tuple(range(2, 2 + d)), tuple(range(2 + d, 2 + 2 * d))
    if weight_layout:
        return v.transpose((1,) + ks + (0,) + outs)
    return v.transpose((0, 1) + ks + outs)


def _window_blocks(x, kernel, stride, padding, dilation, out, per_item, weight_layout=False):
    """(i, b, windows of x[i:i + b]) for the blocks of images (see _windows for the layout).
    With padding, each block is zero-padded into one reused buffer (its border stays zero)
    rather than the whole batch at once: the padded images are still in cache for the
    im2col copy."""
    n, d = x.shape[0], len(kernel)
    axis = 1 + d if weight_layout else 0

    def cut(v, i, b):
        return v[(slice(None),) * axis + (slice(i, i + b),)]
    if not any(padding):
        win = _windows(x, kernel, stride, padding, dilation, out, weight_layout)
        for i, b in _blocks(n, per_item):
            yield i, b, cut(win, i, b)
        return
    pbuf = np.zeros((_block(n, per_item), x.shape[1])
                    + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding)), x.dtype)
    inner = (slice(None),) * 2 + tuple(slice(p, p + s) for p, s in zip(padding, x.shape[2:]))
    win = _windows(pbuf, kernel, stride, (0,) * d, dilation, out, weight_layout)
    for i, b in _blocks(n, per_item):
        pbuf[:b][inner] = x[i:i + b]
        yield i, b, cut(win, 0, b)


def conv_forward(x, w, stride, padding, dilation, groups, out, bias=None):
    """y[n, o, *out] = sum_{c, k} w[o, c, k] x_padded[n, g*Cg + c, out*s + k*d] (+ bias[o]):
    per block of images one im2col copy and one BLAS matmul (g, Og, Cg*K) @ (b, g, Cg*K, L)
    written straight into the (N, O, *out) result, the bias added while it is in cache."""
    n, o = x.shape[0], w.shape[0]
    kern = tuple(w.shape[2:])
    ck = x.shape[1] * math.prod(kern)
    ll = math.prod(out)
    wm = w.reshape(groups, o // groups, ck // groups)
    if bias is not None:
        bias = bias.reshape(groups, o // groups, 1)
    if _pointwise(kern, padding):       # one matmul over the channels, no im2col
        xs = _strided_positions(x, stride)[(slice(None),) * 2 + tuple(map(slice, out))]
        y = np.matmul(wm, xs.reshape(n, groups, x.shape[1] // groups, ll))
        if bias is not None:
            y += bias
        return y.reshape((n, o) + tuple(out))
    if n * ll <= _ONE_GEMM_POSITIONS and n:
        return _conv_forward_one_gemm(x, wm, kern, stride, padding, dilation, out, bias)
    y = np.empty((n, groups, o // groups, ll), np.result_type(x, w))
    per = ck * ll * x.itemsize
    buf = np.empty((_block(n, per), x.shape[1]) + kern + tuple(out), x.dtype)
    for i, b, win in _window_blocks(x, kern, stride, padding, dilation, out, per):
        if win.flags.c_contiguous:          # e.g. a 1x1 kernel: the images themselves
            cols = win
        else:
            cols = buf[:b]                                              # (b, C, *k, *out)
            np.copyto(cols, win)
        np.matmul(wm, cols.reshape(b, groups, ck // groups, ll), out=y[i:i + b])
        if bias is not None:
            y[i:i + b] += bias
    return y.reshape((n, o) + tuple(out))


# Up to this many output positions in the whole batch (small maps: the deep layers of a
# ResNet on 32x32 images), conv_forward makes one GEMM of the batch, (g, Og, Cg*K) @
# (g, Cg*K, N*L), rather than one per image of a few columns each (2-3x faster at 2x2).
_ONE_GEMM_POSITIONS = 256


def _pointwise(kern, padding):
    """Whether a convolution is pointwise (a 1x1 kernel, no padding): each output position
    reads the input position `stride` times its own, a matmul over the channels."""
    return all(k == 1 for k in kern) and not any(padding)


def _strided_positions(x, stride):
    """The input positions a pointwise convolution reads, (N, C, *out) (a view)."""
    if all(s == 1 for s in stride):
        return x
    return x[(slice(None),) * 2 + tuple(slice(None, None, s) for s in stride)]


def _conv_forward_one_gemm(x, wm, kern, stride, padding, dilation, out, bias):
    """conv_forward as one GEMM over the batch's windows in (C, *k, N, *out) order."""
    n, c = x.shape[:2]
    groups, og, ll = wm.shape[0], wm.shape[1], math.prod(out)
    cols = np.empty((c,) + kern + (n,) + tuple(out), x.dtype)
    for _, _, win in _window_blocks(x, kern, stride, padding, dilation, out, 1, True):
        np.copyto(cols, win)                                            # one block: the batch
    y = np.matmul(wm, cols.reshape(groups, -1, n * ll))                  # (g, Og, N*L)
    if bias is not None:
        y += bias
    y = y.reshape(groups * og, n, ll).transpose(1, 0, 2)
    return np.ascontiguousarray(y).reshape((n, groups * og) + tuple(out))


def _tap_slices(tap, kern_in, stride, dilation, padding, out):
    """For one kernel tap, the (output, input) slices of the positions it connects:
    input index = o * stride + tap * dilation - padding, kept when inside the input."""
    src, dst = [], []
    for t, size, s, dl, p, oo in zip(tap, kern_in, stride, dilation, padding, out):
        off = t * dl - p
        lo = max(0, -(off // s)) if off < 0 else 0      # first o with o*s + off >= 0
        hi = min(oo, (size - 1 - off) // s + 1) if size - 1 - off >= 0 else 0
        if hi <= lo:
            return None
        src.append(slice(lo, hi))
        start = lo * s + off
        dst.append(slice(start, start + s * (hi - lo - 1) + 1, s))
    return tuple(src), tuple(dst)


def _input_grad_rows(gy, w, in_spatial, stride, padding, dilation, groups):
    """conv_input_grad when the last spatial dim has stride 1: along that dim the adjoint
    is itself a correlation (of gy, zero-padded, with the flipped kernel), so it goes into
    the GEMM: per block one im2col copy of gy along the last dim only, (b, g, Og*kw, L')
    (L' = the leading output dims x the input's last dim), one matmul with the weight as
    (g, K'*Cg, Og*kw) (K' = the leading kernel taps), then per leading tap one add of a
    (b, C, *rows) slab whose runs are whole input rows into the input positions it reads."""
    n, o = gy.shape[:2]
    out = tuple(gy.shape[2:])
    d = len(out)
    cg, kern = w.shape[1], tuple(w.shape[2:])
    og, kl, kw = o // groups, kern[:-1], kern[-1]
    klp = math.prod(kl)
    wi, dw, pw = in_spatial[-1], dilation[-1], padding[-1]
    # gyw[..., q] = gy[..., q - left]: input column x reads gy at x + pw - j*dw, that is
    # gyw[x + (kw - 1 - j) * dw], a window of gyw with the flipped kernel
    left = dw * (kw - 1) - pw
    width = wi + dw * (kw - 1)
    lo, hi = max(0, left), min(width, left + out[-1])
    lp = math.prod(out[:-1]) * wi
    per = max(o * kw, groups * klp * cg) * lp * gy.itemsize
    blk = _block(n, per)
    # each block of gy is widened into one reused buffer (its margins stay zero)
    gyw = np.zeros((blk, o) + out[:-1] + (width,), gy.dtype)
    win = sliding_window_view(gyw, dw * (kw - 1) + 1, axis=-1)[..., ::dw]  # (.., wi, kw)
    win = win.transpose((0, 1, 2 + d) + tuple(range(2, 2 + d)))         # (b, O, kw, .., wi)
    wr = w.reshape((groups, og, cg) + kern)[..., ::-1]
    wr = np.ascontiguousarray(wr.transpose((0,) + tuple(range(3, 2 + d)) + (2, 1, 2 + d)))
    wr = wr.reshape(groups, klp * cg, og * kw)                          # (g, K'*Cg, Og*kw)
    dt = np.result_type(gy, w)
    gx = np.zeros((n, groups * cg) + tuple(in_spatial), dt)
    gxg = gx.reshape((n, groups, cg) + tuple(in_spatial))
    taps = [(tap, s) for tap in itertools.product(*(range(k) for k in kl))
            if (s := _tap_slices(tap, in_spatial[:-1], stride[:-1], dilation[:-1],
                                 padding[:-1], out[:-1])) is not None]
    cbuf = np.empty((blk, o, kw) + out[:-1] + (wi,), gy.dtype)
    abuf = np.empty((blk, groups, klp * cg, lp), dt)
    full = (slice(None),) * 3
    for i, b in _blocks(n, per):
        if hi > lo:
            gyw[:b, ..., lo:hi] = gy[i:i + b, ..., lo - left:hi - left]
        cols = cbuf[:b]
        np.copyto(cols, win[:b])
        a = abuf[:b]
        np.matmul(wr, cols.reshape(b, groups, og * kw, lp), out=a)
        a = a.reshape((b, groups) + kl + (cg,) + out[:-1] + (wi,))
        dst = gxg[i:i + b]
        for tap, (src_sl, dst_sl) in taps:
            dst[full + dst_sl] += a[(slice(None),) * 2 + tap + (slice(None),) + src_sl]
    return gx


def conv_input_grad(gy, w, in_spatial, stride, padding, dilation, groups):
    """The adjoint of conv_forward in x (col2im): (N, O, *out) -> (N, C, *in_spatial). Per
    block of images one batched matmul W^T @ gy whose rows are tap-major (K, Cg), then per
    kernel tap one strided add of its (b, g, Cg, *out) slab (contiguous over Cg and the
    positions) into the input positions it reads (clipped to the input)."""
    if _pointwise(w.shape[2:], padding):  # one matmul, put at the positions read
        n, o = gy.shape[:2]
        og, cg = o // groups, w.shape[1]
        out = tuple(gy.shape[2:])
        cols = np.matmul(w.reshape(groups, og, cg).transpose(0, 2, 1),
                         gy.reshape(n, groups, og, math.prod(out)))
        cols = cols.reshape((n, groups * cg) + out)
        if tuple(in_spatial) == out:
            return cols
        gx = np.zeros((n, groups * cg) + tuple(in_spatial), cols.dtype)
        _strided_positions(gx, stride)[(slice(None),) * 2 + tuple(map(slice, out))] = cols
        return gx
    n, o = gy.shape[:2]
    out = tuple(gy.shape[2:])
    cg, kern = w.shape[1], tuple(w.shape[2:])
    og, kk = o // groups, math.prod(kern)
    ll = math.prod(out)
    # few output positions (n * L < Og: deep layers of small images): the weight is read as
    # it lies, (g, Cg*K, Og) transposed for BLAS, rather than reordered (a copy of all of it)
    tap_major = n * ll >= og
    if tap_major and stride[-1] == 1:
        return _input_grad_rows(gy, w, in_spatial, stride, padding, dilation, groups)
    if tap_major:
        wk = np.ascontiguousarray(w.reshape(groups, og, cg, kk).transpose(0, 3, 2, 1))
        wk = wk.reshape(groups, kk * cg, og)                                # (g, K*Cg, Og)
    else:
        wk = w.reshape(groups, og, cg * kk).transpose(0, 2, 1)              # (g, Cg*K, Og)
    gyg = gy.reshape(n, groups, og, ll)
    dt = np.result_type(gy, w)
    gx = np.zeros((n, groups * cg) + tuple(in_spatial), dt)
    gxg = gx.reshape((n, groups, cg) + tuple(in_spatial))
    taps = [(tap, s) for tap in itertools.product(*(range(k) for k in kern))
            if (s := _tap_slices(tap, in_spatial, stride, dilation, padding, out)) is not None]
    per = groups * kk * cg * ll * gx.itemsize
    buf = np.empty((_block(n, per), groups, kk * cg, ll), dt)
    for i, b in _blocks(n, per):
        cols = buf[:b]
        np.matmul(wk, gyg[i:i + b], out=cols)
        if tap_major:
            cols = cols.reshape((b, groups) + kern + (cg,) + out)
        else:       # (b, g, Cg, *k, *out) seen as (b, g, *k, Cg, *out)
            cols = np.moveaxis(cols.reshape((b, groups, cg) + kern + out), 2, 2 + len(kern))
        dst = gxg[i:i + b]
        if len(kern) == 2 and dst.size <= _COMPILED_COL2IM:
            compiled("_conv_loop").col2im2d(cols, dst, *stride, *padding, *dilation)
            continue
        for tap, (src_sl, dst_sl) in taps:
            dst[(slice(None),) * 3 + dst_sl] += cols[(slice(None),) * 2 + tap + (slice(None),)
                                                     + src_sl]
    return gx


# Up to this many input-gradient elements per block, the 2-d col2im is one compiled call
# (_conv_loop.col2im2d) rather than one NumPy add per kernel tap.
_COMPILED_COL2IM = 1 << 16


def conv_weight_grad(x, gy, kern, stride, padding, dilation, groups):
    """The adjoint of conv_forward in w: per group and block of images one GEMM
    (Cg*K, b*L) @ (b*L, Og) of the windows of x and gy in (N, *out, O) order, summed and
    transposed to (O, Cg, *k)."""
    n, o = gy.shape[:2]
    c = x.shape[1]
    cg, og = c // groups, o // groups
    d = gy.ndim - 2
    kern, out = tuple(kern), tuple(gy.shape[2:])
    ck = c * math.prod(kern)
    ll = math.prod(out)
    dt = np.result_type(x, gy)
    if _pointwise(kern, padding):       # one GEMM (g, Og, N*L) @ (g, N*L, Cg)
        xs = _strided_positions(x, stride)[(slice(None),) * 2 + tuple(map(slice, out))]
        gyr = np.ascontiguousarray(gy.reshape(n, groups, og, ll).transpose(1, 2, 0, 3))
        xr = np.ascontiguousarray(xs.reshape(n, groups, cg, ll).transpose(1, 0, 3, 2))
        part = np.matmul(gyr.reshape(groups, og, n * ll), xr.reshape(groups, n * ll, cg))
        return part.reshape((o, cg) + kern)
    gyt = gy.transpose((0,) + tuple(range(2, 2 + d)) + (1,))              # (N, *out, O)
    # per block (g, Og, Cg*K) += gy (g, Og, b*L) @ windows (g, b*L, Cg*K), both operands
    # transposed views; when the reduction b*L is the long side, (g, Cg*K, Og) = windows @ gy
    # instead, neither transposed (OpenBLAS with a transposed second operand is 2.4x slower
    # at 147x1024x8: 122 vs 50 us; at 4608x8x512 the first form is 4x faster)
    rows_first = n * ll >= ck // groups
    acc = None
    per = ck * ll * x.itemsize
    full = _block(n, per)
    buf = np.empty((c,) + kern + (full,) + out, x.dtype)
    for i, b, win in _window_blocks(x, kern, stride, padding, dilation, out, per, True):
        cols = buf if b == full else np.empty((c,) + kern + (b,) + out, x.dtype)
        np.copyto(cols, win)                                            # (C, *k, b, *out)
        g = np.ascontiguousarray(gyt[i:i + b]).reshape(b * ll, groups, og)
        cm = cols.reshape(groups, ck // groups, b * ll)
        if rows_first:
            part = np.matmul(cm, g.transpose(1, 0, 2)).transpose(0, 2, 1)
        else:
            part = np.matmul(g.transpose(1, 2, 0), cm.transpose(0, 2, 1))
        if acc is None:
            acc = part
        else:
            acc += part
    if acc is None:     # an empty batch
        acc = np.zeros((groups, og, ck // groups), dt)
    return acc.reshape((o, cg) + tuple(kern))


# ---------------------------------------------------------------- kernels
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    p = _meta.cached_conv_params(input, weight, bias, stride, padding, dilation, transposed,
                                 output_padding, groups)
    _meta.check_conv_dtypes(input, weight, bias, transposed)
    dt = input._dtype
    acc = acc_dtype(dt)
    x, w = _arr(input, acc), _arr(weight, acc)
    out = p.out_shape[2:]
    b = None if bias is None else _arr(bias, acc)
    if not transposed:
        y = conv_forward(x, w, p.stride, p.padding, p.dilation, groups, out, b)
    else:
        y = conv_input_grad(x, w, out, p.stride, p.padding, p.dilation, groups)
        if b is not None:       # y is a fresh array of the kernel's own
            y += b.reshape((1, -1) + (1,) * p.dim)
    return _finish(y, dt, _meta.channels_last(input, weight))


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    p, _ = _meta.convolution_backward_shapes(grad_output, input, weight, bias_sizes, stride,
                                                  padding, dilation, transposed, output_padding,
                                                  groups, output_mask,
                                                  _meta.cached_conv_params)
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


def _slab(xp, i, j, stride, out):
    """The (N, C, oH, oW) strided slab of a padded input seen by the window tap at (i, j)."""
    (sh, sw), (oh, ow) = stride, out
    return xp[:, :, i:i + sh * (oh - 1) + 1 if oh else i:sh,
              j:j + sw * (ow - 1) + 1 if ow else j:sw]


def max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
    p = _meta.pool2d_params(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    dt = self._dtype
    if dt is D.bool_:
        raise _meta.not_implemented_for("max_pool2d", dt)
    x = _as4d(self._np)
    if dt is D.bfloat16 or dt is D.float16:
        x = x.astype(_F32)
    h, w = x.shape[-2:]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = p.kernel, p.stride, p.padding, p.dilation
    oh, ow = p.out
    shape, cl = p.shape, _meta.channels_last(self)
    if x.dtype in _FLOATS and x.size and x.size // (h * w) * oh * ow <= _COMPILED_POOL:
        # small maps: torch's loop, compiled (the NumPy steps below cost ~40 calls)
        planes = x.reshape(math.prod(x.shape[:-2]), h, w)
        vals, idx = np.empty((len(planes), oh, ow), x.dtype), np.empty((len(planes), oh, ow),
                                                                       np.int64)
        compiled("_pool_loop").max_pool2d(planes, kh, kw, sh, sw, ph, pw, dh, dw, vals, idx)
        return _finish(vals.reshape(shape), dt, cl), _finish(idx.reshape(shape), D.int64, cl)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    rh = max(ph, (oh - 1) * sh + dh * (kh - 1) + 1 - h - ph)
    rw = max(pw, (ow - 1) * sw + dw * (kw - 1) + 1 - w - pw)
    xp = _pad(x, ((ph, rh), (pw, rw)), fill)
    # the max: one np.maximum per kernel tap, each a strided (N, C, oH, oW) slab (NaN wins)
    taps = [(i * dh, j * dw) for i, j in itertools.product(range(kh), range(kw))]
    slabs = [_slab(xp, i, j, (sh, sw), (oh, ow)) for i, j in taps]
    vals = slabs[0].copy()
    for v in slabs[1:]:
        np.maximum(vals, v, out=vals)
    # its tap, torch's (`val > max || isnan(val)`): the first one equal to the max, the
    # largest code K - tap, or the last NaN, the largest code tap + 1; with arithmetic only
    # (masked stores are several times slower)
    nt = len(taps)
    code_dt = np.int8 if nt < 127 else np.int32
    code = np.zeros(vals.shape, code_dt)
    for k, v in enumerate(slabs):
        np.maximum(code, np.multiply(v == vals, code_dt(nt - k)), out=code)
    am = nt - code.astype(np.int64)
    if x.dtype.kind == "f" and np.isnan(vals).any():
        code[...] = 0
        for k, v in enumerate(slabs):
            np.maximum(code, np.multiply(np.isnan(v), code_dt(k + 1)), out=code)
        am = np.where(code > 0, code.astype(np.int64) - 1, am)
    h0 = np.arange(oh)[:, None] * sh - ph
    w0 = np.arange(ow)[None, :] * sw - pw
    tap_off = np.array([i * w + j for i, j in taps], np.int64)
    idx = (h0 * w + w0) + tap_off[am]
    # a padded position wins only when every value equals the fill: torch keeps the first
    # position inside the input then
    if (ph or pw or rh or rw) and (vals == fill).any():
        ki, kj = np.divmod(am, kw)
        hh, ww = h0 + ki * dh, w0 + kj * dw
        bad = (hh < 0) | (hh >= h) | (ww < 0) | (ww >= w)
        fh = h0 + (-(h0 // dh)).clip(0) * dh * (h0 < 0)
        fw = w0 + (-(w0 // dw)).clip(0) * dw * (w0 < 0)
        hh = np.where(bad, np.broadcast_to(fh, hh.shape), hh)
        ww = np.where(bad, np.broadcast_to(fw, ww.shape), ww)
        idx = (hh * w + ww).astype(np.int64)
    return _finish(vals.reshape(shape), dt, cl), _finish(idx.reshape(shape), D.int64, cl)


# Up to this many outputs, max_pool2d runs _pool_loop.max_pool2d (one compiled scan per
# output: ~2.7 ns a tap here); above, the vectorised NumPy slabs are faster (ResNet-18's
# 8x64x16x16 k3/s2: 631 vs 916 us; 4x8x16x16: 111 vs 58 us).
_COMPILED_POOL = 4096


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    _meta.max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding,
                                           dilation, ceil_mode, indices)
    dt = self._dtype
    g = grad_output._np
    h, w = self._shape[-2:]
    planes = math.prod(self._shape[:-2])
    idx = indices._np.reshape(planes, math.prod(indices._shape[-2:])).astype(np.int64)
    if g.dtype in _FLOATS and g.dtype == dt.np:     # torch's loop, compiled
        gi = np.zeros((planes, h * w), g.dtype)
        if compiled("_pool_loop").max_pool2d_backward(g.reshape(idx.shape), idx, gi):
            return _finish(gi.reshape(self._shape), dt, _meta.channels_last(self))
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
    xp = _pad(x, ((ph, rh), (pw, rw)))
    # the window sums, one strided slab per tap (integers summed in 64 bits, like np.sum)
    s = None
    for i, j in itertools.product(range(kh), range(kw)):
        v = _slab(xp, i, j, (sh, sw), (oh, ow))
        if s is None:
            s = v.astype(np.add.reduce(x[:0].ravel()).dtype if x.dtype.kind in "iu" else x.dtype)
        else:
            s += v
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


def _even_windows(in_hw, out_hw):
    """(kh, kw) when every adaptive window has the same size (input divisible by output),
    else None."""
    (h, w), (oh, ow) = in_hw, out_hw
    if oh and ow and h % oh == 0 and w % ow == 0:
        return h // oh, w // ow
    return None


def adaptive_avg_pool2d_kernel(self, output_size):
    shape = _meta.adaptive_avg_pool2d_shape(self, output_size)
    dt = self._dtype
    acc = acc_dtype(dt)
    x = _arr(self, acc)
    if (k := _even_windows(x.shape[-2:], shape[-2:])) is not None:   # window sums / kh / kw
        windows = x.reshape(x.shape[:-2] + (shape[-2], k[0], shape[-1], k[1]))
        y = windows.sum(axis=(-3, -1))
        y /= x.dtype.type(k[0])
        y /= x.dtype.type(k[1])
        return _finish(y, dt, _meta.channels_last(self))
    ah = _adaptive_matrix(x.shape[-2], shape[-2], acc)
    aw = _adaptive_matrix(x.shape[-1], shape[-1], acc)
    return _finish(np.matmul(np.matmul(ah, x), aw.T), dt, _meta.channels_last(self))


def adaptive_avg_pool2d_backward_kernel(grad_output, self):
    _meta.check_adaptive_backward(grad_output, self)
    dt = self._dtype
    acc = acc_dtype(dt)
    g = _arr(grad_output, acc)
    if (k := _even_windows(self._shape[-2:], g.shape[-2:])) is not None:  # g / kh / kw spread
        share = g / g.dtype.type(k[0])
        share /= g.dtype.type(k[1])
        lead = g.shape[:-2]
        spread = np.broadcast_to(share[..., :, None, :, None], lead + (g.shape[-2], k[0],
                                                                       g.shape[-1], k[1]))
        return _finish(spread.reshape(self._shape), dt, _meta.channels_last(self))
    ah = _adaptive_matrix(self._shape[-2], g.shape[-2], acc)
    aw = _adaptive_matrix(self._shape[-1], g.shape[-1], acc)
    return _finish(np.matmul(np.matmul(ah.T, g), aw), dt, _meta.channels_last(self))


# ---------------------------------------------------------------- padding
def constant_pad_nd(self, pad, value):
    from ember.core.factory_args import checked_scalar
    shape, plan = _meta.constant_pad_params(self, pad)
    dt = self._dtype
    res = empty_cpu(shape, dt, _meta.constant_pad_strides(self, shape, plan))
    out = res._np
    if any(b > 0 or a > 0 for _, b, a in plan):   # (else a narrowed copy: value unchecked)
        out[...] = checked_scalar(value, dt)
    src = [slice(None)] * len(shape)
    dst = [slice(None)] * len(shape)
    for i, before, after in plan:
        size = self._shape[i]
        lo, hi = max(-before, 0), size - max(-after, 0)
        if hi <= lo:
            return res
        src[i] = slice(lo, hi)
        dst[i] = slice(max(before, 0), max(before, 0) + hi - lo)
    out[tuple(dst)] = self._np[tuple(src)]
    return res


# ---------------------------------------------------------------- embedding
def embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
    _meta.check_embedding(weight, indices)
    idx = indices._np
    n = weight._shape[0]
    if idx.size and (np.minimum.reduce(idx, None) < 0 or np.maximum.reduce(idx, None) >= n):
        raise IndexError("index out of range in self")
    return from_array(np.ascontiguousarray(weight._np[idx]), weight._dtype)


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    _meta.check_indices(indices, "embedding_backward", 2)
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
    add_rows_at(gw, idx[keep], g[keep])
    return _finish(gw, dt)



def add_rows_at(out, idx, rows):
    """`np.add.at(out, idx, rows)` for (n, d) float rows, in its order (each index's rows
    added first to last, so the same values), through one compiled loop (_rows_loop: an
    embedding's backward at 512 x 128 in ~15 us instead of ~150); add.at itself for other
    dtypes and for out-of-range indices (its IndexError)."""
    if idx.size and out.dtype == rows.dtype and out.dtype in _FLOATS and \
            -len(out) <= idx.min() and idx.max() < len(out):
        compiled("_rows_loop").add_rows(out, idx, rows)
    else:
        np.add.at(out, idx, rows)
