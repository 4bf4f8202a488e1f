"""Functionalization (seed 004): running a program's mutations and views as functional ops.

A `FunctionalTensor` (torch's FunctionalTensorWrapper) carries the Functionalize key and
wraps an inner tensor, its current value. Tensors that alias one another share one
`FunctionalStorage` holding the value of their common base; each wrapper also keeps the
chain of views (`ViewMeta`s) that makes it from the base. At the Functionalize key
(kernels generated from the schema's alias annotations, generated/functionalization.py):

- a functional op unwraps its inputs, runs below the key and wraps its outputs;
- a mutation `x.add_(y)` runs the functional `add(x, y)`; the result becomes x's value
  and is scattered into the base through the inverse of x's view chain
  (`select_scatter`, `slice_scatter`, ...): the storage's generation goes up;
- a view `x[0]` runs the view (or its `{view}_copy` when views are removed) and shares
  x's storage, with one more ViewMeta;
- before use, a wrapper whose storage moved on replays its view chain on the new base
  (alias regeneration, done lazily).

    >>> import ember
    >>> x = ember._to_functional_tensor(ember.zeros(2, 2))
    >>> with ember._subclasses.functional_tensor.functionalizing():
    ...     _ = x[0].add_(1)
    >>> ember._from_functional_tensor(x)
    tensor([[1., 1.],
            [0., 0.]])
"""
from __future__ import annotations

from contextlib import contextmanager

from ..core.tensor import Tensor, contiguous_format
from ..dispatch import keys as K
from ..dispatch.dispatcher import ops, register_fallback
from ..dispatch.tls import state as _tls
from ..overrides import _disabled_torch_function_impl

FUNC_BIT = K.bit(K.Functionalize)
capturing = [False]     # set while ember.compile captures (see __repr__)
# Inner calls run without Functionalize and the keys that already ran on the wrappers
# (autocast, autograd, view bookkeeping); Conjugate stays: the values carry the conj bit.
_INNER_KEEP = K.FULL & ~(FUNC_BIT | K.ADINPLACE_BIT | K.AUTOGRAD_BIT | K.bit(K.AutocastCPU)
                         | K.bit(K.AutocastCUDA) | K.bit(K.PreDispatch))
aten = ops.aten


class FunctionalStorage:
    """The state aliasing wrappers share: the base's current value and its generation
    (bumped by every mutation, so stale aliases know to regenerate)."""
    __slots__ = ("base", "generation", "mutated", "remove_views")

    def __init__(self, base, remove_views):
        self.base = base
        self.generation = 0
        self.mutated = False           # the input-mutation epilogue reads it
        self.remove_views = remove_views


class ViewMeta:
    """One step of a view chain: how to replay the view on a base and how to write a
    mutated view back into its base (the functional inverse)."""
    __slots__ = ("copy_op", "index", "op", "rest")

    def __init__(self, op, copy_op, rest, index=None):
        self.op, self.copy_op, self.rest, self.index = op, copy_op, rest, index

    def forward(self, base, remove_views):
        op = self.copy_op if remove_views and self.copy_op is not None else self.op
        out = op._entry(base, *self.rest)
        return out if self.index is None else out[self.index]

    def inverse(self, base, mutated, remove_views):
        return _inverse(self, base, mutated, remove_views)


class FunctionalTensor(Tensor):
    """A tensor whose ops run functionally on its inner value (see the module docstring).

    Made by `ember._to_functional_tensor(t)`; `ember._from_functional_tensor(f)` gives the
    (synced) value back."""
    __slots__ = ("_fstorage", "_generation", "_metas", "_value")
    # its ops reach the Functionalize key through the dispatcher: no __torch_function__
    # (so defining the class leaves every other op on the fast path)
    __torch_function__ = _disabled_torch_function_impl

    def __repr__(self):
        if capturing[0]:        # ember.compile: printing needs the data (a graph break)
            raise RuntimeError("printing a tensor reads its data")
        return f"FunctionalTensor({_sync_value(self)!r})"

    def __format__(self, spec):
        return self.__repr__() if not spec else format(self.item(), spec)

    def is_conj(self):
        return _sync_value(self).is_conj()

    # data reads go to the synced value (a fake one raises: the value is data-dependent)
    def item(self):
        return _sync_value(self).item()

    def tolist(self):
        return _sync_value(self).tolist()

    def numpy(self, *, force=False):
        return _sync_value(self).numpy(force=force)

    def _host_array(self):
        return _sync_value(self)._host_array()


