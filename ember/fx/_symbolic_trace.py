"""Symbolic tracing: run a Module's `forward` (or a function) on Proxies and record a Graph.

    >>> class Net(ember.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.l1 = ember.nn.Linear(3, 4)
    ...     def forward(self, x):
    ...         return ember.relu(self.l1(x)) + 1
    >>> gm = symbolic_trace(Net())
    >>> [(n.op, n.name) for n in gm.graph.nodes]
    [('placeholder', 'x'), ('call_module', 'l1'), ('call_function', 'relu'), ('call_function', 'add'), ('output', 'output')]
"""
from __future__ import annotations

import functools
import inspect
import math
import operator
from collections.abc import Callable
from typing import Any

from ember import nn
from ember.core.tensor import Tensor
from ember.overrides import objects_take_part

from .graph import Graph
from .graph_module import GraphModule
from .node import Node, map_aggregate
from .proxy import Proxy, TracerBase

# wrap(): (id of a module's globals, function name) -> that globals dict
_wrapped_fns_to_patch: dict[tuple[int, str], dict] = {}


def wrap(fn_or_name):
    """Called at a module's top level: calls of that module-level function are recorded
    as call_function nodes instead of being traced through (for functions with control
    flow on their inputs, `len`, ...). Returns its argument, so it also decorates."""
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    name = fn_or_name if isinstance(fn_or_name, str) else getattr(fn_or_name, "__name__", None)
    if not isinstance(name, str) or not name.isidentifier():
        raise AssertionError("wrap must be called with a function or the name of a function")
    _wrapped_fns_to_patch[(id(frame.f_globals), name)] = frame.f_globals
    return fn_or_name


def _assert(condition, message: str) -> None:
    """The guard symbolic_trace records for a concrete argument (ember's torch._assert)."""
    if not condition:
        raise AssertionError(message)


def _assert_is_none(value, message: str) -> None:
    if value is not None:
        raise AssertionError(message)


class _Patcher:
    """Sets attributes or dict entries for the duration of a trace, then restores them."""

    def __init__(self):
        self._undo: list[Callable[[], None]] = []
        self._seen: set = set()

    def patch(self, frame_dict: dict, name: str, new) -> None:
        key = (id(frame_dict), name)
        if key in self._seen:
            return
        self._seen.add(key)
        if name in frame_dict:
            old = frame_dict[name]
            self._undo.append(lambda: frame_dict.__setitem__(name, old))
        else:
            self._undo.append(lambda: frame_dict.pop(name, None))
        frame_dict[name] = new

    def patch_method(self, cls, name: str, new) -> None:
        old = cls.__dict__[name]
        self._undo.append(lambda: setattr(cls, name, old))
        setattr(cls, name, new)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        while self._undo:
            self._undo.pop()()


def _find_proxy(*objects) -> Proxy | None:
    found: list = []
    map_aggregate(objects, lambda a: found.append(a) if isinstance(a, Proxy) else None)
    return found[0] if found else None


def _recording(orig_fn):
    """`orig_fn`, but with Proxy arguments a call_function node is recorded instead."""
    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            return proxy.tracer.create_proxy("call_function", orig_fn, args, kwargs)
        return orig_fn(*args, **kwargs)
    return wrapped


