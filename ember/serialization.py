"""`ember.save` / `ember.load`: tensors and nested containers of them in a safetensors file.

    >>> import io
    >>> buffer = io.BytesIO()
    >>> ember.save({"w": ember.ones(2), "step": 3, "names": ("a", None)}, buffer)
    >>> _ = buffer.seek(0)
    >>> ember.load(buffer)
    {'w': tensor([1., 1.]), 'step': 3, 'names': ('a', None)}

The file is a plain safetensors file (https://github.com/huggingface/safetensors): an
8-byte little-endian header length, a JSON header giving each tensor's dtype, shape and
byte range, then the raw little-endian bytes. What is not a tensor (the nesting of dicts,
OrderedDicts, lists and tuples; None, bools, ints, floats, strings; ember.Size, dtypes and
devices) is kept as JSON text under the header's `__metadata__` key "ember.structure",
with each tensor's place in it. Nothing is pickled, so loading never runs code.

Tensors are named after their place ("model.fc.weight", "layers.0.bias"), so a flat
dict of tensors reads back with `safetensors.numpy.load_file` or
`safetensors.torch.load_file` under its own keys, and `ember.load` reads any safetensors
file (returning a dict of tensors when the file has no ember structure).

Each tensor is stored as its values: views and non-contiguous tensors are saved
compactly, and tensors that shared storage load as independent tensors.
`requires_grad`, `nn.Parameter`, and the device (unless `map_location` says otherwise) are
restored.
"""
from __future__ import annotations

import collections
import json
import math
import os
import struct
import sys

import numpy as np

from .core import dtype as D
from .core.device import device as _device
from .core.tensor import Size, Tensor, from_array

__all__ = ["load", "save"]

STRUCTURE_KEY = "ember.structure"  # the __metadata__ entry holding the JSON structure
FORMAT_VERSION = 1
_MAX_HEADER_BYTES = 100_000_000  # safetensors' own limit
_HEADER_ALIGNMENT = 8  # the header is padded with spaces to this many bytes
_CODE_OF_DTYPE = {D.bool_: "BOOL", D.uint8: "U8", D.int8: "I8", D.int16: "I16",
                  D.int32: "I32", D.int64: "I64", D.float16: "F16", D.bfloat16: "BF16",
                  D.float32: "F32", D.float64: "F64"}
_DTYPE_OF_CODE = {code: dt for dt, code in _CODE_OF_DTYPE.items()}
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


# --- save ----------------------------------------------------------------------------------
def save(obj, f) -> None:
    """Writes `obj` (a tensor, or dicts/OrderedDicts/lists/tuples nesting tensors, None,
    bools, ints, floats, strings, ember.Size, dtypes and devices) to `f`, a path or a
    binary file object, as a safetensors file.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "state.safetensors"
    >>> ember.save({"weight": ember.eye(2)}, path)
    >>> ember.load(path)["weight"]
    tensor([[1., 0.],
            [0., 1.]])
    """
    tensors: dict[str, Tensor] = {}
    structure = _Encoder(tensors).encode(obj, ())
    metadata = {STRUCTURE_KEY: json.dumps({"version": FORMAT_VERSION, "root": structure},
                                          separators=(",", ":"))}
    header, arrays = _layout(tensors, metadata)
    if _is_file_object(f, "write"):
        _write(f, header, arrays)
    else:
        with open(os.fspath(f), "wb") as out:
            _write(out, header, arrays)


class _Encoder:
    """Turns an object into its JSON structure, collecting its tensors under unique names."""

    def __init__(self, tensors: dict):
        self.tensors = tensors

    def encode(self, obj, path: tuple):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return int(obj)
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"float": repr(obj)}
        if isinstance(obj, Tensor):
            return self.encode_tensor(obj, path)
        if isinstance(obj, Size):
            return {"Size": list(obj)}
        if isinstance(obj, D.dtype):
            return {"dtype": obj.name}
        if isinstance(obj, _device):
            return {"device": str(obj)}
        tag = _container_tag(obj)
        if tag in ("list", "tuple"):
            return {tag: [self.encode(v, (*path, str(i))) for i, v in enumerate(obj)]}
        if tag is not None:
            return {tag: [[self.encode_key(k), self.encode(v, (*path, str(k)))]
                          for k, v in obj.items()]}
        raise TypeError(f"ember.save cannot store an object of type {type(obj).__name__} "
                        f"(at {_describe(path)}): it stores tensors, dicts, OrderedDicts, lists, "
                        "tuples, None, bools, ints, floats, strings, ember.Size, dtypes and "
                        "devices")

    def encode_key(self, key):
        if isinstance(key, Tensor) or not isinstance(key, (str, int, float, tuple, type(None))):
            raise TypeError(f"ember.save cannot store a dict key of type {type(key).__name__}: "
                            "keys must be strings, numbers, None or tuples of them")
        return self.encode(key, ())

    def encode_tensor(self, t: Tensor, path: tuple):
        if t.device.type == "meta":
            raise RuntimeError(f"ember.save cannot store the meta tensor at {_describe(path)}: "
                               "it has no data")
        name = base = ".".join(path) or "tensor"
        suffix = 1
        while name in self.tensors or name == "__metadata__":  # a clash: "a.b" and a -> b
            name, suffix = f"{base}#{suffix}", suffix + 1
        self.tensors[name] = t
        node = {"tensor": name}
        if t.requires_grad:
            node["requires_grad"] = True
        if _is_parameter(t):
            node["parameter"] = True
        if t.device.type != "cpu":
            node["device"] = str(t.device)
        return node


