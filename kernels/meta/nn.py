"""Meta kernels and shared argument checks of the nn family: dot, mv,
baddbmm, softmax, normalisation and loss ops. The CPU kernels (kernels/cpu/nn.py) call
the same checks, so both backends raise alike and give the same layouts.

    >>> dot(empty_meta((3,), ember.float32), empty_meta((3,), ember.float32)).shape
    ember.Size([])
"""
from __future__ import annotations

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.core.factory_args import format_strides, like_strides
from ember.core.shapes import broadcast_shapes, wrap_dim
from ember.core.tensor import contiguous_strides
from ember.kernels.common import _pointwise as P
from ember.kernels.common._errors import not_implemented_for

from .linalg import CPP_NAMES, _check_expands


# --------------------------------------------------------------------------- linear algebra
def check_dot(self, tensor):
    if self.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {tensor.dim()}D "
                           "tensors")
    if self._dtype is not tensor._dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{self._dtype.scalar_name} and {tensor._dtype.scalar_name}")
    n, m = self._shape[0], tensor._shape[0]
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to "
                           f"have the same number of elements, but got {n} and {m} elements "
                           "respectively")


def check_mv(self, vec):
    if self.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.dim()}, "
                           f"{vec.dim()}")
    n, k = self._shape
    if vec._shape[0] != k:
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({vec._shape[0]})")
    if self._dtype is not vec._dtype:
        v, m = vec._dtype.scalar_name, self._dtype.scalar_name
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {v}, {m}, "
                           f"and {v}")
    return (n,)


def check_baddbmm(self, batch1, batch2, inplace=False):
    """The (b, n, p) shape of baddbmm, with torch's checks in its order: self expands to
    the result (in place too), self's dtype is batch1's, batch2's sizes, then the in-place
    output (torch's set_output: batch2's dtype, the shape), then batch2's dtype."""
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    shape = (batch1._shape[0], batch1._shape[1], batch2._shape[2])
    _check_expands(self._shape, shape, self._dtype)
    if self._dtype is not batch1._dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {CPP_NAMES[self._dtype]}, "
                           f"batch1: {CPP_NAMES[batch1._dtype]}, batch2: "
                           f"{CPP_NAMES[batch2._dtype]}")
    (b, _, k), (b2, k2, _) = batch1._shape, batch2._shape
    if (b2, k2) != (b, k):
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {k}] but got: [{b2}, {k2}].")
    if inplace and self._dtype is not batch2._dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {CPP_NAMES[self._dtype]} and "
                           f"output tensor dtype {CPP_NAMES[batch2._dtype]} should match")
    if inplace and tuple(self._shape) != shape:
        raise RuntimeError(f"Bad in-place call: input tensor size {list(self._shape)} and "
                           f"output tensor size {list(shape)} should match")
    if batch1._dtype is not batch2._dtype:
        raise RuntimeError(f"expected scalar type {batch1._dtype.scalar_name} but found "
                           f"{batch2._dtype.scalar_name}")
    return shape


def dot(self, tensor):
    check_dot(self, tensor)
    return empty_meta((), self._dtype)


def mv(self, vec):
    return empty_meta(check_mv(self, vec), self._dtype)


def baddbmm(self, batch1, batch2, beta, alpha):
    return empty_meta(check_baddbmm(self, batch1, batch2), self._dtype)


def baddbmm_(self, batch1, batch2, beta, alpha):
    check_baddbmm(self, batch1, batch2, inplace=True)
    return self


# --------------------------------------------------------------------------- softmax
def check_softmax(self, dim, half_to_float):
    """The wrapped dim; half_to_float has no CPU kernel (torch's check)."""
    d = wrap_dim(dim, self.dim())
    if half_to_float:
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")
    return d


def softmax_kernel_name(kind, self, d):
    """torch's kernel name in the "not implemented for" error (lastdim or not)."""
    last = self.dim() == 0 or d == self.dim() - 1
    return f"{kind}_lastdim_kernel_impl" if last else f"{kind}_kernel_impl"


