"""MetaConverter: real tensors -> data-free twins on the Meta device, keeping aliasing.

The same tensor converts to the same twin; tensors that share a storage get twins that
share one meta storage, and a view becomes a view (same sizes, strides and offset) of its
base's twin, so `_base`, leaf-ness and `requires_grad` survive:

    >>> conv = MetaConverter()
    >>> x = ember.randn(4, 4); v = x[1:, ::2]
    >>> mv, mx = conv(v, make=lambda meta, real: meta), conv(x, make=lambda meta, real: meta)
    >>> mv.device, mv.stride(), mv.storage_offset()
    (device(type='meta'), (4, 2), 4)
    >>> mv.untyped_storage() is mx.untyped_storage(), conv(x, make=None) is mx
    (True, True)

`make(meta, real)` turns each new meta tensor into what the caller wants (FakeTensorMode
wraps it as a FakeTensor); views are then made by `as_strided` on the base's result, so
their autograd history is a view's.
"""
from __future__ import annotations

import weakref

from ember.autograd.graph import Error, new_node, set_history_many
from ember.core.alloc import storage_nbytes
from ember.core.device import META
from ember.core.storage import Storage
from ember.core.tensor import Tensor, make_tensor
from ember.dispatch import keys as K
from ember.dispatch.tls import state as _tls


class _IdMemo:
    """id(obj) -> value, dropped when obj dies (tensors compare elementwise, so they
    cannot be dictionary keys)."""

    def __init__(self):
        self._items: dict[int, tuple] = {}

    def get(self, obj):
        hit = self._items.get(id(obj))
        return hit[1] if hit is not None and hit[0]() is obj else None

    def set(self, obj, value):
        key = id(obj)
        self._items[key] = (weakref.ref(obj, lambda _r, k=key: self._items.pop(k, None)), value)

    def __len__(self):
        return len(self._items)


class MetaConverter:
    """Converts real tensors to meta twins, memoized (see the module docstring)."""

    def __init__(self):
        self.tensor_memo = _IdMemo()
        self.storage_memo = _IdMemo()

    def __call__(self, t: Tensor, make, *, views=None, layout=None):
        """The twin of `t`; `views(base_twin, t)` makes a view's twin from its base's;
        `layout(t)` gives the twin's (sizes, strides) (symbolic ones, say)."""
        hit = self.tensor_memo.get(t)
        if hit is not None:
            return hit
        if t._base is not None and views is not None:
            base = self(t._base, make, views=views, layout=layout)
            out = views(base, t)
        else:
            out = make(self._meta_of(t, layout), t)
            if t.requires_grad:
                _copy_grad_state(out, t)
        self.tensor_memo.set(t, out)
        return out

    def _meta_of(self, t: Tensor, layout=None) -> Tensor:
        shape, stride = layout(t) if layout is not None else (t._shape, t.stride())
        st = t.untyped_storage()
        mst = self.storage_memo.get(st)
        if mst is None:
            if layout is None:
                nbytes = st.nbytes() if t._device is not META else st._nbytes
                nbytes = max(nbytes, storage_nbytes(shape, stride, t.itemsize)
                             + t._offset * t.itemsize)
            else:      # symbolic sizes: the storage a contiguous tensor of them needs
                nbytes = storage_nbytes(shape, stride, t.itemsize) + t._offset * t.itemsize
            mst = Storage(None, nbytes, META)
            self.storage_memo.set(st, mst)
        ks = K.META_BIT | (t._ks & (K.ADINPLACE_BIT | K.CONJ_BIT))
        return make_tensor(mst, shape, stride, t._offset, t._dtype, ks=ks)


def _copy_grad_state(out: Tensor, t: Tensor) -> None:
    """Leaves stay leaves that require grad; a non-leaf becomes a non-leaf whose history
    cannot be replayed (the real graph is not copied), as torch's converter does."""
    if t.grad_fn is None:
        out.requires_grad_(True)
        return
    node = new_node(Error, (), ())
    node.message = ("backward through a fake tensor converted from a non-leaf real tensor: its "
                    "real history is not part of the fake graph")
    set_history_many([out], node)


def no_dispatch_modes():
    """A context with the dispatch-mode stack emptied (restored after)."""
    return _ModesCleared()


class _ModesCleared:
    def __enter__(self):
        from ember.dispatch.python_dispatch import _sync_python_key
        self.saved = _tls.dispatch_modes
        _tls.dispatch_modes = []
        _sync_python_key()

    def __exit__(self, *exc):
        from ember.dispatch.python_dispatch import _sync_python_key
        _tls.dispatch_modes = self.saved
        _sync_python_key()


__all__ = ["MetaConverter"]
