"""Shape and stride rules of the view ops, shared by kernels/common/views.py (view) and
kernels/composite/views.py (reshape, flatten, unflatten).

    >>> compute_stride((2, 3), (3, 1), (3, 2))      # contiguous: any view works
    (2, 1)
    >>> compute_stride((3, 2), (1, 3), (6,)) is None  # a transpose cannot be flattened
    True
"""
from __future__ import annotations

import operator

from ember.core import sym
from ember.core.shapes import wrap_dim
from ember.core.tensor import contiguous_strides

VIEW_ERROR = ("view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


def int_list(size) -> tuple:
    """A `SymInt[]` argument as a tuple of Python ints (tuple, list, Size, a bare int or
    0-d integer tensors inside).

    >>> int_list([2, np.int64(3)]), int_list(4)
    ((2, 3), (4,))
    """
    index = sym.index_or_symint if sym.SYM_INT_TYPES else operator.index
    if isinstance(size, (tuple, list)):
        return tuple(map(index, size))
    return (index(size),)


def wrap(dim, ndim: int) -> int:
    """A dim argument wrapped into [0, ndim) (0-d tensors accept -1 and 0, both give 0),
    with torch's IndexError when out of range.

    >>> wrap(-1, 3), wrap(-1, 0)
    (2, 0)
    """
    d = wrap_dim(operator.index(dim), ndim)
    return d if ndim else 0


def wrap_list(dims, ndim: int) -> tuple:
    """Wraps a dim list, one dim after the other as torch's dim_list_to_bitset: a repeated
    dim raises before a later dim out of range ([0, 0, 5]: 'dim 0 appears multiple times')."""
    out = []
    for d in int_list(dims):
        d = wrap(d, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(out)


def infer_size(shape, numel: int) -> tuple:
    """Resolves one -1 in a view/reshape shape, with torch's checks in torch's order.

    >>> infer_size((3, -1), 6)
    (3, 2)
    """
    shape = tuple(shape)
    newsize = 1
    infer_dim = None
    for i, s in enumerate(shape):
        if s == -1:
            if infer_dim is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer_dim = i
        elif s >= 0:
            newsize *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
    if numel == newsize or (infer_dim is not None and newsize > 0 and numel % newsize == 0):
        if infer_dim is None:
            return shape
        if newsize == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} "
                               "because the unspecified dimension size -1 can be any value "
                               "and is ambiguous")
        return shape[:infer_dim] + (numel // newsize,) + shape[infer_dim + 1:]
    raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")


def view_shape(size, numel: int) -> tuple:
    """`infer_size(int_list(size), numel)` for a view/reshape `size` argument, with one
    pass for the common call (a tuple or list of Python ints, at most one -1).

    >>> view_shape([2, 3], 6), view_shape((-1, 3), 6), view_shape([2, -1], 6)
    ((2, 3), (2, 3), (2, 3))
    """
    if size.__class__ is tuple or size.__class__ is list:
        n, infer = 1, -1
        for i, s in enumerate(size):
            if s.__class__ is not int:
                break
            if s < 0:
                if s != -1 or infer >= 0:
                    break           # (infer_size raises torch's error)
                infer = i
            else:
                n *= s
        else:
            if infer < 0:
                if n == numel:
                    return tuple(size)
            elif n and not numel % n:
                return (*size[:infer], numel // n, *size[infer + 1:])
    return infer_size(int_list(size), numel)


def compute_stride(oldshape, oldstride, newshape):
    """Strides that let a tensor of (oldshape, oldstride) be viewed as newshape, or None
    when no such strides exist (torch's `at::detail::computeStride`).

    Dims of the old tensor that are laid out contiguously with each other form a chunk;
    a view may split and merge dims inside a chunk but never across chunks.
    """
    if not oldshape:
        return (1,) * len(newshape)
    numel = 1
    for n in oldshape:
        numel *= n
    if numel == 0:
        if tuple(oldshape) == tuple(newshape):
            return tuple(oldstride)
        return contiguous_strides(newshape)

    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        # A chunk ends where the next-outer dim is not contiguous with this one.
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1
                             and oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)
