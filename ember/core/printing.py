"""`repr(tensor)`: torch's text, with 'torch' read as 'ember'.

    >>> ember.tensor([[1.5, 2.0], [3.0, 4.0]], dtype=ember.float64)
    tensor([[1.5000, 2.0000],
            [3.0000, 4.0000]], dtype=ember.float64)
    >>> ember.empty(2, 3, device="meta")
    tensor(..., device='meta', size=(2, 3))

A port of torch/_tensor_str.py working on NumPy arrays: floats print with 4 decimals,
in scientific notation when the nonzero finite magnitudes span more than 1000x or leave
[1e-4, 1e8]; integral floats print as `3.`; more than 1000 elements are summarised with
the 3 first and last items of each dimension.
"""
from __future__ import annotations

import math

import numpy as np

from . import dtype as D


class _PrintOptions:
    """What `ember.set_printoptions` changes (torch's defaults)."""
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None  # None: decide from the values; True/False: force


PRINT_OPTIONS = _PrintOptions()
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Like torch.set_printoptions: digits after the point, the element count above which
    tensors are summarised, items kept per edge, line width, a profile ('default',
    'short', 'full'), and sci_mode (None = automatic).

    >>> ember.set_printoptions(precision=2)
    >>> ember.tensor([1 / 3])
    tensor([0.33])
    >>> ember.set_printoptions(profile="default")     # back to torch's defaults
    >>> ember.tensor([1 / 3])
    tensor([0.3333])
    """
    o = PRINT_OPTIONS
    if profile is not None:
        o.precision, o.threshold, o.edgeitems, o.linewidth = _PROFILES[profile]
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(o, name, value)
    o.sci_mode = sci_mode


def get_printoptions() -> dict:
    o = PRINT_OPTIONS
    return {"precision": o.precision, "threshold": o.threshold, "edgeitems": o.edgeitems,
            "linewidth": o.linewidth, "sci_mode": o.sci_mode}


class _Formatter:
    """Picks one width and style (int / fixed / scientific) for all printed values."""

    def __init__(self, values: np.ndarray, floating: bool):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not floating:
            if flat.size:
                self.max_width = max(len(str(v)) for v in flat.tolist())
            return
        flat = flat.astype(np.float64)
        nz = flat[np.isfinite(flat) & (flat != 0)]
        if nz.size == 0:
            return
        mags = np.abs(nz)
        lo, hi = float(mags.min()), float(mags.max())
        self.int_mode = bool(np.all(nz == np.ceil(nz)))
        forced = PRINT_OPTIONS.sci_mode
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if forced is None \
            else forced
        vals = nz.tolist()
        if self.sci_mode:
            self.max_width = max(len(f"{v:.{PRINT_OPTIONS.precision}e}") for v in vals)
        elif self.int_mode:
            self.max_width = max(len(f"{v:.0f}") + 1 for v in vals)
        else:
            self.max_width = max(len(f"{v:.{PRINT_OPTIONS.precision}f}") for v in vals)

    def format(self, value) -> str:
        if self.floating:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRINT_OPTIONS.precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRINT_OPTIONS.precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


class _ComplexFormatter:
    """torch's pair of formatters for complex values: one for the real parts, one for the
    imaginary parts, printed as `1.0000-2.5000j`."""

    def __init__(self, values: np.ndarray):
        self.real = _Formatter(values.real, True)
        self.imag = _Formatter(values.imag, True)
        self.max_width = self.real.max_width + self.imag.max_width + 1

    def format(self, value) -> str:
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return self.real.format(value.real) + ("" if imag[0] in "+-" else "+") + imag


def _edges(a: np.ndarray) -> np.ndarray:
    """The summarised values: the `edgeitems` first and last entries of each long dim."""
    for d, n in enumerate(a.shape):
        if n > 2 * PRINT_OPTIONS.edgeitems:
            idx = np.r_[0:PRINT_OPTIONS.edgeitems, n - PRINT_OPTIONS.edgeitems:n]
            a = np.take(a, idx, axis=d)
    return a


def _py_values(a: np.ndarray) -> list:
    """Elements as Python numbers (float16/bfloat16 through float64)."""
    if a.dtype.kind in "biuc" or a.dtype == np.float64:
        return a.tolist()
    return a.astype(np.float64).tolist()


def _vector_str(a, indent, summarize, fmt) -> str:
    element_length = fmt.max_width + 2
    per_line = max(1, math.floor((PRINT_OPTIONS.linewidth - indent) / element_length))
    if summarize and a.shape[0] > 2 * PRINT_OPTIONS.edgeitems:
        data = ([fmt.format(v) for v in _py_values(a[:PRINT_OPTIONS.edgeitems])] + [" ..."]
                + [fmt.format(v) for v in _py_values(a[-PRINT_OPTIONS.edgeitems:])])
    else:
        data = [fmt.format(v) for v in _py_values(a)]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(a, indent, summarize, fmt) -> str:
    dim = a.ndim
    if dim == 0:
        return fmt.format(_py_values(a))
    if dim == 1:
        return _vector_str(a, indent, summarize, fmt)
    n = a.shape[0]
    if summarize and n > 2 * PRINT_OPTIONS.edgeitems:
        rows = list(range(PRINT_OPTIONS.edgeitems)) + [None] + list(range(n - PRINT_OPTIONS.edgeitems, n))
    else:
        rows = range(n)
    slices = ["..." if i is None else _tensor_str_with_formatter(a[i], indent + 1, summarize, fmt)
              for i in rows]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _tensor_str(a: np.ndarray, indent: int, floating: bool) -> str:
    if a.size == 0:
        return "[]"
    summarize = a.size > PRINT_OPTIONS.threshold
    values = _edges(a) if summarize else a
    fmt = _ComplexFormatter(values) if a.dtype.kind == "c" else _Formatter(values, floating)
    return _tensor_str_with_formatter(a, indent, summarize, fmt)


def _add_suffixes(tensor_str, suffixes, indent) -> str:
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _host_values(t):
    """The tensor's data as a NumPy array, or None when it has none (meta, data-less
    wrapper subclasses)."""
    if t._device.type == "meta":
        return None
    if t.is_conj():
        t = t.detach().resolve_conj()
    if t._device.type == "cpu":
        return t._np
    from .. import _generated
    return _generated.ops._entry__to_copy(t, None, None, "cpu", None, False, None)._np


def tensor_repr(t) -> str:
    """torch's `Tensor.__repr__` text for an ember tensor."""
    from .tensor import Tensor
    cls = type(t)
    plain = cls is Tensor or cls.__name__ in ("Parameter", "Buffer")  # nn's tensor classes
    prefix = "tensor(" if plain else f"{cls.__name__}("
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    default = D.get_default_dtype()
    dt = t._dtype
    shape = tuple(t._shape)
    values = _host_values(t)
    if values is None:
        suffixes.append(f"size={shape}")
        if dt is not default:
            suffixes.append(f"dtype={dt!r}")
        body = "..."
    elif values.size == 0:
        if len(shape) != 1:
            suffixes.append(f"size={shape}")
        if dt is not default:
            suffixes.append(f"dtype={dt!r}")
        body = "[]"
    else:
        if dt not in (default, D.get_default_complex_dtype(), D.int64, D.bool_):
            suffixes.append(f"dtype={dt!r}")
        body = _tensor_str(values, indent, dt.is_floating_point)
    grad_fn = t.grad_fn
    if grad_fn is not None:
        name = grad_fn.name() if hasattr(grad_fn, "name") else type(grad_fn).__name__
        suffixes.append(f"grad_fn=<{name.rsplit('::', 1)[-1]}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
