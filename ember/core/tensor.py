"""The Tensor class: sizes, strides (in elements), a storage offset, a dtype, a device.

Op methods and dunders (`add`, `__add__`, `sum`, ...) are generated from the schema
and attached by `ember._generated.tensor_methods`; this file holds the hand-written
core: metadata, conversions, and the constructors kernels use.

    >>> t = ember.arange(6).view(2, 3)
    >>> t.stride(), t.t().stride(), t.t().is_contiguous()
    ((3, 1), (1, 3), False)
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .._accel import speedups
from ..dispatch import keys as K
from ..dispatch.tls import state as _tls
from . import autograd_hooks
from . import dtype as D
from .device import CPU, META
from .device import device as _device_cls
from .storage import Storage

_new = object.__new__
_NP_TO_DTYPE = D._BY_NP
CPU_KS = K.CPU_BIT | K.ADINPLACE_BIT
META_KS = K.META_BIT | K.ADINPLACE_BIT
CUDA_KS = K.CUDA_BIT | K.ADINPLACE_BIT
_KS_OF_DEVICE_TYPE = {"cpu": CPU_KS, "meta": META_KS, "cuda": CUDA_KS}
# Tensors made inside inference_mode lack ADInplaceOrView: no version counter, no views.
_INFERENCE_KS_OF_DEVICE_TYPE = {d: ks & ~K.ADINPLACE_BIT for d, ks in _KS_OF_DEVICE_TYPE.items()}


class Size(tuple):
    """A tensor's shape: a tuple that prints like torch.Size."""

    __slots__ = ()

    def __repr__(self):
        return f"ember.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


def contiguous_strides(shape) -> tuple:
    """Row-major strides in elements (torch's rule: size-0/1 dims use the running product).

    >>> contiguous_strides((2, 3, 4))
    (12, 4, 1)
    """
    try:
        return _contiguous_strides_cached(shape)
    except TypeError:  # an unhashable shape (a list)
        return _contiguous_strides(shape)


def _contiguous_strides(shape) -> tuple:
    strides = []
    acc = 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1) if n.__class__ is int else n.max1()   # (a symbolic size: SymInt)
    return tuple(reversed(strides))


_contiguous_strides_cached = functools.lru_cache(maxsize=4096)(_contiguous_strides)


def channels_last_strides(shape) -> tuple:
    """NHWC strides of an NCHW shape (torch's rule: no clamping of size-0 dims)."""
    _, c, h, w = shape
    return (h * w * c, 1, w * c, c)


