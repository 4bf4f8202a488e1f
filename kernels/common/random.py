"""Device-generic random kernels: the out= variants of the factories (torch's drop the
dtype/device arguments: the result takes out's), randint_like and native_dropout_backward.

    >>> out = ember.empty(0, dtype=ember.int32)
    >>> ember.ops.aten.randperm.out(4, out=out).dtype
    ember.int32
"""
from __future__ import annotations

from ember._generated import ops as _ops
from ember.core.outputs import copy_to_out
from ember.kernels.common.factories_like import _layout


def _into(out, result):
    return copy_to_out(result, out)


# --------------------------------------------------------------------------- factory out=
def rand_out(size, out):
    return rand_generator_out(size, None, out)


def rand_generator_out(size, generator, out):
    return _into(out, _ops._entry_rand_generator(size, generator, out._dtype, None,
                                                 out._device, None))


def randn_out(size, out):
    return randn_generator_out(size, None, out)


def randn_generator_out(size, generator, out):
    return _into(out, _ops._entry_randn_generator(size, generator, out._dtype, None,
                                                  out._device, None))


def linspace_out(start, end, steps, out):
    return _into(out, _ops._entry_linspace(start, end, steps, out._dtype, None, out._device,
                                           None))


def eye_out(n, out):
    return _into(out, _ops._entry_eye(n, out._dtype, None, out._device, None))


def eye_m_out(n, m, out):
    return _into(out, _ops._entry_eye_m(n, m, out._dtype, None, out._device, None))


def randint_out(high, size, out):
    return randint_low_generator_out(0, high, size, None, out)


def randint_generator_out(high, size, generator, out):
    return randint_low_generator_out(0, high, size, generator, out)


def randint_low_out(low, high, size, out):
    return randint_low_generator_out(low, high, size, None, out)


def randint_low_generator_out(low, high, size, generator, out):
    return _into(out, _ops._entry_randint_low_generator(low, high, size, generator, out._dtype,
                                                        None, out._device, None))


def randperm_out(n, out):
    return randperm_generator_out(n, None, out)


def randperm_generator_out(n, generator, out):
    return _into(out, _ops._entry_randperm_generator(n, generator, out._dtype, None,
                                                     out._device, None))


# --------------------------------------------------------------------------- randint_like
def _randint_like(self, low, high, generator, dtype, layout, device, memory_format):
    """empty_like(self, ...) filled by random_(low, high), like torch (high None: a meta
    `high` tensor, whose value is unknown: the layout only)."""
    shape, stride, _ = _layout(self, layout, memory_format)
    out = _ops._entry_empty_strided(shape, stride, dtype or self._dtype, None,
                                    device or self._device, None)
    if high is None:
        return out
    return _ops._entry_random__from(out, low, high, generator)


def _high_of(high):
    """randint_like.Tensor's high: a 0-dim CPU tensor (a meta one on Meta)."""
    if high.dim() != 0 or high._device.type not in ("cpu", "meta"):
        raise RuntimeError("high must be a scalar tensor and on CPU")
    return None if high._device.type == "meta" else int(high.item())


def randint_like(self, high, dtype, layout, device, pin_memory, memory_format):
    return _randint_like(self, 0, high, None, dtype, layout, device, memory_format)


def randint_like_generator(self, high, generator, dtype, layout, device, pin_memory,
                           memory_format):
    return _randint_like(self, 0, high, generator, dtype, layout, device, memory_format)


def randint_like_tensor(self, high, dtype, layout, device, pin_memory, memory_format):
    return _randint_like(self, 0, _high_of(high), None, dtype, layout, device, memory_format)


def randint_like_tensor_generator(self, high, generator, dtype, layout, device, pin_memory,
                                  memory_format):
    return _randint_like(self, 0, _high_of(high), generator, dtype, layout, device,
                         memory_format)


def randint_like_low_dtype(self, low, high, dtype, layout, device, pin_memory, memory_format):
    return _randint_like(self, low, high, None, dtype, layout, device, memory_format)


def randint_like_low_generator_dtype(self, low, high, generator, dtype, layout, device,
                                     pin_memory, memory_format):
    return _randint_like(self, low, high, generator, dtype, layout, device, memory_format)


# --------------------------------------------------------------------------- dropout
def native_dropout_backward(grad_output, mask, scale):
    """grad_output * mask * scale, with mul's type promotion and broadcasting (torch's)."""
    return _ops._entry_mul_Tensor(_ops._entry_mul_Tensor(grad_output, mask), scale)


# --------------------------------------------------------------------------- more out=
def empty_out(size, memory_format, out):
    if memory_format is not None:
        raise RuntimeError("'memory_format' argument is incompatible with 'out' tensor argument")
    return _into(out, _ops._entry_empty_memory_format(size, out._dtype, None, out._device, None,
                                                      None))


def zeros_out(size, out):
    return _into(out, _ops._entry_zeros(size, out._dtype, None, out._device, None))


def ones_out(size, out):
    return _into(out, _ops._entry_ones(size, out._dtype, None, out._device, None))


