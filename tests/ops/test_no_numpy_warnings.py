"""Floating-point events (overflow, inf - inf, log(0), casts out of range) give torch's IEEE
results silently: NumPy's RuntimeWarnings must not reach the user. Run in a fresh
interpreter, since pytest installs its own warning filters."""
import subprocess
import sys

import pytest

SCRIPT = """
import ember
inf = float("inf")
x = ember.tensor([inf, 1.0])
h = ember.tensor([60000.0], dtype=ember.float16)
results = [x - x, h + h, h * h, h.sum(), h.reshape(1, 1) @ h.reshape(1, 1),
           ember.log(ember.tensor([0.0, -1.0])), ember.tensor([1.0]) / 0,
           ember.tensor([1e39], dtype=ember.float64).to(ember.float16),
           ember.tensor([1.0, 2.0], dtype=ember.float16).mean(),
           ember.nn.functional.mse_loss(h, -h), ember.tensor([0.0]) * inf]
print([r.tolist() for r in results])
"""


def test_floating_point_events_print_no_numpy_warning():
    done = subprocess.run([sys.executable, "-W", "default", "-c", SCRIPT], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr, done.stderr
    torch = pytest.importorskip("torch")
    expected = [torch.tensor([float("inf"), 1.0]) - torch.tensor([float("inf"), 1.0])]
    assert str(expected[0].tolist()) in done.stdout      # [nan, 0.0], as torch gives
