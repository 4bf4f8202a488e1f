"""Helpers that backward formulas in schema/derivatives.yaml may call.

Formulas are Python expressions over ember ops, so every helper here is written in
ember ops too: backward stays differentiable (double backward by construction).
codegen reads this module with `ast` (no import) to learn the names formulas may use;
a helper decorated with `@forward_value` is evaluated in the forward pass when all
its arguments are inputs, and only its result is saved (e.g. `to_args_sizes(tensors)`).

    >>> sum_to_size(ember.ones(2, 3), (3,))
    tensor([2., 2., 2.])
"""
from __future__ import annotations

import math

import ember


def forward_value(fn):
    """Marks a helper whose call on inputs is computed at forward time and saved."""
    fn.forward_value = True
    return fn


# --- values computed at forward time ---------------------------------------------------------
@forward_value
def to_args_sizes(tensors):
    """The shapes of a tensor list (what `cat`'s backward needs, not the tensors)."""
    return [t.shape for t in tensors]


@forward_value
def to_args_dtypes(tensors):
    """The dtypes of a tensor list."""
    return [t.dtype for t in tensors]


# --- shape helpers ----------------------------------------------------------------------------
def sum_to_size(grad, shape):
    """Sums a broadcast gradient back to `shape` (the inverse of broadcasting).

    >>> sum_to_size(ember.ones(4, 2, 3), (2, 1)).shape
    ember.Size([2, 1])
    """
    gshape = grad._shape
    if gshape == shape:
        return grad
    shape = tuple(shape)
    lead = len(gshape) - len(shape)
    dims = list(range(lead))
    for i, n in enumerate(shape):
        if n == 1 and gshape[lead + i] != 1:
            dims.append(lead + i)
    if len(dims) == lead:
        # only leading dims to remove (a bias gradient): one sum, no view
        return grad.sum(dims) if dims else grad
    grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.view(shape)
    return grad


def unsqueeze_to(grad, dims, ndim):
    """Re-inserts the reduced `dims` (as size-1 dims) of a `keepdim=False` reduction."""
    if ndim == 0:
        return grad
    dims = [dims] if isinstance(dims, int) else list(dims or range(ndim))
    for d in sorted(d % ndim for d in dims):
        grad = grad.unsqueeze(d)
    return grad


def expand_grad(grad, shape, dims=None, keepdim=True):
    """The gradient of a sum over `dims`: broadcast `grad` back to the input `shape`."""
    if not keepdim:
        grad = unsqueeze_to(grad, dims, len(shape))
    return grad.expand(shape)


def reduced_count(shape, dims):
    """How many input elements fed each output element of a reduction over `dims`."""
    if isinstance(dims, int):
        dims = (dims,)
    if dims is None or len(dims) == 0:
        dims = range(len(shape))
    n = 1
    for d in dims:
        n *= shape[d % len(shape)] if shape else 1
    return n


def grad_to_dtype(grad, dtype):
    """Casts a gradient back to an input's dtype (ops with `dtype=` or type promotion)."""
    return grad if grad._dtype is dtype else grad.to(dtype)


def reduce_to(grad, shape, dtype):
    """A broadcast, type-promoted gradient back to an input's shape and dtype.

    >>> reduce_to(ember.ones(2, 3, dtype=ember.float64), (3,), ember.float32)
    tensor([2., 2., 2.])
    """
    if grad._shape == shape and grad._dtype is dtype:    # the common case: nothing to do
        return grad
    return grad_to_dtype(sum_to_size(grad, shape), dtype)


def scalar_value(x):
    """A Python number from a Scalar argument (formulas multiply by it)."""
    return x.item() if isinstance(x, ember.Tensor) else x


def scale(grad, s):
    """grad * s for a Python number `s` (mul.Scalar: keeps grad's dtype)."""
    return ember.ops.aten.mul.Scalar(grad, scalar_value(s))


def maybe_multiply(grad, alpha):
    """grad * alpha, skipping the multiply when alpha is 1."""
    return grad if alpha == 1 else scale(grad, alpha)


def grad_where(mask, grad):
    """grad where `mask`, else 0 (broadcast to both shapes; NaN grads stay out of the zeros)."""
    return ember.where(mask, grad, grad.new_zeros(()))


def zero_where(mask, grad):
    """0 where `mask`, else grad."""
    return ember.where(mask, grad.new_zeros(()), grad)


def zeros_for(grad, shape, dtype):
    """A zero gradient for an input of `shape` and `dtype` (no dependence on grad)."""
    return grad.new_zeros(tuple(shape), dtype=dtype)


# --- pointwise ops -----------------------------------------------------------------------------
def div_self_backward(grad, other, shape, dtype, rounding_mode=None):
    """d(self / other)/d(self) = 1 / other; zero for rounding divisions (like torch)."""
    if rounding_mode is not None:
        return zeros_for(grad, shape, dtype)
    if isinstance(other, ember.Tensor):
        return reduce_to(grad / other, shape, dtype)
    return grad_to_dtype(ember.ops.aten.div.Scalar(grad, other), dtype)


def div_other_backward(grad, self, other, rounding_mode=None):
    """d(self / other)/d(other) = -self / other**2; zero for rounding divisions."""
    if rounding_mode is not None:
        return zeros_for(grad, other.shape, other.dtype)
    return reduce_to(grad.neg() * ((self / other) / other), other.shape, other.dtype)


def pow_backward(grad, self, exponent):
    """d(self ** exponent)/d(self) for a Python-number exponent (zero for exponent 0)."""
    exponent = scalar_value(exponent)
    if exponent == 0:
        return ember.zeros_like(self)
    return grad * scale(self.pow(exponent - 1), exponent)


