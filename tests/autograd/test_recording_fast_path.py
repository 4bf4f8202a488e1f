"""The cheap paths of issue 20 keep torch's semantics: the pointwise fast path's
C-contiguity mark (`Tensor._contig`), saved outputs (an alias without a reference cycle),
leaf edges, and the `__torch_function__` flag going off once opting-in subclasses are gone."""
import gc
import weakref

import numpy as np
import pytest
from helpers import check, pair, raises_like

import ember
import ember.overrides

torch = pytest.importorskip("torch")
F32 = {"float32": (1e-6, 1e-6)}     # (libm vs SLEEF exp: an ulp apart)


# --- the C-contiguity mark ------------------------------------------------------------------
def _chain(M, a, b):
    c = a * 1.0
    for _ in range(3):
        c = c * b + a
    return c


@pytest.mark.parametrize("shapes", [((4,), (4,)), ((3, 1), (1, 4)), ((2, 3), (3,)),
                                    ((2, 1, 3), (4, 1)), ((), (2, 2))])
def test_marked_results_match_torch(shapes):
    """Results of the fast path (marked C-contiguous) feed later ops like torch's."""
    rng = np.random.default_rng(0)
    (ea, ta), (eb, tb) = (pair(rng.random(s, dtype=np.float32)) for s in shapes)
    check(_chain(ember, ea, eb), _chain(torch, ta, tb))
    check(_chain(ember, eb, ea), _chain(torch, tb, ta))


def test_mark_holds_only_for_its_array():
    """An in-place layout change (t_) replaces the array: the old mark no longer applies,
    and the next op's strides are torch's (a transposed result, not a contiguous one)."""
    rng = np.random.default_rng(1)
    (ea, ta), (eb, tb) = pair(rng.random((2, 3), dtype=np.float32)), \
        pair(rng.random((3, 2), dtype=np.float32))
    e, t = ea + 1.0, ta + 1.0            # marked C-contiguous
    e.t_()
    t.t_()
    check(e * eb.t().t(), t * tb.t().t())
    check(e + eb, t + tb)
    assert e.stride() == t.stride() == (1, 3)


def test_mark_on_views_and_non_contiguous_inputs():
    rng = np.random.default_rng(2)
    ea, ta = pair(rng.random((4, 6), dtype=np.float32))
    for fn in (lambda M, x: x[:, ::2] + x[:, 1::2], lambda M, x: x.t() * x.t(),
               lambda M, x: x[1] + x[2] * 2.0, lambda M, x: (x.t() + 1).t() - x):
        check(fn(ember, ea), fn(torch, ta))


def test_mark_does_not_block_elision_of_large_temporaries():
    """A marked large temporary is still written into (the mark is a reference to its
    array that the elision's reference count allows for)."""
    a = ember.ones(1 << 17)
    b = ember.ones(1 << 17)
    t = a + b                                   # marked
    assert t._contig is t._np
    arr = t._np
    r = t * 2.0 + 1.0                           # (t * 2.0) is a temporary: reused
    assert r._np is not arr and np.array_equal(r.numpy(), np.full(1 << 17, 5.0, np.float32))
    ta = torch.ones(1 << 17)
    check(r, (ta + ta) * 2.0 + 1.0)


# --- saved outputs ----------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["exp", "relu", "sigmoid", "tanh"])
def test_saved_result_is_the_output(op):
    x_np = np.array([-1.0, 0.5, 2.0], np.float32)
    (ex, tx) = (ember.from_numpy(x_np.copy()).requires_grad_(),
                torch.from_numpy(x_np.copy()).requires_grad_())
    ey, ty = getattr(ex, op)(), getattr(tx, op)()
    es, ts = ey.grad_fn._saved_result, ty.grad_fn._saved_result
    check(es.detach(), ts.detach(), F32)
    assert es.grad_fn is ey.grad_fn        # grad mode on: the node's output again
    assert ts.grad_fn is ty.grad_fn
    ey.sum().backward()
    ty.sum().backward()
    check(ex.grad, tx.grad, F32)


