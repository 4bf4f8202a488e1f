"""AOT autograd (torch._functorch.aot_autograd's place): a graph's forward and backward
traced ahead of time into one joint graph, split into a forward and a backward graph, each
handed to a compiler, and run under one autograd node.

    joint(primals, tangents) = (outputs, grads of the outputs w.r.t. the primals)

The forward graph computes the outputs, performs the input mutations (BatchNorm's running
statistics) and returns what the backward graph reads (the saved values); the backward
graph takes the saved values and the outputs' gradients and returns the inputs' gradients.
No autograd graph is recorded op by op at run time: CompiledFunctionBackward is the
only node.

    >>> from ember.fx.experimental.proxy_tensor import make_fx
    >>> f = lambda w, x: ((w * x).sin(),)
    >>> w, x = ember.randn(3, requires_grad=True), ember.randn(3)
    >>> compiled = aot_graph(make_fx(f)(w, x), [w, x])
    >>> compiled(w, x)[0].sum().backward()
    >>> bool(((w.grad - (x * (w * x).cos())).abs() < 1e-6).all())
    True
"""
from __future__ import annotations

import ember

from ..autograd.function import _alias
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..autograd.graph import NO_EDGE, RELEASED, Node, gradient_edge, new_node, set_history
from ..core.tensor import Tensor, from_array, shallow_copy
from ..dispatch.tls import state as _tls
from ..fx.graph import Graph
from ..fx.graph_module import GraphModule
from .partitioners import default_partition


def _identity(gm, example_inputs):
    return gm


def aot_graph(gm, example_inputs, fw_compiler=_identity, bw_compiler=None,
              decompositions=None, inference_compiler=None, partition_fn=default_partition):
    """`gm` (a graph of aten ops returning a list or tuple of outputs) compiled ahead of
    time for `example_inputs`' requires_grad flags; returns a callable taking the same
    inputs and returning the outputs as a tuple. `partition_fn` splits the joint graph
    (ember._functorch.partitioners)."""
    from ..fx.experimental.proxy_tensor import make_fx
    bw_compiler = bw_compiler or fw_compiler
    needs = [isinstance(t, Tensor) and t.requires_grad for t in example_inputs]
    mode, outs = _fake_outputs(gm, example_inputs)
    inference = not (any(needs) and is_grad_enabled()) or not any(
        isinstance(o, Tensor) and o.requires_grad for o in outs)    # (an optimizer step)
    n_user = len(outs)
    replays = _view_replays(gm)
    replays, bases = _intermediate_bases(replays, n_user, inference)
    if bases:       # returned too, hidden: their views are replayed on them
        gm = _with_extra_outputs(gm, bases)
        mode, outs = _fake_outputs(gm, example_inputs)
    replayed = {r[0] for r in replays}
    aliases = [a for a in _output_aliases(outs, example_inputs, mode) if a[0] not in replayed]
    if inference:
        with no_grad():
            fw = make_fx(gm, decompositions, tracing_mode="fake",
                         _allow_non_fake_inputs=True)(*example_inputs)
        run = (inference_compiler or fw_compiler)(fw, example_inputs)
        return _regenerating(lambda *args: tuple(run(*args)), aliases, replays, n_user)
    diff_outs, tangents = _differentiable_outputs(outs, example_inputs, mode)
    n_in = len(example_inputs)
    grad_inputs = [i for i, need in enumerate(needs) if need]

    def joint(*flat):
        primals, cotangents = flat[:n_in], flat[n_in:]
        outs = list(gm(*primals))
        from ..autograd import grad
        grads = grad([outs[i] for i in diff_outs], [primals[i] for i in grad_inputs],
                     list(cotangents), allow_unused=True)
        return outs + [g for g in grads]
    # functionalized: backward formulas write into fresh zeros (select_backward's copy_);
    # a graph of functional ops is what a partition may split
    from ..func import functionalize
    joint_gm = make_fx(functionalize(joint), decompositions, tracing_mode="fake",
                       _allow_non_fake_inputs=True)(*example_inputs, *tangents)
    fw_gm, bw_gm, n_out = partition_fn(joint_gm, n_in, len(tangents), len(grad_inputs))
    fw = fw_compiler(fw_gm, example_inputs)
    bw = bw_compiler(bw_gm, None)
    return _regenerating(_function_runner(fw, bw, n_in, n_out, diff_outs, grad_inputs),
                         aliases, replays, n_user)


