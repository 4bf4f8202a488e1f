"""Convolution, pooling, padding and embedding on Meta tensors: torch's argument checks
(order and messages) and output shapes, shared with the CPU kernels. Results are
contiguous.

    >>> x = ember.empty(2, 3, 8, 8, device="meta")
    >>> ember.convolution(x, ember.empty(4, 3, 3, 3, device="meta"), None,
    ...                   [1, 1], [1, 1], [1, 1], False, [0, 0], 1).shape
    ember.Size([2, 4, 8, 8])
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.core.factory_args import like_strides
from ember.core.tensor import channels_last as _CHANNELS_LAST
from ember.core.tensor import channels_last_strides
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.common._pointwise import CPP_NAMES


def channels_last(*tensors) -> bool:
    """Whether torch computes in channels_last: a 4-d input that suggests it."""
    return any(t is not None and t.dim() == 4 and t.suggest_memory_format() is
               _CHANNELS_LAST for t in tensors)


def empty_like_format(shape, dt, cl: bool):
    """A Meta result, channels_last (NHWC strides) when `cl` and 4-d."""
    if cl and len(shape) == 4:
        return empty_meta(shape, dt, channels_last_strides(shape))
    return empty_meta(shape, dt)


def _sizes(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


# ---------------------------------------------------------------- convolution
@dataclass(frozen=True)
class ConvParams:
    """Validated convolution arguments, every per-dim list of length `dim`."""
    dim: int
    stride: tuple
    padding: tuple
    dilation: tuple
    transposed: bool
    output_padding: tuple
    groups: int
    out_shape: tuple        # (N, O, *spatial)


def _expand(values, name, dim) -> tuple:
    values = [values] if isinstance(values, int) else list(values)
    if len(values) == 1:
        return tuple(values) * dim
    if len(values) != dim:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dim} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={_sizes(values)}")
    return tuple(values)


def conv_output_size(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def conv_params(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups) -> ConvParams:
    """torch's _convolution checks (check_shape_forward), in its order."""
    return conv_params_of(input._shape, weight._shape, None if bias is None else bias._shape,
                          stride, padding, dilation, transposed, output_padding, groups)


def _hashable(v):
    return v if isinstance(v, int) else tuple(v)


def cached_conv_params(input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups) -> ConvParams:
    """conv_params remembered per shapes and arguments, for concrete (int) shapes: a
    training loop checks the same few convolutions at every step. Errors are not
    remembered (each call raises again)."""
    return _conv_params_cached(
        tuple(input._shape), tuple(weight._shape), None if bias is None else tuple(bias._shape),
        _hashable(stride), _hashable(padding), _hashable(dilation), bool(transposed),
        _hashable(output_padding), groups)


