"""Survey of the separator-injection verdict (tests/judges.py) on many values per writer.

    PYTHONPATH=. python tools/injection_survey.py --target slurm --values 100000 [--seed N]

Each value is a random string of 1–8 characters of every sub-language's separators and a few
letters, put into a random string leaf of the IR (tests/property/injection_fields.py); the
verdict is the property's (tests/property/test_separators.py): refused (E140), or the target's
real parser reads the plain job's table with the value in its place and our reader reads the
value back as the one same value. Prints the counts and one example per (leaf, kind of
failure); the (target, leaf) pairs of `OPEN` are counted apart. Figures: docs/robustness.md.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))

from tests.conftest import _start_sge, _start_slurm
from tests.judges import LETTERS, SEPARATORS, asked, judged, judges, verdict
from tests.property.injection_fields import display, string_leaves
from tests.property.test_separators import OPEN

#: values drawn, written and read per round (a judge with `prefetch` reads a round at once)
BATCH = 200


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", required=True)
    ap.add_argument("--values", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    slurm = _start_slurm()
    parsers = judges(
        None if isinstance(slurm, str) else {**os.environ, **slurm},
        sge if args.target == "sge" and not isinstance(sge := _start_sge(), str) else None,
    )
    table = parsers.get(args.target)
    if table is None:
        print(f"no real parser of {args.target} runs here: our reader alone judges")
    rng = random.Random(args.seed)
    leaves = [leaf for leaf in string_leaves() if judged(args.target, display(leaf))]
    alphabet = SEPARATORS + LETTERS
    failures: dict[str, list[tuple[str, str]]] = {}
    known = 0
    start = time.monotonic()
    for first in range(0, args.values, BATCH):
        batch = [
            (leaf, "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))))
            for leaf in (rng.choice(leaves) for _ in range(min(BATCH, args.values - first)))
        ]
        if hasattr(table, "prefetch"):  # a judge that reads many texts at once
            table.prefetch([t for leaf, value in batch for t in asked(leaf, value, args.target)])
        for leaf, value in batch:
            try:
                wrong = verdict(leaf, value, args.target, table)
            except Exception as exc:  # a crash is a finding too
                wrong = f"crash: {type(exc).__name__}: {exc}"
            if wrong is None:
                continue
            if (args.target, display(leaf)) in OPEN:
                known += 1
                continue
            failures.setdefault(display(leaf), []).append((value, wrong))
    took = time.monotonic() - start
    found = sum(map(len, failures.values()))
    print(
        f"{args.target}: {args.values} values in {took:.0f} s, seed {args.seed}: {found} "
        f"failures in {len(failures)} leaves, {known} in the open findings"
    )
    for name, rows in sorted(failures.items()):
        value, wrong = rows[0]
        print(f"== {name}: {len(rows)}, e.g. {value!r}\n   " + wrong[:500].replace("\n", "\n   "))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
