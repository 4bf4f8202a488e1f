"""`Interpreter` runs a GraphModule node by node; `Transformer` builds a new one.

Override the per-opcode methods (`call_function`, `call_module`, ...) to observe or
change what each node does:

    >>> class NegRelu(Transformer):
    ...     def call_function(self, target, args, kwargs):
    ...         if target is ember.relu:
    ...             return super().call_function(ember.neg, args, kwargs)
    ...         return super().call_function(target, args, kwargs)
    >>> gm = ember.fx.symbolic_trace(lambda x: ember.relu(x))
    >>> NegRelu(gm).transform()(ember.tensor([1., -2.]))
    tensor([-1.,  2.])
"""
from __future__ import annotations

from typing import Any

from .graph import Graph
from .graph_module import GraphModule
from .node import Node, _fetch_attr, map_aggregate, map_arg
from .proxy import Proxy, TracerBase


class Interpreter:
    """`Interpreter(module).run(*args)` executes the module's graph in Python, one node
    at a time; values are dropped after their last use (`garbage_collect_values`)."""

    def __init__(self, module, garbage_collect_values: bool = True, graph: Graph | None = None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env: dict[Node, Any] = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        self.user_to_last_uses: dict[Node, list[Node]] = {}
        if garbage_collect_values:
            seen: set = set()
            for node in reversed(self.graph.nodes):
                for n in node.all_input_nodes:
                    if n not in seen:
                        seen.add(n)
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env: dict | None = None, enable_io_processing: bool = True):
        """The graph's result for these inputs."""
        self.env = dict(initial_env or {})
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    msg = f"While executing {node.format_node()}"
                    if node.stack_trace:
                        msg += f"\nOriginal traceback:\n{node.stack_trace}"
                    e.add_note(msg)
                raise
            if self.garbage_collect_values:
                for dead in self.user_to_last_uses.get(node, []):
                    self.env.pop(dead, None)
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list: list):
        """`run` over a list that it empties (so the caller holds no references)."""
        args = list(args_list)
        args_list.clear()
        return self.run(*args)

    def run_node(self, n: Node) -> Any:
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # --- one method per opcode -----------------------------------------------------------
    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Any:
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but "
                               "one was not passed in!") from None

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Any:
        return self.fetch_attr(target)

    def call_function(self, target, args: tuple, kwargs: dict) -> Any:
        return target(*args, **kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict) -> Any:
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Any:
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args: tuple, kwargs: dict) -> Any:
        return args[0]

    # --- helpers -------------------------------------------------------------------------------
    def fetch_attr(self, target: str):
        return _fetch_attr(self.module, target)

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n: Node):
        def load(a: Node):
            if a not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {a}! Run "
                                   "Graph.lint() to diagnose such issues")
            return self.env[a]
        return map_arg(args, load)


class _TransformerTracer(TracerBase):
    def __init__(self, graph: Graph):
        self.graph = graph
        self.tensor_attrs: dict = {}

    def is_leaf_module(self, _, __) -> bool:
        return True


class Transformer(Interpreter):
    """Runs the graph on Proxies, re-recording each node into a new graph: override the
    opcode methods to rewrite nodes; `transform()` returns the new GraphModule."""

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        if args:        # the placeholder's default value
            return Proxy(self.new_graph.placeholder(target, default_value=args[0]), self.tracer)
        return Proxy(self.new_graph.placeholder(target), self.tracer)

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_function(self, target, args: tuple, kwargs: dict) -> Any:
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict) -> Any:
        return self.tracer.create_proxy("call_method", target, args, kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Any:
        return self.tracer.create_proxy("call_module", target, args, kwargs)

    def run_node(self, n: Node) -> Any:
        result = super().run_node(n)
        if isinstance(result, Proxy) and n.op != "output":
            result.node.meta = dict(n.meta)
        return result

    def transform(self) -> GraphModule:
        result = super().run(enable_io_processing=False)
        if result is not None:
            def strip(a):
                return a.node if isinstance(a, Proxy) else a
            self.new_graph.output(map_aggregate(result, strip))
        return GraphModule(self.module, self.new_graph)


__all__ = ["Interpreter", "Transformer"]
