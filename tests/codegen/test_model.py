"""Tests for codegen.model: parsing, printing and querying func: schemas."""

import dataclasses
import importlib.util
import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.model import (
    BASE_TYPES,
    Annotation,
    Argument,
    Arguments,
    BaseType,
    FunctionSchema,
    ListType,
    OperatorName,
    OptionalType,
    Return,
    SchemaError,
    default_to_python,
    parse_type,
)

# Real-world shaped schemas, in canonical spelling.
SCHEMAS = [
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    ("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"
     " -> Tensor"),
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    ("max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
     "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)"),
    ("topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, "
     "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)"),
    "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)",
    "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    ("index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False)"
     " -> Tensor(a!)"),
    ("empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
     "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"),
    ("conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
     "SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor"),
    ("native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
     "Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)"),
    "_foreach_add.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]",
    "_foreach_mul_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
    "_foreach_add.Scalar_out(Tensor[] self, Scalar scalar, *, Tensor(a!)[] out) -> ()",
    ("_amp_foreach_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf, "
     "Tensor inv_scale) -> ()"),
    ("_amp_update_scale_(Tensor(a!) self, Tensor(b!) growth_tracker, Tensor found_inf, "
     "float scale_growth_factor, float scale_backoff_factor, int growth_interval) -> Tensor(a!)"),
    "__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "__and__.Scalar(Tensor self, Scalar other) -> Tensor",
    "__lshift__.Scalar(Tensor self, Scalar other) -> Tensor",
    "__ilshift__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> Tensor(a!)",
    ("nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
     "SymInt ignore_index=-100) -> Tensor"),
    ("linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
     "ScalarType? dtype=None) -> Tensor"),
    ("as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None)"
     " -> Tensor(a)"),
    ("var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
     "bool keepdim=False) -> (Tensor, Tensor)"),
    "set_.source_Storage(Tensor(a!) self, Storage source) -> Tensor(a!)",
    ("slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
     "SymInt step=1) -> Tensor(a)"),
    "masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
    "pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    ("scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
     "bool include_self=True) -> Tensor"),
    ("upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
     "float[]? scale_factors) -> Tensor"),
    "fft_fftn(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor",
    ("linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
     "ScalarType? dtype=None) -> Tensor"),
    "nuclear_norm.dim(Tensor self, int[2] dim, bool keepdim=False) -> Tensor",
    "tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor",
    "frobenius_norm.dim(Tensor self, int[1] dim=[-2,-1], bool keepdim=False) -> Tensor",
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    ("layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None,"
     " float eps=1e-05, bool cudnn_enable=True) -> Tensor"),
    "_test_string_default(Tensor dummy, str a=\"\\\"'\\\\\", str b='\"\\'\\\\') -> Tensor",
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    "_local_scalar_dense(Tensor self) -> Scalar",
    "result_type.Tensor(Tensor tensor, Tensor other) -> ScalarType",
    "is_nonzero(Tensor self) -> bool",
    "sym_size.int(Tensor self, int dim) -> SymInt",
    ("_backward(Tensor self, Tensor[] inputs, Tensor? gradient=None, bool? retain_graph=None, "
     "bool create_graph=False) -> ()"),
    "align_to.ellipsis_idx(Tensor(a) self, str[] order, int ellipsis_idx) -> Tensor(a)",
    ("sum.dim_DimnameList(Tensor self, Dimname[1] dim, bool keepdim=False, *, "
     "ScalarType? dtype=None) -> Tensor"),
    ("_fused_adam_(Tensor(a!)[] self, Tensor(b!)[] grads, Tensor(c!)[] exp_avgs, *, float lr, "
     "bool amsgrad, Tensor? grad_scale=None, Tensor? found_inf=None) -> ()"),
    ("convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes,"
     " SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, "
     "SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)"),
    ("lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers, "
     "float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor, Tensor)"),
    ("batch_norm_update_stats(Tensor input, Tensor? running_mean, Tensor? running_var, "
     "float momentum) -> (Tensor, Tensor)"),
    ("empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
     "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"),
    ("to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
     "MemoryFormat? memory_format=None) -> Tensor(a)"),
    ("full(SymInt[] size, Scalar fill_value, *, Dimname[]? names, ScalarType? dtype=None, "
     "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"),
    ("aminmax.out(Tensor self, *, int? dim=None, bool keepdim=False, Tensor(a!) min, "
     "Tensor(b!) max) -> (Tensor(a!) min, Tensor(b!) max)"),
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor",
    ("arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, "
     "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"),
    "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
    ("rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.3333333333333333, "
     "bool training=False, Generator? generator=None) -> Tensor"),
]


