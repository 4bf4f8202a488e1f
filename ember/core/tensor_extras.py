"""Tensor attributes that are not ops: T, mT, H, mH, __getitem__, __setitem__, the dtype
conversions (`x.float()`), to, cpu, cuda, record_stream, type, norm, unique, nonzero, __deepcopy__, __reduce_ex__ (attached by
ember/_assembly.py)."""
from ember.kernels.composite.conversions import tensor_to
from ember.kernels.composite.reduction import python_norm

from ..dispatch.tls import grad_disabled
from ..dispatch.tls import state as _tls
from ..overrides import NO_OVERRIDE, handle_torch_function
from . import dtype as D
from .indexing import getitem, setitem
from .surface import TENSOR_METHODS
from .tensor import Tensor


def _T(self):
    if self.dim() > 2:
        return self.permute(*range(self.dim() - 1, -1, -1))
    return self.t() if self.dim() == 2 else self


def _mT(self):
    if self.dim() < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    return self.transpose(-2, -1)


# --- conversions torch defines in Python on top of `to` ------------------------------------
def _converter(dtype_name):
    def convert(self, memory_format=None):
        target = D._BY_NAME[dtype_name]
        if memory_format is None:
            return self if self._dtype is target else self.to(target)
        return self.to(target, memory_format=memory_format)
    convert.__name__ = convert.__qualname__ = dtype_name
    convert.__doc__ = f"self.to(ember.{dtype_name}): `x.{dtype_name}()`."
    return convert


_CONVERSIONS = (("float", "float32"), ("double", "float64"), ("half", "float16"),
                ("bfloat16", "bfloat16"), ("long", "int64"), ("int", "int32"), ("short", "int16"),
                ("char", "int8"), ("byte", "uint8"), ("bool", "bool"), ("cfloat", "complex64"),
                ("cdouble", "complex128"))


def _cpu(self, memory_format=None):
    """A CPU copy (self when already on the CPU)."""
    return self if self._device.type == "cpu" else self.to("cpu")


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    """A copy on a CUDA device (the current one by default); self when already there."""
    from ember.cuda import _runtime
    dev = f"cuda:{_runtime.device_index(device)}"
    if memory_format is None:
        return self.to(dev, non_blocking=non_blocking)
    return self.to(dev, non_blocking=non_blocking, memory_format=memory_format)


def _record_stream(self, stream):
    """Marks the memory as used on `stream`: the allocator reuses it only after the work
    queued there so far (torch's Tensor.record_stream)."""
    if self._device.type != "cuda":
        raise RuntimeError("record_stream is only supported for CUDA tensors")
    buf = self.untyped_storage()._owner
    if buf.block is not None:
        buf.allocator.record_stream(buf.block, stream.cuda_stream)


def _cuda_array_interface(self):
    """CuPy's / Numba's view of a CUDA tensor's memory (byte strides; no copy)."""
    if self._device.type != "cuda":
        raise AttributeError(f"Can't get __cuda_array_interface__ on non-CUDA tensor type: "
                             f"{_type(self)} If CUDA data is required use tensor.cuda() to copy "
                             "tensor to device memory.")
    if self.requires_grad:
        raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad. "
                           "If gradients aren't required, use var.detach() to get Variable that "
                           "doesn't require grad.")
    if self._dtype is D.bfloat16:
        raise TypeError("bfloat16 has no __cuda_array_interface__ typestr")
    isz = self._dtype.itemsize
    return {"typestr": self._dtype.np.str, "shape": tuple(self._shape),
            "strides": tuple(s * isz for s in self.stride()),
            "data": (self.data_ptr() if self.numel() else 0, False), "version": 2}


def _pin_memory(self, device=None):
    """A copy in pinned host memory (the same tensor when it is pinned already); needs a
    CUDA device, as in torch."""
    from ember.cuda import _pinned
    return _pinned.pin(self)


def _is_pinned(self, device=None):
    from ember.cuda import _pinned
    return _pinned.is_pinned(self)


