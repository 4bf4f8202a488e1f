"""The backward graph: Nodes, edges, saved tensors, and how ops record history.

A recorded op's output has `grad_fn`, a Node. `node.next_functions` holds one edge
`(node, output_nr)` per differentiable input, `(None, 0)` where the input needs no
gradient. Leaves that require grad end in an `AccumulateGrad` node.

    >>> x = ember.ones(3, requires_grad=True)
    >>> y = x * 2
    >>> y.grad_fn.name(), y.grad_fn.next_functions
    ('MulBackward0', ((<AccumulateGrad ...>, 0), (None, 0)))

The generated Backward classes (generated/autograd.py) subclass `Node`; this module
holds the hand-written ones (AccumulateGrad, CopySlices, GraphRoot, NotImplemented)
and the helpers the generated Autograd kernels call: `gradient_edge`, `save`,
`set_history`, `check_inplace`, `rebase_history`.
"""
from __future__ import annotations

import itertools
import re
import weakref

from .._accel import speedups
from ..core.tensor import Tensor, shallow_copy
from ..dispatch import keys as K
from ..dispatch.tls import state as _tls
from . import meta as M
from .accumulate import accumulate_grad
from .meta import AutogradMeta, autograd_meta

AUTOGRAD_BIT = K.AUTOGRAD_BIT
ADINPLACE_BIT = K.ADINPLACE_BIT
NO_EDGE = (None, 0)
_seq = itertools.count()
_anomaly = [False, True]    # [enabled, check_nan]; see anomaly_mode.py


class Node:
    """A step of the backward graph: `apply(grads) -> grads of its inputs`.

    `grads` has one entry per forward output; the result one per edge in
    `next_functions`. `_needs[i]` says whether input i wants a gradient.
    """

    __slots__ = ("__weakref__", "_extra", "_needs", "_out_meta", "_seq", "next_functions")
    _saved_slots: tuple[str, ...] = ()        # SavedTensor slots, freed after backward
    _saved_list_slots: tuple[str, ...] = ()   # lists of SavedTensor
    _release_after_backward = False           # has saved tensors to free (no retain_graph)
    _skip_if_no_grad = True                   # generated nodes: no gradient in, none out
    materialize_grads = True                  # missing output gradients become zeros

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"

    def __call__(self, *grads):
        return self.apply(grads)

    def apply(self, grads):
        raise NotImplementedError

    def _apply_array(self, grads):
        """`apply` with the formulas over NumPy arrays where the node has them (generated
        from array_formulas.py); the engine calls it when nobody can observe the ops."""
        return self.apply(grads)

    # --- hooks and metadata (stored lazily in `_extra`) --------------------------------------
    def _ext(self) -> NodeExtra:
        ex = self._extra
        if ex is None:
            ex = self._extra = NodeExtra()
        return ex

    def register_hook(self, fn):
        """`fn(grad_inputs, grad_outputs)` runs after this node; may return new grad_inputs."""
        return _Handle(self._ext().post_hooks, fn)

    def register_prehook(self, fn):
        """`fn(grad_outputs)` runs before this node; may return new grad_outputs."""
        return _Handle(self._ext().pre_hooks, fn)

    def _register_tensor_prehook(self, output_nr, fn):
        hooks = self._ext().tensor_pre_hooks
        return _Handle(hooks.setdefault(output_nr, []), fn)

    @property
    def metadata(self) -> dict:
        return self._ext().metadata

    @property
    def _sequence_nr(self) -> int:
        return self._seq

    def _sequence_nr_fn(self):
        return self._seq

    @property
    def requires_grad(self) -> bool:
        return any(self._needs)

    @property
    def _input_metadata(self):
        return self._out_meta

    def release_variables(self) -> None:
        """Frees the saved tensors (after a backward without retain_graph)."""
        for s in self._saved_slots:
            if hasattr(self, s):
                setattr(self, s, RELEASED_SAVED)
        for s in self._saved_list_slots:
            if hasattr(self, s):
                setattr(self, s, [RELEASED_SAVED])


class NodeExtra:
    """What few nodes carry: hooks, metadata, the anomaly-mode forward stack."""

    __slots__ = ("metadata", "post_hooks", "pre_hooks", "retains", "tensor_pre_hooks", "trace")

    def __init__(self):
        self.retains = None             # output_nr -> weakref of a tensor that retains grad
        self.pre_hooks = []
        self.post_hooks = []
        self.tensor_pre_hooks = {}
        self.metadata = {}
        self.trace = None


