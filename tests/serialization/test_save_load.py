"""ember.save / ember.load in both formats (torch's zip, the default, and safetensors, for
`*.safetensors` paths): bit-exact round trips of every dtype and layout, nested
structures, file objects and paths, shared storage kept as torch keeps it, atomic
writes, interop with the safetensors library, and clear errors for corrupt files.
Interop with torch.save / torch.load is in test_torch_format.py."""
import collections
import doctest
import io
import json
import math
import os
import pathlib
import struct

import numpy as np
import pytest
from helpers import ALL_DTYPES, check, raises_like

import ember
import ember.serialization
from ember.serialization import _safetensors

safetensors_numpy = pytest.importorskip("safetensors.numpy")


FORMATS = ["torch", "safetensors"]


def round_trip(obj, fmt="torch", **load_options):
    """`obj` saved in format `fmt` to a buffer and loaded."""
    buffer = io.BytesIO()
    (ember.save if fmt == "torch" else _safetensors.save)(obj, buffer)
    buffer.seek(0)
    return ember.load(buffer, **load_options)


def random_tensor(dt, shape, seed=0):
    """A tensor of `shape` whose bytes are random (every bit pattern, NaN payloads and
    subnormals included; bools 0/1)."""
    rng = np.random.default_rng(seed)
    if dt is ember.bool:
        return ember.from_numpy(rng.integers(0, 2, shape).astype(bool))
    raw = rng.integers(0, 256, math.prod(shape) * dt.itemsize, dtype=np.uint8)
    return ember.from_numpy(raw.view(dt.np).reshape(shape))


def bits(t):
    """The tensor's values as raw bytes, in row-major order."""
    return np.ascontiguousarray(t.detach().numpy()).tobytes()


def assert_bit_exact(loaded, original):
    assert type(loaded) is ember.Tensor
    assert loaded.dtype is original.dtype and loaded.shape == original.shape
    assert bits(loaded) == bits(original)
    assert loaded.is_contiguous()


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 0, 2), (4, 7), (2, 3, 5)], ids=str)
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_dtype_round_trips_bit_exact(dt, shape, fmt):
    t = random_tensor(dt, shape, seed=len(shape))
    assert_bit_exact(round_trip(t, fmt), t)


@pytest.mark.parametrize("dt", [ember.float16, ember.bfloat16, ember.float32, ember.float64],
                         ids=str)
@pytest.mark.parametrize("fmt", FORMATS)
def test_special_float_values(dt, fmt):
    t = ember.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, 65504.0]).to(dt)
    assert_bit_exact(round_trip({"x": t}, fmt)["x"], t)


@pytest.mark.parametrize("view", [
    lambda b: b.t(),
    lambda b: b[1:, ::2],
    lambda b: b[:, 1],
    lambda b: b[2],
    lambda b: b.unsqueeze(1).expand(4, 3, 6),
    lambda b: b[::2, 1:5:2],
])
def test_views_and_non_contiguous_tensors_are_saved_as_values_in_safetensors(view):
    base = random_tensor(ember.float32, (4, 6), seed=3)
    v = view(base)
    loaded = round_trip({"v": v}, "safetensors")["v"]
    assert_bit_exact(loaded, v)


@pytest.mark.parametrize("fmt", FORMATS)
def test_loaded_tensors_are_fresh_and_writable(fmt):
    t = ember.arange(4, dtype=ember.int32)
    loaded = round_trip(t, fmt)
    loaded += 1
    assert loaded.tolist() == [1, 2, 3, 4] and t.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("fmt", FORMATS)
