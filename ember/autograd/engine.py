"""The backward engine: runs the graph from its roots with dependency counting.

    1. walk the graph from a GraphRoot node and count, per node, the edges into it;
    2. pop the ready node with the highest sequence number (the most recent op) from a
       heap, run its hooks and `apply`, and add each result into the buffer of the
       node it flows to; a node becomes ready when its count reaches zero;
    3. AccumulateGrad nodes add into `leaf.grad`; `autograd.grad` captures instead.

No recursion anywhere, so a 10k-op chain is fine. Saved tensors are freed after
each node runs unless `retain_graph=True`.

    >>> x = ember.ones(3, requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 2., 2.])
"""
from __future__ import annotations

import heapq

import numpy as np

import ember

from ..core import dtype as D
from ..core.tensor import Tensor, from_array
from ..dispatch import observers as _observers
from ..dispatch.keys import AUTOGRAD_BIT
from ..dispatch.observers import Range
from ..dispatch.tls import state as _tls
from . import array_formulas as _A
from . import graph as G
from .accumulate import _checked_hook_result, _checked_hook_values, _run_leaf_hooks, accumulate_grad
from .graph import AccumulateGrad, GraphRoot, gradient_edge


def _is_tensor(x):
    return isinstance(x, ember.Tensor)


def _as_tuple(x):
    if x is None:
        return ()
    if _is_tensor(x):
        return (x,)
    return tuple(x)


_ONES = {}   # dtype -> a 0-d array of 1, copied for each `loss.backward()`


