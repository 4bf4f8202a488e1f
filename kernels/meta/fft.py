"""Meta kernels of torch's three FFT ops (_fft_r2c, _fft_c2r, _fft_c2c) and of fftfreq:
shapes, dtypes, torch's checks, and torch's output layout, shared with kernels/cpu/fft.py.

torch's CPU FFT (ATen's _exec_fft) writes its result contiguously in a permuted order:
the batch dims first, by decreasing input stride, then the transformed dims in the order
it transforms them (c2c and r2c sort those by decreasing input stride too, r2c keeping
the halved dim last):

    >>> from ember.core.alloc import empty_meta
    >>> fft_c2c(empty_meta((3, 4, 5), D.complex64), [0], 0, True).stride()
    (1, 15, 3)
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.core.factory_args import check_size
from ember.core.shapes import wrap_dim
from ember.core.tensor import contiguous_strides
from ember.kernels.common._errors import not_implemented_for


def wrap_fft_dim(d, ndim) -> int:
    """torch's maybe_wrap_dim without wrapping a 0-d tensor's dim."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return wrap_dim(d, ndim)


def wrap_dims(dims, ndim) -> list:
    """The wrapped dims, which must be unique."""
    out = [wrap_fft_dim(d, ndim) for d in dims]
    if len(set(out)) != len(out):
        raise RuntimeError("FFT dims must be unique")
    return out


def sort_dims(self, dim, exclude_last=False) -> list:
    """torch's _sort_dims: the transformed dims by decreasing input stride (a stable sort)."""
    st = self.stride()
    head = dim[:-1] if exclude_last else dim
    return sorted(head, key=lambda d: -st[d]) + (list(dim[-1:]) if exclude_last else [])


def fft_layout(self, out_shape, dims) -> tuple:
    """(strides, permutation) of an FFT result of `out_shape` over `dims` (see the module
    docstring): the result is contiguous in the permuted order."""
    st = self.stride()
    batch = sorted((d for d in range(len(out_shape)) if d not in dims), key=lambda d: -st[d])
    perm = batch + list(dims)
    permuted = contiguous_strides(tuple(out_shape[d] for d in perm))
    strides = [0] * len(out_shape)
    for p, s in zip(perm, permuted):
        strides[p] = s
    return tuple(strides), perm


def _check_complex(self):
    if not self._dtype.is_complex:
        raise RuntimeError(f"Only supports complex dtypes, but found: {self._dtype.scalar_name}")


def r2c_args(self, dim, onesided) -> tuple:
    """(dims to transform, output shape, sorted dims, output dtype) of _fft_r2c."""
    if self._dtype.category != D.FLOAT:
        raise RuntimeError("Only supports floating-point dtypes, but found: "
                           f"{self._dtype.scalar_name}")
    if self._dtype not in (D.float32, D.float64):
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {self._dtype.scalar_name}")
    dims = wrap_dims(dim, self.dim())
    shape = list(self._shape)
    if onesided:
        shape[dims[-1]] = shape[dims[-1]] // 2 + 1
    return dims, tuple(shape), sort_dims(self, dims, exclude_last=True), self._dtype.to_complex()


def c2c_args(self, dim) -> tuple:
    _check_complex(self)
    dims = wrap_dims(dim, self.dim())
    return dims, sort_dims(self, dims)


def c2r_args(self, dim, last_dim_size) -> tuple:
    """(dims, output shape, output dtype) of _fft_c2r (a c2c over all but the last dim, then
    a one-dim c2r, as torch)."""
    _check_complex(self)
    if last_dim_size < 1:
        raise RuntimeError(f"Invalid number of data points ({last_dim_size}) specified")
    dims = wrap_dims(dim, self.dim())
    if self._shape[dims[-1]] != last_dim_size // 2 + 1:
        raise RuntimeError(f"_fft_c2r expects {last_dim_size // 2 + 1} points along dim "
                           f"{dims[-1]} for last_dim_size={last_dim_size}, but got "
                           f"{self._shape[dims[-1]]}")
    shape = list(self._shape)
    shape[dims[-1]] = last_dim_size
    return dims, tuple(shape), self._dtype.to_real()


def _meta(self, shape, dims, dt):
    strides, _ = fft_layout(self, shape, dims)
    return empty_meta(shape, dt, strides)


def fft_r2c(self, dim, normalization, onesided):
    _, shape, order, dt = r2c_args(self, dim, onesided)
    return _meta(self, shape, order, dt)


def fft_c2c(self, dim, normalization, forward):
    _, order = c2c_args(self, dim)
    return _meta(self, self._shape, order, self._dtype)


def fft_c2r(self, dim, normalization, last_dim_size):
    dims, shape, dt = c2r_args(self, dim, last_dim_size)
    if len(dims) > 1:     # the layout of the c2c over the other dims comes first
        self = fft_c2c(self, dims[:-1], normalization, False)
    return _meta(self, shape, dims[-1:], dt)


def freq_dtype(dtype, name="fftfreq") -> D.dtype:
    """A floating dtype (torch's complex fftfreq fails in its arange)."""
    dt = D.get_default_dtype() if dtype is None else dtype
    if dt.category < D.FLOAT:
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    if dt.is_complex:
        raise not_implemented_for("arange_cpu", dt)
    return dt


def freq_size(n, onesided) -> int:
    """fftfreq's n points, or rfftfreq's n / 2 + 1 (C++'s division: toward zero)."""
    size = (abs(n) // 2 * (1 if n >= 0 else -1) + 1) if onesided else n
    return check_size((size,))[0]


def fft_fftfreq(n, d, dtype, layout, device, pin_memory):
    size = freq_size(n, False)     # (torch allocates first here, rfftfreq checks first)
    return empty_meta((size,), freq_dtype(dtype))


def fft_rfftfreq(n, d, dtype, layout, device, pin_memory):
    return empty_meta((freq_size(n, True),), freq_dtype(dtype, "rfftfreq"))
