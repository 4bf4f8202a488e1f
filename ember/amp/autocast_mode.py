"""Autocast: run listed ops in lower precision (or float32) inside a region.

    >>> a, b = ember.ones(2, 3), ember.ones(3, 2)   # float32
    >>> with ember.autocast("cpu"):                  # bfloat16 by default on cpu
    ...     y = ember.mm(a, b)
    >>> y.dtype
    ember.bfloat16

Entering `autocast(device_type)` adds that device type's key (AutocastCPU or AutocastCUDA)
to the thread's include set. The wrappers generated from schema/autocast.yaml
(`ember._generated.autocast`) then run for the ops it lists: they cast the floating
arguments that live on that device type with `cast` / `cast_list` and redispatch. Ops not
listed fall through. Casts are ordinary differentiable `Tensor.to` calls, so gradients
flow back to float32 weights; the lower-precision copies of float32 leaf tensors that
require grad (weights) are cached until the outermost autocast region exits.
"""
from __future__ import annotations

import functools
import threading
import warnings
import weakref

from ember.core.dtype import bfloat16, float16, float32, float64
from ember.core.tensor import Tensor
from ember.dispatch import keys as K
from ember.dispatch.tls import state as _dispatch_state

_KEY_BIT = {"cpu": 1 << K.AutocastCPU, "cuda": 1 << K.AutocastCUDA}
_SUPPORTED = {"cpu": (bfloat16, float16), "cuda": (float16, bfloat16)}
_default_dtypes: dict = {}   # from schema/autocast.yaml, set when generated/autocast.py loads

# The tensor device type each autocast device type casts. Tests point "cuda" at "meta"
# to run the AutocastCUDA wrappers without a GPU.
ELIGIBLE_DEVICE = {"cpu": "cpu", "cuda": "cuda"}


class _AutocastState(threading.local):
    def __init__(self):
        self.dtype = dict(_default_dtypes)
        self.cache_enabled = True
        self.nesting = 0
        self.cache: dict[int, tuple] = {}   # id(weight) -> (weakref(weight), its cast)


_state = _AutocastState()


def set_default_dtypes(dtypes: dict) -> None:
    """The lower-precision dtype per device type that new threads start with (from yaml)."""
    from ember.core.dtype import _BY_NAME
    for device, name in dtypes.items():
        _default_dtypes[device] = _BY_NAME[name]
    _state.dtype.update(_default_dtypes)


# ------------------------------------------------------------------ state (torch's API)


