"""Being here, this file has pytest put tests/ on sys.path, so that test modules in any
folder below can `from helpers import ...` (tests/ has no __init__.py files: the tests
under tests/codegen import the top-level `codegen` package)."""
import os

import pytest
from hypothesis import settings

# CI replays the same examples every run (HYPOTHESIS_PROFILE=ci in .ci/run) so a landing
# never depends on luck; local runs explore new examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_sessionstart(session):
    """torch is the oracle of nearly every test: without it they skip, so the run stops
    here instead of passing on skips, unless EMBER_ALLOW_NO_TORCH=1 asks for that."""
    try:
        import torch  # noqa: F401
    except ImportError as e:
        if os.environ.get("EMBER_ALLOW_NO_TORCH") != "1":
            pytest.exit(f"torch, the tests' oracle, cannot be imported ({e}): install it "
                        "(make setup) or set EMBER_ALLOW_NO_TORCH=1 to run the few tests "
                        "that do not need it", returncode=4)


@pytest.fixture(autouse=True)
def _seeded(request):
    """Every test starts from the same global random state (ember's default generator,
    torch's and NumPy's legacy one), whatever ran before it; the op samples' shared stream
    (tests/ops/opinfo.py) restarts from the test's own seed and the sample modules' own
    generators from theirs, so a test's data does not
    depend on which tests ran before it in its process (pytest-xdist splits the suite)."""
    import sys
    import zlib

    import numpy as np

    import ember
    ember.manual_seed(0)
    np.random.seed(0)
    opinfo = sys.modules.get("opinfo")
    if opinfo is not None:
        opinfo._rng = np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
        opinfo.reseed_own()
    try:
        import torch
    except ImportError:
        return
    torch.default_generator.manual_seed(0)  # (torch.manual_seed also seeds CUDA: 0.2 ms)
