"""ember.distributions against torch.distributions: log_prob, cdf/icdf, entropy, moments,
shapes, KL divergences and their gradients from the same parameters (float64 and
float32); samples by their shapes, dtypes, supports and statistics (ember's generator
differs from torch's); reparameterized gradients; torch's validation errors."""
import numpy as np
import pytest

import ember
import ember.distributions as D

torch = pytest.importorskip("torch")
TD = pytest.importorskip("torch.distributions")

RNG = np.random.default_rng(0)
LOC = RNG.standard_normal((3, 2))
SCALE = RNG.uniform(0.5, 2.0, (3, 2))
PROBS = RNG.uniform(0.05, 0.95, (3, 4))
A = RNG.standard_normal((2, 3, 3))
COV = A @ A.transpose(0, 2, 1) + 3 * np.eye(3)


def params(dtype, *arrays, grad=True):
    """The arrays as ember and torch leaf tensors of `dtype`."""
    ours = [ember.tensor(a, dtype=getattr(ember, dtype), requires_grad=grad) for a in arrays]
    theirs = [torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=grad) for a in arrays]
    return ours, theirs


def close(e, t, dtype):
    rtol = 1e-10 if dtype == "float64" else 2e-5
    e_arr, t_arr = np.asarray(e.detach().numpy()), t.detach().numpy()
    assert e_arr.shape == t_arr.shape and str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(e_arr, t_arr, rtol=rtol, atol=rtol)


def grads_close(e_params, t_params, e_out, t_out, dtype):
    # (retain_graph: lazily computed parameters such as logits are shared between calls)
    ge = ember.autograd.grad(e_out.sum(), e_params, allow_unused=True, retain_graph=True)
    gt = torch.autograd.grad(t_out.sum(), t_params, allow_unused=True, retain_graph=True)
    for a, b in zip(ge, gt):
        assert (a is None) == (b is None)
        if a is not None:
            close(a, b, dtype)


MAKERS = {
    "Normal": (lambda lib, m, p: m.Normal(p[0], p[1]), (LOC, SCALE), lambda: LOC + 0.3),
    "Uniform": (lambda lib, m, p: m.Uniform(p[0], p[0] + p[1]), (LOC, SCALE), lambda: LOC + 0.2),
    "Bernoulli": (lambda lib, m, p: m.Bernoulli(probs=p[0]), (PROBS,),
                  lambda: (PROBS > 0.5).astype(float)),
    "BernoulliLogits": (lambda lib, m, p: m.Bernoulli(logits=p[0]), (LOC,),
                        lambda: (LOC > 0).astype(float)),
    "Categorical": (lambda lib, m, p: m.Categorical(probs=p[0]), (PROBS,),
                    lambda: np.array([0, 3, 1])),
    "CategoricalLogits": (lambda lib, m, p: m.Categorical(logits=p[0]), (PROBS,),
                          lambda: np.array([[2, 1, 0], [3, 3, 3]])),
    "MVNCovariance": (lambda lib, m, p: m.MultivariateNormal(p[0], covariance_matrix=p[1]),
                      (LOC[:2, :1].repeat(3, 1), COV), lambda: RNG.standard_normal((4, 2, 3))),
    "MVNScaleTril": (lambda lib, m, p: m.MultivariateNormal(p[0], scale_tril=p[1]),
                     (LOC[0, :1].repeat(3), np.linalg.cholesky(COV)),
                     lambda: RNG.standard_normal((2, 3))),
    "MVNPrecision": (lambda lib, m, p: m.MultivariateNormal(p[0], precision_matrix=p[1]),
                     (LOC[0, :1].repeat(3), COV[0]), lambda: RNG.standard_normal((5, 3))),
}


def make(name, dtype):
    build, arrays, values = MAKERS[name]
    e_params, t_params = params(dtype, *arrays)
    return (build(ember, D, e_params), build(torch, TD, t_params), e_params, t_params,
            values())


