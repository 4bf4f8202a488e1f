"""Argument checks the generated bindings call: keysets of tensor arguments, type
fits for overload resolution, and TypeErrors that show the schema.

    >>> FITS["int[]"]((2, 3)), FITS["Tensor?"](None), FITS["ScalarType?"](3)
    (True, True, False)
"""
from __future__ import annotations

import numbers

import numpy as np

from ..core.device import device as _device
from ..core.dtype import dtype as _dtype
from ..core.dtype import wrapped_number_dtype
from ..core.sym import is_sym_scalar, is_symint
from ..core.tensor import Tensor, from_array
from . import keys as K
from .dispatcher import ops as _all_namespaces


def ks_number(x) -> int:
    """Keyset of a Tensor argument that may also be a Python number (wrapped number)."""
    cls = x.__class__
    if cls is float or cls is int:  # (the common numbers first)
        return 0
    if isinstance(x, Tensor):
        return x._ks
    if isinstance(x, (complex, np.complexfloating)):
        return K.COMPLEX_BIT
    if isinstance(x, (bool, int, float, np.number, np.bool_)) or is_sym_scalar(x):
        return 0
    raise AttributeError("not a tensor")


def ks_list(xs) -> int:
    """OR of a tensor list's keysets; an empty list dispatches to the default backend, whose
    kernel raises the op's own error (like torch's `cat([])`)."""
    ks = 0
    for x in xs:
        ks |= x._ks
    return ks or _default_ks()


def _default_ks() -> int:
    from ..core.factories import default_device
    from ..core.tensor import _KS_OF_DEVICE_TYPE
    return _KS_OF_DEVICE_TYPE[default_device().type]


def ks_optlist(xs) -> int:
    ks = 0
    for x in xs:
        if x is not None:
            ks |= x._ks
    return ks


def intlist_varargs(args, keyword=None, name="size", fn=None):
    """`view(2, 3)`, `view((2, 3))` and `view(size=(2, 3))` all give (2, 3); `fn`, the
    binding's name when it has no other overload: `x.reshape()` is torch's TypeError."""
    if keyword is not None:
        if args:
            raise TypeError(f"got multiple values for argument '{name}'")
        return keyword
    if not args and fn is not None:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "{name}"')
    if len(args) == 1 and type(args[0]) is not int and not isinstance(args[0], np.integer) \
            and not (isinstance(args[0], Tensor) and args[0].dim() == 0):
        return args[0]
    return args


def _is_int(x):
    if type(x) is int:
        return True
    return (isinstance(x, (int, np.integer)) and not isinstance(x, bool)) or is_symint(x) or (
        isinstance(x, Tensor) and x.dim() == 0 and not x.is_floating_point() and x.dtype.name != "bool")


def _is_number(x):
    return isinstance(x, (numbers.Number, np.number, np.bool_)) or is_sym_scalar(x) or (
        isinstance(x, Tensor) and x.dim() == 0)


def _is_int_list(x):
    if isinstance(x, (list, tuple)):
        for v in x:
            if type(v) is not int and not _is_int(v):
                return False
        return True
    return _is_int(x)


def _is_tensor_list(x, optional=False):
    return isinstance(x, (list, tuple)) and all(
        isinstance(v, Tensor) or (optional and v is None) for v in x)


_BASE = {
    "Tensor": lambda x: isinstance(x, Tensor),
    "Tensor|number": lambda x: isinstance(x, Tensor) or _is_number(x),
    "int": _is_int, "SymInt": _is_int,
    # (torch's parser takes a bool for a double, as Python's int: quantile(t, True))
    "float": lambda x: _is_number(x) and not isinstance(x, (complex, np.complexfloating)),
    "bool": lambda x: isinstance(x, (bool, np.bool_)),
    "str": lambda x: isinstance(x, str),
    "Scalar": _is_number,
    "ScalarType": lambda x: isinstance(x, _dtype),
    "Device": lambda x: isinstance(x, (_device, str, int)),
    "Layout": lambda x: True,
    "MemoryFormat": lambda x: True,
    "Generator": lambda x: hasattr(x, "_bit_generator") or hasattr(x, "manual_seed"),
    "Tensor[]": _is_tensor_list,
    "Tensor?[]": lambda x: _is_tensor_list(x, True),
}


