"""`Tensor.to(...)` overloads and `contiguous`: return `self` itself when nothing would
change (and copy=False), else a `_to_copy` / `clone`.

    >>> x = ember.ones(2)
    >>> x.to(ember.float32) is x, x.to(ember.float64).dtype
    (True, ember.float64)
"""
from ember._generated import ops as _ops
from ember.core.device import as_device
from ember.core.dtype import dtype as _dtype
from ember.core.factory_args import memory_format_of
from ember.core.tensor import Tensor
from ember.overrides import NO_OVERRIDE, handle_torch_function_any, tf_state


def _to(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format):
    """torch's to_impl: alias when dtype, device and memory format already match."""
    dev = as_device(device)
    mf = memory_format_of(memory_format)
    if (not copy and (dtype is None or dtype is self._dtype)
            and (layout is None or str(layout).rpartition(".")[2] == "strided")
            and (dev is None or dev == self.device
                 or (dev.index is None and dev.type == self.device.type))
            and (mf is None or mf.name == "preserve_format"
                 or self.suggest_memory_format() is mf)):
        return self
    return _ops._entry__to_copy(self, dtype, layout, dev, pin_memory, non_blocking,
                                memory_format)


def to_dtype_layout(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format):
    return _to(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)


def to_device(self, device, dtype, non_blocking, copy, memory_format):
    return _to(self, dtype, None, device, None, non_blocking, copy, memory_format)


def to_dtype(self, dtype, non_blocking, copy, memory_format):
    return _to(self, dtype, None, None, None, non_blocking, copy, memory_format)


def to_other(self, other, non_blocking, copy, memory_format):
    return _to(self, other._dtype, None, other.device, None, non_blocking, copy, memory_format)


def contiguous(self, memory_format):
    """self when already contiguous in `memory_format`, else a clone in that format."""
    mf = memory_format_of(memory_format)
    preserve = mf is not None and mf.name == "preserve_format"
    if self.is_contiguous(None if preserve else mf):
        return self
    if preserve:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return _ops._entry_clone(self, mf)


def tensor_to(self, *args, **kwargs):
    """Python's `Tensor.to`, parsed like torch's hand-written binding (the schema's
    to.device needs a dtype, so `x.to("meta")` cannot reach it through the overloads):

        to(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=None)
        to(dtype, non_blocking=False, copy=False, *, memory_format=None)
        to(tensor, non_blocking=False, copy=False, *, memory_format=None)

    >>> tensor_to(ember.ones(2), "meta").device
    device(type='meta')
    """
    if tf_state[0]:
        r = handle_torch_function_any(tensor_to, (self, *args), kwargs)
        if r is not NO_OVERRIDE:
            return r
    args = list(args)
    device = dtype = other = None
    if args and isinstance(args[0], Tensor):
        other = args.pop(0)
    elif args and isinstance(args[0], _dtype):
        dtype = args.pop(0)
    elif args and (args[0] is None or isinstance(args[0], (str, int)) or
                   type(args[0]).__name__ == "device"):
        device = args.pop(0)
        if args and (args[0] is None or isinstance(args[0], _dtype)):
            dtype = args.pop(0)
    names = ["non_blocking", "copy"]
    if len(args) > len(names):
        raise TypeError(f"to() received an invalid combination of arguments - got {len(args)} "
                        "extra positional arguments")
    opts = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in ("device", "dtype", "other", "tensor") and other is None:
            if k == "device":
                device = v
            elif k == "dtype":
                dtype = v
            else:
                other = v
        elif k in ("non_blocking", "copy", "memory_format") and k not in opts:
            opts[k] = v
        else:
            raise TypeError(f"to() got an unexpected or repeated keyword argument '{k}'")
    if other is not None:
        dtype, device = other._dtype, other.device
    return _ops._entry_to_dtype_layout(self, dtype, None, device, None,
                                       bool(opts.get("non_blocking", False)),
                                       bool(opts.get("copy", False)), opts.get("memory_format"))


tensor_to.__name__ = "to"  # what __torch_function__ overrides see, like torch's Tensor.to
