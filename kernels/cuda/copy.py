"""CUDA copy kernels: copy_ (host<->device and device<->device, with broadcasting and casts),
_to_copy, clone, fill_, zero_. Device-side casts are elementwise.cu's cast_<from>_<to>.

    >>> ember.arange(3).cuda().to(ember.float16).cpu()      # doctest: +SKIP
    tensor([0., 1., 2.], dtype=ember.float16)
"""
import numpy as np

from ember.core import dtype as D
from ember.core.alloc import empty_strided_on
from ember.core.device import as_device
from ember.core.factory_args import check_layout, checked_scalar, like_strides
from ember.core.tensor import contiguous_strides
from ember.cuda import _runtime
from ember.kernels.cpu.copy import cast_into
from ember.kernels.cuda import _launch as L
from ember.kernels.meta import shape as MS
from ember.kernels.meta.copy import check_copy_shapes, check_fill_value

_NO_DATA = "Cannot copy out of meta tensor; no data!"


def _dense_contiguous(t) -> bool:
    return t.is_contiguous() and t.numel() > 0


def copy_(self, src, non_blocking):
    """Writes `src` (broadcast to self's shape, cast to self's dtype) into self."""
    check_copy_shapes(self._shape, src._shape)
    if src._device.type == "meta":
        raise NotImplementedError(_NO_DATA)
    if self._device.type == "meta":
        return self
    if self.numel() == 0:
        return self
    drv = _runtime.require_driver()
    if self._device.type == "cuda" and src._device.type == "cuda":
        return L.elementwise(f"cast_{src._dtype.name}_{self._dtype.name}", self, src)
    if self._device.type == "cuda":   # host -> device
        host = np.empty(self._shape, self._dtype.np)
        cast_into(host, src._np, self._dtype, src._dtype)
        if _dense_contiguous(self):
            drv.htod(self.data_ptr(), host)
            return self
        tmp = L.empty(self._device, self._shape, contiguous_strides(self._shape), self._dtype)
        drv.htod(tmp.data_ptr(), host)
        return L.elementwise(f"cast_{self._dtype.name}_{self._dtype.name}", self, tmp)
    # device -> host
    if src._shape != self._shape or not _dense_contiguous(src):
        src = contiguous_on_device(src, self._shape)
    host = np.empty(src._shape, src._dtype.np)
    drv.dtoh(host, src.data_ptr())
    cast_into(self._np, host, self._dtype, src._dtype)
    return self


def contiguous_on_device(t, shape=None, dt=None):
    """A contiguous CUDA copy of t, broadcast to `shape` and cast to `dt` if given."""
    shape = t._shape if shape is None else tuple(shape)
    out = L.empty(t._device, shape, contiguous_strides(shape), dt or t._dtype)
    return L.elementwise(f"cast_{t._dtype.name}_{out._dtype.name}", out, t)


def to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format):
    """A new tensor with another dtype and/or device, laid out like clone."""
    check_layout(layout)
    dt = dtype or self._dtype
    dev = as_device(device) or self._device
    stride = like_strides(self._shape, self.stride(), memory_format)
    out = empty_strided_on(dev, self._shape, stride, dt)
    return copy_(out, self, non_blocking)


def clone(self, memory_format):
    out = L.empty(self._device, self._shape,
                  like_strides(self._shape, self.stride(), memory_format), self._dtype)
    return copy_(out, self, False)


def fill_(self, value):
    """Every element = value, converted with torch's overflow checks."""
    return L.fill(self, checked_scalar(value, self._dtype))


def fill_tensor_(self, value):
    """Every element = a 0-dim tensor's value."""
    if not hasattr(value, "_dtype"):
        return fill_(self, value)
    check_fill_value(value)
    if value._device.type == "meta":
        raise NotImplementedError(_NO_DATA)
    if value._device.type == "cuda":
        return L.elementwise(f"cast_{value._dtype.name}_{self._dtype.name}", self, value)
    v = value.item()
    return L.fill(self, v if self._dtype is not D.bool_ else bool(v))


def zero_(self):
    return L.fill(self, 0)


def flip(self, dims):
    """A copy reversed along dims: the cast kernel reads self through negated strides from
    the last element of each flipped dim."""
    out = L.empty_like_meta(MS.flip(self, dims), self._device)
    n = out.numel()
    if n == 0:
        return out
    strides, start = list(self.stride()), 0
    for d in MS.flip_dims(self, dims) if self.dim() else ():
        start += (self._shape[d] - 1) * strides[d]
        strides[d] = -strides[d]
    buf = L.layout_buffer(out._device, out._shape, [out.stride(), strides])
    name = f"cast_{self._dtype.name}_{self._dtype.name}"
    L.launch("elementwise", name, n, (np.int64(n), buf, out.data_ptr(),
                                      self.data_ptr() + start * self._dtype.itemsize))
    return out
