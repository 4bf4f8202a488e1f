"""`ember.utils.checkpoint`: activation checkpointing. The forward pass keeps no
activations of `function`, only its inputs; backward runs `function` again (with the RNG
state of the forward pass, so dropout draws the same masks) and backpropagates through it.

    >>> layer = ember.nn.Linear(3, 3)
    >>> x = ember.ones(2, 3, requires_grad=True)
    >>> checkpoint(layer, x, use_reentrant=False).sum().backward()
    >>> layer.weight.grad.shape
    ember.Size([3, 3])

As with torch's use_reentrant=False, the outputs need a gradient whenever `function` has
parameters, even if no input requires one; the gradients of tensors `function` uses
(parameters) accumulate into their `.grad` during the backward pass (so use `backward()`,
not `ember.autograd.grad`, for them).
"""
from __future__ import annotations

import warnings

import ember

from ..autograd.function import Function
from ..core.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]


class _Checkpoint(Function):
    @staticmethod
    def forward(ctx, function, preserve_rng_state, kwargs, anchor, *args):
        ctx.function, ctx.kwargs, ctx.args = function, kwargs, args
        ctx.rng_state = ember.get_rng_state() if preserve_rng_state else None
        return function(*args, **kwargs)

    @staticmethod
    def backward(ctx, *grads):
        inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a
                  for a in ctx.args]
        with ember.random.fork_rng(enabled=ctx.rng_state is not None):
            if ctx.rng_state is not None:
                ember.set_rng_state(ctx.rng_state)
            with ember.enable_grad():
                outputs = ctx.function(*inputs, **ctx.kwargs)
        outputs = (outputs,) if isinstance(outputs, Tensor) else outputs
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if pairs:
            ember.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, None, None, *(
            a.grad if isinstance(a, Tensor) and a.requires_grad else None for a in inputs))


def checkpoint(function, *args, use_reentrant=None, context_fn=None,
               determinism_check="default", debug=False, preserve_rng_state=True, **kwargs):
    """`function(*args, **kwargs)`, recomputed in backward instead of keeping its
    activations (use_reentrant=False semantics, whichever value is passed)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
    if use_reentrant and (context_fn is not None or debug):
        raise ValueError("Passing `context_fn` or `debug` is only supported when "
                         "use_reentrant=False.")
    anchor = ember.empty(0, requires_grad=True)  # (the outputs always join the graph)
    return _Checkpoint.apply(function, preserve_rng_state, kwargs, anchor, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs a Sequential (or list of modules) in `segments` checkpointed chunks; the last
    chunk runs normally."""
    functions = list(functions.children()) if isinstance(functions, ember.nn.Sequential) \
        else list(functions)
    size = len(functions) // segments
    end = -1

    def run(start, stop):
        def forward(x):
            for f in functions[start:stop + 1]:
                x = f(x)
            return x
        return forward

    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run(end + 1, len(functions) - 1)(input)
