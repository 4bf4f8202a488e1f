"""The CUDA emulator (ember/cuda/_emulator.py, kernels/cuda/emulator.h) runs CUDA C on the
CPU: barriers, warp shuffles and votes, shared memory, atomics, half/bfloat16, and it reports
what would be a bug on a GPU (deadlock, wrong scalar width) instead of a wrong answer."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from ember.cuda import _emulator as E

pytestmark = pytest.mark.skipif(not E.available(), reason="no host C++ compiler / CUDA headers")


@pytest.fixture(scope="module")
def mod():
    return E.Module(Path(__file__).parent / "emulator_checks.cu")


@pytest.fixture(params=["fwd", "rev"])
def order(request):
    old = E.order[0]
    E.order[0] = request.param
    yield request.param
    E.order[0] = old


def ptr(a: np.ndarray) -> int:
    return a.ctypes.data


def test_block_sum_with_barriers_is_exact_in_both_orders(mod, order):
    x = np.arange(4096, dtype=np.float32) % 7
    out = np.zeros(1, np.float32)
    mod.get_function("block_sum")((16,), (256,), (ptr(x), ptr(out), np.int32(x.size), np.int32(1)))
    assert out[0] == x.sum()


def test_a_missing_barrier_gives_a_wrong_sum():
    mod = E.Module(Path(__file__).parent / "emulator_checks.cu")
    x = np.ones(4096, np.float32)
    sums = {}
    old = E.order[0]
    try:
        for o in ("fwd", "rev"):
            E.order[0] = o
            out = np.zeros(1, np.float32)
            mod.get_function("block_sum")((16,), (256,), (ptr(x), ptr(out), np.int32(x.size),
                                                          np.int32(0)))
            sums[o] = out[0]
    finally:
        E.order[0] = old
    assert any(v != 4096 for v in sums.values())  # at least one order exposes the race


def test_warp_shuffle_and_ballot(mod, order):
    x = np.arange(256, dtype=np.int32)
    out = np.zeros(8, np.int32)
    mod.get_function("warp_sum")((2,), (128,), (ptr(x), ptr(out)))
    np.testing.assert_array_equal(out, x.reshape(8, 32).sum(1))
    bits = np.zeros(2, np.uint32)
    mod.get_function("ballot_odd")((1,), (64,), (ptr(x), ptr(bits)))
    assert list(bits) == [0xAAAAAAAA, 0xAAAAAAAA]


def test_atomics(mod):
    x = np.random.default_rng(0).integers(0, 10, 5000).astype(np.int32)
    bins = np.zeros(10, np.int32)
    mod.get_function("histogram")((4,), (128,), (ptr(x), np.int32(x.size), ptr(bins)))
    np.testing.assert_array_equal(bins, np.bincount(x, minlength=10))


def test_half_and_bfloat16_match_numpy_bit_for_bit(mod):
    x = np.random.default_rng(1).standard_normal(1000).astype(np.float32) * 1000
    h = np.zeros(1000, np.float16)
    b = np.zeros(1000, ml_dtypes.bfloat16)
    mod.get_function("to_half")((4,), (256,), (ptr(x), ptr(h), ptr(b), np.int32(x.size)),
                                fibers=False)
    np.testing.assert_array_equal(h.view(np.uint16), x.astype(np.float16).view(np.uint16))
    np.testing.assert_array_equal(b.view(np.uint16), x.astype(ml_dtypes.bfloat16).view(np.uint16))


def test_deadlock_is_an_error(mod):
    out = np.zeros(64, np.int32)
    with pytest.raises(RuntimeError, match="deadlock"):
        mod.get_function("stuck")((1,), (64,), (ptr(out),))


def test_a_barrier_in_plain_mode_is_an_error(mod):
    x = np.ones(256, np.float32)
    out = np.zeros(1, np.float32)
    with pytest.raises(RuntimeError, match="synchronises"):
        mod.get_function("block_sum")((1,), (256,), (ptr(x), ptr(out), np.int32(256), np.int32(1)),
                                      fibers=False)


def test_scalar_width_and_argument_checks(mod):
    x = np.ones(256, np.float32)
    out = np.zeros(1, np.float32)
    k = mod.get_function("block_sum")
    with pytest.raises(TypeError, match="argument 2 has 8 bytes"):
        k((1,), (256,), (ptr(x), ptr(out), np.int64(256), np.int32(1)))
    with pytest.raises(TypeError, match="NumPy scalar"):
        k((1,), (256,), (ptr(x), ptr(out), 256.0, np.int32(1)))
    with pytest.raises(RuntimeError, match="block size"):
        k((1,), (2048,), (ptr(x), ptr(out), np.int32(256), np.int32(1)))
    with pytest.raises(AttributeError, match="no kernel 'nope'"):
        mod.get_function("nope")


def test_compiled_once_per_source_hash():
    src = Path(__file__).parent / "emulator_checks.cu"
    so, names = E.compile_source(src)
    assert so.exists() and "block_sum" in names
    assert E.compile_source(src) == (so, names)   # a cache hit: same library
