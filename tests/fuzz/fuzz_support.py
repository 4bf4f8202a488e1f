"""Support for the differential fuzzer (tests/fuzz/test_differential.py).

The ops come from schema/native_functions.yaml through the codegen model: every
functional or in-place overload tagged `pointwise` or `reduction`, or declared in one of
the SECTIONS below (the `# ---- <section>` headers of the YAML), the ACTIVATIONS listed
below, and the padding ops, minus the SKIP table.
Arguments are drawn from each argument's schema type, refined by its name (a `dim` is a
dim of `self`, an `index` holds indices into it, ...), so a new op in those sections is
fuzzed without touching this file.

A case is plain data (NumPy arrays, views to apply, Python values); `materialize` turns
it into ember or torch objects, `run_case` calls `ember.ops.aten.<op>.<overload>` and
`torch.ops.aten.<op>.<overload>` with the same arguments and compares.

    >>> spec = FUZZ_OPS["add.Tensor"]
    >>> spec.kind, [a.name for a in spec.schema.arguments.flat_non_out()]
    ('functional', ['self', 'other', 'alpha'])
"""
from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
from helpers import (
    ACCUMULATING_ULPS,
    COMPLEX,
    ULPS,
    assert_close_ulps,
    builtin_type,
    dtype_name,
    ember_of,
    from_torch,
    np_dtype,
    real_pairs,
    to_np,
    torch_of,
)
from hypothesis import reject as _reject
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember
from ember.codegen.kernel_index import KernelIndex
from ember.codegen.loader import load_yaml_list
from ember.codegen.model import BaseType, ListType, OptionalType
from ember.codegen.native import NativeFunction, parse_native_functions

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "schema" / "native_functions.yaml"

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64")
FLOATS = ("float16", "bfloat16", "float32", "float64")
SECTIONS = ("binary", "unary", "reduction", "views",
            "joining and indexing", "shape")
TAGS = ("pointwise", "reduction")
# elementwise activation ops torch does not tag pointwise (the tagged ones are in by tag)
ACTIVATIONS = ("hardswish.default", "hardswish_.default", "mish_.default", "glu.default",
               "log_sigmoid_forward.default", "hardswish_backward.default",
               "hardsigmoid_backward.default", "mish_backward.default",
               "hardshrink_backward.default", "softshrink_backward.default",
               "_prelu_kernel.default")

# What is in scope but not fuzzed, and why, in one table: by overload ("add.out"), by
# kind ("kind:out") or by tag ("tag:factory").
SKIP = {
    "kind:out": "out= variants: the functional overload is fuzzed; out= resizing and dtype "
                "rules are covered by tests/ops/test_schema_ops.py",
    "tag:nondeterministic_seeded": "random: the values depend on the generator's stream",
    "tag:factory": "factories (window functions) take no tensor to fuzz; tests/ops covers them",
    "resize_.default": "memory a resize_ grows is uninitialized (in torch too): no values to "
                       "compare; tests/ops/opinfo.py compares the metadata",
    "_reshape_alias.default": "reshape's internal alias: torch checks neither the sizes nor "
                              "the bounds reshape computed for it (random ones read garbage); "
                              "tests/tensor/test_views.py and opinfo cover reshape's calls",
    "_reshape_alias_copy.default": "the copy of _reshape_alias (see it)",
}

# Known disagreements (most are being fixed on other branches), by cause: the ops whose CI
# run (HYPOTHESIS_PROFILE=ci, 30 examples) fails today. Their fuzz tests are xfail, not
# strict: delete an op when its fix lands (it then XPASSes). EMBER_FUZZ_KNOWN=0 runs them
# as ordinary tests. Longer runs find these causes in more ops (the report of issue 12).
HALF = ("float16 norms: torch's one-element shortcut is taken without a dim only; a 0-d "
        "self with dim=[0] goes through its general path, |x| ** p in float32 (p=255 "
        "overflows: inf), where ember's one-element path gives |x|")
TOPK = "topk 0-d/bool: wrong values and garbage indices on 0-d input; bool not rejected"
INDEX_EMPTY = ("index ops on an empty or 0-d self: IndexError where torch raises RuntimeError, "
               "or no error")
BOOL_CUM = "cumsum_/cumprod_ of bool: torch keeps bool in place; cumprod(dtype=bool) must raise"
VAR = ("var/std: correction < 0 on one element and var_mean with infinities give nan in torch "
       "(Welford); prod of a float16 with inf/0 differs")
MISC = "error checks: a Python error leaks or torch's check is missing (see the report)"
CDIST = ("cdist: torch skips its dtype checks and its half-type refusal for empty inputs "
         "(ember checks them first)")
SET = ("set_ between dtypes: torch reinterprets the bytes of a non-empty source of another "
       "dtype in some cases and refuses in others; ember refuses whenever it has elements")
CEPHES = ("torch.special Bessel/Airy functions and igamma/igammac are torch's own "
          "Cephes-style approximations evaluated in the input's precision: float32 results "
          "differ in the last digits near zeros (bessel_y0(4) -0.01694095 vs -0.01694074), "
          "some float64 ones in the 8th digit (bessel_y1(5)), igammac float64 a few ulps "
          "beyond 8, airy_ai of huge |x| (-2**31) is a number in torch, NaN in ember; ember "
          "evaluates scipy in float64 and rounds once (the closer value)")
RECURRENCE = ("orthogonal polynomials (the whole family): torch runs its recurrence in "
              "float32, so an overflow gives inf - inf = NaN where ember (scipy in float64, "
              "rounded) gives inf; for |x| < 1 and n > 6 torch uses cos(n acos x) in float32 "
              "(T_9(0) = -3.6e-08); a NaN x can give a number (W_9(nan), L_10000(nan) = 0); "
              "float32 accumulation differs in the last digits")
TORCH_VIEW = ("isin.Tensor_Tensor: torch's small-input kernel flattens test_elements with "
              ".view(-1), so a non-viewable (permuted) test_elements raises 'view size is not "
              "compatible' in torch (a torch bug: the result does not depend on the layout); "
              "ember answers; kron views its inputs the same way")
EMPTY_CHECKS = ("checks torch makes on empty or 0-d input that ember's shortcut skips (bool "
                "clamp/ldexp, addr's bool alpha, a Scalar overflowing the dtype) or makes when "
                "torch does not (an overflowing alpha on an empty tensor)")
ONE_FILL = ("fill_ of a one-element tensor: torch's scalar_fill fast path converts the value "
            "unchecked (70000 is inf in float16); ember checks it as for any other size")
TORCH_APPROX = ("torch's float32/reduced-precision formulas: its vectorized erf (gelu(-3) "
                "-0.00405023, exact -0.00404970; gelu(inf) NaN in bfloat16), ndtr as "
                "0.5 * (1 + erf(x / sqrt 2)) (ndtr(-5) 2.98e-07, exact 2.87e-07), zeta(x, inf) "
                "NaN (its series' 0/0; the limit, ember's, is 0), bessel_j1 far out; ember's "
                "values are the closer ones")
