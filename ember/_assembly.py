"""How `import ember` puts the library together: the order of initialisation and the
parts of the Tensor class, as data, in this one module.

ember is layered (README, "Architecture"): the core layer (ember/core: dtypes, devices,
storage, the Tensor data structure) knows nothing above it; the dispatcher
(ember/dispatch) routes each op through its keys; the generated layer (ember/_generated,
from schema/*.yaml) declares the ops and registers kernels (ember/kernels) per key;
autograd (ember/autograd) and autocast (ember/amp) add their keys' kernels on top.

`assemble()` runs once, first thing in ember/__init__.py:
1. imports INIT_ORDER, in order: each module registers kernels with the dispatcher when
   imported (that is what they are for);
2. points the core layer's autograd hooks at autograd's (ember/core/autograd_hooks.py);
3. attaches every module's TENSOR_ATTRIBUTES to ember.Tensor, in TENSOR_PARTS order; a
   name given by two parts is an error, so each attribute has one home.

To find where a Tensor attribute comes from: `grep '"backward"' ember` (or look at
`ember.Tensor.backward.__module__`):

    >>> ember.Tensor.backward.__module__, ember.Tensor.add.__module__
    ('ember.autograd.tensor_api', 'ember._generated.tensor_methods')
"""
from __future__ import annotations

import importlib

# Modules whose import registers kernels or fallbacks with the dispatcher, in order.
INIT_ORDER = (
    "ember._generated.ops",             # an OpOverload per schema overload
    "ember._generated.registrations",   # backend kernels (CPU, Meta, CUDA, composites) per key
    "ember.kernels.common._complex_support",  # torch's errors for ops without complex kernels
    "ember.dispatch.python_dispatch",   # the Python key's boxed fallback
    "ember.dispatch.conjugate",         # the Conjugate key's boxed fallback (conj()'s views)
    "ember.autograd",                   # the engine, grad modes, custom Functions
    "ember._generated.autograd",        # Backward nodes and the Autograd-key kernels
    "ember._generated.autocast",        # AutocastCPU/AutocastCUDA wrappers
)

# Modules defining TENSOR_ATTRIBUTES: {name: function, property or classmethod}.
TENSOR_PARTS = (
    "ember._generated.tensor_methods",  # op methods and operator dunders, from the schema
    "ember.core.tensor_extras",         # T, mT, __getitem__, float(), to, cpu, norm, ...
    "ember.autograd.tensor_api",        # requires_grad, grad, grad_fn, backward, hooks
    "ember.dispatch.python_dispatch",   # __torch_dispatch__
    "ember.overrides",                  # __init_subclass__ (the __torch_function__ protocol)
)


def assemble() -> None:
    for name in INIT_ORDER:
        importlib.import_module(name)
    from .autograd import CORE_HOOKS
    from .core import autograd_hooks
    autograd_hooks.register(**CORE_HOOKS)
    from .core.tensor import Tensor
    attach(Tensor, {part: importlib.import_module(part).TENSOR_ATTRIBUTES
                    for part in TENSOR_PARTS})


def attach(cls, parts: dict[str, dict]) -> None:
    """Sets every part's attributes on `cls` ({module name: TENSOR_ATTRIBUTES}, in order);
    a name two parts give, or one `cls` defines itself, is an error."""
    owner: dict[str, str] = {}
    for part, attributes in parts.items():
        for name, value in attributes.items():
            if name in owner:
                raise RuntimeError(f"Tensor.{name} is defined by both {owner[name]} and {part}")
            if name in vars(cls):
                raise RuntimeError(f"Tensor.{name} from {part} would replace the one in "
                                   f"{cls.__module__}")
            owner[name] = part
            if getattr(value, "__module__", None) == part and \
                    getattr(value, "__name__", None) == name:      # not for aliases
                value.__qualname__ = f"{cls.__name__}.{name}"
            setattr(cls, name, value)
