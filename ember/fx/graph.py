"""`Graph`: a list of Nodes in execution order, and the Python code it stands for.

    >>> import operator
    >>> g = Graph()
    >>> x = g.placeholder("x")
    >>> g.output(g.call_function(operator.mul, (x, 2)))
    output
    >>> print(g.python_code("self").src.strip())
    def forward(self, x):
        mul = x * 2;  x = None
        return mul
"""
from __future__ import annotations

import builtins
import contextlib
import importlib
import inspect
import keyword
import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .node import Node, _fetch_attr, _qualified_name, map_arg

# operator functions written as Python syntax in generated code
_BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
           operator.floordiv: "//", operator.mod: "%", operator.pow: "**",
           operator.matmul: "@", operator.lshift: "<<", operator.rshift: ">>",
           operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.eq: "==",
           operator.ne: "!=", operator.lt: "<", operator.le: "<=", operator.gt: ">",
           operator.ge: ">="}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}


def _snake_case(s: str) -> str:
    """`ReLU` -> `re_lu`, `conv2d` stays: how torch.fx names nodes of callables."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower()


class _Namespace:
    """Unique, legal Python names for the nodes of one graph (`add`, `add_1`, `sum_1`)."""

    def __init__(self):
        self._used: set[str] = set()
        self._base_count: dict[str, int] = {}
        self._by_obj: dict[int, str] = {}

    def create_name(self, candidate: str, obj: Any = None) -> str:
        if obj is not None and id(obj) in self._by_obj:
            return self._by_obj[id(obj)]
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        m = re.match(r"(.*)_(\d+)$", candidate)
        base, num = (m.group(1), int(m.group(2))) if m else (candidate, None)
        if num is None:
            num = self._base_count.get(base)
            if num is not None:     # `base` was taken before: continue after its suffix
                num += 1
                candidate = f"{base}_{num}"
        while candidate in self._used or self._illegal(candidate):
            num = (num or 0) + 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._base_count[base] = num or 0
        if obj is not None:
            self._by_obj[id(obj)] = candidate
        return candidate

    def associate_name_with_obj(self, name: str, obj: Any) -> None:
        self._by_obj[id(obj)] = name

    @staticmethod
    def _illegal(name: str) -> bool:
        return keyword.iskeyword(name) or name in builtins.__dict__ or name in (
            "ember", "self", "inf", "nan", "device")


@dataclass
class PythonCode:
    """The source of a graph's `forward` and the globals it needs."""
    src: str
    globals: dict[str, Any]


class _NodeList:
    """The nodes of a graph, iterable forwards and (`reversed`) backwards."""

    def __init__(self, graph: Graph, direction: str = "_next"):
        self._graph, self._dir = graph, direction

    def __len__(self) -> int:
        return self._graph._len

    def __iter__(self):
        root, d = self._graph._root, self._dir
        cur = getattr(root, d)
        while cur is not root:
            nxt = getattr(cur, d)
            if not cur._erased:
                yield cur
            cur = nxt

    def __reversed__(self):
        return iter(_NodeList(self._graph, "_prev" if self._dir == "_next" else "_next"))

    def __repr__(self) -> str:
        return repr(list(self))


