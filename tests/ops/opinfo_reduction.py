"""Samples for the reduction op family (issue 4), registered into `opinfo.OPS`.

opinfo.py imports this module at its end; `grad_extra()` adds gradient samples to
tests/autograd/grad_samples.py's EXTRA (called with opinfo's random generator seeded).
"""
from __future__ import annotations

import numpy as np
from helpers import ACCUMULATING_ULPS
from opinfo import (
    ALL,
    BF16,
    BOOL,
    F16,
    F32,
    F64,
    I32,
    I64,
    OPS,
    U8,
    E,
    S,
    View,
    binary_samples,
    dtname,
    expanded,
    make,
    offset,
    out_of,
    own_rng,
    register,
    strided,
    transposed,
)

NAN = np.nan
INF = np.inf


def _a(*rows, dtype=F32):
    return np.array(rows, dtype)


# ---- prod ---------------------------------------------------------------------------------
def _prod_samples():
    # (a generator of their own: a product's magnitude swings with the data, and these keep
    # the bfloat16 case one where a 5%-off answer shows)
    rng = own_rng(3)
    return [S(make((3, 4), dt, low=-2, high=3, rng=rng), name=dtname(dt)) for dt in ALL] + [
        S(make((), F32), name="0d"), S(make((0, 3), F32), name="empty"),
        S(transposed((3, 4), F64), name="transposed"), S(strided((3, 2), I32), name="strided"),
        S(make((3, 4), I32), dtype=E.float64, name="dtype_float64"),
        S(make((3, 4), I32, low=-2, high=3), dtype=E.float16, name="int_dtype_float16"),
        S(make((40,), I64, low=2, high=9), name="int_overflow_wraps"),
        S(_a([1.0, NAN, 0.0]), name="nan")]


def _prod_dim_samples():
    x = make((2, 3, 4), F32, low=-2, high=2)
    return [S(make((3, 4), dt, low=-2, high=3), 1, name=dtname(dt)) for dt in ALL] + [
        S(x, 0, name="dim0"), S(x, -1, True, name="last_keepdim"),
        S(make((), F32), 0, name="0d"), S(make((), F32), -1, True, name="0d_keepdim"),
        S(make((0, 3), F32), 0, name="empty_reduced"), S(make((0, 3), F32), 1, name="empty_kept"),
        S(transposed((3, 4), F32), 0, name="transposed"),
        S(make((3, 4), BOOL), 1, name="bool"),
        S(make((3, 4), I32), 1, dtype=E.float64, name="dtype_float64"),
        S(x, 3, name="dim_out_of_range_error")]


register("prod.default", _prod_samples, tols=ACCUMULATING_ULPS)
out_of("prod.out", "prod.default")
register("prod.dim_int", _prod_dim_samples, tols=ACCUMULATING_ULPS)
out_of("prod.int_out", "prod.dim_int")


# ---- amin ---------------------------------------------------------------------------------
register("amin.default", lambda: [S(make((3, 4), dt), [1], name=dtname(dt)) for dt in ALL] + [
    S(make((2, 3, 4), F32), name="default_all_dims"),
    S(make((2, 3, 4), F32), [0, 2], True, name="keepdim"),
    S(make((2, 3, 4), I64), -1, name="int_dim"),
    S(make((0, 3), F32), [1], name="empty_kept"),
    S(make((0, 3), F32), [0], name="empty_reduced_error"),
    S(make((0, 3), F32), name="empty_all_error"),
    S(make((), F32), name="0d"), S(transposed((3, 4), BF16), [0], name="transposed"),
    S(_a([1, NAN], [2, 3]), [1], name="nan"),
    S(make((2, 3), F32), [0, -2], name="repeated_dim_error"),
    S(np.zeros((2, 0, 0), F32), [1, -1], name="empty_negative_dim_error")])
out_of("amin.out", "amin.default")


# ---- max / min ----------------------------------------------------------------------------
def _full_extreme_samples():
    return [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL] + [
        S(make((), F32), name="0d"), S(make((0, 3), F32), name="empty_error"),
        S(make((0,), I64), name="empty_int64_error"), S(make((0,), BOOL), name="empty_bool_error"),
        S(transposed((3, 4), F64), name="transposed"), S(strided((3, 4), I32), name="strided"),
        S(_a([1, NAN, 3]), name="nan"), S(_a([-INF, 2, INF]), name="infs")]


def _dim_extreme_samples():
    x = make((2, 3, 4), F32)
    return [S(make((3, 4), dt), 1, name=dtname(dt)) for dt in ALL] + [
        S(x, 0, name="dim0"), S(x, -1, True, name="last_keepdim"),
        S(make((), F32), 0, name="0d"), S(make((), F32), -1, True, name="0d_keepdim"),
        S(make((0, 3), F32), 1, name="empty_kept"),
        S(make((0, 3), F32), 0, name="empty_reduced_error"),
        S(transposed((3, 4), F32), 0, name="transposed"),
        S(offset((3, 4), BF16), 1, True, name="offset"),
        S(make((4, 5), I32, low=0, high=3), 1, name="ties_first_index"),
        S(_a([1, NAN, 2, NAN], [3, 1, 2, 0]), 1, name="nan"),
        S(x, 3, name="dim_out_of_range_error")]