class _Handle:
    """What register_hook returns: `handle.remove()` unregisters the hook."""

    __slots__ = ("fn", "hooks")

    def __init__(self, hooks: list, fn):
        self.hooks, self.fn = hooks, fn
        hooks.append(fn)

    def remove(self):
        if self.fn in self.hooks:
            self.hooks.remove(self.fn)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def short_name(node) -> str:
    """torch's name of a node in error messages: 'MulBackward0' -> 'Mul'."""
    return re.sub(r"Backward\d*$", "", node.name())


# --- saved tensors ------------------------------------------------------------------------------
RELEASED = ("Trying to backward through the graph a second time (or directly access saved "
            "tensors after they have already been freed). Saved intermediate values of the graph "
            "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
            "you need to backward through the graph a second time or if you need to access saved "
            "tensors after calling backward.")
INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors "
                   "created in inference mode in computation tracked by autograd. To work around "
                   "this, you can make a clone to get a normal tensor and use it in autograd, or "
                   "use `torch.no_grad()` instead of `torch.inference_mode()`.")


def version_of(t) -> int:
    st = t._storage
    return 0 if st is None else st._version


class SavedTensor:
    """A tensor saved for backward with the version it had; `unpack` checks it.

    Outputs are saved as a detached alias (no reference cycle through grad_fn) and
    get their grad_fn back when unpacked with grad mode on (double backward).
    """

    __slots__ = ("data", "output_nr", "version")

    def unpack(self, node, with_grad_fn=False):
        """The tensor, checked against in-place changes. A saved (differentiable) output gets
        `node` back as its grad_fn when grad mode is on (double backward) or `with_grad_fn`."""
        t = self.data
        if t is None:
            raise RuntimeError(RELEASED)
        st = t._storage
        if (0 if st is None else st._version) != self.version:
            raise RuntimeError(_modified_message(t, self, node))
        return self._with_history(t, node, with_grad_fn)

    def _with_history(self, t, node, with_grad_fn):
        nr = self.output_nr
        if nr is None:
            return t
        wants_history = (_tls.grad_enabled or with_grad_fn) and t._dtype.differentiable \
            and node._out_meta[nr] is not None          # not a non-differentiable output
        if _tls.dispatch_modes:
            # torch re-wraps a saved output in a new tensor (SavedVariable::unpack ->
            # make_variable -> shallow_copy_and_detach), an aten.detach that the innermost
            # mode sees: make_fx records it. Without modes the alias is made directly.
            u = t.detach()
        elif wants_history:
            u = shallow_copy(t)
        else:
            return t
        if wants_history:
            ag = u._ag = AutogradMeta()
            ag.grad_fn, ag.output_nr = node, nr
            u._ks |= AUTOGRAD_BIT
        return u


RELEASED_SAVED = SavedTensor()
RELEASED_SAVED.data = None


class _HookedSavedTensor(SavedTensor):
    """A tensor saved through `saved_tensors_hooks`: what `pack_hook` returned, given back
    to `unpack_hook` in backward. Only a weak reference to the memory is kept, for the
    in-place check."""

    __slots__ = ("described", "edge", "packed", "storage", "unpack_hook")

    def unpack(self, node, with_grad_fn=False):
        if self.unpack_hook is None:
            raise RuntimeError(RELEASED)
        st = self.storage()
        if st is not None and st._version != self.version:
            raise RuntimeError(_modified_text(self.described, st._version, self.version))
        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(t).__name__}")
        if self.output_nr is None:
            return self._input_with_history(t)
        return self._with_history(t, node, with_grad_fn)

    def _input_with_history(self, t):
        """torch's SavedVariable::unpack with hooks: what unpack_hook gave back becomes a
        new tensor (make_variable: an aten.detach the modes see) with the saved input's
        place in the graph (its grad_fn, or the accumulator of a leaf that requires grad),
        whatever the hooks did to it (a detached copy still gets double backward right);
        without one, a tensor that needs no gradient is returned as is."""
        edge = self.edge
        if edge is None and not t._ks & AUTOGRAD_BIT:
            return t
        u = t.detach() if _tls.dispatch_modes else shallow_copy(t)
        if edge is not None:
            fn, nr = edge
            ag = u._ag = AutogradMeta()
            if fn.__class__ is AccumulateGrad:
                ag.requires_grad, ag.grad_acc = True, fn
            else:
                ag.grad_fn, ag.output_nr = fn, nr
            u._ks |= AUTOGRAD_BIT
        return u


