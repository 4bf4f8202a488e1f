"""ember.save / ember.load in torch's zip format, against the installed torch: files go
both ways (every dtype, views, shared storages, parameters, state_dicts), have torch's
records, load weights-only by default with torch's errors, and take mmap and map_location."""
import collections
import io
import pickle
import zipfile

import numpy as np
import pytest
from helpers import ALL_DTYPES, raises_like

import ember
import ember.serialization

torch = pytest.importorskip("torch")


def to_torch_file(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return buffer


def to_ember_file(obj):
    buffer = io.BytesIO()
    ember.save(obj, buffer)
    buffer.seek(0)
    return buffer


def random_pair(dt, shape, seed=0):
    """The same random tensor in ember and torch (every bit pattern; bools 0/1)."""
    rng = np.random.default_rng(seed)
    if dt is ember.bool:
        array = rng.integers(0, 2, shape).astype(bool)
    else:
        n = int(np.prod(shape)) * dt.itemsize
        array = rng.integers(0, 256, n, dtype=np.uint8).view(dt.np).reshape(shape)
    e = ember.from_numpy(array.copy())
    t = torch.from_numpy(array.view(np.int16) if dt is ember.bfloat16 else array.copy())
    return e, (t.view(torch.bfloat16) if dt is ember.bfloat16 else t)


VIEWS = {
    "whole": lambda b: b,
    "transpose": lambda b: b.t(),
    "slices": lambda b: b[1:, ::2],
    "column": lambda b: b[:, 1],
    "row": lambda b: b[2],
    "expand": lambda b: b[:, :1].expand(4, 3),
    "empty": lambda b: b[4:, 2:],
    "scalar": lambda b: b[1, 2],
}


def storage_bytes(x) -> bytes:
    """The bytes of a tensor's whole storage (ember or torch)."""
    if isinstance(x, torch.Tensor):
        return torch.empty(0, dtype=torch.uint8).set_(x.untyped_storage()).numpy().tobytes()
    return x.untyped_storage().bytes.tobytes()


def assert_like(e, t):
    """Tensors (ember or torch) alike bit for bit: dtype, shape, strides, offset, storage
    bytes, type and requires_grad."""
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    assert (tuple(e.shape), e.stride(), e.storage_offset()) == (
        tuple(t.shape), t.stride(), t.storage_offset())
    assert storage_bytes(e) == storage_bytes(t)
    assert (type(e).__name__, e.requires_grad) == (type(t).__name__, t.requires_grad)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("view", list(VIEWS))
def test_every_dtype_and_view_goes_both_ways(dt, view):
    e, t = random_pair(dt, (4, 6), seed=ALL_DTYPES.index(dt))
    e, t = VIEWS[view](e), VIEWS[view](t)
    assert_like(ember.load(to_torch_file(t)), t)
    assert_like(torch.load(to_ember_file(e)), t)


def shared(lib):
    t = lib.arange(12.).reshape(3, 4)
    w = lib.nn.Parameter(lib.ones(2, 3))
    return collections.OrderedDict(
        [("t", t), ("again", t), ("view", t[1:, ::2]), ("tied", w), ("tied_again", w),
         ("frozen", lib.nn.Parameter(lib.zeros(2), requires_grad=False)),
         ("grad", lib.ones(2, requires_grad=True)), ("ints", lib.arange(3)),
         ("meta", lib.empty(2, 3, device="meta")), ("size", lib.Size([2, 3])),
         ("dtype", lib.bfloat16), ("device", lib.device("cpu")),
         ("plain", [1, 2.5, None, "x", (True, b"by")]), ("set", {1, 2}), ("complex", 1 + 2j)])


def assert_structure_like(loaded, expected):
    assert list(loaded) == list(expected) and type(loaded) is collections.OrderedDict
    for key, t in expected.items():
        e = loaded[key]
        if isinstance(t, torch.Tensor):
            assert e.dtype.name == str(t.dtype).split(".")[1] and e.shape == tuple(t.shape)
            assert e.stride() == t.stride() and e.device.type == t.device.type
            assert (type(e).__name__, e.requires_grad) == (type(t).__name__, t.requires_grad)
            if t.device.type == "cpu":
                assert e.tolist() == t.tolist()
        elif isinstance(t, torch.dtype):
            assert e is getattr(ember, str(t).split(".")[1])
        elif isinstance(t, (torch.Size, torch.device)):
            assert type(e).__name__ == type(t).__name__ and str(e) == str(t).replace("torch", "ember")
        else:
            assert e == t and type(e) is type(t)
    assert loaded["t"] is loaded["again"] and loaded["tied"] is loaded["tied_again"]
    assert loaded["view"].untyped_storage().data_ptr() == loaded["t"].untyped_storage().data_ptr()
    assert loaded["view"].storage_offset() == expected["view"].storage_offset()


def test_torch_files_load_in_ember():
    assert_structure_like(ember.load(to_torch_file(shared(torch))), shared(torch))


def test_ember_files_load_in_torch():
    loaded = torch.load(to_ember_file(shared(ember)))
    expected = shared(torch)
    assert list(loaded) == list(expected)
    for key, t in expected.items():
        if isinstance(t, torch.Tensor):
            assert type(loaded[key]) is type(t) and loaded[key].stride() == t.stride()
            assert loaded[key].requires_grad == t.requires_grad and loaded[key].dtype == t.dtype
            if t.device.type == "cpu":
                assert torch.equal(loaded[key], t)
        else:
            assert loaded[key] == t and type(loaded[key]) is type(t)
    assert loaded["t"] is loaded["again"] and loaded["tied"] is loaded["tied_again"]
    assert loaded["view"].untyped_storage().data_ptr() == loaded["t"].untyped_storage().data_ptr()


def test_the_archive_has_torchs_records(tmp_path):
    """Same record names, in the same order, with the same storage bytes, aligned to 64."""
    for name, f in [("archive", None), ("model", tmp_path / "model.pt")]:
        target_e, target_t = (f, tmp_path / "torch" / "model.pt") if f else (
            io.BytesIO(), io.BytesIO())
        (tmp_path / "torch").mkdir(exist_ok=True)
        ember.save(shared(ember), target_e)
        torch.save(shared(torch), target_t)
        ze, zt = zipfile.ZipFile(target_e), zipfile.ZipFile(target_t)
        assert ze.namelist() == zt.namelist() and ze.namelist()[0] == f"{name}/data.pkl"
        for info in ze.infolist():
            if "/data/" in info.filename or info.filename.endswith(("version", "byteorder",
                                                                     "alignment")):
                assert ze.read(info.filename) == zt.read(info.filename), info.filename
            assert info.compress_type == zipfile.ZIP_STORED
            raw = f.read_bytes() if f else target_e.getvalue()
            start = info.header_offset + 30 + int.from_bytes(
                raw[info.header_offset + 26:info.header_offset + 28], "little") + int.from_bytes(
                raw[info.header_offset + 28:info.header_offset + 30], "little")
            assert start % 64 == 0 and raw[start:start + info.file_size] == ze.read(info.filename)


def nested_containers():
    t = ember.arange(6.).reshape(2, 3)
    looped = [t]
    looped.append(looped)
    return {"nested": [t, (t.t(), {"again": t[:, ::2], "p": ember.nn.Parameter(t.clone())})],
            "looped": looped, "many": {i: float(i) for i in range(1003)},
            "scalars": (2 ** 70, -1, 0.5, "\u00e9t\u00e9", b"", b"\x00\xff", bytearray(b"ab"),
                        frozenset({1}), ember.int64, ember.bool, ember.float16),
            "grad": ember.ones(3, requires_grad=True)}


def optimizer_state():
    p = ember.nn.Parameter(ember.ones(3))
    opt = ember.optim.SGD([p], lr=0.1, momentum=0.9)
    p.sum().backward()
    opt.step()
    return opt.state_dict()


PICKLED_OBJECTS = {"shared": lambda: shared(ember), "model": lambda: language_model(ember),
                   "state_dict": lambda: language_model(ember).state_dict(),
                   "nested": nested_containers, "optimizer": optimizer_state}


@pytest.mark.parametrize("name", list(PICKLED_OBJECTS))
def test_the_c_pickler_writes_the_python_picklers_bytes(name):
    """ember.save pickles with pickle's C pickler (stand-ins renamed to torch's globals): its
    data.pkl and storage records are those of pickle's Python pickler, byte for byte."""
    from ember.serialization import _torch_zip
    obj = PICKLED_OBJECTS[name]()
    buffer = io.BytesIO()
    fast = _torch_zip._Pickler(buffer)
    fast.dump(obj)
    pickled = fast.rename(buffer.getvalue())
    buffer = io.BytesIO()
    reference = _torch_zip._PythonPickler(buffer)
    reference.dump(obj)
    assert pickled == buffer.getvalue()
    assert list(fast.storages.values()) == list(reference.storages.values())
    assert b"_torch_globals" not in pickled and b"ember.core.dtype" not in pickled


def test_user_data_naming_the_stand_ins_is_saved_by_the_python_pickler():
    """Strings or globals holding the stand-ins' module names keep their bytes: such objects
    go to the Python pickler, and torch loads them as they were."""
    from ember.serialization import _torch_globals, _torch_zip
    tricky = [f"c{_torch_globals.__name__}\ntorch__Size\n", b"cember.core.dtype\nbool_\n",
              f"{_torch_globals.__name__}\n", _torch_globals.SIZE]
    for value in tricky:
        obj = {"value": value, "t": ember.arange(3), "dtype": ember.bool}
        buffer = io.BytesIO()
        fast = _torch_zip._Pickler(buffer)
        fast.dump(obj)
        assert fast.rename(buffer.getvalue()) is None or value is _torch_globals.SIZE
        loaded = torch.load(to_ember_file(obj), weights_only=False)
        assert loaded["dtype"] is torch.bool and loaded["t"].tolist() == [0, 1, 2]
        if value is _torch_globals.SIZE:
            assert loaded["value"] is torch.Size
        else:
            assert loaded["value"] == value
    with pytest.raises(pickle.UnpicklingError, match="ember.core.dtype"):
        ember.load(to_ember_file({"class": ember.core.dtype.dtype}))
    assert ember.load(to_ember_file({"class": ember.core.dtype.dtype}),
                      weights_only=False)["class"] is ember.core.dtype.dtype


def test_state_dicts_move_between_torch_and_ember_models():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2),
                             torch.nn.BatchNorm1d(2))
    em = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 2),
                             ember.nn.BatchNorm1d(2))
    em.load_state_dict(ember.load(to_torch_file(tm.state_dict())))
    for (name, e), (_, t) in zip(em.state_dict().items(), tm.state_dict().items()):
        assert_like(e, t)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    tm.eval(), em.eval()
    np.testing.assert_allclose(em(ember.from_numpy(x)).detach().numpy(),
                               tm(torch.from_numpy(x)).detach().numpy(), rtol=1e-6, atol=1e-7)
    tm2 = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2),
                              torch.nn.BatchNorm1d(2)).eval()
    tm2.load_state_dict(torch.load(to_ember_file(em.state_dict())))
    for (name, e), (_, t) in zip(em.state_dict().items(), tm2.state_dict().items()):
        assert_like(e, t)


