"""Custom autograd Functions (ember.autograd.function) against torch.autograd.Function.

Each scenario is written once against a library `lib`; `api(lib)` gives that library's
function module, so the same Function class body is defined for ember and for torch:

    >>> def scenario(lib):
    ...     class Exp(api(lib).Function):
    ...         @staticmethod
    ...         def forward(ctx, x):
    ...             r = x.exp()
    ...             ctx.save_for_backward(r)
    ...             return r
    ...
    ...         @staticmethod
    ...         def backward(ctx, g):
    ...             r, = ctx.saved_tensors
    ...             return g * r
    ...     x = leaf(lib, [0.5, 1.0])
    ...     Exp.apply(x).sum().backward()
    ...     return x.grad
    >>> same(*both(scenario))
"""
import gc
import importlib
import warnings
import weakref

import pytest
from scenarios import both, leaf, node_name, same, same_error

import ember
from ember.autograd import meta as M
from ember.autograd.function import Function, once_differentiable
from ember.autograd.gradcheck import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

def api(lib):
    """The module with Function and once_differentiable for `lib`."""
    name = "ember" if lib is ember else "torch"
    return importlib.import_module(f"{name}.autograd.function")


# --- Functions used by several tests, built per library ----------------------------------------
def exp_fn(lib):
    class Exp(api(lib).Function):
        @staticmethod
        def forward(ctx, x):
            r = x.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            return g * r
    return Exp


