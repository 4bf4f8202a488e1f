"""Fake tensors: tensors with every property of a real one except data.

A FakeTensor is a Meta tensor (its sizes, strides, storage offset and dtype are the
real ones; no memory is allocated) that reports the device it stands for (`fake_device`,
"device lying": a CUDA fake works on a machine without a GPU). Inside a FakeTensorMode,
factories return fakes and every op runs its Meta kernel:

    >>> mode = FakeTensorMode()
    >>> x = mode.from_tensor(ember.randn(2, 3))
    >>> with mode:
    ...     y = ember.empty(3, 4, device="cuda")
    ...     z = x.cuda() @ y
    >>> z
    FakeTensor(..., device='cuda:0', size=(2, 4))

The mode sits on the Python dispatch key, below autograd, so autograd records on fakes
and `backward()` runs fake gradients. Ops whose output size depends on data raise
DynamicOutputShapeException, `.item()` raises DataDependentOutputException; with a
ShapeEnv (ember.fx.experimental.symbolic_shapes) sizes are symbolic and those give unbacked
symbols instead. Results are cached by (op, input metadata).
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any

import ember
from ember.core.device import CPU, META
from ember.core.device import device as Device
from ember.core.storage import Storage
from ember.core.sym import is_sym_scalar
from ember.core.tensor import Tensor, _copy_layout, contiguous_strides, make_tensor
from ember.dispatch import keys as K
from ember.dispatch.dispatcher import OpOverload, ops
from ember.dispatch.python_dispatch import TorchDispatchMode
from ember.dispatch.tls import excluding
from ember.dispatch.tls import state as _tls
from ember.overrides import TorchFunctionMode, _disabled_torch_function_impl, tensors_in

from .meta_utils import MetaConverter, no_dispatch_modes

aten = ops.aten
_new = object.__new__


# --- exceptions (torch's names) -------------------------------------------------------------
class UnsupportedFakeTensorException(RuntimeError):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _OpError(RuntimeError):
    def __init__(self, func, message: str | None = None):
        super().__init__(message or str(func))
        self.func = func


class DynamicOutputShapeException(_OpError):
    """An op whose output shape depends on the input's data (nonzero, masked_select, ...)."""


class DataDependentOutputException(_OpError):
    """A Python value that depends on data (`.item()`, `.tolist()`, `bool(t)`)."""


class UnsupportedOperatorException(_OpError):
    pass


class FakeTensorDeviceMismatchError(RuntimeError):
    def __init__(self, func, common, other):
        super().__init__(f"Expected all tensors to be on the same device, but found at least two "
                         f"devices, {common} and {other}!")
        self.func = func


_LOCAL_SCALAR_DENSE = "aten._local_scalar_dense.default"


# --- "in kernel" state: fakes report meta while their Meta kernel runs -----------------------
class _FakeTLS(threading.local):
    def __init__(self):
        self.in_kernel = 0


_fake_tls = _FakeTLS()


@contextlib.contextmanager
def in_kernel_invocation_manager(fake_mode=None):
    """While it is active, fakes are what they are underneath: meta tensors (their
    `device` says meta), and the Python key is skipped so their Meta kernels run."""
    _fake_tls.in_kernel += 1
    try:
        with excluding(K.PYTHON_BIT):
            yield
    finally:
        _fake_tls.in_kernel -= 1