def test_nested_structure_round_trips(fmt):
    w = random_tensor(ember.float64, (2, 2))
    obj = {
        "model": collections.OrderedDict([("fc.weight", w), ("fc.bias", ember.zeros(2))]),
        "optimizer": {"state": {0: {"step": ember.tensor(3.0), "buf": None}},
                      "param_groups": [{"lr": 0.1, "params": [0, 1], "nesterov": False,
                                        "betas": (0.9, 0.999), "eps": 1e-8}]},
        "epoch": 7, "big": 2**80, "neg": -3, "ratio": 0.25, "nan": math.nan, "inf": -math.inf,
        "name": "digits \u2713", "empty": ([], {}, ()), "nothing": None, "flag": True,
        (1, "pair"): "tuple key", 2.5: "float key", None: "none key",
        "shape": ember.Size([3, 4]), "dtype": ember.bfloat16, "device": ember.device("cpu"),
    }
    loaded = round_trip(obj, fmt)
    assert list(loaded) == list(obj)
    assert type(loaded["model"]) is collections.OrderedDict
    assert list(loaded["model"]) == ["fc.weight", "fc.bias"]
    assert_bit_exact(loaded["model"]["fc.weight"], w)
    state = loaded["optimizer"]["state"]
    assert list(state) == [0] and state[0]["buf"] is None and state[0]["step"].item() == 3.0
    group = loaded["optimizer"]["param_groups"][0]
    assert group == {"lr": 0.1, "params": [0, 1], "nesterov": False, "betas": (0.9, 0.999),
                     "eps": 1e-8}
    assert type(group["betas"]) is tuple and type(group["params"]) is list
    assert loaded["epoch"] == 7 and type(loaded["epoch"]) is int and loaded["big"] == 2**80
    assert loaded["ratio"] == 0.25 and type(loaded["ratio"]) is float
    assert math.isnan(loaded["nan"]) and loaded["inf"] == -math.inf
    assert loaded["name"] == "digits \u2713" and loaded["empty"] == ([], {}, ())
    assert loaded["nothing"] is None and loaded["flag"] is True
    assert loaded[(1, "pair")] == "tuple key" and loaded[2.5] == "float key"
    assert loaded[None] == "none key"
    assert loaded["shape"] == ember.Size([3, 4]) and type(loaded["shape"]) is ember.Size
    assert loaded["dtype"] is ember.bfloat16 and loaded["device"] == ember.device("cpu")


@pytest.mark.parametrize("fmt", FORMATS)
def test_clashing_tensor_names_get_unique_ones(fmt):
    obj = {"a.b": ember.zeros(1), "a": {"b": ember.ones(1)}, "a.b#1": ember.full((1,), 2.0)}
    loaded = round_trip(obj, fmt)
    assert [loaded["a.b"].item(), loaded["a"]["b"].item(), loaded["a.b#1"].item()] == [0, 1, 2]


@pytest.mark.parametrize("fmt", FORMATS)
def test_requires_grad_is_restored(fmt):
    loaded = round_trip({"w": ember.ones(2, requires_grad=True), "x": ember.ones(2)}, fmt)
    assert loaded["w"].requires_grad and loaded["w"].is_leaf
    assert not loaded["x"].requires_grad
    loaded["w"].sum().backward()
    assert loaded["w"].grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_tensor_that_is_a_graph_output_saves_its_values(fmt):
    x = ember.ones(3, requires_grad=True)
    loaded = round_trip(x * 2, fmt)
    assert loaded.tolist() == [2.0, 2.0, 2.0] and loaded.requires_grad and loaded.is_leaf


def test_paths_and_file_objects(tmp_path):
    t = random_tensor(ember.int16, (3, 3))
    ember.save({"t": t}, tmp_path / "a.safetensors")  # a pathlib.Path
    assert_bit_exact(ember.load(tmp_path / "a.safetensors")["t"], t)
    ember.save([t], str(tmp_path / "b.safetensors"))  # a str
    assert_bit_exact(ember.load(str(tmp_path / "b.safetensors"))[0], t)
    with open(tmp_path / "c.safetensors", "wb") as f:  # real file objects
        ember.save(t, f)
    with open(tmp_path / "c.safetensors", "rb") as f:
        assert_bit_exact(ember.load(f), t)
    assert (tmp_path / "c.safetensors").read_bytes()[:4] != b"PK\x03\x04"
    for path in (tmp_path / "d.pt", str(tmp_path / "e"), os.fsencode(tmp_path / "f.pt")):
        ember.save({"t": t}, path)  # torch's format elsewhere
        assert_bit_exact(ember.load(path)["t"], t)
        assert pathlib.Path(os.fsdecode(path)).read_bytes()[:4] == b"PK\x03\x04"
    assert sorted(os.listdir(tmp_path)) == ["a.safetensors", "b.safetensors",
                                            "c.safetensors", "d.pt", "e", "f.pt"]


@pytest.mark.parametrize("name", ["t.safetensors", "t.pt"])
def test_text_mode_file_raises(name, tmp_path):
    ember.save(ember.ones(2), tmp_path / name)
    with open(tmp_path / name, encoding="latin-1") as f, \
            pytest.raises(TypeError, match="binary mode"):
        ember.load(f)


