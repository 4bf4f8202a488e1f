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
