"""CompositeImplicitAutograd kernels: Python decompositions over other ember ops."""
import ember


def unmutated(self):
    """The value of `self` that an in-place composite's formulas may save: a clone when
    autograd records (its copy_ into self bumps self's version, and a backward reading the
    saved self would raise), self otherwise.

    >>> x = ember.ones(2, requires_grad=True).clone()
    >>> unmutated(x) is x
    False
    """
    if self.requires_grad and ember.is_grad_enabled():
        return self.clone()
    return self


def with_zero_grad_of(result, unused):
    """`result`, with `unused` (broadcastable to it) kept in the graph so that it gets a zero
    gradient rather than none, as torch's formulas give (addmm's self with beta=0, cdist
    with p=0).

    >>> x = ember.ones(2, requires_grad=True)
    >>> with_zero_grad_of(ember.full((2,), 3.0), x).sum().backward(); x.grad
    tensor([0., 0.])
    """
    return ember.where(result.new_zeros((), dtype=ember.bool), unused, result)
