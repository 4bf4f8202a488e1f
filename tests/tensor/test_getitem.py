"""Tensor.__getitem__ / __setitem__ against torch: basic indexing gives views (same
storage, strides, offset), advanced indexing copies; ints, slices, None, Ellipsis, bools,
lists, index tensors, masks and tuples mixing them; setitem with numbers and tensors;
Meta tensors; torch's errors; a property test of random index expressions."""
import warnings

import numpy as np
import pytest
from helpers import DTYPES, builtin_type, check, ember_of, layout_pair, meta_of, np_data
from hypothesis import given, settings
from hypothesis import strategies as st

import ember

torch = pytest.importorskip("torch")


# --- helpers -------------------------------------------------------------------------------
def inputs(shape, name="int64", layout="contiguous", seed=0):
    """An (ember, torch) pair, int64 by default; "transposed" only for 2 or more dims."""
    return layout_pair(shape, name, layout if len(shape) >= 2 else "contiguous", seed)


def shares(e, base):
    return e.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()


def ember_index(index, like=None):
    """The torch index expression with torch tensors swapped for ember ones."""
    if isinstance(index, torch.Tensor):
        return ember_of(index.numpy())
    if isinstance(index, tuple):
        return tuple(ember_index(i) for i in index)
    if isinstance(index, list):
        return [ember_index(i) for i in index]
    return index


