"""Schedulers made of schedulers: ChainedScheduler (together) and SequentialLR (one
after the other)."""
from __future__ import annotations

from bisect import bisect_right

from ..optimizer import Optimizer
from ._base import LRScheduler, _group_values, _set_lr
from ._plateau import ReduceLROnPlateau


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
