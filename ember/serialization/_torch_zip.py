"""torch.save's zip format, written and read without torch.

The archive holds `<name>/data.pkl` (the object, pickled with protocol 2), one entry
`<name>/data/<key>` per storage (its raw bytes, aligned to 64 bytes in the file so that
it can be memory-mapped), and the small records `version`, `byteorder`, `.format_version`,
`.storage_alignment` and `.data/serialization_id`. In the pickle a tensor is
`torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`,
where the storage is a persistent id `("storage", torch.FloatStorage, key, "cpu", numel)`;
a parameter wraps its tensor in `torch._utils._rebuild_parameter`. Ember writes these
globals by name (and dtypes, `torch.Size` and `torch.device` too), so that torch.load reads
ember's files, and maps them back to ember's objects when it reads a file.
"""
from __future__ import annotations

import _compat_pickle
import collections
import importlib
import io
import math
import mmap as _mmap
import os
import pickle
import re
import secrets
import struct
import sys
import zipfile

import numpy as np

from ..core import dtype as D
from ..core.alloc import storage_nbytes
from ..core.device import META
from ..core.device import device as _device
from ..core.storage import Storage
from ..core.tensor import Size, Tensor, make_tensor
from . import _torch_globals as G

ALIGNMENT = 64  # storage records start at multiples of this in the file (as torch's)
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # a zip local file header (30 bytes)
_ZIP64_EXTRA = 20  # what zipfile adds to the local header of a record over 2 GiB
_TORCH_ONLY_DTYPES = ("complex32", "uint16", "uint32", "uint64",
                      "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
                      "qint8", "quint8", "qint32", "quint4x2", "bits8", "bits16")


# --- what torch's globals stand for in ember ------------------------------------------------
class StorageType:
    """What a pickled `torch.FloatStorage` (and the like) stands for: a storage's dtype."""

    def __init__(self, name: str, dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self):
        return f"StorageType(dtype={self.dtype})"


class TypedStorage(collections.namedtuple("TypedStorage", "untyped dtype")):
    """A loaded storage and the dtype its tensors view it as."""


def _rebuild_tensor(storage, storage_offset, size, stride):
    """`torch._utils._rebuild_tensor`: a view of a loaded storage, checked to lie in it."""
    if not isinstance(storage, TypedStorage):
        raise pickle.UnpicklingError(f"a tensor's storage must be a storage, not "
                                     f"{type(storage).__name__}")
    dt = storage.dtype
    shape, stride = tuple(size), tuple(stride)
    if not (len(shape) == len(stride) and type(storage_offset) is int
            and all(type(n) is int and 0 <= n for n in (*shape, *stride, storage_offset))):
        raise pickle.UnpicklingError(f"bad tensor layout: offset {storage_offset!r}, size "
                                     f"{size!r}, stride {stride!r}")
    numel = storage.untyped.nbytes() // dt.itemsize
    if math.prod(shape) and storage_offset + storage_nbytes(shape, stride, 1) > numel:
        raise pickle.UnpicklingError(
            f"a tensor (offset {storage_offset}, size {list(shape)}, stride {list(stride)}) "
            f"reaches past the end of its storage of {numel} elements")
    return make_tensor(storage.untyped, shape, stride, storage_offset, dt)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    """`torch._utils._rebuild_tensor_v2` (hooks and metadata are not restored, as by torch
    for hooks)."""
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    return t.requires_grad_() if requires_grad else t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from ..nn import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    for values in state if isinstance(state, tuple) else (state,):
        for name, value in (values or {}).items():
            setattr(param, name, value)
    return param


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    from .. import empty_strided
    return empty_strided(size, stride, dtype=dtype, device="meta",
                         requires_grad=requires_grad)


def _rebuild_from_type_v2(func, new_type, args, state):
    """`torch._tensor._rebuild_from_type_v2`: a tensor with Python attributes."""
    t = func(*args)
    for name, value in (state or {}).items():
        setattr(t, name, value)
    return t


