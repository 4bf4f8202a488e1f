"""Random ops and range factories on Meta: torch's argument checks and the result layouts.

The CPU kernels (kernels/cpu/random.py) call the checks here before drawing numbers, so
both devices raise the same errors for the same arguments.

    >>> ember.randint(3, 10, (2, 3), device="meta").dtype
    ember.int64
    >>> ember.eye(2, 3, device="meta").stride()
    (3, 1)
"""
from __future__ import annotations

import math
import warnings

import ml_dtypes
import numpy as np

from ember.core import dtype as D
from ember.core.alloc import empty_meta
from ember.core.factory_args import (
    check_layout,
    check_size,
    checked_scalar,
    factory_dtype,
    like_strides,
    scalar_value,
)
from ember.core.sym import is_symint
from ember.kernels.common._errors import not_implemented_for

# torch's TypeMeta names, used in its "is out of bounds for <type>" messages
_TYPE_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
               "int16": "short int", "int32": "int", "int64": "long int",
               "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
               "float64": "double"}
# std::numeric_limits<T>::digits of the floating types
DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _limits(dt: D.dtype) -> tuple:
    """(lowest, max) of a dtype as Python numbers."""
    if dt is D.bool_:
        return 0, 1
    if dt.category == D.INT:
        info = np.iinfo(dt.np)
        return int(info.min), int(info.max)
    if dt is D.bfloat16:
        m = float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    else:
        m = float(np.finfo(dt.np).max)
    return -m, m


def _int_dtype(dtype) -> D.dtype:
    """randint / randperm: dtype None means int64 (torch's `dtype=long` default)."""
    return D.int64 if dtype is None else factory_dtype(dtype)


def _generator(generator) -> None:
    if generator is not None and getattr(generator, "device", None) is not None \
            and generator.device.type != "cpu":
        raise RuntimeError(f"Expected a 'cpu' device type for generator but found "
                           f"'{generator.device.type}'")


