"""Samples for the shape op family (issue 4), registered into `opinfo.OPS`.

opinfo.py imports this module at its end; `grad_extra()` adds gradient samples to
tests/autograd/grad_samples.py's EXTRA (called with opinfo's random generator seeded).
"""
from __future__ import annotations

import numpy as np
import opinfo
from helpers import ACCUMULATING_ULPS, EXACT
from opinfo import (
    ALL,
    BF16,
    BOOL,
    F16,
    F32,
    F64,
    I32,
    I64,
    NUMERIC,
    U8,
    S,
    View,
    dtname,
    expanded,
    make,
    offset,
    out_of,
    own_rng,
    strided,
    transposed,
)


def register(name, samples, **flags):
    """opinfo.register, comparing float values exactly: the family moves data, it does not
    compute (the ops that add up values pass ACCUMULATING_ULPS)."""
    opinfo.register(name, samples, **{"tols": EXACT, **flags})


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    ties = np.array([[1.0, 2.0, 1.0, 0.0], [3.0, 3.0, -1.0, 3.0]], np.float32)
    rep = np.array([[0, 1, 0, 2], [2, 1, 0, 0]], np.int64)
    self_zero = make((3, 4), F32, low=0.5, high=2)
    self_zero[1, 2] = 0
    src_zero = make((2, 4), F32, low=0.5, high=2)
    src_zero[0, 1] = 0
    tview = View(make((4, 3), F32), "transpose.int", (0, 1))
    i24 = _perm_index(3, (2, 4), 0, 5)
    out = {
        "sort.default": [S(ties, 1, True, name="nonsmooth_ties")],
        "sort.stable": [S(ties, stable=True, dim=0, name="nonsmooth_ties")],
        "scatter_reduce.two": [
            S(ties[:, :4].repeat(2, 0)[:3], 0, rep, ties, "amax", name="nonsmooth_amax_ties"),
            S(self_zero, 0, rep, src_zero, "prod", name="prod_with_zeros"),
            S(self_zero, 0, rep, src_zero, "prod", include_self=False,
              name="prod_with_zeros_exclude_self")],
        "scatter_reduce_.two": [S(tview, 0, rep, make((2, 4), F32), "mean",
                                  name="mean_transposed_view")],
        "scatter_.src": [S(tview, 0, i24, make((2, 4), F32), name="transposed_view")],
        "scatter_.value": [S(tview, 0, i24, 2.5, name="transposed_view")],
        "scatter_add_.default": [S(tview, 1, rep[:, :2].copy(), make((2, 2), F32),
                                   name="transposed_view")],
        "tril_.default": [S(tview, -1, name="transposed_view")],
        "triu_.default": [S(tview, 1, name="transposed_view")],
        "index_select.default": [S(make((2, 3, 2), F64), 1, _idx(2, 2, 0, 1),
                                   name="repeated_3d")],
        "masked_select.default": [S(make((2, 1, 3), F32), make((4, 1), BOOL),
                                    name="broadcast_both")],
        "repeat.default": [S(make((2, 1), F32), [1, 3, 2], name="leading_and_inner")],
        "topk.default": [S(_distinct((2, 5), F64, seed=4), 3, 1, False, name="smallest_3")],
    }
    return out


# ---------------------------------------------------------------- helpers
def _idx(*values):
    return np.array(values, np.int64)


def _perm_index(n, shape, dim, seed=0):
    """An int64 index of `shape` whose entries along `dim` are distinct values in [0, n)
    (scatter without repeated targets, whose result torch leaves unspecified)."""
    rng = np.random.default_rng(seed)
    full = list(shape)
    full[dim] = n
    keys = rng.random(full)
    perm = np.argsort(keys, axis=dim)
    return np.take(perm, np.arange(shape[dim]), axis=dim).astype(np.int64)


def _distinct(shape, dtype=F32, seed=0):
    """Values without ties (sort/topk indices are then unique)."""
    n = int(np.prod(shape)) if shape else 1
    vals = np.random.default_rng(seed).permutation(n).reshape(shape)
    if np.dtype(dtype).kind == "f" or np.dtype(dtype) == BF16:
        vals = vals - n / 2 + 0.25
    return np.asarray(vals).astype(dtype)


SORTABLE = tuple(dt for dt in ALL if dt != BOOL)


# ---------------------------------------------------------------- repeat, tile, flip, roll
def _repeat_samples():
    out = [S(make((2, 3), dt), [2, 1], name=dtname(dt)) for dt in ALL]
    out += [S(make((), F32), [2, 3], name="0d"),
            S(make((0, 3), F32), [2, 2], name="empty"),
            S(make((2, 3), F32), [2, 1, 3], name="new_leading_dims"),
            S(transposed((3, 4), F32), [1, 2], name="transposed"),
            S(expanded((3, 4), F32), [2, 1], name="expanded"),
            S(make((2, 3), F32), [0, 2], name="zero_repeat"),
            S(make((2, 3), F32), [2], name="too_few_repeats_error"),
            S(make((2, 3), F32), [-1, 2], name="negative_error")]
    return out


register("repeat.default", _repeat_samples)
out_of("repeat.out", "repeat.default")
register("tile.default", lambda: [
    S(make((2, 3), F32), [2], name="fewer_dims"),
    S(make((2, 3), I64), [2, 1, 2], name="more_dims"),
    S(make((2, 3), F32), [2, 2], name="same_dims"),
    S(make((), F32), [3], name="0d"),
    S(transposed((3, 4), F64), [1, 2], name="transposed")])


def _flip_samples():
    out = [S(make((3, 4), dt), [0], name=dtname(dt)) for dt in ALL]
    out += [S(make((2, 3, 4), F32), [0, 2], name="two_dims"),
            S(make((3, 4), F32), [-1], name="negative_dim"),
            S(make((3, 4), F32), [], name="no_dims"),
            S(make((), F32), [0], name="0d"),
            S(make((0, 3), F32), [1], name="empty"),
            S(transposed((3, 4), F32), [0], name="transposed"),
            S(expanded((3, 4), F32), [1], name="expanded"),
            S(strided((3, 4), F64), [0, 1], name="strided"),
            S(make((3, 4), F32), [0, 0], name="repeated_dim_error"),
            S(make((3, 4), F32), [2], name="dim_out_of_range_error")]
    return out


register("flip.default", _flip_samples)
out_of("flip.out", "flip.default")


def _roll_samples():
    out = [S(make((3, 4), dt), [1], [0], name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 4), F32), [5], name="flattened"),
            S(make((3, 4), F32), [1, -2], [0, 1], name="two_dims"),
            S(make((3, 4), F32), [-7], [-1], name="negative_dim_big_shift"),
            S(make((), F32), [1], name="0d"),
            S(make((0, 3), F32), [1], [1], name="empty"),
            S(transposed((3, 4), F32), [1], [1], name="transposed"),
            S(expanded((3, 4), F32), [1], [0], name="expanded"),
            S(make((3, 4), F32), [1, 2], [0], name="misaligned_error"),
            S(make((3, 4), F32), [1, 2], name="shifts_without_dims_error"),
            S(make((), F32, rng=own_rng()), [1], [0], name="0d_dim_error"),
            S(make((), F32, rng=own_rng()), [1, 2], [0, -1], name="0d_dims_error")]
    return out


