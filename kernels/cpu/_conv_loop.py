"""col2im of a 2-d convolution compiled by numba: the input gradient's scatter of each
kernel tap's columns into the input positions that tap reads, in one call instead of
one NumPy add per tap (at small sizes, where each add costs more in overhead than in
work). Per element the taps are added in the same order as conv.py's NumPy loop, so
the sums are the same bits.

    >>> cols = np.ones((1, 1, 2, 2, 1, 2, 2))      # (N, g, kh, kw, Cg, oH, oW)
    >>> gx = np.zeros((1, 1, 1, 3, 3))             # (N, g, Cg, H, W)
    >>> col2im2d(cols, gx, 1, 1, 0, 0, 1, 1); gx[0, 0, 0]
    array([[1., 2., 1.],
           [2., 4., 2.],
           [1., 2., 1.]])
"""
from __future__ import annotations

import numba


@numba.njit(cache=True, nogil=True)
def col2im2d(cols, gx, sh, sw, ph, pw, dh, dw):
    """gx[n, g, c, y*sh + i*dh - ph, x*sw + j*dw - pw] += cols[n, g, i, j, c, y, x] for
    the positions inside gx, taps (i, j) in order."""
    n, groups, kh, kw, cg, oh, ow = cols.shape
    h, w = gx.shape[3], gx.shape[4]
    for b in range(n):
        for g in range(groups):
            for i in range(kh):
                for j in range(kw):
                    for c in range(cg):
                        src, dst = cols[b, g, i, j, c], gx[b, g, c]
                        for y in range(oh):
                            iy = y * sh + i * dh - ph
                            if iy < 0 or iy >= h:
                                continue
                            for x in range(ow):
                                ix = x * sw + j * dw - pw
                                if 0 <= ix < w:
                                    dst[iy, ix] += src[y, x]
