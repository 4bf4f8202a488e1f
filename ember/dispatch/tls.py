"""Thread-local dispatch state: include/exclude keysets, grad mode, mode stacks.

Read once per op call: `include, keep = state.masks`, then
`(tensor_keys | include) & keep`, where `keep` is the complement of the exclude set.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

from .._accel import speedups
from . import keys as K


class _State(threading.local):
    def __init__(self):
        self.masks = (0, K.FULL)    # (include set, ~exclude set): one read per op call
        self.grad_enabled = True
        self.inference = False      # inside inference_mode(True)
        self.dispatch_modes = []    # TorchDispatchMode stack
        self.function_modes = []    # TorchFunctionMode stack
        self.saved_hooks = []       # autograd.graph.saved_tensors_hooks stack: (pack, unpack)
        self.checkpoint_valid = True  # False while .grad() / backward(inputs=) runs


state = _State()


def exclude_set() -> int:
    return K.FULL & ~state.masks[1]


def include_set() -> int:
    return state.masks[0]


def set_inference(flag: bool) -> None:
    """Enters (True) or leaves this thread's inference mode flag; the C from_array reads a
    copy of it (ember/_speedups.c), kept here in step."""
    state.inference = flag
    if speedups is not None:
        speedups.set_inference(flag)


def set_masks(include: int, keep: int) -> None:
    state.masks = (include, keep)


@contextmanager
def grad_disabled():
    """Grad mode off for the block: the core layer's `no_grad` (ember.no_grad is the
    public one, in ember/autograd/grad_mode.py)."""
    s = state
    old = s.grad_enabled
    s.grad_enabled = False
    try:
        yield
    finally:
        s.grad_enabled = old


@contextmanager
def excluding(keyset: int):
    """Exclude keys for the duration of the block (like torch's ExcludeDispatchKeyGuard)."""
    s = state
    old = s.masks
    s.masks = (old[0], old[1] & ~keyset)
    try:
        yield
    finally:
        s.masks = (s.masks[0], old[1])


@contextmanager
def including(keyset: int):
    s = state
    old = s.masks
    s.masks = (old[0] | keyset, old[1])
    try:
        yield
    finally:
        s.masks = (old[0], s.masks[1])
