"""ember.nn.modules: layer classes (issue 6)."""
