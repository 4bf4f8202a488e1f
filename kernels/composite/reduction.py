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
