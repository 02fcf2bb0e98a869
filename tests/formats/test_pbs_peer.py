"""Peer comparison: bammmc's PBS → Slurm conversion next to Slurm's own two PBS translators.

Slurm reads `#PBS` lines itself (sbatch's built-in translation, `src/sbatch/xlate.c`) and ships
SchedMD's `qsub` wrapper (`contribs/torque/qsub.pl`), which turns qsub's *command-line* options
into an sbatch command line (../shared/oracles/slurm/qsub-peer.md). For every script of the table
below, three readings go through real `sbatch -v --test-only` (`sbatch-inspect`, nothing is
queued) and are compared on one field of sbatch's parsed option table:

- **bammmc**: `bammmc.convert(script, "pbs"|"torque", "slurm")`, then sbatch on that output;
- **slurm**: sbatch on the original PBS script itself (xlate). sbatch needs a `#!` first line,
  which the scripts have (one test shows what happens without);
- **qsub**: the script's directives given to the wrapper as command-line options (`qsub-peer`),
  on the script without its `#PBS` lines. The wrapper keeps only the *last* `-l` option
  (`'l=s'`), so all resource lists are joined into one `-l a,b,c`.

Each row records the value each side produced, which one is right and why. The tests assert
that bammmc still produces its value (and that it is the right one, or an `xfail` naming the
known deviation) and that Slurm's translators still produce theirs, so a change on either side
is noticed. `processors` is not an option but the allocation size from sbatch's verdict
("using N processors"). The rows assume the default 8-node oracle cluster (16 CPUs, 64000 MB
per node, partition `debug` with MaxTime 1:00:00 and EnforcePartLimits=ALL).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest

import bammmc
from tests.conftest import ORACLES, _start_slurm

SH = "#!/bin/bash\n"
BODY = "cd $PBS_O_WORKDIR\n./app\n"

#: the value of every field when sbatch refused the options before printing its option table
REJECTED = "<rejected>"
#: the qsub wrapper was not run for this row
NOT_RUN = "<not run>"
#: `Row.correct` left out: the right side's value
DERIVED = "<derived>"

Right = Literal["bammmc", "slurm", "both", "neither"]


@dataclass(frozen=True)
class Row:
    name: str
    fmt: Literal["pbs", "torque"]
    directives: str
    #: a key of sbatch's "defined options" table, or `processors` (the allocation's CPU count)
    field: str
    #: what sbatch makes of bammmc's output (None: the option is not set)
    bammmc: str | None
    #: what sbatch's own `#PBS` translation makes of the original script
    slurm: str | None
    right: Right
    why: str
    #: what the qsub wrapper + sbatch make of the same directives as qsub options
    qsub: str | None = NOT_RUN
    #: the value a faithful translation gives, when neither side has it
    correct: str | None = DERIVED
    #: part of sbatch's error message when it rejects the translated job
    slurm_error: str | None = None
    qsub_error: str | None = None
    #: why bammmc's value is not the correct one (a known bug or a design limit)
    deviation: str | None = None

    @property
    def script(self) -> str:
        return SH + self.directives + BODY

    @property
    def truth(self) -> str | None:
        if self.correct != DERIVED:
            return self.correct
        return self.slurm if self.right == "slurm" else self.bammmc

    @property
    def id(self) -> str:
        return f"{self.name}-{self.field}"


# ── the scripts ──────────────────────────────────────────────────────────────────────────────
MEM_BYTES_SELECT = "#PBS -l select=1:ncpus=1:mem=1000\n#PBS -l walltime=00:30:00\n"
MEM_BYTES_TORQUE = "#PBS -l nodes=1:ppn=1\n#PBS -l mem=1000\n#PBS -l walltime=00:30:00\n"
MEM_4GB_TORQUE = "#PBS -l nodes=1:ppn=2\n#PBS -l mem=4gb\n#PBS -l walltime=00:30:00\n"
CPUT_ONLY = "#PBS -l select=1:ncpus=1\n#PBS -l cput=00:45:00\n"
WALLTIME_AND_CPUT = "#PBS -l select=1:ncpus=1\n#PBS -l walltime=00:20:00\n#PBS -l cput=00:45:00\n"
PRIORITY_UP = "#PBS -l select=1:ncpus=1\n#PBS -l walltime=00:30:00\n#PBS -p 500\n"
PRIORITY_DOWN = "#PBS -l select=1:ncpus=1\n#PBS -l walltime=00:30:00\n#PBS -p -500\n"
MIXED_NODES = "#PBS -l nodes=1:ppn=4+2:ppn=8\n#PBS -l walltime=00:30:00\n"
MIXED_SELECT = "#PBS -l select=1:ncpus=16+4:ncpus=4\n#PBS -l walltime=00:30:00\n"
MPI_SELECT = "#PBS -l select=2:ncpus=8:mpiprocs=4:mem=16gb\n#PBS -l walltime=00:30:00\n"
ARRAY_STEP = "#PBS -l select=1:ncpus=1\n#PBS -l walltime=00:30:00\n#PBS -J 1-10:2\n"
JOIN_OE = "#PBS -l select=1:ncpus=1\n#PBS -l walltime=00:30:00\n#PBS -j oe\n"
MAIL_ABE = (
    "#PBS -l select=1:ncpus=1\n#PBS -l walltime=00:30:00\n#PBS -m abe\n#PBS -M a@example.org\n"
)
WALLTIME_SECONDS = "#PBS -l select=1:ncpus=1\n#PBS -l walltime=3600\n"
ONE_RESOURCE_LIST = "#PBS -l select=1:ncpus=1,walltime=00:30:00\n"
TORQUE_ARRAY = "#PBS -l nodes=1:ppn=1\n#PBS -l walltime=00:30:00\n#PBS -t 1-10%2\n"


TABLE: list[Row] = [
    # sizes without a unit are bytes (pitfall 8)
    Row(
        "select_mem_bytes",
        "pbs",
        MEM_BYTES_SELECT,
        "mem",
        bammmc="1",
        slurm="1000",
        qsub=REJECTED,
        qsub_error="Invalid --mem specification",
        right="bammmc",
        why="PBS mem=1000 is 1000 bytes: 1 MiB rounded up (with W301); xlate drops only a `b` "
        "and passes 1000 on as MB; the wrapper writes --mem=0.00095367431640625M, refused",
    ),
    Row(
        "torque_mem_bytes",
        "torque",
        MEM_BYTES_TORQUE,
        "mem",
        bammmc="1",
        slurm="1000",
        qsub=REJECTED,
        qsub_error="Invalid --mem specification",
        right="bammmc",
        why="Torque mem is the job's total, 1000 bytes, on one node: --mem=1M (rounded up to "
        "whole MiB, W301); xlate reads the number as MB",
    ),
    Row(
        "torque_mem_4gb",
        "torque",
        MEM_4GB_TORQUE,
        "mem",
        bammmc="4G",
        slurm="4G",
        qsub="4G",
        right="both",
        why="one node: the job's total memory is the node's, --mem=4G",
    ),
    # cput is CPU time, not walltime (pitfall 16)
    Row(
        "cput_only",
        "pbs",
        CPUT_ONLY,
        "time",
        bammmc=None,
        slurm="00:45:00",
        qsub="00:45:00",
        right="bammmc",
        why="cput limits CPU time; Slurm has no per-job CPU-time limit, so no --time (W201 for "
        "extensions.pbs.cput); both Slurm translators make it the wall-clock limit",
    ),
    Row(
        "walltime_and_cput",
        "pbs",
        WALLTIME_AND_CPUT,
        "time",
        bammmc="00:20:00",
        slurm="00:45:00",
        qsub="00:20:00",
        right="bammmc",
        why="walltime is 20 min; xlate maps walltime, cput and pcput all to -t in order, so the "
        "later cput wins; the wrapper prefers walltime to cput",
    ),
    # -p: higher is more urgent in PBS, --nice: higher is less urgent (pitfall 36)
    Row(
        "priority_up",
        "pbs",
        PRIORITY_UP,
        "nice",
        bammmc=None,
        slurm="500",
        qsub="500",
        right="bammmc",
        why="-p 500 is more urgent than PBS's default 0; both Slurm translators copy it to "
        "--nice=500, which makes the job less urgent",
    ),
    Row(
        "priority_up",
        "pbs",
        PRIORITY_UP,
        "priority",
        bammmc="745",
        slurm=None,
        qsub=None,
        right="bammmc",
        why="bammmc maps PBS -1024…1023 linearly onto --priority 0…1000 through the band "
        "(PBS 0 ↔ 500): 500 → 745, above the default, direction kept",
    ),
    Row(
        "priority_down",
        "pbs",
        PRIORITY_DOWN,
        "nice",
        bammmc=None,
        slurm="-500",
        qsub="-500",
        right="bammmc",
        why="-p -500 is less urgent; --nice=-500 makes the job more urgent (and only "
        "operators may give a negative nice: `Invalid --nice value` for other users)",
    ),
    Row(
        "priority_down",
        "pbs",
        PRIORITY_DOWN,
        "priority",
        bammmc="256",
        slurm=None,
        qsub=None,
        right="bammmc",
        why="-500 → band 256, below the default 500: direction kept",
    ),
    # heterogeneous chunks: never summed (pitfall 18)
    Row(
        "torque_mixed_nodes",
        "torque",
        MIXED_NODES,
        "processors",
        bammmc="20",
        slurm="36",
        qsub="36",
        right="bammmc",
        why="1×4 + 2×8 = 20 processors; xlate and the wrapper multiply the summed ppn (12) by "
        "the summed node count (3): 36; bammmc writes a heterogeneous job, one component per "
        "chunk shape",
    ),
    Row(
        "torque_mixed_nodes",
        "torque",
        MIXED_NODES,
        "nodes",
        bammmc="3",
        slurm="3",
        qsub="3",
        right="both",
        why="1 + 2 = 3 nodes (bammmc's: over the two components of its heterogeneous job)",
    ),
    Row(
        "select_mixed_chunks",
        "pbs",
        MIXED_SELECT,
        "processors",
        bammmc="32",
        slurm=REJECTED,
        slurm_error='Invalid numeric value "16+4" for --mincpus',
        qsub="4",
        right="bammmc",
        why="1×16 + 4×4 = 32 CPUs; xlate hands `16+4` to --mincpus and sbatch refuses the "
        "script; the wrapper takes the first count and the last ncpus (1 node, --mincpus=4); "
        "bammmc writes a heterogeneous job of a 16-CPU and four 4-CPU nodes",
    ),
    # a single-shape select: all agree (xlate adds a redundant --mincpus=8)
    Row(
        "select_mpiprocs",
        "pbs",
        MPI_SELECT,
        "nodes",
        bammmc="2",
        slurm="2",
        qsub="2",
        right="both",
        why="2 chunks",
    ),
    Row(
        "select_mpiprocs",
        "pbs",
        MPI_SELECT,
        "ntasks-per-node",
        bammmc="4",
        slurm="4",
        qsub="4",
        right="both",
        why="mpiprocs=4 ranks per chunk",
    ),
    Row(
        "select_mpiprocs",
        "pbs",
        MPI_SELECT,
        "cpus-per-task",
        bammmc="2",
        slurm="2",
        qsub="2",
        right="both",
        why="ncpus 8 / mpiprocs 4",
    ),
    Row(
        "select_mpiprocs",
        "pbs",
        MPI_SELECT,
        "mem",
        bammmc="16G",
        slurm="16G",
        qsub="16G",
        right="both",
        why="16gb per chunk, one chunk per node",
    ),
    Row(
        "select_mpiprocs",
        "pbs",
        MPI_SELECT,
        "processors",
        bammmc="16",
        slurm="16",
        qsub="16",
        right="both",
        why="2 × 8 CPUs",
    ),
    Row(
        "array_step",
        "pbs",
        ARRAY_STEP,
        "array",
        bammmc="1-10:2",
        slurm="1-10:2",
        qsub="1-10:2",
        right="both",
        why="PBS Pro -J X-Y:Z is Slurm's --array syntax too",
    ),
    Row(
        "join_oe",
        "pbs",
        JOIN_OE,
        "error",
        bammmc=None,
        slurm=None,
        qsub=None,
        right="both",
        why="-j oe merges stderr into stdout, Slurm's default: xlate ignores -j, bammmc writes "
        "no --error, the wrapper leaves out its PBS-style -e NAME.e%A",
    ),
    Row(
        "mail_abe",
        "pbs",
        MAIL_ABE,
        "mail-type",
        bammmc="BEGIN,END,FAIL",
        slurm="BEGIN,END,FAIL",
        qsub="BEGIN,END,FAIL",
        right="both",
        why="a = FAIL, b = BEGIN, e = END",
    ),
    Row(
        "walltime_seconds",
        "pbs",
        WALLTIME_SECONDS,
        "time",
        bammmc="01:00:00",
        slurm="2-12:00:00",
        slurm_error="Requested time limit is invalid",
        qsub="01:00:00",
        right="bammmc",
        why="a bare PBS walltime is seconds (1 h); xlate passes 3600 to -t, where a bare number "
        "is minutes: 60 h, over the partition's 1 h, refused; the wrapper converts seconds",
    ),
    Row(
        "one_resource_list",
        "pbs",
        ONE_RESOURCE_LIST,
        "time",
        bammmc="00:30:00",
        slurm=REJECTED,
        slurm_error='Invalid numeric value "1,walltime=00" for --mincpus',
        qsub="00:30:00",
        right="bammmc",
        why="`-l select=…,walltime=…` is one ordinary resource list; xlate does not split it "
        "at the comma (only at `:`) and hands `1,walltime=00` to --mincpus: refused",
    ),
    Row(
        "torque_array_throttle",
        "torque",
        TORQUE_ARRAY,
        "array",
        bammmc="1-10%2",
        slurm="1-10%2",
        qsub="1-10%2",
        right="both",
        why="Torque -t with a %N slot limit is Slurm's --array syntax too",
    ),
]


# ── the oracle ───────────────────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class Seen:
    """What sbatch made of one job: its verdict and its option table per hetjob component."""

    accepted: bool
    message: str
    components: list[dict[str, str]] = field(default_factory=list)

    def value(self, name: str) -> str | None:
        if not self.components:
            return REJECTED
        if name == "processors":
            found = re.search(r"using (\d+) processors", self.message)
            return found.group(1) if found else None
        if name == "nodes" and len(self.components) > 1:  # a heterogeneous job: all of them
            counts = [c.get("nodes") for c in self.components]
            if all(n is not None and n.isdigit() for n in counts):
                return str(sum(int(n or 0) for n in counts))
        return self.components[0].get(name)


def qsub_command(script: str) -> tuple[list[str], str]:
    """The script's `#PBS` directives as qsub options, and the script without them."""
    options: list[str] = []
    resources: list[str] = []
    body = []
    for line in script.splitlines(keepends=True):
        if not line.startswith("#PBS"):
            body.append(line)
            continue
        words = shlex.split(line[len("#PBS") :])
        if words[0] == "-l":
            resources.append(words[1])
        else:
            options += words
    if resources:  # the wrapper keeps only the last -l option
        options += ["-l", ",".join(resources)]
    return options, "".join(body)