class Tensor:
    """A strided view of a Storage. See the module docstring."""

    __slots__ = (
        "__weakref__",
        "_ag",
        "_base",
        "_contig",  # `_np` when a kernel made it C-contiguous (see from_array), else None
        "_device",
        "_dtype",
        "_ks",
        "_np",
        "_offset",
        "_shape",
        "_storage",
        "_stride",
        "_wrapped_number",  # set only by wrap_number: a Python number (torch's is_wrapped_number)
    )
    __array_priority__ = 1000  # numpy defers `ndarray + Tensor` to Tensor.__radd__
    _is_param = False          # a FakeTensor made from an nn.Parameter sets it (isinstance)

    def __new__(cls, *args, **kwargs):
        """Legacy constructor: `ember.Tensor([1, 2])` makes a default-dtype tensor."""
        from ..core.factories import legacy_tensor
        t = legacy_tensor(*args, **kwargs)
        if cls is not Tensor:
            t = t.as_subclass(cls)
        return t

    # --- metadata -----------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._shape)
        return self._shape[self._dim_of(dim)]

    def stride(self, dim=None):
        st = self._stride
        if st is None:
            st = self._stride = _strides_of_array(self._np)
        return st if dim is None else st[self._dim_of(dim)]

    def _dim_of(self, dim: int) -> int:
        """size(dim)/stride(dim)'s dim, wrapped; a 0-d tensor has none (torch's IndexError)."""
        if not self._shape:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return _wrap_dim(dim, len(self._shape))

    def storage_offset(self) -> int:
        return self._offset

    @property
    def dtype(self) -> D.dtype:
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    def numel(self) -> int:
        n = 1
        for s in self._shape:
            n *= s
        return n

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self._dtype.itemsize

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_meta(self) -> bool:
        return self.device.type == "meta"

    @property
    def is_xpu(self) -> bool:
        return self.device.type == "xpu"

    @property
    def is_mps(self) -> bool:
        return self.device.type == "mps"

    @property
    def is_quantized(self) -> bool:
        return False  # (ember has no quantized dtypes)

    @property
    def layout(self):
        return "strided"

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    def is_neg(self) -> bool:
        """False: ember has no negative bit (torch's lazily negated views)."""
        return False

    def is_conj(self) -> bool:
        """Whether this is a lazy conjugate view (conj() of a complex tensor)."""
        return bool(self._ks & K.CONJ_BIT)

    def is_signed(self) -> bool:
        return self._dtype.is_signed

    def is_inference(self) -> bool:
        return not self._ks & K.ADINPLACE_BIT

    def get_device(self) -> int:
        """The device index; -1 on the CPU and Meta, which have none (torch's)."""
        d = self.device    # (a FakeTensor's is the device it stands for)
        return -1 if d.type in ("cpu", "meta") else (d.index or 0)

    def untyped_storage(self) -> Storage:
        st = self._storage
        if st is None:
            st = self._storage = Storage.of_array(self._np)
        return st

    def data_ptr(self) -> int:
        """Address of the first element (0 on Meta)."""
        if self._device is META:
            return 0
        return self.untyped_storage().data_ptr() + self._offset * self._dtype.itemsize

    @property
    def _version(self) -> int:
        if not self._ks & K.ADINPLACE_BIT:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self.untyped_storage()._version

    def is_contiguous(self, memory_format=None) -> bool:
        shape, st = self._shape, self.stride()
        if memory_format in (None, "contiguous_format", contiguous_format):
            # (an empty tensor is contiguous whatever its strides, as in torch)
            return 0 in shape or _is_contiguous(shape, st, range(len(shape) - 1, -1, -1))
        if memory_format in ("channels_last", channels_last):
            return len(shape) == 4 and _is_contiguous(shape, st, (1, 3, 2, 0))
        if memory_format in ("preserve_format", preserve_format):
            raise RuntimeError("is_contiguous: preserve_format is not a valid memory format")
        raise ValueError(f"unknown memory format {memory_format!r}")

    def suggest_memory_format(self):
        """channels_last when the strides read as NHWC by torch's rule (size-1 and ambiguous
        dims default to contiguous), else contiguous_format."""
        if len(self._shape) == 4 and _strides_like_channels_last(self._shape, self.stride()):
            return channels_last
        return contiguous_format

    def is_set_to(self, other) -> bool:
        return (self.untyped_storage() is other.untyped_storage() and self._offset == other._offset
                and self._shape == other._shape and self.stride() == other.stride())

    # --- conversions --------------------------------------------------------------
    def numpy(self, *, force=False) -> np.ndarray:
        """The data as a NumPy array sharing memory (CPU tensors that need no grad)."""
        if self._device.type != "cpu":
            if not force:
                raise TypeError(f"can't convert {self._device.type} device type tensor to numpy. "
                                "Use Tensor.cpu() to copy the tensor to host memory first.")
            return self.cpu().numpy()
        if self.requires_grad and _tls.grad_enabled and not force:   # (torch's check)
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        if self._ks & K.CONJ_BIT:
            if not force:
                raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. "
                                   "Use tensor.resolve_conj().numpy() instead.")
            return self.detach().resolve_conj()._np
        return self._np

    def __array__(self, dtype=None, copy=None):
        a = self.detach().numpy() if self._ks & K.CONJ_BIT else self.numpy(force=True)
        return a if dtype is None else a.astype(dtype)

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        _check_has_data(self, "item")
        return self._host_array().reshape(()).item()

    def tolist(self):
        _check_has_data(self, "tolist")
        a = self._host_array()
        if self._dtype is D.bfloat16 or self._dtype is D.float16:
            a = a.astype(np.float64) if self._dtype is D.bfloat16 else a
        return a.tolist()

    def _host_array(self) -> np.ndarray:
        """The values on the host (a conjugate view's conjugated values)."""
        t = self.detach().resolve_conj() if self._ks & K.CONJ_BIT else self
        return t._np if t._device.type == "cpu" else t.cpu()._np

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous"
                               if self.numel() else "Boolean value of Tensor with no values is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._dtype.category != D.INT or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    __hash__ = object.__hash__

    def __repr__(self, *, tensor_contents=None):
        from .printing import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec):
        if self.dim() == 0 and self._np is not None:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __dlpack__(self, stream=None, **kwargs):
        if self.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        if self._device.type == "cuda":   # the consumer reads after ember's queued work
            from ember.cuda import _dlpack, _runtime
            _runtime.require_driver().synchronize()
            return _dlpack.to_capsule(self)
        if self._device.type != "cpu":
            raise BufferError(f"DLPack export of {self._device} tensors is not supported")
        if self._dtype is D.bfloat16:
            raise BufferError("NumPy cannot export bfloat16 through DLPack")
        return self._np.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return (1, 0) if self._device.type == "cpu" else (2, self._device.index or 0)

    @property
    def data(self):
        """A detached alias with its own version counter (like torch: in-place changes
        through `.data` are invisible to autograd's checks)."""
        d = self.detach()
        if d._ks & K.ADINPLACE_BIT:
            d._storage = d.untyped_storage().with_new_version_counter()
        return d

    @data.setter
    def data(self, other):
        _set_data(self, other)

    # --- Python dispatch hooks ---------------------------------------------------------
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        from ..overrides import default_torch_function
        return default_torch_function(cls, func, types, args, kwargs)

    # __torch_dispatch__ (the default runs the op below the Python key) is installed by
    # ember.dispatch.python_dispatch; subclasses override it.

    @staticmethod
    def _make_subclass(cls, data:  # noqa: PLW0211  (torch's signature)
                        Tensor, require_grad: bool = False):
        """A `cls` instance that shares `data`'s storage and metadata."""
        t = shallow_copy(data, cls)
        if require_grad:
            t.requires_grad_(True)
        return t

    @staticmethod
    def _make_wrapper_subclass(cls, size, strides=None, storage_offset=0, *,  # noqa: PLW0211
                               dtype=None, device=None, requires_grad=False, **_ignored):
        """A data-less `cls` instance with the given metadata (for __torch_dispatch__ wrappers)."""
        dev = _device_cls(device) if device is not None else CPU
        t = _new(cls)
        t._np = t._contig = None
        t._shape = tuple(size)
        t._stride = tuple(strides) if strides is not None else contiguous_strides(t._shape)
        t._offset = storage_offset
        t._dtype = dtype or D.get_default_dtype()
        t._device = dev
        t._storage = Storage(None, 0, dev)
        t._ks = dtype_keyset(_keyset_for(cls, dev), t._dtype)
        t._base = None
        t._ag = None
        if requires_grad:
            t.requires_grad_(True)
        return t

    def as_subclass(self, cls):
        return shallow_copy(self, cls)


