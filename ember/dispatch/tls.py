"""Thread-local dispatch state: include/exclude keysets, grad mode, mode stacks.

Read once per op call: `(tensor_keys | state.include) & state.keep`, where
`keep` is the complement of the exclude set.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

from . import keys as K


class _State(threading.local):
    def __init__(self):
        self.include = 0
        self.keep = K.FULL          # ~exclude, limited to the known keys
        self.grad_enabled = True
        self.inference = False      # inside inference_mode(True)
        self.dispatch_modes = []    # TorchDispatchMode stack
        self.function_modes = []    # TorchFunctionMode stack


state = _State()


def exclude_set() -> int:
    return K.FULL & ~state.keep


@contextmanager
def excluding(keyset: int):
    """Exclude keys for the duration of the block (like torch's ExcludeDispatchKeyGuard)."""
    s = state
    old = s.keep
    s.keep = old & ~keyset
    try:
        yield
    finally:
        s.keep = old


@contextmanager
def including(keyset: int):
    s = state
    old = s.include
    s.include = old | keyset
    try:
        yield
    finally:
        s.include = old
