"""Helpers shared by the tests that compare ember with torch.

tests/conftest.py puts this folder on sys.path, so a test module anywhere under tests/
can `from helpers import ...`.
"""
import warnings

import ml_dtypes
import numpy as np
import pytest

import ember
from ember.core.dtype import from_numpy_dtype
from ember.core.storage import Storage
from ember.core.tensor import MEMORY_FORMATS, contiguous_strides, make_tensor

torch = pytest.importorskip("torch")

# dtype names the op tests sweep, and parts of that list
DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
NUMERIC = DTYPES[1:]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
# every ember dtype
ALL_DTYPES = [ember.bool, ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64,
              ember.float16, ember.bfloat16, ember.float32, ember.float64]


# --- dtypes --------------------------------------------------------------------------------
def np_dtype(name):
    """The NumPy dtype of a dtype name ("bfloat16" is ml_dtypes')."""
    return np.dtype(ml_dtypes.bfloat16 if name == "bfloat16" else name)


def dtype_name(d):
    """'float32' for ember.float32 and for torch.float32."""
    return d.name if isinstance(d, ember.dtype) else str(d).removeprefix("torch.")


def tdt(dt):
    """The torch dtype of an ember dtype."""
    return getattr(torch, dt.name)


# --- data and tensors ----------------------------------------------------------------------
def np_data(shape, name, seed=0, *, ints=(0, 100), scale=1):
    """Seeded random data of dtype `name`: bools, integers in [ints[0], ints[1]) (from 0 for
    unsigned types), floats `scale` * N(0, 1)."""
    rng = np.random.default_rng(seed)
    if name == "bool":
        return rng.random(shape) < 0.5
    dtype = np_dtype(name)
    if dtype.kind in "iu":
        low, high = ints
        return rng.integers(max(low, 0) if dtype.kind == "u" else low, high, shape).astype(dtype)
    a = rng.standard_normal(shape)
    a *= scale  # (in place: a 0-d array stays an array)
    return a.astype(dtype)


def ember_of(a):
    """A fresh contiguous ember CPU tensor holding a copy of array `a`, with torch's strides
    (also when empty, where NumPy's may differ)."""
    a = np.array(a, copy=True, order="C")
    return make_tensor(Storage.of_array(a), a.shape, contiguous_strides(a.shape), 0,
                       from_numpy_dtype(a.dtype))


def torch_of(a):
    """A fresh contiguous torch tensor holding a copy of NumPy array `a` (bfloat16 by its
    bits: torch's float32 -> bfloat16 copy turns every NaN into 0xFFFF, a negative NaN)."""
    bf16 = a.dtype == np_dtype("bfloat16")
    src = torch.from_numpy(np.array(a).view(np.int16) if bf16 else np.array(a))
    out = torch.empty(a.shape, dtype=src.dtype).copy_(src)   # (torch's contiguous strides)
    return out.view(torch.bfloat16) if bf16 else out


def pair(a):
    """(ember, torch) fresh contiguous tensors holding copies of array `a`."""
    a = np.array(a, copy=True, order="C")
    return ember_of(a), torch_of(a)


def from_torch(t):
    """An ember CPU tensor with the values, dtype, shape and strides of torch tensor `t`."""
    e = ember.empty_strided(tuple(t.shape), t.stride(), dtype=getattr(ember, dtype_name(t.dtype)))
    np.copyto(e.numpy(), to_np(t), casting="unsafe")
    return e


def to_np(x):
    """The values of an ember or torch CPU tensor as a NumPy array (bfloat16 as float32;
    torch's conjugate views resolved)."""
    if isinstance(x, torch.Tensor):
        x = x.detach().resolve_conj().resolve_neg()
        if x._is_zerotensor():   # (torch's zero gradients of non-differentiable points)
            x = torch.zeros_like(x)
        return (x.float() if x.dtype == torch.bfloat16 else x).numpy()
    a = x.numpy(force=x.is_conj())
    return a.astype(np.float32) if x.dtype is ember.bfloat16 else a


def meta_of(e):
    """A Meta tensor with the shape, strides, storage offset and dtype of ember tensor `e`."""
    if e.storage_offset() == 0:
        return ember.empty_strided(e.shape, e.stride(), dtype=e.dtype, device="meta")
    extent = 1 + sum((n - 1) * s for n, s in zip(e.shape, e.stride())) if e.numel() else 0
    base = ember.empty_strided([e.storage_offset() + extent], [1], dtype=e.dtype, device="meta")
    return base.as_strided(e.shape, e.stride(), e.storage_offset())