def _container_tag(obj) -> str | None:
    """How a container is stored: OrderedDicts stay OrderedDicts, other dicts (defaultdict,
    ...) and lists become plain ones; tuples only plain (not named tuples)."""
    if isinstance(obj, collections.OrderedDict):
        return "OrderedDict"
    if isinstance(obj, dict):
        return "dict"
    if isinstance(obj, list):
        return "list"
    return "tuple" if type(obj) is tuple else None


def _describe(path: tuple) -> str:
    return repr(".".join(path)) if path else "the top level"


def _is_parameter(t) -> bool:
    from .nn import Parameter  # (ember.nn is imported after this module)
    return isinstance(t, Parameter)


def _layout(tensors: dict, metadata: dict):
    """The padded header bytes and the arrays to write after it, widest items first so
    that each tensor starts aligned to its item size."""
    names = sorted(tensors, key=lambda n: -tensors[n].dtype.itemsize)
    header = {"__metadata__": metadata}
    arrays, offset = [], 0
    for name in names:
        t = tensors[name]
        array = np.ascontiguousarray(t.detach().numpy(force=True))
        if sys.byteorder != "little":
            array = array.byteswap()
        header[name] = {"dtype": _CODE_OF_DTYPE[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + array.nbytes]}
        arrays.append(array.reshape(-1).view(np.uint8))
        offset += array.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % _HEADER_ALIGNMENT)
    return struct.pack("<Q", len(text)) + text, arrays


def _write(out, header: bytes, arrays) -> None:
    out.write(header)
    for array in arrays:
        out.write(array.data)


def _is_file_object(f, method: str) -> bool:
    return not isinstance(f, (str, bytes, os.PathLike)) and hasattr(f, method)


# --- load ----------------------------------------------------------------------------------
def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None):
    """Reads what `ember.save` wrote to `f` (a path or a binary file object); a
    safetensors file written by another library loads as a dict of tensors.

    `map_location` puts the tensors on a device (a string or `ember.device`), or maps
    saved device names to new ones (a dict); by default they go back where they were.
    `weights_only` and `mmap` are accepted for torch compatibility: ember never unpickles,
    so every load is weights-only, and the file is read into fresh tensors.
    A truncated or corrupt file raises RuntimeError naming the file.
    """
    if pickle_module is not None:
        raise ValueError("ember.load never unpickles: pickle_module is not supported")
    if callable(map_location):
        raise TypeError("ember.load: map_location must be a device, a device string or a dict "
                        "of device strings, not a function")
    if _is_file_object(f, "read"):
        name, data = getattr(f, "name", type(f).__name__), f.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"ember.load needs a file opened in binary mode ('rb'); {name!r} "
                            f"gave {type(data).__name__}")
    else:
        name = os.fspath(f)
        with open(name, "rb") as file:
            data = file.read()
    return _Reader(data, str(name), map_location).read()


