"""Helpers that backward formulas in schema/derivatives.yaml may call, one module per op
family (common, binary, reduction, shape, conv, activation, nn, random), re-exported here.

Formulas are Python expressions over ember ops, so every helper here is written in
ember ops too: backward stays differentiable (double backward by construction).
codegen reads these modules with `ast` (no import) to learn the names formulas may use;
a helper decorated with `@forward_value` is evaluated in the forward pass when all
its arguments are inputs, and only its result is saved (e.g. `to_args_sizes(tensors)`).

    >>> sum_to_size(ember.ones(2, 3), (3,))
    tensor([2., 2., 2.])
"""
from .activation import *
from .binary import *
from .common import *
from .complex import *
from .conv import *
from .fft import *
from .linalg import *
from .nn import *
from .random import *
from .reduction import *
from .rnn import *
from .shape import *
from .special import *
