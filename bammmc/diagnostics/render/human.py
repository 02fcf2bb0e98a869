"""Human rendering: the headline, the source line with carets, notes and help (rustc's shape).

Plain text always; colour only when asked (a terminal), through rich, imported only then.

    error[E101]: unknown field `cpuPerTask` in `spec.resources`
     --> job.yaml:4:5
      |
    4 |     cpuPerTask: 4
      |     ^^^^^^^^^^ not a SPLAT field here
      |
      = help: did you mean `cpusPerTask`?
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bammmc.diagnostics.model import Diagnostic

Segment = tuple[str, str]  # (text, style)

_MAX_WIDTH = 120

_STYLES = {"error": "bold red", "warning": "bold yellow", "note": "bold cyan"}


def segments(diag: Diagnostic, source: str | None) -> list[Segment]:
    """The diagnostic as styled text segments (the plain text is their concatenation)."""
    sev = _STYLES[diag.severity]
    out: list[Segment] = [
        (f"{diag.severity}[{diag.code}]", sev),
        (f": {diag.message}\n", "bold"),
    ]
    span = diag.span
    if span is not None:
        width = len(str(span.end_line if source else span.line))
        pad = " " * width
        out.append((f"{pad}--> ", "blue"))
        out.append((f"{span.file or '<input>'}:{span.line}:{span.column}\n", ""))
        lines = source.splitlines() if source is not None else []
        if 0 < span.line <= len(lines):
            text = lines[span.line - 1].expandtabs(1)
            shift = 0
            if len(text) > _MAX_WIDTH:  # show a window around the span of a very long line
                shift = max(0, min(span.column - 1 - 40, len(text) - _MAX_WIDTH))
                text = (
                    ("…" if shift else "")
                    + text[shift : shift + _MAX_WIDTH]
                    + ("…" if shift + _MAX_WIDTH < len(text) else "")
                )
                shift -= 1 if shift else 0
            out.append((f"{pad} |\n", "blue"))
            out.append((f"{span.line:>{width}} | ", "blue"))
            out.append((text + "\n", ""))
            start = min(span.column - 1 - shift, len(text))
            if span.end_line == span.line:
                end = min(max(span.end_column - 1 - shift, start + 1), len(text) + 1)
            else:
                end = max(len(text), start + 1)
            carets = "^" * (end - start)
            out.append((f"{pad} | ", "blue"))
            out.append((" " * start + carets, sev))
            if diag.label:
                out.append((" " + diag.label, sev))
            out.append(("\n", ""))
            out.append((f"{pad} |\n", "blue"))
        for note in diag.notes:
            out.append((f"{pad} = ", "blue"))
            out.append(("note", "bold"))
            out.append((f": {note}\n", ""))
        if diag.help:
            out.append((f"{pad} = ", "blue"))
            out.append(("help", "bold"))
            out.append((f": {diag.help}\n", ""))
    else:
        if diag.file is not None:
            out.append((" --> ", "blue"))
            out.append((f"{diag.file}\n", ""))
        for note in diag.notes:
            out.append(("  = note", "bold"))
            out.append((f": {note}\n", ""))
        if diag.help:
            out.append(("  = help", "bold"))
            out.append((f": {diag.help}\n", ""))
    return out


def render(
    diagnostics: Iterable[Diagnostic], sources: Mapping[str | None, str] | None = None
) -> str:
    """Plain text for ``diagnostics``; ``sources`` maps file names to their text."""
    sources = sources or {}
    parts = []
    for diag in diagnostics:
        src = sources.get(diag.span.file) if diag.span else None
        parts.append("".join(text for text, _ in segments(diag, src)))
    return "\n".join(parts)


def print_color(
    diagnostics: Iterable[Diagnostic], sources: Mapping[str | None, str], file: object
) -> None:
    """Print with colour through rich (markup, emoji and highlighting off: job scripts are full
    of `[...]` and `$VARS`)."""
    from rich.console import Console
    from rich.text import Text

    console = Console(
        file=file,  # type: ignore[arg-type]
        markup=False,
        emoji=False,
        highlight=False,
        force_terminal=True,
        no_color=False,  # colour was asked for (`--color` beats NO_COLOR)
        soft_wrap=True,
    )
    first = True
    for diag in diagnostics:
        if not first:
            console.print()
        first = False
        src = sources.get(diag.span.file) if diag.span else None
        text = Text()
        for chunk, style in segments(diag, src):
            text.append(chunk, style=style or None)
        console.print(text, end="")
