"""Loss functions, and the mapping of their `reduction` argument to aten's ints."""
from __future__ import annotations

import math
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


# ---------------------------------------------------------------- composite losses
def _reduce(loss, reduction):
    """loss itself ('none'), its mean or its sum."""
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _warn_broadcast(input, target):
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.", stacklevel=4)
    return ember.broadcast_tensors(input, target)


def _huber(diff, delta, scale):
    """0.5 d^2 * scale inside |d| < delta, else delta * scale * (|d| - delta / 2)."""
    z = diff.abs()
    return ember.where(z < delta, 0.5 * diff * diff * scale, (z - 0.5 * delta) * (delta * scale))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error below beta (divided by beta), absolute error above; l1 for beta=0."""
    if _tf[0] and (result := _override("smooth_l1_loss", locals())) is not _NO:
        return result
    input, target = _warn_broadcast(input, target)
    reduction = _reduction_string(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return ember.l1_loss(input, target, _reduction_enum(reduction))
    if input.device.type in ("cpu", "meta"):  # (one kernel and its backward there)
        if input.shape != target.shape:
            input, target = ember.broadcast_tensors(input, target)
        return ember.smooth_l1_loss(input, target, _reduction_enum(reduction), float(beta))
    return _reduce(_huber(input - target, beta, 1.0 / beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error below delta, delta-scaled absolute error above; optional weights."""
    if _tf[0] and (result := _override("huber_loss", locals())) is not _NO:
        return result
    input, target = _warn_broadcast(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    loss = _huber(input - target, delta, 1.0)
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        loss = loss * weight
    return _reduce(loss, reduction)


def _xlogy(x, y):
    """x * log(y), 0 where x is 0 (and NaN stays NaN)."""
    return x * ember.where(x == 0, 1.0, y).log()


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL divergence of target from log-probabilities input; 'batchmean' divides the sum by
    the batch size ('mean' warns, as torch's, that it divides by every element)."""
    if _tf[0] and (result := _override("kl_div", locals())) is not _NO:
        return result
    if size_average is not None or reduce is not None:
        reduction = _reduction_string(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.", stacklevel=2)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy(target, target) - target * input
    if reduction == "batchmean":
        loss = loss.sum()
        return loss / input.shape[0] if input.dim() != 0 else loss
    _reduction_enum(reduction)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    if _tf[0] and (result := _override("margin_ranking_loss", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    _reduction_enum(reduction)
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """input where target is 1, max(0, margin - input) where target is -1."""
    if _tf[0] and (result := _override("hinge_embedding_loss", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    _reduction_enum(reduction)
    zeros = ember.zeros_like(input)
    loss = (ember.where(target != 1, (margin - input).clamp_min(0), zeros)
            + ember.where(target != -1, input, zeros))
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input))."""
    if _tf[0] and (result := _override("soft_margin_loss", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    _reduction_enum(reduction)
    return _reduce((-input * target).exp().log1p(), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Per-class logistic loss averaged over the classes (last dim)."""
    if _tf[0] and (result := _override("multilabel_soft_margin_loss", locals())) is not _NO:
        return result
    from ._activation import logsigmoid
    reduction = _reduction_string(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos - margin) where it is -1."""
    if _tf[0] and (result := _override("cosine_embedding_loss", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.dim() != dim + 1 or input2.dim() != dim + 1:
        raise RuntimeError(
            f"{dim}D target tensor expects {dim + 1}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}.")
    eps = 1e-12
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + eps
    mag2 = (input2 * input2).sum(dim) + eps
    cos = prod / (mag1 * mag2).sqrt()
    zeros = ember.zeros_like(cos)
    loss = (ember.where(target == 1, 1 - cos, zeros)
            + ember.where(target == -1, (cos - margin).clamp_min(0), zeros))
    _reduction_enum(reduction)
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge: sum over j != y of max(0, margin - x[y] + x[j])^p, / classes."""
    if _tf[0] and (result := _override("multi_margin_loss", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = input if input.dim() >= 2 else input.reshape(1, -1)
    y = target.reshape(-1)
    if x.dim() != 2 or y.shape[0] != x.shape[0]:
        raise RuntimeError(f"inconsistent target size, expected {x.shape[0]} but got "
                           f"{list(target.shape)}")
    z = (margin - x.gather(1, y[:, None]) + x).relu()
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[y][:, None]
    own = ember.arange(x.shape[1], device=x.device)[None, :] == y[:, None]
    loss = ember.where(own, 0.0, z).sum(1) / x.shape[1]
    if input.dim() < 2:
        loss = loss.squeeze(0)
    _reduction_enum(reduction)
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Hinge between each target class (target lists them, ended by -1) and each other one."""
    if _tf[0] and (result := _override("multilabel_margin_loss", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    if input.dim() > 2 or target.shape != input.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    x = input.reshape(-1, input.shape[-1]) if input.dim() else input.reshape(1, 1)
    t = target.reshape(x.shape)
    listed = (t != -1).to(ember.int64).cumprod(1)
    is_target = ember.zeros(x.shape, dtype=ember.int64, device=x.device).scatter_add(
        1, t.clamp_min(0), listed) > 0
    pairs = is_target[:, :, None] & is_target.logical_not()[:, None, :]
    z = (1 - x[:, :, None] + x[:, None, :]).relu()
    loss = ember.where(pairs, z, 0.0).sum((1, 2)) / x.shape[1]
    if input.dim() < 2:
        loss = loss.squeeze(0)
    _reduction_enum(reduction)
    return _reduce(loss, reduction)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps over the last dim."""
    if _tf[0] and (result := _override("pairwise_distance", locals())) is not _NO:
        return result
    dim = max(x1.dim(), x2.dim(), 1) - 1
    return ember.linalg_vector_norm(x1 - x2 + eps, p, dim, keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """x1 . x2 / max(|x1| |x2|, eps) along dim (torch's clamped product of norms)."""
    if _tf[0] and (result := _override("cosine_similarity", locals())) is not _NO:
        return result
    x1, x2 = ember.broadcast_tensors(x1, x2)
    n1 = ember.linalg_vector_norm(x1, 2, dim, True).clamp_min(math.sqrt(eps))
    n2 = ember.linalg_vector_norm(x2, 2, dim, True).clamp_min(math.sqrt(eps))
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with p-norm distances."""
    if _tf[0] and (result := _override("triplet_margin_loss", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs")
    _reduction_enum(reduction)

    def distance(a, b):
        return pairwise_distance(a, b, p, eps)
    return _triplet(anchor, positive, negative, distance, margin, swap, reduction)


def _triplet(anchor, positive, negative, distance, margin, swap, reduction):
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = ember.minimum(dist_neg, distance(positive, negative))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """Triplet loss with any distance function (pairwise_distance by default)."""
    if _tf[0] and (result := _override("triplet_margin_with_distance_loss", locals())) \
            is not _NO:
        return result
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs")
    return _triplet(anchor, positive, negative, distance_function or pairwise_distance, margin,
                    swap, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Poisson negative log likelihood; full adds Stirling's term for targets above 1."""
    if _tf[0] and (result := _override("poisson_nll_loss", locals())) is not _NO:
        return result
    reduction = _reduction_string(size_average, reduce, reduction)
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood with predicted variance var (clamped to eps, the
    gradient passing as if unclamped, like torch's)."""
    if _tf[0] and (result := _override("gaussian_nll_loss", locals())) is not _NO:
        return result
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ember.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and sum(
                y for x, y in zip(input.shape, var.shape, strict=True) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with ember.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _logsumexp(*terms):
    """log(sum(exp(terms))) elementwise, -inf (with zero gradients) where all are -inf."""
    top = terms[0]
    for t in terms[1:]:
        top = ember.maximum(top, t)
    top = top.detach()
    shift = ember.where(top.isinf(), 0.0, top)
    total = sum((t - shift).exp() for t in terms)
    empty = total == 0
    return ember.where(empty, float("-inf"), shift + ember.where(empty, 1.0, total).log())


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist temporal classification loss of log_probs (T, N, C) ((T, C) unbatched)
    against targets (N, S) padded or concatenated; the forward (alpha) recursion in log space,
    composed of ember ops so autograd gives the gradient."""
    if _tf[0] and (result := _override("ctc_loss", locals())) is not _NO:
        return result
    batched = log_probs.dim() == 3
    if not batched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
    in_lens = [int(n) for n in ember.as_tensor(input_lengths).reshape(-1).tolist()]
    tg_lens = [int(n) for n in ember.as_tensor(target_lengths).reshape(-1).tolist()]
    steps, batch, _ = log_probs.shape
    if len(in_lens) != batch or len(tg_lens) != batch:
        raise RuntimeError(f"input_lengths and target_lengths must have size {batch}")
    if any(n > steps for n in in_lens):
        raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got "
                           f"value {max(in_lens)}")
    longest = max(tg_lens, default=0)
    if targets.dim() == 2:
        rows = [targets[b, :n] for b, n in enumerate(tg_lens)]
    else:
        rows = list(targets.split(tg_lens))
    labels = ember.full((batch, 2 * longest + 1), blank, dtype=ember.int64,
                        device=log_probs.device)
    for b, row in enumerate(rows):
        if tg_lens[b]:
            labels[b, 1:2 * tg_lens[b]:2] = row.to(ember.int64)
    width = labels.shape[1]
    emit = log_probs.gather(2, labels[None].expand(steps, batch, width))      # (T, N, S)
    skip = ember.zeros((batch, width), dtype=ember.bool, device=log_probs.device)
    if width > 2:
        skip[:, 2:] = (labels[:, 2:] != blank) & (labels[:, 2:] != labels[:, :-2])
    neg_inf = ember.full((batch, 1), float("-inf"), dtype=log_probs.dtype,
                         device=log_probs.device)
    start = ember.full((batch, width), float("-inf"), dtype=log_probs.dtype,
                       device=log_probs.device)
    start[:, :2] = 0.0
    alpha = emit[0] + start
    alphas = [alpha]
    for t in range(1, steps):
        prev1 = ember.cat([neg_inf, alpha[:, :-1]], 1)
        prev2 = ember.cat([neg_inf, neg_inf, alpha[:, :-2]], 1)[:, :width]
        prev2 = ember.where(skip, prev2, float("-inf"))
        alpha = _logsumexp(alpha, prev1, prev2) + emit[t]
        alphas.append(alpha)
    alphas = ember.stack(alphas)                                               # (T, N, S)
    ends = []
    for b in range(batch):
        end = 2 * tg_lens[b]
        if not in_lens[b]:   # nothing to align: probability 1 for an empty target, else 0
            ends.append(emit.new_full((), float("-inf") if end else 0.0))
            continue
        last = alphas[in_lens[b] - 1, b]
        ends.append(_logsumexp(last[end], last[end - 1]) if end else last[0])
    loss = -ember.stack(ends)
    # torch's backward returns exp(log_probs) - posterior (the gradient of the logits when
    # log_probs is their log_softmax) rather than -posterior: a term worth 0 adds exp(lp)
    live = (ember.arange(steps, device=log_probs.device)[:, None]
            < ember.tensor(in_lens, device=log_probs.device)[None, :])
    probs = log_probs.exp()
    loss = loss + ember.where(live[:, :, None], probs - probs.detach(), 0.0).sum((0, 2))
    if zero_infinity:
        loss = ember.where(loss.isinf(), 0.0, loss)
    if reduction == "mean":
        lengths = ember.tensor(tg_lens, dtype=loss.dtype, device=loss.device).clamp_min(1)
        return (loss / lengths).mean()
    if not batched and reduction == "none":
        return loss.squeeze(0)
    return _reduce(loss, reduction)
