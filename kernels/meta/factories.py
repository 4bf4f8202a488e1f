"""Factory kernels on Meta: the shape, dtype and strides the CPU kernels would give
(rand and randn live in random.py).

    >>> ember.empty(2, 3, 4, 5, device="meta", memory_format=ember.channels_last).stride()
    (60, 1, 15, 3)
"""
from ember.core.alloc import empty_meta
from ember.core.factory_args import (
    arange_params,
    check_layout,
    check_size,
    check_strided,
    factory_dtype,
    format_strides,
    scalar_category_dtype,
    scalar_value,
)


def empty(size, dtype, layout, device, pin_memory, memory_format):
    check_layout(layout)
    shape = check_size(size, "empty")
    return empty_meta(shape, factory_dtype(dtype), format_strides(shape, memory_format))


def empty_strided(size, stride, dtype, layout, device, pin_memory):
    check_layout(layout)
    shape, stride = check_strided(size, stride)
    return empty_meta(shape, factory_dtype(dtype), stride)


def zeros(size, dtype, layout, device, pin_memory):
    check_layout(layout)
    return empty_meta(check_size(size, "zeros"), factory_dtype(dtype))


def ones(size, dtype, layout, device, pin_memory):
    check_layout(layout)
    return empty_meta(check_size(size, "ones"), factory_dtype(dtype))


def full(size, fill_value, dtype, layout, device, pin_memory):
    check_layout(layout)
    scalar_value(fill_value)
    dt = scalar_category_dtype(fill_value) if dtype is None else factory_dtype(dtype)
    return empty_meta(check_size(size, "full"), dt)


def scalar_tensor(s, dtype, layout, device, pin_memory):
    check_layout(layout)
    scalar_value(s)
    return empty_meta((), factory_dtype(dtype))


def arange(end, dtype, layout, device, pin_memory):
    return arange_start_step(0, end, 1, dtype, layout, device, pin_memory)


def arange_start(start, end, dtype, layout, device, pin_memory):
    return arange_start_step(start, end, 1, dtype, layout, device, pin_memory)


def arange_start_step(start, end, step, dtype, layout, device, pin_memory):
    check_layout(layout)
    n, dt, _, _ = arange_params(start, end, step, dtype)
    return empty_meta((n,), dt)

