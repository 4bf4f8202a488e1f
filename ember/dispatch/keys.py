"""Dispatch keys and keysets.

A key is a bit position; a keyset is a Python int bitmask. A higher bit means a
higher priority, so the key to run is `keyset.bit_length() - 1`.

    >>> highest(CPU_BIT | AUTOGRAD_BIT) == Autograd
    True
"""
from __future__ import annotations

# Low to high priority, as torch's DispatchKey (c10/core/DispatchKey.h): modes and
# __torch_dispatch__ subclasses (Python) see ops after autocast and autograd have run,
# so they see the decomposed, cast, recorded calls (aten.t + aten.addmm for F.linear).
KEY_NAMES = (
    "CPU", "CUDA", "Meta",            # backends, torch's order: CUDA or Meta beats CPU
                                      # (a CPU 0-d tensor with a CUDA one runs on CUDA)
    "BackendSelect",                  # factories: pick the backend from device=
    "Complex",                        # set by complex tensors and numbers: the ops without
                                      # complex kernels refuse here (kernels/common/
                                      # _complex_support.py); the others fall through
    "Python",                         # __torch_dispatch__ subclasses and modes
    "Functionalize",                  # mutations and views rewritten as functional ops
    "Conjugate",                      # conj()'s lazy views: inputs resolved for other ops
    "ADInplaceOrView",                # version bumps and view bookkeeping
    "Autograd",                       # records the backward graph
    # Above Autograd: autocast's casts are recorded (grads reach float32 weights) and
    # composite ops (linear) are cast before they decompose.
    "AutocastCUDA", "AutocastCPU",
    "PreDispatch",                    # make_fx(pre_dispatch=True) sees ops before all else
)
(CPU, CUDA, Meta, BackendSelect, Complex, Python, Functionalize, Conjugate, ADInplaceOrView, Autograd,
 AutocastCUDA, AutocastCPU, PreDispatch) = range(len(KEY_NAMES))
NUM_KEYS = len(KEY_NAMES)
KEY_BY_NAME = {n: i for i, n in enumerate(KEY_NAMES)}

BACKEND_KEYS = (CPU, CUDA, Meta)
BACKEND_KEY_OF_DEVICE = {"cpu": CPU, "cuda": CUDA, "meta": Meta}
AUTOCAST_KEY_OF_DEVICE = {"cpu": AutocastCPU, "cuda": AutocastCUDA}

# Alias keys used in YAML `dispatch:` and in Library.impl; they expand to real keys.
ALIAS_KEYS = ("CompositeImplicitAutograd", "CompositeExplicitAutograd")

FULL = (1 << NUM_KEYS) - 1
BACKEND_MASK = (1 << CPU) | (1 << CUDA) | (1 << Meta)
META_BIT, CUDA_BIT, CPU_BIT = 1 << Meta, 1 << CUDA, 1 << CPU
ADINPLACE_BIT = 1 << ADInplaceOrView
AUTOGRAD_BIT = 1 << Autograd
PYTHON_BIT = 1 << Python
CONJ_BIT = 1 << Conjugate
COMPLEX_BIT = 1 << Complex
BACKEND_SELECT_BIT = 1 << BackendSelect


def bit(key: int) -> int:
    return 1 << key


def below(key: int) -> int:
    """The mask of every key strictly below `key` (what a redispatch keeps)."""
    return (1 << key) - 1


def highest(keyset: int) -> int:
    return keyset.bit_length() - 1


def names(keyset: int) -> list[str]:
    """The key names in a keyset, highest first (for traces and errors)."""
    return [KEY_NAMES[k] for k in range(NUM_KEYS - 1, -1, -1) if keyset >> k & 1]


def key_of(name: str) -> int:
    try:
        return KEY_BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown dispatch key '{name}' (expected one of "
                         f"{', '.join(KEY_NAMES + ALIAS_KEYS)})") from None
