"""Dropout functions: dropout (elementwise), dropout1d and dropout2d (whole channels)."""
from __future__ import annotations

import warnings

import ember

from ._common import _NO, _override, _tf


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


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs with probability p."""
    if _tf[0] and (result := _override("dropout3d", locals())) is not _NO:
        return result
    _check_probability(p)
    if input.dim() not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior and "
            "silence this warning, please use dropout instead. Note that dropout3d exists to "
            "provide channel-wise dropout on inputs with 3 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    if input.dim() != 4:
        return _feature_dropout(input, p, training, inplace)
    if inplace:  # through a (1, C, D, H, W) view of input
        _feature_dropout(input.unsqueeze(0), p, training, True)
        return input
    return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's self-normalisation (mean and variance)."""
    if _tf[0] and (result := _override("alpha_dropout", locals())) is not _NO:
        return result
    _check_probability(p)
    op = ember.alpha_dropout_ if inplace else ember.alpha_dropout
    return op(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    if _tf[0] and (result := _override("feature_alpha_dropout", locals())) is not _NO:
        return result
    _check_probability(p)
    op = ember.feature_alpha_dropout_ if inplace else ember.feature_alpha_dropout
    return op(input, p, training)
