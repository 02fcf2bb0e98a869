#!/usr/bin/env python3
"""How many diagnostics a user reads per conversion (issue 19 item 8).

    python tools/warning_survey.py CORPUS [--from FMT,...] [--to FMT,...] [--top N] [--json]

Every corpus file that its own reader reads without an error (the way tools/corpus_report.py
finds files and formats) is converted to every script and submit target bammmc writes, and the
diagnostics of each conversion are counted as `bammmc FILE --to FMT` prints them by default
(alike warnings about one line merged, as the printer does):
warnings (the reader's and the writer's) and notes, as many as are printed. The report gives
per target the conversions, the mean and median warnings, the share with at most 3, the
messages printed twice, and the most frequent warnings over all targets (code, field and the
message's first words), which is where the noise is.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from corpus_report import _manifest, format_of  # noqa: E402

import bammmc  # noqa: E402
from bammmc.diagnostics.model import merge_alike  # noqa: E402

#: the targets a conversion is counted for (the script and submit formats)
TARGETS = ("slurm", "pbs", "torque", "lsf", "sge", "htcondor", "flux-batch", "flux")
#: formats read as sources (the job description formats of the corpus)
SOURCES = ("slurm", "pbs", "torque", "lsf", "sge", "htcondor", "flux-batch", "flux")


def shape(message: str) -> str:
    """A message with its values blanked (`…`), so that one rule's warnings count together."""
    text = re.sub(r"`[^`]*`", "`…`", message)
    text = re.sub(r"\b\d[\d.,]*\b", "N", text)
    return text[:110]


def survey(
    root: Path, targets: Sequence[str], sources: Sequence[str] = SOURCES
) -> dict[str, list[list[tuple[str, str, str, int]]]]:
    """target → one list per conversion of its printed diagnostics (code, field, message, the
    line it points at or 0)."""
    listed = _manifest(root)
    out: dict[str, list[list[tuple[str, str, str, int]]]] = {t: [] for t in targets}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root).as_posix()
        if relative in ("MANIFEST.tsv", "README.md") or "/invalid/" in f"/{relative}":
            continue
        fmt = format_of(relative, listed.get(relative))
        if fmt not in sources:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        _, own = bammmc.convert(text, fmt, "splat", filename=relative)
        if any(d.is_error for d in own):
            continue
        for target in targets:
            if target == fmt:
                continue
            written, diags = bammmc.convert(text, fmt, target, filename=relative)
            if written is None:
                continue
            out[target].append(
                [
                    (d.code, d.field or "", d.message, d.span.line if d.span else 0)
                    for d in merge_alike([d for d in diags if d.severity != "error"])
                ]
            )
    return out


def report(found: dict[str, list[list[tuple[str, str, str, int]]]], top: int) -> list[str]:
    head = ("target", "conversions", "warnings, mean", "median", "≤ 3 warnings", "notes, mean")
    lines = ["| " + " | ".join((*head, "repeated")) + " |", "|---" * (len(head) + 1) + "|"]
    every: list[int] = []
    shapes: Counter[str] = Counter()
    for target, runs in found.items():
        if not runs:
            continue
        warnings = [sum(c.startswith("W") for c, *_ in run) for run in runs]
        notes = [sum(c.startswith("N") for c, *_ in run) for run in runs]
        every += warnings
        few = sum(w <= 3 for w in warnings)
        # the same warning twice on the same line (one about two lines is two warnings)
        repeated = sum(len(run) - len(set(run)) for run in runs)
        lines.append(
            f"| {target} | {len(runs)} | {statistics.mean(warnings):.1f} | "
            f"{statistics.median(warnings):g} | {100 * few // len(runs)}% | "
            f"{statistics.mean(notes):.1f} | {repeated} |"
        )
        for run in runs:
            shapes.update(f"{c} {f}: {shape(m)}" for c, f, m, _ in run if c.startswith("W"))
    if every:
        few = sum(w <= 3 for w in every)
        lines.append(
            f"| all | {len(every)} | {statistics.mean(every):.1f} | "
            f"{statistics.median(every):g} | {100 * few // len(every)}% | | |"
        )
    lines += ["", f"The {top} most frequent warnings (conversions that print them):", ""]
    lines += [f"- {n} × {s}" for s, n in shapes.most_common(top)]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--from", dest="sources", default=",".join(SOURCES))
    parser.add_argument("--to", default=",".join(TARGETS))
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--json", action="store_true", help="the raw counts, one object")
    args = parser.parse_args(argv)
    found = survey(
        args.corpus, [t for t in args.to.split(",") if t], [s for s in args.sources.split(",") if s]
    )
    if args.json:
        print(json.dumps({t: [len(r) for r in runs] for t, runs in found.items()}))
    else:
        print("\n".join(report(found, args.top)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
