"""inference_mode against torch: inference tensors, the rules for using them outside,
views of normal tensors made inside, nesting, thread-locality, anomaly mode."""
from __future__ import annotations

import threading
import warnings

import pytest
from scenarios import both, same, same_error

import ember

torch = pytest.importorskip("torch")


def same_outcome(scenario):
    """Ember and torch agree: the same results, or the same error."""
    try:
        return same(*both(scenario))
    except AssertionError:
        raise
    except Exception:  # noqa: BLE001  (the scenario raised: compare the errors)
        same_error(scenario)


def test_tensors_made_inside_are_inference_tensors():
    def f(lib):
        x = lib.ones(3)
        with lib.inference_mode():
            y = x * 2
            z = lib.ones(2)
            inside = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())
        return y.is_inference(), z.is_inference(), x.is_inference(), y.requires_grad, inside
    same_outcome(f)
    assert f(ember) == (True, True, False, False, (True, False))


def test_nothing_is_recorded_inside():
    def f(lib):
        w = lib.ones(3, requires_grad=True)
        with lib.inference_mode():
            y = w * 2
        return y.requires_grad, y.grad_fn is None, y.is_inference()
    same_outcome(f)
    assert f(ember) == (False, True, True)


@pytest.mark.parametrize("case", ["inplace_outside", "requires_grad_outside", "saved_for_backward",
                                  "version_counter"])
def test_rules_for_inference_tensors_outside(case):
    def f(lib):
        with lib.inference_mode():
            t = lib.ones(3)
        if case == "inplace_outside":
            t.add_(1)
        elif case == "requires_grad_outside":
            t.requires_grad_()
        elif case == "saved_for_backward":
            w = lib.ones(3, requires_grad=True)
            (w * t).sum().backward()
        else:
            return t._version
        return None
    same_outcome(f)


def test_inference_tensor_ok_where_not_saved():
    def f(lib):
        with lib.inference_mode():
            t = lib.ones(3)
        w = lib.ones(3, requires_grad=True)
        (w + t).sum().backward()      # add saves nothing: allowed
        with lib.inference_mode():
            t.add_(1)                  # in place inside inference mode: allowed
        return w.grad.tolist(), t.tolist()
    same_outcome(f)


def test_inplace_on_normal_tensor_inside_bumps_version():
    def f(lib):
        x = lib.ones(3)
        with lib.inference_mode():
            x.add_(1)
        return x._version, x.is_inference()
    same_outcome(f)
    assert f(ember) == (1, False)


@pytest.mark.parametrize("grad_operand", [False, True])
def test_view_made_inside_modified_outside(grad_operand):
    def f(lib):
        b = lib.ones(3, requires_grad=True).clone()
        with lib.inference_mode():
            v = b[:2]
        info = (v.is_inference(), v._is_view())
        if grad_operand:
            v.mul_(lib.ones(2, requires_grad=True))
        else:
            v.mul_(2)
        return info
    same_outcome(f)


def test_view_of_plain_tensor_made_inside_can_be_modified_outside():
    def f(lib):
        a = lib.ones(3)
        with lib.inference_mode():
            v = a[:2]
        v.add_(1)
        return a.tolist(), v.is_inference()
    same_outcome(f)


def test_nesting_and_disabled_mode():
    def f(lib):
        seen = []
        with lib.inference_mode():
            with lib.inference_mode(False):
                y = lib.ones(2)
                seen.append((lib.is_inference_mode_enabled(), lib.is_grad_enabled(),
                             y.is_inference()))
            seen.append((lib.is_inference_mode_enabled(), lib.is_grad_enabled()))
        seen.append((lib.is_inference_mode_enabled(), lib.is_grad_enabled()))
        return seen
    same_outcome(f)


def test_decorator_forms():
    @ember.inference_mode()
    def f(x):
        return x * 2

    @ember.inference_mode
    def g(x):
        return x * 2

    assert f(ember.ones(2)).is_inference() and g(ember.ones(2)).is_inference()
    assert not ember.is_inference_mode_enabled()


def test_thread_local():
    seen = []
    with ember.inference_mode():
        th = threading.Thread(target=lambda: seen.append(
            (ember.is_inference_mode_enabled(), ember.ones(1).is_inference())))
        th.start()
        th.join()
    assert seen == [(False, False)]


def test_exception_inside_restores_state():
    with pytest.raises(ValueError), ember.inference_mode():
        raise ValueError
    assert not ember.is_inference_mode_enabled() and ember.is_grad_enabled()
    assert not ember.ones(1).is_inference()


# --- anomaly mode ------------------------------------------------------------------------
def test_anomaly_nan_check_names_the_node():
    x = ember.tensor([-1.0], requires_grad=True)
    # NaN in the incoming gradient: the first node to produce NaN is named
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with ember.autograd.detect_anomaly(), pytest.raises(
                RuntimeError, match=r"Function 'ExpBackward0' returned nan values in its 0th output"):
            (x * x).exp().backward(ember.tensor([float("nan")]))
    assert any("Traceback of forward call" in str(m.message) for m in w)
    assert any("test_inference_mode.py" in str(m.message) for m in w)


def test_anomaly_flags():
    assert not ember.autograd.is_anomaly_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ember.autograd.set_detect_anomaly(True, check_nan=False):
            assert ember.autograd.is_anomaly_enabled()
            assert not ember.autograd.is_anomaly_check_nan_enabled()
    assert not ember.autograd.is_anomaly_enabled()
