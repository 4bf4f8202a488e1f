"""The order of saved_tensors_hooks' unpack calls: torch's generated nodes unpack every
saved tensor once, before any formula (the inputs by name, then the outputs); ember's
unpacked each in the formula using it, again in each one."""
import pytest

import ember

torch = pytest.importorskip("torch")

CALLS = {
    "mul": lambda M, a, b, c: a * b,
    "div": lambda M, a, b, c: a / b,
    "pow": lambda M, a, b, c: a ** b,
    "atan2": lambda M, a, b, c: M.atan2(a, b),
    "addcmul": lambda M, a, b, c: M.addcmul(a, b, c),
    "addcdiv": lambda M, a, b, c: M.addcdiv(a, b, c),
    "lerp": lambda M, a, b, c: M.lerp(a, b, c),
    "hypot": lambda M, a, b, c: M.hypot(a, b),
    "maximum": lambda M, a, b, c: M.maximum(a, b),
    "mm": lambda M, a, b, c: a.reshape(1, 2) @ b.reshape(2, 1),
    "sin_of_mul": lambda M, a, b, c: (a * b).sin(),
}


def unpacked(M, call, needs):
    """The values the unpack hook sees, in order, during the backward of `call`."""
    seen = []
    a, b, c = (M.tensor(v, requires_grad=r) for v, r in
               zip(([1.0, 2.0], [3.0, 4.0], [0.5, 0.25]), needs))

    def unpack(t):
        seen.append(t.detach().tolist())
        return t
    with M.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        y = call(M, a, b, c)
    y.sum().backward()
    return seen


@pytest.mark.parametrize("needs", [(True, True, True), (True, False, True),
                                   (False, True, False)])
@pytest.mark.parametrize("name", list(CALLS))
def test_unpack_hooks_run_in_torchs_order(name, needs):
    e, t = unpacked(ember, CALLS[name], needs), unpacked(torch, CALLS[name], needs)
    if name == "pow" and not needs[1]:
        # torch saves the outputs a formula uses whatever requires grad (pow's result, used
        # by the exponent's formula only); ember saves only what the needed formulas use
        assert t[-1] == [1.0, 16.0]
        t = t[:-1]
    assert e == t


@pytest.mark.parametrize("name", ["mul", "mm", "addmm"])
def test_unpack_hook_runs_once_when_it_returns_a_subclass(name):
    """An unpack hook giving back a tensor subclass: the node's NumPy version cannot take it
    and runs its ember-op formulas with the tensors it already unpacked (torch unpacks each
    saved tensor once)."""
    def run(M):
        class Sub(M.Tensor):
            pass
        seen = []

        def unpack(t):
            seen.append(tuple(t.shape))
            return t.as_subclass(Sub)
        a = M.ones(2, 3, requires_grad=True)
        b, c = M.full((3, 4), 0.5), M.full((2, 4), 2.0)
        with M.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            y = {"mul": lambda: a * c[:, :3], "mm": lambda: a.mm(b),
                 "addmm": lambda: M.addmm(c, a, b)}[name]()
        y.sum().backward()
        return seen, a.grad.tolist()
    assert run(ember) == run(torch)
