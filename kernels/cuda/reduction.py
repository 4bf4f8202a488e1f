"""CUDA reductions: sum, mean, prod, amax/amin, max/min (all and .dim), argmax/argmin, over
reduce.cu's block reductions (deterministic order). Shapes, dtypes and errors come from the
Meta rules; the input is cast to the result dtype first where torch accumulates in it.

    >>> ember.arange(6.).view(2, 3).cuda().sum(1).cpu()           # doctest: +SKIP
    tensor([ 3., 12.])
"""
import math
import warnings

import numpy as np

from ember.core import dtype as D
from ember.core.factory_args import real_scalar
from ember.core.tensor import contiguous_strides
from ember.kernels.cuda import _launch as L
from ember.kernels.cuda import pointwise as _pw
from ember.kernels.meta import reduction as MR

MAX_BLOCKS = 1024


def _block(n_red: int) -> int:
    """Threads per block: a multiple of 32, no more than the reduced elements need."""
    return min(256, max(32, 1 << max(0, (n_red - 1).bit_length())))


def _launch(kernel, x, dims, outs, scalars=()):
    """Runs `kernel` reducing x over `dims` into `outs` (each shaped like x with `dims`
    removed or kept as size 1: only their strides of the kept dims are used)."""
    kept = [d for d in range(x.dim()) if d not in dims]
    n_out = math.prod(x._shape[d] for d in kept)
    n_red = math.prod(x._shape[d] for d in dims)
    if n_out == 0:
        return
    dev = x._device
    out_strides = []
    for o in outs:
        if o is None:                 # an output the kernel skips (a null pointer)
            out_strides.append([0] * len(kept))
        elif o.dim() == x.dim():      # keepdim
            out_strides.append([o.stride(d) for d in kept])
        else:
            out_strides.append(list(o.stride()))
    kept_buf = L.layout_buffer(dev, [x._shape[d] for d in kept],
                               [[x.stride(d) for d in kept], *out_strides])
    red_buf = L.layout_buffer(dev, [x._shape[d] for d in dims], [[x.stride(d) for d in dims]])
    ptrs = [o.data_ptr() if o is not None else 0 for o in outs]
    L.launch("reduce", kernel, n_out, (np.int64(n_out), np.int64(n_red), kept_buf,
                                        red_buf, *ptrs, x.data_ptr(), *scalars),
             fibers=True, block=_block(n_red), grid=(min(n_out, MAX_BLOCKS),))


def _reduce(op, self, dims, out_shape, dt, scale=1.0):
    """out (new, contiguous, dtype dt) = op-reduction of self (cast to dt) over dims."""
    out = L.empty(self._device, out_shape, contiguous_strides(out_shape), dt)
    x = L.to_device_dtype(self, dt, self._device)
    if x.dim() == 0:
        dims = ()
    # the scale's C type is reduce.cu's Red<T>: int for the types narrower than int
    scale_np = L.acc_scalar(D.int32 if dt.category != D.FLOAT and dt.itemsize < 4 else dt, scale)
    if op in ("sum", "prod") and 0 in [x._shape[d] for d in dims]:
        return L.fill(out, 0 if op == "sum" else 1)
    _launch(f"reduce_{op}_{dt.name}", x, tuple(dims), [out], (scale_np,))
    return out


def _dims(self, dim):
    return MR.reduce_dims(self._shape, dim) if self.dim() else ()


def sum(self, dtype):
    dt = MR.sum_dtype(self._dtype, dtype)
    return _reduce("sum", self, _dims(self, None), (), dt)


def sum_dim(self, dim, keepdim, dtype):
    m = MR.sum_dim(self, dim, keepdim, dtype)
    return _reduce("sum", self, _dims(self, dim), m._shape, m._dtype)


def mean(self, dtype):
    return mean_dim(self, None, False, dtype)


def mean_dim(self, dim, keepdim, dtype):
    m = MR.mean_dim(self, dim, keepdim, dtype)
    dims = _dims(self, dim)
    n = math.prod(self._shape[d] for d in dims)
    if n == 0:
        return L.fill(L.empty(self._device, m._shape, contiguous_strides(m._shape), m._dtype),
                      float("nan"))
    return _reduce("sum", self, dims, m._shape, m._dtype, 1.0 / n)


def prod(self, dtype):
    return _reduce("prod", self, _dims(self, None), (), MR.sum_dtype(self._dtype, dtype))


def prod_dim(self, dim, keepdim, dtype):
    m = MR.prod_dim(self, dim, keepdim, dtype)
    return _reduce("prod", self, _dims(self, dim), m._shape, m._dtype)


def _extreme(op, name):
    def kernel(self, dim, keepdim):
        dims, shape = MR.reduce_layout(self, dim, keepdim)
        MR.check_no_identity(self, name, dim)
        return _reduce(op, self, dims, shape, self._dtype)
    kernel.__name__ = kernel.__qualname__ = name
    return kernel


amax = _extreme("max", "amax")
amin = _extreme("min", "amin")


def max_all(self):
    MR.check_no_identity(self, "max", None)
    return _reduce("max", self, _dims(self, None), (), self._dtype)


def min_all(self):
    MR.check_no_identity(self, "min", None)
    return _reduce("min", self, _dims(self, None), (), self._dtype)