def cube_fn(lib):
    """x * x * x with a backward made of differentiable ops (double backward works)."""
    class Cube(api(lib).Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x * x * 3
    return Cube


def mul_add_fn(lib):
    """(x * y * k, x + y) for tensors x, y and a number k."""
    class MulAdd(api(lib).Function):
        @staticmethod
        def forward(ctx, x, y, k):
            ctx.save_for_backward(x, y)
            ctx.k = k
            return x * y * k, x + y

        @staticmethod
        def backward(ctx, g_prod, g_sum):
            x, y = ctx.saved_tensors
            gx = gy = None
            if ctx.needs_input_grad[0]:
                gx = g_prod * y * ctx.k + g_sum
            if ctx.needs_input_grad[1]:
                gy = g_prod * x * ctx.k + g_sum
            return gx, gy, None
    return MulAdd


def identity_fn(lib, grads=None):
    """Returns its input as-is."""
    class Identity(api(lib).Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            if grads is not None:
                grads.append(g)
            return g * 2
    return Identity


def mul2_inplace_fn(lib, n_out=1):
    """Multiplies its input by 2 in place (ctx.mark_dirty) and returns it (and x * 3)."""
    class Mul2_(api(lib).Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x if n_out == 1 else (x, x * 3)

        @staticmethod
        def backward(ctx, g, g2=None):
            return g * 2 if g2 is None else g * 2 + g2 * 6
    return Mul2_


# --- the basics ---------------------------------------------------------------------------------
def test_exp_saving_its_output():
    def scenario(lib):
        x = leaf(lib, [0.5, -1.0, 2.0])
        y = exp_fn(lib).apply(x)
        names = y.grad_fn.name(), node_name(y.grad_fn.next_functions[0][0])
        y.sum().backward()
        return y, x.grad, names
    same(*both(scenario))


def test_grad_fn_name_and_next_functions():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = leaf(lib, [3.0, 4.0], requires_grad=False)
        prod, total = mul_add_fn(lib).apply(x, y, 2.0)
        fn = prod.grad_fn
        edges = [(node_name(f), nr) for f, nr in fn.next_functions]
        return (fn.name(), type(fn).__name__, total.grad_fn is fn, edges, prod.output_nr,
                total.output_nr, prod.is_leaf)
    same(*both(scenario))


def test_ctx_is_the_node():
    def scenario(lib):
        class Scale(api(lib).Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.constant = k
                ctx.seen = []
                return x * k

            @staticmethod
            def backward(ctx, g):
                ctx.seen.append(ctx is y.grad_fn)
                return g * ctx.constant, None
        x = leaf(lib, [1.0, 2.0])
        y = Scale.apply(x, 3.0)
        y.sum().backward()
        return x.grad, y.grad_fn.constant, y.grad_fn.seen
    same(*both(scenario))


def test_multi_input_multi_output():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        y = leaf(lib, [-1.0, 0.5, 2.0])
        prod, total = mul_add_fn(lib).apply(x, y, 3.0)
        (prod * total).sum().backward()
        return prod, total, x.grad, y.grad
    same(*both(scenario))


def test_unused_output_gets_zeros():
    def scenario(lib):
        seen = []

        class Two(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append((g1, g2))
                return g1 * 2 + g2 * 3
        x = leaf(lib, [1.0, 2.0])
        Two.apply(x)[1].sum().backward()
        return x.grad, seen
    same(*both(scenario))


def test_non_tensor_args_and_outputs():
    def scenario(lib):
        seen = []

        class Affine(api(lib).Function):
            @staticmethod
            def forward(ctx, x, scale, label, shift):
                ctx.scale = scale
                return label, x * scale + shift, len(label)

            @staticmethod
            def backward(ctx, g_label, g, g_len):
                seen.append((g_label, g_len))
                return g * ctx.scale, None, None, None
        x = leaf(lib, [1.0, 2.0])
        label, y, n = Affine.apply(x, 2.5, "abc", 1.0)
        y.sum().backward()
        return label, y, n, y.output_nr, x.grad, seen
    same(*both(scenario))


def test_needs_input_grad():
    def scenario(lib):
        seen = []

        class Rec(api(lib).Function):
            @staticmethod
            def forward(ctx, x, y, k):
                seen.append(("forward", ctx.needs_input_grad, lib.is_grad_enabled()))
                return x * y * k

            @staticmethod
            def backward(ctx, g):
                seen.append(("backward", ctx.needs_input_grad, lib.is_grad_enabled()))
                return g * 2, g, None
        x = leaf(lib, [1.0, 2.0])
        y = leaf(lib, [3.0, 4.0], requires_grad=False)
        out = Rec.apply(x, y, 2.0)
        out.sum().backward()
        with lib.no_grad():
            no_grad_out = Rec.apply(x, y, 2.0)
        plain = Rec.apply(y, y, 2.0)
        return (seen, x.grad, no_grad_out, no_grad_out.grad_fn is None, plain,
                plain.grad_fn is None)
    same(*both(scenario))


def test_no_node_when_no_input_requires_grad():
    def scenario(lib):
        ran = []

        class Exp(exp_fn(lib)):
            @staticmethod
            def forward(ctx, x):
                ran.append(True)
                return x.exp()
        y = Exp.apply(leaf(lib, [1.0, 2.0], requires_grad=False))
        with lib.no_grad():
            z = Exp.apply(leaf(lib, [1.0, 2.0]))
        return y, y.grad_fn is None, z, z.grad_fn is None, ran
    same(*both(scenario))


def test_integer_outputs_never_require_grad():
    def scenario(lib):
        seen = []

        class WithIndex(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, (x * 10).to(lib.int64)

            @staticmethod
            def backward(ctx, g, g_index):
                seen.append(g_index)
                return g * 2
        x = leaf(lib, [1.0, 2.0])
        y, idx = WithIndex.apply(x)
        y.sum().backward()
        return y, idx, idx.grad_fn is None, x.grad, seen
    same(*both(scenario))


def test_vjp_alias_and_missing_methods():
    def scenario(lib):
        class ByVjp(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, g):
                return g * 5
        x = leaf(lib, [1.0, 2.0])
        ByVjp.apply(x).sum().backward()
        return x.grad, api(lib).Function.vjp is api(lib).Function.backward
    same(*both(scenario))

    def no_backward(lib):
        class NoBackward(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
        NoBackward.apply(leaf(lib, [1.0])).sum().backward()
    same_error(no_backward)

    def no_forward(lib):
        class NoForward(api(lib).Function):
            pass
        NoForward.apply(leaf(lib, [1.0]))
    same_error(no_forward)
    same_error(lambda lib: exp_fn(lib).jvp(None, None))


def test_forward_runs_with_grad_mode_off():
    def scenario(lib):
        seen = []

        class Probe(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                seen.append((lib.is_grad_enabled(), y.requires_grad))
                return y

            @staticmethod
            def backward(ctx, g):
                seen.append(lib.is_grad_enabled())
                return g * 2
        x = leaf(lib, [1.0])
        Probe.apply(x).sum().backward()
        return seen, x.grad
    same(*both(scenario))


def test_saved_output_holds_no_reference_cycle():
    def scenario(lib):
        y = exp_fn(lib).apply(leaf(lib, [1.0, 2.0]))
        ref = weakref.ref(y.grad_fn)
        del y
        gc.collect()
        return ref() is None
    assert both(scenario) == (True, True)


# --- inputs returned as-is, views -----------------------------------------------------------------
def test_input_returned_as_is_is_an_alias():
    def scenario(lib):
        grads = []
        x = leaf(lib, [1.0, 2.0])
        y = identity_fn(lib, grads).apply(x)
        info = y is x, y._base is x, y.grad_fn.name(), y.is_leaf
        (y * 3).sum().backward()
        return info, x.grad, grads
    same(*both(scenario))


def test_returned_input_not_requiring_grad_gets_history():
    def scenario(lib):
        class Mix(api(lib).Function):
            @staticmethod
            def forward(ctx, x, c):
                return x * 2, c

            @staticmethod
            def backward(ctx, g, gc):
                return g * 2, None
        x = leaf(lib, [1.0, 2.0])
        c = leaf(lib, [5.0, 6.0], requires_grad=False)
        y, c2 = Mix.apply(x, c)
        (y.sum() + c2.sum()).backward()
        return c2 is c, c2._base is c, c2.grad_fn is y.grad_fn, x.grad
    same(*both(scenario))


def test_returned_input_marked_non_differentiable_is_detached():
    def scenario(lib):
        class Nd(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_non_differentiable(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        x = leaf(lib, [1.0, 2.0])
        y = Nd.apply(x)
        return y is x, y.requires_grad, y.grad_fn is None, y
    same(*both(scenario))


def test_view_outputs_of_multi_output_function_cannot_change_in_place():
    def scenario(lib):
        class Split(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                return x[:2], x * 2

            @staticmethod
            def backward(ctx, g1, g2):
                return g2 * 2
        first, _ = Split.apply(leaf(lib, [1.0, 2.0, 3.0]) * 1)
        first.mul_(2)
    same_error(scenario)


def test_view_output_cannot_change_in_place():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        identity_fn(lib).apply(x).mul_(2)
    same_error(scenario)


# --- mark_dirty ---------------------------------------------------------------------------------
def test_mark_dirty_on_non_leaf():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        a = x * 1
        out = mul2_inplace_fn(lib).apply(a)
        info = out is a, a.grad_fn.name(), a._version
        (out * out).sum().backward()
        return info, out, x.grad
    same(*both(scenario))


def test_mark_dirty_on_view_of_non_leaf():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0])
        w = leaf(lib, [1.0, 10.0, 100.0, 1000.0], requires_grad=False)
        base = x * 1
        view = base[1:3]
        out = mul2_inplace_fn(lib).apply(view)
        names = (out is view, node_name(base.grad_fn), view.grad_fn.name(),
                 node_name(view.grad_fn.next_functions[0][0]))
        (base * w).sum().backward()
        return names, base, x.grad
    same(*both(scenario))


def test_mark_dirty_with_two_outputs():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        a = x * 1
        first, second = mul2_inplace_fn(lib, n_out=2).apply(a)
        info = first is a, first.output_nr, second.output_nr
        (first.sum() * 10 + second.sum()).backward()
        return info, x.grad
    same(*both(scenario))


def test_mark_dirty_of_second_output():
    def scenario(lib):
        class Swap(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x * 3, x

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 * 6 + g2 * 2
        x = leaf(lib, [1.0, 2.0])
        a = x * 1
        first, second = Swap.apply(a)
        info = second is a, second.output_nr, a.grad_fn.name()
        (first.sum() + second.sum() * 10).backward()
        return info, x.grad
    same(*both(scenario))


def test_mark_dirty_and_save_the_input():
    def scenario(lib):
        class Square_(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x.clone())
                x.mul_(x)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                old, = ctx.saved_tensors
                return g * old * 2
        x = leaf(lib, [1.0, 2.0, 3.0])
        a = x * 1
        Square_.apply(a).sum().backward()
        return x.grad
    same(*both(scenario))


def test_mark_dirty_on_input_not_requiring_grad():
    def scenario(lib):
        class AddInto(api(lib).Function):
            @staticmethod
            def forward(ctx, buf, x):
                buf.add_(x)
                ctx.mark_dirty(buf)
                return buf

            @staticmethod
            def backward(ctx, g):
                return g, g * 2
        x = leaf(lib, [1.0, 2.0])
        buf = leaf(lib, [10.0, 20.0], requires_grad=False)
        out = AddInto.apply(buf, x)
        info = out is buf, buf.requires_grad, buf.grad_fn.name(), buf._version
        (out * out).sum().backward()
        return info, out, x.grad
    same(*both(scenario))


def test_mark_dirty_without_a_node():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        a = x * 1
        with lib.no_grad():
            out = mul2_inplace_fn(lib).apply(a)
        plain = leaf(lib, [1.0, 2.0], requires_grad=False)
        out2 = mul2_inplace_fn(lib).apply(plain)
        return (out is a, out.requires_grad, out, a._version, out2 is plain, plain._version,
                a.grad_fn.name())
    same(*both(scenario))


@pytest.mark.parametrize("case", ["leaf", "view_of_leaf", "not_returned", "view_two_outputs"])
def test_mark_dirty_errors(case):
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        if case == "leaf":
            mul2_inplace_fn(lib).apply(x)
        elif case == "view_of_leaf":
            mul2_inplace_fn(lib).apply(x[:2])
        elif case == "not_returned":
            class NotReturned(api(lib).Function):
                @staticmethod
                def forward(ctx, a):
                    a.mul_(2)
                    ctx.mark_dirty(a)
                    return a * 1

                @staticmethod
                def backward(ctx, g):
                    return g
            NotReturned.apply(x * 1)
        else:
            mul2_inplace_fn(lib, n_out=2).apply((x * 1)[:2])
    same_error(scenario)


def test_mark_dirty_of_non_input_warns():
    def scenario(lib):
        class Fresh(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_dirty(y)
                return y

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = leaf(lib, [1.0])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = Fresh.apply(x)
        y.sum().backward()
        return [str(m.message).split(" (Triggered")[0] for m in w], x.grad
    same(*both(scenario))


# --- mark_non_differentiable, materialize_grads ---------------------------------------------------
def test_mark_non_differentiable():
    def scenario(lib):
        seen = []

        class WithMask(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                doubled, mask = x * 2, x * 0 + 1
                ctx.mark_non_differentiable(mask)
                return doubled, mask

            @staticmethod
            def backward(ctx, g, g_mask):
                seen.append(g_mask)
                return g * 2
        x = leaf(lib, [1.0, 2.0])
        y, mask = WithMask.apply(x)
        y.sum().backward()
        return y, mask, mask.grad_fn is None, x.grad, seen
    same(*both(scenario))


def materialize_scenario(lib, used):
    seen = []

    class Two(api(lib).Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1, g2))
            grad = g1 * 2 if g1 is not None else None
            if g2 is not None:
                grad = g2 * 3 if grad is None else grad + g2 * 3
            return grad
    x = leaf(lib, [1.0, 2.0])
    outs = Two.apply(x)
    sum(outs[i].sum() for i in used).backward()
    return x.grad, seen


def test_set_materialize_grads_false_all_used():
    same(*both(lambda lib: materialize_scenario(lib, used=[0, 1])))


def test_set_materialize_grads_false_passes_none():
    same(*both(lambda lib: materialize_scenario(lib, used=[1])))


def test_backward_runs_when_no_gradient_reached_it():
    def scenario(lib):
        seen = []

        class Drop(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return None

        class Rec(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                seen.append(g)
                return g
        x = leaf(lib, [1.0, 2.0])
        Drop.apply(Rec.apply(x)).sum().backward()
        return x.grad, seen
    same(*both(scenario))


# --- once_differentiable, double backward ---------------------------------------------------------
def once_fn(lib):
    F = api(lib)

    class Square(F.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @F.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            ctx.grad_mode = lib.is_grad_enabled()
            return g * x * 2
    return Square


def test_once_differentiable_first_order():
    def scenario(lib):
        x = leaf(lib, [1.0, -2.0])
        y = once_fn(lib).apply(x)
        gx, = lib.autograd.grad(y.sum(), x)
        g_plain, = lib.autograd.grad(once_fn(lib).apply(x).sum(), x, create_graph=True)
        return gx, y.grad_fn.grad_mode, g_plain, g_plain.grad_fn is None
    same(*both(scenario))


def test_once_differentiable_double_backward_raises():
    def graph(lib):
        x = leaf(lib, [1.0, -2.0])
        go = leaf(lib, [1.0, 1.0])
        gx, = lib.autograd.grad(once_fn(lib).apply(x), x, go, create_graph=True)
        return gx, x, go

    def scenario(lib):
        gx, _, _ = graph(lib)
        return gx, type(gx.grad_fn).__name__, len(gx.grad_fn.next_functions)
    same(*both(scenario))
    same_error(lambda lib: graph(lib)[0].sum().backward())

    def unused(lib):           # the error node leads to no input, as in torch
        gx, x, go = graph(lib)
        return lib.autograd.grad(gx.sum(), [x, go], allow_unused=True)
    same(*both(unused))


def test_double_backward():
    def scenario(lib):
        x = leaf(lib, [0.5, -1.0, 2.0])
        gx, = lib.autograd.grad(cube_fn(lib).apply(x).sum(), x, create_graph=True)
        ggx, = lib.autograd.grad(gx.sum(), x)
        e = leaf(lib, [0.5, -1.0, 2.0])
        ge, = lib.autograd.grad(exp_fn(lib).apply(e).sum(), e, create_graph=True)
        gge, = lib.autograd.grad(ge.sum(), e)
        return gx, ggx, ge.grad_fn.name(), gge
    same(*both(scenario))


def test_gradcheck():
    x = ember.tensor([0.5, -1.0, 2.0], dtype=ember.float64, requires_grad=True)
    y = ember.tensor([1.5, 0.25, -3.0], dtype=ember.float64, requires_grad=True)
    assert gradcheck(exp_fn(ember).apply, (x,))
    assert gradcheck(cube_fn(ember).apply, (x,))
    assert gradcheck(lambda a, b: mul_add_fn(ember).apply(a, b, 3.0), (x, y))


def test_gradcheck_catches_a_wrong_backward():
    class Wrong(exp_fn(ember)):
        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            return g * r * 2
    x = ember.tensor([0.5, -1.0], dtype=ember.float64, requires_grad=True)
    assert not gradcheck(Wrong.apply, (x,), raise_exception=False)


def test_gradgradcheck():
    x = ember.tensor([0.5, -1.0, 2.0], dtype=ember.float64, requires_grad=True)
    assert gradgradcheck(cube_fn(ember).apply, (x,))
    assert gradgradcheck(exp_fn(ember).apply, (x,))


# --- setup_context style --------------------------------------------------------------------------
def setup_fn(lib):
    class Scale(api(lib).Function):
        @staticmethod
        def forward(x, k=2.0):
            return x * x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.save_for_backward(x, output)
            ctx.k = k
            ctx.seen = (len(inputs), output.requires_grad, lib.is_grad_enabled())

        @staticmethod
        def backward(ctx, g):
            x, out = ctx.saved_tensors
            assert out.shape == x.shape
            return g * x * 2 * ctx.k, None
    return Scale


def test_setup_context():
    def scenario(lib):
        Scale = setup_fn(lib)
        x = leaf(lib, [1.0, -2.0])
        results = []
        for args, kwargs in [((x,), {}), ((x, 3.0), {}), ((), {"x": x, "k": 0.5})]:
            y = Scale.apply(*args, **kwargs)
            gx, = lib.autograd.grad(y.sum(), x)
            results.append((y, gx, y.grad_fn.seen, y.grad_fn.k))
        return results
    same(*both(scenario))
    x = ember.tensor([0.5, -1.0], dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda t: setup_fn(ember).apply(t, 3.0), (x,))


def test_setup_context_saving_an_input_returned_as_is():
    def scenario(lib):
        class Same(api(lib).Function):
            @staticmethod
            def forward(x):
                return x

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(output)

            @staticmethod
            def backward(ctx, g):
                return g
        Same.apply(leaf(lib, [1.0]))
    same_error(scenario)


# --- what backward returns -----------------------------------------------------------------------
def returning(lib, result):
    """A Function of (x, y, k) whose backward returns result(g)."""
    class Returns(api(lib).Function):
        @staticmethod
        def forward(ctx, x, y, k):
            return x * y * k

        @staticmethod
        def backward(ctx, g):
            return result(g)
    return Returns


@pytest.mark.parametrize("result", [
    lambda g: g,                              # too few
    lambda g: (g, g),                         # too few
    lambda g: (g, g, None, g),                # too many, not all None
    lambda g: (g, g, 1.0),                    # a gradient for the number k
    lambda g: (g, "grad", None),              # not a tensor
    lambda g: [g, g, None],                   # a list is one (non-tensor) result
])
def test_wrong_gradients_returned(result):
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        returning(lib, result).apply(x, x * 1, 2.0).sum().backward()
    same_error(scenario)


def test_extra_trailing_nones_and_grads_for_inputs_not_requiring_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = leaf(lib, [3.0, 4.0], requires_grad=False)
        returning(lib, lambda g: (g * 2, g * 3, None, None, None)).apply(x, y, 2.0) \
            .sum().backward()
        return x.grad, y.grad
    same(*both(scenario))


def test_gradient_of_wrong_shape():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        returning(lib, lambda g: (g[:2], None, None)).apply(x, x * 1, 2.0).sum().backward()
    same_error(scenario)


def test_gradient_dtype_is_cast_to_the_input():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0], dtype="float32")
        returning(lib, lambda g: (g.to(lib.float64), None, None)).apply(x, x * 1, 2.0) \
            .sum().backward()
        return x.grad
    same(*both(scenario))


# --- saved tensors --------------------------------------------------------------------------------
def test_saved_tensor_modified_in_place():
    def saved_output(lib):
        y = exp_fn(lib).apply(leaf(lib, [1.0, 2.0], dtype="float32"))
        y.mul_(2)
        y.sum().backward()
    same_error(saved_output)

    def saved_input(lib):
        a = leaf(lib, [1.0, 2.0]) * 1
        y = cube_fn(lib).apply(a)
        a.add_(1)
        y.sum().backward()
    same_error(saved_input)


def test_backward_twice():
    def scenario(lib):
        y = exp_fn(lib).apply(leaf(lib, [1.0, 2.0]))
        y.sum().backward()
        y.sum().backward()
    same_error(scenario)

    def saved_tensors_after_backward(lib):
        y = exp_fn(lib).apply(leaf(lib, [1.0, 2.0]))
        y.sum().backward()
        return y.grad_fn.saved_tensors
    same_error(saved_tensors_after_backward)

    def retained(lib):
        x = leaf(lib, [1.0, 2.0])
        y = exp_fn(lib).apply(x)
        y.sum().backward(retain_graph=True)
        saved = y.grad_fn.saved_tensors
        y.sum().backward()
        return x.grad, saved
    same(*both(retained))


def test_save_for_backward_values():
    def scenario(lib):
        seen = []

        class Saves(api(lib).Function):
            @staticmethod
            def forward(ctx, x, y):
                out = x * y
                ctx.save_for_backward(x, None, out, y)
                return out

            @staticmethod
            def backward(ctx, g):
                x, none, out, y = ctx.saved_tensors
                seen.append((none, out.detach(), x is xs[0]))
                return g * y, g * x
        xs = [leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])]
        Saves.apply(*xs).sum().backward()
        return seen, xs[0].grad, xs[1].grad
    same(*both(scenario))


def test_saved_output_unpacked_in_backward_keeps_grad_fn():
    def scenario(lib):
        seen = []

        class Exp(exp_fn(lib)):
            @staticmethod
            def backward(ctx, g):
                r, = ctx.saved_tensors
                seen.append((r.requires_grad, r.grad_fn is ctx))
                return g * r
        Exp.apply(leaf(lib, [1.0])).sum().backward()
        return seen
    same(*both(scenario))


def test_save_for_backward_errors():
    def not_a_tensor(lib):
        class SavesNumber(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 1
        SavesNumber.apply(leaf(lib, [1.0]))
    same_error(not_a_tensor)

    def inference_tensor(lib):
        with lib.inference_mode():
            it = lib.ones(2)

        class SavesIt(api(lib).Function):
            @staticmethod
            def forward(ctx, x, t):
                ctx.save_for_backward(t)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, None
        SavesIt.apply(leaf(lib, [1.0, 2.0], dtype="float32"), it)
    same_error(inference_tensor)


def test_no_check_of_saved_values_without_a_node():
    def scenario(lib):
        class SavesNumber(api(lib).Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 1
        return SavesNumber.apply(leaf(lib, [1.0], requires_grad=False))
    same(*both(scenario))


# --- ember specifics -----------------------------------------------------------------------------
def test_backward_class_per_function():
    Exp = exp_fn(ember)
    assert Exp._backward_cls.__name__ == "ExpBackward"
    assert Exp._backward_cls._forward_cls is Exp
    assert exp_fn(ember)._backward_cls is not Exp._backward_cls
    assert issubclass(Exp._backward_cls, ember.autograd.graph.Node)


def test_hooks_on_the_node():
    seen = []
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = exp_fn(ember).apply(x)
    y.grad_fn.register_prehook(lambda grads: seen.append("pre"))
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append("post"))
    y.sum().backward()
    assert seen == ["pre", "post"]


def test_view_output_creation_meta():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = identity_fn(ember).apply(x)
    expected = getattr(M, "IN_CUSTOM_FUNCTION", M.NO_GRAD_MODE)
    assert y._ag.creation_meta == expected


def test_grad_mode_restored_when_forward_raises():
    class Boom(Function):
        @staticmethod
        def forward(ctx, x):
            raise KeyError("boom")
    with pytest.raises(KeyError):
        Boom.apply(ember.ones(1, requires_grad=True))
    assert ember.is_grad_enabled()


def test_anomaly_mode_names_the_function():
    class Fails(exp_fn(ember)):
        @staticmethod
        def backward(ctx, g):
            raise ValueError("bad backward")
    x = ember.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ember.autograd.detect_anomaly():
            y = Fails.apply(x)
            with pytest.raises(ValueError, match="bad backward"):
                y.sum().backward()
    assert any("Error detected in FailsBackward" in str(w.message) for w in caught)


def test_direct_instantiation_is_legacy():
    with pytest.warns(DeprecationWarning):
        fn = Function()
    with pytest.raises(RuntimeError, match="Legacy autograd function"):
        fn(ember.ones(1))


def test_once_differentiable_keeps_metadata():
    @once_differentiable
    def backward(ctx, g):
        """doc"""
        return g
    assert backward.__name__ == "backward" and backward.__doc__ == "doc"


def test_top_level_anomaly_switches_match_torch():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        assert not lib.is_anomaly_enabled()
        lib.set_anomaly_enabled(True, check_nan=False)
        try:
            assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
        finally:
            lib.set_anomaly_enabled(False)
        assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