def test_saved_output_modified_in_place_raises_torchs_error():
    def run(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.add_(1)
        y.sum().backward()
    with pytest.raises(RuntimeError) as te:
        run(torch)
    with pytest.raises(RuntimeError) as ee:
        run(ember)
    assert str(ee.value) == str(te.value).replace("torch.", "ember.").replace(
        "ember.autograd.set_detect_anomaly", "torch.autograd.set_detect_anomaly")


def test_saved_output_modified_through_an_alias_raises():
    """A detached alias made after the save (the output then dropped) shares the version
    counter with what the node saved."""
    def run(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        s = y.sum()
        z = y.detach()
        del y
        z.mul_(2)
        s.backward()
    raises_like(lambda: run(ember), lambda: run(torch),
                "is at version 1; expected version 0 instead")


def test_no_reference_cycle_keeps_the_graph_alive():
    """Dropping the output frees its node and saved tensors by reference counting alone."""
    gc.disable()
    try:
        x = ember.ones(3, requires_grad=True)
        y = x.exp()
        node = weakref.ref(y.grad_fn)
        saved = weakref.ref(y.grad_fn._s_result.data)
        del y
        assert node() is None and saved() is None
    finally:
        gc.enable()


def test_saved_output_freed_after_backward():
    for M in (torch, ember):
        x = M.ones(2, requires_grad=True)
        y = x.exp()
        y.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            _ = y.grad_fn._saved_result


def test_double_backward_through_saved_output():
    def run(M):
        x = M.tensor([0.3, -0.7], dtype=M.float64, requires_grad=True)
        y = x.exp()
        (g,) = M.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = M.autograd.grad(g.sum(), x)
        return g.detach(), gg
    for e, t in zip(run(ember), run(torch)):
        check(e, t, {"float64": (1e-14, 1e-14)})


# --- leaf edges -------------------------------------------------------------------------------
def test_leaf_edge_is_its_accumulator():
    x = ember.ones(2, requires_grad=True)
    tx = torch.ones(2, requires_grad=True)
    a, b = x * 2, x + 1
    ta, tb = tx * 2, tx + 1
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]
    assert ta.grad_fn.next_functions[0][0] is tb.grad_fn.next_functions[0][0]
    assert a.grad_fn.next_functions[0][0].variable is x
    (a + b).sum().backward()
    (ta + tb).sum().backward()
    check(x.grad, tx.grad)


# --- the __torch_function__ flag ----------------------------------------------------------------
def test_torch_function_flag_off_once_subclasses_are_gone():
    before = ember.overrides.tf_state[0]

    def make():
        calls = []

        class Logged(ember.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                calls.append(func)
                return super().__torch_function__(func, types, args, kwargs or {})
        x = ember.ones(2).as_subclass(Logged)
        y = x + 1
        assert type(y) is Logged and calls
        assert ember.overrides.tf_state[0]

    make()
    gc.collect()
    assert ember.overrides.tf_state[0] == before
    a, ta = pair(np.arange(3, dtype=np.float32))
    check(a + 1, ta + 1)


# --- in-place ops: the overlap checks and the version counter ----------------------------
def test_inplace_on_marked_and_expanded_tensors():
    def ok(M):
        a = M.tensor([1.0, 2.0, 3.0])
        t = a + a                       # (ember: marked C-contiguous)
        v = t._version
        t.sub_(a, alpha=0.5)
        t.mul_(2)
        return t, t._version - v
    (e, ev), (t, tv) = ok(ember), ok(torch)
    check(e, t)
    assert ev == tv == 2
    raises_like(lambda: ember.ones(1, 4).expand(3, 4).add_(1),
                lambda: torch.ones(1, 4).expand(3, 4).add_(1),
                "more than one element of the written-to tensor refers to a single memory")


def test_partial_overlap_with_number_arguments():
    def run(M):
        t = M.arange(6.0)
        t[1:].add_(t[:-1], alpha=2)
    raises_like(lambda: run(ember), lambda: run(torch),
                "some elements of the input tensor and the written-to tensor")


# --- overload matchers --------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda M, x: x.sum(), lambda M, x: x.sum(0), lambda M, x: x.sum((0, 1), keepdim=True),
    lambda M, x: x.sum(dim=None), lambda M, x: x.sum(1, dtype=M.float64),
    lambda M, x: M.sum(x, -1), lambda M, x: x.sum("a"), lambda M, x: x.sum(0, 1, 2, 3),
])
def test_overloaded_sum_matches_torch(call):
    x_np = np.arange(6, dtype=np.float32).reshape(2, 3)
    ex, tx = pair(x_np)
    try:
        t = call(torch, tx)
    except TypeError as exc:
        with pytest.raises(TypeError) as ei:
            call(ember, ex)
        assert str(ei.value).splitlines()[0].split(" - ")[0] == \
            str(exc).splitlines()[0].split(" - ")[0]
        return
    check(call(ember, ex), t)


def test_out_resize_drops_the_old_arrays_mark():
    """out= resizing gives `out` a new array: the mark of the old one neither applies nor
    keeps the old array alive; results and strides are torch's."""
    def run(M):
        o = M.ones(2) + 0.0
        x = M.arange(6.0).reshape(2, 3)
        with pytest.warns(UserWarning, match="was resized"):
            M.add(x, x, out=o)
        return o * 2.0
    e, t = run(ember), run(torch)
    check(e, t)
    o = ember.ones(2) + 0.0
    old = weakref.ref(o._np)
    with pytest.warns(UserWarning, match="was resized"):
        ember.add(ember.ones(3), 1.0, out=o)
    assert old() is None and o._contig in (None, o._np)
