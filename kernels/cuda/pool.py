"""CUDA 2-d pooling over pool.cu: max_pool2d_with_indices, avg_pool2d and their backward, for
3-d (C, H, W) and 4-d inputs of any layout (results follow the Meta rules: channels-last in,
channels-last out). Parameters, shapes and errors come from the Meta kernels.

    >>> F.max_pool2d(ember.randn(1, 1, 4, 4, device="cuda"), 2).shape   # doctest: +SKIP
    ember.Size([1, 1, 2, 2])
"""
import numpy as np

from ember.cuda import _runtime
from ember.kernels.cuda import _launch as L
from ember.kernels.meta import conv as MC


def _strides4(t):
    """(n, c, h, w) strides of a 3-d or 4-d tensor (n: 0 for 3-d)."""
    st = t.stride()
    return (0, *st) if t.dim() == 3 else st


def _params(p, big, small, idx=None):
    """pool.cu's parameter array: sizes, window, and the strides of the input-sized tensor,
    the output-sized one and the indices."""
    n, c = (1, big._shape[0]) if big.dim() == 3 else big._shape[:2]
    h, w = big._shape[-2:]
    return _runtime.constant_buffer(
        _runtime.device_index(big._device),
        (n, c, h, w, *p.out, *p.kernel, *p.stride, *p.padding, *p.dilation,
         *_strides4(big), *_strides4(small), *(_strides4(idx) if idx is not None else (0,) * 4)))


def _run(name, n, p, big, small, *ptrs, idx=None):
    if n:
        L.launch("pool", name, n, (np.int64(n), _params(p, big, small, idx), *ptrs))


def max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
    m_out, m_idx = MC.max_pool2d_with_indices(self, kernel_size, stride, padding, dilation,
                                              ceil_mode)
    p = MC.pool2d_params(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    out, idx = L.empty_like_meta(m_out, self._device), L.empty_like_meta(m_idx, self._device)
    _run(f"max_pool2d_{self._dtype.name}", out.numel(), p, self, out, out.data_ptr(),
         idx.data_ptr(), self.data_ptr(), idx=idx)
    return out, idx


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    m = MC.max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding,
                                            dilation, ceil_mode, indices)
    p = MC.pool2d_params(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    gi = L.empty_like_meta(m, self._device)
    idx = L.to_device_dtype(indices, indices._dtype, self._device)
    _run(f"max_pool2d_backward_{gi._dtype.name}", gi.numel(), p, gi, grad_output,
         gi.data_ptr(), grad_output.data_ptr(), idx.data_ptr(), idx=idx)
    return gi


def _avg_args(count_include_pad, divisor_override):
    return np.int32(bool(count_include_pad)), np.int64(divisor_override or 0)


def avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
               divisor_override):
    m = MC.avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                      divisor_override)
    p = MC.avg_pool2d_params(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    out = L.empty_like_meta(m, self._device)
    _run(f"avg_pool2d_{self._dtype.name}", out.numel(), p, self, out, out.data_ptr(),
         self.data_ptr(), *_avg_args(count_include_pad, divisor_override))
    return out


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
    m = MC.avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
                               count_include_pad, divisor_override)
    p = MC.avg_pool2d_params(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    gi = L.empty_like_meta(m, self._device)
    _run(f"avg_pool2d_backward_{gi._dtype.name}", gi.numel(), p, gi, grad_output,
         gi.data_ptr(), grad_output.data_ptr(), *_avg_args(count_include_pad, divisor_override))
    return gi
