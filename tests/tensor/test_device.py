"""ember.device: parsing, interning, equality, errors like torch's."""
from __future__ import annotations

import pytest

import ember

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("spec", ["cpu", "meta", "cuda", "cuda:1"])
def test_device_parsing_matches_torch(spec):
    e, t = ember.device(spec), torch.device(spec)
    assert (e.type, e.index) == (t.type, t.index)
    assert str(e) == str(t)
    assert repr(e) == repr(t)


def test_device_with_index_and_interning():
    assert ember.device("cuda", 0) is ember.device("cuda:0")
    assert ember.device(ember.device("cpu")) is ember.device("cpu")
    assert ember.device("cpu") == "cpu"
    assert hash(ember.device("meta")) == hash(ember.device("meta"))


@pytest.mark.parametrize("bad", ["gpu", "cuda:x", "cpu:-1"])
def test_bad_device_strings(bad):
    with pytest.raises(RuntimeError):
        ember.device(bad)
    with pytest.raises(RuntimeError):
        torch.device(bad)


def test_devices_are_immutable():
    with pytest.raises(AttributeError):
        ember.device("cpu").type = "meta"