class Oracle:
    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self.env = env
        self.folder = folder
        self.seen: dict[tuple[str, str], Seen] = {}

    def _run(self, kind: str, command: list[str]) -> Seen:
        proc = subprocess.run(
            command, capture_output=True, text=True, env=self.env, timeout=120, check=False
        )
        if proc.returncode == 3:
            pytest.skip("the Slurm oracle is not reachable: " + proc.stderr.strip()[-300:])
        if kind == "qsub" and proc.returncode == 4:  # the wrapper refused its options
            return Seen(False, proc.stderr.strip())
        if proc.returncode not in (0, 1):
            raise AssertionError(f"{command}: exit {proc.returncode}: {proc.stderr}")
        data = json.loads(proc.stdout)
        return Seen(data["accepted"], data["message"], data.get("components", []))

    def _file(self, text: str) -> Path:
        path = self.folder / f"job{len(self.seen)}.sh"
        path.write_text(text)
        return path

    def inspect(self, text: str) -> Seen:
        """sbatch's reading of a script (its `#SBATCH` and `#PBS` lines)."""
        key = ("sbatch", text)
        if key not in self.seen:
            path = self._file(text)
            tool = str(ORACLES / "slurm" / "sbatch-inspect")
            self.seen[key] = self._run("sbatch", [sys.executable, tool, str(path)])
        return self.seen[key]

    def qsub(self, script: str) -> Seen:
        """The qsub wrapper's reading of the script's directives given as its options."""
        key = ("qsub", script)
        if key not in self.seen:
            options, body = qsub_command(script)
            path = self._file(body)
            tool = str(ORACLES / "slurm" / "qsub-peer")
            self.seen[key] = self._run("qsub", ["bash", tool, *options, str(path)])
        return self.seen[key]


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Oracle:
    env = _start_slurm()
    if isinstance(env, str):
        pytest.skip(env)
    return Oracle({**os.environ, **env}, tmp_path_factory.mktemp("pbs-peer"))