def check_softmax_backward(grad_output, output, dim, input_dtype):
    """The wrapped dim; grad and output must agree in shape and dtype."""
    if tuple(grad_output._shape) != tuple(output._shape):
        raise RuntimeError("Expected tensor for argument #1 'grad' to have same size as tensor "
                           f"for argument #2 'output'; but {list(grad_output._shape)} does not "
                           f"equal {list(output._shape)} (while checking arguments for "
                           "softmax_backward)")
    d = wrap_dim(dim, grad_output.dim())
    if input_dtype is D.float16 and grad_output._dtype is D.float32:
        raise RuntimeError("expected scalar type Float but found Half")
    if output._dtype is not grad_output._dtype:
        raise RuntimeError(f"expected scalar type {grad_output._dtype.scalar_name} but found "
                           f"{output._dtype.scalar_name}")
    return d


def softmax_forward(self, dim, half_to_float):
    check_softmax(self, dim, half_to_float)
    return empty_meta(self._shape, self._dtype)


def log_softmax_forward(self, dim, half_to_float):
    check_softmax(self, dim, half_to_float)
    if self._dtype is D.bool_:   # torch's Meta kernel subtracts the max
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    return empty_meta(self._shape, self._dtype)


def softmax_backward_data(grad_output, output, dim, input_dtype):
    check_softmax_backward(grad_output, output, dim, input_dtype)
    return empty_meta(grad_output._shape, grad_output._dtype)


# --------------------------------------------------------------------------- losses
def _check_nll_input_target(self, target):
    """The input/target shape checks nll_loss_forward and its backward share."""
    if not 0 < self.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch = self.dim() == 1 and target.dim() == 0
    if not (no_batch or self._shape[0] == target._shape[0]):
        raise RuntimeError(f"size mismatch (got input: {list(self._shape)}, target: "
                           f"{list(target._shape)})")


def check_nll(self, target, weight):
    """nll_loss_forward's shape checks (torch's order and messages)."""
    _check_nll_input_target(self, target)
    n_classes = self._shape[-1]
    if weight is not None and not (weight.dim() == 1 and weight.numel() == n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes "
                           f"or no classes but got weight tensor of shape: {list(weight._shape)}")


def check_nll_dtypes(self, target, weight, *others):
    if target._dtype is not D.int64 and target._dtype is not D.uint8:
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{target._dtype.scalar_name}")
    for t in (weight, *others):
        if t is not None and t._dtype is not self._dtype:
            raise RuntimeError(f"expected scalar type {self._dtype.scalar_name} but found "
                               f"{t._dtype.scalar_name}")


def nll_loss_forward(self, target, weight, reduction, ignore_index):
    check_nll(self, target, weight)
    check_nll_dtypes(self, target, weight)
    shape = (self._shape[0],) if reduction == 0 and self.dim() == 2 else ()
    return empty_meta(shape, self._dtype), empty_meta((), self._dtype)


def check_nll_backward(grad_output, self, target, weight, reduction, total_weight):
    _check_nll_input_target(self, target)
    if total_weight.numel() != 1:
        raise RuntimeError("expected total_weight to be a  single element tensor, got: "
                           f"{list(total_weight._shape)} ({total_weight.numel()} elements)")
    if weight is not None and weight.numel() != self._shape[-1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if reduction == 0 and self.dim() == 2:
        n = self._shape[0]
        if grad_output.dim() == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if grad_output.dim() != 1 or grad_output._shape[0] != n:
            raise RuntimeError(f"Expected a tensor of dimension 1 and tensor.size[0] == {n} but "
                               f"got: dimension {grad_output.dim()} and tensor.size[0] = "
                               f"{grad_output._shape[0]}")
    elif grad_output.dim() > 1 or grad_output.numel() != 1:
        raise RuntimeError("Expected a single element grad_output tensor, but got: "
                           f"{list(grad_output._shape)}")


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    check_nll_backward(grad_output, self, target, weight, reduction, total_weight)
    check_nll_dtypes(self, target, weight, grad_output, total_weight)
    return empty_meta(self._shape, self._dtype)


def check_bce(self, target, weight, grad_output=None):
    """binary_cross_entropy(_backward)'s dtype checks; the loss is laid out like self."""
    if grad_output is not None and self._dtype is not grad_output._dtype:
        raise RuntimeError(f"Found dtype {self._dtype.scalar_name} but expected "
                           f"{grad_output._dtype.scalar_name}")
    if target._dtype is not self._dtype:
        raise RuntimeError(f"Found dtype {target._dtype.scalar_name} but expected "
                           f"{self._dtype.scalar_name}")
    broadcast_shapes(self._shape, target._shape)
    if weight is not None:
        shape = broadcast_shapes(self._shape, weight._shape)
        if shape != tuple(self._shape):
            raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the "
                               f"broadcast shape {list(shape)}")


