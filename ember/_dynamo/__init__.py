"""ember._dynamo (torch._dynamo's place): ember.compile's capture, guards and cache.

    >>> compiled = ember.compile(lambda x: x.sin() + 1, backend="eager")
    >>> compiled(ember.zeros(2))
    tensor([1., 1.])
    >>> ember._dynamo.reset()
"""
from __future__ import annotations

from . import config
from .backends import list_backends
from .eval_frame import CompiledFunction, ExplainOutput, disable, mark_dynamic, maybe_mark_dynamic
from .exc import Unsupported
from .utils import counters

__all__ = ["CompiledFunction", "ExplainOutput", "OptimizedModule", "Unsupported", "config",
           "counters", "disable", "explain", "list_backends", "mark_dynamic",
           "maybe_mark_dynamic", "optimize", "reset"]


def reset():
    """Forget every captured graph and the counters (torch._dynamo.reset)."""
    from .eval_frame import _compiled
    for c in list(_compiled):
        c.reset()
    counters.clear()


def optimize(backend="inductor", *, fullgraph=False):
    """A decorator compiling a function or module with `backend`."""
    def wrap(fn):
        return compile_fn(fn, backend=backend, fullgraph=fullgraph)
    return wrap


def compile_fn(model_or_fn, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
               options=None, disable=False):
    """`ember.compile` (see ember/__init__.py's docstring of it)."""
    from .backends import lookup
    from .eval_frame import CompiledFunction
    if disable:
        return model_or_fn
    run = lookup(backend)
    from ..nn import Module
    if isinstance(model_or_fn, Module):
        return OptimizedModule(model_or_fn, CompiledFunction(model_or_fn, run, fullgraph,
                                                             module=model_or_fn,
                                                             dynamic=dynamic))
    if not callable(model_or_fn):
        raise RuntimeError(  # noqa: TRY004  (torch raises RuntimeError)
            "ember.compile: expected a callable or an nn.Module, got "
            f"{type(model_or_fn).__name__}")
    import functools
    compiled = CompiledFunction(model_or_fn, run, fullgraph, dynamic=dynamic)
    return functools.wraps(model_or_fn)(lambda *a, **k: compiled(*a, **k))


def compile_module_in_place(mod, *, fullgraph=False, dynamic=None, backend="inductor",
                            mode=None, options=None, disable=False):
    """`module.compile()`: the module's forward becomes a compiled callable."""
    from .backends import lookup
    if disable:
        return
    compiled = CompiledFunction(type(mod).forward.__get__(mod), lookup(backend), fullgraph,
                                module=mod, dynamic=dynamic)
    object.__setattr__(mod, "forward", lambda *a, **k: compiled(*a, **k))


class OptimizedModule:
    """A compiled nn.Module (torch._dynamo.eval_frame.OptimizedModule): calls go through
    the graph cache, attributes to the original module (`_orig_mod`)."""

    def __init__(self, mod, compiled):
        object.__setattr__(self, "_orig_mod", mod)
        object.__setattr__(self, "_compiled", compiled)

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        setattr(self._orig_mod, name, value)

    def __repr__(self):
        return f"OptimizedModule({self._orig_mod!r})"


def explain(fn, *extra_args, **extra_kwargs):
    """`ember._dynamo.explain(fn)(*args)`: captures `fn` on these arguments and reports its
    graphs, graph breaks with their reasons, and guards (torch's ExplainOutput)."""
    def run(*args, **kwargs):
        from .backends import eager
        compiled = CompiledFunction(fn, eager, False,
                                    module=fn if _is_module(fn) else None)
        compiled(*args, **kwargs)
        out = ExplainOutput()
        for e in compiled.entries:
            if e.graph is not None:
                out.graphs.append(e.graph)
                out.graph_count += 1
            if e.reason is not None:
                out.graph_break_count += 1
                out.break_reasons.append(e.reason)
            out.guards.append(e.guards.describe())
            out.compile_times.append(e.seconds)
        return out
    if extra_args or extra_kwargs:     # torch's older form: explain(fn, *args)
        return run(*extra_args, **extra_kwargs)
    return run


def _is_module(fn):
    from ..nn import Module
    return isinstance(fn, Module)
