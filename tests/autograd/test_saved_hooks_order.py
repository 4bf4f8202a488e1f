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
