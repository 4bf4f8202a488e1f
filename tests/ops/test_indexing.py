"""cat, stack, index (advanced indexing), index_put_ and index_put against torch: values,
dtypes, shapes and exact strides (index follows torch's TensorIterator layout), type
promotion, masks, broadcasting, non-contiguous inputs; Meta layouts; torch's errors."""
import warnings
from functools import partial

import numpy as np
import pytest
from helpers import DTYPES, builtin_type, check, meta_of, pair, raises_like, to_np
from helpers import layout_pair as inputs
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.kernels.cpu import indexing as cpu_indexing

torch = pytest.importorskip("torch")


# --- helpers -------------------------------------------------------------------------------
def idx(*values, dtype=np.int64):
    return pair(np.array(values, dtype))


def split(pairs):
    return [p[0] for p in pairs], [p[1] for p in pairs]


# --- cat -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_cat(name, dim, layout):
    shapes = [(2, 3), (2, 3), (2, 3)]
    if dim % 2 == 0:
        shapes = [(2, 3), (1, 3), (4, 3)]
    else:
        shapes = [(2, 3), (2, 1), (2, 5)]
    es, ts = split([inputs(s, name, layout, seed=i) for i, s in enumerate(shapes)])
    check(ember.cat(es, dim), torch.cat(ts, dim))
    check(ember.cat(tuple(es), dim=dim), torch.cat(tuple(ts), dim=dim))


@pytest.mark.parametrize("a,b", [("int32", "float16"), ("bool", "uint8"), ("uint8", "int8"),
                                 ("float16", "bfloat16"), ("int64", "float32"),
                                 ("bool", "float64"), ("int32", "int64")])
def test_cat_promotes_like_torch(a, b):
    ea, ta = inputs((2, 3), a if a != "int8" else "int32")
    eb, tb = inputs((1, 3), b if b != "int8" else "int32")
    if "int8" in (a, b):
        ea, ta = pair(np.arange(6, dtype=np.uint8).reshape(2, 3))
        eb, tb = pair(np.arange(3, dtype=np.int8).reshape(1, 3) - 5)
    check(ember.cat([ea, eb]), torch.cat([ta, tb]))


def test_cat_legacy_empty_and_edge_cases():
    for shapes, dim in [([(2, 3), (0,)], 0), ([(0,), (2, 3)], -1), ([(0,), (0,)], 0),
                        ([(0, 3), (0, 3)], 0), ([(3, 0), (3, 4)], 1), ([(4,)], 0),
                        ([(2, 3), (0,), (1, 3)], 0), ([(0,), (0,)], 3)]:
        es, ts = split([inputs(s, seed=i) for i, s in enumerate(shapes)])
        check(ember.cat(es, dim), torch.cat(ts, dim))
    # the skipped 1-D empty tensor still takes part in dtype promotion
    ea, ta = inputs((2, 2), "int64")
    eb, tb = inputs((0,), "float64")
    check(ember.cat([ea, eb]), torch.cat([ta, tb]))


def test_cat_channels_last_and_result_is_fresh():
    es, ts = split([inputs((2, 3, 4, 5), "float32", "channels_last", seed=i) for i in range(2)])
    check(ember.cat(es, 1), torch.cat(ts, 1))
    mixed_e = [es[0], inputs((2, 3, 4, 5))[0]]
    mixed_t = [ts[0], inputs((2, 3, 4, 5))[1]]
    check(ember.cat(mixed_e, 1), torch.cat(mixed_t, 1))
    r = ember.cat(es[:1])
    assert not np.shares_memory(r.numpy(), es[0].numpy())


