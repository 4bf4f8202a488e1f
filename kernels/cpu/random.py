"""Random ops and range factories on the CPU (NumPy, drawing from the generator's PCG64).

The argument checks and layouts come from kernels/meta/random.py. Values differ from
torch's (a different bit generator); distributions, ranges and dtypes follow torch.

    >>> g = ember.Generator().manual_seed(0)
    >>> ember.randint(0, 10, (4,), generator=g).dtype
    ember.int64
    >>> ember.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
"""
from __future__ import annotations

import numpy as np

from ember import random as _random
from ember.core import dtype as D
from ember.core.alloc import empty_cpu
from ember.core.factory_args import (
    check_layout,
    check_size,
    factory_dtype,
    like_strides,
    scalar_value,
)
from ember.core.tensor import from_array
from ember.kernels.common._errors import not_implemented_for
from ember.kernels.meta import random as M

_P_MESSAGE = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
              "message be improved?  If so, please report an enhancement request to PyTorch.)")


def rng_of(generator) -> np.random.Generator:
    """The NumPy generator behind an ember.Generator (None: the default generator)."""
    gen = _random.default_generator if generator is None else generator
    if gen.device.type != "cpu":
        raise RuntimeError(f"Expected a 'cpu' device type for generator but found "
                           f"'{gen.device.type}'")
    return gen._rng


def _compute_dtype(dt: D.dtype):
    """NumPy dtype random values are computed in: float32 for float16/bfloat16."""
    return np.float32 if dt is D.float16 or dt is D.bfloat16 else np.dtype(dt.np).type


