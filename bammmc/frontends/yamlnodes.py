"""YAML text -> a tree of located nodes, for every YAML/JSON-based format.

PyYAML (libyaml when installed) does the parsing; this module composes its event stream into
:class:`Node` objects itself, iteratively, so that it can

* give every key and value a span (1-based line/column, character offsets),
* resolve plain scalars by the YAML 1.2 core schema (``yes`` stays a string, ``0755`` stays
  ``0755`` for string fields, ``1:30`` is not sexagesimal, ``2026-01-01`` is not a date),
* report duplicate keys, several documents, unknown tags and excessive nesting as diagnostics,
* keep aliases as shared references, so that an alias bomb costs nothing until a consumer walks
  it (consumers bound the walk: see :class:`bammmc.ir.decode.Decoder`).

Siblings: ``frontends/splat.py`` (the SPLAT reader) and ``ir/decode.py`` (typed decoding).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from bammmc.diagnostics.model import Reporter, Span

MAX_DEPTH: Final = 64

# The YAML 1.2 core schema's resolution table (https://yaml.org/spec/1.2.2/#1032-tag-resolution).
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT10 = re.compile(r"^[-+]?[0-9]+$")
_INT8 = re.compile(r"^0o[0-7]+$")
_INT16 = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")

_STR_TAG = "tag:yaml.org,2002:str"
_KNOWN_TAGS = {
    _STR_TAG,
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
    "!",
}


@dataclass(eq=False)
class Node:
    """A located YAML node. ``kind`` is ``map``, ``seq`` or ``scalar``.

    For a scalar, ``value`` is the resolved Python value and ``text`` the characters as written
    (after YAML unescaping); ``style`` is ``None`` for plain, or the quote/block indicator.
    For a map, ``items`` holds ``(key, value)`` node pairs in order; for a seq, ``children``.
    """

    kind: str
    span: Span
    value: Any = None
    text: str = ""
    style: str | None = None
    items: list[tuple[Node, Node]] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    alias: bool = False

    @property
    def type_name(self) -> str:
        if self.kind == "map":
            return "a mapping"
        if self.kind == "seq":
            return "a list"
        v = self.value
        if v is None:
            return "null"
        if isinstance(v, bool):
            return f"boolean `{self.text}`"
        if isinstance(v, int):
            return f"integer `{self.text}`"
        if isinstance(v, float):
            return f"number `{self.text}`"
        return f"string `{_short(self.text)}`"

    def plain(self) -> Any:
        """The node as plain Python data (no budget: call on bounded trees only)."""
        if self.kind == "map":
            return {
                k.value if k.kind == "scalar" else str(k.text): v.plain() for k, v in self.items
            }
        if self.kind == "seq":
            return [c.plain() for c in self.children]
        return self.value


def _short(text: str, limit: int = 40) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _span(file: str | None, start: Any, end: Any) -> Span:
    return Span(
        file=file,
        line=start.line + 1,
        column=start.column + 1,
        end_line=end.line + 1,
        end_column=end.column + 1,
        start=start.index,
        end=end.index,
    )


def resolve_plain(text: str) -> Any:
    """A plain scalar's value under the YAML 1.2 core schema.

    >>> [resolve_plain(t) for t in ("yes", "0755", "0x1f", "1.5", "~", "1:30", "true")]
    ['yes', 755, 31, 1.5, None, '1:30', True]
    """
    if len(text) > 100:  # no number is this long; and int() refuses > 4300 digits
        return text
    if _NULL.match(text):
        return None
    if _BOOL.match(text):
        return text.lower() == "true"
    if _INT10.match(text):
        return int(text)
    if _INT8.match(text):
        return int(text[2:], 8)
    if _INT16.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        return float(text)
    if _INF.match(text):
        return float("-inf") if text.startswith("-") else float("inf")
    if _NAN.match(text):
        return float("nan")
    return text


def compose(
    text: str,
    reporter: Reporter,
    *,
    allow_multiple: bool = False,
    max_depth: int = MAX_DEPTH,
) -> list[Node]:
    """Parse ``text`` into one node per document. Errors go to ``reporter``; on a YAML syntax
    error the result is empty."""
    import yaml
    from yaml import events as ev

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    file = reporter.file
    docs: list[Node] = []
    stack: list[Node] = []
    pending_key: list[Node | None] = []
    seen_keys: list[dict[Any, Node]] = []
    anchors: dict[str, Node] = {}
    doc_count = 0
    doc_starts: list[Span] = []

    def attach(node: Node) -> bool:
        if not stack:
            docs.append(node)
            return True
        parent = stack[-1]
        if parent.kind == "seq":
            parent.children.append(node)
        elif pending_key[-1] is None:
            pending_key[-1] = node
        else:
            key = pending_key[-1]
            assert key is not None
            seen = seen_keys[-1]
            marker = (type(key.value).__name__, key.value) if key.kind == "scalar" else None
            other = seen.get(marker) if marker is not None else None
            if marker is not None and other is None:
                seen[marker] = key
            if other is not None:
                reporter.report(
                    "E125",
                    f"duplicate key `{key.text}`",
                    key.span,
                    label="a second value for this key",
                    notes=(
                        f"the first `{key.text}` is at line {other.span.line}; YAML "
                        "readers disagree on which one wins",
                    ),
                    help="remove one of the two",
                )
            parent.items.append((key, node))
            pending_key[-1] = None
        return True

    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, ev.DocumentStartEvent):
                doc_count += 1
                doc_starts.append(_span(file, event.start_mark, event.end_mark))
            elif isinstance(event, ev.ScalarEvent):
                tag = event.tag
                node_span = _span(file, event.start_mark, event.end_mark)
                if tag is not None and tag not in _KNOWN_TAGS:
                    reporter.report(
                        "E003",
                        f"unsupported YAML tag `{tag}`",
                        node_span,
                        help="remove the tag; SPLAT values are plain strings, numbers and booleans",
                    )
                    return []
                style = event.style or None  # libyaml says '' for plain, PyYAML None
                if style is None and tag in (
                    None,
                    "tag:yaml.org,2002:int",
                    "tag:yaml.org,2002:float",
                    "tag:yaml.org,2002:bool",
                    "tag:yaml.org,2002:null",
                ):
                    value: Any = resolve_plain(event.value)
                else:
                    value = event.value
                node = Node("scalar", node_span, value=value, text=event.value, style=style)
                if event.anchor:
                    anchors[event.anchor] = node
                attach(node)
            elif isinstance(event, ev.AliasEvent):
                target = anchors.get(event.anchor or "")
                if target is None:  # libyaml reports this itself; kept for the pure loader
                    reporter.report(
                        "E003",
                        f"unknown YAML alias `*{event.anchor}`",
                        _span(file, event.start_mark, event.end_mark),
                    )
                    return []
                alias = Node(
                    target.kind,
                    _span(file, event.start_mark, event.end_mark),
                    value=target.value,
                    text=target.text,
                    style=target.style,
                    items=target.items,
                    children=target.children,
                    alias=True,
                )
                attach(alias)
            elif isinstance(event, ev.MappingStartEvent | ev.SequenceStartEvent):
                kind = "map" if isinstance(event, ev.MappingStartEvent) else "seq"
                if event.tag is not None and event.tag not in _KNOWN_TAGS:
                    reporter.report(
                        "E003",
                        f"unsupported YAML tag `{event.tag}`",
                        _span(file, event.start_mark, event.end_mark),
                    )
                    return []
                node = Node(kind, _span(file, event.start_mark, event.end_mark))
                if event.anchor:
                    anchors[event.anchor] = node
                attach(node)
                stack.append(node)
                pending_key.append(None)
                seen_keys.append({})
                if len(stack) > max_depth:
                    reporter.report(
                        "E006",
                        f"YAML nesting deeper than {max_depth} levels",
                        node.span,
                        help="a job description is never this deep; check the file is a job",
                    )
                    return []
            elif isinstance(event, ev.MappingEndEvent | ev.SequenceEndEvent):
                node = stack.pop()
                pending_key.pop()
                seen_keys.pop()
                end = _span(file, event.end_mark, event.end_mark)
                node.span = Span(
                    file=file,
                    line=node.span.line,
                    column=node.span.column,
                    end_line=end.line,
                    end_column=end.column,
                    start=node.span.start,
                    end=end.start,
                )
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        # An unclosed quote or bracket is found only at the end of the file: point at where
        # it was opened instead (the context mark), which is where the fix goes.
        if (
            exc.context_mark is not None
            and mark is not None
            and mark.index >= len(text.rstrip())
            and exc.context_mark.index < mark.index
        ):
            mark = exc.context_mark
        span = _span(file, mark, mark) if mark is not None else None
        if span is not None:
            span = Span(
                file=file,
                line=span.line,
                column=span.column,
                end_line=span.line,
                end_column=span.column + 1,
                start=span.start,
                end=(span.start or 0) + 1,
            )
        problem = (exc.problem or "invalid YAML").rstrip(".")
        if "maximum nesting depth" in problem:  # libyaml's own limit on flow collections
            reporter.report(
                "E006",
                f"YAML nesting deeper than {max_depth} levels",
                span,
                help="a job description is never this deep; check the file is a job",
            )
            return []
        notes = (f"{exc.context}",) if exc.context else ()
        help_text = "check indentation, quoting and the `key: value` form on this line"
        if mark is not None and text[mark.index : mark.index + 1] == "\t":
            help_text = "YAML does not allow tabs for indentation: use spaces"
        reporter.report("E003", f"invalid YAML: {problem}", span, notes=notes, help=help_text)
        return []
    except yaml.YAMLError as exc:
        reporter.report("E003", f"invalid YAML: {exc}", help="check the file is YAML")
        return []
    if not allow_multiple:
        real = [i for i, d in enumerate(docs) if not (d.kind == "scalar" and d.value is None)]
        if len(real) > 1:  # empty documents (a trailing `---`) do not count
            reporter.report(
                "E004",
                "more than one YAML document in one job file",
                doc_starts[real[1]] if real[1] < len(doc_starts) else None,
                label="a second document starts here",
                help="put one job per file, or pass `--batch` to read every document",
            )
            return []
    return docs
