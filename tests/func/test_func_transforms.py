"""ember.func's transforms (ember/func/_transforms.py) against torch.func: grad,
grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call, on values,
dtypes, shapes, nesting and errors."""
import numpy as np
import pytest

import ember
from ember import func as efunc

torch = pytest.importorskip("torch")
tfunc = torch.func

G = torch.Generator().manual_seed(0)
X = torch.randn(3, generator=G, dtype=torch.float64)
Y = torch.randn(3, generator=G, dtype=torch.float64)
M = torch.randn(2, 3, generator=G, dtype=torch.float64)


def E(t):
    return ember.tensor(t.detach().numpy())


def same(e, t):
    if isinstance(t, (tuple, list)):
        assert type(e) is type(t) and len(e) == len(t)
        for a, b in zip(e, t):
            same(a, b)
        return
    if isinstance(t, dict):
        assert e.keys() == t.keys()
        for k in t:
            same(e[k], t[k])
        return
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(e.shape) == tuple(t.shape)
    assert e.requires_grad == t.requires_grad
    np.testing.assert_allclose(np.asarray(e.tolist()), t.detach().numpy(), rtol=1e-7, atol=1e-10)


def f_scalar(m):
    return lambda x: (m.sin(x) * x).sum()


def f_two(m):
    return lambda x, y: (x * y.exp()).sum() + (x ** 2).sum()


def f_vec(m):
    return lambda x: m.stack([x.sin().sum(), (x * x).prod(), x[0] * x[1]])


def test_grad_and_argnums():
    same(efunc.grad(f_scalar(ember))(E(X)), tfunc.grad(f_scalar(torch))(X))
    same(efunc.grad(f_two(ember), argnums=1)(E(X), E(Y)), tfunc.grad(f_two(torch), argnums=1)(X, Y))
    same(efunc.grad(f_two(ember), argnums=(0, 1))(E(X), E(Y)),
         tfunc.grad(f_two(torch), argnums=(0, 1))(X, Y))
    same(efunc.grad(f_two(ember), argnums=-1)(E(X), E(Y)), tfunc.grad(f_two(torch), argnums=-1)(X, Y))


def test_grad_pytree_input_has_aux_and_value():
    def f(m):
        return lambda d: ((d["a"] * d["b"][0]).sum(), d["a"].detach() * 2)
    te, ee = {"a": X, "b": [Y]}, {"a": E(X), "b": [E(Y)]}
    same(efunc.grad(f(ember), has_aux=True)(ee), tfunc.grad(f(torch), has_aux=True)(te))
    same(efunc.grad_and_value(f_scalar(ember))(E(X)), tfunc.grad_and_value(f_scalar(torch))(X))
    same(efunc.grad_and_value(f(ember), has_aux=True)(ee),
         tfunc.grad_and_value(f(torch), has_aux=True)(te))


def test_grad_of_unused_input_is_zero():
    same(efunc.grad(lambda x, y: (x * 2).sum(), argnums=1)(E(X), E(Y)),
         tfunc.grad(lambda x, y: (x * 2).sum(), argnums=1)(X, Y))


def test_nested_grad_and_hessian():
    def g(x):
        return (x ** 3).sum()
    same(efunc.grad(lambda x: efunc.grad(g)(x).sum())(E(X)),
         tfunc.grad(lambda x: tfunc.grad(g)(x).sum())(X))
    same(efunc.hessian(f_scalar(ember))(E(X)), tfunc.hessian(f_scalar(torch))(X))
    same(efunc.jacfwd(efunc.jacrev(f_scalar(ember)))(E(X)),
         tfunc.jacfwd(tfunc.jacrev(f_scalar(torch)))(X))


def test_grad_keeps_the_graph_of_inputs_that_require_grad():
    x = E(X).requires_grad_()
    tx = X.clone().requires_grad_()
    eg, tg = efunc.grad(f_scalar(ember))(x), tfunc.grad(f_scalar(torch))(tx)
    assert eg.requires_grad and tg.requires_grad
    eg.sum().backward()
    tg.sum().backward()
    same(x.grad, tx.grad)


