"""torch.fft's functions (ember.fft) over the three FFT ops, as ATen's SpectralOps.cpp:
argument checks, dtype promotion, resizing of the input to the requested lengths, and
the `norm` modes ("backward", "forward", "ortho") as the ops' normalization.

    >>> x = ember.tensor([1.0, 2.0, 3.0, 4.0])
    >>> ember.fft.rfft(x)
    tensor([10.+0.j, -2.+2.j, -2.+0.j])
    >>> ember.fft.irfft(ember.fft.rfft(x))
    tensor([1., 2., 3., 4.])
"""
from __future__ import annotations

import ember
from ember.core import dtype as D
from ember.kernels.meta.fft import wrap_dims, wrap_fft_dim

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2


def _aten():
    return ember.ops.aten


def _norm(norm, forward) -> int:
    """torch's norm_from_string: the normalization of a forward or inverse transform."""
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(x, require_complex=False):
    """Integral inputs become the default float dtype; only float/double (and their complex
    types) are supported on the CPU."""
    dt = x._dtype
    if not dt.is_complex:
        if dt.category != D.FLOAT:
            dt = D.get_default_dtype()
        if dt not in (D.float32, D.float64):
            raise RuntimeError(f"Unsupported dtype {dt.scalar_name}")
        if require_complex:
            dt = dt.to_complex()
    return x if dt is x._dtype else x.to(dt)


