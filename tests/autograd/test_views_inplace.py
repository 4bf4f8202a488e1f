"""Views and in-place ops under autograd, against torch: CopySlices on the base, the
regenerated grad_fn of views, in-place ops that make a tensor require grad, torch's
errors for in-place ops on leaves, no_grad views and multi-output views, detach.

    >>> def scenario(lib):
    ...     x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ...     base = x.clone()
    ...     base[1:].mul_(2)
    ...     base.sum().backward()
    ...     return x.grad, type(base.grad_fn).__name__
    >>> same(*both(scenario))
"""
import pytest
from scenarios import both, leaf, node_name, same, same_error

torch = pytest.importorskip("torch")


# --- in-place on views of non-leaves -------------------------------------------------------------
def test_inplace_on_view_of_non_leaf():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0])
        base = x.clone()
        view = base[1:]
        view.mul_(2)
        names = node_name(base.grad_fn), node_name(view.grad_fn)
        (base * base).sum().backward()
        return x.grad, names, base, view._version, base._version
    same(*both(scenario))


def test_inplace_on_view_with_operand_requiring_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0])
        w = leaf(lib, [5.0, 6.0])
        base = x * 2.0
        base[1:3].mul_(w)
        (base * base).sum().backward()
        return x.grad, w.grad, node_name(base.grad_fn)
    same(*both(scenario))


def test_inplace_on_view_of_2d_non_leaf():
    def scenario(lib):
        x = leaf(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        w = leaf(lib, [0.5, -1.0])
        base = x * 1.0
        col = base.t()[1]            # a strided view: column 1
        col.mul_(w)
        base.exp().sum().backward()
        return x.grad, w.grad
    same(*both(scenario))


def test_view_grad_fn_after_inplace_on_it():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0])
        base = x * 1.0
        view = base[1:]
        before = view.grad_fn.name()
        view.mul_(2)
        return before, view.grad_fn.name(), node_name(view.grad_fn.next_functions[0][0])
    same(*both(scenario))


def test_older_view_after_inplace_on_base():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0])
        w = leaf(lib, [1.0, 10.0, 100.0, 1000.0])
        base = x * 1.0
        view = base[:2]
        base.mul_(w)
        name = view.grad_fn.name()
        (view * view).sum().backward()
        return x.grad, w.grad, name, view
    same(*both(scenario))


def test_older_view_after_inplace_on_sibling_view():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0])
        w = leaf(lib, [3.0, 5.0])
        base = x * 1.0
        first, second = base[:3], base[2:]
        second.mul_(w)
        (first * first).sum().backward()
        return x.grad, w.grad, first
    same(*both(scenario))


def test_chain_of_views_then_inplace():
    def scenario(lib):
        x = leaf(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        base = x * 2.0
        v = base.view(6)[2:].unsqueeze(0)
        v.exp_()
        base.sum().backward()
        return x.grad, base
    same(*both(scenario))


def test_inplace_then_view_of_result():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x * 1.0
        y.exp_()                        # saves its result: y after the op
        y[1:].sum().backward()
        return x.grad
    same(*both(scenario))


# --- in-place ops that make a tensor require grad ------------------------------------------
def test_inplace_with_operand_requiring_grad_on_plain_tensor():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0], requires_grad=False)
        y = leaf(lib, [4.0, 5.0, 6.0])
        x.add_(y)
        state = x.requires_grad, x.is_leaf, x.grad_fn.name()
        (x * x).sum().backward()
        return state, y.grad, x._version
    same(*both(scenario))


def test_inplace_on_view_of_plain_tensor_with_operand_requiring_grad():
    def scenario(lib):
        base = lib.zeros(4, dtype=lib.float64)
        y = leaf(lib, [2.0, 3.0])
        view = base[1:3]
        view.add_(y)
        state = (base.requires_grad, node_name(base.grad_fn), view.requires_grad,
                 view.grad_fn.name())
        (base * base).sum().backward()
        return state, y.grad, base
    same(*both(scenario))


def test_copy_into_view_of_plain_tensor():
    def scenario(lib):
        base = lib.zeros(2, 3, dtype=lib.float64)
        y = leaf(lib, [1.0, 2.0, 3.0])
        base[1].copy_(y)
        (base.exp() * 2.0).sum().backward()
        return y.grad, node_name(base.grad_fn)
    same(*both(scenario))


def test_setitem_with_value_requiring_grad():
    def scenario(lib):
        base = lib.ones(4, dtype=lib.float64)
        y = leaf(lib, [2.0, 3.0])
        base[1:3] = y
        (base * base).sum().backward()
        return y.grad, node_name(base.grad_fn)
    same(*both(scenario))


# --- errors -----------------------------------------------------------------------------------
def test_inplace_on_leaf_requiring_grad_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        x.mul_(2)
    same_error(scenario)


def test_inplace_on_view_of_leaf_requiring_grad_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        x[1:].mul_(2)
    same_error(scenario)


def test_inplace_on_leaf_under_no_grad_is_allowed():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        with lib.no_grad():
            x.mul_(2)
            x[0] = 7.0
        (x * x).sum().backward()
        return x, x.is_leaf, x._version, x.grad
    same(*both(scenario))


def test_view_made_under_no_grad_modified_with_grad_on_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        base = x * 1.0
        with lib.no_grad():
            view = base[1:]
        view.mul_(leaf(lib, [2.0, 3.0]))
    same_error(scenario)


def test_view_made_under_no_grad_of_leaf():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        with lib.no_grad():
            view = x[1:]
        return view.requires_grad, view.is_leaf, view._base is x
    same(*both(scenario))


@pytest.mark.parametrize("split", ["split", "unbind", "chunk"])
def test_inplace_on_multi_output_view_fails(split):
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0])
        base = x * 1.0
        parts = base.unbind() if split == "unbind" else getattr(base, split)(2)
        parts[1].mul_(2)
    same_error(scenario)


def test_inplace_on_multi_output_view_of_plain_tensor_is_allowed():
    def scenario(lib):
        base = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64)
        parts = base.split(2)
        parts[1].mul_(2)
        return base
    same(*both(scenario))


# --- detach -----------------------------------------------------------------------------------------
def test_detach_shares_storage_and_version():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        d = x.detach()
        state = d.requires_grad, d.is_leaf, d.grad_fn is None
        d.add_(1)
        return state, x, x._version, d._version
    same(*both(scenario))


def test_modifying_detached_alias_of_saved_tensor_fails_backward():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x * x
        x.detach().zero_()
        y.sum().backward()
    same_error(scenario)


def test_detach_inplace():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = x * x
        z = y * 2.0
        y.detach_()
        state = y.requires_grad, y.is_leaf, y.grad_fn is None
        z.sum().backward()              # the graph behind z is intact
        return state, x.grad, (y * x).requires_grad
    same(*both(scenario))


def test_detach_inplace_on_view_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        view = (x * x)[1:]
        view.detach_()
    same_error(scenario)