for _op in ("max", "min"):
    register(f"{_op}.default", _full_extreme_samples)
    out_of(f"{_op}.unary_out", f"{_op}.default")   # an empty input gives -inf / inf
    register(f"{_op}.dim", _dim_extreme_samples)
    out_of(f"{_op}.dim_{_op}", f"{_op}.dim")
    register(f"{_op}.other", lambda: [  # tensors only: torch.max(t, 2) means dim 2
        b for b in binary_samples(scalars=()) if not isinstance(b.args[1], (int, float))] + [
        S(_a([1, NAN, 3]), _a([NAN, 2, 5]), name="nan")])
    out_of(f"{_op}.out", f"{_op}.other")


# ---- argmin -------------------------------------------------------------------------------
register("argmin.default", lambda: [S(make((3, 4), dt), 1, name=dtname(dt)) for dt in ALL] + [
    S(make((3, 4), I32, low=0, high=3), name="dim_none_ties"),
    S(make((2, 3, 4), F32), -1, True, name="keepdim"),
    S(make((2, 3, 4), F32), None, True, name="none_keepdim"),
    S(make((), F32), name="0d"), S(make((0, 3), F32), 1, name="empty_kept"),
    S(make((0, 3), F32), name="empty_error"), S(make((0, 3), F32), 0, name="empty_dim_error"),
    S(transposed((3, 4), F64), 0, name="transposed"),
    S(_a([1, NAN, 2], [NAN, 5, 4]), 1, name="nan"),
    S(np.array([[3, 1, 1], [2, 2, 5]], np.int64), 1, name="first_of_ties")])
out_of("argmin.out", "argmin.default")


# ---- var / std ----------------------------------------------------------------------------
def _var_correction_samples():
    x = make((2, 3, 4), F32)
    return [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL] + [
        S(x, [1], name="dim1"), S(x, [0, 2], name="dims02"), S(x, 1, name="int_dim"),
        S(x, [-1], keepdim=True, name="last_keepdim"), S(x, None, keepdim=True, name="none_keep"),
        S(x, [1], correction=0, name="correction0"), S(x, [2], correction=2.5, name="corr2_5"),
        S(x, [1], correction=3, name="correction_equals_n"),
        S(x, [1], correction=5, name="correction_above_n"),
        S(make((), F64), name="0d"), S(make((), F32), [0], keepdim=True, name="0d_dim"),
        S(make((0, 3), F32), name="empty"), S(make((0, 3), F32), [0], name="empty_reduced"),
        S(make((0, 3), F32), [1], name="empty_kept"), S(make((1,), F32), name="one_element"),
        S(np.zeros((0, 3), F32), [0], correction=-1, name="empty_negative_correction"),
        S(transposed((3, 4), F64), [0], name="transposed"),
        S(offset((3, 4), F16), [1], name="offset_float16"),
        S(_a([1, NAN, 3], [1, 2, 3]), [1], name="nan"),
        S(x, [3], name="dim_out_of_range_error")]


def _var_samples():
    return [S(make((3, 4), dt), name=dtname(dt)) for dt in (I64, F16, F32, F64)] + [
        S(make((3, 4), F32), False, name="biased"), S(make((), F32), name="0d")]


def _var_dim_samples():
    x = make((2, 3, 4), F32)
    return [S(make((3, 4), dt), [1], name=dtname(dt)) for dt in (I64, BF16, F32, F64)] + [
        S(x, [0, 2], False, name="biased"), S(x, -1, True, True, name="keepdim"),
        S(x, None, name="none"), S(make((0, 3), F32), [0], name="empty")]


for _op in ("var", "std"):
    register(f"{_op}.default", _var_samples)
    register(f"{_op}.dim", _var_dim_samples)
    out_of(f"{_op}.out", f"{_op}.dim")
    register(f"{_op}.correction", _var_correction_samples, tols=ACCUMULATING_ULPS)
    out_of(f"{_op}.correction_out", f"{_op}.correction")
for _op in ("var_mean", "std_mean"):
    register(f"{_op}.default", _var_samples)
    register(f"{_op}.dim", _var_dim_samples)
    register(f"{_op}.correction", _var_correction_samples, tols=ACCUMULATING_ULPS)
    out_of(f"{_op}.correction_out", f"{_op}.correction")


# ---- logsumexp ----------------------------------------------------------------------------
register("logsumexp.default", lambda: [S(make((3, 4), dt), [1], name=dtname(dt)) for dt in ALL] + [
    S(make((2, 3, 4), F32), [0, 2], name="two_dims"),
    S(make((2, 3, 4), F32), -1, True, name="int_dim_keepdim"),
    S(make((), F32), [0], name="0d"), S(make((0, 3), F32), [0], name="empty_reduced"),
    S(make((0, 3), F32), [1], name="empty_kept"), S(make((4,), F32), [], name="1d_no_dims_error"), S(make((), F32), [], name="0d_no_dims"),
    S(make((2, 3), F32), [], name="no_dims_error"),
    S(transposed((3, 4), F64), [0], name="transposed"),
    S(_a([1, NAN, 3], [INF, 1, 2], [-INF, -INF, -INF]), [1], name="nan_inf"),
    S(_a([1000.0, 1000.0], [-1000, 0]), [1], name="large")], tols=ACCUMULATING_ULPS)
out_of("logsumexp.out", "logsumexp.default")


