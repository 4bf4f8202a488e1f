"""Shape and stride rules shared by the CPU, Meta and CUDA kernels.

    >>> broadcast_shapes((2, 1), (3,))
    (2, 3)
    >>> wrap_dims([-1, 0], 3)
    (2, 0)
"""
from __future__ import annotations

from .tensor import _wrap_dim, contiguous_strides  # noqa: F401  (re-exported)

wrap_dim = _wrap_dim


def wrap_dims(dims, ndim: int) -> tuple:
    """Normalises an `int[]` dim argument (int or sequence); rejects repeats like torch."""
    if isinstance(dims, int):
        dims = (dims,)
    out = tuple(_wrap_dim(int(d), ndim) for d in dims)
    if len(set(out)) != len(out):
        for d in out:
            if out.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def broadcast_shapes(*shapes) -> tuple:
    """NumPy/torch broadcasting, with torch's error (dims compared from the right)."""
    out: tuple = ()
    for s in shapes:
        out = _broadcast_pair(out, tuple(s))
    return out


def _broadcast_pair(a: tuple, b: tuple) -> tuple:
    if a == b:
        return a
    ndim = max(len(a), len(b))
    out = [1] * ndim
    for i in range(ndim - 1, -1, -1):
        ia, ib = i - ndim + len(a), i - ndim + len(b)
        na = a[ia] if ia >= 0 else 1
        nb = b[ib] if ib >= 0 else 1
        if na != nb and na != 1 and nb != 1:
            raise RuntimeError(f"The size of tensor a ({na}) must match the size of tensor b "
                               f"({nb}) at non-singleton dimension {i}")
        out[i] = nb if na == 1 else na
    return tuple(out)


def strides_for_order(shape, order) -> tuple:
    """Dense strides that lay dims out in `order` (outermost first)."""
    strides = [0] * len(shape)
    acc = 1
    for d in reversed(order):
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


def dim_order(shape, stride) -> list:
    """Dims from outermost to innermost by decreasing stride; size-1 and broadcast
    (stride-0) dims stay where they are."""
    fixed = [shape[d] == 1 or stride[d] == 0 for d in range(len(shape))]
    movable = sorted((d for d in range(len(shape)) if not fixed[d]), key=lambda d: (-stride[d], d))
    it = iter(movable)
    return [d if fixed[d] else next(it) for d in range(len(shape))]


def elementwise_strides(shape, inputs) -> tuple:
    """Output strides of a pointwise op, after torch's TensorIterator: the layout of the
    first input that has the output's full shape (so `x.t() + 1` stays transposed and a
    channels-last input gives a channels-last output); contiguous otherwise.

    `inputs` are (shape, stride) pairs of the tensor operands (Python numbers excluded).
    """
    shape = tuple(shape)
    if len(shape) > 1:
        for s, st in inputs:
            if tuple(s) == shape:
                return strides_for_order(shape, dim_order(shape, st))
    return contiguous_strides(shape)


def reduced_shape(shape, dims, keepdim: bool) -> tuple:
    """The shape after reducing `dims` (already wrapped)."""
    if keepdim:
        return tuple(1 if i in dims else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in dims)
