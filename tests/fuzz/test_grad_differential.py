"""A differential gradient fuzzer: the gradients of every differentiable overload the
forward fuzzer (test_differential.py) covers, on ember and on torch, compared.

Each op gets EXAMPLES hypothesis examples drawn as the forward fuzzer draws them, with
float64, float32 and complex128 tensors (every one a leaf that requires grad, views and
in-place ops included); the gradients of the outputs weighted by random cotangents are
compared (values with dtype-aware tolerances, NaN pattern, dtype, shape; errors: both raise
or neither; the outputs' grad_fn.name(), e.g. XlogyBackward2), and one example in three also
compares the double backward (create_graph=True: the gradients of the gradients' weighted
sum). See tests/fuzz/grad_support.py.
HYPOTHESIS_PROFILE=ci replays the same 4 examples per op every run: 576 overloads x 4 =
2,304 cases, about 25 s of CPU time (imports included). A failure prints the shrunk case
as a one-line repro; grad_support.py's tables list the differences that are torch's bugs
or unspecified (each with its reason) and GRAD_KNOWN the xfailed ops.

    .venv/bin/python -m pytest tests/fuzz/test_grad_differential.py -q -k "mul.Tensor"
    EMBER_FUZZ_EXAMPLES=30 EMBER_FUZZ_SHRINK=0 nice .venv/bin/python -m pytest \\
        tests/fuzz/test_grad_differential.py -q       # a long run, no shrinking
    EMBER_FUZZ_KNOWN=0 ...   # also run the ops of the GRAD_KNOWN table
"""
import os

import grad_support
import pytest
from fuzz_support import FUZZ_OPS, draw_case
from grad_support import GRAD_DTYPES, GRAD_KNOWN, GRAD_OPS, run_grad_case

pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
given, settings, st, HealthCheck = (hypothesis.given, hypothesis.settings,
                                    hypothesis.strategies, hypothesis.HealthCheck)

EXAMPLES = int(os.environ.get("EMBER_FUZZ_EXAMPLES", "4"))
USE_KNOWN = os.environ.get("EMBER_FUZZ_KNOWN", "1") != "0"
SKIPPED_PHASES = {hypothesis.Phase.explain} | (
    {hypothesis.Phase.shrink} if os.environ.get("EMBER_FUZZ_SHRINK") == "0" else set())


def _param(name):
    marks = [pytest.mark.xfail(reason=GRAD_KNOWN[name], strict=False)] if USE_KNOWN and \
        name in GRAD_KNOWN else []
    return pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", [_param(n) for n in GRAD_OPS])
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck),
          phases=[p for p in hypothesis.Phase if p not in SKIPPED_PHASES])
@given(data=st.data())
def test_gradients_match_torch(name, data):
    """Same errors, or the same gradients (and double-backward gradients) as torch."""
    spec = GRAD_OPS[name]
    case = draw_case(data, spec, dtypes=GRAD_DTYPES)
    seed = data.draw(st.integers(0, 2**32 - 1), label="cotangent seed")
    double = data.draw(st.integers(0, 2), label="double backward") == 0
    run_grad_case(spec, case, seed, double)


def test_grad_scope():
    """Most fuzzed ops are differentiable ones; every GRAD_KNOWN entry names one of them."""
    assert len(GRAD_OPS) > 400, len(GRAD_OPS)
    assert set(GRAD_OPS) <= set(FUZZ_OPS)
    for table in ("GRAD_KNOWN", "TORCH_NO_DERIVATIVE", "TORCH_SECOND_ORDER_NAN",
                  "TORCH_NONFINITE_UNSPECIFIED", "TORCH_CREATE_GRAPH_DIFFERS",
                  "TORCH_NEGATIVE_ZERO_PATH", "TORCH_FLOAT32_EXPONENT_PATH",
                  "TORCH_COMPLEX_ADD_NAN", "TORCH_CANCELLATION",
                  "NO_COMPLEX_KERNEL", "NODE_NAMES_DIFFER"):
        names = set(getattr(grad_support, table))
        assert names <= set(GRAD_OPS), (table, sorted(names - set(GRAD_OPS)))
