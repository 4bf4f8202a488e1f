"""max_pool2d's loops compiled by numba, in the order of torch's CPU kernel
(aten/src/ATen/native/cpu/MaxPoolKernel.cpp): per output position the window clipped to
the input, scanned row by row; a value wins when `val > max or isnan(val)` (so the first
largest value, or the last NaN), and a window of -inf keeps its first position inside
the input. The backward adds each output's gradient at its index, outputs in order.

    >>> x = np.array([[[1., 3.], [2., 0.]]])
    >>> out, idx = np.empty((1, 1, 1)), np.empty((1, 1, 1), np.int64)
    >>> max_pool2d(x, 2, 2, 2, 2, 0, 0, 1, 1, out, idx)
    >>> out.ravel(), idx.ravel()
    (array([3.]), array([1]))
"""
from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def max_pool2d(x, kh, kw, sh, sw, ph, pw, dh, dw, out, idx):
    """out, idx (P, oH, oW) of the planes x (P, H, W); taps outside the input skipped."""
    planes, h, w = x.shape
    oh, ow = out.shape[1], out.shape[2]
    for p in range(planes):
        xp = x[p]
        for i in range(oh):
            h0 = i * sh - ph
            first_h = h0
            while first_h < 0:
                first_h += dh
            for j in range(ow):
                w0 = j * sw - pw
                first_w = w0
                while first_w < 0:
                    first_w += dw
                best = first_h * w + first_w
                m = x.dtype.type(-np.inf)
                for a in range(kh):
                    y = h0 + a * dh
                    if y < 0 or y >= h:
                        continue
                    for b in range(kw):
                        z = w0 + b * dw
                        if z < 0 or z >= w:
                            continue
                        v = xp[y, z]
                        if v > m or math.isnan(v):
                            m = v
                            best = y * w + z
                out[p, i, j] = m
                idx[p, i, j] = best


@numba.njit(cache=True, nogil=True)
def max_pool2d_backward(g, idx, gi):
    """gi[p, idx[p, k]] += g[p, k] for the planes p and outputs k in order (gi zeroed);
    False (gi partly written) when an index is outside the plane."""
    n = gi.shape[1]
    for p in range(g.shape[0]):
        for k in range(g.shape[1]):
            at = idx[p, k]
            if at < 0 or at >= n:
                return False
            gi[p, at] += g[p, k]
    return True
