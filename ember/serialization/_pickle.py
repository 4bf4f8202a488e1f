"""Plain `pickle` of tensors, storages and modules (what multiprocessing, copy and
caches use), as torch's `Tensor.__reduce_ex__`: a tensor is rebuilt from a copy of its
whole storage, its offset, size, stride and requires_grad. As in torch, each tensor
object carries its own copy: two views of one memory load as two memories (ember.save
keeps them shared).

    >>> import pickle
    >>> a = ember.arange(4.); b = a[1:]
    >>> a2, b2 = pickle.loads(pickle.dumps([a, b]))
    >>> b2[0] = 9.; a2, b2.storage_offset()
    (tensor([0., 1., 2., 3.]), 1)
"""
from __future__ import annotations

import numpy as np

from ..core import dtype as D
from ..core.device import META
from ..core.device import device as _device
from ..core.storage import Storage
from ..core.tensor import Tensor, make_tensor


def reduce_storage(storage: Storage):
    """`Storage.__reduce__`: its bytes (read back to the CPU) and its device."""
    if storage.device is META:
        return _rebuild_storage, (None, storage.nbytes(), str(storage.device))
    data = make_tensor(storage, (storage.nbytes(),), (1,), 0, D.uint8).cpu().numpy()
    return _rebuild_storage, (data.tobytes(), storage.nbytes(), str(storage.device))


def _rebuild_storage(data, nbytes, device) -> Storage:
    target = _device(device)
    if target is META or target.type == "meta":
        return Storage(None, nbytes, META)
    cpu = Storage.of_array(np.frombuffer(bytearray(data), np.uint8))
    if target.type == "cpu":
        return cpu
    return make_tensor(cpu, (nbytes,), (1,), 0, D.uint8).to(target).untyped_storage()


def reduce_tensor(t: Tensor, proto):
    """`Tensor.__reduce_ex__`: torch's fields; a subclass (Parameter included) keeps its
    class and instance attributes. The gradient and hooks are not pickled (as torch)."""
    args = (reduce_storage(t.untyped_storage())[1], t.storage_offset(), tuple(t.shape), tuple(t.stride()),
            t.dtype, t.requires_grad)
    if type(t) is Tensor:
        return _rebuild_tensor, args
    return _rebuild_subclass, (type(t), args, dict(getattr(t, "__dict__", {})))


def _rebuild_tensor(storage, offset, size, stride, dtype, requires_grad) -> Tensor:
    t = make_tensor(_rebuild_storage(*storage), size, stride, offset, dtype)
    return t.requires_grad_() if requires_grad else t


def _rebuild_subclass(cls, args, state) -> Tensor:
    from ..nn import Parameter
    *layout, requires_grad = args
    t = _rebuild_tensor(*layout, False)
    t = cls(t, requires_grad) if issubclass(cls, Parameter) \
        else t.as_subclass(cls).requires_grad_(requires_grad)
    t.__dict__.update(state)
    return t