def _fake_outputs(gm, example_inputs):
    """(the fake mode, gm's outputs on fakes of the inputs); fake example inputs, symbolic
    sizes included, run in their own mode."""
    from .._subclasses.fake_tensor import FakeTensor, FakeTensorMode
    mode = next((t.fake_mode for t in example_inputs if isinstance(t, FakeTensor)), None)
    if mode is None:
        mode = FakeTensorMode(allow_non_fake_inputs=True)
    fakes = [mode.from_tensor(t) if isinstance(t, Tensor) else t for t in example_inputs]
    with mode:
        return mode, list(gm(*fakes))


def _differentiable_outputs(outs, example_inputs, mode):
    """Which outputs require grad, and a zero cotangent for each."""
    from .._subclasses.fake_tensor import FakeTensor
    diff = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
    with mode:
        tangents = [ember.zeros(outs[i].shape, dtype=outs[i].dtype, device=outs[i].device)
                    for i in diff]
    if not any(isinstance(t, FakeTensor) for t in example_inputs):
        tangents = [ember.zeros(t.shape, dtype=t.dtype, device=t.device) for t in tangents]
    return diff, tangents


def _output_aliases(outs, example_inputs, mode):
    """[(output index, input index, size, stride, offset)] for the outputs that are views
    of an input (static sizes, same dtype): compilers return fresh tensors, so the runtime
    regenerates these views from the input, as torch's AOT autograd does."""
    fakes = [mode.from_tensor(t) if isinstance(t, Tensor) else t for t in example_inputs]
    out = []
    for j, o in enumerate(outs):
        if not isinstance(o, Tensor) or o._storage is None:
            continue
        i = next((i for i, f in enumerate(fakes) if isinstance(f, Tensor)
                  and f._storage is o._storage and f.is_conj() == o.is_conj()
                  and f.dtype == o.dtype), None)        # (dtype views stay fresh tensors)
        layout = (tuple(o.shape), tuple(o.stride()), o.storage_offset())
        if i is not None and all(type(v) is int for part in layout[:2] for v in part) \
                and type(layout[2]) is int:
            out.append((j, i, *layout))
    return out