# --------------------------------------------------------------------------- linspace, eye
def linspace_params(start, end, steps, dtype, name="linspace") -> tuple:
    """(steps, dtype) after torch's checks for `name` (linspace, logspace); the default
    dtype is the float one."""
    scalar_value(start)
    scalar_value(end)
    steps = _size_arg(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = factory_dtype(dtype)
    if dt is D.bool_:
        raise not_implemented_for(f"{name}_cpu", dt)
    return steps, dt


def linspace(start, end, steps, dtype, layout, device, pin_memory):
    check_layout(layout)
    steps, dt = linspace_params(start, end, steps, dtype)
    return empty_meta((steps,), dt)


def _size_arg(n):
    """A size argument as an int, a SymInt kept (a dynamic-shape trace: `eye(x.shape[0])`;
    its sign check below is a guard)."""
    return n if is_symint(n) else int(n)


def eye_params(n, m, dtype) -> tuple:
    n = _size_arg(n)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    m = n if m is None else _size_arg(m)
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return n, m, factory_dtype(dtype)


def eye(n, dtype, layout, device, pin_memory):
    return eye_m(n, None, dtype, layout, device, pin_memory)


def eye_m(n, m, dtype, layout, device, pin_memory):
    check_layout(layout)
    n, m, dt = eye_params(n, m, dtype)
    return empty_meta((n, m), dt)


# --------------------------------------------------------------------------- rand, randn
def rand(size, dtype, layout, device, pin_memory):
    return rand_generator(size, None, dtype, layout, device, pin_memory)


def rand_generator(size, generator, dtype, layout, device, pin_memory):
    check_layout(layout)
    _generator(generator)
    return empty_meta(check_size(size, "rand"), factory_dtype(dtype))


def randn(size, dtype, layout, device, pin_memory):
    return randn_generator(size, None, dtype, layout, device, pin_memory)


def randn_generator(size, generator, dtype, layout, device, pin_memory):
    """Unlike rand, torch's Meta randn checks the dtype."""
    check_layout(layout)
    _generator(generator)
    dt = factory_dtype(dtype)
    if not dt.is_floating_point:
        raise RuntimeError(f"expected a floating-point or complex dtype, but got dtype={dt!r}")
    return empty_meta(check_size(size, "randn"), dt)


# --------------------------------------------------------------------------- random_ bounds
def _as_int64(x: float) -> int:
    """C++'s static_cast<int64_t> of a double on x86: out of range (inf) gives INT64_MIN."""
    return int(x) if math.isfinite(x) and -(2.0 ** 63) <= x < 2.0 ** 63 else -(1 << 63)


def _through(v: int, dt: D.dtype) -> int:
    """static_cast<int64_t>(static_cast<scalar_t>(v)) for a floating dtype."""
    with np.errstate(over="ignore"):
        return _as_int64(float(np.array(float(v)).astype(dt.np).astype(np.float64)))


def _update_from(frm: int, dt: D.dtype) -> int:
    """torch's update_from: the smallest integer >= from that the float type holds."""
    from_plus_1 = _through(frm + 1, dt)
    if from_plus_1 < frm:
        n = max(abs(frm + 1).bit_length() - 1, 0)
        frm = from_plus_1 + (1 << (n - DIGITS[dt.name] + 1))
    return frm


def _update_to(to: int, dt: D.dtype) -> int:
    to_minus_1 = _through(to - 1, dt)
    if to_minus_1 >= to:
        n = max(abs(to - 1).bit_length() - 1, 0)
        to = to_minus_1 - (1 << (n - DIGITS[dt.name] + 1))
    return to


def _check_in_range(frm: int, to_inc: int, dt: D.dtype) -> None:
    """torch's check_from_to_in_range (with its precision warning for floating types)."""
    lo, hi = _limits(dt)
    name = _TYPE_NAMES[dt.name]
    if not lo <= frm <= hi:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not lo <= to_inc <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")
    if dt.category == D.FLOAT:
        digits = DIGITS[dt.name]
        for v, what in ((frm, "from"), (to_inc, "to - 1")):
            if v < -(1 << digits) or v > (1 << digits):
                scalar = {"float16": "c10::Half", "bfloat16": "c10::BFloat16"}.get(dt.name, name)
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to "
                              f"precision limitations {scalar} can support discrete uniform "
                              "distribution only within this range. This warning will become "
                              "an error in version 1.7 release, please fix the code in advance",
                              UserWarning, stacklevel=4)


def random_range(dt: D.dtype, frm=None, to=None) -> tuple | None:
    """[low, high] (inclusive) of random_ / random_(from, to) for `dt`, after torch's checks;
    None for random_(-2**63, None) (the full 64-bit range). frm None: plain random_()."""
    if frm is None:  # random_(): [0, 2^digits] for floats, [0, max] for integers
        if dt.category == D.FLOAT:
            return 0, 1 << DIGITS[dt.name]
        return 0, _limits(dt)[1]
    frm = int(frm)
    if to is not None:
        to = int(to)
        if not frm < to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={frm} >= to={to}")
        if dt.category == D.FLOAT:
            frm, to = _update_from(frm, dt), _update_to(to, dt)
            if not frm < to:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than 'to'"
                                   f" casted to dtype, but got from={frm} >= to={to}")
        _check_in_range(frm, to - 1, dt)
        return frm, to - 1
    if frm == -(1 << 63):
        return None
    if dt.category == D.FLOAT:
        to_inc = min(1 << DIGITS[dt.name], (1 << 63) - 1)
        frm = _update_from(frm, dt)
        if not frm < to_inc:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal "
                               f"to 'to_inc' casted to dtype, but got from={frm} > to_inc={to_inc}")
    else:
        to_inc = _limits(dt)[1]
    _check_in_range(frm, to_inc, dt)
    return frm, to_inc


def random_(self, generator):
    _generator(generator)
    return self