# --- layouts -------------------------------------------------------------------------------
# layout -> (the shape of a contiguous root for a wanted shape, the view of the root that
# has the wanted shape); the same ops run on the ember and the torch root.
LAYOUTS = {
    "contiguous": (lambda s: s, lambda x: x),
    # every dim reversed in memory
    "transposed": (lambda s: s[::-1], lambda x: x.permute(*range(x.dim() - 1, -1, -1))),
    # the last two dims swapped in memory
    "mT": (lambda s: s[:-2] + (s[-1], s[-2]), lambda x: x.transpose(-1, -2)),
    # rows 1, 3, ... of a root twice as tall: a doubled stride and a storage offset
    "strided": (lambda s: (2 * s[0],) + s[1:], lambda x: x[1::2]),
    # NCHW dims over NHWC memory
    "channels_last": (lambda s: (s[0], s[2], s[3], s[1]), lambda x: x.permute(0, 3, 1, 2)),
}


def layout_pair(shape, name="float32", layout="contiguous", seed=0, **data):
    """(ember, torch) tensors of `shape` with the same np_data values (`data`: its keywords)
    in the same layout (a LAYOUTS key)."""
    root_shape, view = LAYOUTS[layout]
    e, t = pair(np_data(root_shape(tuple(shape)), name, seed, **data))
    return view(e), view(t)


