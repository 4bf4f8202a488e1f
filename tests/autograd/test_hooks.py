"""Backward hooks against torch: tensor hooks on leaves and non-leaves, their order and
return values, handles, retain_grad, Node hooks and pre-hooks, post-accumulate-grad
hooks, and the warning for `.grad` of a non-leaf.

    >>> def scenario(lib):
    ...     x = lib.tensor([1.0, 2.0], requires_grad=True)
    ...     x.register_hook(lambda g: g * 2)
    ...     (x * x).sum().backward()
    ...     return x.grad
    >>> same(*both(scenario))
"""
import warnings

import pytest
from scenarios import both, leaf, same, same_error

import ember

torch = pytest.importorskip("torch")


def snapshot(g):
    """A copy of gradient `g` (or None) that later in-place changes don't reach."""
    return None if g is None else g.detach().clone()


# --- tensor hooks ---------------------------------------------------------------------------
def test_leaf_hooks_run_in_order_and_chain():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        seen = []
        x.register_hook(lambda g: seen.append(("first", snapshot(g))))
        x.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: seen.append(("third", snapshot(g))))
        (x * x).sum().backward()
        return seen, x.grad
    same(*both(scenario))


def test_non_leaf_hook_changes_downstream_gradients():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [4.0, 5.0, 6.0])
        y = x * w
        seen = []
        y.register_hook(lambda g: seen.append(snapshot(g)))
        y.register_hook(lambda g: g * 3)
        y.exp().sum().backward()
        return seen, x.grad, w.grad
    same(*both(scenario))


def test_hook_sees_summed_gradient_of_tensor_used_twice():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * 2.0
        x_seen, y_seen = [], []
        x.register_hook(lambda g: x_seen.append(snapshot(g)))
        y.register_hook(lambda g: y_seen.append(snapshot(g)))
        (y * y + y.exp() + x).sum().backward()
        return x_seen, y_seen, x.grad
    same(*both(scenario))


def test_hook_handle_remove():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * 2.0
        calls = []
        hx = x.register_hook(lambda g: calls.append("x"))
        hy = y.register_hook(lambda g: calls.append("y"))
        y.sum().backward(retain_graph=True)
        hx.remove()
        hy.remove()
        hy.remove()          # a second remove is fine
        y.sum().backward()
        return calls, x.grad
    same(*both(scenario))


def test_hooks_run_on_every_backward_with_retain_graph():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * x
        calls = []
        y.register_hook(lambda g: calls.append(snapshot(g)))
        y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return calls, x.grad
    same(*both(scenario))


def test_leaf_hook_applies_to_autograd_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        x.register_hook(lambda g: g * 10)
        return lib.autograd.grad((x * x).sum(), x), x.grad
    same(*both(scenario))


def test_hook_changing_gradient_shape_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * x

        def hook(g):
            return g.sum()
        y.register_hook(hook)
        y.sum().backward()
    same_error(scenario)


def test_hook_changing_gradient_dtype_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0], "float32")
        x.register_hook(lambda g: g.double())
        (x * x).sum().backward()
    same_error(scenario)


def test_hook_on_tensor_not_requiring_grad_fails():
    def scenario(lib):
        lib.ones(2).register_hook(lambda g: g)
    same_error(scenario)


# --- retain_grad ------------------------------------------------------------------------------
def test_retain_grad_populates_non_leaf_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x * x
        y.retain_grad()
        z = y.exp()
        z.sum().backward()
        return y.grad, y.retains_grad, x.retains_grad, z.retains_grad
    same(*both(scenario))


def test_retain_grad_runs_after_other_hooks():
    """torch runs the retains_grad hook last, whatever the registration order."""
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x * x
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        y.sum().backward()
        return y.grad, x.grad
    same(*both(scenario))


def test_retain_grad_accumulates_across_backwards():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x * x
        y.retain_grad()
        (y * 2.0).sum().backward(retain_graph=True)
        first = snapshot(y.grad)
        y.exp().sum().backward()
        return first, y.grad
    same(*both(scenario))


