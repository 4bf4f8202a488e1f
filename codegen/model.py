"""The model layer of the code generator: ``func:`` schemas as frozen dataclasses.

    >>> s = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    >>> str(FunctionSchema.parse(s)) == s
    True

Anything malformed raises :class:`SchemaError` saying what is wrong and what was expected.
"""

from __future__ import annotations

import ast
import difflib
import itertools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass


class SchemaError(ValueError):
    """A malformed schema; message says what is wrong and what was expected."""

BASE_TYPES = ("Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType",
              "Device", "Layout", "MemoryFormat", "Generator", "Storage", "Dimname")

# ------------------------------------------------------------------------------ scanning

_CLOSE = {"(": ")", "[": "]"}


def _skip_string(text: str, start: int, where: str) -> int:
    """Index just past the quoted string at ``text[start]`` (``\\`` escapes the next char)."""
    quote, i = text[start], start + 1
    while i < len(text) and text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    if i >= len(text):
        raise SchemaError(f"unterminated string {text[start:]!r} in {where} "
                          f"(expected a closing {quote})")
    return i + 1


def _walk(text: str, where: str) -> Iterator[tuple[int, str, int]]:
    """Yield ``(index, char, depth)`` for chars outside quoted strings; check the brackets.

    ``depth`` is the number of brackets open after the char: ``f(a)`` gives 0, 1, 1, 0.
    """
    stack: list[tuple[str, int]] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "'\"":
            i = _skip_string(text, i, where)
            continue
        if ch in _CLOSE:
            stack.append((ch, i))
        elif ch in ")]":
            if not stack or _CLOSE[stack[-1][0]] != ch:
                expected = (f"{_CLOSE[stack[-1][0]]!r} to close {stack[-1][0]!r} at position "
                            f"{stack[-1][1]}" if stack else "no closing bracket here")
                raise SchemaError(f"unbalanced parentheses in {where}: unexpected {ch!r} at "
                                  f"position {i} (expected {expected})")
            stack.pop()
        yield i, ch, len(stack)
        i += 1
    if stack:
        ch, pos = stack[-1]
        raise SchemaError(f"unbalanced parentheses in {where}: {ch!r} at position {pos} is "
                          f"never closed (expected a matching {_CLOSE[ch]!r})")


def _split_top(text: str, where: str) -> list[str]:
    """Split at commas outside brackets and quotes; strip the pieces.

    >>> _split_top("int[2] s=[1, 1], str r='a,b'", "example")
    ['int[2] s=[1, 1]', "str r='a,b'"]
    """
    cuts = [i for i, ch, depth in _walk(text, where) if ch == "," and depth == 0]
    return [text[a + 1:b].strip() for a, b in zip([-1] + cuts, cuts + [len(text)])]


def _is_identifier(s: str) -> bool:
    return s.isascii() and s.isidentifier()


# ------------------------------------------------------------------------------ types


class _TypeQueries:
    """Queries shared by :class:`BaseType`, :class:`OptionalType` and :class:`ListType`."""
    def base_name(self) -> str:
        """The innermost base type name: ``Tensor?[]`` -> ``Tensor``."""
        return self.name if isinstance(self, BaseType) else self.elem.base_name()

    def is_tensor_like(self) -> bool:
        """``Tensor``, ``Tensor?``, ``Tensor[]``, ``Tensor?[]``, ``Tensor[]?``."""
        return self.base_name() == "Tensor"

    def is_tensor_list(self) -> bool:
        """``Tensor[]``, ``Tensor?[]`` and the optional ``Tensor[]?``."""
        if isinstance(self, ListType):
            return self.elem.is_tensor_like()
        return isinstance(self, OptionalType) and self.elem.is_tensor_list()

    def is_nullable(self) -> bool:
        """Whether None is a valid value: only for optional types (``Tensor?``, ``int[1]?``)."""
        return isinstance(self, OptionalType)