def _new_wrapper(value, storage, metas=(), version_of=None):
    t = Tensor._make_wrapper_subclass(FunctionalTensor, value._shape, value.stride(),
                                      value._offset, dtype=value._dtype, device=value.device)
    # the conjugate bit stays with the value: ops on it resolve it there, once
    t._ks = (value._ks & ~(K.AUTOGRAD_BIT | K.PYTHON_BIT | K.CONJ_BIT)) | FUNC_BIT
    t._value = value
    t._fstorage = storage
    t._metas = metas
    t._generation = storage.generation
    if version_of is not None:         # views share the version counter of their base
        t._storage = version_of._storage
    return t


def _set_value(t, value):
    """t's value becomes `value`. With views removed a wrapper keeps the layout the view
    would have had (its value is a contiguous copy), unless the shape changed."""
    t._value = value
    if not t._fstorage.remove_views or value._shape != t._shape or value._dtype != t._dtype:
        t._shape, t._stride, t._offset = value._shape, value.stride(), value._offset
        t._dtype = value._dtype


def _reference_view(op, t, rest):
    """With views removed: the view run on a meta tensor of t's logical layout (torch's
    reference output), for eager's errors and eager's strides; nothing is traced."""
    from .meta_utils import no_dispatch_modes
    extent = t._offset + 1 + sum((n - 1) * st for n, st in zip(t._shape, t._stride) if n)
    size = max(extent, t._fstorage.base.numel())
    with _inner(), no_dispatch_modes():
        probe = aten.empty.memory_format([size], dtype=t._dtype, device="meta")
        return op._entry(aten.as_strided.default(probe, t._shape, t._stride, t._offset), *rest)


def _take_layout(w, ref):
    w._shape, w._stride, w._offset = ref._shape, ref.stride(), ref._offset
    return w


def to_functional(t: Tensor, remove_views: bool = False) -> FunctionalTensor:
    """`ember._to_functional_tensor`: a wrapper around `t` (which it does not copy)."""
    _ensure_kernels()
    if isinstance(t, FunctionalTensor):
        raise RuntimeError(  # noqa: TRY004  (torch raises RuntimeError)
            "_to_functional_tensor: the tensor is already a functional tensor")
    w = _new_wrapper(t, FunctionalStorage(t, remove_views))
    if t.requires_grad:
        w.requires_grad_(True)
    return w


def is_functional(t) -> bool:
    return isinstance(t, FunctionalTensor)


def sync(t) -> None:
    """`ember._sync`: bring `t`'s value up to date with its storage."""
    if isinstance(t, FunctionalTensor):
        _sync_value(t)


def from_functional(t):
    """`ember._from_functional_tensor`: the synced inner value."""
    if not isinstance(t, FunctionalTensor):
        raise RuntimeError(  # noqa: TRY004  (torch raises RuntimeError)
            "_from_functional_tensor: expected a functional tensor")
    return _sync_value(t)


def _sync_value(t):
    """t's value, regenerated from the base when the storage moved on since t last saw it."""
    s = t._fstorage
    if t._generation != s.generation:
        with _inner():
            value = s.base
            for m in t._metas:
                value = m.forward(value, s.remove_views)
        _set_value(t, value)
        t._generation = s.generation
    return t._value


@contextmanager
def _inner():
    """Run below the Functionalize key (torch's AutoDispatchSkipFunctionalize)."""
    old = _tls.masks
    _tls.masks = (old[0] & ~FUNC_BIT, old[1] & _INNER_KEEP)
    try:
        yield
    finally:
        _tls.masks = old


