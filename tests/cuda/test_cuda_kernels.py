"""CUDA kernels beyond the op samples: reductions large enough for several warps and
grid-stride loops, in both emulator thread orders (a missing barrier shows in one of them),
and autograd through CUDA kernels, against torch's CPU results."""
import numpy as np
import pytest
from cudahelpers import check_cuda
from helpers import pair, torch

import ember
from ember.cuda import _emulator

pytestmark = pytest.mark.usefixtures("cuda")


@pytest.fixture(params=["fwd", "rev"])
def order(request):
    old = _emulator.order[0]
    _emulator.order[0] = request.param
    yield
    _emulator.order[0] = old


@pytest.mark.usefixtures("order")
@pytest.mark.parametrize("shape,dim", [((3, 1000), 1), ((700, 3), 0), ((5, 6, 70), (0, 2)),
                                       ((2000,), None)])
def test_large_reductions_in_both_thread_orders(shape, dim):
    a = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    e, t = pair(a)
    d = e.cuda()
    tol = {"float32": (1e-5, 1e-4)}
    check_cuda(d.sum(dim) if dim is not None else d.sum(),
               t.sum(dim) if dim is not None else t.sum(), tol)
    check_cuda(d.mean(dim) if dim is not None else d.mean(),
               t.mean(dim) if dim is not None else t.mean(), tol)
    check_cuda(d.amax(dim if dim is not None else ()), t.amax(dim if dim is not None else ()))
    if not isinstance(dim, tuple):
        check_cuda(d.argmax(dim), t.argmax(dim))
        check_cuda(d.argmin(dim), t.argmin(dim))


def test_argmax_ties_and_nan_keep_the_first_index():
    e, t = pair(np.array([[1, 3, 3, 0], [np.nan, 2, np.nan, 9]], np.float32))
    check_cuda(e.cuda().argmax(1), t.argmax(1))
    vals, idx = e.cuda().max(1)
    tv, ti = t.max(1)
    check_cuda(vals, tv)
    check_cuda(idx, ti)


def test_half_sum_accumulates_in_float():
    a = np.full(4096, 0.1, np.float16)
    e, t = pair(a)
    check_cuda(e.cuda().sum(), t.sum(), {"float16": (1e-3, 0)})


def test_autograd_through_cuda_kernels():
    a = np.random.default_rng(3).standard_normal((4, 5)).astype(np.float32)
    e, t = pair(a)
    x = e.cuda().requires_grad_(True)
    tx = t.clone().requires_grad_(True)
    y = ((x * 2 + 1).sigmoid() * x.tanh()).relu().sum()
    ty = ((tx * 2 + 1).sigmoid() * tx.tanh()).relu().sum()
    y.backward()
    ty.backward()
    assert x.grad.is_cuda
    check_cuda(x.grad, tx.grad, {"float32": (1e-5, 1e-6)})
    check_cuda(y.detach(), ty.detach(), {"float32": (1e-5, 1e-5)})


def test_exp_mean_backward_on_cuda():
    x = ember.arange(6.).view(2, 3).cuda().requires_grad_(True)
    tx = torch.arange(6.).view(2, 3).requires_grad_(True)
    x.exp().mean().backward()
    tx.exp().mean().backward()
    check_cuda(x.grad, tx.grad, {"float32": (1e-6, 1e-6)})
