"""CUDA nn kernels: softmax / log_softmax and their backward (nn.cu, a block per row),
nll_loss forward/backward (per-sample terms on the device, reduced by reduce.cu), and
layer_norm forward/backward composed of the device's reductions and pointwise kernels."""
import math

import numpy as np

from ember.core import dtype as D
from ember.core.shapes import wrap_dim
from ember.core.tensor import contiguous_strides
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.cpu.nn import _check_float, _nll_float
from ember.kernels.cuda import _launch as L
from ember.kernels.cuda import pointwise as _pw
from ember.kernels.cuda import reduction as _red
from ember.kernels.cuda.copy import contiguous_on_device, copy_
from ember.kernels.meta import nn as MN


def _block(n: int) -> int:
    return min(256, max(32, 1 << max(0, (n - 1).bit_length())))


def _softmax(self, dim, half_to_float, log):
    d = wrap_dim(dim, self.dim())
    if half_to_float and self._dtype is not D.float16:   # torch's CUDA check
        raise RuntimeError("conversion is supported for Half type only")
    _check_float("log_softmax" if log else "softmax", self, d)
    dt = D.float32 if half_to_float and self._dtype is D.float16 else self._dtype
    x = L.to_device_dtype(self, dt, self._device)
    out = L.empty(self._device, self._shape, contiguous_strides(self._shape), dt)
    if out.numel() == 0:
        return out
    rows, buf, (s_in, s_out) = L.rows_layout([x, out], d)
    n = 1 if self.dim() == 0 else self._shape[d]
    L.launch("nn", f"softmax_{dt.name}", rows,
             (np.int64(rows), np.int64(n), buf, np.int64(s_in), np.int64(s_out),
              out.data_ptr(), x.data_ptr(), np.int32(log)),
             fibers=True, block=_block(n), grid=(min(rows, 1024),))
    return out


def softmax_forward(self, dim, half_to_float):
    return _softmax(self, dim, half_to_float, False)


def log_softmax_forward(self, dim, half_to_float):
    return _softmax(self, dim, half_to_float, True)


def _softmax_backward(grad_output, output, dim, input_dtype, log):
    d = MN.check_softmax_backward(grad_output, output, dim, input_dtype)
    _check_float("log_softmax_backward" if log else "softmax_backward", grad_output, d)
    dt = grad_output._dtype
    y = L.to_device_dtype(output, dt, grad_output._device)
    gi = L.empty(grad_output._device, grad_output._shape,
                 contiguous_strides(grad_output._shape), dt)
    if gi.numel() == 0:
        return gi
    rows, buf, (s_g, s_y, s_gi) = L.rows_layout([grad_output, y, gi], d)
    n = 1 if gi.dim() == 0 else gi._shape[d]
    L.launch("nn", f"softmax_backward_{dt.name}", rows,
             (np.int64(rows), np.int64(n), buf, np.int64(s_g), np.int64(s_y),
              np.int64(s_gi), gi.data_ptr(), grad_output.data_ptr(), y.data_ptr(),
              np.int32(log)),
             fibers=True, block=_block(n), grid=(min(rows, 1024),))
    return gi


def softmax_backward_data(grad_output, output, dim, input_dtype):
    return _softmax_backward(grad_output, output, dim, input_dtype, False)


def log_softmax_backward_data(grad_output, output, dim, input_dtype):
    return _softmax_backward(grad_output, output, dim, input_dtype, True)


# --------------------------------------------------------------------------- nll_loss
def _nll_layout(self, target):
    """(N, C, input strides (row, class), target stride) of 1-D or 2-D input."""
    if self.dim() == 1:
        return 1, self._shape[0], (0, self.stride(0)), 0
    return self._shape[0], self._shape[1], self.stride(), target.stride(0) if target.dim() else 0


def _raise_if_bad(bad):
    L.raise_if_bad(bad, lambda t: f"Target {t} is out of bounds.")


