"""Samples for the shape op family (issue 4), registered into `opinfo.OPS`.

opinfo.py imports this module at its end; `grad_extra()` adds gradient samples to
tests/autograd/grad_samples.py's EXTRA (called with opinfo's random generator seeded).
"""
from __future__ import annotations

from opinfo import (  # noqa: F401
    ALL,
    BF16,
    BOOL,
    DEVICE,
    F16,
    F32,
    F64,
    FLOATS,
    I32,
    I64,
    NUMERIC,
    U8,
    E,
    S,
    View,
    binary_samples,
    dtname,
    expanded,
    inplace_binary_samples,
    make,
    offset,
    out_of,
    register,
    scalar_samples,
    strided,
    transposed,
    unary_samples,
)


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    return {}
