#!/usr/bin/env python3
"""The corpus report (issue #9): how bammmc reads a directory of real-world job files.

    python tools/corpus_report.py CORPUS [--baseline FILE] [--write-baseline FILE] [--list]

Every file under CORPUS is read as its format, the way `bammmc check --from FORMAT` reads it
(the reader and the passes, no conversion), and one line per format says: files, clean, with
warnings, with errors, crashes (an exception instead of diagnostics; must be 0), and the most
frequent diagnostic codes (counted once per file). ``--list`` adds one line per file that is not
clean.

The format of a file: the `format` column of ``CORPUS/MANIFEST.tsv`` when there is one (the
layout of ../shared/corpus: a `flux` file is a jobspec, or a batch script under a `batch/`
folder), else the first folder of its path that names a format (`torque/x.pbs` is Torque),
else its extension. Files of formats bammmc does not read (ClassAds, Kubernetes objects) are
counted on a line of their own and not read.

``--baseline FILE`` compares with a checked-in list of the files that read clean
(tools/corpus_baseline.txt): a file of the list that is no longer clean is a regression, printed
with its codes. A file that became clean is fine (it is printed, so the list can be updated with
``--write-baseline FILE``, which writes the clean files of this run).

Exit status: 0 — no crash and no regression; 1 — a crash or a regression; 2 — usage.
"""

from __future__ import annotations

import argparse
import csv
import sys
import traceback
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bammmc.diagnostics.model import Reporter  # noqa: E402
from bammmc.pipeline import compile_text  # noqa: E402
from bammmc.registry import FORMATS, by_extension  # noqa: E402
from bammmc.source import read_input  # noqa: E402

#: how many codes the report names per format
TOP = 6


@dataclass
class Result:
    """One file's outcome: ``clean``, ``warnings``, ``errors`` or ``crash``."""

    path: str
    fmt: str
    status: str
    codes: list[str] = field(default_factory=list)
    detail: str = ""


def _manifest(root: Path) -> dict[str, str]:
    manifest = root / "MANIFEST.tsv"
    if not manifest.is_file():
        return {}
    with manifest.open(newline="", encoding="utf-8") as f:
        return {row["file"]: row["format"] for row in csv.DictReader(f, delimiter="\t")}


def format_of(relative: str, listed: str | None) -> str | None:
    """The bammmc format of a corpus file (None: bammmc reads no such format)."""
    parts = relative.split("/")
    if listed == "flux":
        return "flux-batch" if "batch" in parts[:-1] else "flux"
    if listed is not None:
        return listed if listed in FORMATS else None
    for part in parts[:-1]:
        if part in FORMATS:
            return part
    found = by_extension(relative)
    return found.name if found is not None else None


def check_file(path: Path, relative: str, fmt: str) -> Result:
    """Read one file as ``fmt`` as `bammmc check` does; an exception is a crash."""
    reporter = Reporter(relative)
    try:
        source = read_input(str(path), reporter)
        compiled = compile_text(source.text, FORMATS[fmt], reporter) if source is not None else []
    except Exception as exc:  # a crash: what the report is for
        last = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{Path(last.filename).name}:{last.lineno}"
        return Result(relative, fmt, "crash", [], f"{type(exc).__name__}: {exc} ({where})")
    codes = sorted({d.code for d in reporter.diagnostics})
    if reporter.has_errors or not compiled or any(c.job is None for c in compiled):
        status = "errors"
    elif reporter.diagnostics:
        status = "warnings"
    else:
        status = "clean"
    return Result(relative, fmt, status, codes)


def run(root: Path) -> tuple[list[Result], Counter[str]]:
    """Every file under ``root``: the results of those bammmc reads, and the count of the
    others by their listed format."""
    listed = _manifest(root)
    results: list[Result] = []
    unread: Counter[str] = Counter()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root).as_posix()
        if relative in ("MANIFEST.tsv", "README.md") or path.name.startswith("."):
            continue
        fmt = format_of(relative, listed.get(relative))
        if fmt is None:
            unread[listed.get(relative) or path.suffix or "?"] += 1
            continue
        results.append(check_file(path, relative, fmt))
    return results, unread


