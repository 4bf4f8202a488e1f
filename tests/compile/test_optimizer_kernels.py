"""A compiled optimizer step: lerp with a number weight decomposes to torch's branch (one
fused multiply-add, no mask the size of the tensor), and the fused kernel updates the
parameters and moment buffers in place through their own arguments (one array behind two
arguments kept LLVM from vectorizing the loop)."""
from __future__ import annotations

import logging

import numpy as np
import pytest

import ember
from ember._inductor import config

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_compiled_lerp_with_a_number_weight_is_torchs_bits(backend, dtype):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(4096).astype(dtype) for _ in range(2))
    for w in (0.1, 0.4999, 0.5, 0.9, -0.3, 1.5):
        f = ember.compile(lambda x, y, w=w: ember.lerp(x, y, w), backend=backend)
        got = f(ember.tensor(a), ember.tensor(b)).numpy()
        want = torch.lerp(torch.tensor(a), torch.tensor(b), w).numpy()
        np.testing.assert_array_equal(got, want)


def _params(lib, seed=0):
    rng = np.random.default_rng(seed)
    ps = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(np.float32)))
          for s in ((16, 8), (16,))]
    for p in ps:
        p.grad = lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32))
    return ps


@pytest.mark.parametrize("kind", ["Adam", "AdamW"])
def test_compiled_adam_updates_in_place_and_equals_torch(kind, monkeypatch, caplog):
    monkeypatch.setattr(config, "output_code", True)
    ps, tps = _params(ember), _params(torch)
    opt = getattr(ember.optim, kind)(ps, lr=1e-2, weight_decay=0.1)
    topt = getattr(torch.optim, kind)(tps, lr=1e-2, weight_decay=0.1)
    step = ember.compile(opt.step, backend="inductor")
    buffers = None
    with caplog.at_level(logging.INFO, logger="ember._inductor.output_code"):
        for _ in range(4):
            step()
            topt.step()
            state = opt.state[ps[0]]
            now = [id(state["exp_avg"]), id(state["exp_avg_sq"]), id(ps[0])]
            assert buffers in (None, now)       # (the same tensors, updated in place)
            buffers = now
    for p, tp in zip(ps, tps):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=2e-6,
                                   atol=1e-7)
    code = "\n".join(r.getMessage() for r in caplog.records)
    assert "written in place" in code, code
    # the update kernel stores into its inputs' arguments: no `out` parameter
    signatures = [line for line in code.splitlines() if line.startswith("def kernel(")]
    assert any("out" not in sig for sig in signatures), signatures
