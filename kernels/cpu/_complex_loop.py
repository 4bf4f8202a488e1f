"""Complex multiplication and division compiled by numba, with torch's roundings.

torch's vectorized complex multiply computes the textbook (a*c - b*d) + (a*d + b*c)i with
every product rounded (no fused multiply-add), where NumPy's loop fuses one product into
the subtraction: (0.1+0.1j) * (0.1-0.1j) has the imaginary part 0 in torch, 8.3e-19 in
NumPy. torch's complex division is Smith's algorithm (c10::complex, NumPy's formula)
with its multiply-adds fused, NumPy's rounds each step: 38% of random complex128
quotients (complex64 too) differ in the last bit. These ufuncs give torch's bits (of its vectorized
lanes: torch's scalar loop, which serves strided operands and a loop's last elements,
fuses the multiply's products too). numba compiles without fast-math, so LLVM fuses only
where `llvm_fma` asks. Imported on first use (numba's import costs ~0.3 s); cached on disk.

    >>> mul(np.array([0.1 + 0.1j]), np.array([0.1 - 0.1j]))
    array([0.02+0.j])
"""
from __future__ import annotations

import numba
import numpy as np  # noqa: F401  (the doctest)
from numba.extending import overload

from ._fma_loop import llvm_fma


def _one(x):
    """1 in the numba float type of `x` (a literal 1.0 would be a float64)."""


@overload(_one)
def _one_impl(x):
    one = numba.np.numpy_support.as_dtype(x).type(1)
    return lambda x: one


@numba.vectorize(["complex64(complex64, complex64)", "complex128(complex128, complex128)"],
                 cache=True)
def _mul(x, y):
    """x * y as (a*c - b*d) + (a*d + b*c)i, each product rounded."""
    a, b, c, d = x.real, x.imag, y.real, y.imag
    return complex(a * c - b * d, a * d + b * c)


@numba.vectorize(["complex64(complex64, complex64)", "complex128(complex128, complex128)"],
                 cache=True)
def _div(x, y):
    """x / y by Smith's algorithm (c10::complex's, NumPy's), its multiply-adds fused."""
    a, b, c, d = x.real, x.imag, y.real, y.imag
    if abs(c) >= abs(d):
        if c == 0 and d == 0:     # a complex infinity or NaN, as torch and NumPy
            return complex(a / abs(c), b / abs(d))
        rat = d / c
        scl = _one(c) / llvm_fma(d, rat, c)
        return complex(llvm_fma(b, rat, a) * scl, llvm_fma(-a, rat, b) * scl)
    rat = c / d
    scl = _one(c) / llvm_fma(c, rat, d)
    return complex(llvm_fma(a, rat, b) * scl, llvm_fma(b, rat, -a) * scl)


# the plain NumPy ufuncs under numba's DUFunc wrappers (whose calls cost 0.7 us more)
mul, div = _mul.ufunc, _div.ufunc
