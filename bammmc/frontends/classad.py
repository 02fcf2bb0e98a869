"""HTCondor ClassAd expressions: text -> typed AST with character offsets -> canonical text.

ClassAds are the expression language of HTCondor's ``requirements``, ``rank``, ``periodic_*``,
``on_exit_*`` and ``+Attr`` submit commands, and the text form of its job and machine ads. The
grammar, ``grammars/classad.lark``, reads what HTCondor 25.x's own parser reads
(``src/classad/lexer.cpp`` and ``source.cpp``, with the old-ClassAd semantics every HTCondor tool
turns on); shared/docs/formats/classad.md is the language sheet, docs/classad.md says where the
running parser and that sheet differ. The oracle is ``classad2`` 25.14.1 (``tests/formats/
test_classad_oracle.py``): :func:`unparse` prints exactly what ``str(classad2.ExprTree(text))``
prints.

Public API (the HTCondor submit reader, ``frontends/htcondor.py``, uses :func:`check`):

- :func:`parse` one expression -> :data:`Expr`, or :class:`ClassAdError` with the offending
  token's offsets;
- :func:`unparse` the canonical text of an expression;
- :func:`check` parse, or report ``E021`` at the offending token and return ``None``;
- :func:`parse_ad` / :func:`parse_ads` / :func:`check_ads` a new-style ``[a = 1; b = 2]`` ad or
  an old-style ad (one ``Name = expr`` per line, ads separated by blank lines).

>>> unparse(parse("RequestMemory>=1024&&TARGET.HasGPU=?=TRUE"))
'RequestMemory >= 1024 && TARGET.HasGPU is true'

Siblings: ``frontends/htcondor.py`` (the submit files that embed these expressions),
``passes/validate.py`` (checks the expression-valued ``extensions.htcondor`` fields).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, TypeAlias
from typing import Literal as TypeLiteral

if TYPE_CHECKING:
    from collections.abc import Iterator

    from lark import Lark, Token

    from bammmc.diagnostics.model import Reporter, Span

#: scope names that make ``NAME.attr`` an :class:`AttrRef` with a scope (sheet §1.3; matched
#: case-insensitively, kept as written)
SCOPES: Final = frozenset({"my", "target", "other", "parent", "toplevel", "root"})
#: words the unparser always quotes as attribute names (sink.cpp ``reserved_words``)
RESERVED: Final = frozenset({"error", "false", "is", "isnt", "parent", "true", "undefined"})
#: HTCondor's parser gives up beyond this recursion depth (source.cpp ``MAX_PARSER_DEPTH``)
MAX_DEPTH: Final = 500
#: the most tokens bammmc parses in one expression (HTCondor sets no such limit): a `||` chain
#: of 5,000 machine names, 300 times the longest expression of the public submit files sampled
#: (64 tokens), 5 times a whole machine ad (3,637), read in about half a second (docs/
#: performance.md); a longer one is refused (E006) before it is parsed. Whole ads
#: (:func:`parse_ads`) have no such limit
MAX_TOKENS: Final = 20_000

LiteralKind: TypeAlias = TypeLiteral[
    "integer", "real", "string", "boolean", "undefined", "error", "abstime", "reltime"
]


# ── the AST ────────────────────────────────────────────────────────────────────────────────────
# Offsets are 0-based character offsets into the parsed text, end exclusive. They take no part
# in equality, so two parses of differently spaced texts compare equal.


@dataclass(frozen=True)
class _Node:
    start: int = field(default=0, compare=False, repr=False, kw_only=True)
    end: int = field(default=0, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True)
class Literal(_Node):
    """A constant. ``value`` by kind: ``integer`` int, ``real`` float, ``string`` str (bytes
    that are not UTF-8 as surrogate escapes), ``boolean`` bool, ``undefined``/``error`` None,
    ``abstime`` (UTC seconds, zone offset in seconds), ``reltime`` seconds (float).

    ``absTime("...")`` and ``relTime("...")`` with one string literal become ``abstime`` and
    ``reltime`` literals while parsing, as in HTCondor's parser."""

    kind: LiteralKind
    value: int | float | str | bool | tuple[int, int] | None = None


@dataclass(frozen=True)
class AttrRef(_Node):
    """An attribute reference: ``name``, ``.name`` (``absolute``: from the outermost ad), or
    ``SCOPE.name`` with ``scope`` one of :data:`SCOPES` as written (``MY``, ``TARGET``…)."""

    name: str
    scope: str | None = None
    absolute: bool = False


@dataclass(frozen=True)
class Select(_Node):
    """``base.name``: attribute ``name`` of the ad ``base`` (other than a scope name)."""

    base: Expr
    name: str


@dataclass(frozen=True)
class Subscript(_Node):
    """``base[index]``."""

    base: Expr
    index: Expr


@dataclass(frozen=True)
class Unary(_Node):
    """``-x``, ``+x``, ``!x``, ``~x``. A ``-`` written right before a number is part of the
    literal instead (``-3`` is ``Literal(-3)``, ``- 3`` is ``Unary("-", Literal(3))``)."""

    op: str
    operand: Expr