def test_schema_list_is_large_and_distinct():
    assert len(SCHEMAS) >= 40
    assert len(set(SCHEMAS)) == len(SCHEMAS)


@pytest.mark.parametrize("schema", SCHEMAS)
def test_round_trip(schema):
    parsed = FunctionSchema.parse(schema)
    assert str(parsed) == schema
    assert FunctionSchema.parse(str(parsed)) == parsed
    hash(parsed)  # frozen dataclasses all the way down


def test_models_are_frozen():
    schema = FunctionSchema.parse(SCHEMAS[0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        schema.name = OperatorName("sub", False, False, "")


# ---------------------------------------------------------------- structure


def test_add_out_structure():
    s = FunctionSchema.parse(
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    assert s.name == OperatorName("add", False, False, "out")
    assert [a.name for a in s.arguments.positional] == ["self", "other"]
    assert [a.name for a in s.arguments.kwarg_only] == ["alpha"]
    assert [a.name for a in s.arguments.out] == ["out"]
    assert [a.name for a in s.arguments.flat()] == ["self", "other", "alpha", "out"]
    assert [a.name for a in s.arguments.flat_non_out()] == ["self", "other", "alpha"]
    alpha = s.arguments.kwarg_only[0]
    assert alpha == Argument("alpha", BaseType("Scalar"), "1", None)
    out = s.arguments.out[0]
    assert out.annotation == Annotation(("a",), True, ())
    assert out.is_write and not alpha.is_write
    assert s.returns == (Return(None, BaseType("Tensor"), Annotation(("a",), True, ())),)


def test_sum_dim_types():
    s = FunctionSchema.parse(SCHEMAS[5])
    _, dim, keepdim = s.arguments.positional
    assert dim.type == OptionalType(ListType(BaseType("int"), 1))
    assert dim.default is None
    assert keepdim.type == BaseType("bool") and keepdim.default == "False"
    (dtype,) = s.arguments.kwarg_only
    assert dtype.type == OptionalType(BaseType("ScalarType")) and dtype.default == "None"
    assert s.arguments.out == ()


def test_named_returns():
    s = FunctionSchema.parse(
        "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    assert [r.name for r in s.returns] == ["values", "indices"]
    assert str(s.returns[0]) == "Tensor values"
    assert str(Return("values", BaseType("Tensor"), Annotation(("a",), False, ()))) == (
        "Tensor(a) values")


def test_list_returns_and_alias_after():
    s = FunctionSchema.parse(
        "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]")
    assert s.arguments.positional[0].annotation == Annotation(("a",), False, ("*",))
    (ret,) = s.returns
    assert ret.type == ListType(BaseType("Tensor"), None)
    assert ret.annotation == Annotation(("a",), False, ())
    assert str(ret) == "Tensor(a)[]"


def test_empty_returns_and_empty_arguments():
    s = FunctionSchema.parse("_foreach_mul_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()")
    assert s.returns == ()
    s = FunctionSchema.parse("_cuda_clear_cache() -> ()")
    assert s.arguments == Arguments((), (), ()) and str(s) == "_cuda_clear_cache() -> ()"


def test_defaults_are_kept_verbatim():
    s = FunctionSchema.parse(
        "f(int[2] stride=[1, 1], int[] dims=[0,1], str reduce=\"mean\", str r2='sum, max') -> ()")
    assert [a.default for a in s.arguments.flat()] == ["[1, 1]", "[0,1]", '"mean"', "'sum, max'"]


def test_annotation_on_optional_and_list():
    arg = Argument.parse("Tensor(a!)? out")
    assert arg.type == OptionalType(BaseType("Tensor")) and arg.is_write
    assert str(arg) == "Tensor(a!)? out"
    arg = Argument.parse("Tensor(a)[] tensors")
    assert arg.type == ListType(BaseType("Tensor"), None) and not arg.is_write
    assert str(arg) == "Tensor(a)[] tensors"


def test_whitespace_is_tolerated_and_normalized():
    s = FunctionSchema.parse(
        "add.Tensor( Tensor self,Tensor other , * , Scalar alpha = 1 )->Tensor")
    assert str(s) == "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"


# ---------------------------------------------------------------- names


@pytest.mark.parametrize(
    "text, base, inplace, dunder, overload, name, unambiguous",
    [
        ("add", "add", False, False, "", "add", "add"),
        ("add.Tensor", "add", False, False, "Tensor", "add", "add_Tensor"),
        ("add_.Tensor", "add", True, False, "Tensor", "add_", "add__Tensor"),
        ("_foreach_add_.List", "_foreach_add", True, False, "List", "_foreach_add_",
         "_foreach_add__List"),
        ("__iand__.Scalar", "and", True, True, "Scalar", "__iand__", "__iand___Scalar"),
        ("__and__.Tensor", "and", False, True, "Tensor", "__and__", "__and___Tensor"),
        ("__lshift__.Scalar", "lshift", False, True, "Scalar", "__lshift__", "__lshift___Scalar"),
        ("__irshift__.Tensor", "rshift", True, True, "Tensor", "__irshift__",
         "__irshift___Tensor"),
        ("__index__", "index", False, True, "", "__index__", "__index__"),
    ],
)
def test_operator_name(text, base, inplace, dunder, overload, name, unambiguous):
    op = OperatorName.parse(text)
    assert (op.base, op.inplace, op.dunder, op.overload) == (base, inplace, dunder, overload)
    assert op.name == name
    assert op.unambiguous_name == unambiguous
    assert op.unambiguous_name.isidentifier()
    assert str(op) == text


# ---------------------------------------------------------------- types


@pytest.mark.parametrize(
    "text, expected, tensor_like, tensor_list, nullable, base",
    [
        ("Tensor", BaseType("Tensor"), True, False, False, "Tensor"),
        ("Tensor?", OptionalType(BaseType("Tensor")), True, False, True, "Tensor"),
        ("Tensor[]", ListType(BaseType("Tensor"), None), True, True, False, "Tensor"),
        ("Tensor?[]", ListType(OptionalType(BaseType("Tensor")), None), True, True, False,
         "Tensor"),
        ("Tensor[]?", OptionalType(ListType(BaseType("Tensor"), None)), True, True, True,
         "Tensor"),
        ("int", BaseType("int"), False, False, False, "int"),
        ("int[]", ListType(BaseType("int"), None), False, False, False, "int"),
        ("int[2]", ListType(BaseType("int"), 2), False, False, False, "int"),
        ("int[1]?", OptionalType(ListType(BaseType("int"), 1)), False, False, True, "int"),
        ("SymInt[]", ListType(BaseType("SymInt"), None), False, False, False, "SymInt"),
        ("ScalarType?", OptionalType(BaseType("ScalarType")), False, False, True, "ScalarType"),
        ("float[]?", OptionalType(ListType(BaseType("float"), None)), False, False, True, "float"),
    ],
)
def test_parse_type(text, expected, tensor_like, tensor_list, nullable, base):
    t = parse_type(text)
    assert t == expected
    assert str(t) == text
    assert t.is_tensor_like() is tensor_like
    assert t.is_tensor_list() is tensor_list
    assert t.is_nullable() is nullable
    assert t.base_name() == base


@pytest.mark.parametrize("name", BASE_TYPES)
def test_every_base_type_parses(name):
    assert parse_type(name) == BaseType(name)
    assert str(parse_type(name + "[]?")) == name + "[]?"


@pytest.mark.parametrize(
    "text, message",
    [
        ("Tensr", "unknown type 'Tensr' (expected one of Tensor, int"),
        ("Tensr", "did you mean 'Tensor'?"),
        ("Tensr[]", "unknown type 'Tensr'"),
        ("", "malformed type ''"),
        ("int??", "optional twice"),
        ("int[][]", "nested list type"),
        ("int[x]", "malformed list type 'int[x]' (expected e.g. 'int[]' or 'int[2]')"),
        ("int[0]", "malformed list type"),
        ("int[2", "malformed type 'int[2'"),
        ("[]", "malformed list type"),
    ],
)
def test_parse_type_errors(text, message):
    with pytest.raises(SchemaError) as info:
        parse_type(text)
    assert message in str(info.value)


def test_base_type_validates_its_name():
    with pytest.raises(SchemaError, match="unknown type 'tensor'"):
        BaseType("tensor")


# ---------------------------------------------------------------- annotations


@pytest.mark.parametrize(
    "text, alias_set, is_write, after",
    [
        ("a", ("a",), False, ()),
        ("a!", ("a",), True, ()),
        ("a|b", ("a", "b"), False, ()),
        ("a -> *", ("a",), False, ("*",)),
        ("a! -> *", ("a",), True, ("*",)),
    ],
)
def test_annotation(text, alias_set, is_write, after):
    ann = Annotation.parse(text)
    assert ann == Annotation(alias_set, is_write, after)
    assert str(ann) == text


@pytest.mark.parametrize(
    "text, message",
    [("", "bad alias name ''"), ("A", "bad alias name 'A'"), ("a ->", "nothing after '->'"),
     ("a!!", "bad alias name 'a!'")],
)
def test_annotation_errors(text, message):
    with pytest.raises(SchemaError, match=message):
        Annotation.parse(text)


# ---------------------------------------------------------------- queries


def _parse(schema):
    return FunctionSchema.parse(schema)


@pytest.mark.parametrize(
    "schema, kind, is_out, is_view, returns_self",
    [
        ("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
         "functional", False, False, False),
        ("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
         "inplace", False, False, True),
        ("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
         "out", True, False, False),
        ("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
         "inplace", False, False, True),
        ("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
         "functional", False, True, False),
        ("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
         "functional", False, True, False),
        (("to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
          "MemoryFormat? memory_format=None) -> Tensor(a)"), "functional", False, True, False),
        (("max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
          "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)"),
         "out", True, False, False),
        ("_foreach_mul_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
         "inplace", False, False, False),
        (("_amp_foreach_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf, "
          "Tensor inv_scale) -> ()"), "inplace", False, False, False),
        (("_fused_moving_avg_obs_fq_helper(Tensor self, Tensor observer_on, "
          "Tensor(a!) running_min, Tensor(b!) running_max) -> (Tensor output, Tensor mask)"),
         "mutable", False, False, False),
        ("set_data(Tensor(a!) self, Tensor new_data) -> ()", "mutable", False, False, False),
        # returns a fresh tensor, not self
        ("bad_(Tensor(a!) self) -> Tensor", "inplace", False, False, False),
        # returns something aliasing another argument, not self
        ("bad_(Tensor(a!) self, Tensor(b!) other) -> Tensor(b!)", "inplace", False, False, False),
        # the write-annotated argument is not called self
        ("bad_(Tensor(a!) input) -> Tensor(a!)", "inplace", False, False, False),
    ],
)
def test_queries(schema, kind, is_out, is_view, returns_self):
    s = _parse(schema)
    assert s.kind() == kind
    assert s.is_out_fn() is is_out
    assert s.is_view() is is_view
    assert s.returns_self() is returns_self


def test_signature_key_groups_variants():
    functional = _parse("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    inplace = _parse("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)")
    out = _parse(
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    scalar = _parse("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor")
    key = functional.signature_key()
    assert key == ("add", (("self", BaseType("Tensor")), ("other", BaseType("Tensor")),
                           ("alpha", BaseType("Scalar"))))
    assert inplace.signature_key() == key == out.signature_key()
    assert scalar.signature_key() != key
    hash(key)


def test_signature_key_dunder_and_multiple_outs():
    assert (_parse("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)").signature_key()
            == _parse("__and__.Tensor(Tensor self, Tensor other) -> Tensor").signature_key())
    dim = _parse("max.dim(Tensor self, int dim, bool keepdim=False) -> "
                 "(Tensor values, Tensor indices)")
    dim_max = _parse("max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
                     "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)")
    assert dim.signature_key() == dim_max.signature_key()


# ---------------------------------------------------------------- schema errors


@pytest.mark.parametrize(
    "schema, messages",
    [
        ("add.Tensor(Tensor self)",
         [("missing '->' in schema 'add.Tensor(Tensor self)' "
           "(expected 'name(args) -> returns')")]),
        ("add.Tensor(Tensor self) Tensor", ["unexpected 'Tensor' after the arguments"]),
        ("add.Tensor -> Tensor", ["missing '(' after the operator name"]),
        ("add.Tensor(Tensor self -> Tensor", ["unbalanced parentheses", "never closed"]),
        ("add.Tensor(Tensor self)) -> Tensor", ["unbalanced parentheses", "unexpected ')'"]),
        ("f(int[2 x) -> Tensor", ["unbalanced parentheses", "expected ']' to close '['"]),
        ("f(int[2) x) -> Tensor", ["unbalanced parentheses"]),
        ("add.Tensor(Tensor, Tensor other) -> Tensor", ["argument 'Tensor' has no name"]),
        ("add(Tensor self, Tensor self) -> Tensor", ["duplicate argument name 'self'"]),
        ("add(Tensor self, *, Tensor self) -> Tensor", ["duplicate argument name 'self'"]),
        ("add(Tensr self) -> Tensor", ["unknown type 'Tensr'", "expected one of Tensor, int"]),
        ("add(Tensor self) -> Tensr", ["unknown type 'Tensr'"]),
        ("f(Tensor a, *, int b, *, int c) -> Tensor", ["'*' appears twice"]),
        ("f(Tensor a, *) -> Tensor", ["'*' ends the arguments"]),
        ("f(Tensor a, int b=1, int c) -> Tensor",
         ["positional argument 'c' without default follows 'b' with a default"]),
        ("f(Tensor a, *, Tensor(a!) out, int b) -> Tensor",
         ["keyword-only argument 'b' follows out argument 'out'"]),
        ("f(Tensor a,, Tensor b) -> Tensor", ["empty argument"]),
        ("f(Tensor a,) -> Tensor", ["empty argument"]),
        ("f(Tensor a=) -> Tensor", ["argument 'a' has an empty default"]),
        ("f(Tensor a b) -> Tensor", ["bad argument name 'a b'"]),
        ("f(Tensor 1a) -> Tensor", ["bad argument name '1a'"]),
        ("f(Tensor a) ->", ["missing returns after '->'"]),
        ("f(Tensor a) -> (Tensor)", ["single return '(Tensor)' in parentheses",
                                     "expected 'Tensor' without them"]),
        ("f(Tensor a) -> (Tensor x, Tensor x)", ["duplicate return name"]),
        ("f(Tensor a) -> (Tensor x,)", ["empty return"]),
        ("f(Tensor a) -> (Tensor x, Tensor y) junk", ["malformed returns"]),
        ("f(Tensor a) -> Tensor x=1", ["has a default"]),
        ("f(Tensor a) -> Tensor x y", ["bad return name 'x y'"]),
        ("f(int(a) x) -> Tensor", ["alias annotation on non-tensor type 'int(a)'"]),
        ("f(Tensor[](a) x) -> Tensor", ["misplaced annotation", "'Tensor(a)[]'"]),
        ("f(Tensor(a)(b) x) -> Tensor", ["misplaced annotation"]),
        ("f(Tensor(A) x) -> Tensor", ["bad alias name 'A'"]),
        ("f(str s=\"abc) -> Tensor", ["unterminated string"]),
        ("f.(Tensor a) -> Tensor", ["bad overload name ''"]),
        ("f.a.b(Tensor a) -> Tensor", ["bad overload name 'a.b'"]),
        ("f-g(Tensor a) -> Tensor", ["bad operator name 'f-g'"]),
        ("(Tensor a) -> Tensor", ["bad operator name ''"]),
        ("_(Tensor a) -> Tensor", ["bad operator name '_'"]),
        ("f(int?? x) -> Tensor", ["optional twice"]),
    ],
)
def test_schema_errors(schema, messages):
    with pytest.raises(SchemaError) as info:
        FunctionSchema.parse(schema)
    for message in messages:
        assert message in str(info.value)
    assert isinstance(info.value, ValueError)


# ---------------------------------------------------------------- defaults


@pytest.mark.parametrize(
    "argument, python",
    [
        ("Tensor? weight=None", "None"),
        ("int? dim=None", "None"),
        ("ScalarType? dtype=None", "None"),
        ("Generator? generator=None", "None"),
        ("Device? device=None", "None"),
        ("Layout? layout=None", "None"),
        ("MemoryFormat? memory_format=None", "None"),
        ("Dimname[]? names=None", "None"),
        ("int[1]? dim=None", "None"),
        ("bool keepdim=False", "False"),
        ("bool training=True", "True"),
        ("bool? pin_memory=False", "False"),
        ("int dim=0", "0"),
        ("int dim=-1", "-1"),
        ("SymInt ignore_index=-100", "-100"),
        ("int? dim=0", "0"),
        ("int reduction=Mean", "1"),
        ("int reduction=Sum", "2"),
        ("float eps=1e-05", "1e-05"),
        ("float momentum=0.1", "0.1"),
        ("float p=2", "2.0"),
        ("float x=-0.5", "-0.5"),
        ("float x=inf", "float('inf')"),
        ("float x=-inf", "float('-inf')"),
        ("float x=nan", "float('nan')"),
        ("float? value=None", "None"),
        ("Scalar alpha=1", "1"),
        ("Scalar lower=0.125", "0.125"),
        ("Scalar upper=0.3333333333333333", "0.3333333333333333"),
        ("Scalar ord=-1", "-1"),
        ("Scalar flag=True", "True"),
        ("Scalar? min=None", "None"),
        ("str reduce=\"mean\"", "'mean'"),
        ("str reduce='mean'", "'mean'"),
        ("str sep=\"\"", "''"),
        ("str? norm=None", "None"),
        ("str q=\"\\\"'\\\\\"", repr("\"'\\")),
        ("str q='a,b'", "'a,b'"),
        ("int[] dims=[]", "()"),
        ("int[1] dim=[]", "()"),
        ("int[] dims=[0,1]", "(0, 1)"),
        ("int[2] stride=[1, 1]", "(1, 1)"),
        ("int[1] dim=[-2,-1]", "(-2, -1)"),
        ("int[1] dim=0", "(0,)"),
        ("int[2] stride=1", "(1, 1)"),
        ("SymInt[3] padding=0", "(0, 0, 0)"),
        ("bool[3] output_mask=[True, False, True]", "(True, False, True)"),
        ("float[] scales=[1.0, 2]", "(1.0, 2.0)"),
        ("int[2]? size=None", "None"),
        ("int[2]? size=[3, 4]", "(3, 4)"),
        ("MemoryFormat memory_format=contiguous_format", "'contiguous_format'"),
        ("MemoryFormat? memory_format=contiguous_format", "'contiguous_format'"),
        ("MemoryFormat memory_format=preserve_format", "'preserve_format'"),
        ("ScalarType? dtype=long", "_dtypes.int64"),   # torch's randint / randperm
        ("ScalarType dtype=float", "_dtypes.float32"),
    ],
)
def test_default_to_python(argument, python):
    arg = Argument.parse(argument)
    assert str(arg) == argument
    source = default_to_python(arg)
    assert source == python
    compile(source, "<default>", "eval")  # valid Python


@pytest.mark.parametrize(
    "argument, messages",
    [
        ("Scalar alpha=abc",
         ["default 'abc' of argument 'alpha' does not fit type Scalar (expected a number)"]),
        ("Scalar alpha='1'", ["does not fit type Scalar"]),
        ("Tensor weight=None", ["does not fit type Tensor", "None for an optional Tensor?"]),
        ("int dim=None", ["does not fit type int", "None needs an optional type like int?"]),
        ("int[2] size=None", ["None needs an optional type like int[2]?"]),
        ("bool keepdim=0", ["expected True or False"]),
        ("bool keepdim=false", ["expected True or False"]),
        ("int dim=1.5", ["expected an integer"]),
        ("int dim=None_", ["expected an integer, Mean or Sum"]),
        ("SymInt n=Mean", ["does not fit type SymInt (expected an integer)"]),
        ("int dim=0x1", ["expected an integer"]),
        ("float eps=abc", ["expected a number, inf or nan"]),
        ("float eps=1e", ["expected a number"]),
        ("float eps=True", ["expected a number"]),
        ("str reduce=mean", ["expected a quoted string"]),
        ("str reduce='mean", ["does not fit type str"]),
        ("str reduce='a' 'b'", ["expected a quoted string"]),
        ("str? reduce=1", ["expected None or a quoted string"]),
        ("int[] dims=1", ["expected a list like [0, 1] of int"]),
        ("int[2] stride=[1, x]", ["expected a list like [0, 1] of int, or one value"]),
        ("int[2] stride=[1,]", ["does not fit type int[2]"]),
        ("int[2] stride=(1, 1)", ["does not fit type int[2]"]),
        ("ScalarType? dtype=Long", ["does not fit type ScalarType? (expected None or bool"]),
        ("ScalarType dtype=float32", ["does not fit type ScalarType"]),
        ("Device? device=cpu", ["expected None"]),
        ("Layout? layout=strided", ["expected None"]),
        ("Generator? generator=0", ["expected None"]),
        ("MemoryFormat memory_format=contiguous", ["expected contiguous_format or"]),
        ("Tensor?[] indices=[1]", ["does not fit type Tensor?[]"]),
    ],
)
def test_default_to_python_rejects(argument, messages):
    arg = Argument.parse(argument)
    with pytest.raises(SchemaError) as info:
        default_to_python(arg)
    for message in messages:
        assert message in str(info.value)


def test_default_to_python_needs_a_default():
    with pytest.raises(SchemaError, match="argument 'dim' has no default"):
        default_to_python(Argument.parse("int dim"))


# ---------------------------------------------------------------- property-based

_aliases = st.sampled_from(["a", "b", "c"])
_annotations = st.builds(
    Annotation,
    st.lists(_aliases, min_size=1, max_size=2, unique=True).map(tuple),
    st.booleans(),
    st.sampled_from([(), ("*",)]),
)
_base = st.sampled_from(BASE_TYPES).map(BaseType)
_types = st.recursive(
    _base,
    lambda inner: st.one_of(
        inner.filter(lambda t: not isinstance(t, OptionalType)).map(OptionalType),
        st.builds(ListType, inner.filter(lambda t: not isinstance(t, ListType)),
                  st.sampled_from([None, 1, 2, 3])),
    ),
    max_leaves=3,
)
_identifiers = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
_defaults = st.sampled_from(["None", "0", "-1", "1.5", "True", "[]", "[0, 1]", "[-2,-1]",
                             "'mean'", '"a, (b)"', "Mean", "contiguous_format"])


@st.composite
def _arguments(draw, names):
    t = draw(_types)
    ann = draw(st.one_of(st.none(), _annotations)) if t.is_tensor_like() else None
    default = draw(st.one_of(st.none(), _defaults))
    return Argument(names.pop(), t, default, ann)


@st.composite
def _schemas(draw):
    names = draw(st.lists(_identifiers, min_size=12, max_size=12, unique=True))
    positional = draw(st.lists(_arguments(names), max_size=4))
    # positional defaults must come last
    first_default = next((i for i, a in enumerate(positional) if a.default), len(positional))
    positional = [a if i < first_default or a.default else dataclasses.replace(a, default="0")
                  for i, a in enumerate(positional)]
    kwarg_only = [a for a in draw(st.lists(_arguments(names), max_size=3)) if not a.is_write]
    out = [Argument(names.pop(), t, None, Annotation((alias,), True, ()))
           for t, alias in draw(st.lists(st.tuples(
               st.sampled_from([BaseType("Tensor"), ListType(BaseType("Tensor"), None)]),
               _aliases), max_size=2))]
    n_returns = draw(st.integers(0, 3))
    returns = []
    for _ in range(n_returns):
        t = draw(_types)
        ann = draw(st.one_of(st.none(), _annotations)) if t.is_tensor_like() else None
        name = names.pop() if draw(st.booleans()) else None
        returns.append(Return(name, t, ann))
    op = draw(st.one_of(
        st.builds(OperatorName, _identifiers.filter(lambda s: s.strip("_")
                                                    and not s.endswith("_")),
                  st.booleans(), st.just(False), st.one_of(st.just(""), _identifiers)),
        st.builds(OperatorName, st.sampled_from(["and", "or", "lshift", "add"]),
                  st.booleans(), st.just(True), st.one_of(st.just(""), _identifiers)),
    ))
    return FunctionSchema(op, Arguments(tuple(positional), tuple(kwarg_only), tuple(out)),
                          tuple(returns))


@settings(max_examples=300, deadline=None)
@given(_schemas())
def test_print_then_parse_gives_back_the_same_schema(schema):
    text = str(schema)
    assert FunctionSchema.parse(text) == schema
    assert str(FunctionSchema.parse(text)) == text


# ---------------------------------------------------------------- the real thing

def _native_functions_yaml():
    spec = importlib.util.find_spec("torchgen")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = pathlib.Path(location, "packaged", "ATen", "native", "native_functions.yaml")
        if path.exists():
            return path
    return None


# Types PyTorch uses that ember does not model.
_UNMODELLED = ("DeviceIndex", "SymBool", "QScheme", "Stream")


def test_round_trip_every_pytorch_schema():
    """Every func: in PyTorch's own native_functions.yaml parses and prints back unchanged."""
    path = _native_functions_yaml()
    yaml = pytest.importorskip("yaml")
    if path is None:
        pytest.skip("torchgen's native_functions.yaml is not installed")
    entries = yaml.safe_load(path.read_text())
    parsed = 0
    for entry in entries:
        func = entry["func"]
        try:
            schema = FunctionSchema.parse(func)
        except SchemaError as error:
            assert any(f"unknown type '{t}'" in str(error) for t in _UNMODELLED), func
            continue
        assert str(schema) == func
        parsed += 1
        for arg in schema.arguments.flat():
            if arg.default is not None:
                compile(default_to_python(arg), func, "eval")
    assert parsed > 2000