class Tracer(TracerBase):
    """Turns a Module or function into a Graph. Override `is_leaf_module` to choose which
    submodules stay as call_module nodes (default: ember.nn's own, except Sequential)."""

    def __init__(self, autowrap_modules: tuple = (math,), autowrap_functions: tuple = (),
                 param_shapes_constant: bool = False):
        super().__init__()
        self._autowrap_function_ids = {
            id(value) for module in autowrap_modules for name, value in vars(module).items()
            if not name.startswith("_") and callable(value)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_functions = {id(f): f for module in autowrap_modules
                                    for f in vars(module).values() if callable(f)}
        self._autowrap_functions.update((id(f), f) for f in autowrap_functions)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict[int, str] | None = None
        self.root: nn.Module | None = None
        self.tensor_attrs: dict[int, str] = {}

    # --- overridable policy ---------------------------------------------------------------
    def is_leaf_module(self, m: nn.Module, module_qualified_name: str) -> bool:
        return (type(m).__module__.startswith("ember.nn")
                and not isinstance(m, nn.Sequential))

    def path_of_module(self, mod: nn.Module) -> str:
        path = self.submodule_paths.get(id(mod)) if self.submodule_paths else None
        if path is None:
            for name, m in self.root.named_modules():
                if m is mod:
                    return name
            raise NameError("module is not installed as a submodule")
        return path

    def call_module(self, m: nn.Module, forward: Callable, args: tuple, kwargs: dict):
        """A leaf module becomes one call_module node; others are traced through."""
        name = self.path_of_module(m)
        if not self.is_leaf_module(m, name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", name, args, kwargs)

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict):
        """A Parameter read from a module becomes a get_attr node (cached per trace)."""
        if isinstance(attr_val, nn.Parameter):
            for name, p in self.root.named_parameters():
                if attr_val is p:
                    if name not in parameter_proxy_cache:
                        parameter_proxy_cache[name] = self.create_proxy("get_attr", name,
                                                                        (), {})
                    return parameter_proxy_cache[name]
        return attr_val

    def create_arg(self, a: Any) -> Any:
        """Parameters and tensor attributes of the root become get_attr nodes; other
        tensors are stored on the root as `_tensor_constant<i>`."""
        if isinstance(a, nn.Parameter):
            for name, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", name, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, nn.Module):
            return self.create_node("get_attr", self.path_of_module(a), (), {})
        if isinstance(a, Tensor):
            name = self.tensor_attrs.get(id(a))
            if name is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                name = f"_tensor_constant{i}"
                setattr(self.root, name, a)
                self.tensor_attrs[id(a)] = name
            return self.create_node("get_attr", name, (), {})
        return super().create_arg(a)

    # --- tracing ----------------------------------------------------------------------------
    def trace(self, root, concrete_args: dict[str, Any] | None = None) -> Graph:
        """Runs `root` (a Module's forward, or a function) on Proxies; returns the Graph."""
        if isinstance(root, nn.Module):
            self.root = root
            fn = type(root).forward
            self.submodule_paths = {id(m): name for name, m in root.named_modules()}
        else:
            self.root = nn.Module()
            fn = root
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs = {}
        self._collect_tensor_attrs(self.root, [])
        fn_globals = getattr(fn, "__globals__", {})
        args = self._create_args_for_root(fn, isinstance(root, nn.Module), concrete_args)
        parameter_proxy_cache: dict = {}
        tracer = self
        orig_getattr = nn.Module.__getattr__
        orig_call = nn.Module.__call__

        def module_getattr_wrapper(mod, attr):
            return tracer.getattr(attr, orig_getattr(mod, attr), parameter_proxy_cache)

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*args, **kwargs):
                return orig_call(mod, *args, **kwargs)
            tracer._autowrap(patcher, getattr(getattr(mod, "forward", mod), "__globals__", {}))
            return tracer.call_module(mod, forward, args, kwargs)

        with _Patcher() as patcher, objects_take_part():
            patcher.patch_method(nn.Module, "__getattr__", module_getattr_wrapper)
            patcher.patch_method(nn.Module, "__call__", module_call_wrapper)
            for (_, name), globals_ in list(_wrapped_fns_to_patch.items()):
                orig = globals_.get(name)
                if orig is None:
                    import builtins
                    orig = getattr(builtins, name)
                patcher.patch(globals_, name, _recording(orig))
            self._autowrap(patcher, fn_globals)
            result = fn(root, *args) if isinstance(root, nn.Module) else fn(*args)
        self.create_node("output", "output", (self.create_arg(result),), {},
                         type_expr=getattr(fn, "__annotations__", {}).get("return"))
        self.submodule_paths = None
        return self.graph

    def _autowrap(self, patcher: _Patcher, globals_: dict) -> None:
        for name, value in list(globals_.items()):
            if not name.startswith("_") and id(value) in self._autowrap_function_ids:
                patcher.patch(globals_, name, _recording(value))

    def _collect_tensor_attrs(self, m: nn.Module, prefix: list[str]) -> None:
        for k, v in m.__dict__.items():
            if isinstance(v, Tensor):
                self.tensor_attrs.setdefault(id(v), ".".join([*prefix, k]))
        for name, buf in getattr(m, "_buffers", {}).items():
            if buf is not None:
                self.tensor_attrs.setdefault(id(buf), ".".join([*prefix, name]))
        for name, sub in getattr(m, "_modules", {}).items():
            if sub is not None:
                self._collect_tensor_attrs(sub, [*prefix, name])

    def _create_args_for_root(self, fn, is_module: bool, concrete_args) -> list:
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())[1 if is_module else 0:]
        concrete_args = dict(concrete_args or {})
        args: list = []
        for p in params:
            if p.name in concrete_args:
                args.append(self._concrete(p.name, concrete_args.pop(p.name)))
                continue
            if p.kind is p.VAR_KEYWORD:
                raise NotImplementedError("symbolic_trace of a function with **kwargs is not "
                                          "supported: pass concrete_args for them")
            name = f"*{p.name}" if p.kind is p.VAR_POSITIONAL else p.name
            default = () if p.default is p.empty else (p.default,)
            node = self.create_node("placeholder", name, default, {}, type_expr=(
                None if p.annotation is p.empty else p.annotation))
            proxy = self.proxy(node)
            if p.kind is p.VAR_POSITIONAL:
                raise NotImplementedError("symbolic_trace of a function with *args is not "
                                          "supported: pass concrete_args for them")
            args.append(proxy)
        if concrete_args:
            raise TypeError(f"concrete_args names parameters that {fn.__name__} does not "
                            f"have: {sorted(concrete_args)}")
        return args

    def _concrete(self, name: str, value):
        """A concrete argument: a placeholder is kept (same signature), the value is
        baked in, and a guard checks callers pass that same value."""
        node = self.create_node("placeholder", f"{name}_1", (), {})
        if value is None:
            self.create_proxy("call_function", _assert_is_none,
                              (self.proxy(node), (f"{name} has been specialized to have value "
                                                  "None but got another value")), {})
        elif isinstance(value, (bool, int, float, str)):
            eq = self.create_proxy("call_function", operator.eq, (self.proxy(node), value), {})
            self.create_proxy("call_function", _assert,
                              (eq, (f"{name} has been specialized to have value {value} but "
                                    "got another value")), {})
        return value


def symbolic_trace(root, concrete_args: dict[str, Any] | None = None) -> GraphModule:
    """Traces a Module or function into a GraphModule (torch.fx.symbolic_trace)."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, nn.Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


__all__ = ["Node", "Tracer", "symbolic_trace", "wrap"]