def pow_backward_self(grad, self, exponent):
    """d(self ** exponent)/d(self) = exponent * self ** (exponent - 1), 0 where exponent == 0."""
    if not isinstance(exponent, ember.Tensor):     # a Python number for the exponent
        return reduce_to(pow_backward(grad, self, exponent), self.shape, self.dtype)
    g = grad * (exponent * self.pow(exponent - 1))
    return reduce_to(zero_where(exponent == 0, g), self.shape, self.dtype)


def pow_backward_exponent(grad, self, exponent, result):
    """d(self ** exponent)/d(exponent) = result * log(self), 0 where self == 0 <= exponent.
    The log reads 1 there (not 0), so no NaN appears, in double backward either."""
    base = grad_to_dtype(self, result.dtype) if isinstance(self, ember.Tensor) else self
    cond = (base == 0) * (exponent >= 0)
    log_base = zero_where(cond, ember.where(cond, base.new_ones(()), base).log())
    return reduce_to(grad * (result * log_base), exponent.shape, exponent.dtype)


def pow_scalar_backward(grad, base, exponent, result):
    """d(base ** exponent)/d(exponent) = result * log(base) for a Python-number base
    (for base 0: 0 where exponent >= 0, else -inf)."""
    base = scalar_value(base)
    if base == 0:
        return grad * zero_where(exponent >= 0, result.new_full((), -math.inf))
    return grad * scale(result, math.log(base))


def clamp_backward(grad, self, min, max):
    """clamp with number bounds: grad where min <= self <= max (the bounds themselves
    included, like torch), else 0."""
    if min is not None and max is not None:
        return grad_where((self >= min) * (self <= max), grad)
    if min is not None:
        return grad_where(self >= min, grad)
    if max is not None:
        return grad_where(self <= max, grad)
    return grad


def clamp_backward_min_max(grad, self, min, max):
    """clamp with tensor bounds: (grad self, grad min, grad max) with torch's masks; when
    min > max the result is max, so max gets the gradient and min none."""
    g_self = g_min = g_max = None
    if min is not None and max is not None:
        g_self = grad_where((self >= min) * (self <= max), grad)
        g_min = grad_where((self < min) * (min < max), grad)
        g_max = grad_where((self > max) + (max < min), grad)
    elif min is not None:
        g_self = grad_where(self >= min, grad)
        g_min = grad_where(self < min, grad)
    elif max is not None:
        g_self = grad_where(self <= max, grad)
        g_max = grad_where(self > max, grad)
    else:
        g_self = grad
    g_self = reduce_to(g_self, self.shape, self.dtype)
    if g_min is not None:
        g_min = reduce_to(g_min, min.shape, min.dtype)
    if g_max is not None:
        g_max = reduce_to(g_max, max.shape, max.dtype)
    return g_self, g_min, g_max


def to_copy_backward(grad, dtype, device):
    """_to_copy's gradient: grad back to the input's dtype and device."""
    if grad.dtype == dtype and grad.device == device:
        return grad
    return grad.to(device=device, dtype=dtype)


# --- reductions --------------------------------------------------------------------------------
def mean_backward(grad, shape, dims, keepdim, dtype):
    """The gradient of a mean over `dims` (None or []: all): grad / count, broadcast back,
    computed in grad's dtype (a `mean(dtype=)`'s) and then cast to the input's, like torch."""
    g = expand_grad(grad, shape, dims, keepdim)
    return grad_to_dtype(ember.ops.aten.div.Scalar(g, reduced_count(shape, dims)), dtype)


def amax_backward(grad, self, result, dims, keepdim):
    """The gradient of amax: shared evenly by the elements equal to the maximum."""
    if not keepdim:
        grad = unsqueeze_to(grad, dims, self.ndim)
        result = unsqueeze_to(result, dims, self.ndim)
    mask = result == self
    return (grad / mask.sum(dims, keepdim=True)) * mask


# --- views -------------------------------------------------------------------------------------
def permute_backward(grad, dims):
    """permute's gradient: grad permuted by the inverse permutation."""
    n = len(dims)
    inverse = [0] * n
    for i, d in enumerate(dims):
        inverse[d % n] = i
    return grad.permute(inverse)


def slice_backward(grad, shape, dim, start, end, step):
    """slice's gradient: zeros of the input's shape with grad in the sliced part."""
    out = grad.new_zeros(tuple(shape))
    out.slice(dim, start, end, step).copy_(grad)
    return out


def select_backward(grad, shape, dim, index):
    """select's gradient: zeros of the input's shape with grad at `index` along `dim`."""
    out = grad.new_zeros(tuple(shape))
    out.select(dim, index).copy_(grad)
    return out


def diagonal_backward(grad, shape, offset, dim1, dim2):
    """diagonal's gradient: zeros of the input's shape with grad on that diagonal."""
    out = grad.new_zeros(tuple(shape))
    out.diagonal(offset, dim1, dim2).copy_(grad)
    return out


# --- joining and indexing ----------------------------------------------------------------------
def cat_tensors_backward(grad, sizes, dtypes, dim):
    """cat's gradient: the slice of grad each input filled (legacy empty 1-D inputs,
    which cat skips, get empty gradients)."""
    ref = next((s for s in sizes if tuple(s) != (0,)), None)
    if ref is not None:
        dim = dim % len(ref)
    out, start = [], 0
    for shape, dtype in zip(sizes, dtypes):
        if tuple(shape) == (0,):
            out.append(grad.new_zeros((0,), dtype=dtype))
            continue
        n = shape[dim]
        out.append(grad_to_dtype(grad.narrow(dim, start, n), dtype))
        start += n
    return out


def index_backward(grad, shape, indices):
    """index's gradient: grad added (repeats accumulate) into zeros at the indexed places."""
    return grad.new_zeros(tuple(shape)).index_put(indices, grad, True)