def test_optimizer_state_dicts_go_both_ways():
    p = ember.nn.Parameter(ember.ones(3))
    opt = ember.optim.Adam([p], lr=0.1)
    p.sum().backward()
    opt.step()
    loaded = torch.load(to_ember_file(opt.state_dict()))
    assert loaded["param_groups"] == opt.state_dict()["param_groups"]
    assert torch.equal(loaded["state"][0]["exp_avg"], torch.tensor(opt.state[p]["exp_avg"].tolist()))
    again = ember.load(to_torch_file(loaded))
    assert again["state"][0]["exp_avg"].tolist() == opt.state[p]["exp_avg"].tolist()


# --- weights_only --------------------------------------------------------------------------
def torch_names(message: str) -> str:
    return message.replace("ember.serialization", "torch.serialization")


def test_weights_only_refuses_other_globals_with_torchs_message():
    obj = {"a": np.arange(3.0)}
    with pytest.raises(pickle.UnpicklingError) as te:
        torch.load(to_torch_file(obj))
    with pytest.raises(pickle.UnpicklingError) as ee:
        ember.load(to_ember_file(obj))
    assert torch_names(str(ee.value)) == str(te.value)
    with pytest.raises(pickle.UnpicklingError) as ee:
        ember.load(to_torch_file(obj))
    assert torch_names(str(ee.value)) == str(te.value)