def test_retain_grad_on_leaf_is_a_no_op():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        x.retain_grad()
        (x * x).sum().backward()
        return x.retains_grad, x.grad
    same(*both(scenario))


def test_retain_grad_without_requires_grad_fails():
    def scenario(lib):
        lib.ones(2).retain_grad()
    same_error(scenario)


def test_non_leaf_grad_access_warns():
    def access(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * x
        y.sum().backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = y.grad
        return value, [(w.category.__name__, str(w.message).split(" (Triggered internally")[0])
                       for w in caught]
    e, t = access(ember), access(torch)
    assert len(t[1]) == 1
    same(e, t)


def test_no_warning_for_leaf_or_retained_grad():
    def access(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * x
        y.retain_grad()
        y.sum().backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _ = x.grad, y.grad
        return len(caught)
    same(access(ember), access(torch))


# --- Node hooks --------------------------------------------------------------------------------
def test_node_post_hook_sees_grad_inputs_and_outputs():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        c = leaf(lib, [4.0, 5.0, 6.0], requires_grad=False)
        y = x * c
        seen = []
        y.grad_fn.register_hook(
            lambda gi, go: seen.append(([snapshot(g) for g in gi], [snapshot(g) for g in go])))
        y.exp().sum().backward()
        return seen, x.grad
    same(*both(scenario))


def test_node_post_hook_may_replace_grad_inputs():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [4.0, 5.0, 6.0])
        y = x * w
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0.5, gi[1] * 2))
        y.sum().backward()
        return x.grad, w.grad
    same(*both(scenario))


def test_node_prehook_may_replace_grad_outputs():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        w = leaf(lib, [4.0, 5.0, 6.0])
        y = x * w
        seen = []

        def prehook(go):
            seen.append([snapshot(g) for g in go])
            return (go[0] * 3,)
        handle = y.grad_fn.register_prehook(prehook)
        y.exp().sum().backward(retain_graph=True)
        handle.remove()
        y.exp().sum().backward()
        return seen, x.grad, w.grad
    same(*both(scenario))


def test_hook_order_tensor_then_retain_then_node_hooks():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * x
        order = []
        y.grad_fn.register_prehook(lambda go: order.append(("node pre", snapshot(go[0]))))
        y.grad_fn.register_hook(lambda gi, go: order.append(("node post", snapshot(go[0]))))
        y.register_hook(lambda g: order.append(("tensor", snapshot(g))) or g + 1)
        y.retain_grad()
        y.sum().backward()
        return order, y.grad, x.grad
    same(*both(scenario))


def test_accumulate_grad_node_hooks():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * x
        acc = y.grad_fn.next_functions[0][0]
        seen = []
        acc.register_prehook(lambda go: seen.append(("pre", snapshot(go[0]))))
        acc.register_hook(lambda gi, go: seen.append(("post", len(gi), snapshot(go[0]))))
        y.sum().backward()
        return seen, x.grad
    same(*both(scenario))


# --- post-accumulate-grad hooks --------------------------------------------------------------------
def test_post_accumulate_grad_hook_sees_updated_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        seen = []

        def hook(t):
            seen.append((t is x, snapshot(t.grad)))
        handle = x.register_post_accumulate_grad_hook(hook)
        (x * x).sum().backward()
        x.exp().sum().backward()
        handle.remove()
        (x * x).sum().backward()
        return seen, x.grad
    same(*both(scenario))


def test_post_accumulate_grad_hook_runs_after_tensor_hooks():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        order = []
        x.register_post_accumulate_grad_hook(lambda t: order.append(("post", snapshot(t.grad))))
        x.register_hook(lambda g: order.append(("tensor", snapshot(g))) or g * 2)
        (x * x).sum().backward()
        return order
    same(*both(scenario))


def test_post_accumulate_grad_hook_on_non_leaf_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        (x * x).register_post_accumulate_grad_hook(lambda t: None)
    same_error(scenario)
