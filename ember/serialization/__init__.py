"""`ember.save` / `ember.load`: any picklable object, in torch.save's zip format.

    >>> import io
    >>> buffer = io.BytesIO()
    >>> ember.save({"w": ember.ones(2), "step": 3, "names": ("a", None)}, buffer)
    >>> _ = buffer.seek(0)
    >>> ember.load(buffer)
    {'w': tensor([1., 1.]), 'step': 3, 'names': ('a', None)}

Files are torch's own (see _torch_zip.py): torch.load reads what ember.save writes and
ember.load reads what torch.save writes, with storage sharing and views kept. Loading is
weights-only by default, as in torch: only tensors, containers, numbers, strings, dtypes
and the globals allowed with `add_safe_globals` / `safe_globals` are unpickled;
`weights_only=False` unpickles anything (run it only on files you trust).

Paths ending in `.safetensors` are written as safetensors files (see _safetensors.py),
and ember.load reads safetensors files, including those of ember's earlier format.
"""
from __future__ import annotations

import io
import os
import pickle

from . import _safetensors, _torch_zip
from ._files import is_file_object, write_atomically

_LEGACY_MAGIC = b"\x80\x02\x8a\x0a"  # torch's legacy format: a pickle starting with its magic number
__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load",
           "safe_globals", "save"]


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False) -> None:
    """Writes `obj` (anything picklable: tensors, modules, NumPy arrays, containers) to `f`,
    a path or a binary file object, as torch.save does; a path ending in `.safetensors`
    gets a safetensors file (tensors and plain containers only). A path is written
    atomically: a failed save leaves the old file.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "state.pt"
    >>> ember.save({"weight": ember.eye(2)}, path)
    >>> ember.load(path)["weight"]
    tensor([[1., 0.],
            [0., 1.]])
    """
    if pickle_module not in (None, pickle) or pickle_protocol != 2:
        raise ValueError("ember.save writes torch's format: pickle_module and "
                         "pickle_protocol cannot be changed")
    if not _use_new_zipfile_serialization:
        raise ValueError("ember.save does not write torch's legacy format "
                         "(_use_new_zipfile_serialization=False)")
    name = getattr(f, "name", f) if is_file_object(f, "write") else os.fsdecode(os.fspath(f))
    if isinstance(name, (str, bytes)) and os.fsdecode(name).endswith(".safetensors"):
        _safetensors.save(obj, f)
    elif is_file_object(f, "write"):
        _torch_zip.save(obj, f, "archive")
    else:
        write_atomically(name, lambda out: _torch_zip.save(obj, out, _torch_zip.archive_name(f)))


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Reads what `ember.save` or `torch.save` wrote to `f` (a path or a binary file
    object), or a safetensors file (as a dict of tensors unless ember wrote it).

    `map_location` puts the tensors on a device (a string or `ember.device`), maps saved
    device names to new ones (a dict), or is a function `(storage, location) -> storage`;
    by default they go back where they were. `weights_only` (default True) allows only
    safe globals; `mmap=True` (with a path) maps the file's storages into memory instead
    of reading them. A truncated or corrupt file raises RuntimeError naming the file.
    """
    if weights_only is None:  # (torch's default: weights-only unless a pickle_module is given)
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    if pickle_module not in (None, pickle):
        raise ValueError("ember.load unpickles with the pickle module only")
    if mmap and is_file_object(f, "read"):
        raise ValueError("f must be a file path in order to use the mmap argument")
    if is_file_object(f, "read"):
        return _load_file(f, getattr(f, "name", type(f).__name__), map_location,
                          weights_only, mmap)
    with open(os.fspath(f), "rb") as file:
        return _load_file(file, os.fspath(f), map_location, weights_only, mmap)


def _load_file(file, name, map_location, weights_only, mmap):
    if not (hasattr(file, "seek") and file.seekable()):
        file = io.BytesIO(file.read())
    start = file.tell()
    magic = file.read(4)
    if not isinstance(magic, (bytes, bytearray)):
        raise TypeError(f"ember.load needs a file opened in binary mode ('rb'); {name!r} "
                        f"gave {type(magic).__name__}")
    file.seek(start)
    if magic == b"PK\x03\x04":
        return _torch_zip.load(file, str(name), map_location, weights_only, bool(mmap))
    if magic == _LEGACY_MAGIC:
        raise RuntimeError(f"ember.load: {str(name)!r} is in torch's legacy format "
                           "(_use_new_zipfile_serialization=False), which ember does not read")
    return _safetensors.load(file.read(), str(name), map_location)


def add_safe_globals(safe_globals: list) -> None:
    """Allows these globals (or (global, "module.name") pairs) in weights-only loads."""
    _torch_zip._user_safe_globals.update(safe_globals)


def get_safe_globals() -> list:
    """The globals `add_safe_globals` allowed."""
    return list(_torch_zip._user_safe_globals)


def clear_safe_globals() -> None:
    """Forgets every global `add_safe_globals` allowed."""
    _torch_zip._user_safe_globals.clear()


class safe_globals:
    """Context manager allowing `safe_globals` in weights-only loads inside its block."""

    def __init__(self, safe_globals: list):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc_info):
        _torch_zip._user_safe_globals.difference_update(self.safe_globals)