@contextmanager
def functionalizing(remove_views: bool = False):
    """Inside, factory functions return functional tensors too (torch's functionalize sets
    the Functionalize key in the thread-local include set)."""
    _ensure_kernels()
    old = _tls.masks, getattr(_tls, "functionalize_remove_views", False)
    _tls.masks = (old[0][0] | FUNC_BIT, old[0][1])
    _tls.functionalize_remove_views = remove_views
    try:
        yield
    finally:
        _tls.masks = (old[0][0], _tls.masks[1])
        _tls.functionalize_remove_views = old[1]


# --- unwrapping and wrapping ------------------------------------------------------------
def _unwrap(a):
    if isinstance(a, FunctionalTensor):
        return _sync_value(a)
    if isinstance(a, (list, tuple)) and a and any(isinstance(x, FunctionalTensor) for x in a):
        return type(a)(_unwrap(x) for x in a)
    return a


def _wrap(out):
    if isinstance(out, Tensor) and not isinstance(out, FunctionalTensor):
        return _new_wrapper(out, FunctionalStorage(
            out, getattr(_tls, "functionalize_remove_views", False)))
    if isinstance(out, (list, tuple)):
        return type(out)(_wrap(x) for x in out)
    return out


def _functional_fallback(op, keyset, *args):
    """The Functionalize key's kernel for functional ops (and ops nobody planned, such as
    custom ops): unwrap, run below the key, wrap."""
    if any(a.is_write for a in op.schema.arguments.flat()):
        return _clone_and_mutate(op, args)
    inner = tuple(_unwrap(a) for a in args)
    with _inner():
        out = op._entry(*inner)
    return _wrap(out)


# --- mutations --------------------------------------------------------------------------
def _write_back(t, new):
    """t's value becomes `new`; the base takes it through t's inverse view chain."""
    s = t._fstorage
    with _inner():
        if not t._metas:
            s.base = new
        else:
            # the chain's intermediate values, from the base down to t's parent
            steps = [s.base]
            for m in t._metas[:-1]:
                steps.append(m.forward(steps[-1], s.remove_views))
            value = new
            for m, parent in zip(reversed(t._metas), reversed(steps)):
                value = m.inverse(parent, value, s.remove_views)
            s.base = value
    s.generation += 1
    s.mutated = True
    _set_value(t, new)
    t._generation = s.generation


def _fit(result, target, inplace):
    """The functional result as the mutated tensor's new value: same shape for in-place ops
    (an out= tensor takes the result's shape), cast to the target's dtype like the eager op."""
    from ..core.outputs import check_cast, check_output_shape
    if inplace:
        check_output_shape(target, result._shape)
    check_cast(result._dtype, target._dtype)
    if result._dtype is not target._dtype:
        with _inner():
            result = aten._to_copy.default(result, dtype=target._dtype)
    return result


def register_mutation(op, functional, mutated, *, same_args, n_out):
    """A mutating op (`add_`, `add.out`) runs `functional` and writes its result back."""
    names = op._arg_names
    n_in = len(names) - n_out

    def kernel(*args):
        targets = [args[i] for i in mutated]
        if not any(isinstance(t, FunctionalTensor) for t in targets):
            with _inner():       # a plain tensor (closed over) is mutated in place, as eager
                return op._entry(*(_unwrap(a) for a in args))
        if functional is None:
            return _clone_and_mutate(op, args)
        inner = [_unwrap(a) for a in args[:n_in]]
        with _inner():
            if same_args:
                result = functional._entry(*inner)
            else:
                kw = _by_name(functional, dict(zip(names, inner)), targets[0])
                result = functional._entry(*functional._bind(**kw))
        results = result if isinstance(result, (list, tuple)) else (result,)
        for t, r in zip(targets, results):
            _write_back(t, _fit(r, t, inplace=not n_out))
        if n_out:
            return targets[0] if n_out == 1 else tuple(targets)
        return args[0]
    kernel.__qualname__ = f"Functionalize[{op._cpp_name}]"
    op.register("Functionalize", kernel)


def _by_name(functional, given, out):
    """Keyword arguments for a functional variant with other arguments (factories' out=
    variants take dtype and device from `out`)."""
    if given.get("memory_format") is not None and "self" not in functional._arg_names:
        raise RuntimeError("'memory_format' argument is incompatible with 'out' tensor argument")
    kw = {}
    for name in functional._arg_names:
        if name in given:
            kw[name] = given[name]
        elif name == "dtype":
            kw[name] = out._dtype
        elif name == "device":
            kw[name] = out.device
    return kw


