"""The fused recurrent paths: the _thnn_fused_lstm_cell / _thnn_fused_gru_cell ops against
torch's cell formulas (values, gradients, gradcheck, Meta shapes and errors), and ember.nn's
fast path (fused cells, one node per layer) against its decomposed path: the same forward
bits, the same gradients, and the decomposed ops whenever a mode could see them."""
import sys
from pathlib import Path

import numpy as np
import pytest
from nn_compare import OpLog, assert_close, graph_names, pair, to_ember

import ember
import ember.nn.modules.rnn as ernn_modules
from ember.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).parents[1] / "ops"))
# torch's CPU cell formulas (torch has no CPU kernel for the fused ops), shared with the opinfo
from opinfo_nn import _torch_gru_cell as torch_gru_cell
from opinfo_nn import _torch_lstm_cell as torch_lstm_cell

TOL = {torch.float64: {"rtol": 1e-7, "atol": 1e-9}, torch.float32: {"rtol": 1e-5, "atol": 1e-6}}


CELLS = {"lstm": (ember._thnn_fused_lstm_cell, torch_lstm_cell, 4),
         "gru": (ember._thnn_fused_gru_cell, torch_gru_cell, 3)}


def cell_inputs(gates, dtype, bias, batch=3, hidden=5):
    shapes = [(batch, gates * hidden), (batch, gates * hidden), (batch, hidden)]
    shapes += [(gates * hidden,), (gates * hidden,)] if bias else []
    return [pair(*s, dtype=dtype, seed=i) for i, s in enumerate(shapes)]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_fused_cells_match_torch_formulas(cell, bias, dtype):
    """Outputs, workspace and the gradients of every input (both cell outputs weighted)."""
    op, reference, gates = CELLS[cell]
    ins = cell_inputs(gates, dtype, bias)
    t_out, e_out = reference(*(t for t, _ in ins)), op(*(e for _, e in ins))
    assert len(e_out) == len(t_out)
    for e, t in zip(e_out, t_out, strict=True):
        assert_close(e, t, **TOL[dtype])
        assert tuple(e.stride()) == tuple(t.stride())
    assert not e_out[-1].requires_grad      # (the workspace is not differentiable)
    differentiable = t_out[:-1]
    gen = torch.Generator().manual_seed(7)
    grads = [torch.randn(t.shape, generator=gen, dtype=dtype) for t in differentiable]
    torch.autograd.backward(differentiable, grads)
    ember.autograd.backward(list(e_out[:-1]), [to_ember(g) for g in grads])
    for t, e in ins:
        assert_close(e.grad, t.grad, **TOL[dtype])


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_fused_cells_gradcheck(cell):
    """First and second derivatives in float64 (the second: the ember-op formulas)."""
    op, _, gates = CELLS[cell]
    ins = [e for _, e in cell_inputs(gates, torch.float64, True, batch=2, hidden=2)]
    outputs = 2 if cell == "lstm" else 1

    def f(*args):
        return op(*args)[:outputs]
    assert gradcheck(f, ins)
    assert gradgradcheck(f, ins)


def test_fused_lstm_backward_one_gradient():
    """Only cy's (or only hy's) gradient: the missing one counts as zeros."""
    (tg, eg), (th, eh), (tc, ec) = cell_inputs(4, torch.float64, False)
    _, cy, _ = torch_lstm_cell(tg, th, tc)
    cy.sum().backward()
    _, ecy, _ = ember._thnn_fused_lstm_cell(eg, eh, ec)
    ecy.sum().backward()
    for t, e in ((tg, eg), (th, eh), (tc, ec)):
        assert_close(e.grad, t.grad, **TOL[torch.float64])
    ws = ember._thnn_fused_lstm_cell(eg, eh, ec)[2].detach()
    assert ember._thnn_fused_lstm_cell_backward_impl(None, None, ec, ecy, ws, False) == \
        (None, None, None)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_fused_cells_meta_and_errors(cell):
    """Meta shapes; torch's checkSizes errors on CPU and Meta alike."""
    op, _, gates = CELLS[cell]
    name = f"_thnn_fused_{cell}_cell"
    meta = [ember.empty(2, gates * 3, device="meta"), ember.empty(2, gates * 3, device="meta"),
            ember.empty(2, 3, device="meta")]
    shapes = [tuple(t.shape) for t in op(*meta)]
    assert shapes[0] == (2, 3) and shapes[-1] == (2, (4 if cell == "lstm" else 5) * 3)
    for device in ("cpu", "meta"):
        g = ember.zeros(2, gates * 3, device=device)
        h = ember.zeros(2, 3, device=device)
        with pytest.raises(RuntimeError, match=r"Expected 2-dimensional tensor, but got "
                           r"3-dimensional tensor for argument #1 'input_gates' \(while "
                           f"checking arguments for {name}"):
            op(g.unsqueeze(0), g, h)
        with pytest.raises(RuntimeError, match="to have same size as tensor for argument #2 "
                           "'hidden_gates'"):
            op(g, g[:, 1:], h)
        with pytest.raises(RuntimeError, match="'prev_hidden' to have 6 elements; but it "
                           "actually has 4 elements"):
            op(g, g, h[:, :2])
        with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
            op(g, g.double(), h)


