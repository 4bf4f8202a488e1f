"""ember.compile's capture and cache (torch._dynamo.eval_frame's place).

A compiled callable keeps, per distinct call signature, a graph and the guards it was
captured under. A call whose guards hold runs the graph; otherwise a new graph is
captured (a recompile), up to `config.recompile_limit`, after which the callable runs
eagerly. Capture is `make_fx` over fake tensors of `ember.func.functionalize(fn)`, with a
module's parameters and buffers lifted to graph inputs (so in-place updates of buffers,
BatchNorm's running statistics, become the graph's input-mutation epilogue). What the
graph cannot hold, data-dependent Python (`if x.sum() > 0`, `.item()`, `.tolist()`,
printing a tensor), is a graph break: that call signature runs eagerly, so the answer is
eager's; `fullgraph=True` raises instead.

    >>> f = ember.compile(lambda x: (x * 2).relu().sum(), backend="eager")
    >>> f(ember.tensor([-1., 2.]))
    tensor(4.)
"""
from __future__ import annotations

import functools
import warnings
import weakref
from dataclasses import dataclass, field

from ..autograd.grad_mode import is_grad_enabled
from ..core.tensor import Tensor
from ..utils._pytree import tree_flatten, tree_unflatten
from . import config
from .exc import Unsupported
from .utils import counters

_compiled: weakref.WeakSet = weakref.WeakSet()   # every CompiledFunction, for reset()


# --- guards --------------------------------------------------------------------------------------
def _tensor_guard(t: Tensor):
    return (type(t), tuple(t.shape), t.stride(), t.dtype, str(t.device), t.requires_grad)


def _value_guard(spec):
    """Non-tensor arguments are guarded by value (numbers, strings, None, nesting)."""
    return repr(spec)


def _global_state():
    from ..amp.autocast_mode import get_autocast_dtype, is_autocast_enabled
    return (is_grad_enabled(),
            tuple((d, is_autocast_enabled(d), get_autocast_dtype(d)) for d in ("cpu", "cuda")))


@dataclass
class _Entry:
    guard: tuple
    run: object = None               # the compiled graph's callable, or None: eager
    reason: str | None = None        # why the call runs eagerly (a graph break)
    graph: object = None


@dataclass
class ExplainOutput:
    """What `ember._dynamo.explain(fn)(*args)` reports (torch's ExplainOutput)."""
    graphs: list = field(default_factory=list)
    graph_count: int = 0
    graph_break_count: int = 0
    break_reasons: list = field(default_factory=list)
    guards: list = field(default_factory=list)

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {sum(_op_count(g) for g in self.graphs)}", "Break Reasons:"]
        lines += [f"  Break Reason {i + 1}: {r}" for i, r in enumerate(self.break_reasons)]
        lines.append("Guards:")
        lines += [f"  {g}" for g in self.guards]
        return "\n".join(lines)


def _op_count(gm):
    return sum(1 for n in gm.graph.nodes if n.op == "call_function")


# --- the compiled callable ------------------------------------------------------------------------
class CompiledFunction:
    """`fn` compiled: a cache of graphs by guard (see the module docstring)."""

    def __init__(self, fn, backend, fullgraph, module=None):
        self.fn = fn
        self.backend = backend
        self.fullgraph = fullgraph
        self.module = module
        self.entries: list[_Entry] = []
        self.warned_limit = False
        _compiled.add(self)

    def reset(self):
        self.entries.clear()
        self.warned_limit = False

    def _state(self):
        """The module's parameters and buffers (lifted to graph inputs) and its guard."""
        if self.module is None:
            return [], ()
        named = [(m, n, t, kind) for m in self.module.modules()
                 for kind, table in (("p", m._parameters), ("b", m._buffers))
                 for n, t in table.items() if t is not None]
        guard = (tuple(m.training for m in self.module.modules()),
                 tuple((id(m), n, kind, id(t)) + _tensor_guard(t) for m, n, t, kind in named))
        return named, guard

    def __call__(self, *args, **kwargs):
        if config.disable:
            return self.fn(*args, **kwargs)
        leaves, spec = tree_flatten((args, kwargs))
        named, state_guard = self._state()
        guard = (_value_guard(spec), tuple(_tensor_guard(t) for t in leaves), state_guard,
                 _global_state())
        counters["stats"]["calls"] += 1
        entry = next((e for e in self.entries if e.guard == guard), None)
        if entry is None:
            if len(self.entries) >= config.recompile_limit:
                if not self.warned_limit:
                    warnings.warn(f"ember._dynamo hit config.recompile_limit "
                                  f"({config.recompile_limit}) for {_name(self.fn)}: it now "
                                  "runs eagerly for new guards", stacklevel=2)
                    self.warned_limit = True
                return self.fn(*args, **kwargs)
            if self.entries:
                counters["stats"]["recompiles"] += 1
            entry = self._capture(guard, spec, leaves, named)
            self.entries.append(entry)
        if entry.run is None:
            return self.fn(*args, **kwargs)
        outs = entry.run(*leaves, *(t for _, _, t, _ in named))
        return tree_unflatten(outs, entry.out_spec)

    def _capture(self, guard, spec, leaves, named):
        from ..func import functionalize
        from ..fx.experimental.proxy_tensor import make_fx
        counters["frames"]["total"] += 1
        n_args = len(leaves)
        out_spec = []

        def flat_fn(*flat):
            args, kwargs = tree_unflatten(flat[:n_args], spec)
            with _swapped(named, flat[n_args:]):
                out = self.fn(*args, **kwargs)
            out_leaves, spec_of_out = tree_flatten(out)
            out_spec.append(spec_of_out)
            return out_leaves

        from .._subclasses import functional_tensor
        state = [t for _, _, t, _ in named]
        _tracing[0] = functional_tensor.capturing[0] = True
        try:
            gm = make_fx(functionalize(flat_fn), tracing_mode="fake")(*leaves, *state)
        except Exception as e:
            reason = f"{type(e).__name__}: {e}".splitlines()[0]
            if self.fullgraph:
                raise Unsupported(f"fullgraph=True: {_name(self.fn)} cannot be captured "
                                  f"whole ({reason})") from e
            counters["graph_break"][reason] += 1
            return _Entry(guard, None, reason)
        finally:
            _tracing[0] = functional_tensor.capturing[0] = False
        counters["frames"]["ok"] += 1
        run = self.backend(gm, [*leaves, *state])
        entry = _Entry(guard, run, None, gm)
        entry.out_spec = out_spec[0]
        return entry


class _swapped:
    """The module's parameters and buffers replaced by the traced inputs (restored after)."""

    def __init__(self, named, values):
        self.named, self.values = named, values

    def __enter__(self):
        for (m, n, _, kind), v in zip(self.named, self.values):
            (m._parameters if kind == "p" else m._buffers)[n] = v

    def __exit__(self, *exc):
        for m, n, t, kind in self.named:
            (m._parameters if kind == "p" else m._buffers)[n] = t


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


_tracing = [False]