LINSPACE = ("histogram's bin edges are torch's linspace, which is vectorized: each SIMD vector "
            "(8 or 16 floats, by CPU) is base + j * step from its own base, an ulp away from "
            "the per-element formula ember uses; a value on an edge then falls in the "
            "neighbouring bin")
NAN_ORDER = ("unique_dim of rows holding NaN: torch's row sort with NaN is not a strict weak "
             "order (equal rows left apart, NaNs kept separate); ember's NaN-last sort merges them")
DOT_BOOL = ("inner/tensordot of bool (empty) inputs: torch contracts through dot/mm and raises "
            "'\"dot\" not implemented for Bool' (or answers an empty result) in an order ember's "
            "mm-based decomposition does not follow")
SHRINK_NAN = ("hardshrink_backward/softshrink_backward at a NaN self: torch's vectorized loop "
              "keeps grad where self < -lambd or self > lambd (0 for NaN), its scalar loop, "
              "which runs the elements past the last full SIMD vector, zeroes where -lambd <= "
              "self <= lambd (grad for NaN); ember gives the scalar loop's grad everywhere")
HARDSWISH_NAN = ("hardswish_backward at a NaN self: NaN in torch's vectorized lanes, grad in its "
                 "scalar tail (test_grad_regressions shows it); ember gives the tail's grad")
KNOWN: dict[str, str] = {
    **dict.fromkeys(["norm.ScalarOpt_dim", "linalg_vector_norm.default"], HALF),
    "topk.default": TOPK,
    **dict.fromkeys(["clamp.Tensor", "clamp_.Tensor", "ldexp.Tensor", "ldexp_.default",
                     "addr.default", "index_fill_.int_Scalar", "threshold_backward.default"],
                    EMPTY_CHECKS),
    **dict.fromkeys(["fill.Scalar", "fill_diagonal_.default"], ONE_FILL),
    **dict.fromkeys(["gelu.default", "special_ndtr.default", "special_zeta.default",
                     "special_zeta.other_scalar", "special_zeta.self_scalar",
                     "special_bessel_j1.default"], TORCH_APPROX),
    "histogram.bin_ct": LINSPACE,
    # (histogramdd with bin counts takes histogram's linspace edges)
    **dict.fromkeys(["histogramdd.default", "histogramdd.int_bins"], LINSPACE),
    "unique_dim.default": NAN_ORDER,
    **dict.fromkeys([
        "index_add.default", "index_copy.default", "index_fill.int_Scalar",
        "index_fill.int_Tensor", "index_fill_.int_Tensor", "index_put_.default",
        "index_select.default", "narrow_copy.default", "index_add_.default",
        "index_copy_.default", "index_put.default"], INDEX_EMPTY),
    **dict.fromkeys(["cumsum_.default", "cumprod_.default"], BOOL_CUM),
    # (test_regressions.py shows the infinite-input means, which the draws seldom reach)
    **dict.fromkeys(["var_mean.default", "var_mean.correction", "var_mean.dim",
                     "std_mean.default", "std_mean.correction", "std_mean.dim", "prod.default"],
                    VAR),
    **dict.fromkeys(["gelu_backward.default", "repeat_interleave.Tensor",
                     "repeat_interleave.self_Tensor", "repeat_interleave.self_int"], MISC),
    **dict.fromkeys(["set_.source_Tensor", "set_.source_Tensor_storage_offset"], SET),
    "cdist.default": CDIST,
    **dict.fromkeys([f"special_{f}.default" for f in (
        "airy_ai", "bessel_j0", "bessel_y0", "bessel_y1")], CEPHES),
    **dict.fromkeys(["igamma.default", "igamma_.default", "igammac.default",
                     "igammac_.default"], CEPHES),
    **dict.fromkeys([f"special_{p}_polynomial_{v}.{overload}" for p, vs in (
        ("chebyshev", "tuvw"), ("shifted_chebyshev", "tuvw"), ("hermite", ("h", "he")),
        ("laguerre", "l"), ("legendre", "p")) for v in vs
        for overload in ("default", "x_scalar", "n_scalar")], RECURRENCE),
    **dict.fromkeys(["isin.Tensor_Tensor", "kron.default"], TORCH_VIEW),
    **dict.fromkeys(["inner.default", "tensordot.default"], DOT_BOOL),
    **dict.fromkeys(["hardshrink_backward.default", "softshrink_backward.default"], SHRINK_NAN),
    "hardswish_backward.default": HARDSWISH_NAN,
}


# --------------------------------------------------------------------------- the schema
def _sections() -> list[tuple[int, str]]:
    """(line, name) of each `# ---- name` section header of native_functions.yaml."""
    lines = NATIVE.read_text().splitlines()
    return [(i + 1, m.group(1).strip()) for i, line in enumerate(lines)
            if (m := re.match(r"# -{8,} (.*)", line))]


def section_of(fn: NativeFunction, sections) -> str:
    """The section header above `fn`'s entry."""
    return [name for line, name in sections if line <= fn.loc.line][-1]


@dataclass(frozen=True)
class OpSpec:
    """One schema overload with what the fuzzer needs to know about it."""
    fn: NativeFunction
    section: str

    @property
    def name(self) -> str:
        return f"{self.fn.op_name}.{self.fn.overload}"

    @property
    def schema(self):
        return self.fn.schema

    @property
    def kind(self) -> str:
        return self.fn.schema.kind()

    @property
    def pointwise(self) -> bool:
        return "pointwise" in self.fn.tags

    @property
    def reduction(self) -> bool:
        return "reduction" in self.fn.tags or "reduction" in self.section


def skip_reason(spec: OpSpec) -> str | None:
    """Why `spec` is not fuzzed (its SKIP entry), or None."""
    keys = [spec.name, f"kind:{spec.kind}", *(f"tag:{t}" for t in spec.fn.tags)]
    return next((SKIP[k] for k in keys if k in SKIP), None)


def in_scope(spec: OpSpec) -> bool:
    """Pointwise, reduction, indexing and shape ops: by tag, by section, the ACTIVATIONS
    and the padding ops (an `int[] pad` argument) of other sections."""
    return (spec.section in SECTIONS or any(t in spec.fn.tags for t in TAGS)
            or spec.name in ACTIVATIONS
            or any(a.name == "pad" for a in spec.schema.arguments.flat()))


def load_ops() -> dict[str, OpSpec]:
    """'add.Tensor' -> OpSpec for every in-scope overload of the schema."""
    fns = parse_native_functions(load_yaml_list(NATIVE, "schema/native_functions.yaml"),
                                 KernelIndex(ROOT / "kernels"))
    sections = _sections()
    specs = (OpSpec(fn, section_of(fn, sections)) for fn in fns)
    return {s.name: s for s in specs if in_scope(s)}


SCOPE = load_ops()
FUZZ_OPS = {name: s for name, s in sorted(SCOPE.items()) if skip_reason(s) is None}


