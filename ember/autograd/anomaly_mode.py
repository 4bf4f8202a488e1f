"""Anomaly detection: record each node's forward stack, name the failing node in
backward, and raise when a backward formula produces NaN.

    >>> with ember.autograd.detect_anomaly():   # warns with the failing node's forward stack
    ...     ember.tensor([-1.0], requires_grad=True).sqrt().sum().backward()
    Traceback (most recent call last):
      ...
    RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.

Global like torch's (not thread-local). Costs a stack capture per recorded op.
"""
from __future__ import annotations

import traceback
import warnings

import numpy as np

from . import graph as G


def is_anomaly_enabled() -> bool:
    return G._anomaly[0]


def is_anomaly_check_nan_enabled() -> bool:
    return G._anomaly[1]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turns anomaly detection on or off for good (torch.set_anomaly_enabled; the context
    managers detect_anomaly and set_detect_anomaly restore the previous state)."""
    _set(enabled, check_nan)


def _set(mode: bool, check_nan: bool) -> None:
    G._anomaly[0] = bool(mode)
    G._anomaly[1] = bool(check_nan)


class detect_anomaly:
    """Context manager (and decorator) enabling anomaly detection for a block."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = tuple(G._anomaly)
        _set(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _set(*self.prev)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Sets anomaly detection on or off (on construction, like torch); restores on exit."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = tuple(G._anomaly)
        if mode:
            warnings.warn("Anomaly Detection has been enabled. This mode will increase the "
                          "runtime and should only be enabled for debugging.", UserWarning,
                          stacklevel=2)
        _set(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(*self.prev)


def record_forward_stack(node) -> None:
    node._ext().trace = "".join(traceback.format_stack()[:-3])


def call_with_anomaly(node, grads):
    """Runs `node` in backward; on failure, warns with the forward stack of the node."""
    try:
        outputs = node.apply(grads)
        if G._anomaly[1]:
            for i, g in enumerate(outputs):
                if g is not None and g._np is not None and g._dtype.differentiable \
                        and np.isnan(g._np).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its "
                                       f"{i}th output.")
    except Exception:
        ex = node._extra
        trace = ex.trace if ex is not None else None
        if trace:
            warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that "
                          f"caused the error:\n{trace}", UserWarning, stacklevel=2)
        raise
    return outputs