def full_out(size, fill_value, out):
    return _into(out, _ops._entry_full(size, fill_value, out._dtype, None, out._device, None))


def scalar_tensor_out(s, out):
    return _into(out, _ops._entry_scalar_tensor(s, out._dtype, None, out._device, None))


def arange_out(end, out):
    return arange_start_out(0, end, 1, out)


def arange_start_out(start, end, step, out):
    return _into(out, _ops._entry_arange_start_step(start, end, step, out._dtype, None,
                                                    out._device, None))


# torch's generated out= of the *_like / new_* factories compute in out's dtype; those of
# the other ops (bernoulli, fill, zero, copy, clone, poisson) need out's dtype to be the
# result's
def _into_same_dtype(out, result):
    if out._dtype is not result._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_cpp_name(result._dtype)}, but "
                           f"got {_cpp_name(out._dtype)} instead")
    return copy_to_out(result, out)


def _cpp_name(dt) -> str:
    from ember.kernels.meta.random import _TYPE_NAMES
    return _TYPE_NAMES[dt.name]


def empty_like_out(self, memory_format, out):
    return _into(out, _ops._entry_empty_like(self, out._dtype, None, out._device, None,
                                             memory_format))


def zeros_like_out(self, memory_format, out):
    return _into(out, _ops._entry_zeros_like(self, out._dtype, None, out._device, None,
                                             memory_format))


def ones_like_out(self, memory_format, out):
    return _into(out, _ops._entry_ones_like(self, out._dtype, None, out._device, None,
                                            memory_format))


def full_like_out(self, fill_value, memory_format, out):
    return _into(out, _ops._entry_full_like(self, fill_value, out._dtype, None, out._device,
                                            None, memory_format))


def rand_like_out(self, memory_format, out):
    return rand_like_generator_out(self, None, memory_format, out)


def rand_like_generator_out(self, generator, memory_format, out):
    return _into(out, _ops._entry_rand_like_generator(
        self, generator, out._dtype, None, out._device, None, memory_format))


def randn_like_out(self, memory_format, out):
    return randn_like_generator_out(self, None, memory_format, out)


def randn_like_generator_out(self, generator, memory_format, out):
    return _into(out, _ops._entry_randn_like_generator(
        self, generator, out._dtype, None, out._device, None, memory_format))


def randint_like_out(self, high, memory_format, out):
    return randint_like_low_generator_dtype_out(self, 0, high, None, memory_format, out)


def randint_like_generator_out(self, high, generator, memory_format, out):
    return randint_like_low_generator_dtype_out(self, 0, high, generator, memory_format, out)


def randint_like_tensor_out(self, high, memory_format, out):
    return randint_like_tensor_generator_out(self, high, None, memory_format, out)


def randint_like_tensor_generator_out(self, high, generator, memory_format, out):
    return _into(out, _ops._entry_randint_like_Tensor_generator(
        self, high, generator, out._dtype, None, out._device, None, memory_format))


def randint_like_low_dtype_out(self, low, high, memory_format, out):
    return randint_like_low_generator_dtype_out(self, low, high, None, memory_format, out)


def randint_like_low_generator_dtype_out(self, low, high, generator, memory_format, out):
    return _into(out, _ops._entry_randint_like_low_generator_dtype(
        self, low, high, generator, out._dtype, None, out._device, None, memory_format))


def bernoulli_float_out(self, p, generator, out):
    return _into_same_dtype(out, _ops._entry_bernoulli_p(self, p, generator))


def normal_float_float_out(mean, std, size, generator, out):
    return _into(out, _ops._entry_normal_float_float(mean, std, size, generator, out._dtype, None,
                                                     out._device, None))


def normal_tensor_float_out(mean, std, generator, out):
    """torch's: out keeps its shape, normal_(0, std) then `+= mean` (broadcast into out)."""
    _ops._entry_normal_(out, 0.0, std, generator)
    return _ops._entry_add__Tensor(out, mean, 1)


# --------------------------------------------------------------------------- more factories
def logspace_out(start, end, steps, base, out):
    return _into(out, _ops._entry_logspace(start, end, steps, base, out._dtype, None, out._device,
                                           None))


def empty_permuted_out(size, physical_layout, out):
    return _into(out, _ops._entry_empty_permuted(size, physical_layout, out._dtype, None,
                                                 out._device, None))


def tril_indices_out(row, col, offset, out):
    return _into(out, _ops._entry_tril_indices(row, col, offset, out._dtype, None, out._device,
                                               None))


def triu_indices_out(row, col, offset, out):
    return _into(out, _ops._entry_triu_indices(row, col, offset, out._dtype, None, out._device,
                                               None))


def empty_strided_out(size, stride, out):
    return _into(out, _ops._entry_empty_strided(size, stride, out._dtype, None, out._device,
                                                None))


def new_empty_out(self, size, out):
    return _into(out, _ops._entry_new_empty(self, size, out._dtype, None, out._device, None))


def new_empty_strided_out(self, size, stride, out):
    return _into(out, _ops._entry_new_empty_strided(self, size, stride, out._dtype, None,
                                                    out._device, None))