register("roll.default", _roll_samples)
out_of("roll.out", "roll.default")


# ---------------------------------------------------------------- tril / triu
def _tri_samples(inplace=False):
    def samples():
        out = [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL]
        out += [S(make((3, 4), F32), 1, name="diagonal_1"),
                S(make((4, 3), F32), -1, name="diagonal_minus_1"),
                S(make((3, 4), F32), 7, name="diagonal_past_end"),
                S(make((2, 3, 4), F64), name="batched"),
                S(make((0, 3), F32), name="empty"),
                S(transposed((3, 4), F32), 1, name="transposed"),
                S(strided((3, 4), F32), name="strided"),
                S(make((4,), F32), name="1d_error")]
        if not inplace:
            out.append(S(expanded((3, 4), F32), name="expanded"))
        return out
    return samples


for _op in ("tril", "triu"):
    register(f"{_op}.default", _tri_samples())
    out_of(f"{_op}.out", f"{_op}.default")
    register(f"{_op}_.default", _tri_samples(inplace=True))


# ---------------------------------------------------------------- index_select, gather
def _index_select_samples():
    out = [S(make((3, 4), dt), 1, _idx(2, 0, 2), name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 4), F32), 0, np.array([2, 0], np.int32), name="int32_index"),
            S(make((3, 4), F32), -1, _idx(3), name="negative_dim"),
            S(make((3, 4), F32), 1, np.array(1, np.int64), name="0d_index"),
            S(make((), F32), 0, _idx(0), name="0d_self"),
            S(make((), F32), 0, _idx(0, 0), name="0d_self_two_indices_error"),
            S(make((), F32), 0, _idx(1), name="0d_self_out_of_range_error"),
            S(make((3, 4), F32), 0, _idx(), name="empty_index"),
            S(transposed((3, 4), F32), 1, _idx(1, 3), name="transposed"),
            S(expanded((3, 4), F64), 0, _idx(1, 1), name="expanded"),
            S(make((3, 4), F32), 0, np.array([[0]], np.int64), name="2d_index_error"),
            S(make((3, 4), F32), 0, np.array([0.0], np.float32), name="float_index_error"),
            S(make((3, 4), F32), 0, _idx(3), name="out_of_range_error"),
            S(make((3, 4), F32), 0, _idx(-1), name="negative_index_error")]
    return out


register("index_select.default", _index_select_samples)
out_of("index_select.out", "index_select.default")


def _gather_samples():
    i24 = make((2, 4), I64, low=0, high=3)
    out = [S(make((3, 4), dt), 0, i24, name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 4), F32), 1, make((3, 2), I64, low=0, high=4), name="dim_1"),
            S(make((3, 4), F32), 0, make((2, 2), I64, low=0, high=3), name="smaller_index"),
            S(make((3, 4), F32), -1, make((3, 5), I64, low=0, high=4), name="negative_dim_repeats"),
            S(make((3, 4), F32), 0, np.array([[0, 2]], np.int32), name="int32_index"),
            S(make((), F32), 0, np.array(0, np.int64), name="0d"),
            S(make((3, 4), F32), 0, np.zeros((0, 4), np.int64), name="empty_index"),
            S(transposed((3, 4), F32), 1, make((3, 2), I64, low=0, high=4), name="transposed"),
            S(make((3, 4), F32), 0, View(make((4, 2), I64, low=0, high=3), "transpose.int",
                                         (0, 1)), name="transposed_index"),
            S(make((3, 4), I64), 0, i24, sparse_grad=True, name="sparse_grad"),
            S(make((3, 4), F32), 0, _idx(0, 1), name="rank_mismatch_error"),
            S(make((3, 4), F32), 0, np.zeros((2, 5), np.int64), name="size_mismatch_error"),
            S(make((3, 4), F32), 0, np.full((1, 4), 3, np.int64), name="out_of_range_error")]
    return out


register("gather.default", _gather_samples)
out_of("gather.out", "gather.default")


# ---------------------------------------------------------------- scatter family
def _scatter_src_samples():
    i = _perm_index(3, (2, 4), 0)
    out = [S(make((3, 4), dt), 0, i, make((2, 4), dt), name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 4), F32), 1, _perm_index(4, (3, 2), 1, 1), make((3, 2), F32),
              name="dim_1"),
            S(make((3, 4), F32), -2, i, make((2, 4), F32), name="negative_dim"),
            S(make((3, 4), I64), 0, _perm_index(3, (2, 2), 0, 2), make((3, 5), I64),
              name="src_larger"),
            S(make((3, 4), F32), 0, np.array([[0, 2, 1, 0]], np.int32), make((1, 4), F32),
              name="int32_index"),
            S(make((), F32), 0, np.array(0, np.int64), make((), F32), name="0d"),
            S(make((3, 4), F32), 0, np.zeros((0, 4), np.int64), make((0, 4), F32),
              name="empty_index"),
            S(transposed((3, 4), F32), 0, i, make((2, 4), F32), name="transposed"),
            S(make((3, 4), F32), 0, i, make((2, 4), F64), name="dtype_mismatch_error"),
            S(make((3, 4), F32), 0, np.full((1, 4), 3, np.int64), make((1, 4), F32),
              name="out_of_range_error"),
            S(make((3, 4), F32), 0, np.zeros((2, 5), np.int64), make((2, 5), F32),
              name="size_mismatch_error")]
    return out


def _scatter_value_samples():
    i = _perm_index(3, (2, 4), 0)
    out = [S(make((3, 4), dt), 0, i, v, name=f"{dtname(dt)}_{type(v).__name__}")
           for dt in ALL for v in (2, 1.5)]
    out += [S(make((3, 4), F32), 1, _perm_index(4, (3, 2), 1, 1), True, name="dim_1_bool"),
            S(make((), F32), 0, np.array(0, np.int64), 3.0, name="0d"),
            S(transposed((3, 4), F32), -1, _perm_index(4, (3, 2), 1, 3), 0.5, name="transposed"),
            S(make((3, 4), F32), 0, np.full((1, 4), -1, np.int64), 1.0, name="negative_index_error")]
    return out


def _with_reduce(samples, reduce_values=("add", "multiply")):
    def fn():
        out = []
        for s in samples():
            for r in reduce_values:
                out.append(S(*s.args, **s.kwargs, reduce=r, name=f"{s.name}_{r}"))
        base = samples()[0]
        out.append(S(*base.args, reduce="mean", name="bad_reduce_error"))
        return out
    return fn


def _scatter_reduce_src_samples():
    out = _scatter_src_samples()
    out.append(S(make((3, 4), F32), 0, make((3, 4), I64, low=0, high=3), make((3, 4), F32),
                 name="repeated_targets"))
    return out


def _scatter_value_reduce_samples():
    out = _scatter_value_samples()
    out.append(S(make((3, 4), F32), 0, make((3, 4), I64, low=0, high=3), 1.5,
                 name="repeated_targets"))
    return out