def _type(self, dtype=None, non_blocking=False):
    """`x.type()` names the type ('ember.FloatTensor'); `x.type(ember.int64)` converts."""
    if dtype is None:
        prefix = "ember." if self._device.type == "cpu" else f"ember.{self._device.type}."
        return f"{prefix}{self._dtype.scalar_name}Tensor"
    return self.to(dtype, non_blocking=non_blocking)


def _deepcopy(self, memo):
    """`copy.deepcopy(t)`: a clone with the same requires_grad (and a copied .grad), like
    torch; views are copied as independent tensors."""
    import copy

    if id(self) in memo:
        return memo[id(self)]
    if _tls.function_modes:     # a mode may copy it its own way (FakeCopyMode makes a fake)
        r = handle_torch_function(Tensor.__deepcopy__, (self,), (self, memo))
        if r is not NO_OVERRIDE:
            return r
    if not self.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                           "the deepcopy protocol at the moment.  If you were attempting to "
                           "deepcopy a module, this may be because of a torch.nn.utils.weight_norm "
                           "usage, see https://github.com/pytorch/pytorch/pull/103001")
    with grad_disabled():
        new = self.clone()
    if type(self) is not Tensor:
        new = new.as_subclass(type(self))
        if hasattr(self, "__dict__"):
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
    memo[id(self)] = new
    if self.requires_grad:
        new.requires_grad_(True)
    if self.grad is not None:
        new.grad = copy.deepcopy(self.grad, memo)
    return new


def _reduce_ex(self, proto):
    """`pickle.dumps(t)`: see ember/serialization/_pickle.py."""
    from ..serialization._pickle import reduce_tensor
    return reduce_tensor(self, proto)


def _unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    from .toplevel import unique
    return unique(self, sorted, return_inverse, return_counts, dim)


def _unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    from .toplevel import unique_consecutive
    return unique_consecutive(self, return_inverse, return_counts, dim)


def _nonzero(self, *, as_tuple=False):
    from .toplevel import nonzero
    return nonzero(self, as_tuple=as_tuple)


def _norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    """`x.norm(p="fro", dim=None, keepdim=False, dtype=None)`: ember.norm without out=
    (torch.Tensor.norm's signature)."""
    return python_norm(self, p, dim, keepdim, dtype=dtype)


def _comparison(name: str):
    """The Tensor method of ember.isclose / allclose / equal."""
    def method(self, other, *args, **kwargs):
        from . import toplevel
        return getattr(toplevel, name)(self, other, *args, **kwargs)
    method.__name__ = name
    return method


def _H(self):
    """The conjugate transpose (`T` of a real tensor)."""
    return _T(self).conj()


def _mH(self):
    return _mT(self).conj()


def _real(self):
    from .. import _generated
    return _generated.functions.real(self)


def _set_real(self, value):
    _real(self).copy_(value)


def _imag(self):
    from .. import _generated
    return _generated.functions.imag(self)


def _set_imag(self, value):
    _imag(self).copy_(value)


TENSOR_ATTRIBUTES = {
    "T": property(_T), "mT": property(_mT), "H": property(_H), "mH": property(_mH),
    "real": property(_real, _set_real), "imag": property(_imag, _set_imag),

    "__getitem__": getitem, "__setitem__": setitem,
    **{method: _converter(dt) for method, dt in _CONVERSIONS},
    "cpu": _cpu, "cuda": _cuda, "record_stream": _record_stream, "type": _type,
    "pin_memory": _pin_memory, "is_pinned": _is_pinned,
    "__cuda_array_interface__": property(_cuda_array_interface),
    # torch parses `x.to(...)`'s Python signatures by hand (device-only, dtype-only,
    # tensor, ...); the to.* overloads are declared with `manual_binding: true`.
    "to": tensor_to,
    # torch.functional.norm is Python too (p="fro", dim=None, ...); manual bindings as well
    "norm": _norm,
    "__deepcopy__": _deepcopy, "__reduce_ex__": _reduce_ex,
    "unique": _unique, "nonzero": _nonzero, "unique_consecutive": _unique_consecutive,
    "isclose": _comparison("isclose"), "allclose": _comparison("allclose"),
    "equal": _comparison("equal"),
    **TENSOR_METHODS,
}