class FakeTensor(Tensor):
    """A meta tensor that reports `fake_device` (see the module docstring)."""

    fake_device: Device
    fake_mode: FakeTensorMode
    constant: Tensor | None

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, fake_mode: FakeTensorMode, elem: Tensor, device, constant=None):
        """Wraps the meta tensor `elem` (sharing its storage and layout, and its `_base`)."""
        if elem._device is not META:
            raise AssertionError(f"FakeTensor wraps meta tensors, got one on {elem._device}")
        t = _new(cls)
        _copy_layout(t, elem)
        t._ks = (elem._ks & ~K.AUTOGRAD_BIT) | K.PYTHON_BIT
        t._base = elem._base
        t._ag = None
        dev = Device(device)
        if dev.type == "cuda" and dev.index is None:
            dev = Device("cuda", 0)
        t.fake_device = dev
        t.fake_mode = fake_mode
        t.constant = constant
        return t

    # --- the device it stands for -----------------------------------------------------
    @property
    def device(self):
        return META if _fake_tls.in_kernel else self.fake_device

    # --- data: there is none ---------------------------------------------------------------
    def item(self):
        if self.constant is not None:
            return self.constant.item()
        env = self.fake_mode.shape_env
        if env is not None and self.numel() == 1:    # an unbacked symbol
            if self.dtype.is_floating_point:
                return env.create_unbacked_symfloat()
            return env.create_unbacked_symbool() if self.dtype is ember.bool else \
                env.create_unbacked_symint()
        raise DataDependentOutputException(_LOCAL_SCALAR_DENSE)

    def tolist(self):
        if self.constant is not None:
            return self.constant.tolist()
        raise DataDependentOutputException(_LOCAL_SCALAR_DENSE)

    def numpy(self, *, force=False):
        raise DataDependentOutputException(_LOCAL_SCALAR_DENSE,
                                           "a FakeTensor has no data to give to NumPy")

    def __deepcopy__(self, memo):
        hit = memo.get(id(self))
        if hit is None:
            with self.fake_mode:
                hit = memo[id(self)] = self.detach().clone().requires_grad_(self.requires_grad)
        return hit

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        """Outside its mode, an op on fakes enters the fakes' mode and runs again."""
        modes = {t.fake_mode for t in _tensors(args, kwargs or {}) if isinstance(t, FakeTensor)}
        if len(modes) > 1:
            raise AssertionError(f"Mixing fake modes NYI: {func} got fakes of {len(modes)} modes")
        with modes.pop():
            return func(*args, **(kwargs or {}))


def _tensors(args, kwargs):
    return tensors_in((*args, *kwargs.values()))


def _map_tensors(fn, x):
    if isinstance(x, Tensor):
        return fn(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_map_tensors(fn, y) for y in x)
    if isinstance(x, dict):
        return {k: _map_tensors(fn, v) for k, v in x.items()}
    return x


# --- converting real tensors ------------------------------------------------------------------
class FakeTensorConverter:
    """Real tensor -> FakeTensor of one mode, memoized by tensor and by storage."""

    def __init__(self):
        self.meta_converter = MetaConverter()
        self.constant_storage_memo = {}

    def from_real_tensor(self, fake_mode, t: Tensor, *, make_constant=False,
                         shape_env=None, symbolic_context=None, source=None,
                         static_shapes=None):
        if isinstance(t, FakeTensor):
            if t.fake_mode is not fake_mode:
                raise AssertionError("Mixing fake modes NYI")
            return t
        if type(t) is not Tensor and _is_unknown_subclass(type(t)):
            raise UnsupportedFakeTensorException(
                f"FakeTensorMode cannot convert a {type(t).__name__} (a __torch_dispatch__ "
                "subclass it does not know)")
        env = shape_env if shape_env is not None else fake_mode.shape_env
        layout = None
        static = fake_mode.static_shapes if static_shapes is None else static_shapes
        if env is not None and not static:
            def layout(real):
                return env.symbolic_sizes_strides(real._shape, real.stride(), source,
                                                  dynamic_dims=symbolic_context)

        def make(meta, real):
            out = FakeTensor(fake_mode, meta, real.device,
                             constant=real if make_constant else None)
            if _is_param(real):
                out._is_param = True
            if getattr(real, "_wrapped_number", False):   # a Python number promotes as one
                out._wrapped_number = True
            return out

        def view(base, real):
            with no_dispatch_modes(), _grad_mode(real.requires_grad), fake_mode:
                b = base if base.dtype is real.dtype else base.view(real.dtype)
                v = b.as_strided(real.shape, real.stride(), real.storage_offset())
                if v.is_conj() != real.is_conj():     # (a conj() view of its base)
                    v = v._conj()
            if _is_param(real):
                v._is_param = True
            return v

        return self.meta_converter(t, make, views=view, layout=layout)


def _is_param(t) -> bool:
    from ember.nn.parameter import Parameter
    return type(t) is Parameter or getattr(t, "_is_param", False)


def _is_unknown_subclass(cls) -> bool:
    from ember.core.tensor import _has_python_dispatch
    return _has_python_dispatch(cls) and not issubclass(cls, FakeTensor)


def _grad_mode(flag: bool):
    return ember.enable_grad() if flag else ember.no_grad()


# --- the mode --------------------------------------------------------------------------------
_NO_CACHE_TAGS = frozenset({"dynamic_output_shape", "inplace_view", "data_dependent_output"})


class _Bypass(Exception):
    """This call's result is not cached (aliases an input, symbolic sizes, ...)."""


class DispatchCacheInfo:
    def __init__(self, hits, misses, bypasses, size):
        self.hits, self.misses, self.bypasses, self.size = hits, misses, bypasses, size

    def __repr__(self):
        return (f"DispatchCacheInfo(hits={self.hits}, misses={self.misses}, "
                f"bypasses={self.bypasses}, size={self.size})")


