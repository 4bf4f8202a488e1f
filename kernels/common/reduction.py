"""out= variants of max() / min(), which torch lets reduce an empty input to the identity
(-inf / inf, the dtype's lowest / highest value) instead of raising; and of all/any,
which write a bool or uint8 `out` whatever the input's dtype. renorm runs here below
autograd (its gradient is torch's renorm_backward, schema/derivatives.yaml).

    >>> ember.max(ember.empty(0), out=ember.empty(0))
    tensor(-inf)
"""
import math

import ember
from ember.core.outputs import copy_to_out
from ember.kernels.composite import products

renorm = products.renorm


def _extreme_or_identity(self, op):
    if self.numel():
        return getattr(ember.ops.aten, op).default(self)
    dt = self.dtype
    if dt.is_floating_point:
        value = -math.inf if op == "max" else math.inf
    elif dt is ember.bool:
        value = op == "min"
    else:
        info = ember.iinfo(dt)
        value = info.min if op == "max" else info.max
    return ember.full((), value, dtype=dt, device=self.device)


def max_unary_out(self, out):
    return copy_to_out(_extreme_or_identity(self, "max"), out)


def min_unary_out(self, out):
    return copy_to_out(_extreme_or_identity(self, "min"), out)


def _all_any_out(op, overload, args, out):
    if out.dtype is not ember.bool and out.dtype is not ember.uint8:
        raise RuntimeError(f"{op} only supports bool tensor for result, got: "
                           f"{out.dtype.scalar_name}")
    if out.dtype is ember.uint8 and args[0].dtype is not ember.uint8:
        args = (args[0].to(ember.uint8),) + args[1:]    # torch casts the input to out's dtype
    r = getattr(getattr(ember.ops.aten, op), overload)(*args)
    return copy_to_out(r if r.dtype is out.dtype else r.to(out.dtype), out)


def all_all_out(self, out):
    return _all_any_out("all", "default", (self,), out)


def all_dim_out(self, dim, keepdim, out):
    return _all_any_out("all", "dim", (self, dim, keepdim), out)


def all_dims_out(self, dim, keepdim, out):
    return _all_any_out("all", "dims", (self, dim, keepdim), out)


def any_all_out(self, out):
    return _all_any_out("any", "default", (self,), out)


def any_dim_out(self, dim, keepdim, out):
    return _all_any_out("any", "dim", (self, dim, keepdim), out)


def any_dims_out(self, dim, keepdim, out):
    return _all_any_out("any", "dims", (self, dim, keepdim), out)
