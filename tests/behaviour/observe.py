"""What a job gets: the allocation a scheduler documents for a source job (:class:`Alloc`, in
the table) and the one a real scheduler gave the converted job (:func:`on_slurm`,
:func:`on_sge`, read from the oracles' `run-job` and `qsub-inspect`)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from tests.conftest import ORACLES

#: files a row's job finds in its submit directory: (name, text) pairs
Files = tuple[tuple[str, str], ...]


class Alloc(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A job's allocation, job-wide. A field left None is not asked (the table) or not seen (a
    scheduler that has no such notion: Grid Engine has slots, not tasks and nodes)."""

    tasks: int | None = None  #: processes the scheduler starts or sizes the job for
    nodes: int | None = None
    cpus_per_task: int | None = None
    cpus: int | None = None  #: all CPUs (slots) of the job: tasks × CPUs per task
    mem_mb: int | None = None  #: memory of the whole job (every node), MiB
    gpus: int | None = None  #: GPUs of the whole job
    walltime_s: int | None = None
    array: tuple[int, ...] | None = None  #: the indices of the elements that ran
    #: how many jobs the array makes (a parser's count; the table's is ``len(array)``, or 1)
    elements: int | None = None
    throttle: int | None = None  #: elements at once
    outputs: tuple[str, ...] | None = None  #: files in the submit directory, job ids as `N`
    #: the tasks a launcher line of the body started: the `rank` lines they printed (a row's
    #: body `srun echo rank`, `mpiexec -n 8 echo rank`), in the files the job wrote
    ranks: int | None = None
    #: the `var NAME=VALUE` lines the body printed (a row's probe of its scheduler's
    #: variables), each distinct line once, sorted: every element prints the same
    printed: tuple[str, ...] | None = None
    ok: bool = True  #: every element ran and exited 0
    #: the ids the scheduler gave the job and its elements (a run's, never the table's); an
    #: output name is the table's `N` name when an id put where `N` is gives it
    job_ids: tuple[str, ...] = ()

    def total_cpus(self) -> int | None:
        if self.cpus is not None:
            return self.cpus
        if self.tasks is not None:
            return self.tasks * (self.cpus_per_task or 1)
        return None


#: what each target's run shows (the other fields are not compared there)
SEEN = {
    "slurm": frozenset(Alloc.__struct_fields__) - {"job_ids", "elements"},
    # one host, slots: no tasks, nodes or CPUs per task to see
    "sge": frozenset(Alloc.__struct_fields__)
    - {"job_ids", "elements", "tasks", "nodes", "cpus_per_task"},
    # read, not run: what the request asks (slots, memory, GPUs, time, jobs), not the files
    # written, the indices seen or the throttle
    "htcondor": frozenset({"nodes", "cpus", "mem_mb", "gpus", "walltime_s", "elements", "ok"}),
    # a Flux batch job has no memory request and no array
    "flux-batch": frozenset(
        {"tasks", "nodes", "cpus_per_task", "cpus", "gpus", "walltime_s", "ok"}
    ),
}
#: the targets judged by running the job, and those judged by their own parser's reading
RUN, PARSED = ("slurm", "sge"), ("htcondor", "flux-batch")


def expected(want: Alloc, target: str) -> dict[str, Any]:
    """The fields of ``want`` the ``target``'s run can show, with all CPUs derived."""
    out = {k: getattr(want, k) for k in SEEN[target] if getattr(want, k) is not None}
    if "cpus" in SEEN[target] and want.total_cpus() is not None:
        out["cpus"] = want.total_cpus()
    if "elements" in SEEN[target]:
        out["elements"] = len(want.array) if want.array is not None else 1
    if "gpus" in SEEN[target] and target in PARSED and want.gpus is None:
        out["gpus"] = 0  # a job that asks for none gets none
    out["ok"] = want.ok
    return out


def compare(want: Alloc, got: Alloc, target: str) -> dict[str, tuple[Any, Any]]:
    """The fields where ``got`` differs from ``want``: {field: (wanted, got)}."""
    if got.outputs is not None and want.outputs is not None:
        got = msgspec.structs.replace(got, outputs=_named(want.outputs, got.outputs, got.job_ids))
    return {
        k: (v, getattr(got, k)) for k, v in expected(want, target).items() if getattr(got, k) != v
    }