# ---- norms --------------------------------------------------------------------------------
def _vector_norm_samples():
    x = make((2, 3, 4), F32)
    out = [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL]
    out += [S(x, o, name=f"ord_{o}") for o in (0, 1, 2, 3, 0.5, 1.5, -1, -2.5, INF, -INF)]
    out += [
        S(x, 2, [1], name="dim1"), S(x, 1, [0, 2], True, name="dims_keepdim"),
        S(x, INF, -1, name="inf_int_dim"), S(x, 2, None, True, name="none_keepdim"),
        S(make((3, 4), F32), dtype=E.float64, name="dtype_float64"),
        S(make((3, 4), F16), dtype=E.float64, name="float16_dtype_float64"),
        S(make((3, 4), F64), dtype=E.float32, name="narrowing_dtype_error"),
        S(make((3, 4), F32), dtype=E.int64, name="int_dtype_error"),
        S(make((), F32), name="0d"), S(make((), F32), INF, [0], True, name="0d_inf"),
        S(make((0, 3), F32), name="empty"), S(make((0, 3), F32), 0, name="empty_ord0"),
        S(make((0, 3), F32), INF, name="empty_inf_error"),
        S(make((0, 3), F32), -1, name="empty_negative_error"),
        S(make((0, 3), F32), INF, [1], name="empty_inf_kept"),
        S(make((0, 3), F32), INF, [0], name="empty_inf_reduced_error"),
        S(transposed((3, 4), F64), 3, [0], name="transposed"),
        S(_a([0, NAN, 3], [0, 0, 0]), 2, [1], name="nan_and_zeros"),
        S(_a([-INF, 1, 2]), 2, name="inf")]
    return out


register("linalg_vector_norm.default", _vector_norm_samples, tols=ACCUMULATING_ULPS)
out_of("linalg_vector_norm.out", "linalg_vector_norm.default")
register("norm.Scalar", lambda: [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL] + [
    S(make((3, 4), F32), 1, name="p1"), S(make((3, 4), F32), INF, name="inf"),
    S(make((3, 4), F32), 0, name="p0"), S(make((3, 4), F32), 3.5, name="p3_5"),
    S(make((), F64), name="0d"), S(make((0, 2), F32), name="empty"),
    S(transposed((3, 4), F32), name="transposed")], tols=ACCUMULATING_ULPS)
out_of("norm.Scalar_out", "norm.Scalar")
register("norm.ScalarOpt_dim", lambda: [
    S(make((3, 4), dt), 2, [1], name=dtname(dt)) for dt in ALL] + [
    S(make((2, 3, 4), F32), None, [0, 2], name="p_none"),
    S(make((2, 3, 4), F32), 1, -1, True, name="p1_keepdim"),
    S(make((2, 3, 4), F32), -INF, [1], name="minus_inf"),
    S(make((0, 3), F32), 2, [0], name="empty_reduced"),
    S(transposed((3, 4), F64), 0.5, [0], name="transposed")], tols=ACCUMULATING_ULPS)
out_of("norm.out", "norm.ScalarOpt_dim")


# ---- all / any ----------------------------------------------------------------------------
def _truthy(shape, dt):
    """Mostly-true arrays, so all() is sometimes true."""
    return make(shape, dt, low=1, high=4) if dt != BOOL else np.ones(shape, bool)


def _all_any_samples():
    return [S(make((3, 4), dt), name=dtname(dt)) for dt in ALL] + [
        S(_truthy((3, 4), dt), name=f"truthy_{dtname(dt)}") for dt in (BOOL, U8, F32)] + [
        S(make((), F32), name="0d"), S(make((0, 3), F32), name="empty"),
        S(transposed((3, 4), BOOL), name="transposed"), S(_a([NAN, 1]), name="nan_is_true")]


def _all_any_dim_samples(dims):
    def samples():
        x = make((2, 3, 4), I32, low=0, high=3)
        out = [S(make((3, 4), dt), [1] if dims else 1, name=dtname(dt)) for dt in ALL]
        out += [S(x, -1, True, name="keepdim") if not dims else S(x, [0, 2], name="two_dims"),
                S(make((0, 3), F32), [0] if dims else 0, name="empty_reduced"),
                S(make((0, 3), U8), [1] if dims else 1, True, name="empty_kept"),
                S(make((), BOOL), [0] if dims else 0, name="0d"),
                S(transposed((3, 4), F32), [0] if dims else 0, name="transposed"),
                S(x, [3] if dims else 3, name="dim_out_of_range_error")]
        if dims:
            out += [S(x, name="dim_none"), S(x, [], name="empty_dim_list_reduces_nothing"),
                    S(x, None, True, name="none_keepdim"), S(make((3, 4), U8), [], True,
                                                              name="uint8_no_dims")]
        return out
    return samples


for _op in ("all", "any"):
    register(f"{_op}.default", _all_any_samples)
    out_of(f"{_op}.all_out", f"{_op}.default")
    register(f"{_op}.dim", _all_any_dim_samples(False))
    out_of(f"{_op}.out", f"{_op}.dim")
    register(f"{_op}.dims", _all_any_dim_samples(True))
    out_of(f"{_op}.dims_out", f"{_op}.dims")


