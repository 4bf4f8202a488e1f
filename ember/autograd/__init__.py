"""Autograd: the backward graph (graph.py), the engine (engine.py), grad modes,
inference mode, anomaly mode, custom Functions and gradcheck.

    >>> x = ember.ones(3, requires_grad=True)
    >>> ember.autograd.grad((x * x).sum(), x)
    (tensor([2., 2., 2.]),)

`ember.core.tensor` imports the metadata module from here, so the parts that need
Tensor are bound by `_finish_init()`, which `ember/__init__.py` calls once Tensor exists.
"""
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .inference_mode import inference_mode, is_inference_mode_enabled  # noqa: F401


def _finish_init():
    global graph, engine, backward, grad, gradcheck, gradgradcheck, GradcheckError
    global detect_anomaly, set_detect_anomaly, is_anomaly_enabled, is_anomaly_check_nan_enabled
    global Function, FunctionCtx, once_differentiable, function
    from ..core.tensor import Tensor
    from . import engine, function, graph
    from .anomaly_mode import (
        detect_anomaly,
        is_anomaly_check_nan_enabled,
        is_anomaly_enabled,
        set_detect_anomaly,
    )
    from .engine import backward, grad
    from .function import Function, FunctionCtx, once_differentiable
    from .gradcheck import GradcheckError, gradcheck, gradgradcheck
    from .tensor_api import install
    install(Tensor)
