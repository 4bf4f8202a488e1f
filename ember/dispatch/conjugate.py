"""The Conjugate key: `conj()` of a complex tensor is a lazy view (torch's conjugate bit).

`x.conj()` shares x's storage and sets the Conjugate key in its keyset (`is_conj()`).
Views of it keep the bit (their kernels run below this key and copy the keyset); every
other op reaches `conjugate_fallback`, which hands the kernels resolved inputs (the
conjugated values, materialised) and, for an op that writes into a conjugate-bit tensor
(in place or out=), writes the conjugate of the result back into its storage:

    >>> z = ember.tensor([1 + 2j])
    >>> c = z.conj()
    >>> c.is_conj(), c + 0
    (True, tensor([1.-2.j]))
    >>> _ = c.add_(1j)                # written through the view: z is conj(c)
    >>> z
    tensor([1.+1.j])
"""
from __future__ import annotations

from ..core.tensor import Tensor
from . import keys as K
from .dispatcher import ops, register_fallback

_BELOW = K.below(K.Conjugate)
_info: dict = {}        # op -> (is a view, positions of the arguments it writes)


def _op_info(op):
    info = _info.get(op)
    if info is None:
        schema = op.schema
        args = schema.arguments.flat()
        writes = tuple(i for i, a in enumerate(args)
                       if a.annotation is not None and a.annotation.is_write)
        view = not writes and any(r.annotation is not None for r in schema.returns)
        info = _info[op] = (view, writes)
    return info


def raw(t: Tensor, keyset: int) -> Tensor:
    """t's storage and layout without the conjugate bit (the stored, unconjugated values):
    `_conj` of it, run below this key with the call's `keyset`, so that Python modes (fake
    tensors, make_fx) see and record it."""
    return ops.aten._conj.default.redispatch(keyset & _BELOW, t)


def resolve(t: Tensor, keyset: int) -> Tensor:
    """The conjugated values of a conjugate-bit tensor, materialised (no bit)."""
    return _conj_copy(raw(t, keyset), keyset)


def _conj_copy(t: Tensor, keyset: int) -> Tensor:
    """conj(t) as a new tensor, for a tensor without the bit."""
    return ops.aten._conj_physical.default.redispatch(keyset & _BELOW, t)


def _resolved(x, keyset):
    if isinstance(x, Tensor):
        return resolve(x, keyset) if x._ks & K.CONJ_BIT else x
    if isinstance(x, (list, tuple)) and any(isinstance(v, Tensor) for v in x):
        return type(x)(_resolved(v, keyset) for v in x)
    return x


def conjugate_fallback(op, keyset, *args):
    """The boxed kernel at the Conjugate key for every op (views pass through)."""
    view, writes = _op_info(op)
    below = keyset & _BELOW
    if view:
        return op.redispatch(below, *args)
    new = [_resolved(a, keyset) for a in args]
    result = op.redispatch(below, *new)
    for i in writes:
        target = args[i]
        if isinstance(target, Tensor) and target._ks & K.CONJ_BIT:
            written = new[i]
            ops.aten.copy_.default.redispatch(below, raw(target, keyset),
                                              _conj_copy(written, keyset), False)
            result = _swap(result, written, target)
    return result


def _swap(result, written, target):
    """The op's result with the resolved copy it wrote replaced by the caller's tensor."""
    if result is written:
        return target
    if isinstance(result, tuple):
        return tuple(target if r is written else r for r in result)
    return result


register_fallback(K.Conjugate, conjugate_fallback)
