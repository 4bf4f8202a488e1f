"""Observers of what the dispatcher runs: torch's RecordFunction, in one place.

Two hooks, both free when nothing observes:

- `active`: the collector of the running profiler, or None. While it is set, the
  kernels the generated entries (`_entry_*`) cache run through `call`, which opens an
  `aten::<name>` range on it (`set_active` clears those caches: no check on the op
  path); Library ops check it once per call. Autograd nodes, optimizer
  steps and `record_function` open named ranges with `Range`; allocators report
  bytes with `memory`.
- `step_hooks`: callbacks told about every kernel the dispatcher runs for a keyset,
  redispatches included (`ember.explain`, EMBER_SHOW_DISPATCH_TRACE). They cost
  nothing on the op path: adding or removing one clears the kernel caches, and
  `OpOverload._fill` wraps the kernels it caches while any hook is installed.

A collector has `enter(name, kind, op=None, args=None) -> span`, `exit(span, out=None)`
and `memory(nbytes, device)` (ember/profiler/_collector.py).
"""
from __future__ import annotations

from .keys import FULL
from .tls import state as _tls

active = None          # the running profiler's collector, or None
step_hooks: list = []  # hook(op, keyset, key, fn, args) before each kernel runs
_NO_MASKS = (0, FULL)  # no key included or excluded


def ops_unobserved() -> bool:
    """Whether nothing could see the ops run now (no dispatch or function mode, no profiler,
    no key included or excluded): fast paths that skip the ops (the engine's array
    formulas, AccumulateGrad's in-place add) may run."""
    s = _tls
    return active is None and not s.dispatch_modes and not s.function_modes and \
        s.masks == _NO_MASKS


def call(op, kernel, args):
    """Run one op call (`kernel(*args)`) inside an `aten::<name>` range on `active`."""
    c = active
    if c is None:
        return kernel(*args)
    span = c.enter(op.qualified_name, "cpu_op", op, args)
    out = None
    try:
        out = kernel(*args)
        return out
    finally:
        c.exit(span, out)


def profiled_kernel(op, kernel):
    """`kernel` run through `call` (the entries cache it while a profiler records)."""
    return lambda *args: call(op, kernel, args)


class Range:
    """A named range on the active collector (record_function, autograd, optimizers).

    The collector is fixed at `__enter__`, so a range opened while nothing records
    stays a no-op even if a profiler starts before it closes.
    """

    __slots__ = ("_collector", "_span", "kind", "name")

    def __init__(self, name: str, kind: str = "user_annotation"):
        self.name = name
        self.kind = kind
        self._collector = self._span = None

    def __enter__(self):
        c = self._collector = active
        if c is not None:
            self._span = c.enter(self.name, self.kind)
        return self

    def __exit__(self, *exc):
        c, self._collector = self._collector, None
        if c is not None:
            c.exit(self._span)
        return False


def memory(nbytes: int, device) -> None:
    """An allocation (nbytes > 0) or a free (< 0) on `device`, for profile_memory."""
    c = active
    if c is not None:
        c.memory(nbytes, device)


def set_active(collector) -> None:
    global active
    if (active is None) != (collector is None):
        from .dispatcher import clear_entry_caches
        clear_entry_caches()
    active = collector


def add_step_hook(hook) -> None:
    from .dispatcher import clear_caches
    step_hooks.append(hook)
    clear_caches()


def remove_step_hook(hook) -> None:
    from .dispatcher import clear_caches
    step_hooks.remove(hook)
    clear_caches()


def observed_kernel(op, keyset, key, fn, kernel):
    """`kernel` wrapped to tell every step hook about the call first (fn: the registered
    function, for its source location)."""
    def run(*args):
        for hook in tuple(step_hooks):
            hook(op, keyset, key, fn, args)
        return kernel(*args)
    return run
