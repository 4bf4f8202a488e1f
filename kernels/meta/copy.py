"""Copy kernels on Meta: the same checks and output layouts as the CPU kernels, no data.

    >>> x = ember.empty(2, 3, 4, 5, device="meta", memory_format=ember.channels_last)
    >>> x.clone().stride(), x.clone(memory_format=ember.contiguous_format).stride()
    ((60, 1, 15, 3), (60, 20, 5, 1))
"""
from ember.core.alloc import empty_meta
from ember.core.device import as_device
from ember.core.factory_args import check_layout, like_strides, scalar_value


def clone(self, memory_format):
    return empty_meta(self._shape, self._dtype, like_strides(self._shape, self.stride(),
                                                             memory_format))


def check_copy_shapes(self_shape, src_shape) -> None:
    """copy_'s rule: `src` must broadcast to exactly self's shape (torch's errors)."""
    if self_shape == src_shape:
        return
    ndim = max(len(self_shape), len(src_shape))
    a = (1,) * (ndim - len(self_shape)) + tuple(self_shape)
    b = (1,) * (ndim - len(src_shape)) + tuple(src_shape)
    for i in range(ndim - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b "
                               f"({b[i]}) at non-singleton dimension {i}")
    out = tuple(x if y == 1 else y for x, y in zip(a, b))
    if out != tuple(self_shape):
        raise RuntimeError(f"output with shape {list(self_shape)} doesn't match the broadcast "
                           f"shape {list(out)}")


_NO_DATA = "Cannot copy out of meta tensor; no data!"


def copy_(self, src, non_blocking):
    """Meta outranks every other backend: a meta `src` into a real `self` lands here."""
    if self._device.type != "meta":
        raise NotImplementedError(_NO_DATA)
    check_copy_shapes(self._shape, src._shape)
    return self


def to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format):
    check_layout(layout)
    dev = as_device(device)
    if dev is not None and dev.type != "meta":
        raise NotImplementedError(_NO_DATA)
    return empty_meta(self._shape, dtype or self._dtype,
                      like_strides(self._shape, self.stride(), memory_format))


def fill_(self, value):
    scalar_value(value)
    return self


def check_fill_value(value) -> None:
    """fill_.Tensor takes only 0-dim value tensors (or a Python number)."""
    if not hasattr(value, "_dtype"):
        scalar_value(value)
    elif value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions.")


def fill_tensor_(self, value):
    check_fill_value(value)
    if self._device.type != "meta":     # a meta value for a real self: nothing to read
        raise NotImplementedError(_NO_DATA)
    return self


def zero_(self):
    return self