@dataclass(frozen=True)
class Binary(_Node):
    """``left op right``; ``op`` as the unparser prints it (``=?=`` is ``is``, ``=!=``
    ``isnt``)."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Ternary(_Node):
    """``condition ? if_true : if_false``."""

    condition: Expr
    if_true: Expr
    if_false: Expr


@dataclass(frozen=True)
class Elvis(_Node):
    """``left ?: right``: ``left`` unless it is undefined."""

    left: Expr
    right: Expr


@dataclass(frozen=True)
class Call(_Node):
    """``name(args…)``; function names are case-insensitive, kept as written."""

    name: str
    args: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class ListExpr(_Node):
    """``{a, b, …}``."""

    items: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Attribute(_Node):
    """``name = value`` in an ad; ``start`` is where the name starts."""

    name: str
    value: Expr


@dataclass(frozen=True)
class Record(_Node):
    """A nested ad ``[a = 1; b = 2]``, attributes as written (a later duplicate of a name,
    compared case-insensitively, replaces the earlier value; :func:`unparse` shows that)."""

    attributes: tuple[Attribute, ...] = ()


@dataclass(frozen=True)
class Paren(_Node):
    """``(expr)``: HTCondor keeps parentheses as written, and so does the canonical text."""

    expr: Expr


#: any expression node
Expr: TypeAlias = (
    Literal
    | AttrRef
    | Select
    | Subscript
    | Unary
    | Binary
    | Ternary
    | Elvis
    | Call
    | ListExpr
    | Record
    | Paren
)


class ClassAdError(Exception):
    """Text that is not a ClassAd: ``message`` says what is wrong at offsets [start, end);
    ``code`` the diagnostic (E021, or E006 for a text too long to parse)."""

    def __init__(
        self, message: str, start: int, end: int, help: str | None = None, code: str = "E021"
    ) -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end
        self.help = help
        self.code = code

    def __str__(self) -> str:
        return f"{self.message} (at offset {self.start})"


# ── parsing ────────────────────────────────────────────────────────────────────────────────────


def parser(start: str) -> Lark:
    """The LALR parser of one start rule of ``grammars/classad.lark``."""
    from bammmc import grammars

    return grammars.parser("classad", start)


def parse(text: str, *, old: bool = False) -> Expr:
    """One whole ClassAd expression.

    With ``old=False`` (default) the text is read exactly as ``classad2.ExprTree(text)`` reads
    it. ``old=True`` reads string literals in old-ClassAd syntax (a backslash is special only
    before a quote), as condor_submit reads the expressions of a submit file, and allows a
    trailing ``//`` comment.

    >>> parse("a ?: b + 1")
    Binary(op='+', left=Elvis(left=AttrRef(name='a', scope=None, absolute=False), \
right=AttrRef(name='b', scope=None, absolute=False)), right=Literal(kind='integer', value=1))

    Raises:
        ClassAdError: the text is not one expression; its offsets mark the offending token.
    """
    return _parse_expression(text, old)


@functools.lru_cache(maxsize=64)
def _parse_expression(text: str, old: bool) -> Expr:
    """:func:`parse`, remembered: the reader checks an expression and the lowering reads it
    again (the AST is immutable, so both may share it)."""
    if old:
        return _parse(text + "\n", "old_expr")  # type: ignore[no-any-return]
    return _parse(text, "expr")  # type: ignore[no-any-return]


def parse_ad(text: str) -> list[Attribute]:
    """The attributes of one ad: new style ``[a = 1; b = 2]`` (nothing but white space and
    comments after it) or old style, one ``Name = expr`` per line (``#`` comment lines and blank
    lines skipped; several blank-line separated ads are merged, as ``classad2.parseOne`` does).

    Raises:
        ClassAdError: the first syntax error.
    """
    if _is_new_style(text):
        return list(_parse(text + "\n", "ad"))
    return [attr for ad in _old_ads(text) for attr in ad]


def parse_ads(text: str) -> list[list[Attribute]]:
    """Every ad of a stream: new-style ads one after another, or old-style ads separated by
    blank lines.

    Raises:
        ClassAdError: the first syntax error.
    """
    if _is_new_style(text):
        return [list(ad) for ad in _parse(text + "\n", "ads")]
    return _old_ads(text)


def check(
    text: str,
    reporter: Reporter,
    span: Span | None,
    *,
    what: str,
    old: bool = False,
    field: str | None = None,
) -> Expr | None:
    """Parse an expression written at ``span``; on a syntax error report ``E021`` there and
    return ``None``. The diagnostic marks the offending token when ``span`` is one line holding
    exactly ``text``, maybe in quotes; otherwise the whole span.

    ``what`` names the expression in the message (``requirements``); ``old`` as in
    :func:`parse`; ``field`` is the SPLAT field path the diagnostic is about, if any."""
    try:
        return parse(text, old=old)
    except ClassAdError as err:
        where = span
        if span is not None and span.line == span.end_line:
            width = span.end_column - span.column
            if width == len(text):
                where = span.shifted(err.start, err.end)
            elif width == len(text) + 2:  # the text in quotes
                where = span.shifted(err.start + 1, err.end + 1)
        reporter.report(
            err.code,
            f"`{what}` is not a ClassAd expression: {err.message}"
            if err.code == "E021"
            else f"`{what}`: {err.message}",
            where,
            help=err.help or _DEFAULT_HELP,
            field=field,
        )
        return None


def check_ads(text: str, reporter: Reporter) -> list[list[Attribute]] | None:
    """:func:`parse_ads`, reporting ``E021`` at the first syntax error (in ``reporter.file``)."""
    try:
        return parse_ads(text)
    except ClassAdError as err:
        reporter.report(
            err.code,
            f"not a ClassAd: {err.message}" if err.code == "E021" else err.message,
            _span_at(text, err.start, err.end, reporter.file),
            help=err.help or _DEFAULT_HELP,
        )
        return None


_DEFAULT_HELP: Final = (
    'check the operators and quoting at the marked place (strings in `"…"`, attribute names '
    "with other characters in `'…'`)"
)


def _span_at(text: str, start: int, end: int, file: str | None) -> Span:
    from bammmc.diagnostics.model import Span

    start = min(start, len(text))
    end = max(start + 1, min(end, len(text) + 1))
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    end_line = line + text.count("\n", start, end - 1)
    end_column = end - (text.rfind("\n", 0, end - 1) + 1) + 1
    return Span(
        file=file,
        line=line,
        column=column,
        end_line=end_line,
        end_column=end_column,
        start=start,
        end=end,
    )


_NEW_AD_START: Final = r"(?:[ \t\n\v\f\r]+|//[^\n]*\n|/\*[\s\S]*?\*/)*\["


def _is_new_style(text: str) -> bool:
    """A text whose first token is `[` (ads in the old style start with a name)."""
    return re.match(_NEW_AD_START, text) is not None


def _old_ads(text: str) -> list[list[Attribute]]:
    """Old-style ads: each line alone, as HTCondor's ``InsertFromStream`` reads it."""
    ads: list[list[Attribute]] = []
    current: list[Attribute] = []
    offset = 0
    for body in text.split("\n"):  # lines end at `\n` only (a `\r` is white space)
        if not body.strip(" \t\v\f\r"):
            if current:  # a blank line ends an ad
                ads.append(current)
                current = []
        elif not body.lstrip(" \t").startswith("#"):
            current.append(_parse(body + "\n", "old_line", offset))
        offset += len(body) + 1
    if current:
        ads.append(current)
    return ads