class FakeTensorMode(TorchDispatchMode):
    """Inside it, factories return FakeTensors and ops run their Meta kernels (see the
    module docstring). `from_tensor(t)` converts a real tensor, memoized."""

    def __init__(self, *, allow_fallback_kernels=True, allow_non_fake_inputs=False,
                 shape_env=None, static_shapes=None, export=False):
        super().__init__()
        self.allow_fallback_kernels = allow_fallback_kernels
        self.allow_non_fake_inputs = allow_non_fake_inputs
        self.shape_env = shape_env
        self.static_shapes = shape_env is None if static_shapes is None else static_shapes
        self.export = export
        self.fake_tensor_converter = FakeTensorConverter()
        self.cache: dict[Any, Any] = {}
        self.cache_hits = self.cache_misses = self.cache_bypasses = 0

    def is_our_fake(self, t) -> bool:
        return isinstance(t, FakeTensor) and t.fake_mode is self

    def from_tensor(self, tensor: Tensor, *, static_shapes=None, source=None,
                    symbolic_context=None, trace=True) -> FakeTensor:
        """The fake of a real tensor: the same fake for the same tensor, fakes of views
        that are views of one fake base."""
        static = static_shapes if static_shapes is not None else self.static_shapes
        env = None if static else self.shape_env
        return self.fake_tensor_converter.from_real_tensor(self, tensor, shape_env=env,
                                                           source=source,
                                                           symbolic_context=symbolic_context,
                                                           static_shapes=static)

    from_real_tensor = from_tensor

    def cache_info(self) -> DispatchCacheInfo:
        return DispatchCacheInfo(self.cache_hits, self.cache_misses, self.cache_bypasses,
                                 len(self.cache))

    def cache_clear(self) -> None:
        self.cache.clear()
        self.cache_hits = self.cache_misses = self.cache_bypasses = 0

    # --- every op ----------------------------------------------------------------------------
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is _LIFT_FRESH or (func is _LIFT_FRESH_COPY and not self.is_our_fake(args[0])):
            t = args[0]      # (make_fx records ember.tensor(...) as lift_fresh_copy)
            return t if self.is_our_fake(t) else self.fake_tensor_converter.from_real_tensor(
                self, t, make_constant=t.numel() <= 1, static_shapes=True)
        if any(not self.is_our_fake(t) for t in _tensors(args, kwargs)):
            converted = self._convert_inputs(func, args, kwargs)
            if converted is NotImplemented:
                return NotImplemented
            args, kwargs = converted
        self._check_data_dependent(func, args, kwargs)
        fake_impl = _fake_impl(func)
        if fake_impl is not None:        # a custom op's register_fake: run inside the mode
            with self:
                return fake_impl(*args, **kwargs)
        try:
            key = self._cache_key(func, args, kwargs)
        except _Bypass:
            self.cache_bypasses += 1
            return self._run(func, args, kwargs)
        hit = self.cache.get(key)
        if hit is not None:
            self.cache_hits += 1
            return _from_cached(self, hit)
        self.cache_misses += 1
        out = self._run(func, args, kwargs)
        self.cache[key] = _to_cached(out)
        return out

    def _convert_inputs(self, func, args, kwargs):
        for t in _tensors(args, kwargs):
            if self.is_our_fake(t):
                continue
            if isinstance(t, FakeTensor):
                raise AssertionError(  # noqa: TRY004 - torch raises AssertionError
                    f"Mixing fake modes NYI x.fake_mode={t.fake_mode} vs self={self}")
            if _is_unknown_subclass(type(t)):
                return NotImplemented
            if "inplace_view" in func.tags:
                raise AssertionError("Can't call metadata mutating ops on non-Fake Tensor "
                                     f"inputs. Found in {_render_call(func, args, kwargs)}")
            if not (self.allow_non_fake_inputs or getattr(t, "_wrapped_number", False)):
                raise AssertionError(
                    "Please convert all Tensors to FakeTensors first or instantiate "
                    "FakeTensorMode with 'allow_non_fake_inputs'. Found in "
                    f"{_render_call(func, args, kwargs)}")
        # (a real tensor met inside the mode is a constant: static sizes, as torch's, never
        # a size symbol no input binds)
        convert = lambda t: self.from_tensor(t, static_shapes=True) if isinstance(
            t, Tensor) else t
        return _map_tensors(convert, tuple(args)), _map_tensors(convert, kwargs)

    def _check_data_dependent(self, func, args, kwargs):
        if func is _INDEX:     # tagged dynamic, but only a boolean mask makes it so
            dynamic = any(i is not None and i.dtype in (ember.bool, ember.uint8)
                          for i in args[1])
        elif func is _REPEAT_INTERLEAVE:   # ... and only without its output_size
            dynamic = kwargs.get("output_size") is None
        else:
            dynamic = "dynamic_output_shape" in func.tags
        # (with a ShapeEnv, nonzero and masked_select give unbacked sizes instead)
        if dynamic and (self.shape_env is None or func not in _UNBACKED_SIZE_OPS):
            raise DynamicOutputShapeException(func)

    def _run(self, func, args, kwargs):
        """Runs func's Meta kernel on the fakes and wraps the results."""
        device = self._output_device(func, args, kwargs)
        args, kwargs = _on_meta(func, args, kwargs)
        with in_kernel_invocation_manager(self):
            if self.shape_env is not None and func in _UNBACKED_SIZE_OPS:
                out = _unbacked_size_op(self.shape_env, func, args)
            else:
                out = func(*args, **kwargs)

        def wrap(o):
            if isinstance(o, FakeTensor) or not isinstance(o, Tensor):
                return o
            return FakeTensor(self, o, device)
        return _map_tensors(wrap, out)

    def _output_device(self, func, args, kwargs):
        common = _common_device(func, _tensors(args, kwargs))
        i = _device_arg(func)
        if i is not None:
            given = args[i] if i < len(args) else kwargs.get("device")
            if given is not None:
                return Device(given)
        if common is not None:
            return common
        return _default_device()

    # --- the cache ------------------------------------------------------------------------------
    def _cache_key(self, func, args, kwargs):
        if _mutates_or_aliases(func) or _NO_CACHE_TAGS.intersection(func.tags):
            raise _Bypass
        return (func, _tls.inference, _key_of(args), _key_of(tuple(kwargs.items())))