# ---- cumsum / cumprod ---------------------------------------------------------------------
def _cum_samples(inplace=False):
    def samples():
        x = make((2, 3, 4), F32, low=-2, high=2)
        out = [S(make((3, 4), dt, low=-3, high=4), 1, name=dtname(dt)) for dt in ALL]
        out += [S(x, 0, name="dim0"), S(x, -1, name="last"), S(make((), F32), 0, name="0d"),
                S(make((0, 3), F32), 1, name="empty"), S(transposed((3, 4), F64), 1,
                                                         name="transposed"),
                S(offset((3, 4), F32), 0, name="offset"), S(x, 3, name="dim_error"),
                S(make((3, 4), I32), 1, dtype=E.int32, name="dtype_int32"),
                S(make((3, 4), F64), 0, dtype=E.float64, name="dtype_same"),
                S(make((3, 4), I64), 1, dtype=E.float64, name="dtype_float64"),
                S(make((40,), I64, low=2, high=9), 0, name="int_overflow"),
                S(_a([1, NAN, 2, 3]), 0, name="nan")]
        if not inplace:
            out += [S(expanded((3, 4), F32), 0, name="expanded"),
                    S(make((3, 4), BOOL), 1, dtype=E.bool, name="dtype_bool_error"),
                    S(make((3, 4), F32), 0, dtype=E.bool, name="float_dtype_bool_error")]
        return out
    return samples


for _op in ("cumsum", "cumprod"):
    register(f"{_op}.default", _cum_samples(), tols=ACCUMULATING_ULPS)
    out_of(f"{_op}.out", f"{_op}.default")
    # (with out=, torch checks out's dtype before its missing bool loop)
    OPS[f"{_op}.out"].samples = lambda f=OPS[f"{_op}.out"].samples: [
        s for s in f() if "dtype_bool" not in s.name]
    register(f"{_op}_.default", _cum_samples(inplace=True), tols=ACCUMULATING_ULPS)


# ---- count_nonzero ------------------------------------------------------------------------
register("count_nonzero.default", lambda: [
    S(make((3, 4), dt, low=-1, high=2), name=dtname(dt)) for dt in ALL] + [
    S(make((2, 3, 4), I32, low=0, high=2), 1, name="dim1"),
    S(make((2, 3, 4), F32), -1, name="last"), S(make((), F32), name="0d"),
    S(make((), F32), 0, name="0d_dim"), S(make((0, 3), F32), 0, name="empty"),
    S(transposed((3, 4), BOOL), 0, name="transposed"), S(_a([NAN, 0, 1]), name="nan"),
    S(make((2, 3), F32), 2, name="dim_error")])
out_of("count_nonzero.out", "count_nonzero.default")
register("count_nonzero.dim_IntList", lambda: [
    S(make((3, 4), dt, low=-1, high=2), [1], name=dtname(dt)) for dt in ALL] + [
    S(make((2, 3, 4), I32, low=0, high=2), [0, 2], name="two_dims"),
    S(make((2, 3, 4), F32), [], name="no_dims_all"), S(make((), F32), [0], name="0d"),
    S(make((0, 3), F32), [1], name="empty"), S(transposed((3, 4), BOOL), [-1], name="transposed"),
    S(make((2, 3), F32), [0, 0], name="repeated_dim_error")])
out_of("count_nonzero.dim_IntList_out", "count_nonzero.dim_IntList")


# ---- issue 22: nansum/nanmean, median, kthvalue, mode, cummax/cummin, logcumsumexp, aminmax,
# quantile, histc, bincount, isin, diff, trapezoid, cov/corrcoef, cdist (generators of their own)
def _distinct(shape, dt=F32, rng=None, scale=0.5):
    """Values without ties (a shuffled range), so that the selected indices are unique."""
    n = int(np.prod(shape))
    v = (rng or own_rng(22)).permutation(n) - n // 2
    return (v * (scale if np.dtype(dt).kind == "f" else 1)).reshape(shape).astype(dt)


_NAN_ROWS = _a([1.0, NAN, 3.0, 0.5], [2.0, 1.0, -1.0, 4.0], [NAN, NAN, NAN, NAN])


def _nansum_samples():
    r = own_rng(22)
    x = make((3, 4), F32, rng=r)
    return [S(make((3, 4), dt, rng=r), name=dtname(dt)) for dt in ALL] + [
        S(x, [1], name="dim1"), S(x, [0], True, name="dim0_keepdim"), S(x, [], name="no_dims"),
        S(_NAN_ROWS, name="nan"), S(_NAN_ROWS, [1], name="nan_dim1"),
        S(make((3, 4), I32, rng=r), dtype=E.float64, name="dtype_float64"),
        S(make((0, 3), F32, rng=r), [0], name="empty"), S(make((), F64, rng=r), name="0d"),
        S(transposed((3, 4), F64, rng=r), [0], name="transposed"),
        S(make((2, 3), F16, rng=r), [1], name="float16_dim")]


register("nansum.default", _nansum_samples, tols=ACCUMULATING_ULPS)
out_of("nansum.out", "nansum.default")
register("nanmean.default", lambda: [
    S(_NAN_ROWS, name="nan"), S(_NAN_ROWS, [1], name="nan_dim1"),
    S(_NAN_ROWS, 0, True, name="nan_dim0_keepdim"),
    S(make((3, 4), F64, rng=own_rng(22)), [0, 1], name="float64"),
    S(make((3, 4), BF16, rng=own_rng(23)), name="bfloat16"),
    S(make((3, 4), F32, rng=own_rng(24)), dtype=E.float64, name="dtype_float64"),
    S(make((3, 4), I64, rng=own_rng(25)), name="int64_error")], tols=ACCUMULATING_ULPS)