def _parse(source: str, start: str, base: int = 0) -> Any:
    """Parse ``source`` from one start rule; ``base`` is added to every offset in the result
    and in errors (the offset of ``source`` in the whole text)."""
    from lark.exceptions import UnexpectedInput, VisitError

    _precheck(source, start, base)
    try:
        tree = parser(start).parse(source)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, source, base) from None
    try:
        result = _build(tree, base)
    except VisitError as exc:
        if isinstance(exc.orig_exc, ClassAdError):
            raise exc.orig_exc from None
        raise
    for expr in _top_expressions(result):
        _check_depth(expr)
    return result


def _top_expressions(result: Any) -> Iterator[Expr]:
    if isinstance(result, Attribute):
        yield result.value
    elif isinstance(result, list | tuple):
        for item in result:
            yield from _top_expressions(item)
    else:
        yield result


# ── parse tree -> AST ──────────────────────────────────────────────────────────────────────────


class _Name:
    """An attribute name token, decoded."""

    __slots__ = ("end", "start", "value")

    def __init__(self, value: str, start: int, end: int) -> None:
        self.value = value
        self.start = start
        self.end = end


def _nodes(children: list[Any]) -> list[Any]:
    """The children that are not tokens (lark's Token is a str)."""
    return [c for c in children if not isinstance(c, str)]


@functools.cache
def _builder_class() -> type[_Rules]:
    from lark.visitors import Transformer_NonRecursive

    return type("_Builder", (_Rules, Transformer_NonRecursive), {})


def _build(tree: Any, base: int) -> Any:
    """Parse tree -> AST, bottom-up without recursion (a `||` chain of a thousand machine names
    nests a thousand deep)."""
    builder: Any = _builder_class()(visit_tokens=False)  # type: ignore[call-arg]
    builder.base = base
    return builder.transform(tree)


class _Rules:
    """One method per grammar rule (alias); ``base`` is added to every token offset."""

    base: int = 0

    def _start(self, item: Any) -> int:
        """Where a node, name or token starts."""
        if isinstance(item, _Node | _Name):
            return item.start
        return int(item.start_pos) + self.base

    def _end(self, item: Any) -> int:
        if isinstance(item, _Node | _Name):
            return item.end
        return int(item.end_pos) + self.base

    # start rules
    def expr(self, children: list[Any]) -> Expr:
        return children[0]  # type: ignore[no-any-return]

    old_expr = expr

    def ad(self, children: list[Any]) -> tuple[Attribute, ...]:
        return children[0].attributes  # type: ignore[no-any-return]

    def ads(self, children: list[Any]) -> list[tuple[Attribute, ...]]:
        return [record.attributes for record in children]

    def old_line(self, children: list[Any]) -> Attribute:
        name, _, value = children
        return Attribute(name.value, value, start=name.start, end=value.end)

    # operators
    def ternary(self, children: list[Any]) -> Ternary:
        cond, _, yes, _, no = children
        return Ternary(cond, yes, no, start=cond.start, end=no.end)

    def binary(self, children: list[Any]) -> Binary:
        left, op, right = children
        return Binary(_BINARY[op.type], left, right, start=left.start, end=right.end)

    def unary(self, children: list[Any]) -> Unary:
        op, operand = children
        return Unary(str(op), operand, start=self._start(op), end=operand.end)

    def elvis(self, children: list[Any]) -> Elvis:
        left, _, right = children
        return Elvis(left, right, start=left.start, end=right.end)

    def subscript(self, children: list[Any]) -> Subscript:
        base, _, index, close = children
        return Subscript(base, index, start=base.start, end=self._end(close))

    def select(self, children: list[Any]) -> Expr:
        base, _, name = children
        if (
            isinstance(base, AttrRef)
            and base.scope is None
            and not base.absolute
            and base.name.lower() in SCOPES
        ):
            return AttrRef(name.value, base.name, start=base.start, end=name.end)
        return Select(base, name.value, start=base.start, end=name.end)

    # operands
    def _literal(self, kind: LiteralKind, value: Any, children: list[Any]) -> Literal:
        return Literal(kind, value, start=self._start(children[0]), end=self._end(children[-1]))

    def integer(self, children: list[Any]) -> Literal:
        return self._literal("integer", _integer(str(children[0])), children)

    def real(self, children: list[Any]) -> Literal:
        return self._literal("real", _real(str(children[0])), children)

    def string(self, children: list[Any]) -> Literal:
        tok = children[0]
        if tok.type == "OLD_STRING":
            value = str(tok)[1:-1].replace('\\"', '"')
        else:
            value = _unescape(str(tok), '"', self._start(tok), self._end(tok))
        return self._literal("string", value, children)

    def boolean(self, children: list[Any]) -> Literal:
        return self._literal("boolean", children[0].type == "TRUE", children)

    def undefined(self, children: list[Any]) -> Literal:
        return self._literal("undefined", None, children)

    def error(self, children: list[Any]) -> Literal:
        return self._literal("error", None, children)

    def attr_name(self, children: list[Any]) -> _Name:
        tok = children[0]
        start, end = self._start(tok), self._end(tok)
        if tok.type == "QUOTED_IDENT":
            return _Name(_unescape(str(tok), "'", start, end), start, end)
        return _Name(str(tok), start, end)

    def attr(self, children: list[Any]) -> AttrRef:
        name = children[0]
        return AttrRef(name.value, start=name.start, end=name.end)

    def absolute(self, children: list[Any]) -> AttrRef:
        dot, name = children
        return AttrRef(name.value, absolute=True, start=self._start(dot), end=name.end)

    def call(self, children: list[Any]) -> Expr:
        name = children[0]
        args = tuple(_nodes(children[1:]))
        start, end = name.start, self._end(children[-1])
        if (
            len(args) == 1
            and isinstance(args[0], Literal)
            and args[0].kind == "string"
            and name.value.lower() in ("abstime", "reltime")
        ):
            return _time_literal(name.value, args[0], start, end)
        return Call(name.value, args, start=start, end=end)

    def paren(self, children: list[Any]) -> Paren:
        return Paren(children[1], start=self._start(children[0]), end=self._end(children[-1]))

    def list_expr(self, children: list[Any]) -> ListExpr:
        items = tuple(_nodes(children))
        return ListExpr(items, start=self._start(children[0]), end=self._end(children[-1]))

    def record(self, children: list[Any]) -> Record:
        attrs = tuple(_nodes(children))
        return Record(attrs, start=self._start(children[0]), end=self._end(children[-1]))

    def attr_def(self, children: list[Any]) -> Attribute:
        name, _, value = children
        if not name.value:  # ClassAd::Insert() refuses an empty name
            raise ClassAdError(
                "an attribute name cannot be empty",
                name.start,
                name.end,
                help="give the attribute a name",
            )
        return Attribute(name.value, value, start=name.start, end=value.end)