def _named(want: tuple[str, ...], got: tuple[str, ...], ids: tuple[str, ...]) -> tuple[str, ...]:
    """The names ``got`` as the table writes them: a name that is a wanted name with one of the
    job's ids where `N` is becomes that wanted name. Matching against the wanted patterns, not
    replacing every id, keeps a task id that equals a job id (job 7's element 7 writes
    `log-7_7.out`; array job 3's `a-%a.out` elements write `a-3.out`). Any other name gets its
    job ids as `N`, to show."""
    alternatives = "|".join(sorted(ids, key=len, reverse=True))
    patterns = [
        (re.compile(re.escape(w).replace("N", f"(?:{alternatives})")), w)
        for w in want
        if "N" in w and ids
    ]
    named = []
    for g in got:
        name = g if g in want else next((w for p, w in patterns if p.fullmatch(g)), None)
        if name is None and ids:
            name = re.sub(rf"(?<!\d)(?:{alternatives})(?!\d)", "N", g)
        named.append(name if name is not None else g)
    return tuple(sorted(named))


_SIZE = re.compile(r"([\d.]+)([kmgtKMGT]?)")


def mib(text: str, *, sge: bool = False) -> int:
    """Slurm's `8G`, `8000M` (a bare number is MiB) or Grid Engine's `2G`, `2g` (10⁹ bytes),
    `1000000000` (bytes) as MiB."""
    m = _SIZE.fullmatch(text.strip())
    if m is None:
        raise ValueError(text)
    number, letter = float(m.group(1)), m.group(2)
    if not letter:
        return round(number / 1024**2) if sge else round(number)
    power = "kmgt".index(letter.lower())
    base = 1000 if sge and letter.islower() else 1024
    return round(number * float(base) ** (power + 1) / 1024**2)