def _median_samples():
    r = own_rng(26)
    return [S(_distinct((3, 5), dt, r), name=dtname(dt)) for dt in ALL] + [
        S(_NAN_ROWS, name="nan"), S(make((0,), F32, rng=r), name="empty"),
        S(make((), F64, rng=r), name="0d"), S(transposed((4, 3), F32, rng=r), name="transposed")]


def _median_dim_samples(all_nan=True):
    """(nanmedian of an all-NaN slice: torch's index is its nth_element's, unspecified)"""
    r = own_rng(27)
    x = _distinct((3, 4, 5), F32, r)
    return [S(_distinct((3, 5), dt, r), 1, name=dtname(dt)) for dt in ALL] + [
        S(x, 0, name="dim0"), S(x, -1, True, name="last_keepdim"), S(x, 1, name="even_count"),
        S(_NAN_ROWS if all_nan else _NAN_ROWS[:2], 1, name="nan"),
        S(_NAN_ROWS[:2], 0, name="nan_dim0"),
        S(make((), F32, rng=r), 0, name="0d"), S(make((0, 3), F32, rng=r), 1, name="empty"),
        S(make((0, 3), F32, rng=r), 0, name="empty_dim_error"),
        S(View(_distinct((5, 3), F64, r), "transpose.int", (0, 1)), 1, name="transposed")]


register("median.default", _median_samples)
register("nanmedian.default", lambda: _median_samples() + [
    S(_a(NAN, NAN), name="all_nan")])
register("median.dim", _median_dim_samples)
register("nanmedian.dim", lambda: _median_dim_samples(all_nan=False))
register("kthvalue.default", lambda: [
    S(_distinct((3, 5), dt, own_rng(28)), 2, name=dtname(dt)) for dt in ALL] + [
    S(_distinct((3, 4, 5), F32, own_rng(29)), k, d, kd, name=f"k{k}_dim{d}_{kd}")
    for k, d, kd in ((1, 0, False), (4, 1, True), (5, -1, False))] + [
    S(_NAN_ROWS, 4, 1, name="nan_largest"), S(make((), F32, rng=own_rng(30)), 1, name="0d"),
    S(make((2, 3), F32, rng=own_rng(31)), 4, name="k_out_of_range_error"),
    S(make((2, 3), F32, rng=own_rng(32)), 0, name="k0_error"),
    S(make((0, 3), F32, rng=own_rng(33)), 1, 0, name="empty_dim_error")])


def _mode_samples():
    r = own_rng(34)
    return [S(make((3, 6), dt, low=0, high=4, rng=r), name=dtname(dt)) for dt in ALL] + [
        S(np.array([[3, 1, 3, 1, 2], [5, 5, 5, 0, 0]], I64), name="ties"),
        S(make((3, 4, 5), F32, low=0, high=3, rng=r).round(), 0, True, name="dim0_keepdim"),
        S(make((), F32, rng=r), name="0d"), S(make((0, 4), F32, rng=r), 0, name="empty_dim_error"),
        S(make((0, 4), I64, rng=r), 1, name="empty")]


register("mode.default", _mode_samples)


def _cum_extreme_samples():
    r = own_rng(35)
    return [S(make((3, 5), dt, rng=r), 1, name=dtname(dt)) for dt in ALL] + [
        S(make((3, 4), I32, low=0, high=3, rng=r), 0, name="int_ties"),
        S(_a([1.0, 3.0, 3.0, NAN, 5.0, NAN]), 0, name="nan"),
        S(make((), F32, rng=r), 0, name="0d"), S(make((0, 3), F32, rng=r), 0, name="empty"),
        S(transposed((3, 4), F64, rng=r), 1, name="transposed"),
        S(make((2, 3), F32, rng=r), 2, name="dim_error")]


register("cummax.default", _cum_extreme_samples)
register("cummin.default", _cum_extreme_samples)
register("logcumsumexp.default", lambda: [
    S(make((3, 5), dt, rng=own_rng(36)), 1, name=dtname(dt)) for dt in ALL] + [
    S(_a(-INF, 2.0, INF, 1.0, NAN), 0, name="infinities"),
    S(make((3, 4), F64, low=-50, high=50, rng=own_rng(37)), 0, name="wide"),
    S(make((), F32, rng=own_rng(38)), 0, name="0d"),
    S(make((0, 2), F32, rng=own_rng(39)), 0, name="empty")], tols=ACCUMULATING_ULPS)
out_of("logcumsumexp.out", "logcumsumexp.default")


def _aminmax_samples():
    r = own_rng(40)
    x = make((3, 4, 5), F32, rng=r)
    return [S(make((3, 5), dt, rng=r), name=dtname(dt)) for dt in ALL] + [
        S(x, dim=1, name="dim1"), S(x, dim=-1, keepdim=True, name="last_keepdim"),
        S(x, keepdim=True, name="all_keepdim"), S(_NAN_ROWS, dim=1, name="nan"),
        S(make((), F32, rng=r), dim=0, name="0d"), S(make((0, 3), F32, rng=r), dim=1, name="empty"),
        S(make((0, 3), F32, rng=r), dim=0, name="empty_dim_error"),
        S(make((0, 3), F32, rng=r), name="empty_all_error")]