def index_put_self_backward(grad, indices, accumulate):
    """index_put's gradient for self: grad, with the overwritten places zeroed unless
    accumulating."""
    if accumulate:
        return grad
    return grad.index_put(indices, grad.new_zeros(()), False)


def as_strided_backward(grad, in_shape, in_stride, in_offset, size, stride, storage_offset):
    """Gradient of as_strided: scatter-add `grad` into the input's storage positions
    (overlapping outputs accumulate), then read the input's elements back."""
    if storage_offset is None:
        storage_offset = in_offset
    out_idx = _storage_indices(size, stride, storage_offset, grad.device)
    in_idx = _storage_indices(in_shape, in_stride, in_offset, grad.device)
    extent = 1 + max(_max_index(size, stride, storage_offset),
                     _max_index(in_shape, in_stride, in_offset))
    flat = grad.new_zeros((extent,))
    flat = flat.index_put((out_idx.reshape(-1),), grad.reshape(-1), True)
    return flat[in_idx]


def _max_index(shape, stride, offset):
    if 0 in tuple(shape):
        return offset
    return offset + sum((n - 1) * s for n, s in zip(shape, stride))


def _storage_indices(shape, stride, offset, device):
    """The storage index of every element of a strided layout, as an int64 tensor."""
    idx = ember.full(tuple(shape), offset, dtype=ember.int64, device=device)
    for d, (n, s) in enumerate(zip(shape, stride)):
        view = [1] * len(shape)
        view[d] = n
        idx = idx + ember.arange(n, dtype=ember.int64, device=device).view(view) * s
    return idx


# ---------------------------------------------------------------- shape
def _ints(x):
    return [x] if isinstance(x, int) else [int(v) for v in x]


def repeat_backward(grad, repeats, shape):
    """repeat's gradient: the tiles summed back onto the input (leading new dims too)."""
    repeats, shape = _ints(repeats), tuple(shape)
    lead = len(repeats) - len(shape)
    if lead:
        grad = grad.sum(list(range(lead)))
    if not shape:
        return grad
    split = []
    for r, n in zip(repeats[lead:], shape):
        split += [r, n]
    return grad.reshape(split).sum(list(range(0, 2 * len(shape), 2)))


def roll_backward(grad, shifts, dims):
    """roll's gradient: grad rolled back by the opposite shifts."""
    return grad.roll([-s for s in _ints(shifts)], _ints(dims))


def index_select_backward(grad, shape, dim, index):
    """index_select's gradient: grad added (repeats accumulate) into zeros at the rows read."""
    shape = tuple(shape)
    if not shape:
        return grad.reshape(())
    dim = dim % len(shape)
    return grad.new_zeros(shape).index_put([None] * dim + [index.reshape(-1)], grad, True)


def gather_backward(grad, shape, dim, index):
    """gather's gradient: grad scattered-added into zeros of the input's shape."""
    return grad.new_zeros(tuple(shape)).scatter_add(dim, index, grad)


def value_selecting_backward(grad, dim, indices, shape):
    """sort / topk: each value's gradient goes back to the position it came from."""
    return grad.new_zeros(tuple(shape)).scatter(dim, indices, grad)


def masked_select_backward(grad, self, mask):
    """masked_select's gradient: grad written at the mask's True places of zeros of the
    broadcast shape, then reduced to self's shape."""
    shape = tuple(ember.broadcast_shapes(self.shape, mask.shape))
    if not shape:    # 0-d: grad has 0 or 1 element
        out = grad_where(mask, grad.sum())
    else:
        out = grad.new_zeros(shape).index_put([mask.expand(shape)], grad, False)
    return reduce_to(out, self.shape, self.dtype)


def scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result):
    """torch's scatter_reduce_backward: (grad self, grad src) for sum, prod, mean, amax, amin."""
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError("Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' "
                           f"but got {reduce}.")
    if reduce == "sum":
        g_self, g_src = grad, grad.gather(dim, index)
    elif reduce == "prod":
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce,
                                                        include_self=include_self)
        g_self = grad * masked_self_result / masked_self
        src_zero = src == 0
        src_num_zeros = ember.zeros_like(self).scatter_add(
            dim, index, src_zero.to(self.dtype)).gather(dim, index)
        src_single_zero = src_zero * (src_num_zeros == 1)
        masked_src = src.masked_fill(src_single_zero, 1)
        masked_src_result = self.scatter_reduce(dim, index, masked_src, reduce,
                                                include_self=include_self)
        g_src = ember.where(src_single_zero, (grad * masked_src_result).gather(dim, index),
                            (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1))
    elif reduce == "mean":
        n = ember.ones_like(grad) if include_self else ember.zeros_like(grad)
        n = n.scatter_add(dim, index, ember.ones_like(src))
        n = n.masked_fill(n == 0, 1)
        g_self = grad / n
        g_src = grad.gather(dim, index) / n.gather(dim, index)
    else:  # amax / amin: ties share the gradient evenly
        value = result.gather(dim, index)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        share = grad / self_is_result.scatter_add(dim, index, src_is_result)
        g_self = self_is_result * share
        g_src = src_is_result * share.gather(dim, index)
    if not include_self:
        g_self = g_self.scatter(dim, index, 0)
    return g_self, g_src


def as_strided_scatter_backward(grad, in_shape, in_stride, size, stride, storage_offset):
    """torch's as_strided_scatter_backward (for contiguous inputs): grad with the scattered
    window zeroed."""
    g = grad.contiguous()
    buf = g.new_zeros(tuple(in_shape))
    out = buf.as_strided(tuple(in_shape), tuple(in_stride), 0)
    out.copy_(g)
    buf.as_strided(size, stride, 0 if storage_offset is None else storage_offset).fill_(0)
    return out


