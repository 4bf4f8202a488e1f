"""custom_op, register_fake/kernel/autograd/autocast and opcheck against torch.library's:
the inferred schemas, end-to-end values and gradients, fakes, make_fx, and the errors."""

import re

import numpy as np
import pytest

import ember
from ember._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from ember.fx.experimental.proxy_tensor import make_fx
from ember.library import custom_op, infer_schema, opcheck, register_fake

torch = pytest.importorskip("torch")


def _normalize(schema: str) -> str:
    """Alias sets named as ember names them (a, b, ...; torch: a0, a1, ...)."""
    return re.sub(r"\(a(\d+)!\)", lambda m: f"({chr(ord('a') + int(m.group(1)))}!)", schema)


def _protos(T, dtype_cls):
    def a(x: T, n: int, k: float = 1.0, flag: bool = False) -> T: ...

    def b(xs: list[T], y: T | None, sizes: list[int]) -> tuple[T, T]: ...

    def c(x: T, out: T, *, scale: float) -> None: ...

    def d(x: T, dt: dtype_cls, name: str = "s") -> list[T]: ...
    return {"a": (a, ()), "b": (b, ()), "c": (c, ("out",)), "d": (d, ())}


@pytest.mark.parametrize("which", ["a", "b", "c", "d"])
def test_inferred_schema_is_torch(which):
    e_fn, e_mut = _protos(ember.Tensor, ember.dtype)[which]
    t_fn, t_mut = _protos(torch.Tensor, torch.dtype)[which]
    assert infer_schema(e_fn, mutates_args=e_mut) == _normalize(
        torch.library.infer_schema(t_fn, mutates_args=t_mut))


def test_schema_errors():
    def no_ann(x): ...

    def bad(x: ember.Tensor, s: set) -> ember.Tensor: ...
    with pytest.raises(ValueError, match="must have a type annotation"):
        infer_schema(no_ann, mutates_args=())
    with pytest.raises(ValueError, match="unsupported type"):
        infer_schema(bad, mutates_args=())
    with pytest.raises(ValueError, match="not parameters"):
        infer_schema(bad, mutates_args=("y",))


_N = iter(range(10 ** 6))