class _MemoryFormat:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"ember.{self.name}"


contiguous_format = _MemoryFormat("contiguous_format")
channels_last = _MemoryFormat("channels_last")
preserve_format = _MemoryFormat("preserve_format")
MEMORY_FORMATS = {"contiguous_format": contiguous_format, "channels_last": channels_last,
                  "preserve_format": preserve_format}


def _is_contiguous(shape, stride, order) -> bool:
    """Whether the sizes other than 1, taken in `order`, have dense strides (torch's rule:
    for channels_last an empty tensor gets no pass)."""
    expected = 1
    for d in order:
        n = shape[d]
        if n != 1 and stride[d] != expected:
            return False
        expected *= n
    return True


def _strides_like_channels_last(shape, stride) -> bool:
    """torch's is_channels_last_strides_2d: the dims in NHWC order (C, W, H, N) have
    non-decreasing strides; a zero C stride, an empty dim, or an N stride equal to C's
    (the ambiguous N111 cases) read as contiguous.

    >>> _strides_like_channels_last((2, 3, 4, 5), (60, 1, 15, 3))
    True
    >>> _strides_like_channels_last((1, 2, 2, 1), (1, 1, 2, 4))
    False
    """
    if stride[1] == 0:
        return False
    least = 0
    for d in (1, 3, 2, 0):
        if shape[d] == 0 or stride[d] < least or (d == 0 and least == stride[1]):
            return False
        least = stride[d] * shape[d] if shape[d] > 1 else stride[d]
    return True


def _wrap_dim(dim: int, ndim: int) -> int:
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dim})")
    return dim + max(ndim, 1) if dim < 0 else dim


def _strides_of_array(a: np.ndarray) -> tuple:
    """Element strides of a kernel's output array; empty arrays get torch's contiguous
    strides (NumPy gives them zeros)."""
    if a.size == 0 and a.flags.c_contiguous:
        return contiguous_strides(a.shape)
    return tuple(map(a.itemsize.__rfloordiv__, a.strides))     # (s // itemsize for each)


