"""Writing results into `out=` tensors and into self (in-place ops), with torch's checks."""
from __future__ import annotations

import warnings

from .dtype import can_cast


def check_cast(result_dtype, out_dtype, out_name=None) -> None:
    """torch's check that a result can be written into a tensor of `out_dtype` (in-place
    ops and out=); `out_name` overrides how the message names out_dtype."""
    if not can_cast(result_dtype, out_dtype):
        raise RuntimeError(f"result type {result_dtype.scalar_name} can't be cast to the desired "
                           f"output type {out_name or out_dtype.scalar_name}")


def check_output_shape(self, shape) -> None:
    """An in-place op's result (the broadcast `shape`) must have self's shape."""
    if tuple(shape) != tuple(self._shape):
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")


def copy_to_out(result, out, keep_strides=False):
    """Resizes `out` if it is empty (warns if it had another non-empty shape), checks the
    dtype can hold the result, and copies. Returns `out`. keep_strides: a resized `out`
    takes the result's strides (a LAPACK result's column-major layout, or lstsq's view of
    its larger buffer), not contiguous ones."""
    if result.device != out.device:
        raise RuntimeError(f"Expected out tensor to have device {result.device}, but got "
                           f"{out.device} instead")
    check_cast(result.dtype, out.dtype)
    if out.shape != result.shape:
        if out.numel() != 0:
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out.shape)}, which does not match the required output shape "
                          f"{list(result.shape)}. This behavior is deprecated.", UserWarning,
                          stacklevel=3)
        strides = tuple(result.stride())
        keep = keep_strides and 0 not in strides       # (never an expanded layout)
        resize_(out, result.shape, strides if keep else None)
    out.copy_(result)
    return out


def resize_(t, shape, strides=None):
    """Gives `t` fresh storage of `shape` (used for out= resizing), contiguous unless
    `strides` are given."""
    from .alloc import empty_strided_on
    from .tensor import contiguous_strides
    strides = contiguous_strides(tuple(shape)) if strides is None else strides
    fresh = empty_strided_on(t.device, shape, strides, t.dtype)
    t._np, t._shape, t._stride, t._offset = fresh._np, fresh._shape, fresh._stride, 0
    t._contig = None        # (the old array's mark: no longer holds, nor keeps it alive)
    t._storage = fresh.untyped_storage()
    return t