def _time_literal(name: str, arg: Literal, start: int, end: int) -> Literal:
    """source.cpp ``shouldEvaluateAtParseTime``: ``absTime``/``relTime`` of one string literal
    is evaluated while parsing; a string it cannot read makes the parse fail."""
    text = str(arg.value)
    if name.lower() == "abstime":
        when = _abs_time(text)
        if when is not None:
            return Literal("abstime", when, start=start, end=end)
    else:
        secs = _rel_time(text)
        if secs is not None:
            return Literal("reltime", secs, start=start, end=end)
    raise ClassAdError(
        f"`{name}` cannot read the time {_quote_string(text)}",
        arg.start,
        arg.end,
        help='write an absolute time as `"2024-03-01T08:00:00Z"`, a relative one as '
        '`"1+02:03:04"` (days+hours:minutes:seconds)',
    )


_BINARY: Final = {
    "OR": "||",
    "AND": "&&",
    "BOR": "|",
    "BXOR": "^",
    "BAND": "&",
    "EQ": "==",
    "NE": "!=",
    "META_EQ": "is",
    "IS": "is",
    "META_NE": "isnt",
    "ISNT": "isnt",
    "LT": "<",
    "LE": "<=",
    "GT": ">",
    "GE": ">=",
    "SHL": "<<",
    "SHR": ">>",
    "USHR": ">>>",
    "PLUS": "+",
    "MINUS": "-",
    "STAR": "*",
    "SLASH": "/",
    "PERCENT": "%",
}

_INT64: Final = 2**63


def _integer(text: str) -> int:
    """lexer.cpp: ``std::from_chars`` base 10 of the token; on overflow the value stays 0, and
    after a folded ``-`` a hex token reads as its leading ``0``."""
    if text[:3].lower() == "-0x":
        return 0
    if len(text.lstrip("+-").lstrip("0")) > len(str(_INT64)):  # int() refuses > 4300 digits
        return 0
    value = int(text)
    return value if -_INT64 <= value < _INT64 else 0


def _real(text: str) -> float:
    """lexer.cpp: ``strtod()`` of the token (which reads `..5` as nothing, 0.0, and a `0x`
    mantissa as hexadecimal up to the first character that is not a hex digit)."""
    if text.startswith(".."):
        return 0.0
    hexa = re.match(r"-?0[xX][0-9a-fA-F]+\.[0-9a-fA-F]*", text)
    if hexa:
        return float.fromhex(hexa.group())
    return float(text)


_ESCAPES: Final = {
    ord('"'): ord('"'),
    ord("'"): ord("'"),
    ord("?"): ord("?"),
    ord("a"): 7,
    ord("b"): 8,
    ord("f"): 12,
    ord("n"): 10,
    ord("r"): 13,
    ord("t"): 9,
    ord("v"): 11,
    ord("\\"): ord("\\"),
}
_OCTAL: Final = b"01234567"


def _unescape(token: str, quote: str, start: int, end: int) -> str:
    """A new-syntax string or quoted name: the bodies of its adjacent literals joined, then
    util.cpp ``convert_escapes`` applied to the bytes (so `"\\1" "2"` is one `\\12`)."""
    body = "".join(re.findall(quote + r"((?:[^" + quote + r"\\]|\\.)*)" + quote, token, re.S))
    raw = body.encode("utf-8", "surrogateescape")
    out = bytearray()
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == 0x5C and i < n - 1:  # a trailing backslash is not an escape
            i += 1
            c = raw[i]
            if c in _ESCAPES:
                c = _ESCAPES[c]
            elif c in _OCTAL:
                number = c - 0x30
                if i + 1 < n and raw[i + 1] in _OCTAL:
                    i += 1
                    number = (number << 3) + raw[i] - 0x30
                    if number < 0x20 and i + 1 < n and raw[i + 1] in _OCTAL:
                        i += 1
                        number = (number << 3) + raw[i] - 0x30
                c = number & 0xFF
                if c == 0:
                    what = "string" if quote == '"' else "attribute name"
                    raise ClassAdError(
                        f"a {what} cannot hold a NUL character (`\\0`)",
                        start,
                        end,
                        help="remove the `\\0` escape",
                    )
        out.append(c)
        i += 1
    return out.decode("utf-8", "surrogateescape")


# ── absTime("…") and relTime("…") literals (literals.cpp, util.cpp) ────────────────────────────

_SPACE: Final = b" \t\n\v\f\r"
_DIGITS: Final = b"0123456789"


def _atoi(data: bytes) -> int:
    digits = b""
    for c in data:
        if c not in _DIGITS:
            break
        digits += bytes([c])
    return int(digits) if digits else 0


