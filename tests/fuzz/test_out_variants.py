"""The differential fuzzer's out= half: every out= overload whose functional overload
test_differential.py fuzzes, called on ember and on torch with that overload's random
arguments and out= tensors drawn from torch's result: of its shape and dtype (contiguous
or transposed), empty, of another non-empty shape (torch resizes it and warns "An output
with one or more elements was resized"), or of another dtype (a cast, or torch's
"result type Float can't be cast to the desired output type Long"). Compared: the error
type, or the resize warning, the returned out tensors and their shape, dtype, strides and
values. See fuzz_support.run_out_case.

HYPOTHESIS_PROFILE=ci replays EXAMPLES (3) examples per overload every run.

    .venv/bin/python -m pytest tests/fuzz/test_out_variants.py -q -k "add.out"
    EMBER_FUZZ_EXAMPLES=100 EMBER_FUZZ_SHRINK=0 nice .venv/bin/python -m pytest \\
        tests/fuzz/test_out_variants.py -q      # a long run
"""
import os

import pytest
from fuzz_support import KNOWN, OUT_GAPS, OUT_OPS, Mismatch, OutGap, draw_case, run_out_case

pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
given, settings, st, HealthCheck = (hypothesis.given, hypothesis.settings,
                                    hypothesis.strategies, hypothesis.HealthCheck)

EXAMPLES = int(os.environ.get("EMBER_FUZZ_EXAMPLES", "3"))
USE_KNOWN = os.environ.get("EMBER_FUZZ_KNOWN", "1") != "0"
SKIPPED_PHASES = {hypothesis.Phase.explain} | (
    {hypothesis.Phase.shrink} if os.environ.get("EMBER_FUZZ_SHRINK") == "0" else set())

# out= overloads whose own disagreements are known, by cause (xfail, not strict); the two
# causes found across many ops are fuzz_support.OUT_GAPS, recognized case by case
OUT_OPMATH = ("an integer input's float op into a float64 out=: torch computes in the default "
              "dtype (float32) and casts, ember computes in float64 (more digits)")
OUT_MISC = ("hstack/dstack.out: torch's cat raises TypeError for an out dtype the inputs cannot "
            "be cast to (ember RuntimeError); index.Tensor_out: torch checks the out dtype "
            "before the mask's shape; sum/prod with a dtype= and an out= of another dtype: "
            "torch casts, ember refuses")
OUT_KNOWN: dict[str, str] = {
    **dict.fromkeys(["digamma.out", "sin.out", "rsqrt.out"], OUT_OPMATH),
    **dict.fromkeys(["hstack.out", "dstack.out", "index.Tensor_out", "prod.int_out",
                     "sum.IntList_out"], OUT_MISC),
}


def _known(name):
    """Why the out= overload `name` is known to disagree (OUT_KNOWN, or its functional's
    KNOWN entry), or None."""
    return OUT_KNOWN.get(name) or KNOWN.get(OUT_OPS[name][1].name) if USE_KNOWN else None


@pytest.mark.parametrize("name", list(OUT_OPS))
def test_out_matches_torch(name):
    """Same error type, or the same warning and out= tensors as torch. A known op's
    mismatches are collected, not shrunk (the CI budget), and xfail it."""
    out_spec, spec = OUT_OPS[name]
    known = []

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck),
              phases=[p for p in hypothesis.Phase if p not in SKIPPED_PHASES])
    @given(data=st.data())
    def check(data):
        try:
            run_out_case(data, out_spec, spec, draw_case(data, spec))
        except OutGap as e:
            if not USE_KNOWN:
                raise
            known.append((OUT_GAPS[e.cause], e))
        except Mismatch as e:
            if not _known(name):
                raise
            known.append((_known(name), e))

    check()
    if known:
        pytest.xfail("\n".join(map(str, known[0])))


def test_out_scope():
    """Most out= overloads of the fuzzed ops are fuzzed; OUT_KNOWN names fuzzed ones."""
    assert len(OUT_OPS) > 250, len(OUT_OPS)
    assert set(OUT_KNOWN) <= set(OUT_OPS), sorted(set(OUT_KNOWN) - set(OUT_OPS))
