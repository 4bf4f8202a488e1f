"""CUDA cumulative ops over scan.cu (a thread per row, in order): cumsum, cumprod (and their
in-place forms), cummax, cummin. Integer and bool inputs accumulate in int64 unless dtype=
says otherwise (the Meta rule's dtype).

    >>> ember.arange(4).cuda().cumsum(0).cpu()                 # doctest: +SKIP
    tensor([0, 1, 3, 6])
"""
import numpy as np

from ember.core import dtype as D
from ember.core.shapes import wrap_dim
from ember.core.tensor import contiguous_strides
from ember.kernels.cuda import _launch as L
from ember.kernels.meta import reduction as MR


def _scan_into(op, out, x, dim):
    """out = the running `op` of x (same dtype, same shape) along dim."""
    if out.numel() == 0:
        return out
    d = wrap_dim(dim, max(x.dim(), 1))
    rows, buf, (s_out, s_in) = L.rows_layout([out, x], d)
    n = x._shape[d] if x.dim() else 1
    L.launch("scan", f"{op}_{out._dtype.name}", rows,
             (np.int64(rows), np.int64(n), buf, np.int64(s_out), np.int64(s_in),
              out.data_ptr(), x.data_ptr()))
    return out


def _cum(op):
    def kernel(self, dim, dtype):
        m = getattr(MR, op)(self, dim, dtype)
        MR.check_cum_loop(op, self, m._dtype, "{}_cuda")
        x = L.to_device_dtype(self, m._dtype, self._device)
        return _scan_into(op, L.empty_like_meta(m, self._device), x, dim)
    kernel.__name__ = kernel.__qualname__ = op
    kernel.__doc__ = f"{op}(self, dim, dtype) along dim on the device."
    return kernel


def _cum_(op, meta):
    def kernel(self, dim, dtype):
        meta(self, dim, dtype)
        MR.check_cum_loop(op, self, self._dtype, "{}_cuda")
        return _scan_into(op, self, self, dim)   # each thread reads an element before writing it
    kernel.__name__ = kernel.__qualname__ = op + "_"
    return kernel


cumsum = _cum("cumsum")
cumprod = _cum("cumprod")
cumsum_ = _cum_("cumsum", MR.cumsum_)
cumprod_ = _cum_("cumprod", MR.cumprod_)


def _cum_extreme(op):
    def kernel(self, dim):
        MR.cummax(self, dim)
        dev, shape = self._device, self._shape
        val = L.empty(dev, shape, contiguous_strides(shape), self._dtype)
        idx = L.empty(dev, shape, contiguous_strides(shape), D.int64)
        if val.numel():
            d = wrap_dim(dim, max(self.dim(), 1))
            rows, buf, strides = L.rows_layout([val, idx, self], d)
            n = shape[d] if shape else 1
            L.launch("scan", f"{op}_{self._dtype.name}", rows,
                     (np.int64(rows), np.int64(n), buf, *map(np.int64, strides),
                      val.data_ptr(), idx.data_ptr(), self.data_ptr()))
        return val, idx
    kernel.__name__ = kernel.__qualname__ = op
    kernel.__doc__ = f"{op}(self, dim) -> (values, indices) on the device."
    return kernel


cummax = _cum_extreme("cummax")
cummin = _cum_extreme("cummin")
