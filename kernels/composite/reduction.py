"""Reductions that torch decomposes (CompositeImplicitAutograd): the `unbiased=` overloads
of var/std/var_mean/std_mean call the `correction=` ones, and norm calls
linalg_vector_norm (autograd comes from the ops they call).

    >>> ember.var(ember.tensor([1., 2., 3.]), False)
    tensor(0.6667)
"""
import ember


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
    if not self._dtype.is_floating_point:
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