register("aminmax.default", _aminmax_samples)


def _quantile_samples(scalar):
    r = own_rng(41)
    x = make((3, 6), F32, rng=r)

    def q(*v, dt=F32):
        return v[0] if scalar else np.array(v, dt)
    out = [S(x, q(0.25, 0.5, 0.9), name="all"), S(x, q(0.3, 1.0), 1, name="dim1"),
           S(x, q(0.0, 0.7), 0, True, name="dim0_keepdim"),
           S(x, q(0.4), None, True, name="all_keepdim"),
           S(make((3, 4), F64, rng=r), q(0.6, dt=F64), -1, name="float64"),
           S(_NAN_ROWS, q(0.5, 0.75), 1, name="nan"),
           S(make((), F32, rng=r), q(0.3), name="0d"),
           S(make((3, 4), I64, rng=r), q(0.5), name="int64_error"),
           S(make((0, 3), F32, rng=r), q(0.5), name="empty_error")]
    out += [S(x, q(0.15, 0.5, 0.85), 1, interpolation=m, name=m)
            for m in ("lower", "higher", "midpoint", "nearest")]
    out.append(S(x, q(0.5), 1, interpolation="cubic", name="interpolation_error"))
    if scalar:
        out.append(S(x, 1.5, name="q_range_error"))
    else:
        out += [S(x, np.array(0.5, F32), 1, name="0d_q"),
                S(x, np.array([0.5, 1.5], F32), name="q_range_error"),
                S(x, np.array([0.5], F64), name="q_dtype_error"),
                S(x, np.full((2, 2), 0.5, F32), name="q_2d_error")]
    return out


for _op in ("quantile", "nanquantile"):
    register(f"{_op}.default", lambda: _quantile_samples(False))
    register(f"{_op}.scalar", lambda: _quantile_samples(True))


def _histc_samples():
    r = own_rng(42)
    return [S(make((20,), dt, rng=r), 6, -4, 4, name=dtname(dt)) for dt in ALL] + [
        S(make((3, 10), F32, rng=r), name="default_range"),
        S(make((30,), F64, rng=r), 7, -2, 2, name="outside_ignored"),
        S(_a(0.0, 1.0, 1.0, 2.0, 3.0), 3, 0, 3, name="edges"),
        S(_a(2.0, 2.0), 4, name="constant"), S(make((0,), F32, rng=r), 5, name="empty"),
        S(make((5,), F32, rng=r), 4, 3, 0, name="min_above_max_error"),
        S(make((5,), F32, rng=r), 0, name="bins0_error")]


register("histc.default", _histc_samples)
out_of("histc.out", "histc.default")


def _histogram_samples(edges):
    def samples():
        r = own_rng(54)
        x = make((4, 5), F32, rng=r)
        b = (lambda dt=F32: np.array([-4, -1, 0, 2, 5], dt)) if edges else (lambda dt=F32: 6)
        out = [S(make((20,), dt, rng=r), b(dt) if edges else 6, name=dtname(dt))
               for dt in (F32, F64, I64, F16)]
        out += [S(x, b(), name="2d"), S(x, b(), density=True, name="density"),
                S(x, b(), weight=make((4, 5), F32, low=0, high=2, rng=r), name="weight"),
                S(x, b(), weight=make((4, 5), F64, rng=r), name="weight_dtype_error"),
                S(_a(2.0, 2.0), b(), name="constant"), S(make((0,), F32), b(), name="empty")]
        if edges:
            out.append(S(x, np.array([0, 1, 2], I64), name="bins_dtype_error"))
        else:
            out += [S(x, 5, range=[-1.0, 1.0], name="range"),
                    S(x, 4, range=[3.0, 0.0], name="range_order_error"),
                    S(x, 0, name="bins0_error")]
        return out
    return samples


register("histogram.bin_ct", _histogram_samples(False))
register("histogram.bins_tensor", _histogram_samples(True))


def _histogramdd_samples(kind):
    """Bins as a count per dim (`ints`), one count (`int`) or edge tensors (`tensors`)."""
    def samples():
        r = own_rng(55)
        x, x3 = make((6, 2), F32, rng=r), make((2, 4, 3), F64, rng=r)
        w = make((6,), F32, low=0, high=2, rng=r)
        b2, b3 = {"ints": ([3, 4], [2, 3, 2]), "int": (3, 2),
                  "tensors": ([np.array([-2, 0, 2], F32), np.array([-1, 1], F32)],
                              [np.array([-3, 0, 3], F64)] * 3)}[kind]
        out = [S(x, b2, name="float32"), S(x3, b3, density=True, name="3d_density"),
               S(x, b2, weight=w, name="weight"), S(make((0, 2), F32), b2, name="empty"),
               S(make((6,), F32, rng=r), b2, name="1d_error"),
               S(x, b2, weight=w.astype(F64), name="weight_dtype_error")]
        if kind != "tensors":
            out += [S(x, b2, range=[-1.0, 1.0, -2.0, 2.0], name="range"),
                    S(x, b2, range=[-1.0, 1.0], name="range_size_error")]
        if kind == "ints":
            out.append(S(x, [3], name="bins_size_error"))
        return out
    return samples


