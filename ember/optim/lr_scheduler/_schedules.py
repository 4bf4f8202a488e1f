"""The schedules of one formula: a factor per epoch (Lambda, Multiplicative, Step,
MultiStep, Exponential, Constant, Polynomial, Linear) or a cosine (CosineAnnealing,
WarmRestarts)."""
from __future__ import annotations

import math
import types
from bisect import bisect_right
from collections import Counter

from ..optimizer import Optimizer
from ._base import LRScheduler, _group_values


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
