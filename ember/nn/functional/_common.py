"""The __torch_function__ check every F function makes first thing:

    if _tf[0] and (result := _override("relu", locals())) is not _NO:
        return result
"""
from __future__ import annotations

import sys

from ember.overrides import NO_OVERRIDE as _NO
from ember.overrides import handle_torch_function
from ember.overrides import tf_state as _tf

__all__ = ["_NO", "_override", "_tf"]


def _override(name, params):
    """torch's has_torch_function/handle_torch_function for the F function `name`, called
    first thing with its locals() (its parameters, in order) while tf_state[0] says a
    __torch_function__ subclass or mode exists: a mode sees F.cross_entropy itself, not only
    the ops inside. The input goes positionally, the rest by keyword. NO_OVERRIDE if
    nothing overrides."""
    input, *rest = params.items()
    function = getattr(sys.modules[__package__], name)  # F.<name>, as torch's globals()[name]
    return handle_torch_function(function, tuple(params.values()), (input[1],), dict(rest))