# --------------------------------------------------------------------------- case data
@dataclass(frozen=True)
class TensorArg:
    """A tensor argument: `base` (a NumPy array) with `views` applied on both sides, each
    ("permute", dims), ("slice", dim, start, end, step) or ("expand", sizes)."""
    base: np.ndarray
    views: tuple = ()

    def __repr__(self):
        a = self.base
        values = np.array2string(a.astype(np.float32) if a.dtype == ml_dtypes.bfloat16 else a,
                                 separator=",", threshold=12, max_line_width=10**6)
        views = "".join(f".{v[0]}{tuple(v[1:]) if len(v) > 2 else (v[1],)}" for v in self.views)
        values = re.sub(r"\s*\n\s*", " ", values)
        empty = f", shape={a.shape}" if a.size == 0 else ""
        return f"T({values}, {dtype_name_np(a.dtype)}{empty}){views}"


@dataclass(frozen=True)
class DType:
    """A ScalarType argument, by name."""
    name: str

    def __repr__(self):
        return self.name


def dtype_name_np(d) -> str:
    return "bfloat16" if d == ml_dtypes.bfloat16 else np.dtype(d).name


def _ember_view(t, view):
    kind, *args = view
    aten = ember.ops.aten
    return {"permute": aten.permute.default, "slice": aten.slice.Tensor,
            "expand": aten.expand.default}[kind](t, *args)


def _torch_view(t, view):
    import torch
    kind, *args = view
    aten = torch.ops.aten
    return {"permute": aten.permute.default, "slice": aten.slice.Tensor,
            "expand": aten.expand.default}[kind](t, *args)


def materialize(x, side: str):
    """A case value as ember (side="ember") or torch (side="torch") objects."""
    if isinstance(x, TensorArg):
        t = ember_of(x.base) if side == "ember" else torch_of(x.base)
        for v in x.views:
            t = _ember_view(t, v) if side == "ember" else _torch_view(t, v)
        return t
    if isinstance(x, DType):
        if side == "ember":
            return getattr(ember, x.name)
        import torch
        return getattr(torch, x.name)
    if isinstance(x, list):
        return [materialize(v, side) for v in x]
    if isinstance(x, dict):
        return {k: materialize(v, side) for k, v in x.items()}
    return x


@dataclass
class Case:
    """One call: positional and keyword arguments as plain data."""
    args: list
    kwargs: dict

    def __repr__(self):
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return ", ".join(parts)