def bce_layout(self):
    return like_strides(self._shape, self.stride(), None)


def binary_cross_entropy(self, target, weight, reduction):
    check_bce(self, target, weight)
    if reduction in (1, 2):
        return empty_meta((), self._dtype)
    return empty_meta(self._shape, self._dtype, bce_layout(self))


def binary_cross_entropy_backward(grad_output, self, target, weight, reduction):
    check_bce(self, target, weight, grad_output)
    return empty_meta(self._shape, self._dtype, bce_layout(self))


def smooth_l1_layout(self, target):
    """(shape, strides, dtype) of smooth_l1_loss's elementwise loss: self and target
    broadcast and promote like a binary op; only floating dtypes have a kernel."""
    dt = D.result_type(self, target)
    if dt.category != D.FLOAT:
        raise not_implemented_for("smooth_l1_cpu", dt)
    shape, strides = P.out_layout(self, target, cast_to=dt)
    return shape, strides, dt


def smooth_l1_backward_layout(grad_output, self, target):
    """(shape, strides, computation dtype) of smooth_l1_loss_backward: a contiguous
    tensor (torch's legacy-contiguous zeros_like(self)) of self's shape, or of the
    broadcast of all three when that is larger (torch then resizes it, with a warning)."""
    shape, _, dt = smooth_l1_layout(self, target)
    shape = broadcast_shapes(shape, grad_output._shape)
    return shape, contiguous_strides(shape), dt


def smooth_l1_loss(self, target, reduction, beta):
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    shape, strides, dt = smooth_l1_layout(self, target)
    if reduction in (1, 2):
        return empty_meta((), dt)
    return empty_meta(shape, dt, strides)


def smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
    shape, strides, _ = smooth_l1_backward_layout(grad_output, self, target)
    return empty_meta(shape, self._dtype, strides)


def flash_attention_cpu_layout(query, key, value, dropout_p, attn_mask):
    """_scaled_dot_product_flash_attention_for_cpu's checks (4-D query, key and value of
    one float dtype, the same batch and heads); returns the logsumexp's dtype."""
    name = "_scaled_dot_product_flash_attention_for_cpu"
    for what, t in (("query", query), ("key", key), ("value", value)):
        if t.dim() != 4:
            raise RuntimeError(f"{name}: expected {what} to be 4-D (batch, heads, sequence, "
                               f"embedding), got {t.dim()}-D")
    if query._dtype is not key._dtype or query._dtype is not value._dtype:
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {CPP_NAMES[query._dtype]} key.dtype: "
                           f"{CPP_NAMES[key._dtype]} and value.dtype: "
                           f"{CPP_NAMES[value._dtype]} instead.")
    if query._dtype is not D.float32 and query._dtype is not D.float64:
        raise not_implemented_for("flash_attention", query._dtype)
    (b, h, _, e), (kb, kh, s, ke), (vb, vh, vs, ve) = query._shape, key._shape, value._shape
    if ke != e or ve != e:
        raise RuntimeError("scaled_dot_product_attention_flash_attention: Q/K/V should have the "
                           "same head size")
    if (kb, kh, vb, vh) != (b, h, b, h) or vs != s:
        raise RuntimeError(f"{name}: query {list(query._shape)}, key {list(key._shape)} and "
                           f"value {list(value._shape)} must share batch and heads, key and "
                           "value their length")
    if dropout_p > 0:
        raise RuntimeError(f"{name}: ember's kernel has no dropout (scaled_dot_product_attention "
                           "takes dropout_p > 0 on its own path)")
    if attn_mask is not None and attn_mask._dtype is not D.bool_ and \
            attn_mask._dtype is not query._dtype:
        raise RuntimeError("Expected attn_mask dtype to be bool or to match query dtype")
    return query._dtype


