"""`make test` fails loudly when torch, the oracle, is missing (tests/conftest.py)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.mark.parametrize("allow", [False, True], ids=["stops", "allowed"])
def test_a_run_without_torch_stops_unless_allowed(tmp_path, allow):
    (tmp_path / "torch.py").write_text("raise ImportError('no torch here')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("EMBER_ALLOW_NO_TORCH", None)
    if allow:
        env["EMBER_ALLOW_NO_TORCH"] = "1"
    r = subprocess.run([sys.executable, "-m", "pytest", "tests/test_oracle_required.py", "-q", "--co",
                        "-p", "no:cacheprovider"], check=False, cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    if allow:
        assert r.returncode == 0 and "the tests' oracle" not in out, out[-2000:]
    else:
        assert r.returncode == 4, out[-2000:]
        assert "torch, the tests' oracle, cannot be imported (no torch here)" in out
        assert "EMBER_ALLOW_NO_TORCH=1" in out
