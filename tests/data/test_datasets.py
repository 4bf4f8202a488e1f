"""ember.utils.data datasets and random_split against torch.utils.data."""
import warnings

import pytest

import ember
import ember.utils.data as ed

torch = pytest.importorskip("torch")
import torch.utils.data as td
from data_compare import counting_stream, plain
from helpers import raises_like


def both(fn):
    """fn(lib, data_module) for (ember, ember.utils.data) and (torch, torch.utils.data)."""
    return fn(ember, ed), fn(torch, td)


def test_tensor_dataset_rows_and_len():
    def make(lib, d):
        ds = d.TensorDataset(lib.arange(12.).reshape(4, 3), lib.arange(4))
        return len(ds), plain(ds[2]), plain(ds[-1]), plain(ds[1:3]), plain(ds[[0, 3]])
    e, t = both(make)
    assert e == t


def test_tensor_dataset_size_mismatch():
    raises_like(lambda: ed.TensorDataset(ember.zeros(3), ember.zeros(4)),
                lambda: td.TensorDataset(torch.zeros(3), torch.zeros(4)),
                "Size mismatch between tensors")


def test_dataset_base_and_add():
    raises_like(lambda: ed.Dataset()[0], lambda: td.Dataset()[0], "should implement __getitem__")
    a, b = ed.TensorDataset(ember.arange(2)), ed.TensorDataset(ember.arange(3))
    joined = a + b
    assert isinstance(joined, ed.ConcatDataset) and len(joined) == 5
    assert int(joined[4][0]) == 2


def test_subset():
    e, t = both(lambda lib, d: [plain(s) for s in (
        d.Subset(d.TensorDataset(lib.arange(10) * 2), [7, 1, 3])[i] for i in range(3))])
    assert e == t
    assert len(ed.Subset(range(10), [4, 5])) == 2
    e, t = both(lambda lib, d: plain(d.Subset(d.TensorDataset(lib.arange(10, 20)), [4, 5])[[1, 0]]))
    assert e == t


def test_subset_subclass_must_override_getitems():
    class Doubled(ed.Subset):
        def __getitem__(self, i):
            return 2 * super().__getitem__(i)

    with pytest.raises(NotImplementedError, match="overrides __getitem__ but not __getitems__"):
        Doubled(range(3), [0])


@pytest.mark.parametrize("index", [0, 2, 3, 5, -1, -6])
def test_concat_dataset_indexing(index):
    e = ed.ConcatDataset([range(3), range(10, 13)])
    t = td.ConcatDataset([range(3), range(10, 13)])
    assert e[index] == t[index] and len(e) == len(t) == 6
    assert e.cumulative_sizes == t.cumulative_sizes


def test_concat_dataset_errors():
    raises_like(lambda: ed.ConcatDataset([range(3)])[-4], lambda: td.ConcatDataset([range(3)])[-4],
                "absolute value of index should not exceed dataset length")
    raises_like(lambda: ed.ConcatDataset([]), lambda: td.ConcatDataset([]),
                "datasets should not be an empty iterable")

    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ed.ConcatDataset([counting_stream(ed.IterableDataset, 2)])


def test_iterable_dataset_chain():
    chained = counting_stream(ed.IterableDataset, 2) + counting_stream(ed.IterableDataset, 3)
    assert isinstance(chained, ed.ChainDataset)
    assert list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ed.ChainDataset([range(3)]))
    with pytest.raises(NotImplementedError):
        iter(ed.IterableDataset())


def test_stack_dataset():
    e, t = both(lambda lib, d: (plain(d.StackDataset(lib.arange(3), range(3))[1]),
                                plain(d.StackDataset(a=lib.arange(3), b=range(3))[2]),
                                plain(d.StackDataset(d.TensorDataset(lib.arange(3)),
                                                     range(3)).__getitems__([2, 0])),
                                plain(d.StackDataset(a=range(3)).__getitems__([1]))))
    assert e == t
    raises_like(lambda: ed.StackDataset(range(2), range(3)),
                lambda: td.StackDataset(range(2), range(3)), "Size mismatch between datasets")
    raises_like(lambda: ed.StackDataset(range(2), b=range(2)),
                lambda: td.StackDataset(range(2), b=range(2)), "both types are given")
    raises_like(ed.StackDataset, td.StackDataset, "At least one dataset should be passed")


@pytest.mark.parametrize("n, fractions", [(10, [0.3, 0.7]), (11, [0.5, 0.5]),
                                          (7, [0.2, 0.2, 0.6]), (5, [1.0]),
                                          (101, [0.1] * 10)])
def test_random_split_fraction_lengths_match_torch(n, fractions):
    e = [len(s) for s in ed.random_split(range(n), fractions)]
    t = [len(s) for s in td.random_split(range(n), fractions)]
    assert e == t


def test_random_split_is_a_seeded_partition():
    def split(seed):
        return [s.indices for s in ed.random_split(range(50), [20, 25, 5],
                                                   generator=ember.Generator().manual_seed(seed))]
    parts = split(3)
    assert [len(p) for p in parts] == [20, 25, 5]
    assert sorted(i for p in parts for i in p) == list(range(50))
    assert split(3) == parts and split(4) != parts


def test_random_split_uses_the_global_generator():
    ember.manual_seed(7)
    first = ed.random_split(range(20), [10, 10])[0].indices
    ember.manual_seed(7)
    assert ed.random_split(range(20), [10, 10])[0].indices == first


def test_random_split_errors_and_warning():
    raises_like(lambda: ed.random_split(range(10), [3, 3]),
                lambda: td.random_split(range(10), [3, 3]),
                "Sum of input lengths does not equal the length of the input dataset!")
    raises_like(lambda: ed.random_split(range(10), [1.5, -0.5]),
                lambda: td.random_split(range(10), [1.5, -0.5]),
                "Fraction at index 0 is not between 0 and 1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parts = ed.random_split(range(2), [0.0, 1.0])
    assert [len(p) for p in parts] == [0, 2]
    assert any("Length of split at index 0 is 0" in str(w.message) for w in caught)