def value_pair(values, dtype, integral=False):
    if integral:
        return ember.tensor(values, dtype=ember.int64), torch.tensor(values, dtype=torch.int64)
    return (ember.tensor(values, dtype=getattr(ember, dtype)),
            torch.tensor(values, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(MAKERS))
def test_densities_moments_and_their_gradients_match_torch(name, dtype):
    e, t, e_params, t_params, values = make(name, dtype)
    assert (e.batch_shape, e.event_shape) == (tuple(t.batch_shape), tuple(t.event_shape))
    ev, tv = value_pair(values, dtype, integral=name.startswith("Categorical"))
    close(e.log_prob(ev), t.log_prob(tv), dtype)
    grads_close(e_params, t_params, e.log_prob(ev), t.log_prob(tv), dtype)
    close(e.entropy(), t.entropy(), dtype)
    grads_close(e_params, t_params, e.entropy(), t.entropy(), dtype)
    for moment in ("mean", "variance", "stddev", "mode"):
        e_m, t_m = getattr(e, moment), getattr(t, moment)
        assert e_m.shape == tuple(t_m.shape)
        np.testing.assert_allclose(e_m.detach().numpy().astype(float),
                                   t_m.detach().numpy().astype(float),
                                   rtol=1e-5, equal_nan=True, err_msg=moment)
    if name in ("Normal", "Uniform"):
        close(e.cdf(ev), t.cdf(tv), dtype)
    if name == "Uniform":
        probs = ember.tensor(PROBS[:, :2], dtype=getattr(ember, dtype))
        close(e.icdf(probs), t.icdf(torch.tensor(PROBS[:, :2], dtype=getattr(torch, dtype))),
              dtype)
    if name.startswith("MVN"):
        for matrix in ("covariance_matrix", "precision_matrix", "scale_tril"):
            np.testing.assert_allclose(getattr(e, matrix).detach().numpy(),
                                       getattr(t, matrix).detach().numpy(), rtol=1e-5,
                                       atol=1e-6)


@pytest.mark.parametrize("name", list(MAKERS))
def test_samples_have_torchs_shapes_dtypes_support_and_statistics(name):
    e, t, _, _, _ = make(name, "float64")
    for shape in ((), (5,), (2, 3)):
        es, ts = e.sample(shape), t.sample(shape)
        assert es.shape == tuple(ts.shape) and str(es.dtype)[6:] == str(ts.dtype)[6:]
        assert not es.requires_grad
        assert e.support.check(es).all()
    ember.manual_seed(0)
    many = e.sample((20000,)).double()
    mean = e.mean.detach().double()
    if name.startswith("Categorical"):
        mean = (e.probs * ember.arange(4, dtype=ember.float64)).sum(-1).detach()
    np.testing.assert_allclose(many.mean(0).numpy(), mean.numpy(), atol=0.1)


@pytest.mark.parametrize("name", ["Normal", "Uniform", "MVNScaleTril"])
def test_rsample_carries_gradients_to_the_parameters(name):
    e, t, e_params, _, _ = make(name, "float64")
    assert e.has_rsample and t.has_rsample
    ember.manual_seed(1)
    x = e.rsample((4,))
    assert x.requires_grad and x.shape == tuple(t.rsample((4,)).shape)
    grads = ember.autograd.grad(x.sum(), e_params)
    loc_grad = grads[0].numpy()  # d(loc + ...)/dloc: each sample (and broadcast copy) adds 1
    np.testing.assert_allclose(loc_grad, x.numel() / e_params[0].numel())
    if name == "Normal":  # d(loc + eps * scale)/dscale = eps = (x - loc) / scale
        eps = ((x - e.loc) / e.scale).detach().sum(0)
        np.testing.assert_allclose(grads[1].numpy(), eps.numpy(), rtol=1e-12)


KL_PAIRS = {
    "Normal": (lambda m, p: (m.Normal(p[0], p[1]), m.Normal(p[1], p[2])),
               (LOC, SCALE, SCALE[::-1].copy())),
    "Bernoulli": (lambda m, p: (m.Bernoulli(probs=p[0]), m.Bernoulli(probs=p[1])),
                  (PROBS, PROBS[::-1].copy())),
    "BernoulliEdges": (lambda m, p: (m.Bernoulli(probs=p[0]), m.Bernoulli(probs=p[1])),
                       (np.array([0.0, 1.0, 0.3, 0.0, 1.0]), np.array([0.5, 0.5, 0.0, 0.0, 1.0]))),
    "Categorical": (lambda m, p: (m.Categorical(probs=p[0]), m.Categorical(logits=p[1])),
                    (PROBS, LOC.repeat(2, 1))),
    "CategoricalZeros": (lambda m, p: (m.Categorical(probs=p[0]), m.Categorical(probs=p[1])),
                         (np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]),
                          np.array([[0.3, 0.7, 0.0], [0.0, 0.5, 0.5]]))),
    "Uniform": (lambda m, p: (m.Uniform(p[0], p[0] + p[1]), m.Uniform(p[0] - 1, p[0] + 3)),
                (LOC, SCALE)),
    "UniformOutside": (lambda m, p: (m.Uniform(p[0], p[0] + p[1]), m.Uniform(p[0] + 0.1, p[0] + 3)),
                       (LOC, SCALE)),
    "MVN": (lambda m, p: (m.MultivariateNormal(p[0], covariance_matrix=p[1]),
                          m.MultivariateNormal(p[2], scale_tril=p[3])),
            (LOC[:2, :1].repeat(3, 1), COV, LOC[0, :1].repeat(3), np.linalg.cholesky(COV[1]))),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(KL_PAIRS))
