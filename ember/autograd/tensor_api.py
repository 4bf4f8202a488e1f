"""The autograd part of the Tensor class: requires_grad, grad, grad_fn, is_leaf, backward,
hooks, retain_grad, detach_, output_nr (attached by ember/_assembly.py).

    >>> x = ember.ones(2, requires_grad=True)
    >>> y = x * 3
    >>> y.retain_grad()
    >>> y.sum().backward()
    >>> y.grad, x.grad
    (tensor([1., 1.]), tensor([3., 3.]))
"""
from __future__ import annotations

import weakref

from ..dispatch import keys as K
from . import engine as _engine
from . import graph as G
from .meta import autograd_meta, set_grad, set_requires_grad


def _requires_grad(self) -> bool:
    return bool(self._ks & K.AUTOGRAD_BIT)


def _set_requires_grad(self, flag):
    self.requires_grad_(flag)


def requires_grad_(self, requires_grad=True):
    """Makes a leaf require (or stop requiring) a gradient; returns self."""
    set_requires_grad(self, bool(requires_grad))
    return self


def _grad(self):
    ag = self._ag
    if ag is None:
        return None
    if ag.grad is None and ag.grad_fn is not None and not ag.retains_grad:
        import warnings
        warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being "
                      "accessed. Its .grad attribute won't be populated during "
                      "autograd.backward(). If you indeed want the .grad field to be "
                      "populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
                      "Tensor. If you access the non-leaf Tensor by mistake, make sure you "
                      "access the leaf Tensor instead. See "
                      "github.com/pytorch/pytorch/pull/30531 for more information.",
                      UserWarning, stacklevel=2)
    return ag.grad


def _set_grad(self, value):
    if value is None:
        ag = self._ag
        if ag is not None:
            ag.grad = None
        return
    set_grad(self, value)


def _is_leaf(self) -> bool:
    return self.grad_fn is None


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradient of `self` into the leaves' `.grad` (see autograd.backward)."""
    if gradient is None and inputs is None and not create_graph:    # `loss.backward()`
        _engine.run_backward((self,), _engine.make_grads((self,), None), bool(retain_graph),
                             False)
        return
    _engine.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def register_hook(self, hook):
    """`hook(grad)` runs when the gradient of `self` is computed; it may return a new one.
    Returns a handle with `.remove()`."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    fn = self.grad_fn
    if fn is None:
        ag = autograd_meta(self)
        if ag.hooks is None:
            ag.hooks = []
        return G._Handle(ag.hooks, hook)
    return fn._register_tensor_prehook(self._ag.output_nr, hook)


def register_post_accumulate_grad_hook(self, hook):
    """`hook(tensor)` runs after a leaf's `.grad` was updated."""
    if not self.is_leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    ag = autograd_meta(self)
    if ag.post_acc_hooks is None:
        ag.post_acc_hooks = []
    return G._Handle(ag.post_acc_hooks, hook)


def retain_grad(self):
    """Makes a non-leaf keep its gradient in `.grad` (a no-op on leaves)."""
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    fn = self.grad_fn
    if fn is None or self._ag.retains_grad:
        return
    ex = fn._ext()
    if ex.retains is None:
        ex.retains = {}
    ex.retains[self._ag.output_nr] = weakref.ref(self)
    self._ag.retains_grad = True


def retains_grad(self) -> bool:
    return self._ag is not None and self._ag.retains_grad


def detach_(self):
    """Detaches `self` from the graph in place: it becomes a leaf that needs no grad."""
    if self._base is not None and self._ag is not None and self.requires_grad:
        raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                           "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view "
                           "is set as True, gradients are views of DDP buckets, and hence detach_() "
                           "cannot be called on these gradients. To fix this error, please refer to "
                           "the Optimizer.zero_grad() function in torch/optim/optimizer.py as the "
                           "solution.")
    ag = self._ag
    if ag is not None:
        ag.grad_fn = None
        ag.requires_grad = False
        ag.attr_version = None
        ag.grad_acc = None
    self._ks &= ~K.AUTOGRAD_BIT
    return self


def _is_view(self) -> bool:
    return self._base is not None


def output_nr(self) -> int:
    return 0 if self._ag is None else self._ag.output_nr


TENSOR_ATTRIBUTES = {
    "requires_grad": property(_requires_grad, _set_requires_grad),
    "requires_grad_": requires_grad_,
    "grad": property(_grad, _set_grad),
    "grad_fn": property(G.current_grad_fn),
    "is_leaf": property(_is_leaf),
    "backward": backward,
    "register_hook": register_hook,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
    "retain_grad": retain_grad,
    "retains_grad": property(retains_grad),
    "detach_": detach_,
    "output_nr": property(output_nr),
    "_is_view": _is_view,
}