def index_source_backward(grad, dim, index, shape):
    """index_add / index_copy: the source's gradient is grad at the indexed slices."""
    g = grad.index_select(dim, index) if grad.dim() else grad
    return g.reshape(tuple(shape)) if g.numel() == math.prod(shape) else g.expand(tuple(shape))


def index_fill_value_backward(grad, dim, index, dtype):
    """index_fill's value gradient: the sum of grad over the filled (distinct) slices."""
    g = grad.index_select(dim, ember.unique(index.reshape(-1))) if grad.dim() else grad
    return grad_to_dtype(g.sum(), dtype)


def masked_scatter_source_backward(grad, mask, shape):
    """masked_scatter's source gradient: grad at the mask's True places, in order, padded
    with zeros to the source's size."""
    n = math.prod(shape)
    selected = grad.masked_select(mask)
    if selected.numel() < n:
        selected = ember.cat([selected, grad.new_zeros((n - selected.numel(),))])
    return selected.reshape(tuple(shape))


def put_self_backward(grad, index, source, accumulate):
    """put's self gradient: grad, zeroed at the overwritten places unless accumulating."""
    if accumulate:
        return grad
    return grad.put(index, ember.zeros_like(source), False)


def unfold_backward(grad, shape, dim, size, step):
    """unfold's gradient: each window's gradient added back at the positions it covers."""
    shape = tuple(shape)
    if not shape:
        return grad.reshape(())
    dim = dim % len(shape)
    windows = grad.shape[dim]
    pos = (ember.arange(windows, device=grad.device).view(-1, 1) * step
           + ember.arange(size, device=grad.device).view(1, -1)).reshape(-1)
    g = grad.movedim(-1, dim + 1).flatten(dim, dim + 1)
    return grad.new_zeros(shape).index_add(dim, pos, g)
# ---------------------------------------------------------------- conv
def convolution_backward_formula(grad, input, weight, bias, stride, padding, dilation,
                                 transposed, output_padding, groups):
    """(grad_input, grad_weight, grad_bias) of a convolution, by the convolution_backward op
    (differentiable itself, so double backward works)."""
    has_bias = bias is not None
    # like torch's grad_input_mask: no col2im for an input that needs no gradient
    mask = [input.requires_grad, weight.requires_grad, has_bias and bias.requires_grad]
    gi, gw, gb = ember.convolution_backward(
        grad, input, weight, [bias.shape[0]] if has_bias else None, stride, padding, dilation,
        transposed, output_padding, groups, mask)
    return gi, gw, gb


def convolution_double_backward(ggi, ggw, ggb, grad_output, input, weight, stride, padding,
                                dilation, transposed, output_padding, groups):
    """The gradients of convolution_backward's (grad_input, grad_weight, grad_bias) with
    respect to (grad_output, input, weight), given their incoming gradients ggi, ggw, ggb
    (torch's _convolution_double_backward): grad_input is linear in (grad_output, weight)
    and grad_weight in (input, grad_output), so each term is a convolution or its backward."""
    args = (stride, padding, dilation, transposed, output_padding, groups)
    g_out = g_in = g_w = None
    if ggi is not None:
        g_out = ember.convolution(ggi, weight, None, *args)
        g_w = ember.convolution_backward(grad_output, ggi, weight, None, *args,
                                         [False, True, False])[1]
    if ggw is not None:
        t = ember.convolution(input, ggw, None, *args)
        g_out = t if g_out is None else g_out + t
        g_in = ember.convolution_backward(grad_output, input, ggw, None, *args,
                                          [True, False, False])[0]
    if ggb is not None:
        t = ggb.reshape([1, -1] + [1] * (grad_output.dim() - 2)).expand(grad_output.shape)
        g_out = t if g_out is None else g_out + t
    return g_out, g_in, g_w


def max_pool_double_backward(grad, indices):
    """max_pool2d_with_indices_backward is linear in grad_output: its gradient gathers
    `grad` (input-shaped) at the argmax indices (torch's max_pool_double_backward)."""
    h, w = grad.shape[-2:]
    flat = grad.reshape(-1, h * w)
    idx = indices.reshape(flat.shape[0], -1)
    rows = ember.arange(flat.shape[0], device=grad.device).reshape(-1, 1)
    return flat[rows, idx].reshape(indices.shape)


def embedding_dense_double_backward(grad, indices, padding_idx, scale_grad_by_freq):
    """embedding_dense_backward is linear in grad_output: its gradient reads the rows of
    `grad` at `indices`, zero at padding_idx, divided by the index counts when scaling."""
    out = grad[indices]
    if scale_grad_by_freq:
        flat = indices.reshape(-1)
        counts = (flat.unsqueeze(1) == flat.unsqueeze(0)).sum(1).to(grad.dtype)
        out = out / counts.reshape(tuple(indices.shape) + (1,))
    if padding_idx >= 0:
        out = out.masked_fill((indices == padding_idx).unsqueeze(-1), 0)
    return out
# ---------------------------------------------------------------- nn
def softmax_double_backward(grad, grad_output, dim, output):
    """d/d(output) of output * (grad_output - sum(grad_output * output))."""
    s = (grad_output * output).sum(dim, keepdim=True)
    return grad * (grad_output - s) - grad_output * (grad * output).sum(dim, keepdim=True)


def log_softmax_double_backward_grad_output(grad, dim, output):
    """d/d(grad_output) of grad_output - exp(output) * sum(grad_output)."""
    return grad - (grad * output.exp()).sum(dim, keepdim=True)


