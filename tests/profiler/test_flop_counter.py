"""FlopCounterMode against torch's on the same models: totals, per-module per-op counts,
the table; the formulas themselves; the profiler's with_flops column."""
import numpy as np
import pytest

import ember
import ember.profiler
from ember.utils import flop_counter as efc

torch = pytest.importorskip("torch")
from torch.utils import flop_counter as tfc


def mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))


def cnn(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 2, 3, stride=2),
                         nn.Flatten(), nn.Linear(2 * 3 * 3, 5))


def counted(lib, fc_mod, model, shape, x_grad, backward=True, depth=2):
    x = lib.ones(*shape, requires_grad=x_grad)
    with fc_mod.FlopCounterMode(display=False, depth=depth) as fc:
        out = model(lib)(x).sum()
        if backward:
            out.backward()
    counts = {mod: {str(op): n for op, n in per_op.items()}
              for mod, per_op in fc.get_flop_counts().items()}
    return fc.get_total_flops(), counts, fc.get_table()


@pytest.mark.parametrize("model,shape", [(mlp, (3, 4)), (cnn, (2, 3, 8, 8))])
@pytest.mark.parametrize("x_grad", [False, True])
@pytest.mark.parametrize("backward", [False, True])
def test_counts_match_torch(model, shape, x_grad, backward):
    e = counted(ember, efc, model, shape, x_grad, backward)
    t = counted(torch, tfc, model, shape, x_grad, backward)
    assert e[0] == t[0] > 0
    assert e[1] == t[1]
    assert e[2] == t[2]


def test_table_depth_and_display(capsys):
    e = counted(ember, efc, mlp, (3, 4), False, depth=1)
    t = counted(torch, tfc, mlp, (3, 4), False, depth=1)
    assert e[2] == t[2] and "Sequential.0" not in e[2]
    with efc.FlopCounterMode() as fc:
        ember.ones(2, 3) @ ember.ones(3, 4)
    assert capsys.readouterr().out.strip() == fc.get_table().strip()
    assert fc.get_total_flops() == 2 * 3 * 4 * 2
    assert str(next(iter(fc.get_flop_counts()["Global"]))) == "aten.mm"


def test_bmm_baddbmm_and_functional_ops():
    def run(lib, fc_mod):
        a, b = lib.ones(2, 3, 4), lib.ones(2, 4, 5)
        with fc_mod.FlopCounterMode(display=False) as fc:
            lib.bmm(a, b)
            lib.baddbmm(lib.ones(2, 3, 5), a, b)
            lib.addmm(lib.ones(5), lib.ones(3, 4), lib.ones(4, 5))
            lib.nn.functional.conv1d(lib.ones(1, 2, 9), lib.ones(3, 2, 3))
            lib.nn.functional.conv_transpose2d(lib.ones(1, 2, 4, 4), lib.ones(2, 3, 3, 3),
                                               stride=2)
        return {str(k): v for k, v in fc.get_flop_counts()["Global"].items()}
    assert run(ember, efc) == run(torch, tfc)


@pytest.mark.parametrize("q,k,v", [((2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6)),
                                   ((1, 4, 8, 2), (1, 2, 8, 2), (1, 2, 8, 2))])
def test_sdpa_formulas_equal_torch(q, k, v):
    assert efc.sdpa_flop_count(q, k, v) == tfc.sdpa_flop_count(q, k, v)
    grad = (q[0], q[1], q[2], v[3])
    if q[1] == k[1]:
        assert efc.sdpa_backward_flop_count(grad, q, k, v) == \
            tfc.sdpa_backward_flop_count(grad, q, k, v)


@pytest.mark.parametrize("shape,kwargs", [((2, 3, 5, 4), {}), ((2, 3, 5, 4), {"is_causal": True}),
                                          ((2, 3, 5, 4), {"scale": 0.5}), ((3, 5, 4), {})])
def test_sdpa_counts_what_torch_counts(shape, kwargs):
    """4-D attention runs torch's CPU kernel in both libraries, which has no formula
    (0 flops); 3-D attention decomposes into bmms, counted by their formula in both.
    (With an attn_mask torch still runs its kernel and counts 0, ember decomposes.)"""
    counts = []
    for lib, mode in ((ember, efc.FlopCounterMode), (torch, tfc.FlopCounterMode)):
        q = lib.ones(*shape)
        with mode(display=False) as fc:
            lib.nn.functional.scaled_dot_product_attention(q, q, q, **kwargs)
        counts.append(fc.get_total_flops())
    assert counts[0] == counts[1]
    if len(shape) == 3:
        assert counts[0] == tfc.sdpa_flop_count((1,) + shape, (1,) + shape, (1,) + shape)


def test_custom_mapping_and_register_errors():
    def neg_flop(shape, out_shape=None, **kwargs):
        return int(np.prod(shape))
    with efc.FlopCounterMode(display=False, custom_mapping={ember.ops.aten.neg: neg_flop}) as fc:
        ember.neg(ember.ones(3, 4))
    assert fc.get_total_flops() == 12
    with pytest.raises(RuntimeError, match="duplicate registrations"):
        efc.register_flop_formula(ember.ops.aten.mm)(neg_flop)


def test_profiler_with_flops_matches_torch():
    def run(lib, prof_mod):
        with prof_mod.profile(with_flops=True) as p:
            lib.mm(lib.ones(3, 4), lib.ones(4, 5))
            lib.addmm(lib.ones(5), lib.ones(3, 4), lib.ones(4, 5))
            lib.bmm(lib.ones(2, 3, 4), lib.ones(2, 4, 5))
        return {e.name: e.flops for e in p.events() if e.name in ("aten::mm", "aten::addmm",
                                                                 "aten::bmm")}
    assert run(ember, ember.profiler) == run(torch, torch.profiler)
    with ember.profiler.profile(with_flops=True) as p:
        ember.mm(ember.ones(3, 4), ember.ones(4, 5))
    assert "Total FLOPs" in p.key_averages().table()
