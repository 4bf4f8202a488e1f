"""torch's top-level functions and Tensor methods that are Python, not ops: the Tensor
predicates as functions (`ember.is_nonzero(t)`), range, asarray, frombuffer, the thread
count settings, and the Tensor methods new_tensor, resize_as_, share_memory_,
is_shared, storage, cfloat/cdouble, map_, apply_ (attached by ember/core/tensor_extras.py).

    >>> ember.range(1, 3)
    tensor([1., 2., 3.])
"""
from __future__ import annotations

import math
import os
import warnings

import numpy as np

from .tensor import Tensor


# --- Tensor predicates as functions (torch.is_complex(t) is t.is_complex()) -------------------
def _predicate(name):
    def function(input, /):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return getattr(input, name)()
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"`input.{name}()`."
    return function


is_complex = _predicate("is_complex")
is_conj = _predicate("is_conj")
is_neg = _predicate("is_neg")
is_inference = _predicate("is_inference")
is_signed = _predicate("is_signed")
is_nonzero = _predicate("is_nonzero")
get_device = _predicate("get_device")


def tensor_is_nonzero(self) -> bool:
    """The truth of a one-element tensor (torch's errors for zero or several elements)."""
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def is_same_size(input, other) -> bool:
    return input.shape == other.shape


# --- factories torch writes in Python ---------------------------------------------------------
def range(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Deprecated torch.range: like arange but `end` included (default dtype float)."""
    import ember
    warnings.warn("torch.range is deprecated and will be removed in a future release because its "
                  "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
                  "which produces values in [start, end).", UserWarning, stacklevel=2)
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = math.floor((end - start) / step) + 1
    dtype = dtype or ember.get_default_dtype()
    r = (ember.arange(n, dtype=ember.float64, device=device) * step + start).to(dtype)
    if out is not None:
        out.resize_(r.shape).copy_(r)
        return out
    return r.requires_grad_(requires_grad)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """A tensor from `obj`, sharing its memory when it can (a Tensor, a NumPy array or a
    buffer of the right dtype) unless copy=True; copy=False raises when it cannot."""
    import ember
    if isinstance(obj, Tensor):
        same = (dtype is None or dtype == obj.dtype) and \
            (device is None or ember.device(device) == obj.device)
        if copy is False and not same:
            raise ValueError(f"can't alias tensor from device '{obj.device}' to "
                             f"'{device or obj.device}' with dtype {dtype or obj.dtype}.")
        r = obj if same else obj.to(dtype=dtype or obj.dtype, device=device or obj.device)
        if copy and r is obj:
            r = obj.clone()
    else:
        if hasattr(obj, "__array_interface__"):
            obj = np.asarray(obj)
        if isinstance(obj, (bytes, bytearray, memoryview)):  # a buffer of the dtype (torch's)
            r = frombuffer(obj, dtype=dtype or ember.get_default_dtype()).to(device=device or "cpu")
        elif isinstance(obj, np.ndarray):
            shared = ember.from_numpy(obj)
            r = shared.to(dtype=dtype or shared.dtype, device=device or "cpu")
            if copy and r is shared:
                r = shared.clone()
        else:
            if copy is False:
                raise ValueError(f"can't alias a {type(obj).__name__} without copying")
            r = ember.tensor(obj, dtype=dtype, device=device)
    return r.requires_grad_(requires_grad) if requires_grad else r


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor sharing the memory of a Python buffer (bytes, bytearray, array.array)."""
    import ember
    nbytes = memoryview(buffer).nbytes
    if nbytes <= 0:
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    if offset < 0 or offset >= nbytes:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({nbytes} bytes) minus 1")
    if count <= 0 and (nbytes - offset) % dtype.itemsize:
        raise ValueError(f"buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) "
                         f"must be a multiple of element size ({dtype.itemsize})")
    a = np.frombuffer(buffer, dtype=dtype.np, count=count, offset=offset)
    if not a.flags.writeable:
        warnings.warn("The given buffer is not writable, and PyTorch does not support "
                      "non-writable tensors.", UserWarning, stacklevel=2)
        a = a.view()
        a.flags.writeable = False
    t = ember.from_numpy(a)
    return t.requires_grad_(requires_grad) if requires_grad else t


# --- threads: the intra-op count is the BLAS libraries' (NumPy's, SciPy's) ------------------
_threads = {"intra": os.cpu_count() or 1, "interop": os.cpu_count() or 1, "interop_set": False}


def set_num_threads(int):
    """Sets the intra-op thread count: the threads of every BLAS library loaded (through
    threadpoolctl), as torch's count is its own kernels'.

    >>> ember.get_num_threads() >= 1       # ember.set_num_threads(1): one BLAS thread
    True
    """
    if int <= 0:
        raise RuntimeError("Expected number of threads to be positive, but got " + str(int))
    _threads["intra"] = int
    from threadpoolctl import threadpool_limits
    threadpool_limits(limits=int, user_api="blas")     # applies now, for the process


def get_num_threads() -> int:
    return _threads["intra"]


def set_num_interop_threads(int):
    """Sets the inter-op thread count, once, before any parallel work (as torch)."""
    if int <= 0:
        raise RuntimeError("Expected number of threads to be positive, but got " + str(int))
    if _threads["interop_set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has "
                           "started or set_num_interop_threads called")
    _threads["interop"], _threads["interop_set"] = int, True


def get_num_interop_threads() -> int:
    return _threads["interop"]


# --- Tensor methods ---------------------------------------------------------------------------
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """A new tensor from `data` (copied and detached), self's dtype and device by default."""
    import ember
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
        r = data.detach().to(dtype=dtype or self.dtype, device=device or self.device, copy=True)
    else:
        r = ember.tensor(data, dtype=dtype or self.dtype, device=device or self.device)
    return r.requires_grad_(requires_grad) if requires_grad else r


def resize_as_(self, the_template, *, memory_format=None):
    return self.resize_(the_template.shape, memory_format=memory_format)


def share_memory_(self):
    """A no-op on the CPU, as torch's (a NumPy array is already shareable by fork)."""
    return self


def is_shared(self) -> bool:
    return False


def storage(self):
    """The tensor's storage (ember's only storage kind is untyped: torch's TypedStorage is
    deprecated)."""
    return self.untyped_storage()


def map_(self, tensor, callable):
    """self[i] = callable(self[i], tensor[i]) element by element (CPU, as torch)."""
    _check_cpu(self, "map_")
    other = tensor.expand_as(self)
    values = [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other.reshape(-1).tolist())]
    return _write(self, values)