def test_weights_only_false_loads_anything():
    obj = {"array": np.arange(6.0).reshape(2, 3), "scalar": np.float32(2.5), "n": 3}
    for f in (to_torch_file(obj), to_ember_file(obj)):
        loaded = ember.load(f, weights_only=False)
        np.testing.assert_array_equal(loaded["array"], obj["array"])
        assert loaded["scalar"] == obj["scalar"] and type(loaded["scalar"]) is np.float32
    assert torch.load(to_ember_file(obj), weights_only=False)["n"] == 3


def test_safe_globals_allow_a_global():
    reconstruct = type(np.arange(1).__reduce__()[0]) and np.arange(1).__reduce__()[0]
    allowed = [reconstruct, np.ndarray, np.dtype, type(np.dtype(np.float64))]
    obj = {"a": np.arange(3.0)}
    assert ember.serialization.get_safe_globals() == []
    with ember.serialization.safe_globals(allowed):
        assert set(ember.serialization.get_safe_globals()) == set(allowed)
        np.testing.assert_array_equal(ember.load(to_torch_file(obj))["a"], obj["a"])
    assert ember.serialization.get_safe_globals() == []
    ember.serialization.add_safe_globals(allowed)
    try:
        np.testing.assert_array_equal(ember.load(to_ember_file(obj))["a"], obj["a"])
    finally:
        ember.serialization.clear_safe_globals()
    assert ember.serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        ember.load(to_ember_file(obj))


