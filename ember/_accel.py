"""The optional C helpers of ember/_speedups.c.

`speedups` is that compiled module, or None when it is not built (no C compiler at install
time) or when the environment sets EMBER_PURE_PYTHON=1. Every helper has a pure-Python twin
that runs instead, with the same results; tests/tensor/test_speedups.py compares the two.

    >>> from ember._accel import speedups
    >>> speedups is None or callable(speedups.from_array)
    True
"""
from __future__ import annotations

import os

speedups = None
if os.environ.get("EMBER_PURE_PYTHON", "0") in ("", "0"):
    try:
        from . import _speedups as speedups
    except ImportError:       # not built: the pure-Python twins run
        speedups = None
