"""*_like factories (device-generic): a new tensor shaped like `self`, with self's dtype
and device unless given, laid out by `memory_format` (None = preserve_format: a dense
self keeps its strides, e.g. a transposed or channels-last input).

    >>> x = ember.zeros(3, 2).t()
    >>> ember.empty_like(x).stride(), ember.zeros_like(x, memory_format="contiguous_format").stride()
    ((1, 2), (3, 1))
"""
from ember._generated import ops as _ops
from ember.core.factory_args import check_layout, like_strides
from ember.core.tensor import contiguous_strides


def _layout(self, layout, memory_format):
    """(shape, strides, contiguous?) of the result."""
    check_layout(layout)
    shape = self._shape
    stride = like_strides(shape, self.stride(), memory_format)
    return shape, stride, stride == contiguous_strides(shape)


def empty_like(self, dtype, layout, device, pin_memory, memory_format):
    shape, stride, _ = _layout(self, layout, memory_format)
    return _ops._entry_empty_strided(shape, stride, dtype or self._dtype, None,
                                     device or self._device, None)


def zeros_like(self, dtype, layout, device, pin_memory, memory_format):
    shape, stride, contiguous = _layout(self, layout, memory_format)
    dt, dev = dtype or self._dtype, device or self._device
    if contiguous:
        return _ops._entry_zeros(shape, dt, None, dev, None)
    return _ops._entry_zero_(_ops._entry_empty_strided(shape, stride, dt, None, dev, None))


def ones_like(self, dtype, layout, device, pin_memory, memory_format):
    return full_like(self, 1, dtype, layout, device, pin_memory, memory_format)


def full_like(self, fill_value, dtype, layout, device, pin_memory, memory_format):
    """The fill value is converted to the result dtype (self's by default) with torch's
    overflow checks: `full_like(uint8_tensor, 300)` raises."""
    shape, stride, contiguous = _layout(self, layout, memory_format)
    dt, dev = dtype or self._dtype, device or self._device
    if contiguous:
        return _ops._entry_full(shape, fill_value, dt, None, dev, None)
    out = _ops._entry_empty_strided(shape, stride, dt, None, dev, None)
    return _ops._entry_fill__Scalar(out, fill_value)


def _random_like(op, self, generator, dtype, layout, device, memory_format):
    shape, stride, contiguous = _layout(self, layout, memory_format)
    dt, dev = dtype or self._dtype, device or self._device
    r = op(shape, generator, dt, None, dev, None)
    if contiguous:
        return r
    return _ops._entry_copy_(_ops._entry_empty_strided(shape, stride, dt, None, dev, None), r,
                             False)


def rand_like(self, dtype, layout, device, pin_memory, memory_format):
    return _random_like(_ops._entry_rand_generator, self, None, dtype, layout, device,
                        memory_format)


def randn_like(self, dtype, layout, device, pin_memory, memory_format):
    return _random_like(_ops._entry_randn_generator, self, None, dtype, layout, device,
                        memory_format)


def rand_like_generator(self, generator, dtype, layout, device, pin_memory, memory_format):
    return _random_like(_ops._entry_rand_generator, self, generator, dtype, layout, device,
                        memory_format)


def randn_like_generator(self, generator, dtype, layout, device, pin_memory, memory_format):
    return _random_like(_ops._entry_randn_generator, self, generator, dtype, layout, device,
                        memory_format)


# --- new_* : a new tensor of a given size with self's dtype and device ---------------------
def new_empty(self, size, dtype, layout, device, pin_memory):
    """`x.new_empty((2, 3))`: uninitialised, x's dtype and device unless given."""
    return _ops._entry_empty_memory_format(size, dtype or self._dtype, layout,
                                           device or self._device, None, None)


def new_empty_strided(self, size, stride, dtype, layout, device, pin_memory):
    return _ops._entry_empty_strided(size, stride, dtype or self._dtype, layout,
                                     device or self._device, None)


def new_full(self, size, fill_value, dtype, layout, device, pin_memory):
    """`x.new_full((2,), 7)`: filled with fill_value in x's dtype (not inferred from it)."""
    return _ops._entry_full(size, fill_value, dtype or self._dtype, layout,
                            device or self._device, None)


def new_zeros(self, size, dtype, layout, device, pin_memory):
    return _ops._entry_zeros(size, dtype or self._dtype, layout, device or self._device, None)


def new_ones(self, size, dtype, layout, device, pin_memory):
    return _ops._entry_ones(size, dtype or self._dtype, layout, device or self._device, None)
