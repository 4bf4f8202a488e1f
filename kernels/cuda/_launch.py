"""Helpers of the CUDA launchers: outputs shaped by the Meta kernels, operand layouts for the
strided kernels (broadcast strides, collapsed dims, passed as a small int64 array), casts to
a compute dtype, and the launch itself through the active driver (CuPy or the emulator).

Kernels are named `<family>_<op>_<dtype>` (kernels/cuda/elementwise.cu); the dtype name is
ember's (`float32`, `bool`, ...).
"""
from __future__ import annotations

import math

import numpy as np

from ember.core import dtype as D
from ember.core.tensor import contiguous_strides
from ember.cuda import _runtime

BLOCK = 256
MAX_GRID = 4096
# The C type of a kernel's scalar parameters (`typename Acc<T>::type`) for each dtype.
ACC_NP = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16,
          "int32": np.int32, "int64": np.int64, "float16": np.float32, "bfloat16": np.float32,
          "float32": np.float32, "float64": np.float64}


def acc_scalar(dt: D.dtype, value):
    """A Python number as the kernel's scalar parameter for dtype `dt`, converted like a C++
    cast (torch's: integers wrap, floats truncate toward zero)."""
    t = ACC_NP[dt.name]
    if t is np.bool_:
        return np.bool_(bool(value))
    with np.errstate(all="ignore"):
        return np.array(value).astype(t)[()]


def empty(device, shape, stride, dt):
    return _runtime.empty_cuda(device, shape, stride, dt)


def empty_like_meta(m, device):
    """A CUDA tensor with the layout a Meta kernel computed (its checks already ran)."""
    return _runtime.empty_cuda(device, m._shape, m._stride, m._dtype)


def cuda_device(*args):
    """The device of the first CUDA tensor among args."""
    for a in args:
        if getattr(a, "_device", None) is not None and a._device.type == "cuda":
            return a._device
    raise RuntimeError("expected a CUDA tensor argument")


def broadcast_strides(t, shape) -> tuple:
    """t's strides seen with `shape` (leading and size-1 broadcast dims get stride 0)."""
    lead = len(shape) - len(t._shape)
    st = t.stride()
    return tuple(0 if i < lead or t._shape[i - lead] != n else st[i - lead]
                 for i, n in enumerate(shape))


def collapse(shape, strides: list) -> tuple[tuple, list]:
    """Drops size-1 dims and merges neighbours that are contiguous for every operand, so that
    most launches index a 1-d span: ((6,), [(1,), (1,)]) for two contiguous (2, 3) tensors."""
    dims = [d for d, n in enumerate(shape) if n != 1]
    out_shape, out_strides = [], [[] for _ in strides]
    for d in dims:
        if out_shape and all(st[d] * shape[d] == o[-1] for st, o in zip(strides, out_strides)):
            out_shape[-1] *= shape[d]
            for st, o in zip(strides, out_strides):
                o[-1] = st[d]
            continue
        out_shape.append(shape[d])
        for st, o in zip(strides, out_strides):
            o.append(st[d])
    return tuple(out_shape), [tuple(o) for o in out_strides]


def layout_buffer(device, shape, strides: list) -> int:
    """The device array [ndim, sizes, strides of each operand] (common.cuh's Offsets)."""
    shape, strides = collapse(shape, strides)
    if not shape:
        shape, strides = (1,), [(0,)] * len(strides)
    return _runtime.constant_buffer(_runtime.device_index(device),
                                    (len(shape), *shape, *[s for st in strides for s in st]))


def rows_layout(tensors, d):
    """(rows, layout buffer over every dim but d, stride along d of each tensor): the row
    kernels (softmax, scans, sort) walk rows with Offsets and step along d by its stride."""
    t0 = tensors[0]
    if t0.dim() == 0:
        return 1, layout_buffer(t0._device, (), [() for _ in tensors]), [0] * len(tensors)
    kept = [i for i in range(t0.dim()) if i != d]
    shape = [t0._shape[i] for i in kept]
    buf = layout_buffer(t0._device, shape, [[t.stride(i) for i in kept] for t in tensors])
    return math.prod(shape), buf, [t.stride(d) for t in tensors]


def launch(module: str, name: str, n: int, args, *, fibers=False, block=BLOCK, grid=None,
           shared_mem=0):
    """Launches `name` of kernels/cuda/<module>.cu over n elements (a grid-stride loop)."""
    if grid is None:
        grid = (max(1, min(-(-n // block), MAX_GRID)),)
    try:
        kernel = _runtime.require_driver().kernel(module, name)
    except AttributeError:   # no instantiation for this dtype
        raise NotImplementedError(f'"{name}" is not implemented for CUDA '
                                  f"(kernels/cuda/{module}.cu)") from None
    kernel(grid, (block,) if isinstance(block, int) else block, args, shared_mem=shared_mem,
           fibers=fibers)


def elementwise(name: str, out, *inputs, scalars=(), module="elementwise"):
    """out = kernel(inputs broadcast to out's shape), any strides; returns out."""
    n = out.numel()
    if n == 0:
        return out
    shape = out._shape
    buf = layout_buffer(out._device, shape,
                        [out.stride()] + [broadcast_strides(t, shape) for t in inputs])
    launch(module, name, n, (np.int64(n), buf, out.data_ptr(),
                                    *[t.data_ptr() for t in inputs], *scalars))
    return out


def to_device_dtype(x, dt: D.dtype, device):
    """x (CUDA tensor, CPU scalar tensor or Python number) as a CUDA tensor of dtype dt."""
    if not hasattr(x, "_dtype"):
        t = empty(device, (), (), dt)
        return fill(t, x)
    if x._device.type != "cuda":
        if x.dim() != 0:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at "
                               f"least two devices, {device} and {x._device}!")
        return to_device_dtype(x.item(), dt, device)
    if x._dtype is dt:
        return x
    out = empty(device, x._shape, contiguous_strides(x._shape), dt)
    return elementwise(f"cast_{x._dtype.name}_{dt.name}", out, x)


def fill(out, value):
    """Every element of `out` = value (converted by the kernel like a C++ cast)."""
    if out._dtype is D.bool_:
        value = bool(value)
    elif out._dtype.category == D.INT:
        value = int(value)
    return elementwise(f"fill_{out._dtype.name}", out, scalars=(acc_scalar(out._dtype, value),))


NO_BAD_INDEX = -(2 ** 62)


def bad_index_flag(device):
    """A device int64 that kernels set to an out-of-range index they met (or leave alone)."""
    return fill(empty(device, (), (), D.int64), NO_BAD_INDEX)


def raise_if_bad(flag, message, error=IndexError):
    """error(message(bad index)) when a kernel flagged one (one 8-byte copy to the host)."""
    bad = flag.item()
    if bad != NO_BAD_INDEX:
        raise error(message(bad))