@pytest.mark.parametrize("fn,msg", [
    (lambda m: m.func.grad(lambda x: x * 2), "scalar Tensor, got tensor with 1 dims"),
    (lambda m: m.func.grad(lambda x: 3.0), "to return a Tensor"),
    (lambda m: m.func.grad(lambda x: x.sum(), has_aux=True), "should be a tuple"),
    (lambda m: m.func.grad(lambda x: x.sum(), argnums=4), "Got argnum=4"),
])
def test_grad_errors(fn, msg):
    with pytest.raises(RuntimeError) as t:
        fn(torch)(X)
    with pytest.raises(RuntimeError) as e:
        fn(ember)(E(X))
    assert msg in str(t.value) and msg in str(e.value)


def test_vjp():
    to, tfn = tfunc.vjp(lambda x, w: w @ x.sin(), X, M)
    eo, efn = efunc.vjp(lambda x, w: w @ x.sin(), E(X), E(M))
    same(eo, to)
    ct = torch.tensor([1.0, -2.0], dtype=torch.float64)
    same(efn(E(ct)), tfn(ct))
    to, tfn, taux = tfunc.vjp(lambda x: (x.exp(), x.sum()), X, has_aux=True)
    eo, efn, eaux = efunc.vjp(lambda x: (x.exp(), x.sum()), E(X), has_aux=True)
    same((eo, eaux), (to, taux))
    same(efn(E(Y)), tfn(Y))
    with pytest.raises(RuntimeError):
        efn(ember.ones(4, dtype=ember.float64))


def test_jvp():
    same(efunc.jvp(lambda x: x.sin() * x, (E(X),), (E(Y),)),
         tfunc.jvp(lambda x: x.sin() * x, (X,), (Y,)))
    same(efunc.jvp(lambda x, w: (w @ x, x.sum()), (E(X), E(M)), (E(Y), E(M))),
         tfunc.jvp(lambda x, w: (w @ x, x.sum()), (X, M), (Y, M)))
    same(efunc.jvp(lambda x: x * 0 + 1, (E(X),), (E(Y),)),
         tfunc.jvp(lambda x: x * 0 + 1, (X,), (Y,)))
    with pytest.raises(RuntimeError):
        efunc.jvp(lambda x: x, (E(X),), (E(M),))


def test_jacobians():
    same(efunc.jacrev(f_vec(ember))(E(X)), tfunc.jacrev(f_vec(torch))(X))
    same(efunc.jacfwd(f_vec(ember))(E(X)), tfunc.jacfwd(f_vec(torch))(X))
    same(efunc.jacrev(lambda x, w: w @ x, argnums=(0, 1))(E(X), E(M)),
         tfunc.jacrev(lambda x, w: w @ x, argnums=(0, 1))(X, M))
    same(efunc.jacfwd(lambda x, w: w @ x, argnums=(0, 1))(E(X), E(M)),
         tfunc.jacfwd(lambda x, w: w @ x, argnums=(0, 1))(X, M))
    same(efunc.jacrev(lambda x: (x.sin(), x.sum()))(E(X)),
         tfunc.jacrev(lambda x: (x.sin(), x.sum()))(X))
    same(efunc.jacrev(lambda x: (x.sin(), x.cos()), has_aux=True)(E(X)),
         tfunc.jacrev(lambda x: (x.sin(), x.cos()), has_aux=True)(X))


def test_vmap_dims():
    A = torch.randn(4, 3, generator=G, dtype=torch.float64)
    B = torch.randn(3, 4, generator=G, dtype=torch.float64)
    same(efunc.vmap(ember.dot)(E(A), E(A)), tfunc.vmap(torch.dot)(A, A))
    same(efunc.vmap(lambda a, b: a @ b, in_dims=(0, None))(E(A), E(X)),
         tfunc.vmap(lambda a, b: a @ b, in_dims=(0, None))(A, X))
    same(efunc.vmap(lambda a, b: a * b, in_dims=(0, 1), out_dims=1)(E(A), E(B)),
         tfunc.vmap(lambda a, b: a * b, in_dims=(0, 1), out_dims=1)(A, B))
    same(efunc.vmap(lambda d: d["x"] + d["y"][0], in_dims=({"x": 0, "y": [1]},))(
        {"x": E(A), "y": [E(B)]}),
        tfunc.vmap(lambda d: d["x"] + d["y"][0], in_dims=({"x": 0, "y": [1]},))(
        {"x": A, "y": [B]}))
    same(efunc.vmap(lambda a: (a.sum(), a * 2), out_dims=(0, -1))(E(A)),
         tfunc.vmap(lambda a: (a.sum(), a * 2), out_dims=(0, -1))(A))
    same(ember.vmap(efunc.vmap(lambda a: a * 3))(E(M)), torch.vmap(tfunc.vmap(lambda a: a * 3))(M))
    same(efunc.vmap(lambda a: a.sin(), chunk_size=2)(E(A)), tfunc.vmap(lambda a: a.sin(), chunk_size=2)(A))
    same(efunc.vmap(efunc.grad(f_scalar(ember)))(E(A)), tfunc.vmap(tfunc.grad(f_scalar(torch)))(A))


