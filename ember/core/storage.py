"""Storage: the bytes a tensor and its views share.

On the CPU a storage wraps the NumPy array that owns the memory and exposes it as
a flat uint8 array (made on first use, so kernel outputs pay nothing for it).
On Meta there are no bytes, only a size.
"""
from __future__ import annotations

import numpy as np

from .device import CPU, META


class _Span:
    """Array-interface holder for a byte span inside another array's memory."""

    def __init__(self, owner, ptr, nbytes):
        self.owner = owner  # keeps the memory alive
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                    "data": (ptr, False), "version": 3}


def flat_bytes(arr: np.ndarray) -> np.ndarray:
    """The memory behind `arr` (strides >= 0) as a writable flat uint8 array."""
    if arr.flags.c_contiguous:
        return arr.reshape(-1).view(np.uint8)
    if arr.flags.f_contiguous:
        return arr.T.reshape(-1).view(np.uint8)
    if any(s < 0 for s in arr.strides):
        raise ValueError("ember tensors cannot have negative strides: copy the array first "
                         "(e.g. np.ascontiguousarray)")
    extent = 0 if arr.size == 0 else arr.itemsize + sum(
        (n - 1) * s for n, s in zip(arr.shape, arr.strides))
    return np.asarray(_Span(arr, arr.__array_interface__["data"][0], extent))


class Storage:
    """Bytes on a device, shared by a tensor and all of its views.

    >>> t = ember.zeros(4); v = t[1:]
    >>> v.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
    True
    """

    __slots__ = ("__weakref__", "_bytes", "_nbytes", "_owner", "_version", "device")

    def __init__(self, owner=None, nbytes=0, device=CPU):
        self._owner = owner      # ndarray (cpu) / device buffer (cuda) / None (meta)
        self._bytes = None
        self._nbytes = nbytes
        self.device = device
        self._version = 0        # shared version counter of a tensor and its views

    @staticmethod
    def of_array(arr: np.ndarray) -> Storage:
        s = Storage.__new__(Storage)
        s._owner = arr
        s._bytes = None
        s._nbytes = -1
        s.device = CPU
        s._version = 0
        return s

    def with_new_version_counter(self) -> Storage:
        """The same memory with a version counter of its own (what `Tensor.data` sees:
        in-place changes through it are not tracked by autograd)."""
        s = Storage.__new__(Storage)
        s._owner, s._bytes, s._nbytes, s.device = self._owner, self._bytes, self._nbytes, self.device
        s._version = 0
        return s

    @property
    def bytes(self) -> np.ndarray:
        b = self._bytes
        if b is None:
            b = self._bytes = flat_bytes(self._owner)
        return b

    def nbytes(self) -> int:
        if self._nbytes < 0:
            self._nbytes = self.bytes.size
        return self._nbytes

    def grow_to(self, nbytes: int) -> None:
        """Enlarges the storage to `nbytes`, keeping its bytes (what resize_ does). Tensors
        made earlier over this storage keep the old memory's arrays on the CPU."""
        if self.device.type == "cpu":
            new = np.zeros(nbytes, np.uint8)
            old = self.bytes
            new[:old.size] = old
            self._owner = self._bytes = new
        elif self.device is not META:
            raise RuntimeError(f"resize_ cannot grow a {self.device.type} storage yet")
        self._nbytes = nbytes

    def size(self) -> int:
        return self.nbytes()

    def data_ptr(self) -> int:
        if self.device is META or self._owner is None:
            return 0
        if self.device.type == "cuda":   # a DeviceBuffer (ember/cuda/_runtime.py)
            return self._owner.ptr
        return self.bytes.__array_interface__["data"][0]

    def __len__(self):
        return self.nbytes()

    def __repr__(self):
        return f"<ember.UntypedStorage nbytes={self.nbytes()} device={self.device}>"

    def __reduce__(self):
        from ..serialization._pickle import reduce_storage
        return reduce_storage(self)