def check_full_range(self) -> None:
    """random_(-2**63, None) draws 64 random bits: int64, double, float and bfloat16 only."""
    dt = self._dtype
    if self.numel() == 0 or dt in (D.int64, D.float64, D.float32, D.bfloat16):
        return
    if dt is D.bool_ or dt is D.float16:
        raise not_implemented_for("random_full_64_bits_range_kernel_cpu", dt)
    raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float "
                       "and bfloat16")


def random_from(self, frm, to, generator):
    _generator(generator)
    if random_range(self._dtype, frm, to) is None:
        check_full_range(self)
    return self


def random_to(self, to, generator):
    return random_from(self, 0, to, generator)


# --------------------------------------------------------------------------- randint, randperm
def randint(high, size, dtype, layout, device, pin_memory):
    return randint_low_generator(0, high, size, None, dtype, layout, device, pin_memory)


def randint_generator(high, size, generator, dtype, layout, device, pin_memory):
    return randint_low_generator(0, high, size, generator, dtype, layout, device, pin_memory)


def randint_low(low, high, size, dtype, layout, device, pin_memory):
    return randint_low_generator(low, high, size, None, dtype, layout, device, pin_memory)


def randint_params(low, high, size, generator, dtype, layout) -> tuple:
    """(shape, dtype, (low, high_inclusive)) of randint after torch's checks."""
    check_layout(layout)
    _generator(generator)
    shape = check_size(size, "randint")
    dt = _int_dtype(dtype)
    return shape, dt, random_range(dt, low, high)


def randint_low_generator(low, high, size, generator, dtype, layout, device, pin_memory):
    shape, dt, _ = randint_params(low, high, size, generator, dtype, layout)
    return empty_meta(shape, dt)


def randperm_params(n, generator, dtype, layout) -> tuple:
    check_layout(layout)
    _generator(generator)
    n = int(n)
    shape = check_size((n,), "randperm")
    dt = _int_dtype(dtype)
    checked_scalar(n - 1 if n > 0 else n, dt)
    limit = {"float16": ((1 << 11) + 1, "2049"), "float32": ((1 << 24) + 1, "2^24+1"),
             "float64": ((1 << 53) + 1, "2^53+1")}.get(dt.name)
    if limit is not None and n > limit[0]:
        scalar = {"float16": "Half", "float32": "Float", "float64": "Double"}[dt.name]
        raise RuntimeError(f"n cannot be greater than {limit[1]} for {scalar} type.")
    if dt is D.bool_:
        raise not_implemented_for("randperm", dt)
    return shape, dt


def randperm(n, dtype, layout, device, pin_memory):
    return randperm_generator(n, None, dtype, layout, device, pin_memory)


def randperm_generator(n, generator, dtype, layout, device, pin_memory):
    shape, dt = randperm_params(n, generator, dtype, layout)
    return empty_meta(shape, dt)


# --------------------------------------------------------------------------- in-place sampling
def _floating_only(self, kernel) -> None:
    if self._dtype.category != D.FLOAT:
        raise not_implemented_for(kernel, self._dtype)


def uniform_bounds(self, frm, to) -> tuple:
    """torch's check_uniform_bounds: (from, to) clamped to the dtype's range."""
    _floating_only(self, "check_uniform_bounds")
    dt = self._dtype
    frm, to = float(frm), float(to)
    lo, hi = _limits(dt)
    name = _TYPE_NAMES[dt.name]
    if not lo <= frm <= hi:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not lo <= to <= hi:
        raise RuntimeError(f"to is out of bounds for {name}")
    if not frm <= to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_fmt(frm)} > to={_fmt(to)}")
    if not to - frm <= hi:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{dt.scalar_name}>"
                           f"::max(), but found to={_fmt(to)} and from={_fmt(frm)} which result "
                           "in to-from to exceed the limit")
    return frm, to


