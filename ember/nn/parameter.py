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

from ..core.tensor import Tensor, _has_python_dispatch
from ..dispatch.tls import state as _tls
from ..overrides import NO_OVERRIDE, _disabled_torch_function_impl, handle_torch_function

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter",
           "is_lazy"]


def _empty():
    from .. import empty
    return empty(0)


class _ParameterMeta(type):
    """isinstance(t, Parameter) also holds for a tensor marked `_is_param` (a FakeTensor
    made from a Parameter stays a parameter, as torch's)."""

    def __instancecheck__(cls, instance):
        return super().__instancecheck__(instance) or (
            cls is Parameter and isinstance(instance, Tensor) and instance._is_param)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A Tensor that is a module parameter: it shares `data`'s storage, is a leaf, and
    requires grad unless `requires_grad=False`."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' (position 1) must be Tensor, "
                            f"not {type(data).__name__}")
        if cls is Parameter and _has_python_dispatch(type(data)):
            # a __torch_dispatch__ subclass (a FakeTensor) keeps its class, marked a parameter
            t = data.detach().requires_grad_(requires_grad)
            t._is_param = True
            return t
        return Tensor._make_subclass(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        if _tls.function_modes:     # a mode may copy it its own way (FakeCopyMode)
            r = handle_torch_function(Parameter.__deepcopy__, (self,), (self, memo))
            if r is not NO_OVERRIDE:
                return r
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


class UninitializedTensorMixin:
    """A parameter or buffer whose shape a lazy module learns from its first input: it holds
    no data until `materialize(shape)` turns it into an ordinary one."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Allocate (uninitialised) data of `shape` and become cls_to_become."""
        from .. import empty
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def __repr__(self):
        return f"<{type(self).__name__}>"


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter of a lazy module, not yet given a shape."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .. import empty
        return Tensor._make_subclass(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module, not yet given a shape (it becomes a Buffer: a Python
    object cannot turn into the base Tensor class)."""

    cls_to_become = Buffer

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from .. import empty
        t = Tensor._make_subclass(cls, empty(0, device=device, dtype=dtype), requires_grad)
        t.persistent = persistent
        return t

    __torch_function__ = _disabled_torch_function_impl


def is_lazy(param):
    """Whether param is an uninitialized parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)
