"""ember.optim: optimizers and learning-rate schedulers, with torch.optim's semantics.

    >>> model, x, y = nn.Linear(2, 1), ember.randn(8, 2), ember.randn(8, 1)
    >>> opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    >>> sched = ember.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)
    >>> for epoch in range(3):
    ...     opt.zero_grad()
    ...     F.mse_loss(model(x), y).backward()
    ...     opt.step()
    ...     sched.step()
    >>> sched.get_last_lr()
    [0.099778098230154]
"""
from . import lr_scheduler
from .adadelta import Adadelta
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adam", "AdamW", "Adamax", "NAdam",
           "Optimizer", "RAdam", "RMSprop", "Rprop", "SparseAdam", "lr_scheduler"]
