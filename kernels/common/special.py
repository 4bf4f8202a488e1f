"""xlogy, xlog1py and zeta with a Python number `self` or `other` (CompositeExplicitAutograd):
the values are the Tensor overloads' (the number wrapped), the gradient torch's own formula
for these overloads (schema/derivatives.yaml; its Scalar-other one masks self == 0 unless
other > 0), in a node of their own (XlogyBackward1 for a Python-number self, as torch's).

    >>> ember.xlogy(ember.tensor([0.0, 2.0]), 3)
    tensor([0.0000, 2.1972])
"""
from ember.kernels.composite.special import _wrapped, xlogy_scalar_

xlogy_other_scalar = _wrapped("xlogy")
xlogy_other_scalar_ = xlogy_scalar_
special_xlog1py_other_scalar = _wrapped("special_xlog1py")
xlogy_self_scalar = _wrapped("xlogy")
special_xlog1py_self_scalar = _wrapped("special_xlog1py")
special_zeta_self_scalar = special_zeta_other_scalar = _wrapped("special_zeta")
