"""Sample inputs for every aten overload declared in schema/native_functions.yaml.

`OPS["add.Tensor"]` is an `OpInfo`: a function giving `SampleInput`s written with NumPy
arrays and Python values, the torch reference (by default `torch.ops.aten.add.Tensor`)
and flags. tests/ops/test_schema_ops.py turns each sample into ember and torch tensors,
runs both and compares; when torch raises, ember must raise the same exception type.

    >>> s = OPS["add.Tensor"].samples()[0]
    >>> s.args[0].shape, s.name
    ((3, 4), 'bool')

Non-contiguous inputs are `View(base, "transpose.int", (0, 1))`: the aten view op is
applied to the converted base on both sides. `DEVICE` stands for the device under
test ("cpu", or "meta" in the Meta test). ScalarType and MemoryFormat arguments are
written with ember objects (`ember.float64`, `ember.contiguous_format`); the test maps
them to torch's.

Flags that are not listed per op, because torch decides them: supported dtypes (samples
sweep bool, uint8, int32, int64, float16, bfloat16, float32, float64; where torch raises,
e.g. NotImplementedError "... not implemented for 'Bool'", ember must raise the same
type) and view-ness (a result must share storage with an input exactly when torch's
does). `kind` (functional / inplace / out) comes from the schema's `Tensor(a!)` marks.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from helpers import ACCUMULATING_ULPS, DTYPES, EXACT, ULPS, np_dtype

import ember

ALL = tuple(np_dtype(name) for name in DTYPES)
BOOL, U8, I32, I64, F16, BF16, F32, F64 = ALL
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)  # (not in ALL: opt-in per op)
FLOATS = (F16, BF16, F32, F64)
NUMERIC = ALL[1:]

# The allowed error of float results, in eps of the result dtype, relative to each element
# and to the reference's largest |value| (helpers.tolerance): ULPS by default; OpInfo.tols
# overrides it per op (ACCUMULATING_ULPS for reductions, matmuls, norms and losses).


# --------------------------------------------------------------------------- records
@dataclass
class SampleInput:
    """One call: positional args and kwargs (NumPy arrays stand for tensors).

    data_dependent: the output shape depends on tensor values (bool-mask indexing), so
    Meta cannot compute it and must raise NotImplementedError or RuntimeError.
    """
    args: tuple
    kwargs: dict = field(default_factory=dict)
    name: str = ""
    data_dependent: bool = False


@dataclass(frozen=True)
class View:
    """A non-contiguous input: `aten.<op>(converted base, *args)` on both sides.

    >>> v = View(np.zeros((4, 3)), "transpose.int", (0, 1))   # (3, 4), strides (1, 3)
    """
    base: np.ndarray
    op: str
    args: tuple


class _Device:
    def __repr__(self):
        return "DEVICE"


DEVICE = _Device()


@dataclass
class OpInfo:
    """What the schema tests need about one overload.

    kind: "functional", "inplace" (mutates and returns self) or "out" (writes `out=`).
    values: False for random or uninitialised outputs (compare shape/dtype/stride only).
    exact_strides: compare every stride and the storage offset (views, factories,
      clone-like ops); otherwise only strides of dims longer than 1.
    ref: the torch callable; None means `torch.ops.aten.<name>.<overload>`.
    """
    name: str
    samples: Callable[[], list]
    kind: str = "functional"
    values: bool = True
    exact_strides: bool = False
    tols: dict = field(default_factory=dict)  # result dtype name -> ulps (see ULPS)
    ref: Callable | None = None
    functional: str | None = None  # for kind == "out": the overload computing the result

    def ulps(self, dtype_name):
        """The allowed error of a float result of dtype `dtype_name`, in its eps."""
        return self.tols.get(dtype_name, ULPS[dtype_name])


# --------------------------------------------------------------------------- makers
_rng = np.random.default_rng(20240611)


_OWN: list = []     # (generator, seed) of every own_rng, restarted per test (reseed_own)


def own_rng(seed=12):
    """A generator of its own, for samples added after others: they leave the shared stream
    (so every later sample's data) as it was."""
    rng = np.random.default_rng(seed)
    _OWN.append((rng, seed))
    return rng


def reseed_own() -> None:
    """Every own generator back to its seed (tests/conftest.py, before each test): a test's
    samples do not depend on which tests drew from them before it in its process."""
    for rng, seed in _OWN:
        rng.bit_generator.state = np.random.default_rng(seed).bit_generator.state


def own_maker(seed):
    """`own(make)` is `make` drawing from a generator of its own (seeded `seed`)."""
    rng = own_rng(seed)
    return lambda maker: lambda *a, **kw: maker(*a, rng=rng, **kw)


def make(shape, dtype=F32, *, low=None, high=None, nonzero=False, rng=None):
    """A random array: bools, ints in [low, high) (default [-9, 10), uint8 [0, 10)),
    floats uniform in [low, high) (default [-5, 5)), complex numbers with real and imaginary
    parts so.

    >>> make((2, 3), I32, low=0, high=3).dtype
    dtype('int32')
    """
    dtype = np.dtype(dtype)
    rng = rng or _rng
    if dtype == BOOL:
        a = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        floor = 0 if dtype.kind == "u" else -9
        lo = floor if low is None else max(low, 0 if dtype.kind == "u" else low)
        a = rng.integers(lo, 10 if high is None else high, shape)
    else:
        a = rng.uniform(-5 if low is None else low, 5 if high is None else high, shape)
        if dtype.kind == "c":
            a = a + 1j * rng.uniform(-5 if low is None else low, 5 if high is None else high,
                                     shape)
    a = np.asarray(a).astype(dtype)
    if nonzero and dtype != BOOL:
        a[a == 0] = 1
    return a


def transposed(shape, dtype=F32, **kw):
    """An input of `shape` whose last two dims are swapped in memory."""
    shape = tuple(shape)
    return View(make(shape[:-2] + (shape[-1], shape[-2]), dtype, **kw), "transpose.int", (-1, -2))


def strided(shape, dtype=F32, **kw):
    """Every other row of a taller array (stride doubled along dim 0)."""
    shape = tuple(shape)
    return View(make((2 * shape[0],) + shape[1:], dtype, **kw), "slice.Tensor", (0, None, None, 2))


def offset(shape, dtype=F32, **kw):
    """Columns 1.. of a wider array: storage_offset 1 and non-contiguous rows."""
    shape = tuple(shape)
    return View(make(shape[:-1] + (shape[-1] + 1,), dtype, **kw), "slice.Tensor", (-1, 1, None, 1))


def expanded(shape, dtype=F32, **kw):
    """A stride-0 broadcast of one row to `shape`."""
    shape = tuple(shape)
    return View(make((1,) + shape[1:], dtype, **kw), "expand.default", (list(shape),))


def S(*args, name="", data_dependent=False, **kwargs):
    return SampleInput(tuple(args), kwargs, name, data_dependent)


def dtname(dt):
    return np.dtype(dt).name


# --------------------------------------------------------------------------- sample sets
def binary_samples(*, dtypes=ALL, lhs=None, rhs=None, scalars=(2, 2.5, True), **kw):
    """Same-dtype sweep, 0-d, empty, broadcasting, non-contiguous, mixed dtypes, numbers."""
    lhs, rhs = lhs or {}, rhs or {}

    def sample(a, b, name):
        return S(a, b, name=name, **kw)
    out = [sample(make((3, 4), dt, **lhs), make((3, 4), dt, **rhs), dtname(dt)) for dt in dtypes]
    out += [
        sample(make((), F32, **lhs), make((), F32, **rhs), "0d"),
        sample(make((3, 4), I64, **lhs), make((), F32, **rhs), "int64_with_0d_float32"),
        sample(make((3, 4), F16, **lhs), make((), F64, **rhs), "float16_with_0d_float64"),
        sample(make((0, 4), F32, **lhs), make((4,), F32, **rhs), "empty_broadcast"),
        sample(make((3, 1), F32, **lhs), make((1, 4), F32, **rhs), "broadcast_both"),
        sample(make((2, 3, 4), F32, **lhs), make((4,), F32, **rhs), "broadcast_rank"),
        sample(transposed((3, 4), F32, **lhs), make((3, 4), F32, **rhs), "transposed_lhs"),
        sample(strided((3, 4), F32, **lhs), offset((3, 4), F32, **rhs), "strided_offset"),
        sample(expanded((3, 4), F32, **lhs), transposed((3, 4), F32, **rhs), "expanded_transposed"),
        sample(make((3, 4), I32, **lhs), make((3, 4), F16, **rhs), "int32_float16"),
        sample(make((3, 4), U8, **lhs), make((3, 4), I32, **rhs), "uint8_int32"),
        sample(make((3, 4), BOOL), make((3, 4), F32, **rhs), "bool_float32"),
        sample(make((3, 4), I64, **lhs), make((3, 4), BF16, **rhs), "int64_bfloat16"),
        sample(make((3, 4), F32, **lhs), make((4, 3), F32, **rhs), "shape_mismatch_error"),
    ]
    for s in scalars:
        out.append(sample(make((3, 4), I32, **lhs), s, f"int32_with_{type(s).__name__}"))
    out.append(sample(make((3, 4), F16, **lhs), 2, "float16_with_int"))
    return out


def scalar_samples(*, dtypes=ALL, lhs=None, values=(2, 2.5, True), **kw):
    """`op(Tensor, Scalar)`: dtype sweep with an int, float and bool scalar, 0-d, empty,
    non-contiguous."""
    lhs = lhs or {}
    out = []
    for dt in dtypes:
        for v in values:
            out.append(S(make((3, 4), dt, **lhs), v, name=f"{dtname(dt)}_{type(v).__name__}", **kw))
    out += [S(make((), F32, **lhs), values[0], name="0d", **kw),
            S(make((0, 3), I64, **lhs), values[0], name="empty", **kw),
            S(transposed((3, 4), F32, **lhs), values[1], name="transposed", **kw)]
    return out


def inplace_binary_samples(*, dtypes=ALL, lhs=None, rhs=None, **kw):
    """`self.op_(other)`: dtype sweep, broadcasting other, 0-d, casting into self's
    dtype (float into int must raise), non-contiguous self, numbers, bad broadcasts."""
    lhs, rhs = lhs or {}, rhs or {}

    def sample(a, b, name):
        return S(a, b, name=name, **kw)
    out = [sample(make((3, 4), dt, **lhs), make((3, 4), dt, **rhs), dtname(dt)) for dt in dtypes]
    out += [
        sample(make((3, 4), F32, **lhs), make((4,), F32, **rhs), "broadcast_other"),
        sample(make((), F64, **lhs), make((), F64, **rhs), "0d"),
        sample(make((3, 4), F32, **lhs), make((), F64, **rhs), "float32_with_0d_float64"),
        sample(make((3, 4), F32, **lhs), make((3, 4), I64, **rhs), "float32_with_int64"),
        sample(make((3, 4), I64, **lhs), make((3, 4), F32, **rhs), "int64_with_float32_error"),
        sample(transposed((3, 4), F32, **lhs), make((3, 4), F32, **rhs), "transposed_self"),
        sample(offset((3, 4), F32, **lhs), strided((3, 4), F32, **rhs), "offset_self"),
        sample(make((0, 4), F32, **lhs), make((4,), F32, **rhs), "empty"),
        sample(make((4,), F32, **lhs), make((3, 4), F32, **rhs), "self_smaller_than_broadcast"),
        sample(make((3, 4), F32, **lhs), 2, "float32_with_int"),
        sample(make((3, 4), I32, **lhs), 2.5, "int32_with_float_error"),
    ]
    return out


def unary_samples(*, dtypes=ALL, inplace=False, **mk):
    """Dtype sweep, 0-d, empty, transposed, strided, offset (and stride-0 for out-of-place)."""
    out = [S(make((3, 4), dt, **mk), name=dtname(dt)) for dt in dtypes]
    out += [S(make((), F32, **mk), name="0d"),
            S(make((0, 3), F32, **mk), name="empty"),
            S(transposed((3, 4), F32, **mk), name="transposed"),
            S(strided((3, 4), F64, **mk), name="strided"),
            S(offset((2, 3, 4), F16, **mk), name="offset")]
    if not inplace:
        out.append(S(expanded((3, 4), F32, **mk), name="expanded"))
    return out


# --------------------------------------------------------------------------- registry
OPS: dict[str, OpInfo] = {}


def schema_kind(name) -> str:
    """"out" for overloads with out= arguments (`Tensor(a!) out`), "inplace" for `Tensor(a!) self`, else "functional"."""
    packet, overload = name.split(".")
    op = getattr(getattr(ember.ops.aten, packet), overload)
    schema = op._schema_str
    return "out" if op.schema.arguments.out else "inplace" if "Tensor(a!) self" in schema \
        else "functional"


def out_names(name) -> tuple:
    """The out= argument names of an out overload: ("out",), ("grad_input",),
    ("output", "total_weight"), ..."""
    packet, overload = name.split(".")
    return tuple(a.name for a in getattr(getattr(ember.ops.aten, packet), overload)
                 .schema.arguments.out)


def register(name, samples, **flags):
    if name in OPS:
        raise ValueError(f"duplicate OpInfo {name}")
    OPS[name] = OpInfo(name, samples, kind=schema_kind(name), **flags)


def add_samples(name, more):
    """Adds the samples `more()` gives to a registered op's (complex samples of existing
    ops, from tests/ops/opinfo_complex.py)."""
    f = OPS[name]
    first = f.samples
    OPS[name] = OpInfo(name, lambda: first() + more(), kind=f.kind, values=f.values,
                       exact_strides=f.exact_strides, tols=f.tols, ref=f.ref,
                       functional=f.functional)


def out_of(name, functional, *, ref=None, errors=True):
    """The out= variant of `functional`: same samples, `out=` allocated like the result.
    errors=False leaves out the error samples: for a failing call the test allocates out=
    in the input's dtype, which torch checks first where an out is an int32 (pivots, info)
    or complex (eig) result; ember checks the inputs first."""
    f = OPS[functional]
    assert schema_kind(name) == "out", name
    samples = f.samples if errors else \
        (lambda: [s for s in f.samples() if not s.name.endswith("_error")])
    OPS[name] = OpInfo(name, samples, kind="out", values=f.values,
                       exact_strides=f.exact_strides, tols=f.tols, ref=ref, functional=functional)


# ---- factories --------------------------------------------------------------------
E = ember  # dtype and memory-format objects in samples


def _sizes():
    return [[2, 3], [], [0, 3], [1, 4, 1]]


def size_name(size):
    """[2, 3] -> "2x3", [] -> "0d"."""
    return "x".join(map(str, size)) or "0d"


register("empty.memory_format", lambda: [S(s, name=size_name(s)) for s in _sizes()] + [
    S([2, 3], dtype=E.int64, name="int64"), S([2, 3], dtype=E.bool, name="bool"),
    S([2, 3, 4, 5], memory_format=E.channels_last, name="channels_last"),
    S([2, 3], memory_format=E.contiguous_format, name="contiguous_format")],
    values=False, exact_strides=True)
register("empty_strided.default", lambda: [
    S([2, 3], [1, 2], name="column_major"), S([2, 3], [3, 1], dtype=E.float64, name="row_major"),
    S([], [], name="0d"), S([0, 3], [3, 1], name="empty"), S([2, 2], [0, 1], name="stride0"),
    S([3, 2], [4, 1], dtype=E.int32, name="padded")],
    values=False, exact_strides=True)
for _name in ("zeros.default", "ones.default"):
    register(_name, lambda: [S(s, name=size_name(s)) for s in _sizes()] + [
        S([2, 3], dtype=d, name=d.name) for d in (E.bool, E.uint8, E.int32, E.int64, E.float16,
                                                     E.bfloat16, E.float64)],
        exact_strides=True)
register("full.default", lambda: [
    S([2, 3], 7, name="int_fill"), S([2, 3], 2.5, name="float_fill"),
    S([2, 3], True, name="bool_fill"), S([], 1.5, name="0d"), S([0, 2], 3, name="empty"),
    S([2, 3], 2.5, dtype=E.int32, name="float_fill_int32"),
    S([2, 3], 3, dtype=E.bfloat16, name="bfloat16"), S([2], 300, dtype=E.float16, name="float16"),
    S([2, 3], 1, dtype=E.bool, name="bool_dtype")], exact_strides=True)
register("scalar_tensor.default", lambda: [
    S(3, name="int"), S(2.5, name="float"), S(True, name="bool"),
    S(3, dtype=E.int64, name="int64"), S(2.5, dtype=E.float64, name="float64"),
    S(1, dtype=E.bool, name="bool_dtype"), S(-2.5, dtype=E.bfloat16, name="bfloat16")],
    exact_strides=True)
register("arange.default", lambda: [
    S(5, name="int"),
    S(5.0, name="float"),
    S(0, name="empty"),
    S(5, dtype=E.float64, name="float64"),
    S(4.5, dtype=E.int32, name="float_end_int32"), S(7, dtype=E.float16, name="float16"),
    S(-3, name="negative_end_error")], exact_strides=True)
register("arange.start", lambda: [
    S(2, 7, name="int"), S(-1.5, 2, name="float"), S(3, 3, name="empty"),
    S(0, 5, dtype=E.uint8, name="uint8"), S(1, 4, dtype=E.bfloat16, name="bfloat16"),
    S(5, 0, name="wrong_direction_error")], exact_strides=True)
register("arange.start_step", lambda: [
    S(0, 10, 3, name="int"), S(0, 1, 0.1, name="float_step"), S(5, 0, -1, name="negative_step"),
    S(0, 10, 2, dtype=E.float64, name="float64"), S(1, 2, 0.25, dtype=E.float16, name="float16"),
    S(0, 5, 0, name="zero_step_error"), S(0, 5, -1, name="wrong_sign_error")], exact_strides=True)
for _name in ("rand.default", "randn.default"):
    register(_name, lambda: [S(s, name=size_name(s)) for s in _sizes()] + [
        S([2, 3], dtype=d, name=d.name) for d in (E.float16, E.bfloat16, E.float64, E.int64)],
        values=False, exact_strides=True)


def _like_samples(extra=()):
    def samples():
        return [S(make((3, 4), dt), *extra, name=dtname(dt)) for dt in (BOOL, I64, BF16, F32)] + [
            S(make((), F64), *extra, name="0d"), S(make((0, 3), F32), *extra, name="empty"),
            S(transposed((3, 4), F32), *extra, name="transposed_preserved"),
            S(strided((3, 4), F32), *extra, name="strided_made_contiguous"),
            S(transposed((3, 4), F32), *extra, memory_format=E.contiguous_format,
              name="transposed_contiguous_format"),
            S(make((3, 4), I32), *extra, dtype=E.float64, name="dtype_override"),
            S(expanded((3, 4), F32), *extra, name="expanded")]
    return samples


register("empty_like.default", _like_samples(), values=False, exact_strides=True)
register("zeros_like.default", _like_samples(), exact_strides=True)
register("ones_like.default", _like_samples(), exact_strides=True)
register("full_like.default", lambda: _like_samples((7,))() + [
    S(make((3, 4), I32), 2.5, name="float_into_int32"), S(make((2,), BOOL), 0, name="bool_fill0"),
    S(make((2, 3), F32), True, name="bool_into_float")], exact_strides=True)


def _new_samples(*extra):
    def samples():
        return [S(make((2, 3), dt), [3, 2], *extra, name=dtname(dt)) for dt in (BOOL, I64, BF16, F32)] + [
            S(make((2, 3), F32), [], *extra, name="0d"), S(make((2,), F32), [0, 4], *extra, name="empty"),
            S(make((2, 3), I32), [4], *extra, dtype=E.float64, name="dtype_override"),
            S(transposed((3, 4), F32), [2, 2], *extra, name="from_transposed")]
    return samples


register("new_empty.default", _new_samples(), values=False, exact_strides=True)
register("new_zeros.default", _new_samples(), exact_strides=True)
register("new_ones.default", _new_samples(), exact_strides=True)
register("new_full.default", lambda: _new_samples(7)() + [
    S(make((2,), I32), [2], 2.5, name="float_into_int32"),
    S(make((2,), F32), [3], True, name="bool_into_float")], exact_strides=True)
register("new_empty_strided.default", lambda: [
    S(make((2, 3), F32), [2, 3], [1, 2], name="transposed_layout"),
    S(make((2, 3), I64), [3], [2], name="strided"),
    S(make((2, 3), F32), [2, 2], [2, 1], dtype=E.float16, name="float16")],
    values=False, exact_strides=True)


def _rand_like_samples():
    return [S(make((3, 4), dt), name=dtname(dt)) for dt in (F16, BF16, F32, F64)] + [
        S(make((), F32), name="0d"), S(make((0, 2), F32), name="empty"),
        S(transposed((3, 4), F32), name="transposed_preserved"),
        S(make((2, 3), I64), name="int64_error"),
        S(make((2, 3), I64), dtype=E.float32, name="int64_to_float32")]


register("rand_like.default", _rand_like_samples, values=False, exact_strides=True)
register("randn_like.default", _rand_like_samples, values=False, exact_strides=True)


# ---- copies and conversions --------------------------------------------------------
def _clone_samples():
    return [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL] + [
        S(make((), F32), name="0d"), S(make((0, 3), I32), name="empty"),
        S(transposed((3, 4), F32), name="transposed_preserved"),
        S(transposed((2, 3, 4), F32), memory_format=E.contiguous_format, name="contiguous_format"),
        S(strided((3, 4), F64), name="strided"), S(offset((3, 4), F32), name="offset"),
        S(expanded((3, 4), F32), name="expanded"),
        S(make((2, 3, 4, 5), F32), memory_format=E.channels_last, name="channels_last")]


register("clone.default", _clone_samples, exact_strides=True)
out_of("clone.out", "clone.default")
register("copy_.default", lambda: [
    S(make((3, 4), dt), make((3, 4), dt), name=dtname(dt)) for dt in ALL] + [
    S(make((3, 4), F32), make((4,), F32), name="broadcast_src"),
    S(make((3, 4), I32), make((3, 4), F64), name="float64_into_int32"),
    S(make((3, 4), BOOL), make((3, 4), F32), name="float32_into_bool"),
    S(make((3, 4), F16), make((3, 4), I64), name="int64_into_float16"),
    S(make((3, 4), U8), make((3, 4), F32, low=0, high=200), name="float32_into_uint8"),
    S(transposed((3, 4), F32), make((3, 4), F32), name="transposed_self"),
    S(make((3, 4), F32), transposed((3, 4), BF16), name="transposed_src"),
    S(strided((3, 4), F64), offset((3, 4), F32), name="strided_self_offset_src"),
    S(make((), F32), make((), I64), name="0d"), S(make((0, 3), F32), make((3,), F32), name="empty"),
    S(make((4,), F32), make((3, 4), F32), name="src_larger_error")], exact_strides=True)


def _to_copy_samples():
    out = []
    for src, dst in ((F32, E.float64), (F64, E.float16), (F32, E.bfloat16), (BF16, E.float32),
                     (F16, E.bfloat16), (I64, E.float32), (I32, E.int64), (U8, E.int32),
                     (BOOL, E.float32), (F32, E.bool), (I64, E.bool), (I64, E.uint8)):
        low = 0 if dst is E.uint8 else None
        out.append(S(make((3, 4), src, low=low), dtype=dst, name=f"{dtname(src)}_to_{dst.name}"))
    out += [S(make((3, 4), F32, low=-3, high=3), dtype=E.int32, name="float32_to_int32_truncates"),
            S(make((3, 4), F32, low=0, high=250), dtype=E.uint8, name="float32_to_uint8"),
            S(make((3, 4), F32), name="no_args"), S(make((), F32), dtype=E.int64, name="0d"),
            S(make((0, 3), F32), dtype=E.float64, name="empty"),
            S(make((3, 4), F32), device=DEVICE, name="device"),
            S(transposed((3, 4), F32), dtype=E.float64, name="transposed_preserved"),
            S(transposed((3, 4), F32), memory_format=E.contiguous_format, name="contiguous_format"),
            S(strided((3, 4), I32), dtype=E.float32, name="strided")]
    return out


register("_to_copy.default", _to_copy_samples, exact_strides=True)


def _to_copy_out_ref(self, *, out, **kwargs):
    """torch's _to_copy.out has no dtype/device arguments; ember's (autogen) has them."""
    import torch
    result = torch.ops.aten._to_copy.default(self, **kwargs)
    if out.numel() == 0:
        out.resize_(result.shape)
    return out.copy_(result)


out_of("_to_copy.out", "_to_copy.default", ref=_to_copy_out_ref)
register("to.dtype_layout", lambda: [
    S(make((3, 4), F32), dtype=E.float64, name="float32_to_float64"),
    S(make((3, 4), F32), dtype=E.float32, name="same_dtype_aliases"),
    S(make((3, 4), F32), dtype=E.float32, copy=True, name="same_dtype_copy"),
    S(make((3, 4), I64), dtype=E.bfloat16, name="int64_to_bfloat16"),
    S(transposed((3, 4), F32), dtype=E.int32, name="transposed_preserved"),
    S(make((3, 4), F32), device=DEVICE, name="same_device_aliases"),
    S(make((3, 4), F32), device=DEVICE, dtype=E.float16, name="device_and_dtype"),
    S(make((), BOOL), dtype=E.float32, name="0d"),
    S(transposed((3, 4), F32), memory_format=E.contiguous_format, name="contiguous_format")],
    exact_strides=True)
register("to.device", lambda: [
    S(make((3, 4), F32), DEVICE, E.float64, name="dtype_change"),
    S(make((3, 4), F32), DEVICE, E.float32, name="same_aliases"),
    S(make((3, 4), F32), DEVICE, E.float32, False, True, name="copy"),
    S(transposed((3, 4), I32), DEVICE, E.float32, name="transposed")], exact_strides=True)
register("to.dtype", lambda: [S(make((3, 4), F32), d, name=d.name) for d in (
    E.bool, E.uint8, E.int32, E.int64, E.float16, E.bfloat16, E.float32, E.float64)] + [
    S(make((3, 4), I64), E.int64, False, True, name="copy"),
    S(transposed((3, 4), F64), E.float32, name="transposed_preserved"),
    S(make((0, 2), F32), E.int32, name="empty"), S(make((), F64), E.float16, name="0d")],
    exact_strides=True)
register("to.other", lambda: [
    S(make((3, 4), F32), make((2,), I64), name="to_int64"),
    S(make((3, 4), F32), make((), F32), name="same_aliases"),
    S(make((3, 4), I32), make((1,), BF16), name="to_bfloat16"),
    S(transposed((3, 4), F32), make((2,), F64), name="transposed_preserved"),
    S(make((3, 4), F32), make((2,), F32), False, True, name="copy")], exact_strides=True)
register("contiguous.default", lambda: [
    S(make((3, 4), F32), name="already_contiguous_aliases"),
    S(transposed((3, 4), F32), name="transposed"), S(strided((3, 4), I64), name="strided"),
    S(offset((3, 4), BF16), name="offset"), S(expanded((3, 4), BOOL), name="expanded"),
    S(make((), F32), name="0d"), S(make((0, 3), F32), name="empty"),
    S(make((2, 3, 4, 5), F32), memory_format=E.channels_last, name="channels_last"),
    S(make((3, 4), F32), memory_format=E.channels_last, name="channels_last_rank_error")],
    exact_strides=True)
register("fill_.Scalar", lambda: [S(make((3, 4), dt), v, name=f"{dtname(dt)}_{v}") for dt in ALL
                                  for v in (3, 2.5)] + [
    S(make((3, 4), BOOL), True, name="bool_true"), S(make((), F32), 1.5, name="0d"),
    S(make((0, 3), I32), 1, name="empty"), S(transposed((3, 4), F32), 7, name="transposed"),
    S(strided((3, 4), I64), -1, name="strided"),
    S(make((2,), U8), 300, name="uint8_overflow_error")],
    exact_strides=True)
register("fill_.Tensor", lambda: [
    S(make((3, 4), dt), make((), F64), name=dtname(dt)) for dt in ALL] + [
    S(make((3, 4), F32), make((), I64), name="int_value"),
    S(make((), I32), make((), F32), name="0d"),
    S(offset((3, 4), F32), make((), F32), name="offset"),
    S(make((3, 4), F32), make((1,), F32), name="1d_value_error")], exact_strides=True)
register("zero_.default", lambda: [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL] + [
    S(make((), F32), name="0d"), S(make((0, 2), F32), name="empty"),
    S(transposed((3, 4), F32), name="transposed"), S(offset((3, 4), I32), name="offset")],
    exact_strides=True)


# ---- reductions --------------------------------------------------------------------


def _full_reduction_samples(dtypes):
    def samples():
        return [S(make((3, 4), dt), name=dtname(dt)) for dt in dtypes] + [
            S(make((), F32), name="0d"), S(make((0, 3), F32), name="empty"),
            S(transposed((3, 4), F64), name="transposed"), S(strided((4, 5), I32), name="strided"),
            S(make((3, 4), I32), dtype=E.float64, name="dtype_float64"),
            S(make((3, 4), F16), dtype=E.float32, name="float16_dtype_float32")]
    return samples


def _dim_reduction_samples(dtypes):
    def samples():
        x = make((2, 3, 4), F32)
        out = [S(make((3, 4), dt), [1], name=dtname(dt)) for dt in dtypes]
        out += [S(x, [1], name="dim1"), S(x, [0, 2], name="dims02"),
                S(x, [-1], True, name="last_keepdim"), S(x, [0, -1], True, name="two_keepdim"),
                S(x, [], name="empty_dim_list_all"), S(x, None, name="dim_none"),
                S(x, None, True, name="dim_none_keepdim"),
                S(make((0, 3), F32), [0], name="empty_reduced"),
                S(make((0, 3), F32), [1], name="empty_kept"),
                S(make((), F32), [0], name="0d"), S(make((), F32), [], True, name="0d_empty_dims"),
                S(transposed((3, 4), F32), [0], name="transposed"),
                S(offset((3, 4), F64), [1], True, name="offset_keepdim"),
                S(make((3, 4), I32), [1], dtype=E.float64, name="dtype_float64"),
                S(x, [3], name="dim_out_of_range_error"), S(x, [1, 1], name="repeated_dim_error")]
        return out
    return samples


register("sum.default", _full_reduction_samples(ALL), tols=ACCUMULATING_ULPS)
register("sum.dim_IntList", _dim_reduction_samples(ALL), tols=ACCUMULATING_ULPS)
out_of("sum.IntList_out", "sum.dim_IntList")
register("mean.default", _full_reduction_samples((I64,) + FLOATS), tols=ACCUMULATING_ULPS)
register("mean.dim", _dim_reduction_samples((I64, U8) + FLOATS), tols=ACCUMULATING_ULPS)
out_of("mean.out", "mean.dim")
register("amax.default", lambda: [S(make((3, 4), dt), [1], name=dtname(dt)) for dt in ALL] + [
    S(make((2, 3, 4), F32), name="default_all_dims"),
    S(make((2, 3, 4), F32), [0, 2], True, name="keepdim"),
    S(make((2, 3, 4), I64), -1, name="int_dim"),
    S(make((0, 3), F32), [1], name="empty_kept"),
    S(make((0, 3), F32), [0], name="empty_reduced_error"),
    S(make((), F32), name="0d"), S(transposed((3, 4), BF16), [0], name="transposed"),
    S(np.array([[1, np.nan], [2, 3]], np.float32), [1], name="nan"),
    S(np.zeros((2, 0, 0), F32), [1, -1], name="empty_negative_dim_error")])
out_of("amax.out", "amax.default")
register("argmax.default", lambda: [S(make((3, 4), dt), 1, name=dtname(dt)) for dt in ALL] + [
    S(make((3, 4), I32, low=0, high=3), name="dim_none_ties"),
    S(make((2, 3, 4), F32), -1, True, name="keepdim"),
    S(make((2, 3, 4), F32), None, True, name="none_keepdim"),
    S(make((), F32), name="0d"), S(make((0, 3), F32), 1, name="empty_kept"),
    S(make((0, 3), F32), name="empty_error"), S(transposed((3, 4), F64), 0, name="transposed"),
    S(np.array([[1, np.nan, 2], [np.nan, 5, 4]], np.float32), 1, name="nan"),
    S(np.array([[3, 3, 1], [2, 5, 5]], np.int64), 1, name="first_of_ties")])
out_of("argmax.out", "argmax.default")


# ---- linear algebra ----------------------------------------------------------------
_MM_DTYPES = (F32, F64, F16, BF16, I64, I32, U8, BOOL)
_LA = {"low": -2, "high": 2}


def _mm_samples():
    return [S(make((3, 4), dt, **_LA), make((4, 5), dt, **_LA), name=dtname(dt))
            for dt in _MM_DTYPES] + [
        S(make((0, 4), F32), make((4, 5), F32), name="empty_m"),
        S(make((3, 0), F32), make((0, 5), F32), name="empty_k_zeros"),
        S(transposed((3, 4), F32), transposed((4, 5), F32), name="transposed"),
        S(strided((3, 4), F64), offset((4, 5), F64), name="strided_offset"),
        S(make((1, 4), F32), make((4, 1), F32), name="outer_1x1"),
        S(make((3, 4), F32), make((5, 4), F32), name="inner_mismatch_error"),
        S(make((3, 4), F32), make((4, 5), F64), name="dtype_mismatch_error"),
        S(make((4,), F32), make((4, 5), F32), name="1d_error")]


register("mm.default", _mm_samples, tols=ACCUMULATING_ULPS)
out_of("mm.out", "mm.default")
register("bmm.default", lambda: [
    S(make((2, 3, 4), dt, **_LA), make((2, 4, 5), dt, **_LA), name=dtname(dt))
    for dt in _MM_DTYPES] + [
    S(make((0, 3, 4), F32), make((0, 4, 5), F32), name="empty_batch"),
    S(make((2, 3, 0), F32), make((2, 0, 5), F32), name="empty_k"),
    S(transposed((2, 3, 4), F32), transposed((2, 4, 5), F32), name="transposed"),
    S(make((2, 3, 4), F32), make((3, 4, 5), F32), name="batch_mismatch_error"),
    S(make((3, 4), F32), make((4, 5), F32), name="2d_error")], tols=ACCUMULATING_ULPS)
out_of("bmm.out", "bmm.default")
register("addmm.default", lambda: [
    S(make((5,), dt, **_LA), make((3, 4), dt, **_LA), make((4, 5), dt, **_LA), name=dtname(dt))
    for dt in (F32, F64, F16, BF16, I64)] + [
    S(make((3, 5), F32), make((3, 4), F32), make((4, 5), F32), name="full_self"),
    S(make((3, 1), F32), make((3, 4), F32), make((4, 5), F32), beta=0.5, alpha=2,
      name="beta_alpha"),
    S(make((5,), I64), make((3, 4), I64), make((4, 5), I64), beta=2, alpha=3,
      name="int64_beta_alpha"),
    S(np.full((5,), np.nan, np.float32), make((3, 4), F32), make((4, 5), F32), beta=0,
      name="beta0_ignores_nan"),
    S(make((5,), F32), make((3, 0), F32), make((0, 5), F32), name="empty_k"),
    S(make((), F32), transposed((3, 4), F32), transposed((4, 5), F32), name="0d_self_transposed"),
    S(make((4,), F32), make((3, 4), F32), make((4, 5), F32), name="self_broadcast_error")],
    tols=ACCUMULATING_ULPS)
out_of("addmm.out", "addmm.default")
register("addmm_.default", lambda: [
    S(make((3, 5), dt, **_LA), make((3, 4), dt, **_LA), make((4, 5), dt, **_LA), name=dtname(dt))
    for dt in (F32, F64, F16, BF16, I64)] + [
    S(make((3, 5), F32), make((3, 4), F32), make((4, 5), F32), beta=0.5, alpha=2,
      name="beta_alpha"),
    S(np.full((3, 5), np.nan, np.float32), make((3, 4), F32), make((4, 5), F32), beta=0,
      name="beta0_ignores_nan"),
    S(transposed((3, 5), F32), transposed((3, 4), F32), strided((4, 5), F32),
      name="noncontiguous"),
    S(make((3, 5), F32), make((3, 0), F32), make((0, 5), F32), name="empty_k"),
    S(make((5,), F32), make((3, 4), F32), make((4, 5), F32), name="self_shape_error"),
    S(make((3, 5), F64), make((3, 4), F32), make((4, 5), F32), name="self_dtype_error"),
    S(make((3, 5), F32), make((3, 4), F32), make((3, 5), F32), name="inner_mismatch_error")],
    tols=ACCUMULATING_ULPS)
register("matmul.default", lambda: [
    S(make((4,), F32), make((4,), F32), name="dot"),
    S(make((3, 4), F32), make((4,), F32), name="mv"),
    S(make((4,), F64), make((4, 5), F64), name="vm"),
    S(make((3, 4), I64, **_LA), make((4, 5), I64, **_LA), name="mm_int64"),
    S(make((2, 3, 4), F32), make((4, 5), F32), name="batched_2d"),
    S(make((2, 1, 3, 4), F32), make((5, 4, 2), F32), name="batch_broadcast"),
    S(make((4,), F32), make((2, 4, 5), F32), name="1d_batched"),
    S(make((2, 3, 4), BF16, **_LA), make((2, 4, 2), BF16, **_LA), name="bfloat16"),
    S(transposed((3, 4), F32), make((4, 2), F32), name="transposed"),
    S(make((0, 4), F32), make((4, 3), F32), name="empty"),
    S(make((3, 4), F32), make((3, 4), F32), name="mismatch_error"),
    S(make((), F32), make((3,), F32), name="0d_error")], tols=ACCUMULATING_ULPS)
register("linear.default", lambda: [
    S(make((3, 4), F32), make((5, 4), F32), make((5,), F32), name="bias"),
    S(make((3, 4), F32), make((5, 4), F32), name="no_bias"),
    S(make((2, 3, 4), F64), make((5, 4), F64), make((5,), F64), name="batched"),
    S(make((4,), F32), make((5, 4), F32), make((5,), F32), name="1d_input"),
    S(make((3, 4), BF16, **_LA), make((2, 4), BF16, **_LA), make((2,), BF16), name="bfloat16"),
    S(transposed((3, 4), F32), transposed((5, 4), F32), name="transposed"),
    S(make((0, 4), F32), make((5, 4), F32), make((5,), F32), name="empty_batch"),
    S(make((3, 4), F32), make((5, 3), F32), name="mismatch_error")], tols=ACCUMULATING_ULPS)


# ---- views -------------------------------------------------------------------------
def _view(name, samples):
    register(name, samples, exact_strides=True, tols=EXACT)


def _X(dt=F32):
    return make((3, 4), dt)


def _X3(dt=F32):
    return make((2, 3, 4), dt)


_view("view.default", lambda: [
    S(_X(dt), [12], name=dtname(dt)) for dt in (BOOL, I64, BF16)] + [
    S(_X3(), [6, -1], name="infer"), S(_X3(), [2, 3, 2, 2], name="split_dim"),
    S(make((1,), F32), [], name="to_0d"), S(make((), F32), [1, 1], name="from_0d"),
    S(make((0, 3), F32), [3, 0], name="empty"), S(make((0, 3), F32), [-1, 3], name="empty_infer"),
    S(transposed((3, 4), F32), [4, 3, 1], name="transposed_compatible"),
    S(strided((3, 4), F32), [3, 2, 2], name="strided_split_last"),
    S(transposed((3, 4), F32), [12], name="transposed_incompatible_error"),
    S(_X(), [5, 3], name="bad_size_error"), S(_X(), [-1, -1], name="two_infer_error")])
_view("view.dtype", lambda: [
    S(_X(F32), E.int32, name="float32_as_int32"), S(_X(I64), E.float64, name="int64_as_float64"),
    S(_X(BOOL), E.uint8, name="bool_as_uint8"), S(_X(F16), E.bfloat16, name="float16_as_bfloat16"),
    S(_X(F32), E.float16, name="float32_as_float16_wider"),
    S(_X(U8), E.int32, name="uint8_as_int32_narrower"),
    S(_X(F32), E.float32, name="same"), S(make((), F32), E.int32, name="0d"),
    S(transposed((3, 4), F32), E.int32, name="transposed_same_size"),
    S(transposed((3, 4), F32), E.float16, name="transposed_resize_error"),
    S(make((3, 3), U8), E.int32, name="bad_last_dim_error")])
_view("reshape.default", lambda: [
    S(_X3(), [6, 4], name="view"), S(_X3(), [-1], name="flatten"),
    S(transposed((3, 4), F32), [12], name="transposed_copies"),
    S(transposed((3, 4), I64), [4, 3], name="transposed_view_back"),
    S(strided((3, 4), F32), [6, 2], name="strided_view"), S(make((), F32), [1], name="0d"),
    S(make((0, 4), F32), [2, 0, -1], name="empty"),
    S(expanded((3, 4), F32), [12], name="expanded_copies"),
    S(_X(), [5, -1], name="bad_size_error")])
_view("view_as.default", lambda: [
    S(_X3(), make((6, 4), I32), name="basic"), S(make((1,), F32), make((), F32), name="to_0d"),
    S(transposed((3, 4), F32), make((4, 3, 1), F32), name="transposed"),
    S(_X(), make((5,), F32), name="bad_size_error")])
_view("reshape_as.default", lambda: [
    S(_X3(), make((6, 4), I32), name="basic"),
    S(transposed((3, 4), F32), make((12,), F32), name="copies"),
    S(make((0, 2), F32), make((2, 0), F32), name="empty")])
_view("as_strided.default", lambda: [
    S(_X(), [2, 2], [1, 2], name="basic"), S(_X(), [3, 3], [4, 1], 1, name="offset"),
    S(_X(), [2, 3], [0, 1], name="stride0"), S(_X(), [], [], 5, name="0d"),
    S(offset((3, 4), F32), [2, 2], [5, 1], name="input_offset_kept"),
    S(offset((3, 4), F32), [2, 2], [5, 1], 0, name="input_offset_overridden"),
    S(_X(), [0, 3], [3, 1], name="empty"),
    S(_X(), [4, 4], [4, 1], name="out_of_bounds_error"),
    S(_X(), [2, 2], [1, -1], name="negative_stride_error")])
_view("permute.default", lambda: [
    S(_X3(), [2, 0, 1], name="basic"), S(_X3(), [-1, 0, -2], name="negative"),
    S(make((), F32), [], name="0d"), S(transposed((3, 4), I64), [1, 0], name="transposed"),
    S(make((0, 2, 3), F32), [1, 2, 0], name="empty"), S(_X3(), [0, 1], name="wrong_len_error"),
    S(_X3(), [0, 0, 1], name="repeated_error")])
_view("transpose.int", lambda: [
    S(_X3(), 0, 2, name="basic"), S(_X3(), -1, 0, name="negative"), S(_X3(), 1, 1, name="same_dim"),
    S(make((), F32), 0, -1, name="0d"), S(offset((3, 4), BF16), 0, 1, name="offset"),
    S(_X3(), 0, 3, name="out_of_range_error")])
_view("t.default", lambda: [
    S(_X(), name="2d"), S(make((4,), F32), name="1d"), S(make((), F32), name="0d"),
    S(strided((3, 4), I32), name="strided"), S(make((0, 3), F32), name="empty"),
    S(_X3(), name="3d_error")])
_view("adjoint.default", lambda: [
    S(_X(), name="2d"), S(_X3(F64), name="3d"), S(offset((3, 4), F32), name="offset"),
    S(make((4,), F32), name="1d_error")])
_view("unsqueeze.default", lambda: [
    S(_X(), 0, name="front"), S(_X(), -1, name="back"), S(_X(), 1, name="middle"),
    S(make((), F32), 0, name="0d"), S(transposed((3, 4), F32), 1, name="transposed"),
    S(make((0, 3), F32), 2, name="empty"), S(offset((3, 4), F32), -2, name="offset"),
    S(_X(), 3, name="out_of_range_error")])
_view("squeeze.default", lambda: [
    S(make((1, 3, 1, 4), F32), name="basic"), S(make((1, 1), F32), name="to_0d"),
    S(_X(), name="nothing"), S(make((), F32), name="0d"), S(make((0, 1, 2), F32), name="empty"),
    S(View(make((4, 1, 3), F32), "transpose.int", (0, 2)), name="transposed")])
_view("squeeze.dim", lambda: [
    S(make((1, 3, 1, 4), F32), 2, name="basic"),
    S(make((1, 3, 1, 4), F32), 1, name="not_size1_noop"),
    S(make((1, 3, 1), F32), -1, name="negative"), S(make((), F32), 0, name="0d"),
    S(offset((1, 4), F32), 0, name="offset"), S(_X(), 2, name="out_of_range_error")])
_view("squeeze.dims", lambda: [
    S(make((1, 3, 1, 4), F32), [0, 2], name="basic"),
    S(make((1, 3, 1, 4), F32), [0, 1], name="mixed"),
    S(make((1, 3, 1), F32), [], name="empty_list"), S(make((), F32), [0], name="0d"),
    S(make((1, 3, 1), F32), [0, -3], name="repeated_error")])
_view("expand.default", lambda: [
    S(make((3, 1), F32), [3, 4], name="basic"), S(make((3, 1), F32), [2, -1, 4], name="new_dims"),
    S(make((), F32), [2, 3], name="0d"), S(make((4,), I64), [0, 4], name="to_empty"),
    S(_X(), [3, 4], name="same"), S(make((1, 4), F32), [3, 4], implicit=True, name="implicit"),
    S(transposed((1, 4), F32), [2, 4, 1], name="transposed"),
    S(make((3,), F32), [4], name="bad_size_error"),
    S(make((3, 1), F32), [4], name="fewer_dims_error"),
    S(make((3, 1), F32), [-1, -1, 4], name="new_dim_-1_error")])
_view("expand_as.default", lambda: [
    S(make((3, 1), F32), make((2, 3, 4), I32), name="basic"),
    S(make((), F32), make((2,), F32), name="0d"),
    S(make((3,), F32), make((4,), F32), name="bad_size_error")])
_view("slice.Tensor", lambda: [
    S(_X(), 0, 1, 3, name="rows"), S(_X(), 1, None, None, 2, name="step2"),
    S(_X(), 1, -3, -1, name="negative_bounds"), S(_X(), 0, 1, 100, name="end_clamped"),
    S(_X(), 0, 5, 7, name="empty_past_end"), S(_X(), 0, 2, 1, name="empty_reversed"),
    S(_X(), name="defaults"), S(_X3(), -1, 1, None, 3, name="last_dim_step3"),
    S(offset((3, 4), F32), 1, 1, 3, name="offset_input"),
    S(transposed((3, 4), I32), 1, 0, 2, name="transposed"),
    S(_X(), 0, 0, 2, 0, name="zero_step_error"), S(_X(), 2, 0, 1, name="dim_error")])
_view("select.int", lambda: [
    S(_X(), 0, 1, name="row"),
    S(_X(), 1, -1, name="negative_index"),
    S(_X3(), -2, 2, name="middle"),
    S(make((4,), I64), 0, 3, name="to_0d"), S(offset((3, 4), F32), 1, 0, name="offset"),
    S(transposed((3, 4), F32), 0, 2, name="transposed"),
    S(_X(), 0, 3, name="index_error"), S(_X(), 1, -5, name="negative_index_error"),
    S(make((), F32), 0, 0, name="0d_error")])
_view("narrow.default", lambda: [
    S(_X(), 0, 1, 2, name="rows"),
    S(_X(), -1, 1, 3, name="cols"),
    S(_X(), 1, -2, 2, name="negative_start"),
    S(_X(), 0, 3, 0, name="empty"), S(offset((3, 4), F32), 1, 2, 2, name="offset"),
    S(_X(), 0, 2, 3, name="too_long_error")])
_view("diagonal.default", lambda: [
    S(_X(), name="main"),
    S(_X(), 1, name="above"),
    S(_X(), -2, name="below"),
    S(_X(), 5, name="empty"),
    S(_X3(), 0, 0, 2, name="dims02"), S(_X3(), -1, -1, 1, name="negative_dims"),
    S(transposed((3, 4), F32), 1, name="transposed"), S(offset((3, 4), F32), name="offset"),
    S(_X(), 0, 0, 0, name="same_dims_error")])
_view("split.Tensor", lambda: [
    S(make((5, 3), F32), 2, name="uneven"), S(make((4, 6), F32), 3, 1, name="dim1"),
    S(make((4, 6), F32), 10, name="one_chunk"), S(make((0, 2), F32), 2, name="empty"),
    S(offset((3, 4), F32), 2, -1, name="offset"), S(make((4, 3), F32), 0, name="zero_size_error")])
_view("split.sizes", lambda: [
    S(make((5, 3), F32), [2, 3], name="basic"),
    S(make((5, 3), I64), [1, 0, 2], 1, name="with_zero"),
    S(offset((3, 4), F32), [1, 2], name="offset"),
    S(make((5, 3), F32), [2, 2], name="bad_sum_error")])
_view("split_with_sizes.default", lambda: [
    S(make((5, 3), F32), [2, 3], name="basic"),
    S(make((5, 3), F32), [1, 0, 2], 1, name="with_zero"),
    S(transposed((3, 5), F32), [4, 1], 1, name="transposed"),
    S(make((5, 3), F32), [2, 2], name="bad_sum_error")])
_view("chunk.default", lambda: [
    S(make((5, 3), F32), 2, name="uneven"), S(make((6, 4), F32), 3, 1, name="dim1"),
    S(make((2, 3), F32), 5, name="more_than_size"), S(make((0, 3), F32), 2, name="empty"),
    S(make((4, 3), F32), 0, name="zero_chunks_error")])
# torch's unsafe_* forms: the same pieces (and errors) as split/split_with_sizes/chunk/view
# (data from a generator of their own: the shared stream stays as it was for later samples)
_urng = own_rng(2231)


def _u(shape, dt=F32):
    return make(shape, dt, rng=_urng)


_view("unsafe_split.Tensor", lambda: [
    S(_u((5, 3)), 2, name="uneven"), S(_u((4, 6)), 3, 1, name="dim1"),
    S(_u((0, 2)), 2, name="empty"), S(_u((4, 3)), 0, name="zero_size_error")])
_view("unsafe_split_with_sizes.default", lambda: [
    S(_u((5, 3)), [2, 3], name="basic"), S(_u((5, 3)), [1, 0, 2], 1, name="with_zero"),
    S(_u((5, 3)), [2, 2], name="bad_sum_error")])
_view("unsafe_chunk.default", lambda: [
    S(_u((5, 3)), 2, name="uneven"), S(_u((2, 3)), 5, name="more_than_size"),
    S(_u((0, 3)), 2, name="empty"), S(_u((4, 3)), 0, name="zero_chunks_error")])
_view("_unsafe_view.default", lambda: [
    S(_u((3, 4)), [2, 6], name="basic"), S(_u((2, 3, 4)), [-1, 4], name="infer"),
    S(transposed((3, 4), rng=_urng), [12], name="not_viewable_error")])
# reshape's view of a tensor it can view: the strides reshape computed (not checked by the op)
_view("_reshape_alias.default", lambda: [
    S(_u((2, 3, 4)), [6, 4], [4, 1], name="contiguous"),
    S(transposed((3, 4), rng=_urng), [3, 2, 2], [1, 6, 3], name="transposed"),
    S(offset((3, 4), rng=_urng), [3, 2, 2], [5, 2, 1], name="offset"),
    S(strided((3, 4), rng=_urng), [3, 4, 1], [8, 1, 1], name="strided")])
_view("unbind.int", lambda: [
    S(_X(), name="dim0"), S(_X3(), -1, name="last"), S(offset((3, 4), F32), 1, name="offset"),
    S(make((0, 3), F32), 1, name="empty"), S(make((), F32), name="0d_error")])
_view("flatten.using_ints", lambda: [
    S(_X3(), name="all"),
    S(_X3(), 1, name="tail"),
    S(_X3(), 0, 1, name="head"),
    S(make((), F32), name="0d"),
    S(transposed((3, 4), F32), name="transposed_copies"), S(_X3(), 1, 1, name="noop"),
    S(make((2, 0, 3), F32), 1, name="empty"), S(_X3(), 2, 1, name="start_after_end_error")])
_view("unflatten.int", lambda: [
    S(make((2, 12), F32), 1, [3, 4], name="basic"),
    S(make((2, 12), F32), -1, [2, -1], name="infer"),
    S(make((6,), I64), 0, [1, 6, 1], name="with_ones"),
    S(make((2, 12), F32), 1, [5, 2], name="bad_sizes_error")])
_view("movedim.intlist", lambda: [
    S(_X3(), [0, 1], [2, 0], name="basic"),
    S(_X3(), [-1], [0], name="negative"),
    S(_X3(), [], [], name="none"),
    S(_X3(), [0, 0], [1, 2], name="repeated_error"),
    S(_X3(), [0], [1, 2], name="len_mismatch_error")])
_view("movedim.int", lambda: [
    S(_X3(), 0, 2, name="basic"),
    S(_X3(), -1, 0, name="negative"),
    S(transposed((3, 4), F32), 1, 0, name="transposed"),
    S(make((), F32), 0, 0, name="0d"), S(_X3(), 0, 3, name="out_of_range_error")])
_view("detach.default", lambda: [S(_X(dt), name=dtname(dt)) for dt in (BOOL, I64, F32)] + [
    S(offset((3, 4), F32), name="offset"), S(make((), F32), name="0d")])
_view("alias.default", lambda: [S(_X(dt), name=dtname(dt)) for dt in (BOOL, BF16, F64)] + [
    S(transposed((3, 4), F32), name="transposed"), S(make((0,), F32), name="empty")])
# in-place metadata changes: self takes the functional view's layout
_view("t_.default", lambda: [
    S(_X(), name="2d"), S(make((4,), F32), name="1d"), S(strided((3, 4), I32), name="strided"),
    S(_X3(), name="3d_error")])
_view("transpose_.default", lambda: [
    S(_X3(), 0, 2, name="basic"), S(offset((3, 4), BF16), -1, 0, name="offset"),
    S(_X3(), 0, 3, name="out_of_range_error")])
_view("unsqueeze_.default", lambda: [
    S(_X(), 1, name="middle"), S(make((), F32), 0, name="0d"),
    S(transposed((3, 4), F32), -1, name="transposed"), S(_X(), 3, name="out_of_range_error")])
_view("squeeze_.default", lambda: [
    S(make((1, 3, 1, 4), F32), name="basic"), S(make((1, 1), I64), name="to_0d")])
_view("squeeze_.dim", lambda: [
    S(make((1, 3, 1, 4), F32), 2, name="basic"), S(make((1, 3), F32), 1, name="noop"),
    S(_X(), 2, name="out_of_range_error")])
_view("squeeze_.dims", lambda: [
    S(make((1, 3, 1, 4), F32), [0, 2], name="basic"),
    S(make((1, 3, 1), F32), [0, -3], name="repeated_error")])
_view("as_strided_.default", lambda: [
    S(_X(), [2, 2], [1, 2], name="basic"), S(_X(), [3, 3], [4, 1], 1, name="offset"),
    S(_X(), [4, 4], [4, 1], name="out_of_bounds_error")])
register("resize_.default", lambda: [
    S(_X(), [2, 3], name="shrink"), S(_X(), [4, 5], name="grow"), S(_X(), [0], name="empty"),
    S(make((2, 3, 4, 5), F32), [2, 3, 4, 5], memory_format=E.channels_last,
      name="channels_last"), S(_X(), [-1, 2], name="negative_error")],
    values=False, exact_strides=True)
_view("set_.source_Tensor", lambda: [
    S(make((2,), F32), _X(), name="basic"), S(_X(I64), transposed((3, 4), I64), name="transposed"),
    S(make((0,), F32), offset((3, 4), F32), name="offset")])
_view("set_.source_Tensor_storage_offset", lambda: [
    S(make((2,), F32), _X(), 2, [2, 3], name="contiguous"),
    S(make((2,), F32), _X(), 1, [2, 2], [1, 3], name="strided"),
    S(make((2,), F32), _X(), 11, [], name="0d_last")])
_view("set_.default", lambda: [S(_X(), name="basic"), S(make((), I64), name="0d")])
_view("lift_fresh.default", lambda: [S(_X(), name="basic"), S(_X3(I64), name="int64")])
_view("lift_fresh_copy.default", lambda: [S(transposed((3, 4), F32), name="transposed"),
                                          S(_X(BOOL), name="bool")])


# ---- joining and indexing ----------------------------------------------------------
register("cat.default", lambda: [
    S([make((2, 3), dt), make((1, 3), dt)], name=dtname(dt)) for dt in ALL] + [
    S([make((2, 3), F32), make((2, 1), F32)], 1, name="dim1"),
    S([make((2, 3), F32), make((2, 2), F32), make((2, 4), F32)], -1, name="three_last_dim"),
    S([make((2, 3), I32), make((1, 3), F16)], name="promotion"),
    S([make((2, 3), BOOL), make((1, 3), U8)], name="bool_uint8"),
    S([make((2, 3), F32), make((0,), F32)], name="legacy_empty_1d_skipped"),
    S([make((0, 3), F32), make((0, 3), F32)], name="all_empty"),
    S([transposed((3, 4), F32), strided((2, 4), F32)], name="noncontiguous"),
    S([transposed((3, 4), F32), transposed((3, 4), F32)], 1, name="transposed_dim1"),
    S([make((4,), F64)], name="single"),
    S([make((2, 3), F32), make((2, 4), F32)], name="size_mismatch_error"),
    S([make((), F32), make((), F32)], name="0d_error"), S([], name="empty_list_error"),
    S([make((2, 3), F32), make((2, 3), F32)], 2, name="dim_error")])
out_of("cat.out", "cat.default")
register("stack.default", lambda: [
    S([make((2, 3), dt), make((2, 3), dt)], name=dtname(dt)) for dt in (BOOL, I64, BF16, F32)] + [
    S([make((2, 3), F32), make((2, 3), F32)], 1, name="dim1"),
    S([make((2, 3), F32), make((2, 3), F32), make((2, 3), F32)], -1, name="last"),
    S([make((), F32), make((), F32)], name="0d"), S([make((0, 2), F32)], 1, name="empty"),
    S([make((2, 3), I32), make((2, 3), F64)], name="promotion"),
    S([transposed((3, 4), F32), make((3, 4), F32)], 2, name="transposed"),
    S([make((2, 3), F32), make((3, 2), F32)], name="size_mismatch_error"),
    S([make((2, 3), F32)], 3, name="dim_error")])
out_of("stack.out", "stack.default")


def _idx(*values):
    return np.array(values, np.int64)


def _index_samples():
    x = make((4, 5), F32)
    out = [S(make((4, 5), dt), [_idx(0, 2, 2, -1)], name=dtname(dt)) for dt in ALL]
    out += [S(x, [_idx(0, 3), _idx(1, -1)], name="two_indices"),
            S(x, [_idx(0, 3)[:, None], _idx(1, 2, 4)], name="broadcast_indices"),
            S(x, [None, _idx(4, 0)], name="none_then_index"),
            S(make((2, 3, 4), F32), [_idx(1), None, _idx(0, 3)], name="separated_advanced"),
            S(x, [np.array([1, 0], np.int32)], name="int32_index"),
            S(x, [_idx()], name="empty_index"),
            S(x, [np.zeros((2, 0), np.int64)], name="empty_2d_index"),
            S(make((0, 3), F32), [_idx()], name="empty_self"),
            S(make((4,), F32), [np.array(2, np.int64)], name="0d_index"),
            S(transposed((4, 5), F32), [_idx(1, 3)], name="transposed_self"),
            S(x, [make((4, 5), BOOL)], name="bool_mask", data_dependent=True),
            S(x, [np.array([True, False, True, True])], name="bool_rows", data_dependent=True),
            S(x, [_idx(4)], name="out_of_range_error"),
            S(x, [np.array([1.0, 2.0], np.float32)], name="float_index_error"),
            S(x, [_idx(0), _idx(0), _idx(0)], name="too_many_error")]
    return out


register("index.Tensor", _index_samples)
out_of("index.Tensor_out", "index.Tensor")


def _index_put_samples(inplace):
    def samples():
        x = make((4, 5), F32)
        out = [S(make((4, 5), dt), [_idx(0, 2)], make((5,), dt), name=dtname(dt)) for dt in ALL]
        out += [S(x, [_idx(0, 3), _idx(1, -1)], make((2,), F32), name="two_indices"),
                S(x, [_idx(1, 1, 2)], make((3, 5), F32), True, name="accumulate_duplicates"),
                S(make((4, 5), I64), [None, _idx(0, 0)], make((4, 2), I64), True,
                  name="accumulate_none_index"),
                S(x, [_idx(0, 3)], make((), F32), name="0d_value_broadcast"),
                S(x, [_idx(0, 3)], make((5,), F64), name="float64_values_error"),
                S(transposed((4, 5), F32), [_idx(1, 3)], make((2, 5), F32), name="transposed_self"),
                S(x, [make((4, 5), BOOL)], make((), F32), name="bool_mask_scalar_value"),
                S(x, [_idx(5)], make((5,), F32), name="out_of_range_error"),
                S(x, [_idx(0, 1)], make((3, 5), F32), name="shape_mismatch_error")]
        return out
    return samples


register("index_put_.default", _index_put_samples(True))
register("index_put.default", _index_put_samples(False))


# ---- op families: one module each (tests/ops/opinfo_<family>.py) -------------------
FAMILIES = ("unary", "binary", "activation", "reduction", "random", "conv", "nn", "shape",
            "linalg", "special", "complex", "fft", "aliases")
FAMILY_MODULES = tuple(__import__(f"opinfo_{family}") for family in FAMILIES)


# ---- {view}_copy ops (codegen's autogen of view_copy): their view's samples -------------
def _view_copies():
    for packet in ember.ops.aten:
        for overload in getattr(ember.ops.aten, packet).overloads():
            op = getattr(getattr(ember.ops.aten, packet), overload)
            view = f"{packet.removesuffix('_copy')}.{overload}"
            if "view_copy" in op.tags and f"{packet}.{overload}" not in OPS and view in OPS:
                _view(f"{packet}.{overload}", OPS[view].samples)


_view_copies()