def _view_replays(gm):
    """[(output index, (\"input\" or \"output\", its index), view nodes)] for the outputs
    of `gm` that are a chain of view ops of an input or of another output, in graph order.
    Compiled graphs return fresh tensors; the runtime replays these views on the real
    inputs and outputs instead, so the caller gets eager's views (`._base`, shared storage
    and version counter, the view's grad_fn: `ViewBackward0`), as torch's AOT autograd
    does. The views' other arguments are constants or sizes (SymInts) computed from the
    inputs.

        t = aten.t(x); u = aten.unsqueeze(t, 0); return [u, t * 2]
        -> [(0, ("input", 0), [t, u])]
    """
    nodes = list(gm.graph.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    outputs = list(next(n for n in nodes if n.op == "output").args[0])
    position = {}
    for k, o in enumerate(outputs):
        if hasattr(o, "op"):
            position.setdefault(o, k)
    replays = []
    for j, o in enumerate(outputs):
        chain, n = [], o
        while hasattr(n, "op") and n.op == "call_function" and "view" in getattr(
                n.target, "tags", ()) and n.args and hasattr(n.args[0], "op") and (
                n is o or position.get(n) is None):
            chain.append(n)
            n = n.args[0]
        if not chain and getattr(o, "op", None) == "placeholder":
            replays.append((j, ("input", placeholders.index(o)), []))   # the input itself
            continue
        if not chain or not all(_size_only(a) for c in chain for a in (*c.args[1:],
                                                                      *c.kwargs.values())):
            continue
        if n.op == "placeholder":
            root = ("input", placeholders.index(n))
        elif position.get(n, j) != j:
            root = ("output", position[n])
        else:
            root = ("intermediate", n)     # (see _intermediate_bases)
        replays.append((j, root, chain[::-1]))
    order = {n: i for i, n in enumerate(nodes)}
    replays.sort(key=lambda r: order[outputs[r[0]]])
    return [(j, root, chain, placeholders) for j, root, chain in replays]


def _intermediate_bases(replays, n_user: int, inference: bool):
    """(replays, base nodes): the views of an intermediate value (a node neither input nor
    output) get it as a hidden extra output (`("output", n_user + k)`), as torch's AOT
    autograd does: always in inference (the outputs are views, as eager's), under autograd
    only when several outputs are views of one intermediate (they share memory; a lone
    view of an intermediate is returned as a fresh tensor, torch's unsafe_view alias).
    Others are dropped: those outputs stay the compiled graph's."""
    count: dict = {}
    for _, (kind, root), *_ in replays:
        if kind == "intermediate":
            count[root] = count.get(root, 0) + 1
    bases, kept = [], []
    for j, (kind, root), chain, placeholders in replays:
        if kind == "intermediate":
            if not inference and count[root] < 2:
                continue
            if root not in bases:
                bases.append(root)
            root = ("output", n_user + bases.index(root))
        else:
            root = (kind, root)
        kept.append((j, root, chain, placeholders))
    return kept, bases


def _with_extra_outputs(gm, nodes):
    """A copy of `gm` returning `nodes` after its own outputs."""
    graph = Graph()
    val_map: dict = {}
    outs = graph.graph_copy(gm.graph, val_map)
    graph.output((*outs, *(val_map[n] for n in nodes)))
    return GraphModule(gm, graph)


def _size_only(a) -> bool:
    """Whether a view's argument is a constant or a size computed from the inputs
    (`sym_size(x, 0) - 1`)."""
    from ..core.sym import is_sym_scalar
    if isinstance(a, (list, tuple)):
        return all(map(_size_only, a))
    if not hasattr(a, "op"):
        return True
    if a.op == "placeholder":      # (an input: a size, or the tensor sym_size reads)
        return True
    return a.op == "call_function" and is_sym_scalar(a.meta.get("val")) and all(
        map(_size_only, a.args))


def _size_value(a, env):
    """A view argument's value on the real inputs (`env`: placeholder -> its argument)."""
    if isinstance(a, (list, tuple)):
        return type(a)(_size_value(x, env) for x in a)
    if not hasattr(a, "op"):
        return a
    if a not in env:
        env[a] = a.target(*(_size_value(x, env) for x in a.args))
    return env[a]


def _replay(view_nodes, base, env):
    for c in view_nodes:
        base = c.target(base, *(_size_value(a, env) for a in c.args[1:]),
                        **{k: _size_value(v, env) for k, v in c.kwargs.items()})
    return base


def _regenerating(run, aliases, replays=(), n_user=None):
    """`run` with its outputs that alias inputs or other outputs made views again: replayed
    view ops (_view_replays), or as_strided of the input (`aliases`, _output_aliases);
    only the first `n_user` outputs are returned (the others are hidden view bases)."""
    if not aliases and not replays:
        return run

    def regenerate(*args):
        outs = list(run(*args))
        for j, i, size, stride, offset in aliases:
            outs[j] = args[i].as_strided(size, stride, offset)
        for j, (kind, i), view_nodes, placeholders in replays:
            base = args[i] if kind == "input" else outs[i]
            outs[j] = _replay(view_nodes, base, dict(zip(placeholders, args)))
        return tuple(outs[:n_user])
    return regenerate


class CompiledFunctionBackward(Node):
    """The one autograd node of a compiled forward (torch's CompiledFunctionBackward): built
    directly, not through `Function.apply`. Node output k is the k-th differentiable
    output; its edges are those of the inputs that need a gradient. `apply` runs the
    backward graph (`bw(saved, grads, out_meta)`, see _backward) on the forward's saved
    values and the outputs' gradients."""

    __slots__ = ("bw", "saved")
    _release_after_backward = True
    _skip_if_no_grad = False             # a Function's backward runs then too (zeros in)

    def apply(self, grads):
        saved = self.saved
        if saved is None:
            raise RuntimeError(RELEASED)
        return self.bw(saved, grads, self._out_meta)

    def release_variables(self) -> None:
        self.saved = None


def _tangents(grads, metas):
    """The outputs' gradients as the backward graph was traced with them: zeros for a
    missing one, contiguous (torch's AOT autograd does the same: a formula's layout checks
    ran on those)."""
    return [ember.zeros(shape, dtype=dt, device=dev) if g is None else g.contiguous()
            for g, (shape, dt, dev) in zip(grads, metas)]


def _backward(bw, bw_arrays):
    """The node's `bw`: the backward graph on the saved values (tensors, or with
    `bw_arrays`, the array form of a lowered graph, the forward's arrays) and the
    tangents."""
    def run(saved, grads, metas):
        return tuple(bw(*saved, *_tangents(grads, metas)))
    if bw_arrays is None:
        return run
    from .._inductor.runtime import arrays_of, wrap

    def run_arrays(saved, grads, metas):
        tangents, arrays = grads, _contiguous_arrays(grads)
        if arrays is None:                 # (a missing or strided gradient)
            tangents = _tangents(grads, metas)
            arrays = arrays_of(tangents)
            if arrays is None:             # (a gradient that is not CPU data)
                return tuple(bw(*map(from_array, saved), *tangents))
        # (a gradient is a function of the tangents: never a saved array given back)
        return tuple(wrap(bw_arrays(*saved, *arrays), tangents, arrays))
    return run_arrays


def _contiguous_arrays(grads):
    """The gradients' arrays when each is a C-contiguous CPU array (the usual case), else
    None."""
    out = []
    for g in grads:
        a = None if g is None else g._np
        if a is None or not a.flags.c_contiguous:
            return None
        out.append(a)
    return out


def _function_runner(fw, bw, n_in, n_out, diff_outs, grad_inputs):
    """Runs `fw` and, with grad mode on, makes its differentiable outputs the outputs of a
    new CompiledFunctionBackward over the edges of the inputs in `grad_inputs`. When both
    graphs have an array form (`.arrays`: inductor's modules), the saved values stay the
    forward's arrays: no tensor is made for them, or unwrapped by the backward."""
    fw_arrays = getattr(fw, "arrays", None)
    bw_arrays = getattr(bw, "arrays", None) if fw_arrays is not None else None
    backward = _backward(bw, bw_arrays)
    if bw_arrays is not None:
        from .._inductor.runtime import arrays_of, wrap

    def forward(args):
        """(outputs, saved values, the node's bw)."""
        if bw_arrays is not None:
            arrays = arrays_of(args)
            if arrays is not None:
                res = fw_arrays(*arrays)
                return wrap(res[:n_out], args, arrays), res[n_out:], backward
        res = fw(*args)
        return res[:n_out], res[n_out:], backward if bw_arrays is None else _backward(bw, None)

    def run(*args):
        if not _tls.grad_enabled:
            return tuple(forward(args)[0])
        edges = [gradient_edge(args[i]) for i in grad_inputs]   # (before an in-place write)
        outs, saved, bw_run = forward(args)
        if not any(edges):
            return tuple(outs)
        node = new_node(CompiledFunctionBackward, tuple(e or NO_EDGE for e in edges),
                        tuple(e is not None for e in edges))
        node.bw, node.saved = bw_run, saved
        metas = []
        for k, i in enumerate(diff_outs):
            o = outs[i]
            if any(o is a for a in args):      # an input given back: its alias gets the node
                o = outs[i] = _alias(o)
            elif o._base is not None and not any(o._base is a for a in args):
                # a view of an intermediate (aot_eager runs the graph's view op) is returned
                # as a fresh tensor, torch's unsafe_view alias
                o = outs[i] = shallow_copy(o)
            metas.append(set_history(o, node, k))
        node._out_meta = tuple(metas)
        return tuple(outs)
    return run
