"""`Proxy`: the stand-in value a traced program computes with; every operation on it
records a Node. `TracerBase` turns Python values into node arguments.

    >>> g = Graph()
    >>> t = TracerBase()
    >>> t.graph = g
    >>> x = Proxy(g.placeholder("x"), t)
    >>> y = (x + 1).relu()
    >>> [n.op for n in g.nodes]
    ['placeholder', 'call_function', 'call_method']
"""
from __future__ import annotations

import dis
import inspect
import operator
import traceback
from collections.abc import Callable
from typing import Any

from .graph import Graph
from .node import Node, map_aggregate


class TraceError(ValueError):
    pass


class TracerBase:
    """Records nodes into `self.graph`; subclasses decide how values become arguments."""

    graph: Graph
    record_stack_traces: bool = False

    def create_node(self, kind: str, target, args: tuple, kwargs: dict,
                    name: str | None = None, type_expr: Any = None) -> Node:
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node: Node) -> Proxy:
        return Proxy(node, self)

    def create_proxy(self, kind: str, target, args, kwargs, name: str | None = None,
                     type_expr: Any = None,
                     proxy_factory_fn: Callable[[Node], Proxy] | None = None) -> Proxy:
        """A node for `target(*args, **kwargs)` (arguments through `create_arg`), wrapped
        in a Proxy."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        proxy = self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)
        if self.record_stack_traces and not node.stack_trace:
            node.stack_trace = _user_stack()
        return proxy

    def create_arg(self, a: Any) -> Any:
        """A Python value as a node argument: Proxies become their nodes, containers are
        mapped, literals, dtypes and devices stay; anything else is an error."""
        import ember
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, tuple):
            args = tuple(self.create_arg(e) for e in a)
            return type(a)(*args) if hasattr(a, "_fields") else type(a)(args)
        if isinstance(a, list):
            return [self.create_arg(e) for e in a]
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                if not isinstance(k, str):
                    raise NotImplementedError(f"dictionaries with non-string keys: {a}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if a is None or a is ... or isinstance(a, (str, int, float, bool, complex,
                                                    ember.dtype, ember.device,
                                                    type(ember.contiguous_format))):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj: Proxy) -> bool:
        raise TraceError("symbolically traced variables cannot be used as inputs to "
                         "control flow")

    def iter(self, obj: Proxy):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the "
                         "Proxy is used in a loop or as a *args or **kwargs function "
                         "argument. See the ember.fx docs for a more detailed explanation "
                         "of what types of control flow can be traced, and check out the "
                         "Proxy docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj: Proxy):
        return Attribute(obj, "keys")()


def _user_stack() -> str:
    """The traced program's frames (not ember's own) as a traceback string."""
    frames = [f for f in traceback.extract_stack()[:-1]
              if "/ember/fx/" not in f.filename and "/ember/nn/modules/" not in f.filename]
    return "".join(traceback.format_list(frames[-4:]))


class Proxy:
    """A value being traced. Operators, method calls and ember functions on it record
    nodes; `bool(proxy)`, `len(proxy)` and loops over it cannot be traced."""

    def __init__(self, node: Node, tracer: TracerBase | None = None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> Attribute:
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)    # protocol probes (copy, pickle) are not traced
        return Attribute(self, k)

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        frame = inspect.currentframe().f_back
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti:
                if inst.opname == "UNPACK_SEQUENCE":
                    return (self[i] for i in range(inst.argval))
                break
        return self.tracer.iter(self)

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you "
                           "want this call to be recorded, please call ember.fx.wrap('len') "
                           "at module scope")

    def keys(self):
        return self.tracer.keys(self)

    def __deepcopy__(self, memo):
        raise TraceError("a Proxy cannot be deep-copied while tracing")

    @classmethod
    def __torch_function__(cls, orig_method, types, args=(), kwargs=None):
        """ember functions on proxies record call_function; Tensor methods call_method."""
        kwargs = kwargs or {}
        tracers: dict = {}
        map_aggregate((args, kwargs),
                      lambda a: tracers.setdefault(a.tracer, None) if isinstance(a, Proxy)
                      else None)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers)} while "
                               f"trying to trace operations {orig_method}")
        tracer = next(iter(tracers))
        from ember.core.tensor import Tensor
        name = getattr(orig_method, "__name__", None)
        if name is not None and getattr(Tensor, name, None) is orig_method:
            return tracer.create_proxy("call_method", name, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs)


class Attribute(Proxy):
    """`proxy.attr`: a getattr node made only when used as a value; called, it is a
    call_method node instead."""

    def __init__(self, root: Proxy, attr: str):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node: Node | None = None

    @property
    def node(self) -> Node:
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


class GraphAppendingTracer(TracerBase):
    """The tracer of a Proxy made directly over a Graph's node: appends to that graph."""

    def __init__(self, graph: Graph):
        self.graph = graph


_MAGIC = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift",
          "and_", "or_", "xor", "matmul", "getitem", "eq", "ne", "lt", "gt", "le", "ge",
          "neg", "pos", "invert", "abs")
_REFLECTABLE = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift",
                "rshift", "and_", "or_", "xor", "matmul")


def _dunder(name: str) -> str:
    return f"__{name.rstrip('_')}__"


def _install_magic_methods() -> None:
    for name in _MAGIC:
        target = getattr(operator, name)

        def method(*args, _target=target):
            tracer = args[0].tracer
            return tracer.create_proxy("call_function", _target, args, {})
        method.__name__ = _dunder(name)
        setattr(Proxy, _dunder(name), method)
    for name in _REFLECTABLE:
        target = getattr(operator, name)

        def reflected(self, rhs, _target=target):
            return self.tracer.create_proxy("call_function", _target, (rhs, self), {})
        reflected.__name__ = f"__r{name.rstrip('_')}__"
        setattr(Proxy, reflected.__name__, reflected)


_install_magic_methods()

__all__ = ["Attribute", "GraphAppendingTracer", "Proxy", "TraceError", "TracerBase"]
