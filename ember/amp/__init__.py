"""ember.amp: automatic mixed precision, autocast and GradScaler (issue 5)."""
