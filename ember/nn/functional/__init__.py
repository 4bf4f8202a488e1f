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

The functions live in private modules by family (_activation, _attention, _conv, _dropout,
_linear, _loss, _normalization, _pooling, _sparse, _vision), as torch's documentation groups them;
use them from here.
"""
# ruff: noqa: F401  (re-exports: the private helpers stay importable from here, and nn.modules
# uses some; handle_torch_function is F's, as torch's F has it)
from ember.overrides import handle_torch_function

from ._activation import (
    _softmax_dim,
    elu,
    elu_,
    gelu,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    log_softmax,
    relu,
    relu_,
    sigmoid,
    silu,
    softmax,
    softplus,
    tanh,
    threshold,
    threshold_,
)
from ._attention import (
    _canonical_mask,
    _in_projection,
    _in_projection_packed,
    _mha_shape_check,
    _none_or_dtype,
    _static_projection,
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from ._common import _override
from ._conv import (
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    pad,
)
from ._dropout import _check_probability, _feature_dropout, dropout, dropout1d, dropout2d
from ._linear import bilinear, linear
from ._loss import (
    _REDUCTIONS,
    _elementwise_loss,
    _reduction_enum,
    _reduction_string,
    _squared,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from ._normalization import _check_batch_size, batch_norm, group_norm, layer_norm, normalize
from ._pooling import (
    _tuple,
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
)
from ._sparse import _embedding_renorm_, embedding, one_hot
from ._vision import (
    fold,
    interpolate,
    pixel_shuffle,
    pixel_unshuffle,
    unfold,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cross_entropy",
    "dropout",
    "dropout1d",
    "dropout2d",
    "elu",
    "elu_",
    "embedding",
    "gelu",
    "group_norm",
    "hardtanh",
    "hardtanh_",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "log_softmax",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "mse_loss",
    "multi_head_attention_forward",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "relu",
    "relu_",
    "scaled_dot_product_attention",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "tanh",
    "threshold",
    "threshold_",
]
