"""ember.nn.functional: torch.nn.functional's signatures over ember's aten ops.

Each function is a thin wrapper (or an alias, where torch's signature is the op's own) so
that a training step pays little for the layer of Python between a module and its op::

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.randn(4, 3)
    >>> F.cross_entropy(F.linear(x, ember.randn(5, 3)), ember.tensor([0, 1, 4, 2]))
    tensor(...)

Reductions are strings ('none', 'mean', 'sum') mapped to aten's ints (0, 1, 2);
the deprecated ``size_average``/``reduce`` flags still work and warn, like torch's.
``__torch_function__`` subclasses and TorchFunctionModes see the F functions themselves
(F.cross_entropy, not only the ops inside), as in torch.
"""

from __future__ import annotations

import math
import warnings

import ember
from ember._generated import functions as _generated  # the schema's public functions
from ember.overrides import NO_OVERRIDE as _NO
from ember.overrides import handle_torch_function
from ember.overrides import tf_state as _tf

__all__ = [
    "adaptive_avg_pool2d", "avg_pool2d", "batch_norm", "bilinear", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "conv1d", "conv2d", "cross_entropy", "dropout",
    "dropout1d", "dropout2d", "elu", "elu_", "embedding", "gelu", "group_norm", "hardtanh",
    "hardtanh_", "l1_loss", "layer_norm", "leaky_relu", "leaky_relu_", "linear", "log_softmax",
    "max_pool2d", "max_pool2d_with_indices", "mse_loss", "multi_head_attention_forward",
    "nll_loss", "normalize", "one_hot", "pad", "relu", "relu_", "scaled_dot_product_attention",
    "sigmoid", "silu", "softmax", "softplus", "tanh", "threshold", "threshold_",
]

# --------------------------------------------------------------------------- __torch_function__


def _override(name, params):
    """torch's has_torch_function/handle_torch_function for the F function `name`, called
    first thing with its locals() (its parameters, in order) while tf_state[0] says a
    __torch_function__ subclass or mode exists: a mode sees F.cross_entropy itself, not only
    the ops inside. The input goes positionally, the rest by keyword. NO_OVERRIDE if
    nothing overrides."""
    input, *rest = params.items()
    return handle_torch_function(globals()[name], tuple(params.values()), (input[1],),
                                 dict(rest))


# --------------------------------------------------------------------------- reductions

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction: str) -> int:
    """Map torch's reduction string to aten's int: 'none' -> 0, 'mean' -> 1, 'sum' -> 2."""
    try:
        return _REDUCTIONS[reduction]
    except (KeyError, TypeError):
        if reduction == "elementwise_mean":
            warnings.warn(
                "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                stacklevel=3,
            )
            return 1
        raise ValueError(f"{reduction} is not a valid value for reduction") from None


