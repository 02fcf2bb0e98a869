"""The one diagnostic type, its spans, and the collector every stage reports through.

Severity follows the code's letter (``E`` error, ``W`` warning, ``N`` note) and never changes;
``--strict`` promotes W2xx/W3xx at the exit-status level without renaming them.
"""

from __future__ import annotations

from typing import Literal

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


def printable_path(path: str) -> str:
    """A file name that is valid text: undecodable bytes (surrogate escapes) as `\\xNN`."""
    import os

    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
