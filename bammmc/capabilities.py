"""The capability model: what each target does with each field of the job model.

One table per target (``CAPABILITIES`` at the top of each ``backends/<format>.py``), keyed by
schema field paths (:func:`bammmc.ir.paths.field_paths`; a path also stands for every field
under it). Each entry says whether the target writes the field

* ``exact`` — as it is; ``unless`` names the values it cannot take as they are, which the
  writer reports one by one with the code given (an array step where there are no steps…);
* ``approximated`` — always changed in a way the note says (W3xx);
* ``lost`` — never written, with why (W2xx).

Other schedulers' ``extensions`` blocks are not listed: they are lost on every other target,
or approximated where a portable field carries their meaning (``backends.common.MIRRORS``).

The table is read by the writers (every ``lost`` entry is reported by
:func:`bammmc.backends.common.report_unsupported` when a job sets it), by ``--explain`` (the
reason of a row), by ``docs/matrix.md`` (:func:`matrix_markdown`, ``bammmc formats --matrix``)
and by the tests, which check each entry against what the writer really does
(``tests/test_capabilities.py``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Literal

Status = Literal["exact", "approximated", "lost"]

#: the symbols of docs/matrix.md
SYMBOLS: dict[str, str] = {"exact": "✓", "approximated": "≈", "lost": "✗"}


@dataclass(frozen=True)
class Capability:
    """What a target does with one field."""

    status: Status
    #: how it is approximated / why it is lost / what "exact" means here
    note: str = ""
    #: the code raised when the field is set (W3xx approximated, W2xx lost); None when exact
    code: str | None = None
    #: the values for which the status above does not hold: ``(which values, code)``, reported
    #: by the writer value by value
    unless: tuple[tuple[str, str], ...] = ()
    #: the writer reports this field itself (it knows the value); the fidelity pass does not
    by_writer: bool = False

    @property
    def symbol(self) -> str:
        return SYMBOLS[self.status] + ("*" if self.unless else "")


#: the field is written as it is, whatever its value
EXACT = Capability("exact")


def exact(note: str = "", *unless: tuple[str, str]) -> Capability:
    """Written as it is, except for the values in ``unless``: ``(which, code)``.

    >>> exact("", ("an array step", "W301")).symbol
    '✓*'
    """
    return Capability("exact", note, None, tuple(unless))


def approx(how: str, code: str = "W301", *, by_writer: bool = True) -> Capability:
    """Always written changed, as ``how`` says (the writer reports it: it knows the value)."""
    return Capability("approximated", how, code, by_writer=by_writer)


def lost(why: str, code: str = "W201", *, by_writer: bool = False) -> Capability:
    """Never written, for the reason ``why``. The fidelity pass reports it when a job sets it,
    unless ``by_writer`` (the writer reports it itself, in its own words)."""
    return Capability("lost", why, code, by_writer=by_writer)


@dataclass(frozen=True)
class Capabilities:
    """One target's table. ``own`` are the ``extensions`` blocks the target reads itself."""

    target: str
    own: tuple[str, ...]
    fields: dict[str, Capability] = field(default_factory=dict)

    def entry(self, path: str) -> tuple[str, Capability] | None:
        """The table entry that covers a schema path: its own, or its nearest ancestor's.

        >>> caps = Capabilities("x", (), {"spec.tasks": lost("no tasks")})
        >>> path, cap = caps.entry("spec.tasks[].name")
        >>> path, cap.status, cap.note
        ('spec.tasks', 'lost', 'no tasks')
        >>> caps.entry("spec.tasksX") is None
        True
        """
        probe = path
        while probe:
            if probe in self.fields:
                return probe, self.fields[probe]
            cut = max(probe.rfind("."), probe.rfind("["))
            probe = probe[:cut] if cut > 0 else ""
        return None

    def lookup(self, path: str) -> Capability:
        """What the target does with a schema path (another scheduler's extension included)."""
        foreign = _foreign_block(path, self.own)
        if foreign is not None:
            return _foreign(self.target, foreign, path)
        found = self.entry(path)
        if found is None:
            raise KeyError(f"{self.target}: no capability for `{path}`")
        return found[1]

    def lost_paths(self) -> tuple[str, ...]:
        """The entries that are always lost and that the fidelity pass reports when a job sets
        them (:func:`bammmc.backends.common.report_unsupported`)."""
        return tuple(p for p, c in self.fields.items() if c.status == "lost" and not c.by_writer)