class Graph:
    """The nodes of one traced program. Build with `placeholder`, `get_attr`,
    `call_function`, `call_method`, `call_module` and `output`; nodes are inserted at the
    insertion point (the end, or as set by `inserting_before/after`)."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owners = 0
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod) -> None:
        self._owning_module = mod

    @property
    def nodes(self) -> _NodeList:
        return _NodeList(self)

    def find_nodes(self, *, op: str, target=None, sort: bool = True) -> list[Node]:
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # --- building -----------------------------------------------------------------------
    def create_node(self, op: str, target, args: tuple | None = None,
                    kwargs: dict | None = None, name: str | None = None,
                    type_expr: Any = None) -> Node:
        """A new node at the insertion point, named `name` or after its target."""
        args = () if args is None else tuple(args)
        kwargs = {} if kwargs is None else dict(kwargs)
        candidate = name if name is not None else self._target_to_str(target)
        node = Node(self, self._graph_namespace.create_name(candidate, None), op, target,
                    args, kwargs, type_expr)
        self._insert(node)
        self._len += 1
        return node

    def placeholder(self, name: str, type_expr: Any = None,
                    default_value: Any = inspect.Signature.empty) -> Node:
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr: Any = None) -> Node:
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable, args=None, kwargs=None,
                      type_expr=None) -> Node:
        return self.create_node("call_function", the_function, args, kwargs,
                                type_expr=type_expr)

    def output(self, result, type_expr: Any = None) -> Node:
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    @staticmethod
    def _target_to_str(target) -> str:
        if isinstance(target, str):
            return target.replace(".", "_") if not target.startswith("*") else target[1:]
        from ember.dispatch.dispatcher import OpOverload
        if isinstance(target, OpOverload):
            return target.name
        return _snake_case(getattr(target, "__name__", type(target).__name__))

    @contextlib.contextmanager
    def inserting_before(self, n: Node | None = None):
        """New nodes go just before `n` (the start of the graph when None)."""
        old = self._insert
        self._insert = (n if n is not None else self._root._next).prepend
        try:
            yield
        finally:
            self._insert = old

    @contextlib.contextmanager
    def inserting_after(self, n: Node | None = None):
        """New nodes go just after `n`, in order (the end of the graph when None)."""
        old = self._insert
        self._insert = (n._next if n is not None else self._root).prepend
        try:
            yield
        finally:
            self._insert = old

    def erase_node(self, to_erase: Node) -> None:
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    def node_copy(self, node: Node, arg_transform: Callable[[Node], Any] = lambda x: x) -> Node:
        """A copy of `node` (from any graph) with its node arguments mapped."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        name = node.name if node.op != "output" else None
        result = self.create_node(node.op, node.target, args, kwargs, name, node.type)
        result.meta = dict(node.meta)
        return result

    def graph_copy(self, g: Graph, val_map: dict, return_output_node: bool = False):
        """Copies every node of `g` except its output into this graph; returns the value
        the output node returned (mapped), or the output node itself."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        g = Graph(tracer_cls=self._tracer_cls)
        out = g.graph_copy(self, {}, return_output_node=True)
        if out is not None:
            rv, old_out = out
            g.output(rv, type_expr=old_out.type).meta = dict(old_out.meta)
        return g

    # --- passes ---------------------------------------------------------------------------
    def eliminate_dead_code(self, is_impure_node: Callable[[Node], bool] | None = None) -> bool:
        """Erases nodes without users that have no side effect; True if any went."""
        impure = is_impure_node or (lambda n: n.is_impure())
        changed = False
        for node in reversed(self.nodes):
            if not node.users and not impure(node):
                self.erase_node(node)
                changed = True
        return changed

    def lint(self) -> None:
        """Checks the graph: each node used after its definition, once in the list,
        unique names, targets that exist on the owning module."""
        seen: set = set()
        names: set = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not reference its owning graph!")
            if node.op not in ("placeholder", "get_attr", "call_function", "call_method",
                               "call_module", "output"):
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            for arg in node.all_input_nodes:
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before "
                                       "it has been defined! Please check that Nodes in the "
                                       "graph are topologically ordered")
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen.add(node)
            names.add(node.name)
            mod = self._owning_module
            if mod is not None and node.op in ("get_attr", "call_module"):
                _fetch_attr(mod, node.target)

    def print_tabular(self) -> None:
        """Prints opcode, name, target, args and kwargs of each node as a table."""
        from tabulate import tabulate
        rows = [[n.op, n.name, _qualified_name(n.target) if n.op == "call_function"
                 else n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))

    def __str__(self) -> str:
        ret = [""]
        lines = [n.format_node(None, ret) for n in self.nodes]
        body = "\n".join("    " + line for line in lines if line)
        return f"graph(){ret[0]}:\n{body}"

    # --- code -------------------------------------------------------------------------------
    def python_code(self, root_module: str) -> PythonCode:
        """The source of `forward(self, ...)` running this graph, and its globals."""
        return _CodeGen(self, root_module).run()



class _CodeGen:
    """Writes a graph as straight-line Python; each value is freed after its last use."""

    def __init__(self, graph: Graph, root: str):
        self.graph, self.root = graph, root
        self.globals: dict[str, Any] = {"inf": math.inf, "nan": math.nan}
        self.names = _Namespace()
        for n in graph.nodes:
            self.names._used.add(n.name)

    def _global(self, obj, hint: str) -> str:
        for name, value in self.globals.items():
            if value is obj:
                return name
        name = self.names.create_name(f"_{hint}")
        self.globals[name] = obj
        return name

    def callable_name(self, target) -> str:
        """A dotted name that reaches `target` from a module kept in globals, or a global
        holding the object itself."""
        qual = _qualified_name(target)
        if qual.startswith("builtins.") and getattr(builtins, qual[9:], None) is target:
            return qual[9:]
        head, *rest = qual.split(".")
        if rest:
            try:
                obj = importlib.import_module(head)
                for part in rest:
                    obj = getattr(obj, part)
            except (ImportError, AttributeError):
                obj = None
            if obj is target:
                self.globals[head] = importlib.import_module(head)
                return qual
        elif getattr(builtins, qual, None) is target:
            return qual
        return self._global(target, getattr(target, "__name__", "fn"))

    def arg(self, a) -> str:
        import ember
        if isinstance(a, Node):
            return a.name
        if isinstance(a, tuple):
            items = ", ".join(self.arg(x) for x in a)
            plain = f"({items},)" if len(a) == 1 else f"({items})"
            if type(a) is tuple or isinstance(a, ember.Size):
                return plain
            maker = self._global(type(a), type(a).__name__)    # a namedtuple or subclass
            return f"{maker}._make({plain})" if hasattr(a, "_fields") else f"{maker}({plain})"
        if isinstance(a, list):
            return "[" + ", ".join(self.arg(x) for x in a) + "]"
        if isinstance(a, dict):
            return "{" + ", ".join(f"{k!r}: {self.arg(v)}" for k, v in a.items()) + "}"
        if isinstance(a, slice):
            return f"slice({self.arg(a.start)}, {self.arg(a.stop)}, {self.arg(a.step)})"
        if isinstance(a, float) and (math.isinf(a) or math.isnan(a)):
            return ("-inf" if a < 0 else "inf") if math.isinf(a) else "nan"
        if a is None or a is Ellipsis or isinstance(a, (bool, int, float, complex, str)):
            return repr(a)
        if isinstance(a, (ember.dtype, type(ember.contiguous_format))):
            self.globals["ember"] = ember
            return f"ember.{a.name}"
        if isinstance(a, ember.device):
            self.globals["ember"] = ember
            return f"ember.device({str(a)!r})"
        return self._global(a, type(a).__name__)

    def args_kwargs(self, args, kwargs) -> str:
        parts = [self.arg(a) for a in args] + [f"{k} = {self.arg(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def attr_ref(self, target: str) -> str:
        expr = self.root
        for atom in target.split("."):
            expr = f"{expr}.{atom}" if atom.isidentifier() and not keyword.iskeyword(atom) \
                else f'getattr({expr}, "{atom}")'
        return expr

    def statement(self, n: Node) -> str | None:
        if n.op == "placeholder":
            return None
        if n.op == "get_attr":
            return f"{n.name} = {self.attr_ref(n.target)}"
        if n.op == "call_module":
            return f"{n.name} = {self.attr_ref(n.target)}({self.args_kwargs(n.args, n.kwargs)})"
        if n.op == "call_method":
            obj, *rest = n.args
            return f"{n.name} = {self.arg(obj)}.{n.target}({self.args_kwargs(rest, n.kwargs)})"
        if n.op == "output":
            return f"return {self.arg(n.args[0])}"
        t = n.target
        if not n.kwargs and t in _BINARY and len(n.args) == 2:
            return f"{n.name} = {self.arg(n.args[0])} {_BINARY[t]} {self.arg(n.args[1])}"
        if not n.kwargs and t in _UNARY and len(n.args) == 1:
            return f"{n.name} = {_UNARY[t]}{self.arg(n.args[0])}"
        if t is operator.getitem and not n.kwargs and len(n.args) == 2:
            return f"{n.name} = {self.arg(n.args[0])}[{self.arg(n.args[1])}]"
        if t is getattr and len(n.args) == 2 and isinstance(n.args[1], str) and \
                n.args[1].isidentifier():
            return f"{n.name} = {self.arg(n.args[0])}.{n.args[1]}"
        return f"{n.name} = {self.callable_name(t)}({self.args_kwargs(n.args, n.kwargs)})"

    def run(self) -> PythonCode:
        nodes = list(self.graph.nodes)
        seen: set[Node] = set()
        frees: dict[Node, list[Node]] = {}      # node -> the values it uses last
        for n in reversed(nodes):
            for i in n.all_input_nodes:
                if i not in seen:
                    seen.add(i)
                    frees.setdefault(n, []).append(i)
        params, body = [], []
        for n in nodes:
            if n.op == "placeholder":
                default = f" = {self.arg(n.args[0])}" if n.args else ""
                params.append(f"{n.target}{default}" if not n.target.startswith("*")
                              else n.target)
                if n.name != n.target.lstrip("*"):     # `input` is a builtin: input_1
                    body.append(f"{n.name} = {n.target.lstrip('*')}")
                continue
            line = self.statement(n)
            dead = [v.name for v in frees.get(n, []) if n.op != "output"]
            if n.op != "output" and not n.users:
                dead.append(n.name)
            if dead:
                line += f";  {' = '.join(dead)} = None"
            body.append(line)
        if not any(n.op == "output" for n in nodes):
            body.append("return None")
        src = f"\n\n\ndef forward({', '.join([self.root] + params)}):\n"
        src += "".join(f"    {line}\n" for line in body or ["pass"])
        return PythonCode(src + "    ", self.globals)


__all__ = ["Graph", "PythonCode"]
