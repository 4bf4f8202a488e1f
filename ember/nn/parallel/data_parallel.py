"""DataParallel on one device: the wrapped module runs the whole batch.

>>> model = ember.nn.DataParallel(ember.nn.Linear(2, 1))
>>> list(model.state_dict())
['module.weight', 'module.bias']
"""
from __future__ import annotations

from ..modules.module import Module


class DataParallel(Module):
    """Wraps `module` (as `.module`); ember has no second device to split the batch over,
    so forward calls it with the inputs as they are (torch does the same without GPUs)."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        self.module = module
        self.device_ids = []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """The functional DataParallel: `module(*inputs, **module_kwargs)`."""
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    return module(*inputs, **(module_kwargs or {}))