def _torch_names() -> dict:
    """The globals of torch's checkpoints that weights_only loads allow, by full name,
    and what ember loads for them."""
    from ..nn import Parameter
    names = {"collections.OrderedDict": collections.OrderedDict,
             "collections.Counter": collections.Counter,
             "torch.nn.parameter.Parameter": Parameter,
             "torch.Size": Size, "torch.Tensor": Tensor, "torch.device": _device,
             "_codecs.encode": __import__("codecs").encode,
             "builtins.bytearray": bytearray, "builtins.set": set, "builtins.complex": complex,
             "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
             "torch.storage.UntypedStorage": StorageType("UntypedStorage", D.uint8),
             "torch.UntypedStorage": StorageType("UntypedStorage", D.uint8)}
    names |= {f"torch.{dt.name}": dt for dt in D.ALL_DTYPES}
    names |= {f"torch.{name}": StorageType(name, dt) for name, dt in G.STORAGE_NAMES.items()}
    for f in (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_parameter,
              _rebuild_parameter_with_state, _rebuild_meta_tensor_no_storage):
        names[f"torch._utils.{f.__name__}"] = f
    return names


# --- the globals users allow ----------------------------------------------------------------
_user_safe_globals: set = set()


def user_allowed_globals() -> dict:
    """The globals `add_safe_globals` allowed, by full name."""
    names = {}
    for item in _user_safe_globals:
        if isinstance(item, tuple):
            if len(item) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(item)}")
            if type(item[1]) is not str:
                raise TypeError("Expected second item in tuple to be str of callable full "
                                f"path, but got: {type(item[1])}")
            names[item[1]] = item[0]
        else:
            names[f"{item.__module__}.{item.__qualname__}"] = item
    return names


# --- load -----------------------------------------------------------------------------------
def _full_name(module: str, name: str) -> tuple:
    """The (module, name) a protocol-2 pickle's global means in Python 3."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


class _Unpickler(pickle.Unpickler):
    """Unpickles data.pkl, loading storages through `load_storage`; torch's globals mean
    ember's objects (torch.nn.Linear means ember.nn.Linear, when ember has it)."""

    def __init__(self, file, load_storage):
        super().__init__(file, encoding="utf-8")
        self.load_storage = load_storage
        self.names = _torch_names()

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
                and isinstance(pid[1], StorageType) and isinstance(pid[2], str)):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return self.load_storage(*pid[1:])

    def find_class(self, module, name):
        module, name = _full_name(module, name)
        full = f"{module}.{name}"
        if full in self.names:
            return self.names[full]
        if module == "torch" and (name in _TORCH_ONLY_DTYPES or name.endswith("Storage")):
            raise RuntimeError(f"ember.load: the checkpoint uses {full}, a dtype ember does "
                               "not support")
        return self.find_other(module, name, full)

    def find_other(self, module, name, full):
        if module == "torch" or module.startswith("torch."):
            try:
                obj = importlib.import_module("ember" + module[5:])
                for part in name.split("."):
                    obj = getattr(obj, part)
                return obj
            except (ImportError, AttributeError):
                raise pickle.UnpicklingError(f"the checkpoint needs {full}, which ember does "
                                             "not have") from None
        return super().find_class(module, name)


def _ember_name(full: str) -> str:
    """ember's name for a global of torch's ("torch.nn.Linear" -> "ember.nn.Linear")."""
    return "ember" + full[len("torch"):] if full.startswith("torch.") else full


class _WeightsOnlyUnpickler(_Unpickler):
    """Allows only the globals of tensors, containers and dtypes, and those allowed with
    `add_safe_globals` (as torch's weights_only unpickler)."""

    def find_other(self, module, name, full):
        allowed = user_allowed_globals()
        for candidate in (full, _ember_name(full)):  # (torch's class: its ember twin allowed)
            if candidate in allowed:
                return allowed[candidate]
        raise pickle.UnpicklingError(
            f"Unsupported global: GLOBAL {full} was not an allowed global by default. "
            f"Please use `ember.serialization.add_safe_globals([{full}])` or the "
            f"`ember.serialization.safe_globals([{full}])` context manager to allowlist this "
            "global if you trust this class/function.")


_UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only "
    "if you got the file from a trusted source.")


def _weights_only_message(message: str) -> str:
    """torch's wording of a weights_only failure (with ember's names)."""
    docs = ("\n\nCheck the documentation of torch.load to learn more about types accepted by "
            "default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
    if "was not an allowed global by default" in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the "
                f"checkpoint\033[0m. \n\t(1) {_UNSAFE_MESSAGE}\n\t(2) Alternatively, to load "
                "with `weights_only=True` please check the recommended steps in the following "
                "error message.\n\tWeightsUnpickler error: " + message + docs)
    return (f"Weights only load failed. {_UNSAFE_MESSAGE}\nPlease file an issue with the "
            "following so that we can make `weights_only=True` compatible with your use case: "
            "WeightsUnpickler error: \n\n" + message + docs)


_ZIP_ERRORS = (zipfile.BadZipFile, NotImplementedError, ValueError, EOFError, struct.error,
               KeyError)  # what zipfile raises for a corrupt archive


def load(f, name: str, map_location, weights_only: bool, mmap: bool):
    """The object in the torch.save zip archive `f` (a seekable binary file)."""
    def fail(what):
        return RuntimeError(f"ember.load: {name!r} is not a valid torch.save zip archive: "
                            f"{what}")

    def read(record: str, mapped=None) -> np.ndarray:
        try:
            return _record_bytes(archive, record, mapped)
        except _ZIP_ERRORS as e:
            raise fail(f"record {record!r}: {e}") from None

    try:
        archive = zipfile.ZipFile(f)
    except _ZIP_ERRORS as e:
        raise fail(e) from None
    with archive:
        names = archive.namelist()
        prefix = names[0].split("/", 1)[0] if names else ""
        if f"{prefix}/data.pkl" not in names:
            raise fail("it has no data.pkl")
        byteorder = (read(f"{prefix}/byteorder").tobytes().decode("ascii", "replace")
                     if f"{prefix}/byteorder" in names else sys.byteorder)
        if byteorder not in ("little", "big"):
            raise fail(f"unknown byteorder {byteorder!r}")
        mapped = _mmap.mmap(f.fileno(), 0, access=_mmap.ACCESS_COPY) if mmap else None
        storages = {}

        def load_storage(storage_type, key, location, numel):
            if key not in storages:
                dtype, record = storage_type.dtype, f"{prefix}/data/{key}"
                if record not in names:
                    raise fail(f"it has no storage record {record!r}")
                data = read(record, mapped)
                if type(numel) is not int or data.nbytes != numel * dtype.itemsize:
                    raise fail(f"storage record {record!r} has {data.nbytes} bytes, not the "
                               f"{numel!r} elements of {dtype} its tensors need")
                array = data.view(dtype.np)
                if byteorder != sys.byteorder:
                    array = array.byteswap()
                storages[key] = TypedStorage(_place(Storage.of_array(array), location,
                                                    map_location), dtype)
            return storages[key]

        pickled = io.BytesIO(read(f"{prefix}/data.pkl").tobytes())
        unpickler = (_WeightsOnlyUnpickler if weights_only else _Unpickler)(pickled,
                                                                            load_storage)
        if not weights_only:
            return unpickler.load()
        try:
            return unpickler.load()
        except pickle.UnpicklingError as e:
            raise pickle.UnpicklingError(_weights_only_message(str(e))) from None


def _record_bytes(archive, record: str, mapped) -> np.ndarray:
    """A record's bytes as a writable uint8 array: a fresh copy, or a copy-on-write view of
    the memory-mapped file."""
    if mapped is None:
        return np.frombuffer(bytearray(archive.read(record)), np.uint8)
    info = archive.getinfo(record)
    if info.compress_type != zipfile.ZIP_STORED:
        raise RuntimeError(f"ember.load(mmap=True): record {record!r} is compressed")
    fields = _LOCAL_HEADER.unpack_from(mapped, info.header_offset)
    start = info.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1]
    return np.frombuffer(mapped, np.uint8, count=info.file_size, offset=start)