def nll_loss_forward(self, target, weight, reduction, ignore_index):
    """-weight[t] * self[i, t] per row, summed (2) or divided by the total weight (1)."""
    MN.check_nll(self, target, weight)
    _nll_float("nll_loss_out_frame", self)
    MN.check_nll_dtypes(self, target, weight)
    dev, dt = self._device, self._dtype
    target = L.to_device_dtype(target, D.int64, dev)
    N, C, (sx0, sx1), st = _nll_layout(self, target)
    loss = L.empty(dev, (N,), (1,), dt)
    wsum = L.empty(dev, (N,), (1,), dt)
    bad = L.bad_index_flag(dev)
    if N:
        L.launch("nn", f"nll_loss_{dt.name}", N,
                 (np.int64(N), np.int64(C), self.data_ptr(), np.int64(sx0), np.int64(sx1),
                  target.data_ptr(), np.int64(st),
                  weight.data_ptr() if weight is not None else 0, np.int64(ignore_index),
                  loss.data_ptr(), wsum.data_ptr(), bad.data_ptr()))
        _raise_if_bad(bad)
    if reduction == 0 and self.dim() == 2:
        return loss, L.fill(L.empty(dev, (), (), dt), 0)   # torch leaves total_weight 0
    total = _red.sum(wsum, None)
    out = _red.sum(loss, None)
    if reduction == 1:
        out = _pw.div(out, total)
    return out, total


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    """Zeros with -weight[t] * grad (/ total_weight for the mean) at each row's target."""
    MN.check_nll_backward(grad_output, self, target, weight, reduction, total_weight)
    _nll_float("nll_loss_backward_out_frame", self)
    MN.check_nll_dtypes(self, target, weight, grad_output, total_weight)
    dev, dt = self._device, self._dtype
    gi = L.fill(L.empty(dev, self._shape, contiguous_strides(self._shape), dt), 0)
    target = L.to_device_dtype(target, D.int64, dev)
    N, C, _, st = _nll_layout(self, target)
    bad = L.bad_index_flag(dev)
    per_sample = reduction == 0 and self.dim() == 2
    g = grad_output
    if reduction == 1:
        g = _pw.div(grad_output, total_weight)
    gi_st = (0, gi.stride(0)) if self.dim() == 1 else gi.stride()
    if N:
        L.launch("nn", f"nll_loss_backward_{dt.name}", N,
                 (np.int64(N), target.data_ptr(), np.int64(st),
                  weight.data_ptr() if weight is not None else 0, np.int64(ignore_index),
                  g.data_ptr(), np.int64(g.stride(0) if per_sample else 0),
                  L.acc_scalar(dt, 1.0), gi.data_ptr(), np.int64(gi_st[0]),
                  np.int64(gi_st[1]), np.int64(C), bad.data_ptr()))
        _raise_if_bad(bad)
    return gi


# --------------------------------------------------------------------------- layer_norm
def _acc(t):
    return D.float32 if t._dtype.itemsize == 2 else t._dtype


def _on(t, dt, dev):
    return None if t is None else L.to_device_dtype(t, dt, dev)


def _dense(t, dt):
    """t as a contiguous tensor of dtype dt (itself when it already is one)."""
    if t._dtype is dt and t.is_contiguous():
        return t
    return contiguous_on_device(t, None, dt)