@pytest.mark.parametrize("fmt", FORMATS)
def test_map_location_and_torch_compatible_options(fmt):
    t = ember.arange(3.)
    for where in (None, "cpu", ember.device("cpu"), {"cpu": "cpu"}):
        assert round_trip(t, fmt, map_location=where).device == ember.device("cpu")
    meta = round_trip({"t": t}, fmt, map_location="meta")["t"]
    assert meta.device.type == "meta" and meta.shape == (3,)
    assert round_trip(t, fmt, map_location={"cuda:0": "cpu"}).tolist() == [0.0, 1.0, 2.0]
    assert (round_trip(t, fmt, weights_only=True).tolist()
            == round_trip(t, fmt, weights_only=False).tolist())
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        round_trip(t, fmt, pickle_module=json, weights_only=True)
    with pytest.raises(ValueError, match="pickle module only"):
        round_trip(t, fmt, pickle_module=json)


def test_map_location_functions_in_safetensors_files_raise():
    with pytest.raises(TypeError, match="map_location must be a device"):
        round_trip(ember.ones(1), "safetensors", map_location=lambda storage, loc: storage)


@pytest.mark.parametrize("obj, phrase", [
    ({"f": lambda: 0}, "object of type function"),
    ({"a": [np.zeros(2)]}, "object of type ndarray"),
    (collections.namedtuple("P", "x")(1), "object of type P"),
    ({"s": {1, 2}}, "object of type set"),
    ({ember.ones(1): 1}, "dict key of type Tensor"),
])
def test_unsupported_objects_raise_type_error_in_safetensors(obj, phrase):
    with pytest.raises(TypeError, match=phrase):
        _safetensors.save(obj, io.BytesIO())


def test_meta_tensors_cannot_be_saved_in_safetensors():
    with pytest.raises(RuntimeError, match="meta tensor at 'w'"):
        _safetensors.save({"w": ember.empty(2, device="meta")}, io.BytesIO())


# --- shared storage, as torch.save / torch.load keep it ------------------------------------
def shared_structures(lib):
    """Lists of tensors (of `lib`, ember or torch) some of which share storage."""
    t = lib.arange(12.).reshape(3, 4)
    w = lib.ones(2, 3, requires_grad=True)
    p = lib.nn.Parameter(lib.arange(4.))
    return {
        "repeated_and_view": [t, t, t[1:]],
        "strided_views": [t, t.t(), t[1], t[:, ::2], t[0, :1].expand(3, 2), t.flatten()],
        "no_view_covers_the_span": [t[0, 1:3], t.view(-1)[2:6], t[2]],
        "views_of_a_part": [t[1, 1:], t[1, 2:]],
        "grad_leaf_and_view": [w, w[1:], w.detach()],
        "tied_parameter": [p, p, p.detach(), lib.nn.Parameter(p.detach()[1:], False)],
        "separate_storages": [t, t.clone(), lib.arange(3)],
    }


def assert_loaded_like_torch(loaded, expected):
    """Same values, dtypes, shapes, strides, types and requires_grad; the same tensors
    are one object, and the same ones share storage at the same relative places."""
    torch = pytest.importorskip("torch")
    assert len(loaded) == len(expected)
    for e, t in zip(loaded, expected):
        check(e.detach(), t.detach())
        assert (type(e).__name__, e.requires_grad, e.is_leaf) == (
            type(t).__name__, t.requires_grad, t.is_leaf)
    for (e1, t1) in zip(loaded, expected):
        for (e2, t2) in zip(loaded, expected):
            assert (e1 is e2) == (t1 is t2)
            shared = e1.untyped_storage().data_ptr() == e2.untyped_storage().data_ptr()
            assert shared == (t1.untyped_storage().data_ptr() == t2.untyped_storage().data_ptr())
            if shared:
                assert e1.data_ptr() - e2.data_ptr() == t1.data_ptr() - t2.data_ptr()
    with ember.no_grad(), torch.no_grad():  # writing the first shows in those sharing it
        loaded[0].mul_(-1).add_(0.5)
        expected[0].mul_(-1).add_(0.5)
    for e, t in zip(loaded, expected):
        check(e.detach(), t.detach())


@pytest.mark.parametrize("case", list(shared_structures(ember)))
@pytest.mark.parametrize("fmt", FORMATS)
def test_shared_storage_loads_as_with_torch(case, fmt):
    torch = pytest.importorskip("torch")
    buffer = io.BytesIO()
    torch.save(shared_structures(torch)[case], buffer)
    buffer.seek(0)
    assert_loaded_like_torch(round_trip(shared_structures(ember)[case], fmt), torch.load(buffer))


