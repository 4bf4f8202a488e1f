"""The benchmark scripts' set-up (benchmarks/): the BLAS threads are pinned before NumPy
loads, --threads wins over the environment, and the documented flags exist."""
import ast
import importlib.util
import re
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[1] / "benchmarks"
SCRIPTS = sorted(p for p in BENCH.glob("*.py") if p.name != "threads.py")


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_threads_is_imported_before_numpy(path):
    imports = [n for n in ast.parse(path.read_text()).body
               if isinstance(n, (ast.Import, ast.ImportFrom)) and
               getattr(n, "module", None) != "__future__"]
    first = imports[0]
    assert isinstance(first, ast.Import) and first.names[0].name == "threads", \
        f"{path.name}: `import threads` must come first (before NumPy reads the environment)"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_documented_flags_exist(path):
    text = path.read_text()
    doc = ast.get_docstring(ast.parse(text)) or ""
    for flag in set(re.findall(r"\[(--[a-z-]+)", doc)):
        assert f'add_argument("{flag}"' in text, f"{path.name} documents {flag}, has no such flag"


def _threads(monkeypatch, argv, env):
    """THREADS and the BLAS variables after importing threads.py with argv and env."""
    names = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    for var in names:
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    monkeypatch.setattr(sys, "argv", ["bench.py", *argv])
    spec = importlib.util.spec_from_file_location("_threads_under_test", BENCH / "threads.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import os
    return module.THREADS, {os.environ[v] for v in names}


@pytest.mark.parametrize("argv,env,expected", [
    ([], {}, 1),
    (["--threads", "3"], {}, 3),
    (["--threads=2"], {"OMP_NUM_THREADS": "4"}, 2),
    (["--threads", "2"], {"OPENBLAS_NUM_THREADS": "8", "MKL_NUM_THREADS": "8"}, 2),
    ([], {"OMP_NUM_THREADS": "4"}, 4),
], ids=["default", "flag", "flag_over_env", "flag_over_all_env", "env_without_flag"])
def test_threads_flag_wins_over_the_environment(monkeypatch, argv, env, expected):
    assert _threads(monkeypatch, argv, env) == (expected, {str(expected)})


def test_real_programs_smoke(tmp_path):
    """benchmarks/real_programs.py runs a program under both libraries and writes its rows
    (one cheap program, one repetition; the times themselves are not checked)."""
    pytest.importorskip("torch")
    import json
    import subprocess
    out = tmp_path / "rows.json"
    subprocess.run([sys.executable, str(BENCH / "real_programs.py"), "--repeat", "1",
                    "--only", "regression,makemore", "--json", str(out)],
                   check=True, capture_output=True, timeout=300)
    rows = json.loads(out.read_text())["rows"]
    assert [r["case"] for r in rows] == ["regression (20 steps)"] + [
        f"makemore {k} (5 steps)" for k in ("bigram", "mlp", "rnn", "gru", "bow")]
    for row in rows:
        assert row["ember_us"][0] > 0 and row["torch_us"][0] > 0
        assert row["ember_over_torch"] == row["ember_us"][0] / row["torch_us"][0]
