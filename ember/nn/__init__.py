"""ember.nn: modules, parameters, initialisation and functional ops (issue 6).

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
from .parameter import Buffer, Parameter

__all__ = [
    "Bilinear", "Buffer", "Flatten", "Identity", "Linear", "Module", "ModuleDict", "ModuleList",
    "Parameter", "ParameterDict", "ParameterList", "Sequential", "Unflatten", "init", "utils",
]

# --- functional and layers (nnlayers) ---
from . import functional
from .modules import (
    ELU,
    GELU,
    AdaptiveAvgPool2d,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    BCELoss,
    BCEWithLogitsLoss,
    Conv1d,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Hardtanh,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    LogSoftmax,
    MaxPool2d,
    MSELoss,
    MultiheadAttention,
    NLLLoss,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
    Threshold,
)

__all__ += [
    "ELU",
    "GELU",
    "AdaptiveAvgPool2d",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "Conv1d",
    "Conv2d",
    "CrossEntropyLoss",
    "Dropout",
    "Embedding",
    "Hardtanh",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "LogSoftmax",
    "MSELoss",
    "MaxPool2d",
    "MultiheadAttention",
    "NLLLoss",
    "ReLU",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "Tanh",
    "Threshold",
    "functional",
]
