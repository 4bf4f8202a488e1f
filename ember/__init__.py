"""ember: a PyTorch-style tensor library whose op surface is generated from YAML.

    >>> import ember
    >>> a = ember.ones(2, 3)
    >>> (a + 1).sum()
    tensor(12.)

Layout: `ember.core` (dtypes, devices, storage, Tensor), `ember.dispatch` (keys,
dispatcher, Python dispatch), `ember._generated` (ops, bindings, registrations made
from schema/*.yaml), `ember.kernels` (CPU/Meta/CUDA kernels).
"""
from .core.dtype import (  # noqa: F401
    bfloat16, bool_ as bool, dtype, float16, float32, float64, int8, int16, int32, int64, uint8,
    get_default_dtype, set_default_dtype, promote_types, result_type, can_cast,
)
from .core.dtype import ALIASES as _ALIASES
from .core.device import device  # noqa: F401
from .core.tensor import (  # noqa: F401
    Size, Tensor, channels_last, contiguous_format, preserve_format,
)
from .core.storage import Storage as UntypedStorage  # noqa: F401
from .dispatch.dispatcher import ops  # noqa: F401
from ._generated import ops as _generated_ops  # noqa: F401  (creates every OpOverload)
from ._generated import registrations as _registrations  # noqa: F401
from ._generated import tensor_methods as _tensor_methods
from ._generated.functions import *  # noqa: F401,F403
from ._generated.functions import __all__ as _generated_all
from .dispatch import python_dispatch as _python_dispatch  # noqa: F401  (Python key fallback)
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .core.factories import tensor, from_numpy, as_tensor, from_dlpack  # noqa: F401
from .core.factories import get_default_device, set_default_device  # noqa: F401
from .random import (  # noqa: F401
    Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
)
from . import cuda, library, overrides, utils  # noqa: F401

_tensor_methods.install(Tensor)
from .core import tensor_extras as _tensor_extras  # noqa: E402,F401  (T, mT, __getitem__, ...)

half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
globals().update({k: v for k, v in _ALIASES.items() if k not in ("bool",)})

strided = "strided"  # the only layout ember has (layout= accepts it or None)
__version__ = "0.1.0"
__all__ = sorted(set(_generated_all) | {
    "Tensor", "Size", "dtype", "device", "tensor", "from_numpy", "as_tensor", "manual_seed",
    "Generator", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
    "promote_types", "result_type", "can_cast", "get_default_dtype", "set_default_dtype",
})
