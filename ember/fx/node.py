"""`Node`: one operation of an FX `Graph`, and the helpers that walk node arguments.

A node is one of six ops: `placeholder` (a function input), `get_attr` (a parameter,
buffer or constant of the module), `call_function`, `call_method`, `call_module` and
`output`. Its `args`/`kwargs` may hold other nodes; each node knows its `users`.

    >>> g = ember.fx.Graph()
    >>> x = g.placeholder("x")
    >>> y = g.call_function(operator.add, (x, 1))
    >>> list(x.users) == [y], y.all_input_nodes == [x]
    (True, True)
"""
from __future__ import annotations

import operator
import sys
from collections.abc import Callable
from typing import Any

OPS = ("placeholder", "get_attr", "call_function", "call_method", "call_module", "output",
       "root")

# Functions whose calls stay in a graph even when nothing uses their result.
_side_effectful_functions: set = set()


def has_side_effect(fn: Callable) -> Callable:
    """Marks `fn` as impure: `eliminate_dead_code` keeps calls to it (a decorator)."""
    _side_effectful_functions.add(fn)
    return fn


def map_aggregate(a: Any, fn: Callable) -> Any:
    """Applies `fn` to every leaf of nested tuples, lists, dicts and slices."""
    if isinstance(a, tuple):
        t = tuple(map_aggregate(e, fn) for e in a)
        return t if not hasattr(a, "_fields") else type(a)(*t)
    if isinstance(a, list):
        return [map_aggregate(e, fn) for e in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a: Any, fn: Callable[[Node], Any]) -> Any:
    """Applies `fn` to every Node inside the (nested) argument `a`.

    >>> map_arg((1, [2]), lambda n: n)
    (1, [2])
    """
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _collect_nodes(a, out: dict) -> None:
    map_arg(a, lambda n: out.setdefault(n, None))


def _type_repr(t) -> str:
    if isinstance(t, type):
        return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    return repr(t)


def _qualified_name(target) -> str:
    """How a call_function target prints: `operator.add`, `ember.relu`,
    `ember.ops.aten.mm.default`."""
    from ember.dispatch.dispatcher import OpOverload
    if isinstance(target, OpOverload):
        return f"ember.ops.{target._opname()}"
    if isinstance(target, str):
        return target
    name = getattr(target, "__name__", None) or repr(target)
    module = getattr(target, "__module__", None)
    if getattr(operator, name, None) is target:
        return f"operator.{name}"
    if module is None:
        return name
    # the public home of a function defined in a private module: ember.relu for
    # ember._generated.functions.relu, ember.nn.functional.relu for its _activation
    parts = module.split(".")
    public = next((i for i, p in enumerate(parts) if p.startswith("_")), len(parts))
    for i in range(public, 0, -1):
        home = sys.modules.get(".".join(parts[:i]))
        if home is not None and getattr(home, name, None) is target:
            return f"{'.'.join(parts[:i])}.{name}"
    return f"{module}.{name}"