def test_kl_divergences_and_gradients_match_torch(name, dtype):
    build, arrays = KL_PAIRS[name]
    e_params, t_params = params(dtype, *arrays)
    (ep, eq), (tp, tq) = build(D, e_params), build(TD, t_params)
    e_kl, t_kl = D.kl_divergence(ep, eq), TD.kl_divergence(tp, tq)
    close(e_kl, t_kl, dtype)
    if np.isfinite(t_kl.detach().numpy()).all():
        grads_close(e_params, t_params, e_kl, t_kl, dtype)


def test_kl_registry_and_missing_pairs_raise_like_torch():
    with pytest.raises(NotImplementedError) as want:
        TD.kl_divergence(TD.Uniform(0.0, 1.0), TD.Bernoulli(0.5))
    with pytest.raises(NotImplementedError) as got:
        D.kl_divergence(D.Uniform(0.0, 1.0), D.Bernoulli(0.5))
    assert str(got.value) == str(want.value)

    class Shifted(D.Normal):
        pass

    @D.register_kl(Shifted, D.Normal)
    def _kl(p, q):
        return ember.tensor(42.0)
    assert D.kl_divergence(Shifted(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 42.0
    assert D.kl_divergence(D.Normal(0.0, 1.0), Shifted(0.0, 1.0)).item() == 0.0


ERRORS = {
    "negative scale": lambda lib, m: m.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, -1.0])),
    "probs outside": lambda lib, m: m.Bernoulli(probs=lib.tensor([0.5, 1.5])),
    "both probs and logits": lambda lib, m: m.Bernoulli(probs=lib.tensor(0.5),
                                                         logits=lib.tensor(0.0)),
    "negative categorical": lambda lib, m: m.Categorical(probs=lib.tensor([0.5, -0.1])),
    "0-d categorical": lambda lib, m: m.Categorical(logits=lib.tensor(0.5)),
    "uniform low >= high": lambda lib, m: m.Uniform(lib.tensor([1.0]), lib.tensor([0.5])),
    "not positive definite": lambda lib, m: m.MultivariateNormal(
        lib.zeros(2), covariance_matrix=lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "two matrices": lambda lib, m: m.MultivariateNormal(
        lib.zeros(2), covariance_matrix=lib.eye(2), scale_tril=lib.eye(2)),
    "0-d loc": lambda lib, m: m.MultivariateNormal(lib.tensor(0.0), covariance_matrix=lib.eye(1)),
    "value outside the support": lambda lib, m: m.Bernoulli(probs=lib.tensor([0.5])).log_prob(
        lib.tensor([2.0])),
    "value of a wrong event shape": lambda lib, m: m.MultivariateNormal(
        lib.zeros(2), covariance_matrix=lib.eye(2)).log_prob(lib.zeros(3)),
    "value not broadcastable": lambda lib, m: m.Normal(lib.zeros(3), lib.ones(3)).log_prob(
        lib.zeros(2)),
    "value not a tensor": lambda lib, m: m.Normal(lib.zeros(3), lib.ones(3)).log_prob(1.0),
    "categorical value out of range": lambda lib, m: m.Categorical(
        probs=lib.tensor([0.5, 0.5])).log_prob(lib.tensor(2)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_validation_errors_are_torchs(case):
    with pytest.raises(Exception) as want:
        ERRORS[case](torch, TD)
    with pytest.raises(type(want.value)) as got:
        ERRORS[case](ember, D)
    assert str(got.value).replace("ember.", "torch.") == str(want.value)


def test_validation_can_be_turned_off():
    d = D.Normal(ember.zeros(2), ember.tensor([1.0, -1.0]), validate_args=False)
    assert d.log_prob(ember.zeros(2)).shape == (2,)
    assert D.Bernoulli(probs=ember.tensor([0.5]), validate_args=False).log_prob(
        ember.tensor([2.0])).shape == (1,)


def test_python_number_parameters_give_scalar_distributions_like_torch():
    for m, lib in ((D, ember), (TD, torch)):
        d = m.Normal(0.0, 2.0)
        assert tuple(d.batch_shape) == () and d.loc.dtype == lib.float32
        assert tuple(m.Uniform(0.0, 1.0).sample((3,)).shape) == (3,)
        assert tuple(m.Bernoulli(0.3).sample().shape) == ()
    assert D.Normal(0.0, 2.0).log_prob(ember.tensor(1.0)).item() == pytest.approx(
        TD.Normal(0.0, 2.0).log_prob(torch.tensor(1.0)).item())