def _define(lib, *, fake=True, autograd=True):
    """mylib::numpy_sin_<n> for ember or torch: a NumPy kernel, its fake, its formula."""
    name = f"mylib::numpy_sin_{next(_N)}"
    T = lib.Tensor

    def numpy_sin(x: T) -> T:
        return lib.from_numpy(np.sin(x.detach().numpy()))
    numpy_sin.__annotations__ = {"x": T, "return": T}
    op = lib.library.custom_op(name, mutates_args=(), device_types="cpu")(numpy_sin)
    if fake:
        op.register_fake(lambda x: lib.empty_like(x))
    if autograd:
        def setup(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x.cos()
        op.register_autograd(backward, setup_context=setup)
    return op


def test_values_and_gradients_like_torch():
    x_np = np.linspace(-2, 2, 7).astype(np.float64)
    out = {}
    for lib in (ember, torch):
        op = _define(lib)
        x = lib.tensor(x_np, requires_grad=True)
        y = op(x)
        (y * y).sum().backward()
        out[lib.__name__] = (y.detach().numpy(), x.grad.numpy(), type(y.grad_fn).__name__
                             .startswith("GeneratedBackwardFor_mylib_numpy_sin_"))
    np.testing.assert_allclose(out["ember"][0], out["torch"][0])
    np.testing.assert_allclose(out["ember"][1], out["torch"][1])
    assert out["ember"][2] and out["torch"][2]


def test_gradcheck_of_a_registered_formula():
    op = _define(ember)
    x = ember.randn(5, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(op, (x,))


def test_backward_without_a_formula_raises_torch_message():
    msgs = []
    for lib in (ember, torch):
        op = _define(lib, autograd=False)
        y = op(lib.randn(3, requires_grad=True))
        assert y.requires_grad
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        msgs.append(re.sub(r"numpy_sin_\d+", "numpy_sin", str(e.value)))
    assert msgs[0] == msgs[1]


def test_fakes_make_fx_and_missing_fake():
    op = _define(ember)
    with FakeTensorMode():
        y = op(ember.empty(4, 3, device="cuda"))
    assert isinstance(y, FakeTensor) and y.shape == (4, 3) and y.device.type == "cuda"
    gm = make_fx(lambda x: op(x) * 2)(ember.randn(3))
    assert [str(n.target) for n in gm.graph.nodes if n.op == "call_function"] == [
        f"{op._opoverload}", "aten.mul.Tensor"]
    no_fake = _define(ember, fake=False)
    with FakeTensorMode(), pytest.raises(RuntimeError, match="no fake impl registered"):
        no_fake(ember.empty(2))


def test_module_level_register_fake_and_ops_namespace():
    @custom_op("mylib::twice_any", mutates_args=())
    def twice(x: ember.Tensor) -> ember.Tensor:
        return x * 2

    @register_fake("mylib::twice_any")
    def _(x):
        return ember.empty_like(x)
    assert ember.ops.mylib.twice_any.default(ember.ones(2)).tolist() == [2.0, 2.0]
    with FakeTensorMode():
        assert isinstance(twice(ember.ones(2)), FakeTensor)


def test_mutating_op_and_autocast():
    @custom_op("mylib::add_into", mutates_args=("out",))
    def add_into(x: ember.Tensor, out: ember.Tensor) -> None:
        out.add_(x)
    assert add_into._schema == "mylib::add_into(Tensor x, Tensor(b!) out) -> ()"
    o = ember.zeros(3)
    add_into(ember.ones(3), o)
    assert o.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="mutates its inputs"):
        add_into.register_autograd(lambda ctx, g: g)

    @custom_op("mylib::dtype_of", mutates_args=())
    def dtype_of(x: ember.Tensor) -> ember.Tensor:
        return x.clone()
    dtype_of.register_autocast("cpu", ember.bfloat16)
    with ember.autocast("cpu"):
        assert dtype_of(ember.ones(2)).dtype == ember.bfloat16
    assert dtype_of(ember.ones(2)).dtype == ember.float32


def test_opcheck_passes_a_good_op_and_catches_wrong_registrations():
    good = _define(ember)
    assert opcheck(good, (ember.randn(4, requires_grad=True),)) == {
        "test_schema": "SUCCESS", "test_autograd_registration": "SUCCESS",
        "test_faketensor": "SUCCESS"}

    bad_fake = _define(ember, fake=False)
    bad_fake.register_fake(lambda x: ember.empty(x.shape[0] + 1))
    res = opcheck(bad_fake, (ember.randn(4),), raise_exception=False)
    assert res["test_faketensor"] != "SUCCESS" and "shape" in str(res["test_faketensor"])

    @custom_op("mylib::sneaky", mutates_args=())
    def sneaky(x: ember.Tensor) -> ember.Tensor:
        x.mul_(2)
        return x + 1
    sneaky.register_fake(lambda x: ember.empty_like(x))
    res = opcheck(sneaky, (ember.ones(2),), raise_exception=False)
    assert "mutated but not marked" in str(res["test_schema"])

    no_grad = _define(ember, autograd=False)
    res = opcheck(no_grad, (ember.randn(3, requires_grad=True),), raise_exception=False)
    assert "register_autograd" in str(res["test_autograd_registration"])
    with pytest.raises(Exception, match="register_autograd"):
        opcheck(no_grad, (ember.randn(3, requires_grad=True),))


def test_an_output_that_is_an_input_is_refused():
    @custom_op("mylib::identity_bad", mutates_args=())
    def ident(x: ember.Tensor) -> ember.Tensor:
        return x
    with pytest.raises(RuntimeError, match="must not also be an input"):
        ident(ember.ones(2))
