"""ember.compile's capture and cache (torch._dynamo.eval_frame's place).

A compiled callable keeps, per distinct call signature, a graph and the guards it was
captured under. A call whose guards hold runs the graph; otherwise a new graph is
captured (a recompile), up to `config.recompile_limit`, after which the callable runs
eagerly. Capture is `make_fx` over fake tensors of `ember.func.functionalize(fn)`, with the
parameters, buffers, grads and optimizer state of the modules and optimizers the call
reaches lifted to graph inputs (lifted.py: in-place updates of buffers, BatchNorm's running
statistics, an optimizer's parameters and momentum buffers, become the graph's
input-mutation epilogue). A whole training step compiles into one graph: the backward it
runs is traced into it and the grads it leaves are written back. What the
graph cannot hold, data-dependent Python (`if x.sum() > 0`, `.item()`, `.tolist()`,
printing a tensor), is a graph break: that call signature runs eagerly, so the answer is
eager's; `fullgraph=True` raises instead.

    >>> f = ember.compile(lambda x: (x * 2).relu().sum(), backend="eager")
    >>> f(ember.tensor([-1., 2.]))
    tensor(4.)
"""
from __future__ import annotations

import contextlib
import functools
import time
import warnings
import weakref
from dataclasses import dataclass, field

from .. import _logging
from .._guards import _compiling as _tracing
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.graph import new_node, set_history
from ..utils._pytree import LeafSpec, tree_flatten, tree_unflatten
from . import config
from .exc import Unsupported
from .guards import build_guards
from .lifted import Lifted, roots_of
from .utils import counters

_compiled: weakref.WeakSet = weakref.WeakSet()   # every CompiledFunction, for reset()


@dataclass
class _Entry:
    guards: object                   # guards.Guards: check(args, kwargs) -> graph inputs or None
    run: object = None               # the compiled graph's callable, or None: eager
    reason: str | None = None        # why the call runs eagerly (a graph break)
    graph: object = None
    state: tuple = ()                # the lifted tensors (trailing inputs; lifted.py)
    out_spec: object = None
    grad_writes: tuple = ()          # (parameter, output index or None): its new .grad
    n_out: int = 0                   # the call's own outputs (the new grads follow)
    no_grad: bool = False            # runs with grad mode off (see _capture)
    released: tuple = ()             # outputs a backward inside went through (see _capture)
    seconds: float = 0.0             # capture + backend compile time


@dataclass
class ExplainOutput:
    """What `ember._dynamo.explain(fn)(*args)` reports (torch's ExplainOutput)."""
    graphs: list = field(default_factory=list)
    graph_count: int = 0
    graph_break_count: int = 0
    break_reasons: list = field(default_factory=list)
    guards: list = field(default_factory=list)
    compile_times: list = field(default_factory=list)   # seconds per capture (+ backend)

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {sum(_op_count(g) for g in self.graphs)}", "Break Reasons:"]
        lines += [f"  Break Reason {i + 1}: {r}" for i, r in enumerate(self.break_reasons)]
        lines.append("Guards:")
        lines += [f"  {line}" for g in self.guards for line in g.splitlines()]
        lines.append("Compile Times: " + ", ".join(f"{t:.3f} s" for t in self.compile_times))
        return "\n".join(lines)


def _op_count(gm):
    return sum(1 for n in gm.graph.nodes if n.op == "call_function")


