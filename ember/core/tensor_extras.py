"""Tensor attributes that are not ops: T, mT, H, mH, __getitem__, __setitem__, new_*."""
from . import dtype as D
from .indexing import getitem, setitem
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


Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.H = property(_T)
Tensor.mH = property(_mT)
Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem


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


for _method, _dt in (("float", "float32"), ("double", "float64"), ("half", "float16"),
                     ("bfloat16", "bfloat16"), ("long", "int64"), ("int", "int32"),
                     ("short", "int16"), ("char", "int8"), ("byte", "uint8"), ("bool", "bool")):
    setattr(Tensor, _method, _converter(_dt))


def _cpu(self, memory_format=None):
    """A CPU copy (self when already on the CPU)."""
    return self if self._device.type == "cpu" else self.to("cpu")


def _type(self, dtype=None, non_blocking=False):
    """`x.type()` names the type ('ember.FloatTensor'); `x.type(ember.int64)` converts."""
    if dtype is None:
        prefix = "ember." if self._device.type == "cpu" else f"ember.{self._device.type}."
        return f"{prefix}{self._dtype.scalar_name}Tensor"
    return self.to(dtype, non_blocking=non_blocking)


Tensor.cpu = _cpu
# torch parses `x.to(...)`'s Python signatures by hand (device-only, dtype-only, tensor, ...);
# the to.* overloads are declared with `manual_binding: true`, so this is the binding.
from ember.kernels.composite.conversions import tensor_to

Tensor.to = tensor_to
# torch.functional.norm is Python too (p="fro", dim=None, ...); norm.* have manual bindings
from ember.kernels.composite.reduction import python_norm

Tensor.norm = python_norm
Tensor.type = _type


def _deepcopy(self, memo):
    """`copy.deepcopy(t)`: a clone with the same requires_grad (and a copied .grad), like
    torch; views are copied as independent tensors."""
    import copy

    from ..autograd.grad_mode import no_grad
    if id(self) in memo:
        return memo[id(self)]
    if not self.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                           "the deepcopy protocol at the moment.  If you were attempting to "
                           "deepcopy a module, this may be because of a torch.nn.utils.weight_norm "
                           "usage, see https://github.com/pytorch/pytorch/pull/103001")
    with no_grad():
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


Tensor.__deepcopy__ = _deepcopy


def _unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    from .toplevel import unique
    return unique(self, sorted, return_inverse, return_counts, dim)


def _unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    from .toplevel import unique_consecutive
    return unique_consecutive(self, return_inverse, return_counts, dim)


def _nonzero(self, *, as_tuple=False):
    from .toplevel import nonzero
    return nonzero(self, as_tuple=as_tuple)


Tensor.unique = _unique
Tensor.nonzero = _nonzero
Tensor.unique_consecutive = _unique_consecutive