def new_full_out(self, size, fill_value, out):
    return _into(out, _ops._entry_new_full(self, size, fill_value, out._dtype, None, out._device,
                                           None))


def new_zeros_out(self, size, out):
    return _into(out, _ops._entry_new_zeros(self, size, out._dtype, None, out._device, None))


def new_ones_out(self, size, out):
    return _into(out, _ops._entry_new_ones(self, size, out._dtype, None, out._device, None))


# --------------------------------------------------------------------------- copy, fill, zero
def copy(self, src, non_blocking):
    """A new tensor laid out like self (its strides kept unless it overlaps itself), holding
    src broadcast to self's shape and cast to self's dtype."""
    overlapping = any(st == 0 and n > 1 for n, st in zip(self._shape, self.stride()))
    if overlapping:
        r = _ops._entry_empty_like(self, None, None, None, None, None)
    else:
        r = _ops._entry_empty_strided(self._shape, self.stride(), self._dtype, None, self._device,
                                      None)
    return _ops._entry_copy_(r, src, non_blocking)


def fill_scalar(self, value):
    return _ops._entry_fill__Scalar(_ops._entry_empty_like(self, None, None, None, None, None),
                                    value)


def fill_tensor(self, value):
    return _ops._entry_fill__Tensor(_ops._entry_empty_like(self, None, None, None, None, None),
                                    value)


def zero(self):
    return _ops._entry_zero_(_ops._entry_empty_like(self, None, None, None, None, None))


# --------------------------------------------------------------------------- same-dtype out=
def copy_out(self, src, non_blocking, out):
    return _into_same_dtype(out, copy(self, src, non_blocking))


def fill_scalar_out(self, value, out):
    return _into_same_dtype(out, fill_scalar(self, value))


def fill_tensor_out(self, value, out):
    return _into_same_dtype(out, fill_tensor(self, value))


def zero_out(self, out):
    return _into_same_dtype(out, zero(self))


def clone_out(self, memory_format, out):
    return _into_same_dtype(out, _ops._entry_clone(self, memory_format))


def poisson_out(self, generator, out):
    return _into_same_dtype(out, _ops._entry_poisson(self, generator))


def bernoulli_out(self, generator, out):
    return _into_same_dtype(out, _ops._entry_bernoulli(self, generator))


def bernoulli_tensor_out(self, p, generator, out):
    return _into_same_dtype(out, _ops._entry_bernoulli_Tensor(self, p, generator))


def multinomial_out(self, num_samples, replacement, generator, out):
    if out._dtype.name != "int64":
        raise RuntimeError(f"multinomial expects Long tensor out, got: {out._dtype.scalar_name}")
    return _into(out, _ops._entry_multinomial(self, num_samples, replacement, generator))


# --------------------------------------------------------------------------- functional samplers
def _sampled(inplace, self, *args):
    """torch's generated functional of an in-place sampler: clone(self), then the op."""
    return getattr(_ops, f"_entry_{inplace}")(_ops._entry_clone(self, None), *args)


def uniform_sampled(self, from_, to, generator):
    return _sampled("uniform_", self, from_, to, generator)


def uniform_out_sampled(self, from_, to, generator, out):
    return _into_same_dtype(out, uniform_sampled(self, from_, to, generator))


def exponential_sampled(self, lambd, generator):
    return _sampled("exponential_", self, lambd, generator)


def exponential_out_sampled(self, lambd, generator, out):
    return _into_same_dtype(out, exponential_sampled(self, lambd, generator))


def geometric_sampled(self, p, generator):
    return _sampled("geometric_", self, p, generator)


def geometric_out_sampled(self, p, generator, out):
    return _into_same_dtype(out, geometric_sampled(self, p, generator))


def log_normal_sampled(self, mean, std, generator):
    return _sampled("log_normal_", self, mean, std, generator)


def log_normal_out_sampled(self, mean, std, generator, out):
    return _into_same_dtype(out, log_normal_sampled(self, mean, std, generator))


def cauchy_sampled(self, median, sigma, generator):
    return _sampled("cauchy_", self, median, sigma, generator)


def cauchy_out_sampled(self, median, sigma, generator, out):
    return _into_same_dtype(out, cauchy_sampled(self, median, sigma, generator))


def random_from_sampled(self, from_, to, generator):
    return _sampled("random__from", self, from_, to, generator)


def random_from_out_sampled(self, from_, to, generator, out):
    return _into_same_dtype(out, random_from_sampled(self, from_, to, generator))


def random_to_sampled(self, to, generator):
    return _sampled("random__to", self, to, generator)


def random_to_out_sampled(self, to, generator, out):
    return _into_same_dtype(out, random_to_sampled(self, to, generator))


def random_sampled(self, generator):
    return _sampled("random_", self, generator)


def random_out_sampled(self, generator, out):
    return _into_same_dtype(out, random_sampled(self, generator))


def normal_functional_sampled(self, mean, std, generator):
    return _sampled("normal_", self, mean, std, generator)
