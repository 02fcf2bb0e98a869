"""The Grid Engine writer (format ``sge``): SPLAT IR -> a qsub script with `#$` directives.

Follows shared/docs/formats/sge.md (submit(1), sge_types(1), complex(5)) and Grid Engine's
parse_job_cull.c. Directives come in a fixed order after the `#!` line, one option per line
(soft requests on one `#$ -soft …` line: `-soft` lasts to the end of its line), values quoted
as ``string_list()`` reads them (a word with blanks in `"…"`). qsub deletes every quote of every
word and cuts a directive at its first `#`, so a value with a quote, a `#` or a line break is
E140. Slots:
a job of N tasks × C CPUs asks for N×C slots of one parallel environment (``-pe``), named by
``extensions.sge.pe`` or chosen as ``mpi`` (several tasks) / ``smp`` (one multi-CPU task); the
memory resource (``--sge-memory-resource``, default ``h_vmem``) is written **per slot** with an
explicit unit (``K M G`` binary, ``k m g`` decimal — whichever is exact); arrays as ``-t`` with
``-tc`` (computed from the ranges, never by listing the indices); dependencies as ``-hold_jid``;
output paths with ``$JOB_ID``/``$TASK_ID``/``$JOB_NAME``. ``extensions.sge`` refines the
portable fields; where the two disagree the portable field is written (W301).

Also the table of facts both directions read (option arities, units, PE kinds, mail letters).
Siblings: ``frontends/sge.py``, ``passes/lower/sge.py``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from fractions import Fraction
from typing import Any, Final

import msgspec

from bammmc.backends import OutputFile, WriteOptions
from bammmc.backends.common import (
    BLANK,
    LossReports,
    camel,
    dependency_gap,
    read_own,
    refuse_separator,
    refuse_unreadable,
    report_foreign,
    report_missed_mail,
    report_shadowed,
    report_unsupported,
    rewrite_launchers,
    separator_in,
    shown_char,
    spec_without_script,
)
from bammmc.backends.container import (
    container_losses,
    exec_line,
    in_container,
    refuser,
)
from bammmc.capabilities import EXACT, Capabilities, approx, exact, lost
from bammmc.diagnostics.model import Reporter
from bammmc.facts.sge import (
    ACCOUNT_REFUSES,
    QUEUE_REFUSES,
    RESERVED_NAMES,
    WILDCARDS,
    default_path,
    is_pattern,
)
from bammmc.ir.envvars import compatibility_block, job_shell, shift_array_index
from bammmc.ir.job import Gpu, Job, Output, Resources, Schedule, SgeExt, Spec
from bammmc.ir.priority import from_native, to_native
from bammmc.ir.shell import CSH
from bammmc.ir.values import IndexSpec, Size, Template, human_size, is_digits

#: qsub options and how many words of value each takes (submit(1), sge.md §3). ``-binding``
#: takes one or two (an optional `env|pe|set` first).
OPTIONS: Final[dict[str, int]] = {
    "a": 1,
    "ac": 1,
    "ar": 1,
    "A": 1,
    "b": 1,
    "binding": 1,
    "c": 1,
    "ckpt": 1,
    "clear": 0,
    "cwd": 0,
    "C": 1,
    "dc": 1,
    "dl": 1,
    "e": 1,
    "h": 0,
    "hard": 0,
    "hold_jid": 1,
    "hold_jid_ad": 1,
    "i": 1,
    "j": 1,
    "js": 1,
    "jsv": 1,
    "l": 1,
    "m": 1,
    "masterq": 1,
    "M": 1,
    "notify": 0,
    "now": 1,
    "N": 1,
    "o": 1,
    "P": 1,
    "p": 1,
    "pe": 2,
    "q": 1,
    "R": 1,
    "r": 1,
    "sc": 1,
    "shell": 1,
    "soft": 0,
    "sync": 1,
    "S": 1,
    "t": 1,
    "tc": 1,
    "terse": 0,
    "v": 1,
    "verify": 0,
    "V": 0,
    "w": 1,
    "wd": 1,
    "@": 1,
}
#: memory_specifier suffixes: lower case decimal, upper case binary (sge_types(1))
SIZE_FACTORS: Final[dict[str, int]] = {
    "": 1,
    "k": 1000,
    "K": 1024,
    "m": 1000**2,
    "M": 1024**2,
    "g": 1000**3,
    "G": 1024**3,
}
#: built-in memory-typed complexes (complex(5)) and the usual site ones: sizes per slot
MEMORY_RESOURCES: Final = frozenset(
    {
        "h_vmem",
        "s_vmem",
        "mem_free",
        "m_mem_free",
        "virtual_free",
        "h_rss",
        "s_rss",
        "h_data",
        "s_data",
        "h_stack",
        "s_stack",
        "h_core",
        "s_core",
        "h_fsize",
        "s_fsize",
    }
)
MAIL_EVENTS: Final = {"b": "begin", "e": "end", "a": "fail"}
MAIL_LETTERS: Final = {v: k for k, v in MAIL_EVENTS.items()}
#: characters every Grid Engine version refuses in a job name (the 6.2 and 9.x lists agree on
#: these; whitespace is refused too, pitfall 31)
NAME_FORBIDDEN: Final = frozenset("/:@\\")
#: characters the writer keeps in a name: safe for every version's object_name
NAME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+_.-")
#: `-o`/`-e` pseudo variables Grid Engine's execd expands (get_path.c `expand_path()`), in the
#: order it tries them; each matches as a prefix (`$JOB_ID_x` is the id, then `_x`); there are no
#: `${…}` forms
PATH_PSEUDO: Final = ("HOME", "JOB_ID", "TASK_ID", "JOB_NAME", "USER", "HOSTNAME")
#: SPLAT template variables in `-o`/`-e` (an array job's tasks share `$JOB_ID`: the array's id)
PATH_VARIABLES: Final = {
    "job_id": "$JOB_ID",
    "array_job_id": "$JOB_ID",
    "array_index": "$TASK_ID",
    "job_name": "$JOB_NAME",
    "node_hostname": "$HOSTNAME",
}
#: the same variables in the job's shell (`$TASK_ID` is `-o`'s own; the job sees `$SGE_TASK_ID`)
SHELL_PATH_VARIABLES: Final = {
    "job_id": "${JOB_ID}",
    "array_job_id": "${JOB_ID}",
    "job_name": "${JOB_NAME}",
    "node_hostname": "${HOSTNAME}",
}
#: the comment before the body's `exec` lines that name the output files (`redirect`)
REDIRECT_MARKER: Final = "# bammmc: the output files, named as the original job names them\n"
#: shells in which the body's `exec >file` redirection works
POSIX_SHELLS: Final = frozenset({"sh", "bash", "dash", "ksh", "zsh", "ash"})
#: the largest task id (`-t` ids are u_long32)
MAX_TASK_ID: Final = 2**32 - 1
#: qsub options the writer (and reader) handle through their own fields, never through
#: `extensions.sge.options`
DEDICATED: Final = frozenset(
    {
        *("N", "q", "A", "P", "ar", "p", "h", "a", "dl", "r", "j", "o", "e", "i", "m", "M"),
        *("S", "V", "v", "cwd", "wd", "t", "tc", "b", "R", "now", "notify", "ckpt", "C", "l"),
        *("hold_jid", "hold_jid_ad", "pe", "soft", "hard", "clear"),
    }
)
#: a `-l` resource name (complex(5)) and an environment variable name
RESOURCE_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
VARIABLE_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: parallel environment names: one process per slot, or the threads of one process
TASK_PES: Final = ("mpi", "orte", "mpich", "lam", "pvm")
THREAD_PES: Final = ("smp", "thread", "omp", "shm", "shared", "serial", "single", "make")


def path_template(path: str, array: bool) -> tuple[str, list[str]]:
    """A `-o`/`-e` path as SPLAT template text, and the variables only Grid Engine expands.

    The execd expands `$HOME $JOB_ID $TASK_ID $JOB_NAME $USER $HOSTNAME` as prefixes (no
    `${…}` forms: `${JOB_ID}` stays as written) and a leading `~`. In an array job `$JOB_ID` is
    the array's id, the same for every task.

    >>> path_template("o.$JOB_ID_$TASK_ID", True)
    ('o.{array_job_id}_{array_index}', [])
    >>> path_template("$HOME/${JOB_ID}.log", False)
    ('$HOME/${{JOB_ID}}.log', ['HOME'])
    """
    names = {
        "JOB_ID": "{array_job_id}" if array else "{job_id}",
        "TASK_ID": "{array_index}",
        "JOB_NAME": "{job_name}",
        "HOSTNAME": "{node_hostname}",
    }
    found: list[str] = ["~"] if path.startswith("~") else []
    out: list[str] = []
    i = 0
    while i < len(path):
        c = path[i]
        if c == "$":
            var = next((v for v in PATH_PSEUDO if path.startswith(v, i + 1)), None)
            if var is not None and var in names:
                out.append(names[var])
                i += len(var) + 1
                continue
            if var is not None:
                found.append(var)
            elif path.startswith("$", i + 1):  # `$$`: versions differ (`$` or `$$`)
                found.append("$$")
        out.append({"{": "{{", "}": "}}"}.get(c, c))
        i += 1
    return "".join(out), found


def progression(
    ranges: Iterable[tuple[int, int, int]], limit: int = 1_000_000
) -> tuple[int, int, int] | None:
    """The one range `(start, end, step)` holding exactly these indices, as qsub's
    range_list_compress() joins them, or ``None``; computed from the ranges, not the indices
    (overlapping ranges are listed only up to ``limit`` indices).

    >>> progression([(1, 3, 1), (4, 6, 1)]), progression([(1, 1, 1), (5, 9, 4)])
    ((1, 6, 1), (1, 9, 4))
    >>> progression([(1, 3, 1), (7, 9, 1)]) is None, progression([(0, 10**9, 2)])
    (True, (0, 1000000000, 2))
    """
    items = sorted(
        (s, s + (e - s) // st * st, st if e - s >= st else 0) for s, e, st in ranges if e >= s
    )
    if not items:
        return None
    start, end, step = items[0]
    for s, e, st in items[1:]:
        if s <= end:  # overlapping ranges: list the indices when there are not too many
            total = sum((e2 - s2) // (st2 or 1) + 1 for s2, e2, st2 in items)
            if total > limit:
                return None
            ids = sorted({i for s2, e2, st2 in items for i in range(s2, e2 + 1, st2 or 1)})
            steps = {b - a for a, b in itertools.pairwise(ids)}
            if len(steps) > 1:
                return None
            return ids[0], ids[-1], steps.pop() if steps else 1
        gap = s - end
        if step not in (0, gap) or st not in (0, gap):
            return None
        end, step = e, gap
    return start, end, step or 1


def slot_minimum(text: str) -> int | None:
    """The fewest slots a `-pe` range allows (`16,4` is 4, `-8` is 1), ``None`` when `text` is
    not a slot range.

    >>> slot_minimum("16,4"), slot_minimum("2-8"), slot_minimum("-8"), slot_minimum("x")
    (4, 2, 1, None)
    """
    from lark.exceptions import UnexpectedInput

    from bammmc.frontends.sge import parser

    try:
        tree = parser("slot_range").parse(text)
    except UnexpectedInput:
        return None
    lows = [
        1 if item.data == "up_to" else int(str(item.children[0]))  # type: ignore[union-attr]
        for item in tree.children
    ]
    return max(1, min(lows))


def pe_kind(name: str) -> str | None:
    """``"tasks"``, ``"threads"`` or ``None`` (nothing in the name tells).

    >>> pe_kind("openmpi8"), pe_kind("smp"), pe_kind("threaded"), pe_kind("big")
    ('tasks', 'threads', 'threads', None)
    """
    lowered = name.lower()
    if any(k in lowered for k in TASK_PES):
        return "tasks"
    if any(k in lowered for k in THREAD_PES):
        return "threads"
    return None


CAPABILITIES: Final = Capabilities(
    "sge",
    ("sge",),
    {
        "apiVersion": EXACT,
        "kind": EXACT,
        "metadata.name": exact(
            "",
            (
                (
                    "`srun_<enter` written as `srun__enter` (letters, digits and `+_.-`, "
                    "at most 512 characters)"
                ),
                "W301",
            ),
        ),
        "metadata.labels": lost("qsub has no option for it"),
        "metadata.annotations": lost("qsub has no option for it"),
        "metadata.clientId": lost("qsub has no idempotency key for a submission"),
        "spec.schedule.queue": EXACT,
        "spec.schedule.priority": exact(
            "",
            ("`-p 512`: qsub takes a positive priority only from operators", "W301"),
        ),
        "spec.schedule.priorityClass": lost("qsub has no option for it"),
        "spec.schedule.account": EXACT,
        "spec.schedule.project": EXACT,
        "spec.schedule.walltime": EXACT,
        "spec.schedule.qos": lost("qsub has no option for it"),
        "spec.schedule.partition": EXACT,
        "spec.schedule.hold": EXACT,
        "spec.schedule.reservation": exact(
            "", ("a reservation name: `-ar` takes the id `qrsub` prints", "W201")
        ),
        "spec.schedule.beginAfter": approx("written in UTC; qsub reads local time"),
        "spec.schedule.deadline": lost("qsub has no option for it"),
        "spec.schedule.walltimeMin": lost("qsub has no option for it"),
        "spec.schedule.signalBeforeEnd": lost("qsub has no option for it"),
        "spec.resources.cpusPerTask": exact(
            "",
            (
                (
                    "the raw `extensions.sge.pe` is written instead, and it says "
                    "something else for Grid Engine"
                ),
                "W301",
            ),
        ),
        "spec.resources.memoryPerTask": exact(
            "",
            (
                (
                    "the raw `extensions.sge.pe` is written instead, and it says "
                    "something else for Grid Engine"
                ),
                "W301",
            ),
            ("tasks of several CPUs in an MPI PE: written per slot", "W301"),
        ),
        "spec.resources.tasks": exact(
            "",
            (
                (
                    "512 tasks × 4 CPUs written as 2048 slots of the thread PE `smp` "
                    "(one host, one process)"
                ),
                "W301",
            ),
            ("tasks of several CPUs in an MPI PE: a slot per CPU", "W301"),
        ),
        "spec.resources.nodes": exact(
            "",
            (
                (
                    "Grid Engine places slots by the parallel environment's allocation "
                    "rule, not per job"
                ),
                "W301",
            ),
        ),
        "spec.resources.tasksPerNode": exact(
            "",
            (
                (
                    "Grid Engine places slots by the parallel environment's allocation "
                    "rule, not per job"
                ),
                "W301",
            ),
        ),
        "spec.resources.gpu.count": exact(
            "`-l gpu=K` per slot",
            ("4/node written as 1 per slot (16 slots)", "W301"),
            ("2 GPUs over 8 slots: Grid Engine counts a consumable per slot", "W201"),
        ),
        "spec.resources.gpu.type": exact(
            "",
            ("GPUs are a site-defined complex in Grid Engine", "W201"),
        ),
        "spec.resources.gpu.memory": exact(
            "",
            ("GPUs are a site-defined complex in Grid Engine", "W201"),
        ),
        "spec.resources.gpu.fraction": exact(
            "",
            ("GPUs are a site-defined complex in Grid Engine", "W201"),
        ),
        "spec.resources.gpu.migProfile": exact(
            "",
            ("GPUs are a site-defined complex in Grid Engine", "W201"),
        ),
        "spec.resources.diskPerTask": exact(
            "",
            ("scratch space is a site-defined complex", "W201"),
        ),
        "spec.resources.genericResources": exact(
            "",
            ("complexes are site-defined", "W201"),
        ),
        "spec.resources.limits": lost("qsub has no option for it"),
        "spec.execution.container.image": exact(
            "",
            ("run through `apptainer exec docker://…`; the cluster needs Apptainer", "W301"),
        ),
        "spec.execution.container.imagePullPolicy": exact(
            "",
            (("`apptainer exec` pulls through its own image cache; it has no pull policy"), "W201"),
        ),
        "spec.execution.container.imagePullSecrets": exact(
            "",
            (
                (
                    "registry credentials are the cluster's Apptainer configuration, not "
                    "an option of the job"
                ),
                "W201",
            ),
        ),
        "spec.execution.container.command": exact(
            "",
            (("the job's script is what runs in the image, not the container's command"), "W201"),
        ),
        "spec.execution.container.args": exact(
            "",
            ("the job's script is what runs in the image, not the container's args", "W201"),
        ),
        "spec.execution.script": exact(
            "",
            ("`$BAMMM_ARRAY_INDEX` is defined from `$SGE_TASK_ID`", "N003"),
            (
                "`$SLURM_ARRAY_JOB_ID` has no equivalent here: it is empty in the converted script",
                "W301",
            ),
        ),
        "spec.execution.executable": EXACT,
        "spec.execution.arguments": EXACT,
        "spec.execution.shell": EXACT,
        "spec.execution.workingDir": EXACT,
        "spec.execution.environment.vars": EXACT,
        "spec.execution.environment.secrets": lost(
            "Kubernetes secrets and config maps do not exist on Grid Engine", by_writer=True
        ),
        "spec.execution.environment.configMaps[].name": exact(
            "",
            ("Kubernetes secrets and config maps do not exist on Grid Engine", "W201"),
        ),
        "spec.execution.environment.configMaps[].configMapName": lost("qsub has no option for it"),
        "spec.execution.environment.configMaps[].configMapKey": lost("qsub has no option for it"),
        "spec.execution.environment.inheritFromSubmitter": EXACT,
        "spec.execution.stdin": EXACT,
        "spec.tasks": lost("qsub has no option for it"),
        "spec.gang": lost("qsub has no option for it"),
        "spec.array.indices": exact(
            "",
            (
                (
                    "Grid Engine takes one range `n-m:s`: `1-15:2,20-24%4` is written as "
                    "`1-24`, so indices outside it run too"
                ),
                "W301",
            ),
        ),
        "spec.array.maxConcurrent": exact(
            "",
            ("a throttle without indices limits nothing", "W201"),
        ),
        "spec.dependencies": exact(
            "",
            ("Grid Engine has no `afternotok` dependency", "W201"),
            ("`-hold_jid` waits for the job to end with any exit status", "W301"),
        ),
        "spec.lifecycle.maxRetries": lost("qsub has no option for it"),
        "spec.lifecycle.requeueOnFailure": EXACT,
        "spec.lifecycle.successExitCodes": lost("qsub has no option for it"),
        "spec.lifecycle.ttlAfterFinished": lost("qsub has no option for it"),
        "spec.placement.nodeSelector": lost("qsub has no option for it"),
        "spec.placement.tolerations": lost("qsub has no option for it"),
        "spec.placement.affinity": lost("qsub has no option for it"),
        "spec.placement.topologySpread": lost("qsub has no option for it"),
        "spec.placement.topology": lost("qsub has no option for it"),
        "spec.placement.groupBy": lost("qsub has no option for it"),
        "spec.placement.constraint": lost("qsub has no option for it"),
        "spec.placement.prefer": lost("qsub has no option for it"),
        "spec.placement.exclusive": EXACT,
        "spec.placement.nodePools": lost("qsub has no option for it"),
        "spec.output.stdout": exact(
            "",
            (
                (
                    "`{job_id}` of an array task is written `$JOB_ID.$TASK_ID`: Grid "
                    "Engine's `$JOB_ID` is the array's id, the same"
                ),
                "W301",
            ),
        ),
        "spec.output.stderr": exact(
            "",
            (
                (
                    "`{job_id}` of an array task is written `$JOB_ID.$TASK_ID`: Grid "
                    "Engine's `$JOB_ID` is the array's id, the same"
                ),
                "W301",
            ),
        ),
        "spec.output.mergeStderr": EXACT,
        "spec.output.openMode": lost("qsub has no option for it"),
        "spec.notifications.email": EXACT,
        "spec.notifications.events": exact(
            "",
            ("Grid Engine has no mail on `requeue`", "W201"),
            (
                "Grid Engine has no mail on `requeue`; the job's other mail events are written",
                "W301",
            ),
            (
                (
                    "the raw `extensions.sge.mail_points` is written instead, and it "
                    "says something else for Grid Engine"
                ),
                "W301",
            ),
        ),
        "spec.fileStaging.inputs": lost("qsub has no option for it"),
        "spec.fileStaging.outputs": lost("qsub has no option for it"),
        "spec.fileStaging.embeddedFiles": lost("qsub has no option for it"),
        "spec.fileStaging.transferPolicy": lost("qsub has no option for it"),
        "spec.fileStaging.checkpointFiles": lost("qsub has no option for it"),
        "spec.volumes": lost("qsub has no option for it"),
        "spec.workloadType": lost("qsub has no option for it"),
        "spec.distributedFramework": lost("qsub has no option for it"),
        "spec.extensions.sge.pe": EXACT,
        "spec.extensions.sge.pe_slots": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
            ("no parallel environment is requested: a slot range goes with `-pe NAME`", "W201"),
        ),
        "spec.extensions.sge.memory_resource": exact(
            "", ("without `resources.memoryPerTask`: nothing is written with it", "W201")
        ),
        "spec.extensions.sge.slot_memory": EXACT,
        "spec.extensions.sge.resources": EXACT,
        "spec.extensions.sge.soft_resources": EXACT,
        "spec.extensions.sge.soft_queue": EXACT,
        "spec.extensions.sge.s_rt": EXACT,
        "spec.extensions.sge.hold_jid": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.sge.hold_jid_ad": EXACT,
        "spec.extensions.sge.cwd": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.sge.binary": exact(
            "",
            ("qsub takes `-b` only on the command line", "W201"),
        ),
        "spec.extensions.sge.reserve": EXACT,
        "spec.extensions.sge.notify": EXACT,
        "spec.extensions.sge.now": EXACT,
        "spec.extensions.sge.ckpt": EXACT,
        "spec.extensions.sge.priority": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.sge.begin": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.sge.deadline": EXACT,
        "spec.extensions.sge.output": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.sge.error": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.sge.input": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.sge.shell": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.sge.mail_points": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.sge.export": EXACT,
        "spec.extensions.sge.options": EXACT,
    },
)


def _read_with_shell(text: str) -> Any:
    """The written script read back, with the shell its `-S` names even where that is its
    `#!` line's own (which the reader leaves to the script)."""
    job = read_own(text, "sge")
    ex = job.spec.execution if job is not None and job.spec is not None else None
    if ex is not None and ex.shell is None and ex.script and ex.script.startswith("#!"):
        words = ex.script.partition("\n")[0][2:].split()
        if words and f"#$ -S {words[0]}\n" in text:
            ex = msgspec.structs.replace(ex, shell=words[0])
            job = msgspec.structs.replace(job, spec=msgspec.structs.replace(job.spec, execution=ex))
    return job


