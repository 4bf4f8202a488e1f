"""The numba-compiled loops of the CPU kernels (_fma_loop, _activation_loop, ...), each module
imported on its first use (importing numba costs ~0.3 s, not paid by `import ember`),
then held.

    >>> compiled("_fma_loop").__name__
    'ember.kernels.cpu._fma_loop'
"""
from __future__ import annotations

import functools
import importlib


@functools.cache
def compiled(name: str):
    """The module kernels/cpu/<name>.py."""
    return importlib.import_module(f"{__package__}.{name}")