def _save_hooked(t, nr):
    """Saves `t` through the innermost saved_tensors_hooks (torch's order: the pack hook
    runs when the op records its history)."""
    pack, unpack_hook = _tls.saved_hooks[-1]
    s = _HookedSavedTensor()
    s.data = None
    st = t.untyped_storage()
    s.storage, s.version, s.output_nr = weakref.ref(st), st._version, nr
    # an input's edge, kept for unpack (torch's grad_fn_ / grad_accumulator_): the hooks
    # may give back a tensor without history
    s.edge = gradient_edge(t) if nr is None else None
    s.described = _describe(t, s, None)
    s.packed, s.unpack_hook = pack(t), unpack_hook
    return s


class saved_tensors_hooks:
    """`torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook)`: inside the
    block, every tensor an op saves for backward goes through `pack_hook(tensor) -> object`
    and comes back in backward as `unpack_hook(object) -> tensor`.

        >>> with ember.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        ...     y = ember.ones(2, requires_grad=True).exp()
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        global _hooks_entered
        _hooks_entered += 1
        _tls.saved_hooks = [*_tls.saved_hooks, (self.pack_hook, self.unpack_hook)]

    def __exit__(self, *exc_info):
        global _hooks_entered
        _hooks_entered -= 1
        _tls.saved_hooks = _tls.saved_hooks[:-1]


# how many saved_tensors_hooks blocks are open in any thread: `save` reads this global
# (cheap) before the thread's own stack (a thread-local read costs more)
_hooks_entered = 0


def unpack(saved, node):
    """A saved tensor back (None and numbers stay as they are), checking its version."""
    cls = saved.__class__
    return saved.unpack(node) if cls is SavedTensor or cls is _HookedSavedTensor else saved


def save(t) -> SavedTensor | None:
    """Saves an input tensor (None, and a Python number given for a Tensor, stay as is)."""
    if t.__class__ is not Tensor and (t is None or not isinstance(t, Tensor)):
        return t
    if not t._ks & ADINPLACE_BIT:
        raise RuntimeError(INFERENCE_SAVED)
    if _hooks_entered and _tls.saved_hooks:
        return _save_hooked(t, None)
    s = SavedTensor()
    s.data = t
    st = t._storage
    s.version = 0 if st is None else st._version
    s.output_nr = None
    return s


def save_output(t, nr: int = 0) -> SavedTensor:
    if _hooks_entered and _tls.saved_hooks:
        return _save_hooked(t, nr)
    s = SavedTensor()
    # an alias without grad_fn (no reference cycle through it); dispatched (aten.detach)
    # when a mode records the program
    d = s.data = t.detach() if _tls.dispatch_modes else shallow_copy(t)
    s.version = d._storage._version
    s.output_nr = nr
    return s


def save_list(ts) -> list:
    return [save(t) for t in ts]


def _modified_message(t, saved, node) -> str:
    return _modified_text(_describe(t, saved, node), version_of(t), saved.version)


def _describe(t, saved, node) -> str:
    """How the in-place error names a saved tensor: type, shape, and whose output it is."""
    what = f"[{t.type()} [{', '.join(map(str, t.shape))}]]"
    if saved.output_nr is not None and node is not None:
        what += f", which is output {saved.output_nr} of {short_name(node)},"
    else:
        fn = t.grad_fn
        if fn is not None:
            what += f", which is output {t._ag.output_nr} of {short_name(fn)},"
    return what


def _modified_text(what, version, expected) -> str:
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {what} is at version {version}; expected version "
            f"{expected} instead. Hint: enable anomaly detection to find the operation that "
            "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
            "check_nan=False).")


# --- edges --------------------------------------------------------------------------------------
def gradient_edge(t):
    """The edge a gradient for `t` flows into, or None when `t` needs no gradient."""
    try:
        if not t._ks & AUTOGRAD_BIT:
            return None
    except AttributeError:      # a Python number passed for a Tensor argument
        return None
    ag = t._ag
    av = ag.attr_version
    if av is not None and av != t._storage._version:
        return (regenerate_view_grad_fn(t), 0)
    fn = ag.grad_fn
    if fn is None:      # a leaf: its accumulator (grad_accumulator, inlined)
        fn = ag.grad_acc
        return (grad_accumulator(t) if fn is None else fn, 0)
    return (fn, ag.output_nr)


def grad_accumulator(t) -> AccumulateGrad:
    """The leaf's AccumulateGrad node, shared by every op that uses the leaf."""
    ag = t._ag
    acc = ag.grad_acc
    if acc is None:
        acc = ag.grad_acc = AccumulateGrad(t)
    return acc