@pytest.mark.parametrize("fmt", FORMATS)
def test_shared_storage_at_any_depth_and_in_dicts(fmt):
    t = ember.arange(6.)
    loaded = round_trip({"a": t, "nested": {"b": [t], "v": t[2:]}}, fmt)
    assert loaded["a"] is loaded["nested"]["b"][0]
    loaded["a"][3] = 100.0
    assert loaded["nested"]["v"].tolist() == [2.0, 100.0, 4.0, 5.0] and t[3].item() == 3.0


def test_a_storage_is_stored_once_in_safetensors():
    def size_of(obj):
        buffer = io.BytesIO()
        _safetensors.save(obj, buffer)
        return len(buffer.getvalue())

    big = ember.zeros(1000, 100)
    one = size_of([big])
    assert size_of([big] * 1000) - one < 20_000  # a reference, not 400 kB each
    assert size_of([big[i] for i in range(1000)]) - one < 100_000  # views: 400 kB once
    assert size_of([big[7], big[7, :3]]) < 1_000  # the span they cover, not all of big


@pytest.mark.parametrize("fmt", FORMATS)
def test_tensors_viewing_one_storage_as_different_dtypes_raise_like_torch(fmt):
    torch = pytest.importorskip("torch")
    e, t = ember.ones(2), torch.ones(2)
    save = ember.save if fmt == "torch" else _safetensors.save
    raises_like(lambda: save([e, e.view(ember.int32)], io.BytesIO()),
                lambda: torch.save([t, t.view(torch.int32)], io.BytesIO()),
                "Cannot save multiple tensors or storages that view the same data as different "
                "types")


def test_shared_storage_entries_for_the_safetensors_library(tmp_path):
    """A storage is one safetensors entry, named after the tensor that covers it (as
    safetensors' save_model keeps one name of tied weights), else "<first name>#storage"."""
    t = ember.arange(6.)
    ember.save({"a": t, "b": t[2:], "c": t}, tmp_path / "tied.safetensors")
    arrays = safetensors_numpy.load_file(str(tmp_path / "tied.safetensors"))
    assert list(arrays) == ["a"] and arrays["a"].tolist() == t.tolist()
    ember.save({"x": t[1:4], "y": t[3:5]}, tmp_path / "span.safetensors")
    arrays = safetensors_numpy.load_file(str(tmp_path / "span.safetensors"))
    assert list(arrays) == ["x#storage"] and arrays["x#storage"].tolist() == [1, 2, 3, 4]


def test_a_tensor_referenced_many_times_loads_once(tmp_path):
    """Both formats: references to one tensor give one tensor, not a copy each."""
    body = np.arange(1000, dtype=np.float32).tobytes()
    entry = {"dtype": "F32", "shape": [1000], "data_offsets": [0, 4000]}
    for version, node in [(1, {"tensor": "x"}), (2, {"tensor": 0})]:
        structure = {"version": version, "root": {"list": [node] * 100_000},
                     "tensors": [{"storage": "x"}]}
        data = file_of({"__metadata__": {"ember.structure": json.dumps(structure)}, "x": entry},
                       body)
        loaded = load_bytes(data, tmp_path)
        assert len(loaded) == 100_000 and all(t is loaded[0] for t in loaded)
        assert loaded[0].tolist() == list(range(1000))


def version_2_file(records, root=None, shape=(6,)):
    """A file with one F32 entry "x" of `shape` and these tensor records."""
    n = math.prod(shape)
    structure = {"version": 2, "root": {"list": [{"tensor": i} for i in range(len(records))]}
                 if root is None else root, "tensors": records}
    entry = {"dtype": "F32", "shape": list(shape), "data_offsets": [0, 4 * n]}
    return file_of({"__metadata__": {"ember.structure": json.dumps(structure)}, "x": entry},
                   np.arange(n, dtype=np.float32).tobytes())


def test_crafted_views_load(tmp_path):
    loaded = load_bytes(version_2_file([
        {"storage": "x"}, {"storage": "x", "offset": 1, "shape": [2, 2], "stride": [2, 1]},
        {"storage": "x", "offset": 5, "shape": [10**9, 10**9], "stride": [0, 0]},
        {"storage": "x", "offset": 10**9, "shape": [0, 3], "stride": [3, 1]}]), tmp_path)
    assert loaded[1].tolist() == [[1, 2], [3, 4]] and loaded[1].stride() == (2, 1)
    assert loaded[2].shape == (10**9, 10**9) and loaded[2][7, 8].item() == 5  # no copy
    assert loaded[3].shape == (0, 3)  # empty views may start anywhere (as in torch)