def _fmt(x: float) -> str:
    """A double the way torch's messages print it (2 rather than 2.0)."""
    return str(int(x)) if math.isfinite(x) and x.is_integer() else f"{x:g}"


def uniform_(self, frm, to, generator):
    _generator(generator)
    uniform_bounds(self, frm, to)
    return self


def normal_checks(self, mean, std) -> None:
    if not float(std) >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")
    if self.numel() and self._dtype.category != D.FLOAT:
        raise not_implemented_for("normal_kernel_cpu", self._dtype)


def normal_(self, mean, std, generator):
    _generator(generator)
    normal_checks(self, mean, std)
    return self


def exponential_checks(self, lambd) -> None:
    lambd = float(lambd)
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    if self.numel() and self._dtype.category != D.FLOAT:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{self._dtype.scalar_name}")


def exponential_(self, lambd, generator):
    _generator(generator)
    exponential_checks(self, lambd)
    return self


# --------------------------------------------------------------------------- bernoulli
def check_p(p) -> float:
    p = float(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    return p


def check_p_tensor(self_shape, p) -> None:
    """p broadcasts to self's shape (torch's expand_inplace) and is floating."""
    if p._dtype.category != D.FLOAT:
        raise not_implemented_for("bernoulli_tensor_cpu_p_", p._dtype)
    ps, ss = tuple(p._shape), tuple(self_shape)
    if len(ps) > len(ss):
        raise RuntimeError(f"expand(ember.{p._dtype.scalar_name}Tensor{{{list(ps)}}}, "
                           f"size={list(ss)}): "
                           f"the number of sizes provided ({len(ss)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({len(ps)})")
    for i in range(1, len(ps) + 1):
        if ps[-i] != ss[-i] and ps[-i] != 1:
            raise RuntimeError(f"The expanded size of the tensor ({ss[-i]}) must match the "
                               f"existing size ({ps[-i]}) at non-singleton dimension "
                               f"{len(ss) - i}.  Target sizes: {list(ss)}.  Tensor sizes: "
                               f"{list(ps)}")


def _bernoulli_result(self):
    """bernoulli's result: empty_like(self) in the legacy contiguous format."""
    return empty_meta(self._shape, self._dtype)


def bernoulli(self, generator):
    _generator(generator)
    check_p_tensor(self._shape, self)
    return _bernoulli_result(self)


def bernoulli_p(self, p, generator):
    _generator(generator)
    check_p(p)
    return _bernoulli_result(self)


def bernoulli_tensor(self, p, generator):
    _generator(generator)
    check_p_tensor(self._shape, p)
    return empty_meta(self._shape, self._dtype, like_strides(self._shape, self.stride(), None))


def bernoulli__tensor(self, p, generator):
    _generator(generator)
    check_p_tensor(self._shape, p)
    return self


def bernoulli__float(self, p, generator):
    _generator(generator)
    check_p(p)
    return self


# --------------------------------------------------------------------------- dropout
def native_dropout_layout(input, p, train) -> tuple:
    """(training?, output strides); ints and bools cannot hold the scaled training result
    (complex can: torch's native_dropout scales them)."""
    training = train is None or bool(train)
    stride = like_strides(input._shape, input.stride(), None)
    if training and input.numel() and not (input._dtype.category == D.FLOAT
                                           or input._dtype.is_complex):
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input._dtype.scalar_name}")
    return training, stride


def native_dropout(input, p, train):
    _, stride = native_dropout_layout(input, p, train)
    if input.numel() == 0:  # torch: (input, empty_like(input))
        return empty_meta(input._shape, input._dtype, stride), \
            empty_meta(input._shape, input._dtype, stride)
    return empty_meta(input._shape, input._dtype, stride), \
        empty_meta(input._shape, D.bool_, stride)