def _place(storage: Storage, location: str, map_location) -> Storage:
    """The loaded (cpu) storage on the device `map_location` says for its saved location."""
    if callable(map_location):
        result = map_location(storage, location)
        if result is not None:
            return result
        map_location = None
    if isinstance(map_location, dict):
        map_location = map_location.get(location, location)
    target = _device(location if map_location is None else map_location)
    if target.type == "cpu":
        return storage
    if target.type == "meta":
        return Storage(None, storage.nbytes(), META)
    if target.type == "cuda":
        from .. import cuda
        if not cuda.is_available():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but "
                "ember.cuda.is_available() is False. If you are running on a CPU-only machine, "
                "please use ember.load with map_location=ember.device('cpu') to map your "
                "storages to the CPU.")
    return make_tensor(storage, (storage.nbytes(),), (1,), 0, D.uint8).to(
        target).untyped_storage()


# --- save -----------------------------------------------------------------------------------
class _StorageId(tuple):
    """The persistent id of a storage: ("storage", storage type, record, location, numel)."""


class _Reduction:
    """A reduction to pickle as it is (a parameter's plain tensor)."""

    def __init__(self, value):
        self.value = value


class _TorchReductions:
    """What a pickler of torch's format does with ember's tensors, sizes and devices: torch's
    reductions, each storage a persistent id naming its record."""

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages = {}  # storage key -> (record key, dtype, storage): in saving order

    def persistent_id(self, obj):
        return tuple(obj) if type(obj) is _StorageId else None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            from ..nn import Parameter
            if isinstance(obj, Parameter):
                data = _Reduction(self.reduce_tensor(obj, False))
                return G.REBUILD_PARAMETER, (data, obj.requires_grad, _empty_hooks())
            return self.reduce_tensor(obj, obj.requires_grad)
        if type(obj) is _Reduction:
            return obj.value
        if isinstance(obj, Size):
            return G.SIZE, (tuple(obj),)
        if isinstance(obj, _device):
            return G.DEVICE, (str(obj),)
        return NotImplemented

    def reduce_tensor(self, t: Tensor, requires_grad: bool):
        shape, stride = tuple(t.shape), tuple(t.stride())
        if t.device.type == "meta":
            return G.REBUILD_META, (t.dtype, shape, stride, requires_grad)
        return G.REBUILD_TENSOR, (self.storage_id(t), t.storage_offset(), shape, stride,
                                  requires_grad, _empty_hooks())

    def storage_id(self, t: Tensor) -> tuple:
        """The persistent id of `t`'s storage: one record per storage, however many
        tensors view it."""
        st = t.untyped_storage()
        key = (st.data_ptr(), st.nbytes()) if st.data_ptr() else id(st)
        if key not in self.storages:
            self.storages[key] = (str(len(self.storages)), t.dtype, st)
        record, dtype, _ = self.storages[key]
        if dtype is not t.dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                               "data as different types")
        return _StorageId(("storage", G.STORAGE_TYPES[dtype], record, str(t.device),
                           st.nbytes() // dtype.itemsize))


def _empty_hooks():
    return _Reduction((G.ORDERED_DICT, ()))


class _PythonPickler(_TorchReductions, pickle._Pickler):
    """pickle's Python pickler, writing torch's globals by name: the reference of
    `_Pickler`'s bytes, and what pickles objects `_Pickler` cannot tell apart from
    its stand-ins."""

    dispatch = pickle._Pickler.dispatch.copy()

    def save_torch_name(self, obj: G.TorchName):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    dispatch[G.TorchName] = save_torch_name
    dispatch[D.dtype] = lambda self, dt: self.save(G.DTYPE_NAMES[dt])


_DTYPE_ATTRIBUTES = {value: name for name, value in vars(D).items() if type(value) is D.dtype}
# the global lines pickle's C pickler writes for torch's globals -> torch's names
_RENAMES = {f"c{D.__name__}\n{_DTYPE_ATTRIBUTES[dt]}\n".encode(): f"ctorch\n{dt.name}\n".encode()
            for dt in D.ALL_DTYPES}
_RENAMES |= {f"c{G.__name__}\n{g.attribute}\n".encode(): f"c{g.module}\n{g.name}\n".encode()
             for g in G.STAND_INS}
_STAND_IN_MODULES = (f"{D.__name__}\n".encode(), f"{G.__name__}\n".encode())
_STAND_IN_GLOBAL = re.compile(b"|".join(re.escape(line) for line in _RENAMES))


class _Pickler(_TorchReductions, pickle.Pickler):
    """pickle's C pickler, writing a dtype or a stand-in of torch's globals as a global of
    its ember module (`rename` turns them into torch's names); the same bytes as
    `_PythonPickler`, several times faster."""

    def __init__(self, file):
        super().__init__(file)
        self.stand_ins_written = 0

    def reducer_override(self, obj):
        cls = type(obj)
        if cls is D.dtype:  # (each object comes here once: the pickler memoizes its global)
            self.stand_ins_written += 1
            return _DTYPE_ATTRIBUTES[obj]
        if cls is G.TorchName:
            self.stand_ins_written += 1
            return obj.attribute
        return super().reducer_override(obj)

    def rename(self, pickled: bytes):
        """`pickled` with torch's names for the stand-ins, or None if the stand-ins' module
        names appear in it other than in the globals this pickler wrote (in a string, or
        in another global of these modules): then only the Python pickler is sound."""
        if sum(pickled.count(module) for module in _STAND_IN_MODULES) != self.stand_ins_written:
            return None
        return _STAND_IN_GLOBAL.sub(lambda line: _RENAMES[line[0]], pickled)


def _pickled(obj):
    """`obj` pickled as torch.save does, and the storages it holds (record, dtype, storage)."""
    data = io.BytesIO()
    pickler = _Pickler(data)
    pickler.dump(obj)
    pickled = pickler.rename(data.getvalue())
    if pickled is None:
        data = io.BytesIO()
        pickler = _PythonPickler(data)
        pickler.dump(obj)
        pickled = data.getvalue()
    return pickled, list(pickler.storages.values())


def save(obj, f, archive_name: str) -> None:
    """Writes `obj` to the binary file object `f` as torch.save does."""
    pickled, storages = _pickled(obj)
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as archive:
        start = archive.fp.tell()

        def write(name: str, payload) -> None:
            info = zipfile.ZipInfo(f"{archive_name}/{name}")
            size = memoryview(payload).nbytes
            header = (archive.fp.tell() - start + _LOCAL_HEADER.size + len(info.filename)
                      + 4 + (_ZIP64_EXTRA if size > zipfile.ZIP64_LIMIT else 0))
            info.extra = b"FB" + struct.pack("<H", -header % ALIGNMENT) + b"Z" * (
                -header % ALIGNMENT)
            info.file_size = size
            with archive.open(info, "w", force_zip64=size > zipfile.ZIP64_LIMIT) as out:
                out.write(payload)

        write("data.pkl", pickled)
        write(".format_version", b"1")
        write(".storage_alignment", str(ALIGNMENT).encode())
        write("byteorder", sys.byteorder.encode())
        for record, _, storage in storages:
            write(f"data/{record}", storage.bytes if storage.nbytes() else b"")
        write("version", b"3\n")
        write(".data/serialization_id", str(secrets.randbits(128)).zfill(40).encode())


def archive_name(f) -> str:
    """torch's name for the archive's folder: the file's name without its extension."""
    if isinstance(f, (str, bytes, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fsdecode(f)))[0] or "archive"
    return "archive"