class SgeWriter(LossReports):
    """Writes one qsub script."""

    WHERE = "for Grid Engine"
    NAME_LIMIT = 512

    def __init__(self, job: Job, reporter: Reporter, options: WriteOptions) -> None:
        self.job = job
        self.reporter = reporter
        self.options = options
        self.lines: list[str] = []
        #: the field each written line comes from (`refuse_unreadable`)
        self.fields: dict[str, str] = {}
        self.spec = job.spec or Spec()
        ext = self.spec.extensions
        self.ext = ext.sge if ext and ext.sge else SgeExt()
        arr = self.spec.array
        self.indices: IndexSpec | None = arr.indices if arr is not None else None
        #: whether the body runs in a POSIX shell (set by `script`): `exec >file` works there
        self.posix_body = False
        #: `exec` redirections the body starts with (`path`: names `-o` cannot spell)
        self.redirects: list[str] = []

    # -- reporting -------------------------------------------------------------------------

    def unwritable(self, path: str | None, what: str, why: str) -> None:
        self.reporter.report(
            "E140",
            f"{what} {why}",
            field=path,
            help="change the value",
        )

    def overridden(self, ext_key: str, portable: str, shown: object) -> None:
        """An `extensions.sge` value that disagrees with the portable field it refines."""
        self.reporter.report(
            "W301",
            f"`spec.extensions.sge.{ext_key}` (`{shown}`) disagrees with `{portable}`; the "
            "portable value is written",
            field=f"spec.extensions.sge.{ext_key}",
            notes=("the portable field was probably edited after the job was read",),
            help=f"remove `extensions.sge.{ext_key}`, or make the two agree",
        )

    def words(self, name: str, *values: object, path: str | None = None) -> list[str] | None:
        """`-name value…` as `string_list()` words, or ``None`` (and an E140)."""
        words = [f"-{name}"]
        for value in values:
            text = str(value)
            quoted = quote(text)
            if quoted is None:
                what = (
                    "a line break"
                    if "\n" in text or "\r" in text
                    else "`#`, which ends a `#$` line"
                    if "#" in text
                    else "a quote, which qsub deletes"
                )
                self.unwritable(
                    path or f"spec.extensions.sge.{name}",
                    f"the value of `-{name}` contains {what},",
                    "so no `#$` line can carry it",
                )
                return None
            words.append(quoted)
        return words

    def opt(self, name: str, *values: object, path: str | None = None) -> None:
        words = self.words(name, *values, path=path)
        if words is not None:
            self.lines.append("#$ " + " ".join(words))
            if path is not None:
                self.fields[self.lines[-1]] = path

    def resource(self, key: str, value: str, path: str) -> str | None:
        """`key=value` for `-l`, or ``None`` (E140) when it would read as another request:
        qsub splits a `-l` list at `,` and at white space (the oracle's qmaster reads
        `-l "arch=x h_rt=99"` as two requests), and a request at its `=`."""
        if not RESOURCE_NAME.fullmatch(key):
            self.unwritable(path, f"`{key}`", "is not a Grid Engine resource name")
            return None
        if refuse_separator(
            self.reporter,
            path,
            value,
            ",=" + BLANK,
            "a `-l` resource list",
            "qsub splits `-l name=value[,name=value…]` at `,` and white space, and a request "
            "at its `=`: the rest would be another request",
        ):
            return None
        return f"{key}={value}"

    def host_path(self, letter: str, path: str, field: str) -> None:
        """`-i`/`-S` of one path: qsub reads `[[host]:]path[,…]` (sge.md §3), so a path with a
        `:` is written after an empty host (`:in:2024.txt`, which the qmaster records as the
        path `in:2024.txt` on no host); a `,` would start another path, and has no escape."""
        if refuse_separator(
            self.reporter,
            field,
            path,
            ",",
            f"`-{letter} [[host]:]path[,…]`",
            "qsub reads a `,` as the start of another `host:path` entry, and has no escape for it",
            help="rename the file or directory",
        ):
            return
        self.opt(letter, ":" + path if ":" in path else path, path=field)

    # -- the job ---------------------------------------------------------------------------

    def write(self) -> list[OutputFile]:
        preamble, body, shebang = self.script()
        head = [shebang] if shebang else []
        shell_lines, self.lines = self.lines, []
        self.name()
        self.schedule(self.spec.schedule or Schedule())
        self.resources(self.spec.resources or Resources())
        self.array()
        self.dependencies()
        self.output()
        self.notifications()
        self.environment()
        self.extras()
        self.unsupported()
        header = "".join(line + "\n" for line in head + shell_lines + self.lines)
        if self.redirects:
            preamble += REDIRECT_MARKER + "".join(line + "\n" for line in self.redirects)
        body = preamble + body
        text = header + body
        self.body_directives(header, body)
        if not refuse_unreadable(self.reporter, text, "sge", self.fields, "sge", "qsub"):
            report_shadowed(self, self.job, "sge", lambda: _read_with_shell(text), "Grid Engine")
        return [OutputFile(text)]

    def script(self) -> tuple[str, str, str]:
        """`(preamble, body, shebang)`: the compatibility block, the job's commands, the `#!`
        line (empty when qsub's `-S` or the queue's shell runs the script)."""
        ex = self.spec.execution
        shell = ex.shell if ex and ex.shell else "/bin/bash"
        container_losses(ex, self.options.container_runtime, self.lost, self.approximated)
        body = ""
        shell_line = f"#!{shell}"
        if ex is not None and ex.script is not None:
            text = ex.script
            if text.startswith("#!"):
                shell_line, _, body = text.partition("\n")
            else:  # qsub needs no `#!` line (it runs the script with -S or the queue's shell)
                body, shell_line = text, ""
            if ex.container is not None and ex.container.image:
                wrapped = in_container(
                    body,
                    shell_line or f"#!{shell}",
                    ex.container.image,
                    self.options.container_runtime,
                    self.lost,
                    self.approximated,
                    refuser(self.reporter),
                )
                body = wrapped if wrapped is not None else body
        elif ex is not None and (ex.executable is not None or ex.container is not None):
            body = exec_line(
                self.spec,
                self.options.container_runtime,
                self.approximated,
                refuser(self.reporter),
            )
        if self.ext.shell is not None and ex is not None and ex.shell:
            self.overridden("shell", "spec.execution.shell", self.ext.shell)
            self.host_path("S", ex.shell, "spec.execution.shell")
        elif self.ext.shell is not None:
            self.opt("S", self.ext.shell, path="spec.extensions.sge.shell")
        elif ex is not None and ex.shell:
            self.host_path("S", ex.shell, "spec.execution.shell")
        elif shell_line:
            self.shebang_shell(shell_line)
        body = rewrite_launchers(self, body, "sge", self.spec)
        block = compatibility_block(
            body, "sge", self.approximated, self.noted, shell=job_shell(self.spec), spec=self.spec
        )
        interpreter = shell_line[2:].split()[0].rsplit("/", 1)[-1] if shell_line[2:] else ""
        self.posix_body = interpreter in POSIX_SHELLS
        return shift_array_index(block, "sge", self.array_span()[3]), body, shell_line

    def shebang_shell(self, shell_line: str) -> None:
        """The `#!` line's shell as `-S`: Grid Engine runs a job script with `-S` or the
        queue's shell, and does not read the `#!` line (`shell_start_mode posix_compliant`,
        the default; the Grid Engine oracle ran a `#!/bin/csh` script with `/bin/sh`, which
        stopped at its first `if (…)`). `#!/usr/bin/env NAME` is a shell's `/bin/NAME`."""
        words = shell_line[2:].split()
        if not words:
            return
        program, flags = words[0], words[1:]
        if program.rsplit("/", 1)[-1] == "env" and flags:
            name, flags = flags[0], flags[1:]
            if name not in POSIX_SHELLS | CSH:
                self.approximated(
                    "spec.execution.script",
                    f"Grid Engine runs the script with the queue's shell, not `{name}` of its "
                    f"`{shell_line}` line: give `-S` the path of `{name}`",
                )
                return
            program = f"/bin/{name}"
        if flags:
            self.approximated(
                "spec.execution.script",
                f"`{' '.join(flags)}` of `{shell_line}` is not passed: Grid Engine runs the "
                f"script with `-S {program}`, which takes a path only",
            )
        self.host_path("S", program, "spec.execution.script")

    def body_directives(self, header: str, body: str) -> None:
        """qsub reads every `#$` line of the file, the script's own too (no stop at the first
        command, and `-C` cannot be set from inside the script). When they change the job (the
        text read back with and without them) that is a W301; when qsub would reject the
        script because of them, an E140."""
        lines = body.split("\n")
        found = [n for n, line in enumerate(lines, 1) if line.startswith("#$")]
        if not found:
            return
        without = "\n".join("" if line.startswith("#$") else line for line in lines)
        both, alone = read_own(header + body, "sge"), read_own(header + without, "sge")
        offset = header.count("\n")
        where = ", ".join(str(offset + n) for n in found[:5]) + ("…" if len(found) > 5 else "")
        if both is None and alone is not None:
            self.reporter.report(
                "E140",
                f"the script has `#$` lines (lines {where} of the written script) that qsub "
                "reads as directives too, and it would reject them",
                field="spec.execution.script",
                help="indent those lines or change their `#$` (qsub reads `#$` in column 0)",
            )
        elif spec_without_script(both) != spec_without_script(alone):
            self.approximated(
                "spec.execution.script",
                f"the script has `#$` lines (lines {where} of the written script) that qsub "
                "reads as directives too: they change the job's options",
            )

    def name(self) -> None:
        meta = self.job.metadata
        if meta is None or meta.name is None:
            return
        name = "".join(c if c in NAME_CHARS else "_" for c in meta.name)
        # the qmaster refuses a name that starts with a digit ("not a valid object name
        # (cannot start with a digit)", checked with the Grid Engine oracle)
        # nor one of its keywords ("Keyword ("ALL") not allowed as objectname")
        reserved = name.lower() in RESERVED_NAMES
        name = ("_" + name if name[:1].isdigit() or reserved else name)[: self.NAME_LIMIT]
        if name != meta.name:
            self.approximated(
                "metadata.name",
                f"`{meta.name}` written as `{name}` (letters, digits and `+_.-`, not a digit "
                f"first, not `ALL`, `NONE` or `TEMPLATE`, at most {self.NAME_LIMIT} "
                "characters)",
            )
        if name:
            self.opt("N", name, path="metadata.name")

    def schedule(self, sched: Schedule) -> None:
        ext = self.ext
        band = self.options.band
        queue = sched.queue or sched.partition
        if queue is not None and not self.unnamed(
            "spec.schedule.queue" if sched.queue else "spec.schedule.partition",
            queue,
            QUEUE_REFUSES,
            "no cluster queue's name holds {c} (queue_conf(5)): `-q` would match no queue, or "
            "after a `!` every queue",
        ):
            self.opt("q", queue, path="spec.schedule.queue")
        if sched.account is not None:
            self.account(sched.account)
        if sched.project is not None:
            self.opt("P", sched.project, path="spec.schedule.project")
        native = ext.priority
        if native is not None and sched.priority is not None:
            if min(from_native(native, "sge", band), band.high) != sched.priority:
                self.overridden("priority", "spec.schedule.priority", native)
                native = None
        if native is not None:
            self.opt("p", native, path="spec.extensions.sge.priority")
        elif sched.priority is not None:
            native = to_native(sched.priority, "sge", band)
            if native > 0:
                self.approximated(
                    "spec.schedule.priority",
                    f"`-p {native}`: qsub takes a positive priority only from operators",
                )
            self.opt("p", native, path="spec.schedule.priority")
        if sched.hold:
            self.opt("h")
        if ext.begin is not None and sched.begin_after is not None:
            self.overridden("begin", "spec.schedule.beginAfter", ext.begin)
        if ext.begin is not None and sched.begin_after is None:
            if self.datetime(ext.begin, "spec.extensions.sge.begin"):
                self.opt("a", ext.begin, path="spec.extensions.sge.begin")
        elif sched.begin_after is not None:
            value = sched.begin_after.value
            if value.tzinfo is not None:
                import datetime as dt

                value = value.astimezone(dt.UTC).replace(tzinfo=None)
                self.approximated(
                    "spec.schedule.beginAfter", "written in UTC; qsub reads local time"
                )
            self.opt("a", value.strftime("%Y%m%d%H%M.%S"), path="spec.schedule.beginAfter")
        if ext.deadline is not None and self.datetime(ext.deadline, "spec.extensions.sge.deadline"):
            self.opt("dl", ext.deadline, path="spec.extensions.sge.deadline")
        if sched.reservation is not None and is_digits(sched.reservation):
            self.opt("ar", sched.reservation, path="spec.schedule.reservation")
        elif sched.reservation is not None:  # the qmaster refuses the job for it
            self.lost(
                "spec.schedule.reservation",
                f"`{sched.reservation}` is a name, and Grid Engine's `-ar` takes the id of an "
                "advance reservation (the number `qrsub` prints)",
            )
        if sched.walltime is not None:
            self.opt("l", f"h_rt={sge_time(sched.walltime.seconds)}", path="spec.schedule.walltime")
        if ext.s_rt is not None:
            self.opt("l", f"s_rt={sge_time(ext.s_rt.seconds)}", path="spec.extensions.sge.s_rt")
        life = self.spec.lifecycle
        if life is not None and life.requeue_on_failure is not None:
            self.opt(
                "r", "y" if life.requeue_on_failure else "n", path="spec.lifecycle.requeueOnFailure"
            )
        for key, path in (
            ("qos", "spec.schedule.qos"),
            ("walltime_min", "spec.schedule.walltimeMin"),
            ("signal_before_end", "spec.schedule.signalBeforeEnd"),
            ("deadline", "spec.schedule.deadline"),
        ):
            if getattr(sched, key) is not None:
                self.lost(path, "qsub has no option for it")

    def account(self, account: str) -> None:
        """`-A`, unless the qmaster would refuse the whole job for the account string."""
        field = "spec.schedule.account"
        if account.lower() in RESERVED_NAMES:
            self.lost(field, f"`{account}` is a name Grid Engine reserves: the qmaster refuses it")
        elif not self.unnamed(
            field,
            account,
            ACCOUNT_REFUSES,
            'the qmaster refuses an account string with {c} ("… not allowed in objectname")',
        ):
            self.opt("A", account, path=field)

    def unnamed(self, field: str, value: str, chars: str, why: str) -> bool:
        """W201 when ``value`` holds one of ``chars``, which the Grid Engine object it names
        cannot have (``why``, with `{c}` for the character): True when so dropped."""
        # a line break no `#$` line can carry: the E140 of `words`
        c = None if "\n" in value or "\r" in value else separator_in(value, chars)
        if c is not None:
            self.lost(field, why.format(c=shown_char(c)))
        return c is not None

    def datetime(self, value: str, path: str) -> bool:
        """`[[CC]YY]MMDDhhmm[.SS]`, or an E140."""
        if re.fullmatch(r"[0-9]{8}(?:[0-9]{2}){0,2}(?:\.[0-9]{2})?", value):
            return True
        self.unwritable(path, f"`{value}`", "is not a Grid Engine date `[[CC]YY]MMDDhhmm[.SS]`")
        return False

    def slots(self, res: Resources) -> tuple[str | None, int, int]:
        """The PE name, the slots per task and the number of tasks."""
        shaped = (res.tasks, res.nodes, res.tasks_per_node) != (None, None, None)
        tasks = res.task_count if shaped else None
        cpus = 1
        if res.cpus_per_task is not None:
            cores = res.cpus_per_task.cores
            cpus = -(-cores.numerator // cores.denominator)
            if cpus != cores:
                self.approximated(
                    "spec.resources.cpusPerTask", f"{cores} CPUs rounded up to {cpus}"
                )
        name = self.ext.pe
        if name is None:
            name = "mpi" if (tasks or 1) > 1 else "smp" if cpus > 1 else None
        kind = pe_kind(name) if name else None
        if name is not None and kind == "threads" and (tasks or 1) > 1:
            self.approximated(
                "spec.resources.tasks",
                f"{tasks} tasks × {cpus} CPUs written as {(tasks or 1) * cpus} slots of the thread "
                f"PE `{name}` (one host, one process)",
            )
        elif name is not None and kind != "threads" and cpus > 1:
            how = (
                f"{tasks or 1} tasks × {cpus} CPUs written as {(tasks or 1) * cpus} slots of "
                f"PE `{name}` (one process per slot)"
            )
            self.approximated("spec.resources.cpusPerTask", how)
            # the slots read back as tasks of one CPU each, and memory per slot as theirs
            if res.tasks is not None:
                self.approximated("spec.resources.tasks", how)
            if res.memory_per_task is not None:
                self.approximated(
                    "spec.resources.memoryPerTask",
                    f"written per slot: each task is {cpus} slots of PE `{name}`",
                )
        for key, value in (("nodes", res.nodes), ("tasksPerNode", res.tasks_per_node)):
            # one node of a thread PE, or one task: nothing for an allocation rule to place
            alone = value == 1 and ((key == "nodes" and kind == "threads") or (tasks or 1) == 1)
            if value is not None and not alone:
                self.approximated(
                    f"spec.resources.{key}",
                    "Grid Engine places slots by the parallel environment's allocation rule, "
                    "not per job",
                )
        return name, cpus, tasks or 1

    def gpus(self, gpu: Gpu, per_task: int, tasks: int, nodes: int | None) -> None:
        """GPUs as `-l gpu=K`, a consumable complex counted per slot (sge_complex(5): a
        parallel job's request is multiplied by its slots): SPLAT's Grid Engine form ("gpu per
        slot"), the complex sites define for GPUs and the Grid Engine oracle's, as `h_vmem` is
        memory's."""
        for key in ("type", "memory", "fraction", "mig_profile"):
            if getattr(gpu, key) is not None:
                self.lost(
                    f"spec.resources.gpu.{camel(key)}",
                    "GPUs are a site-defined complex in Grid Engine: it counts them only",
                )
        count = gpu.count
        if count is None:
            return
        slots = per_task * tasks
        scale = {"node": nodes or 1, "job": 1}.get(count.scope or "task", tasks)
        if count.scope not in (None, "task", "node", "job"):
            self.lost("spec.resources.gpu.count", f"`{count}` has no per-slot count")
            return
        per_slot = count.amount * scale / slots
        if per_slot != int(per_slot) or per_slot < 1:
            self.lost(
                "spec.resources.gpu.count",
                f"{count.amount * scale} GPUs over {slots} slots: Grid Engine counts a "
                "consumable per slot, in whole units",
                help="ask one slot per GPU, or a site complex counted per job",
            )
            return
        self.opt("l", f"gpu={int(per_slot)}", path="spec.resources.gpu.count")
        if slots > 1 and ((count.scope or "task") != "task" or per_task != 1):
            self.approximated(  # one slot is one task on one host: the same count
                "spec.resources.gpu.count",
                f"{count} written as {int(per_slot)} per slot ({slots} slots)",
            )

    def resources(self, res: Resources) -> None:
        ext = self.ext
        name, per_task, tasks = self.slots(res)
        if name is not None:
            count = str(per_task * tasks)
            if ext.pe_slots is not None:
                minimum = slot_minimum(ext.pe_slots)
                if minimum is None:
                    self.unwritable(
                        "spec.extensions.sge.pe_slots",
                        f"`{ext.pe_slots}`",
                        "is not a slot range (`8`, `2-8`, `-8`, `4-`, or a list of them)",
                    )
                    count = ""
                elif minimum != per_task * tasks:
                    self.overridden("pe_slots", "spec.resources", ext.pe_slots)
                else:
                    count = ext.pe_slots
            pe_path = "spec.extensions.sge.pe" if ext.pe is not None else "spec.resources"
            if count and not refuse_separator(
                self.reporter,
                pe_path,
                name,
                "," + BLANK,
                "`-pe NAME SLOTS`",
                "qsub takes one word as the parallel environment's name: with white space the "
                "rest is read as the slot range",
                help="use the parallel environment's name as the site defines it",
            ):
                self.opt("pe", name, count, path="spec.resources")
        elif ext.pe_slots is not None:
            self.lost(
                "spec.extensions.sge.pe_slots",
                "no parallel environment is requested (no `extensions.sge.pe`, and one task of "
                "one CPU): a slot range goes with `-pe NAME`",
                help="set `extensions.sge.pe` to the parallel environment the slots are for",
            )
        mem = res.memory_per_task
        if mem is None and ext.memory_resource is not None:
            self.lost(
                "spec.extensions.sge.memory_resource",
                "it names the resource that carries `resources.memoryPerTask`, which this job "
                "does not set: nothing is written with it",
            )
        if mem is not None:
            resource = ext.memory_resource or self.options.sge_memory_resource
            per_slot = self.per_slot(mem, per_task, tasks, res)
            text = self.size(per_slot, "spec.resources.memoryPerTask")
            item = self.resource(resource, text, "spec.extensions.sge.memory_resource")
            if item is not None:
                self.opt("l", item, path="spec.resources.memoryPerTask")
        for key, size in (ext.slot_memory or {}).items():
            path = f"spec.extensions.sge.slot_memory.{key}"
            item = self.resource(key, self.size(size.bytes, path), path)
            if item is not None:
                self.opt("l", item, path=path)
        placement = self.spec.placement
        if placement is not None and placement.exclusive:
            self.opt("l", "exclusive=true", path="spec.placement.exclusive")
        for key, value in (ext.resources or {}).items():
            path = f"spec.extensions.sge.resources.{key}"
            item = self.resource(key, value, path)
            if item is not None:
                self.opt("l", item, path=path)
        if res.gpu is not None:
            self.gpus(res.gpu, per_task, tasks, res.nodes)
        if res.disk_per_task is not None:
            self.lost("spec.resources.diskPerTask", "scratch space is a site-defined complex")
        if res.generic_resources:
            self.lost("spec.resources.genericResources", "complexes are site-defined")
        if placement is not None:
            dropped: tuple[tuple[str, str | None], ...] = (
                ("topology", placement.topology),
                ("groupBy", placement.group_by),
                ("constraint", placement.constraint),
            )
            for key, setting in dropped:
                if setting is not None:
                    self.lost(f"spec.placement.{key}", "qsub has no option for it")

    def size(self, n_bytes: int, path: str) -> str:
        text, written = sge_size(n_bytes)
        if written != n_bytes:
            self.approximated(path, f"{human_size(n_bytes)} rounded up to {text}")
        return text

    def per_slot(self, mem: Size, per_task: int, tasks: int, res: Resources) -> int:
        scope = mem.scope or "task"
        exact: Fraction
        if scope == "task":
            exact = Fraction(mem.bytes, per_task)
        elif scope in ("slot", "cpu"):
            exact = Fraction(mem.bytes)
            have = res.cpus_per_task.cores if res.cpus_per_task is not None else 1
            if scope == "cpu" and have != per_task:
                self.approximated(
                    "spec.resources.memoryPerTask",
                    f"memory per CPU given to {per_task} slots per task ({have} CPUs rounded up)",
                )
        elif scope == "job":
            exact = Fraction(mem.bytes, per_task * tasks)
        elif scope == "node" and res.tasks_per_node is not None:
            exact = Fraction(mem.bytes, per_task * res.tasks_per_node)
        elif scope == "node" and res.nodes is not None and tasks % res.nodes == 0:
            exact = Fraction(mem.bytes, per_task * (tasks // res.nodes))
            if res.nodes > 1:
                self.approximated(
                    "spec.resources.memoryPerTask",
                    f"memory per node given to each of its {tasks // res.nodes} tasks' slots: the "
                    f"{tasks} tasks are taken to spread evenly over the {res.nodes} nodes",
                )
        elif scope == "node":  # no node count: the slots share one host
            exact = Fraction(mem.bytes, per_task * tasks)
            if tasks * per_task > 1:
                self.approximated(
                    "spec.resources.memoryPerTask",
                    f"memory per node shared by the {tasks * per_task} slots: the job gives no "
                    "node count, so they are taken to share one host",
                )
        else:
            self.approximated(
                "spec.resources.memoryPerTask", f"memory per {scope} written per slot"
            )
            exact = Fraction(mem.bytes)
        # a fraction of a byte, rounded up: nothing anyone would notice, nothing to report
        return -(-exact.numerator // exact.denominator)

    def array_span(self) -> tuple[int, int, int, int]:
        """`(first, last, step, shift)` of the `-t` range (ids shifted up to start at 1)."""
        spec = self.indices
        if spec is None or not spec.ranges:
            return 0, 0, 1, 0
        one = progression(spec.ranges)
        if one is None:
            first = min(s for s, _, _ in spec.ranges)
            last = max(s + (e - s) // st * st for s, e, st in spec.ranges)
            one = (first, last, 1)
        first, last, step = one
        shift = 1 - first if first < 1 else 0
        return first + shift, last + shift, step, shift

    def array(self) -> None:
        arr = self.spec.array
        if arr is None:
            return
        spec = arr.indices
        throttle = spec.throttle if spec is not None and spec.throttle else arr.max_concurrent
        if spec is None:
            if arr.max_concurrent is not None:
                self.lost("spec.array.maxConcurrent", "a throttle without indices limits nothing")
            return
        first, last, step, shift = self.array_span()
        if progression(spec.ranges) is None:
            self.approximated(
                "spec.array.indices",
                f"Grid Engine takes one range `n-m:s`: `{spec}` is written as "
                f"`{first - shift}-{last - shift}`, so indices outside it run too",
            )
        if shift:
            self.approximated(
                "spec.array.indices",
                f"Grid Engine task ids start at 1: every index is shifted by {shift}, so "
                "$SGE_TASK_ID is that much larger",
            )
        text = (
            str(first) if first == last else f"{first}-{last}" + (f":{step}" if step != 1 else "")
        )
        if last > MAX_TASK_ID:
            self.unwritable("spec.array.indices", f"`{spec}`", f"has ids above {MAX_TASK_ID}")
            return
        self.opt("t", text, path="spec.array.indices")
        if throttle is not None:
            self.opt("tc", throttle, path="spec.array.maxConcurrent")

    def dependencies(self) -> None:
        ext = self.ext
        ids: list[str] = []
        for i, dep in enumerate(self.spec.dependencies or ()):
            path = f"spec.dependencies[{i}]"
            if dep.scheme in ("afterany", "afterok") and dep.value:
                # a name: written so, the qmaster would take it for a pattern of names
                if is_pattern(dep.value) and self.unnamed(
                    path,
                    dep.value,
                    WILDCARDS,
                    "`-hold_jid` reads a name with {c} as a pattern, which holds the job for "
                    "every job whose name it matches",
                ):
                    continue
                ids.append(dep.value)
                if dep.scheme == "afterok":
                    self.approximated(
                        path, "`-hold_jid` waits for the job to end with any exit status"
                    )
                if dep.count is not None:
                    self.approximated(path, "waiting for some array tasks becomes waiting for all")
            else:
                self.lost(path, dependency_gap(dep, "Grid Engine"))
        refs = ids
        if ext.hold_jid is not None:  # patterns, in their order, with the ids and names
            # an id or name the portable list no longer has was taken out of it
            gone = [r for r in ext.hold_jid if not is_pattern(r) and r not in ids]
            if gone:
                self.overridden("hold_jid", "spec.dependencies", ",".join(gone))
            refs = [r for r in ext.hold_jid if r not in gone]
            refs += [r for r in ids if r not in refs]
        self.job_list("hold_jid", refs, "spec.dependencies")
        if ext.hold_jid_ad is not None:
            self.job_list("hold_jid_ad", ext.hold_jid_ad, "spec.extensions.sge.hold_jid_ad")

    def job_list(self, name: str, refs: list[str], path: str) -> None:
        if not refs:
            return
        bad = [r for r in refs if not r or "," in r or any(c.isspace() for c in r)]
        if bad:
            self.unwritable(path, f"the job reference `{bad[0]}`", "contains `,` or a blank")
            return
        self.opt(name, ",".join(refs), path=path)

    def output(self) -> None:
        ext, out = self.ext, self.spec.output
        ex = self.spec.execution
        workdir = ex.working_dir if ex is not None else None
        if ext.cwd and workdir is not None:  # qsub: the later of `-cwd` and `-wd` wins
            self.overridden("cwd", "spec.execution.workingDir", "true")
        elif workdir is None and ext.cwd is not False:
            # SPLAT's default is the submit directory, Grid Engine's the home directory:
            # `false` is a Grid Engine script's own (no `-cwd`), read back as it was
            self.opt("cwd")
        if workdir is not None:
            self.opt("wd", workdir, path="spec.execution.workingDir")
        stdin = ex.stdin if ex is not None else None
        if ext.input is not None and stdin is not None:
            self.overridden("input", "spec.execution.stdin", ext.input)
        if ext.input is not None and stdin is None:
            self.opt("i", ext.input, path="spec.extensions.sge.input")
        elif stdin is not None:
            self.host_path("i", stdin, "spec.execution.stdin")
        out = out or Output()
        if out.merge_stderr:  # separate files are Grid Engine's default
            self.opt("j", "y", path="spec.output.mergeStderr")
        for letter, template, raw in (("o", out.stdout, ext.output), ("e", out.stderr, ext.error)):
            field = f"spec.output.{'stdout' if letter == 'o' else 'stderr'}"
            key = "output" if letter == "o" else "error"
            if letter == "e" and out.merge_stderr and (raw is not None or template is not None):
                self.lost(field, "with `-j y` qsub ignores `-e`: stderr goes to the `-o` file")
                continue
            if raw is None and template is not None and self.is_default(letter, template):
                continue  # qsub's own name for it
            if (
                raw is not None
                and template is not None
                and not self.same_path(letter, raw, template)
            ):
                self.overridden(key, field, raw)
                raw = None
            if raw is not None:
                self.opt(letter, raw, path=f"spec.extensions.sge.{key}")
            elif template is not None:
                self.path(letter, template, field)
        if out.open_mode is not None:
            self.lost("spec.output.openMode", "qsub has no option for it")

    def is_default(self, letter: str, template: Template) -> bool:
        """Whether ``template`` is the file qsub names when `-{letter}` names none (in an
        array whose ids are not shifted: a shifted one names other files)."""
        array = self.indices is not None
        if array and self.array_span()[3]:
            return False
        return template.parts == Template.parse(default_path(letter, array)).parts

    def same_path(self, letter: str, raw: str, template: Template) -> bool:
        """Whether a raw `-o`/`-e` value reads back as this portable template."""
        if "," in raw:
            return False
        path = raw.split(":", 1)[1] if ":" in raw else raw
        array = self.indices is not None
        text, site_only = path_template(path, array)
        if site_only:
            return False
        if path.endswith("/"):  # a directory: Grid Engine's default name inside it
            text += default_path(letter, array)
        try:
            return Template.parse(text).parts == template.parts
        except ValueError:
            return False

    def path(self, letter: str, template: Template, field: str) -> None:
        mapping = dict(PATH_VARIABLES)
        if self.indices is not None and "job_id" in template.variables():
            mapping["job_id"] = "$JOB_ID.$TASK_ID"
            self.approximated(
                field,
                "`{job_id}` of an array task is written `$JOB_ID.$TASK_ID`: Grid Engine's "
                "`$JOB_ID` is the array's id, the same for every task",
            )
        shift = self.array_span()[3] if self.indices is not None else 0
        if shift and "array_index" in template.variables():
            if self.redirect(letter, template, mapping, shift):
                return
            self.approximated(
                field,
                f"Grid Engine task ids start at 1 and `-{letter}` has no arithmetic: the file "
                f"names take the task id, each index plus {shift}",
            )
        missing = [v for v in template.variables() if v not in mapping]
        if missing:
            shown = ", ".join(f"`{{{v}}}`" for v in missing)
            self.approximated(
                field,
                f"Grid Engine cannot put {shown} in an output path; its default name "
                "(job name and id) is used instead",
            )
            return
        chars: list[str] = []
        literal: list[int] = []  # where the template's own text has a `$`
        changed: set[str] = set()
        for kind, text in template.parts:
            if kind == "var":
                chars.extend(mapping[text])
                continue
            for c in text:
                if c == ",":  # qsub reads `host:path` lists, and a `,` has no escape
                    changed.add(c)
                    c = "_"
                elif c == "$":
                    literal.append(len(chars))
                chars.append(c)
        joined = "".join(chars)
        for pos in literal:  # a `$` Grid Engine would expand
            if joined.startswith("$", pos + 1) or joined.startswith(PATH_PSEUDO, pos + 1):
                changed.add("$")
                chars[pos] = "_"
        if changed:
            shown = " ".join(f"`{c}`" for c in sorted(changed))
            self.approximated(
                field,
                f"{shown} written as `_`: qsub reads `host:path,…` lists and expands `$` names",
            )
        text = "".join(chars)
        if text.startswith("~"):  # the execd expands a leading `~` to a home directory
            text = "./" + text
            self.approximated(
                field,
                f"written `{text}`: Grid Engine reads a leading `~` as a home directory",
            )
        if text.endswith("/"):  # a folder: the execd writes its default name in it
            default = f"$JOB_NAME.{letter}$JOB_ID" + (".$TASK_ID" if self.indices else "")
            text += default
            self.approximated(
                field,
                f"Grid Engine reads a path ending in `/` as a folder and writes `{default}` "
                f"in it: `-{letter} {text}` names that file",
            )
        # `[[host]:]path`: after an empty host, a `:` is the path's own (see `host_path`)
        self.opt(letter, ":" + text if ":" in text else text, path=field)

    def redirect(
        self, letter: str, template: Template, mapping: dict[str, str], shift: int
    ) -> bool:
        """Name an output file of a shifted array in the body: `-{letter} /dev/null` and an
        `exec >"a-$((SGE_TASK_ID - 1)).out"` first in the script, so that each task writes the
        file its index names (`-o` has no arithmetic). Only for a POSIX shell body, and for a
        template whose every variable has a shell spelling."""
        shell = dict(SHELL_PATH_VARIABLES)
        if mapping.get("job_id", "").endswith("$TASK_ID"):
            shell["job_id"] = "${JOB_ID}.${SGE_TASK_ID}"
        shell["array_index"] = f"$((SGE_TASK_ID - {shift}))"
        if not self.posix_body or any(v not in shell for v in template.variables()):
            return False
        parts = []
        for kind, text in template.parts:
            if kind == "var":
                parts.append(shell[text])
            else:
                parts.append(re.sub(r'([\\$`"])', r"\\\1", text))
        name = "".join(parts)
        if not name or name.endswith("/"):
            return False
        merged = letter == "o" and self.spec.output is not None and self.spec.output.merge_stderr
        stream = ">" if letter == "o" else "2>"
        self.redirects.append(f'exec {stream}"{name}"' + (" 2>&1" if merged else ""))
        self.opt(letter, "/dev/null", path=f"spec.output.{'stdout' if letter == 'o' else 'stderr'}")
        return True

    def notifications(self) -> None:
        note = self.spec.notifications
        events = note.events if note is not None else None
        points = self.ext.mail_points
        if points is not None and set(points) - set("abesn"):
            self.unwritable(
                "spec.extensions.sge.mail_points", f"`{points}`", "is not `-m` letters (`abesn`)"
            )
            points = None
        if points is not None and events is not None:
            letters = {MAIL_LETTERS[e] for e in events if e in MAIL_LETTERS}
            if letters != set(points) & set("bea"):
                self.overridden("mail_points", "spec.notifications.events", points)
                points = "".join(c for c in "beas" if c in letters or (c == "s" and c in points))
        if points is not None:
            self.opt("m", points or "n", path="spec.extensions.sge.mail_points")
        elif events is not None:
            letters_text = "".join(MAIL_LETTERS[e] for e in ("begin", "end", "fail") if e in events)
            report_missed_mail(self, "Grid Engine", list(events), MAIL_LETTERS)
            self.opt("m", letters_text or "n", path="spec.notifications.events")
        if note is not None and note.email is not None:
            self.mail_list(note.email)

    def mail_list(self, email: str) -> None:
        """`-M user[@host],…`: qsub keeps an address with one `@` between a user and a host
        (`a@b@c` and `a@@b` become `a@b`, `@b` and `a@` lose a part: the Grid Engine oracle),
        and refuses a list of no address ("Wrong mail list format")."""
        field = "spec.notifications.email"
        entries = email.split(",")
        bad = [a for a in entries if a.count("@") > 1 or a.startswith("@") or a.endswith("@")]
        if bad:
            self.lost(field, f"`{bad[0]}` is no `user[@host]` address: qsub would change it")
            entries = [a for a in entries if a not in bad]
        if not any(entries):
            if not bad:
                self.lost(field, f"`{email}` holds no address")
            return
        self.opt("M", ",".join(entries), path=field)

    def environment(self) -> None:
        ex = self.spec.execution
        env = ex.environment if ex else None
        items: list[str] = []
        if env is not None and env.inherit_from_submitter:
            self.opt("V", path="spec.execution.environment.inheritFromSubmitter")
        path = "spec.execution.environment.vars"
        if env is not None and env.vars:
            for key, value in env.vars.items():
                if not VARIABLE_NAME.fullmatch(key):
                    self.unwritable(path, f"`{key}`", "is not a variable name `-v` can carry")
                elif "," in value:
                    self.unwritable(
                        path, f"the value of `{key}`", "contains a comma, which `-v` cannot carry"
                    )
                else:
                    items.append(f"{key}={value}")
        for name in self.ext.export or []:
            if VARIABLE_NAME.fullmatch(name):
                items.append(name)
            else:
                self.unwritable("spec.extensions.sge.export", f"`{name}`", "is not a variable name")
        if items:
            self.opt("v", ",".join(items), path=path)
        if env is not None:
            for key in ("secrets", "config_maps"):
                if getattr(env, key):
                    self.lost(
                        f"spec.execution.environment.{camel(key)}",
                        "Kubernetes secrets and config maps do not exist on Grid Engine",
                    )

    def extras(self) -> None:
        ext = self.ext
        if ext.reserve is not None:
            self.opt("R", "y" if ext.reserve else "n", path="spec.extensions.sge.reserve")
        if ext.notify:
            self.opt("notify")
        if ext.now is not None:
            self.opt("now", "y" if ext.now else "n", path="spec.extensions.sge.now")
        if ext.ckpt is not None:
            self.opt("ckpt", ext.ckpt, path="spec.extensions.sge.ckpt")
        if ext.binary is not None:
            self.lost("spec.extensions.sge.binary", "qsub takes `-b` only on the command line")
        for name, value in (ext.options or {}).items():
            path = f"spec.extensions.sge.options.{name}"
            if name not in OPTIONS:
                self.lost(path, f"`-{name}` is not a qsub option")
            elif name in DEDICATED:
                self.lost(path, f"`-{name}` is written from its own field, not from `options`")
            elif OPTIONS[name] == 0:
                self.opt(name, path=path)
            elif name == "binding" and value.split(" ", 1)[0] in ("env", "pe", "set"):
                self.opt(name, *value.split(" ", 1), path=path)
            else:
                self.opt(name, value, path=path)
        self.soft()

    def soft(self) -> None:
        """Soft requests on one line: `-soft` lasts only to the end of its own `#$` line."""
        ext = self.ext
        words = ["-soft"]
        items: list[str] = []
        for key, value in (ext.soft_resources or {}).items():
            item = self.resource(key, value, f"spec.extensions.sge.soft_resources.{key}")
            if item is not None:
                items.append(item)
        if items:
            more = self.words("l", ",".join(items), path="spec.extensions.sge.soft_resources")
            words += more or []
        if ext.soft_queue is not None:
            words += self.words("q", ext.soft_queue, path="spec.extensions.sge.soft_queue") or []
        if len(words) > 1:
            self.lines.append("#$ " + " ".join(words))

    def unsupported(self) -> None:
        spec = self.spec
        report_unsupported(self, self.job, CAPABILITIES, "qsub")
        if spec.extensions:
            report_foreign(self, spec, ("sge",), script=True)


def quote(value: str) -> str | None:
    """A value as one `string_list()` word, or ``None`` when no word can carry it: qsub cuts a
    directive at its first `#` and deletes every quote of every word (sge_strip_quotes()).

    >>> quote("plain"), quote("a b"), quote(""), quote("it's"), quote("a#b")
    ('plain', '"a b"', '""', None, None)
    """
    if any(c in value for c in "\n\r\"'#"):
        return None
    if value and not any(c.isspace() for c in value):
        return value
    return f'"{value}"'


def sge_time(seconds: int | None) -> str:
    """`H:MM:SS` (hours may exceed 24), or `INFINITY`.

    >>> sge_time(90), sge_time(129600), sge_time(None)
    ('00:01:30', '36:00:00', 'INFINITY')
    """
    if seconds is None:
        return "INFINITY"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}"


def sge_size(n_bytes: int) -> tuple[str, int]:
    """The largest exact unit, always explicit (`G M K` binary before `g m k` decimal), and the
    bytes it says; a size no unit divides is rounded up to whole `K` or `k`, whichever is
    closer.

    >>> sge_size(2 * 1024**3), sge_size(2 * 10**9), sge_size(1536 * 1024**2), sge_size(1000)
    (('2G', 2147483648), ('2g', 2000000000), ('1536M', 1610612736), ('1k', 1000))
    >>> sge_size(1001), sge_size(1999)
    (('1K', 1024), ('2k', 2000))
    """
    for unit in ("G", "g", "M", "m", "K", "k"):
        factor = SIZE_FACTORS[unit]
        if n_bytes % factor == 0:
            return f"{n_bytes // factor}{unit}", n_bytes
    kib, kb = -(-n_bytes // 1024), -(-n_bytes // 1000)
    if kib * 1024 <= kb * 1000:
        return f"{kib}K", kib * 1024
    return f"{kb}k", kb * 1000


def write(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> list[OutputFile]:
    return SgeWriter(job, reporter or Reporter(), options or WriteOptions()).write()


__all__ = ["CAPABILITIES", "SgeWriter", "write"]
