"""Activation functions: relu and its relatives, sigmoid, tanh, softmax, log_softmax."""
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
