"""Reductions that torch decomposes (CompositeImplicitAutograd): the `unbiased=` overloads
of var/std/var_mean/std_mean call the `correction=` ones, and norm calls
linalg_vector_norm (autograd comes from the ops they call).

    >>> ember.var(ember.tensor([1., 2., 3.]), False)
    tensor(0.6667)
"""
import functools
import math

import ember
from ember.autograd.graph import check_inplace
from ember.core import dtype as D
from ember.core.shapes import wrap_dim
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.composite import with_zero_grad_of


def _aten():
    return ember.ops.aten


def var(self, unbiased):
    return _aten().var.correction(self, None, correction=1 if unbiased else 0)


def var_dim(self, dim, unbiased, keepdim):
    return _aten().var.correction(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def std(self, unbiased):
    return _aten().std.correction(self, None, correction=1 if unbiased else 0)


def std_dim(self, dim, unbiased, keepdim):
    return _aten().std.correction(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def var_mean(self, unbiased):
    return _aten().var_mean.correction(self, None, correction=1 if unbiased else 0)


def var_mean_dim(self, dim, unbiased, keepdim):
    return _aten().var_mean.correction(self, dim, correction=1 if unbiased else 0,
                                       keepdim=keepdim)


def std_mean(self, unbiased):
    return _aten().std_mean.correction(self, None, correction=1 if unbiased else 0)


def std_mean_dim(self, dim, unbiased, keepdim):
    return _aten().std_mean.correction(self, dim, correction=1 if unbiased else 0,
                                       keepdim=keepdim)


def _check_norm_input(self):
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {self._dtype.scalar_name} instead.")


def norm_scalar(self, p):
    """`x.norm(p=2)`: the p-norm of all elements (linalg_vector_norm)."""
    _check_norm_input(self)
    return _aten().linalg_vector_norm.default(self, 2 if p is None else p)


def norm_scalaropt_dim(self, p, dim, keepdim):
    """`x.norm(p, dim, keepdim=False)`; p=None is 2."""
    _check_norm_input(self)
    return _aten().linalg_vector_norm.default(self, 2 if p is None else p, dim, keepdim)


def python_norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """`ember.norm` / `Tensor.norm`, torch.functional.norm's Python function: the vector
    norm over `dim` (all dims for None); "fro" is the 2-norm. Matrix norms ("nuc", "fro"
    over 3+ dims) are not available.

    >>> ember.tensor([[3., 4.]]).norm(dim=1)
    tensor([5.])
    """
    from ember.overrides import NO_OVERRIDE, handle_torch_function_any, tf_state
    if tf_state[0]:
        r = handle_torch_function_any(python_norm, (input, p, dim, keepdim),
                                      {"out": out, "dtype": dtype})
        if r is not NO_OVERRIDE:
            return r
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p != "fro" or (dims is not None and len(dims) > 2):
            raise NotImplementedError(f"norm(p={p!r}): matrix norms are not implemented in ember")
        p = 2
    elif p is None:
        p = 2.0
    op = _aten().linalg_vector_norm
    if out is None:
        return op.default(input, p, dims, keepdim, dtype=dtype)
    return op.out(input, p, dims, keepdim, dtype=dtype, out=out)


# --- issue 22: nanmean, quantile/nanquantile, diff, trapezoid, cov/corrcoef, cdist ----------
def nanmean(self, dim=None, keepdim=False, dtype=None):
    """nansum / the number of non-NaN elements (torch's)."""
    if self._dtype.category < D.FLOAT:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {self.dtype.scalar_name}")
    if dtype is not None and dtype.category < D.FLOAT:
        raise RuntimeError("nanmean(): could not infer output dtype. Optional dtype must be "
                           f"either a floating point or complex dtype. Got: {dtype.scalar_name}")
    count = self.isnan().logical_not().sum(dim, keepdim)
    return ember.nansum(self, dim, keepdim, dtype=dtype).div(count)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_quantile(self, q, name, interpolation, dim):
    """torch's checks in torch's order: a number q's range, the interpolation, self's
    size, q's rank, the dtypes, the dim, then a tensor q's values."""
    if not isinstance(q, ember.Tensor) and not 0 <= q <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q:g}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if self.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if isinstance(q, ember.Tensor) and q.dim() > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if self.dtype not in (ember.float32, ember.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, ember.Tensor) and q.dtype != self.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    wrap_dim(0 if dim is None else dim, self.dim())
    # (torch checks the values of CPU tensors only; a fake's are not there to check)
    if isinstance(q, ember.Tensor) and q._device.type == "cpu" and \
            not bool(((q >= 0) & (q <= 1)).all()):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")


def _quantile(self, q, dim, keepdim, interpolation, ignore_nan, name):
    """torch's algorithm: sort along dim (NaN last), a rank q * (count - 1) per slice,
    rounded per `interpolation` or interpolated between its neighbours (lerp)."""
    _check_quantile(self, q, name, interpolation, dim)
    qt = q.reshape(-1) if isinstance(q, ember.Tensor) else self.new_full((1,), q)
    if dim is None:
        x = self.reshape(-1)
    else:
        dim = wrap_dim(dim, self.dim())
        x = self.reshape(1) if self.dim() == 0 else self.movedim(dim, -1)
    srt = x.sort(-1).values
    n = srt.shape[-1]
    nan = srt.isnan()
    if ignore_nan:
        ranks = qt * (nan.logical_not().sum(-1, True) - 1).to(self.dtype)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        ranks = (qt * (n - 1)).expand(srt.shape[:-1] + (qt.shape[0],))
        ranks = ranks.masked_fill(nan.any(-1, True), n - 1)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.to(ember.int64)
    values = srt.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = ranks.new_full((), 0.5) if interpolation == "midpoint" else ranks - below
        values = values.lerp(srt.gather(-1, ranks.ceil().to(ember.int64)), weights)
    if keepdim:
        if dim is None:
            values = values.reshape((1,) * self.dim() + (values.shape[-1],))
        elif self.dim():
            values = values.unsqueeze(dim)
    values = values.movedim(-1, 0)   # (len(q), reduced dims...)
    return values.squeeze(0) if not isinstance(q, ember.Tensor) or q.dim() == 0 else values


def quantile(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile(self, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile(self, q, dim, keepdim, interpolation, True, "quantile")


def diff(self, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim (logical_xor for bool), after prepend/append;
    torch's rules: n == 0 copies self (prepend/append and dim unused), n is at most the
    length along dim."""
    if self.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for t in (prepend, append):
        if t is not None:
            d = wrap_dim(dim, self.dim())
            if t.dim() != self.dim():
                raise RuntimeError("diff expects prepend or append to be the same dimension as "
                                   "input")
            for i, (m, k) in enumerate(zip(self.shape, t.shape)):
                if i != d and m != k:
                    raise RuntimeError(
                        "diff expects the shape of tensor to prepend or append to match that "
                        "of input except along the differencing dimension; "
                        f"input.size({i}) = {m}, but got tensor.size({i}) = {k}")
    if n == 0:
        return self.clone()
    parts = [t for t in (prepend, self, append) if t is not None]
    out = ember.cat(parts, dim) if len(parts) > 1 else self
    length = out.size(dim)
    for _ in range(min(n, length)):
        length -= 1
        hi, lo = out.narrow(dim, 1, length), out.narrow(dim, 0, length)
        out = ember.logical_xor(hi, lo) if out.dtype == ember.bool else hi - lo
    return out


def _slice(t, dim, start, end=None):
    return _aten().slice.Tensor(t, dim, start, end)


def _pair_sums(y, dim):
    """y[..., 1:] + y[..., :-1] along dim (empty when dim has fewer than two samples)."""
    return _slice(y, dim, 1) + _slice(y, dim, 0, -1)


def _check_trapezoid(name, y, x=None, dx=None):
    """torch's refusals: bool samples or sample points, a bool or complex dx."""
    if x is not None and (y.dtype == ember.bool or x.dtype == ember.bool):
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not "
                           "supported")
    if x is None and y.dtype == ember.bool:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if x is None and isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")


def _spacing(y, x, dim, name):
    """The spacings between the sample points x, shaped to broadcast against y's pairs."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[dim] = x.shape[0]
        x = x.view(shape)
    elif x.dim() < y.dim():
        x = x.view((1,) * (y.dim() - x.dim()) + tuple(x.shape))
    return _slice(x, dim, 1) - _slice(x, dim, 0, -1)


def _no_samples(y, dim):
    """torch's (and NumPy's) integral over zero samples: zeros of y's dtype without dim."""
    dim = wrap_dim(dim, y.dim())
    return y.new_zeros(y.shape[:dim] + y.shape[dim + 1:])


def trapezoid_x(y, x, dim=-1):
    """The trapezoid rule along dim over the sample points x (torch's order of checks)."""
    dim = wrap_dim(dim, y.dim())
    if y.size(dim) == 0:
        return _no_samples(y, dim)
    _check_trapezoid("trapezoid", y, x)
    return (_pair_sums(y, dim) * _spacing(y, x, dim, "trapezoid")).sum(dim) / 2.0


def trapezoid_dx(y, dx=1, dim=-1):
    """The trapezoid rule along dim with a constant spacing dx."""
    if y.size(dim) == 0:
        return _no_samples(y, dim)
    _check_trapezoid("trapezoid", y, dx=dx)
    return (y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * float(dx)


def cumulative_trapezoid_x(y, x, dim=-1):
    """The running trapezoid rule along dim (one element fewer than y)."""
    dim = wrap_dim(dim, y.dim())
    _check_trapezoid("cumulative_trapezoid", y, x)
    spacing = _spacing(y, x, dim, "cumulative_trapezoid")
    return (_pair_sums(y, dim) * spacing).cumsum(dim) / 2.0  # halved last, as torch


def cumulative_trapezoid_dx(y, dx=1, dim=-1):
    _check_trapezoid("cumulative_trapezoid", y, dx=dx)
    return (float(dx) / 2.0 * _pair_sums(y, dim)).cumsum(dim)


def cov(self, correction=1, fweights=None, aweights=None):
    """The covariance of the rows (variables) over the columns (observations), with torch's
    frequency and observation weights and torch's corner cases (one observation, degrees of
    freedom <= 0). Unlike torch, the input is never zeroed in place (torch's refusal to do so
    for an input requiring grad is kept).

        >>> ember.cov(ember.tensor([[0., 1., 2.], [2., 1., 0.]]))
        tensor([[ 1., -1.],
                [-1.,  1.]])
    """
    if self.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {self.dim()} dimensions")
    if self._dtype is D.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = self.view(1, -1) if self.dim() < 2 else self
    n = x.shape[1]
    w = None
    for name, t, kind in (("fweights", fweights, "integral"),
                          ("aweights", aweights, "floating point")):
        if t is None:
            continue
        if t.dim() > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                               f"{name} with {t.dim()} dimensions")
        category = D.INT if kind == "integral" else D.FLOAT
        if t._dtype.category != category:
            raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} "
                               f"with {t._dtype.scalar_name} dtype")
        if t.numel() != n:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                               f"observations in the input but got {t.numel()} != {n}")
        # min() >= 0, as torch: a NaN weight is refused too (values: as quantile's q)
        if n and t._device.type == "cpu" and not bool(t.min() >= 0):
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = t if w is None else w * t
    long_scalar = functools.partial(ember.scalar_tensor, dtype=D.int64, device=x.device)
    w_sum = long_scalar(n) if w is None else w.sum()
    if w is not None and w._device.type == "cpu" and not bool(w_sum != 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x if w is None else x * w).sum(1) / w_sum
    if w is None:
        norm = long_scalar(n - correction)
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - correction
    elif fweights is None and n == 1 and correction == 1:
        norm = long_scalar(0)           # torch's corner case (rounding against NumPy's)
    else:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    if norm._device.type == "cpu" and bool(norm <= 0):
        import warnings
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", stacklevel=2)
        norm = ember.zeros_like(norm)
    if n == 1 and (fweights is None) != (aweights is None):
        # one observation, one kind of weights: the weighted average is the input itself, so
        # torch takes x - avg as zeros (integral inputs become float, as the subtraction would)
        # by zeroing x in place, which autograd refuses for an input that requires grad and
        # is a leaf or a leaf's view (ember makes the same check, then leaves the input alone)
        if x.requires_grad and ember.is_grad_enabled():
            check_inplace(x)
        x = ember.zeros_like(x, dtype=D.float32 if x._dtype.category < D.FLOAT else None)
    else:
        x = x - avg.unsqueeze(1)
    c = ember.mm(x, (x if w is None else x * w).t().conj())
    return ember.true_divide(c, norm).squeeze()


