"""pyproject.toml lists every package, so a plain `pip install .` ships all of ember."""
from __future__ import annotations

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_python_folder_is_a_listed_package():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = cfg["package-dir"]
    listed = set(cfg["packages"])
    folder_of = {pkg: ROOT / path for pkg, path in mapping.items()}
    for pkg, folder in folder_of.items():
        for sub in folder.rglob("*.py"):
            if "__pycache__" in sub.parts:
                continue
            rel = sub.parent.relative_to(folder)
            name = ".".join((pkg, *rel.parts)) if rel.parts else pkg
            assert name in listed, f"{sub} belongs to package {name}, missing from pyproject"
