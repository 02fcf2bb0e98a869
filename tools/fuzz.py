#!/usr/bin/env python3
"""The long fuzzing run (issue #9): mutated seed files, per registered format, through the
reader and the writers, outside Hypothesis (a seeded ``random.Random`` draws the same mutations
as tests/property/test_robustness.py, without its per-example overhead).

    python tools/fuzz.py --examples 100000 --seed 1 [--formats slurm,pbs] [--crashers DIR]

For each input: read it as the format (through the CLI's decoder), write the job back to its
own format and to one other format chosen at random. An exception, an error without a code, or
an input taking longer than ``--time-bound`` seconds is a finding; each is saved under
``--crashers`` (default /tmp/bammmc-fuzz-crashers/<format>/) to be minimized into
``corpus/<format>/``. Prints one line per format: inputs, seconds, inputs/s, findings, slowest.
Exit status 1 when anything was found. docs/robustness.md records the figures.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import random
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bammmc.registry import FORMATS  # noqa: E402
from tests.property.test_robustness import check_one, mutate, seeds  # noqa: E402

T = TypeVar("T")


class RandomPick:
    """:class:`tests.property.test_robustness.Pick` over a seeded ``random.Random``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def permutation(self, items: list[T]) -> list[T]:
        out = list(items)
        self.rng.shuffle(out)
        return out


class Hang(Exception):
    """The per-input time bound passed (SIGALRM)."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang


def fuzz(fmt: str, n: int, seed: int, bound: float, out: Path) -> tuple[int, float, int, float]:
    files = seeds(fmt)
    datas = [p.read_bytes() for p in files]
    targets = sorted(FORMATS)
    rng = random.Random(f"{seed}:{fmt}")
    pick = RandomPick(rng)
    for data in datas[:1]:
        check_one(data, fmt)  # build the parsers before the clock starts
    found = 0
    slowest = 0.0
    start = time.perf_counter()
    for i in range(n):
        data = mutate(datas[rng.randrange(len(datas))], pick)
        target = targets[rng.randrange(len(targets))]
        t0 = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, bound * 5)  # a hang is stopped; a slow one counted
        try:
            check_one(data, fmt, target)
            problem = None
        except Hang:
            problem = f"no answer within {bound * 5} s"
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            problem = "".join(traceback.format_exception(exc))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        took = time.perf_counter() - t0
        slowest = max(slowest, took)
        if problem is None and took > bound:
            problem = f"{took:.2f} s for one input (bound {bound} s)"
        if problem is not None:
            found += 1
            digest = hashlib.sha1(data).hexdigest()[:12]
            (out / fmt).mkdir(parents=True, exist_ok=True)
            (out / fmt / f"{digest}.in").write_bytes(data)
            (out / fmt / f"{digest}.txt").write_text(f"input {i}, target {target}\n{problem}")
            print(f"  {fmt} #{i} -> {target}: {problem.strip().splitlines()[-1]}", flush=True)
    return n, time.perf_counter() - start, found, slowest


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=100_000, help="inputs per format")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--formats", default=",".join(sorted(FORMATS)))
    ap.add_argument("--time-bound", type=float, default=2.0, help="seconds per input")
    ap.add_argument("--crashers", type=Path, default=Path("/tmp/bammmc-fuzz-crashers"))
    args = ap.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    total = 0
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit or '?'}, "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f}; seed {args.seed}, bound {args.time_bound} s",
        flush=True,
    )
    print("format      inputs   seconds   inputs/s  findings  slowest_s", flush=True)
    for fmt in args.formats.split(","):
        n, secs, found, slowest = fuzz(
            fmt, args.examples, args.seed, args.time_bound, args.crashers
        )
        total += found
        print(
            f"{fmt:<10} {n:>7} {secs:>9.0f} {n / secs:>10.0f} {found:>9} {slowest:>10.2f}",
            flush=True,
        )
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