register("histogramdd.default", _histogramdd_samples("ints"))
register("histogramdd.int_bins", _histogramdd_samples("int"))
register("histogramdd.TensorList_bins", _histogramdd_samples("tensors"))


def _bincount_samples():
    r = own_rng(43)
    x = make((12,), I64, low=0, high=6, rng=r)
    out = [S(make((12,), dt, low=0, high=6, rng=r), name=dtname(dt)) for dt in (U8, I32, I64)]
    out += [S(x, make((12,), F32, rng=r), name="float32_weights"),
            S(x, make((12,), F64, rng=r), name="float64_weights"),
            S(x, make((12,), I32, rng=r), name="int32_weights"),
            S(x, None, 10, name="minlength"), S(make((0,), I64), name="empty"),
            S(np.array([1, -2, 2], I64), name="negative_error"),
            S(make((4,), F32, rng=r), name="float_error"),
            S(make((2, 3), I64, low=0, high=3, rng=r), name="2d_error"),
            S(make((4,), BOOL, rng=r), name="bool_error")]
    for s in out:
        s.data_dependent = True
    return out


register("bincount.default", _bincount_samples)


def _isin_samples():
    r = own_rng(44)
    el = make((3, 4), I64, low=0, high=8, rng=r)
    test = np.array([1, 3, 5, 7], I64)
    return [S(make((3, 4), dt, low=0, high=8, rng=r), test.astype(dt), name=dtname(dt))
            for dt in ALL] + [
        S(el, test, invert=True, name="invert"), S(el, test, assume_unique=True, name="unique"),
        S(el.astype(F32), test, name="float_int"), S(make((0,), I64), test, name="empty"),
        S(transposed((3, 4), I32, low=0, high=8, rng=r), test, name="transposed")]


register("isin.Tensor_Tensor", _isin_samples)
out_of("isin.Tensor_Tensor_out", "isin.Tensor_Tensor")
register("isin.Tensor_Scalar", lambda: [
    S(make((3, 4), dt, low=0, high=4, rng=own_rng(45)), 2, name=dtname(dt))
    for dt in (U8, I32, I64, F32, F64)] + [
    S(make((3, 4), I64, low=0, high=4, rng=own_rng(46)), 2, invert=True, name="invert")])


def _diff_samples():
    r = own_rng(47)
    x = make((3, 5), F32, rng=r)
    return [S(make((3, 5), dt, rng=r), name=dtname(dt)) for dt in ALL] + [
        S(x, 2, 0, name="n2_dim0"), S(x, 3, -1, name="n3"), S(x, 6, name="n_beyond_size"),
        S(x, 0, name="n0"), S(x, 1, 1, make((3, 2), F32, rng=r), make((3, 1), F32, rng=r),
                              name="prepend_append"),
        S(transposed((3, 5), F64, rng=r), 1, 0, name="transposed"),
        S(make((), F32, rng=r), name="0d_error"), S(x, -1, name="negative_n_error"),
        S(x, 1, 1, make((3,), F32, rng=r), name="prepend_dims_error")]


register("diff.default", _diff_samples)


def _trapezoid_samples(x_overload, cumulative=False):
    def samples():
        r = own_rng(48)
        y = make((3, 5), F32, rng=r)
        if x_overload:
            xs = np.sort(make((5,), F32, rng=r))
            out = [S(y, xs, name="1d_x"), S(y, np.sort(make((3, 5), F32, rng=r), 1), name="2d_x"),
                   S(y, np.sort(make((3,), F64, rng=r)), dim=0, name="dim0_float64_x"),
                   S(make((3, 5), I64, rng=r), xs, name="int_y"),
                   S(y, make((4,), F32, rng=r), name="x_size_error")]
        else:
            out = [S(y, name="default"), S(y, dx=0.5, name="dx"), S(y, dx=2, dim=0, name="dim0"),
                   S(make((3, 5), I64, rng=r), dx=3, name="int_y"),
                   S(transposed((5, 3), F64, rng=r), dx=0.25, name="transposed")]
        if not cumulative:
            out.append(S(make((3, 0), F32), *([np.zeros(0, F32)] if x_overload else []),
                         name="empty_dim"))
        return out
    return samples


register("trapezoid.x", _trapezoid_samples(True), tols=ACCUMULATING_ULPS)
register("trapezoid.dx", _trapezoid_samples(False), tols=ACCUMULATING_ULPS)
register("trapz.x", _trapezoid_samples(True), tols=ACCUMULATING_ULPS)
register("trapz.dx", _trapezoid_samples(False), tols=ACCUMULATING_ULPS)
register("cumulative_trapezoid.x", _trapezoid_samples(True, True), tols=ACCUMULATING_ULPS)
register("cumulative_trapezoid.dx", _trapezoid_samples(False, True), tols=ACCUMULATING_ULPS)


def _cov_samples():
    r = own_rng(49)
    x = make((3, 6), F32, rng=r)
    return [S(make((3, 6), dt, rng=r), name=dtname(dt)) for dt in (I64, F32, F64)] + [
        S(make((6,), F64, rng=r), name="1d"), S(x, correction=0, name="biased"),
        S(x, fweights=np.array([1, 2, 1, 3, 1, 1], I64), name="fweights"),
        S(x, aweights=make((6,), F32, low=0.1, high=2, rng=r), name="aweights"),
        S(x, correction=2, fweights=np.array([1, 2, 1, 3, 1, 1], I64),
          aweights=make((6,), F32, low=0.1, high=2, rng=r), name="both_weights"),
        S(transposed((3, 6), F64, rng=r), name="transposed"),
        S(make((2, 2, 2), F32, rng=r), name="3d_error"),
        S(x, fweights=np.array([1, 2], I64), name="fweights_size_error")]


