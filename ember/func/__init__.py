"""ember.func (torch.func): function transforms: functionalize, and (ember/func/_transforms.py)
grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call.

    >>> def f(x):
    ...     y = x.clone()
    ...     y[0].add_(1)
    ...     x.mul_(2)
    ...     return y
    >>> x = ember.ones(2, 2)
    >>> ember.func.functionalize(f)(x), x
    (tensor([[2., 2.],
            [1., 1.]]), tensor([[2., 2.],
            [2., 2.]]))
"""
from __future__ import annotations

import functools

from ..utils._pytree import tree_map
from ._transforms import (
    functional_call,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    vjp,
    vmap,
)

__all__ = ["functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd",
           "jacrev", "jvp", "vjp", "vmap"]


def functionalize(func, *, remove: str = "mutations"):
    """`func` run without mutations (and, with remove="mutations_and_views", without views):
    every in-place op becomes its functional variant on a functional tensor. Mutations of
    the inputs are applied at the end, one `copy_` per mutated input, so callers see the
    same side effects; under make_fx the graph has only functional ops and those copies.

    The inputs are functionalized separately: two inputs that alias each other do not see
    each other's mutations (torch's functionalize has the same limit)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument "
                           f"for remove={remove}. Valid options are:\n     remove='mutations': "
                           "all inplace and out= operators will be removed from the program, "
                           "and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all "
                           "aliasing operators {view} will be replaced with their "
                           "non-aliasing counterparts, {view}_copy.\n")
    from .._subclasses import functional_tensor as F
    remove_views = remove == "mutations_and_views"

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        pairs = []

        def wrap(t):
            w = F.to_functional(t, remove_views)
            if t.grad is not None:       # .grad is state a backward() inside may change
                w.grad = F.to_functional(t.grad, remove_views)
            pairs.append((t, w))
            return w

        f_args, f_kwargs = tree_map(wrap, args), tree_map(wrap, kwargs)
        with F.functionalizing(remove_views):
            out = func(*f_args, **f_kwargs)
        for original, w in pairs:        # the input-mutation epilogue
            F.sync(w)
            if w._fstorage.mutated:       # data: the storage's base is the input's value
                _copy_back(original, w._fstorage.base)
            if w._metas:                  # metadata (t_, transpose_, ...): one as_strided_
                _restride(original, w._metas)
            if w.requires_grad and w.grad is not None:   # a backward() ran inside
                original.grad = F.from_functional(w.grad) if F.is_functional(w.grad) else w.grad
        return tree_map(lambda t: F.from_functional(t) if F.is_functional(t) else t, out)
    return wrapped


def _restride(original, metas):
    """Give `original` the layout its wrapper's in-place views made, found by replaying
    them on a meta tensor of its layout (nothing traced: the dispatch modes are off)."""
    import ember

    from .._subclasses.meta_utils import no_dispatch_modes
    with no_dispatch_modes():
        view = ember.empty_strided(original.shape, original.stride(), dtype=original.dtype,
                                   device="meta")
        for m in metas:
            view = m.forward(view, False)
    original.as_strided_(view.shape, view.stride(), original.storage_offset() +
                         view.storage_offset())


def _copy_back(original, value):
    from ..autograd.grad_mode import no_grad
    if original._shape != value._shape:
        original.resize_(value._shape)
    if original.requires_grad and original.grad_fn is None:
        with no_grad():                  # a leaf's data changes; its history has no step
            original.copy_(value)
    else:
        original.copy_(value)