def _arg(which, self, dims, shape, values: bool):
    """(values or None, int64 indices) of argmax/argmin over dims (indices: row-major within
    the reduced dims, as torch's flat index when all dims reduce)."""
    dev = self._device
    idx = L.empty(dev, shape, contiguous_strides(shape), D.int64)
    val = L.empty(dev, shape, contiguous_strides(shape), self._dtype) if values else None
    if self.dim() == 0:
        dims = ()
    _launch(f"reduce_{which}_{self._dtype.name}", self, tuple(dims), [idx, val])
    return val, idx


def argmax(self, dim, keepdim):
    d, shape = MR.argmax_layout(self, dim, keepdim)
    dims = tuple(range(self.dim())) if d is None else (d,)
    return _arg("argmax", self, dims, shape, False)[1]


def argmin(self, dim, keepdim):
    d, shape = MR.argmax_layout(self, dim, keepdim, name="argmin")
    dims = tuple(range(self.dim())) if d is None else (d,)
    return _arg("argmin", self, dims, shape, False)[1]


def max_dim(self, dim, keepdim):
    d, shape = MR.one_dim_layout(self, dim, keepdim, "max")
    return _arg("argmax", self, (d,) if self.dim() else (), shape, True)


def min_dim(self, dim, keepdim):
    d, shape = MR.one_dim_layout(self, dim, keepdim, "min")
    return _arg("argmin", self, (d,) if self.dim() else (), shape, True)


def _all_any(op, self, dims, shape):
    """all (min) / any (max) of self != 0, in the Meta rule's dtype (bool; uint8 for uint8)."""
    dt = MR.all_any_dtype(self)
    x = L.to_device_dtype(self, D.bool_, self._device)
    if self.dim() and 0 in [self._shape[d] for d in dims]:
        return L.fill(L.empty(self._device, shape, contiguous_strides(shape), dt), op == "min")
    res = _reduce(op, x, dims, shape, D.bool_)
    return res if dt is D.bool_ else L.to_device_dtype(res, dt, self._device)


def all_all(self):
    return _all_any("min", self, _dims(self, None), ())


def any_all(self):
    return _all_any("max", self, _dims(self, None), ())


def all_dim(self, dim=None, keepdim=False):
    dims, shape = MR.all_any_layout(self, dim, keepdim)
    return _all_any("min", self, dims, shape)


def any_dim(self, dim=None, keepdim=False):
    dims, shape = MR.all_any_layout(self, dim, keepdim)
    return _all_any("max", self, dims, shape)


def _var_mean(self, dim, correction, keepdim, name, op):
    """(variance, mean) with torch's degrees of freedom max(0, N - correction), two passes
    on the device (16-bit floats computed in float32)."""
    dt = MR.var_dtype(self, name)
    dims, shape = MR.reduce_layout(self, dim, keepdim)
    c = 1.0 if correction is None else real_scalar(correction)
    n = math.prod(self._shape[d] for d in dims)
    if n - c <= 0:
        warnings.warn(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    ct = D.float32 if dt.itemsize == 2 else dt
    x = L.to_device_dtype(self, ct, self._device)
    mean = mean_dim(x, list(dims), True, None)
    dev = _pw.sub(x, mean)
    var = _reduce("sum", _pw.mul(dev, dev), dims, shape, ct,
                  1.0 / (n - c) if n - c > 0 else float("inf"))
    if n == 0:   # 0 / 0
        L.fill(var, float("nan"))
    return L.to_device_dtype(var, dt, self._device), \
        L.to_device_dtype(mean.view(shape), dt, self._device)


def var_correction(self, dim, correction, keepdim):
    return _var_mean(self, dim, correction, keepdim, "std and var", "var")[0]


def std_correction(self, dim, correction, keepdim):
    var = _var_mean(self, dim, correction, keepdim, "std and var", "std")[0]
    return _pw.sqrt(var)


def var_mean_correction(self, dim, correction, keepdim):
    return _var_mean(self, dim, correction, keepdim, "var_mean", "var_mean")


def std_mean_correction(self, dim, correction, keepdim):
    var, mean = _var_mean(self, dim, correction, keepdim, "std_mean", "std_mean")
    return _pw.sqrt(var), mean


def _float_reduce(op, self, dims, shape, dt, scalars=()):
    """reduce.cu's float-only reductions (logsumexp, norm) of self cast to dt over dims."""
    out = L.empty(self._device, shape, contiguous_strides(shape), dt)
    x = L.to_device_dtype(self, dt, self._device)
    _launch(f"reduce_{op}_{dt.name}", x, tuple(dims) if x.dim() else (), [out], scalars)
    return out


def logsumexp(self, dim, keepdim):
    """log(sum(exp(x))) stabilised by the max; integers give the default float dtype and an
    empty reduction gives -inf."""
    m = MR.logsumexp(self, dim, keepdim)
    dims, shape = MR.reduce_layout(self, dim, keepdim)
    if 0 in [self._shape[d] for d in dims]:
        return L.fill(L.empty_like_meta(m, self._device), float("-inf"))
    return _float_reduce("logsumexp", self, dims, shape, m._dtype)


def linalg_vector_norm(self, ord, dim, keepdim, dtype):
    dims, shape, dt = MR.vector_norm_layout(self, ord, dim, keepdim, dtype)
    return _float_reduce("norm", self, dims, shape, dt, (L.acc_scalar(dt, float(ord)),))
