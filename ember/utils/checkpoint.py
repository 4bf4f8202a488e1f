"""`ember.utils.checkpoint`: activation checkpointing. The forward pass keeps no
activations of `function`; backward runs `function` again (with the RNG state of the
forward pass, so dropout draws the same masks) to get them back.

    >>> layer = ember.nn.Linear(3, 3)
    >>> x = ember.ones(2, 3, requires_grad=True)
    >>> checkpoint(layer, x, use_reentrant=False).sum().backward()
    >>> layer.weight.grad.shape
    ember.Size([3, 3])

As torch's, in two ways:

- ``use_reentrant=False`` (recommended): `function` runs normally under
  `saved_tensors_hooks` that keep a placeholder for each tensor it saves for backward; the
  first backward use recomputes `function` and hands the recomputed tensors to the graph.
  The graph is the ordinary one, so `autograd.grad` and `backward(inputs=)` work and
  parameters get gradients whether or not an input requires one.
- ``use_reentrant=True``: `function` runs under no_grad inside an autograd Function whose
  backward recomputes it and calls backward on the recomputation (parameters' `.grad`
  accumulate there). It needs an input that requires grad, and refuses `.grad()` and
  `backward(inputs=)`.
"""
from __future__ import annotations

import contextlib
import warnings

import ember

from ..autograd import graph as G
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks
from ..core.tensor import Tensor

__all__ = ["CheckpointError", "CheckpointFunction", "checkpoint", "checkpoint_sequential",
           "detach_variable"]

_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.
"""


class CheckpointError(RuntimeError):
    """The recomputation did not save what the forward pass saved."""


def detach_variable(inputs):
    """The tensors of a tuple detached, keeping requires_grad (other values as they are)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(  # noqa: TRY004  (torch's exception)
"Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    return tuple(x.detach().requires_grad_(x.requires_grad) if isinstance(x, Tensor) else x
                 for x in inputs)


def _replay(function, args, kwargs, rng_state):
    """`function(*args, **kwargs)` with grad mode on and the forward pass's RNG state."""
    with ember.random.fork_rng(enabled=rng_state is not None):
        if rng_state is not None:
            ember.set_rng_state(rng_state)
        with ember.enable_grad():
            return function(*args, **kwargs)


class CheckpointFunction(Function):
    """The reentrant checkpoint (torch's CheckpointFunction)."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        if not any(a.requires_grad for a in args if isinstance(a, Tensor)):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          stacklevel=2)
        ctx.run_function = run_function
        ctx.rng_state = ember.get_rng_state() if preserve_rng_state else None
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with ember.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not ember.autograd._is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors, strict=True):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        outputs = _replay(ctx.run_function, detached, {}, ctx.rng_state)
        outputs = (outputs,) if isinstance(outputs, Tensor) else outputs
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        ember.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, *(x.grad if isinstance(x, Tensor) else None for x in detached))


class _Recomputation:
    """The non-reentrant checkpoint's saved-tensor hooks: the forward pass saves only the
    position of each tensor (and its metadata); the first unpack of a backward runs the
    function again and keeps what it saves, position by position."""

    def __init__(self, function, args, kwargs, rng_state, context, check):
        # the inputs are saved as an op's are: changing one in place before backward is
        # an error, as in torch
        self.args = [G.save(a) if isinstance(a, Tensor) else a for a in args]
        self.function, self.kwargs, self.rng_state = function, kwargs, rng_state
        self.context, self.check = context, check   # (recomputation's context manager)
        self.metadata = []      # (shape, dtype, device) of each tensor the forward saved
        self.recomputed = []    # what the last recomputation saved, taken as it is unpacked

    def pack(self, t):
        self.metadata.append(_metadata(t))
        return len(self.metadata) - 1

    def unpack(self, position):
        if position >= len(self.recomputed) or self.recomputed[position] is None:
            self.recompute()
        t, self.recomputed[position] = self.recomputed[position], None
        return t

    def recompute(self):
        saved = []

        def keep(t):
            saved.append(t.detach())
            if len(saved) == len(self.metadata):
                raise _Enough  # (torch's early stop: the rest of the function is not rerun)

        args = [G.unpack(a, None) for a in self.args]
        try:
            with saved_tensors_hooks(keep, _never_unpacked), self.context:
                _replay(self.function, args, self.kwargs, self.rng_state)
        except _Enough:
            pass
        if len(saved) != len(self.metadata):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.metadata)}\n"
                f"Number of tensors saved during recomputation: {len(saved)}.\n{_DEBUG_TIP}")
        different = "".join(
            f"tensor at position {i}:\nsaved metadata: {_show(meta)}\n"
            f"recomputed metadata: {_show(_metadata(t))}\n"
            for i, (meta, t) in enumerate(zip(self.metadata, saved, strict=True))
            if self.check and meta != _metadata(t))
        if different:
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following "
                                  "tensors have different metadata than during the forward "
                                  f"pass.\n{different}.\n{_DEBUG_TIP}")
        self.recomputed = saved


class _Enough(Exception):
    """Raised by the recomputation's pack hook once it has every tensor backward needs."""


def _never_unpacked(_):
    raise AssertionError("a recomputation's own graph is never run")


def _metadata(t):
    return tuple(t.shape), t.dtype, t.device


def _show(meta):
    shape, dtype, device = meta
    return f"{{'shape': torch.Size({list(shape)}), 'dtype': torch.{dtype.name}, " \
           f"'device': device(type='{device.type}')}}"


def checkpoint(function, *args, use_reentrant=None, context_fn=None,
               determinism_check="default", debug=False, preserve_rng_state=True, **kwargs):
    """`function(*args, **kwargs)`, its activations recomputed in backward instead of kept
    (see the module's docstring for the two ways)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not None or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError("determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    forward_context, recompute_context = context_fn() if context_fn is not None else (
        contextlib.nullcontext(), contextlib.nullcontext())
    rng_state = ember.get_rng_state() if preserve_rng_state else None
    frame = _Recomputation(function, args, kwargs, rng_state, recompute_context,
                           determinism_check == "default")
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)


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