def _check_device(device_type) -> str:
    if device_type not in _KEY_BIT:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return device_type


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether autocast is on for `device_type` in this thread."""
    return bool(_dispatch_state.masks[0] & _KEY_BIT[_check_device(device_type)])


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    bit = _KEY_BIT[_check_device(device_type)]
    include, keep = _dispatch_state.masks
    _dispatch_state.masks = ((include | bit) if enabled else (include & ~bit), keep)


def get_autocast_dtype(device_type: str):
    """The lower-precision dtype autocast uses for `device_type` (cpu: bfloat16)."""
    return _state.dtype[_check_device(device_type)]


def set_autocast_dtype(device_type: str, dtype) -> None:
    _state.dtype[_check_device(device_type)] = dtype


def is_autocast_cache_enabled() -> bool:
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _state.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    _state.cache.clear()


def autocast_increment_nesting() -> int:
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    _state.nesting -= 1
    return _state.nesting


# ------------------------------------------------------------------ the context manager


class autocast:
    """`ember.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)`.

    A context manager and a decorator, as torch.autocast:

        >>> model, x = nn.Linear(4, 1), ember.randn(8, 4)
        >>> with ember.autocast("cpu", dtype=ember.bfloat16):
        ...     loss = model(x).sum()
        >>> @ember.autocast("cpu")
        ... def forward(x):
        ...     return model(x)
        >>> loss.dtype, forward(x).dtype, model(x).dtype
        (ember.bfloat16, ember.bfloat16, ember.float32)

    Regions nest; leaving the outermost one clears the cast-weight cache.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(  # noqa: TRY004  (torch raises ValueError here)
                f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _check_device(device_type)
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else bool(cache_enabled)
        self._enabled = bool(enabled)
        if self._enabled and self.fast_dtype not in _SUPPORTED[device_type]:
            names = ", ".join(f"ember.{d.name}" for d in _SUPPORTED[device_type])
            warnings.warn(f"In {device_type.upper()} autocast, but the target dtype is not "
                          f"supported. Disabling autocast.\n{device_type.upper()} Autocast "
                          f"only supports dtype of {names} currently.", stacklevel=2)
            self._enabled = False
        if self._enabled and device_type == "cuda":
            from ember import cuda
            if not cuda.is_available():
                warnings.warn("User provided device_type of 'cuda', but CUDA is not "
                              "available. Disabling", stacklevel=2)
                self._enabled = False

    def __enter__(self):
        self._prev = (is_autocast_enabled(self.device), get_autocast_dtype(self.device),
                      is_autocast_cache_enabled())
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        set_autocast_cache_enabled(self._cache_enabled)
        autocast_increment_nesting()
        return self

    def __exit__(self, *exc):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        enabled, dtype, cache_enabled = self._prev
        set_autocast_enabled(self.device, enabled)
        set_autocast_dtype(self.device, dtype)
        set_autocast_cache_enabled(cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def run(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return func(*args, **kwargs)
        return run

    def __repr__(self):
        return (f"ember.autocast(device_type={self.device!r}, dtype={self.fast_dtype}, "
                f"enabled={self._enabled})")


# ------------------------------------------------------------------ used by the wrappers


def exclude(bit: int):
    """Drops an autocast key for the rest of the op; returns what `restore` needs."""
    saved = _dispatch_state.masks
    _dispatch_state.masks = (saved[0], saved[1] & ~bit)
    return saved


def restore(saved) -> None:
    _dispatch_state.masks = (_dispatch_state.masks[0], saved[1])


def lower_dtype(device_type: str):
    return _state.dtype[device_type]


def eligible(x, device_type: str) -> bool:
    """A floating, non-float64 tensor on the autocast device type."""
    if not isinstance(x, Tensor):
        return False
    dt = x._dtype
    return (dt.is_floating_point and dt is not float64
            and x._device.type == ELIGIBLE_DEVICE[device_type])


def cast(x, to, device_type: str):
    """`x.to(to)` when eligible (else `x`); float32 weights cast down are cached."""
    if not eligible(x, device_type) or x._dtype is to:
        return x
    st = _state
    if (to is st.dtype[device_type] and x._dtype is float32 and st.cache_enabled
            and x.requires_grad and x.is_leaf and x._base is None):
        hit = st.cache.get(id(x))
        if hit is not None and hit[0]() is x:
            return hit[1]
        result = x.to(to)
        st.cache[id(x)] = (weakref.ref(x), result)
        return result
    return x.to(to)


def cast_list(xs, to, device_type: str):
    """`cast` over a Tensor[] / Tensor?[] argument."""
    return None if xs is None else [cast(x, to, device_type) for x in xs]


def promote_dtype(device_type: str, *args):
    """The widest floating dtype among eligible arguments, starting from the lower dtype
    (float64 arguments are ignored, as torch's autocast `prioritize` does)."""
    lower = current = _state.dtype[device_type]
    for arg in args:
        for x in (arg if isinstance(arg, (list, tuple)) else (arg,)):
            if not eligible(x, device_type):
                continue
            nxt = x._dtype
            if current is float32 or nxt is float32:
                current = float32
            elif not (current is lower and nxt is lower):
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast supports `device_type` ("cpu" and "cuda")."""
    return device_type in ("cpu", "cuda")