class Point:
    def __init__(self, x):
        self.x = x


def test_safe_globals_by_name_and_whole_modules():
    with ember.serialization.safe_globals([(Point, "test_torch_format.Point")]):
        assert ember.load(to_ember_file(Point(3)), weights_only=True).x == 3
    model = ember.nn.Sequential(ember.nn.Linear(2, 3), ember.nn.ReLU())
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL ember.nn.modules.container"):
        ember.load(to_ember_file(model))
    loaded = ember.load(to_ember_file(model), weights_only=False)
    x = ember.ones(4, 2)
    assert type(loaded) is ember.nn.Sequential and loaded(x).tolist() == model(x).tolist()
    assert loaded[0].weight is not model[0].weight


def test_pickle_module_with_weights_only_raises_like_torch():
    assert ember.load(to_ember_file({"a": [1]}), pickle_module=pickle) == {"a": [1]}
    raises_like(lambda: ember.load(to_ember_file(1), pickle_module=pickle, weights_only=True),
                lambda: torch.load(to_torch_file(1), pickle_module=pickle, weights_only=True),
                "Can not safely load weights when explicit pickle_module is specified")


# --- mmap and map_location -----------------------------------------------------------------
@pytest.mark.parametrize("writer", ["torch", "ember"])
def test_mmap_maps_storages_copy_on_write(writer, tmp_path):
    path = tmp_path / "w.pt"
    (torch.save if writer == "torch" else ember.save)(
        {"w": (torch if writer == "torch" else ember).arange(6.).reshape(2, 3)}, path)
    before = path.read_bytes()
    w = ember.load(path, mmap=True)["w"]
    assert w.tolist() == [[0, 1, 2], [3, 4, 5]]
    w.add_(1)  # a private mapping: the file stays as it was
    assert w.tolist() == [[1, 2, 3], [4, 5, 6]] and path.read_bytes() == before
    assert ember.load(path)["w"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_mmap_needs_a_path():
    raises_like(lambda: ember.load(to_ember_file(ember.ones(1)), mmap=True),
                lambda: torch.load(to_torch_file(torch.ones(1)), mmap=True))
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap"):
        ember.load(to_ember_file(ember.ones(1)), mmap=True)


def test_map_location_functions_and_devices():
    f = to_torch_file({"w": torch.ones(2)})
    seen = []
    loaded = ember.load(f, map_location=lambda storage, location: seen.append(location))
    assert seen == ["cpu"] and loaded["w"].tolist() == [1.0, 1.0]
    f.seek(0)
    assert ember.load(f, map_location=lambda storage, loc: storage)["w"].device.type == "cpu"
    f.seek(0)
    assert ember.load(f, map_location="meta")["w"].device.type == "meta"


def test_cuda_checkpoints_need_a_map_location_on_cpu_machines():
    data = to_ember_file({"w": ember.ones(2)}).getvalue()
    archive = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(archive, "w") as dst:
        for info in src.infolist():
            payload = src.read(info.filename) if "data.pkl" not in info.filename else \
                src.read(info.filename).replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            dst.writestr(info.filename, payload)
    archive.seek(0)
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        ember.load(archive)
    archive.seek(0)
    assert ember.load(archive, map_location="cpu")["w"].tolist() == [1.0, 1.0]
    archive.seek(0)
    assert ember.load(archive, map_location={"cuda:0": "cpu"})["w"].tolist() == [1.0, 1.0]


# --- other files ---------------------------------------------------------------------------
def test_ember_files_of_the_safetensors_format_still_load_at_any_path(tmp_path):
    from ember.serialization import _safetensors
    with open(tmp_path / "old.pt", "wb") as f:
        _safetensors.save({"w": ember.arange(3.), "step": 2}, f)
    assert ember.load(tmp_path / "old.pt")["w"].tolist() == [0.0, 1.0, 2.0]


def test_complex_torch_files_load():
    """torch's ComplexFloatStorage / ComplexDoubleStorage are ember's complex64/complex128
    (issue 22; they were refused before ember had complex dtypes)."""
    for dt, name in ((torch.complex64, "complex64"), (torch.complex128, "complex128")):
        z = torch.tensor([1 + 2j, -3j], dtype=dt)
        out = ember.load(to_torch_file({"z": z}))["z"]
        assert out.dtype is getattr(ember, name) and out.tolist() == z.tolist()


def test_legacy_torch_files_raise_clearly():
    buffer = io.BytesIO()
    torch.save(torch.ones(2), buffer, _use_new_zipfile_serialization=False)
    buffer.seek(0)
    with pytest.raises(RuntimeError, match="legacy format"):
        ember.load(buffer)


def test_corrupt_archives_raise_runtime_error_naming_the_file():
    data = to_ember_file({"w": ember.ones(3, 2), "b": [ember.zeros(2, dtype=ember.int64), 1]}
                         ).getvalue()
    for cut in range(4, len(data), 5):
        with pytest.raises(RuntimeError, match="not a valid"):
            ember.load(io.BytesIO(data[:cut]))
    for i in range(0, len(data), 3):
        corrupt = bytearray(data)
        corrupt[i] ^= 0x55
        try:
            ember.load(io.BytesIO(bytes(corrupt)))
        except RuntimeError as e:
            assert "BytesIO" in str(e)


def test_what_pickle_cannot_store_raises():
    with pytest.raises((pickle.PicklingError, AttributeError), match="local"):
        torch.save({"f": lambda: 0}, io.BytesIO())
    with pytest.raises((pickle.PicklingError, AttributeError), match="local"):
        ember.save({"f": lambda: 0}, io.BytesIO())


def language_model(lib):
    """word_language_model's pattern: a user Module class holding library layers."""
    class Model(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = lib.nn.Embedding(10, 4)
            self.drop = lib.nn.Dropout(0.1)
            self.attention = lib.nn.MultiheadAttention(4, 2)
            self.decoder = lib.nn.Linear(4, 3)

        def forward(self, x):
            h = self.drop(self.encoder(x))
            return self.decoder(self.attention(h, h, h)[0])
    Model.__qualname__ = Model.__name__ = f"Model_{lib.__name__}"
    globals()[Model.__name__] = Model  # (picklable by name, as a script's class is)
    return Model().eval()


def test_whole_models_load_under_safe_globals_like_torch():
    """torch.save(model) / torch.load under safe_globals listing the classes used; without
    NonDynamicallyQuantizableLinear (inside MultiheadAttention) both refuse, naming it."""
    from torch.nn.modules.linear import NonDynamicallyQuantizableLinear as TNDQL

    from ember.nn.modules.linear import NonDynamicallyQuantizableLinear as ENDQL
    results = []
    for lib, save, load, save_globals, ndql in [
            (ember, ember.save, ember.load, ember.serialization.safe_globals, ENDQL),
            (torch, torch.save, torch.load, torch.serialization.safe_globals, TNDQL)]:
        model = language_model(lib)
        buffer = io.BytesIO()
        save(model, buffer)
        classes = [type(model), lib.nn.Embedding, lib.nn.Dropout, lib.nn.MultiheadAttention,
                   lib.nn.Linear]
        buffer.seek(0)
        with save_globals(classes), pytest.raises(pickle.UnpicklingError) as refused:
            load(buffer)
        assert "NonDynamicallyQuantizableLinear" in str(refused.value)
        buffer.seek(0)
        with save_globals([*classes, ndql]):
            loaded = load(buffer)
        x = lib.tensor([[1, 2, 3]])
        assert type(loaded) is type(model) and lib.equal(loaded(x), model(x))
        results.append(sorted(name for name, _ in loaded.named_parameters()))
    assert results[0] == results[1]


def test_whole_torch_modules_load_as_embers():
    """A module torch.save pickled loads as ember's classes (torch.nn.X means ember.nn.X):
    with weights_only=False, or with ember's classes allowed as safe globals."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    x = [[1.0, 2.0, 3.0]]
    loaded = ember.load(to_torch_file(model), weights_only=False)
    assert type(loaded) is ember.nn.Sequential and type(loaded[0]) is ember.nn.Linear
    np.testing.assert_allclose(loaded(ember.tensor(x)).detach().numpy(),
                               model(torch.tensor(x)).detach().numpy(), rtol=1e-6)
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.container.Sequential"):
        ember.load(to_torch_file(model))
    with ember.serialization.safe_globals([ember.nn.Sequential, ember.nn.Linear,
                                           ember.nn.ReLU]):
        again = ember.load(to_torch_file(model))
    assert again(ember.tensor(x)).tolist() == loaded(ember.tensor(x)).tolist()