register("scatter.src", _scatter_src_samples)
register("scatter.value", _scatter_value_samples)
register("scatter.reduce", _with_reduce(_scatter_reduce_src_samples), tols=ACCUMULATING_ULPS)
register("scatter.value_reduce", _with_reduce(_scatter_value_reduce_samples), tols=ACCUMULATING_ULPS)
register("scatter_.src", _scatter_src_samples)
register("scatter_.value", _scatter_value_samples)
register("scatter_.reduce", _with_reduce(_scatter_reduce_src_samples), tols=ACCUMULATING_ULPS)
register("scatter_.value_reduce", _with_reduce(_scatter_value_reduce_samples), tols=ACCUMULATING_ULPS)
out_of("scatter.src_out", "scatter.src")
out_of("scatter.value_out", "scatter.value")
out_of("scatter.reduce_out", "scatter.reduce")
out_of("scatter.value_reduce_out", "scatter.value_reduce")


def _scatter_add_samples():
    return _scatter_reduce_src_samples()


register("scatter_add.default", _scatter_add_samples, tols=ACCUMULATING_ULPS)
register("scatter_add_.default", _scatter_add_samples, tols=ACCUMULATING_ULPS)
out_of("scatter_add.out", "scatter_add.default")

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _scatter_reduce_two_samples():
    rep = make((3, 4), I64, low=0, high=3)
    out = []
    for r in _REDUCTIONS:
        for inc in (True, False):
            out.append(S(make((3, 4), F32), 0, rep, make((3, 4), F32), r, include_self=inc,
                         name=f"{r}_include_self_{inc}"))
        out.append(S(make((3, 4), I64), 1, make((3, 2), I64, low=0, high=4), make((3, 2), I64),
                     r, include_self=False, name=f"{r}_int64"))
    out += [S(make((3, 4), F16), 0, rep, make((3, 4), F16), "sum", name="float16_sum"),
            S(make((3, 4), I32), 0, rep, make((3, 4), I32), "max", name="legacy_max"),
            S(make((3, 4), F32), 0, rep, make((3, 4), F32), "foo", name="bad_reduce_error")]
    return out


register("scatter_reduce.two", _scatter_reduce_two_samples, tols=ACCUMULATING_ULPS)
register("scatter_reduce_.two", _scatter_reduce_two_samples, tols=ACCUMULATING_ULPS)
out_of("scatter_reduce.two_out", "scatter_reduce.two")


# ---------------------------------------------------------------- data-dependent shapes
def _masked_select_samples():
    out = [S(make((3, 4), dt), make((3, 4), BOOL), name=dtname(dt), data_dependent=True)
           for dt in ALL]
    out += [S(make((3, 4), F32), make((4,), BOOL), name="broadcast_mask", data_dependent=True),
            S(make((4,), F32), make((3, 4), BOOL), name="broadcast_self", data_dependent=True),
            S(make((), F32), np.array(True), name="0d", data_dependent=True),
            S(make((0, 4), F32), make((4,), BOOL), name="empty", data_dependent=True),
            S(transposed((3, 4), F32), make((3, 4), BOOL), name="transposed",
              data_dependent=True),
            S(make((3, 4), F32), make((3, 4), U8), name="uint8_mask_error", data_dependent=True),
            S(make((3, 4), F32), make((3, 5), BOOL), name="shape_mismatch_error",
              data_dependent=True)]
    return out


register("masked_select.default", _masked_select_samples)
out_of("masked_select.out", "masked_select.default")


def _nonzero_samples():
    out = [S(make((3, 4), dt, low=-1, high=2), name=dtname(dt), data_dependent=True)
           for dt in ALL]
    out += [S(make((2, 3, 4), I64, low=0, high=2), name="3d", data_dependent=True),
            S(np.array(2.0, np.float32), name="0d_nonzero", data_dependent=True),
            S(np.array(0, np.int64), name="0d_zero", data_dependent=True),
            S(make((0, 3), F32), name="empty", data_dependent=True),
            S(np.zeros((3, 4), np.float32), name="all_zero", data_dependent=True),
            S(transposed((3, 4), I32, low=0, high=2), name="transposed", data_dependent=True)]
    return out


register("nonzero.default", _nonzero_samples)
out_of("nonzero.out", "nonzero.default")


_nzrng = own_rng(2232)   # (the shared stream left as it was for the samples after these)
register("nonzero_static.default", lambda: [
    S(make((3, 4), dt, low=-1, high=2, rng=_nzrng), size=5, name=dtname(dt)) for dt in ALL] + [
    S(make((2, 3, 4), I64, low=0, high=2, rng=_nzrng), size=30, fill_value=-7,
      name="3d_padded"),
    S(make((3, 4), F32, low=-1, high=2, rng=_nzrng), size=0, name="size0"),
    S(np.array(2.0, np.float32), size=2, name="0d"),
    S(np.zeros((0, 3), np.float32), size=2, name="empty"),
    S(transposed((3, 4), I32, low=0, high=2, rng=_nzrng), size=3, name="transposed"),
    S(make((3, 4), F32, rng=_nzrng), size=-1, name="negative_size_error")])
out_of("nonzero_static.out", "nonzero_static.default")


def _unique2_samples():
    out = []
    for dt in ALL:
        x = make((3, 4), dt, low=0, high=4)
        out.append(S(x, True, True, True, name=dtname(dt), data_dependent=True))
    x = make((2, 5), I64, low=-2, high=3)
    out += [S(x, name="defaults", data_dependent=True),
            S(x, False, True, False, name="unsorted_inverse", data_dependent=True),
            S(x, True, False, True, name="counts", data_dependent=True),
            S(make((), F32), True, True, True, name="0d", data_dependent=True),
            S(make((0, 3), F32), True, True, True, name="empty", data_dependent=True),
            S(transposed((3, 4), I32, low=0, high=3), True, True, True, name="transposed",
              data_dependent=True)]
    return out


register("_unique2.default", _unique2_samples)
out_of("_unique2.out", "_unique2.default")


def _unique_dim_samples():
    rows = np.array([[1, 2, 1], [0, 5, 0], [1, 2, 1], [0, 5, 0], [3, 3, 3]], np.int64)
    out = [S(rows.astype(dt), 0, name=dtname(dt), data_dependent=True) for dt in NUMERIC]
    out += [S(rows, 1, True, True, True, name="dim_1_all", data_dependent=True),
            S(rows.astype(np.float32), -2, True, False, True, name="negative_dim",
              data_dependent=True),
            S(make((2, 3, 2), I64, low=0, high=2), 2, name="3d", data_dependent=True),
            S(rows, 2, name="dim_out_of_range_error", data_dependent=True),
            S(np.zeros((0, 3), np.float32), 0, name="empty_selected", data_dependent=True),
            S(np.zeros((0, 3), np.float32), 1, name="empty_not_selected_error",
              data_dependent=True),
            S(np.array(3.0, np.float32), 0, name="0d_error", data_dependent=True)]
    return out


register("unique_dim.default", _unique_dim_samples)
out_of("unique_dim.out", "unique_dim.default")


