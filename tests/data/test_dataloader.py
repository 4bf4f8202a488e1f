"""ember.utils.data.DataLoader against torch's: batches, lengths, option errors; seeded
shuffling (ember's own random stream) is checked for determinism and coverage."""
import doctest
import warnings

import numpy as np
import pytest

import ember
import ember.utils.data as ed
from ember.utils.data import collate, dataloader, dataset, sampler

torch = pytest.importorskip("torch")
import torch.utils.data as td
from data_compare import counting_stream, flat_indices, plain
from helpers import raises_like


def loaders(make_dataset, **options):
    """(ember loader, torch loader) over make_dataset(lib, data_module) with `options`."""
    return (ed.DataLoader(make_dataset(ember, ed), **options),
            td.DataLoader(make_dataset(torch, td), **options))


def features_and_labels(lib, d):
    x = lib.arange(7 * 3, dtype=lib.float32).reshape(7, 3)
    return d.TensorDataset(x, lib.arange(7) % 3)


class Pairs:
    """A map-style dataset of dict samples (no Dataset base class, like many user sets)."""

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"value": np.full(2, i, dtype=np.float32), "label": i, "name": f"s{i}"}


@pytest.mark.parametrize("batch_size", [1, 2, 3, 7, 10])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sequential_batches_match_torch(batch_size, drop_last):
    e, t = loaders(features_and_labels, batch_size=batch_size, drop_last=drop_last)
    assert len(e) == len(t)
    assert [plain(b) for b in e] == [plain(b) for b in t]


def test_dict_samples_and_custom_collate():
    e, t = (ed.DataLoader(Pairs(), batch_size=2), td.DataLoader(Pairs(), batch_size=2))
    assert [plain(b) for b in e] == [plain(b) for b in t]
    e, t = (ed.DataLoader(Pairs(), batch_size=2, collate_fn=len),
            td.DataLoader(Pairs(), batch_size=2, collate_fn=len))
    assert list(e) == list(t) == [2, 2, 1]


def test_no_batching_converts_samples():
    e, t = (ed.DataLoader(Pairs(), batch_size=None), td.DataLoader(Pairs(), batch_size=None))
    assert len(e) == len(t) == 5
    assert [plain(b) for b in e] == [plain(b) for b in t]


def test_sampler_and_batch_sampler_options():
    order = [4, 0, 2]
    e, t = loaders(features_and_labels, sampler=order, batch_size=2)
    assert [plain(b) for b in e] == [plain(b) for b in t]
    batches = [[6, 1], [3], [0, 0, 5]]
    e, t = loaders(features_and_labels, batch_sampler=batches)
    assert len(e) == len(t) == 3
    assert [plain(b) for b in e] == [plain(b) for b in t]
    assert e.batch_size is None and e.drop_last is False


def test_shuffle_is_seeded_and_covers_each_index_once():
    data = ed.TensorDataset(ember.arange(100))

    def epochs(seed, count=2):
        loader = ed.DataLoader(data, batch_size=16, shuffle=True,
                               generator=ember.Generator().manual_seed(seed))
        return [flat_indices(loader) for _ in range(count)]

    first, second = epochs(0)
    assert sorted(first) == sorted(second) == list(range(100))
    assert first != second  # a new order each epoch
    assert epochs(0) == [first, second]  # the same seed replays them
    assert epochs(1)[0] != first


def test_shuffle_without_generator_follows_manual_seed():
    data = ed.TensorDataset(ember.arange(40))
    ember.manual_seed(3)
    a = flat_indices(ed.DataLoader(data, batch_size=8, shuffle=True))
    ember.manual_seed(3)
    assert flat_indices(ed.DataLoader(data, batch_size=8, shuffle=True)) == a


def test_reiteration_and_iterator_len():
    loader = ed.DataLoader(ed.TensorDataset(ember.arange(10)), batch_size=4)
    it = iter(loader)
    assert len(it) == 3 and iter(it) is it
    assert [b[0].tolist() for b in it] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert flat_indices(loader) == flat_indices(loader) == list(range(10))


def stream(n):
    return counting_stream(ed.IterableDataset, n)


def torch_stream(n):
    return counting_stream(td.IterableDataset, n)


@pytest.mark.parametrize("options", [{}, {"batch_size": 3}, {"batch_size": 3,
                                     "drop_last": True}, {"batch_size": None}])
def test_iterable_dataset_matches_torch(options):
    e, t = ed.DataLoader(stream(7), **options), td.DataLoader(torch_stream(7), **options)
    assert len(e) == len(t)
    assert [plain(b) for b in e] == [plain(b) for b in t]


@pytest.mark.parametrize("options, phrase", [
    ({"shuffle": True}, "expected unspecified shuffle option"),
    ({"sampler": [0]}, "expected unspecified sampler option"),
    ({"batch_sampler": [[0]]}, "expected unspecified batch_sampler option"),
])
def test_iterable_dataset_option_errors(options, phrase):
    raises_like(lambda: ed.DataLoader(stream(3), **options),
                lambda: td.DataLoader(torch_stream(3), **options), phrase)