def conv_params_of(ishape, wshape, bshape, stride, padding, dilation, transposed, output_padding,
                   groups) -> ConvParams:
    """conv_params on the input's, weight's and bias's shapes (`bshape` None: no bias)."""
    k = len(wshape)
    dim = k - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride = _expand(stride, "stride", dim)
    padding = _expand(padding, "padding", dim)
    dilation = _expand(dilation, "dilation", dim)
    output_padding = _expand(output_padding, "output_padding", dim)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if len(ishape) != k:
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight "
                           f"{_sizes(wshape)}, but got {len(ishape)}-dimensional input of size "
                           f"{_sizes(ishape)} instead")
    if wshape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {_sizes(wshape)} instead")
    if wshape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size {_sizes(wshape)} instead")
    spatial = ishape[2:]
    if not transposed:
        if ishape[1] != wshape[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {_sizes(wshape)}, expected "
                               f"input{_sizes(ishape)} to have {wshape[1] * groups} channels, but "
                               f"got {ishape[1]} channels instead")
        if bshape is not None and (len(bshape) != 1 or bshape[0] != wshape[0]):
            raise RuntimeError(f"Given weight of size {_sizes(wshape)}, expected bias to be "
                               f"1-dimensional with {wshape[0]} elements, but got bias of size "
                               f"{_sizes(bshape)} instead")
        padded = [n + 2 * p for n, p in zip(spatial, padding)]
        kern = [d * (n - 1) + 1 for n, d in zip(wshape[2:], dilation)]
        if any(a < b for a, b in zip(padded, kern)):
            raise RuntimeError(f"Calculated padded input size per channel: "
                               f"({' x '.join(map(str, padded))}). Kernel size: "
                               f"({' x '.join(map(str, kern))}). Kernel size can't be greater "
                               "than actual input size")
        out = tuple(conv_output_size(n, kk, s, p, d) for n, kk, s, p, d in
                    zip(spatial, wshape[2:], stride, padding, dilation))
        channels = wshape[0]
    else:
        if ishape[1] != wshape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {_sizes(wshape)}, expected "
                               f"input{_sizes(ishape)} to have {wshape[0]} channels, but got "
                               f"{ishape[1]} channels instead")
        channels = wshape[1] * groups
        if bshape is not None and (len(bshape) != 1 or bshape[0] != channels):
            raise RuntimeError(f"Given transposed=1, weight of size {_sizes(wshape)}, expected "
                               f"bias to be 1-dimensional with {channels} elements, but got "
                               f"bias of size {_sizes(bshape)} instead")
        if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
            # torch computes 1-d transposed convolutions in 2-d (a leading height of 1)
            names = ("height", "width") if dim == 1 else ("depth", "height", "width")[-dim:]
            ops, ss, ds = output_padding, stride, dilation
            if dim == 1:
                ops, ss, ds = (0,) + ops, (1,) + ss, (1,) + ds
            parts = ([f"output_padding_{n}: {v}" for n, v in zip(names, ops)]
                     + [f"stride_{n}: {v}" for n, v in zip(names, ss)]
                     + [f"dilation_{n}: {v}" for n, v in zip(names, ds)])
            raise RuntimeError("output padding must be smaller than either stride or dilation, "
                               f"but got {' '.join(parts)}")
        out = tuple((n - 1) * s - 2 * p + d * (kk - 1) + op + 1 for n, kk, s, p, d, op in
                    zip(spatial, wshape[2:], stride, padding, dilation, output_padding))
        if any(o <= 0 for o in out):
            raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, spatial))})."
                               f" Calculated output size per channel: "
                               f"({' x '.join(map(str, out))}). Output size is too small")
    return ConvParams(dim, stride, padding, dilation, bool(transposed), output_padding, groups,
                      (ishape[0], channels) + out)


_conv_params_cached = functools.lru_cache(maxsize=256)(conv_params_of)


def check_conv_dtypes(input, weight, bias, transposed=False):
    """The backend's checks: same dtypes, no bool."""
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) "
                           "should be the same or input should be a MKLDNN tensor and weight is "
                           "a dense tensor")
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({input.type()}) and bias type ({bias.type()}) should be "
                           "the same or input should be a MKLDNN tensor and bias is a dense tensor")
    if input._dtype is D.bool_:
        dim = input.dim() - 2
        name = ("slow_conv_transpose3d_out_cpu" if dim == 3 else "slow_conv_transpose2d_out_cpu") \
            if transposed else ("slow_conv3d_cpu" if dim == 3 else "slow_conv2d_cpu")
        raise not_implemented_for(name, D.bool_)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    p = conv_params(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                    groups)
    check_conv_dtypes(input, weight, bias, transposed)
    return empty_like_format(p.out_shape, input._dtype, channels_last(input, weight))


def convolution_backward_shapes(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                                transposed, output_padding, groups, output_mask,
                                params_of=conv_params):
    """(params, [shape or None] * 3) of convolution_backward's results (`params_of`:
    conv_params or the CPU's cached_conv_params)."""
    p = params_of(input, weight, None, stride, padding, dilation, transposed, output_padding,
                  groups)
    if tuple(grad_output._shape) != p.out_shape:
        raise RuntimeError(f"Expected grad_output of size {_sizes(p.out_shape)}, but got "
                           f"{_sizes(grad_output._shape)}")
    check_conv_dtypes(input, weight, None, transposed)
    if grad_output._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({grad_output.type()}) and weight type "
                           f"({weight.type()}) should be the same")
    shapes = [input._shape, weight._shape, (p.out_shape[1],)]
    return p, [s if m else None for s, m in zip(shapes, output_mask)]


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    _, shapes = convolution_backward_shapes(grad_output, input, weight, bias_sizes, stride,
                                            padding, dilation, transposed, output_padding, groups,
                                            output_mask)
    cl = channels_last(input, weight)
    return tuple(None if s is None else empty_like_format(s, input._dtype, cl) for s in shapes)


# ---------------------------------------------------------------- pooling
def _pair(values, name, op, *, allow_empty=False):
    values = [values] if isinstance(values, int) else list(values)
    if allow_empty and not values:
        return None
    if len(values) not in (1, 2):
        what = {"kernel_size": "must either be a single int, or a tuple of two ints",
                "stride": "must either be omitted, a single int, or a tuple of two ints",
                "padding": "must either be a single int, or a tuple of two ints",
                "dilation": "must be either a single int, or a tuple of two ints"}[name]
        raise RuntimeError(f"{op}: {name} {what}")
    return (values[0], values[-1])


