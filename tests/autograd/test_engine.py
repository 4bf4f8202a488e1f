"""The autograd engine against torch: gradient accumulation, graph shapes, retain_graph,
double backward, `backward(gradient=, inputs=)`, `autograd.grad`, the graph's nodes,
gradient dtypes and aliasing, saved tensors and their version checks.

Each test runs one scenario, written once against a library module `lib` (ember or
torch), with both libraries and compares what it returns, or the error it raises:

    >>> def scenario(lib):
    ...     x = lib.tensor([1.0, 2.0], requires_grad=True)
    ...     (x * x).sum().backward()
    ...     return x.grad
    >>> same(*both(scenario))
"""
import gc
import weakref

import pytest
from scenarios import both, leaf, node_name, same, same_error

import ember

torch = pytest.importorskip("torch")

# --- accumulation and graph shapes ---------------------------------------------------------
def test_multi_consumer_accumulates():
    def scenario(lib):
        x = leaf(lib, [1.0, -2.0, 3.0])
        w = leaf(lib, [0.5, 0.25, 2.0], requires_grad=False)
        y = x * x + x.exp() * w + x      # x used four times
        y.sum().backward()
        return x.grad, y.grad_fn.name()
    same(*both(scenario))


def test_diamond_graph():
    def scenario(lib):
        x = leaf(lib, [0.5, -1.0, 2.0])
        w = leaf(lib, [1.5, 2.0, -0.5])
        a = x * w
        b, c = a.exp(), a * a
        (b + c).sum().backward()
        return x.grad, w.grad
    same(*both(scenario))


def test_broadcast_gradients_sum_to_input_shape():
    def scenario(lib):
        x = leaf(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = leaf(lib, [10.0, 20.0, 30.0])
        s = leaf(lib, 2.0)
        ((x + b) * s).exp().sum().backward()
        return x.grad, b.grad, s.grad
    same(*both(scenario))


def test_retain_graph_allows_second_backward():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = (x * x).exp().sum()
        y.backward(retain_graph=True)
        first = x.grad.clone()
        y.backward()
        return first, x.grad
    same(*both(scenario))


def test_second_backward_without_retain_graph_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = (x * x).sum()
        y.backward()
        y.backward()
    same_error(scenario)


def test_saved_tensor_access_after_backward_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x * x
        y.sum().backward()
        return y.grad_fn._saved_self
    same_error(scenario)


def test_double_backward_of_cube():
    """d/dx x*x*x = 3x^2 (a graph itself, with create_graph), d2/dx2 = 6x."""
    def scenario(lib):
        x = leaf(lib, [1.0, -2.0, 0.5])
        y = (x * x * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), x)
        return g, g2
    same(*both(scenario))


def test_double_backward_through_backward_create_graph():
    def scenario(lib):
        x = leaf(lib, [1.0, -2.0, 0.5])
        (x * x * x).sum().backward(create_graph=True)
        g = x.grad
        x.grad = None
        g.sum().backward()
        return g, x.grad
    same(*both(scenario))


def test_backward_with_gradient_for_non_scalar():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [4.0, 5.0, 6.0])
        y = x * w
        y.backward(gradient=leaf(lib, [1.0, 0.5, -2.0], requires_grad=False))
        return x.grad, w.grad
    same(*both(scenario))


def test_autograd_backward_function_with_grad_tensors():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y1, y2 = x * x, x.exp().sum()
        lib.autograd.backward([y1, y2], [lib.ones(3, dtype=lib.float64), None])
        return x.grad
    same(*both(scenario))


def test_non_scalar_backward_without_gradient_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        (x * x).backward()
    same_error(scenario)


def test_backward_gradient_shape_mismatch_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        (x * x).backward(lib.ones(2, dtype=lib.float64))
    same_error(scenario)


def test_backward_of_tensor_without_grad_fn_fails():
    def scenario(lib):
        lib.ones(3).sum().backward()
    same_error(scenario)


def test_backward_inputs_accumulates_only_into_leaf_inputs():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [0.5, -1.0, 2.0])
        (x * w).exp().sum().backward(inputs=[x])
        return x.grad, w.grad
    same(*both(scenario))


def test_backward_inputs_empty_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        (x * x).sum().backward(inputs=[])
    same_error(scenario)


def test_backward_gradient_not_a_tensor_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        (x * x).backward([1.0, 1.0, 1.0])
    same_error(scenario)


def test_backward_fewer_gradients_than_tensors_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        lib.autograd.backward([x * x, x.exp()], [lib.ones(3, dtype=lib.float64)])
    same_error(scenario)