class _Reader:
    """Parses and checks one safetensors file held in memory, then rebuilds its object."""

    def __init__(self, data: bytes, name: str, map_location):
        self.data = data
        self.name = name
        self.map_location = map_location

    def fail(self, what: str):
        return RuntimeError(f"ember.load: {self.name!r} is not a valid ember/safetensors file: "
                            f"{what}")

    def read(self):
        header, body_start = self.header()
        metadata = header.pop("__metadata__", None) or {}
        if not isinstance(metadata, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise self.fail("__metadata__ must map strings to strings")
        self.entries = self.checked_entries(header, len(self.data) - body_start)
        self.body_start = body_start
        if STRUCTURE_KEY not in metadata:
            return {name: self.tensor({"tensor": name}) for name in self.entries}
        try:
            structure = json.loads(metadata[STRUCTURE_KEY])
        except ValueError as e:
            raise self.fail(f"the structure is not valid JSON ({e})") from None
        if not isinstance(structure, dict) or structure.get("version") != FORMAT_VERSION:
            raise self.fail(f"unknown structure version (this ember reads version "
                            f"{FORMAT_VERSION})")
        return self.decode(structure.get("root"))

    def header(self):
        data = self.data
        if data[:4] == b"PK\x03\x04":
            raise self.fail("it is a zip archive (a torch.save file?); ember.load reads the "
                            "safetensors files that ember.save writes")
        if len(data) < 8:
            raise self.fail(f"the file has {len(data)} bytes, fewer than the 8 of the header "
                            "length")
        (length,) = struct.unpack("<Q", data[:8])
        if length > _MAX_HEADER_BYTES:
            raise self.fail(f"header length {length} is over the {_MAX_HEADER_BYTES} limit")
        if 8 + length > len(data):
            raise self.fail(f"header length {length} runs past the end of the file "
                            f"({len(data)} bytes): truncated?")
        try:
            header = json.loads(data[8:8 + length].decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise self.fail(f"the header is not valid JSON ({e})") from None
        if not isinstance(header, dict):
            raise self.fail("the header is not a JSON object")
        return header, 8 + length

    def checked_entries(self, header: dict, body_size: int) -> dict:
        """Each tensor's (dtype, shape, begin, end), after checking its entry and that
        the byte ranges tile the data section exactly (as the safetensors library does)."""
        entries = {name: self.entry(name, info, body_size) for name, info in header.items()}
        end = 0
        for name, (_, _, begin, stop) in sorted(entries.items(), key=lambda e: e[1][2:]):
            if begin != end:
                raise self.fail(f"tensor {name!r} starts at byte {begin}, expected {end} "
                                "(overlapping or gapped data_offsets)")
            end = stop
        if end != body_size:
            raise self.fail(f"the data section has {body_size} bytes but the tensors use {end}")
        return entries

    def entry(self, name: str, info, body_size: int):
        if not isinstance(info, dict) or not {"dtype", "shape", "data_offsets"} <= info.keys():
            raise self.fail(f"tensor {name!r} needs dtype, shape and data_offsets")
        code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        dt = _DTYPE_OF_CODE.get(code) if isinstance(code, str) else None
        if dt is None:
            raise self.fail(f"tensor {name!r} has dtype {code!r}, which ember does not support "
                            f"(supported: {', '.join(_DTYPE_OF_CODE)})")
        if not _is_int_list(shape) or any(n < 0 for n in shape):
            raise self.fail(f"tensor {name!r} has shape {shape!r}")
        if not _is_int_list(offsets) or len(offsets) != 2:
            raise self.fail(f"tensor {name!r} has data_offsets {offsets!r}")
        begin, stop = offsets
        if not 0 <= begin <= stop <= body_size:
            raise self.fail(f"tensor {name!r} has data_offsets {offsets} outside the data "
                            f"section of {body_size} bytes (truncated?)")
        nbytes = math.prod(shape) * dt.itemsize
        if stop - begin != nbytes:
            raise self.fail(f"tensor {name!r} of shape {shape} and dtype {code} needs {nbytes} "
                            f"bytes, its data_offsets give {stop - begin}")
        return dt, shape, begin, stop

    def tensor(self, node: dict) -> Tensor:
        """A fresh tensor (its own copy of the bytes) for a tensor node of the structure."""
        name = node["tensor"]
        if not isinstance(name, str) or name not in self.entries:
            raise self.fail(f"the structure refers to a tensor {name!r} the file does not have")
        dt, shape, begin, _ = self.entries[name]
        raw = np.frombuffer(self.data, np.uint8 if dt is D.bool_ else dt.np.newbyteorder("<"),
                            count=math.prod(shape), offset=self.body_start + begin)
        array = (raw != 0) if dt is D.bool_ else raw.astype(dt.np)  # a native-order copy
        t = from_array(array.reshape(shape))
        target = self.target_device(node.get("device", "cpu"))
        if target.type != "cpu":
            t = t.to(target)
        if node.get("parameter"):
            from .nn import Parameter
            return Parameter(t, requires_grad=bool(node.get("requires_grad")))
        return t.requires_grad_() if node.get("requires_grad") else t

    def target_device(self, saved: str):
        where = self.map_location
        if isinstance(where, dict):
            where = where.get(saved, saved)
        return _device(saved if where is None else where)

    def decode(self, node):
        """The object a structure node stands for."""
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, dict) and "tensor" in node:
            return self.tensor(node)
        if not isinstance(node, dict) or len(node) != 1:
            raise self.fail(f"bad structure node {node!r}")
        ((tag, value),) = node.items()
        try:
            return self.decode_tagged(tag, value)
        except (TypeError, ValueError, KeyError) as e:
            raise self.fail(f"bad structure node {node!r} ({e!r})") from None

    def decode_tagged(self, tag: str, value):
        if tag in ("list", "tuple"):
            items = [self.decode(v) for v in value]
            return items if tag == "list" else tuple(items)
        if tag in ("dict", "OrderedDict"):
            pairs = ((self.decode(k), self.decode(v)) for k, v in value)
            return dict(pairs) if tag == "dict" else collections.OrderedDict(pairs)
        if tag == "float":
            return _NON_FINITE[value]
        if tag == "Size":
            return Size(int(n) for n in value)
        if tag == "dtype":
            return D._BY_NAME[value]
        if tag == "device":
            return _device(value)
        raise ValueError(f"unknown tag {tag!r}")


def _is_int_list(value) -> bool:
    return isinstance(value, list) and all(type(v) is int for v in value)

