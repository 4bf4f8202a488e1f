"""The safetensors format of `ember.save` (for `*.safetensors` paths) and of the files
ember wrote before it used torch's zip format: tensors and nested containers of them.

    >>> import io
    >>> buffer = io.BytesIO()
    >>> save({"w": ember.ones(2), "step": 3, "names": ("a", None)}, buffer)
    >>> _ = buffer.seek(0)
    >>> ember.load(buffer)
    {'w': tensor([1., 1.]), 'step': 3, 'names': ('a', None)}

The file is a plain safetensors file (https://github.com/huggingface/safetensors): an
8-byte little-endian header length, a JSON header giving each tensor's dtype, shape and
byte range, then the raw little-endian bytes. What is not a tensor (the nesting of dicts,
OrderedDicts, lists and tuples; None, bools, ints, floats, strings; ember.Size, dtypes and
devices) is kept as JSON text under the header's `__metadata__` key "ember.structure":
{"version": 2, "root": ..., "tensors": [...]}, where the root holds {"tensor": i} for the
i-th tensor record, which names the entry holding the tensor's storage ("storage") and,
for a view, its "offset", "shape" and "stride" in it (in elements). Containers nest at
most 100 levels deep. Files of version 1 (before storages were shared: each tensor node
named its own entry) still load. Nothing is pickled, so loading never runs code.

Storage is shared as torch.save shares it: a tensor met twice loads as one tensor, and
tensors viewing one storage (a tensor and its views) are saved once, as the span of the
storage they cover, and load as views of one new storage, with their strides and
relative offsets (their storage offsets count from the start of that span). Viewing one
storage as different dtypes is refused, as by torch. A tensor alone on its storage is
saved as its values: compactly, loading contiguous, even if it was a view.

Entries are named after their tensor's place ("model.fc.weight", "layers.0.bias"), so a
flat dict of tensors reads back with `safetensors.numpy.load_file` or
`safetensors.torch.load_file` under its own keys; a shared storage appears once, under
the name of a tensor that covers it (as safetensors' own save_model keeps one name of
tied weights), else of the first one with "#storage" added. `ember.load` reads any
safetensors file (returning a dict of tensors when the file has no ember structure).
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

from ..core import dtype as D
from ..core.alloc import storage_nbytes
from ..core.device import device as _device
from ..core.tensor import Size, Tensor, contiguous_strides, from_array, make_tensor
from ._files import is_file_object, write_atomically

STRUCTURE_KEY = "ember.structure"  # the __metadata__ entry holding the JSON structure
FORMAT_VERSION = 2  # 1: no sharing, a tensor node names its entry (still read)
_MAX_DEPTH = 100  # how deep containers may nest (the structure is read recursively)
_MAX_HEADER_BYTES = 100_000_000  # safetensors' own limit
_HEADER_ALIGNMENT = 8  # the header is padded with spaces to this many bytes
_CODE_OF_DTYPE = {D.bool_: "BOOL", D.uint8: "U8", D.int8: "I8", D.int16: "I16",
                  D.int32: "I32", D.int64: "I64", D.float16: "F16", D.bfloat16: "BF16",
                  D.float32: "F32", D.float64: "F64", D.complex64: "C64", D.complex128: "C128"}
_DTYPE_OF_CODE = {code: dt for dt, code in _CODE_OF_DTYPE.items()}
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


# --- save ----------------------------------------------------------------------------------
def save(obj, f) -> None:
    """Writes `obj` (a tensor, or dicts/OrderedDicts/lists/tuples nesting tensors, None,
    bools, ints, floats, strings, ember.Size, dtypes and devices) to `f`, a path or a
    binary file object, as a safetensors file. A path is written atomically: to a
    temporary file next to it, then renamed over it, so a failed save leaves the old file.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "state.safetensors"
    >>> save({"weight": ember.eye(2)}, path)
    >>> ember.load(path)["weight"]
    tensor([[1., 0.],
            [0., 1.]])
    """
    encoder = _Encoder()
    root = encoder.encode(obj, ())
    entries, records = _storages(encoder.tensors)
    metadata = {STRUCTURE_KEY: json.dumps(
        {"version": FORMAT_VERSION, "root": root, "tensors": records}, separators=(",", ":"))}
    header, arrays = _layout(entries, metadata)
    if is_file_object(f, "write"):
        _write(f, header, arrays)
    else:
        write_atomically(os.fspath(f), lambda out: _write(out, header, arrays))


class _Encoder:
    """Turns an object into its JSON structure; each distinct tensor becomes
    {"tensor": i}, its index in `tensors` (a list of (name, tensor))."""

    def __init__(self):
        self.tensors: list[tuple[str, Tensor]] = []
        self.index_of: dict[int, int] = {}  # id(tensor) -> index: a tensor met twice is one

    def encode(self, obj, path: tuple):
        if len(path) > _MAX_DEPTH:
            raise RuntimeError(f"ember.save: the object nests deeper than {_MAX_DEPTH} levels "
                               f"(at {_describe(path[:3])}...; does a container hold itself?)")
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
            return {tag: [[self.encode_key(k, path), self.encode(v, (*path, str(k)))]
                          for k, v in obj.items()]}
        raise TypeError(f"ember.save cannot store an object of type {type(obj).__name__} "
                        f"(at {_describe(path)}): it stores tensors, dicts, OrderedDicts, lists, "
                        "tuples, None, bools, ints, floats, strings, ember.Size, dtypes and "
                        "devices")

    def encode_key(self, key, path: tuple):
        if isinstance(key, Tensor) or not isinstance(key, (str, int, float, tuple, type(None))):
            raise TypeError(f"ember.save cannot store a dict key of type {type(key).__name__}: "
                            "keys must be strings, numbers, None or tuples of them")
        return self.encode(key, (*path, "<key>"))

    def encode_tensor(self, t: Tensor, path: tuple):
        if t.device.type == "meta":
            raise RuntimeError(f"ember.save cannot store the meta tensor at {_describe(path)}: "
                               "it has no data")
        if id(t) not in self.index_of:
            self.index_of[id(t)] = len(self.tensors)
            self.tensors.append((".".join(path) or "tensor", t))
        return {"tensor": self.index_of[id(t)]}


def _storages(tensors: list) -> tuple[dict, list]:
    """The file's entries (name -> contiguous array) and one record per tensor saying
    where it lies in them. A tensor alone on its storage is saved as its values, under
    its own name; tensors sharing a storage share one entry, the span of the storage
    they cover (named after the one tensor that covers it, when there is one), and
    their records give their offset, shape and stride in it."""
    groups: dict = {}
    for index, (_, t) in enumerate(tensors):
        st = t.untyped_storage()  # (tensors without data, or without bytes, share nothing)
        key = (st.data_ptr(), st.nbytes()) if t.numel() and st.data_ptr() else ("alone", index)
        groups.setdefault(key, []).append(index)
    entries, records = {}, [None] * len(tensors)

    def entry_name(base: str) -> str:
        name, suffix = base, 1
        while name in entries or name == "__metadata__":  # a clash: "a.b" and a -> b
            name, suffix = f"{base}#{suffix}", suffix + 1
        return name

    for members in groups.values():
        group = [tensors[i][1] for i in members]
        if len(group) == 1:
            name = entry_name(tensors[members[0]][0])
            values = np.ascontiguousarray(group[0].detach().numpy(force=True))
            entries[name] = values.reshape(group[0].shape)  # (0-d arrays come back 1-d)
            records[members[0]] = {"storage": name}
        else:
            if len({t.dtype for t in group}) > 1:
                raise RuntimeError("Cannot save multiple tensors or storages that view the "
                                   "same data as different types")
            begin = min(t.storage_offset() for t in group)
            end = max(t.storage_offset() + storage_nbytes(t.shape, t.stride(), 1) for t in group)
            cover = next((i for i, t in zip(members, group) if t.storage_offset() == begin
                          and t.numel() == end - begin and t.is_contiguous()), None)
            base = tensors[members[0]][0] + "#storage" if cover is None else tensors[cover][0]
            name = entry_name(base)
            size, dt = group[0].dtype.itemsize, group[0].dtype
            span = group[0].untyped_storage().bytes[begin * size:end * size].view(dt.np)
            entries[name] = span.reshape(end - begin if cover is None else tensors[cover][1].shape)
            for i, t in zip(members, group):
                records[i] = {"storage": name, "offset": t.storage_offset() - begin,
                              "shape": list(t.shape), "stride": list(t.stride())}
    for record, (_, t) in zip(records, tensors):
        if t.requires_grad:
            record["requires_grad"] = True
        if _is_parameter(t):
            record["parameter"] = True
    return entries, records


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
    from ..nn import Parameter  # (ember.nn is imported after this module)
    return isinstance(t, Parameter)


def _layout(entries: dict, metadata: dict):
    """The padded header bytes and the arrays to write after it, widest items first so
    that each array starts aligned to its item size."""
    names = sorted(entries, key=lambda n: -entries[n].itemsize)
    header = {"__metadata__": metadata}
    arrays, offset = [], 0
    for name in names:
        array = entries[name]
        if sys.byteorder != "little":
            array = array.byteswap()
        header[name] = {"dtype": _CODE_OF_DTYPE[D._BY_NP[array.dtype]],
                        "shape": list(array.shape),
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


# --- load ----------------------------------------------------------------------------------
def load(data: bytes, name: str, map_location):
    """The object in a safetensors file's bytes `data` (read from the file `name`); a
    file written by another library loads as a dict of tensors. A truncated or corrupt
    file raises RuntimeError naming the file."""
    if callable(map_location):
        raise TypeError("ember.load: map_location must be a device, a device string or a dict "
                        "of device strings for a safetensors file, not a function")
    return _Reader(data, name, map_location).read()


class _Reader:
    """Parses and checks one safetensors file held in memory, then rebuilds its object."""

    def __init__(self, data: bytes, name: str, map_location):
        self.data = data
        self.name = name
        self.map_location = map_location
        self.records = None  # version 2: the structure's tensor records
        self.loaded = {}     # tensor key -> its tensor: a tensor referenced twice is one
        self.storages = {}   # (entry name, device) -> the storage every view of it shares

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
            return {name: self.tensor(name) for name in self.entries}
        structure = self.json(metadata[STRUCTURE_KEY], "the structure")
        version = structure.get("version") if isinstance(structure, dict) else None
        if version not in (1, FORMAT_VERSION):
            raise self.fail(f"unknown structure version (this ember reads versions 1 to "
                            f"{FORMAT_VERSION})")
        if version > 1:
            self.records = structure.get("tensors")
            if not isinstance(self.records, list):
                raise self.fail("the structure has no list of tensors")
        return self.decode(structure.get("root"), 0)

    def json(self, text: str, what: str):
        try:
            return json.loads(text)
        except RecursionError:
            raise self.fail(f"{what} nests too deeply") from None
        except ValueError as e:
            raise self.fail(f"{what} is not valid JSON ({e})") from None

    def header(self):
        data = self.data
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
            text = data[8:8 + length].decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.fail(f"the header is not valid JSON ({e})") from None
        header = self.json(text, "the header")
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

    def tensor(self, key, node=None) -> Tensor:
        """The tensor a structure node {"tensor": key} stands for: in version 2, `key`
        indexes the structure's tensor records; in version 1 and in files without a
        structure, it names an entry and the node is the record."""
        if self.records is not None:
            if type(key) is not int or not 0 <= key < len(self.records):
                raise self.fail(f"the structure refers to a tensor {key!r} it does not have")
            record = self.records[key]
        else:
            record = {**(node or {}), "storage": key}
        if key not in self.loaded:
            self.loaded[key] = self.build(record)
        return self.loaded[key]

    def build(self, record) -> Tensor:
        """A tensor from its record: a view (offset, shape, stride, all in elements; by
        default the whole entry) of the storage loaded from an entry, checked to lie in it."""
        name = record.get("storage") if isinstance(record, dict) else None
        if not isinstance(name, str) or name not in self.entries:
            raise self.fail(f"the structure refers to a tensor {name!r} the file does not have")
        dt, entry_shape, _, _ = self.entries[name]
        shape = record.get("shape", entry_shape)
        stride = record.get("stride", list(contiguous_strides(shape)) if _is_int_list(shape)
                            else None)
        offset = record.get("offset", 0)
        if not (_is_int_list(shape) and _is_int_list(stride) and len(stride) == len(shape)
                and type(offset) is int
                and all(0 <= n <= sys.maxsize // dt.itemsize for n in (*shape, *stride, offset))):
            raise self.fail(f"tensor {name!r} has a bad layout: offset {offset!r}, shape "
                            f"{shape!r}, stride {stride!r}")
        numel, size = math.prod(shape), math.prod(entry_shape)
        if numel * dt.itemsize > sys.maxsize:
            raise self.fail(f"a view of tensor {name!r} has shape {shape}: too large")
        if numel and offset + storage_nbytes(shape, stride, 1) > size:
            raise self.fail(f"a view of tensor {name!r} (offset {offset}, shape {shape}, "
                            f"stride {stride}) reaches past its {size} elements")
        t = make_tensor(self.storage(name, record.get("device", "cpu")), shape, stride,
                        offset, dt)
        if record.get("parameter"):
            from ..nn import Parameter
            return Parameter(t, requires_grad=bool(record.get("requires_grad")))
        return t.requires_grad_() if record.get("requires_grad") else t

    def storage(self, name: str, saved_device):
        """The storage of an entry on its target device: a fresh copy of its bytes, made
        once however many tensors view it."""
        target = self.target_device(saved_device)
        key = (name, str(target))
        if key not in self.storages:
            dt, shape, begin, _ = self.entries[name]
            raw = np.frombuffer(self.data, np.uint8 if dt is D.bool_ else dt.np.newbyteorder("<"),
                                count=math.prod(shape), offset=self.body_start + begin)
            array = (raw != 0) if dt is D.bool_ else raw.astype(dt.np)  # a native-order copy
            t = from_array(array)
            self.storages[key] = (t if target.type == "cpu" else t.to(target)).untyped_storage()
        return self.storages[key]

    def target_device(self, saved):
        where = self.map_location
        try:
            if isinstance(where, dict):
                where = where.get(saved, saved)
            return _device(saved if where is None else where)
        except (TypeError, ValueError, RuntimeError) as e:
            raise self.fail(f"bad device {saved!r} ({e})") from None

    def decode(self, node, depth: int):
        """The object a structure node stands for."""
        if depth > _MAX_DEPTH:
            raise self.fail(f"the structure nests deeper than {_MAX_DEPTH} levels")
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, dict) and "tensor" in node:
            try:
                return self.tensor(node["tensor"], node)
            except TypeError as e:  # an unhashable key
                raise self.fail(f"bad structure node {node!r} ({e!r})") from None
        if not isinstance(node, dict) or len(node) != 1:
            raise self.fail(f"bad structure node {node!r}")
        ((tag, value),) = node.items()
        try:
            return self.decode_tagged(tag, value, depth + 1)
        except (TypeError, ValueError, KeyError) as e:
            raise self.fail(f"bad structure node {node!r} ({e!r})") from None

    def decode_tagged(self, tag: str, value, depth: int):
        if tag in ("list", "tuple"):
            items = [self.decode(v, depth) for v in value]
            return items if tag == "list" else tuple(items)
        if tag in ("dict", "OrderedDict"):
            pairs = ((self.decode(k, depth), self.decode(v, depth)) for k, v in value)
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