def make_grads(outputs, grads):
    """The root gradients: given ones are checked, missing ones are ones for scalars."""
    if not grads and len(outputs) == 1:
        t = outputs[0]
        if t._shape == () and t._ks & AUTOGRAD_BIT and t._np is not None \
                and t._dtype.is_floating_point and not _tls.dispatch_modes \
                and _observers.active is None:
            # `loss.backward()`, the usual case (a mode or the profiler sees the dispatched
            # ones_like below)
            one = _ONES.get(t._dtype)
            if one is None:
                one = _ONES[t._dtype] = np.ones((), t._dtype.np)
            return [from_array(one.copy(), t._dtype)]
    grads = list(grads) if grads else [None] * len(outputs)
    for g in grads:
        if g is not None and not _is_tensor(g):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    out = []
    for i, (t, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if t.requires_grad:
                if t.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not t.is_floating_point():
                    raise RuntimeError(f"grad can be implicitly created only for real scalar "
                                       f"outputs but got {t.dtype}")
                g = ember.ones_like(t, memory_format=ember.preserve_format)
        elif g.shape != t.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {t.shape}.")
        out.append(g)
    return out


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """`ember.autograd.backward`: accumulates d(tensors)/d(leaf) into each leaf's `.grad`."""
    tensors = _as_tuple(tensors)
    grads = make_grads(tensors, _as_tuple(grad_tensors) if grad_tensors is not None else None)
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    inputs = _as_tuple(inputs)
    if inputs and any(not _is_tensor(t) for t in inputs):
        raise TypeError("inputs to backward() must be Tensors")
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(tensors, grads, retain_graph, create_graph, inputs or None, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """`ember.autograd.grad`: the gradients of `outputs` with respect to `inputs`, returned
    instead of accumulated into `.grad`."""
    outputs = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported by ember")
    if allow_unused is None:
        allow_unused = materialize_grads
    elif materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    for t in inputs_t:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = make_grads(outputs, _as_tuple(grad_outputs) if grad_outputs is not None else None)
    if retain_graph is None:
        retain_graph = create_graph
    result = run_backward(outputs, grads, retain_graph, create_graph, inputs_t, accumulate=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs_t, result)):
        if g is None:
            if materialize_grads:
                g = ember.zeros_like(t)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
        out.append(g)
    return tuple(out)


def run_backward(outputs, grads, keep_graph, create_graph, inputs=None, accumulate=True):
    """Runs the graph behind `outputs`. With `inputs`, only what leads to them runs and
    their gradients are returned (accumulate=False) or added to their `.grad`."""
    edges = []
    for i, t in enumerate(outputs):
        e = gradient_edge(t)
        if e is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        edges.append(e)
    root = GraphRoot(edges, grads)
    deps, parents = _count_dependencies(root, want_parents=inputs is not None)
    captures = needed = None
    if inputs is not None:
        captures, needed = _capture_plan(inputs, parents, accumulate)
        results = [None] * len(inputs)
    prev_mode, prev_valid = _tls.grad_enabled, _tls.checkpoint_valid
    _tls.grad_enabled = create_graph
    _tls.checkpoint_valid = inputs is None  # (reentrant checkpoints need the whole graph)
    try:
        _execute(root, deps, keep_graph, captures, needed, results if inputs is not None else None,
                 accumulate, inputs)
    finally:
        _tls.grad_enabled, _tls.checkpoint_valid = prev_mode, prev_valid
    return results if inputs is not None else None


def _count_dependencies(root, want_parents):
    deps = {}
    parents = {} if want_parents else None
    stack = [root]
    while stack:
        node = stack.pop()
        for fn, _ in node.next_functions:
            if fn is None:
                continue
            if want_parents:
                parents.setdefault(fn, []).append(node)
            if fn in deps:
                deps[fn] += 1
            else:
                deps[fn] = 1
                stack.append(fn)
    return deps, parents


def _capture_plan(inputs, parents, accumulate):
    """captures: node -> [(output_nr, input index)]; needed: nodes on a path to an input."""
    captures = {}
    targets = []
    for i, t in enumerate(inputs):
        e = gradient_edge(t)
        if e is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        captures.setdefault(e[0], []).append((e[1], i))
        targets.append(e[0])
    needed = set()
    stack = [n for n in targets if n in parents]
    while stack:
        n = stack.pop()
        if n in needed:
            continue
        needed.add(n)
        stack.extend(parents.get(n, ()))
    return captures, needed


def _execute(root, deps, keep_graph, captures, needed, results, accumulate, inputs):
    buffers = {}
    heap = [(-root._seq, 0, root)]
    tick = 1
    push, pop = heapq.heappush, heapq.heappop
    anomaly = G._anomaly[0]
    profiling = _observers.active is not None
    arrays = _arrays_unobserved(anomaly)
    outputs = root.grads
    node = pop(heap)[2]
    ready = None        # the first node made ready by the current step
    span = None         # the profiler's range of the running node
    leaves = []         # (leaf, grad, held) accumulated after that range, when profiling
    try:
        while True:
            if node is not root:
                if profiling:
                    name = _profile_name(node)
                    span = _evaluate_range(name).__enter__()
                    inner = Range(name, "cpu_op").__enter__()
                buf = buffers.pop(node, None)
                if buf is None:
                    buf = [None] * len(node._out_meta)
                ex = node._extra
                if ex is not None:
                    buf = _run_pre_hooks(node, ex, buf)
                if captures is not None and not _capture(node, buf, captures, needed, results,
                                                         accumulate, inputs):
                    outputs = ()
                elif len(buf) == 1:
                    if buf[0] is None and node._skip_if_no_grad:
                        outputs = ()
                    elif anomaly:
                        outputs = _call_anomaly(node, buf)
                    elif ex is None:
                        outputs = node._apply_array(buf) if arrays else node.apply(buf)
                    else:
                        outputs = node.apply(buf)
                        if ex.post_hooks:
                            outputs = _run_post_hooks(ex, outputs, buf)
                else:
                    outputs = _call_multi(node, buf, anomaly, arrays)
                if span is not None:
                    inner.__exit__()
                if not keep_graph and node._release_after_backward:
                    node.release_variables()
                buf = None      # (its gradients' last reference here: a leaf may take them)
            n_out = len(outputs)
            for i, (fn, nr) in enumerate(node.next_functions):
                if fn is None or (needed is not None and fn not in needed):
                    continue
                g = outputs[i] if i < n_out else None
                if g is not None:
                    meta = fn._out_meta[nr]
                    if g._shape != meta[0] or g._dtype is not meta[1] or g._device is not meta[2]:
                        g = _validate(g, meta, node, i)
                    b = buffers.get(fn)
                    if b is None:
                        b = buffers[fn] = [None] * len(fn._out_meta)
                        b[nr] = g
                    elif b[nr] is None:
                        b[nr] = g
                    elif arrays:
                        b[nr] = _add_unobserved(b[nr], g)
                    else:
                        b[nr] = b[nr] + g
                d = deps[fn] - 1
                deps[fn] = d
                if d == 0:
                    if fn.__class__ is AccumulateGrad and captures is None and fn._extra is None:
                        # a leaf whose gradient is complete: accumulate now (it would run next)
                        g = b = None
                        b = buffers.pop(fn, None)
                        variable = fn._variable()
                        if b is not None and b[0] is not None and variable is not None:
                            # the caller's reference: outputs[i] when it is this gradient
                            # (never read again); b.pop() leaves the buffer without one
                            held = i < n_out and outputs[i] is b[0]
                            if profiling:   # its own range after this node's, as in torch
                                leaves.append((variable, b.pop(), held))
                            else:
                                accumulate_grad(variable, b.pop(), held=held)
                        continue
                    if ready is None:
                        ready = fn
                    else:
                        push(heap, (-fn._seq, tick, fn))
                        tick += 1
            if span is not None:
                span.__exit__()
                span = None
            for variable, g, held in leaves:
                with _evaluate_range(_ACCUMULATE), Range(_ACCUMULATE, "cpu_op"):
                    accumulate_grad(variable, g, held=held)
            leaves.clear()
            # drop this step's references so a leaf can take its gradient without a copy
            outputs = buf = g = b = None
            if ready is not None:
                if not heap:                # the only ready node: no heap round trip (chains)
                    node, ready = ready, None
                    continue
                push(heap, (-ready._seq, tick, ready))
                tick += 1
                ready = None
            if not heap:
                return
            node = pop(heap)[2]
    except BaseException:     # a failing node: its profiler ranges end here
        if span is not None:
            inner.__exit__()
            span.__exit__()
        raise


_ACCUMULATE = "torch::autograd::AccumulateGrad"   # torch's profiler name for the node


def _profile_name(node) -> str:
    return _ACCUMULATE if node.__class__ is AccumulateGrad else node.name()


def _evaluate_range(name):
    """The profiler's range around running one node, as torch's engine names it."""
    return Range(f"autograd::engine::evaluate_function: {name}", "cpu_op")


def _capture(node, buf, captures, needed, results, accumulate, inputs) -> bool:
    """Records gradients flowing into the requested inputs; False when `node` need not run."""
    is_acc = node.__class__ is AccumulateGrad
    cap = captures.get(node)
    if cap is not None:
        for nr, i in cap:
            g = buf[nr]
            if is_acc and g is not None:
                g = _run_leaf_hooks(node.variable, g) if node.variable is not None else g
            results[i] = g if results[i] is None or g is None else results[i] + g
            if accumulate and not is_acc and g is not None:
                accumulate_grad(inputs[i], g, run_hooks=False)
        if is_acc and not accumulate:
            return False
    if is_acc:
        return accumulate
    return any(fn in needed for fn, _ in node.next_functions)


def _call_anomaly(node, buf):
    from .anomaly_mode import call_with_anomaly
    outputs = call_with_anomaly(node, buf)
    ex = node._extra
    if ex is not None and ex.post_hooks:
        outputs = _run_post_hooks(ex, outputs, buf)
    return outputs


def _arrays_unobserved(anomaly) -> bool:
    """Whether nodes may run their formulas on NumPy arrays (array_formulas.py): nothing
    could see the ops of the formulas (no create_graph, anomaly mode, mode or profiler)."""
    return _A.ENABLED and not (_tls.grad_enabled or anomaly) and _observers.ops_unobserved()


def _add_unobserved(a, b):
    """a + b for two gradients flowing into one input, when nothing observes the ops: the
    add kernel's own np.add on two plain CPU tensors of one float dtype and shape,
    C-contiguous (a fresh C-contiguous result, torch's layout); else the op.

    >>> x = ember.ones(2, requires_grad=True)
    >>> (x * 2 + x * 3).sum().backward()    # x's two gradients are summed
    >>> x.grad
    tensor([5., 5.])
    """
    x, y = a._np, b._np
    if a.__class__ is Tensor and b.__class__ is Tensor and _A._same_plain(x, y):
        return from_array(np.add(x, y), a._dtype)
    return a + b


def _call_multi(node, buf, anomaly, arrays=False):
    """A node with several forward outputs: zeros stand in for outputs no gradient reached."""
    if node._skip_if_no_grad and all(g is None for g in buf):
        return ()
    if node.materialize_grads:
        buf = _materialize(node, buf, arrays)
    if anomaly:
        return _call_anomaly(node, buf)
    ex = node._extra
    if arrays and ex is None:
        return node._apply_array(buf)
    outputs = node.apply(buf)
    if ex is not None and ex.post_hooks:
        outputs = _run_post_hooks(ex, outputs, buf)
    return outputs


def _run_post_hooks(ex, outputs, buf):
    for hook in ex.post_hooks:
        r = hook(outputs, tuple(buf))
        if r is not None:
            outputs = _checked_hook_values(hook, outputs, r)
    return outputs


def _materialize(node, buf, arrays=False):
    """Multi-output nodes get zeros for outputs no gradient reached (torch does too);
    `arrays` (nothing observes the ops): float CPU zeros made from NumPy's, no dispatch."""
    if all(g is not None for g in buf):
        return buf
    out = list(buf)
    for i, g in enumerate(out):
        if g is None and node._out_meta[i] is not None:   # None: an undefined output
            shape, dtype, device = node._out_meta[i]
            if arrays and (dtype is _F32 or dtype is _F64) and device is not None \
                    and device.type == "cpu":
                out[i] = from_array(np.zeros(shape, dtype.np), dtype)
            else:
                out[i] = ember.zeros(shape, dtype=dtype, device=device)
    return out


_F32, _F64 = D.float32, D.float64


def _run_pre_hooks(node, ex, buf):
    if ex.tensor_pre_hooks:
        buf = list(buf)
        for nr, hooks in ex.tensor_pre_hooks.items():
            for hook in list(hooks):
                if buf[nr] is not None:
                    r = hook(buf[nr])
                    if r is not None:
                        buf[nr] = _checked_hook_result(hook, buf[nr], r)
    if ex.retains:
        for nr, ref in ex.retains.items():
            t = ref()
            if t is not None and buf[nr] is not None:
                _retain(t, buf[nr])
    if ex.pre_hooks:
        for hook in ex.pre_hooks:
            r = hook(tuple(buf))
            if r is not None:
                buf = list(_checked_hook_values(hook, buf, r))
    return buf


def _retain(t, g):
    ag = t._ag
    if ag.grad is None:
        ag.grad = g.detach().clone() if not _tls.grad_enabled else g.clone()
    elif _tls.grad_enabled:
        ag.grad = ag.grad + g
    else:
        ag.grad = ag.grad + g.detach()


def _validate(g, meta, node, i):
    """torch's validate_outputs: shapes broadcast back to the input's, dtypes cast to it."""
    shape, dtype, device = meta
    if g._shape != shape:
        if not _expandable(shape, g._shape):
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index "
                               f"{i} - got {list(g._shape)} but expected shape compatible with "
                               f"{list(shape)}")
        from .formulas import sum_to_size
        g = sum_to_size(g, shape)
    if g._dtype is not dtype:
        from .formulas import grad_to_dtype
        g = grad_to_dtype(g, dtype)
    if g._device is not device and g._device != device and g.device != device:
        # (a FakeTensor's device is the one it stands for, its _device is meta)
        raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - "
                           f"expected device {device} but got {g._device}")
    return g


def _expandable(shape, to) -> bool:
    if len(shape) > len(to):
        return False
    for a, b in zip(reversed(shape), reversed(to)):
        if a != b and a != 1:
            return False
    return True