def _sum_over(t, dims):
    """t summed over dims (none: t itself; reduction.sum_dim's [] would mean every dim)."""
    return _red.sum_dim(t, dims, False, None) if dims else t


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(x - mean) * rstd * weight + bias over the trailing dims; (out, mean, rstd), composed
    of device kernels (float32 for 16-bit inputs)."""
    axis, stats = MN.check_layer_norm(input, normalized_shape, weight, bias)
    sdt = MN.check_param_dtypes(input, weight, bias)
    if input._dtype.category != D.FLOAT:
        raise not_implemented_for("LayerNormKernelImpl", input._dtype)
    dev, acc = input._device, _acc(input)
    x = L.to_device_dtype(input, acc, dev)
    rdims = list(range(axis, input.dim()))
    if x.numel():
        mean = _red.mean_dim(x, rdims, True, None)
        d = _pw.sub(x, mean)
        rstd = _pw.rsqrt(_pw.add(_red.mean_dim(_pw.mul(d, d), rdims, True, None), eps))
        out = _pw.mul(d, rstd)
    else:
        mean = L.fill(L.empty(dev, stats, contiguous_strides(stats), acc), 0)
        rstd = L.fill(L.empty(dev, stats, contiguous_strides(stats), acc), float("nan"))
        out = x
    if weight is not None:
        out = _pw.mul(out, _on(weight, acc, dev))
    if bias is not None:
        out = _pw.add(out, _on(bias, acc, dev))
    return (_dense(out, input._dtype), L.to_device_dtype(mean.view(stats), sdt, dev),
            L.to_device_dtype(rstd.view(stats), sdt, dev))


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                               output_mask):
    """(grad_input, grad_weight, grad_bias), None where output_mask is False."""
    axis, stats = MN.check_layer_norm(input, normalized_shape, weight, bias)
    MN.check_layer_norm_backward(grad_out, input, mean, rstd, weight, bias, output_mask)
    if input._dtype.category != D.FLOAT:
        raise not_implemented_for("LayerNormBackwardKernelImpl", input._dtype)
    dev, acc = input._device, _acc(input)
    go, x = _on(grad_out, acc, dev), _on(input, acc, dev)
    mu, rs = _on(mean, acc, dev).view(stats), _on(rstd, acc, dev).view(stats)
    rdims, bdims = list(range(axis, input.dim())), list(range(axis))
    xhat = _pw.mul(_pw.sub(x, mu), rs)
    g = go if weight is None else _pw.mul(go, _on(weight, acc, dev))
    dx = dw = db = None
    if output_mask[0]:
        if x.numel():
            a = _red.mean_dim(g, rdims, True, None)
            c = _red.mean_dim(_pw.mul(g, xhat), rdims, True, None)
            dx = _pw.mul(rs, _pw.sub(_pw.sub(g, a), _pw.mul(xhat, c)))
        else:
            dx = x
        dx = _dense(dx, input._dtype)
    if output_mask[1]:
        dw = L.to_device_dtype(_sum_over(_pw.mul(go, xhat), bdims), weight._dtype, dev)
    if output_mask[2]:
        db = L.to_device_dtype(_sum_over(go, bdims), bias._dtype, dev)
    return dx, dw, db


# --------------------------------------------------------------------------- batch_norm
def _channel_array(t, acc, dev):
    """A per-channel parameter or statistic as a contiguous device array of dtype acc."""
    return None if t is None else _dense(L.to_device_dtype(t, acc, dev), acc)


def _channel_strides(t):
    """The layout operand that maps an element of t to its channel (dim 1)."""
    return [1 if d == 1 else 0 for d in range(t.dim())]


def _ptr(t):
    return 0 if t is None else t.data_ptr()


def _reduced_layout(tensors):
    """(elements per channel, Offsets buffer over every dim but 1 with each tensor's strides)."""
    t0 = tensors[0]
    dims = [d for d in range(t0.dim()) if d != 1]
    shape = [t0._shape[d] for d in dims]
    buf = L.layout_buffer(t0._device, shape, [[t.stride(d) for d in dims] for t in tensors])
    return math.prod(shape), buf


def _batch_stats(x, acc):
    """(mean, biased variance) per channel of x, device arrays of dtype acc."""
    dev, C = x._device, x._shape[1]
    n, red = _reduced_layout([x])
    mean, var = (L.empty(dev, (C,), (1,), acc) for _ in range(2))
    L.launch("nn", f"batch_norm_stats_{x._dtype.name}", C,
             (np.int64(C), np.int64(n), red, np.int64(x.stride(1)), x.data_ptr(),
              mean.data_ptr(), var.data_ptr()),
             fibers=True, block=_block(n), grid=(min(C, 1024),))
    return mean, var


def _update_running(stat, new, momentum):
    """stat = (1 - momentum) * stat + momentum * new, in new's dtype, stored in stat's."""
    mixed = _pw.add(_pw.mul(L.to_device_dtype(stat, new._dtype, stat._device), 1 - momentum),
                    _pw.mul(new, momentum))
    copy_(stat, mixed, False)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(out, save_mean, save_invstd) with batch_norm_stats (training: batch statistics, the
    running ones updated with the unbiased variance) and batch_norm_elemt."""
    sdt = MN.check_batch_norm(input, weight, bias, running_mean, running_var, training)
    if input._dtype.category != D.FLOAT:
        raise not_implemented_for("batch_norm", input._dtype)
    dev, acc, C = input._device, _acc(input), input._shape[1]
    if training:
        mean, var = _batch_stats(input, acc)
        if running_mean is not None:
            n = input.numel() // C
            _update_running(running_mean, mean, momentum)
            _update_running(running_var, _pw.mul(var, n / (n - 1) if n > 1 else math.inf),
                            momentum)
    else:
        mean, var = (_channel_array(t, acc, dev) for t in (running_mean, running_var))
    invstd = _pw.rsqrt(_pw.add(var, eps))
    out = L.empty_like_meta(MN.native_batch_norm(input, weight, bias, running_mean, running_var,
                                                 training, momentum, eps)[0], dev)
    w, b = _channel_array(weight, acc, dev), _channel_array(bias, acc, dev)
    buf = L.layout_buffer(dev, input._shape, [out.stride(), input.stride(), _channel_strides(input)])
    L.launch("nn", f"batch_norm_elemt_{input._dtype.name}", out.numel(),
             (np.int64(out.numel()), buf, out.data_ptr(), input.data_ptr(), mean.data_ptr(),
              invstd.data_ptr(), _ptr(w), _ptr(b)))
    if not training:
        mean = invstd = L.empty(dev, (0,), (1,), acc)
    return out, L.to_device_dtype(mean, sdt, dev), L.to_device_dtype(invstd, sdt, dev)


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
                               save_invstd, train, eps, output_mask):
    """(grad_input, grad_weight, grad_bias): batch_norm_backward_reduce gives the per-channel
    sums, batch_norm_backward_elemt the input gradient."""
    dx_m, dw_m, db_m = MN.native_batch_norm_backward(
        grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
        output_mask)
    if input._dtype.category != D.FLOAT:
        raise not_implemented_for("batch_norm_backward_cpu", input._dtype)
    dev, acc, C = input._device, _acc(input), input._shape[1]
    if train:
        mean, invstd = (_channel_array(t, acc, dev) for t in (save_mean, save_invstd))
    else:
        mean = _channel_array(running_mean, acc, dev)
        invstd = _pw.rsqrt(_pw.add(_channel_array(running_var, acc, dev), eps))
    g = L.to_device_dtype(grad_out, input._dtype, dev)
    n, red = _reduced_layout([input, g])
    sum_dy, sum_dy_xmu = (L.empty(dev, (C,), (1,), acc) for _ in range(2))
    L.launch("nn", f"batch_norm_backward_reduce_{input._dtype.name}", C,
             (np.int64(C), np.int64(n), red, np.int64(input.stride(1)), np.int64(g.stride(1)),
              input.data_ptr(), g.data_ptr(), mean.data_ptr(), sum_dy.data_ptr(),
              sum_dy_xmu.data_ptr()),
             fibers=True, block=_block(n), grid=(min(C, 1024),))
    dx = dw = db = None
    if output_mask[0]:
        dx = L.empty_like_meta(dx_m, dev)
        buf = L.layout_buffer(dev, input._shape, [dx.stride(), g.stride(), input.stride(),
                                                  _channel_strides(input)])
        L.launch("nn", f"batch_norm_backward_elemt_{input._dtype.name}", dx.numel(),
                 (np.int64(dx.numel()), buf, dx.data_ptr(), g.data_ptr(), input.data_ptr(),
                  mean.data_ptr(), invstd.data_ptr(), _ptr(_channel_array(weight, acc, dev)),
                  _ptr(sum_dy) if train else 0, _ptr(sum_dy_xmu) if train else 0,
                  L.acc_scalar(input._dtype, 1.0 / n)))
    if output_mask[1]:
        dw = L.to_device_dtype(_pw.mul(sum_dy_xmu, invstd), dw_m._dtype, dev)
    if output_mask[2]:
        db = L.to_device_dtype(sum_dy, db_m._dtype, dev)
    return dx, dw, db
