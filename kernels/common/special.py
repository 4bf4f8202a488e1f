"""xlogy and xlog1py with a Python number `other` (CompositeExplicitAutograd): the values
are the Tensor overloads' (the number wrapped), the gradient torch's own formula for these
overloads (schema/derivatives.yaml), which masks self == 0 unless other > 0.

    >>> ember.xlogy(ember.tensor([0.0, 2.0]), 3)
    tensor([0.0000, 2.1972])
"""
from ember.kernels.composite.special import _wrapped, xlogy_scalar_

xlogy_other_scalar = _wrapped("xlogy")
xlogy_other_scalar_ = xlogy_scalar_
special_xlog1py_other_scalar = _wrapped("special_xlog1py")
