"""ember.nn: modules, parameters, initialisation and functional ops (issue 6)."""

# --- functional and layers (nnlayers) ---
from . import functional  # noqa: F401