class _Fits(dict):
    """type string -> predicate, built on first use: 'int[2]?' -> None or int list."""

    def __missing__(self, t):
        if t in _BASE:
            f = _BASE[t]
        elif t.endswith("?"):
            inner = self[t[:-1]]
            f = lambda x, inner=inner: x is None or inner(x)
        elif t.endswith("]") and t.split("[")[0] in ("int", "SymInt"):
            f = _is_int_list
        elif t.endswith("]") and t.split("[")[0] in ("float", "bool", "Scalar"):
            elem = self[t.split("[")[0]]
            f = lambda x, elem=elem: isinstance(x, (list, tuple)) and all(map(elem, x))
        else:
            f = lambda x: True
        self[t] = f
        return f


FITS = _Fits()


def _describe(x):
    if isinstance(x, Tensor):
        return "Tensor"
    return type(x).__name__


def not_tensor(name, arg, position, value) -> TypeError:
    """torch's error for a non-tensor where a binding takes only tensors.

    >>> not_tensor("maximum", "other", 2, 2)
    TypeError("maximum(): argument 'other' (position 2) must be Tensor, not int")
    """
    return TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, "
                     f"not {_describe(value)}")


def resolve(cases, args, kwargs, name, schemas):
    """Calls the first overload whose matcher accepts (args, kwargs). Cases whose arity
    or keyword names cannot fit are skipped without calling (and failing) the matcher."""
    for match, call, max_positional, keywords in cases:
        if (max_positional is not None and len(args) > max_positional) or (
                kwargs and not keywords.issuperset(kwargs)):
            continue
        try:
            bound = match(*args, **kwargs)
        except TypeError:
            continue
        if bound is not None:
            return call(*bound)
    given = ", ".join([_describe(a) for a in args] + [f"{k}={_describe(v)}" for k, v in kwargs.items()])
    options = "\n".join(f" * {s}" for s in schemas)
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({given}), "
                    f"but expected one of:\n{options}")


def out_options(out, dtype, device):
    """`out` of a factory's out= call, after torch's checks that the dtype and device
    given agree with out's (`ember.zeros(2, out=t, dtype=...)`)."""
    if dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"dtype {dtype.scalar_name} does not match dtype of out parameter "
                           f"({out.dtype.scalar_name})")
    if device is not None:
        dev = device if isinstance(device, _device) else _device(device)
        if dev.type != out.device.type:
            raise RuntimeError(f"device type {dev.type} does not match device type of out "
                               f"parameter ({out.device.type})")
    return out


def arg_error(op, args) -> TypeError:
    """The TypeError for a call whose tensor arguments were not tensors."""
    schema = op.schema
    for i, (a, v) in enumerate(zip(schema.arguments.flat(), args)):
        t = str(a.type)
        if a.type.is_tensor_like():
            check = "Tensor|number" if t == "Tensor" and "pointwise" in op.tags and i else t
            if not FITS[check](v):
                name = "input" if a.name == "self" else a.name    # (the public functions')
                return TypeError(f"{op.name}(): argument '{name}' (position {i + 1}) must be "
                                 f"{t}, not {_describe(v)}\n  schema: {op._schema_str}")
    return TypeError(f"{op.name}(): invalid arguments\n  schema: {op._schema_str}")


def bind_first_match(ops, args, kwargs, name):
    """For OpOverloadPacket calls: the first overload whose schema accepts the arguments."""
    for op in ops:
        try:
            bound = op._bind(*args, **kwargs)
        except TypeError:
            continue
        ok = True
        for i, (a, v) in enumerate(zip(op.schema.arguments.flat(), bound)):
            t = str(a.type)
            if t == "Tensor" and "pointwise" in op.tags and i:
                t = "Tensor|number"
            if not FITS[t](v):
                ok = False
                break
        if ok:
            return op, bound
    raise TypeError(f"{name}() received an invalid combination of arguments; expected one of:\n"
                    + "\n".join(f" * {op._schema_str}" for op in ops))


def wrap_number(x, like: Tensor | None = None):
    """A Python number as a 0-dim "wrapped number" tensor on `like`'s device, or the CPU
    (reflected dunders: `2 - t`; autograd reading `.shape` of a number given for a Tensor).
    Like torch's, it holds the exact value (int64, float64 or bool) and promotes as a
    Python number would (ember.core.dtype.result_type)."""
    if isinstance(x, Tensor):
        return x
    dt = wrapped_number_dtype(x)
    if like is None or like.device.type == "cpu":
        t = from_array(np.array(x, dt.np), dt)
    else:
        t = _all_namespaces.aten.scalar_tensor.default._entry(x, dt, None, like.device, None)
    t._wrapped_number = True
    return t
