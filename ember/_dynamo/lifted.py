"""The state a call reaches through modules and optimizers rather than its arguments,
lifted to graph inputs (torch's lifted parameters and optimizer state).

The roots are the compiled module, and the modules and optimizers the function is bound
to or names (closure cells, globals). Their tensors, parameters, buffers and optimizer
state (`optimizer.param_groups`, `optimizer.state`), are the graph's trailing inputs,
guarded by identity; the parameters' `.grad` tensors are inputs read on every call. During
the capture each one is replaced by its traced input, so in-place updates (`p.add_`,
a momentum buffer's `mul_`) become the graph's input mutations, and a `.grad` a backward
inside sets becomes a graph output written back after the graph runs.

    >>> w = nn.Parameter(ember.ones(2))
    >>> opt = ember.optim.SGD([w], lr=0.5, momentum=0.9)
    >>> step = ember.compile(opt.step, backend="eager")   # w, w.grad, its momentum buffer
    >>> for _ in range(3):                                # (the first step runs eagerly: it
    ...     w.grad = ember.ones(2)                        #  creates the momentum buffer)
    ...     step()
    >>> w
    Parameter containing:
    tensor([-1.8050, -1.8050], requires_grad=True)
"""
from __future__ import annotations

import types
from collections import defaultdict

from ..core.tensor import Tensor
from .exc import Unsupported


def roots_of(fn, module):
    """(modules, optimizers) the call reaches: `module`, `fn`'s `self`, and those `fn`
    names through closure cells or globals."""
    from ..nn import Module
    from ..optim.optimizer import Optimizer
    found = [module, getattr(fn, "__self__", None)]
    f = getattr(fn, "__func__", fn)
    if isinstance(f, types.FunctionType):
        for cell in f.__closure__ or ():
            try:
                found.append(cell.cell_contents)
            except ValueError:
                pass
        found += [f.__globals__[n] for n in f.__code__.co_names if n in f.__globals__]
    modules, optimizers, seen = [], [], set()
    for r in found:
        if id(r) in seen:
            continue
        seen.add(id(r))
        if isinstance(r, Module):
            modules.append(r)
        elif isinstance(r, Optimizer):
            optimizers.append(r)
    return modules, optimizers


class Lifted:
    """The lifted tensors of one capture: `fixed` (unique, by identity: parameters,
    buffers, optimizer state), `params` (those whose `.grad` is state: every parameter of
    the modules and optimizers; none with `grads=False`, a compiled module's forward) and
    `grads` (the indices in `params` whose `.grad` was a tensor at capture: graph
    inputs)."""

    def __init__(self, modules, optimizers, grads=True):
        self.modules, self.optimizers = modules, optimizers
        self.fixed, self.index = [], {}
        self.slots = []                  # (dict or list, key, index in fixed)
        params = []
        for m in modules:
            for sub in m.modules():
                for table in (sub._parameters, sub._buffers):
                    for name, t in table.items():
                        if t is not None:
                            self.slots.append((table, name, self._add(t)))
                for t in sub._parameters.values():
                    if t is not None:
                        params.append(t)
        for opt in optimizers:
            for group in opt.param_groups:
                for i, p in enumerate(group["params"]):
                    self.slots.append((group["params"], i, self._add(p)))
                    params.append(p)
            for state in opt.state.values():
                for v in state.values():
                    if isinstance(v, Tensor):
                        self._add(v)
        unique = {id(p): p for p in params} if grads else {}
        self.params = list(unique.values())
        self.grads = [i for i, p in enumerate(self.params) if p.grad is not None]

    def _add(self, t) -> int:
        i = self.index.get(id(t))
        if i is None:
            i = self.index[id(t)] = len(self.fixed)
            self.fixed.append(t)
        return i

    def __bool__(self):
        return bool(self.fixed)

    def swapped(self, fixed, grads):
        """A context in which every lifted tensor is its traced input (`fixed`, and the
        `.grad` of each parameter in `grads`' order)."""
        return _Swapped(self, fixed, grads)


class _Swapped:
    def __init__(self, lifted, fixed, grads):
        self.lifted, self.fixed, self.grads = lifted, fixed, grads
        self.traced = [fixed[lifted.index[id(p)]] for p in lifted.params]
        self.states = []

    def __enter__(self):
        lifted, fixed = self.lifted, self.fixed
        for table, key, i in lifted.slots:
            table[key] = fixed[i]
        for i, g in zip(lifted.grads, self.grads):
            self.traced[i].grad = g
        for opt in lifted.optimizers:
            state = defaultdict(dict)
            for p, s in opt.state.items():
                state[_traced(lifted, fixed, p)] = {k: _traced(lifted, fixed, v)
                                                    for k, v in s.items()}
            self.states.append((opt, opt.state, state))
            opt.state = state
        return self

    def grad_writes(self):
        """What the call left in each parameter's `.grad`, where it changed: [(index in
        params, the traced tensor or None)] (read before the context ends)."""
        given = dict(zip(self.lifted.grads, self.grads))
        out = []
        for i, t in enumerate(self.traced):
            g = t.grad
            if g is not given.get(i):
                out.append((i, g))
        return out

    def __exit__(self, *exc):
        lifted = self.lifted
        for table, key, i in lifted.slots:
            table[key] = lifted.fixed[i]
        for opt, original, state in self.states:
            opt.state = original
            if exc[0] is None and not _same_state(lifted, self.fixed, original, state):
                raise Unsupported(f"{type(opt).__name__}'s step creates or replaces "
                                  "optimizer state (such a call runs eagerly)")


def _traced(lifted, fixed, v):
    return fixed[lifted.index[id(v)]] if isinstance(v, Tensor) else v


def _same_state(lifted, fixed, original, state) -> bool:
    """Whether the traced step left the optimizer's state as it found it (its tensors
    updated in place only: input mutations)."""
    if len(state) != len(original):
        return False
    for p, s in original.items():
        t = state.get(_traced(lifted, fixed, p))
        if t is None or list(t) != list(s) or any(
                t[k] is not _traced(lifted, fixed, v) and (isinstance(v, Tensor) or t[k] != v)
                for k, v in s.items()):
            return False
    return True
