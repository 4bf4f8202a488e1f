"""Helpers for the ember.nn tests: move tensors between ember and torch through NumPy and
compare values and gradients."""
import numpy as np
import pytest

import ember
from ember.utils._python_dispatch import TorchDispatchMode

torch = pytest.importorskip("torch")


def to_ember(t, requires_grad=None):
    """An ember copy of a torch tensor (keeps requires_grad unless told)."""
    e = ember.from_numpy(t.detach().numpy().copy())
    wants_grad = t.requires_grad if requires_grad is None else requires_grad
    return e.requires_grad_() if wants_grad else e


def to_torch(e, requires_grad=None):
    """A torch copy of an ember tensor (keeps requires_grad unless told)."""
    t = torch.from_numpy(e.detach().numpy().copy())
    wants_grad = e.requires_grad if requires_grad is None else requires_grad
    return t.requires_grad_() if wants_grad else t


def pair(*shape, dtype=torch.float64, seed=0, requires_grad=True, low=None, high=None):
    """The same random data as a torch and an ember tensor (both leaves).

    Normal data, or uniform in [low, high) when given.
    """
    gen = torch.Generator().manual_seed(seed)
    if low is None:
        t = torch.randn(shape, generator=gen, dtype=dtype)
    else:
        t = torch.rand(shape, generator=gen, dtype=dtype) * (high - low) + low
    t.requires_grad_(requires_grad)
    return t, to_ember(t)


def assert_close(e, t, rtol=1e-6, atol=1e-7, check_dtype=True):
    """An ember result equals a torch one: values, shape and dtype."""
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    if check_dtype:
        assert e.dtype.name == str(t.dtype).removeprefix("torch."), (e.dtype, t.dtype)
    np.testing.assert_allclose(
        e.detach().float().numpy() if e.dtype.name == "bfloat16" else e.detach().numpy(),
        t.detach().float().numpy() if t.dtype == torch.bfloat16 else t.detach().numpy(),
        rtol=rtol, atol=atol,
    )


def assert_grads_close(e_tensors, t_tensors, rtol=1e-6, atol=1e-7):
    """The .grad of each ember tensor equals its torch twin's (both None or both close)."""
    for e, t in zip(e_tensors, t_tensors, strict=True):
        if t.grad is None:
            assert e.grad is None
        else:
            assert e.grad is not None, "ember has no gradient where torch has one"
            assert_close(e.grad, t.grad, rtol, atol)


def backward_both(e_out, t_out, seed=1):
    """Backpropagate the same random upstream gradient through both outputs."""
    gen = torch.Generator().manual_seed(seed)
    grad = torch.randn(t_out.shape, generator=gen, dtype=t_out.dtype)
    t_out.backward(grad)
    e_out.backward(to_ember(grad))


def assert_attention_close(e_result, t_result, atol=1e-6):
    """Attention (output, weights) results agree; the weights are both None or close."""
    (e_out, e_weights), (t_out, t_weights) = e_result, t_result
    assert_close(e_out, t_out, atol=atol)
    if t_weights is None:
        assert e_weights is None
    else:
        assert_close(e_weights, t_weights, atol=atol)


def graph_names(t) -> list:
    """The sorted names of the backward nodes behind t (one per node)."""
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(fn for fn, _ in node.next_functions)
    return sorted(n.name().removeprefix("torch::autograd::") for n in seen)


class OpLog(TorchDispatchMode):
    """Records the name of every op it sees (`log.ops`)."""

    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))
