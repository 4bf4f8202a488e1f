"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.

    >>> net = nn.Sequential(nn.Linear(4, 8), nn.Identity(), nn.Linear(8, 2))
    >>> net[0], len(net), net[1:]
    (Linear(in_features=4, out_features=8, bias=True), 3, Sequential(
      (1): Identity()
      (2): Linear(in_features=8, out_features=2, bias=True)
    ))
"""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from ...core.tensor import Tensor
from ..parameter import Parameter
from .module import Module, _addindent

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


def _checked_index(idx, size: int) -> int:
    """`idx` (negative counts from the end) as a position in [0, size), or torch's IndexError."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class _ModuleSequence(Module):
    """What Sequential and ModuleList share: positional access to `_modules`."""

    def _key_at(self, idx) -> str:
        return list(self._modules)[_checked_index(idx, len(self._modules))]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self._slice(idx)
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx, module) -> None:
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)[idx] if isinstance(idx, slice) else [self._key_at(idx)]
        for key in keys:
            delattr(self, key)
        self._modules = dict(zip(map(str, range(len(self._modules))), self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def pop(self, key):
        """Removes and returns the module at `key` (an index or slice)."""
        v = self[key]
        del self[key]
        return v

    def append(self, module):
        """Adds `module` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module) -> None:
        """Inserts `module` before position `index`."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")  # noqa: TRY004 (torch's)
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self


class Sequential(_ModuleSequence):
    """Runs its modules one after the other: `Sequential(m0, m1, ...)` or
    `Sequential(OrderedDict(name=module, ...))`."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _slice(self, idx):
        return type(self)(OrderedDict(list(self._modules.items())[idx]))

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def extend(self, sequential):
        """Appends every module of `sequential`; returns self."""
        for layer in sequential:
            self.append(layer)
        return self

    def _check_sequential(self, other):
        if not isinstance(other, Sequential):  # torch raises ValueError here
            raise ValueError(  # noqa: TRY004
                f"add operator supports only objects of Sequential class, but {type(other)} is "
                "given.")

    def __add__(self, other):
        self._check_sequential(other)
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other):
        self._check_sequential(other)
        return self.extend(other)

    def __mul__(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        return Sequential().extend(list(self) * other)

    __rmul__ = __mul__

    def __imul__(self, other):
        repeated = self * other
        return self.extend(list(repeated)[len(self):])


class ModuleList(_ModuleSequence):
    """A list of modules, registered as submodules '0', '1', ..."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def _slice(self, idx):
        return type(self)(list(self._modules.values())[idx])

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList([*self, *other])

    def extend(self, modules):
        """Appends every module of the iterable `modules`; returns self."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        for module in modules:
            self.append(module)
        return self

    def __repr__(self):
        """Like torch's: runs of equal reprs are shown once, as '(2-4): 3 x Linear(...)'."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []  # [first index, last index, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [_addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2)
                 for a, b, r in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules, registered as submodules under their keys."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str):
        return self._modules[key]

    def __setitem__(self, key: str, module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        """Adds (or replaces) entries from a mapping or an iterable of (key, module) pairs."""
        _update_pairs(self, modules, "ModuleDict")


def _update_pairs(target, entries, kind: str, name_in_error=None) -> None:
    """`target[key] = value` for each entry of a mapping or of an iterable of pairs.
    ParameterDict (like torch's) sorts the keys of plain, unordered mappings."""
    if not isinstance(entries, Iterable):
        raise TypeError(f"{name_in_error or kind}.update should be called with an iterable of "
                        f"key/value pairs, but got {type(entries).__name__}")
    if isinstance(entries, (Mapping, ModuleDict, ParameterDict)):
        items = entries.items()
        if kind == "ParameterDict" and not isinstance(entries, (OrderedDict, ParameterDict)):
            items = sorted(items)
        for key, value in items:
            target[key] = value
        return
    for j, pair in enumerate(entries):
        if not isinstance(pair, Iterable):
            raise TypeError(f"{kind} update sequence element #{j} should be Iterable; is"
                            f"{type(pair).__name__}")
        if len(pair) != 2:
            raise ValueError(f"{kind} update sequence element #{j} has length {len(pair)}; "
                             "2 is required")
        target[pair[0]] = pair[1]


def _as_parameter(value):
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) \
        else value


def _describe(value, type_name) -> str:
    """One line of ParameterList/ParameterDict's repr; `type_name(tensor)` names its type."""
    if not isinstance(value, Tensor):
        return "Object of type: " + type(value).__name__
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    size = "x".join(str(s) for s in value.size())
    device = f" ({value.device})" if value.device.type == "cuda" else ""
    return f"{kind} containing: [{type_name(value)} of size {size}{device}]"


class ParameterList(Module):
    """A list of parameters (tensors are wrapped in Parameter), registered as '0', '1', ..."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _key_at(self, idx) -> str:
        return str(_checked_index(idx, len(self)))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(len(self))[idx]])
        return getattr(self, self._key_at(idx))

    def __setitem__(self, idx, param) -> None:
        setattr(self, self._key_at(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, values):
        return self.extend(values)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, lambda t: t.dtype)}"
                         for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters (tensors are wrapped in Parameter)."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _check_key(key) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a "
                            f"string (type is '{type(key).__name__}'). Open an issue on github "
                            "if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._check_key(key))

    def __setitem__(self, key, value) -> None:
        self._check_key(key)
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key) -> None:
        del self._keys[key]
        delattr(self, self._check_key(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key) -> bool:
        return key in self._keys

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k = next(reversed(self._keys))
        return k, self.pop(k)

    def get(self, key, default=None):
        return self[key] if key in self._keys else default

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters) -> None:
        """Adds (or replaces) entries from a mapping or an iterable of (key, value) pairs."""
        _update_pairs(self, parameters, "ParameterDict", name_in_error="ParametersDict")

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, lambda t: t.type())}" for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")