def _check_has_data(t, what):
    if t._device is META:
        raise NotImplementedError(f"Cannot call {what}() on a meta tensor: it has no data")


def dtype_keyset(ks: int, dt: D.dtype) -> int:
    """`ks` with the Complex key exactly when `dt` is complex (views may change dtype)."""
    return ks | K.COMPLEX_BIT if dt.is_complex else ks & ~K.COMPLEX_BIT


def _keyset_for(cls, dev) -> int:
    ks = _KS_OF_DEVICE_TYPE[dev.type]
    if cls is not Tensor and _has_python_dispatch(cls):
        ks |= K.PYTHON_BIT
    return ks


def _has_python_dispatch(cls) -> bool:
    for c in cls.__mro__:
        if "__torch_dispatch__" in c.__dict__:
            return c is not Tensor
    return False


def _copy_layout(dst: Tensor, src: Tensor) -> None:
    """dst takes src's storage, layout, dtype and device."""
    st = src._storage
    if st is None:
        st = src.untyped_storage()
    dst._storage = st
    dst._np = src._np
    dst._contig = src._contig
    dst._shape = src._shape
    dst._stride = src._stride
    dst._offset = src._offset
    dst._dtype = src._dtype
    dst._device = src._device


def shallow_copy(t: Tensor, cls=Tensor) -> Tensor:
    """A new tensor object over the same storage and metadata (no autograd history).
    A functional tensor (ember._subclasses.functional_tensor) stays one: its state is in
    the slots of its class."""
    ks = t._ks & _NO_HISTORY
    if cls is not Tensor:
        u = _new(cls)
        if _has_python_dispatch(cls):
            ks |= K.PYTHON_BIT
    elif ks & _FUNCTIONALIZE_BIT:
        u = _new(t.__class__)
        for name in t.__class__.__slots__:
            setattr(u, name, getattr(t, name))
    else:
        u = _new(Tensor)
    _copy_layout(u, t)
    u._ks = ks
    u._base = None
    u._ag = None
    return u


_NO_HISTORY = ~(K.PYTHON_BIT | K.AUTOGRAD_BIT)
_FUNCTIONALIZE_BIT = K.bit(K.Functionalize)


def _set_data(t: Tensor, other: Tensor):
    """`t.data = other`: t now views other's storage and keeps its own autograd state."""
    if not isinstance(other, Tensor):
        raise TypeError("data must be a Tensor")
    _copy_layout(t, other)
    if t._ag is not None:
        t._ag.grad_acc = None       # its accumulator knew the old shape and dtype
    keep = K.AUTOGRAD_BIT | K.PYTHON_BIT
    t._ks = (other._ks & ~keep) | (t._ks & keep)


# --- constructors used by kernels (hot path: no validation) ---------------------------
def from_array(arr: np.ndarray, dt: D.dtype | None = None, contig: bool = False) -> Tensor:
    """Wraps a fresh NumPy array a CPU kernel produced (the tensor owns it). `contig`: the
    kernel knows `arr` is C-contiguous (its pointwise fast path then skips NumPy's flags
    check for this tensor; the mark holds only while `_np` is that array).

    >>> from_array(np.zeros(3, np.float32)).dtype
    ember.float32
    """
    if arr.__class__ is not np.ndarray:
        arr = np.asarray(arr)
    if dt is None:
        dt = _NP_TO_DTYPE[arr.dtype]
    t = _new(Tensor)
    t._np = arr
    t._contig = arr if contig else None
    t._shape = arr.shape
    t._stride = None
    t._offset = 0
    t._dtype = dt
    t._device = CPU
    t._storage = None
    ks = _CPU_BIT if _tls.inference else CPU_KS
    t._ks = ks | _COMPLEX_BIT if dt.is_complex else ks
    t._base = None
    t._ag = None
    return t


_CPU_BIT, _COMPLEX_BIT, _NOT_COMPLEX = K.CPU_BIT, K.COMPLEX_BIT, ~K.COMPLEX_BIT
py_from_array = from_array
if speedups is not None:    # the same function in C (ember/_speedups.c): ~150 ns less per result
    speedups.setup(Tensor, np.ndarray, np.asarray, _NP_TO_DTYPE, CPU,
                   tuple(d for d in _NP_TO_DTYPE.values() if d.is_complex), CPU_KS, _CPU_BIT,
                   _COMPLEX_BIT)
    from_array = speedups.from_array     # (py_from_array stays the reference)