def _foreign_block(path: str, own: tuple[str, ...]) -> str | None:
    if not path.startswith("spec.extensions."):
        return None
    block = path.split(".")[2].split("[")[0]
    return None if block in own else block


@functools.cache
def _foreign(target: str, block: str, path: str) -> Capability:
    from bammmc.backends.common import MIRRORS

    key = path.split(".")[3].split("[")[0] if path.count(".") >= 3 else ""
    # MIRRORS is keyed by attribute names; a path spells a renamed key on the wire
    carried = MIRRORS.get(block, {}).get(re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower())
    why = f"only {block} reads `extensions.{block}`"
    if (block, key) == ("sge", "cwd"):  # where the job starts (backends/common._report_start)
        return exact(
            "the target starts the job there itself, or changes to the submit directory",
            ("Grid Engine starts this job in the home directory (no `-cwd`)", "W301"),
        )
    if carried:
        where = ", ".join(f"`spec.{p}`" for p in carried)
        return Capability("lost", why, "W201", ((f"approximated by {where} when set", "W301"),))
    return lost(why)


def capabilities(target: str) -> Capabilities:
    """The table of a registered target."""
    from bammmc.registry import FORMATS

    table: Capabilities = FORMATS[target].writer().CAPABILITIES
    return table


def matrix_rows() -> list[str]:
    """The rows of the matrix: every portable field, then one row per extension block."""
    from bammmc.ir.paths import field_paths

    rows: list[str] = []
    for path in field_paths():
        if path in ("apiVersion", "kind"):
            continue
        if path.startswith("spec.extensions."):
            block = "spec.extensions." + path.split(".")[2]
            if block not in rows:
                rows.append(block)
            continue
        rows.append(path)
    return rows


def matrix_markdown() -> str:
    """``docs/matrix.md``: fields × targets, then each target's notes."""
    from bammmc.ir.paths import field_paths
    from bammmc.registry import FORMATS

    targets = list(FORMATS)
    tables = {t: capabilities(t) for t in targets}
    paths = field_paths()
    out = [
        "# Conversion matrix",
        "",
        "<!-- generated by `bammmc formats --matrix`; a test fails when this file is stale -->",
        "",
        "What each target does with each field of the SPLAT job model, from the capability "
        "tables the writers and `--explain` use (`bammmc/capabilities.py`). "
        "✓ written exactly · ✓* exactly, except some values (reported one by one) · "
        "≈ approximated (W3xx) · ✗ lost (W2xx) · ◐ some keys exact, others not. "
        "An `extensions.<scheduler>` block is read by "
        "its own scheduler(s) only: elsewhere its keys are lost (W201), or approximated (W301) "
        "where a portable field carries their meaning.",
        "",
        "| field | " + " | ".join(targets) + " |",
        "|---|" + "---|" * len(targets),
    ]
    for row in matrix_rows():
        cells = []
        for t in targets:
            if row.startswith("spec.extensions."):
                block = row.split(".")[2]
                if _foreign_block(row + ".x", tables[t].own) is not None:
                    cells.append("✗")
                    continue
                leaves = [p for p in paths if p.startswith(row + ".")]
                cells.append(_summary([tables[t].lookup(p) for p in leaves]))
                del block
            else:
                cells.append(tables[t].lookup(row).symbol)
        out.append(f"| `{row}` | " + " | ".join(cells) + " |")
    for t in targets:
        notes = [
            (p, c) for p, c in tables[t].fields.items() if c.status != "exact" or c.unless or c.note
        ]
        if not notes:
            continue
        out += ["", f"## {t}", "", "| field | status | how / why | code |", "|---|---|---|---|"]
        for p, c in notes:
            text = c.note.replace("|", "\\|")
            code = c.code or ""
            for which, unless_code in c.unless:
                which = which.replace("|", "\\|")
                text += ("; " if text else "") + f"{unless_code} when, e.g., {which}"
                code = ", ".join(x for x in (code, unless_code) if x)
            out.append(f"| `{p}` | {c.status} | {text} | {code} |")
    return "\n".join(out) + "\n"


def _summary(caps: list[Capability]) -> str:
    statuses = {c.status for c in caps}
    if statuses == {"exact"}:
        return "✓*" if any(c.unless for c in caps) else "✓"
    if statuses == {"lost"}:
        return "✗"
    return "◐"