def test_cat_errors():
    e, t = split([inputs((2, 3)), inputs((3, 3))])
    raises_like(lambda: ember.cat(e, 1), lambda: torch.cat(t, 1),
                "Sizes of tensors must match except in dimension 1. Expected size 2 but got size "
                "3 for tensor number 1 in the list.")
    e, t = split([inputs((2, 3)), inputs((2, 3, 1))])
    raises_like(lambda: ember.cat(e), lambda: torch.cat(t),
                "Tensors must have same number of dimensions: got 2 and 3")
    e, t = split([inputs((2, 3)), inputs(())])
    raises_like(lambda: ember.cat(e), lambda: torch.cat(t),
                "zero-dimensional tensor (at position 1) cannot be concatenated")
    e, t = split([inputs((2, 3)), inputs((2, 3))])
    raises_like(lambda: ember.cat(e, 2), lambda: torch.cat(t, 2), "Dimension out of range")
    raises_like(lambda: ember.cat(e, -3), lambda: torch.cat(t, -3), "Dimension out of range")
    raises_like(lambda: ember.cat([]), lambda: torch.cat([]),
                "cat(): expected a non-empty list of Tensors")
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        cpu_indexing.cat([], 0)


# --- stack -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack(name, dim):
    es, ts = split([inputs((2, 3), name, "transposed" if i else "contiguous", seed=i)
                    for i in range(3)])
    check(ember.stack(es, dim), torch.stack(ts, dim))


def test_stack_edge_cases_and_errors():
    for shapes, dim in [([(), ()], 0), ([(), ()], -1), ([(0,), (0,)], 1), ([(0, 2)], 1)]:
        es, ts = split([inputs(s, seed=i) for i, s in enumerate(shapes)])
        check(ember.stack(es, dim), torch.stack(ts, dim))
    ea, ta = inputs((2, 3), "int32")
    eb, tb = inputs((2, 3), "float64")
    check(ember.stack([ea, eb]), torch.stack([ta, tb]))
    e, t = split([inputs((2, 3)), inputs((2, 4))])
    raises_like(lambda: ember.stack(e), lambda: torch.stack(t),
                "stack expects each tensor to be equal size")
    assert "[2, 3] at entry 0 and [2, 4] at entry 1" in str(
        pytest.raises(RuntimeError, ember.stack, e).value)
    raises_like(lambda: ember.stack(e[:1], 3), lambda: torch.stack(t[:1], 3),
                "Dimension out of range")
    raises_like(lambda: ember.stack([]), lambda: torch.stack([]),
                "stack expects a non-empty TensorList")
    a, ta = ember.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    assert ember.stack([a, a]).grad_fn.name() == torch.stack([ta, ta]).grad_fn.name()
    # conjugated views (a lazy bit over the same data) stack their conjugate values
    z = np.array([1 + 2j, 3 - 1j], np.complex64)
    ez, tz = ember.from_numpy(z).conj(), torch.from_numpy(z).conj()
    check(ember.stack([ez, ember.from_numpy(z)], 1), torch.stack([tz, torch.from_numpy(z)], 1))


# --- index -----------------------------------------------------------------------------------
def _index_cases():
    """(self shape, self layout, index specs): a spec is None, ("i", values/array, dtype)
    or ("m", bool array)."""
    rng = np.random.default_rng(5)
    return [
        ((4, 5), "contiguous", [("i", [0, 2, 2, -1])]),
        ((4, 5), "contiguous", [("i", [0, 3]), ("i", [1, -1])]),
        ((4, 5), "contiguous", [("i", [[0], [3]]), ("i", [1, 2, 4])]),
        ((4, 5), "contiguous", [None, ("i", [4, 0])]),
        ((2, 3, 4), "contiguous", [("i", [1]), None, ("i", [0, 3])]),
        ((2, 3, 4), "transposed", [("i", [1, 0]), None, ("i", [0, 1])]),
        ((4, 5), "contiguous", [("i32", [1, 0])]),
        ((4, 5), "contiguous", [("i", [])]),
        ((4, 5), "contiguous", [("i", np.zeros((2, 0), np.int64))]),
        ((0, 3), "contiguous", [("i", [])]),
        ((4,), "contiguous", [("i", np.array(2))]),
        ((4, 5), "transposed", [("i", [1, 3])]),
        ((4, 5, 6), "transposed", [None, ("i", [1, 3])]),
        ((4, 5, 6), "transposed", [None, None, ("i", [[1, 3], [0, 2]])]),
        ((4, 5, 6), "strided", [("i", [[1, 3]]), None, ("i", [0, 5])]),
        ((4, 5), "contiguous", [("m", rng.random((4, 5)) < 0.5)]),
        ((4, 5), "contiguous", [("m", np.array([True, False, True, True]))]),
        ((4, 5), "contiguous", [None, ("m", np.array([True, False, True, True, False]))]),
        ((2, 3, 4), "transposed", [("m", rng.random((2, 3)) < 0.5), ("i", [0])]),
        ((2, 3, 4), "contiguous", [("m", rng.random((2, 3)) < 0.5), None]),
        ((2, 3, 4), "contiguous", [("i", [1, 0]), ("m", np.array([True, False, True]))]),
        ((3, 4), "contiguous", [("u8", np.array([1, 0, 1], np.uint8))]),
        ((3, 4), "contiguous", [("m", np.zeros(3, bool))]),
    ]


