"""ember.nn: modules, parameters, initialisation and functional ops.

    >>> from ember import nn
    >>> net = nn.Sequential(nn.Linear(64, 128), nn.Linear(128, 10))
    >>> net(ember.randn(32, 64)).shape
    ember.Size([32, 10])
"""
from . import init, utils
from .modules import (
    Bilinear,
    Flatten,
    Identity,
    Linear,
    Module,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
    Unflatten,
)
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    "Bilinear",
    "Buffer",
    "Flatten",
    "Identity",
    "Linear",
    "Module",
    "ModuleDict",
    "ModuleList",
    "Parameter",
    "ParameterDict",
    "ParameterList",
    "Sequential",
    "Unflatten",
    "UninitializedBuffer",
    "UninitializedParameter",
    "init",
    "utils",
]

# --- functional and layers (nnlayers) ---
from . import functional, modules, parallel
from .modules import *  # the layer classes, listed in ember.nn.modules.__all__
from .parallel import DataParallel

__all__ += ["DataParallel", "functional", "parallel"]
__all__ += [name for name in modules.__all__ if name not in __all__]