# --------------------------------------------------------------------------- drawing values
def draw_array(data, shape, dtype: str, *, low=None, high=None) -> np.ndarray:
    """Random values of `dtype`: small numbers mostly, dtype extremes and float specials
    (nan, inf, -0.0, large) sometimes; ints in [low, high) when given."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    n = int(np.prod(shape))
    if dtype == "bool":
        return rng.random(shape) < 0.5
    np_dt = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    if np_dt.kind == "c":  # (the gradient fuzzer's complex128): real and imaginary parts
        real = np.dtype(np_dt.char.lower())
        parts = [draw_array(data, shape, real.name, low=low, high=high) for _ in range(2)]
        return (parts[0] + 1j * parts[1]).astype(np_dt)
    if np_dt.kind in "iu":
        info = np.iinfo(np_dt)
        if low is not None:
            return rng.integers(low, high, shape).astype(np_dt)
        lo = 0 if np_dt.kind == "u" else -10
        a = rng.integers(lo, 11, shape).astype(np_dt)
        if n and rng.random() < 0.2:  # extremes: overflow and wrap-around
            a.flat[rng.integers(0, n)] = info.max
            a.flat[rng.integers(0, n)] = info.min
        return a
    a = rng.uniform(-5, 5, shape) if low is None else rng.integers(low, high, shape)
    if n and rng.random() < 0.15:  # exact integers: ties in rounding, sorting, equality
        a = np.round(a)
    if n and rng.random() < 0.2:
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e4, -3e5, 1e-6])
        k = rng.integers(1, n + 1)
        a.flat[rng.choice(n, k, replace=False)] = rng.choice(specials, k)
    with np.errstate(over="ignore"):  # 3e5 is inf in float16: wanted
        return np.asarray(a).astype(np_dt)


def _layouts(data, shape, dtype, **kw) -> TensorArg:
    """A tensor of `shape`: contiguous, transposed, a stepped slice or stride-0 expanded."""
    shape = tuple(shape)
    kinds = ["contiguous"] + (["transposed", "sliced", "expanded"] if shape else [])
    kind = data.draw(st.sampled_from(kinds), label="layout")
    if kind == "transposed":
        perm = list(range(len(shape)))[::-1]
        return TensorArg(draw_array(data, shape[::-1], dtype, **kw), (("permute", perm),))
    if kind == "sliced":
        d = data.draw(st.integers(0, len(shape) - 1), label="slice dim")
        base = shape[:d] + (2 * shape[d] + 1,) + shape[d + 1:]
        return TensorArg(draw_array(data, base, dtype, **kw), (("slice", d, 1, None, 2),))
    if kind == "expanded":
        ones = data.draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
        base = tuple(1 if o else n for o, n in zip(ones, shape))
        return TensorArg(draw_array(data, base, dtype, **kw), (("expand", list(shape)),))
    return TensorArg(draw_array(data, shape, dtype, **kw))


def dtype_st(allowed=DTYPES):
    """A dtype name; floating ones twice as often (most ops are about floats)."""
    return st.sampled_from(allowed + tuple(d for d in allowed if d in FLOATS))


# complex Scalars: a complex alpha or value promotes a real tensor (add(float32, 1j) is
# complex64) or is refused (clamp, fill of a real self); the imaginary part 0 and the
# non-finite parts are where complex formulas go wrong
COMPLEX_SCALARS = (1 + 2j, -0.5j, 1.5 + 0j, -2 - 1j, 0j, 3j, 1e5 - 1e-3j,
                   complex(math.nan, 1.0), complex(math.inf, 0.0), complex(1.0, -math.inf),
                   1e39 + 1j)


def scalar_st(complex_: bool = True):
    """A Python bool, int or float (or complex, one draw in six when `complex_`): small
    ones mostly, sometimes past int8/uint8/float16 range (checked overflow), nan and inf."""
    kinds = [
        st.booleans(),
        st.integers(-5, 5),
        st.sampled_from([255, 256, -129, 70000, 2**31, -2**40]),
        st.sampled_from([0.5, -2.5, 1.1, 3.0, 0.0, -0.0, 1e-3]),
        st.sampled_from([math.nan, math.inf, -math.inf, 1e5, 1e39]),
    ]
    return st.one_of(*kinds, *[st.sampled_from(COMPLEX_SCALARS)] * complex_)


DIM_NAMES = {"dim", "dim0", "dim1", "dim2", "dimension", "source", "destination", "axis0",
             "axis1", "start_dim", "end_dim"}
STRINGS = {"rounding_mode": [None, "trunc", "floor"], "approximate": ["none", "tanh"],
           "reduce": ["sum", "prod", "mean", "amax", "amin", "add", "multiply"],
           "side": [None, "left", "right"],
           "mode": ["constant", "reflect", "replicate", "circular"]}
INDEX_NAMES = {"index", "indices"}
SORTED_NAMES = {"sorted_sequence", "boundaries"}
SHAPED_LATER = {"src", "source", "repeats", "tensor_indices_or_sections"}
DIMS_ARE_DIMS = ("flip", "permute", "roll", "rot90")  # `int[] dims` of dims, not sizes (tile)


def dim_st(ndim, *, list_=False, like=None):
    """A dim of an `ndim`-d tensor (negative ones too; 0-d tensors take -1 and 0), often
    `like` (a dim an earlier argument was drawn for), or a list of distinct ones; now and
    then one out of range."""
    n = max(ndim, 1)
    one = st.sampled_from([*range(n), *range(-n, 0)] * 4 + [n, -n - 1])  # 1 in 4n+1 is wrong
    if isinstance(like, int):
        one = st.one_of(st.just(like), one)
    if not list_:
        return one
    return st.one_of(st.permutations(range(ndim)).map(list),
                     st.lists(st.integers(-n, n - 1), max_size=n, unique_by=lambda d: d % n),
                     st.lists(one, max_size=3))


def sizes_st(shape):
    """A list of sizes for `shape`: the same numel (maybe with -1), a split of one side
    (sizes summing to it), a factoring of one side, a broadcast target, or small sizes."""
    numel = int(np.prod(shape))
    reshapes = st.permutations(_factors(numel)).flatmap(
        lambda fs: st.integers(0, len(fs)).map(lambda k: _merge(fs, k)))
    with_infer = reshapes.flatmap(lambda s: st.integers(0, len(s)).map(
        lambda i: s[:i] + [-1] + s[i + 1:] if i < len(s) else s))
    side = st.sampled_from(shape or (1,))
    split = side.flatmap(lambda n: st.lists(st.integers(0, n), min_size=n + 1, max_size=n + 1)
                         .map(lambda cuts: _split(n, cuts)))
    factored = side.flatmap(lambda n: st.permutations(_factors(n)).map(lambda fs: list(fs) or [1]))
    broadcast = st.lists(st.integers(1, 3), max_size=2).map(
        lambda extra: extra + [n if n != 1 else 3 for n in shape])
    return st.one_of(with_infer, split, factored, broadcast, st.lists(st.integers(-1, 4),
                                                                      max_size=4))


def _split(n, cuts):
    """Sizes summing to n, cut at `cuts`: _split(4, [1, 3, 3, 0, 0]) == [0, 1, 2, 0, 1]."""
    points = sorted(cuts[:-1]) + [n]
    return [b - a for a, b in zip([0] + points[:-1], points)][:max(cuts[-1], 1)] + \
        ([n - points[max(cuts[-1], 1) - 1]] if cuts[-1] > 1 else [])


def _factors(n):
    if n == 0:
        return [0, 2]
    out, p = [], 2
    while n > 1 and p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def _merge(fs, k):
    """Factors `fs` folded into k + 1 groups (a shape of the same numel)."""
    if not fs:
        return [1] * k
    groups = [1] * (k + 1)
    for i, f in enumerate(fs):
        groups[i % (k + 1)] *= f
    return groups


# --------------------------------------------------------------------------- drawing a case
def draw_case(data, spec: OpSpec, dtypes=DTYPES) -> Case:
    """Arguments for `spec` drawn from its schema: tensors for Tensor arguments (pointwise
    ones broadcastable together) of `dtypes`, Python scalars for Scalar, dims in range for
    dims, ... Trailing positional arguments with defaults, and keyword ones, may be left
    out."""
    arguments = spec.schema.arguments
    tensor_args = [a.name for a in arguments.flat_non_out() if _is_plain_tensor(a)
                   and a.name not in INDEX_NAMES | SORTED_NAMES | SHAPED_LATER]
    # small shapes of 0 to 4 dims (0-d: 1 in 4), now and then long ones (sorting past
    # NumPy's insertion-sort cutoff of 16 shows whether a sort is stable)
    low, high, side = data.draw(st.sampled_from(
        [(1, 4, 4), (2, 4, 4), (0, 4, 4), (3, 4, 4), (1, 2, 24)]), label="dims and side")
    shapes = data.draw(hnp.mutually_broadcastable_shapes(
        num_shapes=max(len(tensor_args), 1), min_dims=low, max_dims=high, min_side=0,
        max_side=side), label="shapes")
    shape_of = dict(zip(tensor_args, shapes.input_shapes))
    if tensor_args and (spec.kind == "inplace" or not spec.pointwise) and \
            data.draw(st.integers(0, 3), label="self takes the broadcast shape"):
        shape_of[tensor_args[0]] = shapes.result_shape
    ctx = {"shape": tuple(shape_of[tensor_args[0]] if tensor_args else shapes.result_shape),
           "dtype": data.draw(dtype_st(dtypes), label="dtype"), "dtypes": dtypes,
           "same_dtype": data.draw(st.booleans(), label="same dtype"), "shape_of": shape_of}
    required = sum(a.default is None for a in arguments.positional)
    n = data.draw(st.integers(required, len(arguments.positional)), label="positional")
    args = [draw_arg(data, a, spec, ctx) for a in arguments.positional[:n]]
    kwargs = {a.name: draw_arg(data, a, spec, ctx) for a in arguments.kwarg_only
              if a.default is None or data.draw(st.booleans(), label=f"pass {a.name}")}
    case = Case(args, kwargs)
    _shape_scatter_src(data, spec, case)
    return case


def _shape_scatter_src(data, spec: OpSpec, case: Case):
    """`<view>_scatter(self, src, ...)` (torch's naming): mostly give src the shape of
    `<view>(self, ...)`, the view it is scattered into."""
    import torch
    view = spec.fn.op_name.removesuffix("_scatter")
    names = [a.name for a in spec.schema.arguments.positional]
    if view == spec.fn.op_name or names[:2] != ["self", "src"] or len(case.args) < 2 or \
            not hasattr(torch.ops.aten, view) or \
            not data.draw(st.integers(0, 3), label="src fits the view"):
        return
    packet = getattr(torch.ops.aten, view)
    view_args = materialize([case.args[0]] + case.args[2:], "torch")
    for overload in packet.overloads():
        res, exc = call(getattr(packet, overload), view_args, materialize(case.kwargs, "torch"))
        if exc is None:
            dt = case.args[1].base.dtype
            case.args[1] = _layouts(data, tuple(res.shape), dtype_name_np(dt))
            return


def _is_plain_tensor(a) -> bool:
    t = a.type.elem if isinstance(a.type, OptionalType) else a.type
    return t == BaseType("Tensor")


def draw_arg(data, a, spec, ctx):
    """A value for argument `a` from its type (and name); notes dims and index shapes in
    `ctx` for the arguments after it."""
    t, name = a.type, a.name
    if isinstance(t, OptionalType):
        if data.draw(st.integers(0, 3), label=f"{name} is None") == 0:
            return None
        t = t.elem
    shape, ndim = ctx["shape"], len(ctx["shape"])
    if isinstance(t, ListType):
        base = t.elem.base_name()
        if base == "Tensor":
            return draw_tensor_list(data, t, ctx)
        if base == "bool":
            return data.draw(st.lists(st.booleans(), min_size=t.size or 0, max_size=t.size or 3))
        if name in DIM_NAMES or name == "dims" and spec.fn.op_name in DIMS_ARE_DIMS:
            dims = data.draw(dim_st(ndim, list_=True, like=ctx.get("dim")), label=name)
            return dims[:1] if t.size == 1 else dims
        if name == "pad":
            return data.draw(st.lists(st.integers(-2, 3), max_size=2 * ndim + 1), label=name)
        return data.draw(sizes_st(shape), label=name)
    base = t.name
    if base == "Tensor":
        return draw_tensor(data, name, ctx)
    if base == "Scalar":
        if name == "n":          # a polynomial's degree (n_scalar overloads): small, as above
            return data.draw(st.integers(-50, 50), label=name)
        return data.draw(scalar_st(), label=name)
    if base == "bool":
        return data.draw(st.booleans(), label=name)
    if base == "float":
        return data.draw(st.sampled_from([0.0, 0.5, -1.5, 2.0, 1e-5, math.inf, math.nan]),
                         label=name)
    if base in ("int", "SymInt"):
        if name in DIM_NAMES:
            ctx["dim"] = data.draw(dim_st(ndim, like=ctx.get("dim")), label=name)
            return ctx["dim"]
        return data.draw(st.one_of(st.integers(0, 2), st.integers(0, 4), st.integers(-3, 6)),
                         label=name)
    if base == "ScalarType":
        return DType(data.draw(dtype_st(), label=name))
    if base == "str":
        return data.draw(st.sampled_from(STRINGS.get(name, [None])), label=name)
    raise NotImplementedError(f"{spec.name}: argument type {a.type}")


def draw_tensor(data, name, ctx):
    """A tensor argument: index-like, sorted or shaped by its name, else of the shape drawn
    for it (broadcastable with the others) and the case's dtype or another one."""
    shape = ctx["shape"]
    if name in INDEX_NAMES:
        index = draw_index(data, shape, name, ctx.get("dim"))
        ctx["index_shape"] = tuple(materialize(index, "torch").shape)
        return index
    if name == "repeats":
        n = data.draw(st.sampled_from([1, int(np.prod(shape)), *shape]), label="repeats length")
        return TensorArg(draw_array(data, (n,), "int64", low=0, high=4))
    if name in SORTED_NAMES:
        dt = data.draw(dtype_st(DTYPES[1:]), label=f"{name} dtype")
        n = data.draw(st.integers(0, 5), label=f"{name} length")
        lead = shape[:-1] if name == "sorted_sequence" and data.draw(st.booleans()) else ()
        return TensorArg(np.sort(draw_array(data, lead + (n,), dt), axis=-1))
    if name == "tensor_indices_or_sections":
        return TensorArg(np.array(data.draw(st.one_of(
            st.integers(1, 4), st.lists(st.integers(-1, 5), max_size=3))), np.int64))
    t_shape = ctx["shape_of"].get(name, shape)
    if name == "value" and data.draw(st.integers(0, 3), label="value is 0-d"):
        t_shape = ()  # masked_fill.Tensor, index_fill.int_Tensor, fill.Tensor
    if name in SHAPED_LATER:  # src, source: like the index, or like self along `dim`
        options = [shape, ctx.get("index_shape", shape)]
        index_shape, dim = ctx.get("index_shape"), ctx.get("dim")
        if index_shape and len(index_shape) == 1 and isinstance(dim, int) and \
                -len(shape) <= dim < len(shape):
            options.append(shape[:dim % len(shape)] + index_shape + shape[dim % len(shape) + 1:])
        t_shape = data.draw(st.sampled_from(options), label=f"{name} shape")
    if name in ("condition", "mask"):
        dt = "bool" if data.draw(st.integers(0, 7), label=f"{name} bool") else "uint8"
    elif ctx["same_dtype"]:
        dt = ctx["dtype"]
    else:
        dt = data.draw(dtype_st(ctx["dtypes"]), label=f"{name} dtype")
    # `Tensor n`, the degree of special_*_polynomial_*: torch's recurrence loops n times
    # (n = 1e10 takes it 80 s), so small degrees (and the float specials: nan, inf, 1e4)
    bounds = {"low": -50, "high": 51} if name == "n" else {}
    return _layouts(data, t_shape, dt, **bounds)


def draw_index(data, shape, name, dim=None):
    """Indices into dim `dim` of a tensor of `shape` (into the flattened tensor when `dim`
    is None): 1-d or of the same rank (sides at most shape's), values mostly in range
    (negative ones too), int64 mostly, sometimes int32 or (wrongly) float32."""
    ndim = len(shape)
    if data.draw(st.booleans(), label=f"{name} same rank") and ndim:
        ishape = tuple(data.draw(st.integers(0, max(n, 0)), label=f"{name} side") for n in shape)
    else:
        ishape = (data.draw(st.integers(0, 5), label=f"{name} length"),)
    in_range = isinstance(dim, int) and -ndim <= dim < ndim
    bound = max(shape[dim] if in_range else int(np.prod(shape)), 1)
    dt = data.draw(st.sampled_from(["int64", "int64", "int64", "int32", "float32"]),
                   label=f"{name} dtype")
    return _layouts(data, ishape, dt, low=-bound, high=bound)


def draw_tensor_list(data, t, ctx):
    """1 to 3 tensors: Tensor?[] indices get index tensors and Nones; Tensor[] gets tensors
    of the main shape, sometimes with another size along one dim."""
    shape = ctx["shape"]
    if isinstance(t.elem, OptionalType):  # index.Tensor's indices
        n = data.draw(st.integers(1, max(len(shape), 1) + 1), label="n indices")
        out = []
        for _ in range(n):
            kind = data.draw(st.sampled_from(["index", "index", "none", "mask"]))
            if kind == "none":
                out.append(None)
            elif kind == "mask":
                out.append(TensorArg(draw_array(data, shape[:1], "bool")))
            else:
                out.append(draw_index(data, shape, "indices", len(out)))
        return out
    n = data.draw(st.integers(1, 3), label="n tensors")
    out = []
    for _ in range(n):
        s = list(shape)
        if s and data.draw(st.booleans(), label="vary a dim"):
            d = ctx.setdefault("dim", data.draw(st.integers(0, len(s) - 1), label="cat dim"))
            s[d] = data.draw(st.integers(0, 3))
        dt = ctx["dtype"] if data.draw(st.integers(0, 3)) else data.draw(dtype_st(ctx["dtypes"]))
        out.append(_layouts(data, s, dt))
    return out


# --------------------------------------------------------------------------- running
def call(fn, args, kwargs):
    """(result, None) or (None, the exception)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001  (the exception is what the fuzzer compares)
        return None, e


def aten(ops, spec: OpSpec):
    return getattr(getattr(ops, spec.fn.op_name), spec.fn.overload)


class Mismatch(AssertionError):
    """ember and torch disagree on one case."""


def short(x) -> str:
    """A one-line summary of a result or exception."""
    if isinstance(x, BaseException):
        return f"{type(x).__name__}: {str(x).splitlines()[0][:160] if str(x) else ''}"
    if isinstance(x, (list, tuple)):
        return "(" + ", ".join(map(short, x)) + ")"
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        vals = np.array2string(to_np(x), separator=",", threshold=12, max_line_width=10**6)
        vals = re.sub(r"\s*\n\s*", " ", vals)
        return f"{vals} {dtype_name(x.dtype)} {tuple(x.shape)} stride={x.stride()}"
    return repr(x)


# ops whose torch formula (Cephes' psi: result + log(x) - 0.5 / x - y after pushing x past
# 10, a reflection for x < 0) sums terms of order 1 that cancel near the function's zeros:
# torch's digamma(1.4616321884772354) = 4.210232818e-08 is 1.7e7 ulps off (ember's scipy
# value 4882; both within 1.3 eps of the terms), and its last bit differs from scipy's in a
# third of float64 inputs: their values are compared to 1, as reductions' (not torch's bits:
# they depend on its libm's log and tan, and are the less accurate ones)
CANCELLING = ("digamma", "digamma_", "polygamma", "polygamma_")


def finite_parts(actual: np.ndarray, ref: np.ndarray, what: str):
    """Complex arrays as (real, imag) pairs with their non-finite elements zeroed, once
    ember's and torch's non-finite elements are checked to be the same ones (C++'s and
    NumPy's complex products differ where a part is infinite or NaN: inf * (1 + 0j) is
    inf + nanj in one, inf + 0j in the other); real arrays as they are."""
    if ref.dtype.kind != "c":
        return actual, ref
    bad_e, bad_t = ~np.isfinite(actual), ~np.isfinite(ref)
    np.testing.assert_array_equal(bad_e, bad_t, err_msg=f"{what} non-finite elements")
    return real_pairs(np.where(bad_t, 0, actual)), real_pairs(np.where(bad_t, 0, ref))


def _compare(e, t, spec: OpSpec, what: str):
    import torch
    if not isinstance(t, torch.Tensor):
        assert e == t, f"{what}: ember {e!r} torch {t!r}"
        return
    assert isinstance(e, ember.Tensor), f"{what}: ember returned {type(e).__name__}"
    assert tuple(e.shape) == tuple(t.shape), f"{what} shape"
    assert dtype_name(e.dtype) == dtype_name(t.dtype), f"{what} dtype"
    if t.numel():
        if spec.schema.is_view():
            assert e.stride() == t.stride(), f"{what} strides"
            assert e.storage_offset() == t.storage_offset(), f"{what} storage offset"
        else:
            sig = [(n, s) for n, s in zip(t.shape, t.stride()) if n > 1]
            assert [(n, s) for n, s in zip(e.shape, e.stride()) if n > 1] == sig, \
                f"{what} strides (of dims > 1)"
    name = COMPLEX.get(dtype_name(t.dtype), dtype_name(t.dtype))
    if name in FLOATS:
        # reductions of values of order 1 may cancel: their error is relative to 1
        ulps, floor = (ACCUMULATING_ULPS[name], 1.0) if spec.reduction else \
            (ULPS[name], 1.0) if spec.fn.op_name in CANCELLING else (ULPS[name], None)
        actual, ref = finite_parts(to_np(e), to_np(t), what)
        assert_close_ulps(actual, ref, name, ulps, floor, err_msg=f"{what} values")
    else:
        np.testing.assert_array_equal(to_np(e), to_np(t), err_msg=f"{what} values")


def compare(e, t, spec: OpSpec, what="result"):
    if isinstance(t, (list, tuple)):
        assert isinstance(e, (list, tuple)) and len(e) == len(t), f"{what}: {len(t)} results"
        for i, (x, y) in enumerate(zip(e, t)):
            compare(x, y, spec, f"{what}[{i}]")     # (nested: histogramdd's edges list)
    else:
        _compare(e, t, spec, what)


# torch leaves the order of equal elements unspecified here (unless stable=True; mode
# and kthvalue pick an index from an unstable std::sort / nth_element): compare the
# elements the indices select, not the indices
UNORDERED_TIES = ("sort", "argsort", "topk", "mode", "kthvalue")


def _selected(e_res, t_res, spec: OpSpec, case: Case, t_self):
    """The results with each int64 index tensor replaced by the elements of self it selects
    along `dim` (ember's indices are applied to torch's self)."""
    import torch
    names = [a.name for a in spec.schema.arguments.positional]
    dim = case.kwargs.get("dim", case.args[names.index("dim")] if "dim" in names and
                          names.index("dim") < len(case.args) else -1)
    if t_self.dim() == 0:
        return e_res, t_res

    def select(e, t):
        if t.dtype != torch.int64:
            return e, t
        assert (tuple(e.shape), e.dtype.name) == (tuple(t.shape), "int64"), "indices"
        index = torch.from_numpy(np.array(e.numpy()))
        reduced = t.dim() < t_self.dim()      # mode/kthvalue without keepdim
        d = dim % t_self.dim()
        if reduced:
            index, t = index.unsqueeze(d), t.unsqueeze(d)
        e_sel, t_sel = (torch.take_along_dim(t_self, i, d) for i in (index, t))
        if reduced:
            e_sel, t_sel = e_sel.squeeze(d), t_sel.squeeze(d)
        return from_torch(e_sel), t_sel
    if isinstance(t_res, (list, tuple)):
        return map(list, zip(*(select(e, t) for e, t in zip(e_res, t_res))))
    return select(e_res, t_res)


def reject_if(condition: bool):
    """Drop a case torch itself gets wrong (e.g. expand to [0, -1] gives a size of -1)."""
    if condition:
        _reject()


# torch's median/nanmedian along a dim read uninitialized memory for a stride-0 (expanded)
# self: median([9, 9, 9] expanded, 0) gives 0 or 28 (a torch bug, not a rule to follow)
EXPANDED_GARBAGE = ("median.dim", "nanmedian.dim")


# torch's vectorized gcd/lcm kill the process (SIGFPE, an integer division trap) on some
# inputs holding the integer dtype's minimum, e.g. lcm_(int64 [-1, min, ...], min), and so
# does its integer division with a rounding mode, div(int64 [min], [-1], rounding_mode=
# "trunc") (min / -1 overflows; the out= fuzzer's draws met it): no oracle
INT_MIN_TRAPS = ("gcd", "gcd_", "lcm", "lcm_", "div", "div_", "divide", "divide_")


# torch's CPU mode sorts each row with std::sort and operator<, which NaN breaks (not a
# strict weak order): where the NaNs land, and so which tied value wins, is unspecified
NAN_SORTED = ("mode",)


# as_strided_scatter through a self-overlapping view writes one element several times: which
# src value lands there is the kernel's order, unspecified (torch's docs: undefined behaviour)
OVERLAPPING_WRITES = ("as_strided_scatter",)


def _self_overlapping(size, stride) -> bool:
    """Whether the view (size, stride) reaches some element twice."""
    extent = 1
    for n, step in sorted(((n, abs(s)) for n, s in zip(size, stride) if n > 1),
                          key=lambda d: d[1]):
        if step < extent:
            return True
        extent = step * (n - 1) + extent
    return False


def _has_nan(args) -> bool:
    return any((t.dtype.is_floating_point or t.dtype.is_complex) and t.numel()
               and bool(t.isnan().any()) for t in _tensors(args))


# C++ leaves the conversion of an infinite or NaN float to an integer undefined, and torch's
# answer depends on the code path: nansum(float16 [1, -inf], dtype=uint8) reads -inf as
# -65504 (33), sum as 0 (1), .to(uint8) as 0. Cases that convert non-finite floats to an
# integral `dtype=` are dropped (ember's conversion is NumPy's, also undefined)
INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")


def _nonfinite_to_integral(case: Case, args) -> bool:
    dtypes = [v for v in [*case.args, *case.kwargs.values()] if isinstance(v, DType)]
    return any(d.name in INTEGRAL for d in dtypes) and any(
        t.dtype.is_floating_point and t.numel() and not bool(t.isfinite().all())
        for t in _tensors(args))



def _complex_number(case: Case) -> bool:
    return any(isinstance(v, complex) for v in [*case.args, *case.kwargs.values()])


# a float16 tensor with a complex number computes in complex32 (torch's ComplexHalf), which
# ember does not have: it raises NotImplementedError (torch's type for the ComplexHalf
# kernels it lacks too), where torch's add, mul, eq, ... answer. Such cases are dropped
# when torch answers
def _complex32(case: Case, t_args, t_exc) -> bool:
    import torch
    return t_exc is None and _complex_number(case) and any(
        t.dtype == torch.float16 for t in _tensors(t_args))


def _has_int_min(args) -> bool:
    import torch
    return any(not t.dtype.is_floating_point and not t.dtype.is_complex
               and t.dtype != torch.bool and t.numel()
               and bool((t == torch.iinfo(t.dtype).min).any()) for t in _tensors(args))


def _expanded(t) -> bool:
    return any(s == 0 and n > 1 for n, s in zip(t.shape, t.stride()))


def _tensors(res) -> list:
    import torch
    res = res if isinstance(res, (list, tuple)) else [res]
    return [r for r in res if isinstance(r, torch.Tensor)]


# corrcoef of a row of equal values divides its covariance by its variance: both rounding
# errors of the mean (0/0 = NaN, or noise), differently rounded in torch and ember: dropped
ROUNDING_QUOTIENTS = ("corrcoef",)


def constant_row(spec: OpSpec, t_args) -> bool:
    """A ROUNDING_QUOTIENTS op whose self holds a row of two or more equal values."""
    x = t_args[0] if spec.fn.op_name in ROUNDING_QUOTIENTS and t_args else None
    if x is None or x.dim() not in (1, 2) or x.shape[-1] < 2:
        return False
    rows = x.detach().reshape(-1, x.shape[-1])
    return bool((rows == rows[:, :1]).all(1).any())


def _reject_inputs(spec: OpSpec, case: Case, t_args):
    """Drop a case whose inputs torch has no oracle for (see the tables above)."""
    reject_if(constant_row(spec, t_args)
              or spec.fn.op_name in INT_MIN_TRAPS and _has_int_min(t_args)
              or spec.fn.op_name in NAN_SORTED and _has_nan(t_args)
              or spec.fn.op_name in OVERLAPPING_WRITES and _self_overlapping(t_args[2], t_args[3])
              or _nonfinite_to_integral(case, t_args))


def _reject_torch_bugs(spec: OpSpec, case: Case, t_args, t_res, t_exc):
    """torch's own bugs: expand to [0, -1] gives a size of -1; internal asserts; ..."""
    reject_if(any(min(r.shape, default=0) < 0 for r in _tensors(t_res))
              or _complex32(case, t_args, t_exc)
              or "INTERNAL ASSERT FAILED" in str(t_exc)
              or spec.name in EXPANDED_GARBAGE and _expanded(t_args[0]))


def run_case(spec: OpSpec, case: Case):
    """Call ember and torch on `case` and compare: errors (same builtin type), results
    (shape, dtype, strides, values) and, for in-place ops, the mutated self."""
    import torch
    t_args, t_kwargs = materialize(case.args, "torch"), materialize(case.kwargs, "torch")
    e_args, e_kwargs = materialize(case.args, "ember"), materialize(case.kwargs, "ember")
    _reject_inputs(spec, case, t_args)
    t_res, t_exc = call(aten(torch.ops.aten, spec), t_args, t_kwargs)
    _reject_torch_bugs(spec, case, t_args, t_res, t_exc)
    e_res, e_exc = call(aten(ember.ops.aten, spec), e_args, e_kwargs)
    head = f"aten.{spec.name}({case!r})"
    if t_exc is not None or e_exc is not None:
        # ember may raise a subclass of torch's builtin type (NotImplementedError for
        # RuntimeError): `except RuntimeError` catches both
        same = (t_exc is not None and e_exc is not None
                and isinstance(e_exc, builtin_type(type(t_exc))))
        if not same:
            raise Mismatch(f"{head}\n  ember: {short(e_exc if e_exc else e_res)}"
                           f"\n  torch: {short(t_exc if t_exc else t_res)}")
        return
    try:
        if spec.fn.op_name in UNORDERED_TIES and not case.kwargs.get("stable"):
            e_res, t_res = _selected(e_res, t_res, spec, case, t_args[0])
        compare(e_res, t_res, spec)
        if spec.kind == "inplace":
            assert e_res is e_args[0], "an in-place op must return self"
            compare(e_args[0], t_args[0], spec, "self after the call")
    except AssertionError as err:
        first = str(err).strip().splitlines()[0]
        raise Mismatch(f"{head}\n  {first}\n  ember: {short(e_res)}\n  torch: {short(t_res)}") \
            from None


# --------------------------------------------------------------------------- out= variants
# The out= overloads of the fuzzed functional ones (test_out_variants.py): the functional
# overload's arguments, and for each out= argument a tensor drawn from torch's result: of
# its shape and dtype (contiguous or transposed), empty (resized), of another non-empty
# shape (resized with torch's "An output with one or more elements was resized" warning)
# or of another dtype (cast, or refused).
OUT_KINDS = ("fits", "transposed", "empty", "other shape", "other dtype")


def _signature(spec: OpSpec) -> tuple:
    return tuple((a.name, str(a.type)) for a in spec.schema.arguments.flat_non_out())


def load_out_ops() -> dict[str, tuple[OpSpec, OpSpec]]:
    """'add.out' -> (its OpSpec, the OpSpec of the fuzzed functional overload with its
    arguments)."""
    functional = {(s.fn.op_name, _signature(s)): s for s in FUZZ_OPS.values()
                  if s.kind == "functional"}
    pairs = ((s, functional.get((s.fn.op_name, _signature(s))))
             for s in SCOPE.values() if s.kind == "out")
    return {s.name: (s, f) for s, f in sorted(pairs, key=lambda p: p[0].name) if f is not None}


OUT_OPS = load_out_ops()


# Two gaps between ember's out= handling and torch's, each across many ops, known by cause
# (a case showing one is reported as an OutGap, which test_out_variants.py xfails):
OUT_GAPS = {
    "exact dtype": "torch's out= of many ops takes only the result's dtype (its generated "
                   "out= wrappers' copy_arg: 'Expected out tensor to have dtype float, but got "
                   "double instead'; TensorIterator ops built with check_all_same_dtype: 'Found "
                   "dtype Float but expected Half'; amax, take, histc, signbit, ...: their own "
                   "checks); ember casts the result into any dtype it can be cast to",
    "resized strides": "a resized out= (empty, or of another shape) of a TensorIterator op "
                       "takes the result's layout in torch (a permuted input's strides), "
                       "ember's copy_to_out resizes it contiguously (only the schema's "
                       "out_strides: result keeps the result's strides)",
}


class OutGap(Mismatch):
    """A mismatch of one of the OUT_GAPS causes (`cause`)."""

    def __init__(self, cause: str, text: str):
        super().__init__(text)
        self.cause = cause


def draw_out(data, result, name: str) -> tuple[TensorArg, str]:
    """An out= tensor for torch's `result` (a tensor, or None when torch raised: then any
    small tensor), of one of the OUT_KINDS, and the kind."""
    if result is None:
        return TensorArg(np.zeros((0,), np.float32)), "empty"
    shape, dt = tuple(result.shape), dtype_name(result.dtype)
    kind = data.draw(st.sampled_from(OUT_KINDS), label=f"{name} kind")
    if kind == "transposed" and len(shape) > 1:
        perm = list(range(len(shape)))[::-1]
        return TensorArg(np.zeros(shape[::-1], np_dtype(dt)), (("permute", perm),)), kind
    if kind == "empty":
        shape = (0,)
    elif kind == "other shape":
        shape = data.draw(st.sampled_from([(int(np.prod(shape)) + 1,), shape + (2,), (2, 3)]),
                          label=f"{name} shape")
    elif kind == "other dtype":
        dt = data.draw(dtype_st(), label=f"{name} dtype")
    return TensorArg(np.zeros(shape, np_dtype(dt))), kind


RESIZED = "An output with one or more elements was resized"


def call_warned(fn, args, kwargs):
    """(result, exception, whether the call warned that a non-empty output was resized)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res, exc = fn(*args, **kwargs), None
        except Exception as e:  # noqa: BLE001  (the exception is what the fuzzer compares)
            res, exc = None, e
    return res, exc, any(RESIZED in str(w.message) for w in caught)


def run_out_case(data, out_spec: OpSpec, spec: OpSpec, case: Case):
    """The out= overload `out_spec` on ember and torch with the arguments of `case` (drawn for
    its functional `spec`) and out= tensors drawn from torch's functional result: the same
    error type, or the same resize warning and returned out tensors (shape, dtype, strides,
    values)."""
    import torch
    t_args, t_kwargs = materialize(case.args, "torch"), materialize(case.kwargs, "torch")
    _reject_inputs(spec, case, t_args)
    t_res, t_exc = call(aten(torch.ops.aten, spec), t_args, t_kwargs)
    _reject_torch_bugs(spec, case, t_args, t_res, t_exc)
    names = [a.name for a in out_spec.schema.arguments.out]
    results = _tensors(t_res) if t_exc is None else [None] * len(names)
    reject_if(len(results) != len(names))
    drawn = {n: draw_out(data, r, n) for n, r in zip(names, results)}
    kinds = {kind for _, kind in drawn.values()}
    case = Case(case.args, {**case.kwargs, **{n: arg for n, (arg, _) in drawn.items()}})
    t_args, t_kwargs = materialize(case.args, "torch"), materialize(case.kwargs, "torch")
    e_args, e_kwargs = materialize(case.args, "ember"), materialize(case.kwargs, "ember")
    shapes_before = {n: tuple(t_kwargs[n].shape) for n in names}
    t_res, t_exc, _ = call_warned(aten(torch.ops.aten, out_spec), t_args, t_kwargs)
    reject_if("INTERNAL ASSERT FAILED" in str(t_exc))
    e_res, e_exc, e_warned = call_warned(aten(ember.ops.aten, out_spec), e_args, e_kwargs)
    head = f"aten.{out_spec.name}({case!r})"
    if t_exc is not None or e_exc is not None:
        if not (t_exc is not None and e_exc is not None
                and isinstance(e_exc, builtin_type(type(t_exc)))):
            text = (f"{head}\n  ember: {short(e_exc if e_exc else e_res)}"
                    f"\n  torch: {short(t_exc if t_exc else t_res)}")
            if e_exc is None and isinstance(t_exc, RuntimeError) and "other dtype" in kinds:
                raise OutGap("exact dtype", text)
            raise Mismatch(text)
        return
    # (torch passes its warning to Python once, then logs it to stderr: its rule instead,
    # resize_output_check's: an out with elements and another shape warns)
    t_warned = any(math.prod(shapes_before[n]) and shapes_before[n] != tuple(t_kwargs[n].shape)
                   for n in names)
    try:
        assert e_warned == t_warned, f"resize warning: ember {e_warned}, torch's rule {t_warned}"
        e_outs, t_outs = [e_kwargs[n] for n in names], [t_kwargs[n] for n in names]
        returned = e_res if isinstance(e_res, (list, tuple)) else [e_res]
        assert all(r is o for r, o in zip(returned, e_outs)), "out= ops must return out"
        for n, e, t in zip(names, e_outs, t_outs):
            compare(e, t, out_spec, n)
            if t.numel():
                assert e.stride() == t.stride(), f"{n} strides {e.stride()} {t.stride()}"
    except AssertionError as err:
        first = str(err).strip().splitlines()[0]
        text = f"{head}\n  {first}\n  ember: {short(e_res)}\n  torch: {short(t_res)}"
        if "strides" in first and kinds & {"empty", "other shape"}:
            raise OutGap("resized strides", text) from None
        raise Mismatch(text) from None