@dataclass(frozen=True)
class BaseType(_TypeQueries):
    """A plain type: ``Tensor``, ``int``, ``Scalar``, ... (one of BASE_TYPES)."""
    name: str

    def __post_init__(self) -> None:
        if self.name not in BASE_TYPES:
            hint = difflib.get_close_matches(self.name, BASE_TYPES, n=1)
            maybe = f"; did you mean {hint[0]!r}?" if hint else ""
            raise SchemaError(f"unknown type {self.name!r} "
                              f"(expected one of {', '.join(BASE_TYPES)}{maybe})")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class OptionalType(_TypeQueries):
    """``T?``, a ``T`` or None: ``Tensor?`` is ``OptionalType(BaseType("Tensor"))``."""
    elem: Type

    def __str__(self) -> str:
        return f"{self.elem}?"


@dataclass(frozen=True)
class ListType(_TypeQueries):
    """``T[]``, or ``T[N]`` with a size: ``int[2]`` is ``ListType(BaseType("int"), 2)``."""
    elem: Type
    size: int | None

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"


Type = BaseType | OptionalType | ListType


def parse_type(s: str) -> Type:
    """Parse a type written without alias annotation.

    >>> parse_type("Tensor?[]")
    ListType(elem=OptionalType(elem=BaseType(name='Tensor')), size=None)
    """
    if s.endswith("?"):
        elem = parse_type(s[:-1])
        if isinstance(elem, OptionalType):
            raise SchemaError(f"type {s!r} is optional twice (expected a single '?')")
        return OptionalType(elem)
    if s.endswith("]"):
        open_at, size = s.rfind("["), s[s.rfind("[") + 1:-1]
        if open_at <= 0 or not (size == "" or (size.isdigit() and size[0] != "0")):
            raise SchemaError(f"malformed list type {s!r} (expected e.g. 'int[]' or 'int[2]')")
        elem = parse_type(s[:open_at])
        if isinstance(elem, ListType):
            raise SchemaError(f"nested list type {s!r} (expected a single '[]')")
        return ListType(elem, int(size) if size else None)
    if not s or (s not in BASE_TYPES and any(c in s for c in "[]?() ")):
        raise SchemaError(f"malformed type {s!r} (expected e.g. 'int', 'int[2]', 'Tensor?[]')")
    return BaseType(s)


# ------------------------------------------------------------------------------ annotations


def _alias_set(text: str, annotation: str) -> tuple[str, ...]:
    names = tuple(text.split("|"))
    for n in names:
        if n != "*" and not (n.isascii() and n.isalpha() and n.islower()):
            raise SchemaError(f"bad alias name {n!r} in annotation {annotation!r} "
                              f"(expected lowercase letters like 'a', or '*')")
    return names


@dataclass(frozen=True)
class Annotation:
    """An alias annotation, the text inside ``Tensor(...)``: ``a``, ``a!``, ``a|b``, ``a -> *``.

    >>> Annotation.parse("a! -> *")
    Annotation(alias_set=('a',), is_write=True, alias_set_after=('*',))
    """
    alias_set: tuple[str, ...]
    is_write: bool
    alias_set_after: tuple[str, ...]

    @staticmethod
    def parse(s: str) -> Annotation:
        before, arrow, after = (part.strip() for part in s.partition("->"))
        if arrow and not after:
            raise SchemaError(f"annotation {s!r} has nothing after '->' (expected e.g. 'a -> *')")
        after_set = _alias_set(after, s) if arrow else ()
        return Annotation(_alias_set(before.removesuffix("!"), s), before.endswith("!"), after_set)

    def __str__(self) -> str:
        text = "|".join(self.alias_set) + ("!" if self.is_write else "")
        return f"{text} -> {'|'.join(self.alias_set_after)}" if self.alias_set_after else text


def _type_str(t: Type, ann: Annotation | None) -> str:
    """Print a type with its annotation right after the base name: ``Tensor(a!)?``."""
    if isinstance(t, BaseType):
        return f"{t.name}({ann})" if ann else t.name
    suffix = "?" if isinstance(t, OptionalType) else f"[{'' if t.size is None else t.size}]"
    return _type_str(t.elem, ann) + suffix