def current_grad_fn(t):
    """`t.grad_fn`, regenerating a view's grad_fn after an in-place op on its base."""
    ag = t._ag
    if ag is None:
        return None
    av = ag.attr_version
    if av is not None and t._ks & AUTOGRAD_BIT and av != t._storage._version:
        return regenerate_view_grad_fn(t)
    return ag.grad_fn


def regenerate_view_grad_fn(view):
    """After an in-place op changed a view's base, the view's history is replayed from
    the base with `as_strided` (torch's AsStridedBackward0)."""
    ag = view._ag
    if ag.creation_meta in _VIEW_REASONS:
        raise _view_error(view, ag, "its base or another view of its base has been modified "
                          "inplace")
    base = view._base
    prev = _tls.grad_enabled
    _tls.grad_enabled = True
    try:
        replay = base.as_strided(view._shape, view.stride(), view._offset)
    finally:
        _tls.grad_enabled = prev
    ag = view._ag
    ag.grad_fn = replay._ag.grad_fn
    ag.output_nr = 0
    ag.attr_version = view._storage._version
    return ag.grad_fn


# --- recording history ----------------------------------------------------------------------------
def new_node(cls, edges, needs):
    node = cls()
    node.next_functions = edges
    node._needs = needs
    node._seq = next(_seq)
    node._extra = None
    if _anomaly[0]:
        from .anomaly_mode import record_forward_stack
        record_forward_stack(node)
    return node


def set_history(t, node, nr: int = 0, differentiable: bool = True):
    """Makes `t` output `nr` of `node` (integer and bool outputs never require grad)."""
    if differentiable and t._dtype.differentiable:
        ag = t._ag
        if ag is None:
            ag = t._ag = AutogradMeta()
        ag.grad_fn = node
        ag.output_nr = nr
        t._ks |= AUTOGRAD_BIT
        if t._base is not None:
            ag.attr_version = t.untyped_storage()._version
    return (t._shape, t._dtype, t._device)


# the reductions whose `dtype=` may make their output integral or bool: torch refuses to
# record them ("Autograd not support dtype: Long"; _to_copy, copy and view.dtype just give
# an output that does not require grad)
_REFUSE_INTEGRAL_OUTPUT = frozenset((
    "SumBackward0", "SumBackward1", "NansumBackward0", "ProdBackward0", "ProdBackward1",
    "CumsumBackward0", "CumprodBackward0"))


def set_history_one(t, node):
    """set_history for the single output of `node` (the hot path, inlined)."""
    dt = t._dtype
    if dt.differentiable:
        ag = t._ag
        if ag is None:
            ag = t._ag = AutogradMeta()
            ag.grad_fn = node
        else:
            ag.grad_fn = node
            ag.output_nr = 0
        t._ks |= AUTOGRAD_BIT
        if t._base is not None:
            ag.attr_version = t.untyped_storage()._version
    elif type(node).__name__ in _REFUSE_INTEGRAL_OUTPUT:
        raise RuntimeError(f"Autograd not support dtype: {dt.scalar_name}")
    node._out_meta = ((t._shape, dt, t._device),)


def set_history_many(ts, node, differentiable=None, multi_view=False):
    """History for ops with several outputs (or a list output)."""
    metas = []
    for i, t in enumerate(ts):
        if t is None:           # an undefined output (convolution_backward's output_mask)
            metas.append(None)
            continue
        diff = True if differentiable is None else differentiable[i]
        # a non-differentiable output (nll_loss's total_weight) takes no gradient: no
        # metadata, so the engine does not make zeros for it at each backward
        metas.append(set_history(t, node, i) if diff else None)
        if multi_view and t._ag is not None:
            t._ag.creation_meta = M.MULTI_OUTPUT_NODE
    node._out_meta = tuple(metas)