VIEW = {"storage": "x", "offset": 0, "shape": [6], "stride": [1]}


@pytest.mark.parametrize("records, root, phrase", [
    ([{"storage": "y"}], None, "refers to a tensor 'y' the file does not have"),
    ([{"storage": ["x"]}], None, "refers to a tensor ['x']"),
    (["x"], None, "refers to a tensor None"),
    ([VIEW], {"tensor": 1}, "refers to a tensor 1 it does not have"),
    ([VIEW], {"tensor": -1}, "refers to a tensor -1"),
    ([VIEW], {"tensor": "x"}, "refers to a tensor 'x'"),
    ([VIEW], {"tensor": [0]}, "refers to a tensor [0]"),
    ([{**VIEW, "offset": 1}], None, "reaches past its 6 elements"),
    ([{**VIEW, "shape": [7]}], None, "reaches past its 6 elements"),
    ([{**VIEW, "shape": [2, 3], "stride": [4, 1]}], None, "reaches past its 6 elements"),
    ([{**VIEW, "offset": -1}], None, "bad layout"),
    ([{**VIEW, "stride": [-1]}], None, "bad layout"),
    ([{**VIEW, "shape": [-6]}], None, "bad layout"),
    ([{**VIEW, "stride": [1, 1]}], None, "bad layout"),
    ([{**VIEW, "shape": [6.0]}], None, "bad layout"),
    ([{**VIEW, "offset": True}], None, "bad layout"),
    ([{**VIEW, "stride": [2**70]}], None, "bad layout"),
    ([{**VIEW, "shape": [0], "stride": [2**62]}], None, "bad layout"),
    ([{**VIEW, "shape": [2**40, 2**40], "stride": [0, 0]}], None, "too large"),
    ([{**VIEW, "device": "nowhere"}], None, "bad device 'nowhere'"),
    ([{**VIEW, "device": ["cpu"]}], None, "bad device"),
    ("x", None, "no list of tensors"),
])
def test_bad_tensor_records_raise_naming_the_file(records, root, phrase, tmp_path):
    with pytest.raises(RuntimeError, match="broken.safetensors") as info:
        load_bytes(version_2_file(records, root), tmp_path)
    assert phrase in str(info.value)


def test_files_of_format_version_1_still_load(tmp_path):
    """What ember.save wrote before storages were shared: each node names its entry."""
    structure = {"version": 1, "root": {"dict": [
        ["w", {"tensor": "w", "requires_grad": True, "parameter": True}],
        ["b", {"list": [{"tensor": "b"}, 3]}]]}}
    header = {"__metadata__": {"ember.structure": json.dumps(structure)},
              "w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
              "b": {"dtype": "I64", "shape": [1], "data_offsets": [16, 24]}}
    body = np.arange(4, dtype=np.float32).tobytes() + np.int64(7).tobytes()
    loaded = load_bytes(file_of(header, body), tmp_path)
    assert type(loaded["w"]) is ember.nn.Parameter and loaded["w"].requires_grad
    assert loaded["w"].tolist() == [[0, 1], [2, 3]] and loaded["b"][0].tolist() == [7]
    assert loaded["b"][1] == 3


# --- nesting depth --------------------------------------------------------------------------
def nested(depth):
    obj = 0
    for _ in range(depth):
        obj = [obj]
    return obj


def test_nesting_up_to_the_limit_round_trips():
    limit = _safetensors._MAX_DEPTH
    assert round_trip(nested(limit), "safetensors") == nested(limit)
    assert round_trip({"a": nested(limit - 1)}, "safetensors") == {"a": nested(limit - 1)}


def test_saving_deeper_nesting_raises():
    """torch.save raises RecursionError there, a RuntimeError too."""
    with pytest.raises(RuntimeError, match="nests deeper than 100 levels"):
        _safetensors.save(nested(101), io.BytesIO())
    loop = []
    loop.append(loop)
    with pytest.raises(RuntimeError, match="does a container hold itself"):
        _safetensors.save({"a": loop}, io.BytesIO())


