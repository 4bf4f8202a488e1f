"""The docstring examples of `ember` (with `ember.kernels`, which lives in kernels/ and so
is not found by walking ember/) and `codegen` run as tests, so they cannot drift.

Each module's examples see `ember`, `np` (NumPy), `nn` and `F` (ember.nn.functional) and
`Path` without importing them; codegen's examples run from the project root.
"""
import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

import codegen
import ember
import ember.kernels
import ember.nn.functional as F
from ember import nn

ROOT = Path(__file__).resolve().parents[2]


def _modules(package):
    yield package.__name__
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        yield info.name


MODULES = sorted({*_modules(ember), *_modules(ember.kernels), *_modules(codegen)}
                 - {"codegen.__main__"})

# Packages split into modules by family where torch has one module: the examples of their
# modules see the package's names (as torch's see its module's), and torch's twin is the
# package's.
FAMILY_PACKAGES = ("ember.optim.lr_scheduler", "ember.nn.functional")


def _public_module(name):
    """`name`, or the family package that `name` is a module of."""
    package = name.rpartition(".")[0]
    return package if package in FAMILY_PACKAGES else name


def _global_state():
    """What an example could change for every later one (it must put it back)."""
    return (ember.get_printoptions(), ember.get_default_dtype(), ember.is_grad_enabled(),
            ember.is_inference_mode_enabled(), ember.is_autocast_enabled("cpu"))


def _run_examples(name, globs, rewrite=None):
    """Runs the examples of module `name` with the names `globs`; `rewrite`, if given, is
    applied to each example's source and expected output. Returns the failure report."""
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    for test in finder.find(module, name, globs=globs):
        for example in test.examples if rewrite else ():
            example.source, example.want = rewrite(example.source), rewrite(example.want)
        runner.run(test, out=report.append)
    return "".join(report)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    before = _global_state()
    own = {**vars(importlib.import_module(_public_module(name))),
           **vars(importlib.import_module(name))}
    report = _run_examples(name, {**own, "ember": ember, "np": np, "nn": nn, "F": F,
                                  "Path": Path})
    assert not report, report
    assert _global_state() == before, "the examples changed ember's global state"


# Modules whose examples use only public API: run with torch in place of ember (the torch
# module of the same name, else torch, provides the unqualified names, not the ember
# module), they must print exactly what they print with ember: torch's values, dtypes,
# shapes and reprs.
TORCH_CHECKED = [
    "ember", "ember.amp", "ember.amp.autocast_mode", "ember.amp.grad_scaler",
    "ember.autograd", "ember.autograd.anomaly_mode", "ember.autograd.engine",
    "ember.autograd.function", "ember.autograd.grad_mode", "ember.autograd.gradcheck",
    "ember.autograd.graph", "ember.autograd.inference_mode", "ember.autograd.tensor_api",
    "ember.core.device", "ember.core.factories", "ember.core.indexing", "ember.core.printing",
    "ember.core.storage", "ember.core.toplevel", "ember.core.typeinfo",
    "ember.dispatch.dispatcher", "ember.library", "ember.nn", "ember.nn.functional",
    "ember.nn.init", "ember.nn.parameter", "ember.nn.utils.clip_grad",
    "ember.nn.utils.convert_parameters", "ember.optim", "ember.optim.adam",
    "ember.optim.adamw", "ember.optim.lr_scheduler", "ember.optim.optimizer",
    "ember.optim.rmsprop", "ember.optim.sgd", "ember.overrides", "ember.random",
    "ember.return_types", "ember.utils.data", "ember.utils.data.dataloader",
    "ember.utils.data.dataset", "ember.utils.data.sampler", "ember.utils.hooks",
    *(m for m in MODULES if m.startswith("ember.nn.modules.")),
    *(m for m in MODULES if _public_module(m) != m),
]


@pytest.mark.parametrize("name", TORCH_CHECKED)
def test_docstring_examples_print_what_torch_prints(name, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.chdir(ROOT)
    try:
        twin = importlib.import_module(_public_module(name).replace("ember", "torch", 1))
    except ImportError:
        twin = torch
    globs = {**vars(twin), "torch": torch, "np": np, "nn": torch.nn,
             "F": torch.nn.functional, "Path": Path}
    report = _run_examples(name, globs, lambda text: re.sub(r"\bember\b", "torch", text))
    assert not report, report