def _parse_decl(text: str, what: str) -> tuple[Type, Annotation | None, str]:
    """Split ``"Tensor(a -> *)[] self"`` into (type, annotation, name); the name may be ''."""
    space = next((i for i, ch, depth in _walk(text, f"{what} {text!r}")
                  if ch == " " and depth == 0), len(text))
    type_text, name = text[:space], text[space:].strip()
    if name and not _is_identifier(name):
        raise SchemaError(f"bad {what} name {name!r} in {text!r} (expected an identifier)")
    open_at = type_text.find("(")
    if open_at < 0:
        return parse_type(type_text), None, name
    close_at = type_text.index(")")
    base, rest = type_text[:open_at], type_text[close_at + 1:]
    if not _is_identifier(base) or "(" in rest:
        raise SchemaError(f"misplaced annotation in {type_text!r} (expected one, right after "
                          f"the base type: 'Tensor(a!)', 'Tensor(a)[]', 'Tensor(a!)?')")
    t = parse_type(base + rest)
    if not t.is_tensor_like():
        raise SchemaError(f"alias annotation on non-tensor type {type_text!r} "
                          f"(expected a Tensor type)")
    return t, Annotation.parse(type_text[open_at + 1:close_at]), name


# ------------------------------------------------------------------------------ arguments


@dataclass(frozen=True)
class Argument:
    """One argument: ``Tensor(a!) self``, ``int[1] dim=[]``, ``Tensor? weight=None``."""
    name: str
    type: Type
    default: str | None  # exactly as written: "[1, 1]", "'mean'", "None"
    annotation: Annotation | None

    @staticmethod
    def parse(text: str) -> Argument:
        decl, eq, default = (part.strip() for part in text.partition("="))
        t, ann, name = _parse_decl(decl, "argument")
        if not name:
            raise SchemaError(f"argument {decl!r} has no name (expected '<type> <name>')")
        if eq and not default:
            raise SchemaError(f"argument {name!r} has an empty default (expected '{name}=<value>')")
        return Argument(name, t, default if eq else None, ann)

    @property
    def is_write(self) -> bool:
        """Whether the annotation says the argument is written to: ``Tensor(a!) out``."""
        return self.annotation is not None and self.annotation.is_write

    def __str__(self) -> str:
        text = f"{_type_str(self.type, self.annotation)} {self.name}"
        return text if self.default is None else f"{text}={self.default}"


@dataclass(frozen=True)
class Return:
    """One return: ``Tensor``, ``Tensor(a!)``, ``Tensor values``, ``Tensor(a)[]``."""
    name: str | None
    type: Type
    annotation: Annotation | None

    @staticmethod
    def parse(text: str) -> Return:
        if "=" in text:
            raise SchemaError(f"return {text!r} has a default (expected e.g. 'Tensor values')")
        t, ann, name = _parse_decl(text, "return")
        return Return(name or None, t, ann)

    def __str__(self) -> str:
        text = _type_str(self.type, self.annotation)
        return text if self.name is None else f"{text} {self.name}"


@dataclass(frozen=True)
class Arguments:
    """An argument list split in three; ``out`` are the trailing keyword-only arguments
    with a write annotation (``*, Tensor(a!) out``), not repeated in ``kwarg_only``.

    >>> str(Arguments.parse("Tensor self, *, Scalar alpha=1, Tensor(a!) out").out[0])
    'Tensor(a!) out'
    """
    positional: tuple[Argument, ...]
    kwarg_only: tuple[Argument, ...]
    out: tuple[Argument, ...]

    @staticmethod
    def parse(text: str) -> Arguments:
        pieces = _split_top(text, f"arguments {text!r}") if text.strip() else []
        if "" in pieces:
            raise SchemaError(f"empty argument in {text!r} (expected '<type> <name>' between "
                              f"commas; stray comma?)")
        if pieces.count("*") > 1:
            raise SchemaError(f"'*' appears twice in {text!r} (expected one keyword-only marker)")
        star = pieces.index("*") if "*" in pieces else len(pieces)
        if star == len(pieces) - 1:
            raise SchemaError(f"'*' ends the arguments {text!r} (expected keyword-only "
                              f"arguments after it)")
        positional = [Argument.parse(p) for p in pieces[:star]]
        keyword = [Argument.parse(p) for p in pieces[star + 1:]]
        _check_order(positional, keyword)
        n_in = len(keyword)
        while n_in and keyword[n_in - 1].is_write:
            n_in -= 1
        return Arguments(tuple(positional), tuple(keyword[:n_in]), tuple(keyword[n_in:]))

    def flat(self) -> tuple[Argument, ...]:
        """All arguments in schema order: positional + kwarg_only + out."""
        return self.positional + self.kwarg_only + self.out

    def flat_non_out(self) -> tuple[Argument, ...]:
        """positional + kwarg_only."""
        return self.positional + self.kwarg_only

    def __str__(self) -> str:
        keyword = self.kwarg_only + self.out
        return ", ".join(map(str, [*self.positional, *(["*"] if keyword else []), *keyword]))


