#!/usr/bin/env python3
"""A survey for the honesty test (issue #8): more generated jobs than CI writes, each through
every target, listing the (target, field) pairs that vanished or changed without a W2xx/W3xx.

    python tools/honesty_survey.py --examples 500 --seed 28 [--targets pbs,lsf] [--out DIR]

The jobs are those of tests/test_honesty.py `test_generated_jobs` (the same strategy, the
same `convert` and the same rules), drawn from ``--seed`` instead of the test's fixed one, so
each seed is a fresh sample. Prints one line per pair found, with a count and an example of
the change, then every writer crash, unreadable output and loss without a field; writes each
pair's first job as SPLAT YAML to ``--out`` (default /tmp/bammmc-survey/) to turn into a table
row of the format's tests. Exit status 1 when anything was found.
"""

from __future__ import annotations

import argparse
import collections
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hypothesis  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402

import bammmc  # noqa: E402
from bammmc.ir.job import Job  # noqa: E402
from bammmc.ir.paths import schema_path  # noqa: E402
from bammmc.registry import FORMATS  # noqa: E402
from tests.strategies import jobs  # noqa: E402
from tests.test_honesty import convert, unnamed  # noqa: E402

Pair = tuple[str, str]


def survey(
    examples: int, seed: int, targets: list[str]
) -> tuple[dict[Pair, int], dict[Pair, tuple[str, str]], dict[str, int]]:
    """The silent pairs with their counts, an example (change, SPLAT YAML) of each, and the
    other findings with their counts."""
    found: collections.Counter[Pair] = collections.Counter()
    example: dict[Pair, tuple[str, str]] = {}
    bad: collections.Counter[str] = collections.Counter()

    @hypothesis.seed(seed)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=(hypothesis.Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(job=jobs())
    def run(job: Job) -> None:
        for target in targets:
            try:
                out = convert(job, target)
            except Exception as exc:  # a writer crash is a finding, not the end of the survey
                last = traceback.extract_tb(exc.__traceback__)[-1]
                bad[f"{target}: crash {type(exc).__name__} at {last.filename}:{last.lineno}"] += 1
                continue
            for silent in out.silent:
                key = (target, schema_path(silent.path))
                found[key] += 1
                example.setdefault(key, (str(silent), bammmc.emit(job, "splat")[0]))
            for text in unnamed(out):
                bad[text[:200]] += 1
            for diag in out.unreadable:
                bad[f"{target}: unreadable {diag.code} {diag.message}"[:200]] += 1

    run()
    return dict(found), example, dict(bad)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=500, help="generated jobs")
    ap.add_argument("--seed", type=int, required=True, help="Hypothesis seed of the sample")
    ap.add_argument("--targets", default="", help="comma-separated (default: every format)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/bammmc-survey"))
    args = ap.parse_args()
    targets = args.targets.split(",") if args.targets else list(FORMATS)
    found, example, bad = survey(args.examples, args.seed, targets)
    args.out.mkdir(parents=True, exist_ok=True)
    for n, ((target, path), count) in enumerate(sorted(found.items(), key=lambda i: -i[1])):
        change, job = example[target, path]
        print(f"{count:5d}  {target}  {path}\n       {change}")
        (args.out / f"seed{args.seed}-{n}-{target}.yaml").write_text(f"# {change}\n{job}")
    for text, count in sorted(bad.items(), key=lambda i: -i[1]):
        print(f"{count:5d}  {text}")
    print(
        f"seed {args.seed}: {args.examples} jobs x {len(targets)} targets, "
        f"{len(found)} silent (target, field) pairs, {len(bad)} other findings"
    )
    return 1 if found or bad else 0


if __name__ == "__main__":
    sys.exit(main())
