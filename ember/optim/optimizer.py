"""The `Optimizer` base class: parameter groups, per-parameter state, state_dict.

    >>> w = ember.randn(3, requires_grad=True)
    >>> opt = ember.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()          # w <- w - 0.1 * w.grad
    >>> opt.zero_grad()     # w.grad is None again

Subclasses pass their hyper-parameters as `defaults`; each parameter group is a dict
holding its "params" list and every default it did not override. `step()` is the
subclass's: it reads the groups and `self.state[p]` directly (no per-step rebuilding).
"""
from __future__ import annotations

import warnings
from collections import defaultdict
from copy import deepcopy
from functools import wraps
from itertools import chain

from ..autograd.grad_mode import enable_grad
from ..core.tensor import Tensor
from ..core.toplevel import typename
from ..dispatch import observers as _observers
from ..dispatch.tls import state as _tls
from ..utils._grads import zero_grads

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Singleton marking a default that every parameter group must specify."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _profiled(method):
    """`method` (step or zero_grad) in a profiler range named as torch's:
    `Optimizer.step#SGD.step`. Outside a profile, one check."""
    name = method.__name__

    @wraps(method)
    def run(self, *args, **kwargs):
        if _observers.active is None:
            return method(self, *args, **kwargs)
        with _observers.Range(f"Optimizer.{name}#{type(self).__name__}.{name}"):
            return method(self, *args, **kwargs)
    return run


def _to_float(value):
    """A hyper-parameter as a Python number (a 1-element tensor gives its item)."""
    return value.item() if isinstance(value, Tensor) else value


def _check_hyper(value, name: str, message: str) -> None:
    """torch's `Invalid ...` ValueError when a hyper-parameter is negative."""
    if isinstance(value, Tensor) and value.numel() != 1:
        raise ValueError(f"Tensor {name} must be 1-element")
    if not 0.0 <= value:
        raise ValueError(f"Invalid {message}: {value}")


def _check_betas(betas) -> None:
    """torch's `Invalid beta parameter` ValueError unless 0 <= beta < 1."""
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def _check_unsupported(defaults: dict) -> None:
    """ember runs every optimizer one tensor at a time: `foreach` is accepted (same
    result), `fused`, `capturable` and `differentiable` are not implemented."""
    for flag in ("fused", "capturable", "differentiable"):
        if defaults.get(flag):
            raise NotImplementedError(f"ember.optim does not implement {flag}=True")


class Optimizer:
    """Base class of all optimizers (torch.optim.Optimizer's semantics).

    Args:
        params: an iterable of tensors, of (name, tensor) pairs, or of dicts
            (parameter groups, each with a "params" entry and optional overrides).
        defaults: the default value of each optimization option.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ("step", "zero_grad"):
            if name in cls.__dict__:
                setattr(cls, name, _profiled(cls.__dict__[name]))

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors "
                "or dicts, but got " + typename(params))
        self.state: defaultdict[Tensor, dict] = defaultdict(dict)
        self.param_groups: list[dict] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # --- pickling / repr ---------------------------------------------------------------
    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.defaults.setdefault("differentiable", False)

    def _fill_group_defaults(self, **options) -> None:
        """Give every group the options it lacks (a state saved by an older version)."""
        for group in self.param_groups:
            for key, value in options.items():
                group.setdefault(key, value)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # --- parameter groups --------------------------------------------------------------
    def add_param_group(self, param_group: dict) -> None:
        """Append a parameter group (a dict with "params" and optional option overrides).

        >>> body, head = nn.Linear(2, 2), nn.Linear(2, 1)
        >>> opt = ember.optim.SGD(body.parameters(), lr=0.1)
        >>> opt.add_param_group({"params": [head.weight], "lr": 1e-2})
        >>> [(len(g["params"]), g["lr"], g["momentum"]) for g in opt.param_groups]
        [(2, 0.1, 0), (1, 0.01, 0)]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead.")
        else:
            params = list(params)

        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group["param_names"] = names

        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)

        if len(params) != len(set(params)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information", stacklevel=3)

        param_set: set[Tensor] = set()
        for group in self.param_groups:
            param_set.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not param_set.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # --- gradients -----------------------------------------------------------------------
    @_profiled
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients: to None (default), or to zeros in place."""
        for group in self.param_groups:
            zero_grads(group["params"], set_to_none)

    @_profiled
    def step(self, closure=None):
        """Perform one optimization step and return the closure's loss (or None).

        `closure` re-evaluates the model and returns the loss; it runs with grad enabled.
        The updates run in no-grad mode (set once per step), a group at a time (`_update_group`).
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        grad_mode = _tls.grad_enabled  # what `with no_grad():` does, minus its object
        _tls.grad_enabled = False
        try:
            for group in self.param_groups:
                self._update_group(group)
        finally:
            _tls.grad_enabled = grad_mode
        return loss

    def _update_group(self, group: dict) -> None:
        """Update the parameters of one group in place (subclasses implement it)."""
        raise NotImplementedError

    # --- state_dict ----------------------------------------------------------------------
    def state_dict(self) -> dict:
        """The optimizer's state as `{"state": {index: {...}}, "param_groups": [...]}`.

        Parameters are replaced by their index in the order of the groups (torch's
        format); the state's tensors are the live ones (copy.deepcopy for a snapshot).
        """
        index_of: dict[int, int] = {}
        start = 0
        param_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index_of.setdefault(id(p), i)
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            start += len(packed["params"])
            param_groups.append(packed)
        state = {(index_of[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a `state_dict()`: groups must match in number and sizes; tensors in the
        state are copied (floating ones cast to their parameter's dtype, except "step")."""
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        param_of = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                            chain.from_iterable(g["params"] for g in groups)))
        state: defaultdict[Tensor, dict] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                param = param_of[key]
                state[param] = _copy_state(param, value)
            else:
                state[key] = value
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})


def _copy_state(param: Tensor, value, key=None):
    """A deep copy of one parameter's state, tensors placed like `param` (torch's _cast)."""
    if isinstance(value, Tensor):
        if key == "step":
            return value.clone()
        dtype = param.dtype if param.is_floating_point() else value.dtype
        moved = value.to(dtype=dtype, device=param.device)
        return moved.clone() if moved is value else moved
    if isinstance(value, dict):
        return {k: _copy_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_copy_state(param, v) for v in value)
    return value
