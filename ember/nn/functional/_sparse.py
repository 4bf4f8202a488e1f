"""Sparse functions: embedding (rows of a table), embedding_bag and one_hot."""
from __future__ import annotations

import ember
from ember._generated import functions as _generated

from ._common import _NO, _override, _tf


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


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Sums, means or maxima of bags of embedding rows, without the (N, L, D) intermediate
    of embedding + reduction: input (B, L) is B bags of L indices; a 1-d input is cut into
    bags at offsets. Entries equal to padding_idx are left out (an empty bag gives zeros)."""
    if _tf[0] and (result := _override("embedding_bag", locals())) is not _NO:
        return result
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            kind = "<class 'ember.Tensor'>" if isinstance(offsets, ember.Tensor) \
                else str(type(offsets))
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{kind}")
        bags = [input.shape[1]] * input.shape[0]
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = offsets.tolist()
        ends = starts[1:] if include_last_offset else starts[1:] + [input.shape[0]]
        bags = [end - start for start, end in zip(starts, ends)]
        if starts and starts[0] != 0:
            raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the "
                               f"mini-batch has to start from position 0. However, got "
                               f"{starts[0]}")
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if sparse:
        raise NotImplementedError("ember has no sparse tensors: embedding_bag(sparse=True)")
    if max_norm is not None:
        _embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    n_bags, dim = len(bags), weight.shape[1]
    bag_of = ember.repeat_interleave(ember.arange(n_bags, device=input.device),
                                     ember.tensor(bags, dtype=ember.int64, device=input.device),
                                     output_size=input.shape[0])
    keep = None if padding_idx is None else input != padding_idx
    if keep is not None:
        input, bag_of = input[keep], bag_of[keep]
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights[keep]
    rows = ember.embedding(weight, input, -1, scale_grad_by_freq, False)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    out = ember.zeros((n_bags, dim), dtype=weight.dtype, device=weight.device)
    if mode == "max":
        index = bag_of.unsqueeze(1).expand(rows.shape)
        return out.scatter_reduce(0, index, rows, "amax", include_self=False)
    out = out.index_add(0, bag_of, rows)
    if mode == "mean":
        counts = ember.zeros(n_bags, dtype=weight.dtype, device=weight.device).index_add(
            0, bag_of, ember.ones(bag_of.shape, dtype=weight.dtype, device=weight.device))
        out = out / counts.clamp_min(1).unsqueeze(1)
    return out
