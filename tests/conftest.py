"""Being here, this file has pytest put tests/ on sys.path, so that test modules in any
folder below can `from helpers import ...` (tests/ has no __init__.py files: the tests
under tests/codegen import the top-level `codegen` package)."""
import os

from hypothesis import settings

# CI replays the same examples every run (HYPOTHESIS_PROFILE=ci in .ci/run) so a landing
# never depends on luck; local runs explore new examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