class Node:
    """One operation in a Graph. Create nodes through Graph's methods."""

    def __init__(self, graph, name: str, op: str, target, args: tuple, kwargs: dict,
                 return_type=None):
        if op not in OPS:
            raise ValueError(f"unknown node op '{op}' (expected one of {OPS})")
        if op in ("call_method", "call_module", "get_attr", "placeholder") and \
                not isinstance(target, str):
            raise ValueError(f"Node target for op '{op}' must be a string, got {target!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target!r} has "
                             f"type {type(target)} but a Callable is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.type = return_type
        self.users: dict[Node, None] = {}
        self.meta: dict[str, Any] = {}
        self._input_nodes: dict[Node, None] = {}
        self._args: tuple = ()
        self._kwargs: dict = {}
        self._prev = self._next = self
        self._erased = False
        self._update_args_kwargs(args, kwargs)

    # --- arguments ------------------------------------------------------------------------
    @property
    def args(self) -> tuple:
        return self._args

    @args.setter
    def args(self, a) -> None:
        self._update_args_kwargs(tuple(a), self._kwargs)

    @property
    def kwargs(self) -> dict:
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k) -> None:
        self._update_args_kwargs(self._args, dict(k))

    @property
    def all_input_nodes(self) -> list[Node]:
        """The distinct nodes in args and kwargs, in order of appearance."""
        return list(self._input_nodes)

    def _update_args_kwargs(self, args, kwargs) -> None:
        for n in self._input_nodes:
            n.users.pop(self, None)
        self._args, self._kwargs = args, kwargs
        self._input_nodes = {}
        _collect_nodes(args, self._input_nodes)
        _collect_nodes(kwargs, self._input_nodes)
        for n in self._input_nodes:
            if n.graph is not self.graph:
                raise RuntimeError(f"Argument '{n}' of Node '{self}' was used before it has "
                                   "been defined! (it belongs to another graph)")
            n.users.setdefault(self, None)

    def update_arg(self, idx: int, arg) -> None:
        args = list(self._args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key: str, arg) -> None:
        self.kwargs = {**self._kwargs, key: arg}

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Uses `new_input` wherever this node's arguments use `old_input`."""
        def swap(n):
            return new_input if n is old_input else n
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def replace_all_uses_with(self, replace_with: Node, delete_user_cb=lambda user: True, *,
                              propagate_meta: bool = False) -> list[Node]:
        """Makes every user of this node use `replace_with` instead; returns those users."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, "
                                     "propagate_meta=True), but replace_with already has "
                                     "meta keys")
            replace_with.meta.update(self.meta)
        changed = [u for u in list(self.users) if delete_user_cb(u)]
        for user in changed:
            user.replace_input_with(self, replace_with)
        return changed

    # --- position -------------------------------------------------------------------------
    @property
    def next(self) -> Node:
        return self._next

    @property
    def prev(self) -> Node:
        return self._prev

    def prepend(self, x: Node) -> None:
        """Moves `x` to just before this node."""
        if x is self:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev, x._next, self._prev = x, p, self, x

    def append(self, x: Node) -> None:
        """Moves `x` to just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    # --- properties -------------------------------------------------------------------------
    @property
    def stack_trace(self) -> str | None:
        """Where the traced program made this node (set while tracing)."""
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace: str | None) -> None:
        self.meta["stack_trace"] = trace

    def is_impure(self) -> bool:
        """Placeholders, outputs, calls of functions marked with `has_side_effect`, of
        mutating aten overloads and of modules marked `_is_impure` stay in the graph even
        when unused (torch's rule: method calls and print do not)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            from ember.dispatch.dispatcher import OpOverload
            if isinstance(self.target, OpOverload):
                return "!" in self.target._schema_str    # it writes an argument
            return self.target in _side_effectful_functions
        if self.op == "call_module":
            mod = self.graph.owning_module
            sub = _fetch_attr(mod, self.target) if mod is not None else None
            return bool(getattr(sub, "_is_impure", False))
        return False

    # --- printing -----------------------------------------------------------------------------
    def __repr__(self) -> str:
        return self.name

    def format_node(self, placeholder_names: list | None = None,
                    maybe_return_typename: list | None = None) -> str | None:
        """The node as the graph prints it: `%add : [num_users=1] = call_function[...]`."""
        if self.op == "placeholder":
            if placeholder_names is not None:
                arg = self.target
                if self.args:
                    arg += f"={self.args[0]!r}"
                placeholder_names.append(arg)
                return None
            default = f"={self.args[0]!r}" if self.args else ""
            return (f"%{self.name} : [num_users={len(self.users)}] = "
                    f"placeholder[target={self.target}{default}]")
        if self.op == "get_attr":
            return (f"%{self.name} : [num_users={len(self.users)}] = "
                    f"get_attr[target={self.target}]")
        if self.op == "output":
            if self.type and maybe_return_typename is not None:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]!r}"
        target = _qualified_name(self.target) if self.op == "call_function" else self.target
        return (f"%{self.name} : [num_users={len(self.users)}] = {self.op}[target={target}]"
                f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")


def _format_arg(arg, max_list_len: float = float("inf")) -> str:
    if isinstance(arg, Node):
        return f"%{arg}"
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for a in arg)
        return f"({items},)" if len(arg) == 1 else f"({items})"
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    return str(arg)


def _fetch_attr(root, target: str):
    """`root.a.b.c` for target 'a.b.c', with torch's error when a part is missing."""
    obj = root
    for i, atom in enumerate(target.split(".")):
        if not hasattr(obj, atom):
            raise RuntimeError(f"Node referenced nonexistent target "
                               f"{'.'.join(target.split('.')[:i + 1])}")
        obj = getattr(obj, atom)
    return obj


Argument = Any
Target = Any
__all__ = ["Argument", "Node", "Target", "has_side_effect", "map_aggregate", "map_arg"]