# ---------------------------------------------------------------- sort, topk, argsort
def _sort_samples(stable=None):
    kw = {} if stable is None else {"stable": stable}
    out = [S(make((3, 4), dt), name=dtname(dt), **kw) for dt in ALL]
    out += [S(make((3, 4), I64, low=0, high=3), 0, True, name="ties_descending", **kw),
            S(make((3, 4), BOOL), -1, True, name="bool_descending", **kw),
            S(_distinct((3, 4)), 0, name="dim_0", **kw),
            S(_distinct((2, 3, 4), F64), 1, True, name="descending", **kw),
            S(np.array([1.0, np.nan, -2.0, np.nan, 0.0], np.float32), name="nan", **kw),
            S(np.array([1.0, np.nan, -2.0, np.inf, 0.0], np.float32), 0, True,
              name="nan_descending", **kw),
            S(make((), F32), name="0d", **kw),
            S(make((0, 3), F32), name="empty", **kw),
            S(transposed((3, 4), F32), 0, name="transposed", **kw),
            S(expanded((3, 4), F32), 1, name="expanded", **kw),
            S(make((3, 4), F32), 2, name="dim_out_of_range_error", **kw)]
    if stable is not None:
        out = [S(s.args[0], **{**s.kwargs, **_sort_kwargs(s.args[1:])}, name=s.name)
               for s in out]
    return out


def _sort_kwargs(rest):
    return dict(zip(("dim", "descending"), rest))


register("sort.default", _sort_samples)
register("sort.stable", lambda: _sort_samples(True) + [
    S(make((3, 4), I64, low=0, high=3), stable=False, dim=0, name="unstable_flag"),
    S(make((3, 4), I64, low=0, high=3), stable=None, descending=True, name="stable_none")])
out_of("sort.values", "sort.default")
out_of("sort.values_stable", "sort.stable")
register("argsort.default", lambda: [
    S(make((3, 4), dt, low=0, high=3) if dt != BOOL else make((3, 4), dt), name=dtname(dt))
    for dt in ALL] + [
    S(make((3, 4), F32), 0, True, name="dim_0_descending"),
    S(transposed((3, 4), F32), name="transposed"),
    S(make((), F32), name="0d")])
register("argsort.stable", lambda: [
    S(make((3, 4), I64, low=0, high=3), stable=True, name="ties"),
    S(make((3, 4), I64, low=0, high=3), stable=True, dim=0, descending=True,
      name="ties_descending"),
    S(make((3, 4), F32), stable=False, name="unstable_flag"),
    S(transposed((3, 4), F32), stable=True, dim=1, name="transposed")])
out_of("argsort.stable_out", "argsort.stable")


def _topk_samples():
    out = [S(_distinct((3, 4), dt), 2, name=dtname(dt)) for dt in SORTABLE]
    out += [S(_distinct((3, 4)), 2, 0, name="dim_0"),
            S(_distinct((3, 4)), 3, -1, False, name="smallest"),
            S(_distinct((2, 3, 4), F64), 2, 1, name="3d"),
            S(_distinct((3, 4)), 0, name="k_0"),
            S(_distinct((3, 4)), 4, name="k_all"),
            S(_distinct((3, 4)), 1, 1, True, False, name="unsorted_k_1"),
            S(np.array([1.0, np.nan, -2.0, 3.0], np.float32), 2, name="nan"),
            S(make((), F32), 1, name="0d"),
            S(make((), F32, rng=own_rng()), 0, name="0d_k_0"),
            S(make((), I64, rng=own_rng()), 0, 0, False, name="0d_k_0_smallest"),
            S(make((0, 4), F32), 2, name="empty"),
            S(View(_distinct((4, 3)), "transpose.int", (0, 1)), 2, 0, name="transposed"),
            S(_distinct((3, 4)), 5, name="k_too_large_error"),
            S(_distinct((3, 4)), -1, name="k_negative_error")]
    return out


register("topk.default", _topk_samples)
out_of("topk.values", "topk.default")


# ---------------------------------------------------------------- *_scatter
def _slice_scatter_samples():
    out = [S(make((4, 3), dt), make((2, 3), dt), 0, 1, 3, name=dtname(dt)) for dt in ALL]
    out += [S(make((4, 3), F32), make((2, 3), F32), 0, None, None, 2, name="step_2"),
            S(make((4, 3), F32), make((4, 2), F32), -1, 1, name="negative_dim"),
            S(make((4, 3), F32), make((4, 3), F32), name="defaults"),
            S(make((4, 3), F32), make((2, 3), F64), 0, 2, name="float64_src"),
            S(transposed((4, 3), F32), make((1, 3), F32), 0, 1, 2, name="transposed"),
            S(strided((4, 3), F32), make((4, 1), F32), 1, 2, name="strided"),
            S(expanded((4, 3), F32), make((2, 3), F32), 0, 0, 2, name="expanded"),
            S(make((4, 3), F32), make((3, 3), F32), 0, 0, 2, name="size_mismatch_error")]
    return out


register("slice_scatter.default", _slice_scatter_samples)
out_of("slice_scatter.out", "slice_scatter.default")


def _select_scatter_samples():
    out = [S(make((4, 3), dt), make((3,), dt), 0, 1, name=dtname(dt)) for dt in ALL]
    out += [S(make((4, 3), F32), make((4,), F32), -1, -1, name="negative"),
            S(make((2, 3, 4), F32), make((2, 4), F64), 1, 2, name="3d_float64_src"),
            S(make((4,), F32), make((), F32), 0, 2, name="1d"),
            S(transposed((4, 3), F32), make((3,), F32), 0, 0, name="transposed"),
            S(offset((4, 3), F32), make((4,), F32), 1, 1, name="offset"),
            S(make((4, 3), F32), make((4,), F32), 0, 0, name="size_mismatch_error"),
            S(make((4, 3), F32), make((3,), F32), 0, 4, name="index_out_of_range_error")]
    return out


register("select_scatter.default", _select_scatter_samples)
out_of("select_scatter.out", "select_scatter.default")


def _diagonal_scatter_samples():
    out = [S(make((3, 4), dt), make((3,), dt), name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 4), F32), make((3,), F32), 1, name="offset_1"),
            S(make((3, 4), F32), make((2,), F32), -1, name="offset_minus_1"),
            S(make((2, 3, 4), F32), make((4, 2), F32), 0, 0, 2, name="3d_dims"),
            S(make((3, 4), F32), make((3,), F32), 0, 1, 0, name="swapped_dims"),
            S(transposed((3, 4), F32), make((3,), F32), name="transposed"),
            S(make((3, 4), F32), make((4,), F32), name="size_mismatch_error")]
    return out


register("diagonal_scatter.default", _diagonal_scatter_samples)
out_of("diagonal_scatter.out", "diagonal_scatter.default")


def _as_strided_scatter_samples():
    out = [S(make((3, 4), dt), make((2, 2), dt), [2, 2], [1, 2], name=dtname(dt))
           for dt in ALL]
    out += [S(make((3, 4), F32), make((3,), F32), [3], [5], 0, name="diagonal"),
            S(make((3, 4), F32), make((2, 3), F32), [2, 3], [4, 1], 1, name="offset"),
            S(make((3, 4), F32), make((2,), F64), [2], [1], name="float64_src"),
            S(transposed((3, 4), F32), make((2,), F32), [2], [1], name="transposed"),
            S(make((3, 4), F32), make((3,), F32), [2], [1], name="size_mismatch_error"),
            S(make((3, 4), F32), make((2,), F32), [2], [1], 20, name="out_of_bounds_error")]
    return out


register("as_strided_scatter.default", _as_strided_scatter_samples)
out_of("as_strided_scatter.out", "as_strided_scatter.default")


