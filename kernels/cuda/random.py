"""CUDA random kernels over random.cu's Philox generator (per device: ember.cuda.manual_seed):
rand, randn, uniform_, normal_, bernoulli_, bernoulli.p, native_dropout. Explicit CPU
`generator=` objects are not CUDA generators: torch raises for them, and so does ember.

    >>> ember.cuda.manual_seed(0); ember.rand(3, device="cuda")        # doctest: +SKIP
"""
import numpy as np

from ember.core import dtype as D
from ember.core.factory_args import factory_dtype
from ember.cuda import _runtime
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.cuda import _launch as L
from ember.kernels.cuda.copy import copy_
from ember.kernels.meta import random as MR


def _check_generator(generator):
    if generator is not None:
        raise RuntimeError("Expected a 'cuda' device type for generator but found 'cpu'")


def _draw(kernel, out, *params):
    """Fills `out` (any layout) with kernel draws; (seed, offset) from out's device."""
    n = out.numel()
    if n == 0:
        return out
    seed, offset = _runtime.philox_step(_runtime.device_index(out._device))
    buf = L.layout_buffer(out._device, out._shape, [out.stride()])
    L.launch("random", f"{kernel}_{out._dtype.name}", n,
             (np.int64(n), buf, out.data_ptr(), np.uint64(seed), np.uint64(offset), *params))
    return out


def uniform_(self, frm, to, generator):
    MR.uniform_(self, frm, to, generator)
    _check_generator(generator)
    return _draw("uniform", self, L.acc_scalar(self._dtype, frm), L.acc_scalar(self._dtype, to))


def normal_(self, mean, std, generator):
    MR.normal_(self, mean, std, generator)
    _check_generator(generator)
    return _draw("normal", self, L.acc_scalar(self._dtype, mean), L.acc_scalar(self._dtype, std))


def rand(size, dtype, layout, device, pin_memory):
    out = L.empty_like_meta(MR.rand(size, dtype, layout, device, pin_memory), device)
    return uniform_(out, 0.0, 1.0, None)


def randn(size, dtype, layout, device, pin_memory):
    dt = factory_dtype(dtype)
    if dt.category != D.FLOAT:
        raise not_implemented_for("normal_kernel_cuda", dt)
    out = L.empty_like_meta(MR.randn(size, dtype, layout, device, pin_memory), device)
    return normal_(out, 0.0, 1.0, None)


def bernoulli__float(self, p, generator):
    MR.bernoulli__float(self, p, generator)
    _check_generator(generator)
    return _draw("bernoulli", self, np.float64(p))


def bernoulli_p(self, p, generator):
    m = MR.bernoulli_p(self, p, generator)
    _check_generator(generator)
    return _draw("bernoulli", L.empty_like_meta(m, self._device), np.float64(p))


def native_dropout(input, p, train):
    """(output, mask): training zeroes each element with probability p and scales the rest by
    1/(1-p); not training: (a copy, all True)."""
    training, stride = MR.native_dropout_layout(input, p, train)
    dev, shape, dt = input._device, input._shape, input._dtype
    if input.numel() == 0:
        return L.empty(dev, shape, stride, dt), L.empty(dev, shape, stride, dt)
    out, mask = L.empty(dev, shape, stride, dt), L.empty(dev, shape, stride, D.bool_)
    if not training:
        return copy_(out, input, False), L.fill(mask, True)
    MR.check_p(1.0 - float(p))
    n = out.numel()
    seed, offset = _runtime.philox_step(_runtime.device_index(dev))
    buf = L.layout_buffer(dev, shape, [out.stride(), mask.stride(), input.stride()])
    L.launch("random", f"dropout_{dt.name}", n,
             (np.int64(n), buf, out.data_ptr(), mask.data_ptr(), input.data_ptr(),
              np.uint64(seed), np.uint64(offset), np.float32(p)))
    return out, mask