@pytest.mark.parametrize("depth, phrase", [
    (101, "the structure nests deeper than 100 levels"),
    (100_000, "the structure nests too deeply"),
])
def test_loading_deeper_nesting_raises(depth, phrase, tmp_path):
    text = '{"list":[' * depth + "0" + "]}" * depth  # (json.dumps would recurse too)
    metadata = {"ember.structure": '{"version":2,"tensors":[],"root":' + text + "}"}
    with pytest.raises(RuntimeError, match="broken.safetensors") as info:
        load_bytes(file_of({"__metadata__": metadata}), tmp_path)
    assert phrase in str(info.value)


def test_a_deeply_nested_header_raises(tmp_path):
    text = b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(RuntimeError, match="the header nests too deeply"):
        load_bytes(file_of(None, raw_header=text), tmp_path)


# --- atomic writes --------------------------------------------------------------------------
def test_a_failed_save_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "model.safetensors"
    ember.save({"w": ember.ones(3)}, path)
    old = path.read_bytes()

    def write_then_fail(out, header, arrays):
        out.write(header)
        raise OSError("No space left on device")

    monkeypatch.setattr(_safetensors, "_write", write_then_fail)
    with pytest.raises(OSError, match="No space left"):
        ember.save({"w": ember.zeros(1000)}, path)
    with pytest.raises(OSError, match="No space left"):
        ember.save({"w": ember.zeros(1000)}, tmp_path / "new.safetensors")
    assert path.read_bytes() == old and os.listdir(tmp_path) == ["model.safetensors"]
    monkeypatch.undo()
    ember.save({"w": ember.zeros(2)}, path)
    assert ember.load(path)["w"].tolist() == [0, 0] and os.listdir(tmp_path) == [path.name]


def test_saved_files_get_the_usual_permissions_and_symlinks_stay(tmp_path):
    (tmp_path / "plain").write_bytes(b"")
    ember.save(ember.ones(1), tmp_path / "saved")
    assert os.stat(tmp_path / "saved").st_mode == os.stat(tmp_path / "plain").st_mode
    (tmp_path / "link").symlink_to(tmp_path / "saved")
    ember.save(ember.zeros(1), tmp_path / "link")
    assert (tmp_path / "link").is_symlink() and ember.load(tmp_path / "saved").tolist() == [0]
    ember.save(ember.zeros(1), os.devnull)  # special files are written in place
    with pytest.raises(FileNotFoundError) as info:
        ember.save(ember.zeros(1), tmp_path / "absent" / "x.safetensors")
    assert info.value.filename == os.path.realpath(tmp_path / "absent" / "x.safetensors")


# --- interop with the safetensors library ---------------------------------------------------
def flat_dict():
    tensors = {dt.name: random_tensor(dt, (2, 3), seed=i) for i, dt in enumerate(ALL_DTYPES)}
    tensors["scalar"] = ember.tensor(1.5)
    tensors["__metadata__"] = ember.ones(1)  # a reserved name gets another one in the file
    return tensors


def test_flat_dict_loads_with_safetensors_numpy(tmp_path):
    tensors = {k: v for k, v in flat_dict().items() if k not in ("bfloat16", "__metadata__")}
    ember.save(tensors, tmp_path / "flat.safetensors")
    arrays = safetensors_numpy.load_file(str(tmp_path / "flat.safetensors"))
    assert sorted(arrays) == sorted(tensors)
    for name, t in tensors.items():
        assert arrays[name].dtype == t.dtype.np and arrays[name].tobytes() == bits(t)


def test_flat_dict_loads_with_safetensors_torch(tmp_path):
    torch = pytest.importorskip("torch")
    safetensors_torch = pytest.importorskip("safetensors.torch")
    tensors = flat_dict()
    ember.save(tensors, tmp_path / "flat.safetensors")
    loaded = safetensors_torch.load_file(str(tmp_path / "flat.safetensors"))
    renamed = [name for name in loaded if name not in tensors]
    assert len(renamed) == 1 and renamed[0].startswith("__metadata__#")
    assert set(loaded) == set(tensors) - {"__metadata__"} | set(renamed)
    for name, t in tensors.items():
        if name != "__metadata__":
            as_bytes = loaded[name].reshape(-1).view(torch.uint8).numpy().tobytes()
            assert str(loaded[name].dtype) == f"torch.{name if name != 'scalar' else 'float32'}"
            assert as_bytes == bits(t) and tuple(loaded[name].shape) == tuple(t.shape)
    assert ember.load(tmp_path / "flat.safetensors")["__metadata__"].tolist() == [1.0]


