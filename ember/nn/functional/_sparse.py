"""Sparse functions: embedding (rows of a table) and one_hot."""
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
