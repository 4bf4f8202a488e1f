"""torch.nn's other losses and activations against torch: values and gradients (float64
and float32), modules' repr, errors."""
import warnings

import pytest
from nn_compare import assert_close, pair, to_ember

import ember
import ember.nn.functional as EF

torch = pytest.importorskip("torch")
tnn = torch.nn
TF = torch.nn.functional

TOL = {torch.float64: {"rtol": 1e-7, "atol": 1e-9}, torch.float32: {"rtol": 2e-5, "atol": 2e-6}}
DTYPES = [torch.float64, torch.float32]


def run_both(fn_t, fn_e, t_inputs, dtype):
    """Outputs and gradients of every floating input that requires grad agree."""
    e_inputs = [to_ember(t) if isinstance(t, torch.Tensor) else t for t in t_inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_out, e_out = fn_t(*t_inputs), fn_e(*e_inputs)
    assert_close(e_out, t_out, **TOL[dtype])
    grad = torch.randn(t_out.shape, generator=torch.Generator().manual_seed(5), dtype=t_out.dtype)
    t_out.backward(grad)
    e_out.backward(to_ember(grad))
    for t, e in zip(t_inputs, e_inputs, strict=True):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            assert_close(e.grad, t.grad, **TOL[dtype])


def data(*shape, dtype, seed=0, grad=True, low=None, high=None):
    return pair(*shape, dtype=dtype, seed=seed, requires_grad=grad, low=low, high=high)[0]


def signs(*shape, dtype, seed=9):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 2, shape, generator=g).to(dtype) * 2 - 1


def classes(*shape, high, seed=7):
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(seed))


