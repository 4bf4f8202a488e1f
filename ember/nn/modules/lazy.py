"""Lazy modules: layers whose input size (in_features, in_channels, num_features) is read
from their first input, as torch's LazyModuleMixin does; they then become the ordinary class.

    >>> net = ember.nn.Sequential(ember.nn.LazyLinear(8), ember.nn.ReLU())
    >>> net(ember.randn(2, 5)).shape
    ember.Size([2, 8])
    >>> type(net[0]).__name__, net[0].weight.shape
    ('Linear', ember.Size([8, 5]))
"""
from __future__ import annotations

import itertools

import ember

from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Linear

__all__ = [
    "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d",
    "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
    "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyLinear",
    "LazyModuleMixin",
]


class LazyModuleMixin:
    """Infers the uninitialized parameters' shapes at the first forward (a forward pre-hook
    calling initialize_parameters), or from a loaded state dict; the module then becomes
    cls_to_become."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self.register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _lazy_load_hook(self, module, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        """Give the uninitialized entries the shapes of the loaded ones."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                value = state_dict[key]
                if not is_lazy(value):
                    with ember.no_grad():
                        param.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {type(self).__name__}")

    def has_uninitialized_params(self):
        """Whether any parameter or buffer still waits for its shape."""
        return any(is_lazy(p) for p in itertools.chain(self._parameters.values(),
                                                       self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is the last dim of its first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with ember.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    """A convolution whose in_channels is read from its first input."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, *args, bias=True,
                 device=None, dtype=None, **kwargs):
        super().__init__(0, 0, kernel_size, stride, padding, *args, bias=False, **kwargs)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input):
        no_batch = self._dims + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(
                f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                f"{type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            channels = ((self.in_channels, self.out_channels // self.groups) if self.transposed
                        else (self.out_channels, self.in_channels // self.groups))
            with ember.no_grad():
                self.weight.materialize((*channels, *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


def _lazy_conv(conv):
    """The Lazy<conv> class: its signature without in_channels."""
    return type(f"Lazy{conv.__name__}", (_LazyConvXdMixin, conv),
                {"cls_to_become": conv, "__module__": __name__,
                 "__doc__": f"A {conv.__name__} whose in_channels comes from its first input."})


LazyConv1d = _lazy_conv(Conv1d)
LazyConv2d = _lazy_conv(Conv2d)
LazyConv3d = _lazy_conv(Conv3d)
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d)


class _LazyNormBase(LazyModuleMixin):
    """A batch or instance norm whose num_features is dim 1 of its first input."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        factory = {"device": device, "dtype": dtype}
        if affine:
            self.weight = UninitializedParameter(**factory)
            self.bias = UninitializedParameter(**factory)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**factory)
            self.running_var = UninitializedBuffer(**factory)
            self.num_batches_tracked = ember.tensor(0, dtype=ember.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with ember.no_grad():
                for name in ("weight", "bias", "running_mean", "running_var"):
                    value = getattr(self, name)
                    if value is not None and is_lazy(value):
                        value.materialize((self.num_features,))
                self.reset_parameters()


def _lazy_norm(norm):
    """The Lazy<norm> class (affine and tracking by default, even for instance norms)."""
    return type(f"Lazy{norm.__name__}", (_LazyNormBase, norm),
                {"cls_to_become": norm, "__module__": __name__,
                 "__doc__": f"A {norm.__name__} whose num_features comes from its first input."})


LazyBatchNorm1d = _lazy_norm(BatchNorm1d)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d)