def corrcoef(self):
    """cov / (stddev_i stddev_j), clipped to [-1, 1]."""
    c = ember.cov(self)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    d = (d.real if d.is_complex() else d).sqrt()
    c = c / d.view(-1, 1)
    c = c / d.view(1, -1)
    if c.is_complex():     # (torch clips the real and imaginary parts)
        return ember.complex(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)


def cdist(x1, x2, p=2.0, compute_mode=None):
    """The p-norm distance between each row of x1 and each row of x2 (batched)."""
    for name, t in (("X1", x1), ("X2", x2)):
        if t.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{t.dim()}D")
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{t.dtype.scalar_name}")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {x1.dtype.scalar_name} but found "
                           f"{x2.dtype.scalar_name}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    # torch's kernel has no half types; empty inputs never reach it
    if x1.dtype in (ember.float16, ember.bfloat16) and x1.numel() and x2.numel():
        raise NotImplementedError(f'"cdist" not implemented for \'{x1.dtype.scalar_name}\'')
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    out = ember.linalg_vector_norm(diff, p, [-1])
    if p == 0 and diff.requires_grad:   # torch's _cdist_backward: zeros, not no gradient
        return with_zero_grad_of(out, diff.sum(-1))
    return out


def _gradient_along(self, d, h, edge_order):
    """torch's second-order accurate differences along d, one-sided at the ends; `h` is a
    number (uniform spacing) or the 1-d coordinates of the samples."""
    n = self.shape[d]

    def sl(start, stop=None):
        stop = n if stop is None else stop
        start, stop = start % n if start < 0 else start, stop % n if stop < 0 else stop
        return self.narrow(d, start, stop - start)
    if not isinstance(h, ember.Tensor):
        center = (sl(2) - sl(0, -2)) / h
        if edge_order == 1:
            first, last = (sl(1, 2) - sl(0, 1)) / h, (sl(-1) - sl(-2, -1)) / h
        else:
            first = (-1.5 * sl(0, 1) + 2 * sl(1, 2) - 0.5 * sl(2, 3)) / h
            last = (0.5 * sl(-3, -2) - 2 * sl(-2, -1) + 1.5 * sl(-1)) / h
        return ember.cat([first, center / 2, last], d)
    dx = h.diff()
    shape = [1] * self.dim()
    shape[d] = -1
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * sl(0, -2) + b * sl(1, -1) + c * sl(2)
    if edge_order == 1:
        first, last = (sl(1, 2) - sl(0, 1)) / dx[0], (sl(-1) - sl(-2, -1)) / dx[-1]
    else:
        s0, s1, e1, e2 = dx[0], dx[1], dx[-1], dx[-2]
        first = (-(2.0 * s0 + s1) / (s0 * (s0 + s1)) * sl(0, 1) + (s0 + s1) / (s0 * s1) * sl(1, 2)
                 + -s0 / (s1 * (s0 + s1)) * sl(2, 3))
        last = (e1 / (e2 * (e1 + e2)) * sl(-3, -2) - (e1 + e2) / (e1 * e2) * sl(-2, -1)
                + (2 * e1 + e2) / (e1 * (e1 + e2)) * sl(-1))
    return ember.cat([first, center, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """torch.gradient: the derivative estimate along each of `dim` (every dim by default),
    with a uniform `spacing` (a number, or one per dim) or sample coordinates (1-d tensors,
    one per dim). Returns a tuple with one tensor per dim.

    >>> ember.gradient(ember.tensor([1., 2., 4., 8.]))
    (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) \
        else list(dim)
    dims = [d % input.dim() for d in dims]
    if edge_order not in (1, 2):
        raise RuntimeError("ember.gradient only supports edge_order=1 and edge_order=2.")
    spacings = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(spacings) != len(dims):
        raise RuntimeError(f"ember.gradient expected spacing to be unspecified, a scalar or "
                           f"its length to be equal to {len(dims)}, but got a list of length "
                           f"{len(spacings)}")
    for d, h in zip(dims, spacings):
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("ember.gradient expected each dimension size to be at least "
                               "edge_order+1")
        if isinstance(h, ember.Tensor) and (h.dim() != 1 or h.shape[0] != input.shape[d]):
            raise RuntimeError("ember.gradient expected each tensor to be on the same device "
                               "and to have one coordinate per sample along its dim")
    return tuple(_gradient_along(input, d, h, edge_order) for d, h in zip(dims, spacings))


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def python_cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """`ember.cdist`, torch.functional.cdist's Python function: the compute mode by name.

    >>> ember.cdist(ember.zeros(1, 2), ember.tensor([[3., 4.]]))
    tensor([[5.]])
    """
    from ember.overrides import NO_OVERRIDE, handle_torch_function_any, tf_state
    if tf_state[0]:
        r = handle_torch_function_any(python_cdist, (x1, x2), {"p": p,
                                                              "compute_mode": compute_mode})
        if r is not NO_OVERRIDE:
            return r
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return ember.ops.aten.cdist.default(x1, x2, p, _CDIST_MODES[compute_mode])


# --- histogramdd ---------------------------------------------------------------------------
def histogramdd(self, bins, range=None, weight=None, density=False):
    """torch.histogramdd with a bin count per dim (the innermost dim of self)."""
    _check_histogramdd_dtype(self)
    if self.dim() >= 2 and len(bins) != self.shape[-1]:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    return _histogramdd(self, list(bins), range, weight, density)


def histogramdd_int_bins(self, bins, range=None, weight=None, density=False):
    n_dims = self.size(-1)          # (torch's first check: a 0-d self has no dim -1)
    _check_histogramdd_dtype(self)
    return _histogramdd(self, [bins] * n_dims, range, weight, density)


def histogramdd_tensorlist_bins(self, bins, range=None, weight=None, density=False):
    _check_histogramdd_dtype(self)
    return _histogramdd(self, list(bins), range, weight, density)


def _check_histogramdd_dtype(self):
    """torch's histogramdd kernel exists for float32 and float64 only: checked first; for
    an empty input it does not run (histogram's, which takes any floating dtype, does)."""
    if self.numel() == 0:
        if not self.dtype.is_floating_point:
            raise not_implemented_for("histogram_cpu", self.dtype)
    elif self.dtype not in (ember.float32, ember.float64):
        raise not_implemented_for("histogramdd", self.dtype)


def _histogramdd(self, bins, range, weight, density):
    """The rows of self (its innermost dim: one coordinate per histogram dim) counted into
    a grid of bins: each dim's edges are given tensors, or histogram's edges of that
    column (over `range`, two numbers per dim); a value belongs to [edge_i, edge_i+1), the
    last bin closed, values outside (and NaN) are left out. `weight` (self's shape without
    the innermost dim) replaces the counts; `density` divides by the total and the bin
    volumes."""
    if self.dim() < 2:
        raise RuntimeError("ember.histogramdd: input tensor should have at least 2 dimensions")
    n_dims = self.shape[-1]
    if len(bins) != n_dims:
        raise RuntimeError(f"ember.histogramdd: expected {n_dims} sequences of bin edges for a "
                           f"{n_dims}-dimensional histogram but got {len(bins)}")
    if range is not None and len(range) != 2 * n_dims:
        raise RuntimeError(f"ember.histogramdd: for a {n_dims}-dimensional histogram range "
                           f"should have {2 * n_dims} elements, but got {len(range)}")
    if weight is not None and tuple(weight.shape) != tuple(self.shape[:-1]):
        raise RuntimeError("ember.histogramdd: if weight tensor is provided it should have the "
                           "same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape {list(self.shape)} and weight with shape "
                           f"{list(weight.shape)}")
    if n_dims == 0:         # a 0-dimensional histogram: torch's 0-d zero, no edges
        return self.new_zeros(()), []
    x = self.reshape(-1, n_dims)
    w = None if weight is None else weight.reshape(-1)
    edges = []
    for d, b in enumerate(bins):
        if not isinstance(b, ember.Tensor) and b <= 0:
            raise RuntimeError(f"ember.histogram(): bins must be > 0, but got {b} for "
                               f"dimension {d}")
        col = x[:, d]
        if isinstance(b, ember.Tensor):   # (1-d histogram's checks of the edges and dtypes)
            ember.histogram(col, b, weight=w)
            edges.append(b)               # (torch returns the given edges)
        else:
            r = None if range is None else [range[2 * d], range[2 * d + 1]]
            edges.append(ember.histogram(col, b, range=r, weight=w)[1])
    flat = x.new_zeros(x.shape[0], dtype=ember.int64)
    keep = x.new_ones(x.shape[0], dtype=ember.bool)
    for d, e in enumerate(edges):
        col, n = x[:, d], e.numel() - 1
        keep = keep & (col >= e[0]) & (col <= e[-1])
        pos = (ember.searchsorted(e, col.contiguous(), right=True) - 1).clamp(0, max(n - 1, 0))
        flat = flat * n + pos
    sizes = [e.numel() - 1 for e in edges]
    total = math.prod(sizes)
    # (values left out go to an extra last bin: shapes never depend on the data)
    flat = ember.where(keep, flat, total)
    ones = x.new_ones(x.shape[0]) if w is None else w
    hist = x.new_zeros(total + 1).index_add_(0, flat, ones)[:total].reshape(sizes)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            shape = [1] * n_dims
            shape[d] = sizes[d]
            hist = hist / e.diff().reshape(shape)
    return hist, edges