def _tz_offset(when: int, no_dst: bool) -> int:
    """util.cpp ``timezone_offset``: the local zone's offset at ``when``."""
    import time

    local = time.localtime(when)
    offset = local.tm_gmtoff
    if no_dst and local.tm_isdst:
        offset -= 3600
    return offset


def _abs_time(value: str) -> tuple[int, int] | None:
    """literals.cpp ``Literal::MakeAbsTime(string)``: (UTC seconds, zone offset) or None."""
    import time

    t = bytearray(value.encode("utf-8", "surrogateescape"))
    n = len(t)
    i = n - 1
    while i >= 0 and t[i] in _SPACE:
        i -= 1
    offset: int | None = None
    if i > 0 and t[i] in b"zZ":
        del t[i]
        offset = 0
    elif n > 5 and t[n - 5] in b"+-":
        offset = _extract_zone(t)
    elif n > 6 and t[n - 6] in b"+-" and t[n - 3] == ord(":"):
        del t[n - 3]
        offset = _extract_zone(t)
    n = len(t)
    fields = [0, 0, 0, 0, 0, 0]  # struct tm: year, month (0-11), day, hour, minute, second
    i = 0
    for k, width in enumerate((4, 2, 2, 2, 2, 2)):
        while i < n and t[i] not in _DIGITS:
            i += 1
        if i <= n - width:
            fields[k] = _atoi(bytes(t[i : i + width])) - (1 if k == 1 else 0)
            i += width
        elif k == 0:
            return None  # no four-digit year
    while i < n and t[i] not in _DIGITS:
        i += 1
    if i < n:
        return None  # digits left over
    year, month, day, hour, minute, second = fields
    try:
        secs = int(time.mktime((year, month + 1, day, hour, minute, second, 0, 0, 0)))
    except (OverflowError, ValueError, OSError):
        return None
    if secs == -1:
        return None
    if offset is None:
        offset = _tz_offset(secs, False)
    secs += _tz_offset(secs, True)
    secs -= offset
    return secs, offset


def _extract_zone(t: bytearray) -> int | None:
    """literals.cpp ``extractTimeZone``: a trailing ``+hhmm``/``-hhmm`` (removed from ``t``)."""
    zone = bytes(t[-5:])
    if zone[:1] in (b"+", b"-") and all(c in _DIGITS for c in zone[1:]):
        del t[-5:]
        hours, minutes = int(zone[1:3]), int(zone[3:5])
        sign = 1 if zone[:1] == b"+" else -1
        return sign * (hours * 3600 + minutes * 60)
    return None


def _int32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def _rel_time(value: str) -> float | None:
    """literals.cpp ``Literal::MakeRelTime(string)``: ``[-][[[days+]hh:]mm:]ss[.sss]`` or
    ``1d2h3m4.5s``, read from the end; seconds or None."""
    t = value.encode("utf-8", "surrogateescape")
    i = len(t) - 1

    def skip() -> None:
        nonlocal i
        while i >= 0 and t[i] in _SPACE:
            i -= 1

    def digits() -> bytes:
        nonlocal i
        found = b""
        while i >= 0 and t[i] in _DIGITS:
            found = bytes([t[i]]) + found
            i -= 1
        return found

    def number(text: bytes) -> int:
        count = int(text) if text else 0
        return count if count < 2**31 else 0  # from_chars into an int: 0 on overflow

    secs = 0.0
    skip()
    if i >= 0 and (t[i] in b"sS" or t[i] in _DIGITS):
        if t[i] in b"sS":
            i -= 1
        skip()
        text = digits()
        if i >= 0 and t[i] == ord("."):
            i -= 1
            text = digits() + b"." + text
        try:
            secs = float(text)
        except ValueError:
            secs = 0.0
    parts = [0, 0, 0]  # minutes, hours, days
    for k, marks in enumerate((b"mM:", b"hH:", b"dD+")):
        skip()
        if i >= 0 and t[i] in marks:
            i -= 1
            skip()
            parts[k] = number(digits())
    skip()
    negative = i >= 0 and t[i] == ord("-")
    if negative:
        i -= 1
    skip()
    if i >= 0 and t[i] not in _SPACE:
        return None
    mins, hrs, days = parts
    total = _int32(days * 86400 + hrs * 3600 + mins * 60) + secs
    return -total if negative else total


def _abs_time_text(when: tuple[int, int]) -> str:
    """util.cpp ``absTimeToString``: ``2003-09-03T00:00:00-05:00``."""
    import time

    secs, offset = when
    sign = "+" if offset > 0 else "-"
    zone = abs(offset)
    try:
        g = time.gmtime(secs + offset)
    except (OverflowError, ValueError, OSError):
        return "?"
    return (
        f"{g.tm_year}-{g.tm_mon:02d}-{g.tm_mday:02d}T{g.tm_hour:02d}:{g.tm_min:02d}:"
        f"{g.tm_sec:02d}{sign}{zone // 3600:02d}:{(zone // 60) % 60:02d}"
    )


def _c_int(value: float) -> int:
    """A C ``(int)`` cast on x86-64: truncation, INT_MIN when out of range."""
    if not math.isfinite(value) or not -(2**31) <= value < 2**31:
        return -(2**31)
    return int(value)


def _c_div(a: int, b: int) -> int:
    q = abs(a) // b
    return q if a >= 0 else -q


def _c_mod(a: int, b: int) -> int:
    return a - _c_div(a, b) * b


def _rel_time_text(secs: float) -> str:
    """util.cpp ``relTimeToString``: ``[-][days+]hh:mm:ss`` with the leading zero fields left
    out."""
    sign = ""
    if secs < 0:
        sign, secs = "-", -secs
    frac = secs - math.floor(secs) if math.isfinite(secs) else math.nan
    days = _c_int(secs)
    hrs = _c_mod(days, 86400)
    mins = _c_mod(hrs, 3600)
    sec = _c_mod(mins, 60) + frac
    days, hrs, mins = _c_div(days, 86400), _c_div(hrs, 3600), _c_div(mins, 60)
    whole = frac == 0
    s = f"{_c_int(sec):02d}" if whole else f"{sec:02g}"
    if days:
        return f"{sign}{days}+{hrs:02d}:{mins:02d}:{s}"
    if hrs:
        return f"{sign}{hrs:02d}:{mins:02d}:{s}"
    if mins:
        return f"{sign}{mins:02d}:{s}"
    return sign + s


