"""The profiler's collector: what `observers.active` points at while a trace records.

It keeps one `Record` per range (op call, record_function, autograd node, optimizer
step) with its parent, and one `MemRecord` per allocation or free. Timestamps are
`time.perf_counter_ns()`; `ember.profiler._events` turns the records into torch's
FunctionEvent/EventList objects.
"""
from __future__ import annotations

import functools
import os
import sys
import threading
import time
import weakref

from ..core.tensor import Tensor

_now = time.perf_counter_ns
@functools.cache
def _library_dirs():
    """The folders of ember's own code: the runtime, the generated ops, the kernels."""
    from .. import _generated, kernels
    return tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                 for m in (sys.modules["ember"], _generated, kernels))


class Record:
    """One range: name, kind (cpu_op/user_annotation), thread, [start, end) in ns."""

    __slots__ = (
        "args",
        "concrete",
        "dims",
        "end",
        "kind",
        "name",
        "op",
        "parent",
        "shapes",
        "stack",
        "start",
        "strides",
        "tid",
        "types",
    )

    def __init__(self, name, kind, tid, parent, op):
        self.name, self.kind, self.tid, self.parent, self.op = name, kind, tid, parent, op
        self.shapes = self.dims = self.strides = self.types = self.concrete = None
        self.stack = self.args = None
        self.end = None


class MemRecord:
    """An allocation (nbytes > 0) or free (< 0) at `ts`, inside `owner` (or None)."""

    __slots__ = ("addr", "device", "nbytes", "owner", "tid", "total", "ts")

    def __init__(self, ts, nbytes, device, owner, tid, total, addr):
        self.ts, self.nbytes, self.device, self.owner = ts, nbytes, device, owner
        self.tid, self.total, self.addr = tid, total, addr


class Collector:
    """Receives ranges and memory events from ember/dispatch/observers.py."""

    def __init__(self, record_shapes=False, profile_memory=False, with_stack=False):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.records: list[Record] = []
        self.memory_records: list[MemRecord] = []
        self.recording = False
        self.start_ns = self.end_ns = None
        self.wall_start_ns = None
        self._stacks: dict[int, list[Record]] = {}
        self._allocated = {}          # device -> bytes allocated now (from this trace's view)
        self._live = set()            # addresses of the CPU arrays seen allocated

    # --- lifetime -------------------------------------------------------------------------
    def start(self):
        self.start_ns = _now()
        self.wall_start_ns = time.time_ns()
        self.recording = True

    def stop(self):
        """Stops recording; ranges still open end now."""
        self.end_ns = _now()
        self.recording = False
        for stack in self._stacks.values():
            for r in stack:
                r.end = self.end_ns
                r.args = None
        self._stacks.clear()

    # --- ranges -----------------------------------------------------------------------------
    def enter(self, name, kind, op=None, args=None):
        tid = threading.get_native_id()
        stack = self._stacks.get(tid)
        if stack is None:
            stack = self._stacks[tid] = []
        r = Record(name, kind, tid, stack[-1] if stack else None, op)
        if args is not None:
            if self.record_shapes:
                _describe_inputs(r, args)
            if self.profile_memory:
                r.args = args
        if self.with_stack:
            r.stack = _user_stack()
        stack.append(r)
        self.records.append(r)
        r.start = _now()
        return r

    def exit(self, r, out=None):
        end = _now()
        if r.args is not None:
            if out is not None:
                self._record_outputs(r.args, out)
            r.args = None
        stack = self._stacks.get(r.tid)
        if not stack or r not in stack:
            return                     # already closed by stop()
        while stack:                   # ranges an exception left open end with this one
            top = stack.pop()
            top.end = end
            if top is r:
                break

    # --- memory -----------------------------------------------------------------------------
    def memory(self, nbytes, device, addr=0):
        if not self.recording:
            return
        tid = threading.get_native_id()
        stack = self._stacks.get(tid)
        total = self._allocated[device] = self._allocated.get(device, 0) + nbytes
        self.memory_records.append(MemRecord(_now(), nbytes, device, stack[-1] if stack else None,
                                             tid, total, addr))

    def _record_outputs(self, args, out):
        """CPU tensors an op returned that own a fresh array: allocations, freed when the
        array is collected (NumPy allocates them, so no allocator hook sees them)."""
        outs = out if isinstance(out, (tuple, list)) else (out,)
        for t in outs:
            if not isinstance(t, Tensor) or t._device.type != "cpu":
                continue
            arr = t._np
            if arr is None or arr.base is not None or not arr.nbytes:
                continue
            addr = arr.ctypes.data
            if addr in self._live or any(a is t or (isinstance(a, Tensor) and a._np is arr)
                                         for a in args):
                continue
            self._live.add(addr)
            self.memory(arr.nbytes, _CPU, addr)
            weakref.finalize(arr, _freed, weakref.ref(self), -arr.nbytes, addr)


_CPU = ("cpu", -1)


def _freed(collector_ref, nbytes, addr):
    c = collector_ref()
    if c is not None:
        c._live.discard(addr)
        c.memory(nbytes, _CPU, addr)


# --- input descriptions (record_shapes) ------------------------------------------------------
_C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                 "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
                 "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                 "bool": "bool", "complex64": "c10::complex<float>",
                 "complex128": "c10::complex<double>"}


def _describe_inputs(r, args):
    """torch's per-argument Input Shapes / Input Dims / Input Strides / Input type /
    Concrete Inputs of one op call."""
    shapes, dims, strides, types, concrete = [], [], [], [], []
    for a in args:
        if isinstance(a, Tensor):
            s = list(a._shape)
            shapes.append(s)
            dims.append(s)
            strides.append(list(a.stride()))
            types.append(_C_TYPE_NAMES.get(a._dtype.name, a._dtype.name))
            concrete.append("")
        elif isinstance(a, (list, tuple)) and a and all(isinstance(x, Tensor) for x in a):
            shapes.append([])
            dims.append([list(x._shape) for x in a])
            strides.append([list(x.stride()) for x in a])
            types.append("TensorList")
            concrete.append("")
        else:
            shapes.append([])
            dims.append([])
            strides.append([])
            if isinstance(a, (bool, int, float, complex)):
                types.append("Scalar")
                concrete.append(str(a))
            elif isinstance(a, (list, tuple)) and all(isinstance(x, (int, float)) for x in a):
                types.append("ScalarList")
                concrete.append(str(list(a)))
            else:
                types.append("")
                concrete.append("")
    r.shapes, r.dims, r.strides, r.types, r.concrete = shapes, dims, strides, types, concrete


def _user_stack():
    """The caller's frames outside ember, innermost first, as torch's `file(line): func`."""
    out = []
    skip = _library_dirs()
    f = sys._getframe(2)
    while f is not None:
        path = f.f_code.co_filename
        if not path.startswith(skip):
            out.append(f"{path}({f.f_lineno}): {f.f_code.co_name}")
        f = f.f_back
    return out