def flash_attention_lse_strides(b, h, n):
    """The logsumexp (b, h, n) laid out as torch's kernel writes it: (b, n, h) transposed."""
    return (n * h, 1, h)


def flash_attention_grad_strides(shape):
    """A gradient (b, h, n, e) laid out as torch's backward writes it: (b, n, h, e)
    transposed."""
    _, h, n, e = shape
    return (n * h * e, e, h * e, 1)


def flash_attention_out_strides(query) -> tuple:
    """The output laid out as the query (torch's kernel writes it like empty_like(query)):
    multi_head_attention_forward's (L, N, H, E) in memory stays a view after its permute."""
    return like_strides(query._shape, query.stride(), None)


def flash_attention_cpu(query, key, value, dropout_p, is_causal, attn_mask, scale):
    dt = flash_attention_cpu_layout(query, key, value, dropout_p, attn_mask)
    b, h, n, _ = query._shape
    return (empty_meta(query._shape, dt, flash_attention_out_strides(query)),
            empty_meta((b, h, n), dt, flash_attention_lse_strides(b, h, n)))


def flash_attention_cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p,
                                 is_causal, attn_mask, scale):
    dt = flash_attention_cpu_layout(query, key, value, dropout_p, attn_mask)
    return tuple(empty_meta(t._shape, dt, flash_attention_grad_strides(t._shape))
                 for t in (query, key, value))


# --------------------------------------------------------------------------- normalisation
_REDUCED = (D.float16, D.bfloat16)


def check_param_dtypes(input, *params):
    """torch's mixed-dtype rule for the norm kernels: half inputs may take float32
    parameters (the statistics are then float32), otherwise every parameter has the
    input's dtype. Returns the statistics' dtype."""
    params = [p for p in params if p is not None]
    if input._dtype in _REDUCED and params and all(p._dtype is D.float32 for p in params):
        return D.float32
    if any(p._dtype is not input._dtype for p in params):
        if input._dtype in (D.float32, *_REDUCED):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return input._dtype


def check_layer_norm(input, normalized_shape, weight, bias):
    """(axis, stats shape) of layer norm over the trailing `normalized_shape` dims."""
    ns = tuple(map(int, normalized_shape))
    if len(ns) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p._shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(p._shape)} and normalized_shape = "
                               f"{list(ns)}")
    shape = tuple(input._shape)
    axis = len(shape) - len(ns)
    if axis < 0 or shape[axis:] != ns:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*{''.join(f', {n}' for n in ns)}], but got input of "
                           f"size{list(shape)}")
    return axis, shape[:axis] + (1,) * len(ns)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    _, stats = check_layer_norm(input, normalized_shape, weight, bias)
    sdt = check_param_dtypes(input, weight, bias)
    if input._dtype.category != D.FLOAT:
        raise not_implemented_for("LayerNormKernelImpl", input._dtype)
    return (empty_meta(input._shape, input._dtype), empty_meta(stats, sdt),
            empty_meta(stats, sdt))


def check_layer_norm_backward(grad_out, input, mean, rstd, weight, bias, output_mask):
    for t in (grad_out, mean, rstd):
        if t._dtype is not input._dtype and not (input._dtype in _REDUCED
                                                 and t._dtype is D.float32):
            raise RuntimeError(f"expected scalar type {input._dtype.scalar_name} but found "
                               f"{t._dtype.scalar_name}")
    if (output_mask[1] and weight is None) or (output_mask[2] and bias is None):
        raise RuntimeError("tensor does not have a device")


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                               output_mask):
    check_layer_norm(input, normalized_shape, weight, bias)
    check_layer_norm_backward(grad_out, input, mean, rstd, weight, bias, output_mask)
    return (empty_meta(input._shape, input._dtype) if output_mask[0] else None,
            empty_meta(weight._shape, weight._dtype) if output_mask[1] else None,
            empty_meta(bias._shape, bias._dtype) if output_mask[2] else None)


