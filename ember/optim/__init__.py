"""ember.optim: optimizers and learning-rate schedulers, with torch.optim's semantics.

    >>> opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    >>> sched = ember.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)
"""
from . import lr_scheduler
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
