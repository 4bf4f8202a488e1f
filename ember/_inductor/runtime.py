"""Helpers the generated modules call (torch._inductor.runtime's place)."""
from __future__ import annotations

import math
import sys

import numpy as np

from ..core.tensor import Tensor, from_array
from ..dispatch import keys as K
from ..dispatch.dispatcher import ops
from ..kernels.cpu.binary import _power
from ..kernels.cpu.unary import _sigmoid
from . import config, kernels


def _filled(out, value):
    out.fill(value)
    return out


def _reuse(slot, shape, dtype):
    """An uninitialised C-ordered array for one allocation site of a generated module
    (`slot`: the site's one-item list): the array this site handed out last time when nobody
    holds it any more (no tensor, view or saved value refers to it: only `slot` and this
    frame do), else a new one, kept in `slot` when it has at least config.recycle_bytes.
    A fresh large block is mmap-ed memory whose pages fault on first write: reusing it
    makes `a*b+c` on 10M float32 one pass over warm memory.

        >>> slot = [None]
        >>> a = _reuse(slot, (1 << 20,), np.float32)
        >>> _reuse(slot, (1 << 20,), np.float32) is a        # `a` still held: a new array
        False
    """
    buf = slot[0]
    # references to a free buffer: the slot, `buf`, getrefcount's argument
    if buf is not None and sys.getrefcount(buf) == 3 and buf.shape == shape and \
            buf.dtype == dtype:
        return buf
    buf = np.empty(shape, dtype)
    if buf.nbytes >= config.recycle_bytes:
        slot[0] = buf
    return buf


def _copy_into(dst, src):
    """copy_'s semantics on arrays: src broadcast and cast into dst, dst returned."""
    np.copyto(dst, src, casting="unsafe")
    return dst


def _put(dst, index, src):
    """dst with src written at dst[index] (slice_scatter, select_scatter), dst returned."""
    dst[index] = src
    return dst


def _along(a, dim):
    """`a` as (pre, a.shape[dim], post): the layout the gather/scatter kernels index."""
    shape = a.shape
    return a.reshape(math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1:]))


def _gather(x, dim, index):
    """gather on arrays whose shapes agree but along dim (a numba loop); an index out of
    range runs ember's kernel, which raises eager's error."""
    out = np.empty(index.shape, x.dtype)
    if not kernels.template("gather")(_along(x, dim), _along(index, dim), _along(out, dim)):
        return extern(ops.aten.gather.default)(x, dim, index)
    return out


def _scatter(out, dim, index, value):
    """scatter.value into `out` (a C-ordered copy of the input), as _gather."""
    fill = out.dtype.type(value)
    if not kernels.template("scatter_value")(_along(out, dim), _along(index, dim), fill):
        return extern(ops.aten.scatter.value)(out, dim, index, value)
    return out


def _log_softmax(x, dim):
    """log_softmax of a float32/float64 array along its last dim (a numba loop over rows)."""
    out = np.empty(x.shape, x.dtype)
    n = x.shape[dim] if x.ndim else 1
    kernels.template("log_softmax")(x.reshape(-1, n), out.reshape(-1, n))
    return out


def to_tensor(x):
    if isinstance(x, np.ndarray):
        return from_array(x)
    if isinstance(x, list):
        return [to_tensor(v) for v in x]
    if isinstance(x, tuple):
        return tuple(to_tensor(v) for v in x)
    return x


def from_tensor(x):
    """A tensor's values as an array (a conjugate or negative view resolved: an array has
    no such bit)."""
    if isinstance(x, Tensor):
        if x.is_conj() or x.is_neg():
            x = x.resolve_conj().resolve_neg()
        return x._np
    if isinstance(x, (list, tuple)):
        return type(x)(from_tensor(v) for v in x)
    return x


def _call(target, args, kwargs):
    """A node that is not lowered: its op on ember tensors over the arrays (dispatched)."""
    out = target(*to_tensor(args), **{k: to_tensor(v) for k, v in kwargs.items()})
    return from_tensor(out)


def extern(op):
    """An op's CPU kernel, called directly on arrays (no dispatcher, no autograd): torch's
    ExternKernel. The kernel checks its arguments as in eager."""
    kernel = op._kernel_for(K.CPU)

    def run(*args, **kwargs):
        return from_tensor(kernel(*op._bind(*to_tensor(args), **to_tensor(kwargs))))
    run.__name__ = f"extern_{op.name}"
    return run


def _as(a, dt):
    a = np.asarray(a)
    return a if a.dtype == dt else a.astype(dt)


def arrays_of(args):
    """The NumPy arrays of ember tensors (other values as they are), or None when one is not
    CPU data (a fake or meta tensor)."""
    try:
        arrays = [a._np for a in args]
    except AttributeError:                   # (a number among them)
        arrays = [a._np if isinstance(a, Tensor) else a for a in args]
    for a in arrays:
        if a is None:
            return None
    return arrays


def runner(fn, gm):
    """A generated module's `call` (over arrays) as a callable over ember tensors, `gm` run
    as it is when an argument is not CPU data. `.arrays` is `call` itself: AOT autograd
    keeps the saved values between the forward and the backward graph as arrays."""
    def run(*args):
        arrays = arrays_of(args)
        if arrays is None:
            return gm(*args)
        return wrap(fn(*arrays), args, arrays)
    run.arrays = fn
    return run


def wrap(outs, args, arrays):
    """Output arrays as ember tensors (an input given back is that input)."""
    res = []
    for r in outs:
        if r.__class__ is np.ndarray:
            for a, t in zip(arrays, args):
                if a is r:
                    r = t
                    break
            else:
                r = from_array(r)
        res.append(r)
    return res


# the names generated modules use
HELPERS = {"_extern": extern, "_reuse": _reuse, "_filled": _filled, "_copy_into": _copy_into, "_put": _put,
           "_gather": _gather, "_scatter": _scatter, "_log_softmax": _log_softmax, "_as": _as,
           "_call": _call, "_sigmoid": _sigmoid, "_power": _power}
