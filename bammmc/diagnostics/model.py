"""The one diagnostic type, its spans, and the collector every stage reports through.

Severity follows the code's letter (``E`` error, ``W`` warning, ``N`` note) and never changes;
``--strict`` promotes W2xx/W3xx at the exit-status level without renaming them.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

Severity = Literal["error", "warning", "note"]


class Span(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A region of a source file. Lines and columns are 1-based; ``end_column`` is exclusive;
    offsets are 0-based character offsets."""

    file: str | None = None
    line: int
    column: int
    end_line: int
    end_column: int
    start: int | None = None
    end: int | None = None

    def shifted(self, start: int, end: int | None = None) -> Span:
        """The sub-span ``[start, end)`` of a single-line span (offsets relative to this one)."""
        if self.line != self.end_line:
            return self
        end = start + 1 if end is None else max(end, start + 1)
        width = self.end_column - self.column
        start = min(start, width)
        end = min(max(end, start), max(width, start + 1))
        return msgspec.structs.replace(
            self,
            column=self.column + start,
            end_column=self.column + end,
            start=None if self.start is None else self.start + start,
            end=None if self.start is None else self.start + end,
        )


class Label(msgspec.Struct, frozen=True, kw_only=True):
    span: Span
    message: str


class Diagnostic(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A located, coded message. ``field`` is the SPLAT field path it is about
    (``spec.resources.gpu.type``), when it is about one."""

    code: str
    severity: Severity
    message: str
    span: Span | None = None
    label: str | None = None
    labels: tuple[Label, ...] = ()
    notes: tuple[str, ...] = ()
    help: str | None = None
    field: str | None = None
    #: the file a diagnostic without a span is about (a whole-file problem)
    file: str | None = None

    @property
    def path(self) -> str | None:
        """The file this diagnostic is about."""
        return self.span.file if self.span is not None else self.file

    @property
    def name(self) -> str:
        from bammmc.diagnostics.codes import CODES

        code = CODES.get(self.code)
        return code.name if code else ""

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


def severity_of(code: str) -> Severity:
    return {"E": "error", "W": "warning", "N": "note"}[code[0]]  # type: ignore[return-value]


class Reporter:
    """Collects diagnostics for one input. Stages call :meth:`report`; nothing is printed."""

    def __init__(self, file: str | None = None) -> None:
        self.file = printable_path(file) if file is not None else None
        self.diagnostics: list[Diagnostic] = []

    def report(
        self,
        code: str,
        message: str,
        span: Span | None = None,
        *,
        label: str | None = None,
        labels: tuple[Label, ...] = (),
        notes: tuple[str, ...] | list[str] = (),
        help: str | None = None,
        field: str | None = None,
    ) -> Diagnostic:
        from bammmc.diagnostics.codes import CODES

        assert code in CODES, f"unregistered diagnostic code {code}"
        diag = Diagnostic(
            code=code,
            severity=severity_of(code),
            message=message,
            span=span,
            label=label,
            labels=labels,
            notes=tuple(notes),
            help=help,
            field=field,
            file=self.file if span is None else None,
        )
        self.diagnostics.append(diag)
        return diag

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.diagnostics)


def sort_key(d: Diagnostic) -> tuple[str, int, int, str]:
    """File, then position; a whole-file diagnostic first in its file."""
    if d.span is None:
        return (d.file or "", 0, 0, d.code)
    return (d.span.file or "", d.span.line, d.span.column, d.code)


def merge_alike(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic for several fields that one source line set and one reason covers (Grid
    Engine's `--nodes` and `--ntasks-per-node` both "placed by the parallel environment's
    allocation rule"): "`a` and `b` are approximated …", the carets over both. For people
    only: JSON and SARIF keep one diagnostic per field. The order is kept (the first one's
    place).

    >>> span = lambda c, e: Span(file="j", line=2, column=c, end_line=2, end_column=e)
    >>> a = Diagnostic(code="W301", severity="warning", field="x.a", span=span(9, 18),
    ...     message="`x.a` is approximated for Grid Engine: placed by the PE")
    >>> b = msgspec.structs.replace(a, field="x.b", span=span(19, 30),
    ...     message="`x.b` is approximated for Grid Engine: placed by the PE")
    >>> (m,) = merge_alike([a, b]); m.message, m.span.column, m.span.end_column
    ('`x.a` and `x.b` are approximated for Grid Engine: placed by the PE', 9, 30)
    """
    groups: dict[tuple[Any, ...], list[Diagnostic]] = {}
    order: list[tuple[Any, ...] | int] = []
    for i, d in enumerate(diagnostics):
        head = f"`{d.field}`" if d.field else None
        span = d.span
        if (
            head is None
            or span is None
            or span.line != span.end_line
            or not d.message.startswith(head)
        ):
            order.append(i)
            continue
        tail = d.message[len(head) :]
        key = (d.code, d.severity, span.file, span.line, tail, d.notes, d.help, d.label)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(d)
    out = []
    for item in order:
        if isinstance(item, int):
            out.append(diagnostics[item])
            continue
        alike = groups[item]
        first = alike[0]
        if len(alike) == 1:
            out.append(first)
            continue
        tail = item[4]
        if tail.startswith(" is "):
            tail = " are " + tail[len(" is ") :]
        names = [f"`{d.field}`" for d in alike]
        message = ", ".join(names[:-1]) + " and " + names[-1] + tail
        spans = [d.span for d in alike if d.span is not None]
        starts = [sp.start for sp in spans if sp.start is not None]
        ends = [sp.end for sp in spans if sp.end is not None]
        assert first.span is not None
        span = msgspec.structs.replace(
            first.span,
            column=min(sp.column for sp in spans),
            end_column=max(sp.end_column for sp in spans),
            start=min(starts) if len(starts) == len(spans) else None,
            end=max(ends) if len(ends) == len(spans) else None,
        )
        out.append(msgspec.structs.replace(first, message=message, span=span))
    return out


def printable_path(path: str) -> str:
    """A file name that is valid text: undecodable bytes (surrogate escapes) as `\\xNN`."""
    import os

    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
