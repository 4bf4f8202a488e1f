"""Every class and Python function ember exposes where torch does (ember.nn.Linear as
torch.nn.Linear, ...) also lives at torch's module path for it
(torch.nn.modules.linear.Linear -> ember.nn.modules.linear.Linear), so that code importing
from the long paths, and pickles naming them, find ember's."""
import importlib
import inspect

import pytest

import ember

torch = pytest.importorskip("torch")

PACKAGES = ["", "nn", "nn.modules", "nn.utils", "nn.init", "nn.functional", "nn.parallel",
            "optim", "optim.lr_scheduler", "utils.data", "utils.checkpoint", "amp", "autograd",
            "autograd.graph", "serialization", "backends.cudnn", "backends.cuda", "accelerator",
            "onnx", "distributions", "distributions.constraints"]
OWNED_ELSEWHERE = ("torch.cuda",)  # (ember.cuda belongs to the CUDA work)


def exposed_pairs():
    """(where, name, torch's module path) for each class or Python function ember exposes
    under a package where torch exposes one of that name, from a public torch module."""
    for package in PACKAGES:
        suffix = "." + package if package else ""
        ours = importlib.import_module("ember" + suffix)
        theirs = importlib.import_module("torch" + suffix)
        for name in sorted(dir(ours)):
            obj, twin = getattr(ours, name), getattr(theirs, name, None)
            if name.startswith("_") or twin is None or not (
                    inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            path = getattr(twin, "__module__", None) or ""
            if (not path.startswith("torch") or path.startswith(OWNED_ELSEWHERE)
                    or any(part.startswith("_") for part in path.split("."))):
                continue
            yield "ember" + suffix, name, path


PAIRS = list(exposed_pairs())


def test_the_walk_covers_the_library():
    names = {name for _, name, _ in PAIRS}
    assert len(PAIRS) > 300
    assert {"Linear", "MSELoss", "Adam", "StepLR", "DataLoader", "RandomSampler", "Conv2d",
            "LBFGS", "DataParallel"} <= names


@pytest.mark.parametrize(("where", "name", "path"), PAIRS,
                         ids=[f"{w}.{n}" for w, n, _ in PAIRS])
def test_torchs_module_path_exists_in_ember(where, name, path):
    ours = "ember" + path[len("torch"):]
    module = importlib.import_module(ours)
    assert getattr(module, name, None) is getattr(importlib.import_module(where), name), (
        f"{where}.{name} is not at {ours}.{name}")


def test_the_paths_named_in_the_issue():
    from ember.nn.modules.linear import Linear, NonDynamicallyQuantizableLinear
    from ember.nn.modules.loss import MSELoss
    from ember.optim.adam import Adam
    from ember.optim.lr_scheduler import StepLR
    from ember.utils.data.dataloader import DataLoader
    from ember.utils.data.sampler import RandomSampler
    assert (Linear, MSELoss, Adam, StepLR, DataLoader, RandomSampler) == (
        ember.nn.Linear, ember.nn.MSELoss, ember.optim.Adam, ember.optim.lr_scheduler.StepLR,
        ember.utils.data.DataLoader, ember.utils.data.RandomSampler)
    assert type(ember.nn.MultiheadAttention(4, 2).out_proj) is NonDynamicallyQuantizableLinear