@pytest.mark.parametrize("call", [
    lambda m, A: m.func.vmap(lambda a, b: a + b)(A, A[:2]),
    lambda m, A: m.func.vmap(lambda a: a, in_dims=2)(A),
    lambda m, A: m.func.vmap(lambda a: a, in_dims=None)(A),
    lambda m, A: m.func.vmap(lambda a: 3)(A),
    lambda m, A: m.func.vmap(lambda a, b: a, in_dims=(0,))(A, A),
])
def test_vmap_errors(call):
    A = torch.ones(4, 3)
    with pytest.raises(ValueError):
        call(torch, A)
    with pytest.raises(ValueError):
        call(ember, ember.ones(4, 3))


def test_vmap_randomness():
    with pytest.raises(RuntimeError, match="randomness error mode"):
        efunc.vmap(lambda a: a + ember.rand(1))(ember.ones(3, 2))
    same_rows = efunc.vmap(lambda a: a + ember.rand(2), randomness="same")(ember.zeros(3, 2))
    assert (same_rows == same_rows[0]).all()
    different = efunc.vmap(lambda a: a + ember.rand(2), randomness="different")(ember.zeros(3, 2))
    assert not (different == different[0]).all()
    with pytest.raises(RuntimeError):
        efunc.vmap(lambda a: a, randomness="maybe")


def test_functional_call():
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2)).double()
    em = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.BatchNorm1d(2)).double()
    em.load_state_dict({k: E(v) for k, v in tm.state_dict().items()})
    W = torch.randn(2, 3, generator=G, dtype=torch.float64)
    inp = torch.randn(4, 3, generator=G, dtype=torch.float64)
    same(efunc.functional_call(em, {"0.weight": E(W)}, (E(inp),)),
         tfunc.functional_call(tm, {"0.weight": W}, (inp,)))
    same(em[0].weight, tm[0].weight)           # restored after the call
    assert isinstance(em[0].weight, ember.nn.Parameter)
    same(em[1].running_mean, tm[1].running_mean)   # the call's batch-norm update hit the module
    # gradients flow to the swapped-in tensors
    w = E(W).requires_grad_()
    efunc.functional_call(em, ({"0.weight": w}, {"0.bias": ember.zeros(2, dtype=ember.float64)}),
                          E(inp)).sum().backward()
    tw = W.clone().requires_grad_()
    tfunc.functional_call(tm, ({"0.weight": tw}, {"0.bias": torch.zeros(2, dtype=torch.float64)}),
                          inp).sum().backward()
    same(w.grad, tw.grad)
    with pytest.raises(RuntimeError, match="Missing key"):
        efunc.functional_call(em, {"0.weight": E(W)}, (E(inp),), strict=True)
    # grad over parameters, torch.func's usual pattern (eval: torch's grad refuses the
    # batch-norm buffer update)
    tm.eval()
    em.eval()
    params = {k: E(v) for k, v in tm.named_parameters()}
    tparams = dict(tm.named_parameters())
    eg = efunc.grad(lambda p: efunc.functional_call(em, p, (E(inp),)).pow(2).sum())(params)
    tg = tfunc.grad(lambda p: tfunc.functional_call(tm, p, (inp,)).pow(2).sum())(
        {k: v.detach() for k, v in tparams.items()})
    same(eg, tg)
