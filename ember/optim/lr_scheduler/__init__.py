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

The schedulers live in private modules by family: the base class (_base), the schedules
of one formula (_schedules), the schedulers made of schedulers (_combinators),
ReduceLROnPlateau (_plateau) and OneCycleLR (_one_cycle); use them from here.
"""
# importable from here as before (and as from torch.optim.lr_scheduler), not in __all__
from ...core.tensor import Tensor  # noqa: F401
from ..optimizer import Optimizer  # noqa: F401
from ._base import EPOCH_DEPRECATION_WARNING, LRScheduler, _LRScheduler  # noqa: F401
from ._combinators import ChainedScheduler, SequentialLR
from ._one_cycle import OneCycleLR
from ._plateau import ReduceLROnPlateau
from ._schedules import (
    ConstantLR,
    CosineAnnealingLR,
    CosineAnnealingWarmRestarts,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)

# torch's __all__ (ember has no CyclicLR)
__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]
