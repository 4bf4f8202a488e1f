"""Activation functions: relu and its relatives, sigmoid, tanh, softmax, log_softmax, and
torch's other activations (selu, celu, glu, mish, hardswish, prelu, rrelu, softmin, ...)."""
from __future__ import annotations

import warnings

import ember
from ember._generated import functions as _generated

from ._common import _NO, _override, _tf

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


# ---------------------------------------------------------------- the other activation ops
def relu6(input, inplace=False):
    """min(max(x, 0), 6) (aten.hardtanh, as torch's composite)."""
    if _tf[0] and (result := _override("relu6", locals())) is not _NO:
        return result
    return ember.relu6_(input) if inplace else ember.relu6(input)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the self-normalising constants."""
    if _tf[0] and (result := _override("selu", locals())) is not _NO:
        return result
    return ember.selu_(input) if inplace else ember.selu(input)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if _tf[0] and (result := _override("celu", locals())) is not _NO:
        return result
    return ember.celu_(input, alpha) if inplace else ember.celu(input, alpha)


def glu(input, dim=-1):
    """a * sigmoid(b) for the halves a, b of input along dim."""
    if _tf[0] and (result := _override("glu", locals())) is not _NO:
        return result
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return ember.glu(input, dim)


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    if _tf[0] and (result := _override("mish", locals())) is not _NO:
        return result
    return ember.mish_(input) if inplace else ember.mish(input)


def hardsigmoid(input, inplace=False):
    """min(max(x + 3, 0), 6) / 6 (gradient 1/6 strictly inside (-3, 3), as torch's)."""
    if _tf[0] and (result := _override("hardsigmoid", locals())) is not _NO:
        return result
    return ember.hardsigmoid_(input) if inplace else ember.hardsigmoid(input)


def hardswish(input, inplace=False):
    """x * min(max(x + 3, 0), 6) / 6 (gradient 0 below -3, 1 above 3, as torch's)."""
    if _tf[0] and (result := _override("hardswish", locals())) is not _NO:
        return result
    return ember.hardswish_(input) if inplace else ember.hardswish(input)


#: ``hardshrink(input, lambd=0.5) -> Tensor``: x where |x| > lambd, else 0 (torch's
#: F.hardshrink is torch.hardshrink).
hardshrink = _generated.hardshrink


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, else 0."""
    if _tf[0] and (result := _override("softshrink", locals())) is not _NO:
        return result
    return ember.softshrink(input, lambd)


def tanhshrink(input):
    """x - tanh(x)."""
    if _tf[0] and (result := _override("tanhshrink", locals())) is not _NO:
        return result
    return input - input.tanh()


def softsign(input):
    """x / (1 + |x|)."""
    if _tf[0] and (result := _override("softsign", locals())) is not _NO:
        return result
    return input / (input.abs() + 1)


def logsigmoid(input):
    """log(sigmoid(x)), computed stably (aten.log_sigmoid_forward)."""
    if _tf[0] and (result := _override("logsigmoid", locals())) is not _NO:
        return result
    return ember.log_sigmoid(input)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim; implicit dim as in :func:`softmax`."""
    if _tf[0] and (result := _override("softmin", locals())) is not _NO:
        return result
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return ember.softmax(-input, dim, dtype)


#: ``prelu(input, weight) -> Tensor``: x where x > 0, weight * x elsewhere; weight has 1
#: or (channel dim) C entries (torch's F.prelu is torch.prelu).
prelu = _generated.prelu


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """leaky_relu with slope (lower + upper) / 2 in eval, a random slope U(lower, upper) per
    negative element in training."""
    if _tf[0] and (result := _override("rrelu", locals())) is not _NO:
        return result
    if inplace:
        return ember.rrelu_(input, lower, upper, training)
    return ember.rrelu(input, lower, upper, training)


rrelu_ = _generated.rrelu_
selu_ = _generated.selu_
celu_ = _generated.celu_


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Sample from the Gumbel-softmax distribution; hard=True returns one-hot samples whose
    gradient is the soft sample's (straight-through)."""
    if _tf[0] and (result := _override("gumbel_softmax", locals())) is not _NO:
        return result
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -ember.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = ember.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
