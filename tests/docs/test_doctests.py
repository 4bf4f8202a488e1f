"""The docstring examples of `ember` (with `ember.kernels`, which lives in kernels/ and so
is not found by walking ember/) and `codegen` run as tests, so they cannot drift.

Each module's examples see `ember`, `np` (NumPy), `nn` and `F` (ember.nn.functional) and
`Path` without importing them; codegen's examples run from the project root.
"""
import doctest
import importlib
import pkgutil
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


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    module = importlib.import_module(name)
    globs = {"ember": ember, "np": np, "nn": nn, "F": F, "Path": Path}
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    for test in finder.find(module, name, globs={**vars(module), **globs}):
        runner.run(test, out=report.append)
    assert not report, "".join(report)
