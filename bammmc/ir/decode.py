"""Located nodes -> IR structs, with a diagnostic for every mismatch and a source map.

The decoder walks the msgspec type description of :class:`bammmc.ir.job.Job` alongside the
YAML/JSON node tree, so that every error knows the exact key or value at fault: an unknown key
gets a did-you-mean from the keys valid at that place (and a note when the key belongs
elsewhere), a wrong type says what was expected, a typed value (size, duration…) that does not
parse points at the offending characters. It builds the structs directly (the walk has
validated every value) and records ``field path -> (key span, value span)`` in a
:class:`~bammmc.ir.sourcemap.SourceMap`.

Used by ``frontends/splat.py``; every JSON/YAML frontend can use it for its own model.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Final

import msgspec
from msgspec import inspect as mi

from bammmc.diagnostics.model import Reporter, Span
from bammmc.diagnostics.suggest import did_you_mean
from bammmc.frontends.yamlnodes import MAX_DEPTH, Node
from bammmc.ir.sourcemap import SourceMap, join_path
from bammmc.ir.values import Value, ValueSyntaxError

#: Nodes one decode may visit, counting each alias expansion: bounds alias bombs.
MAX_NODES: Final = 200_000
#: Unknown keys reported one by one before the rest are summed up.
MAX_UNKNOWN: Final = 50


class Invalid(Exception):
    """Raised inside the walk for a value already reported; the caller skips the field."""


class BudgetExceeded(Exception):
    pass


_VALUE_DESCRIPTIONS: Final = {
    "Size": "a size such as `4Gi`",
    "Cpu": "a CPU count such as `4` or `500m`",
    "Count": "a count such as `2` or `4/node`",
    "Duration": "a duration such as `PT2H30M` or `2:30:00`",
    "IndexSpec": "an index range such as `0-99%10`",
    "Template": "a path template such as `out_{job_id}.log`",
    "Signal": "a signal such as `USR1@60`",
    "DateTime": "a date and time such as `2026-03-01T08:00:00Z`",
}


def describe(t: mi.Type) -> str:
    """What a type expects, in words, for messages."""
    if isinstance(t, mi.UnionType):
        return " or ".join(describe(x) for x in t.types if not isinstance(x, mi.NoneType))
    if isinstance(t, mi.StructType):
        return "a mapping"
    if isinstance(t, mi.ListType):
        return "a list"
    if isinstance(t, mi.DictType):
        return "a mapping"
    if isinstance(t, mi.LiteralType):
        return "one of " + ", ".join(f"`{v}`" for v in t.values)
    if isinstance(t, mi.BoolType):
        return "`true` or `false`"
    if isinstance(t, mi.IntType):
        return "an integer"
    if isinstance(t, mi.FloatType):
        return "a number"
    if isinstance(t, mi.StrType):
        return "a string"
    if isinstance(t, mi.CustomType):
        return _VALUE_DESCRIPTIONS.get(t.cls.__name__, t.cls.__name__)
    return "a value"


@functools.cache
def type_info(cls: type) -> mi.Type:
    return mi.type_info(cls)


@functools.cache
def key_index(cls: type) -> dict[str, list[str]]:
    """Every wire key valid anywhere under ``cls`` -> the paths of the structs that own it
    (``cpusPerTask -> ['spec.resources', 'spec.resources.limits', …]``)."""
    index: dict[str, list[str]] = {}

    def walk(t: mi.Type, path: str, depth: int) -> None:
        if depth > 8:
            return
        if isinstance(t, mi.UnionType):
            for x in t.types:
                walk(x, path, depth)
        elif isinstance(t, mi.ListType):
            walk(t.item_type, path + "[]", depth + 1)
        elif isinstance(t, mi.DictType):
            walk(t.value_type, path + ".*", depth + 1)
        elif isinstance(t, mi.StructType):
            for f in t.fields:
                index.setdefault(f.encode_name, []).append(path)
                walk(f.type, join_path(path, f.encode_name), depth + 1)

    walk(type_info(cls), "", 0)
    return index


class Decoder:
    """Decodes one document. Diagnostics go to ``reporter``; spans to ``source_map``."""

    def __init__(self, reporter: Reporter, root: type, max_nodes: int = MAX_NODES) -> None:
        self.reporter = reporter
        self.root = root
        self.source_map = SourceMap()
        self.budget = max_nodes
        self.max_nodes = max_nodes
        self.unknown = 0

    def decode(self, node: Node) -> Any | None:
        """The root struct, or ``None`` when an error made it unbuildable."""
        try:
            return self._value(node, type_info(self.root), "")
        except Invalid:
            return None
        except BudgetExceeded:
            self.reporter.report(
                "E006",
                f"document expands to more than {self.max_nodes:,} nodes or {MAX_DEPTH} levels",
                node.span,
                notes=(
                    "YAML aliases are expanded where they are used; a few anchors can expand "
                    "into billions of nodes (an 'alias bomb'), and an alias inside its own "
                    "anchor never ends",
                ),
                help="write the values out instead of nesting aliases; split a huge job",
            )
            return None

    # -- helpers ---------------------------------------------------------------------------

    def _tick(self) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise BudgetExceeded

    def _wrong_type(self, node: Node, t: mi.Type, path: str) -> Invalid:
        help_text = None
        if (
            (
                isinstance(t, mi.BoolType)
                or (
                    isinstance(t, mi.UnionType) and any(isinstance(x, mi.BoolType) for x in t.types)
                )
            )
            and node.kind == "scalar"
            and str(node.text).lower()
            in (
                "yes",
                "no",
                "on",
                "off",
                "y",
                "n",
            )
        ):
            help_text = "write `true` or `false` (SPLAT reads YAML 1.2, where `yes` is a string)"
        if help_text is None and node.kind == "scalar" and isinstance(node.value, str):
            if isinstance(t, mi.ListType):
                help_text = f"write a list: `[{node.text}]`"
        if help_text is None:
            help_text = f"write {describe(t)} here"
        self.reporter.report(
            "E102",
            f"expected {describe(t)}, found {node.type_name}",
            node.span,
            field=path or None,
            help=help_text,
        )
        return Invalid()

    # -- the walk --------------------------------------------------------------------------

    def _value(self, node: Node, t: mi.Type, path: str) -> Any:
        self._tick()
        if isinstance(t, mi.UnionType):
            if node.kind == "scalar" and node.value is None and node.style is None:
                if any(isinstance(x, mi.NoneType) for x in t.types):
                    return None
            options = [x for x in t.types if not isinstance(x, mi.NoneType)]
            if len(options) == 1:
                return self._value(node, options[0], path)
            raise self._wrong_type(node, t, path)  # no multi-type unions in SPLAT
        if isinstance(t, mi.StructType):
            return self._struct(node, t, path)
        if isinstance(t, mi.ListType):
            if node.kind != "seq":
                raise self._wrong_type(node, t, path)
            out, failed = [], False
            for i, child in enumerate(node.children):
                child_path = f"{path}[{i}]"
                self.source_map.add(child_path, None, child.span)
                try:
                    out.append(self._value(child, t.item_type, child_path))
                except Invalid:
                    failed = True
            if failed:
                raise Invalid()
            return out
        if isinstance(t, mi.DictType):
            if node.kind != "map":
                raise self._wrong_type(node, t, path)
            result: dict[str, Any] = {}
            failed = False
            for key, value in node.items:
                if key.kind != "scalar" or key.value is None:
                    self.reporter.report(
                        "E102",
                        "expected a string key",
                        key.span,
                        field=path or None,
                        help="write the key as a plain word or a quoted string",
                    )
                    failed = True
                    continue
                name = str(key.text)
                if name in result:
                    self._key_collision(key, name, path)
                    failed = True
                    continue
                child_path = join_path(path, name)
                self.source_map.add(child_path, key.span, value.span)
                try:
                    result[name] = self._value(value, t.value_type, child_path)
                except Invalid:
                    failed = True
            if failed:
                raise Invalid()
            return result
        if isinstance(t, mi.AnyType):
            return self._plain(node, path)
        if node.kind != "scalar":
            raise self._wrong_type(node, t, path)
        return self._scalar(node, t, path)

    def _plain(self, node: Node, path: str, depth: int = 0) -> Any:
        """A free-form value (``affinity``, ``resource_graph``…) as plain data. Depth is bounded
        too: an alias inside its own anchor would otherwise recurse forever."""
        self._tick()
        if depth > MAX_DEPTH:
            raise BudgetExceeded
        if node.kind == "map":
            out: dict[str, Any] = {}
            for k, v in node.items:
                name = str(k.text)
                if name in out:
                    self._key_collision(k, name, path)
                    raise Invalid()
                out[name] = self._plain(v, path, depth + 1)
            return out
        if node.kind == "seq":
            return [self._plain(c, path, depth + 1) for c in node.children]
        if isinstance(node.value, float) and node.value != node.value:
            self.reporter.report(
                "E102",
                "`.nan` is not a value a job can use",
                node.span,
                field=path or None,
                help="write a number, or leave the key out",
            )
            raise Invalid()
        return node.value

    def _key_collision(self, key: Node, name: str, path: str) -> None:
        self.reporter.report(
            "E125",
            f"two keys of this mapping are both the string `{name}`",
            key.span,
            field=path or None,
            notes=('keys such as `1` and `"1"` differ in YAML but are one key here',),
            help="remove or rename one of them",
        )

    def _scalar(self, node: Node, t: mi.Type, path: str) -> Any:
        v = node.value
        plain = node.style is None
        if isinstance(t, mi.StrType):
            if v is None and plain:
                raise self._wrong_type(node, t, path)
            return node.text
        if isinstance(t, mi.BoolType):
            if isinstance(v, bool):
                return v
            raise self._wrong_type(node, t, path)
        if isinstance(t, mi.IntType):
            if not plain or isinstance(v, bool) or not isinstance(v, int):
                raise self._wrong_type(node, t, path)
            self._check_range(node, t, v, path)
            return v
        if isinstance(t, mi.FloatType):
            if not plain or isinstance(v, bool) or not isinstance(v, int | float):
                raise self._wrong_type(node, t, path)
            if isinstance(v, float) and not math.isfinite(v):
                self.reporter.report(
                    "E118",
                    f"`{node.text}` is not a finite number",
                    node.span,
                    field=path or None,
                    help="write a plain number such as `0.5`",
                )
                raise Invalid()
            self._check_range(node, t, v, path)
            return v  # an int stays an int, so `3600` is written back as `3600`
        if isinstance(t, mi.LiteralType):
            if v in t.values and not isinstance(v, bool):
                return v
            if node.text in t.values:
                return node.text
            shown = ", ".join(f"`{x}`" for x in t.values)
            self.reporter.report(
                "E104",
                f"`{node.text}` is not one of {shown}",
                node.span,
                field=path or None,
                help=did_you_mean(str(node.text), [str(x) for x in t.values])
                or f"use one of {shown}",
            )
            raise Invalid()
        if isinstance(t, mi.CustomType) and issubclass(t.cls, Value):
            if v is None or isinstance(v, bool):
                raise self._wrong_type(node, t, path)
            numeric = plain and isinstance(v, int | float) and t.cls.NUMERIC
            if numeric and not node.text.replace(".", "", 1).isdigit():
                # `0x10`, `1e3`, `+4096`, `.inf`: YAML numbers, but not how a size or a
                # duration is written; the value would not come back as the user wrote it
                self.reporter.report(
                    "E105"
                    if t.cls.__name__ in ("Size", "Cpu", "Count")
                    else "E106"
                    if t.cls.__name__ == "Duration"
                    else "E107",
                    f"`{node.text}` is not a plain decimal number",
                    node.span,
                    field=path or None,
                    help=f"write {describe(t)}",
                )
                raise Invalid()
            raw: str | int | float = v if numeric else node.text
            try:
                return t.cls.parse(raw)
            except ValueSyntaxError as exc:
                span = node.span
                written = (span.end or 0) - (span.start or 0)
                quotes = 2 if node.style in ('"', "'") else 0
                if (
                    node.style in (None, '"', "'")
                    and isinstance(raw, str)
                    and written == len(raw) + quotes  # no escapes: offsets map one to one
                ):
                    offset = quotes // 2
                    span = span.shifted(exc.start + offset, (exc.end or len(raw)) + offset)
                self.reporter.report(exc.code, exc.message, span, field=path or None, help=exc.help)
                raise Invalid() from None
        raise self._wrong_type(node, t, path)

    def _check_range(self, node: Node, t: mi.IntType | mi.FloatType, v: float, path: str) -> None:
        low = t.ge if t.ge is not None else t.gt
        high = t.le if t.le is not None else t.lt
        bad = (
            (t.ge is not None and v < t.ge)
            or (t.gt is not None and v <= t.gt)
            or (t.le is not None and v > t.le)
            or (t.lt is not None and v >= t.lt)
        )
        if bad:
            if low is not None and high is not None:
                want = f"between {low} and {high}"
            elif low is not None:
                want = f"at least {low}" if t.ge is not None else f"greater than {low}"
            else:
                want = f"at most {high}" if t.le is not None else f"less than {high}"
            self.reporter.report(
                "E118",
                f"`{node.text}` is out of range: must be {want}",
                node.span,
                field=path or None,
                help=f"use a value {want}",
            )
            raise Invalid()

    def _struct(self, node: Node, t: mi.StructType, path: str) -> Any:
        if node.kind != "map":
            raise self._wrong_type(node, t, path)
        fields = {f.encode_name: f for f in t.fields}
        kwargs: dict[str, Any] = {}
        failed = False
        for key, value in node.items:
            if (
                key.kind != "scalar"
                or not isinstance(key.value, str | int | float)
                or key.value is None
            ):
                self.reporter.report(
                    "E102",
                    "expected a string key",
                    key.span,
                    field=path or None,
                    help="write the key as a plain word or a quoted string",
                )
                failed = True
                continue
            name = key.text
            f = fields.get(name)
            child_path = join_path(path, name)
            if f is None:
                self._unknown_key(key, name, fields, path)
                failed = True
                continue
            self.source_map.add(child_path, key.span, value.span)
            try:
                kwargs[f.name] = self._value(value, f.type, child_path)
            except Invalid:
                failed = True
        for f in t.fields:
            if (
                f.required
                and f.name not in kwargs
                and f.encode_name not in {k.text for k, _ in node.items}
            ):
                self.reporter.report(
                    "E103",
                    f"missing required field `{f.encode_name}`" + (f" in `{path}`" if path else ""),
                    _head(node.span),
                    field=join_path(path, f.encode_name),
                    help=f"add `{f.encode_name}:` ({describe(f.type)})",
                )
                failed = True
        if failed:
            raise Invalid()
        return t.cls(**kwargs)

    def _unknown_key(self, key: Node, name: str, fields: dict[str, mi.Field], path: str) -> None:
        self.unknown += 1
        if self.unknown > MAX_UNKNOWN:
            if self.unknown == MAX_UNKNOWN + 1:
                self.reporter.report(
                    "E101",
                    f"more than {MAX_UNKNOWN} unknown fields; the rest are not listed",
                    key.span,
                    help="check that the file is a SPLAT job",
                )
            return
        if name == "<<":
            self.reporter.report(
                "E101",
                "YAML merge keys (`<<`) are not part of YAML 1.2",
                key.span,
                field=join_path(path, name),
                notes=("SPLAT is read as YAML 1.2, which has no merge keys",),
                help="write the merged keys out, or use an alias for the whole mapping",
            )
            return
        suggestion = did_you_mean(name, fields)
        notes: list[str] = []
        elsewhere = [p for p in key_index(self.root).get(name, []) if p != path]
        if elsewhere:
            where = ", ".join(f"`{p or '(top level)'}`" for p in elsewhere[:3])
            notes.append(f"`{name}` is a field of {where}")
        where = f"`{path}`" if path else "the top level"
        self.reporter.report(
            "E101",
            f"unknown field `{name}` in {where}",
            key.span,
            label="not a SPLAT field here",
            field=join_path(path, name),
            notes=tuple(notes),
            help=suggestion or "known fields here: " + ", ".join(f"`{k}`" for k in fields),
        )


def _head(span: Span) -> Span:
    """The first line of a span (a whole mapping is too big to underline)."""
    if span.line == span.end_line:
        return span
    return msgspec.structs.replace(
        span, end_line=span.line, end_column=span.column + 1, end=(span.start or 0) + 1
    )
