"""``--explain``: what each field of the source became in the target, and ``--to all``.

One row per field the input set (a leaf of its source map):

* ``field`` — the SPLAT path (``spec.resources.gpu.type``);
* ``source`` — the exact text that set it (``--gres=gpu:a100:2``: from the key's span to the
  value's end, with the option's dashes) and where: ``file``, ``line``, ``column``;
* ``got`` — what the target got: the converted output is read back with the target's own reader
  (:func:`bammmc.pipeline.compile_text`) and this is the text at that reader's span for the same
  path (``#PBS -l select=1:ngpus=2`` → ``-l select=1:ncpus=1:ngpus=2``); ``None`` (``—``) when
  the target has nothing for the field;
* ``status`` — ``exact``, ``approximated`` (a W3xx about the field, a parent of it, or a part of
  its value) or ``lost`` (a W2xx; the worst one wins), with its ``code`` and ``reason`` (the
  diagnostic's message); an exact field written in the target's own form has its N003 note as
  the reason.

A W2xx/W3xx about a field that no row of the source covers (a default the target cannot keep, a
warning about the whole job) gets a row of its own, without source text, so the counts never hide
a loss. The summary is ``N exact, M approximated, K lost``.

Three renderings of the same rows: a rich table (on a terminal, or with ``--color``), aligned
plain text, and JSON lines (``kind`` ``explain`` per row, one ``explain-summary`` per job and
target). ``--to all`` adds one row per target (``kind`` ``target``). The keys are those of
``bammmc/diagnostics/diagnostics.schema.json``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bammmc.diagnostics.model import Diagnostic, Span
from bammmc.ir.job import Job
from bammmc.ir.paths import related
from bammmc.ir.sourcemap import SourceMap
from bammmc.pipeline import Compiled

STATUSES = ("exact", "approximated", "lost")
_RANK = {"exact": 0, "approximated": 1, "lost": 2}
_STYLE = {"exact": "green", "approximated": "yellow", "lost": "red", "fails": "bold red"}
#: widest source / target text shown in a table cell (JSON carries the whole text)
_CELL = 48
NONE = "—"


@dataclass
class Readback:
    """A target's output read back by the target's own reader: the text, its source map and
    the job read."""

    text: str
    source_map: SourceMap
    job: Job | None = None
    #: the target's name
    target: str | None = None


def read_back(text: str, fmt: Any, options: Any = None) -> Readback | None:
    """Read ``text`` (an output of ``fmt``'s writer) with ``fmt``'s reader; ``None`` when the
    reader finds no job in it."""
    from bammmc.diagnostics.model import Reporter
    from bammmc.pipeline import compile_text

    try:
        compiled = compile_text(text, fmt, Reporter("<output>"), options)
    except Exception:  # the report must not fail the conversion it reports on
        return None
    if not compiled:
        return None
    return Readback(text, compiled[0].source_map, compiled[0].job, getattr(fmt, "name", None))


def source_span(source_map: SourceMap, path: str, text: str | None = None) -> Span | None:
    """The span that set ``path``: from its key to the end of its value (one of them when the
    other is missing), widened to the dashes of an option (`-t` for a key `t`)."""
    key = source_map.keys.get(path)
    value = source_map.values.get(path)
    if key is None and value is None:
        return None
    first = key or value
    last = value or key
    assert first is not None and last is not None
    if (last.end_line, last.end_column) < (first.end_line, first.end_column):
        last = first
    start, end = first.start, last.end
    line, column = first.line, first.column
    if text is not None and start is not None:
        while start > 0 and text[start - 1] == "-" and column > 1:
            start, column = start - 1, column - 1
    return Span(
        file=first.file,
        line=line,
        column=column,
        end_line=last.end_line,
        end_column=last.end_column,
        start=start,
        end=end,
    )


def span_text(text: str, span: Span) -> str:
    """The text of ``text`` at ``span`` (by offsets, else by line and column), trailing blanks
    cut."""
    if span.start is not None and span.end is not None:
        return text[span.start : span.end].rstrip()
    lines = text.splitlines(keepends=True)
    if not 0 < span.line <= len(lines):
        return ""
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1 : span.end_column - 1].rstrip()
    parts = [lines[span.line - 1][span.column - 1 :]]
    parts += lines[span.line : span.end_line - 1]
    if span.end_line <= len(lines):
        parts.append(lines[span.end_line - 1][: span.end_column - 1])
    return "".join(parts).rstrip()


#: the envelope of a SPLAT document, not fields of the job
_ENVELOPE = frozenset({"apiVersion", "kind"})


def _leaves(source_map: SourceMap) -> list[str]:
    paths = [p for p in source_map.paths() if p not in _ENVELOPE]
    parents = set()
    for q in paths:  # every proper prefix of a path is a parent, not a leaf
        for i, ch in enumerate(q):
            if ch in ".[" and i:
                parents.add(q[:i])
    return [p for p in paths if p not in parents]


def rows(
    compiled: Compiled,
    target: str,
    diagnostics: Sequence[Diagnostic] = (),
    *,
    source: str | None = None,
    file: str | None = None,
    readback: Readback | None = None,
    job: int = 1,
) -> list[dict[str, Any]]:
    """One row per field the source set, in the order of the source, then one per W2xx/W3xx
    that no row covers.

    ``source`` is the input text (for the source text of each row), ``readback`` the target's
    output read back (for what the target got)."""
    from bammmc.ir.launchers import rewritten

    verdicts: dict[str | None, tuple[str, str, str]] = {}  # field -> (status, code, message)
    #: how an exact field was written (N003): the reason of its row
    noted: dict[str, list[str]] = {}
    out = []
    for d in diagnostics:
        lines = rewritten(d.message) if d.field == "spec.execution.script" else None
        if lines is not None:  # a launcher line of the body rewritten: the line after it
            before, after, why = lines
            status = "exact" if d.code == "N003" else "approximated"
            row = _row(
                target, job, d.field, status, d.code, why or None, d.span, source, file, after
            )
            out.append({**row, "source": row["source"] or before})
            continue
        if d.code == "N003" and d.field:
            noted.setdefault(d.field, []).append(d.message)
        if d.code[:2] not in ("W2", "W3"):
            continue
        status = "lost" if d.code.startswith("W2") else "approximated"
        old = verdicts.get(d.field)
        if old is None or _RANK[status] > _RANK[old[0]]:
            verdicts[d.field] = (status, d.code, d.message)
    smap = compiled.source_map
    covered: set[str | None] = set()
    for path in _leaves(smap):
        status, code, reason = "exact", None, None
        for field, (v_status, v_code, v_message) in verdicts.items():
            if field is not None and related(path, field):
                covered.add(field)
                if _RANK[v_status] > _RANK[status]:
                    status, code, reason = v_status, v_code, v_message
        if status == "exact" and path in noted:
            code, reason = "N003", "; ".join(noted[path])
        span = source_span(smap, path, source)
        got = None
        if readback is not None:
            out_span = source_span(readback.source_map, path, readback.text)
            got = span_text(readback.text, out_span) if out_span is not None else None
        out.append(
            _row(target, job, path, status, code, reason, span, source, file, got),
        )
    out.sort(key=lambda r: (r["line"] is None, r["line"] or 0, r["column"] or 0))  # stable
    for field, (status, code, reason) in verdicts.items():
        if field not in covered:
            out.append(_row(target, job, field, status, code, reason, None, None, file, None))
    return out


def _row(
    target: str,
    job: int,
    path: str | None,
    status: str,
    code: str | None,
    reason: str | None,
    span: Span | None,
    source: str | None,
    file: str | None,
    got: str | None,
) -> dict[str, Any]:
    return {
        "target": target,
        "job": job,
        "field": path,
        "status": status,
        "code": code,
        "source": span_text(source, span) if span is not None and source is not None else None,
        "file": (span.file if span is not None else None) or file,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "end_line": span.end_line if span else None,
        "end_column": span.end_column if span else None,
        "got": got,
        "reason": reason,
    }


def counts(table: Iterable[dict[str, Any]]) -> dict[str, int]:
    """``{"exact": N, "approximated": M, "lost": K}`` of explain rows."""
    out = dict.fromkeys(STATUSES, 0)
    for row in table:
        out[row["status"]] += 1
    return out


def summary(
    table: Sequence[dict[str, Any]],
    target: str,
    job: int = 1,
    totals: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The ``explain-summary`` object of one job's rows for one target, with the whole-job
    totals before and after (:func:`bammmc.totals.compare`; ``None`` when nothing was written)."""
    return {
        "kind": "explain-summary",
        "target": target,
        "job": job,
        **counts(table),
        "totals": totals,
    }


def job_totals(
    compiled: Compiled, readback: Readback | None, diagnostics: Sequence[Diagnostic]
) -> list[dict[str, Any]] | None:
    """The totals rows of a conversion: the source job's against its output read back."""
    if compiled.job is None or readback is None or readback.job is None:
        return None
    from bammmc import totals

    return totals.compare(
        totals.of(compiled.job), totals.of(readback.job), diagnostics, readback.target
    )


def summary_line(summary: dict[str, Any], jobs: int = 1) -> str:
    """``pbs: 5 exact, 1 approximated, 1 lost; totals: 6 kept, 1 approximated`` (``pbs (job
    2): …`` in a batch)."""
    head = summary["target"] + (f" (job {summary['job']})" if jobs > 1 else "")
    line = (
        f"{head}: {summary['exact']} exact, {summary['approximated']} approximated, "
        f"{summary['lost']} lost"
    )
    totals = summary.get("totals")
    if totals:
        tally: dict[str, int] = {}
        for row in totals:
            tally[row["status"]] = tally.get(row["status"], 0) + 1
        order = ("kept", "approximated", "lost", "changed")
        line += "; totals: " + ", ".join(f"{tally[s]} {s}" for s in order if s in tally)
    return line


# ── rendering ───────────────────────────────────────────────────────────────────────────────


def _cell(text: str | None) -> str:
    if text is None:
        return NONE
    flat = " ".join(text.split())
    return flat if len(flat) <= _CELL else flat[: _CELL - 1] + "…"


def _where(row: dict[str, Any]) -> str:
    if row["line"] is None:
        return NONE
    return f"{row['file'] or '<input>'}:{row['line']}:{row['column']}"


def _status(row: dict[str, Any]) -> str:
    return f"{row['status']}" + (f" {row['code']}" if row["code"] else "")


_HEAD = ("field", "source", "at", "target got", "status", "reason")


def _cells(row: dict[str, Any]) -> tuple[str, ...]:
    return (
        row["field"] or NONE,
        _cell(row["source"]),
        _where(row),
        _cell(row["got"]),
        _status(row),
        row["reason"] or "",
    )


def plain(
    table: Sequence[dict[str, Any]], line: str, totals: Sequence[dict[str, Any]] | None = None
) -> str:
    """Aligned columns, the totals and the summary line (no trailing blanks)."""
    out = _align(_HEAD, [_cells(r) for r in table])
    if totals:
        out += "\n" + _align(_TOTALS_HEAD, [_total_cells(r) for r in totals])
    return out + line + "\n"


_TOTALS_HEAD = ("total", "source", "target", "status")


def _total_cells(row: dict[str, Any]) -> tuple[str, ...]:
    from bammmc.totals import LABELS

    status = row["status"] + (f" {row['code']}" if row["code"] else "")
    return (LABELS[row["quantity"]], row["source"], row["target"], status)


def _align(
    head: Sequence[str], body: Sequence[Sequence[str]], right: frozenset[int] = frozenset()
) -> str:
    """Columns padded to their widest cell; the columns in ``right`` (numbers) right-aligned."""
    widths = [max(len(c) for c in col) for col in zip(head, *body, strict=True)]
    out = []
    for cells in (head, *body):
        padded = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        out.append("  ".join(padded).rstrip())
    return "\n".join(out) + "\n"


def json_lines(table: Sequence[dict[str, Any]], summary: dict[str, Any]) -> str:
    import orjson

    lines = [orjson.dumps({"kind": "explain", **row}).decode() for row in table]
    lines.append(orjson.dumps(summary).decode())
    return "".join(line + "\n" for line in lines)


def _console(stream: Any, color: bool) -> Any:
    """One rich console for a table: markup, emoji and highlighting off (job scripts are full of
    `[...]` and `$VARS`); colour as decided by the caller (also against NO_COLOR when forced)."""
    from rich.console import Console

    return Console(
        file=stream,
        markup=False,
        emoji=False,
        highlight=False,
        force_terminal=color,
        no_color=not color,
        soft_wrap=False,
    )


def print_rich(
    table: Sequence[dict[str, Any]],
    line: str,
    stream: Any,
    color: bool,
    totals: Sequence[dict[str, Any]] | None = None,
) -> None:
    """The rows as a rich table (status coloured), the totals, then the summary line."""
    from rich.table import Table
    from rich.text import Text

    grid = Table(*_HEAD, box=None, header_style="bold", pad_edge=False)
    for row in table:
        cells = list(_cells(row))
        status = Text(cells[4], style=_STYLE[row["status"]])
        grid.add_row(*cells[:4], status, cells[5])
    console = _console(stream, color)
    console.print(grid)
    if totals:
        sums = Table(*_TOTALS_HEAD, box=None, header_style="bold", pad_edge=False)
        for row in totals:
            cells = list(_total_cells(row))
            style = {"kept": "green", "changed": "bold red"}.get(row["status"])
            sums.add_row(*cells[:3], Text(cells[3], style=style or _STYLE[row["status"]]))
        console.print()
        console.print(sums)
    console.print(Text(line, style="bold"))


# ── --to all ────────────────────────────────────────────────────────────────────────────────


def target_row(
    target: str, table: Sequence[dict[str, Any]], errors: Sequence[Diagnostic]
) -> dict[str, Any]:
    """One ``--to all`` row: the counts of ``table`` and the ``errors`` that stop the conversion
    (the writer's refusals, and warnings promoted by ``--strict``/``--deny``).

    ``status`` is ``fails`` when there are errors, else ``lossless`` when every field is exact,
    else ``lossy``."""
    c = counts(table)
    status = "fails" if errors else "lossy" if c["approximated"] or c["lost"] else "lossless"
    codes = sorted({r["code"] for r in table if r["code"]} | {d.code for d in errors})
    return {
        "kind": "target",
        "target": target,
        **c,
        "errors": len(errors),
        "status": status,
        "codes": codes,
    }


_TARGET_HEAD = ("target", "exact", "approximated", "lost", "errors", "status", "codes")


def _target_cells(row: dict[str, Any]) -> tuple[str, ...]:
    return (
        row["target"],
        str(row["exact"]),
        str(row["approximated"]),
        str(row["lost"]),
        str(row["errors"]),
        row["status"],
        " ".join(row["codes"]),
    )


def targets_line(table: Sequence[dict[str, Any]]) -> str:
    """The line under the ``--to all`` table: which targets take the job without loss."""
    clean = [r["target"] for r in table if r["status"] == "lossless"]
    if clean:
        return f"{len(clean)} of {len(table)} targets take the job without loss: " + ", ".join(
            clean
        )
    usable = [r["target"] for r in table if r["status"] != "fails"]
    return f"no target takes the job without loss; {len(usable)} of {len(table)} convert it"


def targets_plain(table: Sequence[dict[str, Any]]) -> str:
    body = [_target_cells(r) for r in table]
    return _align(_TARGET_HEAD, body, frozenset({1, 2, 3, 4})) + targets_line(table) + "\n"


def targets_json(table: Sequence[dict[str, Any]]) -> str:
    import orjson

    return "".join(orjson.dumps(row).decode() + "\n" for row in table)


def targets_rich(table: Sequence[dict[str, Any]], stream: Any, color: bool) -> None:
    from rich.table import Table
    from rich.text import Text

    grid = Table(*_TARGET_HEAD, box=None, header_style="bold", pad_edge=False)
    for col in grid.columns[1:5]:
        col.justify = "right"
    for row in table:
        cells = list(_target_cells(row))
        style = {"lossless": "green", "lossy": "yellow", "fails": "bold red"}[row["status"]]
        grid.add_row(*cells[:5], Text(cells[5], style=style), cells[6])
    console = _console(stream, color)
    console.print(grid)
    console.print(Text(targets_line(table), style="bold"))