def test_files_from_the_safetensors_library_load(tmp_path):
    torch = pytest.importorskip("torch")
    safetensors_torch = pytest.importorskip("safetensors.torch")
    source = {"w": torch.randn(3, 4).to(torch.bfloat16), "i": torch.arange(5),
              "m": torch.tensor([True, False])}
    safetensors_torch.save_file(source, str(tmp_path / "t.safetensors"), metadata={"k": "v"})
    loaded = ember.load(tmp_path / "t.safetensors")
    assert sorted(loaded) == ["i", "m", "w"]
    for name, t in source.items():
        assert loaded[name].dtype.name == str(t.dtype).split(".")[1]
        assert bits(loaded[name]) == t.view(torch.uint8).numpy().tobytes()
    safetensors_numpy.save_file({"a": np.arange(4, dtype=np.int8)}, str(tmp_path / "n.st"))
    assert ember.load(tmp_path / "n.st")["a"].tolist() == [0, 1, 2, 3]


# --- corrupt files --------------------------------------------------------------------------
def file_of(header, body=b"", *, raw_header=None):
    """The bytes of a safetensors file with this header (a dict, or raw bytes) and body."""
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + body


def load_bytes(data, tmp_path):
    path = tmp_path / "broken.safetensors"
    path.write_bytes(data)
    return ember.load(path)


GOOD_ENTRY = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
STRUCTURE = {"ember.structure": json.dumps({"version": 1, "root": {"tensor": "x"}})}


@pytest.mark.parametrize("data, phrase", [
    (b"", "fewer than the 8"),
    (b"\x01\x02\x03", "fewer than the 8"),
    (struct.pack("<Q", 10**12), "over the 100000000 limit"),
    (struct.pack("<Q", 50) + b"{}", "runs past the end of the file"),
    (file_of(None, raw_header=b"{not json"), "the header is not valid JSON"),
    (file_of(None, raw_header=b"\xff\xfe"), "the header is not valid JSON"),
    (file_of([1, 2]), "the header is not a JSON object"),
    (file_of({"x": {**GOOD_ENTRY, "dtype": "U16"}}, bytes(8)), "dtype 'U16', which ember"),
    (file_of({"x": {**GOOD_ENTRY, "dtype": "F8_E4M3"}}, bytes(8)), "does not support"),
    (file_of({"x": {**GOOD_ENTRY, "dtype": 3}}, bytes(8)), "has dtype 3"),
    (file_of({"x": {"dtype": "F32", "shape": [2]}}, bytes(8)), "needs dtype, shape and"),
    (file_of({"x": 5}, bytes(8)), "needs dtype, shape and"),
    (file_of({"x": {**GOOD_ENTRY, "shape": [-2]}}, bytes(8)), "has shape [-2]"),
    (file_of({"x": {**GOOD_ENTRY, "shape": "2"}}, bytes(8)), "has shape '2'"),
    (file_of({"x": {**GOOD_ENTRY, "data_offsets": [0]}}, bytes(8)), "has data_offsets [0]"),
    (file_of({"x": {**GOOD_ENTRY, "data_offsets": [0, 1.5]}}, bytes(8)), "data_offsets"),
    (file_of({"x": {**GOOD_ENTRY, "data_offsets": [0, 16]}}, bytes(8)), "outside the data"),
    (file_of({"x": {**GOOD_ENTRY, "data_offsets": [8, 0]}}, bytes(8)), "outside the data"),
    (file_of({"x": {**GOOD_ENTRY, "data_offsets": [0, 4]}}, bytes(8)), "needs 8 bytes"),
    (file_of({"x": GOOD_ENTRY}, bytes(12)), "has 12 bytes but the tensors use 8"),
    (file_of({"x": GOOD_ENTRY, "y": GOOD_ENTRY}, bytes(8)), "expected 8 (overlapping"),
    (file_of({"x": {**GOOD_ENTRY, "data_offsets": [4, 12]}}, bytes(12)), "expected 0"),
    (file_of({"__metadata__": {"a": 1}, "x": GOOD_ENTRY}, bytes(8)), "must map strings"),
    (file_of({"__metadata__": {"ember.structure": "{"}, "x": GOOD_ENTRY}, bytes(8)),
     "the structure is not valid JSON"),
    (file_of({"__metadata__": {"ember.structure": '{"version": 9}'}}), "unknown structure"),
    (file_of({"__metadata__": {"ember.structure": json.dumps(
        {"version": 1, "root": {"tensor": "y"}})}, "x": GOOD_ENTRY}, bytes(8)),
     "refers to a tensor 'y'"),
    (file_of({"__metadata__": {"ember.structure": json.dumps(
        {"version": 1, "root": {"pickle": "os.system"}})}}), "unknown tag 'pickle'"),
    (file_of({"__metadata__": {"ember.structure": json.dumps(
        {"version": 1, "root": {"list": 3}})}}), "bad structure node"),
    (file_of({"__metadata__": {"ember.structure": json.dumps(
        {"version": 1, "root": {"dict": [[{"list": []}, 1]]}})}}), "bad structure node"),
    (file_of({"__metadata__": {"ember.structure": json.dumps(
        {"version": 1, "root": {"a": 1, "b": 2}})}}), "bad structure node"),
    (file_of({"__metadata__": {"ember.structure": json.dumps(
        {"version": 1, "root": {"dtype": "complex32"}})}}), "bad structure node"),
])
def test_corrupt_files_raise_naming_the_file(data, phrase, tmp_path):
    with pytest.raises(RuntimeError, match="broken.safetensors") as info:
        load_bytes(data, tmp_path)
    assert phrase in str(info.value)


