"""Special functions compiled by numba over the C library's own, where scipy's lose digits.

`lgamma` is glibc's (within 3 ulp of the exact value everywhere, as torch's Sleef lgamma);
scipy's gammaln is up to 10^5 ulp off near its zeros at 1 and 2 (lgamma(1.0019) was 8
digits off torch). Compiled on first use (kernels/cpu/_compiled.py) and cached on disk.

    >>> lgamma(np.array([1.00192743, 0.5]))
    array([-0.00110949,  0.57236494])
"""
from __future__ import annotations

import math

import numba
import numpy as np  # noqa: F401  (doctest)


@numba.vectorize(["float64(float64)"], cache=True)
def lgamma(x):
    """log|gamma(x)| of float64 values (+inf at the poles and at -inf, as torch)."""
    return math.lgamma(x)
