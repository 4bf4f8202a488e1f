"""Shape and stride rules shared by the CPU, Meta and CUDA kernels.

    >>> broadcast_shapes((2, 1), (3,))
    (2, 3)
    >>> wrap_dims([-1, 0], 3)
    (2, 0)
"""
from __future__ import annotations

from .tensor import _is_contiguous, _wrap_dim, contiguous_strides

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


def tensor_iterator_perm(shape, strides_list) -> list:
    """torch's TensorIterator dim order, innermost first: an insertion sort where the first
    operand whose strides tell two dims apart decides (a stride-0 dim never decides).

    >>> tensor_iterator_perm((3, 4), [(1, 3)])
    [0, 1]
    """
    ndim = len(shape)

    def should_swap(d0, d1):
        for st in strides_list:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def broadcast_strides(shape, inputs) -> list:
    """Each (shape, stride) operand's strides against the broadcast `shape` (0 on
    broadcast and missing leading dims)."""
    ndim = len(shape)
    out = []
    for s, st in inputs:
        off = ndim - len(s)
        out.append([0] * off + [st[i] if s[i] == shape[off + i] else 0 for i in range(len(s))])
    return out


def elementwise_strides(shape, inputs) -> tuple:
    """Output strides of a pointwise op, as torch's TensorIterator lays them out, so
    `x.t() + 1` stays transposed and channels-last stays channels-last.

    `inputs` are (shape, stride) pairs of the tensor operands (Python numbers excluded).
    >>> elementwise_strides((3, 4), [((3, 4), (1, 3))])
    (1, 3)
    """
    shape = tuple(shape)
    if len(shape) <= 1:
        return contiguous_strides(shape)
    perm = tensor_iterator_perm(shape, broadcast_strides(shape, inputs))
    return strides_for_order(shape, perm[::-1])


def expand_strides(shape, strides, target) -> tuple:
    """Strides of `expand(target)` (torch's inferExpandGeometry): 0 on an expanded dim; a
    size-1 dim that stays 1 keeps its stride, a new leading one gets the next dim's extent.

    >>> expand_strides((3, 1), (1, 5), (1, 3, 1))
    (3, 1, 5)
    """
    ndim, tdim = len(target), len(shape)
    out = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        d = tdim - ndim + i
        if d >= 0:
            size, stride = shape[d], strides[d]
        else:
            size, stride = 1, (target[i + 1] * out[i + 1] if i + 1 < ndim else 1)
        out[i] = 0 if size != target[i] else stride
    return tuple(out)


def meta_elementwise_strides(shape, inputs) -> tuple:
    """Output strides of a pointwise op on torch's Meta and fake tensors, whose meta is the
    Python reference (torch._refs -> prims' elementwise meta, not TensorIterator): the
    operands are broadcast with `expand`, then `compute_elementwise_output_logical_to_
    physical_perm` orders the dims: contiguous when every operand is contiguous,
    channels-last when every one is channels-last and not all contiguous, else
    TensorIterator's comparison over the expanded strides, where a size-1 dim keeps the
    stride it had (TensorIterator zeroes it for broadcast inputs and copies a single
    dense input's strides as they are).

    `inputs`: (shape, stride) of the tensor operands.
    >>> meta_elementwise_strides((2, 1), [((2, 1), (1, 2))])     # contiguous: size 1 ignored
    (1, 1)
    >>> meta_elementwise_strides((1, 2, 2, 1), [((1, 2, 2, 1), (1, 1, 2, 4))])
    (4, 1, 2, 2)
    """
    shape = tuple(shape)
    ndim = len(shape)
    if ndim <= 1:
        return contiguous_strides(shape)
    expanded = [st if s == shape else expand_strides(s, st, shape) for s, st in inputs]
    row_major = range(ndim - 1, -1, -1)
    tiny = any(n == 0 for n in shape) or all(n == 1 for n in shape)    # numel < 2
    contiguous = tiny or all(_is_contiguous(shape, st, row_major) for st in expanded)
    channels_last = ndim == 4 and all(_is_contiguous(shape, st, (1, 3, 2, 0))
                                      for st in expanded)
    if contiguous and not channels_last:
        return contiguous_strides(shape)
    if channels_last and not contiguous:
        return strides_for_order(shape, (0, 2, 3, 1))
    perm = tensor_iterator_perm(shape, expanded)
    return strides_for_order(shape, perm[::-1])


def reduced_shape(shape, dims, keepdim: bool) -> tuple:
    """The shape after reducing `dims` (already wrapped)."""
    if keepdim:
        return tuple(1 if i in dims else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in dims)


def is_non_overlapping_and_dense(shape, stride) -> bool:
    """torch's test: some permutation of the dims (size-1 dims ignored) is contiguous.
    Empty tensors count as dense.

    >>> is_non_overlapping_and_dense((2, 3), (1, 2)), is_non_overlapping_and_dense((2, 3), (0, 1))
    (True, False)
    """
    if 0 in shape:
        return True
    expected = 1
    for d in sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: stride[d]):
        if stride[d] != expected:
            return False
        expected *= shape[d]
    return True


def infer_dense_strides(shape, stride) -> tuple:
    """Dense strides keeping the dim order of a (possibly non-dense) layout: torch's
    infer_dense_strides, i.e. TensorIterator's order for one operand.

    >>> infer_dense_strides((2, 3), (1, 4))
    (1, 2)
    """
    out = [0] * len(shape)
    acc = 1
    for d in tensor_iterator_perm(shape, [stride]):
        out[d] = acc
        if shape[d] > 1:
            acc *= shape[d]
    return tuple(out)