# --- comparing with torch ------------------------------------------------------------------
def check(e, t, tols=None, *, empty_strides=False):
    """Ember tensor `e` matches torch tensor `t`: shape, dtype, strides (of empty tensors
    only with `empty_strides`) and, on the CPU, values: exactly (NaNs equal), or within
    tols[dtype name] = (rtol, atol) for the dtypes `tols` lists."""
    assert tuple(e.shape) == tuple(t.shape)
    assert e.dtype.name == dtype_name(t.dtype)
    if t.numel() or empty_strides:
        assert e.stride() == t.stride(), (e.stride(), t.stride())
    if e.device.type != "cpu":
        return
    if tols and e.dtype.name in tols:
        rtol, atol = tols[e.dtype.name]
        np.testing.assert_allclose(real_pairs(to_np(e)).astype(np.float64),
                                   real_pairs(to_np(t)).astype(np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(to_np(e), to_np(t))


# --- tolerances ----------------------------------------------------------------------------
EPS = {name: float(ml_dtypes.finfo(np_dtype(name)).eps) for name in FLOATS}
# the allowed error in eps of the result dtype: pointwise ops, and ops that accumulate
ULPS = {"float16": 2, "bfloat16": 2, "float32": 8, "float64": 8}
ACCUMULATING_ULPS = {"float16": 8, "bfloat16": 3, "float32": 64, "float64": 64}
# complex results: their (real, imag) pairs compared like the real dtype's results
COMPLEX = {"complex64": "float32", "complex128": "float64"}
for _table in (ULPS, ACCUMULATING_ULPS):
    _table.update({c: _table[r] for c, r in COMPLEX.items()})
EXACT = dict.fromkeys(FLOATS, 0)  # ops that move data without computing
# float64 results computed in float32 (as torch does for some mixed-dtype ops)
FLOAT32_IN_FLOAT64 = 4 * round(EPS["float32"] / EPS["float64"])


def tolerance(name, ref, ulps, floor=None):
    """(rtol, atol) for a result of dtype `name` against the reference array `ref`:
    rtol = ulps * eps and atol = rtol * max|ref| (finite values), max|ref| taken as at
    least `floor` (default eps; 1 for sums of values of order 1 that may cancel). A zeroed
    answer, or one 5% off, fails whenever rtol < 2.5% (bfloat16: 3 ulps) and max|ref| >=
    floor (see assert_rejects_wrong_answers)."""
    rtol = ulps * EPS[name]
    finite = np.abs(ref[np.isfinite(ref)])
    return rtol, rtol * max(float(finite.max(initial=0.0)), EPS[name] if floor is None else floor)


def close_ulps(actual, ref, name, ulps, floor=None) -> bool:
    """Whether arrays `actual` and `ref` of float dtype `name` agree within
    tolerance(name, ref, ulps, floor) (NaNs equal, infinities exactly)."""
    ref = np.asarray(ref, np.float64)
    rtol, atol = tolerance(name, ref, ulps, floor)
    return bool(np.isclose(np.asarray(actual, np.float64), ref, rtol, atol, equal_nan=True).all())


def assert_close_ulps(actual, ref, name, ulps, floor=None, err_msg=""):
    """close_ulps, with NumPy's report of the mismatch when it fails."""
    if not close_ulps(actual, ref, name, ulps, floor):
        rtol, atol = tolerance(name, np.asarray(ref, np.float64), ulps, floor)
        np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(ref, np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True, err_msg=err_msg)


def assert_rejects_wrong_answers(ref, name, ulps):
    """The comparison of a `name` result against `ref` fails for a zeroed answer and for
    one 5% off (when `ref` has a finite nonzero value): the tolerance can catch a wrong
    answer."""
    ref = np.asarray(ref, np.float64)
    if not np.any(np.isfinite(ref) & (ref != 0)):
        return
    with np.errstate(over="ignore"):
        off = ref * 1.05
    for what, wrong in (("a zeroed answer", np.where(np.isfinite(ref), 0.0, ref)),
                        ("an answer 5% off", off)):
        if not np.array_equal(wrong, ref, equal_nan=True):  # (equal: subnormal values)
            assert not close_ulps(wrong, ref, name, ulps), \
                f"the {name} tolerance ({ulps} ulps) accepts {what}"


def real_pairs(a):
    """A complex array as its (real, imag) pairs (a last dim of 2); real arrays as they are."""
    a = np.asarray(a)
    return np.stack([a.real, a.imag], -1) if a.dtype.kind == "c" else a


def assert_same(e, t):
    """check(e, t), comparing the strides of empty tensors too."""
    check(e, t, empty_strides=True)


def builtin_type(cls):
    """The first builtin class in cls's MRO (torch raises its own subclasses of them)."""
    return next(c for c in cls.__mro__ if c.__module__ == "builtins")


def raises_like(fn_e, fn_t, phrase=None):
    """fn_e and fn_t both raise, with the same builtin exception type (warnings ignored);
    `phrase` is in both messages."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as ti:
            fn_t()
        with pytest.raises(Exception) as ei:
            fn_e()
    assert builtin_type(type(ei.value)) is builtin_type(type(ti.value)), (ei.value, ti.value)
    if phrase:
        assert phrase in str(ti.value), ti.value
        assert phrase in str(ei.value), ei.value


def check_call(fn, tols=None):
    """fn(ember) against fn(torch) (fn writes `M.tensor(...)`, `M.int8`, ...): the same
    builtin exception type and first message line, or results that pass `check` (tuples
    and lists element by element)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            t = fn(torch)
        except Exception as t_exc:  # noqa: BLE001  (the exception is what is compared)
            with pytest.raises(builtin_type(type(t_exc))) as e_info:
                fn(ember)
            assert str(e_info.value).splitlines()[0] == str(t_exc).splitlines()[0]
            return
        e = fn(ember)
    _check_nested(e, t, tols)


def _check_nested(e, t, tols):
    if isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)) and len(e) == len(t), (e, t)
        for x, y in zip(e, t):
            _check_nested(x, y, tols)
    else:
        check(e, t, tols)


def aten_op(ops, name: str):
    """`aten_op(ember.ops.aten, "add.Tensor")`: an OpOverload by its 'packet.overload' name
    (also for torch.ops.aten)."""
    packet, overload = name.split(".")
    return getattr(getattr(ops, packet), overload)


def sample_value(x, side):
    """A sample's non-tensor argument as `side` ("ember" or "torch") takes it: a Generator
    becomes a fresh one with the same seed on each side; ember dtypes and memory formats
    become torch's."""
    if isinstance(x, ember.Generator):
        import torch
        return (ember.Generator() if side == "ember" else torch.Generator()).manual_seed(
            x.initial_seed())
    if side == "torch" and (isinstance(x, ember.dtype) or
                            any(x is m for m in MEMORY_FORMATS.values())):
        import torch
        return getattr(torch, x.name)
    return x


def without_readme_example(root):
    """Drops `square` (the README's worked example; ember declares it as an alias of pow)
    from the schema copy under `root`, so that the recipe can add it again as a new op."""
    path = root / "schema" / "native_functions.yaml"
    entries = path.read_text().split("\n- func: ")
    kept = [e for e in entries if not e.startswith(("square(", "square.", "square_("))]
    path.write_text("\n- func: ".join(kept))