def _fake_impl(func):
    if func.namespace == "aten":
        return None
    from ember._library.custom_ops import FAKE_IMPLS
    return FAKE_IMPLS.get(func)


_LIFT_FRESH = aten.lift_fresh.default
_LIFT_FRESH_COPY = aten.lift_fresh_copy.default
_INDEX = aten.index.Tensor
_REPEAT_INTERLEAVE = aten.repeat_interleave.Tensor
_UNBACKED_SIZE_OPS = (aten.nonzero.default, aten.masked_select.default)


def _unbacked_size_op(env, func, args):
    """nonzero / masked_select with a ShapeEnv: the data-dependent length is a new unbacked
    symbol (u0, u1, ...)."""
    n = env.create_unbacked_symint()
    shape, dt = ((n, args[0].dim()), ember.int64) if func is _UNBACKED_SIZE_OPS[0] else (
        (n,), args[0].dtype)
    stride = contiguous_strides(shape)
    nbytes = n * stride[0] * dt.itemsize     # (no guard on n == 0: it has no value yet)
    return make_tensor(Storage(None, nbytes, META), shape, stride, 0, dt)
_ALIASING: dict[OpOverload, bool] = {}


def _mutates_or_aliases(op: OpOverload) -> bool:
    """Whether an op writes to or returns an alias of an input (its schema's annotations)."""
    hit = _ALIASING.get(op)
    if hit is None:
        hit = _ALIASING[op] = "(a" in op._schema_str or "(b" in op._schema_str
    return hit


def _key_of(x):
    if isinstance(x, FakeTensor):
        if x.fake_mode.shape_env is not None and not all(
                type(n) is int for n in (*x._shape, *x._stride)):
            raise _Bypass          # symbolic sizes: the metadata is not a plain key
        nbytes = x.untyped_storage().nbytes()
        if type(nbytes) is not int:     # (static sizes over a symbolic storage)
            raise _Bypass
        return (x._shape, x.stride(), x._offset, x._dtype, x.fake_device,
                x._ks & K.ADINPLACE_BIT, nbytes)
    if isinstance(x, (list, tuple)):
        return (type(x), tuple(_key_of(y) for y in x))
    if x is None or isinstance(x, (bool, int, float, str, ember.dtype, Device)):
        return (type(x), x)
    if is_sym_scalar(x):           # (a SymInt/SymFloat argument: no plain key either)
        raise _Bypass
    if type(x).__name__ in ("_MemoryFormat", "Generator") and not hasattr(x, "get_state"):
        return (type(x), id(x))
    raise _Bypass