def apply_(self, callable):
    """self[i] = callable(self[i]) element by element (CPU, as torch)."""
    _check_cpu(self, "apply_")
    return _write(self, [callable(a) for a in self.reshape(-1).tolist()])


def _check_cpu(self, name):
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")


def _write(self, values):
    import ember
    with ember.no_grad():
        self.copy_(ember.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


TENSOR_METHODS = {
    "is_nonzero": tensor_is_nonzero, "is_same_size": is_same_size, "new_tensor": new_tensor,
    "resize_as_": resize_as_, "share_memory_": share_memory_,
    "is_shared": is_shared, "storage": storage, "map_": map_, "apply_": apply_,
}


# --- torch.* forms of nn.functional ops (aten signatures: int reduction, positional flags) ---
# (torch's Python binding reads the schema's `reduction=Mean` default as 0: these
# top-level forms do not reduce unless asked, unlike F's)
_REDUCTIONS = ("none", "mean", "sum")


def _F():
    import ember.nn.functional as F
    return F


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return _F().group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled):
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                              momentum, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _F().rms_norm(input, list(normalized_shape), weight, eps)


def kl_div(input, target, reduction=0, *, log_target=False):
    with warnings.catch_warnings():  # (F's 'mean' warning is for F.kl_div's callers)
        warnings.simplefilter("ignore")
        return _F().kl_div(input, target, reduction=_REDUCTIONS[reduction], log_target=log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F().margin_ranking_loss(input1, input2, target, margin,
                                    reduction=_REDUCTIONS[reduction])


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return _F().hinge_embedding_loss(input, target, margin, reduction=_REDUCTIONS[reduction])


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_REDUCTIONS[reduction])


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_REDUCTIONS[reduction])


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_REDUCTIONS[reduction])


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    return _F().max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode,
                           return_indices=True)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def adaptive_max_pool1d(input, output_size):
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)