def seconds(text: str) -> int:
    """Slurm's `[D-]HH:MM:SS` (`UNLIMITED` → 0) or Grid Engine's seconds."""
    if text.isdigit():
        return int(text)
    days, _, rest = text.rpartition("-")
    parts = [int(p) for p in rest.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    return (int(days or 0) * 24 + parts[0]) * 3600 + parts[1] * 60 + parts[2]


_INDEX = re.compile(r"^index=(\d+)$", re.M)


def _indices(
    elements: list[dict[str, Any]], native: list[int], files: dict[str, str]
) -> tuple[int, ...]:
    """The index each element's body printed (`index=K`, the rows' array bodies), else the
    scheduler's own numbers: what the job sees is what it asked for. A body that names its
    own output file (a Grid Engine script whose `-o` cannot spell the name) printed it into
    the files the job wrote: one line per element there counts the same."""
    seen = [_INDEX.findall(e.get("stdout") or "") for e in elements]
    if all(len(s) == 1 for s in seen):
        return tuple(int(s[0]) for s in seen)
    written = sorted(int(k) for text in files.values() for k in _INDEX.findall(text))
    if not any(seen) and len(written) == len(elements):
        return tuple(written)
    return tuple(native)


_RANK = re.compile(r"^rank$", re.M)


def _ranks(r: dict[str, Any]) -> int:
    """The `rank` lines the job's tasks printed, in its files or its elements' stdout."""
    texts = [*(r.get("files") or {}).values()]
    texts += [e.get("stdout") or "" for e in r.get("elements") or [] if not r.get("files")]
    return sum(len(_RANK.findall(t)) for t in texts if isinstance(t, str))


_VAR = re.compile(r"^var [A-Za-z_][A-Za-z0-9_]*=.*$", re.M)


def _printed(r: dict[str, Any]) -> tuple[str, ...]:
    """The distinct `var NAME=VALUE` lines of the job's files and its elements' stdout."""
    texts = [*(r.get("files") or {}).values()]
    texts += [e.get("stdout") or "" for e in r.get("elements") or []]
    return tuple(sorted({line for t in texts if isinstance(t, str) for line in _VAR.findall(t)}))


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    proc = subprocess.run(
        cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=180, check=False
    )
    if proc.returncode in (2, 3) or not proc.stdout.strip():
        raise RuntimeError(f"{cmd[0]}: rc {proc.returncode}: {proc.stderr.strip()[-400:]}")
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _beside(directory: str, files: Files) -> None:
    """The row's own files (a program the job runs) in the submit directory, executable."""
    for file_name, content in files:
        path = Path(directory) / file_name
        path.write_text(content)
        path.chmod(0o755)


def _where(directory: str, files: Files) -> list[str]:
    """run-job's options: a fresh directory of its own (removed after), or, for a job with
    files beside it, this one, where they are."""
    return ["--chdir", directory] if files else ["--rm"]


def _written(r: dict[str, Any], files: Files) -> tuple[str, ...]:
    """The names of the files the job wrote, the row's own files aside."""
    return tuple(sorted(set(r.get("files") or {}) - {file_name for file_name, _ in files}))


def on_slurm(text: str, env: dict[str, str], files: Files = ()) -> tuple[Alloc, dict[str, Any]]:
    """Run ``text`` on the run-mode Slurm oracle: the allocation its controller recorded."""
    with tempfile.TemporaryDirectory(prefix="bammmc-behaviour-") as name:
        path = Path(name) / "job.sbatch"
        path.write_text(text)
        _beside(name, files)
        cmd = ["python3", str(ORACLES / "slurm" / "run-job"), *_where(name, files), str(path)]
        r = _run(cmd, env, Path(name))
    elements = r.get("elements") or []
    if not elements:
        return Alloc(ok=False), r
    rec = elements[0]["record"]
    tres = dict(p.split("=", 1) for p in rec.get("TRES", "").split(",") if "=" in p)
    gres = rec.get("JOB_GRES") or "(null)"
    gpus = sum(int(g.rsplit(":", 1)[1]) for g in gres.split(",") if g.startswith("gpu"))
    ids = {str(r["job_id"])} | {str(e["job_id"]) for e in elements}
    indices = [e["array_task_id"] for e in elements]
    throttle = rec.get("ArrayTaskThrottle")
    return Alloc(
        tasks=int(rec["NumTasks"]),
        nodes=int(rec["NumNodes"]),
        cpus_per_task=int(rec["CPUs/Task"]),
        cpus=int(rec["NumCPUs"]),
        mem_mb=mib(tres["mem"]) if "mem" in tres else None,
        gpus=gpus,
        walltime_s=seconds(rec["TimeLimit"]) if rec.get("TimeLimit") else None,
        array=_indices(elements, indices, r.get("files") or {}) if "ArrayJobId" in rec else None,
        throttle=int(throttle) if throttle and throttle != "0" else None,
        outputs=_written(r, files),
        ranks=_ranks(r),
        printed=_printed(r),
        job_ids=tuple(sorted(ids)),
        ok=r["state"] == "COMPLETED",
    ), r


def on_sge(text: str, env: dict[str, str], files: Files = ()) -> tuple[Alloc, dict[str, Any]]:
    """Run ``text`` on the Grid Engine oracle: slots from the accounting, the requests per slot
    from the qmaster's record, the files the job wrote in the submit directory."""
    with tempfile.TemporaryDirectory(prefix="bammmc-behaviour-") as name:
        path = Path(name) / "job.sge"
        path.write_text(text)
        _beside(name, files)
        record = _run([str(ORACLES / "sge" / "qsub-inspect"), str(path)], env, Path(name))
        if not record.get("accepted"):
            return Alloc(ok=False), record
        run = [str(ORACLES / "sge" / "run-job"), *_where(name, files), str(path)]
        r = _run(run, env, Path(name))
    job = record["job"]
    elements = r.get("elements") or []
    slots = max((e.get("slots") or 0 for e in elements), default=0) or None
    hard = job.get("resources_hard") or {}
    per_slot = mib(hard["h_vmem"], sge=True) if "h_vmem" in hard else 2048  # the oracle's default
    array = job.get("array")
    return Alloc(
        cpus=slots,
        mem_mb=per_slot * slots if slots else None,
        gpus=int(hard.get("gpu", 0)) * (slots or 1),
        walltime_s=seconds(hard["h_rt"]) if "h_rt" in hard else None,
        array=_indices(elements, [e["task_id"] for e in elements], r.get("files") or {})
        if array
        else None,
        throttle=(array or {}).get("concurrency") or None,
        outputs=_written(r, files),
        ranks=_ranks(r),
        printed=_printed(r),
        job_ids=(str(r.get("job_id")),),
        ok=bool(r.get("ok")),
    ), r


# ── targets that cannot run here: read by their own parser ──────────────────────────────────

#: condor_submit's quantity (htcondor.md §3.3, `parse_int64_bytes`): a number, a unit K/M/G/T
#: of 2^10 steps and an optional `B`; no unit is the command's base unit (MiB for memory)
_CONDOR_SIZE = re.compile(r"([0-9]+(?:\.[0-9]{1,3})?)\s*([kKmMgGtT]?)[bB]?")


def _condor_mib(text: str) -> int | None:
    m = _CONDOR_SIZE.fullmatch(text.strip())
    if m is None:
        return None  # an expression: decided at match time, not by the text
    number, letter = float(m.group(1)), m.group(2).lower()
    power = "kmgt".index(letter) - 1 if letter else 0
    return math.ceil(number * 1024.0**power)


def on_htcondor(text: str) -> tuple[Alloc, dict[str, Any]]:
    """Read ``text`` with HTCondor's own submit parser (htcondor2.Submit, macros expanded): the
    slot it asks for. A vanilla job is one slot on one machine; the parallel universe one slot
    per machine (`machine_count`); `queue N` is N jobs (condor_submit(1), htcondor.md §3)."""
    os.environ.setdefault("CONDOR_CONFIG", os.devnull)
    import htcondor2

    try:
        submit = htcondor2.Submit(text)
        commands = {key.lower(): submit.expand(key) for key in submit}
        queue = submit.getQArgs().strip()
    except Exception as exc:  # the parser refuses the text
        return Alloc(ok=False), {"refused": f"{type(exc).__name__}: {exc}"}
    raw = {"commands": commands, "queue": queue}
    parallel = commands.get("universe", "vanilla").lower() == "parallel"
    machines = int(commands.get("machine_count", "1")) if parallel else 1
    memory = commands.get("request_memory")
    mem_mb = _condor_mib(memory) if memory is not None else None
    gpus = commands.get("request_gpus")
    duration = commands.get("allowed_job_duration")
    if queue and not queue.isdigit():
        return Alloc(ok=False), {**raw, "unread": "a queue statement over items"}
    return Alloc(
        nodes=machines,
        cpus=int(commands.get("request_cpus", "1")) * machines,
        mem_mb=mem_mb * machines if mem_mb is not None else None,
        gpus=int(gpus) * machines if gpus is not None else 0,
        walltime_s=int(duration) if duration is not None else None,
        elements=int(queue or "1"),
    ), raw


def _fsd(text: str) -> int:
    """`flux batch -t`: minutes without a unit, else Flux standard duration (`30s`, `1.5h`,
    `2d`; flux-batch(1))."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    if text[-1:] in units:
        return math.ceil(float(text[:-1]) * units[text[-1]])
    return math.ceil(float(text) * 60)


def on_flux_batch(
    text: str, directives: Callable[[str], list[list[str]]], cli: Any
) -> tuple[Alloc, dict[str, Any]]:
    """Read ``text`` with Flux's own `#flux:` directive parser and `flux batch` option parser
    (flux-core's code): the slots it asks for. `-n` slots of `-c` cores and `-g` GPUs each on
    `-N` nodes; `-N` alone is one slot per node (flux-batch(1)); no memory, no arrays."""
    try:
        words = directives(text)
    except ValueError as exc:
        return Alloc(ok=False), {"refused": str(exc)}
    namespace = argparse.Namespace()
    for w in words:
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                namespace = cli.parse_args(w, namespace=namespace)
        except SystemExit:
            return Alloc(ok=False), {"refused": w}
    raw = {"directives": words, "options": {k: v for k, v in vars(namespace).items() if v}}
    nodes = getattr(namespace, "nodes", None)
    slots = getattr(namespace, "nslots", None) or nodes
    if slots is None:  # "Number of slots to allocate must be specified" (flux batch)
        return Alloc(ok=False), raw
    cores = getattr(namespace, "cores_per_slot", None) or 1
    gpus = getattr(namespace, "gpus_per_slot", None) or 0
    limit = getattr(namespace, "time_limit", None)
    return Alloc(
        tasks=slots,
        nodes=nodes or (1 if slots == 1 else None),  # a slot is on one node
        cpus_per_task=cores,
        cpus=slots * cores,
        gpus=slots * gpus,
        walltime_s=_fsd(limit) if limit else None,
    ), raw
