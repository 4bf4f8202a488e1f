"""`nn.Parameter` and `nn.Buffer`: tensors a Module registers when they are assigned to it.

Both opt out of `__torch_function__` (like torch's), so ops on them run on the fast path
and return plain Tensors:

    >>> p = ember.nn.Parameter(ember.zeros(2))
    >>> p
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    >>> type(p * 2).__name__
    'Tensor'
"""
from __future__ import annotations

from ..core.tensor import Tensor
from ..overrides import _disabled_torch_function_impl

__all__ = ["Buffer", "Parameter"]


def _empty():
    from .. import empty
    return empty(0)


class Parameter(Tensor):
    """A Tensor that is a module parameter: it shares `data`'s storage, is a leaf, and
    requires grad unless `requires_grad=False`."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' (position 1) must be Tensor, "
                            f"not {type(data).__name__}")
        return Tensor._make_subclass(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __torch_function__ = _disabled_torch_function_impl


class Buffer(Tensor):
    """A Tensor that a Module registers as a buffer when assigned to it:
    `self.running_mean = nn.Buffer(ember.zeros(3), persistent=True)`."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): argument 'data' must be Tensor, not {type(data).__name__}")
        t = Tensor._make_subclass(cls, data, data.requires_grad)
        t.persistent = persistent
        return t

    __torch_function__ = _disabled_torch_function_impl
