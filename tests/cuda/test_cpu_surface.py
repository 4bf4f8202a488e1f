"""ember.cuda on a machine without a device behaves as torch's does on a build without one."""
import warnings

import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.usefixtures("no_cuda")   # also when EMBER_CUDA_EMULATOR=1 is set


@pytest.mark.parametrize("name", ["is_available", "is_initialized", "device_count",
                                  "memory_allocated", "max_memory_allocated",
                                  "memory_reserved", "max_memory_reserved"])
def test_queries_match_torch_without_a_device(name):
    assert getattr(ember.cuda, name)() == getattr(torch.cuda, name)()


@pytest.mark.parametrize("name", ["manual_seed", "manual_seed_all"])
def test_seeding_without_a_device_is_a_no_op(name):
    assert getattr(ember.cuda, name)(3) is None
    with pytest.raises((TypeError, ValueError)):
        getattr(ember.cuda, name)("three")


def test_cache_and_seed_calls_do_nothing():
    assert ember.cuda.empty_cache() is None
    assert ember.cuda.seed() is None and ember.cuda.seed_all() is None


@pytest.mark.parametrize("name", ["synchronize", "current_device", "get_device_name",
                                  "get_rng_state", "initial_seed"])
def test_device_calls_raise(name):
    with pytest.raises(RuntimeError, match="No CUDA GPUs are available"):
        getattr(ember.cuda, name)()


@pytest.mark.parametrize("name", ["GradScaler", "autocast"])
def test_deprecated_amp_spellings_warn_and_disable(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        obj = getattr(ember.cuda.amp, name)()
    messages = [str(w.message) for w in caught]
    assert messages[0] == (f"`ember.cuda.amp.{name}(args...)` is deprecated. "
                           f"Please use `ember.amp.{name}('cuda', args...)` instead.")
    assert caught[0].category is FutureWarning
    assert len(messages) == 2  # then: CUDA is not available, disabling
    if name == "GradScaler":
        assert obj.is_enabled() is False
        assert isinstance(obj, ember.amp.GradScaler)
    else:
        assert obj.device == "cuda"