def to_slurm(row: Row) -> str:
    out, diags = bammmc.convert(row.script, row.fmt, "slurm")
    assert out is not None, [d.code for d in diags]
    return out


# ── the tests ────────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("row", TABLE, ids=lambda r: r.id)
def test_table_is_consistent(row: Row) -> None:
    truth = row.truth
    if row.right == "both":
        assert row.bammmc == row.slurm == truth
    elif row.right == "bammmc":
        assert row.bammmc == truth != row.slurm
    elif row.right == "slurm":
        assert row.slurm == truth != row.bammmc
    else:
        assert row.correct != DERIVED and truth not in (row.bammmc, row.slurm)
    assert (row.deviation is not None) == (row.bammmc != truth)
    assert (row.slurm_error is not None) or row.slurm != REJECTED
    assert (row.qsub_error is not None) or row.qsub != REJECTED
    assert row.script.startswith("#!") and row.why


@pytest.mark.oracle
@pytest.mark.parametrize("row", TABLE, ids=lambda r: r.id)
def test_bammmc(row: Row, oracle: Oracle) -> None:
    """sbatch accepts bammmc's output and reads the recorded value from it."""
    out = to_slurm(row)
    # sbatch would translate (and prefer) any #PBS/#BSUB line left in the output
    assert not re.search(r"^#(PBS|BSUB)", out, re.M), out
    seen = oracle.inspect(out)
    assert seen.accepted, seen.message
    assert seen.value(row.field) == row.bammmc, (out, seen.components)