def _clone_and_mutate(op, args):
    """A mutating op without a functional variant (a custom op): it mutates fresh clones of
    the wrappers' values, which become their new values."""
    schema_args = op.schema.arguments.flat()
    inner = [_unwrap(a) for a in args]
    with _inner():
        for i, a in enumerate(schema_args):
            if a.is_write and isinstance(args[i], FunctionalTensor):
                inner[i] = aten.clone.default(inner[i], memory_format=contiguous_format)
        out = op._entry(*inner)
    for i, a in enumerate(schema_args):
        if a.is_write and isinstance(args[i], FunctionalTensor):
            _write_back(args[i], inner[i])
    # a result annotated as a written argument's alias (`Tensor(a!)`) is that argument
    by_alias = {a.annotation.alias_set: args[i] for i, a in enumerate(schema_args) if a.is_write}
    returns = op.schema.returns
    if returns and all(r.annotation is not None and r.annotation.alias_set in by_alias
                       for r in returns):
        aliased = [by_alias[r.annotation.alias_set] for r in returns]
        return aliased[0] if len(returns) == 1 else tuple(aliased)
    return _wrap(out)


# --- views ------------------------------------------------------------------------------
def register_view(op, copy_op):
    """A view op: its result aliases self's storage, one ViewMeta further down the chain."""
    def kernel(self, *rest):
        if not isinstance(self, FunctionalTensor):
            with _inner():
                return _wrap(op._entry(self, *(_unwrap(r) for r in rest)))
        s = self._fstorage
        value = _sync_value(self)
        remove = s.remove_views and copy_op is not None
        ref = _reference_view(op, self, rest) if remove else None
        with _inner():
            out = (copy_op if remove else op)._entry(value, *rest)
        base = self._base if self._base is not None else self
        if isinstance(out, (list, tuple)):
            views = [_view_wrapper(v, self, ViewMeta(op, copy_op, rest, i), base)
                     for i, v in enumerate(out)]
            return [_take_layout(w, r) for w, r in zip(views, ref)] if remove else views
        view = _view_wrapper(out, self, ViewMeta(op, copy_op, rest), base)
        return _take_layout(view, ref) if remove else view
    kernel.__qualname__ = f"Functionalize[{op._cpp_name}]"
    op.register("Functionalize", kernel)


def _view_wrapper(value, parent, meta, base):
    w = _new_wrapper(value, parent._fstorage, parent._metas + (meta,), version_of=parent)
    w._base = base
    return w


def register_inplace_view(op, view_op, copy_op):
    """`t_`, `transpose_`, `unsqueeze_`, ...: self becomes a view of its old value."""
    def kernel(self, *rest):
        if not isinstance(self, FunctionalTensor):
            with _inner():
                return op._entry(self, *rest)
        s = self._fstorage
        value = _sync_value(self)
        ref = _reference_view(view_op, self, rest) if s.remove_views else None
        with _inner():
            out = (copy_op if s.remove_views else view_op)._entry(value, *rest)
        self._metas = self._metas + (ViewMeta(view_op, copy_op, rest),)
        _set_value(self, out)
        return _take_layout(self, ref) if ref is not None else self
    kernel.__qualname__ = f"Functionalize[{op._cpp_name}]"
    op.register("Functionalize", kernel)


def register_special(op, name):
    """resize_ (of a tensor that is no view) and set_ (refused, as torch's functionalize
    cannot express storage swaps either)."""
    def resize_kernel(self, size, memory_format=None):
        if not isinstance(self, FunctionalTensor):
            with _inner():
                return op._entry(self, size, memory_format)
        value = _sync_value(self)
        size = tuple(size)
        if size == value._shape:
            return self
        if self._metas:
            raise RuntimeError("Attempted to resize a view tensor to a new size. This is not "
                               "allowed in the functionalization pass")
        n = 1
        for d in size:
            n *= d
        with _inner():
            flat = aten.view_copy.default(value, [-1])
            kept = aten.slice_copy.Tensor(flat, 0, 0, min(n, flat.numel()))
            grown = aten.empty.memory_format([n - kept.numel()], dtype=value._dtype,
                                             device=value.device)
            new = aten.view_copy.default(aten.cat.default([kept, grown]), list(size))
        _write_back(self, new)
        return self

    def refuse(self, *rest):
        raise RuntimeError(f"{op._cpp_name}: swapping a tensor's storage is not supported "
                           "under functionalization")
    op.register("Functionalize", resize_kernel if name == "resize_" else refuse)