def report(results: Sequence[Result], unread: Counter[str], list_files: bool) -> list[str]:
    lines = [
        f"{'format':<11} {'files':>5} {'clean':>5} {'warn':>5} {'errors':>6} {'crash':>5}  "
        "top codes (files)"
    ]
    for fmt in sorted({r.fmt for r in results}):
        rows = [r for r in results if r.fmt == fmt]
        count = Counter(r.status for r in rows)
        codes = Counter(c for r in rows for c in r.codes)
        top = ", ".join(f"{c} {n}" for c, n in codes.most_common(TOP))
        lines.append(
            f"{fmt:<11} {len(rows):>5} {count['clean']:>5} {count['warnings']:>5} "
            f"{count['errors']:>6} {count['crash']:>5}  {top}"
        )
    total = Counter(r.status for r in results)
    lines.append(
        f"{'all':<11} {len(results):>5} {total['clean']:>5} {total['warnings']:>5} "
        f"{total['errors']:>6} {total['crash']:>5}"
    )
    if unread:
        lines.append(
            "not read (no bammmc format): "
            + ", ".join(f"{name} {n}" for name, n in sorted(unread.items()))
        )
    for r in results:
        if r.status == "crash":
            lines.append(f"CRASH {r.path} ({r.fmt}): {r.detail}")
        elif list_files and r.status != "clean":
            lines.append(f"  {r.status:<8} {r.path}: {' '.join(r.codes)}")
    return lines


def compare(results: Sequence[Result], baseline: Path) -> tuple[list[str], list[str]]:
    """(regressions: baseline files no longer clean, files clean now that it does not list)."""
    clean_before = {
        line.strip()
        for line in baseline.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    now = {r.path: r for r in results}
    regressions = []
    for path in sorted(clean_before):
        r = now.get(path)
        if r is None:
            regressions.append(f"{path}: no longer in the corpus (update the baseline)")
        elif r.status != "clean":
            detail = r.detail or " ".join(r.codes)
            regressions.append(f"{path} ({r.fmt}): {r.status}: {detail}")
    new = sorted(r.path for r in results if r.status == "clean" and r.path not in clean_before)
    return regressions, new


def write_baseline(results: Sequence[Result], path: Path) -> None:
    clean = sorted(r.path for r in results if r.status == "clean")
    path.write_text(
        "# Files of ../shared/corpus that bammmc reads clean (no diagnostic); CI fails when one\n"
        "# stops being clean. Regenerate: python tools/corpus_report.py ../shared/corpus "
        "--write-baseline tools/corpus_baseline.txt\n" + "".join(p + "\n" for p in clean),
        encoding="utf-8",
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Read every job file of a corpus; per format: clean, warnings, errors, "
        "crashes, top codes."
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--baseline", type=Path, help="fail when a file it lists is not clean")
    parser.add_argument("--write-baseline", type=Path, help="write this run's clean files")
    parser.add_argument("--list", action="store_true", help="one line per file not clean")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus} is not a directory")
    if args.baseline is not None and not args.baseline.is_file():
        parser.error(f"no baseline at {args.baseline}")
    results, unread = run(args.corpus)
    for line in report(results, unread, args.list):
        print(line)
    status = 0
    crashes = sum(r.status == "crash" for r in results)
    if crashes:
        print(f"FAIL: {crashes} crash(es)")
        status = 1
    if args.baseline is not None:
        regressions, new = compare(results, args.baseline)
        for line in regressions:
            print(f"REGRESSION {line}")
        if regressions:
            print(f"FAIL: {len(regressions)} file(s) of {args.baseline} no longer clean")
            status = 1
        if new:
            print(f"{len(new)} file(s) clean that {args.baseline} does not list (fine):")
            for path in new:
                print(f"  {path}")
    if args.write_baseline is not None:
        write_baseline(results, args.write_baseline)
        print(f"wrote {args.write_baseline}")
    return status


if __name__ == "__main__":
    sys.exit(main())