def _check_order(positional: list[Argument], keyword: list[Argument]) -> None:
    names = [a.name for a in positional + keyword]
    for name in names:
        if names.count(name) > 1:
            raise SchemaError(f"duplicate argument name {name!r} (expected unique names)")
    for before, arg in itertools.pairwise(positional):
        if before.default is not None and arg.default is None:
            raise SchemaError(f"positional argument {arg.name!r} without default follows "
                              f"{before.name!r} with a default (expected defaults last)")
    for before, arg in itertools.pairwise(keyword):
        if before.is_write and not arg.is_write:
            raise SchemaError(f"keyword-only argument {arg.name!r} follows out argument "
                              f"{before.name!r} (expected out arguments last)")


# ------------------------------------------------------------------------------ names

# Python's augmented-assignment dunders: "__iand__" is the in-place "__and__".
_AUGMENTED = ("add", "sub", "mul", "matmul", "truediv", "floordiv", "div", "mod", "pow",
              "lshift", "rshift", "and", "or", "xor")


@dataclass(frozen=True)
class OperatorName:
    """``add_.Tensor``: base 'add', inplace, overload 'Tensor'; ``__iand__``: base 'and',
    inplace, dunder; ``__lshift__``: base 'lshift', dunder."""
    base: str
    inplace: bool
    dunder: bool
    overload: str  # "" when none

    @staticmethod
    def parse(s: str) -> OperatorName:
        name, dot, overload = s.partition(".")
        if not _is_identifier(name):
            raise SchemaError(f"bad operator name {name!r} in {s!r} (expected an identifier)")
        if dot and not _is_identifier(overload):
            raise SchemaError(f"bad overload name {overload!r} in {s!r} (expected an identifier "
                              f"after a single '.')")
        if len(name) > 4 and name.startswith("__") and name.endswith("__"):
            inner = name[2:-2]
            inplace = inner.startswith("i") and inner[1:] in _AUGMENTED
            return OperatorName(inner[1:] if inplace else inner, inplace, True, overload)
        base = name.removesuffix("_")
        if not base:
            raise SchemaError(f"bad operator name {name!r} (expected an identifier before '_')")
        return OperatorName(base, base != name, False, overload)

    @property
    def name(self) -> str:
        """The name without overload: ``add_``, ``__iand__``."""
        if self.dunder:
            return f"__{'i' if self.inplace else ''}{self.base}__"
        return self.base + ("_" if self.inplace else "")

    @property
    def unambiguous_name(self) -> str:
        """A Python identifier: ``add_Tensor`` (add.Tensor), ``add__Tensor``, ``add``."""
        return f"{self.name}_{self.overload}" if self.overload else self.name

    def __str__(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name


# ------------------------------------------------------------------------------ schemas

_FORM = "(expected 'name(args) -> returns')"


@dataclass(frozen=True)
class FunctionSchema:
    """A whole ``func:`` schema; ``str()`` gives the canonical text back."""
    name: OperatorName
    arguments: Arguments
    returns: tuple[Return, ...]

    @staticmethod
    def parse(func: str) -> FunctionSchema:
        """Parse ``name.overload(args) -> returns``; SchemaError on anything malformed."""
        where = f"schema {func!r}"
        open_at = func.find("(")
        if open_at < 0:
            raise SchemaError(f"missing '(' after the operator name in {where} {_FORM}")
        name = OperatorName.parse(func[:open_at])
        steps = list(_walk(func, where))  # checks that all brackets balance
        close_at = next(i for i, ch, depth in steps if ch == ")" and depth == 0)
        rest = func[close_at + 1:].strip()
        if not rest.startswith("->"):
            problem = f"unexpected {rest!r} after the arguments" if rest else "missing '->'"
            raise SchemaError(f"{problem} in {where} {_FORM}")
        arguments = Arguments.parse(func[open_at + 1:close_at])
        return FunctionSchema(name, arguments, _parse_returns(rest[2:].strip(), where))

    def __str__(self) -> str:
        returns = ", ".join(map(str, self.returns))
        return f"{self.name}({self.arguments}) -> " + (
            returns if len(self.returns) == 1 else f"({returns})")

    def is_out_fn(self) -> bool:
        """Whether the schema has out= arguments (``add.out``)."""
        return bool(self.arguments.out)

    def kind(self) -> str:
        """'inplace' (``add_``), 'out', 'mutable' (writes an argument) or 'functional'."""
        if self.name.inplace:
            return "inplace"
        if self.is_out_fn():
            return "out"
        return "mutable" if any(a.is_write for a in self.arguments.flat()) else "functional"

    def is_view(self) -> bool:
        """Whether a return aliases an input without writing: ``Tensor(a) self -> Tensor(a)``."""
        inputs = {alias for a in self.arguments.flat() if a.annotation
                  for alias in a.annotation.alias_set}
        return any(r.annotation and not r.annotation.is_write
                   and inputs.intersection(r.annotation.alias_set) for r in self.returns)

    def returns_self(self) -> bool:
        """Whether the only return is a ``Tensor(a!)`` aliasing a first ``Tensor(a!) self``."""
        args = self.arguments.positional
        if len(self.returns) != 1 or not args or args[0].name != "self":
            return False
        ret, self_arg = self.returns[0], args[0]
        return (ret.type == self_arg.type == BaseType("Tensor") and self_arg.is_write
                and ret.annotation == self_arg.annotation)

    def signature_key(self) -> tuple[str, tuple[tuple[str, Type], ...]]:
        """What functional, inplace and out variants share, to match them up.

        ``(name.base, ((name, type), ...))`` over the non-out arguments in schema order.
        Annotations, defaults, the overload, the inplace/dunder spelling and the returns
        are ignored, so ``add.Tensor``, ``add_.Tensor`` and ``add.out`` all give
        ``("add", (("self", Tensor), ("other", Tensor), ("alpha", Scalar)))``.
        """
        return self.name.base, tuple((a.name, a.type) for a in self.arguments.flat_non_out())


def _parse_returns(text: str, where: str) -> tuple[Return, ...]:
    """``Tensor``, ``(Tensor a, Tensor b)`` or ``()``."""
    if not text.startswith("("):
        if not text:
            raise SchemaError(f"missing returns after '->' in {where} (expected e.g. 'Tensor')")
        return (Return.parse(text),)
    if not text.endswith(")"):
        raise SchemaError(f"malformed returns {text!r} in {where} "
                          f"(expected '(Tensor a, Tensor b)')")
    pieces = _split_top(text[1:-1], where) if text[1:-1].strip() else []
    if len(pieces) == 1:
        raise SchemaError(f"single return {text!r} in parentheses in {where} "
                          f"(expected {pieces[0]!r} without them)")
    if "" in pieces:
        raise SchemaError(f"empty return in {text!r} (expected a type between commas)")
    returns = tuple(map(Return.parse, pieces))
    names = [r.name for r in returns if r.name]
    if len(names) != len(set(names)):
        raise SchemaError(f"duplicate return name in {text!r} (expected unique names)")
    return returns


# ------------------------------------------------------------------------------ defaults

_INT = re.compile(r"-?[0-9]+")
_FLOAT = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")
_REDUCTIONS = {"Mean": "1", "Sum": "2"}  # at::Reduction
_MEMORY_FORMATS = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")
# ScalarType defaults as torch writes them (`ScalarType? dtype=long`) -> ember dtype names;
# the generated modules import ember.core.dtype as _dtypes
_SCALAR_TYPES = {"bool": "bool_", "byte": "uint8", "char": "int8", "short": "int16",
                 "int": "int32", "long": "int64", "half": "float16", "bfloat16": "bfloat16",
                 "float": "float32", "double": "float64"}


def _number(text: str, kind: str) -> str | None:
    """A numeric literal as Python: kind 'int' takes integers, 'float' makes every number a
    float (``2`` -> ``2.0``), 'Scalar' keeps integers integral."""
    if _INT.fullmatch(text) and kind != "float":
        return str(int(text))
    if kind == "int" or not (_FLOAT.fullmatch(text) or text in ("inf", "-inf", "nan")):
        return None
    value = float(text)
    return f"float('{value}')" if math.isinf(value) or math.isnan(value) else repr(value)


def _string(text: str) -> str | None:
    if len(text) < 2 or text[0] not in "'\"" or _skip_string(text, 0, "default") != len(text):
        return None
    return repr(ast.literal_eval(text))


def _base_default(text: str, name: str) -> tuple[str | None, str]:
    """(Python source, or None when ``text`` does not fit; what would fit)."""
    boolean = text if text in ("True", "False") else None
    if name == "bool":
        return boolean, "True or False"
    if name in ("int", "SymInt"):
        mean_sum = _REDUCTIONS.get(text) if name == "int" else None
        return _number(text, "int") or mean_sum, "an integer" + (", Mean or Sum" * (name == "int"))
    if name == "float":
        return _number(text, "float"), "a number, inf or nan"
    if name == "Scalar":
        return boolean or _number(text, "Scalar"), "a number"
    if name == "str":
        return _string(text), "a quoted string"
    if name == "MemoryFormat":
        return (repr(text) if text in _MEMORY_FORMATS else None), " or ".join(_MEMORY_FORMATS)
    if name == "ScalarType":
        source = f"_dtypes.{_SCALAR_TYPES[text]}" if text in _SCALAR_TYPES else None
        return source, " or ".join(_SCALAR_TYPES)
    return None, ""  # only None fits, and only for an optional type


def _default(text: str, t: Type) -> tuple[str | None, str]:
    if isinstance(t, OptionalType):
        source, expected = ("None", "") if text == "None" else _default(text, t.elem)
        return source, "None" + (f" or {expected}" if expected else "")
    if isinstance(t, BaseType):
        return _base_default(text, t.name)
    expected = f"a list like [0, 1] of {t.elem}" + (", or one value" if t.size else "")
    if text.startswith("[") and text.endswith("]"):
        items = _split_top(text[1:-1], "default") if text[1:-1].strip() else []
    elif t.size is not None:
        items = [text] * t.size
    else:
        return None, expected
    sources = [_default(item, t.elem)[0] for item in items]
    if None in sources:
        return None, expected
    return "(" + ", ".join(sources) + ("," if len(sources) == 1 else "") + ")", expected


def default_to_python(arg: Argument) -> str:
    """Python source for the default of ``arg``, checked against its type.

    >>> default_to_python(Argument.parse("int[2] stride=1"))
    '(1, 1)'
    >>> default_to_python(Argument.parse("float eps=-inf"))
    "float('-inf')"
    """
    if arg.default is None:
        raise SchemaError(f"argument {arg.name!r} has no default (expected '{arg.name}=<value>')")
    try:
        source, expected = _default(arg.default, arg.type)
    except (SchemaError, ValueError, SyntaxError):
        source, expected = None, "a well-formed literal"
    if source is None and not expected:
        expected = f"no default, or None for an optional {arg.type}?"
    elif source is None and arg.default == "None":
        expected += f"; None needs an optional type like {arg.type}?"
    if source is None:
        raise SchemaError(f"default {arg.default!r} of argument {arg.name!r} does not fit "
                          f"type {arg.type} (expected {expected})")
    return source