def _to_cached(out):
    if isinstance(out, FakeTensor):
        return ("t", out._shape, out._stride, out._offset, out._dtype, out.fake_device,
                out._ks, out.untyped_storage().nbytes())
    if isinstance(out, (list, tuple)):
        return ("s", type(out), tuple(_to_cached(o) for o in out))
    return ("v", out)


def _from_cached(mode, entry):
    kind = entry[0]
    if kind == "t":
        _, shape, stride, offset, dt, device, ks, nbytes = entry
        meta = make_tensor(Storage(None, nbytes, META), shape, stride, offset, dt,
                           ks=ks & ~(K.PYTHON_BIT | K.AUTOGRAD_BIT))
        return FakeTensor(mode, meta, device)
    if kind == "s":
        return entry[1](_from_cached(mode, e) for e in entry[2])
    return entry[1]


# --- devices (torch's rules) -------------------------------------------------------------------
def _common_device(func, tensors):
    """The device of an op's result: the inputs' common device; a CPU 0-d tensor mixes
    with any device; other mixtures raise (torch's FakeTensor device propagation)."""
    common = None
    common_is_cpu_scalar = False
    for t in tensors:
        if not isinstance(t, FakeTensor):
            continue
        dev = t.fake_device
        cpu_scalar = dev.type == "cpu" and t.dim() == 0
        if common is None:
            common, common_is_cpu_scalar = dev, cpu_scalar
        elif dev == common:
            common_is_cpu_scalar = common_is_cpu_scalar and cpu_scalar
        elif cpu_scalar:
            continue
        elif common_is_cpu_scalar:
            common, common_is_cpu_scalar = dev, cpu_scalar
        else:
            raise FakeTensorDeviceMismatchError(func, common, dev)
    return common


def _device_arg(func):
    try:
        return func._arg_names.index("device")
    except ValueError:
        return None


def _default_device():
    from ember.core.factories import _default_device as d
    return d[0] or CPU


def _on_meta(func, args, kwargs):
    """func's arguments with its `device=` (if any) on Meta."""
    i = _device_arg(func)
    if i is None:
        return args, kwargs
    if i < len(args):
        args = (*args[:i], META, *args[i + 1:])
    else:
        kwargs = {**kwargs, "device": META}
    return args, kwargs


def _render_call(func, args, kwargs) -> str:
    def show(a):
        if isinstance(a, FakeTensor):
            return repr(a)
        if isinstance(a, Tensor):
            return f"tensor([...], size={tuple(a.shape)})"
        return repr(a)
    parts = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
    return f"{func}({', '.join(parts)})"


# --- helpers torch has ------------------------------------------------------------------------
@contextlib.contextmanager
def unset_fake_temporarily():
    """Takes the active FakeTensorModes off the dispatch stack for the block."""
    saved = _tls.dispatch_modes
    kept = [m for m in saved if not isinstance(m, FakeTensorMode)]
    with no_dispatch_modes():
        _tls.dispatch_modes.extend(kept)
        from ember.dispatch.python_dispatch import _sync_python_key
        _sync_python_key()
        yield


maybe_disable_fake_tensor_mode = unset_fake_temporarily


def active_fake_mode() -> FakeTensorMode | None:
    for m in reversed(_tls.dispatch_modes):
        if isinstance(m, FakeTensorMode):
            return m
    return None


def is_fake(x) -> bool:
    """Whether `x` is a fake, or a functional tensor wrapping one (torch's is_fake)."""
    if isinstance(x, FakeTensor):
        return True
    value = getattr(x, "_value", None)          # a FunctionalTensor's inner value
    return isinstance(value, Tensor) and is_fake(value)


class FakeCopyMode(TorchFunctionMode):
    """`with FakeCopyMode(fake_mode): copy.deepcopy(module)` copies every tensor as a
    fake of `fake_mode` (parameters stay parameters)."""

    def __init__(self, fake_mode: FakeTensorMode):
        self.fake_mode = fake_mode

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", None) == "__deepcopy__":
            t, memo = args
            if id(t) not in memo:
                memo[id(t)] = self.fake_mode.from_tensor(t)
            return memo[id(t)]
        from ember.overrides import DisableTorchFunction
        with DisableTorchFunction():
            return func(*args, **(kwargs or {}))




__all__ = ["DataDependentOutputException", "DynamicOutputShapeException", "FakeCopyMode",
           "FakeTensor", "FakeTensorConverter", "FakeTensorDeviceMismatchError",
           "FakeTensorMode", "UnsupportedFakeTensorException", "UnsupportedOperatorException",
           "active_fake_mode", "in_kernel_invocation_manager", "is_fake",
           "maybe_disable_fake_tensor_mode", "unset_fake_temporarily"]