# ── the parser's recursion limit ───────────────────────────────────────────────────────────────


def _check_depth(expr: Expr) -> None:
    """Refuse what HTCondor's recursive-descent parser refuses: deeper than MAX_DEPTH calls.

    Walks the tree as source.cpp would parse it: each parseExpression, parseUnaryExpression and
    parsePostfixExpression call is one level; binary operators of one level are a loop."""
    # (node, how it is parsed, depth of the caller): "E" parseExpression, "B" a binary level,
    # "U" parseUnaryExpression, "P" parsePostfixExpression, "L" inside its loop
    stack: list[tuple[Expr, str, int]] = [(expr, "E", 0)]
    while stack:
        node, how, depth = stack.pop()
        if how == "E":
            depth += 1
            if isinstance(node, Ternary):
                stack += [(node.condition, "B", depth), (node.if_true, "E", depth)]
                stack.append((node.if_false, "E", depth))
                continue
            how = "B"
        if how == "B":
            if isinstance(node, Binary):
                stack += [(node.left, "B", depth), (node.right, "B", depth)]
                continue
            how = "U"
        if how == "U":
            depth += 1
            if depth > MAX_DEPTH:
                _too_deep(node)
            if isinstance(node, Unary):
                stack.append((node.operand, "U", depth))
                continue
            how = "P"
        if how == "P":
            depth += 1
            how = "L"
        if depth > MAX_DEPTH:
            _too_deep(node)
        if isinstance(node, Select):
            stack.append((node.base, "L", depth))
        elif isinstance(node, Subscript):
            stack += [(node.base, "L", depth), (node.index, "E", depth)]
        elif isinstance(node, Elvis):
            stack += [(node.left, "L", depth), (node.right, "P", depth)]
        elif isinstance(node, Paren):
            stack.append((node.expr, "E", depth))
        elif isinstance(node, Call):
            stack += [(arg, "E", depth) for arg in node.args]
        elif isinstance(node, ListExpr):
            stack += [(item, "E", depth) for item in node.items]
        elif isinstance(node, Record):
            stack += [(attr.value, "E", depth) for attr in node.attributes]
        elif isinstance(node, Literal) and node.kind in ("abstime", "reltime"):
            if depth + 3 > MAX_DEPTH:  # its string argument was parsed three levels down
                _too_deep(node)


#: the tokens of the pre-check, as lexer.cpp starts them (one character is enough for the rest)
_SCAN: Final = r"""
    (?P<skip>[ \t\n\v\f\r]+|/\*[\s\S]*?\*/|//[^\n]*)
  | (?P<string>%s|'(?:[^'\\]|\\.)*')
  | (?P<number>-?\.?[0-9][0-9A-Za-z_.]*)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<open>[(\[{])
  | (?P<close>[)\]}])
  | (?P<unary>[-+!~])
  | (?P<other>=[=?!]=?|!=|<<|>>>?|[<>]=|&&|\|\||\?[ \t\n\v\f\r]*:|.)
"""
_SCAN_NEW: Final = re.compile(_SCAN % r'"(?:[^"\\]|\\.)*"', re.X | re.S)
_SCAN_OLD: Final = re.compile(_SCAN % r'"(?:[^"]|(?<=\\)")*"', re.X | re.S)


def _precheck(source: str, start: str, base: int) -> None:
    """Refuse, before Lark parses it, a text that nests deeper than :data:`MAX_DEPTH` (E021, at
    the first token that deep) or holds more than :data:`MAX_TOKENS` tokens (E006): Lark takes
    about as long per token whatever the depth, and 500,000 `(` took half a minute.

    The depth counted is a lower bound of :func:`_check_depth`'s: a bracket opens three levels
    (parseExpression, parseUnaryExpression, parsePostfixExpression), a unary operator one. So a
    text it refuses for depth is one that :func:`_check_depth` refuses too, unless a syntax
    error comes first, which the parse of the text before that token finds."""
    scan = _SCAN_OLD if start in ("old_expr", "old_line") else _SCAN_NEW
    bases: list[int] = []
    level = 0  # the depth of the innermost bracket's expression
    unary = 0  # unary operators before the operand being read
    operand = True  # an operand may start here (a `-` before a digit is the number's)
    tokens = 0
    limit = MAX_TOKENS if start in ("expr", "old_expr", "old_line") else None
    for match in scan.finditer(source):
        kind = match.lastgroup
        if kind == "skip":
            continue
        tokens += 1
        if limit is not None and tokens > limit:
            raise ClassAdError(
                f"the expression has more than {MAX_TOKENS:,} tokens, more than bammmc reads",
                base + match.start(),
                base + match.end(),
                help="shorten the expression (a long list of names is often a regexp or a "
                "machine attribute)",
                code="E006",
            )
        if kind == "unary" and operand:
            unary += 1
            if level + 1 + unary > MAX_DEPTH:  # this operator's own parseUnaryExpression
                _refuse_deep(source, start, base, match.start(), match.end())
            continue
        if kind in ("string", "number", "word", "open"):
            if kind == "number" and match.group().startswith("-") and not operand:
                operand = True  # a binary `-` and a number: the number is the next token
            depth = level + unary + 3
            if depth > MAX_DEPTH:
                _refuse_deep(source, start, base, match.start(), match.end())
            unary = 0
            if kind == "open":
                bases.append(level)
                level, operand = depth, True
                continue
            operand = False
        elif kind == "close":
            level = bases.pop() if bases else 0
            unary, operand = 0, False
        else:  # an operator: an operand follows (`!=` is one, not a `!`)
            unary, operand = 0, True