def log_softmax_double_backward_output(grad, grad_output, dim, output):
    """d/d(output) of grad_output - exp(output) * sum(grad_output)."""
    return (grad * output.exp()) * grad_output.sum(dim, keepdim=True).neg()
# ---------------------------------------------------------------- binary
def max_min_backward(grad, self, other, loses):
    """maximum / minimum: grad where this input wins, half of it on ties (like torch), 0
    where `loses`."""
    return ember.where(self == other, grad / 2, grad).masked_fill(loses, 0)


def atan2_backward(grad, self, other):
    """d atan2(self, other) = (other, -self) / (self ** 2 + other ** 2); 0 at the origin
    (like torch)."""
    denom = self * self + other * other
    at_origin = denom == 0
    recip = zero_where(at_origin, 1 / ember.where(at_origin, denom.new_ones(()), denom))
    g_self = reduce_to(grad * other * recip, self.shape, self.dtype)
    g_other = reduce_to((grad * self * recip).neg(), other.shape, other.dtype)
    return g_self, g_other
# ---------------------------------------------------------------- activation
# Double-backward helpers (torch's FunctionsManual): the `self` derivatives of the
# *_backward ops, i.e. second derivatives of the activations times both incoming grads.
_GELU_K_BETA_TANH = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5
_GELU_K_KAPPA = 0.044715
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def gelu_double_backward(ggI, gO, self, approximate):
    """d gelu_backward(gO, self) / d self, times ggI: ggI * gO * gelu''(self)."""
    x_sq = self * self
    if approximate == "tanh":
        inner = (self + x_sq * self * _GELU_K_KAPPA) * _GELU_K_BETA_TANH
        t = inner.tanh()
        g = 1 - t * t
        h = (x_sq * (3 * _GELU_K_KAPPA) + 1) * _GELU_K_BETA_TANH
        f = self * 0.5
        g_prime = g * t * h * -2
        h_prime = self * (6 * _GELU_K_KAPPA * _GELU_K_BETA_TANH)
        return ggI * gO * (g * h + f * h * g_prime + f * g * h_prime)
    pdf = (x_sq * -0.5).exp() * _INV_SQRT_2PI
    return ggI * gO * (pdf * 2 - x_sq * pdf)


def silu_double_backward(grad, grad_output, self):
    """grad * grad_output * silu''(self), silu'' = s (1 - s) (2 + x (1 - 2 s))."""
    s = self.sigmoid()
    return grad * grad_output * (s * (1 - s)) * (self * (1 - s * 2) + 2)


def softplus_double_backward(grad, self, beta, threshold):
    """grad * softplus''(self): beta * sigmoid'(beta x), 0 where beta x >= threshold."""
    x = self * beta
    return ember.sigmoid_backward(grad, x.sigmoid()) * (x < threshold) * beta


def elu_double_backward(grad, grad_output, alpha, scale_, input_scale, is_result,
                        self_or_result):
    """The self_or_result derivative of elu_backward (nonzero where the input is < 0)."""
    negative = self_or_result < 0
    if is_result:
        return grad * grad_output * input_scale * negative
    g = ember.elu_backward(grad * grad_output * input_scale, alpha, scale_, input_scale,
                           is_result, self_or_result)
    return g * negative


def nll_loss_backward_grad_output(grad, target, weight, reduction, ignore_index, total_weight):
    """nll_loss_backward is linear in grad_output: its gradient is the loss of `grad`
    (rows picked at the targets), divided by total_weight for the mean."""
    out = ember.nll_loss_forward(grad, target, weight, 0 if reduction == 0 else 2,
                                 ignore_index)[0]
    if reduction == 1:
        out = out / total_weight
    return out


def _bce_scale(g, weight, reduction, numel):
    if weight is not None:
        g = g * weight
    if reduction == 1:
        g = g / numel
    return g


def binary_cross_entropy_target_backward(grad, self, target, weight, reduction):
    """d/d(target) of binary_cross_entropy: grad * (log(1 - x) - log(x))."""
    g = grad * ((1 - self).log() - self.log())
    return reduce_to(_bce_scale(g, weight, reduction, self.numel()), target.shape, target.dtype)


def binary_cross_entropy_double_backward(grad_output, grad, self, target, weight, reduction):
    """d/d(self) of binary_cross_entropy_backward (torch's formula, eps 1e-12)."""
    eps = 1e-12
    num = self * self - self * target * 2 + target
    den = (self + eps).pow(2) * (1 - self + eps).pow(2)
    g = num / den * (grad * grad_output)
    return reduce_to(_bce_scale(g, weight, reduction, self.numel()), self.shape, self.dtype)


def binary_cross_entropy_double_backward_grad_output(grad, self, target, weight, reduction,
                                                     grad_output):
    """d/d(grad_output) of binary_cross_entropy_backward."""
    eps = 1e-12
    g = (self - target) / ((self + eps) * (1 - self + eps)) * grad
    if weight is not None:
        g = g * weight
    if reduction == 1:
        g = g.sum() / max(self.numel(), 1)
    elif reduction == 2:
        g = g.sum()
    return reduce_to(g, grad_output.shape, grad_output.dtype)


def binary_cross_entropy_double_backward_target(grad, grad_output, self, target, weight,
                                                reduction):
    """d/d(target) of binary_cross_entropy_backward: -grad * grad_output / (x (1 - x))."""
    g = (grad * grad_output).neg()
    if weight is not None:
        g = g * weight
    g = g / ((1 - self) * self).clamp(min=1e-12)
    if reduction == 1:
        g = g / self.numel()
    return reduce_to(g, target.shape, target.dtype)


def _norm_stats(x, rdims, eps):
    """(mean, rstd) over `rdims` (keepdim), in ember ops."""
    mean = x.mean(rdims, keepdim=True)
    d = x - mean
    return mean, ((d * d).mean(rdims, keepdim=True) + eps).pow(-0.5)