# --------------------------------------------------------------------------- ember.nn
def run(module, x, hx, decomposed, monkeypatch):
    """(output tensors, gradients of x and every parameter), on the fast or decomposed path."""
    with monkeypatch.context() as patch:
        if decomposed:
            patch.setattr(ernn_modules, "_fused_ok", lambda *args: False)
        module.zero_grad()
        x = x.detach().requires_grad_()
        out = module(x, hx)
        flat = [out] if isinstance(out, ember.Tensor) else \
            [t for o in out for t in ((o,) if isinstance(o, ember.Tensor) else o)]
        gen = np.random.default_rng(3)
        grads = [ember.from_numpy(gen.standard_normal(tuple(t.shape)).astype(t.dtype.np))
                 for t in flat]
        ember.autograd.backward(flat, grads)
        return flat, [x.grad] + [p.grad for p in module.parameters()]


MODULES = [("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"bias": False}),
           ("GRU", {"num_layers": 2, "bidirectional": True}), ("GRU", {"bias": False}),
           ("RNN", {"num_layers": 2, "bidirectional": True}), ("LSTMCell", {}),
           ("GRUCell", {})]


@pytest.mark.parametrize("dtype", [ember.float64, ember.float32])
@pytest.mark.parametrize("cls_name, kwargs", MODULES)
def test_fast_path_matches_decomposed(cls_name, kwargs, dtype, monkeypatch):
    """The fused path's forward has the decomposed ops' bits; its gradients agree."""
    ember.manual_seed(0)
    module = getattr(ember.nn, cls_name)(3, 4, dtype=dtype, **kwargs)
    cell = cls_name.endswith("Cell")
    x = ember.randn((2, 3) if cell else (5, 2, 3), dtype=dtype)
    hx = None if not cell else ember.randn(2, 4, dtype=dtype)
    if hx is not None and cls_name == "LSTMCell":
        hx = (hx, ember.randn(2, 4, dtype=dtype))
    fast, fast_grads = run(module, x, hx, False, monkeypatch)
    slow, slow_grads = run(module, x, hx, True, monkeypatch)
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        assert a.grad_fn.name() == b.grad_fn.name() or cell
    tol = {"rtol": 1e-12, "atol": 1e-14} if dtype is ember.float64 else \
        {"rtol": 1e-5, "atol": 1e-6}
    for a, b in zip(fast_grads, slow_grads, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)


@pytest.mark.parametrize("cls_name", ["LSTM", "GRU", "RNN", "LSTMCell", "GRUCell"])
def test_modes_see_the_decomposed_ops(cls_name):
    """Plain eager: a fused node; under a dispatch mode (make_fx, fake tensors ...) the
    cell's sigmoid/tanh ops as torch's CPU cells run them, nothing fused."""
    module = getattr(ember.nn, cls_name)(3, 4)
    x = ember.randn(2, 3) if cls_name.endswith("Cell") else ember.randn(5, 2, 3)
    out = module(x)
    out = out[0] if isinstance(out, tuple) else out
    fused = {"FusedRnnLayerBackward"}
    assert set(graph_names(out)) & fused
    with OpLog() as log:
        out = module(x)
    out = out[0] if isinstance(out, tuple) else out
    assert not set(graph_names(out)) & fused
    assert any("tanh" in op for op in log.ops)
    assert not any("fused" in op for op in log.ops)


def test_module_double_backward():
    """create_graph through the one-node layers and cells: gradgradcheck in float64 (of
    the input and the initial states)."""
    ember.manual_seed(0)
    f64 = {"dtype": ember.float64, "requires_grad": True}
    for cls in (ember.nn.LSTM, ember.nn.GRU, ember.nn.RNN):
        module = cls(2, 2, bidirectional=True, dtype=ember.float64)
        x, h0 = ember.randn(2, 1, 2, **f64), ember.randn(2, 1, 2, **f64)

        def f(x, h0, module=module):
            out, h = module(x, (h0, h0.cos()) if isinstance(module, ember.nn.LSTM) else h0)
            return (out, *(h if isinstance(h, tuple) else (h,)))
        assert gradgradcheck(f, (x, h0))
    for cls in (ember.nn.LSTMCell, ember.nn.GRUCell):
        module = cls(2, 2, dtype=ember.float64)
        x, h0 = ember.randn(3, 2, **f64), ember.randn(3, 2, **f64)

        def g(x, h0, module=module):
            if isinstance(module, ember.nn.LSTMCell):
                return module(x, (h0, h0.sin()))
            return (module(x, h0),)
        assert gradgradcheck(g, (x, h0))


@pytest.mark.parametrize("fn", [
    lambda x: x[3], lambda x: x[-1], lambda x: x[:, 1], lambda x: x.select(1, -2),
    lambda x: x[1:], lambda x: x[:, -3:], lambda x: x[::2, 1:4:2], lambda x: x[:, 7:2],
    lambda x: x.sigmoid(), lambda x: x.tanh(), lambda x: x.t().sigmoid(),
    lambda x: x.flatten()[2], lambda x: x.flatten()[2:9:3]],
    ids=["select0", "select-1", "select-dim1", "select-neg", "slice", "slice-neg",
         "slice-step", "slice-empty", "sigmoid", "tanh", "sigmoid-t", "select-1d",
         "slice-1d"])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_array_backward_formulas_match_ops(fn, dtype, monkeypatch):
    """The per-step slicing and gate nodes (select/slice/sigmoid/tanh backward) on arrays
    give the ops' gradients: the same bits, shape and strides."""
    from ember.autograd import array_formulas
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(array_formulas, "ENABLED", enabled)
        x = ember.linspace(-2, 2, 30, dtype=dtype).reshape(5, 6).requires_grad_()
        y = fn(x)
        y.backward(ember.ones_like(y) * 0.5 + y.detach())
        results.append(x.grad)
    a, b = results
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert a.stride() == b.stride()