# ---------------------------------------------------------------- index_add / copy / fill
def _index_add_samples():
    out = [S(make((3, 4), dt), 0, _idx(2, 0), make((2, 4), dt), name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 4), F32), 1, _idx(1, 1, 3), make((3, 3), F32), name="repeated_dim_1"),
            S(make((3, 4), F32), -1, np.array([0, 2], np.int32), make((3, 2), F32), alpha=2.5,
              name="int32_index_alpha"),
            S(make((3, 4), I64), 0, _idx(0, 1), make((2, 4), I64), alpha=3, name="int_alpha"),
            S(make((3, 4), F32), 1, np.array(1, np.int64), make((3, 1), F32), name="0d_index"),
            S(make((), F32), 0, np.array(0, np.int64), make((), F32), name="0d"),
            S(make((3, 4), F32), 0, _idx(), make((0, 4), F32), name="empty_index"),
            S(transposed((3, 4), F32), 0, _idx(0, 2), make((2, 4), F32), name="transposed"),
            S(make((3, 4), F32), 0, _idx(0, 1), make((2, 4), F64), name="dtype_error"),
            S(make((3, 4), F32), 0, np.array([0.0, 1.0], np.float32), make((2, 4), F32),
              name="float_index_error"),
            S(make((3, 4), F32), 0, np.array([[0, 1]], np.int64), make((2, 4), F32),
              name="2d_index_error"),
            S(make((3, 4), F32), 0, _idx(0, 1), make((3, 4), F32), name="count_error"),
            S(make((3, 4), F32), 0, _idx(0, 1), make((2, 5), F32), name="shape_error"),
            S(make((3, 4), F32), 0, _idx(0, 3), make((2, 4), F32), name="out_of_range_error")]
    return out


register("index_add.default", _index_add_samples, tols=ACCUMULATING_ULPS)
register("index_add_.default", _index_add_samples, tols=ACCUMULATING_ULPS)
out_of("index_add.out", "index_add.default")


def _index_copy_samples():
    out = [S(make((3, 4), dt), 0, _idx(2, 0), make((2, 4), dt), name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 4), F32), 1, _idx(3, 0, 1), make((3, 3), F32), name="dim_1"),
            S(make((2, 3, 4), F32), -1, _idx(1), make((2, 3, 1), F32), name="negative_dim"),
            S(make((3, 4), F32), 1, np.array(2, np.int64), make((3, 1), F32), name="0d_index"),
            S(make((), F32), 0, np.array(0, np.int64), make((), F32), name="0d"),
            S(make((3, 4), F32), 0, _idx(), make((0, 4), F32), name="empty_index"),
            S(transposed((3, 4), F32), 0, _idx(0, 2), make((2, 4), F32), name="transposed"),
            S(make((3, 4), F32), 0, _idx(0, 1), make((2, 4), F64), name="dtype_error"),
            S(make((3, 4), F32), 0, np.array([0, 1], np.int32), make((2, 4), F32),
              name="int32_index_error"),
            S(make((3, 4), F32), 0, _idx(0, 1), make((3, 4), F32), name="count_error"),
            S(make((3, 4), F32), 0, _idx(0, 1), make((2, 5), F32), name="slice_shape_error"),
            S(make((3, 4), F32), 1, _idx(2), make((3,), F32), name="rank_error"),
            S(make((3, 4), F32), 0, _idx(0, 3), make((2, 4), F32), name="out_of_range_error")]
    return out


register("index_copy.default", _index_copy_samples)
register("index_copy_.default", _index_copy_samples)
out_of("index_copy.out", "index_copy.default")


def _index_fill_samples(tensor_value):
    def value(v, dt=F32):
        return np.array(v, dt) if tensor_value else v

    def samples():
        out = [S(make((3, 4), dt), 0, _idx(2, 0), value(2, dt) if tensor_value else 2,
                 name=dtname(dt)) for dt in ALL]
        out += [S(make((3, 4), F32), 1, _idx(1, 3, 1), value(2.5), name="dim_1_repeated"),
                S(make((3, 4), I64), 1, _idx(1, -1), value(2, I64) if tensor_value else 2,
                  name="negative_index"),
                S(make((2, 3, 4), F32), -1, np.array(3, np.int64), value(-1.0), name="0d_index"),
                S(make((), F32), 0, np.array(0, np.int64), value(4.0), name="0d"),
                S(make((3, 4), F32), 0, _idx(), value(1.0), name="empty_index"),
                S(transposed((3, 4), F32), 0, _idx(0, 2), value(1.0), name="transposed"),
                S(make((3, 4), I64), 0, _idx(1), value(2.5), name="float_into_int"),
                S(make((3, 4), F32), 0, np.array([0, 1], np.int32), value(1.0),
                  name="int32_index_error"),
                S(make((3, 4), F32), 0, np.array([[0, 1]], np.int64), value(1.0),
                  name="2d_index_error"),
                S(make((3, 4), F32), 0, _idx(0, -4), value(1.0), name="out_of_range_error")]
        if tensor_value:
            out += [S(make((3, 4), F32), 0, _idx(1), np.array(2.0, np.float64),
                      name="float64_value"),
                    S(make((3, 4), F32), 0, _idx(1), np.array([2.0], np.float32),
                      name="1d_value_error")]
        return out
    return samples


register("index_fill.int_Scalar", _index_fill_samples(False))
register("index_fill.int_Tensor", _index_fill_samples(True))
register("index_fill_.int_Scalar", _index_fill_samples(False))
register("index_fill_.int_Tensor", _index_fill_samples(True))
out_of("index_fill.int_Scalar_out", "index_fill.int_Scalar")
out_of("index_fill.int_Tensor_out", "index_fill.int_Tensor")


# ---------------------------------------------------------------- masked_scatter, take, put
def _masked_scatter_samples(inplace=False):
    def samples():
        m = np.array([True, False, True, True])
        out = [S(make((3, 4), dt), make((3, 4), BOOL), make((12,), dt), name=dtname(dt))
               for dt in ALL]
        out += [S(make((3, 4), F32), m, make((3, 4), F32), name="broadcast_mask"),
                S(make((3, 4), F32), m, make((20,), F32), name="longer_source"),
                S(make((), F32), np.array(True), make((2,), F32), name="0d"),
                S(make((0, 4), F32), m, make((3,), F32), name="empty"),
                S(transposed((3, 4), F32), make((3, 4), BOOL), make((3, 4), F32),
                  name="transposed"),
                S(make((3, 4), F32), m, make((12,), F64), name="dtype_error"),
                S(make((3, 4), F32), make((3, 4), U8), make((12,), F32), name="uint8_mask_error"),
                S(make((3, 4), F32), np.ones((3, 4), bool), make((5,), F32),
                  name="short_source_error")]
        if not inplace:
            out.append(S(make((4,), F32), make((3, 4), BOOL), make((12,), F32),
                         name="broadcast_self"))
        else:
            out.append(S(make((4,), F32), make((3, 4), BOOL), make((12,), F32),
                         name="mask_larger_error"))
        return out
    return samples


register("masked_scatter.default", _masked_scatter_samples())
register("masked_scatter_.default", _masked_scatter_samples(True))
out_of("masked_scatter.out", "masked_scatter.default")


