"""ember.nn.utils: clip_grad_norm_ and friends (issue 6)."""
