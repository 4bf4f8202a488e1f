"""Learning-rate schedulers (torch.optim.lr_scheduler): they rewrite `group["lr"]`.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> sched = ember.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    >>> for epoch in range(100):
    ...     opt.step()                    # one epoch of training
    ...     sched.step()
    >>> opt.param_groups[0]["lr"]         # 0.1, times gamma at epochs 30, 60 and 90
    0.00010000000000000003

Each scheduler computes the new rates in `get_lr()` from `last_epoch` (the number of
`step()` calls so far), the groups' current rates and `base_lrs` (their "initial_lr").
The formulas are torch's recursive ones, so the values match torch's to the last bit.
"""
from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter

from ..core.tensor import Tensor
from .optimizer import Optimizer, _to_float

__all__ = [
    "CosineAnnealingLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "MultiStepLR",
    "OneCycleLR",
    "StepLR",
]

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


def _per_group(name: str, optimizer: Optimizer, value) -> list:
    """One value per parameter group: a list/tuple of the right length, or a repeated value."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has "
                f"{len(value)} values, param_groups has {len(optimizer.param_groups)}.")
        return list(value)
    return [value] * len(optimizer.param_groups)


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


class _LambdaScheduler(LRScheduler):
    """Shared by LambdaLR and MultiplicativeLR: one function of the epoch per group, and a
    state_dict that keeps the `__dict__` of callable objects (not of functions/lambdas)."""

    def __init__(self, optimizer: Optimizer, lr_lambda, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = dict(state_dict)
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    """lr = base_lr * lr_lambda(epoch), one function or one per group.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> sched = LambdaLR(opt, lr_lambda=lambda epoch: 0.95 ** epoch)
    >>> lrs = []                  # lrs[epoch]: the rate used in that epoch
    >>> for epoch in range(4):
    ...     lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> lrs
    [0.1, 0.095, 0.09025, 0.08574]
    """

    def get_lr(self) -> list:
        self._check_get_lr_in_step()
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    """lr = previous lr * lr_lambda(epoch), one function or one per group.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> sched = MultiplicativeLR(opt, lr_lambda=lambda epoch: 0.95)
    >>> lrs = []                  # lrs[epoch]: the rate used in that epoch
    >>> for epoch in range(4):
    ...     lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> lrs
    [0.1, 0.095, 0.09025, 0.08574]
    """

    def __init__(self, optimizer: Optimizer, lr_lambda, last_epoch: int = -1) -> None:
        for fn in lr_lambda if isinstance(lr_lambda, (list, tuple)) else [lr_lambda]:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, lr_lambda, last_epoch)

    def get_lr(self) -> list:
        self._check_get_lr_in_step()
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """Multiply the rates by `gamma` every `step_size` epochs.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.05)
    >>> sched = StepLR(opt, step_size=30, gamma=0.1)   # 0.05 until 30, 0.005 until 60, ...
    >>> lrs = []                  # lrs[epoch]: the rate used in that epoch
    >>> for epoch in range(61):
    ...     lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> lrs[29], lrs[30], lrs[59], lrs[60]
    (0.05, 0.005, 0.005, 0.0005)
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._check_get_lr_in_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rates by `gamma` at each milestone epoch.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> sched = MultiStepLR(opt, milestones=[30, 80], gamma=0.1)
    >>> lrs = []                  # lrs[epoch]: the rate used in that epoch
    >>> for epoch in range(81):
    ...     lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> lrs[29], lrs[30], lrs[79], lrs[80]
    (0.1, 0.01, 0.01, 0.001)
    """

    def __init__(self, optimizer: Optimizer, milestones, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._check_get_lr_in_step()
        if self.last_epoch not in self.milestones:
            return _group_values(self.optimizer, "lr")
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rates by `gamma` every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._check_get_lr_in_step()
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the rates by `factor` for the first `total_iters` epochs.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> sched = ConstantLR(opt, factor=0.5, total_iters=4)
    >>> lrs = []                  # lrs[epoch]: the rate used in that epoch
    >>> for epoch in range(6):
    ...     lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> lrs
    [0.05, 0.05, 0.05, 0.05, 0.1, 0.1]
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._check_get_lr_in_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in groups]
        if self.last_epoch != self.total_iters:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * (1.0 / self.factor) for group in groups]

    def _get_closed_form_lr(self) -> list:
        factor = self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor)
        return [base_lr * factor for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the rates as (1 - epoch / total_iters) ** power, to 0 at total_iters.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> sched = PolynomialLR(opt, total_iters=10, power=2.0)
    >>> lrs = []                  # lrs[epoch]: the rate used in that epoch
    >>> for epoch in range(11):
    ...     lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> lrs
    [0.1, 0.081, 0.064, 0.049, 0.036, 0.025, 0.016, 0.009, 0.004, 0.001, 0.0]
    """

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._check_get_lr_in_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        decay = ((1.0 - self.last_epoch / self.total_iters)
                 / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group["lr"] * decay for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        remaining = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base_lr * remaining ** self.power for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rates linearly from `start_factor` to `end_factor` times the base rate
    over `total_iters` epochs (a warm-up), then keep them.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> sched = LinearLR(opt, start_factor=0.1, total_iters=5)
    >>> lrs = []                  # lrs[epoch]: the rate used in that epoch
    >>> for epoch in range(7):
    ...     lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> lrs
    [0.01, 0.028, 0.046, 0.064, 0.082, 0.1, 0.1]
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._check_get_lr_in_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        change = self.end_factor - self.start_factor
        factor = 1.0 + change / (self.total_iters * self.start_factor
                                 + (self.last_epoch - 1) * change)
        return [group["lr"] * factor for group in groups]

    def _get_closed_form_lr(self) -> list:
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor) * done)
                for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the base rate to `eta_min` over `T_max` epochs (and back up,
    periodically, past T_max), with torch's recursive update of the current rates.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> sched = CosineAnnealingLR(opt, T_max=100, eta_min=1e-5)
    >>> lrs = []                  # lrs[epoch]: the rate used in that epoch
    >>> for epoch in range(101):
    ...     lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> lrs[0], lrs[50], lrs[100]
    (0.1, 0.05001, 1e-05)
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._check_get_lr_in_step()
        epoch, t_max, eta_min = self.last_epoch, self.T_max, self.eta_min
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        if self._step_count == 1 and epoch > 0:  # resumed at a later epoch
            return [eta_min + (base_lr - eta_min) * (1 + math.cos(epoch * math.pi / t_max)) / 2
                    for base_lr in self.base_lrs]
        if (epoch - 1 - t_max) % (2 * t_max) == 0:  # the bottom of a period: climb back
            return [group["lr"] + (base_lr - eta_min) * (1 - math.cos(math.pi / t_max)) / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        ratio = (1 + math.cos(math.pi * epoch / t_max)) / (
            1 + math.cos(math.pi * (epoch - 1) / t_max))
        return [ratio * (group["lr"] - eta_min) + eta_min for group in groups]

    def _get_closed_form_lr(self) -> list:
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the base rate to `eta_min`, restarting every T_i epochs
    (T_0, then T_i *= T_mult after each restart). `step(epoch)` takes fractional epochs.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> sched = CosineAnnealingWarmRestarts(opt, T_0=10, T_mult=2)
    >>> lrs = []                  # lrs[epoch]: the rate used in that epoch
    >>> for epoch in range(31):
    ...     lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> lrs[9], lrs[10], lrs[29], lrs[30]     # restarts at 10 and 10 + 20
    (0.00245, 0.1, 0.00062, 0.1)
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(  # noqa: TRY004  (torch's type)
                f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._check_get_lr_in_step()
        cosine = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base_lr - self.eta_min) * cosine for base_lr in self.base_lrs]

    def step(self, epoch=None) -> None:
        """Advance one epoch, or go to `epoch` (a float: a fraction of the way through)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._write_lrs(self.get_lr)


class _SchedulerSequence(LRScheduler):
    """Shared by SequentialLR and ChainedScheduler: schedulers of one optimizer, whose
    state_dicts nest in this one's."""

    def _check_schedulers(self, optimizer: Optimizer, schedulers) -> None:
        name = type(self).__name__
        for i, scheduler in enumerate(schedulers):
            if not hasattr(scheduler, "optimizer"):
                raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
            if isinstance(scheduler, ReduceLROnPlateau):
                raise ValueError(  # noqa: TRY004  (torch's type)
                    f"{name} does not support `ReduceLROnPlateau` scheduler as it requires "
                    "additional kwargs to be specified when calling `step`, but got one at "
                    f"index {i} in the given schedulers sequence.")
            if optimizer != scheduler.optimizer:
                raise ValueError(
                    f"{name} expects all schedulers to belong to the same optimizer, but got "
                    f"scheduler {type(scheduler).__name__} at index {i} has "
                    f"{scheduler.optimizer}, which is different from "
                    f"{type(optimizer).__name__}.")

    def state_dict(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = dict(state_dict)
        saved = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for scheduler, scheduler_state in zip(self._schedulers, saved):
            scheduler.load_state_dict(scheduler_state)


class ChainedScheduler(_SchedulerSequence):
    """Step several schedulers together, each step applying all of them in turn.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> sched = ChainedScheduler([ConstantLR(opt, factor=0.1, total_iters=2),
    ...                           ExponentialLR(opt, gamma=0.9)])
    >>> lrs = []                  # lrs[epoch]: the rate used in that epoch
    >>> for epoch in range(4):
    ...     lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> lrs
    [0.01, 0.009, 0.081, 0.0729]
    """

    def __init__(self, schedulers, optimizer: Optimizer | None = None) -> None:
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be "
                             "chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        self._check_schedulers(optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(schedulers[-1].optimizer, "lr")

    def step(self) -> None:
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


class SequentialLR(_SchedulerSequence):
    """Run `schedulers` one after the other, switching at the `milestones` epochs.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> warmup = LinearLR(opt, start_factor=0.1, total_iters=5)
    >>> cosine = CosineAnnealingLR(opt, T_max=95)
    >>> sched = SequentialLR(opt, [warmup, cosine], milestones=[5])
    >>> lrs = []                  # lrs[epoch]: the rate used in that epoch
    >>> for epoch in range(7):
    ...     lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> lrs
    [0.01, 0.028, 0.046, 0.064, 0.082, 0.1, 0.09997]
    """

    def __init__(self, optimizer: Optimizer, schedulers: list, milestones: list,
                 last_epoch: int = -1) -> None:
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no "
                             "scheduler.")
        self._check_schedulers(optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                "than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # undo the schedulers' initial steps, then make the first one's again
        for group in optimizer.param_groups:
            _set_lr(group, group["initial_lr"])
        _undo_initial_steps(schedulers)
        first = self._schedulers[bisect_right(milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self) -> None:
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)  # a new scheduler starts from its epoch 0
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


def _undo_initial_steps(schedulers) -> None:
    """Take back the epoch each scheduler counted when it was made (nested ones too)."""
    for scheduler in schedulers:
        if hasattr(scheduler, "_schedulers"):
            _undo_initial_steps(scheduler._schedulers)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1


class ReduceLROnPlateau(LRScheduler):
    """Multiply the rates by `factor` when a metric stopped improving for `patience`
    epochs (then wait `cooldown` epochs). `step(metric)` takes the metric.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> sched = ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=3)
    >>> for val_loss in [1.0, 1.0, 1.0, 1.0, 1.0]:   # no improvement after the first epoch
    ...     opt.step(); sched.step(val_loss)
    >>> sched.get_last_lr()
    [0.05]
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr=0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def step(self, metrics, epoch=None) -> None:
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length of the `optimizer` param "
                    "groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                _set_lr(group, new_lr)

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            return a < best * (1.0 - self.threshold) if self.threshold_mode == "rel" \
                else a < best - self.threshold
        return a > best * (self.threshold + 1.0) if self.threshold_mode == "rel" \
            else a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the rate climbs from max_lr / div_factor to max_lr over
    `pct_start` of the steps, then anneals to initial_lr / final_div_factor (three_phase:
    back to initial_lr first); momentum (or Adam's beta1) cycles the opposite way.
    Step it after every batch; stepping past `total_steps` raises.

    >>> opt = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1)
    >>> loader = ember.utils.data.DataLoader(ember.utils.data.TensorDataset(ember.zeros(20)),
    ...                                      batch_size=4)
    >>> sched = OneCycleLR(opt, max_lr=0.1, epochs=10, steps_per_epoch=len(loader))
    >>> lrs = []
    >>> for epoch in range(10):
    ...     for batch in loader:
    ...         lrs.append(round(sched.get_last_lr()[0], 5)); opt.step(); sched.step()
    >>> len(lrs), lrs[0], max(lrs), lrs.index(max(lrs)), lrs[-1]
    (50, 0.004, 0.1, 14, 0.0)
    """

    def __init__(self, optimizer: Optimizer, max_lr, total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None,
                 pct_start: float = 0.3, anneal_strategy: str = "cos",
                 cycle_momentum: bool = True, base_momentum=0.85, max_momentum=0.95,
                 div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        self.total_steps = self._count_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = self._phases(pct_start, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy

        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, group_max_lr in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"] = group_max_lr / div_factor
                group["max_lr"] = group_max_lr
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for m_momentum, b_momentum, group in zip(max_momentums, base_momentums,
                                                         optimizer.param_groups):
                    self._set_momentum(group, m_momentum)
                    group["max_momentum"] = m_momentum
                    group["base_momentum"] = b_momentum
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _count_steps(total_steps, epochs, steps_per_epoch) -> int:
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            return total_steps
        if epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError("Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            return epochs * steps_per_epoch
        raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")

    def _phases(self, pct_start: float, three_phase: bool) -> list[dict]:
        """The schedule's phases: where each ends and which group keys it goes between."""
        def phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
            return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr,
                    "start_momentum": start_momentum, "end_momentum": end_momentum}
        warmup_end = float(pct_start * self.total_steps) - 1
        last = self.total_steps - 1
        if three_phase:
            return [phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                    phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                          "base_momentum", "max_momentum"),
                    phase(last, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        return [phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                phase(last, "max_lr", "min_lr", "base_momentum", "max_momentum")]

    def _set_momentum(self, group: dict, momentum: float) -> None:
        if self.use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum

    def _anneal_func(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        return self._annealing_linear(start, end, pct)

    @staticmethod
    def _annealing_cos(start, end, pct):
        """Cosine from `start` (pct=0) to `end` (pct=1)."""
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start, end, pct):
        """Straight line from `start` (pct=0) to `end` (pct=1)."""
        return (end - start) * pct + start

    def get_lr(self) -> list:
        self._check_get_lr_in_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs = []
        last_phase = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == last_phase:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(self._anneal_func(group[phase["start_lr"]],
                                                 group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal_func(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct))
                    break
                start_step = end_step
        return lrs
