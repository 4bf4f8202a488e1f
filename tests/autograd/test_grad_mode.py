"""Grad modes and requires_grad against torch: no_grad, enable_grad and set_grad_enabled
as context managers and decorators, nesting, thread-locality, requires_grad_ and the
requires_grad= factory keyword, and out= arguments under autograd.

    >>> def scenario(lib):
    ...     x = lib.ones(2, requires_grad=True)
    ...     with lib.no_grad():
    ...         y = x * 2
    ...     return y.requires_grad, y.grad_fn is None
    >>> same(*both(scenario))
"""
import threading

import pytest
from scenarios import both, leaf, same, same_error

import ember

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _grad_mode_restored():
    """Every test starts and ends with grad mode on in both libraries."""
    assert ember.is_grad_enabled() and torch.is_grad_enabled()
    yield
    ember.set_grad_enabled(True)
    torch.set_grad_enabled(True)


def recorded(lib, x):
    """Whether an op on `x` is recorded right now: (requires_grad, has grad_fn, mode)."""
    y = x * x
    return y.requires_grad, y.grad_fn is not None, lib.is_grad_enabled()


# --- context managers ----------------------------------------------------------------------
def test_no_grad_context():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        with lib.no_grad():
            inside = recorded(lib, x)
            y = x.exp() * x
        return inside, recorded(lib, x), y.requires_grad, y.grad_fn is None, y.is_leaf
    same(*both(scenario))


def test_enable_grad_inside_no_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        with lib.no_grad():
            with lib.enable_grad():
                inner = recorded(lib, x)
            after = recorded(lib, x)
        return inner, after, recorded(lib, x)
    same(*both(scenario))


def test_nesting_restores_each_level():
    def scenario(lib):
        modes = [lib.is_grad_enabled()]
        with lib.no_grad():
            modes.append(lib.is_grad_enabled())
            with lib.no_grad():
                modes.append(lib.is_grad_enabled())
                with lib.enable_grad():
                    modes.append(lib.is_grad_enabled())
                    with lib.set_grad_enabled(False):
                        modes.append(lib.is_grad_enabled())
                    modes.append(lib.is_grad_enabled())
                modes.append(lib.is_grad_enabled())
            modes.append(lib.is_grad_enabled())
        modes.append(lib.is_grad_enabled())
        return modes
    same(*both(scenario))


def test_mode_restored_after_exception():
    def scenario(lib):
        with pytest.raises(ValueError), lib.no_grad():
            raise ValueError
        return lib.is_grad_enabled()
    same(*both(scenario))


@pytest.mark.parametrize("mode", [False, True])
def test_set_grad_enabled_context(mode):
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        with lib.set_grad_enabled(mode):
            inside = recorded(lib, x)
        return inside, recorded(lib, x)
    same(*both(scenario))


def test_set_grad_enabled_as_a_function():
    """Called without `with`, set_grad_enabled takes effect at once and stays."""
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        lib.set_grad_enabled(False)
        off = recorded(lib, x)
        lib.set_grad_enabled(True)
        return off, recorded(lib, x)
    same(*both(scenario))


def test_autograd_namespace_names():
    def scenario(lib):
        with lib.autograd.no_grad():
            off = lib.is_grad_enabled()
        with lib.autograd.set_grad_enabled(False), lib.autograd.enable_grad():
            on = lib.is_grad_enabled()
        return off, on, [getattr(lib, n) is getattr(lib.autograd, n)
                         for n in ("no_grad", "enable_grad", "set_grad_enabled")]
    same(*both(scenario))


def test_backward_under_no_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = (x * x * x).sum()
        with lib.no_grad():
            y.backward(create_graph=True)
            mode = lib.is_grad_enabled()
        return x.grad, mode
    same(*both(scenario))


# --- decorators --------------------------------------------------------------------------------
def test_no_grad_decorator():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])

        @lib.no_grad()
        def f(t, scale=1.0):
            """f's docstring"""
            return t * scale
        y = f(x, scale=3.0)
        return y, y.requires_grad, f.__name__, f.__doc__, lib.is_grad_enabled()
    same(*both(scenario))


def test_no_grad_decorator_without_parentheses():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])

        @lib.no_grad
        def f(t):
            return recorded(lib, t)
        return f(x), recorded(lib, x)
    same(*both(scenario))


def test_enable_grad_decorator_under_no_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])

        @lib.enable_grad()
        def f(t):
            return recorded(lib, t)
        with lib.no_grad():
            inside = f(x)
            after = recorded(lib, x)
        return inside, after
    same(*both(scenario))


