"""ember.optim: optimizers and learning-rate schedulers (issue 6)."""