# --------------------------------------------------------------------------- linspace, eye
def linspace(start, end, steps, dtype, layout, device, pin_memory):
    """torch's two-sided formula: start + step*i in the first half, end - step*(n-1-i) in
    the second. Integer dtypes convert start/end to the dtype (wrapping like C++) and step
    in double; floating dtypes compute in their own precision, rounding each operation."""
    check_layout(layout)
    n, dt = M.linspace_params(start, end, steps, dtype)
    start, end = scalar_value(start), scalar_value(end)
    i = np.arange(n)
    if dt.category == D.INT:
        wrap = lambda v: float(np.array(int(v), np.int64).astype(dt.np))
        start, end = wrap(start), wrap(end)
        step = (end - start) / (n - 1) if n > 1 else 0.0
        arr = np.trunc(np.where(i < n // 2, start + step * i, end - step * (n - 1 - i)))
    else:
        t = np.dtype(dt.np).type
        start, end = t(float(start)), t(float(end))
        step = (end - start) / t(n - 1) if n > 1 else t(0)
        fwd = i.astype(dt.np)
        back = (n - 1 - i).astype(dt.np)
        with np.errstate(over="ignore", invalid="ignore"):
            arr = np.where(i < n // 2, start + step * fwd, end - step * back)
    if n == 1:
        arr = np.array([start])
    return from_array(np.asarray(arr).astype(dt.np), dt)


def eye(n, dtype, layout, device, pin_memory):
    return eye_m(n, None, dtype, layout, device, pin_memory)


def eye_m(n, m, dtype, layout, device, pin_memory):
    check_layout(layout)
    n, m, dt = M.eye_params(n, m, dtype)
    return from_array(np.eye(n, m, dtype=dt.np), dt)


# --------------------------------------------------------------------------- integers
def random_integers(rng, shape, bounds, dt: D.dtype) -> np.ndarray:
    """Uniform integers in [low, high] (inclusive; None: the full int64 range) as `dt`."""
    if bounds is None:
        k = rng.integers(-(1 << 63), (1 << 63) - 1, shape, dtype=np.int64, endpoint=True)
    else:
        k = rng.integers(bounds[0], bounds[1], shape, dtype=np.int64, endpoint=True)
    return k.astype(dt.np)


def randint(high, size, dtype, layout, device, pin_memory):
    return randint_low_generator(0, high, size, None, dtype, layout, device, pin_memory)


def randint_generator(high, size, generator, dtype, layout, device, pin_memory):
    return randint_low_generator(0, high, size, generator, dtype, layout, device, pin_memory)


def randint_low(low, high, size, dtype, layout, device, pin_memory):
    return randint_low_generator(low, high, size, None, dtype, layout, device, pin_memory)


def randint_low_generator(low, high, size, generator, dtype, layout, device, pin_memory):
    """Uniform integers in [low, high) (torch's random_(low, high) on a new tensor)."""
    shape, dt, bounds = M.randint_params(low, high, size, generator, dtype, layout)
    return from_array(random_integers(rng_of(generator), shape, bounds, dt), dt)


def randperm(n, dtype, layout, device, pin_memory):
    return randperm_generator(n, None, dtype, layout, device, pin_memory)


def randperm_generator(n, generator, dtype, layout, device, pin_memory):
    """A random permutation of 0..n-1."""
    shape, dt = M.randperm_params(n, generator, dtype, layout)
    return from_array(rng_of(generator).permutation(shape[0]).astype(dt.np), dt)


def random_(self, generator):
    """[0, 2**digits] for floating dtypes, [0, max] for integers, {False, True} for bool."""
    rng = rng_of(generator)
    if self.numel():
        self._np[...] = random_integers(rng, self._shape, M.random_range(self._dtype),
                                        self._dtype)
    return self


def random_from(self, frm, to, generator):
    """[from, to), or [from, max] when to is None."""
    bounds = M.random_range(self._dtype, frm, to)
    if bounds is None:
        M.check_full_range(self)
    rng = rng_of(generator)
    if self.numel():
        self._np[...] = random_integers(rng, self._shape, bounds, self._dtype)
    return self


def random_to(self, to, generator):
    return random_from(self, 0, to, generator)


# --------------------------------------------------------------------------- continuous
def uniform_(self, frm, to, generator):
    """Uniform on [from, to) (clamped below `to` after rounding to self's dtype)."""
    rng = rng_of(generator)
    frm, to = M.uniform_bounds(self, frm, to)
    if self.numel() == 0:
        return self
    u = rng.random(self._shape)
    vals = (frm + (to - frm) * u).astype(self._dtype.np)
    if to > frm:
        below = np.nextafter(np.array(to, self._dtype.np), np.array(frm, self._dtype.np))
        vals = np.minimum(vals, below)
    self._np[...] = vals
    return self


def normal_(self, mean, std, generator):
    M.normal_checks(self, mean, std)
    rng = rng_of(generator)
    if self.numel():
        ct = _compute_dtype(self._dtype)
        z = rng.standard_normal(self._shape, dtype=ct)
        self._np[...] = (ct(mean) + ct(std) * z).astype(self._dtype.np)
    return self


def exponential_(self, lambd, generator):
    M.exponential_checks(self, lambd)
    rng = rng_of(generator)
    if self.numel():
        self._np[...] = rng.exponential(1.0 / float(lambd), self._shape).astype(self._dtype.np)
    return self


# --------------------------------------------------------------------------- bernoulli
def _draw(rng, shape, p) -> np.ndarray:
    """Bernoulli(p) draws as a bool array; p a float or an array broadcasting to shape."""
    return rng.random(shape) < p


def _p_values(p, shape) -> np.ndarray:
    """A p tensor's values as float64 broadcast to `shape`, checked to lie in [0, 1]."""
    M.check_p_tensor(shape, p)
    vals = np.broadcast_to(p._np.astype(np.float64), shape)
    if vals.size and not ((vals >= 0) & (vals <= 1)).all():
        raise RuntimeError(_P_MESSAGE)
    return vals


def bernoulli(self, generator):
    """1 with probability self (elementwise), in self's dtype (a contiguous result)."""
    return bernoulli__tensor(empty_cpu(self._shape, self._dtype), self, generator)


def bernoulli_tensor(self, p, generator):
    """torch's generated functional of bernoulli_.Tensor: a copy of self (its layout kept)."""
    out = empty_cpu(self._shape, self._dtype, like_strides(self._shape, self.stride(), None))
    return bernoulli__tensor(out, p, generator)


def bernoulli_p(self, p, generator):
    out = empty_cpu(self._shape, self._dtype)
    return bernoulli__float(out, p, generator)


def _no_complex(t, kernel):
    """torch's bernoulli kernels have no complex loop (so neither has dropout's training
    path, which draws its mask with bernoulli_)."""
    if t._dtype.is_complex:
        raise not_implemented_for(kernel, t._dtype)


def bernoulli__tensor(self, p, generator):
    _no_complex(self, "bernoulli_tensor_cpu_self_")
    _no_complex(p, "bernoulli_tensor_cpu_p_")
    vals = _p_values(p, self._shape)
    self._np[...] = _draw(rng_of(generator), self._shape, vals).astype(self._dtype.np)
    return self


def bernoulli__float(self, p, generator):
    _no_complex(self, "bernoulli_scalar_cpu_")
    p = M.check_p(p)
    self._np[...] = _draw(rng_of(generator), self._shape, p).astype(self._dtype.np)
    return self


# --------------------------------------------------------------------------- dropout
def native_dropout(input, p, train):
    """(output, mask): training zeroes each element with probability p and scales the
    rest by 1/(1-p) (0 when p == 1); mask is bool. Not training: (a copy, all True)."""
    training, stride = M.native_dropout_layout(input, p, train)
    shape, dt = input._shape, input._dtype
    if input.numel() == 0:
        return empty_cpu(shape, dt, stride), empty_cpu(shape, dt, stride)
    out, mask = empty_cpu(shape, dt, stride), empty_cpu(shape, D.bool_, stride)
    if not training:
        np.copyto(out._np, input._np)
        mask._np[...] = True
        return out, mask
    p1m = 1.0 - float(p)
    M.check_p(p1m)
    keep = _draw(rng_of(None), shape, p1m)
    ct = _compute_dtype(dt)
    scale = ct(0.0 if p1m == 0 else 1.0 / p1m)
    out._np[...] = (input._np.astype(ct) * keep * scale).astype(dt.np)
    mask._np[...] = keep
    return out, mask


def normal_float_float(mean, std, size, generator, dtype, layout, device, pin_memory):
    """A new tensor of normal(mean, std) samples (torch: empty(size).normal_(mean, std))."""
    check_layout(layout)
    dt = factory_dtype(dtype)
    M.normal_checks(empty_cpu((1,), dt), mean, std)
    out = empty_cpu(check_size(size, "normal"), dt)
    return normal_(out, mean, std, generator)


def _normal_from(mean, std, generator):
    """mean + std * z for tensor (or float) mean and std, in the result's dtype."""
    shape, dt = M.normal_tensor_layout(mean, std)
    if hasattr(std, "_dtype"):
        sv = std._np
        if sv.size and not (sv >= 0).all():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        sv = std
    out = empty_cpu(shape, dt)
    if out.numel():
        ct = _compute_dtype(dt)
        z = rng_of(generator).standard_normal(shape, dtype=ct)
        m = mean._np.astype(ct) if hasattr(mean, "_dtype") else ct(mean)
        s = np.asarray(sv).astype(ct) if hasattr(std, "_dtype") else ct(sv)
        out._np[...] = (m + s * z).astype(dt.np)
    return out


def normal_tensor_float(mean, std, generator):
    M.normal_tensor_float(mean, std, generator)
    return _normal_from(mean, float(std), generator)


def normal_float_tensor(mean, std, generator):
    return _normal_from(float(mean), std, generator)


def normal_tensor_tensor(mean, std, generator):
    return _normal_from(mean, std, generator)


# --------------------------------------------------------------------------- more samplers
def log_normal_(self, mean, std, generator):
    """exp(normal(mean, std))."""
    M.log_normal_checks(self, mean, std)
    rng = rng_of(generator)
    if self.numel():
        z = rng.standard_normal(self._shape)
        self._np[...] = np.exp(float(mean) + float(std) * z).astype(self._dtype.np)
    return self


def cauchy_(self, median, sigma, generator):
    """median + sigma * tan(pi * (u - 1/2))."""
    M.cauchy_checks(self, median, sigma)
    rng = rng_of(generator)
    if self.numel():
        u = rng.random(self._shape)
        self._np[...] = (float(median) + float(sigma) * np.tan(np.pi * (u - 0.5))).astype(
            self._dtype.np)
    return self


def geometric_(self, p, generator):
    """The number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    M.geometric_checks(self, p)
    rng = rng_of(generator)
    if self.numel():
        self._np[...] = rng.geometric(float(p), self._shape).astype(self._dtype.np)
    return self


_MULTINOMIAL_INVALID = "probability tensor contains either `inf`, `nan` or element < 0"


def multinomial(self, num_samples, replacement, generator):
    """Indices drawn by probability (rows of a 2-d self); without replacement (or one
    sample) torch's Gumbel trick: the top-k of p / Exp(1) draws."""
    shape = M.multinomial_shape(self, num_samples, replacement)
    rng = rng_of(generator)
    n = shape[-1]
    p = np.atleast_2d(self._np.astype(np.float64))
    rows, cats = p.shape
    if rows == 0:
        return from_array(np.empty(shape, np.int64), D.int64)
    if not (np.isfinite(p).all() and (p >= 0).all()):
        if not replacement or n == 1:
            raise RuntimeError(_MULTINOMIAL_INVALID)
        if (p < 0).any():
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = "
                           "infinity or NaN)")
    total = p.sum(-1)
    if (total <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement or n == 1:
        with np.errstate(divide="ignore"):
            keys = p / rng.exponential(1.0, p.shape)
        idx = np.argsort(-keys, axis=-1, kind="stable")[:, :n]
    else:
        cdf = np.cumsum(p / total[:, None], axis=-1)
        cdf[:, -1] = 1.0
        offsets = np.arange(rows, dtype=np.float64)[:, None]
        u = rng.random((rows, n))
        flat = np.searchsorted((cdf + offsets).ravel(), (u + offsets).ravel(), side="right")
        idx = np.minimum(flat.reshape(rows, n) - np.arange(rows)[:, None] * cats, cats - 1)
    return from_array(idx.reshape(shape).astype(np.int64), D.int64)


def poisson(self, generator):
    """Poisson(rate) counts, rate = self (elementwise), in self's dtype."""
    M.poisson(self, generator)
    rates = self._np.astype(np.float64)
    if rates.size and not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    out = rng_of(generator).poisson(rates) if rates.size else rates
    return from_array(np.asarray(out).astype(self._dtype.np).reshape(self._shape), self._dtype)


# --------------------------------------------------------------------------- more factories
def logspace(start, end, steps, base, dtype, layout, device, pin_memory):
    """base ** e for e = linspace(start, end, steps), the exponents computed like
    linspace's (in double from integer ends for integer dtypes), the power in double."""
    check_layout(layout)
    M.logspace(start, end, steps, base, dtype, layout, device, pin_memory)
    dt = factory_dtype(dtype)
    exps = linspace(start, end, steps, D.float64 if dt.category == D.INT else dt, layout, device,
                    pin_memory)._np.astype(np.float64)
    if dt.category == D.INT and exps.size:
        n = exps.size
        wrap = lambda v: float(np.array(int(v), np.int64).astype(dt.np))
        s, e = wrap(scalar_value(start)), wrap(scalar_value(end))
        i = np.arange(n)
        step = (e - s) / (n - 1) if n > 1 else 0.0
        exps = np.where(i < n // 2, s + step * i, e - step * (n - 1 - i)) if n > 1 else np.array([s])
    with np.errstate(all="ignore"):
        arr = np.power(float(base), exps)
        if dt.category == D.INT:
            arr = np.trunc(arr)
        return from_array(arr.astype(dt.np), dt)


def empty_permuted(size, physical_layout, dtype, layout, device, pin_memory):
    check_layout(layout)
    shape, stride = M.permuted_strides(size, physical_layout)
    return empty_cpu(shape, factory_dtype(dtype), stride)


def tril_indices(row, col, offset, dtype, layout, device, pin_memory):
    """The (row, col) indices of the lower triangle (k - j <= offset), row by row."""
    check_layout(layout)
    _, dt = M.tri_indices_count("tril_indices", row, col, offset, dtype)
    r, c = np.tril_indices(int(row), int(offset), int(col))
    return from_array(np.stack([r, c]).astype(dt.np).reshape(2, -1), dt)


def triu_indices(row, col, offset, dtype, layout, device, pin_memory):
    check_layout(layout)
    _, dt = M.tri_indices_count("triu_indices", row, col, offset, dtype)
    r, c = np.triu_indices(int(row), int(offset), int(col))
    return from_array(np.stack([r, c]).astype(dt.np).reshape(2, -1), dt)


# --------------------------------------------------------------------------- window functions
class _InDtype:
    """Elementwise steps the way torch's in-place ops run them: computed in the dtype's
    opmath type (float32 for float16/bfloat16) and rounded to the dtype after each op."""

    def __init__(self, dt: D.dtype):
        self.np = dt.np
        self.op = _compute_dtype(dt)

    def __call__(self, fn, *xs):
        args = [x.astype(self.op) if isinstance(x, np.ndarray) else self.op(x) for x in xs]
        return np.asarray(fn(*args)).astype(self.np)


def _window(name, window_length, periodic, dtype, layout, body):
    """torch's window skeleton: empty for length 0, ones for 1, else body(n, R) on a
    window one longer when periodic, whose last value is dropped."""
    check_layout(layout)
    dt = M.window_checks(name, window_length, dtype)
    n = int(window_length)
    if n <= 1:
        return from_array(np.ones(n, dt.np), dt)
    n_full = n + 1 if periodic else n
    w = body(n_full, _InDtype(dt), np.arange(n_full).astype(dt.np))
    return from_array(np.ascontiguousarray(w[:n]), dt)


def _hamming(window_length, periodic, alpha, beta, dtype, layout, name="hamming_window"):
    def body(n, R, x):
        x = R(np.multiply, x, np.pi * 2.0 / (n - 1))
        x = R(np.cos, x)
        x = R(np.multiply, x, -beta)
        return R(np.add, x, alpha)
    return _window(name, window_length, periodic, dtype, layout, body)


def hann_window(window_length, dtype, layout, device, pin_memory):
    return _hamming(window_length, True, 0.5, 0.5, dtype, layout, "hann_window")


def hann_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    return _hamming(window_length, periodic, 0.5, 0.5, dtype, layout, "hann_window")


def hamming_window(window_length, dtype, layout, device, pin_memory):
    return _hamming(window_length, True, 0.54, 0.46, dtype, layout)


def hamming_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    return _hamming(window_length, periodic, 0.54, 0.46, dtype, layout)


def hamming_window_periodic_alpha(window_length, periodic, alpha, dtype, layout, device,
                                  pin_memory):
    return _hamming(window_length, periodic, alpha, 0.46, dtype, layout)


def hamming_window_periodic_alpha_beta(window_length, periodic, alpha, beta, dtype, layout,
                                       device, pin_memory):
    return _hamming(window_length, periodic, alpha, beta, dtype, layout)


def blackman_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    def body(n, R, x):
        x = R(np.multiply, x, np.pi / (n - 1))
        a = R(np.multiply, R(np.cos, R(np.multiply, x, 4)), 0.08)
        b = R(np.multiply, R(np.cos, R(np.multiply, x, 2)), 0.5)
        return R(np.add, R(np.subtract, a, b), 0.42)
    return _window("blackman_window", window_length, periodic, dtype, layout, body)


def blackman_window(window_length, dtype, layout, device, pin_memory):
    return blackman_window_periodic(window_length, True, dtype, layout, device, pin_memory)


def bartlett_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    """A triangle: 2n / (N - 1) rising, 2 - 2n / (N - 1) falling."""
    def body(n, R, x):
        x = R(np.multiply, x, 2.0 / (n - 1))
        half = ((n - 1) >> 1) + 1
        x[half:] = R(np.add, R(np.multiply, x[half:], -1), 2)
        return x
    return _window("bartlett_window", window_length, periodic, dtype, layout, body)


def bartlett_window(window_length, dtype, layout, device, pin_memory):
    return bartlett_window_periodic(window_length, True, dtype, layout, device, pin_memory)


def kaiser_window_beta(window_length, periodic, beta, dtype, layout, device, pin_memory):
    """I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2."""
    def body(n, R, x):
        alpha = (n - 1) / 2.0
        return R(lambda v, b, a: np.i0(b * np.sqrt(np.abs(1 - ((v - a) / a) ** 2))) / np.i0(b),
                 x, float(beta), alpha)
    return _window("kaiser_window", window_length, periodic, dtype, layout, body)


def kaiser_window(window_length, dtype, layout, device, pin_memory):
    return kaiser_window_beta(window_length, True, 12.0, dtype, layout, device, pin_memory)


def kaiser_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    return kaiser_window_beta(window_length, periodic, 12.0, dtype, layout, device, pin_memory)