def _reduction_string(size_average, reduce, reduction) -> str:
    """reduction, or (with a deprecation warning) what the legacy size_average/reduce flags
    ask for when either is given: both true -> 'mean', reduce only -> 'sum', else 'none'."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        result = "mean"
    elif reduce:
        result = "sum"
    else:
        result = "none"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{result}' "
        "instead.",
        stacklevel=3,
    )
    return result


# --------------------------------------------------------------------------- linear, conv

#: ``linear(input, weight, bias=None) -> Tensor``: y = x W^T + b (aten::linear).
linear = _generated.linear

#: ``conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``;
#: padding may also be 'valid' or 'same'.
conv1d = _generated.conv1d

#: ``conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``;
#: padding may also be 'valid' or 'same'.
conv2d = _generated.conv2d


def bilinear(input1, input2, weight, bias=None):
    """y = x1^T A x2 + b over the last dimension, weight (out, in1, in2).

    >>> F.bilinear(ember.randn(4, 2), ember.randn(4, 3), ember.randn(5, 2, 3)).shape
    ember.Size([4, 5])
    """
    if _tf[0] and (result := _override("bilinear", locals())) is not _NO:
        return result
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            "bilinear(): input batch dimensions do not match: got "
            f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}"
        )
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, got {weight.dim()}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} "
            f"but expected {weight.shape[1]}"
        )
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} "
            f"but expected {weight.shape[2]}"
        )
    output = ember.einsum("...i,oij,...j->...o", input1, weight, input2)
    return output if bias is None else output + bias


# --------------------------------------------------------------------------- activations

#: ``gelu(input, approximate='none') -> Tensor`` ('tanh' for the tanh approximation).
gelu = _generated.gelu

#: ``softplus(input, beta=1, threshold=20) -> Tensor``.
softplus = _generated.softplus

relu_ = _generated.relu_
elu_ = _generated.elu_
leaky_relu_ = _generated.leaky_relu_
hardtanh_ = _generated.hardtanh_
threshold_ = _generated.threshold_


def relu(input, inplace=False):
    """max(input, 0); ``inplace=True`` overwrites input."""
    if _tf[0] and (result := _override("relu", locals())) is not _NO:
        return result
    return ember.relu_(input) if inplace else ember.relu(input)


def threshold(input, threshold, value, inplace=False):
    """Elements <= threshold become value."""
    if _tf[0] and (result := _override("threshold", locals())) is not _NO:
        return result
    if inplace:
        return ember.threshold_(input, threshold, value)
    return ember.threshold(input, threshold, value)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x."""
    if _tf[0] and (result := _override("leaky_relu", locals())) is not _NO:
        return result
    if inplace:
        return ember.leaky_relu_(input, negative_slope)
    return ember.leaky_relu(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    if _tf[0] and (result := _override("elu", locals())) is not _NO:
        return result
    return ember.elu_(input, alpha) if inplace else ember.elu(input, alpha)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp to [min_val, max_val]."""
    if _tf[0] and (result := _override("hardtanh", locals())) is not _NO:
        return result
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return ember.hardtanh_(input, min_val, max_val)
    return ember.hardtanh(input, min_val, max_val)


def silu(input, inplace=False):
    """x * sigmoid(x)."""
    if _tf[0] and (result := _override("silu", locals())) is not _NO:
        return result
    return ember.silu_(input) if inplace else ember.silu(input)


def tanh(input):
    """Elementwise tanh."""
    if _tf[0] and (result := _override("tanh", locals())) is not _NO:
        return result
    return input.tanh()


def sigmoid(input):
    """Elementwise logistic sigmoid."""
    if _tf[0] and (result := _override("sigmoid", locals())) is not _NO:
        return result
    return input.sigmoid()


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along dim; ``dtype`` casts the input first.

    Without dim, torch's deprecated implicit choice applies (warns): dim 0 for 0-, 1- and
    3-d inputs, else 1.
    """
    if _tf[0] and (result := _override("softmax", locals())) is not _NO:
        return result
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return ember.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along dim, computed stably; implicit dim as in :func:`softmax`."""
    if _tf[0] and (result := _override("log_softmax", locals())) is not _NO:
        return result
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return ember.log_softmax(input, dim, dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1/(1-p) (when training)."""
    if _tf[0] and (result := _override("dropout", locals())) is not _NO:
        return result
    _check_probability(p)
    return ember.dropout_(input, p, training) if inplace else ember.dropout(input, p, training)


def _check_probability(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_dropout(input, p, training, inplace):
    if inplace:
        return ember.feature_dropout_(input, p, training)
    return ember.feature_dropout(input, p, training)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) inputs with probability p.

    >>> F.dropout1d(ember.ones(2, 4, 3), 0.5).shape
    ember.Size([2, 4, 3])
    """
    if _tf[0] and (result := _override("dropout1d", locals())) is not _NO:
        return result
    _check_probability(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs)."
        )
    if input.dim() == 3:
        return _feature_dropout(input, p, training, inplace)
    if inplace:  # through a (1, C, L) view of input
        _feature_dropout(input.unsqueeze(0), p, training, True)
        return input
    return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) inputs with probability p.

    Like torch, a 3-d input is read as (N, C, L) (with a warning), other ranks warn.
    """
    if _tf[0] and (result := _override("dropout2d", locals())) is not _NO:
        return result
    _check_probability(p)
    if input.dim() not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior and "
            "silence this warning, please use dropout instead. Note that dropout2d exists to "
            "provide channel-wise dropout on inputs with 2 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.dim() == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace)


# --------------------------------------------------------------------------- pooling


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """2-d max pooling returning (output, indices); stride defaults to kernel_size."""
    if _tf[0] and (result := _override("max_pool2d_with_indices", locals())) is not _NO:
        return result
    return ember.max_pool2d_with_indices(
        input, kernel_size, () if stride is None else stride, padding, dilation, ceil_mode
    )


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling over (N, C, H, W) or (C, H, W); stride defaults to kernel_size.

    ``return_indices=True`` returns (output, indices) as torch does.
    """
    if _tf[0] and (result := _override("max_pool2d", locals())) is not _NO:
        return result
    if stride is None:
        stride = ()
    if return_indices:
        return ember.max_pool2d_with_indices(
            input, kernel_size, stride, padding, dilation, ceil_mode
        )
    return ember.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-d average pooling; stride defaults to kernel_size."""
    if _tf[0] and (result := _override("avg_pool2d", locals())) is not _NO:
        return result
    return ember.avg_pool2d(
        input, kernel_size, () if stride is None else stride, padding, ceil_mode,
        count_include_pad, divisor_override,
    )


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed output size; a None entry keeps that input size."""
    if _tf[0] and (result := _override("adaptive_avg_pool2d", locals())) is not _NO:
        return result
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    elif None in output_size:
        output_size = tuple(
            input.shape[-2 + i] if size is None else size for i, size in enumerate(output_size)
        )
    return ember.adaptive_avg_pool2d(input, output_size)


# --------------------------------------------------------------------------- normalisation


def _check_batch_size(size):
    values_per_channel = size[0]
    for extent in size[2:]:
        values_per_channel *= extent
    if values_per_channel == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalisation over dim 1; updates running stats in place when training."""
    if _tf[0] and (result := _override("batch_norm", locals())) is not _NO:
        return result
    if training:
        _check_batch_size(input.shape)
    return ember.batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps, False
    )


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing ``normalized_shape`` dimensions."""
    if _tf[0] and (result := _override("layer_norm", locals())) is not _NO:
        return result
    return ember.layer_norm(input, normalized_shape, weight, bias, eps, False)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each sample over groups of channels (dim 1 split into num_groups).

    >>> F.group_norm(ember.randn(2, 6, 4), 3).shape
    ember.Size([2, 6, 4])
    """
    if _tf[0] and (result := _override("group_norm", locals())) is not _NO:
        return result
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    batch, channels = input.shape[0], input.shape[1]
    if channels % num_groups != 0:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    _check_batch_size([batch * channels // num_groups, num_groups, *input.shape[2:]])
    low_precision = input.dtype in (ember.float16, ember.bfloat16)  # computed in float32
    grouped = (input.float() if low_precision else input).reshape(batch, num_groups, -1)
    variance, mean = ember.var_mean(grouped, -1, correction=0, keepdim=True)
    output = ((grouped - mean) * ember.rsqrt(variance + eps)).reshape(input.shape)
    affine_shape = (channels,) + (1,) * (input.dim() - 2)
    if weight is not None:
        output = output * weight.reshape(affine_shape)
    if bias is not None:
        output = output + bias.reshape(affine_shape)
    return output.to(input.dtype) if low_precision else output


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps).

    >>> F.normalize(ember.tensor([[3.0, 4.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929]]
    """
    if _tf[0] and (result := _override("normalize", locals())) is not _NO:
        return result
    denom = ember.linalg_vector_norm(input, p, [dim], True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return ember.div(input, denom, out=out)


# --------------------------------------------------------------------------- embedding


def _embedding_renorm_(weight, indices, max_norm, norm_type):
    """Rescale (in place, without autograd) the rows of weight that indices touch so that
    their norm is at most max_norm, like aten::embedding_renorm_."""
    with ember.no_grad():
        rows = ember.unique(indices.reshape(-1))
        norms = ember.linalg_vector_norm(weight[rows], norm_type, dim=1)
        too_long = norms > max_norm
        if bool(too_long.any()):
            rows = rows[too_long]
            scale = max_norm / (norms[too_long] + 1e-7)
            weight[rows] = weight[rows] * scale.unsqueeze(1).to(weight.dtype)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Look up rows of weight; the row at padding_idx gets no gradient.

    ``max_norm`` renormalises the looked-up rows of weight in place first, as torch does.
    """
    if _tf[0] and (result := _override("embedding", locals())) is not _NO:
        return result
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx > 0:
        if padding_idx >= weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
    elif padding_idx < 0:
        if padding_idx < -weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = weight.shape[0] + padding_idx
    if sparse:
        raise NotImplementedError("ember has no sparse tensors: embedding(sparse=True)")
    if max_norm is not None:
        input = input.contiguous()
        _embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    return ember.embedding(weight, input, padding_idx, scale_grad_by_freq, False)


#: ``one_hot(tensor, num_classes=-1) -> LongTensor``.
one_hot = _generated.one_hot

#: ``pad(input, pad, mode='constant', value=None)``; pad lists (left, right) pairs from
#: the last dimension backwards.
pad = _generated.pad

# --------------------------------------------------------------------------- losses


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Cross entropy of logits (N, C, ...) against class indices or class probabilities.

    >>> F.cross_entropy(ember.randn(3, 5), ember.tensor([1, 0, 4]))
    tensor(...)
    """
    if _tf[0] and (result := _override("cross_entropy", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    return ember.cross_entropy_loss(
        input, target, weight, _reduction_enum(reduction), ignore_index, label_smoothing
    )


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log likelihood of log-probabilities (N, C, ...) at class indices."""
    if _tf[0] and (result := _override("nll_loss", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    return ember.nll_loss_nd(input, target, weight, _reduction_enum(reduction), ignore_index)


def _squared(difference):
    return difference * difference


def _elementwise_loss(aten_loss, errors_of, input, target, reduction, weight):
    """mse_loss and l1_loss: warn (like torch) when target broadcasts against input, then
    aten_loss, or with a per-element weight torch's manual path over errors_of(input - target)
    (its 'mean' divides by the weight's sum)."""
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )
        input, target = ember.broadcast_tensors(input, target)
    if weight is None:
        return aten_loss(input, target, _reduction_enum(reduction))
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    errors = errors_of(input - target) * weight
    if reduction == "none":
        return errors
    if reduction == "sum":
        return errors.sum()
    if reduction == "mean":
        return errors.sum() / weight.sum()
    raise ValueError(
        f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'."
    )


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error; ``weight`` (same size as input) weights each element."""
    if _tf[0] and (result := _override("mse_loss", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    return _elementwise_loss(ember.mse_loss, _squared, input, target, reduction, weight)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error; ``weight`` (same size as input) weights each element."""
    if _tf[0] and (result := _override("l1_loss", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    return _elementwise_loss(ember.l1_loss, ember.abs, input, target, reduction, weight)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """Binary cross entropy of probabilities in [0, 1]; weight broadcasts to target."""
    if _tf[0] and (result := _override("binary_cross_entropy", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    reduction_enum = _reduction_enum(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        weight = weight.expand(ember.broadcast_shapes(target.shape, weight.shape))
    return ember.binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Binary cross entropy of logits (sigmoid inside, stable); pos_weight weights positives."""
    if _tf[0] and (result := _override("binary_cross_entropy_with_logits", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    reduction_enum = _reduction_enum(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    return ember.binary_cross_entropy_with_logits(
        input, target, weight, pos_weight, reduction_enum
    )


# --------------------------------------------------------------------------- attention

#: ``scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
#: is_causal=False, *, scale=None, enable_gqa=False) -> Tensor``.
scaled_dot_product_attention = _generated.scaled_dot_product_attention


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Check the ranks of the attention inputs; True when the query is batched (3-d)."""
    rank = query.dim()
    if rank not in (2, 3):
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {rank}-D query tensor"
        )
    kind = "batched (3-D)" if rank == 3 else "unbatched (2-D)"
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {rank}-D"
            f" but found {key.dim()}-D and {value.dim()}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or {rank - 1}-D"
            f" but found {key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                f" but found {attn_mask.dim()}-D tensor instead"
            )
        expected = (num_heads, query.shape[0], key.shape[0])
        if rank == 2 and attn_mask.dim() == 3 and attn_mask.shape != expected:
            raise AssertionError(
                f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
            )
    return rank == 3


def _none_or_dtype(input):
    """The dtype of a tensor, None for None."""
    if input is None:
        return None
    if isinstance(input, ember.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or ember.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask becomes an additive float mask (-inf where True); float masks pass."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != ember.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. "
            "Use same type for both instead.",
            stacklevel=3,
        )
    if not is_float:
        mask = ember.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _in_projection_packed(q, k, v, w, b=None):
    """Project q, k, v with one packed (3E, E) weight, sharing the matmul for self-attention."""
    embed_dim = q.shape[-1]
    if k is v:
        if q is k:
            proj = linear(q, w, b).unflatten(-1, (3, embed_dim))
            proj = proj.unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([embed_dim, embed_dim * 2])
        b_q, b_kv = (None, None) if b is None else b.split([embed_dim, embed_dim * 2])
        kv_proj = linear(k, w_kv, b_kv).unflatten(-1, (2, embed_dim))
        kv_proj = kv_proj.unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return linear(q, w_q, b_q), kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """Project q, k, v with separate weights (kdim/vdim differ from embed_dim)."""
    e_q = q.shape[-1]
    for name, weight, bias, expected in (("query", w_q, b_q, (e_q, e_q)),
                                         ("key", w_k, b_k, (e_q, k.shape[-1])),
                                         ("value", w_v, b_v, (e_q, v.shape[-1]))):
        if weight.shape != expected:
            raise AssertionError(
                f"expecting {name} weights shape of {expected}, but got {weight.shape}"
            )
        if bias is not None and bias.shape != (e_q,):
            raise AssertionError(
                f"expecting {name} bias shape of {(e_q,)}, but got {bias.shape}"
            )
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _static_projection(static, bsz_heads, head_dim, name):
    if static.shape[0] != bsz_heads:
        raise AssertionError(
            f"expecting {name}.size(0) of {bsz_heads}, but got {static.shape[0]}"
        )
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static


def multi_head_attention_forward(
    query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k,
    bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True,
    key_padding_mask=None, need_weights=True, attn_mask=None, use_separate_proj_weight=False,
    q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None,
    average_attn_weights=True, is_causal=False,
):
    """Multi-head attention over (L, N, E) inputs (sequence first), torch's function.

    Returns (attn_output, attn_weights); the weights are None unless need_weights, and are
    averaged over heads when average_attn_weights.
    """
    if _tf[0] and (result := _override("multi_head_attention_forward", locals())) is not _NO:
        return result
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask",
        _none_or_dtype(attn_mask), "attn_mask", query.dtype,
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")

    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
        for name, weight in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if weight is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None"
                )
        biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(
            query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, *biases
        )
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if attn_mask.shape != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                    f"{(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.shape != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(bsz * num_heads, tgt_len, src_len)}."
            )

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = ember.cat([k, bias_k.repeat(1, bsz, 1)])
        v = ember.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    bsz_heads = bsz * num_heads
    q = q.view(tgt_len, bsz_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz_heads, head_dim).transpose(0, 1)
    else:
        k = _static_projection(static_k, bsz_heads, head_dim, "static_k")
    if static_v is None:
        v = v.view(v.shape[0], bsz_heads, head_dim).transpose(0, 1)
    else:
        v = _static_projection(static_v, bsz_heads, head_dim, "static_v")

    if add_zero_attn:
        k = ember.cat([k, ember.zeros((bsz_heads, 1, head_dim), dtype=k.dtype)], dim=1)
        v = ember.cat([v, ember.zeros((bsz_heads, 1, head_dim), dtype=v.dtype)], dim=1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))

    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(
                f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                f"{key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                f"{key_padding_mask.shape[1]}"
            )
        key_padding_mask = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(bsz_heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = ember.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = ember.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        attn_output = ember.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            attn_output, weights = attn_output.squeeze(1), weights.squeeze(0)
        return attn_output, weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.shape[1])
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None