register("cov.default", _cov_samples, tols=ACCUMULATING_ULPS)
register("corrcoef.default", lambda: [
    S(make((3, 6), dt, rng=own_rng(50)), name=dtname(dt)) for dt in (I64, F32, F64)] + [
    S(make((6,), F64, rng=own_rng(51)), name="1d"),
    S(transposed((4, 5), F32, rng=own_rng(52)), name="transposed")], tols=ACCUMULATING_ULPS)


def _cdist_samples():
    r = own_rng(53)
    a, b = make((4, 3), F32, rng=r), make((5, 3), F32, rng=r)
    return [S(a, b, name="p2"), S(a, b, 1.0, name="p1"), S(a, b, 0.0, name="p0"),
            S(a, b, 3.0, name="p3"), S(a, b, INF, name="pinf"),
            S(a, b.astype(F64), name="mixed_dtypes_error"),
            S(make((2, 4, 3), F64, rng=r), make((2, 5, 3), F64, rng=r), name="batched"),
            S(make((2, 4, 3), F32, rng=r), make((5, 3), F32, rng=r), name="broadcast_batch"),
            S(a, make((5, 2), F32, rng=r), name="columns_error"),
            S(make((3,), F32, rng=r), b, name="1d_error"),
            S(a, b, -1.0, name="negative_p_error"),
            S(make((4, 3), I64, rng=r), make((5, 3), I64, rng=r), name="int_error")]


register("cdist.default", _cdist_samples, tols=ACCUMULATING_ULPS)


def grad_extra() -> dict:
    """{overload name: [SampleInput, ...]} added to the gradient samples."""
    zeros1 = _a([1.5, 0.0, 2.0], [0.5, -1.0, 3.0])            # one zero in a row
    zeros2 = _a([0.0, 0.0, 2.0], [0.5, -1.0, 3.0])            # two zeros in a row
    return {
        "prod.default": [S(zeros1, name="one_zero"), S(zeros2, name="two_zeros"),
                         S(make((3, 4), F32), dtype=E.float64, name="dtype_float64")],
        "prod.dim_int": [S(zeros1, 1, name="one_zero"), S(zeros2, 1, True, name="two_zeros"),
                         S(zeros2, 0, name="zeros_other_dim")],
        "amin.default": [S(_a([1, 0, 0], [2, 2, 3]), [1], name="nonsmooth_ties")],
        "max.default": [S(_a([1, 3, 3], [2, 0, 1]), name="nonsmooth_ties")],
        "min.default": [S(_a([1, 0, 0], [2, 0, 1]), name="nonsmooth_ties")],
        "max.dim": [S(make((3, 4), F32), 1, True, name="keepdim")],
        "min.dim": [S(make((3, 4), F32), 0, name="dim0")],
        "max.other": [S(_a([1, 2, 3]), _a([1, 0, 4]), name="nonsmooth_ties")],
        "min.other": [S(_a([1, 2, 3]), _a([1, 0, 4]), name="nonsmooth_ties")],
        "var.correction": [S(make((3, 4), F32), [1], correction=0, name="biased"),
                           S(make((3, 4), F32), 0, correction=2, keepdim=True, name="corr2")],
        "std.correction": [S(make((3, 4), F32), [1], correction=0, name="biased"),
                           S(_a([1, 1, 1], [1, 2, 3]), [1], name="nonsmooth_zero_std")],
        "var_mean.correction": [S(make((3, 4), F32), [1], name="dim1")],
        "std_mean.correction": [S(make((3, 4), F32), [0], correction=0, name="dim0")],
        "logsumexp.default": [S(make((3, 4), F32), [0, 1], True, name="all_keepdim")],
        "linalg_vector_norm.default": [
            S(make((3, 4), F32), o, [1], name=f"ord_{o}") for o in (1, 2, 3, 0.5, 1.5, INF)] + [
            S(make((3, 4), F32), 2, dtype=E.float64, name="dtype_float64"),
            S(_a([0, 0, 0], [1, 2, 2]), 2, [1], name="nonsmooth_zero_row"),
            S(_a([0, 1, -2], [1, 0, 2]), 1, name="nonsmooth_p1_zero"),
            S(_a([0, 1, -2], [1, 0, 2]), 0.5, name="nonsmooth_p05_zero"),
            S(_a([3, -3, 1], [1, 0, 2]), INF, [1], name="nonsmooth_inf_ties"),
            S(_a([0, 1, -2], [1, 0, 2]), 0, name="ord0")],
        "cumsum.default": [S(make((3, 4), F32), 1, dtype=E.float64, name="dtype_float64")],
        "cumsum_.default": [S(make((3, 4), F32), 0, name="float32")],
        "cumprod.default": [S(zeros1, 1, name="one_zero"), S(zeros2, 1, name="two_zeros"),
                            S(make((3, 4), F32, low=0.5, high=2), 0, name="positive")],
        "cumprod_.default": [S(make((3, 4), F32, low=0.5, high=2), 1, name="float32")],
    }
