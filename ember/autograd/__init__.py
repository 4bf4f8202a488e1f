"""Autograd. This slice holds the per-tensor metadata (requires_grad, grad); the
engine, Nodes and derivatives.yaml codegen arrive with the autograd issue."""
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