def normal_float_float(mean, std, size, generator, dtype, layout, device, pin_memory):
    """torch's Meta normal checks the dtype like randn (its CPU kernel raises later)."""
    check_layout(layout)
    _generator(generator)
    if not float(std) >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")
    dt = factory_dtype(dtype)
    if not dt.is_floating_point:
        raise RuntimeError(f"expected a floating-point or complex dtype, but got dtype={dt!r}")
    return empty_meta(check_size(size, "normal"), dt)


# --------------------------------------------------------------------------- normal(Tensor ...)
def normal_tensor_layout(mean, std) -> tuple:
    """(shape, dtype) of normal with tensor mean and/or std: the broadcast shape, mean's
    dtype (std's without a mean tensor); floating only; a fresh contiguous result."""
    from ember.core.shapes import broadcast_shapes
    ref = mean if hasattr(mean, "_dtype") else std
    shape = broadcast_shapes(*(t._shape for t in (mean, std) if hasattr(t, "_dtype")))
    if ref._dtype.category != D.FLOAT:
        raise not_implemented_for("normal_kernel_cpu", ref._dtype)
    return shape, ref._dtype


def normal_tensor_float(mean, std, generator):
    _generator(generator)
    if not float(std) >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")
    return empty_meta(*normal_tensor_layout(mean, None))


def normal_float_tensor(mean, std, generator):
    _generator(generator)
    return empty_meta(*normal_tensor_layout(None, std))


def normal_tensor_tensor(mean, std, generator):
    _generator(generator)
    return empty_meta(*normal_tensor_layout(mean, std))


# --------------------------------------------------------------------------- more samplers
def log_normal_checks(self, mean, std) -> None:
    if not float(std) > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(float(std))}")
    if self.numel() and self._dtype.category != D.FLOAT:
        raise not_implemented_for("log_normal_cpu", self._dtype)


def log_normal_(self, mean, std, generator):
    _generator(generator)
    log_normal_checks(self, mean, std)
    return self


def cauchy_checks(self, median, sigma) -> None:
    if not float(sigma) > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(float(sigma))}")
    if self._dtype.category != D.FLOAT:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype "
                           f"must be a floating point but you specified {_TYPE_NAMES[self._dtype.name]}")


def cauchy_(self, median, sigma, generator):
    _generator(generator)
    cauchy_checks(self, median, sigma)
    return self


def geometric_checks(self, p) -> None:
    if not 0 < float(p) < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={float(p):g}")
    if self.numel() and self._dtype is D.bool_:
        raise not_implemented_for("geometric_cpu", self._dtype)


def geometric_(self, p, generator):
    _generator(generator)
    geometric_checks(self, p)
    return self


def multinomial_shape(self, num_samples, replacement) -> tuple:
    """torch's argument checks (not those on the values) and the result's shape."""
    if not 1 <= self.dim() <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if self._dtype.category != D.FLOAT:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{self._dtype.scalar_name}")
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and n > self._shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if self._shape[-1] > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    return (n,) if self.dim() == 1 else (self._shape[0], n)


def multinomial(self, num_samples, replacement, generator):
    _generator(generator)
    return empty_meta(multinomial_shape(self, num_samples, replacement), D.int64)


def poisson(self, generator):
    _generator(generator)
    if self._dtype.category != D.FLOAT:
        raise not_implemented_for("poisson_cpu", self._dtype)
    return empty_meta(self._shape, self._dtype)


# --------------------------------------------------------------------------- more factories
def logspace(start, end, steps, base, dtype, layout, device, pin_memory):
    check_layout(layout)
    steps, dt = linspace_params(start, end, steps, dtype, "logspace")
    return empty_meta((steps,), dt)


def permuted_strides(size, physical_layout) -> tuple:
    """(shape, strides) of empty_permuted: dims laid out in memory in physical_layout order."""
    shape = check_size(size, "empty_permuted")
    order = [int(d) for d in physical_layout]
    if len(order) != len(shape):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(shape)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    seen = set()
    for i, d in enumerate(order):
        if not 0 <= d < len(shape):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(shape) - 1}, but got {d} at index {i}).  NB: negative dims "
                               "not currently supported; file an issue if you want it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    stride = [0] * len(shape)
    acc = 1
    for d in reversed(order):
        stride[d] = acc
        acc *= max(shape[d], 1)
    return shape, tuple(stride)