def mark_no_grad_view(out, base):
    """A view of a tensor that requires grad, made while grad mode is off: like torch, it
    requires grad, and modifying it in place with grad mode on is an error."""
    if base._ks & AUTOGRAD_BIT:
        for v in (out if isinstance(out, (tuple, list)) else (out,)):
            autograd_meta(v).creation_meta = M.NO_GRAD_MODE
            v._ks |= AUTOGRAD_BIT
    return out


def mark_inference_view(view, base):
    """A view of a normal tensor made inside inference_mode (called by make_view)."""
    autograd_meta(view).creation_meta = M.INFERENCE_MODE
    if base._ks & AUTOGRAD_BIT:
        view._ks |= AUTOGRAD_BIT


# --- in-place ops -------------------------------------------------------------------------------
_VIEW_MESSAGES = {
    M.NO_GRAD_MODE: (
        "A view was created in no_grad mode and is being modified inplace with grad mode "
        "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can "
        "clarify your code by moving both the view and the inplace either both inside the no_grad "
        "block (if you don't want the inplace to be tracked) or both outside (if you want the "
        "inplace to be tracked)."),
    M.INFERENCE_MODE: (
        "A view was created in inference mode and is being modified inplace in normal mode. Given "
        "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
        "code by moving both the view and the inplace either both inside the inference_mode block "
        "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
        "to be tracked)."),
}


_VIEW_REASONS = {
    M.MULTI_OUTPUT_NODE: (
        "This view is the output of a function that returns multiple views. Such functions do "
        "not allow the output views to be modified inplace. You should replace the inplace "
        "operation by an out-of-place one."),
    M.IN_CUSTOM_FUNCTION: (
        "This view was created inside a custom Function (or because an input was returned "
        "as-is) and the autograd logic to handle view+inplace would override the custom "
        "backward associated with the custom Function, leading to incorrect gradients. This "
        "behavior is forbidden. You can fix this by cloning the output of the custom Function."),
}


def _view_error(t, ag, what: str) -> RuntimeError:
    fn = ag.grad_fn
    return RuntimeError(f"Output {ag.output_nr} of {short_name(fn) if fn else 'a function'} is a "
                        f"view and {what}. {_VIEW_REASONS[ag.creation_meta]}")


def check_inplace(t) -> None:
    """torch's checks before recording an in-place op on `t` (something requires grad)."""
    ag = t._ag
    if t._base is not None:
        cm = ag.creation_meta if ag is not None else M.DEFAULT
        if cm in _VIEW_REASONS:
            raise _view_error(t, ag, "is being modified inplace")
        if cm in _VIEW_MESSAGES:
            raise RuntimeError(_VIEW_MESSAGES[cm])
        base = t._base
        bag = base._ag
        if bag is not None and bag.requires_grad and bag.grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
    elif ag is not None and ag.requires_grad and ag.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def rebase_history(t, node) -> None:
    """`t` was modified in place by the op `node` records. For a view, the base's
    history is rewritten with CopySlices so gradients reach the base and its other views."""
    node._out_meta = ((t._shape, t._dtype, t._device),)
    if not t._dtype.differentiable:      # an integer tensor never requires grad
        return
    if t._base is not None:
        base = t._base
        copy_slices = CopySlices(base, t, node)
        bag = autograd_meta(base)
        bag.grad_fn, bag.output_nr = copy_slices, 0
        base._ks |= AUTOGRAD_BIT
        ag = autograd_meta(t)
        ag.grad_fn, ag.output_nr = None, 0
        ag.attr_version = -1          # regenerated from the base on next use
        t._ks |= AUTOGRAD_BIT
        return
    ag = autograd_meta(t)
    ag.grad_fn, ag.output_nr = node, 0
    t._ks |= AUTOGRAD_BIT