def same_getitem(x_e, x_t, index):
    """x[index] on both: same layout and values, a view exactly when torch's is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r_t = x_t[index]
        except Exception as exc:  # noqa: BLE001
            with pytest.raises(builtin_type(type(exc))):
                x_e[ember_index(index)]
            return exc
        r_e = x_e[ember_index(index)]
    check(r_e, r_t)
    assert r_e.storage_offset() == r_t.storage_offset()
    if r_t.numel():  # (empty tensors may have no memory to share)
        assert shares(r_e, x_e) == shares(r_t, x_t), index
    return None


def same_setitem(x_e, x_t, index, value):
    v_e = ember_of(value.numpy()) if isinstance(value, torch.Tensor) else value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            x_t[index] = value
        except Exception as exc:  # noqa: BLE001
            with pytest.raises(builtin_type(type(exc))):
                x_e[ember_index(index)] = v_e
            return exc
        x_e[ember_index(index)] = v_e
    check(x_e, x_t)
    return None


# --- basic indexing: views --------------------------------------------------------------------
BASIC = [0, -1, 2, slice(None), slice(1, 3), slice(None, None, 2), slice(-3, None),
         slice(5, 1), slice(1, 100), slice(-100, 2), slice(None, None, 3), None, Ellipsis,
         (0, 1), (slice(None), 1), (1, slice(None), 2), (Ellipsis, 0), (0, Ellipsis),
         (None, 0, None), (slice(1, None), None, slice(None, None, 2)), (Ellipsis, None),
         (0, 1, 2), (slice(None), slice(None)), (), (-1, -1, -1), (None,), (1, Ellipsis, None)]


@pytest.mark.parametrize("index", BASIC, ids=[repr(i) for i in BASIC])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_basic_indexing_is_a_view(index, layout):
    x_e, x_t = inputs((3, 4, 5), layout=layout)
    assert same_getitem(x_e, x_t, index) is None
    r = x_e[index]
    assert r is not x_e and shares(r, x_e)


@pytest.mark.parametrize("name", DTYPES)
def test_views_write_through(name):
    x_e, x_t = inputs((3, 4), name)
    v_e = x_e[1]
    x_e[1, 2] = 0
    x_t[1, 2] = 0
    check(v_e, x_t[1])
    x_e[:, ::2][0] = 1
    x_t[:, ::2][0] = 1
    check(x_e, x_t)


def test_numpy_ints_and_index_objects():
    x_e, x_t = inputs((3, 4))
    for index in [np.int64(1), np.int32(-1), (np.int64(0), slice(np.int64(1), np.int64(3)))]:
        same_getitem(x_e, x_t, index)
    check(x_e[ember.tensor(1)], x_t[torch.tensor(1)])  # a 0-d integer tensor selects
    assert shares(x_e[ember.tensor(1)], x_e)
    check(x_e[ember.tensor(0):ember.tensor(2)], x_t[torch.tensor(0):torch.tensor(2)])


def test_zero_dim_tensor():
    x_e, x_t = inputs(())
    for index in [None, Ellipsis, True, False, (None, None), (Ellipsis, None), 0, 1, -1,
                  slice(None), (0,), (slice(None),)]:
        same_getitem(x_e, x_t, index)
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        x_e[0]
    with pytest.raises(IndexError, match="slice\\(\\) cannot be applied to a 0-dim tensor"):
        x_e[:]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 0"):
        x_e[0, ]


# --- advanced indexing: copies ----------------------------------------------------------------
def _t(*v, dtype=torch.int64):
    return torch.tensor(v, dtype=dtype)


ADVANCED = [
    [0, 2], [[0, 2], [1, 1]], [True, False, True], [], [-1, 0],
    (slice(None), [0, 3]), ([0, 1], [2, 3]), ([0, 1], slice(None), [2, 3]),
    ([0, 1], None, [1, 2]), (None, [0, 1], [1, 2]), ([0, 1], Ellipsis, [1, 2]),
    (1, [0, 2], slice(1, None)), ([[0], [2]], [0, 1, 2]), (slice(1, None), [0, 1], 2),
    True, False, (True, 0), (0, False), (None, True, Ellipsis),
    _t(2, 0), _t(0, 1, dtype=torch.int32), _t(1, dtype=torch.int32)[0],
    torch.tensor([True, False, True]), torch.tensor(True), torch.tensor(False),
    torch.tensor(1, dtype=torch.uint8), (slice(None), torch.tensor([True, False, True, True])),
    torch.tensor([[True, False, True, True], [False] * 4, [True] * 4]),
    (torch.tensor([[True, False, True, True], [False] * 4, [True] * 4]), 0),
    (torch.tensor([[True, False, True, True], [False] * 4, [True] * 4]), _t(3)),
    (torch.tensor([True, False, True]), None, slice(None, 2)),
    [0, 1, None], [0, slice(None)], ((0, 1), 2),
]


@pytest.mark.parametrize("index", ADVANCED, ids=[f"adv{i}" for i in range(len(ADVANCED))])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("name", ["bool", "int64", "bfloat16", "float32"])
def test_advanced_indexing_copies(index, layout, name):
    x_e, x_t = inputs((3, 4, 5), name, layout)
    assert same_getitem(x_e, x_t, index) is None


def test_list_as_tuple_heuristic():
    x_e, x_t = inputs((3, 4))
    for index in ([0, 1], [[0, 1], [1, 0]], [0, None], [slice(None), 1], [Ellipsis, 0], [1, [0]]):
        same_getitem(x_e, x_t, index)


def test_numpy_array_indices():
    x_e, x_t = inputs((3, 4))
    for a in (np.array([2, 0]), np.array([[0], [1]]), np.array([True, False, True]),
              np.array(1)):
        r_e = x_e[a]
        r_t = x_t[torch.from_numpy(a)]
        check(r_e, r_t)


# --- errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize("index,exc,phrase", [
    (5, IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    (-4, IndexError, "index -4 is out of bounds for dimension 0 with size 3"),
    ((1, 5), IndexError, "index 5 is out of bounds for dimension 1 with size 4"),
    ((None, 5), IndexError, "index 5 is out of bounds for dimension 1 with size 3"),
    ((0, 0, 0), IndexError, "too many indices for tensor of dimension 2"),
    (slice(None, None, -1), ValueError, "step must be greater than zero"),
    (slice(None, None, 0), ValueError, "slice step cannot be zero"),
    ((slice(None), slice(None, None, -2)), ValueError, "step must be greater than zero"),
    (slice(0, 1.5), TypeError, "slice indices must be integers or None or have an __index__"),
    ((Ellipsis, Ellipsis, 0), IndexError, ""),
    ([0, 5], IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    ((slice(None), [0, 4]), IndexError, "index 4 is out of bounds for dimension 0 with size 4"),
    (([0, 1], [0, 1, 2]), IndexError, "shape mismatch: indexing tensors could not be broadcast"),
    ([True, False], IndexError, "The shape of the mask [2] at index 0 does not match"),
    (1.5, IndexError, ("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                       "Variables are valid indices (got float)")),
    ({}, IndexError, "valid indices (got dict)"),
    (torch.tensor([1.0]), IndexError, "tensors used as indices must be long, int, byte or bool"),
    ((0, torch.tensor(1.0)), IndexError, "tensors used as indices must be long, int, byte"),
    (([0, None],), RuntimeError, "Could not infer dtype of NoneType"),
])
def test_getitem_errors(index, exc, phrase):
    x_e, x_t = inputs((3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as ti:
            x_t[index]
        assert phrase in str(ti.value)
        with pytest.raises(exc) as ei:
            x_e[ember_index(index)]
    assert phrase in str(ei.value)


# --- setitem ------------------------------------------------------------------------------------
SET_CASES = [  # (index, value)
    (0, 7), (1, 2.5), (-1, True), (slice(1, 3), 0), ((slice(None), 1), -3), (Ellipsis, 1),
    (None, 4), (True, 5), (False, 6), ((0, slice(None, None, 2)), 9), ((None, 1, Ellipsis), 2),
    ([0, 2], 8), ((slice(None), [0, 3]), 1), (([0, 1], [1, 2]), 3), (torch.tensor([True, False, True]), 4),
    (torch.tensor(1), 11), ((torch.tensor([0, 2]), slice(1, 3)), 12),
    (0, torch.arange(4)), (slice(1, 3), torch.arange(4)), ((slice(None), 0), torch.arange(3)),
    ((slice(None), 0), torch.arange(3).view(1, 3)), (slice(None), torch.arange(12).view(3, 4)),
    (1, torch.tensor(5)), ((slice(None), [1, 2]), torch.tensor([[7, 8]])),
    ([0, 2], torch.arange(4)), ([0, 2], torch.arange(8).view(2, 4)),
    ([0, 2], torch.arange(8).view(1, 2, 4)), (torch.tensor([True, False, True]), torch.tensor(9)),
    ((torch.tensor([[True, False, True, True]] * 3)), torch.tensor(-1)),
    ((Ellipsis, [0, 0, 3]), torch.tensor([1, 2, 3])),
]


@pytest.mark.parametrize("index,value", SET_CASES, ids=[f"set{i}" for i in range(len(SET_CASES))])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_setitem(index, value, layout):
    x_e, x_t = inputs((3, 4), "int64", layout)
    assert same_setitem(x_e, x_t, index, value) is None


@pytest.mark.parametrize("name", DTYPES)
def test_setitem_numbers_cast_to_self_dtype(name):
    x_e, x_t = inputs((3, 4), name)
    for index, value in [(0, 1), ((slice(None), 1), 0.0), ([1, 2], True), (Ellipsis, 1),
                         ((1, [0, 3]), 0)]:
        same_setitem(x_e, x_t, index, value)


def test_setitem_tensor_of_another_dtype():
    x_e, x_t = inputs((3, 4), "float32")
    v = torch.tensor([1.5, 2.5, 3.5, 4.5], dtype=torch.float64)
    same_setitem(x_e, x_t, 0, v)  # basic: copy_ casts
    with pytest.raises(RuntimeError, match="Index put requires the source and destination "
                                           "dtypes match, got Float for the destination and "
                                           "Double for the source."):
        x_e[[0, 1]] = ember_of(v.numpy())  # advanced: index_put_ wants the same dtype (torch)
    with pytest.raises(RuntimeError):
        x_t[[0, 1]] = v


def test_setitem_errors():
    x_e, x_t = inputs((3, 4), "float32")
    cases = [(5, 1.0), ((0, 4), 1.0), (slice(None), torch.ones(5)),
             ([0, 1], torch.ones(3, 4)), ([0, 7], 1.0), ((0, 0, 0), 1.0),
             (slice(None, None, -1), 1.0)]
    for index, value in cases:
        assert same_setitem(x_e, x_t, index, value) is not None, index
    with pytest.raises(TypeError, match="can't assign a str"):
        x_e[0] = "a"


def test_setitem_through_views_and_on_noncontiguous():
    base_e, base_t = inputs((4, 6), "float32")
    v_e, v_t = base_e[:, 1::2], base_t[:, 1::2]
    same_setitem(v_e, v_t, ([0, 3], slice(None)), torch.tensor(2.0))
    same_setitem(v_e, v_t, (slice(None), 0), torch.arange(4, dtype=torch.float32))
    check(base_e, base_t)


# --- Meta -------------------------------------------------------------------------------------
def test_meta_getitem_and_setitem():
    x_e, _ = inputs((3, 4, 5), "float32", "transposed")
    m = meta_of(x_e)
    for index in BASIC + [[0, 2], (slice(None), [0, 3]), ([0, 1], None, [1, 2]), True,
                          (0, False)]:
        c, r = x_e[index], m[index]
        assert r.device.type == "meta"
        assert (r.shape, r.stride(), r.storage_offset()) == (c.shape, c.stride(), c.storage_offset())
    with pytest.raises((NotImplementedError, RuntimeError)):  # a mask's count is data
        m[ember.empty(3, dtype=ember.bool, device="meta")]
    m[0] = 1.0
    m[:, 1] = ember.empty(5, device="meta")
    m[[0, 1]] = 2.0
    m[ember.empty(3, dtype=ember.bool, device="meta")] = 3.0


# --- torch function -----------------------------------------------------------------------------
def test_getitem_honours_torch_function():
    seen = []

    class Logged(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = inputs((3, 4))[0].as_subclass(Logged)
    r = x[1]
    assert seen[:1] == [ember.Tensor.__getitem__]
    assert r.shape == (4,)
    seen.clear()
    x[0] = 5
    assert seen[:1] == [ember.Tensor.__setitem__]
    assert x[0].tolist() == [5] * 4


# --- property test: random index expressions ------------------------------------------------------
@st.composite
def index_expressions(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    items, d = [], 0
    for _ in range(draw(st.integers(1, len(shape) + 2))):
        n = shape[d] if d < len(shape) else 1
        kinds = ["int", "slice", "slice", "none", "bool", "list", "tensor", "mask", "int0d"]
        if Ellipsis not in items:  # (torch reads past the sizes with two)
            kinds.append("ellipsis")
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            items.append(draw(st.integers(-n, max(n - 1, 0))))
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
            items.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1, 2, 3]))))
        elif kind == "none":
            items.append(None)
            continue
        elif kind == "ellipsis":
            items.append(Ellipsis)
            continue
        elif kind == "bool":
            items.append(draw(st.booleans()))
            continue
        elif kind == "mask":
            items.append(torch.tensor(draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                                      dtype=torch.bool))
        elif kind == "int0d":
            items.append(torch.tensor(draw(st.integers(-n, max(n - 1, 0)))))
        else:
            size = draw(st.integers(0, 3))
            values = draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size)) if n \
                else []
            items.append(values if kind == "list" else torch.tensor(values, dtype=torch.int64))
        d += 1
    index = tuple(items) if len(items) != 1 or draw(st.booleans()) else items[0]
    layout = draw(st.sampled_from(["contiguous", "transposed"]))
    return shape, layout, index


@settings(max_examples=400, deadline=None)
@given(expr=index_expressions(), data=st.data())
def test_random_getitem_and_setitem_match_torch(expr, data):
    shape, layout, index = expr
    x_e, x_t = inputs(shape, "float32", layout)
    err = same_getitem(x_e, x_t, index)
    if err is not None:
        return
    r_shape = tuple(x_t[index].shape)
    kind = data.draw(st.sampled_from(["number", "full", "suffix", "ones"]))
    if kind == "number":
        value = float(data.draw(st.integers(-9, 9)))
    else:
        vshape = {"full": r_shape, "suffix": r_shape[len(r_shape) // 2:],
                  "ones": (1,) + r_shape}[kind]
        value = torch.from_numpy(np_data(vshape, "float32", seed=7))
    same_setitem(x_e, x_t, index, value)
