"""Per-tensor autograd metadata, allocated only for tensors that need it (like torch's
AutogradMeta): plain tensors keep `_ag = None` and pay nothing.

A tensor takes part in autograd when its keyset has the Autograd bit: leaves that
require grad, and outputs of recorded ops (which have a `grad_fn`).
"""
from __future__ import annotations

from ..dispatch import keys as K

# How a view was made, for the in-place checks (torch's CreationMeta).
DEFAULT, NO_GRAD_MODE, INFERENCE_MODE, MULTI_OUTPUT_NODE, IN_CUSTOM_FUNCTION = range(5)


class AutogradMeta:
    """Fields default to the class attributes below; an instance stores only what was
    set (made with `AutogradMeta()` or, on the hot path, `object.__new__`)."""

    attr_version = None     # views: the version their grad_fn was made at
    creation_meta = DEFAULT  # views: DEFAULT, NO_GRAD_MODE, INFERENCE_MODE, ...
    grad = None
    grad_acc = None         # leaves: their AccumulateGrad node
    grad_fn = None
    hooks = None            # leaves: tensor hooks run before accumulation
    name = None
    output_nr = 0
    post_acc_hooks = None
    requires_grad = False   # leaves only; non-leaves require grad through grad_fn
    retains_grad = False


def autograd_meta(t) -> AutogradMeta:
    ag = t._ag
    if ag is None:
        ag = t._ag = AutogradMeta()
    return ag


def set_requires_grad(t, flag: bool) -> None:
    """`t.requires_grad_(flag)`: leaves only, floating point only (torch's errors)."""
    if flag and not (t.is_floating_point() or t.is_complex()):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    ag = t._ag
    if ag is not None and ag.grad_fn is not None:
        if not flag:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you "
                               "want to use a computed variable in a subgraph that doesn't require "
                               "differentiation use var_no_grad = var.detach().")
        return
    if flag and t.is_inference():
        from ..dispatch.tls import state
        if not state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
    autograd_meta(t).requires_grad = flag
    if flag:
        t._ks |= K.AUTOGRAD_BIT
    else:
        t._ks &= ~K.AUTOGRAD_BIT


# the C++ type names torch prints in its grad-assignment error
_CPP_TYPE_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half",
                   "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
                   "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                   "bool": "bool"}


def set_grad(t, value) -> None:
    from ..core.tensor import Tensor
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                            f"type {type(value).__name__}")
        if value.shape != t.shape:
            raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to "
                               f"a tensor of size '{list(t.shape)}'. Please ensure that the "
                               "gradient and the tensor are the same size")
        if value.dtype is not t.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{_CPP_TYPE_NAMES.get(str(value.dtype).split('.')[-1], value.dtype)}' "
                f"to a tensor with grad_dtype '{t.dtype.scalar_name}'. The gradient must match "
                "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. "
                "Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
                "may break downstream systems that assume they match.")
        if value.device != t.device:
            raise RuntimeError("assigned grad has data located on a different device")
    autograd_meta(t).grad = value
