"""Stand-ins for torch's globals in the pickles ember.save writes (ember never imports torch).

pickle's C pickler writes an object as the global `module.name` only when importing
`module` and reading `name` gives back that object. Each stand-in lives in this module
under its attribute name (`torch._utils._rebuild_tensor_v2` is
`torch__utils___rebuild_tensor_v2` here), and `_torch_zip.save` renames these globals to
torch's own names in the pickled bytes.

    >>> from ember.serialization import _torch_globals as G
    >>> G.REBUILD_TENSOR, G.REBUILD_TENSOR is G.torch__utils___rebuild_tensor_v2
    (TorchName('torch._utils', '_rebuild_tensor_v2'), True)
"""
from __future__ import annotations

from ..core import dtype as D

STORAGE_NAMES = {"BoolStorage": D.bool_, "ByteStorage": D.uint8, "CharStorage": D.int8,
                 "ShortStorage": D.int16, "IntStorage": D.int32, "LongStorage": D.int64,
                 "HalfStorage": D.float16, "BFloat16Storage": D.bfloat16,
                 "FloatStorage": D.float32, "DoubleStorage": D.float64,
                 "ComplexFloatStorage": D.complex64, "ComplexDoubleStorage": D.complex128}


class TorchName:
    """A global of torch's, written by name: `module.name`, found here at `attribute`."""

    __slots__ = ("attribute", "module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name
        self.attribute = f"{module.replace('.', '_')}__{name}"

    def __call__(self, *args):  # (pickle wants the callable of a reduction to be callable)
        raise TypeError(f"{self.module}.{self.name} is a name for pickles only")

    def __repr__(self):
        return f"TorchName({self.module!r}, {self.name!r})"


def _stand_in(module: str, name: str) -> TorchName:
    """A new stand-in for `module.name`, reachable as this module's attribute."""
    stand_in = TorchName(module, name)
    assert stand_in.attribute not in globals(), stand_in.attribute
    globals()[stand_in.attribute] = stand_in
    return stand_in


REBUILD_TENSOR = _stand_in("torch._utils", "_rebuild_tensor_v2")
REBUILD_PARAMETER = _stand_in("torch._utils", "_rebuild_parameter")
REBUILD_META = _stand_in("torch._utils", "_rebuild_meta_tensor_no_storage")
ORDERED_DICT = _stand_in("collections", "OrderedDict")  # (not the class: its own memo entry)
SIZE = _stand_in("torch", "Size")
DEVICE = _stand_in("torch", "device")
DTYPE_NAMES = {dt: _stand_in("torch", dt.name) for dt in D.ALL_DTYPES}
STORAGE_TYPES = {dt: _stand_in("torch", name) for name, dt in STORAGE_NAMES.items()}
STAND_INS = (REBUILD_TENSOR, REBUILD_PARAMETER, REBUILD_META, ORDERED_DICT, SIZE, DEVICE,
             *DTYPE_NAMES.values(), *STORAGE_TYPES.values())