# --- the compiled callable ------------------------------------------------------------------------
class CompiledFunction:
    """`fn` compiled: a cache of graphs by guard (see the module docstring).
    `dynamic`: None marks a size dynamic once a second value of it is seen (torch's automatic
    dynamic shapes), True makes every argument size dynamic from the start, False never."""

    def __init__(self, fn, backend, fullgraph, module=None, dynamic=None):
        self.fn = fn
        self.backend = backend
        self.fullgraph = fullgraph
        self.module = module
        self.dynamic = dynamic
        self.entries: list[_Entry] = []
        self.seen: dict[int, tuple] = {}          # leaf index -> the first sizes captured
        self.dynamic_dims: dict[int, set] = {}    # leaf index -> dims made dynamic
        self.warned_limit = False
        _compiled.add(self)

    def reset(self):
        self.entries.clear()
        self.seen.clear()
        self.dynamic_dims.clear()
        self.warned_limit = False

    def __call__(self, *args, **kwargs):
        if config.disable or _tracing[0]:    # (inside another capture: traced inline)
            return self.fn(*args, **kwargs)
        for entry in self.entries:
            leaves = entry.guards.check(args, kwargs)
            if leaves is not None:
                break
        else:
            entry = self._miss(args, kwargs)
            if entry is None:
                return self.fn(*args, **kwargs)
            leaves = entry.guards.check(args, kwargs)
            if leaves is None:        # (guards that fail on the arguments they came from)
                entry.run, entry.reason = None, "the guards fail on the captured arguments"
        if entry.run is None:
            return self.fn(*args, **kwargs)
        if entry.no_grad:
            with no_grad():
                outs = entry.run(*leaves, *entry.state)
        else:
            outs = entry.run(*leaves, *entry.state)
        if entry.grad_writes:
            for p, j in entry.grad_writes:
                p.grad = None if j is None else outs[j]
            outs = outs[:entry.n_out]
        if entry.released:
            outs = list(outs)
            node = _released_node()
            node._out_meta = tuple(set_history(outs[j], node, k)
                                   for k, j in enumerate(entry.released))
        spec = entry.out_spec
        return outs[0] if type(spec) is LeafSpec else tree_unflatten(outs, spec)

    def _miss(self, args, kwargs):
        """No guard held: capture again (a recompile), or None past the recompile limit."""
        if len(self.entries) >= config.recompile_limit:
            if not self.warned_limit:
                warnings.warn(f"ember._dynamo hit config.recompile_limit "
                              f"({config.recompile_limit}) for {_name(self.fn)}: it now "
                              "runs eagerly for new guards", stacklevel=3)
                self.warned_limit = True
            return None
        if self.entries:
            counters["stats"]["recompiles"] += 1
            _logging.log("recompiles", lambda: _recompile_message(self, args, kwargs))
        leaves, spec = tree_flatten((args, kwargs))
        self._mark_dynamic(leaves)
        started = time.perf_counter()
        entry = self._capture(args, kwargs, leaves, spec)
        entry.seconds = time.perf_counter() - started
        self.entries.append(entry)
        if entry.reason is not None:
            _logging.log("graph_breaks", f"{_name(self.fn)}: runs eagerly ({entry.reason})")
        else:
            _logging.log("graph_code", lambda: f"{_name(self.fn)}:{entry.graph.code}")
        _logging.log("guards", lambda: f"{_name(self.fn)}:\n{entry.guards.describe()}")
        return entry

    def _mark_dynamic(self, leaves):
        """Automatic dynamic shapes: a size that differs from the first capture's becomes a
        symbol (dynamic=True: every size of every argument)."""
        if self.dynamic is False or not getattr(self.backend, "supports_dynamic", True):
            return
        for i, t in enumerate(leaves):
            first = self.seen.setdefault(i, tuple(t.shape))
            marked = _marks_of(t)
            if marked:
                self.dynamic_dims.setdefault(i, set()).update(marked)
            if self.dynamic:
                changed = set(range(t.dim()))
            elif len(first) == t.dim():
                changed = {d for d, (a, b) in enumerate(zip(first, t.shape)) if a != b}
            else:
                continue
            if changed:
                self.dynamic_dims.setdefault(i, set()).update(changed)

    def _capture(self, args, kwargs, leaves, spec):
        from ..func import functionalize
        from ..fx.experimental.proxy_tensor import make_fx
        counters["frames"]["total"] += 1
        lifted = Lifted(*roots_of(self.fn, self.module), grads=self.module is None)
        state = tuple(lifted.fixed)
        grads = [lifted.params[i].grad for i in lifted.grads]
        n_grads = len(grads)
        dynamic = {i: {d for d in dims if leaves[i].shape[d] >= 2}    # (0 and 1 specialise)
                   for i, dims in self.dynamic_dims.items()
                   if i < len(leaves) and _symbolic_ok(leaves[i], dims)}
        dynamic = {i: dims for i, dims in dynamic.items() if dims}
        n_args = len(leaves)
        out_spec, writes = [], []

        def flat_fn(*flat):
            args, kwargs = tree_unflatten(flat[:n_args], spec)
            with lifted.swapped(flat[n_args + n_grads:], flat[n_args:n_args + n_grads]) as sw, \
                    _counting_backwards() as backwards:
                out = self.fn(*args, **kwargs)
                new_grads = sw.grad_writes()
            if backwards[0] and self.module is not None:
                raise Unsupported("a module's forward that runs a backward (compile the "
                                  "training step function instead)")
            if backwards[0] and any(t.requires_grad for t in leaves):
                raise Unsupported("a backward inside a call whose arguments require grad")
            out_leaves, spec_of_out = tree_flatten(out)
            out_spec.append(spec_of_out)
            writes.append((len(out_leaves), [(lifted.params[i], g is None)
                                              for i, g in new_grads],
                           [j for j, o in enumerate(out_leaves) if o.requires_grad],
                           backwards[0] > 0))
            return out_leaves + [g for _, g in new_grads if g is not None]

        from .._subclasses import functional_tensor
        lifted_inputs = [*grads, *state]
        inputs = _fake_inputs(leaves, lifted_inputs, dynamic) if dynamic else \
            [*leaves, *lifted_inputs]
        _tracing[0] = functional_tensor.capturing[0] = True
        try:
            gm = make_fx(functionalize(flat_fn), tracing_mode="symbolic" if dynamic else "fake",
                         _allow_non_fake_inputs=True)(*inputs)
            _refuse_constant_mutation(gm)
        except Exception as e:
            reason = f"{type(e).__name__}: {e}".splitlines()[0]
            if self.fullgraph:
                raise Unsupported(f"fullgraph=True: {_name(self.fn)} cannot be captured "
                                  f"whole ({reason})") from e
            counters["graph_break"][reason] += 1
            return _Entry(self._guards(args, kwargs, {}, lifted=lifted), None, reason)
        finally:
            _tracing[0] = functional_tensor.capturing[0] = False
        counters["frames"]["ok"] += 1
        n_out, new_grads, differentiable, backward_inside = writes[0]
        # nothing to differentiate (an optimizer step), or a whole training step (a backward
        # ran inside: its outputs' graph is spent): the graph runs with grad mode off, as
        # the in-place updates of parameters did in the trace
        grad_free = is_grad_enabled() and (backward_inside or not differentiable) and not any(
            t.requires_grad for t in leaves)
        released = tuple(differentiable) if grad_free else ()
        try:
            with no_grad() if grad_free else contextlib.nullcontext():
                run = self.backend(gm, list(inputs))
        except _uncapturable() as e:    # (AOT autograd's joint trace met a data-dependent
            reason = f"backend: {type(e).__name__}: {e}".splitlines()[0]    # backward)
            if self.fullgraph:
                raise Unsupported(f"fullgraph=True: the backend cannot compile "
                                  f"{_name(self.fn)} ({reason})") from e
            counters["graph_break"][reason] += 1
            return _Entry(self._guards(args, kwargs, {}, lifted=lifted), None, reason)
        env = getattr(gm, "shape_env", None)
        grad_writes, j = [], n_out
        for p, to_none in new_grads:
            grad_writes.append((p, None if to_none else j))
            j += not to_none
        return _Entry(self._guards(args, kwargs, dynamic, env, lifted), run, None, gm, state,
                      out_spec[0], tuple(grad_writes), n_out, grad_free, released)

    def _guards(self, args, kwargs, dynamic, shape_env=None, lifted=None):
        return build_guards(args, kwargs, dynamic=dynamic, lifted=lifted, fn=self.fn,
                            shape_env=shape_env)


