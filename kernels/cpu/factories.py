"""Factory kernels on the CPU (NumPy): empty, zeros, ones, full, arange, rand, randn.

    >>> ember.arange(1, 2, 0.25)
    tensor([1.0000, 1.2500, 1.5000, 1.7500])
    >>> ember.full((2,), 7).dtype
    ember.int64
"""
import numpy as np

from ember import random as _random
from ember.core import dtype as D
from ember.core.alloc import empty_cpu, np_alloc
from ember.core.factory_args import (
    arange_params,
    check_layout,
    check_size,
    check_strided,
    checked_scalar,
    factory_dtype,
    format_strides,
    scalar_category_dtype,
)
from ember.core.tensor import from_array
from ember.kernels.common._errors import not_implemented_for


def empty(size, dtype, layout, device, pin_memory, memory_format):
    check_layout(layout)
    shape = check_size(size, "empty")
    dt = factory_dtype(dtype)
    if memory_format is None:
        return from_array(np_alloc(np.empty, shape, dt), dt)
    return empty_cpu(shape, dt, format_strides(shape, memory_format))


def empty_strided(size, stride, dtype, layout, device, pin_memory):
    check_layout(layout)
    shape, stride = check_strided(size, stride)
    return empty_cpu(shape, factory_dtype(dtype), stride)



def zeros(size, dtype, layout, device, pin_memory):
    check_layout(layout)
    dt = factory_dtype(dtype)
    return from_array(np_alloc(np.zeros, check_size(size, "zeros"), dt), dt)


def ones(size, dtype, layout, device, pin_memory):
    check_layout(layout)
    dt = factory_dtype(dtype)
    return from_array(np_alloc(np.ones, check_size(size, "ones"), dt), dt)


def full(size, fill_value, dtype, layout, device, pin_memory):
    """dtype None: bool fill -> bool, int -> int64, float -> the default dtype."""
    check_layout(layout)
    dt = scalar_category_dtype(fill_value) if dtype is None else factory_dtype(dtype)
    value = checked_scalar(fill_value, dt)
    return from_array(np_alloc(np.full, check_size(size, "full"), dt, value), dt)


def scalar_tensor(s, dtype, layout, device, pin_memory):
    """A 0-d tensor; dtype None is the default float dtype, whatever `s` is (torch)."""
    check_layout(layout)
    dt = factory_dtype(dtype)
    return from_array(np.array(checked_scalar(s, dt), dt.np), dt)


def arange(end, dtype, layout, device, pin_memory):
    return arange_start_step(0, end, 1, dtype, layout, device, pin_memory)


def arange_start(start, end, dtype, layout, device, pin_memory):
    return arange_start_step(start, end, 1, dtype, layout, device, pin_memory)


def arange_start_step(start, end, step, dtype, layout, device, pin_memory):
    """start + step * i, computed in torch's accumulate type (int64 for integers,
    float32 for float16/bfloat16, float64 otherwise)."""
    check_layout(layout)
    n, dt, start, step = arange_params(start, end, step, dtype)
    if dt is D.bool_:
        raise not_implemented_for("arange_cpu", D.bool_)
    if dt.category == D.INT:
        acc = np.arange(n, dtype=np.int64) * step + start
    elif dt is D.float16 or dt is D.bfloat16:
        acc = np.arange(n, dtype=np.float32) * np.float32(step) + np.float32(start)
    else:
        acc = np.arange(n, dtype=np.float64) * step + start
    return from_array(acc.astype(dt.np, copy=False), dt)


def _rng(generator) -> np.random.Generator:
    gen = _random.default_generator if generator is None else generator
    if gen.device.type != "cpu":
        raise RuntimeError(f"Expected a 'cpu' device type for generator but found "
                           f"'{gen.device.type}'")
    return gen._rng


# Random bits per value of reduced-precision uniforms (torch: the type's digits), so
# that float16/bfloat16 samples stay below 1.
_UNIFORM_DIGITS = {"float16": 11, "bfloat16": 8}


def _random_setup(size, generator, dtype, layout, kernel):
    """(shape, dtype, NumPy generator) of rand/randn; floating and complex dtypes only,
    like torch."""
    check_layout(layout)
    shape = check_size(size, "rand" if kernel == "check_uniform_bounds" else "randn")
    dt = factory_dtype(dtype)
    if dt.category < D.FLOAT:
        raise not_implemented_for(kernel, dt)
    return shape, dt, _rng(generator)


def _as_complex(parts, shape):
    """A contiguous (..., 2) array of (real, imag) pairs as a complex array of `shape`."""
    return parts.view(np.complex64 if parts.dtype == np.float32 else np.complex128).reshape(shape)


def rand(size, dtype, layout, device, pin_memory):
    return rand_generator(size, None, dtype, layout, device, pin_memory)


def rand_generator(size, generator, dtype, layout, device, pin_memory):
    """Uniform on [0, 1) from the generator (PCG64), generated in the target precision."""
    shape, dt, rng = _random_setup(size, generator, dtype, layout, "check_uniform_bounds")
    if dt.is_complex:   # (uniform real and imaginary parts)
        return from_array(_as_complex(rng.random((*shape, 2), dtype=dt.to_real().np), shape), dt)
    if dt is D.float64 or dt is D.float32:
        arr = rng.random(out=np_alloc(np.empty, shape, dt), dtype=dt.np)
    else:
        digits = _UNIFORM_DIGITS[dt.name]
        k = rng.integers(0, 1 << digits, shape, dtype=np.int32)
        arr = (k.astype(np.float32) * np.float32(2.0 ** -digits)).astype(dt.np)
    return from_array(arr, dt)


def randn(size, dtype, layout, device, pin_memory):
    return randn_generator(size, None, dtype, layout, device, pin_memory)


def randn_generator(size, generator, dtype, layout, device, pin_memory):
    """Standard normal samples from the generator (PCG64)."""
    shape, dt, rng = _random_setup(size, generator, dtype, layout, "normal_kernel_cpu")
    if dt.is_complex:   # (torch: real and imaginary parts of variance 1/2 each)
        rdt = dt.to_real().np
        parts = rng.standard_normal((*shape, 2), dtype=rdt) * rdt.type(np.sqrt(0.5))
        return from_array(_as_complex(parts, shape), dt)
    if dt is D.float64 or dt is D.float32:
        arr = rng.standard_normal(out=np_alloc(np.empty, shape, dt), dtype=dt.np)
    else:
        arr = rng.standard_normal(shape, dtype=np.float32).astype(dt.np)
    return from_array(arr, dt)
