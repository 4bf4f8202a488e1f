"""AccumulateGrad's work: adding a leaf's gradient into `.grad`, after the leaf's tensor
hooks, in the layout torch promises. Used by the AccumulateGrad node (graph.py) and by
the engine (engine.py), which both import it from here.

    >>> x = ember.ones(2, requires_grad=True)
    >>> accumulate_grad(x, ember.tensor([1., 2.]))
    >>> accumulate_grad(x, ember.tensor([1., 2.]))
    >>> x.grad
    tensor([2., 4.])
"""
from __future__ import annotations

import sys

import numpy as np

import ember

from ..core import dtype as D
from ..core.refcounts import EXACT as _EXACT_REFCOUNTS
from ..core.shapes import is_non_overlapping_and_dense
from ..core.tensor import Tensor, from_array
from ..dispatch import observers as _observers
from ..dispatch.keys import ADINPLACE_BIT, AUTOGRAD_BIT, CONJ_BIT
from ..dispatch.tls import state as _tls
from ..kernels.common.views import detach as _detach

_ndarray = np.ndarray


def _hook_name(hook):
    return getattr(hook, "__name__", type(hook).__name__)


def _checked_hook_result(hook, old, new):
    """torch refuses a hook result that is not a tensor, or changes the gradient's shape or
    dtype (`old`: the gradient it replaces, or None)."""
    if not isinstance(new, ember.Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if old is None:
        return new
    name = _hook_name(hook)
    if new._shape != old._shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if new._dtype is not old._dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {old.type()} got "
                           f"{new.type()})")
    return new


def _checked_hook_values(hook, old, new):
    """torch's checks of a Node hook's result: a tuple of as many values as it replaces, each
    None or a tensor like the one it replaces."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                           f"values (got {len(new)}, but expected {len(old)})")
    return tuple(v if v is None else _checked_hook_result(hook, o, v) for o, v in zip(old, new))


def _run_leaf_hooks(variable, g):
    hooks = variable._ag.hooks
    if hooks:
        for hook in list(hooks):
            r = hook(g)
            if r is not None:
                g = _checked_hook_result(hook, g, r)
    return g


def accumulate_grad(variable, g, run_hooks=True, held=1):
    """Adds `g` into `variable.grad`, like torch's AccumulateGrad: the first gradient is
    taken as is when nothing else holds it and its layout matches (else copied), later
    ones are added in place (out of place under create_graph, so the sum stays
    differentiable). `held`: how many references to `g` the caller holds and drops
    without reading `g` again (by default one: the node's input buffer)."""
    ag = variable._ag
    if run_hooks and ag.hooks:
        hooked = _run_leaf_hooks(variable, g)
        if hooked is not g:
            held = 0                # a hook's result: the caller's references are not to it
        g = hooked
        del hooked
    old = ag.grad
    if old is None and g._ks & CONJ_BIT:
        # a lazy conjugate view (a gradient given to backward()): its raw array holds the
        # unconjugated values, which neither the steal nor the array copy may take
        ag.grad = _copy_like(g.resolve_conj(), variable)
    elif old is None:
        # Taken as is only when its owners are exactly this frame's variable, getrefcount's
        # argument and the `held` references of the caller: then no hook, custom Function,
        # retain_grad or user keeps it and .grad aliases nothing (torch: use_count() == 1).
        # A count proves this only where counts are exact (refcounts.EXACT, as for
        # elision); elsewhere the gradient is copied.
        if _EXACT_REFCOUNTS and not _tls.grad_enabled and sys.getrefcount(g) == 2 + held \
                and not g._ks & AUTOGRAD_BIT and _same_layout(g, variable):
            if _tls.dispatch_modes:     # torch's `new_grad.detach()`, seen by the modes
                ag.grad = g.detach()
            elif g._base is None:
                ag.grad = g
            elif _stealable_view(g):
                ag.grad = _detach(g)
            else:
                ag.grad = _copy_like(g, variable)
        else:
            ag.grad = _copy_like(g, variable)
    elif _tls.grad_enabled:
        ag.grad = old + g
    elif not _add_unobserved(old, g):
        old.add_(g.detach())
    if ag.post_acc_hooks:
        for hook in list(ag.post_acc_hooks):
            hook(variable)


_FLOAT_DTYPES = (D.float32, D.float64)


def _add_unobserved(old, g) -> bool:
    """`old.add_(g.detach())` as the add_ kernel runs it, np.add(out=), when nothing can see
    the ops (no dispatch or function mode, no profiler, no key masks): plain CPU tensors of
    one float dtype and shape, `old` C-contiguous (no internal overlap) and sharing no
    storage with `g`; the version counter bumps as add_'s. False: not done, run the ops.

    >>> x = ember.ones(2)
    >>> _add_unobserved(x, ember.ones(2)), x
    (True, tensor([2., 2.]))
    """
    o, a = old._np, g._np
    if not (old.__class__ is Tensor and g.__class__ is Tensor and o.__class__ is _ndarray
            and a.__class__ is _ndarray and old._dtype is g._dtype
            and old._dtype in _FLOAT_DTYPES and o.shape == a.shape and o.flags.c_contiguous
            and (old._storage is None or old._storage is not g._storage)
            and _observers.ops_unobserved()):
        return False
    np.add(o, a, out=o)
    if old._ks & ADINPLACE_BIT:
        st = old._storage
        if st is None:
            st = old.untyped_storage()
        st._version += 1
    return True


def _stealable_view(g) -> bool:
    """Whether a view gradient may become .grad as it is (detached, as torch's
    `new_grad.detach()`): its base is held by nothing but the view (the base's only
    references: g._base and getrefcount's argument), so the memory .grad keeps is seen by
    no one else; a plain tensor (no subclass, no conjugate bit) outside dispatch modes.
    A Linear weight's gradient is such a view: the transpose of the product
    AddmmBackward made."""
    return g.__class__ is Tensor and not g._ks & CONJ_BIT and not _tls.dispatch_modes \
        and sys.getrefcount(g._base) == 2


def _copy_like(g, variable):
    """A copy of `g` with the leaf's strides when the leaf is dense (torch's layout
    contract for .grad), else contiguous."""
    v, a = variable._np, g._np
    if v is not None and a is not None and v.flags.c_contiguous and not g._ks & AUTOGRAD_BIT \
            and not _tls.dispatch_modes:
        return from_array(a.copy(order="C"), g._dtype, True)  # the usual case: a plain copy
    if variable.is_contiguous() or not is_non_overlapping_and_dense(variable._shape,
                                                                    variable.stride()):
        return g.clone(memory_format=ember.contiguous_format)
    out = ember.empty_strided(variable._shape, variable.stride(), dtype=g.dtype, device=g.device)
    return out.copy_(g)


def _same_layout(g, variable) -> bool:
    a, b = g._np, variable._np
    if a is not None and b is not None:
        return a.strides == b.strides
    return g.stride() == variable.stride()