def _refuse_deep(source: str, start: str, base: int, at: int, end: int) -> None:
    """The text nests too deeply at offset ``at``: the syntax error before it, if any, else
    the depth error there."""
    from lark.exceptions import UnexpectedEOF, UnexpectedInput, UnexpectedToken

    try:
        parser(start).parse(source[:at])
    except UnexpectedInput as exc:
        ended = isinstance(exc, UnexpectedEOF) or (
            isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
        )
        if not ended:
            raise _syntax_error(exc, source[:at], base) from None
    raise ClassAdError(
        f"the expression nests more than {MAX_DEPTH} levels deep",
        base + at,
        base + end,
        help="HTCondor's parser stops there; write it with fewer nested parentheses or operators",
    )


def _too_deep(node: Expr) -> None:
    raise ClassAdError(
        f"the expression nests more than {MAX_DEPTH} levels deep",
        node.start,
        node.end,
        help="HTCondor's parser stops there; write it with fewer nested parentheses or operators",
    )


# ── syntax errors ──────────────────────────────────────────────────────────────────────────────

_SHOWN: Final = {
    "RPAR": "`)`",
    "RBOX": "`]`",
    "RBRACE": "`}`",
    "COLON": "`:`",
    "BOUND": "`=`",
    "COMMA": "`,`",
    "SEMI": "`;`",
    "IDENT": "a name",
    "QUOTED_IDENT": "a name",
    "LPAR": "`(`",
}