@pytest.mark.parametrize("mode", [False, True])
def test_set_grad_enabled_decorator(mode):
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])

        @lib.set_grad_enabled(mode)
        def f(t):
            return recorded(lib, t)
        # (torch: the decorator object sets the mode when made; a `with` restores it)
        lib.set_grad_enabled(True)
        return f(x), recorded(lib, x)
    same(*both(scenario))


def test_no_grad_decorated_generator():
    """torch applies the mode while the generator runs, between its yields too."""
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])

        @lib.no_grad()
        def gen():
            yield recorded(lib, x)
            yield recorded(lib, x)
        it = gen()
        first = next(it)
        between = recorded(lib, x)
        second = next(it)
        return first, between, second
    same(*both(scenario))


# --- thread-locality ----------------------------------------------------------------------------
def _in_thread(fn):
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def test_grad_mode_does_not_leak_into_other_threads():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        with lib.no_grad():
            other = _in_thread(lambda: recorded(lib, x))
            here = recorded(lib, x)
        return other, here
    same(*both(scenario))


def test_grad_mode_set_in_a_thread_stays_there():
    def scenario(lib):
        entered, release = threading.Event(), threading.Event()
        seen = []

        def worker():
            with lib.no_grad():
                entered.set()
                release.wait(10)
                seen.append(lib.is_grad_enabled())
            seen.append(lib.is_grad_enabled())
        t = threading.Thread(target=worker)
        t.start()
        entered.wait(10)
        main = lib.is_grad_enabled()
        release.set()
        t.join()
        return main, seen
    same(*both(scenario))


def test_backward_in_another_thread():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = (x * x).sum()
        with lib.no_grad():
            _in_thread(y.backward)
        return x.grad
    same(*both(scenario))


# --- requires_grad --------------------------------------------------------------------------------
def test_requires_grad_factory_keyword():
    def scenario(lib):
        ts = [lib.ones(3, requires_grad=True), lib.zeros(2, 2, requires_grad=True),
              lib.tensor([1.0, 2.0], requires_grad=True),
              lib.full((2,), 3.0, dtype=lib.float64, requires_grad=True),
              lib.ones(2, requires_grad=False)]
        return [(t.requires_grad, t.is_leaf, t.grad_fn is None, t.grad) for t in ts]
    same(*both(scenario))


@pytest.mark.parametrize("make", ["ones", "tensor"])
def test_requires_grad_factory_keyword_integer_dtype_fails(make):
    def scenario(lib):
        if make == "ones":
            lib.ones(2, dtype=lib.int64, requires_grad=True)
        else:
            lib.tensor([1, 2], requires_grad=True)
    same_error(scenario)


def test_like_factories_do_not_require_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        ts = [lib.zeros_like(x), lib.ones_like(x), lib.empty_like(x), lib.full_like(x, 2.0)]
        return [(t.requires_grad, t.grad_fn is None) for t in ts]
    same(*both(scenario))


def test_requires_grad_setter_and_method():
    def scenario(lib):
        x = lib.ones(2)
        states = [x.requires_grad]
        x.requires_grad_()
        states.append(x.requires_grad)
        x.requires_grad_(False)
        states.append(x.requires_grad)
        x.requires_grad = True
        states.append((x.requires_grad, x.is_leaf))
        y = x * x
        states.append((y.requires_grad, y.is_leaf))
        return states, x.requires_grad_() is x
    same(*both(scenario))


def test_requires_grad_on_integer_tensor_fails():
    def scenario(lib):
        lib.tensor([1, 2]).requires_grad_()
    same_error(scenario)


def test_requires_grad_false_on_non_leaf_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        (x * x).requires_grad_(False)
    same_error(scenario)


def test_requires_grad_attribute_false_on_non_leaf_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * x
        y.requires_grad = False
    same_error(scenario)


def test_requires_grad_true_on_non_leaf_is_a_no_op():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        y = x * x
        y.requires_grad_()
        return y.requires_grad, y.is_leaf, y.grad_fn.name()
    same(*both(scenario))


# --- out= -----------------------------------------------------------------------------------------
def test_out_with_input_requiring_grad_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        lib.mul(x, x, out=lib.empty(2, dtype=lib.float64))
    same_error(scenario)


def test_out_requiring_grad_fails():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0], requires_grad=False)
        lib.add(x, x, out=leaf(lib, [0.0, 0.0]))
    same_error(scenario)


def test_out_allowed_under_no_grad():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0])
        out = lib.empty(2, dtype=lib.float64)
        with lib.no_grad():
            r = lib.mul(x, x, out=out)
        return r is out, out, out.requires_grad
    same(*both(scenario))


def test_out_without_requires_grad_is_fine():
    def scenario(lib):
        x = leaf(lib, [1.0, 2.0], requires_grad=False)
        out = lib.empty(2, dtype=lib.float64)
        lib.exp(x, out=out)
        return out, out.requires_grad
    same(*both(scenario))
