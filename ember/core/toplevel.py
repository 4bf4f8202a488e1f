"""Plain functions at ember's top level that are not ops (torch.is_tensor, ...)."""
from __future__ import annotations

from .shapes import broadcast_shapes as _broadcast_shapes
from .tensor import Size, Tensor


def is_tensor(obj, /) -> bool:
    """Whether `obj` is an ember Tensor (subclasses included)."""
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def numel(input) -> int:
    return input.numel()


def broadcast_shapes(*shapes) -> Size:
    """The shape tensors of these shapes broadcast to (torch's error on a mismatch).

    >>> ember.broadcast_shapes((2, 1), (3,))
    ember.Size([2, 3])
    """
    return Size(_broadcast_shapes(*((s,) if isinstance(s, int) else tuple(s) for s in shapes)))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique: the unique elements (or slices along `dim`), with the inverse indices
    and counts when asked; `_unique2` / `unique_dim` underneath, like torch.

    >>> ember.unique(ember.tensor([3, 1, 3]), return_counts=True)
    (tensor([1, 3]), tensor([1, 2]))
    """
    from .. import ops
    if dim is None:
        out, inverse, counts = ops.aten._unique2.default(input, sorted, return_inverse,
                                                         return_counts)
    else:
        out, inverse, counts = ops.aten.unique_dim.default(input, dim, sorted, return_inverse,
                                                           return_counts)
    return _unique_result(out, inverse, counts, return_inverse, return_counts)


def _unique_result(out, inverse, counts, return_inverse, return_counts):
    """`out`, followed by the inverse indices and counts that were asked for."""
    extra = (inverse,) * bool(return_inverse) + (counts,) * bool(return_counts)
    return (out, *extra) if extra else out


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """torch.unique_consecutive: collapses runs of equal elements (or slices along `dim`);
    the inverse indices and counts when asked.

    >>> ember.unique_consecutive(ember.tensor([1, 1, 2, 1]))
    tensor([1, 2, 1])
    """
    from .. import ops
    out, inverse, counts = ops.aten.unique_consecutive.default(input, return_inverse,
                                                               return_counts, dim)
    return _unique_result(out, inverse, counts, return_inverse, return_counts)


def meshgrid(*tensors, indexing=None):
    """torch.meshgrid: tensors as arguments or one list; indexing 'ij' (the default, with
    torch's warning when not given) or 'xy'. Returns a tuple of expanded views."""
    from .. import ops
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    if indexing is None:
        return tuple(ops.aten.meshgrid.default(list(tensors)))
    return tuple(ops.aten.meshgrid.indexing(list(tensors), indexing=indexing))


def broadcast_tensors(*tensors):
    """torch.broadcast_tensors(*tensors): each tensor expanded to the common shape."""
    from .. import ops
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    return tuple(ops.aten.broadcast_tensors.default(list(tensors)))


def cartesian_prod(*tensors):
    """torch.cartesian_prod(*tensors): the rows of every combination of elements."""
    from .. import ops
    return ops.aten.cartesian_prod.default(list(tensors))


def nonzero(input, *, out=None, as_tuple=False):
    """torch.nonzero: (n, ndim) indices of the nonzero elements, or with as_tuple=True one
    1-d index tensor per dim (a 0-d input counts as 1-d)."""
    from .. import ops
    if as_tuple:
        x = input.unsqueeze(0) if input.dim() == 0 else input
        return tuple(ops.aten.nonzero.default(x).unbind(1))
    if out is not None:
        return ops.aten.nonzero.out(input, out=out)
    return ops.aten.nonzero.default(input)


def block_diag(*tensors):
    """torch.block_diag(*tensors): a block diagonal matrix of the inputs."""
    from .. import ops
    return ops.aten.block_diag.default(list(tensors))


def einsum(equation, *operands, path=None):
    """torch.einsum: the operands as arguments or as one list.

    >>> ember.einsum("ij,jk->ik", ember.ones(2, 3), ember.ones(3, 4)).shape
    ember.Size([2, 4])
    >>> ember.einsum("i,i->", [ember.ones(3), ember.ones(3)])
    tensor(3.)
    """
    from .. import ops
    if not isinstance(equation, str):
        raise TypeError("einsum(): the sublist format (operand, [dims], ...) is not supported; "
                        "pass an equation string")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return ops.aten.einsum.default(equation, list(operands), path=path)


def typename(obj, /) -> str:
    """torch.typename: 'ember.FloatTensor' for a tensor, the qualified type name otherwise.

    >>> ember.typename(ember.ones(2)), ember.typename(3)
    ('ember.FloatTensor', 'int')
    """
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in ("builtins", None) else f"{module}.{cls.__qualname__}"


def _check_tensors(name: str, input, other) -> None:
    """torch's TypeError for a non-tensor argument of a tensor-comparing function."""
    for position, (arg, value) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:
    """torch.isclose: where |input - other| <= atol + rtol * |other| (or they are equal;
    NaNs equal with `equal_nan`); integers are compared in the default dtype.

    >>> ember.isclose(ember.tensor([1.0, 2.0]), ember.tensor([1.0 + 1e-9, 2.1]))
    tensor([ True, False])
    """
    _check_tensors("isclose", input, other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype.scalar_name} did not match {other.dtype.scalar_name}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got "
                               f"{value:g}")
    close = input == other
    if equal_nan and input.is_floating_point():
        close = close | (input.isnan() & other.isnan())
    if rtol == 0 and atol == 0:
        return close
    if not input.is_floating_point():
        from .dtype import get_default_dtype
        input, other = input.to(get_default_dtype()), other.to(get_default_dtype())
    allowed = atol + (rtol * other).abs()
    actual = (input - other).abs()
    return close | (actual.isfinite() & (actual <= allowed))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """torch.allclose: whether `isclose` holds everywhere (after broadcasting)."""
    _check_tensors("allclose", input, other)
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def equal(input, other) -> bool:
    """torch.equal: same shape and same values (NaN is unequal to itself; dtypes promote)."""
    _check_tensors("equal", input, other)
    return input.shape == other.shape and bool((input == other).all())


def unravel_index(indices, shape):
    """torch.unravel_index: the coordinates in `shape` of flat `indices` (int64, one tensor
    per dim; negative and out-of-range indices wrap, as torch's do).

    >>> ember.unravel_index(ember.tensor([4, 11]), (3, 4))
    (tensor([1, 2]), tensor([0, 3]))
    """
    import ember
    if not isinstance(indices, Tensor):
        indices = ember.tensor(indices)
    if indices.is_floating_point() or indices.dtype == ember.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(not isinstance(s, int) for s in shape):
        raise TypeError("expected 'shape' to be int or sequence of ints, but got "
                        f"{type(shape)}")
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    coefs, c = [], 1
    for s in reversed(shape):
        coefs.append(c)
        c *= s
    coefs = ember.tensor(coefs[::-1], dtype=ember.int64, device=indices.device)
    sizes = ember.tensor(list(shape), dtype=ember.int64, device=indices.device)
    out = indices.to(ember.int64).unsqueeze(-1).div(coefs, rounding_mode="floor") % sizes
    return tuple(out.unbind(-1))
