"""`GraphModule`: an `nn.Module` whose `forward` is the Python code generated from a Graph.

    >>> gm = ember.fx.symbolic_trace(lambda x: ember.relu(x) + 1)
    >>> print(gm.code.strip())
    def forward(self, x):
        relu = ember.relu(x);  x = None
        add = relu + 1;  relu = None
        return add
"""
from __future__ import annotations

import copy
import io
import linecache
import pickle
from pathlib import Path
from typing import Any

from ember import nn
from ember.core.tensor import Tensor

from .graph import Graph, PythonCode
from .node import _fetch_attr

_counter = [0]


def _exec_with_source(src: str, globals_: dict) -> None:
    """exec() with the source registered in linecache, so tracebacks show graph code."""
    _counter[0] += 1
    key = f"<eval_with_key>.{_counter[0]}"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)
    exec(compile(src, key, "exec"), globals_)  # noqa: S102 - the code a graph generated


def _assign_attr(from_obj, to_module, target: str) -> None:
    """Installs `from_obj` at the dotted path `target` under `to_module`, making empty
    Modules for the missing parents; a plain tensor becomes a buffer (torch's rule)."""
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = nn.Module()
            setattr(to_module, item, t)
        to_module = t
    if isinstance(from_obj, Tensor) and not isinstance(from_obj, nn.Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


class GraphModule(nn.Module):
    """`GraphModule(root, graph, class_name="GraphModule")`: `root` is the traced Module
    (the submodules, parameters and buffers that `graph` names are copied from it) or a
    dict from those names to objects."""

    def __new__(cls, *args, **kwargs):
        # each instance gets its own class, so `forward` can be set per instance
        own = cls
        if "_ember_fx_generated" not in cls.__dict__:
            own = type(cls.__name__, (cls,), {"_ember_fx_generated": True})
        return super().__new__(own)

    def __init__(self, root, graph: Graph, class_name: str = "GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        self.__class__.__qualname__ = class_name
        if isinstance(root, nn.Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _assign_attr(_fetch_attr(root, node.target), self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but "
                                           "that target was not provided in ``root``!")
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise RuntimeError(f"Unsupported type {root} passed for root!")  # noqa: TRY004 - torch's
        self.meta: dict[str, Any] = {}
        self.graph = graph

    # --- graph and code -------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        """The Python source of `forward`."""
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to ember")
        return self._code

    def recompile(self) -> PythonCode:
        """Regenerates `forward` from the graph (call after editing the graph)."""
        python_code = self._graph.python_code(root_module="self")
        self.__dict__["_code"] = python_code.src
        globals_ = dict(python_code.globals)
        _exec_with_source(python_code.src, globals_)
        type(self).forward = globals_["forward"]
        return python_code

    def print_readable(self, print_output: bool = True, include_stride: bool = False,
                       include_device: bool = False, colored: bool = False) -> str:
        """The module as a class definition with its generated `forward`."""
        body = self._code.strip("\n").rstrip()
        lines = [f"class {type(self).__name__}(ember.nn.Module):"]
        lines += ["    " + line if line else line for line in body.splitlines()]
        out = "\n".join(lines) + "\n"
        if print_output:
            print(out)
        return out

    def __str__(self) -> str:
        return super().__str__() + "\n\n\n" + self._code.strip() + "\n"

    # --- submodules -------------------------------------------------------------------------
    def add_submodule(self, target: str, m: nn.Module) -> bool:
        """Installs `m` at the dotted path `target`, creating empty parents; False if a
        part of the path is not a Module."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = nn.Module()
                mod.add_module(item, sub)
            if not isinstance(sub, nn.Module):
                return False
            mod = sub
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, nn.Module):
                return False
        if not hasattr(mod, field) or not isinstance(getattr(mod, field), nn.Module):
            return False
        delattr(mod, field)
        return True

    def delete_all_unused_submodules(self) -> None:
        """Deletes the submodules no call_module or get_attr node reaches."""
        used: set[str] = set()
        for node in self._graph.nodes:
            if node.op in ("call_module", "get_attr"):
                parts = node.target.split(".")
                used.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
                if node.op == "call_module":
                    sub = _fetch_attr(self, node.target)
                    used.update(f"{node.target}.{name}" for name, _ in sub.named_modules()
                                if name)
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)

    # --- copies ---------------------------------------------------------------------------------
    def __deepcopy__(self, memo):
        res = type(self).__new__(type(self))
        nn.Module.__init__(res)
        memo[id(self)] = res
        fake = nn.Module()
        fake.__dict__.update({k: copy.deepcopy(v, memo) for k, v in self.__dict__.items()
                              if k not in ("_graph", "_code")})
        GraphModule.__init__(res, fake, copy.deepcopy(self._graph, memo),
                             type(self).__name__)
        res.meta = copy.deepcopy(getattr(self, "meta", {}), memo)
        return res

    def __copy__(self):
        res = GraphModule(self, self._graph, type(self).__name__)
        res.meta = getattr(self, "meta", {})
        return res

    def __reduce__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code")}
        payload = io.BytesIO()
        _TensorPickler(payload).dump((state, _GraphState(self._graph), type(self).__name__))
        return (_unpickle_graph_module, (payload.getvalue(),))

    # --- files --------------------------------------------------------------------------------
    def to_folder(self, folder, module_name: str = "FxModule") -> None:
        """Writes `module.py` (the class with its forward), `state_dict.pt` and an
        `__init__.py`, so `from folder import <module_name>` rebuilds it."""
        import ember
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        ember.save(self.state_dict(), folder / "state_dict.pt")
        submodules = []
        for name, m in self.named_children():
            r = repr(m)
            if "\n" not in r:      # a leaf ember.nn module: its repr rebuilds it
                submodules.append(f"        self.add_module({name!r}, nn.{r})")
                continue
            with open(folder / f"{name}.pkl", "wb") as f:
                _TensorPickler(f).dump(m)
            submodules.append(f"        self.add_module({name!r}, pickle.load(open("
                              f"__file__.rsplit('/', 1)[0] + '/{name}.pkl', 'rb')))")
        code = self._code.strip("\n").rstrip()
        src = ["import math", "import operator", "import pickle", "", "import ember",
               "from ember import nn",
               "inf = math.inf", "nan = math.nan", "", "",
               f"class {module_name}(nn.Module):", "    def __init__(self):",
               "        super().__init__()", *submodules]
        for name, buf in self.named_buffers(recurse=False):
            src.append(f"        self.register_buffer({name!r}, ember.empty({list(buf.shape)}"
                       f", dtype=ember.{buf.dtype.name}))")
        for name, p in self.named_parameters(recurse=False):
            src.append(f"        self.{name} = nn.Parameter(ember.empty({list(p.shape)}, "
                       f"dtype=ember.{p.dtype.name}))")
        src += [("        self.load_state_dict(ember.load(__file__.rsplit('/', 1)[0] + "
                 "'/state_dict.pt'))"), ""]
        src += ["    " + line if line else line for line in code.splitlines()]
        (folder / "module.py").write_text("\n".join(src) + "\n")
        (folder / "__init__.py").write_text(f"from .module import {module_name}\n")


class _GraphState:
    """A picklable Graph: its nodes as records, node arguments as indices."""

    def __init__(self, graph: Graph):
        nodes = list(graph.nodes)
        index = {n: i for i, n in enumerate(nodes)}
        from .node import map_arg

        def ref(a):
            return map_arg(a, lambda n: _NodeRef(index[n]))
        self.records = [(n.op, n.name, n.target, ref(n.args), ref(n.kwargs), n.type,
                         _picklable_meta(n.meta)) for n in nodes]

    def build(self) -> Graph:
        from .node import map_aggregate
        g = Graph()
        made: list = []
        for op, name, target, args, kwargs, type_expr, meta in self.records:
            def deref(a):
                return map_aggregate(a, lambda x: made[x.i] if isinstance(x, _NodeRef) else x)
            n = g.create_node(op, target, deref(args), deref(kwargs), name, type_expr)
            n.meta = meta
            made.append(n)
        return g


class _NodeRef:
    def __init__(self, i: int):
        self.i = i


def _picklable_meta(meta: dict) -> dict:
    out = {}
    for k, v in meta.items():
        try:
            _TensorPickler(io.BytesIO()).dump(v)
        except Exception:  # noqa: BLE001, S112 - a meta entry that cannot be pickled is dropped
            continue
        out[k] = v
    return out


class _TensorPickler(pickle.Pickler):
    """Pickles the tensors inside a GraphModule by value (ember tensors refuse plain
    pickling so that checkpoints go through ember.save)."""

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            kind = "parameter" if isinstance(obj, nn.Parameter) else "tensor"
            return (_rebuild_tensor, (obj.detach().numpy().copy(), obj.dtype.name,
                                      obj.requires_grad, kind))
        return NotImplemented


def _rebuild_tensor(array, dtype_name: str, requires_grad: bool, kind: str):
    import ember
    t = ember.tensor(array, dtype=getattr(ember, dtype_name))
    if kind == "parameter":
        return nn.Parameter(t, requires_grad=requires_grad)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _unpickle_graph_module(payload: bytes):
    return _rebuild_graph_module(*pickle.loads(payload))


def _rebuild_graph_module(state: dict, graph_state: _GraphState, class_name: str):
    holder = nn.Module()
    holder.__dict__.update(state)
    gm = GraphModule(holder, graph_state.build(), class_name)
    for k, v in state.items():
        if k not in gm.__dict__:
            gm.__dict__[k] = v
    return gm


__all__ = ["GraphModule"]