def _check_n(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(x, dims, sizes):
    """Slices or zero-pads x along `dims` to `sizes` (-1 keeps a dim's size)."""
    pad = [0] * (2 * x.dim())
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if n == -1 or n == have:
            continue
        if have > n:
            x = x.narrow(d, 0, n)
        else:
            pad[2 * (x.dim() - 1 - d) + 1] = n - have
    return ember.constant_pad_nd(x, pad, 0) if any(pad) else x


# --- one-dim transforms ------------------------------------------------------------
def _c2c(name, x, n, dim, norm, forward):
    if not x.is_complex():
        raise RuntimeError(f"{name} expects a complex input tensor, but got "
                           f"{x._dtype.scalar_name}")
    d = wrap_fft_dim(dim, x.dim())
    n = x.shape[d] if n is None else n
    _check_n(n)
    x = _resize(x, [d], [n])
    return _aten()._fft_c2c.default(x, [d], _norm(norm, forward), forward)


def _r2c(name, x, n, dim, norm, forward, onesided):
    if x.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got {x._dtype.scalar_name}")
    x = _promote(x)
    d = wrap_fft_dim(dim, x.dim())
    n = x.shape[d] if n is None else n
    _check_n(n)
    x = _resize(x, [d], [n])
    r = _aten()._fft_r2c.default(x, [d], _norm(norm, forward), onesided)
    return r if forward else r.conj()


def _c2r(name, x, n, dim, norm, forward):
    x = _promote(x, require_complex=True)
    d = wrap_fft_dim(dim, x.dim())
    last = 2 * (x.shape[d] - 1) if n is None else n
    _check_n(last)
    if n is not None:
        x = _resize(x, [d], [last // 2 + 1])
    if forward:
        x = x.conj()
    return _aten()._fft_c2r.default(x, [d], _norm(norm, forward), last)


def fft_fft(self, n, dim, norm):
    if self.is_complex():
        return _c2c("fft", self, n, dim, norm, True)
    return _r2c("fft", self, n, dim, norm, True, False)


def fft_ifft(self, n, dim, norm):
    if self.is_complex():
        return _c2c("ifft", self, n, dim, norm, False)
    return _r2c("ifft", self, n, dim, norm, False, False)


def fft_rfft(self, n, dim, norm):
    return _r2c("rfft", self, n, dim, norm, True, True)


def fft_irfft(self, n, dim, norm):
    return _c2r("irfft", self, n, dim, norm, False)


def fft_hfft(self, n, dim, norm):
    return _c2r("hfft", self, n, dim, norm, True)


def fft_ihfft(self, n, dim, norm):
    return _r2c("ihfft", self, n, dim, norm, False, True)


# --- n-dim transforms ----------------------------------------------------------------
def _shape_and_dims(x, s, dim):
    """torch's canonicalize_fft_shape_and_dim_args: the transformed dims and their lengths."""
    ndim = x.dim()
    dims = None if dim is None else wrap_dims(dim, ndim)
    if s is not None:
        s = list(s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{ndim} dimensions.")
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    else:
        dims = list(range(ndim)) if dims is None else dims
        shape = [x.shape[d] for d in dims]
    for n in shape:
        _check_n(n)
    return shape, dims


def _c2r_shape_and_dims(name, x, s, dim):
    """The shape and dims of an n-dim c2r, and the output length of its last dim."""
    shape, dims = _shape_and_dims(x, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or list(s)[-1] == -1 else shape[-1]
    _check_n(last)
    shape[-1] = last // 2 + 1
    return shape, dims, last


def _fftn(x, s, dim, norm, forward):
    shape, dims = _shape_and_dims(x, s, dim)
    x = _promote(x, require_complex=True)
    x = _resize(x, dims, shape)
    return _aten()._fft_c2c.default(x, dims, _norm(norm, forward), forward)


def fft_fftn(self, s, dim, norm):
    return _fftn(self, s, dim, norm, True)


def fft_ifftn(self, s, dim, norm):
    return _fftn(self, s, dim, norm, False)


def fft_rfftn(self, s, dim, norm):
    if self.is_complex():
        raise RuntimeError("rfftn expects a real-valued input tensor, but got "
                           f"{self._dtype.scalar_name}")
    shape, dims = _shape_and_dims(self, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize(_promote(self), dims, shape)
    return _aten()._fft_r2c.default(x, dims, _norm(norm, True), True)


def fft_irfftn(self, s, dim, norm):
    shape, dims, last = _c2r_shape_and_dims("irfftn", self, s, dim)
    x = _resize(_promote(self, require_complex=True), dims, shape)
    return _aten()._fft_c2r.default(x, dims, _norm(norm, False), last)


def fft_hfftn(self, s, dim, norm):
    shape, dims, last = _c2r_shape_and_dims("hfftn", self, s, dim)
    x = _resize(_promote(self, require_complex=True), dims, shape)
    mode = _norm(norm, True)
    if len(dims) > 1:
        x = _aten()._fft_c2c.default(x, dims[:-1], mode, True)
    return _aten()._fft_c2r.default(x.conj(), dims[-1:], mode, last)


def fft_ihfftn(self, s, dim, norm):
    shape, dims = _shape_and_dims(self, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = _resize(_promote(self), dims, shape)
    mode = _norm(norm, False)
    r = _aten()._fft_r2c.default(x, dims[-1:], mode, True).conj()
    if len(dims) == 1:
        return r
    return _aten()._fft_c2c.default(r, dims[:-1], mode, False)


def fft_fft2(self, s, dim, norm):
    return fft_fftn(self, s, dim, norm)


def fft_ifft2(self, s, dim, norm):
    return fft_ifftn(self, s, dim, norm)


def fft_rfft2(self, s, dim, norm):
    return fft_rfftn(self, s, dim, norm)


def fft_irfft2(self, s, dim, norm):
    return fft_irfftn(self, s, dim, norm)


def fft_hfft2(self, s, dim, norm):
    return fft_hfftn(self, s, dim, norm)


def fft_ihfft2(self, s, dim, norm):
    return fft_ihfftn(self, s, dim, norm)


# --- shifts ----------------------------------------------------------------------------
def _shift(x, dim, half):
    dims = list(range(x.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    return ember.roll(x, [half(x.shape[d]) for d in dims], dims)


def fft_fftshift(self, dim):
    """The zero frequency moved to the centre: a roll by n // 2 along `dim` (all dims)."""
    return _shift(self, dim, lambda n: n // 2)


def fft_ifftshift(self, dim):
    """fftshift's inverse: a roll by (n + 1) // 2."""
    return _shift(self, dim, lambda n: (n + 1) // 2)