def _norm_grads(go, x, mean, rstd, w, rdims, bdims):
    """(dx, dweight, dbias) of y = (x - mean) * rstd * w + b, mean and rstd the statistics
    over `rdims` (their dependence on x included), in ember ops."""
    xhat = (x - mean) * rstd
    g = go if w is None else go * w
    a = g.mean(rdims, keepdim=True)
    c = (g * xhat).mean(rdims, keepdim=True)
    dx = rstd * (g - a - xhat * c)
    return dx, (go * xhat).sum(bdims), go.sum(bdims)


def _ln_dims(input, normalized_shape):
    axis = input.dim() - len(normalized_shape)
    return list(range(axis, input.dim())), list(range(axis))


def _sum_or_self(t, dims):
    return t.sum(dims) if dims else t


def layer_norm_backward_composite(grad, input, normalized_shape, weight, bias, eps):
    """native_layer_norm's gradient, recomputing mean and rstd from input in ember ops (so
    its own gradient, the double backward, is right)."""
    rdims, bdims = _ln_dims(input, normalized_shape)
    mean, rstd = _norm_stats(input, rdims, eps)
    xhat = (input - mean) * rstd
    g = grad if weight is None else grad * weight
    dx = rstd * (g - g.mean(rdims, keepdim=True)
                 - xhat * (g * xhat).mean(rdims, keepdim=True))
    dw = None if weight is None else _sum_or_self(grad * xhat, bdims)
    db = None if bias is None else _sum_or_self(grad, bdims)
    return dx, dw, db


def _norm_vjp(gx, gw, gb, go, x, mean, rstd, w, rdims, bdims):
    """The vector-Jacobian product of (dx, dw, db) = _norm_grads(go, x, mean, rstd, w) with
    mean and rstd independent inputs: (d go, d x, d mean, d rstd, d w); gx/gw/gb may be None.
    mean, rstd and w are broadcast against x; d mean and d rstd keep their dims."""
    xhat = (x - mean) * rstd
    g = go if w is None else go * w
    a = g.mean(rdims, keepdim=True)
    c = (g * xhat).mean(rdims, keepdim=True)
    d_go = go.new_zeros(()) if gb is None else gb
    d_xhat = x.new_zeros(())
    d_rstd = rstd.new_zeros(())
    d_w = None
    if gw is not None:
        d_go = d_go + gw * xhat
        d_xhat = d_xhat + go * gw
    if gx is not None:
        u = rstd * gx
        uxhat = (u * xhat).mean(rdims, keepdim=True)
        d_g = u - u.mean(rdims, keepdim=True) - xhat * uxhat
        d_xhat = d_xhat - u * c - g * uxhat
        d_rstd = (gx * (g - a - xhat * c)).sum(rdims, keepdim=True)
        d_go = d_go + (d_g if w is None else d_g * w)
        if w is not None:
            d_w = d_g * go
    d_x = d_xhat * rstd
    d_mean = d_x.sum(rdims, keepdim=True).neg()
    d_rstd = d_rstd + (d_xhat * (x - mean)).sum(rdims, keepdim=True)
    return d_go, d_x, d_mean, d_rstd, d_w


def _weight_grad(d_w, weight, dims):
    """d_w (weight-broadcast, or None for zero) summed over `dims` to the weight."""
    if weight is None:
        return None
    if d_w is None:
        return weight.new_zeros(weight.shape)
    return reduce_to(_sum_or_self(d_w, dims), weight.shape, weight.dtype)


def layer_norm_backward_vjp(grads, grad_out, input, normalized_shape, mean, rstd, weight):
    """Gradients of native_layer_norm_backward's outputs w.r.t. grad_out, input, mean,
    rstd and weight (mean and rstd as independent inputs)."""
    rdims, bdims = _ln_dims(input, normalized_shape)
    stats = tuple(input.shape[:len(bdims)]) + (1,) * len(rdims)
    m, r = mean.reshape(stats), rstd.reshape(stats)
    gx, gw, gb = grads
    d_go, d_x, d_mean, d_rstd, d_w = _norm_vjp(gx, gw, gb, grad_out, input, m, r, weight,
                                               rdims, bdims)
    d_w = _weight_grad(d_w, weight, bdims)
    return (reduce_to(d_go, grad_out.shape, grad_out.dtype),
            reduce_to(d_x, input.shape, input.dtype),
            reduce_to(d_mean, stats, mean.dtype).reshape(mean.shape),
            reduce_to(d_rstd, stats, rstd.dtype).reshape(rstd.shape), d_w)


def _bn_dims(input):
    c = input.shape[1]
    view = (1, c) + (1,) * (input.dim() - 2)
    return [0] + list(range(2, input.dim())), view


def batch_norm_backward_composite(grad, input, weight, bias, running_mean, running_var,
                                  training, eps):
    """native_batch_norm's gradient in ember ops: batch statistics recomputed from input
    (training) or the running ones (eval)."""
    rdims, view = _bn_dims(input)
    w = None if weight is None else weight.view(view)
    if training:
        mean, rstd = _norm_stats(input, rdims, eps)
        dx, dw, db = _norm_grads(grad, input, mean, rstd, w, rdims, rdims)
    else:
        mean = running_mean.view(view)
        rstd = (running_var.view(view) + eps).pow(-0.5)
        dx = grad * rstd if w is None else grad * w * rstd
        dw, db = (grad * ((input - mean) * rstd)).sum(rdims), grad.sum(rdims)
    return (dx, None if weight is None else grad_to_dtype(dw, weight.dtype),
            None if bias is None else grad_to_dtype(db, bias.dtype))


