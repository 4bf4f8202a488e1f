"""CUDA factory kernels. empty/zeros/ones/full allocate from the caching allocator and fill on
the device; the sequence factories (arange, linspace, eye, windows) compute on the host with
the CPU kernel and upload (one copy: their values are defined by the host arithmetic).

    >>> ember.zeros(2, 3, device="cuda").device          # doctest: +SKIP
    device(type='cuda', index=0)
"""
from ember.core.factory_args import checked_scalar
from ember.kernels.cpu import factories as _cpu
from ember.kernels.cuda import _launch as L
from ember.kernels.cuda.copy import copy_
from ember.kernels.meta import factories as _meta


def _like(m, device):
    return L.empty_like_meta(m, device)


def empty(size, dtype, layout, device, pin_memory, memory_format):
    return _like(_meta.empty(size, dtype, layout, device, pin_memory, memory_format), device)


def empty_strided(size, stride, dtype, layout, device, pin_memory):
    return _like(_meta.empty_strided(size, stride, dtype, layout, device, pin_memory), device)


def zeros(size, dtype, layout, device, pin_memory):
    return L.fill(_like(_meta.zeros(size, dtype, layout, device, pin_memory), device), 0)


def ones(size, dtype, layout, device, pin_memory):
    return L.fill(_like(_meta.ones(size, dtype, layout, device, pin_memory), device), 1)


def full(size, fill_value, dtype, layout, device, pin_memory):
    out = _like(_meta.full(size, fill_value, dtype, layout, device, pin_memory), device)
    return L.fill(out, checked_scalar(fill_value, out._dtype))


def scalar_tensor(s, dtype, layout, device, pin_memory):
    out = _like(_meta.scalar_tensor(s, dtype, layout, device, pin_memory), device)
    return L.fill(out, checked_scalar(s, out._dtype))


def _uploaded(cpu_kernel):
    """A CUDA factory that runs `cpu_kernel` on the host and copies the result over."""
    def kernel(*args):
        host = cpu_kernel(*args[:-3], None, None, None)   # (..., layout, device, pin_memory)
        out = L.empty(args[-2], host._shape, host.stride(), host._dtype)
        return copy_(out, host, False)
    kernel.__name__ = kernel.__qualname__ = cpu_kernel.__name__
    kernel.__doc__ = f"{cpu_kernel.__name__} computed on the host, uploaded."
    return kernel


arange = _uploaded(_cpu.arange)
arange_start = _uploaded(_cpu.arange_start)
arange_start_step = _uploaded(_cpu.arange_start_step)
