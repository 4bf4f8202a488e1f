"""ember.nn.modules: layer classes (issue 6)."""
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .module import Module

__all__ = [
    "Bilinear",
    "Flatten",
    "Identity",
    "Linear",
    "Module",
    "ModuleDict",
    "ModuleList",
    "ParameterDict",
    "ParameterList",
    "Sequential",
    "Unflatten",
]
