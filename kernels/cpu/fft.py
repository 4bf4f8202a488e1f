"""CPU kernels of torch's FFT ops over scipy.fft (pocketfft, in single or double precision
like the input), in torch's output layout (kernels/meta/fft.py), and fftfreq.

    >>> from ember.core.tensor import from_array
    >>> fft_r2c(from_array(np.array([1.0, 2.0, 3.0, 4.0])), [0], 0, True).numpy()
    array([10.+0.j, -2.+2.j, -2.+0.j])
"""
from __future__ import annotations

import numpy as np
import scipy.fft as sfft

from ember.core.alloc import empty_cpu
from ember.core.tensor import contiguous_strides, from_array
from ember.kernels.meta import fft as M

# torch's normalization (0: none, 1: 1/sqrt(n), 2: 1/n) as scipy's `norm` of a forward
# transform and of an inverse one
_FORWARD = ("backward", "ortho", "forward")
_INVERSE = ("forward", "ortho", "backward")


def _transform(one_dim, n_dim, a, dims, norm):
    """scipy's transform over `dims` (its one-dim function for one dim: less overhead)."""
    if len(dims) == 1:
        return one_dim(a, axis=dims[0], norm=norm)
    return n_dim(a, axes=dims, norm=norm)


def _result(self, r: np.ndarray, dims, dt):
    """The result array `r` as a tensor with torch's layout for an FFT of `self` (which is
    contiguous when self is and the transformed dims are its last ones, in order)."""
    shape = r.shape
    n = len(shape)
    if r.flags.c_contiguous and r.dtype == dt.np and self.stride() == contiguous_strides(
            self._shape) and list(dims) == list(range(n - len(dims), n)):
        return from_array(r, dt)
    strides, _ = M.fft_layout(self, shape, dims)
    if strides == contiguous_strides(shape) and r.flags.c_contiguous and r.dtype == dt.np:
        return from_array(r, dt)
    out = empty_cpu(shape, dt, strides)
    np.copyto(out._np, r, casting="unsafe")
    return out


def fft_r2c(self, dim, normalization, onesided):
    """The forward FFT of a real tensor over `dim`; `onesided` keeps the last dim's
    non-negative frequencies only (n // 2 + 1 of them)."""
    dims, _, order, dt = M.r2c_args(self, dim, onesided)
    r = _transform(sfft.rfft, sfft.rfftn, self._np, dims, _FORWARD[normalization])
    if not onesided:
        r = _conjugate_symmetric(r, dims, self._shape[dims[-1]])
    return _result(self, r, order, dt)


def _conjugate_symmetric(half: np.ndarray, dims, n: int) -> np.ndarray:
    """The full transform of a real input from its onesided part along dims[-1] (n points
    there), as torch fills it: X[k] = conj(X[-k]) over all the transformed dims."""
    d = dims[-1]
    mirror = half
    for other in dims[:-1]:          # index -i (mod size) along the other transformed dims
        mirror = np.roll(np.flip(mirror, other), 1, other)
    rest = np.conj(np.take(mirror, n - np.arange(half.shape[d], n), axis=d))
    return np.concatenate([half, rest], axis=d)


def fft_c2c(self, dim, normalization, forward):
    """The forward (or inverse) FFT of a complex tensor over `dim`."""
    dims, order = M.c2c_args(self, dim)
    if not dims:
        return self.clone()
    if forward:
        r = _transform(sfft.fft, sfft.fftn, self._np, dims, _FORWARD[normalization])
    else:
        r = _transform(sfft.ifft, sfft.ifftn, self._np, dims, _INVERSE[normalization])
    return _result(self, r, order, self._dtype)


def fft_c2r(self, dim, normalization, last_dim_size):
    """The inverse FFT of Hermitian (onesided) data into a real tensor with
    `last_dim_size` points along the last dim of `dim`: as torch, a c2c over the other
    dims, then a one-dim c2r."""
    dims, _, dt = M.c2r_args(self, dim, last_dim_size)
    if len(dims) > 1:
        self = fft_c2c(self, dims[:-1], normalization, False)
    r = sfft.irfft(self._np, n=last_dim_size, axis=dims[-1], norm=_INVERSE[normalization])
    return _result(self, r, dims[-1:], dt)


def _frequencies(k: np.ndarray, n, d, dt):
    """torch's fftfreq: k (in the result dtype) times 1 / (n * d), rounded to it (n = 0
    gives inf, so rfftfreq(0) is [nan] as torch's)."""
    with np.errstate(all="ignore"):
        scale = dt.np.type(np.float64(1.0) / (n * d))
        return from_array(k.astype(dt.np) * scale, dt)


def fft_fftfreq(n, d, dtype, layout, device, pin_memory):
    """[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n * d)."""
    size = M.freq_size(n, False)     # (torch allocates first here, rfftfreq checks first)
    dt = M.freq_dtype(dtype)
    k = np.arange(size)
    k[(n + 1) // 2:] -= n
    return _frequencies(k, n, d, dt)


def fft_rfftfreq(n, d, dtype, layout, device, pin_memory):
    """[0, 1, ..., n // 2] / (n * d)."""
    dt = M.freq_dtype(dtype, "rfftfreq")
    return _frequencies(np.arange(M.freq_size(n, True)), n, d, dt)
