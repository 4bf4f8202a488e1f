"""The README's worked example ("Add an op: square") is executed, so it cannot drift:
its snippets are read from README.md, applied to a copy of the project, generated, and the
new op is imported from that copy and compared with torch. Also checks the promise the
recipe makes about review: the generated diff holds only the new op's lines.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import without_readme_example

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Add an op: a worked example"
COPIED = ("schema", "kernels", "templates", "codegen", "ember", "generated")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


def run(args, cwd, **kw) -> subprocess.CompletedProcess:
    """Runs `args` (a Python command line) in `cwd`, capturing its output."""
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          check=False, **kw)


def recipe_snippets() -> dict[str, str]:
    """The recipe's code blocks, keyed by where they go: 'native', 'derivatives', or the
    kernel module named in the prose just before the block ('kernels/cpu/unary.py')."""
    text = (ROOT / "README.md").read_text()
    start = text.index(SECTION)
    section = text[start:text.index("\n## ", start + len(SECTION))]
    snippets = {}
    for m in re.finditer(r"```(\w+)\n(.*?)```", section, re.DOTALL):
        lang, code = m.group(1), textwrap.dedent(m.group(2))
        if lang == "yaml":
            snippets["native" if code.lstrip().startswith("- func:") else "derivatives"] = code
        else:
            modules = re.findall(r"`(kernels/\w+/\w+\.py)`", section[:m.start()])
            snippets[modules[-1]] = code
    return snippets


def apply_recipe(root: Path, snippets: dict[str, str]) -> None:
    native = root / "schema/native_functions.yaml"
    text = native.read_text()
    at = text.index("- func: neg(Tensor self)")         # mid-file, in its family's section
    native.write_text(text[:at] + snippets["native"] + "\n" + text[at:])
    derivatives = root / "schema/derivatives.yaml"
    derivatives.write_text(derivatives.read_text() + "\n" + snippets["derivatives"])
    for name, code in snippets.items():
        if name.startswith("kernels/"):
            module = root / name
            module.write_text(module.read_text() + "\n\n" + code)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of the project with the recipe applied and generated."""
    root = tmp_path_factory.mktemp("recipe")
    for name in COPIED:
        shutil.copytree(ROOT / name, root / name, ignore=IGNORE)
    without_readme_example(root)          # (ember has square: the recipe adds it again)
    done = run(["-m", "codegen", "--root", str(root)], root)
    assert done.returncode == 0, done.stderr
    shutil.copytree(root / "generated", root / "generated_before")
    apply_recipe(root, recipe_snippets())
    done = run(["-m", "codegen", "--root", str(root)], root)
    assert done.returncode == 0, done.stderr
    return root


def test_readme_has_every_snippet():
    assert set(recipe_snippets()) == {"native", "derivatives", "kernels/meta/unary.py",
                                      "kernels/cpu/unary.py"}


def test_generated_diff_holds_only_the_new_op(project):
    added, removed = [], []
    for new in sorted((project / "generated").glob("*.py")):
        old = (project / "generated_before" / new.name).read_text().splitlines()
        for line in difflib.unified_diff(old, new.read_text().splitlines(), lineterm="", n=0):
            if line.startswith(("+++", "---", "@@")):
                continue
            (added if line.startswith("+") else removed).append(line[1:])
    assert removed == []
    assert "# schema/native_functions.yaml: square(Tensor self) -> Tensor" in added
    assert "# schema/derivatives.yaml: square(Tensor self) -> Tensor" in added
    assert 0 < len(added) < 250, f"{len(added)} generated lines for one op"
    assert all("square" in line.lower() for line in added if line.startswith("# schema/"))


def test_where_resolves_the_new_entry(project):
    done = run(["-m", "codegen", "where", "square", "--root", str(project)], project)
    assert done.returncode == 0, done.stderr
    native = (project / "schema/native_functions.yaml").read_text().splitlines()
    line = native.index("- func: square(Tensor self) -> Tensor") + 1
    assert f"schema/native_functions.yaml:{line}: square(Tensor self) -> Tensor" in done.stdout
    assert "square.out(Tensor self, *, Tensor(a!) out)" in done.stdout
    assert "schema/derivatives.yaml:" in done.stdout


CHECK_NEW_OP = """
import ember, numpy as np
assert ember.__file__.startswith(sys.argv[1]), ember.__file__
torch = None
try:
    import torch
except ImportError:
    pass
for name in ("bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32",
             "float64"):
    dt = getattr(ember, name)
    x = (ember.arange(6) % 2 == 0) if name == "bool" else ember.arange(6).to(dt)
    x = x.reshape(2, 3).t()                              # non-contiguous
    r = ember.square(x)
    assert r.tolist() == (x.to(ember.int64) * x.to(ember.int64)).tolist(), (name, r)
    assert x.square().tolist() == r.tolist()
    meta = ember.square(ember.empty_strided(x.shape, x.stride(), dtype=dt, device="meta"))
    assert (meta.dtype, meta.stride()) == (r.dtype, r.stride()), name
    if torch is not None:
        tx = torch.tensor(x.t().tolist(), dtype=getattr(torch, name)).t()   # x's layout
        tr = torch.square(tx)
        assert str(tr.dtype)[6:] == str(r.dtype)[6:], (name, tr.dtype, r.dtype)
        assert tr.stride() == r.stride() and tr.tolist() == r.tolist(), name
out = ember.empty(3, dtype=ember.float32)
assert ember.square(ember.tensor([1.0, 2.0, 3.0]), out=out) is out and out.tolist() == [1, 4, 9]
x = ember.tensor([1.5, -2.0, 0.25], dtype=ember.float64, requires_grad=True)
assert ember.autograd.gradcheck(ember.square, (x,))
assert ember.autograd.gradgradcheck(ember.square, (x,))
print("ok")
"""


def test_new_op_runs_from_the_copy(project):
    pkg = project / "pkg"
    shutil.copytree(project / "ember", pkg / "ember", ignore=IGNORE)
    for name, dest in (("generated", "_generated"), ("kernels", "kernels"),
                       ("codegen", "codegen")):
        shutil.copytree(project / name, pkg / "ember" / dest, ignore=IGNORE)
    env = {**os.environ, "PYTHONPATH": str(pkg)}
    done = run(["-c", "import sys\n" + CHECK_NEW_OP, str(pkg)], pkg, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
