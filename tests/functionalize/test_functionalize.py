"""ember.func.functionalize against torch.func.functionalize on the same programs: values,
input mutations, graphs without mutations (and views), alias regeneration (seed 004)."""
from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.func import functionalize
from ember.fx.experimental.proxy_tensor import make_fx

torch = pytest.importorskip("torch")

REMOVE = ("mutations", "mutations_and_views")


def _np(t):
    return t.detach().numpy()


def _outputs(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


# --- programs of seed 004 and more: (name, fn(lib, *inputs), input shapes) -----------------------
def slice_mutation(lib, x):
    y = lib.zeros(3, 3)
    y[:, 1].add_(x)
    return y


def one_view(lib, x):
    y = x.clone()
    v = y.view(-1)
    v.mul_(2)
    return y


def outstanding_aliases(lib, x):
    a = x.clone()
    b, c, d = a[0], a[:, 1], a.t()
    b.add_(1)                          # b, c, d and a all see it
    c.mul_(10)
    return a, b, c, d + 0


def views_of_views(lib, x):
    a = x.clone()
    v = a.view(2, 2, 3).transpose(0, 1)[1]
    v.sub_(5)
    w = a.diagonal()
    return a, v, w * 1


def split_and_unbind(lib, x):
    a = x.clone()
    p, q = a.split(2, dim=1)[:2]
    p.fill_(7)
    r = a.unbind(0)[2]
    r.neg_()
    return a, q + 0


def input_mutations(lib, x, y):
    x.add_(1)                           # the epilogue copies it back into x
    y[0].zero_()                        # ... and into y
    return x * y


def out_and_cast(lib, x):
    out = lib.empty(0)
    lib.add(x, 1, out=out)              # out= resizes
    z = lib.zeros(4, 3, dtype=lib.float64)
    z.add_(x)                           # float64 += float32
    i = lib.zeros(4, 3, dtype=lib.int64)
    i.copy_(x)                          # copy_ casts
    return out, z, i


def inplace_views(lib, x):
    y = x.clone()
    y.t_()
    y.unsqueeze_(0)
    y.mul_(3)
    x.transpose_(0, 1)                 # an input's metadata changes too
    return y


def complex_views(lib, x):
    """Mutations through the views between real and complex and the conjugate view (their
    inverses are view_as_real/view_as_complex/_conj, not an as_strided of another dtype)."""
    a = x.clone()
    z = lib.view_as_complex(a)
    z.mul_(2)                           # a sees it
    lib.view_as_real(z)[:, 1].add_(1)   # z's imaginary parts, and a's second column
    c = z.conj()
    lib.view_as_complex(x).add_(1j)     # an input mutated through a complex view
    return a, z * 1, c * 1


PROGRAMS = {
    "complex_views": (complex_views, [(4, 2)]),
    "slice_mutation": (slice_mutation, [(3,)]),
    "one_view": (one_view, [(2, 3)]),
    "outstanding_aliases": (outstanding_aliases, [(3, 3)]),
    "views_of_views": (views_of_views, [(3, 4)]),
    "split_and_unbind": (split_and_unbind, [(3, 5)]),
    "input_mutations": (input_mutations, [(2, 3), (2, 3)]),
    "out_and_cast": (out_and_cast, [(4, 3)]),
    "inplace_views": (inplace_views, [(4, 3)]),
}


def _inputs(shapes, lib):
    rng = np.random.default_rng(0)
    return [lib.tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes]


@pytest.mark.parametrize("remove", REMOVE)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_and_input_mutations_match_torch(name, remove):
    fn, shapes = PROGRAMS[name]
    e_in, t_in = _inputs(shapes, ember), _inputs(shapes, torch)
    e_out = functionalize(lambda *a: fn(ember, *a), remove=remove)(*e_in)
    t_out = torch.func.functionalize(lambda *a: fn(torch, *a), remove=remove)(*t_in)
    for e, t in zip(_outputs(e_out) + e_in, _outputs(t_out) + t_in):
        assert not ember._is_functional_tensor(e)
        assert tuple(e.shape) == tuple(t.shape) and str(e.dtype) == str(t.dtype).replace("torch", "ember")
        np.testing.assert_allclose(_np(e), _np(t), rtol=1e-6)
    eager_in = _inputs(shapes, ember)
    fn(ember, *eager_in)
    for e, ref in zip(e_in, eager_in):      # input metadata mutations (as eager: torch's
        assert e.stride() == ref.stride()   # mutations_and_views gives contiguous strides)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_functionalized_equals_eager(name):
    fn, shapes = PROGRAMS[name]
    eager_in, func_in = _inputs(shapes, ember), _inputs(shapes, ember)
    eager = fn(ember, *eager_in)
    func = functionalize(lambda *a: fn(ember, *a))(*func_in)
    for e, f in zip(_outputs(eager) + eager_in, _outputs(func) + func_in):
        np.testing.assert_array_equal(_np(e), _np(f))


def _targets(gm):
    return [str(n.target) for n in gm.graph.nodes if str(n.target).startswith("aten.")]


@pytest.mark.parametrize("remove", REMOVE)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_graph_has_no_mutations(name, remove):
    """Under make_fx only the epilogue's copy_ mutates; with mutations_and_views no view
    op is left (their {view}_copy replace them)."""
    fn, shapes = PROGRAMS[name]
    gm = make_fx(functionalize(lambda *a: fn(ember, *a), remove=remove))(*_inputs(shapes, ember))
    views = {"view", "select", "slice", "transpose", "t", "permute", "unsqueeze", "squeeze",
             "diagonal", "expand", "as_strided", "split", "unbind", "alias", "unfold",
             "view_as_real", "view_as_complex", "_conj"}
    for target in _targets(gm):
        op = target.split(".")[1]
        if op in ("copy_", "as_strided_"):      # the epilogue's data and metadata writes
            continue
        assert not op.endswith("_"), f"{name}: in-place {target} in the graph"
        if remove == "mutations_and_views":
            assert op not in views, f"{name}: view {target} in the graph"
    # one copy_ per input whose data changed (torch also copies an input whose layout alone
    # changed, inplace_views' x, into itself)
    mutated_inputs = {"input_mutations": 2, "complex_views": 1}
    assert _targets(gm).count("aten.copy_.default") == mutated_inputs.get(name, 0)
    # the graph computes what eager computes
    eager_in, graph_in = _inputs(shapes, ember), _inputs(shapes, ember)
    eager = fn(ember, *eager_in)
    for e, g in zip(_outputs(eager) + eager_in, _outputs(gm(*graph_in)) + graph_in):
        np.testing.assert_array_equal(_np(e), _np(g))


def test_seed_example_graph():
    """Seed 004's first example: a mutated slice becomes select + select_scatter."""
    def f(x):
        y = x.clone()
        y[0].add_(1)
        return y
    gm = make_fx(functionalize(f, remove="mutations_and_views"))(ember.ones(2, 2))
    assert _targets(gm) == ["aten.clone.default", "aten.select_copy.int", "aten.add.Tensor",
                            "aten.select_scatter.default"]


def test_alias_regeneration_is_lazy():
    """A stale alias is regenerated when used, by replaying its view chain on the new base."""
    x = ember._to_functional_tensor(ember.zeros(2, 3))
    from ember._subclasses.functional_tensor import functionalizing
    with functionalizing():
        row, col = x[1], x[:, 2]
        row.add_(1)
        assert col._generation != col._fstorage.generation     # stale until used
        ember._sync(col)
        assert col._generation == col._fstorage.generation
        assert ember._from_functional_tensor(col).tolist() == [0.0, 1.0]
    assert ember._from_functional_tensor(x).tolist() == [[0, 0, 0], [1, 1, 1]]


def test_functional_tensor_api():
    t = ember.arange(3.)
    f = ember._to_functional_tensor(t)
    assert ember._is_functional_tensor(f) and not ember._is_functional_tensor(t)
    assert ember._from_functional_tensor(f) is t
    assert "FunctionalTensor" in repr(f)
    with pytest.raises(RuntimeError, match="already a functional tensor"):
        ember._to_functional_tensor(f)
    with pytest.raises(RuntimeError, match="expected a functional tensor"):
        ember._from_functional_tensor(t)


def test_invalid_remove():
    with pytest.raises(RuntimeError, match="invalid argument for remove=views"):
        functionalize(lambda x: x, remove="views")


def test_errors_match_eager():
    def int_add(x):
        i = ember.zeros(2, dtype=ember.int64)
        i.add_(x)                      # float into int64: eager refuses the cast
    with pytest.raises(RuntimeError, match="can't be cast"):
        functionalize(int_add)(ember.ones(2))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        functionalize(lambda x: ember.zeros(2).add_(x))(ember.ones(3, 2))
    with pytest.raises(RuntimeError, match="storage is not supported under functionalization"):
        functionalize(lambda x: x.set_(ember.zeros(3)))(ember.ones(2))


def test_resize():
    def grow(x):
        y = x.clone()
        y.resize_(2, 3)
        return y[0]
    assert functionalize(grow)(ember.arange(4.)).tolist()[:3] == [0.0, 1.0, 2.0]
    shrink = functionalize(lambda x: x.clone().resize_(2))(ember.arange(4.))
    assert shrink.tolist() == [0.0, 1.0]
    with pytest.raises(RuntimeError, match="resize a view"):
        functionalize(lambda x: x.clone()[0].resize_(5))(ember.ones(2, 2))


def test_backward_inside():
    """Unlike torch's (which refuses), ember's functionalize runs a backward() inside; the
    gradient reaches the caller's leaf like eager's."""
    def f(w, x):
        loss = (w * x).sin().sum()
        loss.backward()
        return loss.detach()
    x = ember.tensor([4., 5., 6.])
    w_eager, w_func = (ember.tensor([1., 2., 3.], requires_grad=True) for _ in range(2))
    np.testing.assert_array_equal(_np(f(w_eager, x)), _np(functionalize(f)(w_func, x)))
    np.testing.assert_array_equal(_np(w_eager.grad), _np(w_func.grad))


def test_autograd_grad_graph_is_functional():
    def f(w, x):
        y = w * x
        y.add_(1)
        return ember.autograd.grad(y.sin().sum(), w)[0]
    w, x = ember.randn(3, requires_grad=True), ember.randn(3)
    gm = make_fx(functionalize(f))(w, x)
    assert not any(t.split(".")[1].endswith("_") for t in _targets(gm))
    np.testing.assert_allclose(_np(gm(w, x)), _np(f(w, x)), rtol=1e-6)


@pytest.mark.parametrize("tracing_mode", ["fake", "symbolic"])
def test_fake_and_symbolic_tracing(tracing_mode):
    def f(x):
        y = x.clone()
        y[:, 0].mul_(2)
        x.add_(y)
        return y.sum(0)
    gm = make_fx(functionalize(f), tracing_mode=tracing_mode)(ember.randn(4, 3))
    assert "aten.slice_scatter.default" in _targets(gm) or "aten.select_scatter.default" in _targets(gm)
    shape = (6, 3) if tracing_mode == "symbolic" else (4, 3)
    a, b = ember.randn(*shape), None
    b = a.clone()
    np.testing.assert_allclose(_np(gm(a)), _np(f(b)), rtol=1e-6)
    np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6)


def test_custom_op_that_mutates():
    @ember.library.custom_op("functest::scale_", mutates_args=("x",))
    def scale_(x: ember.Tensor, k: float) -> None:
        x.mul_(k)

    def f(x):
        y = x.clone()
        scale_(y, 3.0)
        return y + 1
    x = ember.arange(3.)
    assert functionalize(f)(x).tolist() == [1.0, 4.0, 7.0]
    gm = make_fx(functionalize(f))(x)
    assert gm(x).tolist() == [1.0, 4.0, 7.0] and x.tolist() == [0.0, 1.0, 2.0]


def test_out_into_an_input_resizes_it():
    """An out= input the function resizes comes back resized, with the values (epilogue)."""
    out = ember.empty(0)
    functionalize(lambda x, o: ember.add(x, 1, out=o))(ember.arange(3.), out)
    assert out.tolist() == [1.0, 2.0, 3.0]


def test_formatting_reads_the_value():
    def f(x):
        return f"{x.sum():.1f}", repr(x.sum())
    text, shown = functionalize(f)(ember.ones(2))
    assert text == "2.0" and shown == "FunctionalTensor(tensor(2.))"
