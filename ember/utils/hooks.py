"""`RemovableHandle`: what `Module.register_*_hook` returns (like torch.utils.hooks).

    >>> hooks = collections.OrderedDict()
    >>> h = RemovableHandle(hooks)
    >>> hooks[h.id] = print
    >>> h.remove(); len(hooks)
    0
"""
from __future__ import annotations

import itertools
import weakref

__all__ = ["RemovableHandle"]

_ids = itertools.count()


class RemovableHandle:
    """Removes the entry `id` from a hooks dict (and from `extra_dict`s) on `.remove()`;
    usable as a context manager. The dicts are held weakly, like torch's."""

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(_ids)
        if extra_dict is None:
            extra_dict = ()
        elif isinstance(extra_dict, dict):
            extra_dict = (extra_dict,)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