def _take_samples():
    out = [S(make((3, 4), dt), _idx(0, 5, 11), name=dtname(dt)) for dt in ALL]
    out += [S(make((3, 4), F32), np.array([[0, -1], [-12, 3]], np.int64), name="2d_negative"),
            S(make((3, 4), F32), _idx(1, 1, 1), name="repeated"),
            S(make((), F32), np.array(0, np.int64), name="0d"),
            S(make((3, 4), F32), _idx(), name="empty_index"),
            S(transposed((3, 4), F32), _idx(1, 4, 7), name="transposed"),
            S(make((3, 4), F32), np.array([0], np.int32), name="int32_index_error"),
            S(make((3, 4), F32), _idx(12), name="out_of_range_error")]
    return out


register("take.default", _take_samples)
out_of("take.out", "take.default")


def _put_samples(inplace=False):
    def samples():
        out = [S(make((3, 4), dt), _idx(0, 5, 11), make((3,), dt), name=dtname(dt))
               for dt in ALL]
        out += [S(make((3, 4), F32), np.array([[0, -1]], np.int64), make((2,), F32),
                  name="2d_index_negative"),
                S(make((3, 4), F32), _idx(1, 1, 2), make((3,), F32), True,
                  name="accumulate_repeated"),
                S(make((3, 4), I64), _idx(1, 1, 2), make((3,), I64), True, name="accumulate_int"),
                S(make((), F32), np.array(0, np.int64), make((), F32), name="0d"),
                S(make((3, 4), F32), _idx(), make((0,), F32), name="empty_index"),
                S(transposed((3, 4), F32), _idx(1, 4), make((2,), F32), name="transposed"),
                S(make((3, 4), F32), _idx(0, 1), make((3,), F32), name="count_error"),
                S(make((3, 4), F32), _idx(0, 1), make((2,), F64), name="dtype_error"),
                S(make((3, 4), F32), np.array([0], np.int32), make((1,), F32),
                  name="int32_index_error"),
                S(make((3, 4), F32), _idx(12), make((1,), F32), name="out_of_range_error")]
        return out
    return samples


register("put.default", _put_samples())
register("put_.default", _put_samples(True))
out_of("put.out", "put.default")


def _take_along_dim_samples():
    out = [S(make((3, 4), dt), make((3, 2), I64, low=0, high=4), 1, name=dtname(dt))
           for dt in ALL]
    out += [S(make((3, 4), F32), make((2, 1), I64, low=0, high=3), 0, name="broadcast_index"),
            S(make((3, 1), F32), make((3, 4), I64, low=0, high=1), -1, name="broadcast_self"),
            S(make((3, 4), F32), make((5,), I64, low=0, high=12), name="flattened"),
            S(transposed((3, 4), F32), make((2, 4), I64, low=0, high=3), 0, name="transposed"),
            S(make((3, 4), F32, rng=own_rng()), make((3, 2), I64, low=-9, high=9, rng=own_rng()), 1,
              name="wrapped_indices"),
            S(np.zeros((3, 0), np.float32), np.zeros((3, 1), np.int64), 1, name="empty_dim_error"),
            S(make((3, 4), F32, rng=own_rng()), np.full((5,), 12), name="flattened_oob_error"),
            S(make((3, 4), F32), make((3, 2), I32, low=0, high=4), 1, name="int32_error"),
            S(make((3, 4), F32), make((3, 2, 1), I64, low=0, high=4), 1, name="rank_error")]
    return out


register("take_along_dim.default", _take_along_dim_samples)
out_of("take_along_dim.out", "take_along_dim.default")
register("argwhere.default", lambda: [
    S(make((3, 4), I64, low=0, high=2), name="int64", data_dependent=True),
    S(make((2, 3), F32, low=-1, high=1), name="float32", data_dependent=True),
    S(np.array(1.0, np.float32), name="0d", data_dependent=True)])
register("fliplr.default", lambda: [
    S(make((3, 4), F32), name="2d"), S(make((2, 3, 4), I64), name="3d"),
    S(transposed((3, 4), F32), name="transposed"), S(make((4,), F32), name="1d_error")])
register("flipud.default", lambda: [
    S(make((3, 4), F32), name="2d"), S(make((4,), BOOL), name="1d"),
    S(transposed((3, 4), F32), name="transposed"), S(make((), F32), name="0d_error")])


def _rot90_samples():
    out = [S(make((3, 4), F32), k, name=f"k_{k}") for k in (0, 1, 2, 3, -1, 5)]
    out += [S(make((2, 3, 4), I64), 1, [2, 0], name="dims_2_0"),
            S(make((2, 3, 4), F32), 3, [-1, -2], name="negative_dims"),
            S(transposed((3, 4), F32), 1, name="transposed"),
            S(transposed((3, 4), F32), 0, name="transposed_k_0"),
            S(make((3, 4), F32), 1, [0, 0], name="same_dims_error"),
            S(make((3, 4), F32), 1, [0], name="one_dim_error"),
            S(make((3, 4), F32), 1, [0, 2], name="dim_out_of_range_error"),
            S(make((4,), F32), name="1d_error")]
    return out


register("rot90.default", _rot90_samples)
out_of("rot90.out", "rot90.default")
register("msort.default", lambda: [
    S(make((3, 4), I64, low=0, high=3), name="ties"), S(_distinct((4, 3)), name="float32"),
    S(transposed((3, 4), F32), name="transposed"), S(make((), F32), name="0d")])
out_of("msort.out", "msort.default")


def _unique_consecutive_samples():
    runs = np.array([1, 1, 2, 2, 1, 3, 3, 3], np.int64)
    rows = np.array([[1, 2], [1, 2], [0, 5], [1, 2]], np.int64)
    out = [S(runs.astype(dt), True, True, name=dtname(dt), data_dependent=True) for dt in ALL]
    out += [S(runs, name="defaults", data_dependent=True),
            S(runs.reshape(2, 4), True, False, name="2d_inverse", data_dependent=True),
            S(rows, False, False, 0, name="dim_0", data_dependent=True),
            S(rows, True, True, 1, name="dim_1", data_dependent=True),
            S(make((0,), F32), True, True, name="empty", data_dependent=True),
            S(make((), F32), True, True, name="0d", data_dependent=True)]
    return out


register("unique_consecutive.default", _unique_consecutive_samples)
out_of("unique_consecutive.out", "unique_consecutive.default")


# ---------------------------------------------------------------- batch 3: views, splits, stacks
def _unfold_samples():
    out = [S(make((3, 5), dt), 1, 2, 1, name=dtname(dt)) for dt in ALL]
    out += [S(make((7,), F32), 0, 3, 2, name="step_2"),
            S(make((2, 6, 3), F32), -2, 3, 3, name="negative_dim"),
            S(make((4, 3), F32), 0, 4, 1, name="whole_dim"),
            S(make((4, 3), F32), 0, 0, 1, name="size_0"),
            S(make((), F32), 0, 1, 1, name="0d"),
            S(transposed((4, 3), F32), 0, 2, 1, name="transposed"),
            S(make((4, 3), F32), 0, 5, 1, name="size_too_large_error"),
            S(make((4, 3), F32), 0, 2, 0, name="step_0_error")]
    return out


register("unfold.default", _unfold_samples, exact_strides=True)
register("swapaxes.default", lambda: [
    S(make((2, 3, 4), F32), 0, 2, name="0_2"), S(make((2, 3), I64), -1, 0, name="negative"),
    S(make((2, 3), F32), 0, 2, name="out_of_range_error")], exact_strides=True)
