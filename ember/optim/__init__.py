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
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
