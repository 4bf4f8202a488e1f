"""Autograd: the backward graph (graph.py), the engine (engine.py), grad modes,
inference mode, anomaly mode, custom Functions and gradcheck.

    >>> x = ember.ones(3, requires_grad=True)
    >>> ember.autograd.grad((x * x).sum(), x)
    (tensor([2., 2., 2.]),)

The core layer never imports this package: it calls ember/core/autograd_hooks.py, which
ember/_assembly.py points at CORE_HOOKS below; the autograd part of the Tensor class
(`backward`, `grad`, `requires_grad`, hooks) is in tensor_api.py.
"""
from . import engine, function, graph
from .anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
    set_detect_anomaly,
)
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .inference_mode import inference_mode, is_inference_mode_enabled


def _is_checkpoint_valid() -> bool:
    """False while a backward runs for chosen inputs (.grad(), backward(inputs=)), which a
    reentrant checkpoint cannot serve."""
    from ..dispatch.tls import state
    return state.checkpoint_valid


# What the core layer calls back into (ember/core/autograd_hooks.py)
CORE_HOOKS = {"mark_inference_view": graph.mark_inference_view}

__all__ = [
    "CORE_HOOKS", "Function", "FunctionCtx", "GradcheckError", "backward", "detect_anomaly",
    "enable_grad", "engine", "function", "grad", "gradcheck", "gradgradcheck", "graph",
    "inference_mode", "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "is_grad_enabled",
    "is_inference_mode_enabled", "no_grad", "once_differentiable", "set_anomaly_enabled",
    "set_detect_anomaly", "set_grad_enabled",
]


def __getattr__(name):
    """`ember.autograd.profiler` on first use (it is not imported by `import ember`)."""
    if name == "profiler":
        import importlib
        return importlib.import_module(f"{__name__}.profiler")
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
