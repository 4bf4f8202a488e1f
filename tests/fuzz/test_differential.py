"""A differential fuzzer: random calls of every pointwise, reduction, indexing and shape
overload of the schema, on ember and on torch, compared (issue 12).

Each op gets EXAMPLES hypothesis examples (random shapes incl. 0-d and empty, broadcasting,
all ten dtypes, transposed / stepped-slice / stride-0 inputs, Python bool/int/float
scalars, dims in and out of range); see tests/fuzz/fuzz_support.py for how arguments are
drawn from the schema. HYPOTHESIS_PROFILE=ci replays the same examples every run: 380
overloads x 25 examples = 9,500 cases, about 50 s on one core (25, not 30, since the out=
variants got their fuzzer, test_out_variants.py: ~11 s). A failure prints the
shrunk case as a one-line repro, `aten.<op>(<args>)` with ember's and torch's outputs.
Local runs (the default profile) draw new examples each time, and may find new failures.

    .venv/bin/python -m pytest tests/fuzz -q -k "add.Tensor"
    EMBER_FUZZ_EXAMPLES=2000 .venv/bin/python -m pytest tests/fuzz -q -x   # a long run
    EMBER_FUZZ_SHRINK=0 ...  # report the first failing example of each op, unshrunk
    EMBER_FUZZ_KNOWN=0 ...   # also run the ops of the KNOWN list (to see what still fails)
"""
import os

import pytest
from fuzz_support import FUZZ_OPS, KNOWN, SCOPE, draw_case, run_case, skip_reason

pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
given, settings, st, HealthCheck = (hypothesis.given, hypothesis.settings,
                                    hypothesis.strategies, hypothesis.HealthCheck)

EXAMPLES = int(os.environ.get("EMBER_FUZZ_EXAMPLES", "25"))
USE_KNOWN = os.environ.get("EMBER_FUZZ_KNOWN", "1") != "0"
SKIPPED_PHASES = {hypothesis.Phase.explain} | (
    {hypothesis.Phase.shrink} if os.environ.get("EMBER_FUZZ_SHRINK") == "0" else set())


def _param(name):
    marks = [pytest.mark.xfail(reason=KNOWN[name], strict=False)] if USE_KNOWN and \
        name in KNOWN else []
    return pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", [_param(n) for n in FUZZ_OPS])
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck),
          phases=[p for p in hypothesis.Phase if p not in SKIPPED_PHASES])
@given(data=st.data())
def test_matches_torch(name, data):
    """Same error type, or same values, dtype, shape and strides as torch."""
    spec = FUZZ_OPS[name]
    run_case(spec, draw_case(data, spec))


def test_scope():
    """The fuzzer covers a real share of the schema; every op left out has a reason and
    every KNOWN entry names a fuzzed op (so entries of renamed or removed ops go)."""
    assert len(FUZZ_OPS) > 300
    for name, spec in SCOPE.items():
        assert name in FUZZ_OPS or skip_reason(spec), name
    assert not set(KNOWN) - set(FUZZ_OPS), sorted(set(KNOWN) - set(FUZZ_OPS))
    kinds = {s.kind for s in FUZZ_OPS.values()}
    assert kinds == {"functional", "inplace"}, kinds
