"""The base class of the schedulers, LRScheduler, and the helpers they share."""
from __future__ import annotations

import warnings

from ...core.tensor import Tensor
from ..optimizer import Optimizer, _to_float

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the "
    "new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def _group_values(optimizer: Optimizer, key: str) -> list:
    """`group[key]` of every group (tensors copied, never aliased)."""
    return [g[key].clone() if isinstance(g[key], Tensor) else g[key]
            for g in optimizer.param_groups]


def _set_lr(group: dict, lr) -> None:
    """Write a rate into a group (a tensor rate is filled in place)."""
    if isinstance(group["lr"], Tensor):
        group["lr"].fill_(_to_float(lr))
    else:
        group["lr"] = lr


def _track_optimizer_step(optimizer: Optimizer) -> None:
    """Notice the first `optimizer.step()` (for the "scheduler stepped first" warning):
    the instance's `step` is wrapped once and unwraps itself on its first call, so later
    steps pay nothing."""
    if getattr(optimizer.step, "_wrapped_by_lr_sched", False) or \
            getattr(optimizer, "_opt_called", False):
        return
    own = optimizer.__dict__.get("step")  # a step the user set on the instance, if any
    inner = optimizer.step

    def first_step(*args, **kwargs):
        optimizer._opt_called = True
        if own is None:
            optimizer.__dict__.pop("step", None)
        else:
            optimizer.step = own
        return inner(*args, **kwargs)

    first_step._wrapped_by_lr_sched = True
    optimizer.step = first_step


class LRScheduler:
    """Base class: sets "initial_lr" in the groups (when `last_epoch == -1`), keeps
    `base_lrs`, and makes the initial step so the groups hold the epoch-0 rates."""

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                initial_lr = group["lr"]
                if isinstance(initial_lr, Tensor):
                    initial_lr = initial_lr.clone()
                group.setdefault("initial_lr", initial_lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\nThis typically happens "
                        "when:\n1. You're trying to resume training from a checkpoint but "
                        "haven't properly loaded the optimizer state\n2. You're using "
                        "last_epoch >= 0 for a fresh training run (not recommended)")
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_optimizer_step(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict:
        """Every attribute except the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list:
        """The rates set by the last `step()`, one per group."""
        return self._last_lr

    def get_lr(self) -> list:
        """The rates for `last_epoch` (schedulers implement it; use get_last_lr to read)."""
        raise NotImplementedError

    def _check_get_lr_in_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to `epoch`, deprecated) and write the new rates."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
                "1.1.0 and later, you should call them in the opposite order: "
                "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                "result in PyTorch skipping the first value of the learning rate schedule. "
                "See more details at "
                "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        """Compute the rates for the next epoch (or for `epoch`, in closed form) and write
        them into the groups."""
        if epoch is None:
            self.last_epoch += 1
            self._write_lrs(self.get_lr)
        else:
            self.last_epoch = epoch
            self._write_lrs(getattr(self, "_get_closed_form_lr", self.get_lr))

    def _write_lrs(self, compute) -> None:
        """Write `compute()`'s rates (get_lr allowed: no warning) into the groups."""
        self._get_lr_called_within_step = True
        try:
            values = compute()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            _set_lr(group, lr)
        self._last_lr = _group_values(self.optimizer, "lr")


class _LRScheduler(LRScheduler):
    """The old name of LRScheduler (kept by torch for custom schedulers subclassing it)."""
