"""Typed SPLAT values, parsed once from what the user wrote.

Each value keeps the text it was written as (``raw``), so that SPLAT output reproduces it, and
the exact meaning (bytes, cores, seconds, indices, template parts) that passes and backends
compute with. Sizes and counts also keep their *scope* (``task``, ``node``, ``cpu``…): SPLAT's
canonical fields are per task, but a value a scheduler wrote per node or per CPU must stay
distinguishable until a pass can convert it exactly (see ``docs/units.md``).

The languages are in ``bammmc/grammars/values.lark``; this module is their only reader.

>>> Size.parse("4Gi").bytes
4294967296
>>> Size.parse("4096").bytes == Size.parse("4Gi").bytes   # a bare size is MiB
True
>>> Duration.parse("2-12:00:00").seconds
216000
>>> IndexSpec.parse("1-7:3%2").indices(), IndexSpec.parse("1-7:3%2").throttle
([1, 4, 7], 2)
>>> Template.parse("{job_name}-{job_id}.out").variables()
['job_name', 'job_id']
"""

from __future__ import annotations

import datetime as _dt
import itertools
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Final

from bammmc import grammars

if TYPE_CHECKING:
    from lark import Lark, Token, Tree

__all__ = [
    "SCOPES",
    "TEMPLATE_VARIABLES",
    "Count",
    "Cpu",
    "DateTime",
    "Duration",
    "IndexSpec",
    "Signal",
    "Size",
    "Template",
    "Value",
    "ValueSyntaxError",
    "decimal_number",
    "human_size",
    "whole_number",
]

SCOPES: Final = ("job", "node", "chunk", "slot", "task", "cpu", "gpu", "process")

TEMPLATE_VARIABLES: Final = {
    "job_id": "scheduler-assigned job id",
    "array_job_id": "id of the parent array job",
    "array_index": "index of this array element",
    "job_name": "the job's name",
    "node_hostname": "first allocated node",
    "task_index": "index of the task within the job",
}