def test_grad_fewer_grad_outputs_than_outputs_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        lib.autograd.grad([x * x, x.exp()], x, [lib.ones(3, dtype=lib.float64)])
    same_error(scenario)


def test_backward_gradient_of_other_dtype_is_cast():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [4.0, 5.0, 6.0])
        (x * w).backward(leaf(lib, [1.0, 0.5, 0.25], "float32", requires_grad=False))
        return x.grad, w.grad
    same(*both(scenario))


def test_backward_inputs_non_leaf():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [0.5, -1.0, 2.0])
        h = x * w
        (h.exp() * w).sum().backward(inputs=[h, w])
        return x.grad, w.grad, h.grad
    same(*both(scenario))


def test_backward_inputs_unused_leaf():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        u = leaf(lib, [1.0, 2.0, 3.0])
        (x * x).sum().backward(inputs=[u])
        return x.grad, u.grad
    same(*both(scenario))


# --- autograd.grad -------------------------------------------------------------------------
def test_grad_returns_without_touching_dot_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [0.5, -1.0, 2.0])
        y = x * w
        v = leaf(lib, [1.0, 2.0, 3.0], requires_grad=False)
        gx, gw = lib.autograd.grad(y, [x, w], grad_outputs=v)
        return gx, gw, x.grad, w.grad
    same(*both(scenario))


def test_grad_retain_graph_twice():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = (x * x).exp().sum()
        a = lib.autograd.grad(y, x, retain_graph=True)
        b = lib.autograd.grad(y, x)
        return a, b
    same(*both(scenario))


def test_grad_without_retain_graph_frees_saved_tensors():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = (x * x).sum()
        lib.autograd.grad(y, x)
        lib.autograd.grad(y, x)
    same_error(scenario)


def test_grad_of_unused_input_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        u = leaf(lib, [1.0, 2.0, 3.0])
        lib.autograd.grad((x * x).sum(), [x, u])
    same_error(scenario)


def test_grad_allow_unused_gives_none():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        u = leaf(lib, [1.0, 2.0, 3.0])
        return lib.autograd.grad((x * x).sum(), [u, x], allow_unused=True)
    same(*both(scenario))


def test_grad_materialize_grads_gives_zeros():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        u = leaf(lib, [[1.0, 2.0]])
        return lib.autograd.grad((x * x).sum(), [x, u], materialize_grads=True)
    same(*both(scenario))


def test_grad_of_input_not_requiring_grad_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        c = leaf(lib, [1.0, 2.0, 3.0], requires_grad=False)
        lib.autograd.grad((x * c).sum(), [c])
    same_error(scenario)


def test_grad_of_leaf_with_respect_to_itself():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        return lib.autograd.grad(x, x, leaf(lib, [4.0, 5.0, 6.0], requires_grad=False)), x.grad
    same(*both(scenario))


def test_grad_with_respect_to_non_leaf():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        h = x * x
        return lib.autograd.grad((h.exp() * x).sum(), [h, x])
    same(*both(scenario))


# --- .grad across backward calls -----------------------------------------------------------
def test_grad_accumulates_across_backward_calls():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        (x * x).sum().backward()
        first = x.grad.clone()
        x.exp().sum().backward()
        return first, x.grad
    same(*both(scenario))


def test_grad_reset_to_none():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        (x * x).sum().backward()
        x.grad = None
        reset = x.grad
        x.exp().sum().backward()
        return reset, x.grad
    same(*both(scenario))


@pytest.mark.parametrize("value", ["size", "dtype", "int"])
def test_assigning_bad_grad_fails(value):
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0], "float32")
        x.grad = {"size": lib.ones(3), "dtype": lib.ones(2, dtype=lib.float64), "int": 3}[value]
    same_error(scenario)


def test_grad_accumulation_is_in_place():
    """torch adds later gradients into the existing .grad tensor."""
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        (x * x).sum().backward()
        g = x.grad
        (x * x).sum().backward()
        return x.grad is g, g
    same(*both(scenario))


# --- deep graphs ----------------------------------------------------------------------------
def test_ten_thousand_op_chain():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x
        for _ in range(10_000):
            y = y * 1.0001
        y.sum().backward()
        return x.grad
    same(*both(scenario), tols={"float64": (1e-9, 0)})


def test_deleting_a_ten_thousand_op_chain():
    """Freeing a deep graph neither recurses too deep nor leaks it."""
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    last = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert last() is None
    assert x.grad is None


