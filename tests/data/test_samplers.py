"""ember.utils.data samplers: torch's orders where they are deterministic, seeded
permutations (ember's PCG64 stream, not torch's) otherwise, torch's errors."""
import itertools
import time

import pytest

import ember
import ember.utils.data as ed

torch = pytest.importorskip("torch")
import torch.utils.data as td
from helpers import raises_like


def seeded(seed):
    return ember.Generator().manual_seed(seed)


def test_sequential_sampler():
    assert list(ed.SequentialSampler(range(5))) == list(td.SequentialSampler(range(5)))
    assert len(ed.SequentialSampler(range(5))) == 5


@pytest.mark.parametrize("batch_size", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_matches_torch(batch_size, drop_last):
    e = ed.BatchSampler(ed.SequentialSampler(range(5)), batch_size, drop_last)
    t = td.BatchSampler(td.SequentialSampler(range(5)), batch_size, drop_last)
    assert list(e) == list(t) and len(e) == len(t)


@pytest.mark.parametrize("batch_size, drop_last", [(0, False), (-1, False), (True, False),
                                                   (2.0, False), (2, 1), (2, None)])
def test_batch_sampler_errors(batch_size, drop_last):
    raises_like(lambda: ed.BatchSampler(range(3), batch_size, drop_last),
                lambda: td.BatchSampler(range(3), batch_size, drop_last), "should be a")


def test_random_sampler_permutes_and_is_seeded():
    orders = [list(ed.RandomSampler(range(50), generator=seeded(s))) for s in (0, 0, 1)]
    assert sorted(orders[0]) == list(range(50))
    assert orders[0] == orders[1] and orders[0] != orders[2]


def test_random_sampler_reiterates_with_new_orders():
    sampler = ed.RandomSampler(range(30), generator=seeded(0))
    first, second = list(sampler), list(sampler)
    assert first != second and sorted(first) == sorted(second) == list(range(30))


def test_random_sampler_without_generator_follows_manual_seed():
    ember.manual_seed(5)
    a = list(ed.RandomSampler(range(20)))
    ember.manual_seed(5)
    assert list(ed.RandomSampler(range(20))) == a and sorted(a) == list(range(20))


@pytest.mark.parametrize("num_samples", [3, 10, 25])
def test_random_sampler_num_samples_without_replacement(num_samples):
    drawn = list(ed.RandomSampler(range(10), num_samples=num_samples, generator=seeded(1)))
    assert len(drawn) == num_samples == len(ed.RandomSampler(range(10), num_samples=num_samples))
    whole, rest = divmod(num_samples, 10)
    for k in range(whole):  # each full pass is a permutation
        assert sorted(drawn[10 * k:10 * k + 10]) == list(range(10))
    assert len(set(drawn[10 * whole:])) == rest


def test_random_sampler_with_replacement():
    drawn = list(ed.RandomSampler(range(4), replacement=True, num_samples=400,
                                  generator=seeded(2)))
    assert len(drawn) == 400 and set(drawn) == {0, 1, 2, 3}  # repeats, all in range
    again = list(ed.RandomSampler(range(4), replacement=True, num_samples=400,
                                  generator=seeded(2)))
    assert again == drawn


@pytest.mark.parametrize("kwargs", [{"replacement": 1}, {"num_samples": 0},
                                    {"num_samples": 2.5}])
def test_random_sampler_errors(kwargs):
    raises_like(lambda: ed.RandomSampler(range(3), **kwargs),
                lambda: td.RandomSampler(range(3), **kwargs), "should be a")
    raises_like(lambda: ed.RandomSampler(range(0)), lambda: td.RandomSampler(range(0)),
                "num_samples should be a positive integer value, but got num_samples=0")


def test_subset_random_sampler():
    sampler = ed.SubsetRandomSampler([10, 20, 30, 40], generator=seeded(0))
    drawn = list(sampler)
    assert sorted(drawn) == [10, 20, 30, 40] and len(sampler) == 4
    assert list(ed.SubsetRandomSampler([10, 20, 30, 40], generator=seeded(0))) == drawn


def test_sampler_base():
    with pytest.raises(NotImplementedError):
        iter(ed.Sampler())


def test_random_sampler_with_replacement_draws_lazily_like_torch():
    """num_samples=10**10 (minGPT, makemore): nothing is drawn up front, and indices come
    32 per draw, as from torch's sampler, which is as lazy."""
    big = 10**10
    start = time.perf_counter()
    e_it = iter(ed.RandomSampler(range(7), replacement=True, num_samples=big, generator=seeded(3)))
    t_it = iter(td.RandomSampler(range(7), replacement=True, num_samples=big,
                                 generator=torch.Generator().manual_seed(3)))
    e_head, t_head = list(itertools.islice(e_it, 100)), list(itertools.islice(t_it, 100))
    assert time.perf_counter() - start < 5 and len(e_head) == len(t_head) == 100
    assert len(ed.RandomSampler(range(7), replacement=True, num_samples=big)) == big
    g = seeded(3)
    chunks = [ember.randint(high=7, size=(32,), dtype=ember.int64, generator=g).tolist()
              for _ in range(4)]
    assert e_head == list(itertools.chain.from_iterable(chunks))[:100]
    assert all(0 <= i < 7 for i in e_head + t_head)


@pytest.mark.parametrize("num_samples", [1, 31, 32, 33, 70])
def test_random_sampler_with_replacement_yields_num_samples(num_samples):
    e = ed.RandomSampler(range(5), replacement=True, num_samples=num_samples, generator=seeded(0))
    t = td.RandomSampler(range(5), replacement=True, num_samples=num_samples)
    assert len(list(e)) == len(list(t)) == len(e) == len(t) == num_samples


def test_random_sampler_seeds_at_the_first_index_like_torch():
    """torch's __iter__ is a generator: the global RNG is read at the first next()."""
    ember.manual_seed(5)
    it = iter(ed.RandomSampler(range(10)))
    ember.manual_seed(9)
    first = list(it)
    ember.manual_seed(9)
    assert list(ed.RandomSampler(range(10))) == first