# every case: (name, make args(dtype) -> list of torch inputs, kwargs)
LOSSES = [
    ("smooth_l1_loss", lambda d: [data(4, 5, dtype=d), data(4, 5, dtype=d, seed=1)], {}),
    ("smooth_l1_loss", lambda d: [data(4, 5, dtype=d), data(4, 5, dtype=d, seed=1)],
     {"beta": 0.3, "reduction": "none"}),
    ("smooth_l1_loss", lambda d: [data(4, 5, dtype=d), data(4, 5, dtype=d, seed=1)],
     {"beta": 0.0, "reduction": "sum"}),
    ("huber_loss", lambda d: [data(4, 5, dtype=d), data(4, 5, dtype=d, seed=1)],
     {"delta": 0.5}),
    ("huber_loss", lambda d: [data(4, 5, dtype=d), data(4, 5, dtype=d, seed=1)],
     lambda d: {"reduction": "none", "weight": data(4, 5, dtype=d, seed=3, grad=False)}),
    ("kl_div", lambda d: [data(3, 4, dtype=d).log_softmax(1).detach().requires_grad_(),
                          data(3, 4, dtype=d, seed=1, grad=False).softmax(1)],
     {"reduction": "batchmean"}),
    ("kl_div", lambda d: [data(3, 4, dtype=d), data(3, 4, dtype=d, seed=1)],
     {"reduction": "none", "log_target": True}),
    ("kl_div", lambda d: [data(3, 4, dtype=d),
                          data(3, 4, dtype=d, seed=1, grad=False).relu()], {}),
    ("margin_ranking_loss", lambda d: [data(6, dtype=d), data(6, dtype=d, seed=1),
                                       signs(6, dtype=d)], {"margin": 0.2}),
    ("hinge_embedding_loss", lambda d: [data(3, 4, dtype=d), signs(3, 4, dtype=d)],
     {"margin": 0.7}),
    ("soft_margin_loss", lambda d: [data(3, 4, dtype=d), signs(3, 4, dtype=d)], {}),
    ("multilabel_soft_margin_loss",
     lambda d: [data(3, 4, dtype=d), (signs(3, 4, dtype=d) > 0).to(d)],
     lambda d: {"weight": data(4, dtype=d, seed=2, grad=False)}),
    ("cosine_embedding_loss", lambda d: [data(5, 4, dtype=d), data(5, 4, dtype=d, seed=1),
                                         signs(5, dtype=d)], {"margin": 0.1}),
    ("cosine_embedding_loss", lambda d: [data(4, dtype=d), data(4, dtype=d, seed=1),
                                         torch.tensor(-1.0, dtype=d)], {}),
    ("multi_margin_loss", lambda d: [data(5, 4, dtype=d), classes(5, high=4)], {}),
    ("multi_margin_loss", lambda d: [data(5, 4, dtype=d), classes(5, high=4)],
     lambda d: {"p": 2, "margin": 0.5, "weight": data(4, dtype=d, seed=2, grad=False).abs(),
                "reduction": "none"}),
    ("multi_margin_loss", lambda d: [data(4, dtype=d), torch.tensor(2)], {}),
    ("multilabel_margin_loss",
     lambda d: [data(3, 5, dtype=d), torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0],
                                                   [-1, 1, 2, 3, 4]])], {"reduction": "none"}),
    ("multilabel_margin_loss",
     lambda d: [data(4, dtype=d), torch.tensor([3, 0, -1, 1])], {}),
    ("triplet_margin_loss", lambda d: [data(5, 4, dtype=d), data(5, 4, dtype=d, seed=1),
                                       data(5, 4, dtype=d, seed=2)], {}),
    ("triplet_margin_loss", lambda d: [data(5, 4, dtype=d), data(5, 4, dtype=d, seed=1),
                                       data(5, 4, dtype=d, seed=2)],
     {"p": 1, "swap": True, "margin": 2.0, "reduction": "none"}),
    ("triplet_margin_with_distance_loss",
     lambda d: [data(5, 4, dtype=d), data(5, 4, dtype=d, seed=1), data(5, 4, dtype=d, seed=2)],
     {"swap": True}),
    ("poisson_nll_loss", lambda d: [data(3, 4, dtype=d), data(3, 4, dtype=d, seed=1,
                                                             low=0, high=4)], {}),
    ("poisson_nll_loss", lambda d: [data(3, 4, dtype=d, low=0.1, high=2),
                                    data(3, 4, dtype=d, seed=1, low=0, high=4)],
     {"log_input": False, "full": True, "reduction": "none"}),
    ("gaussian_nll_loss", lambda d: [data(3, 4, dtype=d), data(3, 4, dtype=d, seed=1),
                                     data(3, 4, dtype=d, seed=2, low=0, high=2)], {}),
    ("gaussian_nll_loss", lambda d: [data(3, 4, dtype=d), data(3, 4, dtype=d, seed=1),
                                     data(3, dtype=d, seed=2, low=0.1, high=2)],
     {"full": True, "reduction": "sum"}),
    ("pairwise_distance", lambda d: [data(3, 4, dtype=d), data(3, 4, dtype=d, seed=1)],
     {"p": 3.0}),
    ("cosine_similarity", lambda d: [data(3, 4, dtype=d), data(3, 4, dtype=d, seed=1)],
     {"dim": 1}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, make, kwargs", LOSSES)
def test_losses(name, make, kwargs, dtype):
    """kwargs may be a function of the dtype (for tensor arguments)."""
    inputs = make(dtype)
    t_kwargs = kwargs(dtype) if callable(kwargs) else kwargs
    kwargs = {k: to_ember(v) if isinstance(v, torch.Tensor) else v for k, v in t_kwargs.items()}
    run_both(lambda *a: getattr(TF, name)(*a, **t_kwargs),
             lambda *a: getattr(EF, name)(*a, **kwargs), inputs, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_smooth_l1_backward_bits(dtype, reduction):
    """smooth_l1_loss's gradient has torch's bits on contiguous operands of one shape:
    norm * (x / beta or +-1) * grad, the order of torch's vectorized CPU loop (64 elements:
    all in its vector loop, whatever the vector width). (Broadcast operands take torch's
    scalar loop for some elements and its vector loop for others: within rounding there.)"""
    x, y = data(8, 8, dtype=dtype), data(8, 8, dtype=dtype, seed=1)
    x = (x * 3).detach().requires_grad_()
    e_x = to_ember(x).detach().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_out = TF.smooth_l1_loss(x, y, reduction=reduction, beta=0.7)
        e_out = EF.smooth_l1_loss(e_x, to_ember(y), reduction=reduction, beta=0.7)
    grad = torch.randn(t_out.shape, generator=torch.Generator().manual_seed(5), dtype=dtype)
    t_out.backward(grad)
    e_out.backward(to_ember(grad))
    assert e_out.detach().numpy().tobytes() == t_out.detach().numpy().tobytes()
    assert e_x.grad.numpy().tobytes() == x.grad.numpy().tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("concatenated", [False, True])
def test_ctc_loss(reduction, concatenated, dtype):
    g = torch.Generator().manual_seed(0)
    log_probs = torch.randn(12, 3, 5, generator=g, dtype=dtype).log_softmax(2)
    log_probs.requires_grad_()
    targets = torch.randint(1, 5, (3, 4), generator=g)
    targets[0, 2] = targets[0, 1]   # a repeated label needs a blank between
    input_lengths, target_lengths = torch.tensor([12, 10, 7]), torch.tensor([4, 2, 3])
    if concatenated:
        targets = torch.cat([targets[b, :n] for b, n in enumerate(target_lengths)])
    run_both(lambda lp, t, il, tl: TF.ctc_loss(lp, t, il, tl, reduction=reduction),
             lambda lp, t, il, tl: EF.ctc_loss(lp, t, il, tl, reduction=reduction),
             [log_probs, targets, input_lengths, target_lengths], dtype)


def test_ctc_loss_impossible_alignment_and_zero_infinity():
    log_probs = torch.randn(3, 2, 4, dtype=torch.float64).log_softmax(2).requires_grad_()
    targets = torch.tensor([[1, 1, 1], [2, 3, 0]])
    lengths = (torch.tensor([3, 3]), torch.tensor([3, 2]))
    for zero_infinity in (False, True):
        t = TF.ctc_loss(log_probs, targets, *lengths, reduction="none",
                        zero_infinity=zero_infinity)
        e = EF.ctc_loss(to_ember(log_probs), to_ember(targets), *map(to_ember, lengths),
                        reduction="none", zero_infinity=zero_infinity)
        assert_close(e, t)
    run_both(lambda lp: TF.ctc_loss(lp, targets, *lengths, zero_infinity=True),
             lambda lp: EF.ctc_loss(lp, to_ember(targets), *map(to_ember, lengths),
                                    zero_infinity=True), [log_probs], torch.float64)


@pytest.mark.parametrize("cls_name, args, kwargs, n_inputs", [
    ("SmoothL1Loss", (), {"beta": 0.5}, 2), ("HuberLoss", (), {"delta": 2.0}, 2),
    ("KLDivLoss", (), {"reduction": "batchmean", "log_target": True}, 2),
    ("SoftMarginLoss", (), {}, 2), ("MultiLabelSoftMarginLoss", (), {}, 2),
    ("HingeEmbeddingLoss", (), {"margin": 0.5}, 2),
    ("CosineEmbeddingLoss", (), {"margin": 0.2}, 3), ("MarginRankingLoss", (), {}, 3),
    ("TripletMarginLoss", (), {"p": 1.0}, 3), ("TripletMarginWithDistanceLoss", (), {}, 3),
    ("PoissonNLLLoss", (), {"full": True}, 2), ("GaussianNLLLoss", (), {"full": True}, 3),
    ("MultiMarginLoss", (), {"p": 2}, 2), ("MultiLabelMarginLoss", (), {}, 2),
    ("CTCLoss", (), {"blank": 0, "zero_infinity": True}, 4),
])
def test_loss_modules(cls_name, args, kwargs, n_inputs):
    t_mod = getattr(tnn, cls_name)(*args, **kwargs)
    e_mod = getattr(ember.nn, cls_name)(*args, **kwargs)
    assert repr(e_mod) == repr(t_mod)
    assert e_mod.reduction == t_mod.reduction
    d = torch.float64
    if cls_name in ("MultiMarginLoss", "MultiLabelMarginLoss"):
        target = classes(4, high=3) if cls_name == "MultiMarginLoss" else \
            torch.tensor([[0, 2, -1], [1, -1, 0], [2, 1, 0], [-1, 0, 0]])
        inputs = [data(4, 3, dtype=d), target]
    elif cls_name == "CTCLoss":
        inputs = [data(6, 2, 4, dtype=d).log_softmax(2).detach().requires_grad_(),
                  torch.tensor([[1, 2], [3, 3]]), torch.tensor([6, 5]), torch.tensor([2, 2])]
    elif n_inputs == 3 and cls_name in ("CosineEmbeddingLoss", "MarginRankingLoss"):
        inputs = [data(4, 3, dtype=d), data(4, 3, dtype=d, seed=1), signs(4, dtype=d)]
        if cls_name == "MarginRankingLoss":
            inputs = [x[:, 0] if x.dim() == 2 else x for x in inputs]
            inputs = [x.detach().requires_grad_() if x.dtype == d else x for x in inputs]
    elif cls_name == "GaussianNLLLoss":
        inputs = [data(4, 3, dtype=d), data(4, 3, dtype=d, seed=1),
                  data(4, 3, dtype=d, seed=2, low=0.1, high=2)]
    elif n_inputs == 3:
        inputs = [data(4, 3, dtype=d, seed=s) for s in range(3)]
    elif cls_name in ("SoftMarginLoss", "HingeEmbeddingLoss", "MultiLabelSoftMarginLoss"):
        inputs = [data(4, 3, dtype=d), (signs(4, 3, dtype=d) > 0).to(d) if
                  cls_name == "MultiLabelSoftMarginLoss" else signs(4, 3, dtype=d)]
    else:
        inputs = [data(4, 3, dtype=d), data(4, 3, dtype=d, seed=1, low=0, high=2)]
    run_both(t_mod, e_mod, inputs, d)


@pytest.mark.parametrize("call", [
    lambda F, T: F.margin_ranking_loss(T.zeros(3), T.zeros(3, 1), T.zeros(3)),
    lambda F, T: F.cosine_embedding_loss(T.zeros(3, 2), T.zeros(3, 2), T.zeros(3, 1)),
    lambda F, T: F.cosine_embedding_loss(T.zeros(3), T.zeros(3), T.zeros(3)),
    lambda F, T: F.multi_margin_loss(T.zeros(3, 2), T.zeros(3, dtype=T.int64), p=3),
    lambda F, T: F.triplet_margin_loss(T.zeros(3, 2), T.zeros(3), T.zeros(3, 2)),
    lambda F, T: F.triplet_margin_with_distance_loss(T.zeros(3), T.zeros(3), T.zeros(3),
                                                     margin=0),
    lambda F, T: F.gaussian_nll_loss(T.zeros(3, 2), T.zeros(3, 2), T.zeros(2)),
    lambda F, T: F.gaussian_nll_loss(T.zeros(3, 2), T.zeros(3, 2), -T.ones(3, 2)),
    lambda F, T: F.huber_loss(T.zeros(3), T.zeros(3), weight=T.zeros(2)),
    lambda F, T: F.smooth_l1_loss(T.zeros(3), T.zeros(3), reduction="avg"),
    lambda F, T: F.poisson_nll_loss(T.zeros(3), T.zeros(3), reduction="avg"),
    lambda F, T: F.glu(T.zeros(3, 5), 1),
    lambda F, T: F.glu(T.zeros(())),
    lambda F, T: F.prelu(T.zeros(2, 3), T.zeros(2)),
    lambda F, T: F.prelu(T.zeros(3), T.zeros(3)),
    lambda F, T: F.prelu(T.zeros(3, dtype=T.float64), T.zeros(1)),
    lambda F, T: F.softshrink(T.zeros(2), -1.0),
    lambda F, T: F.softshrink(T.zeros(2, dtype=T.float64), -0.5),
    lambda F, T: T.nn.TripletMarginLoss(margin=0),
])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as t_err:
        call(TF, torch)
    with pytest.raises(type(t_err.value)) as e_err:
        call(EF, ember)
    assert str(e_err.value).replace("ember.", "torch.") == str(t_err.value)


def test_warnings_match_torch():
    for call in (lambda F, T: F.kl_div(T.zeros(2), T.zeros(2)),
                 lambda F, T: F.smooth_l1_loss(T.zeros(2, 1), T.zeros(2)),
                 lambda F, T: F.softmin(T.zeros(2, 3))):
        with pytest.warns(UserWarning) as t_w:
            call(TF, torch)
        with pytest.warns(UserWarning) as e_w:
            call(EF, ember)
        assert [str(w.message).replace("ember.", "torch.") for w in e_w] == \
            [str(w.message) for w in t_w]


# ---------------------------------------------------------------- activations
ACTIVATIONS = [
    ("relu6", {}), ("selu", {}), ("celu", {"alpha": 0.7}), ("glu", {"dim": 1}), ("mish", {}),
    ("hardswish", {}), ("hardsigmoid", {}), ("hardshrink", {"lambd": 0.4}),
    ("softshrink", {"lambd": 0.3}), ("tanhshrink", {}), ("softsign", {}), ("logsigmoid", {}),
    ("softmin", {"dim": 1}), ("softmin", {"dim": 0, "dtype": torch.float64}),
    ("rrelu", {"lower": 0.1, "upper": 0.3}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, kwargs", ACTIVATIONS)
def test_activations(name, kwargs, dtype):
    t_kwargs = dict(kwargs)
    e_kwargs = {k: (ember.float64 if v is torch.float64 else v) for k, v in kwargs.items()}
    x = data(4, 6, dtype=dtype) * 4   # crosses every kink (-3, 3, +-lambd)
    x = x.detach().requires_grad_()
    run_both(lambda a: getattr(TF, name)(a, **t_kwargs),
             lambda a: getattr(EF, name)(a, **e_kwargs), [x], dtype)


def test_activation_kinks_special_values_and_inplace():
    x = torch.tensor([-4.0, -3.0, -0.5, 0.0, 0.5, 3.0, 4.0, float("inf"), float("-inf"),
                      float("nan")], dtype=torch.float64)
    for name in ("hardswish", "hardsigmoid", "hardshrink", "softshrink", "relu6", "softsign",
                 "selu", "celu", "mish", "logsigmoid", "tanhshrink"):
        t, e = x.clone().requires_grad_(), to_ember(x).requires_grad_()
        assert_close(getattr(EF, name)(e), getattr(TF, name)(t))
        finite = torch.isfinite(x)
        run_both(getattr(TF, name), getattr(EF, name), [x[finite].clone().requires_grad_()],
                 torch.float64)
    for name in ("hardswish", "hardsigmoid", "mish", "selu", "celu", "relu6"):
        t, e = x.clone(), to_ember(x)
        getattr(TF, name)(t, inplace=True)
        assert getattr(EF, name)(e, inplace=True) is e
        assert_close(e, t)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weight_shape, shape", [((1,), (3, 4)), ((4,), (3, 4, 2)),
                                                 ((1,), (3,)), ((3,), (2, 3))])
def test_prelu(weight_shape, shape, dtype):
    run_both(TF.prelu, EF.prelu, [data(*shape, dtype=dtype),
                                  data(*weight_shape, dtype=dtype, seed=3)], dtype)


def test_rrelu_training_and_gumbel_softmax():
    x = ember.randn(200)
    y = EF.rrelu(x, 0.1, 0.3, training=True)
    ratio = (y / x)[x < 0]
    assert bool(((ratio >= 0.1) & (ratio <= 0.3)).all())
    assert bool((y[x >= 0] == x[x >= 0]).all())
    logits = ember.randn(5, 4, requires_grad=True)
    soft = EF.gumbel_softmax(logits, tau=0.5)
    assert_close(soft.sum(1), torch.ones(5))
    hard = EF.gumbel_softmax(logits, hard=True)
    assert sorted(set(hard.detach().reshape(-1).tolist())) == [0.0, 1.0]
    hard.sum().backward()
    assert logits.grad is not None


@pytest.mark.parametrize("make", [
    lambda nn: nn.ReLU6(), lambda nn: nn.SELU(True), lambda nn: nn.CELU(0.5),
    lambda nn: nn.GLU(0), lambda nn: nn.Mish(), lambda nn: nn.Hardswish(),
    lambda nn: nn.Hardsigmoid(), lambda nn: nn.Hardshrink(0.3), lambda nn: nn.Softshrink(),
    lambda nn: nn.Tanhshrink(), lambda nn: nn.Softsign(), lambda nn: nn.LogSigmoid(),
    lambda nn: nn.Softmin(1), lambda nn: nn.Softmax2d(), lambda nn: nn.PReLU(4, 0.1),
    lambda nn: nn.RReLU(0.1, 0.2),
])
def test_activation_modules(make):
    t_mod, e_mod = make(tnn).double(), make(ember.nn).double()
    assert repr(e_mod) == repr(t_mod)
    e_mod.load_state_dict({k: to_ember(v, requires_grad=False)
                           for k, v in t_mod.state_dict().items()})
    t_mod.eval()
    e_mod.eval()
    x = data(2, 4, 3, 2, dtype=torch.float64)
    run_both(lambda a: t_mod(a.clone()), lambda a: e_mod(a.clone()), [x], torch.float64)
    for name, p in t_mod.named_parameters():
        assert_close(dict(e_mod.named_parameters())[name], p)
