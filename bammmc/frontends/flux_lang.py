"""The small Flux languages both Flux formats read and write (grammar ``grammars/flux_lang.lark``).

Used by both Flux formats, ``flux`` (jobspec: ``passes/lower/flux.py``, ``backends/flux.py``) and
``flux-batch`` (batch script: ``passes/lower/flux_batch.py``, ``backends/flux_batch.py``). Follows
shared/docs/formats/flux.md §3-§5 and the sources it names:

- **RFC 23 Flux Standard Duration** (`parse_fsd`, `format_fsd`): ``N[ms|s|m|h|d]``, N a
  non-negative float, or ``inf``/``infinity``. A bare number is seconds in RFC 23 but minutes for
  ``flux batch -t`` (``bare="m"``).
- **RFC 26 dependencies** (`parse_dependency`, `format_dependency`, `to_object`, `from_object`,
  `to_splat`, `from_splat`): ``scheme:value[?key=val&…]`` as flux-core's ``URIArg`` reads it.
- **RFC 35 constraint query syntax** (`parse_requires`, `format_requires`): ``--requires``, as
  flux-core's PLY parser (``flux/constraint/parser.py``, ``MiniConstraintParser``) reads it,
  including how its precedence table nests juxtaposed terms, to the RFC 31 JSON object.
- **Job-shell mustache templates** (`mustache_parts`, `mustache_clash`): ``{{id}}`` in output
  paths, ``--env`` values and command words, as flux-core's job shell reads them.
- **SPLAT ``placement.constraint`` <-> RFC 31** (`constraint_from_splat`, `constraint_to_splat`):
  ``avx512&ib`` is ``{"properties": ["avx512", "ib"]}`` ("BAMMM splits on &"), ``a|b`` is ``or``.

Every function raises :class:`FluxLangError` (0-based offsets into the text, a ``help`` line and
the ``language``) on bad input; the callers turn it into a located diagnostic. Lark is
imported on first parse only.

>>> parse_fsd("2.5m"), format_fsd(150.0)
(150.0, '2.5m')
>>> parse_requires("ssd -host:node7")
{'and': [{'properties': ['ssd']}, {'not': [{'hostlist': ['node7']}]}]}
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, Literal
from urllib.parse import quote, unquote_plus

from bammmc.grammars import parser
from bammmc.ir.job import Dependency
from bammmc.ir.values import LAST_TIMESTAMP

if TYPE_CHECKING:
    from lark import Token, Tree

__all__ = [
    "FluxDependency",
    "FluxLangError",
    "FluxLangUnsupported",
    "constraint_from_splat",
    "constraint_to_splat",
    "format_dependency",
    "format_fsd",
    "format_requires",
    "from_object",
    "from_splat",
    "mustache_clash",
    "mustache_parts",
    "parse_dependency",
    "parse_fsd",
    "parse_requires",
    "to_object",
    "to_splat",
]

Language = Literal["fsd", "dependency", "requires", "constraint"]
#: the longest text any of these languages is parsed from (no real value comes near it)
MAX_LENGTH: Final = 10_000
#: how deep a constraint object may nest before the writers give up on it
MAX_DEPTH: Final = 64


class FluxLangError(ValueError):
    """A Flux sub-language value that does not parse or has no meaning.

    ``start``/``end`` are 0-based offsets into the text that was parsed (both 0 for a value that
    came as an object), ``help`` says how to fix it, ``language`` which language refused it:
    ``fsd``, ``dependency``, ``requires`` or ``constraint`` (the SPLAT constraint string).
    """

    def __init__(
        self,
        message: str,
        start: int = 0,
        end: int = 0,
        help: str = "",
        language: Language = "fsd",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = max(end, start)
        self.help = help
        self.language: Language = language

    def __repr__(self) -> str:
        return f"FluxLangError({self.message!r}, {self.start}, {self.end}, {self.help!r})"


class FluxLangUnsupported(FluxLangError):
    """A valid value with no form in the target language (a loss for the caller to report)."""


# ── shared parsing helpers ───────────────────────────────────────────────────────────────────


def _parse(
    text: str, start: str, language: Language, what: str, example: str, *, blanks: bool = True
) -> Tree[Token]:
    """Parse ``text`` from one start rule of ``flux_lang.lark``; errors become FluxLangError.

    The grammar ignores blanks everywhere (``%ignore`` is global), so a language without them
    (``blanks=False``) refuses the first one here.
    """
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput

    if not text.strip():
        raise FluxLangError(
            f"expected {what}, found nothing",
            0,
            len(text),
            f"write {what} such as {example}",
            language,
        )
    blank = None if blanks else next((i for i, c in enumerate(text) if c.isspace()), None)
    if blank is not None:
        raise FluxLangError(
            f"blank inside {what} `{text}`",
            blank,
            blank + 1,
            f"remove the blank; write {what} such as {example}",
            language,
        )
    if len(text) > MAX_LENGTH:
        raise FluxLangError(
            f"{what} of {len(text)} characters is too long",
            0,
            len(text),
            f"write {what} such as {example}",
            language,
        )
    try:
        return parser("flux_lang", start).parse(text)
    except UnexpectedEOF:
        raise FluxLangError(
            f"{what} `{text}` ends too early",
            len(text),
            len(text),
            f"write {what} such as {example}",
            language,
        ) from None
    except UnexpectedCharacters as exc:
        pos = exc.pos_in_stream or 0
        end = pos + 1
        if text[pos : pos + 2] in ("''", '""'):
            raise FluxLangError(
                f"empty quotes `{text[pos : pos + 2]}` in {what} `{text}`",
                pos,
                pos + 2,
                "remove them, or put the value between them",
                language,
            ) from None
        if text[pos] in "'\"":
            raise FluxLangError(
                f"unclosed quote `{text[pos]}` in {what} `{text}`",
                pos,
                end,
                f"close it, or remove it; write {what} such as {example}",
                language,
            ) from None
        while end < len(text) and text[pos].isalnum() and text[end].isalnum():
            end += 1
        raise FluxLangError(
            f"unexpected `{text[pos:end]}` in {what} `{text}`",
            pos,
            end,
            f"write {what} such as {example}",
            language,
        ) from None
    except UnexpectedInput as exc:
        token = getattr(exc, "token", None)
        pos = int(getattr(token, "start_pos", None) or getattr(exc, "pos_in_stream", None) or 0)
        if token is None or token.type == "$END" or not str(token):
            raise FluxLangError(
                f"{what} `{text}` ends too early",
                len(text),
                len(text),
                f"write {what} such as {example}",
                language,
            ) from None
        raise FluxLangError(
            f"unexpected `{token}` in {what} `{text}`",
            pos,
            pos + len(str(token)),
            f"write {what} such as {example}",
            language,
        ) from None


def _tokens(tree: Tree[Token]) -> list[Token]:
    from lark import Token

    return [t for t in tree.scan_values(lambda v: isinstance(v, Token))]


# ── RFC 23 Flux Standard Duration ─────────────────────────────────────────────────────────────

#: RFC 23 suffixes (case-sensitive) -> seconds
FSD_UNITS: Final[dict[str, float]] = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_FSD_EXAMPLE: Final = "`30s`, `2.5m`, `1h` or `inf`"


def parse_fsd(text: str, bare: Literal["s", "m"] = "s") -> float:
    """RFC 23 duration in seconds; ``inf``/``infinity`` is :data:`math.inf`.

    A number without a suffix is seconds (RFC 23) or, with ``bare="m"``, minutes, as
    ``flux batch -t``/``--time-limit`` reads it (flux.md §3).

    >>> parse_fsd("1.2h"), parse_fsd("30"), parse_fsd("30", bare="m"), parse_fsd("2ms")
    (4320.0, 30.0, 1800.0, 0.002)
    """
    tree = _parse(text, "fsd", "fsd", "a Flux duration", _FSD_EXAMPLE, blanks=False)
    if tree.data == "fsd_inf":
        return math.inf
    sign = number = unit = None
    for token in _tokens(tree):
        kind = token.type
        if kind == "SIGN":
            sign = token
        elif kind == "FSD_NUMBER":
            number = token
        elif kind == "FSD_UNIT":
            unit = token
    assert number is not None
    if unit is not None and str(unit) not in FSD_UNITS:
        start = unit.start_pos or 0
        raise FluxLangError(
            f"unknown unit `{unit}` in Flux duration `{text}`",
            start,
            start + len(unit),
            "RFC 23 units are `ms`, `s`, `m`, `h` and `d` (lower case)",
        )
    value = float(str(number))
    if sign is not None and str(sign) == "-" and value != 0:
        raise FluxLangError(
            f"Flux duration `{text}` is negative",
            0,
            len(text),
            "a duration is 0 or more; write e.g. `30s`",
        )
    scale = FSD_UNITS[str(unit)] if unit is not None else (60.0 if bare == "m" else 1.0)
    # value / 1000 is exact for whole milliseconds, unlike value * 0.001
    seconds = value / 1000.0 if unit is not None and str(unit) == "ms" else value * scale
    if math.isinf(seconds):
        raise FluxLangError(
            f"Flux duration `{text}` is too large", 0, len(text), "write `inf` for no limit"
        )
    return seconds


def _shortest(value: float) -> str:
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


def format_fsd(seconds: float) -> str:
    """The shortest RFC 23 spelling that reads back as exactly ``seconds``.

    >>> [format_fsd(s) for s in (30, 150, 3600, 172800, 0.002, 90, math.inf)]
    ['30s', '2.5m', '1h', '2d', '2ms', '90s', 'inf']
    """
    try:
        seconds = float(seconds)
    except OverflowError:  # an int beyond 1.8e308: readers refuse one, but not every caller
        raise FluxLangError(
            "a duration too large for Flux (a double)", help="write `inf` for no limit"
        ) from None
    if math.isnan(seconds) or seconds < 0:
        raise FluxLangError(
            f"{seconds!r} seconds has no Flux duration", help="a duration is 0 or more seconds"
        )
    if math.isinf(seconds):
        return "inf"
    if seconds == 0:
        return "0s"
    best = _shortest(seconds) + "s"
    for unit in ("ms", "m", "h", "d"):  # a tie goes to the larger unit: `2.5m`, not `150s`
        value = seconds * 1000.0 if unit == "ms" else seconds / FSD_UNITS[unit]
        if not math.isfinite(value):
            continue
        text = _shortest(value) + unit
        shorter = len(text) < len(best) if unit == "ms" else len(text) <= len(best)
        if shorter and parse_fsd(text) == seconds:
            best = text
    return best


# ── RFC 26 dependencies ─────────────────────────────────────────────────────────────────────

#: schemes whose value is a job id (RFC 26 + flux-core; `after` is flux-core's deprecated alias
#: of `afterstart`)
JOBID_SCHEMES: Final = frozenset(
    {"after", "afterstart", "afterany", "afterok", "afternotok", "afterexcept"}
)
#: RFC 26 / flux-core scheme -> SPLAT scheme (the others have no SPLAT form)
SPLAT_SCHEMES: Final[dict[str, str]] = {
    "afterok": "afterok",
    "afternotok": "afternotok",
    "afterany": "afterany",
    "afterstart": "after",
    "after": "after",
    "singleton": "singleton",
    "begin-time": "begin_time",
}
#: SPLAT scheme -> the scheme written (flux-core deprecates `after` for `afterstart`)
FLUX_SCHEMES: Final[dict[str, str]] = {
    "afterok": "afterok",
    "afternotok": "afternotok",
    "afterany": "afterany",
    "after": "afterstart",
    "singleton": "singleton",
    "begin_time": "begin-time",
}
_DEP_EXAMPLE: Final = "`afterok:ƒ2oLkTLb` or `string:foo?type=out`"


@dataclass(frozen=True)
class FluxDependency:
    """One RFC 26 dependency: ``scheme:value?key=val&…``; ``start``/``end`` span the text."""

    scheme: str
    value: str = ""
    query: dict[str, str] = field(default_factory=dict)
    start: int = field(default=0, compare=False)
    end: int = field(default=0, compare=False)


def parse_dependency(uri: str) -> FluxDependency:
    """An RFC 26 command-line dependency, as ``flux submit --dependency=URI`` reads it.

    Query values are percent-decoded (flux-core uses ``urllib.parse.parse_qs``); a URI without
    ``:`` (``singleton``) has an empty value, as flux-core gives it.

    >>> parse_dependency("string:foo?type=out")
    FluxDependency(scheme='string', value='foo', query={'type': 'out'}, start=0, end=19)
    """
    tree = _parse(uri, "dependency", "dependency", "a Flux dependency", _DEP_EXAMPLE, blanks=False)
    scheme = value = ""
    query: dict[str, str] = {}
    for token in _tokens(tree):
        if token.type == "SCHEME":
            scheme = str(token)
        elif token.type == "DEP_VALUE":
            value = str(token)
    for param in tree.find_data("param"):
        key_tok, _eq, *rest = param.children
        key = unquote_plus(str(key_tok))
        start = getattr(key_tok, "start_pos", 0) or 0
        end = (getattr(rest[-1], "end_pos", None) if rest and rest[-1] is not None else None) or (
            start + len(str(key_tok)) + 1
        )
        if not rest or rest[0] is None:
            raise FluxLangError(
                f"dependency option `{key}` has no value",
                start,
                end,
                f"write `{key}=VALUE` or remove it",
                "dependency",
            )
        if key in query:
            raise FluxLangError(
                f"dependency option `{key}` is given twice",
                start,
                end,
                "give each option once",
                "dependency",
            )
        query[key] = unquote_plus(str(rest[0]))
    _check_value(scheme, value, len(uri), len(scheme) + 1)
    return FluxDependency(scheme, value, query, 0, len(uri))


def _check_value(scheme: str, value: str, end: int, offset: int) -> None:
    """The value a known scheme needs: a job id, a name, a time."""
    if scheme in JOBID_SCHEMES | {"begin-time", "string", "fluid"} and not value:
        what = {"begin-time": "a time", "string": "a name"}.get(scheme, "a job id")
        raise FluxLangError(
            f"dependency `{scheme}` needs {what}",
            0,
            end,
            f"write `{scheme}:VALUE`",
            "dependency",
        )
    if scheme == "begin-time":
        _begin_time(value, offset)


def _begin_time(value: str, offset: int) -> float:
    try:
        stamp = float(value)
    except ValueError:
        stamp = math.nan
    if not math.isfinite(stamp) or stamp < 0 or stamp > LAST_TIMESTAMP:
        raise FluxLangError(
            f"`begin-time` value `{value}` is not a time in seconds since the epoch "
            "(up to the end of year 9999)",
            offset,
            offset + len(value),
            "write e.g. `begin-time:1772352000.0`, or use `--begin-time`",
            "dependency",
        )
    return stamp


def _query_text(text: str) -> str:
    # `+` is quoted: flux-core reads the query with parse_qs, which turns `+` into a blank
    return quote(text, safe="/:@!$'()*,")


def format_dependency(dep: FluxDependency) -> str:
    """The URI form of ``dep``; :func:`parse_dependency` reads it back as ``dep``.

    >>> format_dependency(FluxDependency("string", "foo", {"type": "in", "scope": "user"}))
    'string:foo?type=in&scope=user'
    """
    text = dep.scheme if not dep.value and not dep.query else f"{dep.scheme}:{dep.value}"
    if dep.query:
        text += "?" + "&".join(f"{_query_text(k)}={_query_text(v)}" for k, v in dep.query.items())
    check = parse_dependency(text)
    if check != dep:
        raise FluxLangError(
            f"dependency `{dep.scheme}:{dep.value}` cannot be written as a URI",
            help="a scheme is a letter then letters, digits or `+-.`; a value has no blanks "
            "and no `?`",
            language="dependency",
        )
    return text


def _try_number(value: str) -> Any:
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            continue
    return value


def to_object(dep: FluxDependency) -> dict[str, Any]:
    """The jobspec object (``attributes.system.dependencies[]``), as flux-core builds it:
    query values that read as numbers become numbers.

    >>> to_object(parse_dependency("fluid:hungry-hippo?type=in&n=3"))
    {'scheme': 'fluid', 'value': 'hungry-hippo', 'type': 'in', 'n': 3}
    """
    obj: dict[str, Any] = {"scheme": dep.scheme, "value": dep.value}
    obj.update((k, _try_number(v)) for k, v in dep.query.items())
    return obj


def from_object(obj: dict[str, Any]) -> FluxDependency:
    """A jobspec dependency object (RFC 26 "Representation"): ``scheme`` and ``value`` strings,
    other keys scalars.

    >>> from_object({"type": "inout", "scheme": "string", "value": "foo"})
    FluxDependency(scheme='string', value='foo', query={'type': 'inout'}, start=0, end=0)
    """
    scheme, value = obj.get("scheme"), obj.get("value")
    if not isinstance(scheme, str) or not scheme:
        raise FluxLangError(
            "dependency has no `scheme` string", help="add `scheme: afterok`", language="dependency"
        )
    if not isinstance(value, str):
        raise FluxLangError(
            f"dependency `{scheme}` has no `value` string",
            help='RFC 26: `value` is a string, e.g. `value: "ƒ2oLkTLb"`',
            language="dependency",
        )
    query: dict[str, str] = {}
    for key, item in obj.items():
        if key in ("scheme", "value"):
            continue
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            raise FluxLangError(
                f"dependency option `{key}` is not a string or a number",
                help="write a string such as `type: in`",
                language="dependency",
            )
        query[str(key)] = str(item)
    _check_value(scheme, value, 0, 0)
    return FluxDependency(scheme, value, query)


def to_splat(dep: FluxDependency) -> Dependency | None:
    """The SPLAT dependency, or ``None`` when it has none (``string``/``fluid``/``afterexcept``,
    options, unknown schemes): the caller keeps it in ``extensions.flux``.

    >>> to_splat(parse_dependency("afterstart:f123"))
    Dependency(scheme='after', value='f123', count=None)
    """
    scheme = SPLAT_SCHEMES.get(dep.scheme)
    if scheme is None or dep.query:
        return None
    if scheme == "singleton":
        return None if dep.value else Dependency(scheme="singleton")
    if not dep.value:
        return None
    if scheme == "begin_time":
        try:
            stamp = _begin_time(dep.value, 0)
        except FluxLangError:
            return None
        if stamp.is_integer():
            return Dependency(scheme="begin_time", value=str(int(stamp)))
        when = datetime.fromtimestamp(stamp, tz=UTC).isoformat()
        return Dependency(scheme="begin_time", value=when)
    return Dependency(scheme=scheme, value=dep.value)  # type: ignore[arg-type]


def from_splat(dep: Dependency) -> str | None:
    """The RFC 26 URI of a SPLAT dependency, or ``None`` when Flux has none (an array ``count``,
    a ``begin_time`` without a time zone, a value a URI cannot hold).

    >>> from_splat(Dependency(scheme="after", value="f123"))
    'afterstart:f123'
    >>> from_splat(Dependency(scheme="begin_time", value="1772352000"))
    'begin-time:1772352000.0'
    """
    if dep.scheme is None or dep.count is not None:
        return None
    scheme = FLUX_SCHEMES[dep.scheme]
    if dep.scheme == "singleton":
        return None if dep.value else "singleton"
    if not dep.value:
        return None
    value = dep.value
    if dep.scheme == "begin_time":
        if value.isdigit():
            try:
                value = repr(_begin_time(value, 0))
            except FluxLangError:
                return None
        else:
            try:
                when = datetime.fromisoformat(value)
            except ValueError:
                return None
            if when.tzinfo is None:  # local time of the submitting host: not ours to guess
                return None
            value = repr(when.timestamp())
    try:
        return format_dependency(FluxDependency(scheme, value))
    except FluxLangError:
        return None


# ── RFC 35 constraint query syntax -> RFC 31 ────────────────────────────────────────────────

#: flux-core MiniConstraintParser: the default operator and the shorthand names
OPERATOR_NAMES: Final[dict[str | None, str]] = {
    None: "properties",
    "host": "hostlist",
    "hosts": "hostlist",
    "rank": "ranks",
}
#: the shorthand the writer uses for an operator
SHORTHAND: Final[dict[str, str]] = {"hostlist": "host", "ranks": "rank"}
#: operators whose operand is split on a comma, and whose AND-ed terms merge into one list
SPLIT_OPERATORS: Final = frozenset({"properties"})
#: RFC 31 logical operators: never a term's operator
LOGICAL: Final = frozenset({"and", "or", "not"})
_REQ_EXAMPLE: Final = "`ssd`, `(ssd|nvme) -host:node7` or `rank:0-3`"


def _word_chars(op: str) -> str | None:
    """flux-core ``invalid_operator``: an operator is made of ``[\\w.+@-]``."""
    for char in op:
        if not (char.isalnum() or char in "_.+@-"):
            return char
    return None


def _combine(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """flux-core ``combine_like_terms``: AND-ed ``properties`` merge, an ``and`` grows."""
    entries = [left, right]
    if "and" in left:
        left["and"].append(right)
        entries = [left]
    merged: dict[str, list[Any]] = {}
    terms: list[dict[str, Any]] = []
    for entry in entries:
        key = next(iter(entry))
        if key not in SPLIT_OPERATORS:
            terms.append(entry)
        elif key not in merged:
            merged[key] = entry[key]
            terms.append(entry)
        else:
            merged[key].extend(entry[key])
    return terms[0] if len(terms) == 1 else {"and": terms}


def _term(text: str, start: int, end: int) -> dict[str, Any]:
    op, colon, value = text.partition(":")
    if not colon:
        name = OPERATOR_NAMES[None]
        value = text
    else:
        name = OPERATOR_NAMES.get(op, op)
        if not op:
            raise FluxLangError(
                f"constraint term `{text}` has an empty operator",
                start,
                end,
                "write `OPERATOR:VALUE` (`host:`, `rank:`, `properties:`) or just a property",
                "requires",
            )
        bad = _word_chars(op)
        if bad is not None:
            raise FluxLangError(
                f"invalid character `{bad}` in constraint operator `{op}:`",
                start,
                start + len(op) + 1,
                "an operator is made of letters, digits and `_.+@-`; quote the whole term "
                "only around the value: `host:'a b'`",
                "requires",
            )
        if name in LOGICAL:
            raise FluxLangError(
                f"`{op}:` is not a constraint operator",
                start,
                start + len(op) + 1,
                f"write `{op}` as a word between terms",
                "requires",
            )
    if not value:
        raise FluxLangError(
            f"constraint term `{text}` has no value",
            start,
            end,
            f"write `{op}:VALUE`",
            "requires",
        )
    if name in SPLIT_OPERATORS:
        values = value.split(",")
        if "" in values:
            raise FluxLangError(
                f"empty property name in `{text}`",
                start,
                end,
                "separate property names with single commas: `ssd,gpu`",
                "requires",
            )
        return {name: values}
    return {name: [value]}


def _requires_transformer() -> Any:
    from lark import Token
    from lark.visitors import Transformer_NonRecursive

    def bare(token: Token) -> str:
        text = str(token)
        return text[1:-1] if token.type in ("SQUOTED", "DQUOTED", "QOPEN") else text

    class Requires(Transformer_NonRecursive):  # type: ignore[type-arg]
        def requires(self, children: list[Any]) -> Any:
            return children[0]

        def term(self, children: list[Token]) -> dict[str, Any]:
            tok = children[0]
            start = tok.start_pos or 0
            return _term(bare(tok), start, tok.end_pos or start)

        def open_term(self, children: list[Token]) -> dict[str, Any]:
            head, tail = children
            start = head.start_pos or 0
            return _term(bare(head) + bare(tail), start, tail.end_pos or start)

        def neg(self, children: list[Any]) -> dict[str, Any]:
            return {"not": [children[-1]]}

        def not_(self, children: list[Any]) -> dict[str, Any]:
            return {"not": [children[-1]]}

        def juxt(self, children: list[Any]) -> dict[str, Any]:
            return _combine(children[0], children[1])

        def and_(self, children: list[Any]) -> dict[str, Any]:
            return _combine(children[0], children[-1])

        def or_(self, children: list[Any]) -> dict[str, Any]:
            left: dict[str, Any] = children[0]
            if "or" in left:
                left["or"].append(children[-1])
                return left
            return {"or": [left, children[-1]]}

        def __default__(self, data: Any, children: list[Any], meta: Any) -> Any:
            # `prim: LPAR _top RPAR` kept its parentheses
            inner = [c for c in children if not isinstance(c, Token)]
            return inner[0]

    return Requires()


def parse_requires(text: str) -> dict[str, Any]:
    """An RFC 35 query (``flux submit --requires``) as the RFC 31 object flux-core builds.

    A bare term is a property (``a,b`` two of them, ``^a`` "must not have"); ``host:``/``hosts:``
    mean ``hostlist``, ``rank:`` ``ranks``; blanks and ``&`` are AND, ``|`` OR, ``not``/``-`` NOT.

    >>> parse_requires("a|b&c")
    {'or': [{'properties': ['a']}, {'properties': ['b', 'c']}]}
    """
    from lark.exceptions import VisitError

    tree = _parse(text, "requires", "requires", "a constraint query", _REQ_EXAMPLE)
    try:
        result = _requires_transformer().transform(tree)
    except VisitError as exc:
        raise exc.orig_exc from None
    if isinstance(result, dict):
        return dict(result)
    raise AssertionError(result)  # pragma: no cover


# ── RFC 31 -> RFC 35 ─────────────────────────────────────────────────────────────────────────


def _parses_to(text: str, obj: dict[str, Any]) -> bool:
    try:
        return parse_requires(text) == obj
    except FluxLangError:
        return False


def _format_term(op: str, values: list[Any]) -> str | None:
    if not values or not all(isinstance(v, str) and v for v in values):
        return None
    obj = {op: list(values)}
    candidates: list[str]
    if op in SPLIT_OPERATORS:
        joined = ",".join(values)
        candidates = [joined, f"'{joined}'", f'"{joined}"', f"{op}:{joined}", f"{op}:'{joined}'"]
        candidates.append(f'{op}:"{joined}"')
    elif len(values) != 1 or op in LOGICAL:
        return None
    else:
        if op in OPERATOR_NAMES:  # `host:` means hostlist: a literal `host` operator can't be said
            return None
        name = SHORTHAND.get(op, op)
        value = values[0]
        candidates = [f"{name}:{value}", f"{name}:'{value}'", f'{name}:"{value}"']
    for candidate in candidates:
        if _parses_to(candidate, obj):
            return candidate
    return None


def _format(obj: Any, depth: int) -> tuple[str, str] | None:
    """(text, kind): kind is ``term``, ``not``, ``and`` or ``or`` (how it must be wrapped)."""
    if depth > MAX_DEPTH or not isinstance(obj, dict) or len(obj) != 1:
        return None
    ((op, values),) = obj.items()
    if not isinstance(op, str) or not isinstance(values, list):
        return None
    if op in ("and", "or"):
        parts = [_format(v, depth + 1) for v in values]
        if not parts or any(p is None for p in parts):
            return None
        if len(parts) == 1:
            return parts[0]
        texts = [f"({t})" if k in ("and", "or") else t for t, k in parts]  # type: ignore[misc]
        return (" & " if op == "and" else " | ").join(texts), op
    if op == "not":
        if len(values) != 1:
            return None
        inner = _format(values[0], depth + 1)
        if inner is None:
            return None
        text, kind = inner
        return (f"-{text}" if kind == "term" else f"not ({text})"), "not"
    term = _format_term(op, values)
    return None if term is None else (term, "term")


def format_requires(obj: dict[str, Any]) -> str | None:
    """An RFC 35 query that flux-core reads as ``obj`` (as an equivalent object where ``obj``
    is not one the query parser builds, e.g. an ``and`` of two ``properties``), or ``None``
    when there is none: ``{}``, empty ``and``/``or``, a ``not`` of other than one object, a
    multi-valued ``hostlist``/``ranks``, a value no quoting can carry.

    >>> format_requires({"or": [{"properties": ["a", "b"]}, {"not": [{"hostlist": ["n7"]}]}]})
    'a,b | -host:n7'
    """
    result = _format(obj, 0)
    return None if result is None else result[0]


# ── SPLAT placement.constraint <-> RFC 31 ───────────────────────────────────────────────────

_SPLAT_EXAMPLE: Final = "`avx512&ib` or `(a100|h100)&ib`"


def _splat_transformer(text: str) -> Any:
    from lark import Token
    from lark.visitors import Transformer_NonRecursive

    class Splat(Transformer_NonRecursive):  # type: ignore[type-arg]
        def splat_constraint(self, children: list[Any]) -> Any:
            return children[0]

        def s_or(self, children: list[Any]) -> dict[str, Any]:
            out: list[dict[str, Any]] = []
            for child in children:
                if isinstance(child, Token):
                    continue
                out.extend(child.get("or", [child]))
            return {"or": out}

        def s_and(self, children: list[Any]) -> dict[str, Any]:
            # names join the first `properties` list, in order; other operands keep their place
            merged: list[dict[str, Any]] = []
            props: list[str] | None = None
            for child in children:
                if isinstance(child, Token):
                    continue
                for item in child.get("and", [child]):
                    if "properties" not in item:
                        merged.append(item)
                    elif props is None:
                        props = list(item["properties"])
                        merged.append({"properties": props})
                    else:
                        props.extend(item["properties"])
            return merged[0] if len(merged) == 1 else {"and": merged}

        def s_count(self, children: list[Any]) -> dict[str, Any]:
            star = children[1]
            start = star.start_pos or 0
            raise FluxLangUnsupported(
                f"Flux has no node count for a constraint (`*{children[2]}`)",
                start,
                children[2].end_pos or start,
                "Flux constraints say which nodes qualify, not how many of them have a feature; "
                "remove the count",
                "constraint",
            )

        def s_matching(self, children: list[Any]) -> dict[str, Any]:
            raise FluxLangUnsupported(
                "Flux has no matching OR (`[a|b]`: every node with the same feature)",
                0,
                len(text),
                "use a plain OR `a|b` if any mix of nodes will do",
                "constraint",
            )

        def __default__(self, data: Any, children: list[Any], meta: Any) -> Any:
            inner = [c for c in children if not isinstance(c, Token)]
            return inner[0]

        def __default_token__(self, token: Token) -> Any:
            if token.type == "FEATURE":
                return {"properties": [str(token)]}
            return token

    return Splat()


def constraint_from_splat(text: str) -> dict[str, Any]:
    """SPLAT ``placement.constraint`` -> RFC 31 object: ``&`` is AND (names merge into one
    ``properties`` list), ``|`` OR, ``&`` binds tighter, parentheses group.

    Raises :class:`FluxLangUnsupported` for Slurm's counts (``a*2``) and matching OR (``[a|b]``).

    >>> constraint_from_splat("avx512&ib")
    {'properties': ['avx512', 'ib']}
    >>> constraint_from_splat("a|b&ib")
    {'or': [{'properties': ['a']}, {'properties': ['b', 'ib']}]}
    """
    from lark.exceptions import VisitError

    tree = _parse(
        text, "splat_constraint", "constraint", "a node feature constraint", _SPLAT_EXAMPLE
    )
    try:
        result = _splat_transformer(text).transform(tree)
    except VisitError as exc:
        raise exc.orig_exc from None
    if isinstance(result, dict):
        return dict(result)
    raise AssertionError(result)  # pragma: no cover


def _splat_text(obj: Any, depth: int) -> tuple[str, str] | None:
    if depth > MAX_DEPTH or not isinstance(obj, dict) or len(obj) != 1:
        return None
    ((op, values),) = obj.items()
    if not isinstance(values, list) or not values:
        return None
    if op == "properties":
        for name in values:
            if not isinstance(name, str) or not _is_feature(name):
                return None
        return "&".join(values), ("and" if len(values) > 1 else "term")
    if op in ("and", "or"):
        parts = [_splat_text(v, depth + 1) for v in values]
        if any(p is None for p in parts):
            return None
        if len(parts) == 1:
            return parts[0]
        # `&` inside `|` is parenthesised too: Slurm documents no precedence between them
        texts = [t if k in ("term", op) else f"({t})" for t, k in parts]  # type: ignore[misc]
        return ("&" if op == "and" else "|").join(texts), op
    return None


def _is_feature(name: str) -> bool:
    try:
        return constraint_from_splat(name) == {"properties": [name]}
    except FluxLangError:
        return False


def constraint_to_splat(obj: dict[str, Any]) -> str | None:
    """RFC 31 object -> SPLAT ``placement.constraint``, or ``None`` when it has no such form:
    ``not``, ``hostlist``, ``ranks``, ``^name`` (must not have), empty lists, unknown operators.

    >>> constraint_to_splat({"and": [{"properties": ["ib"]}, {"or": [{"properties": ["a"]}]}]})
    'ib&a'
    """
    result = _splat_text(obj, 0)
    return None if result is None else result[0]


# ── job-shell mustache templates ────────────────────────────────────────────────────────────


def mustache_parts(text: str) -> list[tuple[str, str]]:
    """``text`` as Flux's job shell reads it (flux-core ``src/shell/mustache.c``,
    ``mustache_render``): ``("tag", NAME)`` from a `{{` to the next `}}`, ``("text", …)``
    between them; a `{{` with no `}}` after it is text to the end. The shell writes an unknown
    tag back as it was, but a shell plugin may know it (``mustache.render.NAME``), so every tag
    counts as one.

    >>> mustache_parts("out-{{id}}.{{x")
    [('text', 'out-'), ('tag', 'id'), ('text', '.{{x')]
    >>> mustache_parts("{{{id}}")
    [('tag', '{id')]
    """
    parts: list[tuple[str, str]] = []
    pos = 0
    while True:
        start = text.find("{{", pos)
        end = -1 if start < 0 else text.find("}}", start + 2)
        if end < 0:
            if pos < len(text):
                parts.append(("text", text[pos:]))
            return parts
        if start > pos:
            parts.append(("text", text[pos:start]))
        parts.append(("tag", text[start + 2 : end]))
        pos = end + 2


def mustache_clash(meant: list[tuple[str, str]]) -> str | None:
    """``None`` when the job shell reads the text of ``meant`` (``("text", …)`` and
    ``("tag", NAME)`` parts, written one after the other) as exactly those parts; else what in
    the text makes another tag: `{{` (a literal `{{` the shell reads as a tag's start) or `{`
    (a brace just before a tag, which becomes part of its name).

    >>> mustache_clash([("text", "a-"), ("tag", "id"), ("text", ".{{x")])
    >>> mustache_clash([("text", "{{x}}")]), mustache_clash([("text", "a{"), ("tag", "id")])
    ('{{', '{')
    """
    merged: list[tuple[str, str]] = []
    for kind, value in meant:
        if kind == "text" and not value:
            continue
        if kind == "text" and merged and merged[-1][0] == "text":
            merged[-1] = ("text", merged[-1][1] + value)
        else:
            merged.append((kind, value))
    written = "".join(v if k == "text" else "{{" + v + "}}" for k, v in merged)
    if mustache_parts(written) == merged:
        return None
    return "{{" if any(k == "text" and "{{" in v for k, v in merged) else "{"