# --- hand-written nodes ---------------------------------------------------------------------------
class AccumulateGrad(Node):
    """Ends the graph at a leaf: adds the incoming gradient into `leaf.grad`.

    The leaf keeps its accumulator (so a training loop does not rebuild it each step)
    and the accumulator refers to the leaf weakly, so neither keeps the other alive.
    """

    __slots__ = ("_variable",)

    def __init__(self, variable):
        self._variable = weakref.ref(variable)
        self.next_functions = ()
        self._needs = ()
        self._seq = 1 << 62            # ready leaves accumulate first, as in torch
        self._extra = None
        self._out_meta = ((variable._shape, variable._dtype, variable._device),)

    @property
    def variable(self):
        """The leaf (None once it is gone)."""
        return self._variable()

    def apply(self, grads):
        variable = self._variable()
        if variable is not None:
            accumulate_grad(variable, grads[0])
        return ()


class GraphRoot(Node):
    """The node a backward pass starts from: hands the root gradients to the roots."""

    __slots__ = ("grads",)

    def __init__(self, edges, grads):
        self.next_functions = tuple(edges)
        self._needs = (True,) * len(self.next_functions)
        self._seq = 1 << 63
        self._extra = None
        self._out_meta = ()
        self.grads = grads

    def apply(self, grads):
        return self.grads


class NotImplementedNode(Node):
    """Recorded by ops without a derivatives.yaml entry: backward through them fails."""

    __slots__ = ("op_name",)

    def name(self):
        return "NotImplemented"

    def apply(self, grads):
        raise RuntimeError(f"derivative for {self.op_name} is not implemented")


class Error(Node):
    """A node whose backward raises (e.g. once_differentiable under create_graph)."""

    __slots__ = ("message",)

    def apply(self, grads):
        raise RuntimeError(self.message)


class CopySlices(Node):
    """The base's new grad_fn after an in-place op `fn` on one of its views.

    Backward: the base's gradient, with the view's region replaced by what `fn`
    gives for its first input; `fn`'s other inputs get their gradients directly.
    """

    __slots__ = ("base_geometry", "fn", "view_geometry")
    _release_after_backward = True

    def __init__(self, base, view, fn):
        base_edge = gradient_edge(base)
        self.fn = fn
        self.base_geometry = (base._shape, base.stride(), base._offset)
        self.view_geometry = (view._shape, view.stride(), view._offset - base._offset)
        self.next_functions = (base_edge or NO_EDGE, *fn.next_functions[1:])
        self._needs = (base_edge is not None, *fn._needs[1:])
        self._seq = next(_seq)
        self._out_meta = ((base._shape, base._dtype, base._device),)
        self._extra = None

    def apply(self, grads):
        grad = grads[0]
        shape, stride, _ = self.base_geometry
        result = grad.new_empty_strided(shape, stride)
        result.copy_(grad)
        vshape, vstride, voffset = self.view_geometry
        grad_slice = result.as_strided(vshape, vstride, voffset)
        res = self.fn.apply((grad_slice.clone(),))
        if res[0] is None:
            grad_slice.zero_()
        else:
            grad_slice.copy_(res[0])
        return (result, *res[1:])

    def release_variables(self):
        self.fn.release_variables()


def as_tensor(x):
    """A Python number given for a Tensor argument, as a wrapped 0-d CPU tensor."""
    from ..dispatch.argcheck import wrap_number
    return wrap_number(x)


# --- the same helpers in C (ember/_speedups_record.c) -----------------------------------------
# The Python functions above stay the references (py_*): the C versions call them for every
# case off the common path, and tests/autograd/test_speedups_record.py compares the two.
py_gradient_edge, py_new_node, py_save, py_save_output, py_set_history_one = (
    gradient_edge, new_node, save, save_output, set_history_one)
if speedups is not None:
    from ..core.device import CPU as _CPU
    from ..core.storage import Storage as _Storage
    from ..core.tensor import _FUNCTIONALIZE_BIT, _NO_HISTORY
    speedups.setup_recording(
        Node, SavedTensor, _Storage, AutogradMeta,
        (py_gradient_edge, py_new_node, py_save, py_save_output, py_set_history_one), _seq,
        _anomaly, globals(), _tls, _CPU, AUTOGRAD_BIT, ADINPLACE_BIT, _NO_HISTORY,
        _FUNCTIONALIZE_BIT)
    gradient_edge, new_node, save = speedups.gradient_edge, speedups.new_node, speedups.save
    save_output, set_history_one = speedups.save_output, speedups.set_history_one