_KI = 1024
SIZE_UNITS: Final[dict[str, int]] = {
    # Kubernetes binary suffixes (and their ...B spellings)
    **{u: _KI ** (i + 1) for i, u in enumerate(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"))},
    **{u: _KI ** (i + 1) for i, u in enumerate(("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"))},
    # Kubernetes decimal suffixes
    "k": 10**3,
    "K": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
    # PBS / HPC suffixes: powers of 1024 (pbs_resources(7B): "kb = 1024 bytes")
    "b": 1,
    "B": 1,
    **{
        u: _KI ** (i + 1)
        for i, us in enumerate(
            ("kb KB Kb", "mb MB Mb", "gb GB Gb", "tb TB Tb", "pb PB Pb", "eb EB Eb")
        )
        for u in us.split()
    },
    # PBS words (8 bytes on every 64-bit PBS platform)
    "w": 8,
    "kw": 8 * _KI,
    "mw": 8 * _KI**2,
    "gw": 8 * _KI**3,
    "tw": 8 * _KI**4,
}
#: Single lower-case letters that mean different things in different schedulers.
AMBIGUOUS_SIZE_UNITS: Final = {
    "m": "`m` is milli in Kubernetes but mebibytes in Slurm",
    "g": "`g` is gibibytes in Slurm but not a Kubernetes suffix",
    "t": "`t` is tebibytes in Slurm but not a Kubernetes suffix",
    "p": "`p` is pebibytes in Slurm but not a Kubernetes suffix",
}
#: A size written without a unit is in MiB (the SPLAT specification's "MB", as in Slurm).
BARE_SIZE_UNIT: Final = "Mi"

#: Largest array bammmc accepts (Slurm's MaxArraySize is at most 4,000,001).
MAX_ARRAY_ELEMENTS: Final = 10_000_000

_DURATION_UNITS: Final = {"d": 86400, "h": 3600, "m": 60, "s": 1}

#: The largest whole number a scheduler holds: a signed 64-bit integer (PBS and HTCondor keep
#: walltimes, counts and sizes in one; Slurm and LSF hold less). A larger number is refused
#: where it is read, so no pass or writer meets one (Python's ``int()`` even refuses a string
#: of more than 4,300 digits, and ``float()`` an integer above 1.8e308).
MAX_WHOLE: Final = 2**63 - 1
#: The last second a time may name, 9999-12-31T23:59:59Z: Python's datetime (and ISO 8601's
#: four-digit year) ends there, so a later Unix timestamp is refused where it is read.
LAST_TIMESTAMP: Final = 253402300799


def _shown(text: str) -> str:
    """``text`` for a message: a 5,000-digit number is shown by its first and last digits."""
    return text if len(text) <= 24 else f"{text[:10]}…{text[-10:]} ({len(text)} characters)"


def whole_number(text: str) -> int:
    """``int(text)`` for a whole number the user wrote, refused (``ValueSyntaxError`` E134)
    when no scheduler can hold it (above :data:`MAX_WHOLE`, however many digits).

    >>> whole_number("42"), whole_number("0009223372036854775807") == MAX_WHOLE
    (42, True)
    >>> try:
    ...     whole_number("9" * 5000)
    ... except ValueSyntaxError as exc:
    ...     print(exc.code, exc.message)
    E134 `9999999999…9999999999 (5000 characters)` is larger than any scheduler holds
    """
    digits = text.strip().lstrip("+-").lstrip("0")
    if len(digits) > len(str(MAX_WHOLE)) or (is_digits(digits) and int(digits) > MAX_WHOLE):
        raise ValueSyntaxError(
            "E134",
            f"`{_shown(text)}` is larger than any scheduler holds",
            end=len(text),
            help=f"write a number up to {MAX_WHOLE} (a signed 64-bit integer)",
        )
    return int(text)


def decimal_number(text: str) -> Fraction:
    """``Fraction(text)`` for a decimal number the user wrote (``1.5``), refused as
    :func:`whole_number` when its whole part is larger than any scheduler holds, or when it has
    more digits than any scheduler reads (``Fraction`` refuses more than 4,300).

    >>> decimal_number("1.5"), decimal_number(".25")
    (Fraction(3, 2), Fraction(1, 4))
    """
    whole, _, _ = text.partition(".")
    whole_number(whole if whole.strip().lstrip("+-") else "0")
    if len(text) > 100:
        raise ValueSyntaxError(
            "E134",
            f"`{_shown(text)}` has more digits than any scheduler reads",
            end=len(text),
            help="write the number with at most a few decimals",
        )
    return Fraction(text)


def is_digits(text: str) -> bool:
    """ASCII digits only: `str.isdigit()` also accepts `²` and `١`, which `int()` refuses or
    which no scheduler reads as a number.

    >>> is_digits("42"), is_digits("²"), is_digits(""), is_digits("١٢")
    (True, False, False, False)
    """
    return text.isascii() and text.isdigit()


class ValueSyntaxError(ValueError):
    """A value that does not parse.

    ``start``/``end`` are 0-based offsets into the value's text, so the caller can point at the
    exact characters inside the field that holds it.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        start: int = 0,
        end: int | None = None,
        help: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.start = start
        self.end = end
        self.help = help


def _parser(start: str) -> Lark:
    return grammars.parser("values", start)


def _parse_tree(text: str, start: str, code: str, what: str, example: str) -> Tree[Token]:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput

    if not text:
        raise ValueSyntaxError(
            code, f"expected {what}, found nothing", help=f"write {what} such as {example}"
        )
    limit = 4096 if start == "template" else 1000  # a path may be PATH_MAX long
    if len(text) > limit:  # no real value is this long (and int() refuses > 4300 digits)
        raise ValueSyntaxError(
            code,
            f"{what} of {len(text)} characters is too long",
            end=len(text),
            help=f"write {what} such as {example}",
        )
    try:
        return _parser(start).parse(text)
    except UnexpectedEOF:
        raise ValueSyntaxError(
            code,
            f"{what} `{text}` ends too early",
            start=len(text),
            end=len(text),
            help=f"write {what} such as {example}",
        ) from None
    except UnexpectedCharacters as exc:
        pos = exc.pos_in_stream or 0
        end = pos + 1
        if text[pos].isalpha():  # point at the whole word: `XB` in `4XB`, `rack` in `4G/rack`
            while end < len(text) and text[end].isalpha():
                end += 1
        raise ValueSyntaxError(
            code,
            f"unexpected `{text[pos:end]}` in {what} `{text}`",
            start=pos,
            end=end,
            help=f"write {what} such as {example}",
        ) from None
    except UnexpectedInput as exc:
        pos = getattr(exc, "pos_in_stream", None) or 0
        token = getattr(exc, "token", None)
        shown = str(token) if token is not None and str(token) else text[pos : pos + 1]
        if getattr(token, "type", None) == "$END":
            pos, shown = len(text), "end of text"
            raise ValueSyntaxError(
                code,
                f"{what} `{text}` ends too early",
                start=pos,
                end=pos,
                help=f"write {what} such as {example}",
            ) from None
        raise ValueSyntaxError(
            code,
            f"unexpected `{shown}` in {what} `{text}`",
            start=pos,
            end=pos + max(len(shown), 1),
            help=f"write {what} such as {example}",
        ) from None


def _number(tok: Token) -> Fraction:
    return Fraction(str(tok))


def _integer(tok: Token, code: str, what: str) -> int:
    value = _number(tok)
    if value.denominator != 1:
        start = tok.start_pos or 0
        raise ValueSyntaxError(
            code,
            f"{what} must be a whole number, not `{tok}`",
            start=start,
            end=start + len(tok),
        )
    return int(value)


def _raw_text(raw: str | int | float) -> str:
    if isinstance(raw, bool):
        raise ValueSyntaxError("E102", f"expected a value, got boolean `{str(raw).lower()}`")
    if isinstance(raw, float):
        text = repr(raw)
        return text[:-2] if text.endswith(".0") else text
    return str(raw)


class Value:
    """Base of the typed values: immutable, compared by what was written.

    ``raw`` is the value exactly as the user wrote it (a YAML string or number); two values are
    equal when they were written the same way. ``same(other)`` compares meanings instead.
    """

    __slots__ = ("raw",)
    KIND: ClassVar[str] = "value"
    #: whether a YAML number is a valid spelling (a template written `123` is the string "123")
    NUMERIC: ClassVar[bool] = True
    raw: str | int | float

    def __init__(self, raw: str | int | float) -> None:
        object.__setattr__(self, "raw", raw)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.raw!r})"

    def __str__(self) -> str:
        return _raw_text(self.raw)

    def _key(self) -> tuple[Any, ...]:
        return (type(self.raw).__name__, self.raw)

    def wire(self) -> str | int | float:
        """The value as it goes into SPLAT YAML/JSON: what the user wrote."""
        return self.raw

    @classmethod
    def parse(cls, raw: str | int | float) -> Any:
        """Read ``raw`` as this value type. Abstract: every value type (Size, Cpu, Count,
        Duration, IndexSpec, Template, Signal, DateTime) defines its own."""
        raise NotImplementedError


def _set(obj: Value, **values: Any) -> None:
    for name, value in values.items():
        object.__setattr__(obj, name, value)


def _scope(tree: Tree[Token] | None) -> str | None:
    if tree is None:
        return None
    return str(tree.children[0])


class Size(Value):
    """A memory or disk size: ``4Gi``, ``4G``, ``4096M``, ``4096`` (MiB), ``4gb``, ``2G/node``.

    ``bytes`` is exact (rounded up to a whole byte); ``unit`` is the suffix as written
    (``None`` for a bare number, which is MiB); ``scope`` is the suffix after ``/`` or ``None``
    when the value has the scope of the field that holds it.

    >>> Size.parse("4G").bytes, Size.parse("4gb").bytes
    (4000000000, 4294967296)
    >>> Size.parse("2G/node").scope
    'node'
    >>> Size.from_bytes(3 * 1024**3).raw
    '3Gi'
    """

    __slots__ = ("bytes", "scope", "unit")
    KIND = "size"
    bytes: int
    unit: str | None
    scope: str | None

    @classmethod
    def parse(cls, raw: str | int | float) -> Size:
        text = _raw_text(raw)
        tree = _parse_tree(text, "size", "E105", "a size", "`4Gi`, `4096M` or `512` (MiB)")
        number_tok = tree.children[0]
        amount = _number(number_tok)  # type: ignore[arg-type]
        unit: str | None = None
        scope: str | None = None
        for child in tree.children[1:]:
            if child is None:
                continue
            if child.data == "size_unit":  # type: ignore[union-attr]
                unit = str(child.children[0])  # type: ignore[union-attr]
            else:
                scope = _scope(child)  # type: ignore[arg-type]
        if unit in AMBIGUOUS_SIZE_UNITS:
            start = len(str(number_tok))
            raise ValueSyntaxError(
                "E105",
                f"ambiguous size unit `{unit}` in `{text}`: {AMBIGUOUS_SIZE_UNITS[unit]}",
                start=start,
                end=start + len(unit),
                help=f"write `{number_tok}{unit.upper()}i` (binary) or "
                f"`{number_tok}{unit.upper()}` (decimal)",
            )
        multiplier = SIZE_UNITS[unit if unit is not None else BARE_SIZE_UNIT]
        exact = amount * multiplier
        value = cls(raw)
        _set(value, bytes=-(-exact.numerator // exact.denominator), unit=unit, scope=scope)
        return value

    @classmethod
    def from_bytes(cls, n: int, *, scope: str | None = None) -> Size:
        """The shortest exact Kubernetes-style spelling of ``n`` bytes (``Gi``, ``Mi``… or ``G``,
        ``M``, ``k``…; binary on a tie), or ``<n>b`` when no suffix divides ``n``.

        >>> Size.from_bytes(4 * 10**9).raw, Size.from_bytes(1024).raw, Size.from_bytes(1000).raw
        ('4G', '1Ki', '1k')
        """
        text = f"{n}b"
        if n:
            for unit in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki", "E", "P", "T", "G", "M", "k"):
                if n % SIZE_UNITS[unit] == 0:
                    candidate = f"{n // SIZE_UNITS[unit]}{unit}"
                    if len(candidate) < len(text):
                        text = candidate
        if scope:
            text += f"/{scope}"
        return cls.parse(text)

    def with_scope(self, scope: str | None) -> Size:
        base = _raw_text(self.raw).split("/")[0]
        return Size.parse(f"{base}/{scope}" if scope else base)

    def _key(self) -> tuple[Any, ...]:
        return (type(self.raw).__name__, self.raw)

    def same(self, other: Size) -> bool:
        return self.bytes == other.bytes and self.scope == other.scope

    @property
    def mebibytes(self) -> Fraction:
        return Fraction(self.bytes, _KI**2)


def human_size(n: int | Fraction) -> str:
    """``n`` bytes for people: ``32 GiB``, ``1.5 GiB``, ``4 GB`` (a decimal unit when only it is
    exact), ``~3.73 GiB`` when neither is, ``100 bytes`` below a KiB.

    >>> human_size(32 * 2**30), human_size(3 * 2**29), human_size(4 * 10**9), human_size(10**9 + 1)
    ('32 GiB', '1.5 GiB', '4 GB', '~954 MiB')
    >>> human_size(8000 * 2**20)
    '8,000 MiB'
    """
    n = Fraction(n)
    if n < _KI:
        return f"{_plain(n)} bytes"
    binary = [(u, SIZE_UNITS[u]) for u in ("EiB", "PiB", "TiB", "GiB", "MiB", "KiB")]
    unit, factor = next((u, f) for u, f in binary if n >= f)
    value = n / factor
    if (value * 100).denominator == 1:
        return f"{_plain(value)} {unit}"
    for smaller, f in binary:  # exact in a smaller unit: `8,000 MiB`, not `~7.81 GiB`
        if f < factor and (n / f).denominator == 1 and n / f < 10**6:
            return f"{_plain(n / f)} {smaller}"
    for name, dec in (("EB", 10**18), ("PB", 10**15), ("TB", 10**12), ("GB", 10**9), ("MB", 10**6)):
        if n >= dec and (n / dec).denominator == 1:
            return f"{_plain(n / dec)} {name}"
    return f"~{float(value):.3g} {unit}"


def _plain(n: Fraction) -> str:
    """A whole or two-decimal number without trailing zeros: ``32``, ``1.5``, ``0.25``."""
    if n.denominator == 1:
        return f"{n.numerator:,}"
    return f"{float(n):.2f}".rstrip("0").rstrip(".")


class Cpu(Value):
    """A CPU count: ``4``, ``0.5`` or ``500m`` (millicores).

    >>> Cpu.parse("500m").cores, Cpu.parse(2).cores, Cpu.parse(2).whole
    (Fraction(1, 2), Fraction(2, 1), True)
    """

    __slots__ = ("cores",)
    KIND = "cpu"
    cores: Fraction

    @classmethod
    def parse(cls, raw: str | int | float) -> Cpu:
        text = _raw_text(raw)
        tree = _parse_tree(text, "cpu", "E105", "a CPU count", "`4`, `0.5` or `500m`")
        cores = _number(tree.children[0])  # type: ignore[arg-type]
        if len(tree.children) > 1 and tree.children[1] is not None:
            cores /= 1000
        if cores <= 0:
            raise ValueSyntaxError("E118", f"a CPU count must be positive, not `{text}`")
        value = cls(raw)
        _set(value, cores=cores)
        return value

    @property
    def whole(self) -> bool:
        return self.cores.denominator == 1


class Count(Value):
    """A count of things (GPUs, generic resources), optionally scoped: ``2``, ``0.5``, ``4/node``.

    >>> c = Count.parse("4/node"); (c.amount, c.scope)
    (Fraction(4, 1), 'node')
    """

    __slots__ = ("amount", "scope")
    KIND = "count"
    amount: Fraction
    scope: str | None

    @classmethod
    def parse(cls, raw: str | int | float) -> Count:
        text = _raw_text(raw)
        tree = _parse_tree(text, "count", "E105", "a count", "`2`, `0.5` or `4/node`")
        amount = _number(tree.children[0])  # type: ignore[arg-type]
        scope = _scope(tree.children[1]) if len(tree.children) > 1 else None  # type: ignore[arg-type]
        value = cls(raw)
        _set(value, amount=amount, scope=scope)
        return value


class Duration(Value):
    """A duration: ISO 8601 ``PT2H30M``, ``2:30:00``, ``2-12:00:00``, ``150m``, ``9000s``, ``9000``.

    ``seconds`` is ``None`` for ``unlimited``. A two-field clock (``1:30``) is rejected: Slurm
    reads it as minutes:seconds, LSF as hours:minutes, and the difference is a factor of 60.

    >>> Duration.parse("PT2H30M").seconds, Duration.parse("2h30m").seconds
    (9000, 9000)
    >>> Duration.parse("unlimited").seconds is None
    True
    """

    __slots__ = ("seconds",)
    KIND = "duration"
    seconds: int | None

    @classmethod
    def parse(cls, raw: str | int | float) -> Duration:
        text = _raw_text(raw)
        example = "`PT2H30M`, `2:30:00`, `150m` or `9000` (seconds)"
        tree = _parse_tree(text, "duration", "E106", "a duration", example)
        seconds = _duration_seconds(tree.children[0], text)
        if seconds is not None and seconds > MAX_WHOLE:
            raise ValueSyntaxError(
                "E106",
                f"duration `{_shown(text)}` is longer than any scheduler holds",
                end=len(text),
                help=f"write at most {MAX_WHOLE} seconds (a signed 64-bit integer), "
                "or `unlimited` for no limit",
            )
        value = cls(raw)
        _set(value, seconds=seconds)
        return value

    @classmethod
    def from_seconds(cls, seconds: int | None) -> Duration:
        """ISO 8601 spelling of a whole number of seconds (``None`` is ``unlimited``);
        ``ValueSyntaxError`` E106 above :data:`MAX_WHOLE` seconds, as :meth:`parse`."""
        if seconds is None:
            return cls.parse("unlimited")
        if seconds > MAX_WHOLE:  # before f"{days}": str() refuses more than 4,300 digits
            raise ValueSyntaxError(
                "E106",
                "a duration longer than any scheduler holds",
                help=f"write at most {MAX_WHOLE} seconds (a signed 64-bit integer), "
                "or `unlimited` for no limit",
            )
        days, rest = divmod(seconds, 86400)
        hours, rest = divmod(rest, 3600)
        minutes, secs = divmod(rest, 60)
        text = "P" + (f"{days}D" if days else "")
        time = "".join(f"{n}{u}" for n, u in ((hours, "H"), (minutes, "M"), (secs, "S")) if n)
        if time or not days:
            text += "T" + (time or "0S")
        return cls.parse(text)

    @property
    def unlimited(self) -> bool:
        return self.seconds is None


def _duration_seconds(node: Tree[Token] | Token, text: str) -> int | None:
    from lark import Token

    if isinstance(node, Token):  # UNLIMITED
        return None
    total = Fraction(0)
    if node.data == "iso_duration":
        parts = [c for c in node.children if c is not None]
        if not parts or all(
            p.data == "iso_time" and not [c for c in p.children if c is not None]  # type: ignore[union-attr]
            for p in parts
        ):
            raise ValueSyntaxError(
                "E106", f"ISO 8601 duration `{text}` has no amount", help="write e.g. `PT2H30M`"
            )
        if any(
            p.data == "iso_time" and not [c for c in p.children if c is not None]  # type: ignore[union-attr]
            for p in parts
        ):
            pos = text.index("T")
            raise ValueSyntaxError(
                "E106",
                f"ISO 8601 duration `{text}` has a `T` with no hours, minutes or seconds after it",
                start=pos,
                end=pos + 1,
                help=f"drop the `T`: `{text[:pos]}{text[pos + 1 :]}`",
            )
        for part in parts:
            if part.data == "iso_days":  # type: ignore[union-attr]
                total += _number(part.children[0]) * 86400  # type: ignore[union-attr,arg-type]
            else:
                for sub in part.children:  # type: ignore[union-attr]
                    if sub is None:
                        continue
                    mult = {"iso_hours": 3600, "iso_minutes": 60, "iso_seconds": 1}[sub.data]  # type: ignore[union-attr]
                    total += _number(sub.children[0]) * mult  # type: ignore[union-attr,arg-type]
    elif node.data == "clock":
        toks = [t for t in node.children if t is not None]
        has_days = "-" in text
        fields = [_integer(t, "E106", "a clock field") for t in toks]  # type: ignore[arg-type]
        if has_days:
            days, rest = fields[0], fields[1:]
            if len(rest) > 3:
                raise ValueSyntaxError("E106", f"too many fields in duration `{text}`")
            rest = rest + [0] * (3 - len(rest))
            total = Fraction(days * 86400 + rest[0] * 3600 + rest[1] * 60 + rest[2])
            _check_sexagesimal(rest[1:], text)
            if rest[0] >= 24:
                raise ValueSyntaxError(
                    "E106",
                    f"hours must be below 24 after the days in duration `{text}`",
                    help="carry whole days into the day field, e.g. `2-01:00:00` for 49 hours",
                )
        elif len(fields) == 1:
            total = Fraction(fields[0])
        elif len(fields) == 2:
            raise ValueSyntaxError(
                "E106",
                f"two-field duration `{text}` is ambiguous",
                help=f"write `0:{fields[0]:02d}:{fields[1]:02d}` for minutes:seconds or "
                f"`{fields[0]}:{fields[1]:02d}:00` for hours:minutes",
            )
        elif len(fields) == 3:
            _check_sexagesimal(fields[1:], text)
            total = Fraction(fields[0] * 3600 + fields[1] * 60 + fields[2])
        else:
            raise ValueSyntaxError("E106", f"too many fields in duration `{text}`")
    else:  # suffixed
        seen: set[str] = set()
        for part in node.children:
            number, unit_tok = part.children  # type: ignore[union-attr]
            unit = str(unit_tok)[0]
            if unit in seen:
                start = unit_tok.start_pos or 0  # type: ignore[union-attr]
                raise ValueSyntaxError(
                    "E106",
                    f"unit `{unit_tok}` appears twice in duration `{text}`",
                    start=start,
                    end=start + len(str(unit_tok)),
                )
            seen.add(unit)
            total += _number(number) * _DURATION_UNITS[unit]  # type: ignore[arg-type]
    return -(-total.numerator // total.denominator)


def _check_sexagesimal(fields: list[int], text: str) -> None:
    if any(f >= 60 for f in fields):
        raise ValueSyntaxError(
            "E106",
            f"minutes and seconds must be below 60 in duration `{text}`",
            help="carry the excess into the next field, e.g. `1:30:00` rather than `0:90:00`",
        )


class IndexSpec(Value):
    """Array indices: ``0-99``, ``1-50:2``, ``0-999%50``, ``1,3,7-12``.

    ``ranges`` holds ``(start, end, step)`` triples; ``throttle`` is the ``%N`` limit on
    elements running at once.

    >>> s = IndexSpec.parse("1,3,7-12%2"); s.ranges, s.throttle, len(s)
    (((1, 1, 1), (3, 3, 1), (7, 12, 1)), 2, 8)
    """

    __slots__ = ("ranges", "throttle")
    KIND = "indices"
    ranges: tuple[tuple[int, int, int], ...]
    throttle: int | None

    @classmethod
    def parse(cls, raw: str | int | float) -> IndexSpec:
        text = _raw_text(raw)
        tree = _parse_tree(text, "indices", "E107", "an index range", "`0-99`, `1-50:2%5`")
        ranges: list[tuple[int, int, int]] = []
        throttle: int | None = None
        for item in tree.children:
            if item is None:
                continue
            if item.data == "throttle":  # type: ignore[union-attr]
                tok = item.children[0]  # type: ignore[union-attr]
                throttle = _integer(tok, "E107", "a throttle")  # type: ignore[arg-type]
                if throttle < 1:
                    raise ValueSyntaxError(
                        "E107",
                        f"throttle must be at least 1 in `{text}`",
                        start=tok.start_pos or 0,  # type: ignore[union-attr]
                        end=tok.end_pos,  # type: ignore[union-attr]
                    )
                continue
            toks = [t for t in item.children if t is not None]  # type: ignore[union-attr]
            nums = [_integer(t, "E107", "an index") for t in toks]  # type: ignore[arg-type]
            start = nums[0]
            end = nums[1] if len(nums) > 1 else start
            step = nums[2] if len(nums) > 2 else 1
            if end < start:
                raise ValueSyntaxError(
                    "E107",
                    f"range `{start}-{end}` ends before it starts",
                    start=toks[0].start_pos or 0,  # type: ignore[union-attr]
                    end=toks[1].end_pos,  # type: ignore[union-attr]
                    help=f"write `{end}-{start}`",
                )
            if step < 1:
                raise ValueSyntaxError(
                    "E107",
                    f"step must be at least 1 in `{text}`",
                    start=toks[2].start_pos or 0,  # type: ignore[union-attr]
                    end=toks[2].end_pos,  # type: ignore[union-attr]
                )
            ranges.append((start, end, step))
        naive = sum((end - start) // step + 1 for start, end, step in ranges)
        if naive > MAX_ARRAY_ELEMENTS:
            raise ValueSyntaxError(
                "E107",
                f"`{text}` has {naive:,} elements; no scheduler runs arrays that large",
                end=len(text),
                help=f"split the work into arrays of at most {MAX_ARRAY_ELEMENTS:,} elements",
            )
        value = cls(raw)
        _set(value, ranges=tuple(ranges), throttle=throttle)
        return value

    def __iter__(self) -> Iterator[int]:
        seen: set[int] = set()
        for start, end, step in self.ranges:
            for i in range(start, end + 1, step):
                if i not in seen:
                    seen.add(i)
                    yield i

    def __len__(self) -> int:
        """The number of distinct indices, computed without enumerating disjoint ranges
        (``0-999999999`` costs nothing)."""
        ordered = sorted(self.ranges)
        disjoint = all(a[1] < b[0] for a, b in itertools.pairwise(ordered))
        if disjoint:
            return sum((end - start) // step + 1 for start, end, step in ordered)
        if all(step == 1 for _, _, step in ordered):  # overlapping plain ranges: merge them
            total, reach = 0, -1
            for start, end, _ in ordered:
                if end > reach:
                    total += end - max(start, reach + 1) + 1
                    reach = end
            return total
        return sum(1 for _ in self)

    def indices(self) -> list[int]:
        return list(self)

    @property
    def has_step(self) -> bool:
        return any(step != 1 for _, _, step in self.ranges)

    @property
    def is_list(self) -> bool:
        return len(self.ranges) > 1


class Template(Value):
    """An output path template: ``/scratch/{job_name}-{job_id}_{array_index}.out``.

    ``parts`` alternates literal text and ``("var", name)`` pairs; ``{{`` and ``}}`` are literal
    braces.

    >>> Template.parse("{job_id}.{{x}}").parts
    (('var', 'job_id'), ('text', '.{x}'))
    >>> Template.parse("out_{job_id}.log").render({"job_id": "%j"})
    'out_%j.log'
    """

    __slots__ = ("parts",)
    KIND = "template"
    NUMERIC = False
    parts: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, raw: str | int | float) -> Template:
        text = _raw_text(raw)
        if text == "":
            value = cls(raw)
            _set(value, parts=())
            return value
        tree = _parse_tree(text, "template", "E108", "a path template", "`out_{job_id}.log`")
        parts: list[tuple[str, str]] = []

        def add_text(s: str) -> None:
            if parts and parts[-1][0] == "text":
                parts[-1] = ("text", parts[-1][1] + s)
            else:
                parts.append(("text", s))

        for node in tree.children:
            kind = node.data  # type: ignore[union-attr]
            if kind == "text":
                add_text(str(node.children[0]))  # type: ignore[union-attr]
            elif kind == "open_brace":
                add_text("{")
            elif kind == "close_brace":
                add_text("}")
            else:
                tok = node.children[0]  # type: ignore[union-attr]
                name = str(tok)
                if name not in TEMPLATE_VARIABLES:
                    from bammmc.diagnostics.suggest import did_you_mean

                    pos = (tok.start_pos or 1) - 1  # type: ignore[union-attr]
                    raise ValueSyntaxError(
                        "E108",
                        f"unknown template variable `{{{name}}}`",
                        start=pos,
                        end=pos + len(name) + 2,
                        help=did_you_mean(name, TEMPLATE_VARIABLES, wrap="{%s}")
                        or "known variables: "
                        + ", ".join(f"`{{{v}}}`" for v in TEMPLATE_VARIABLES)
                        + "; write `{{` for a literal brace",
                    )
                parts.append(("var", name))
        value = cls(raw)
        _set(value, parts=tuple(parts))
        return value

    def variables(self) -> list[str]:
        return [name for kind, name in self.parts if kind == "var"]

    def render(self, mapping: dict[str, str], escape: Callable[[str], str] = str) -> str:
        """Spell the template for a target: each variable through ``mapping``, text through
        ``escape``. A variable missing from ``mapping`` raises ``KeyError``."""
        return "".join(escape(s) if kind == "text" else mapping[s] for kind, s in self.parts)


_SIGNALS: Final = [
    "HUP",
    "INT",
    "QUIT",
    "ILL",
    "TRAP",
    "ABRT",
    "BUS",
    "FPE",
    "KILL",
    "USR1",
    "SEGV",
    "USR2",
    "PIPE",
    "ALRM",
    "TERM",
    "STKFLT",
    "CHLD",
    "CONT",
    "STOP",
    "TSTP",
    "TTIN",
    "TTOU",
    "URG",
    "XCPU",
    "XFSZ",
    "VTALRM",
    "PROF",
    "WINCH",
    "IO",
    "PWR",
    "SYS",
]


class Signal(Value):
    """``SIGNAL@SECONDS``: a signal sent that many seconds before the walltime ends.

    >>> s = Signal.parse("SIGUSR1@90"); (s.name, s.number, s.seconds)
    ('USR1', 10, 90)
    """

    __slots__ = ("name", "number", "seconds")
    KIND = "signal"
    NUMERIC = False
    name: str | None
    number: int
    seconds: int

    @classmethod
    def parse(cls, raw: str | int | float) -> Signal:
        text = _raw_text(raw)
        tree = _parse_tree(text, "signal", "E110", "a signal", "`USR1@60` or `10@120`")
        sig_tok, secs_tok = tree.children
        written = str(sig_tok)
        sig = written.upper()  # names are case-insensitive, as in Slurm's `--signal`
        seconds = _integer(secs_tok, "E110", "signal seconds")  # type: ignore[arg-type]
        if sig.isdigit():
            number = int(sig)
            if not 1 <= number <= 64:
                raise ValueSyntaxError(
                    "E110", f"signal number `{sig}` is not between 1 and 64", end=len(sig)
                )
            name = _SIGNALS[number - 1] if number <= len(_SIGNALS) else None
        else:
            name = sig[3:] if sig.startswith("SIG") else sig
            if name not in _SIGNALS:
                from bammmc.diagnostics.suggest import did_you_mean

                raise ValueSyntaxError(
                    "E110",
                    f"unknown signal `{written}`",
                    end=len(sig),
                    help=did_you_mean(name, _SIGNALS) or "use a name such as `USR1` or `TERM`",
                )
            number = _SIGNALS.index(name) + 1
        value = cls(raw)
        _set(value, name=name, number=number, seconds=seconds)
        return value


class DateTime(Value):
    """An ISO 8601 date and time: ``2026-03-01T08:00:00Z``, ``2026-03-01T08:00``, ``2026-03-01``.

    >>> DateTime.parse("2026-03-01T08:00:00Z").value.isoformat()
    '2026-03-01T08:00:00+00:00'
    """

    __slots__ = ("value",)
    KIND = "datetime"
    NUMERIC = False
    value: _dt.datetime

    @classmethod
    def parse(cls, raw: str | int | float) -> DateTime:
        text = _raw_text(raw)
        try:
            # Python 3.11's ISO 8601 reader: the standard's own grammar, not ours to rewrite.
            parsed = _dt.datetime.fromisoformat(text)
        except ValueError:
            raise ValueSyntaxError(
                "E109",
                f"`{text}` is not an ISO 8601 date and time",
                end=len(text),
                help="write e.g. `2026-03-01T08:00:00Z` or `2026-03-01T08:00`",
            ) from None
        value = cls(raw)
        _set(value, value=parsed)
        return value


#: Every typed value class, by the name used in the JSON Schema and the docs.
VALUE_TYPES: Final[tuple[type[Value], ...]] = (
    Size,
    Cpu,
    Count,
    Duration,
    IndexSpec,
    Template,
    Signal,
    DateTime,
)
