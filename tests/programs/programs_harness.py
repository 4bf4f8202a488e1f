"""Runs a program file twice: once as written (`import torch` is torch) and once with
`import ember as torch` — every `torch` / `torch.*` import inside the file resolves to
ember's module of the same path, the way a user would swap the library — so a test can
train both copies from the same initial weights and data and compare their losses."""
import contextlib
import importlib
import importlib.abc
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

HERE = pathlib.Path(__file__).resolve().parent


class _EmberAsTorch(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves `torch.x.y` to the module `ember.x.y` (left under its own name)."""

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module("ember" + spec.name[len("torch"):])
        self._spec = module.__spec__  # the import system overwrites __spec__: put it back
        return module

    def exec_module(self, module):
        module.__spec__ = self._spec


@contextlib.contextmanager
def _ember_as_torch():
    saved = {n: m for n, m in sys.modules.items() if n == "torch" or n.startswith("torch.")}
    for name in saved:
        del sys.modules[name]
    for name, module in list(sys.modules.items()):
        if name == "ember" or name.startswith("ember."):
            sys.modules["torch" + name[len("ember"):]] = module
    finder = _EmberAsTorch()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
            del sys.modules[name]
        sys.modules.update(saved)


def load(program, framework):
    """The module tests/programs/`program`.py imported against torch or ember (its
    `torch` global is then the library it runs on); registered in sys.modules so that
    pickling its classes works."""
    name = f"{program}__{framework}"
    spec = importlib.util.spec_from_file_location(name, HERE / f"{program}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if framework == "ember":
        with _ember_as_torch():
            spec.loader.exec_module(module)
    else:
        spec.loader.exec_module(module)
    assert module.torch is (ember if framework == "ember" else torch)
    return module


@pytest.fixture
def programs(request):
    """(torch's module, ember's module) of the program named by the test's parameter."""
    return load(request.param, "torch"), load(request.param, "ember")


def copy_weights(ember_model, torch_model):
    """Gives the ember model the torch model's parameters and buffers (same names)."""
    state = {k: ember.from_numpy(v.detach().numpy().copy())
             for k, v in torch_model.state_dict().items()}
    ember_model.load_state_dict(state)
    for (name, e), (_, t) in zip(ember_model.state_dict().items(),
                                 torch_model.state_dict().items(), strict=True):
        np.testing.assert_array_equal(e.numpy(), t.numpy(), err_msg=name)


def data(fw, array):
    """A NumPy array as a tensor of `fw` (torch or ember)."""
    return fw.from_numpy(np.ascontiguousarray(array).copy())


def assert_curves_match(ember_losses, torch_losses, rtol=1e-4, atol=1e-5):
    """Both runs produced the same (finite, moving) loss curve."""
    assert len(ember_losses) == len(torch_losses) > 1
    assert all(isinstance(x, float) for x in ember_losses + torch_losses)
    assert np.all(np.isfinite(torch_losses))
    assert torch_losses[0] != torch_losses[-1]  # training changed something
    np.testing.assert_allclose(ember_losses, torch_losses, rtol=rtol, atol=atol)


def no_dropout(model):
    """Turns off every dropout in a model (the two libraries' random streams differ)."""
    for m in model.modules():
        if "Dropout" in type(m).__name__:
            m.p = 0.0
        if isinstance(getattr(m, "dropout", None), float):
            m.dropout = 0.0  # (RNN, LSTM, GRU)


class SameStart:
    """Hooks for a program that builds its own model: `torch_hook` snapshots the torch
    model's initial state, `ember_hook` loads that snapshot into the ember model; both
    turn dropout off."""

    def __init__(self):
        self.state = None

    def torch_hook(self, model):
        no_dropout(model)
        self.state = {k: v.detach().clone() for k, v in model.state_dict().items()}

    def ember_hook(self, model):
        no_dropout(model)
        model.load_state_dict({k: ember.from_numpy(v.numpy().copy())
                               for k, v in self.state.items()})


def numpy_random(monkeypatch, fw, seed):
    """Makes `fw.randn`, `randn_like` and `randint` draw from a NumPy generator seeded with
    `seed`, so that both libraries see the same noise and sample indices."""
    rng = np.random.default_rng(seed)

    def sizes(size):
        return tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size

    def randn(*size, dtype=None, device=None, **_):
        return data(fw, rng.standard_normal(sizes(size)).astype(np.float32)).to(
            dtype=dtype or fw.get_default_dtype(), device=device)

    def randn_like(t, **_):
        return randn(*t.shape, dtype=t.dtype, device=t.device)

    def randint(*args, size=None, dtype=None, device=None, **_):
        *bounds, size = args if size is None else (*args, size)
        return data(fw, rng.integers(*bounds, size=size)).to(device=device)

    monkeypatch.setattr(fw, "randn", randn)
    monkeypatch.setattr(fw, "randn_like", randn_like)
    monkeypatch.setattr(fw, "randint", randint)
