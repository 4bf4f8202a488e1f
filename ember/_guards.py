"""torch._guards' helpers that ember has: `detect_fake_mode`, and whether ember._dynamo is
capturing the running code (`is_compiling`, torch.compiler.is_compiling's flag; this module
is light, so ember.optim can ask without loading ember._dynamo).

    >>> from ember._subclasses.fake_tensor import FakeTensorMode
    >>> mode = FakeTensorMode()
    >>> detect_fake_mode([mode.from_tensor(ember.ones(2))]) is mode
    True
"""
from __future__ import annotations

_compiling = [False]     # set by ember._dynamo while it captures a call


def is_compiling() -> bool:
    """Whether ember._dynamo is capturing the running code (torch.compiler.is_compiling):
    code may then keep values as tensors that it reads with `.item()` in eager mode."""
    return _compiling[0]


def detect_fake_mode(inputs=None):
    """The active FakeTensorMode, else the mode of the fakes among `inputs` (nested lists,
    tuples and dicts); None when there is neither. Fakes of two modes raise."""
    from ember._subclasses.fake_tensor import FakeTensor, active_fake_mode
    mode = active_fake_mode()
    if mode is not None:
        return mode
    found = []

    def visit(x):
        if isinstance(x, FakeTensor):
            found.append(x.fake_mode)
        elif isinstance(x, (list, tuple)):
            for y in x:
                visit(y)
        elif isinstance(x, dict):
            for y in x.values():
                visit(y)
    visit(inputs)
    if not found:
        return None
    if any(m is not found[0] for m in found):
        raise AssertionError("fake tensors of several FakeTensorModes among the inputs")
    return found[0]


__all__ = ["detect_fake_mode", "is_compiling"]
