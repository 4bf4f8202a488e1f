"""default_collate / default_convert against torch's: same structure, values, dtypes."""
import collections

import numpy as np
import pytest

import ember
import ember.utils.data as ed

torch = pytest.importorskip("torch")
import torch.utils.data as td
from data_compare import plain
from helpers import raises_like

Point = collections.namedtuple("Point", ["x", "y"])


def batch_of(lib, kind):
    """A list of 3 samples of one kind, built with tensors of `lib`."""
    row = [lib.tensor([[1.5, -2.0], [0.0, 4.0]]) * k for k in range(3)]
    samples = {
        "tensors": row,
        "int_tensors": [lib.arange(4, dtype=lib.int32) + k for k in range(3)],
        "scalar_tensors": [lib.tensor(k) for k in range(3)],
        "ints": [0, 5, -3],
        "bools": [True, False, True],
        "floats": [0.5, 1.0, -2.25],
        "strings": ["a", "bb", "c"],
        "bytes": [b"a", b"b", b"c"],
        "numpy": [np.arange(3, dtype=np.float32) * k for k in range(3)],
        "numpy_int": [np.arange(2) + k for k in range(3)],
        "numpy_scalars": [np.float32(k) / 2 for k in range(3)],
        "numpy_int_scalars": [np.int16(k) for k in range(3)],
        "tuples": [(row[k], k, float(k)) for k in range(3)],
        "lists": [[row[k], k] for k in range(3)],
        "dicts": [{"x": row[k], "label": k, "name": str(k)} for k in range(3)],
        "ordered": [collections.OrderedDict(b=k, a=float(k)) for k in range(3)],
        "namedtuples": [Point(row[k], k) for k in range(3)],
        "nested": [{"pair": (k, [float(k), row[k]]), "p": Point(k, {"z": k})} for k in range(3)],
    }
    return samples[kind]


KINDS = ["tensors", "int_tensors", "scalar_tensors", "ints", "bools", "floats", "strings",
         "bytes", "numpy", "numpy_int", "numpy_scalars", "numpy_int_scalars", "tuples",
         "lists", "dicts", "ordered", "namedtuples", "nested"]


@pytest.mark.parametrize("kind", KINDS)
def test_default_collate_matches_torch(kind):
    e = ed.default_collate(batch_of(ember, kind))
    t = td.default_collate(batch_of(torch, kind))
    assert plain(e) == plain(t)


def test_collate_number_dtypes():
    assert ed.default_collate([1, 2]).dtype is ember.int64
    assert ed.default_collate([1.0, 2]).dtype is ember.float64
    assert ed.default_collate([True, False]).dtype is ember.bool


def test_collate_keeps_autograd():
    w = ember.ones(3, requires_grad=True)
    batch = ed.default_collate([w * 2, w * 3])
    batch.sum().backward()
    assert w.grad.tolist() == [5.0, 5.0, 5.0]


def test_collate_errors_like_torch():
    raises_like(lambda: ed.default_collate([[1, 2], [3]]),
                lambda: td.default_collate([[1, 2], [3]]),
                "each element in list of batch should be of equal size")
    raises_like(lambda: ed.default_collate([object()]), lambda: td.default_collate([object()]),
                "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                "lists; found <class 'object'>")
    strings = [np.array(["a"]), np.array(["b"])]
    raises_like(lambda: ed.default_collate(strings), lambda: td.default_collate(strings),
                "found <U1")
    raises_like(lambda: ed.default_collate([ember.zeros(2), ember.zeros(3)]),
                lambda: td.default_collate([torch.zeros(2), torch.zeros(3)]))


def test_custom_collate_fn_map():
    def first_only(batch, *, collate_fn_map):
        return batch[0]

    e = ed.collate.collate([(1, "a"), (2, "b")], collate_fn_map={int: first_only,
                                                                  str: first_only})
    assert e == [1, "a"]


@pytest.mark.parametrize("data_of", [
    lambda lib: np.arange(3),
    lambda lib: np.float64(2.5),
    lambda lib: [np.arange(2), 3, "s"],
    lambda lib: (np.zeros(2), np.ones(1)),
    lambda lib: {"a": np.arange(2), "b": [np.int64(3)]},
    lambda lib: Point(np.arange(2), 1),
    lambda lib: lib.arange(3),
    lambda lib: np.array(["text"]),
    lambda lib: "plain",
])
def test_default_convert_matches_torch(data_of):
    assert plain(ed.default_convert(data_of(ember))) == plain(td.default_convert(data_of(torch)))