@pytest.mark.oracle
@pytest.mark.parametrize(
    "row",
    [
        pytest.param(
            r,
            id=r.id,
            marks=[pytest.mark.xfail(reason=r.deviation, strict=True)] if r.deviation else [],
        )
        for r in TABLE
    ],
)
def test_bammmc_is_right(row: Row, oracle: Oracle) -> None:
    """bammmc's value is the correct one (the rows with a known deviation are xfail)."""
    seen = oracle.inspect(to_slurm(row))
    assert seen.value(row.field) == row.truth, seen.components


@pytest.mark.oracle
@pytest.mark.parametrize("row", TABLE, ids=lambda r: r.id)
def test_slurm_translation(row: Row, oracle: Oracle) -> None:
    """sbatch's own `#PBS` translation still gives the recorded value (right or wrong)."""
    seen = oracle.inspect(row.script)
    assert seen.value(row.field) == row.slurm, (seen.components, seen.message)
    if row.slurm_error is None:
        assert seen.accepted, seen.message
    else:
        assert not seen.accepted and row.slurm_error in seen.message, seen.message


@pytest.mark.oracle
@pytest.mark.parametrize("row", [r for r in TABLE if r.qsub != NOT_RUN], ids=lambda r: r.id)
def test_qsub_wrapper(row: Row, oracle: Oracle) -> None:
    """SchedMD's qsub wrapper, given the directives as options, still gives the recorded value."""
    seen = oracle.qsub(row.script)
    assert seen.value(row.field) == row.qsub, (seen.components, seen.message)
    if row.qsub_error is None:
        assert seen.accepted, seen.message
    else:
        assert not seen.accepted and row.qsub_error in seen.message, seen.message