_KIND_DTYPE = {"i": np.int64, "i32": np.int32, "m": np.bool_, "u8": np.uint8}


def _build_index(specs):
    """(ember list, torch list) of optional index tensors from `_index_cases` specs."""
    out_e, out_t = [], []
    for spec in specs:
        e = t = None
        if spec is not None:
            kind, values = spec
            e, t = pair(np.asarray(values, _KIND_DTYPE[kind]))
        out_e.append(e)
        out_t.append(t)
    return out_e, out_t


@pytest.mark.parametrize("case", range(len(_index_cases())))
@pytest.mark.parametrize("name", ["bool", "int64", "bfloat16", "float32"])
def test_index(case, name):
    shape, layout, specs = _index_cases()[case]
    x_e, x_t = inputs(shape, name, layout)
    i_e, i_t = _build_index(specs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(ember.index(x_e, i_e), torch.ops.aten.index(x_t, i_t))
        check(x_e.index(i_e), torch.ops.aten.index(x_t, i_t))


@pytest.mark.parametrize("name", DTYPES)
def test_index_dtypes_and_result_is_a_copy(name):
    x_e, x_t = inputs((4, 5), name)
    i_e, i_t = idx(3, 0, -1)
    r = ember.index(x_e, [i_e])
    check(r, torch.ops.aten.index(x_t, [i_t]))
    assert not np.shares_memory(r.numpy(), x_e.numpy())


def test_index_transposed_index_tensor_gives_torch_layout():
    x_e, x_t = inputs((4, 5, 6))
    a = np.array([[0, 1, 2], [3, 0, 1]])
    i_e, i_t = pair(a.T.copy())
    check(ember.index(x_e, [i_e.t()]), torch.ops.aten.index(x_t, [i_t.t()]))
    check(ember.index(x_e, [None, i_e.t()]), torch.ops.aten.index(x_t, [None, i_t.t()]))


def test_index_errors():
    x_e, x_t = inputs((3, 4))
    for values, phrase in [([5], "index 5 is out of bounds for dimension 0 with size 3"),
                           ([-4], "index -4 is out of bounds for dimension 0 with size 3")]:
        i_e, i_t = idx(*values)
        raises_like(partial(ember.index, x_e, [i_e]), partial(torch.ops.aten.index, x_t, [i_t]),
                    phrase)
    i_e, i_t = idx(0, 4)
    raises_like(lambda: ember.index(x_e, [None, i_e]),
                lambda: torch.ops.aten.index(x_t, [None, i_t]),
                "index 4 is out of bounds for dimension 0 with size 4")
    a_e, a_t = idx(0, 1)
    b_e, b_t = idx(0, 1, 2)
    raises_like(lambda: ember.index(x_e, [a_e, b_e]), lambda: torch.ops.aten.index(x_t, [a_t, b_t]),
                "shape mismatch: indexing tensors could not be broadcast together with shapes "
                "[2], [3]")
    f_e, f_t = pair(np.array([1.0]))
    raises_like(lambda: ember.index(x_e, [f_e]), lambda: torch.ops.aten.index(x_t, [f_t]),
                "tensors used as indices must be long, int, byte or bool tensors")
    s_e, s_t = pair(np.array([1], np.int16))
    raises_like(lambda: ember.index(x_e, [s_e]), lambda: torch.ops.aten.index(x_t, [s_t]),
                "tensors used as indices must be long, int, byte or bool tensors")
    m_e, m_t = pair(np.array([True, False]))
    raises_like(lambda: ember.index(x_e, [m_e]), lambda: torch.ops.aten.index(x_t, [m_t]),
                "The shape of the mask [2] at index 0 does not match the shape of the indexed "
                "tensor [3, 4] at index 0")
    raises_like(lambda: ember.index(x_e, [a_e] * 3), lambda: torch.ops.aten.index(x_t, [a_t] * 3),
                "too many indices for tensor of dimension 2 (got 3)")
    raises_like(lambda: ember.index(x_e, []), lambda: torch.ops.aten.index(x_t, []),
                "at least one index must be provided")
    z_e, z_t = inputs((0, 3))
    raises_like(lambda: ember.index(z_e, [a_e]), lambda: torch.ops.aten.index(z_t, [a_t]),
                "index is out of bounds for dimension with size 0")


def test_index_empty_result_skips_bounds_check_like_torch():
    x_e, x_t = inputs((3, 4))
    a_e, a_t = idx(7)
    b_e, b_t = pair(np.zeros((0,), np.int64))
    check(ember.index(x_e, [a_e, b_e]), torch.ops.aten.index(x_t, [a_t, b_t]))


def test_index_uint8_mask_warns():
    x_e, _ = inputs((3, 4))
    m_e, _ = pair(np.array([1, 0, 1], np.uint8))
    with pytest.warns(UserWarning, match="uint8 is now deprecated"):
        assert ember.index(x_e, [m_e]).shape == (2, 4)


@pytest.mark.filterwarnings("ignore:indexing with dtype ember.uint8")
@pytest.mark.parametrize("case", range(len(_index_cases())))
def test_index_meta_matches_cpu(case):
    shape, layout, specs = _index_cases()[case]
    x_e, _ = inputs(shape, "float32", layout)
    i_e, _ = _build_index(specs)
    m_x = meta_of(x_e)
    m_i = [None if i is None else meta_of(i) for i in i_e]
    if any(s is not None and s[0] in ("m", "u8") for s in specs):
        with pytest.raises(NotImplementedError, match="dynamic output shape"):
            ember.index(m_x, m_i)
        return
    c = ember.index(x_e, i_e)
    m = ember.index(m_x, m_i)
    assert m.device.type == "meta"
    assert (m.shape, m.dtype, m.stride()) == (c.shape, c.dtype, c.stride())


def test_index_meta_errors_are_runtime_errors_like_torch():
    m = ember.empty(4, 5, device="meta")
    f = ember.empty(2, device="meta")
    with pytest.raises(RuntimeError, match="tensors used as indices must be long"):
        ember.index(m, [f])
    i = ember.empty(1, dtype=ember.int64, device="meta")
    with pytest.raises(RuntimeError, match="too many indices for tensor of dimension 2"):
        ember.index(m, [i, i, i])


# --- index_put_ / index_put ---------------------------------------------------------------------
@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_dtypes(name, accumulate):
    x_e, x_t = inputs((4, 5), name)
    i_e, i_t = idx(0, 2)
    v_e, v_t = inputs((5,), name, seed=1)
    r = x_e.index_put_([i_e], v_e, accumulate)
    assert r is x_e
    x_t.index_put_([i_t], v_t, accumulate)
    check(x_e, x_t)


INDEX_PUT_CASES = [  # (self shape, layout, index specs, values shape, accumulate)
    ((4, 5), "contiguous", [("i", [0, 3]), ("i", [1, -1])], (2,), False),
    ((4, 5), "contiguous", [("i", [1, 1, 2])], (3, 5), True),
    ((4, 5), "contiguous", [None, ("i", [0, 0])], (4, 2), True),
    ((4, 5), "contiguous", [None, ("i", [0, 0, 4])], (3,), True),
    ((4, 5), "contiguous", [("i", [0, 3])], (), False),
    ((4, 5), "contiguous", [("i", [0, 3])], (1, 5), False),
    ((4, 5), "transposed", [("i", [1, 3])], (2, 5), False),
    ((4, 5, 6), "transposed", [("i", [1, 3]), None, ("i", [0, 5])], (2, 5), True),
    ((4, 5, 6), "strided", [None, ("i", [[1], [3]]), ("i", [0, 5])], (2,), False),
    ((4, 5), "contiguous", [("m", np.array([True, False, True, True]))], (5,), False),
    ((4, 5), "contiguous", [("m", np.array([True, False, True, True]))], (3, 5), True),
    ((4, 5), "contiguous", [("m", np.arange(20).reshape(4, 5) % 3 == 0)], (), False),
    ((4, 5), "contiguous", [("i", [])], (5,), False),
    # dim 0 only, accumulating: whole rows added (index's backward)
    ((4, 5), "contiguous", [("i", [[1, 1, -1], [2, 1, 0]])], (2, 3, 5), True),
    ((4, 5, 6), "contiguous", [("i", [3, 3, 0])], (3, 5, 6), True),
    ((4, 5), "transposed", [("i", [1, 1])], (2, 5), True),
]


def test_index_put_accumulating_rows_has_add_ats_bits():
    """Rows added by index (dim 0 only) give np.add.at's bits: each row's additions in
    index order (the compiled row loop), here with many repeats of mixed magnitudes."""
    rng = np.random.default_rng(4)
    idx_np = rng.integers(-7, 7, (40, 3))
    values = (rng.standard_normal((40, 3, 9)) * 10.0 ** rng.integers(-4, 5, (40, 3, 1)))
    for dt in (np.float32, np.float64):
        expected = np.zeros((7, 9), dt)
        np.add.at(expected, idx_np, values.astype(dt))
        got = ember.zeros(7, 9, dtype=ember.float32 if dt == np.float32 else ember.float64)
        got.index_put_((ember.from_numpy(idx_np),), ember.from_numpy(values.astype(dt)), True)
        assert got.numpy().tobytes() == expected.tobytes()


@pytest.mark.parametrize("case", INDEX_PUT_CASES)
def test_index_put_cases(case):
    shape, layout, specs, vshape, accumulate = case
    x_e, x_t = inputs(shape, "float32", layout)
    i_e, i_t = _build_index(specs)
    v_e, v_t = inputs(vshape, "float32", seed=3)
    r_e = ember.index_put(x_e, i_e, v_e, accumulate)
    r_t = torch.ops.aten.index_put(x_t, i_t, v_t, accumulate)
    check(r_e, r_t)
    assert not np.shares_memory(r_e.numpy(), x_e.numpy())
    check(x_e, x_t)  # index_put leaves self alone
    x_e.index_put_(i_e, v_e, accumulate=accumulate)
    torch.ops.aten.index_put_(x_t, i_t, v_t, accumulate)
    check(x_e, x_t)


def test_index_put_keeps_strides_of_self():
    x_e, x_t = inputs((4, 5), "float32", "transposed")
    i_e, i_t = idx(1)
    v_e, v_t = inputs((), "float32")
    check(ember.index_put(x_e, [i_e], v_e), torch.index_put(x_t, [i_t], v_t))


def test_index_put_writes_through_views():
    base_e, base_t = inputs((4, 6))
    view_e, view_t = base_e[:, 1::2], base_t[:, 1::2]
    i_e, i_t = idx(0, 2)
    v_e, v_t = inputs((2, 3), seed=2)
    view_e.index_put_([i_e], v_e)
    view_t.index_put_([i_t], v_t)
    check(base_e, base_t)


def test_index_put_mask_with_scalar_of_another_dtype_acts_like_masked_fill():
    x_e, x_t = inputs((3,), "float32")
    m_e, m_t = pair(np.array([True, False, True]))
    for v in (np.array(1), np.array(2.5, np.float64), np.array([7], np.int64)):
        v_e, v_t = pair(v)
        x_e.index_put_([m_e], v_e)
        x_t.index_put_([m_t], v_t)
        check(x_e, x_t)


def test_index_put_errors():
    x_e, x_t = inputs((4, 5))
    i_e, i_t = idx(0, 3)
    d_e, d_t = inputs((5,), "float64")
    raises_like(lambda: x_e.index_put_([i_e], d_e), lambda: x_t.index_put_([i_t], d_t),
                "Index put requires the source and destination dtypes match, got Float for the "
                "destination and Double for the source.")
    v_e, v_t = inputs((3, 5))
    raises_like(lambda: x_e.index_put_([i_e], v_e), lambda: x_t.index_put_([i_t], v_t),
                "shape mismatch: value tensor of shape [3, 5] cannot be broadcast to indexing "
                "result of shape [2, 5]")
    o_e, o_t = idx(5)
    w_e, w_t = inputs((5,))
    raises_like(lambda: x_e.index_put_([o_e], w_e), lambda: x_t.index_put_([o_t], w_t),
                "index 5 is out of bounds for dimension 0 with size 4")
    raises_like(lambda: x_e.index_put_([o_e], w_e, True), lambda: x_t.index_put_([o_t], w_t, True),
                "out of bounds")
    f_e, f_t = pair(np.array([0.0]))
    raises_like(lambda: x_e.index_put_([f_e], w_e), lambda: x_t.index_put_([f_t], w_t),
                "tensors used as indices must be long, int, byte or bool tensors")
    np.testing.assert_array_equal(to_np(x_e), to_np(x_t))  # nothing was written


def test_index_put_meta():
    m = ember.empty(4, 5, device="meta")
    i = ember.empty(2, dtype=ember.int64, device="meta")
    assert m.index_put_([i], ember.empty(5, device="meta")) is m
    r = ember.index_put(m, [None, i], ember.empty(4, 2, device="meta"), True)
    assert (r.device.type, r.shape, r.stride()) == ("meta", (4, 5), (5, 1))
    mask = ember.empty(4, dtype=ember.bool, device="meta")
    assert m.index_put_([mask], ember.empty((), device="meta")) is m
    with pytest.raises(RuntimeError, match="dtypes match"):
        m.index_put_([i], ember.empty(5, dtype=ember.float64, device="meta"))
    with pytest.raises(RuntimeError, match="shape mismatch"):
        m.index_put_([i], ember.empty(3, device="meta"))


# --- property test: random index lists against torch ----------------------------------------
@st.composite
def index_lists(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=4)))
    ndim = len(shape)
    entries, d = [], 0
    while d < ndim and (not entries or draw(st.booleans())):
        kind = draw(st.sampled_from(["none", "int", "int", "int32", "mask"]))
        if kind == "none":
            entries.append(None)
            d += 1
        elif kind == "mask":
            k = draw(st.integers(1, ndim - d))
            entries.append(("m", np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(
                shape[d:d + k])), max_size=int(np.prod(shape[d:d + k]))))).reshape(shape[d:d + k])))
            d += k
        else:
            ishape = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
            n = shape[d]
            values = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(ishape)),
                                   max_size=int(np.prod(ishape)))) if n else []
            a = np.array(values, np.int64).reshape(ishape if n else (0,))
            entries.append(("i32" if kind == "int32" else "i", a))
            d += 1
    layout = draw(st.sampled_from(["contiguous", "transposed"]))
    return shape, layout, entries


@settings(max_examples=300, deadline=None)
@given(case=index_lists(), accumulate=st.booleans())
def test_random_index_and_index_put_match_torch(case, accumulate):
    shape, layout, specs = case
    x_e, x_t = inputs(shape, "float32", layout)
    i_e, i_t = _build_index(specs)
    try:
        r_t = torch.ops.aten.index(x_t, i_t)
    except Exception as exc:  # noqa: BLE001
        if "INTERNAL ASSERT" in str(exc):
            return
        with pytest.raises(builtin_type(type(exc))):
            ember.index(x_e, i_e)
        return
    r_e = ember.index(x_e, i_e)
    check(r_e, r_t)
    if all(i is None for i in i_t):
        return
    v_e, v_t = inputs(tuple(r_t.shape), "float32", seed=9)
    torch.ops.aten.index_put_(x_t, i_t, v_t, accumulate)
    x_e.index_put_(i_e, v_e, accumulate)
    if accumulate or not any(s is not None and s[0] != "m" for s in specs):
        check(x_e, x_t)  # (without accumulate, duplicate indices may keep either value)
