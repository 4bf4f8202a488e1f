"""Shared fixtures of the codegen tests."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codegen.__main__ import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def generated_project(tmp_path_factory):
    """A copy of the schemas, templates, kernels and formula helpers with a freshly
    generated/, made once per session (tests edit their own copy: `project`)."""
    root = tmp_path_factory.mktemp("project")
    ignore = shutil.ignore_patterns("__pycache__")
    for d in ("schema", "templates", "kernels"):
        shutil.copytree(ROOT / d, root / d, ignore=ignore)
    shutil.copytree(ROOT / "ember" / "autograd" / "formulas",
                    root / "ember" / "autograd" / "formulas", ignore=ignore)
    assert main(["--root", str(root)]) == 0
    return root
