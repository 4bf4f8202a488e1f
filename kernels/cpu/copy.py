"""Copy kernels on the CPU: clone, copy_, _to_copy, fill_, zero_.

Casts follow torch: float -> int truncates toward zero, anything -> bool is `!= 0`.

    >>> x = ember.zeros(2, 3, dtype=ember.int32)
    >>> x.copy_(ember.tensor([1.7, -2.7, 3.2]))
    tensor([[ 1, -2,  3],
            [ 1, -2,  3]], dtype=ember.int32)

A CPU kernel is chosen whenever a CPU tensor takes part (CPU outranks Meta), so copy_
and fill_ also see a meta `self` or a meta `src`/`value` here.
"""
import numpy as np

from ember._generated import ops as _ops
from ember.core import dtype as D
from ember.core.alloc import empty_cpu, empty_meta, empty_strided_on
from ember.core.device import as_device
from ember.core.factory_args import check_layout, checked_scalar, like_strides
from ember.dispatch import keys as K
from ember.kernels.meta.copy import check_copy_shapes, check_fill_value

_NO_DATA = "Cannot copy out of meta tensor; no data!"


def cast_into(dst: np.ndarray, src: np.ndarray, dst_dtype: D.dtype, src_dtype: D.dtype) -> None:
    """dst[...] = src with broadcasting and torch's casts (NaN/inf -> int is undefined in
    torch too, a float too large for float16 becomes inf; NumPy's warnings are silenced;
    complex -> real keeps the real part and warns like torch)."""
    if src_dtype.is_complex and not dst_dtype.is_complex and dst_dtype is not D.bool_:
        import warnings
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning,
                      stacklevel=2)
        src, src_dtype = src.real, src_dtype.to_real()
    if dst_dtype.itemsize < src_dtype.itemsize or (
            dst_dtype.category == D.INT and src_dtype.category == D.FLOAT):
        with np.errstate(invalid="ignore", over="ignore"):
            np.copyto(dst, src, casting="unsafe")
    else:
        np.copyto(dst, src, casting="unsafe")


def clone(self, memory_format):
    """A copy with self's layout (preserve_format) or the requested memory format."""
    out = empty_cpu(self._shape, self._dtype, like_strides(self._shape, self.stride(), memory_format))
    np.copyto(out._np, self._np)
    return out


def copy_(self, src, non_blocking):
    """Writes `src` (broadcast to self's shape, cast to self's dtype) into self."""
    if self._device.type != "cpu" or src._device.type != "cpu":
        return _copy_across_devices(self, src, non_blocking)
    check_copy_shapes(self._shape, src._shape)
    cast_into(self._np, src._np, self._dtype, src._dtype)
    return self


def _copy_across_devices(self, src, non_blocking):
    """meta self: only the shape check; meta src: no data; other devices: their kernel."""
    if self._device.type == "meta":
        check_copy_shapes(self._shape, src._shape)
        return self
    if src._device.type == "meta":
        raise NotImplementedError(_NO_DATA)
    other = self if self._device.type != "cpu" else src
    key = K.bit(K.BACKEND_KEY_OF_DEVICE[other._device.type])
    return _ops.copy_.redispatch(key, self, src, non_blocking)


def to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format):
    """A new tensor with another dtype and/or device; the layout follows `memory_format`
    like clone. device='meta' gives a meta tensor."""
    check_layout(layout)
    dt = dtype or self._dtype
    dev = as_device(device) or self._device
    stride = like_strides(self._shape, self.stride(), memory_format)
    if dev.type == "cpu":
        out = empty_cpu(self._shape, dt, stride)
        cast_into(out._np, self._np, dt, self._dtype)
        return out
    if dev.type == "meta":
        return empty_meta(self._shape, dt, stride)
    out = empty_strided_on(dev, self._shape, stride, dt)
    return _ops._entry_copy_(out, self, non_blocking)


def fill_(self, value):
    """Every element = value, converted with torch's overflow checks."""
    self._np.fill(checked_scalar(value, self._dtype))
    return self


def fill_tensor_(self, value):
    """Every element = a 0-dim tensor's value (cast like copy_, no overflow check)."""
    if not hasattr(value, "_dtype"):
        return fill_(self, value)
    check_fill_value(value)
    if self._device.type == "meta":
        return self
    if self._device.type != "cpu":   # a CPU 0-dim value into another device's tensor
        key = K.bit(K.BACKEND_KEY_OF_DEVICE[self._device.type])
        return _ops.fill__Tensor.redispatch(key, self, value)
    if value._device.type == "meta":
        raise NotImplementedError(_NO_DATA)
    src = value._np if value._device.type == "cpu" else np.asarray(value.item())
    cast_into(self._np, src, self._dtype, value._dtype)
    return self


def zero_(self):
    self._np.fill(0)
    return self
