"""ember: a PyTorch-style tensor library whose op surface is generated from YAML.

    >>> import ember
    >>> a = ember.ones(2, 3)
    >>> (a + 1).sum()
    tensor(12.)

Layout: `ember.core` (dtypes, devices, storage, Tensor), `ember.dispatch` (keys,
dispatcher, Python dispatch), `ember._generated` (ops, bindings, registrations made
from schema/*.yaml), `ember.kernels` (CPU/Meta/CUDA kernels).
"""
# ruff: noqa: F401  (re-exports; they follow assemble(), which must run first)
from ._assembly import assemble as _assemble

_assemble()     # the order of initialisation and the Tensor class: ember/_assembly.py

from . import autograd, overrides
from ._generated.functions import *
from ._generated.functions import __all__ as _generated_all
from .amp.autocast_mode import (
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_dtype,
    is_autocast_cache_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from .autograd import (
    enable_grad,
    inference_mode,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_anomaly_enabled,
    set_grad_enabled,
)
from .core import dtype as _dtypes
from .core.device import device
from .core.dtype import (
    bfloat16,
    can_cast,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    get_default_complex_dtype,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    result_type,
    set_default_dtype,
    uint8,
)
from .core.factories import (
    as_tensor,
    from_dlpack,
    from_numpy,
    get_default_device,
    set_default_device,
    tensor,
)
from .core.flags import (
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from .core.printing import get_printoptions, set_printoptions
from .core.storage import Storage as UntypedStorage
from .core.surface import (
    adaptive_max_pool1d,
    asarray,
    cosine_embedding_loss,
    frombuffer,
    get_device,
    get_num_interop_threads,
    get_num_threads,
    group_norm,
    hinge_embedding_loss,
    instance_norm,
    is_complex,
    is_conj,
    is_inference,
    is_neg,
    is_nonzero,
    is_same_size,
    is_signed,
    kl_div,
    margin_ranking_loss,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool3d,
    poisson_nll_loss,
    range,
    resize_as_,
    rms_norm,
    set_num_interop_threads,
    set_num_threads,
    triplet_margin_loss,
)
from .core.tensor import Size, Tensor, channels_last, contiguous_format, preserve_format
from .core.toplevel import (
    allclose,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    cartesian_prod,
    einsum,
    equal,
    is_floating_point,
    is_tensor,
    isclose,
    meshgrid,
    nonzero,
    numel,
    typename,
    unique,
    unique_consecutive,
    unravel_index,
)
from .core.typeinfo import finfo, iinfo
from .dispatch.dispatcher import ops
from .kernels.composite.linalg import python_chain_matmul as chain_matmul  # torch.functional
from .kernels.composite.products import python_tensordot as tensordot  # torch.functional
from .kernels.composite.reduction import gradient  # torch.gradient (a Python composite)
from .kernels.composite.reduction import python_cdist as cdist  # torch.functional.cdist
from .kernels.composite.reduction import python_norm as norm  # torch.functional.norm
from .random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from .serialization import load, save

bool = _dtypes.bool_
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128
strided = "strided"  # the only layout ember has (layout= accepts it or None)
__version__ = "0.1.0"
__all__ = [  # noqa: PLE0604  (hand-written names, then the generated ones)
    "Generator", "Size", "Tensor", "as_tensor", "can_cast", "device", "dtype", "enable_grad",
    "from_numpy", "get_default_dtype", "is_grad_enabled", "manual_seed", "no_grad",
    "promote_types", "result_type", "set_default_dtype", "set_grad_enabled", "tensor",
    "broadcast_shapes", "finfo", "iinfo", "is_floating_point", "is_tensor", "numel",
    "set_printoptions", "get_printoptions", "norm", "tensordot", "chain_matmul", "einsum", "unique", "unique_consecutive",
    "meshgrid", "broadcast_tensors", "cartesian_prod", "nonzero", "block_diag", "typename",
    "isclose", "allclose", "equal", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode", "get_deterministic_debug_mode",
    "autocast", "is_autocast_enabled", "get_autocast_dtype", "set_autocast_enabled",
    "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
    "clear_autocast_cache",
    "save", "load",
    *_generated_all,
]

# Subpackages built on the names above (they import them from `ember`): imported last.
from . import (
    accelerator,
    amp,
    backends,
    cuda,
    distributions,
    fft,
    functional,
    library,
    linalg,
    nn,
    onnx,
    optim,
    special,
    storage,
    utils,
)

# torch's top-level functions that F re-exports (torch.bilinear is F.bilinear)
from .nn.functional import (
    adaptive_avg_pool1d,
    avg_pool1d,
    bilinear,
    channel_shuffle,
    cosine_similarity,
    pairwise_distance,
    pdist,
    pixel_shuffle,
    pixel_unshuffle,
)

# Subpackages imported on first use (torch has them after `import torch`): ember.fx,
# ember.profiler, ember.distributed, ember._subclasses.
_LAZY_SUBMODULES = ("fx", "profiler", "distributed", "_subclasses", "func", "_dynamo",
                    "compiler", "masked")
# Names of a lazily imported module: torch.SymInt & co. live with the symbolic shapes.
_LAZY_NAMES = {n: "ember.fx.experimental.symbolic_shapes"
               for n in ("SymInt", "SymFloat", "SymBool", "sym_max", "sym_min")}
_LAZY_NAMES["vmap"] = "ember.func"  # torch.vmap is torch.func.vmap
# torch's functionalization entry points: ember._to_functional_tensor & co.
_FUNCTIONAL_NAMES = {"_to_functional_tensor": "to_functional", "_sync": "sync",
                     "_from_functional_tensor": "from_functional",
                     "_is_functional_tensor": "is_functional"}


def __getattr__(name):
    import importlib
    if name == "explain":           # ember/_explain.py, loaded on first use
        from ._explain import explain
        return explain
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name == "compile":           # ember.compile: ember/_dynamo, loaded on first use
        from ._dynamo import compile_fn
        return compile_fn
    if name in _FUNCTIONAL_NAMES:
        module = importlib.import_module("ember._subclasses.functional_tensor")
        return getattr(module, _FUNCTIONAL_NAMES[name])
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    raise AttributeError(f"module 'ember' has no attribute '{name}'")