def empty_permuted(size, physical_layout, dtype, layout, device, pin_memory):
    check_layout(layout)
    shape, stride = permuted_strides(size, physical_layout)
    return empty_meta(shape, factory_dtype(dtype), stride)


def tri_indices_count(name, row, col, offset, dtype) -> tuple:
    """(number of indices, dtype) of tril_indices / triu_indices after torch's checks."""
    row, col, offset = int(row), int(col), int(offset)
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dt = _int_dtype(dtype)
    if dt not in (D.int32, D.int64):
        raise not_implemented_for(name, dt)
    j = np.arange(row)[:, None]
    k = np.arange(col)[None, :]
    mask = (k - j <= offset) if name == "tril_indices" else (k - j >= offset)
    return int(mask.sum()) if row and col else 0, dt


def tril_indices(row, col, offset, dtype, layout, device, pin_memory):
    check_layout(layout)
    n, dt = tri_indices_count("tril_indices", row, col, offset, dtype)
    return empty_meta((2, n), dt)


def triu_indices(row, col, offset, dtype, layout, device, pin_memory):
    check_layout(layout)
    n, dt = tri_indices_count("triu_indices", row, col, offset, dtype)
    return empty_meta((2, n), dt)


# --------------------------------------------------------------------------- window functions
def window_checks(name, window_length, dtype) -> D.dtype:
    """torch's window_function_checks: a floating dtype, a non-negative length."""
    dt = factory_dtype(dtype)
    if dt.category != D.FLOAT:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{_TYPE_NAMES[dt.name]}, device=cpu (default), layout=Strided (default), "
                           "requires_grad=false (default), pinned_memory=false (default), "
                           "memory_format=(nullopt))")
    if int(window_length) < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={int(window_length)}")
    return dt


def _window_meta(name, window_length, dtype, layout):
    check_layout(layout)
    return empty_meta((int(window_length),), window_checks(name, window_length, dtype))


def hann_window(window_length, dtype, layout, device, pin_memory):
    return _window_meta("hann_window", window_length, dtype, layout)


def hann_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    return _window_meta("hann_window", window_length, dtype, layout)


def hamming_window(window_length, dtype, layout, device, pin_memory):
    return _window_meta("hamming_window", window_length, dtype, layout)


def hamming_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    return _window_meta("hamming_window", window_length, dtype, layout)


def hamming_window_periodic_alpha(window_length, periodic, alpha, dtype, layout, device,
                                  pin_memory):
    return _window_meta("hamming_window", window_length, dtype, layout)


def hamming_window_periodic_alpha_beta(window_length, periodic, alpha, beta, dtype, layout,
                                       device, pin_memory):
    return _window_meta("hamming_window", window_length, dtype, layout)


def blackman_window(window_length, dtype, layout, device, pin_memory):
    return _window_meta("blackman_window", window_length, dtype, layout)


def blackman_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    return _window_meta("blackman_window", window_length, dtype, layout)


def bartlett_window(window_length, dtype, layout, device, pin_memory):
    return _window_meta("bartlett_window", window_length, dtype, layout)


def bartlett_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    return _window_meta("bartlett_window", window_length, dtype, layout)


def kaiser_window(window_length, dtype, layout, device, pin_memory):
    return _window_meta("kaiser_window", window_length, dtype, layout)


def kaiser_window_periodic(window_length, periodic, dtype, layout, device, pin_memory):
    return _window_meta("kaiser_window", window_length, dtype, layout)


def kaiser_window_beta(window_length, periodic, beta, dtype, layout, device, pin_memory):
    return _window_meta("kaiser_window", window_length, dtype, layout)