def check_batch_norm(input, weight, bias, running_mean, running_var, training):
    """The statistics' dtype, after torch's checks."""
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be "
                         "None")
    wrap_dim(1, input.dim())
    if input.numel() == 0:
        raise RuntimeError("input tensor must have at least one element, but got input_sizes = "
                           f"{list(input._shape)}")
    if not training and running_mean is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    return check_param_dtypes(input, weight, bias, running_mean, running_var)


def batch_norm_strides(input):
    """channels-last inputs keep their layout, others give contiguous results."""
    return format_strides(input._shape, input.suggest_memory_format())


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    sdt = check_batch_norm(input, weight, bias, running_mean, running_var, training)
    if input._dtype.category != D.FLOAT:
        raise not_implemented_for("batch_norm", input._dtype)
    n = input._shape[1] if training else 0
    return (empty_meta(input._shape, input._dtype, batch_norm_strides(input)),
            empty_meta((n,), sdt), empty_meta((n,), sdt))


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
                               save_invstd, train, eps, output_mask):
    check_param_dtypes(input, weight, running_mean, running_var, save_mean, save_invstd)
    c = input._shape[1]
    wdt = weight._dtype if weight is not None else input._dtype
    return (empty_meta(input._shape, input._dtype, batch_norm_strides(input))
            if output_mask[0] else None,
            empty_meta((c,), wdt) if output_mask[1] else None,
            empty_meta((c,), wdt) if output_mask[2] else None)


def check_nll2d(self, target, weight):
    if target.dim() != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.dim()}")
    if self.dim() != 4:
        raise RuntimeError("only batches of spatial inputs supported (4D tensors), but got "
                           f"input of dimension: {self.dim()}")
    if weight is not None and weight.numel() != self._shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    n, _, h, w = self._shape
    if tuple(target._shape) != (n, h, w):
        raise RuntimeError(f"size mismatch (got input: {list(self._shape)} , target: "
                           f"{list(target._shape)}")


def check_nll2d_backward(grad_output, self, target, weight, reduction, total_weight):
    check_nll2d(self, target, weight)
    if reduction == 0:
        if grad_output.dim() != 3:
            raise RuntimeError("grad_output must have same dimension as target (3) but got "
                               f"dimension: {list(grad_output._shape)}")
        if tuple(grad_output._shape) != tuple(target._shape):
            raise RuntimeError(f"grad_output sizes don't match target sizes: target "
                               f"{list(target._shape)}, grad_output {list(grad_output._shape)}")
    elif grad_output.dim() > 1 or grad_output.numel() != 1:
        raise RuntimeError("Expected a single element grad_output tensor, but got: "
                           f"{list(grad_output._shape)}")
    if total_weight.numel() != 1:
        raise RuntimeError("expected total_weight to be a single element tensor, got: "
                           f"{list(total_weight._shape)} ({total_weight.numel()} elements)")
    if self.suggest_memory_format().name == "channels_last":
        raise RuntimeError("grad_input must be contiguous")


def check_nll2d_target(target):
    if target._dtype is D.uint8:
        raise RuntimeError("expected scalar type Long but found Byte")


def nll_loss2d_forward(self, target, weight, reduction, ignore_index):
    check_nll2d(self, target, weight)
    check_nll_dtypes(self, target, weight)
    check_nll2d_target(target)
    shape = tuple(target._shape) if reduction == 0 else ()
    return empty_meta(shape, self._dtype), empty_meta((), self._dtype)


def nll_loss2d_backward(grad_output, self, target, weight, reduction, ignore_index,
                        total_weight):
    check_nll2d_backward(grad_output, self, target, weight, reduction, total_weight)
    check_nll_dtypes(self, target, weight, grad_output, total_weight)
    check_nll2d_target(target)
    return empty_meta(self._shape, self._dtype)