register("swapdims.default", lambda: [
    S(make((2, 3, 4), F32), 1, 2, name="1_2"), S(transposed((2, 3), F32), 0, 1, name="transposed")],
    exact_strides=True)
register("moveaxis.intlist", lambda: [
    S(make((2, 3, 4), F32), [0, 1], [2, 0], name="two"),
    S(make((2, 3, 4), F32), [0], [0, 1], name="mismatch_error")], exact_strides=True)
register("moveaxis.int", lambda: [
    S(make((2, 3, 4), F32), 0, -1, name="first_to_last"),
    S(make((2, 3), BOOL), 1, 0, name="bool")], exact_strides=True)
register("ravel.default", lambda: [
    S(make((2, 3), F32), name="contiguous_view"), S(transposed((2, 3), I64), name="transposed_copy"),
    S(make((), F32), name="0d"), S(make((0, 3), F32), name="empty")])


def _narrow_copy_samples():
    out = [S(make((4, 3), dt), 0, 1, 2, name=dtname(dt)) for dt in ALL]
    out += [S(make((4, 3), F32), -1, -2, 2, name="negative"),
            S(transposed((4, 3), F32), 1, 0, 2, name="transposed"),
            S(make((4, 3), F32), 0, 3, 2, name="too_long_error")]
    return out


register("narrow_copy.default", _narrow_copy_samples)
out_of("narrow_copy.out", "narrow_copy.default")
register("tensor_split.sections", lambda: [
    S(make((7, 2), F32), 3, name="uneven"), S(make((2, 4), I64), 2, 1, name="dim_1"),
    S(make((2,), F32), 4, name="more_sections_than_elements"),
    S(make((), F32), 2, name="0d_error"), S(make((4,), F32), 0, name="zero_sections_error")],
    exact_strides=True)
register("tensor_split.indices", lambda: [
    S(make((7, 2), F32), [1, 4], name="two"), S(make((2, 5), F32), [3, 1, 6], -1,
                                                name="unordered_past_end"),
    S(make((4,), F32), [], name="none"), S(make((), F32), [1], name="0d_error")],
    exact_strides=True)
register("tensor_split.tensor_indices_or_sections", lambda: [
    S(make((7, 2), F32), np.array(3, np.int64), name="sections", data_dependent=True),
    S(make((7, 2), F32), _idx(2, 5), name="indices", data_dependent=True),
    S(make((7, 2), F32), np.array([2], np.int32), name="int32_error"),
    S(make((7, 2), F32), np.zeros((1, 1), np.int64), name="2d_error")], exact_strides=True)
register("hsplit.int", lambda: [
    S(make((2, 6), F32), 3, name="2d"), S(make((6,), F32), 2, name="1d"),
    S(make((2, 6), F32), 4, name="not_divisible_error"), S(make((), F32), 1, name="0d_error")],
    exact_strides=True)
register("hsplit.array", lambda: [S(make((2, 6), F32), [1, 4], name="2d"),
                                  S(make((6,), F32), [2], name="1d")], exact_strides=True)
register("vsplit.int", lambda: [S(make((6, 2), F32), 2, name="2d"),
                                S(make((6,), F32), 2, name="1d_error")], exact_strides=True)
register("vsplit.array", lambda: [S(make((6, 2), F32), [1, 3], name="2d")], exact_strides=True)
register("dsplit.int", lambda: [S(make((2, 2, 6), F32), 3, name="3d"),
                                S(make((2, 6), F32), 2, name="2d_error")], exact_strides=True)
register("dsplit.array", lambda: [S(make((2, 2, 6), F32), [4], name="3d")], exact_strides=True)
for _n in (1, 2, 3):
    register(f"atleast_{_n}d.default", lambda: [
        S(make((), F32), name="0d"), S(make((3,), I64), name="1d"), S(make((2, 3), F32), name="2d"),
        S(make((2, 3, 4), F32), name="3d")], exact_strides=True)
    register(f"atleast_{_n}d.Sequence", lambda: [
        S([make((), F32), make((3,), F32), make((2, 3), F32)], name="mixed")], exact_strides=True)


def _stack_samples(name):
    def samples():
        return [S([make((3,), F32), make((3,), F32)], name="1d"),
                S([make((2, 3), F32), make((2, 3), F64)], name="2d_promote"),
                S([make((), F32), make((), I64)], name="0d"),
                S([make((2, 3, 1), F32), transposed((2, 3), F32)], name="mixed_rank"),
                S([make((2, 3), I64)], name="single"),
                S([], name="empty_list_error"),
                S([make((2, 3), F32), make((4, 5), F32)], name="shape_mismatch_error")]
    return samples


for _op in ("hstack", "vstack", "row_stack", "dstack", "column_stack"):
    register(f"{_op}.default", _stack_samples(_op))
    out_of(f"{_op}.out", f"{_op}.default")


def _diag_embed_samples():
    out = [S(make((2, 3), dt), name=dtname(dt)) for dt in ALL]
    out += [S(make((3,), F32), 1, name="offset_1"), S(make((2, 3), F32), -2, 0, 2, name="dims_0_2"),
            S(make((2, 3), F32), 0, 1, -3, name="negative_dims"),
            S(transposed((2, 3), F32), name="transposed"),
            S(make((2, 3), F32), 0, 1, 1, name="same_dims_error")]
    return out


register("diag_embed.default", _diag_embed_samples)
out_of("diag_embed.out", "diag_embed.default")


def _diag_samples():
    out = [S(make((3,), dt), name=f"1d_{dtname(dt)}") for dt in ALL]
    out += [S(make((3, 4), F32), name="2d"), S(make((3, 4), F32), 1, name="2d_offset_1"),
            S(make((3, 4), F32), -2, name="2d_offset_minus_2"), S(make((3,), F32), -1, name="1d_offset"),
            S(transposed((3, 4), F32), name="transposed"),
            S(make((2, 3, 4), F32), name="3d_error")]
    return out


register("diag.default", _diag_samples)
out_of("diag.out", "diag.default")
register("diagflat.default", lambda: [
    S(make((2, 2), F32), name="2d"), S(make((3,), I64), 1, name="offset"),
    S(transposed((2, 3), F32), -1, name="transposed"), S(make((), F32), name="0d")])


def _repeat_interleave_tensor_samples():
    return [S(_idx(2, 0, 3), name="int64", data_dependent=True),
            S(np.array([1, 2], np.int32), name="int32", data_dependent=True),
            S(np.array(3, np.int64), name="0d", data_dependent=True),
            S(_idx(), name="empty", data_dependent=True),
            S(_idx(1, 2), output_size=3, name="output_size"),
            S(_idx(1, -2), name="negative_error", data_dependent=True),
            S(np.array([1.0, 2.0], np.float32), name="float_error", data_dependent=True),
            S(np.ones((2, 2), np.int64), name="2d_error", data_dependent=True)]


register("repeat_interleave.Tensor", _repeat_interleave_tensor_samples)
out_of("repeat_interleave.Tensor_out", "repeat_interleave.Tensor")
register("repeat_interleave.self_Tensor", lambda: [
    S(make((2, 3), F32), _idx(1, 0, 2), 1, name="per_column", data_dependent=True),
    S(make((2, 3), I64), np.array(2, np.int64), name="flattened_0d", data_dependent=True),
    S(make((2, 3), F32), _idx(3), 0, name="single_repeat", data_dependent=True),
    S(transposed((2, 3), F32), _idx(2, 1), -2, name="transposed", data_dependent=True),
    S(make((2, 3), F32), _idx(1, 2), 1, name="size_mismatch_error", data_dependent=True)])