@pytest.mark.parametrize(
    ("fmt", "directives", "second"),
    [("torque", MIXED_NODES, "2:ppn=8"), ("pbs", MIXED_SELECT, "4:ncpus=4")],
    ids=["torque", "pbs"],
)
def test_mixed_chunks_say_what_is_dropped(fmt: str, directives: str, second: str) -> None:
    """The first-chunk lowering comes with a W301 naming the chunk Slurm does not get."""
    out, diags = bammmc.convert(SH + directives + BODY, fmt, "slurm")
    assert out is not None
    assert any(
        d.code == "W301" and d.field == "spec.extensions.pbs.mixed_chunks" and second in d.message
        for d in diags
    ), [(d.code, d.message) for d in diags]


@pytest.mark.oracle
def test_sbatch_needs_a_shebang_to_read_pbs_lines(oracle: Oracle) -> None:
    """A PBS script without `#!` (fine for qsub) is refused by sbatch; bammmc's output has one."""
    script = WALLTIME_SECONDS + BODY
    seen = oracle.inspect(script)
    assert not seen.accepted and "does not look like a batch script" in seen.message
    out, _ = bammmc.convert(script, "pbs", "slurm")
    assert out is not None and out.startswith("#!")
    seen = oracle.inspect(out)
    assert seen.accepted and seen.value("time") == "01:00:00", seen.message