@pytest.mark.parametrize("options, phrase", [
    ({"sampler": [0, 1], "shuffle": True}, "sampler option is mutually exclusive with shuffle"),
    ({"batch_sampler": [[0]], "batch_size": 2}, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "shuffle": True}, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "sampler": [0]}, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "drop_last": True}, "batch_sampler option is mutually exclusive"),
    ({"batch_size": None, "drop_last": True}, "disables auto-batching"),
    ({"num_workers": -1}, "num_workers option should be non-negative"),
    ({"timeout": -1}, "timeout option should be non-negative"),
    ({"prefetch_factor": 2}, "prefetch_factor option could only be specified"),
    ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
    ({"multiprocessing_context": "spawn"}, "multiprocessing_context can only be used"),
    ({"batch_size": 0}, "batch_size should be a positive integer value"),
])
def test_option_errors_match_torch(options, phrase):
    raises_like(lambda: loaders(features_and_labels, **options)[0],
                lambda: loaders(features_and_labels, **options)[1], phrase)


def test_attributes_frozen_after_init():
    e, t = loaders(features_and_labels, batch_size=2)
    for attr in ("batch_size", "sampler", "dataset", "drop_last"):
        raises_like(lambda a=attr: setattr(e, a, None), lambda a=attr: setattr(t, a, None),
                    f"{attr} attribute should not be set after DataLoader is initialized")
    e.collate_fn = len  # other attributes stay settable
    assert list(e) == [2, 2, 2, 1]
    assert isinstance(e.sampler, ed.SequentialSampler)
    assert isinstance(e.batch_sampler, ed.BatchSampler)


def test_workers_warn_and_load_in_process():
    loader = ed.DataLoader(ed.TensorDataset(ember.arange(5)), batch_size=2, num_workers=2)
    assert loader.prefetch_factor == 2 and ed.get_worker_info() is None
    for factor in (0, 3):
        e, t = loaders(features_and_labels, num_workers=1, prefetch_factor=factor)
        assert e.prefetch_factor == t.prefetch_factor == factor
    with pytest.warns(UserWarning, match="no worker processes"):
        assert flat_indices(loader) == list(range(5))


@pytest.mark.parametrize(("options", "warned"), [
    ({"pin_memory": True}, 1), ({"pin_memory": True, "pin_memory_device": "cpu"}, 2),
    ({"pin_memory": False, "pin_memory_device": "cpu"}, 0)])
def test_pin_memory_warnings_like_torch(options, warned):
    """Without an accelerator, pin_memory warns at iteration as torch's does (and a
    pin_memory_device is deprecated); the batches are the same."""
    e, t = loaders(features_and_labels, batch_size=2, **options)
    caught = []
    for loader in (e, t):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            batches = list(loader)
        caught.append([str(w.message) for w in got])
        assert len(batches) == 4
    assert caught[0] == caught[1]
    assert len(caught[0]) == warned


class Squares(ed.TensorDataset):
    """Changes __getitem__, so the loader must not take the whole-batch shortcut."""

    def __getitem__(self, index):
        return tuple(t[index] ** 2 for t in self.tensors)


def test_tensor_dataset_shortcut_equals_sample_by_sample():
    x = ember.randn(50, 4)
    y = ember.randint(0, 10, (50,))
    fast = ed.DataLoader(ed.TensorDataset(x, y), batch_size=8)
    slow = ed.DataLoader(ed.TensorDataset(x, y), batch_size=8,
                         collate_fn=lambda b: ed.default_collate(b))
    assert [plain(b) for b in fast] == [plain(b) for b in slow]
    assert all(isinstance(b, list) for b in fast)
    squares = [b[0].tolist() for b in ed.DataLoader(Squares(ember.arange(4)), batch_size=4)]
    assert squares == [[0, 1, 4, 9]]


def test_subset_of_tensor_dataset_through_the_loader():
    def make(lib, d):
        return d.Subset(d.TensorDataset(lib.arange(20) * 10), [3, 17, 5, 0, 9])
    e, t = loaders(make, batch_size=2)
    assert [plain(b) for b in e] == [plain(b) for b in t]
    e, t = loaders(lambda lib, d: d.Subset(Pairs(), [4, 1]), batch_size=2)
    assert [plain(b) for b in e] == [plain(b) for b in t]


def test_batches_keep_autograd():
    w = ember.ones(6, 2, requires_grad=True)
    (batch,) = next(iter(ed.DataLoader(ed.TensorDataset(w * 3), batch_size=4)))
    batch.sum().backward()
    assert w.grad[:4].tolist() == [[3.0, 3.0]] * 4 and w.grad[4:].sum().item() == 0


def test_random_split_then_loader_is_deterministic():
    data = ed.TensorDataset(ember.arange(30))

    def run():
        train, _ = ed.random_split(data, [0.8, 0.2], generator=ember.Generator().manual_seed(0))
        return flat_indices(ed.DataLoader(train, batch_size=5, shuffle=True,
                                          generator=ember.Generator().manual_seed(1)))
    order = run()
    assert len(order) == 24 and len(set(order)) == 24 and run() == order


@pytest.mark.parametrize("module", [ed, dataset, sampler, collate, dataloader],
                         ids=lambda m: m.__name__)
def test_docstring_examples(module):
    names = {name: getattr(ed, name) for name in ed.__all__}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = doctest.testmod(module, extraglobs={"ember": ember, "np": np, **names})
    assert result.attempted > 0 and result.failed == 0


def test_batch_sampler_of_arrays_and_tensors():
    """Index batches given as NumPy arrays or tensors work like lists of ints."""
    batches = [np.array([3, 1]), ember.tensor([0, 2])]
    loader = ed.DataLoader(ed.TensorDataset(ember.arange(10) * 10), batch_sampler=batches)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [b[0].tolist() for b in loader] == [[30, 10], [0, 20]]