def test_good_crafted_file_loads(tmp_path):
    body = np.array([1.5, -2.0], np.float32).tobytes()
    data = file_of({"__metadata__": STRUCTURE, "x": GOOD_ENTRY}, body)
    assert load_bytes(data, tmp_path).tolist() == [1.5, -2.0]


def test_every_truncation_of_a_saved_file_raises(tmp_path):
    buffer = io.BytesIO()
    _safetensors.save({"w": ember.ones(3, 2), "b": [ember.zeros(2, dtype=ember.int64), 1]}, buffer)
    data = buffer.getvalue()
    for cut in range(len(data)):
        with pytest.raises(RuntimeError, match="broken.safetensors"):
            load_bytes(data[:cut], tmp_path)
    load_bytes(data, tmp_path)  # the whole file still loads


def test_flipped_header_bytes_raise_only_the_clear_error(tmp_path):
    """Any byte of the header flipped: the load succeeds (the flip hit a name or a
    string) or raises RuntimeError naming the file, never another exception."""
    buffer = io.BytesIO()
    _safetensors.save({"w": ember.arange(4.), "n": [3, (None, 2.5)]}, buffer)
    data = buffer.getvalue()
    header_end = 8 + struct.unpack("<Q", data[:8])[0]
    failures = 0
    for i in range(header_end):
        corrupt = bytearray(data)
        corrupt[i] ^= 0x55
        try:
            load_bytes(bytes(corrupt), tmp_path)
        except RuntimeError as e:
            assert "broken.safetensors" in str(e)
            failures += 1
    assert failures > header_end // 2


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        ember.load(pathlib.Path(tmp_path) / "absent.safetensors")


def test_docstring_examples():
    for module in (ember.serialization, _safetensors):
        result = doctest.testmod(module, extraglobs={"ember": ember, "save": _safetensors.save})
        assert result.attempted > 0 and result.failed == 0


# --- nn and optim objects -------------------------------------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
def test_parameters_come_back_as_parameters(fmt):
    layer = ember.nn.Linear(3, 2)
    frozen = ember.nn.Parameter(ember.ones(2), requires_grad=False)
    loaded = round_trip({"w": layer.weight, "frozen": frozen, "all": list(layer.parameters())}, fmt)
    assert type(loaded["w"]) is ember.nn.Parameter and loaded["w"].requires_grad
    assert type(loaded["frozen"]) is ember.nn.Parameter and not loaded["frozen"].requires_grad
    assert bits(loaded["all"][1]) == bits(layer.bias)


@pytest.mark.parametrize("fmt", FORMATS)
def test_model_and_optimizer_state_round_trip(fmt):
    """Training resumed from a saved model + optimizer state follows the uninterrupted run."""
    def make():
        ember.manual_seed(0)
        model = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 1))
        return model, ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def step(model, optimizer, k):
        x = ember.linspace(-1, 1, 12).reshape(3, 4) * (k + 1)
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()

    model, optimizer = make()
    for k in range(3):
        step(model, optimizer, k)
    saved = round_trip({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, fmt)
    resumed, resumed_optimizer = make()
    resumed.load_state_dict(saved["model"])
    resumed_optimizer.load_state_dict(saved["optimizer"])
    for k in range(3, 6):
        step(model, optimizer, k)
        step(resumed, resumed_optimizer, k)
    for (name, a), (_, b) in zip(model.state_dict().items(), resumed.state_dict().items()):
        assert bits(a) == bits(b), name