def pooling_output_shape(size, k, pad, stride, dilation, ceil_mode):
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((k - 1) * dilation + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                           f"pad={pad}, kernel_size={k} and dilation={dilation}")
    num = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


@dataclass(frozen=True)
class PoolParams:
    kernel: tuple
    stride: tuple
    padding: tuple
    dilation: tuple
    out: tuple          # (oH, oW)
    shape: tuple        # the output shape (3-d or 4-d like the input)


def pool2d_params(input, kernel_size, stride, padding, dilation, ceil_mode, op) -> PoolParams:
    """torch's max_pool2d/avg_pool2d meta checks, in its order."""
    kh, kw = _pair(kernel_size, "kernel_size", op)
    st = _pair(stride, "stride", op, allow_empty=True)
    sh, sw = (kh, kw) if st is None else st
    ph, pw = _pair(padding, "padding", op)
    dh, dw = _pair(dilation, "dilation", op) if dilation is not None else (1, 1)
    return _pool2d_shape(input, (kh, kw), (sh, sw), (ph, pw), (dh, dw), ceil_mode, op)


def _pool2d_shape(input, kernel, stride, padding, dilation, ceil_mode, op):
    shape = input._shape
    nd = len(shape)
    if op == "max_pool2d":
        if nd not in (3, 4):
            raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    elif nd < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         "but got -3)")
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    h, w = shape[-2], shape[-1]
    oh = pooling_output_shape(h, kh, ph, sh, dh, ceil_mode)
    ow = pooling_output_shape(w, kw, pw, sw, dw, ceil_mode)
    if kw <= 0 or kh <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sw <= 0 or sh <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                           f"dilationW: {dw}")
    valid = shape[1] != 0 and shape[2] != 0
    if not ((nd == 3 and shape[0] != 0 and valid) or (nd == 4 and valid and shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                           f"for input, but got:{_sizes(shape)}")
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    planes = shape[-3]
    if ow < 1 or oh < 1:
        raise RuntimeError(f"Given input size: ({planes}x{h}x{w}). Calculated output size: "
                           f"({planes}x{oh}x{ow}). Output size is too small")
    return PoolParams(kernel, stride, padding, dilation, (oh, ow), shape[:-2] + (oh, ow))


def max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
    p = pool2d_params(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    if self._dtype is D.bool_:
        raise not_implemented_for("max_pool2d", D.bool_)
    cl = channels_last(self)
    return empty_like_format(p.shape, self._dtype, cl), empty_like_format(p.shape, D.int64, cl)


def check_pool_backward(grad_output, self, p: PoolParams):
    if grad_output._dtype is not self._dtype:
        raise RuntimeError(f"expected dtype {CPP_NAMES[self._dtype.name]} for `gradOutput` but "
                           f"got dtype {CPP_NAMES[grad_output._dtype.name]}")
    if tuple(grad_output._shape) != tuple(p.shape):
        raise RuntimeError(f"Expected grad_output of size {_sizes(p.shape)}, but got "
                           f"{_sizes(grad_output._shape)}")


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    p = pool2d_params(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    check_pool_backward(grad_output, self, p)
    if not self._dtype.is_floating_point:
        raise not_implemented_for("max_pool2d_backward", self._dtype)
    if tuple(indices._shape) != tuple(p.shape):
        raise RuntimeError(f"Expected indices of size {_sizes(p.shape)}, but got "
                           f"{_sizes(indices._shape)}")
    return empty_like_format(self._shape, grad_output._dtype, channels_last(self))


def avg_pool2d_params(self, kernel_size, stride, padding, ceil_mode, divisor_override):
    kh, kw = _pair(kernel_size, "kernel_size", "avg_pool2d")
    st = _pair(stride, "stride", "avg_pool2d", allow_empty=True)
    sh, sw = (kh, kw) if st is None else st
    ph, pw = _pair(padding, "padding", "avg_pool2d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return _pool2d_shape(self, (kh, kw), (sh, sw), (ph, pw), (1, 1), ceil_mode, "avg_pool2d")


def check_avg_dtype(self):
    if not self._dtype.is_floating_point and self._dtype is not D.int64:
        raise not_implemented_for("avg_pool2d", self._dtype)


def avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
               divisor_override):
    p = avg_pool2d_params(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    check_avg_dtype(self)
    return empty_like_format(p.shape, self._dtype, channels_last(self))


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
    p = avg_pool2d_params(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    check_pool_backward(grad_output, self, p)
    check_avg_dtype(self)
    return empty_like_format(self._shape, self._dtype, channels_last(self))


def adaptive_avg_pool2d_shape(self, output_size):
    output_size = [output_size] if isinstance(output_size, int) else list(output_size)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    shape = self._shape
    nd = len(shape)
    if nd not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{_sizes(shape)}")
    for i in (-2, -1):
        if shape[i] <= 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {_sizes(shape)} with "
                               f"dimension {i + nd} being empty")
    if not self._dtype.is_floating_point:
        raise not_implemented_for("adaptive_avg_pool2d", self._dtype)
    return shape[:-2] + tuple(output_size)


def adaptive_avg_pool2d_kernel(self, output_size):
    return empty_like_format(adaptive_avg_pool2d_shape(self, output_size), self._dtype,
                             channels_last(self))


def check_adaptive_backward(grad_output, self):
    nd = grad_output.dim()
    for i in range(1, nd):
        if grad_output._shape[i] <= 0:
            raise RuntimeError("adaptive_avg_pool2d_backward(): Expected grad_output to have "
                               "non-zero size for non-batch dimensions, but grad_output has "
                               f"sizes {_sizes(grad_output._shape)} with dimension {i} being "
                               "empty")
    if nd not in (3, 4):
        raise RuntimeError("adaptive_avg_pool2d_backward(): Expected 3D or 4D tensor, but got "
                           f"{_sizes(self._shape)}")
    if self._dtype is not grad_output._dtype:
        raise RuntimeError("adaptive_avg_pool2d_backward_out_cpu_template: Expected dtype "
                           f"{CPP_NAMES[self._dtype.name]} for `grad_output` but got dtype "
                           f"{CPP_NAMES[grad_output._dtype.name]}")
    if not self._dtype.is_floating_point:
        raise not_implemented_for("adaptive_avg_pool2d_backward_cpu", self._dtype)


def adaptive_avg_pool2d_backward_kernel(grad_output, self):
    check_adaptive_backward(grad_output, self)
    return empty_like_format(self._shape, self._dtype, channels_last(self))


# ---------------------------------------------------------------- padding
def constant_pad_params(self, pad):
    """(output shape, [(dim, before, after)]) of constant_pad_nd, after torch's checks."""
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    shape = self._shape
    n_in, n_pad = len(shape), len(pad) // 2
    if n_in < n_pad:
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)}while the input has "
                           f"{n_in}dimensions.")
    diff = n_in - n_pad
    plan = []
    for i in range(diff, n_in):
        idx = 2 * (n_in - i - 1)
        before, after = pad[idx], pad[idx + 1]
        size = shape[i]
        if before < 0:
            size += before
            if size < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
        if after < 0:
            size += after
            if size < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
        plan.append((i, before, after))
    new = list(shape)
    for i, before, after in plan:
        n = shape[i] + before + after
        if n < 0:  # (torch 2.13's check: a zero size is fine, even with a positive pad)
            raise RuntimeError(f"The input size {shape[i]}, plus negative padding {before} and "
                               f"{after} resulted in a negative output size, which is invalid. "
                               f"Check dimension {i} of your input.")
        new[i] = n
    return tuple(new), plan


def constant_pad_strides(self, shape, plan):
    """Result strides: with no positive pad torch returns a clone of the narrowed input
    (its strides kept when dense, also when empty); else a new tensor in the input's
    suggested memory format."""
    if all(b <= 0 and a <= 0 for _, b, a in plan):
        return like_strides(shape, self.stride(), None)
    return channels_last_strides(shape) if channels_last(self) else None


def constant_pad_nd(self, pad, value):
    shape, plan = constant_pad_params(self, pad)
    return empty_meta(shape, self._dtype, constant_pad_strides(self, shape, plan))


# ---------------------------------------------------------------- embedding
def check_indices(indices, fn, pos):
    if indices._dtype is not D.int64 and indices._dtype is not D.int32:
        raise RuntimeError(f"Expected tensor for argument #{pos} 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {indices.type()} instead "
                           f"(while checking arguments for {fn})")


def check_embedding(weight, indices):
    """embedding's checks (the CPU kernel's too): a 2-D weight, int64/int32 indices."""
    if len(weight._shape) != 2:
        raise RuntimeError("'weight' must be 2-D")
    check_indices(indices, "embedding", 1)


def embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
    check_embedding(weight, indices)
    return empty_meta(tuple(indices._shape) + (weight._shape[1],), weight._dtype)


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    check_indices(indices, "embedding_backward", 2)
    return empty_meta((num_weights, grad_output._shape[-1]), grad_output._dtype)