class _counting_backwards:
    """Counts the backward passes the traced code runs (`loss.backward()` inside)."""

    def __enter__(self):
        from ..autograd import engine
        self.engine, self.run, self.count = engine, engine.run_backward, [0]

        def counted(*args, **kwargs):
            self.count[0] += 1
            return self.run(*args, **kwargs)
        engine.run_backward = counted
        return self.count

    def __exit__(self, *exc):
        self.engine.run_backward = self.run


def _released_node():
    """The grad_fn of an output whose backward already ran inside the compiled call (a
    whole training step): a node whose saved values are freed, so a second backward
    raises torch's error, as it would after the eager step."""
    from .._functorch.aot_autograd import CompiledFunctionBackward
    node = new_node(CompiledFunctionBackward, (), ())
    node.bw, node.saved = None, None
    return node


_marks: dict[int, tuple] = {}     # id(tensor) -> (weakref to it, dims marked dynamic)


def mark_dynamic(t, index) -> None:
    """Makes dim `index` (an int or a list) of `t` a symbol from its first capture on
    (torch._dynamo.mark_dynamic); sizes 0 and 1 still specialise."""
    dims = {index} if isinstance(index, int) else set(index)
    for d in dims:
        if not -t.dim() <= d < max(t.dim(), 1):
            raise IndexError(f"mark_dynamic: dim {d} out of range for a {t.dim()}-d tensor")
    dims = {d % t.dim() for d in dims}
    old = _marks.get(id(t))
    if old is not None and old[0]() is t:
        dims |= old[1]
    key = id(t)
    _marks[key] = (weakref.ref(t, lambda _: _marks.pop(key, None)), dims)


