"""gradcheck / gradgradcheck: analytical gradients against central finite differences.

    >>> x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    >>> ember.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
    True

The numerical Jacobian perturbs each element of each input that requires grad by
±eps (in float64, in place, bypassing the version counter) and takes
(f(x+eps) - f(x-eps)) / 2eps. The analytical one runs `autograd.grad` once per
output element with a one-hot grad_output (a vector-Jacobian product per row).
A mismatch raises GradcheckError naming the output and input (or returns False with
raise_exception=False); it never passes silently.

Complex tensors count as pairs of real coordinates (real, imag), as torch's slow mode:
the numerical side perturbs the real and the imaginary part of each input element; the
analytical side runs one grad_output of 1 and one of 1j per complex output element, and
reads each gradient in torch's convention (dL/dx + i dL/dy for a complex input).
"""
from __future__ import annotations

import warnings

import numpy as np

import ember

from .engine import grad as autograd_grad
from .grad_mode import enable_grad


class GradcheckError(RuntimeError):
    """A gradient check failed."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _diff_outputs(func, inputs):
    outs = _as_tuple(func(*inputs))
    return [o for o in outs if isinstance(o, ember.Tensor) and o.requires_grad]


def _real_coords(t) -> np.ndarray:
    """A tensor's values as float64 real coordinates, flattened: (real, imag) pairs for a
    complex tensor."""
    a = np.ascontiguousarray(t.detach().resolve_conj().numpy())
    if a.dtype.kind == "c":
        return a.astype(np.complex128).reshape(-1).view(np.float64)
    return a.astype(np.float64).ravel()


def _numerical_columns(outputs_of, inputs, i, eps):
    """For each real coordinate of input i: the central difference of every output's real
    coordinates (the coordinate is perturbed in place, bypassing the version counter, then
    restored)."""
    arr = inputs[i]._np
    parts = (arr.real, arr.imag) if arr.dtype.kind == "c" else (arr,)
    for pos in (np.ndindex(*arr.shape) if arr.ndim else [()]):
        for part in parts:
            orig = part[pos].copy()
            part[pos] = orig + eps
            plus = [_real_coords(o) for o in outputs_of(inputs)]
            part[pos] = orig - eps
            minus = [_real_coords(o) for o in outputs_of(inputs)]
            part[pos] = orig
            yield [(p - m) / (2 * eps) for p, m in zip(plus, minus)]


def _numerical_jacobians(func, inputs, wrt, n_out, eps):
    """One (out_numel, in_numel) array per (output, input that requires grad)."""
    def outputs_of(args):
        with enable_grad():      # the same outputs as the analytical side differentiates
            return _diff_outputs(func, args)
    jac = {}
    for i in wrt:
        cols = list(_numerical_columns(outputs_of, inputs, i, eps))
        for k in range(n_out):
            jac[k, i] = np.stack([c[k] for c in cols], axis=1) if cols else np.zeros((0, 0))
    return jac


def _check_constant(func, inputs, wrt, eps, atol) -> bool:
    """No output requires grad (torch's rule): the numerical gradient must then be zero."""
    def outputs_of(args):
        return [o for o in _as_tuple(func(*args))
                if isinstance(o, ember.Tensor) and (o.is_floating_point() or o.is_complex())]
    for i in wrt:
        for col in _numerical_columns(outputs_of, inputs, i, eps):
            if not all(np.allclose(c, 0, atol=atol) for c in col):
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _analytical_jacobians(outputs, inputs, wrt):
    jac = {}
    for k, out in enumerate(outputs):
        rows = {i: [] for i in wrt}
        units = (1, 1j) if out.is_complex() else (1,)
        for m, unit in ((m, u) for m in range(out.numel()) for u in units):
            onehot = ember.zeros_like(out, memory_format=ember.contiguous_format)
            onehot.view(-1)[m] = unit
            grads = autograd_grad(out, [inputs[i] for i in wrt], onehot, retain_graph=True,
                                  allow_unused=True)
            for i, g in zip(wrt, grads):
                x = inputs[i]
                if g is None:
                    rows[i].append(np.zeros(x.numel() * (2 if x.is_complex() else 1)))
                    continue
                if g.shape != x.shape:
                    raise GradcheckError(f"Gradient has shape mismatch for input {i}: got "
                                         f"{tuple(g.shape)}, expected {tuple(x.shape)}")
                if g.dtype != x.dtype:
                    raise GradcheckError(f"Gradient has dtype mismatch for input {i}: got "
                                         f"{g.dtype}, expected {x.dtype}")
                rows[i].append(_real_coords(g))
        for i in wrt:
            jac[k, i] = (np.stack(rows[i]) if rows[i]
                         else np.zeros((0, inputs[i].numel() * (2 if inputs[i].is_complex() else 1))))
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None) -> bool:
    """Checks `func`'s gradients at `inputs` (float64 tensors with requires_grad)."""
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, ember.Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for i in wrt:
        if inputs[i].dtype not in (ember.float64, ember.complex128):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of double "
                          "precision floating point.", UserWarning, stacklevel=2)
        if inputs[i].device.type != "cpu":
            raise ValueError("ember's gradcheck runs on CPU tensors")
    try:
        with enable_grad():
            outputs = _diff_outputs(func, inputs)
        if not outputs:
            return _check_constant(func, inputs, wrt, eps, atol)
        if not check_backward_ad:
            return True
        analytical = _analytical_jacobians(outputs, inputs, wrt)
        again = _analytical_jacobians(outputs, inputs, wrt)
        for key, a in analytical.items():
            if not np.allclose(a, again[key], rtol=0, atol=nondet_tol):
                raise GradcheckError("Backward is not reentrant, i.e., running backward with "
                                     "same input and grad_output multiple times gives different "
                                     f"values, although analytical gradient matches numerical "
                                     f"gradient. The tolerance for nondeterminism was {nondet_tol}.")
        numerical = _numerical_jacobians(func, inputs, wrt, len(outputs), eps)
        for (k, i), a in sorted(analytical.items()):
            n = numerical[k, i].reshape(a.shape)
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                raise GradcheckError(f"Jacobian mismatch for output {k} with respect to input "
                                     f"{i},\nnumerical:{n}\nanalytical:{a}\n")
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False) -> bool:
    """Checks second derivatives: gradcheck of (inputs, grad_outputs) -> the gradients
    of `func` computed with create_graph=True."""
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, ember.Tensor) and x.requires_grad]
    if grad_outputs is None:
        with enable_grad():
            outs = _diff_outputs(func, inputs)
        gen = ember.Generator().manual_seed(0)
        grad_outputs = tuple(ember.randn(o.shape, dtype=o.dtype, generator=gen,
                                         requires_grad=True) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def first_derivatives(*args):
        ins, gos = args[:n], args[n:]
        outs = _diff_outputs(func, ins)
        grads = autograd_grad(outs, [ins[i] for i in wrt], gos, create_graph=True,
                              allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol)
