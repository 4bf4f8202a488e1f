"""Loss functions, and the mapping of their `reduction` argument to aten's ints."""
from __future__ import annotations

import warnings

import ember

from ._common import _NO, _override, _tf

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