def make_tensor(storage: Storage, shape, stride, offset, dt: D.dtype, base=None,
                arr=None, ks=None) -> Tensor:
    """A tensor over `storage` with the given layout (views, meta and CUDA results).
    `arr`, when a kernel already has it, is the NumPy array of exactly this layout;
    `ks`, the keyset (default: a new tensor's on that device, inference-mode aware)."""
    t = _new(Tensor)
    t._contig = None
    dev = storage.device
    if arr is not None:
        t._np = arr
    elif dev.type == "cpu":
        isz = dt.itemsize
        # an empty view may sit past the end of its storage (torch allows it)
        byte_offset = 0 if 0 in tuple(shape) else offset * isz
        try:
            # (positional: NumPy parses keyword arguments here for ~0.6 us)
            t._np = np.ndarray(shape, dt.np, storage.bytes, byte_offset,
                               tuple([s * isz for s in stride]))
        except ValueError:
            _check_np_span(shape, dt)
            raise
    else:
        t._np = None
    t._shape = tuple(shape)
    t._stride = tuple(stride)
    t._offset = offset
    t._dtype = dt
    t._device = dev
    t._storage = storage
    if ks is None:
        ks = (_INFERENCE_KS_OF_DEVICE_TYPE if _tls.inference else _KS_OF_DEVICE_TYPE)[dev.type]
    t._ks = ks | _COMPLEX_BIT if dt.is_complex else ks & _NOT_COMPLEX  # (dtype_keyset)
    t._base = base
    t._ag = None
    return t


def _array_within(a, a_offset, shape, stride, offset, dt):
    """The NumPy array of a view whose elements lie inside the C-contiguous array `a`
    (cheaper than going through the storage bytes); None when they may not."""
    if a is None:
        return None
    isz = dt.itemsize
    start = offset * isz - a_offset * a.itemsize      # bytes from the start of `a`
    end = start + isz
    byte_strides = []
    for n, st in zip(shape, stride):
        if n == 0:
            return None
        end += (n - 1) * st * isz
        byte_strides.append(st * isz)
    if start < 0 or end > a.nbytes or not a.flags.c_contiguous:
        return None                     # reaches outside `a` (NumPy would not always say)
    try:        # (positional arguments: NumPy's keyword parsing costs ~0.6 us here)
        return np.ndarray(shape, dt.np, a, start, tuple(byte_strides))
    except ValueError:
        _check_np_span(shape, dt)
        raise


def _check_np_span(shape, dt):
    """A clear error for a CPU tensor NumPy cannot make an array of (NumPy's is cryptic)."""
    if math.prod(shape) * dt.itemsize > 2 ** 63 - 1:
        raise RuntimeError(f"ember cannot hold a CPU tensor of sizes={list(shape)}: its NumPy "
                           "array would span more than 2**63 - 1 bytes (torch allows such views "
                           "of expanded tensors)") from None


def make_view(base: Tensor, shape, stride, offset, dt: D.dtype | None = None, arr=None) -> Tensor:
    """A view of `base` sharing its storage (keyset and inference-ness follow base).
    `arr` may pass the view's NumPy array when the kernel got it cheaply from `base._np`.

    >>> t = ember.arange(6.)
    >>> v = make_view(t, (3,), (2,), 0)   # every other element
    >>> v, v.stride(), v._base is t
    (tensor([0., 2., 4.]), (2,), True)
    >>> v[0] = 9.0; t                     # shares t's storage
    tensor([9., 1., 2., 3., 4., 5.])
    """
    dt = dt or base._dtype
    st = base._storage
    if st is None:
        st = base.untyped_storage()
    if arr is None and st._bytes is None:     # storage bytes not made yet: skip making them
        arr = _array_within(base._np, base._offset, shape, stride, offset, dt)
    v = make_tensor(st, shape, stride, offset, dt, base if base._base is None else base._base, arr,
                    base._ks & _NO_HISTORY)
    if _tls.inference and base._ks & K.ADINPLACE_BIT:
        # a view of a normal tensor made in inference mode stays normal (torch's rule)
        autograd_hooks.mark_inference_view(v, base)
    return v


py_make_view = make_view
if speedups is not None:    # the common case in C (ember/_speedups.c), the rest in make_view
    speedups.setup_views(make_view, _NO_HISTORY, K.COMPLEX_BIT, K.ADINPLACE_BIT)
    make_view = speedups.make_view     # (py_make_view stays the reference)