maybe_mark_dynamic = mark_dynamic


def _marks_of(t):
    hit = _marks.get(id(t))
    return hit[1] if hit is not None and hit[0]() is t else ()


def _recompile_message(compiled, args, kwargs):
    lines = [f"Recompiling function {_name(compiled.fn)}",
             "    triggered by the following guard failure(s):"]
    for i, e in enumerate(compiled.entries):
        lines += [f"    - graph {i}: {fact}" for fact in e.guards.failures(args, kwargs)[:3]]
    return "\n".join(lines)


def _uncapturable():
    """What a trace raises where the answer needs data (a graph break, not an error), or
    where an op has no formula: running eagerly then gives eager's answer or error."""
    from .._subclasses.fake_tensor import (
        DataDependentOutputException,
        DynamicOutputShapeException,
        UnsupportedOperatorException,
    )
    from ..fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode
    return (DataDependentOutputException, DynamicOutputShapeException,
            UnsupportedOperatorException, GuardOnDataDependentSymNode, Unsupported,
            NotImplementedError)


def _refuse_constant_mutation(gm) -> None:
    """Tensors the code reaches by closure or global (not arguments, parameters or
    buffers) are the graph's constants, read when it runs; one it writes into, or one that
    requires grad, has no functional form here: a graph break."""
    roots = {}

    def root(v):      # (an argument: a node, a list of them (Tensor[]) or a constant)
        if isinstance(v, (list, tuple)):
            return next((r for r in map(root, v) if r is not None), None)
        return roots.get(v) if hasattr(v, "op") else None
    for n in gm.graph.nodes:
        if n.op == "get_attr":
            roots[n] = n
            if getattr(getattr(gm, n.target, None), "requires_grad", False) and \
                    is_grad_enabled():     # (its gradient would be lost)
                raise Unsupported(f"the graph reads the tensor constant {n.target} (a "
                                  "closed-over or global tensor) that requires grad")
        elif n.op == "call_function" and n.args and root(n.args[0]) is not None \
                and "view" in getattr(n.target, "tags", ()):
            roots[n] = root(n.args[0])
        schema = getattr(n.target, "schema", None)
        if n.op != "call_function" or schema is None:
            continue
        for a, v in zip(schema.arguments.flat(), [*n.args, *n.kwargs.values()]):
            if a.is_write and root(v) is not None:
                raise Unsupported(f"{n.target} writes into the tensor constant "
                                  f"{root(v).target} (a closed-over or global tensor)")


def _symbolic_ok(t, dims) -> bool:
    """Sizes can be symbols only on a contiguous tensor that fills its storage (other
    layouts, and views into a larger storage, whose fake base would get a size symbol of
    its own, stay static)."""
    return t.dim() == len(t.shape) and max(dims) < t.dim() and t.is_contiguous() \
        and not t.is_conj() and t.storage_offset() == 0 and \
        t.untyped_storage().nbytes() == t.numel() * t.element_size()


def _fake_inputs(leaves, state, dynamic):
    """Fakes of the graph's inputs over one ShapeEnv: the dynamic dims of the arguments are
    symbols (sources `arg{i}_1`, make_fx's placeholder names), every other size static."""
    from .._subclasses.fake_tensor import FakeTensorMode
    from ..fx.experimental.symbolic_shapes import ShapeEnv
    mode = FakeTensorMode(shape_env=ShapeEnv(), allow_non_fake_inputs=True)
    out = []
    for i, t in enumerate([*leaves, *state]):
        if i in dynamic:
            out.append(mode.from_tensor(t, source=f"arg{i}_1", symbolic_context=dynamic[i]))
        else:
            out.append(mode.from_tensor(t, static_shapes=True))
    return out


def _name(fn):
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def disable(fn=None, recursive=True):
    """`ember.compiler.disable`: `fn` (or, as a decorator, the function) always runs eagerly,
    even inside a compiled callable's capture (it then is a graph break)."""
    if fn is None:
        return functools.partial(disable, recursive=recursive)

    @functools.wraps(fn)
    def eager(*args, **kwargs):
        if _tracing[0]:
            raise Unsupported(f"{_name(fn)} is marked ember.compiler.disable")
        return fn(*args, **kwargs)
    return eager