def batch_norm_backward_vjp(grads, grad_out, input, weight, running_mean, running_var,
                            save_mean, save_invstd, train, eps):
    """Gradients of native_batch_norm_backward's outputs w.r.t. grad_out, input, weight,
    save_mean and save_invstd (training: the saved statistics as independent inputs)."""
    rdims, view = _bn_dims(input)
    gx, gw, gb = grads
    gw = None if gw is None else gw.view(view)
    gb = None if gb is None else gb.view(view)
    w = None if weight is None else weight.view(view)
    if train:
        m, r = save_mean.view(view), save_invstd.view(view)
        d_go, d_x, d_mean, d_rstd, d_w = _norm_vjp(gx, gw, gb, grad_out, input, m, r, w,
                                                   rdims, rdims)
        d_mean = reduce_to(d_mean, view, save_mean.dtype).view(save_mean.shape)
        d_rstd = reduce_to(d_rstd, view, save_invstd.dtype).view(save_invstd.shape)
    else:
        r = (running_var.view(view) + eps).pow(-0.5)
        xhat = (input - running_mean.view(view)) * r
        d_go = grad_out.new_zeros(())
        d_x = input.new_zeros(())
        d_w = None
        if gx is not None:
            d_go = d_go + (gx * r if w is None else gx * w * r)
            if w is not None:
                d_w = gx * grad_out * r
        if gw is not None:
            d_go = d_go + gw * xhat
            d_x = d_x + gw * grad_out * r
        if gb is not None:
            d_go = d_go + gb
        d_mean = d_rstd = None
    d_w = _weight_grad(d_w, weight, rdims)
    return (reduce_to(d_go, grad_out.shape, grad_out.dtype),
            reduce_to(d_x, input.shape, input.dtype), d_w, d_mean, d_rstd)


def nll_loss2d_backward_grad_output(grad, target, weight, reduction, ignore_index,
                                    total_weight):
    """nll_loss2d_backward is linear in grad_output (see nll_loss_backward_grad_output)."""
    out = ember.nll_loss2d_forward(grad, target, weight, 0 if reduction == 0 else 2,
                                   ignore_index)[0]
    if reduction == 1:
        out = out / total_weight
    return out
# ---------------------------------------------------------------- reduction
def _flip(x, d):
    """x reversed along dim d (an index op, so it stays differentiable)."""
    n = x._shape[d]
    idx = ember.arange(n - 1, -1, -1, device=x.device)
    return x[(slice(None),) * d + (idx,)]


def _isnan(x):
    return ember.isnan(x)


def _abs(x):
    return x.abs()     # its gradient is sign(x): 0 at 0, like torch's


def _sgn(x):
    """sign(x), whose gradient is zero (torch's sgn)."""
    return x.sign()


def _keep_dims(grad, dims, ndim, keepdim):
    return grad if keepdim or ndim == 0 else unsqueeze_to(grad, dims, ndim)


def _prod_safe_zeros_backward(grad, inp, d):
    """prod's gradient where the input may hold zeros: the product of the elements before
    and after each one along `d` (exclusive cumulative products, no division)."""
    n = inp._shape[d]
    if inp.numel() == 0:
        return grad.expand(inp.shape)
    ones_shape = list(inp.shape)
    ones_shape[d] = 1
    ones = inp.new_ones(tuple(ones_shape))
    before = ember.cat([ones, inp.narrow(d, 0, n - 1)], d).cumprod(d)
    after = _flip(ember.cat([ones, _flip(inp.narrow(d, 1, n - 1), d)], d).cumprod(d), d)
    return grad * (before * after)


def prod_backward(grad, self, result, dim=None, keepdim=False):
    """Gradient of prod (torch's prod_backward): grad * result / self when no element is 0;
    else the product of the other elements (zero where a slice holds two zeros)."""
    dtype = self.dtype
    x = grad_to_dtype(self, grad.dtype)
    result = grad_to_dtype(result, grad.dtype)
    if x.ndim == 0:
        return grad_to_dtype(grad, dtype)
    if dim is None:
        if bool((x != 0).all()):
            return grad_to_dtype(grad * (result / x), dtype)
        if int((x == 0).sum()) > 1:
            return ember.zeros_like(x, dtype=dtype)
        g = _prod_safe_zeros_backward(grad, x.reshape(-1), 0).reshape(x.shape)
        return grad_to_dtype(g, dtype)
    d = dim % x.ndim
    if not keepdim:
        grad, result = grad.unsqueeze(d), result.unsqueeze(d)
    if bool((x != 0).all()):
        return grad_to_dtype(grad * (result / x), dtype)
    return grad_to_dtype(_prod_safe_zeros_backward(grad, x, d), dtype)


def value_selecting_reduction_backward(grad, dim, indices, shape, keepdim):
    """max.dim / min.dim: grad goes to the selected index of each slice, zeros elsewhere."""
    ndim = len(shape)
    if ndim == 0:
        return grad
    d = dim % ndim
    if not keepdim:
        grad, indices = grad.unsqueeze(d), indices.unsqueeze(d)
    view = [1] * ndim
    view[d] = shape[d]
    pos = ember.arange(shape[d], device=grad.device).view(view)
    return grad_where(pos == indices, grad)


def evenly_distribute_backward(grad, self, result):
    """max() / min(): grad shared evenly by the elements equal to the result (the NaNs
    when the result is NaN)."""
    mask = _isnan(self) if bool(_isnan(result)) else (self == result)
    return grad_where(mask, grad / mask.sum())


def minmax_other_backward(grad, self, other, lose, shape, dtype):
    """max/min(self, other): the gradient is halved at ties, zero where this input lost."""
    g = ember.where(self == other, grad / 2, grad)
    return reduce_to(zero_where(lose, g), shape, dtype)