# --- several outputs ---------------------------------------------------------------------------
def test_multi_output_node_gradients():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        a, b, c = x.unbind()
        (a * 2 + c * b).backward()
        return x.grad, a.output_nr, c.output_nr, a.grad_fn is c.grad_fn
    same(*both(scenario))


def test_multi_output_node_unused_output_gets_zeros():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0, 5.0])
        first, _ = x.split(3)
        first.exp().sum().backward()
        return x.grad
    same(*both(scenario))


# --- nodes -----------------------------------------------------------------------------------
def test_next_functions_of_mul_by_scalar():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * 2
        return y.grad_fn.name(), [(node_name(fn), nr) for fn, nr in y.grad_fn.next_functions]
    same(*both(scenario))


def test_next_functions_chain():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        w = leaf(lib, [3.0, 4.0], requires_grad=False)
        z = (x * w).exp() + x
        fns = z.grad_fn.next_functions
        return ([(node_name(fn), nr) for fn, nr in fns],
                [(node_name(fn), nr) for fn, nr in fns[0][0].next_functions])
    same(*both(scenario))


def test_accumulate_grad_variable_is_the_leaf():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        w = leaf(lib, [3.0, 4.0])
        y = x * w
        acc_x = y.grad_fn.next_functions[0][0]
        acc_w = y.grad_fn.next_functions[1][0]
        # one AccumulateGrad per leaf, shared by every use
        shared = (x * x).grad_fn.next_functions[0][0] is acc_x
        return acc_x.variable is x, acc_w.variable is w, shared, acc_x.next_functions
    same(*both(scenario))


def test_leaf_and_non_leaf_attributes():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        c = leaf(lib, [1.0, 2.0], requires_grad=False)
        y = x * c
        z = c * c
        return ([t.is_leaf for t in (x, c, y, z)], [t.requires_grad for t in (x, c, y, z)],
                [t.grad_fn is None for t in (x, c, y, z)])
    same(*both(scenario))


def test_integer_results_do_not_require_grad():
    def scenario(lib):
        x = leaf(lib, [1.5, -2.0])
        return (x > 0).requires_grad, (x > 0).grad_fn is None
    same(*both(scenario))


# --- gradient dtypes and aliasing --------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradient_dtype_matches_leaf(dtype):
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0], dtype)
        (x * x).sum().backward()
        return x.grad
    same(*both(scenario))


def test_float32_leaf_used_as_float64_gets_float32_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0], "float32")
        w = leaf(lib, [0.5, 0.25, 2.0])
        (x.double() * w).sum().backward()
        return x.grad, w.grad
    same(*both(scenario))


def test_gradient_layout_follows_leaf_strides():
    def scenario(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64).t()
        x.requires_grad_()
        w = leaf(lib, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        (x * w).sum().backward()
        return x.grad, w.grad
    same(*both(scenario))


def test_grads_of_add_inputs_do_not_alias():
    def scenario(lib):
        a = leaf(lib, [1.0, 2.0, 3.0])
        b = leaf(lib, [4.0, 5.0, 6.0])
        z = a + b
        z.sum().backward()
        a.grad.mul_(10)
        return a.grad, b.grad
    same(*both(scenario))


def test_user_gradient_is_not_aliased_by_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [4.0, 5.0, 6.0])
        g = leaf(lib, [1.0, 1.0, 1.0], requires_grad=False)
        (x + w).backward(g)
        g.mul_(5)
        x.grad.add_(1)
        return x.grad, w.grad, g
    same(*both(scenario))


def test_user_gradient_of_leaf_root_is_not_aliased():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        g = leaf(lib, [1.0, 2.0, 3.0], requires_grad=False)
        x.backward(g)
        g.add_(1)
        return x.grad
    same(*both(scenario))


@pytest.fixture(params=[True, False], ids=["exact-refcounts", "no-refcounts"])
def refcounts(request, monkeypatch):
    """Both ways accumulate_grad may run: taking a gradient nothing else holds as is
    (Python 3.11-3.13 with the GIL) or always copying (where counts prove nothing)."""
    monkeypatch.setattr(ember.autograd.accumulate, "_EXACT_REFCOUNTS", request.param)


def _kept_and_grad(x, kept):
    """Whether x.grad is `kept`, and both after adding into x.grad in place."""
    alias = x.grad is kept
    x.grad.add_(100)
    return alias, kept, x.grad


def test_gradient_a_hook_stores_is_not_aliased(refcounts):
    def scenario(lib):
        x, store = leaf(lib, [1.0, 2.0, 3.0]), []
        x.register_hook(store.append)
        (x * 2 + x * 3).sum().backward()        # the leaf gets a fresh sum
        return _kept_and_grad(x, store[0])
    same(*both(scenario))