def _syntax_error(exc: Any, text: str, base: int) -> ClassAdError:
    """A Lark error as a ClassAdError at the offending token (or character)."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    if isinstance(exc, UnexpectedCharacters):
        return _lexical_error(text, exc.pos_in_stream or 0, base)
    token: Token | None = exc.token if isinstance(exc, UnexpectedToken) else None
    expected = _expected(exc)
    if token is None or token.type == "$END":
        if not text.strip():
            return ClassAdError("the text is empty", base, base, help="write an expression")
        at = base + len(text.rstrip(" \t\n\v\f\r"))
        return ClassAdError(
            "unexpected end of the text" + expected, at, at, help="complete the expression"
        )
    pos = token.start_pos or 0
    if token.type == "SLASH" and text[pos - 1 : pos] == "/":
        return _lexical_error(text, pos - 1, base)
    shown = str(token) if len(token) <= 24 else str(token)[:20] + "…"
    return ClassAdError(
        f"unexpected `{shown}`" + expected,
        base + pos,
        base + (token.end_pos or 0),
        help=_token_help(token, text),
    )


def _expected(exc: Any) -> str:
    """``; expected `)` or `,` `` when the parser expected only a few closing tokens."""
    expected = set(getattr(exc, "expected", ()))
    if not expected or not expected <= _SHOWN.keys():
        return ""
    names = sorted({_SHOWN[name] for name in expected})
    return "; expected " + " or ".join(names) if len(names) <= 3 else ""


def _token_help(token: Token, text: str) -> str | None:
    pos = token.start_pos or 0
    if token.type in ("IS", "ISNT", "TRUE", "FALSE", "UNDEFINED", "ERROR"):
        return f"`{token}` is a keyword; quote an attribute of that name: `'{token}'`"
    if token.type == "BOUND":
        return "compare with `==`; `=` only binds a name inside `[ … ]`"
    if token.type == "IDENT" and text[pos - 1 : pos].isdigit():
        return "a number has no unit or letters after it (`4096`, not `4GB`)"
    if token.type in ("STRING", "IDENT", "QUOTED_IDENT", "INTEGER", "REAL"):
        return "put an operator between the two values"
    return None


def _lexical_error(text: str, pos: int, base: int) -> ClassAdError:
    """A character no token can start with here: say which mistake it most likely is."""
    rest = text[pos:]
    number = re.match(r"-?(?:0[xX][0-9A-Za-z_]*|[0-9][0-9A-Za-z_]*(?:\.[0-9A-Za-z_]*)?)", rest)
    if number:
        word = number.group()
        end = pos + len(word)
        digits = word.lstrip("-")
        if digits[:2].lower() == "0x":
            return ClassAdError(
                f"`{word}`: ClassAd integers are decimal",
                base + pos,
                base + end,
                help="write the number in decimal",
            )
        if re.fullmatch(r"0[0-9]+", digits):
            return ClassAdError(
                f"`{word}`: an integer cannot start with `0`",
                base + pos,
                base + end,
                # the digits without their leading zeros (int() refuses > 4300 digits)
                # HTCondor's tools read ClassAds with the old semantics (compat_classad.cpp:
                # STRICT_CLASSAD_EVALUATION is false by default), whose lexer refuses it;
                # classad2 alone, without HTCondor's configuration, reads it as decimal
                help=f"write `{digits.lstrip('0') or '0'}`; condor_submit refuses a leading zero "
                "(its ClassAds have the old semantics, without octal numbers)",
            )
        if re.fullmatch(r"[0-9]+\.(?![0-9]).*", digits):
            return ClassAdError(
                f"`{word}`: a number needs a digit after its `.`",
                base + pos,
                base + end,
                help=f"write `{digits.split('.')[0]}.0`",
            )
        return ClassAdError(
            f"`{word}` is not a number",
            base + pos,
            base + end,
            help="a number has no unit or letters after it (`4096`, not `4GB`)",
        )
    char = rest[:1]
    if char == '"':
        return ClassAdError(
            "this string is not closed",
            base + pos,
            base + len(text.rstrip("\n")),
            help='end it with `"`; write a quote inside it as `\\"`',
        )
    if char == "'":
        return ClassAdError(
            "this quoted attribute name is not closed",
            base + pos,
            base + len(text.rstrip("\n")),
            help="end it with `'`",
        )
    if rest.startswith("/*"):
        return ClassAdError(
            "this comment is not closed",
            base + pos,
            base + pos + 2,
            help="end it with `*/`",
        )
    if rest.startswith("//"):
        return ClassAdError(
            "a `//` comment runs to the end of the expression",
            base + pos,
            base + len(text),
            help="HTCondor reads the rest as part of the comment; use `/* … */`",
        )
    if char and not char.isascii():
        return ClassAdError(
            f"`{char}` may only appear inside a string or a quoted name",
            base + pos,
            base + pos + 1,
            help="quote it: `\"…\"` for a string, `'…'` for an attribute name",
        )
    shown = {"\x00": "\\0", "\t": "\\t"}.get(char, char)
    return ClassAdError(f"unexpected `{shown}`", base + pos, base + pos + 1)


# ── canonical text (sink.cpp ClassAdUnParser + PrettyPrint) ───────────────────────────────────


class _Indent:
    __slots__ = ("by",)

    def __init__(self, by: int) -> None:
        self.by = by


_NEWLINE: Final = object()
_UNARY: Final = {"-": " -", "+": " +", "!": " !", "~": " ~"}


def unparse(expr: Expr) -> str:
    """The canonical text, exactly ``str(classad2.ExprTree(text))``: binary operators spaced,
    ``is``/``isnt`` for ``=?=``/``=!=``, keywords in lower case, unary operators after a space,
    call arguments unspaced, reals as ``%.15E``, lists and records over several lines, ad
    attributes sorted by name length then name, parentheses as written.

    >>> unparse(parse("! (a=?=b)"))
    ' !(a is b)'
    """
    out: list[str] = []
    indent = 0
    stack: list[Any] = [expr]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif item is _NEWLINE:
            out.append("\n" + " " * indent)
        elif isinstance(item, _Indent):
            indent += item.by
        else:
            stack += reversed(_pieces(item))
    return "".join(out)


def _pieces(node: Any) -> list[Any]:
    """One node as strings, child nodes and layout marks, in order."""
    if isinstance(node, Literal):
        return [_literal_text(node)]
    if isinstance(node, AttrRef):
        if node.absolute:
            return ["." + _quote_name(node.name)]
        if node.scope is not None:
            return [_quote_name(node.scope) + "." + node.name]
        return [_quote_name(node.name)]
    if isinstance(node, Select):
        return [node.base, "." + node.name]  # sink.cpp prints a selected name unquoted
    if isinstance(node, Subscript):
        return [node.base, "[", node.index, "]"]
    if isinstance(node, Unary):
        return [_UNARY[node.op], node.operand]
    if isinstance(node, Binary):
        return [node.left, f" {node.op} ", node.right]
    if isinstance(node, Ternary):
        return [node.condition, " ? ", node.if_true, " : ", node.if_false]
    if isinstance(node, Elvis):
        return [node.left, " ?: ", node.right]
    if isinstance(node, Paren):
        return ["(", node.expr, ")"]
    if isinstance(node, Call):
        parts: list[Any] = [node.name + "("]
        for i, arg in enumerate(node.args):
            parts += [",", arg] if i else [arg]
        return [*parts, ")"]
    if isinstance(node, ListExpr):
        parts = [_Indent(3), _NEWLINE, "{", _Indent(3)]
        for i, item in enumerate(node.items):
            parts += [",", _NEWLINE, item] if i else [_NEWLINE, item]
        return [*parts, _Indent(-3), _NEWLINE, "}", _Indent(-3)]
    if isinstance(node, Record):
        parts = [_Indent(4), _NEWLINE, "[", _Indent(4)]
        for i, (name, value) in enumerate(ad_items(node.attributes)):
            if i:
                parts.append("; ")
            parts += [_NEWLINE, _quote_name(name) + " = ", value]
        return [*parts, _Indent(-4), _NEWLINE, "]", _Indent(-4)]
    raise TypeError(f"not a ClassAd expression node: {node!r}")


def ad_items(attributes: tuple[Attribute, ...] | list[Attribute]) -> list[tuple[str, Expr]]:
    """An ad's attributes as HTCondor holds them: one per name (compared case-insensitively;
    the first spelling, the last value), sorted by name length, then case-insensitively
    (classad_flat_map.h ``ClassAdFlatMapOrder``)."""
    merged: dict[bytes, tuple[str, Expr]] = {}
    for attr in attributes:
        key = attr.name.encode("utf-8", "surrogateescape").lower()
        spelling = merged[key][0] if key in merged else attr.name
        merged[key] = (spelling, attr.value)
    return [merged[key] for key in sorted(merged, key=lambda k: (len(k), k))]


def _literal_text(node: Literal) -> str:
    kind, value = node.kind, node.value
    if kind == "integer":
        return str(value)
    if kind == "real":
        assert isinstance(value, float)
        return _real_text(value)
    if kind == "string":
        return _quote_string(str(value))
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "abstime":
        assert isinstance(value, tuple)
        return f'absTime("{_abs_time_text(value)}")'
    if kind == "reltime":
        assert isinstance(value, float | int)
        return f'relTime("{_rel_time_text(float(value))}")'
    return kind  # undefined, error


def _real_text(value: float) -> str:
    """sink.cpp ``UnparseReal``."""
    if value == 0.0:
        return f"{value:.1f}"
    if math.isnan(value):
        return 'real("NaN")'
    if math.isinf(value):
        return 'real("-INF")' if value < 0 else 'real("INF")'
    return f"{value:.15E}"


_CHAR_ESCAPES: Final = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}


def _escaped(value: str, quote: str) -> str:
    """sink.cpp ``UnparseString`` without the quotes: C escapes, other non-printable bytes as
    three octal digits (so UTF-8 text comes out as octal escapes, as HTCondor prints it)."""
    out = []
    for byte in value.encode("utf-8", "surrogateescape"):
        char = chr(byte)
        if char == quote:
            out.append("\\" + quote)
        elif byte in _CHAR_ESCAPES:
            out.append(_CHAR_ESCAPES[byte])
        elif char == "\\":
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out)


def _quote_string(value: str) -> str:
    return '"' + _escaped(value, '"') + '"'


def _quote_name(name: str) -> str:
    """sink.cpp: an attribute name, in single quotes unless it is a plain identifier that is
    not a reserved word."""
    text = _escaped(name, "'")
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text) and text.lower() not in RESERVED:
        return text
    return "'" + text + "'"