register("repeat_interleave.self_int", lambda: [   # (the size is known: Meta runs it)
    S(make((2, 3), F32), 2, name="flattened"),
    S(make((2, 3), BOOL), 3, 1, name="dim_1"),
    S(make((), F32), 2, name="0d"),
    S(make((2, 3), F32), 2, 0, output_size=4, name="output_size")])


# ---------------------------------------------------------------- searchsorted, bucketize
def _searchsorted_samples():
    seq = np.array([1, 3, 3, 5, 7], np.float32)
    vals = np.array([[3, 6, 0], [9, 1, 3]], np.float32)
    out = [S(seq.astype(dt), vals.astype(dt), name=dtname(dt)) for dt in NUMERIC]
    out += [S(seq, vals, right=True, name="right"),
            S(seq, vals, side="right", name="side_right"),
            S(seq, vals, out_int32=True, side="left", name="int32_left"),
            S(seq, vals.astype(np.float64), name="float64_values"),
            S(seq.astype(np.int64), vals, name="int_boundaries"),
            S(np.sort(make((2, 4), F32), 1), make((2, 3), F32), name="batched"),
            S(np.sort(make((2, 4), F32), 1), make((2, 3), F32), right=True, name="batched_right"),
            S(np.array([7, 1, 5, 3], np.float32), vals, sorter=_idx(1, 3, 2, 0), name="sorter"),
            S(seq, make((), F32), name="0d_value"),
            S(seq, make((2, 0), F32), name="empty"),
            S(seq, transposed((2, 3), F32), name="transposed"),
            S(seq, vals, side="middle", name="bad_side_error"),
            S(seq, vals, right=True, side="left", name="opposite_sides_error"),
            S(np.array(1.0, np.float32), vals, name="0d_boundaries_error"),
            S(make((3, 4), F32), vals, name="batch_mismatch_error"),
            S(seq, vals, sorter=_idx(0, 1, 2), name="sorter_size_error"),
            S(seq, vals, sorter=np.arange(5, dtype=np.int32), name="sorter_dtype_error"),
            S(seq, vals, sorter=_idx(0, 1, 2, 3, 5), name="sorter_range_error")]
    # NaNs in the sequence steer torch's bisection (`!(mid >= val)`), NaN values go last
    nan_seq = np.array([1, np.nan, 2, 3, np.nan], np.float32)
    nan_vals = np.array([2, np.nan, 0, 9, -np.inf, np.inf], np.float32)
    out += [S(nan_seq, nan_vals, name="nan_sequence"),
            S(nan_seq, nan_vals, right=True, name="nan_sequence_right"),
            S(np.array([[1, 2, 3], [0, np.nan, 5]], np.float32),
              np.array([[2, 4], [1, 6]], np.float32), name="batched_nan_sequence"),
            S(np.zeros(0, np.float32), vals, name="empty_sequence")]
    return out


register("searchsorted.Tensor", _searchsorted_samples)
out_of("searchsorted.Tensor_out", "searchsorted.Tensor")
register("searchsorted.Scalar", lambda: [
    S(np.array([1, 3, 5], np.float32), 4.0, name="float"),
    S(np.array([1, 3, 5], np.int64), 3, right=True, name="int_right"),
    S(np.array([1, 3, 5], np.float32), 3, out_int32=True, name="int32"),
    S(np.array(1.0, np.float32), 3, name="0d_boundaries_error")])
out_of("searchsorted.Scalar_out", "searchsorted.Scalar")
register("bucketize.Tensor", lambda: [
    S(np.array([[3, 6, 0], [9, 1, 3]], np.float32), np.array([1, 3, 5, 7], np.float32),
      name="float32"),
    S(make((3, 4), I64), np.array([-5, 0, 5], np.int64), right=True, out_int32=True,
      name="int64_right_int32"),
    S(make((3, 4), F32), np.zeros((2, 2), np.float32), name="2d_boundaries_error")])
out_of("bucketize.Tensor_out", "bucketize.Tensor")
register("bucketize.Scalar", lambda: [
    S(3, np.array([1, 3, 5], np.int64), name="int"),
    S(2.5, np.array([1, 3, 5], np.float32), right=True, name="float_right")])
out_of("bucketize.Scalar_out", "bucketize.Scalar")


def _meshgrid_samples(indexing=None):
    kw = {} if indexing is None else {"indexing": indexing}
    return [S([make((3,), F32), make((2,), F32)], name="two", **kw),
            S([make((3,), I64), make((), I64), make((4,), I64)], name="three_0d", **kw),
            S([make((2,), F32)], name="one", **kw),
            S([make((3,), F32), make((2,), F64)], name="dtype_error", **kw),
            S([make((2, 2), F32), make((2,), F32)], name="2d_error", **kw),
            S([], name="empty_error", **kw)]


register("meshgrid.default", _meshgrid_samples, exact_strides=True)
register("meshgrid.indexing", lambda: _meshgrid_samples("xy") + _meshgrid_samples("ij") + [
    S([make((3,), F32), make((2,), F32)], indexing="yx", name="bad_indexing_error")],
    exact_strides=True)


register("broadcast_to.default", lambda: [
    S(make((3,), F32), [2, 3], name="new_dim"), S(make((3, 1), I64), [3, 4], name="size_1"),
    S(make((), F32), [2], name="0d"), S(transposed((2, 3), F32), [4, 2, 3], name="transposed"),
    S(make((3,), F32), [2, 4], name="mismatch_error")], exact_strides=True)
register("broadcast_tensors.default", lambda: [
    S([make((3,), F32), make((2, 1), F32)], name="two"),
    S([make((), I64), make((2, 3), I64), make((3,), I64)], name="three"),
    S([make((2, 3), F32)], name="one"),
    S([make((3,), F32), make((4,), F32)], name="mismatch_error")], exact_strides=True)
register("cartesian_prod.default", lambda: [
    S([make((2,), F32), make((3,), F32)], name="two"),
    S([make((2,), I64), make((2,), I64), make((3,), I64)], name="three"),
    S([make((3,), F32)], name="one"),
    S([make((2,), F32), make((), F32)], name="0d_error")])


register("block_diag.default", lambda: [
    S([make((2, 2), F32), make((), F32), make((2,), F32)], name="mixed_ranks"),
    S([make((2, 3), I64), make((1, 2), F64)], name="promote"),
    S([make((0, 2), F32), make((1, 1), F32)], name="empty_block"),
    S([transposed((2, 3), F32)], name="transposed"),
    S([make((2, 2, 2), F32)], name="3d_error")])
out_of("block_diag.out", "block_diag.default")
register("combinations.default", lambda: [
    S(make((4,), F32), name="pairs"), S(make((3,), I64), 3, True, name="with_replacement"),
    S(make((3,), F32), 1, name="r_1"), S(make((3,), F32), 0, name="r_0"),
    S(make((3,), F32), 4, name="r_too_large"), S(make((3,), F32), -1, name="negative_error"),
    S(make((2, 2), F32), name="2d_error")])