def test_gradient_a_hook_returns_and_keeps_is_not_aliased(refcounts):
    def scenario(lib):
        x, store = leaf(lib, [1.0, 2.0, 3.0]), []
        x.register_hook(lambda g: store.append(g * 2) or store[-1])
        (x * 2).sum().backward()
        return _kept_and_grad(x, store[0])
    same(*both(scenario))


def test_gradient_a_custom_function_keeps_is_not_aliased(refcounts):
    """The leaf's gradient comes from one node and is complete only after another (that
    gives None) ran: no node's outputs hold it any more, the Function's list does."""
    def scenario(lib):
        store = []

        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                store.append(g * 1)
                return store[-1]

        class Nothing(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                return None

        x = leaf(lib, [1.0, 2.0, 3.0])
        b = Nothing.apply(x)
        (Keep.apply(x) * 2 + b).sum().backward()
        return _kept_and_grad(x, store[0])
    same(*both(scenario))


def test_gradient_kept_from_autograd_grad_is_not_aliased(refcounts):
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = (x * 2).sum()
        g, = lib.autograd.grad(y, x, retain_graph=True)
        y.backward()
        return _kept_and_grad(x, g)
    same(*both(scenario))


def test_retained_gradient_passed_through_is_not_aliased(refcounts):
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x + 0
        y.retain_grad()
        (y * 2).sum().backward()
        return _kept_and_grad(x, y.grad)
    same(*both(scenario))


# --- saved tensors and versions ------------------------------------------------------------------
def test_modified_saved_non_leaf_input_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [4.0, 5.0, 6.0])
        a = x * w
        b = a * a
        a.mul_(w)
        b.sum().backward()
    same_error(scenario)


def test_modified_saved_plain_input_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        c = leaf(lib, [4.0, 5.0, 6.0], requires_grad=False)
        y = x * c
        c.add_(1)
        y.sum().backward()
    same_error(scenario)


def test_modified_saved_output_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x.exp()
        y.add_(lib.ones(3, dtype=lib.float64))
        y.sum().backward()
    same_error(scenario)


def test_unsaved_input_may_be_modified():
    """add saves nothing, so modifying its input afterwards is fine."""
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        a = x * 1.0
        y = a + x
        a.add_(1.0)
        y.sum().backward()
        return x.grad
    same(*both(scenario))


def test_version_counter_is_shared_with_views():
    def scenario(lib):
        x = lib.zeros(4, dtype=lib.float64)
        v = x[1:]
        seen = [(x._version, v._version)]
        x.add_(1)
        seen.append((x._version, v._version))
        v.mul_(2)
        seen.append((x._version, v._version))
        x[0] = 5.0
        seen.append((x._version, v._version))
        return seen, x
    same(*both(scenario))


def test_saved_tensor_accessors():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [4.0, 5.0, 6.0])
        y = x * w
        e = x.exp()
        a = x + w
        return (y.grad_fn._saved_self, y.grad_fn._saved_other, y.grad_fn._saved_other is w,
                e.grad_fn._saved_result, a.grad_fn._saved_alpha)
    same(*both(scenario))


def test_inplace_through_data_is_not_tracked():
    """`.data` shares memory but has its own version counter (torch's rule)."""
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x * x
        d = x.data
        d.add_(1)
        versions = (x._version, d._version, d.data_ptr() == x.data_ptr())
        y.sum().backward()
        return versions, x.grad, x.detach()
    same(*both(scenario))


def test_op_without_a_derivative_fails_in_backward():
    """An op with no derivatives.yaml entry records a NotImplemented node: the forward
    works and backward names the op (torch: 'derivative for ... is not implemented')."""
    from ember.autograd.kernels import autograd_not_implemented
    from ember.library import Library
    lib = Library("nograd_test", "DEF")
    try:
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: ember.from_numpy(x.detach().numpy() * 2), "CPU")
        op = ember.ops.nograd_test.twice.default
        lib.impl("twice", autograd_not_implemented(op), "Autograd", with_keyset=True)
        x = ember.ones(2, requires_grad=True)
        y = op(x)
        assert y.requires_grad and y.grad_fn.name() == "NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for nograd_test::twice is not "
                                               "implemented"):
            y.sum().backward()
        with ember.no_grad():
            assert not op(x).requires_grad
    finally:
        lib._destroy()


def test_backward_inputs_must_be_tensors():
    x = ember.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="inputs to backward"):
        (x * x).sum().backward(inputs=[x, 3])