def var_backward(grad, self, dim, correction, keepdim):
    """torch's var_backward: 2 / (N - correction) * grad * (self - mean)."""
    c = 1.0 if correction is None else float(scalar_value(correction))
    if self.ndim == 0 or dim is None:
        dof = self.numel() - c
        if dof <= 0:
            special = ember.where(self == self.mean(), self.new_full((), math.nan),
                                  self.new_full((), math.inf))
            return grad * special
        return scale(grad * (self - self.mean()), 2.0 / dof)
    dims = [dim] if isinstance(dim, int) else list(dim)
    if not keepdim and self.ndim > 1:
        grad = unsqueeze_to(grad, dims, self.ndim)
    n = 1
    for d in dims:
        n *= self.shape[d]
    dof = n - c
    factor = 2.0 / dof if dof != 0 else math.inf
    return scale(grad * (self - self.mean(dims, keepdim=True)), factor)


def std_backward(result, grad, self, dim, correction, keepdim):
    """std = sqrt(var): grad / (2 std) (zero where std is 0), then var's gradient."""
    grad_var = zero_where(result == 0, grad / (result * 2))
    return var_backward(grad_var, self, dim, correction, keepdim)


def var_mean_backward(gvar, gmean, self, dim, correction, keepdim):
    g = var_backward(gvar, self, dim, correction, keepdim)
    dims = [dim] if isinstance(dim, int) else dim
    return g + mean_backward(gmean, self.shape, dims, keepdim, self.dtype)


def std_mean_backward(gstd, gmean, self, std, dim, correction, keepdim):
    g = std_backward(std, gstd, self, dim, correction, keepdim)
    dims = [dim] if isinstance(dim, int) else dim
    return g + mean_backward(gmean, self.shape, dims, keepdim, self.dtype)


def logsumexp_backward(grad, self, result, dim, keepdim):
    """grad * exp(self - logsumexp)."""
    grad = _keep_dims(grad, dim, self.ndim, keepdim)
    result = _keep_dims(result, dim, self.ndim, keepdim)
    return grad * (self - result).exp()


def norm_backward(grad, self, ord, norm, dim, keepdim):
    """torch's norm_backward (linalg_vector_norm): subgradient 0 at 0 for every order, the
    gradient of max/min |x| shared by ties for +-inf, none (None) for ord 0."""
    p = float(scalar_value(ord))
    dtype = self.dtype
    grad = _keep_dims(grad, dim, self.ndim, keepdim)
    norm = _keep_dims(norm, dim, self.ndim, keepdim)
    if p == 0.0:
        return None
    if p == 1.0:
        g = _sgn(self) * grad
    elif p == 2.0:
        g = grad * zero_where(norm == 0, self / norm)
    elif math.isinf(p):
        a = _abs(self)
        mask = ember.where(_isnan(a), a.new_ones((), dtype=ember.bool), a == norm)
        sums = mask.sum(dim, keepdim=True) if dim is not None else mask.sum()
        g = _sgn(self) * ((grad / sums) * mask)
    elif p < 1.0:
        zero = self == 0     # |x|^(p-1) is infinite at 0: read 1 there, then zero it
        safe = ember.where(zero, self.new_ones(()), _abs(self))
        scaled = zero_where(zero, _sgn(self) * safe.pow(p - 1))
        g = scaled * grad * norm.pow(1 - p)
    elif p < 2.0:
        g = _sgn(self) * _abs(self).pow(p - 1) * zero_where(norm == 0, grad / norm.pow(p - 1))
    else:
        g = self * _abs(self).pow(p - 2) * zero_where(norm == 0, grad / norm.pow(p - 1))
    return grad_to_dtype(g, dtype)


def cumsum_backward(grad, dim):
    """The reversed cumulative sum of grad along dim."""
    if grad.numel() <= 1 or grad.ndim == 0:
        return grad
    d = dim % grad.ndim
    if grad.shape[d] == 1:
        return grad
    return _flip(_flip(grad, d).cumsum(d), d)


def cumprod_backward(grad, self, dim, result):
    """cumprod's gradient: reversed cumsum(result * grad) / self without zeros; with zeros,
    sum_k grad_k * prod_{j <= k, j != i} x_j computed on an (n, n) product table."""
    dtype = self.dtype
    if self.numel() <= 1 or self.ndim == 0:
        return grad_to_dtype(grad, dtype)
    d = dim % self.ndim
    n = self.shape[d]
    if n == 1:
        return grad_to_dtype(grad, dtype)
    x = grad_to_dtype(self, grad.dtype)
    if bool((x != 0).all()):
        w = grad_to_dtype(result, grad.dtype) * grad
        return grad_to_dtype(_flip(_flip(w, d).cumsum(d), d) / x, dtype)
    xl, gl = x.movedim(d, -1), grad.movedim(d, -1)
    r = ember.arange(n, device=x.device)
    table = ember.where(r.view(n, 1) == r.view(1, n), x.new_ones(()), xl.unsqueeze(-2))
    prods = table.cumprod(-1)        # [..., i, k] = prod of x_j for j <= k, j != i
    upper = r.view(n, 1) <= r.view(1, n)
    g = (grad_where(upper, prods) * gl.unsqueeze(-2)).sum(-1)
    return grad_to_dtype(g.movedim(-1, d), dtype)
# ---------------------------------------------------------------- random
def dropout_grad_scale(p, train):
    """native_dropout's backward scale, as torch's derivatives.yaml has it: 1/(1-p) when
    train is True (0 for p == 1), else 1 (also for train=None, like torch)."""
    if train is None or not train:
        return 1.0
    return 0.0 if p == 1 else 1.0 / (1.0 - p)