# --- functional inverses of the views (torch's FunctionalInverses) --------------------------
def _view_or_copy(name, remove_views):
    packet = getattr(aten, f"{name}_copy" if remove_views else name)
    return packet


def _inverse(meta, base, mutated, remove_views):
    op, rest = meta.op, meta.rest
    name = op.name
    if name in ("select",):
        return aten.select_scatter.default(base, mutated, *rest)
    if name == "slice":
        return aten.slice_scatter.default(base, mutated, *rest)
    if name == "diagonal":
        return aten.diagonal_scatter.default(base, mutated, *rest)
    if name == "as_strided":
        return aten.as_strided_scatter.default(base, mutated, *rest)
    if name in ("alias", "detach", "lift_fresh"):
        return mutated
    if name in ("view", "unsqueeze", "squeeze", "expand") and op.overload_name != "dtype":
        if name == "expand" and tuple(mutated._shape) != tuple(base._shape):
            return aten.sum_to_size.default(mutated, list(base._shape))
        return _view_or_copy("view", remove_views).default(mutated, list(base._shape))
    if name == "view":          # view.dtype: back to the base's dtype
        return _view_or_copy("view", remove_views).dtype(mutated, base._dtype)
    if name == "transpose":
        return _view_or_copy("transpose", remove_views).int(mutated, *rest)
    if name == "t":
        return _view_or_copy("t", remove_views).default(mutated)
    if name == "permute":
        dims = [d % max(base.ndim, 1) for d in rest[0]]
        inverse = sorted(range(len(dims)), key=dims.__getitem__)
        return _view_or_copy("permute", remove_views).default(mutated, inverse)
    if name in ("split", "split_with_sizes", "unbind"):
        return _inverse_of_split(meta, base, mutated)
    if name in _COMPLEX_VIEW_INVERSES:      # views that change the dtype: their inverse view
        return _view_or_copy(_COMPLEX_VIEW_INVERSES[name], remove_views).default(mutated)
    return _inverse_as_strided(meta, base, mutated)


# real <-> complex views and the conjugate view: as_strided cannot change the dtype back
_COMPLEX_VIEW_INVERSES = {"view_as_real": "view_as_complex", "view_as_complex": "view_as_real",
                          "_conj": "_conj"}


def _inverse_of_split(meta, base, mutated):
    if meta.op.name == "unbind":
        dim = meta.rest[0] if meta.rest else 0
        return aten.select_scatter.default(base, mutated, dim, meta.index)
    sizes, dim = meta.rest[0], (meta.rest[1] if len(meta.rest) > 1 else 0)
    d = dim % max(base.ndim, 1)
    if meta.op.name == "split":
        start = sizes * meta.index
        end = min(start + sizes, base._shape[d])
    else:
        start = sum(sizes[:meta.index])
        end = start + sizes[meta.index]
    return aten.slice_scatter.default(base, mutated, d, start, end, 1)


def _inverse_as_strided(meta, base, mutated):
    """Any other view (unfold, custom views): where its elements sit in a contiguous base,
    found by running it on a meta tensor, then as_strided_scatter."""
    probe = aten.empty.memory_format(list(base._shape), dtype=base._dtype, device="meta")
    v = meta.forward(probe, False)
    return aten.as_strided_scatter.default(
        aten.contiguous.default(base) if not base.is_contiguous() else base, mutated,
        list(v._shape), list(v.stride()), v._offset)


# --- registration -----------------------------------------------------------------------------
_registered = []


def _ensure_kernels():
    """The generated kernels are registered on first use (eager programs never pay)."""
    if not _registered:
        register_fallback(K.Functionalize, _functional_fallback)
        import ember._generated.functionalization  # noqa: F401
        _registered.append(True)
