"""The HTCondor writer (format ``htcondor``): SPLAT IR -> a submit description file, and for a
script-mode job the script it runs.

Follows shared/docs/formats/htcondor.md (htcondor-jdl(1), condor_submit(1), metric_units.cpp)
and the oracle's findings (htcondor2.Submit 25.14). One ``command = value`` per line in a fixed
order, then the ``queue`` statement. A job is one slot (pitfalls 1, 20): memory, disk, CPUs and
GPUs are written per job — tasks × CPUs per task become ``request_cpus`` — unless
``extensions.htcondor.universe`` is ``parallel``, where each task is one of ``machine_count``
slots. Sizes get an explicit binary unit (``request_memory`` counts MiB, ``request_disk`` KiB when
no unit is given; condor_submit rounds up to that unit, so a size that is not a whole number of
them is W301). The walltime becomes ``allowed_job_duration`` (HTCondor holds a job that runs
longer: W301, pitfall 17); output paths spell ``{job_id}`` ``$(Cluster)`` and ``{array_index}``
``$(Process)`` (0-based, pitfall 24) or an index derived from it; arrays become ``queue N`` with
a helper macro, an explicit ``queue … in (…)`` list, or one ``queue`` per range; dependencies
have no submit-file form (W201 naming DAGMan).

Values never inject: each is one ``key = value`` line, so only a line break (or a trailing
``\\``, which continues the line) could start another statement, and that is E140; names of
commands and attributes from ``extensions.htcondor`` must be names (``queue``, ``include``, ``if``
are not). ``arguments`` and ``environment`` use the new, double-quoted syntax. Macro references
(``$(NAME)``, ``$$(Attr)``, ``$ENV(…)``) are the submit language's own and are written as they
are: the reader keeps them so in portable fields, and a DAGMan node's ``$(VAR)`` must survive.

A script-mode job is two files: the submit file (``executable = <stem>.sh``) and the script, its
body byte for byte after the ``#!`` line, with a block that reads the other schedulers' job
variables from the job ad (``ir/envvars.py``).

Also the tables of facts both directions read (units, notification values, universes).
Siblings: ``frontends/htcondor.py``, ``passes/lower/htcondor.py``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import posixpath
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

import msgspec

from bammmc.backends import OutputFile, WriteOptions
from bammmc.backends.common import (
    LossReports,
    refuse_separator,
    refuse_unreadable,
    report_foreign,
    report_missed_mail,
    report_priority_rounding,
    report_separator,
    report_unsupported,
    rewrite_launchers,
    separator_in,
    shown_char,
)
from bammmc.capabilities import EXACT, Capabilities, exact, lost
from bammmc.diagnostics.model import Reporter
from bammmc.facts.htcondor import DISCARDED, ENV_PROGRAM, path_command
from bammmc.frontends.htcondor import scan
from bammmc.ir.envvars import compatibility_block, job_ad, job_shell
from bammmc.ir.job import Execution, HtcondorExt, HtcondorQueue, Job, Output, Resources, Spec
from bammmc.ir.priority import to_native
from bammmc.ir.values import Size, Template, human_size

#: size units condor_submit reads (metric_units.cpp `parse_int64_bytes`): powers of 1024, no P
SIZE_FACTORS: Final[dict[str, int]] = {"K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
#: the unit of a number without one, per size command (htcondor.md §3.3, §6)
BASE_UNIT: Final[dict[str, str]] = {
    "request_memory": "M",
    "request_disk": "K",
    "gpus_minimum_memory": "M",
    "retry_request_memory": "M",
    "retry_request_disk": "K",
}
#: `notification` values and the SPLAT events each stands for (pitfall 39: one value only).
#: `Always` mails when the job terminates (and, in older versions, on checkpoints): the reader
#: keeps it in `extensions.htcondor.notification` with these events.
NOTIFICATIONS: Final[dict[str, frozenset[str]]] = {
    "Never": frozenset(),
    "Complete": frozenset({"end"}),
    "Error": frozenset({"fail"}),
    "Start": frozenset({"begin"}),
    "Always": frozenset({"begin", "end", "fail", "requeue"}),
}
#: the events each written value mails on: `Complete` mails whenever the job terminates,
#: failures included
MAILED_ON: Final[dict[str, frozenset[str]]] = {
    "Never": frozenset(),
    "Complete": frozenset({"end", "fail"}),
    "Error": frozenset({"fail"}),
    "Start": frozenset({"begin"}),
}
#: `should_transfer_files` per `fileStaging.transferPolicy`
TRANSFER_POLICIES: Final = {"always": "YES", "if_needed": "IF_NEEDED", "never": "NO"}
#: universes that run a container image, and the command that names it
IMAGE_COMMANDS: Final = {"docker": "docker_image", "container": "container_image"}
#: template variables in file names; `{array_index}` is the writer's index (see `Array`)
PATH_MACROS: Final = {"job_id": "$(Cluster)", "array_job_id": "$(Cluster)"}
#: SPLAT's normalized variables in arguments (the reader writes `$(Process)`/`$(Cluster)` so)
ARGUMENT_VARIABLES: Final = {"BAMMM_ARRAY_INDEX": "array_index", "BAMMM_JOB_ID": "job_id"}
#: the order commands are written in, whichever field or extension key they come from (so that
#: a file read back and written again keeps its order); names not here follow, then job
#: attributes, then the writer's own array macros
ORDER: Final = (
    *("universe", "executable", "arguments", "shell", "transfer_executable"),
    *("container_image", "docker_image", "docker_pull_policy", "batch_name", "initialdir"),
    *("input", "output", "error", "log", "stream_output", "stream_error", "environment"),
    *("getenv", "request_cpus", "machine_count", "request_memory", "request_disk"),
    *("request_gpus", "gpus_minimum_memory", "request_*", "retry_request_memory"),
    *("retry_request_disk", "requirements", "rank", "periodic_hold", "periodic_hold_reason"),
    *("periodic_hold_subcode", "periodic_release", "periodic_remove", "periodic_vacate"),
    *("on_exit_hold", "on_exit_remove", "allowed_job_duration", "deferral_time", "hold"),
    *("priority", "max_retries", "success_exit_code", "checkpoint_exit_code", "notification"),
    *("notify_user", "accounting_group", "+projectname", "concurrency_limits"),
    *("keep_claim_idle", "should_transfer_files", "when_to_transfer_output"),
    *("transfer_input_files", "transfer_output_files", "transfer_checkpoint_files"),
    *("transfer_output_remaps", "encrypt_input_files", "encrypt_output_files"),
    *("output_destination", "grid_resource", "max_idle", "max_materialize"),
)
_RANK: Final = {name: i for i, name in enumerate(ORDER)}


def command_rank(key: str) -> int:
    """Where a command goes in the file (see `ORDER`)."""
    name = key.lower()
    if name.startswith("my."):
        name = "+" + name[3:]
    if name in _RANK:
        return _RANK[name]
    if name.startswith("request_"):
        return _RANK["request_*"]
    if name.startswith("bammmc_array_"):
        return len(ORDER) + 2
    return len(ORDER) + (1 if name.startswith("+") else 0)


#: the most items an explicit `queue … in (…)` list gets; larger irregular index sets become one
#: `queue` statement per range
MAX_LISTED: Final = 1000
#: items per line of a `queue … in (…)` list
ITEMS_PER_LINE: Final = 20
#: words that start a statement of their own (htcondor.md §1): never a command name (`error` and
#: `warning` are statements only with a `:`, so `error = file` is the command)
STATEMENTS: Final = frozenset({"queue", "include", "if", "elif", "else", "endif"})
#: a command or macro name (config language: letters, digits, `_`, `.`)
NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
#: a job attribute written as `+Attr` or `MY.Attr`
ATTRIBUTE: Final = re.compile(r"(?:\+|[Mm][Yy]\.)[A-Za-z_][A-Za-z0-9_]*")
#: an environment variable name the new `environment` syntax can carry
ENV_NAME: Final = re.compile(r"[^\s=\"']+")
#: a macro reference: `$(NAME)`, `$$(Attr)`, `$$([expr])`, `$ENV(…)`, `$INT(…)`, `$Fnx(…)`
MACRO: Final = re.compile(r"\$\$?(?:[A-Za-z_][A-Za-z0-9_]*)?\((?:\[[^\]]*\]|[^()])*\)")
#: characters a shell would have treated specially in an argument string
_SHELL_SPECIAL: Final = re.compile(r"[$`*?\[~|&;<>()]")

CAPABILITIES: Final = Capabilities(
    "htcondor",
    ("htcondor",),
    {
        "apiVersion": EXACT,
        "kind": EXACT,
        "metadata.name": EXACT,
        "metadata.labels": lost("condor_submit has no option for it"),
        "metadata.annotations": lost("condor_submit has no option for it"),
        "metadata.clientId": lost("condor_submit has no option for it"),
        "spec.schedule.queue": exact(
            "",
            (("HTCondor has no queues: a pool matches jobs to machines by `requirements`"), "W201"),
        ),
        "spec.schedule.priority": EXACT,
        "spec.schedule.priorityClass": lost("condor_submit has no option for it"),
        "spec.schedule.account": EXACT,
        "spec.schedule.project": EXACT,
        "spec.schedule.walltime": exact(
            "",
            (
                (
                    "`allowed_job_duration = 41400`: HTCondor puts a job that runs "
                    "longer on hold (hold code 46) instead of ending "
                ),
                "W301",
            ),
        ),
        "spec.schedule.qos": lost("condor_submit has no command for it", by_writer=True),
        "spec.schedule.partition": exact(
            "",
            (("HTCondor has no queues: a pool matches jobs to machines by `requirements`"), "W201"),
        ),
        "spec.schedule.hold": EXACT,
        "spec.schedule.reservation": lost("condor_submit has no command for it", by_writer=True),
        "spec.schedule.beginAfter": EXACT,
        "spec.schedule.deadline": lost("condor_submit has no command for it", by_writer=True),
        "spec.schedule.walltimeMin": lost("condor_submit has no command for it", by_writer=True),
        "spec.schedule.signalBeforeEnd": lost(
            "condor_submit has no command for it", by_writer=True
        ),
        "spec.resources.cpusPerTask": exact(
            "",
            (
                "written as the slot's total: `request_*` is per slot, and a vanilla universe "
                "job's tasks share one slot",
                "W301",
            ),
        ),
        "spec.resources.memoryPerTask": exact(
            "",
            (
                (
                    "7600000000 bytes rounded up to 7248M (7600078848 bytes): "
                    "condor_submit counts whole MiB"
                ),
                "W301",
            ),
        ),
        "spec.resources.tasks": exact(
            "",
            (
                (
                    "512 tasks share one slot on one machine (`request_cpus`): a vanilla "
                    "universe job is one process; `extensions.h"
                ),
                "W301",
            ),
        ),
        "spec.resources.nodes": exact(
            "",
            ("a vanilla universe job runs on one machine, not 4 nodes", "W201"),
        ),
        "spec.resources.tasksPerNode": exact(
            "",
            ("a vanilla universe job runs on one machine", "W201"),
        ),
        "spec.resources.gpu.count": exact(
            "",
            (
                "written as the slot's total: `request_*` is per slot, and a vanilla universe "
                "job's tasks share one slot",
                "W301",
            ),
        ),
        "spec.resources.gpu.type": exact(
            "",
            ("HTCondor matches GPUs by their properties, not by a model name", "W201"),
        ),
        "spec.resources.gpu.memory": EXACT,
        "spec.resources.gpu.fraction": EXACT,
        "spec.resources.gpu.migProfile": EXACT,
        "spec.resources.diskPerTask": exact(
            "",
            (
                "written as the slot's total: `request_*` is per slot, and a vanilla universe "
                "job's tasks share one slot",
                "W301",
            ),
        ),
        "spec.resources.genericResources": exact(
            "",
            (
                "written as the slot's total: `request_*` is per slot, and a vanilla universe "
                "job's tasks share one slot",
                "W301",
            ),
        ),
        "spec.resources.limits": lost("condor_submit has no option for it"),
        "spec.execution.container.image": exact(
            "", ("a universe other than vanilla, container or docker runs no image", "W201")
        ),
        "spec.execution.container.imagePullPolicy": exact(
            "", ("only the docker universe takes a pull policy (`always`)", "W201")
        ),
        "spec.execution.container.imagePullSecrets": exact(
            "", ("registry credentials are the execute machine's configuration", "W201")
        ),
        "spec.execution.container.command": exact(
            "",
            ("the job's script or executable is what runs in the image", "W201"),
            (
                "the command's words after the program are written as `arguments` with the "
                "args: they read back as args",
                "W301",
            ),
        ),
        "spec.execution.container.args": exact(
            "",
            (
                "HTCondor runs a named program in the image, not its entrypoint; the job's "
                "script or executable is what runs in it",
                "W201",
            ),
            (
                "the command's words after the program are written as `arguments` with the "
                "args: they read back as args",
                "W301",
            ),
        ),
        "spec.execution.script": exact(
            "",
            ("`$BAMMM_ARRAY_INDEX` is built for htcondor: read from the job ad", "W301"),
        ),
        "spec.execution.executable": EXACT,
        "spec.execution.arguments": exact(
            "",
            (
                (
                    "HTCondor starts the program without a shell: variables, globs and "
                    "operators in the arguments are passed as the"
                ),
                "W301",
            ),
        ),
        "spec.execution.shell": EXACT,
        "spec.execution.workingDir": exact(
            "",
            (
                (
                    "`initialdir` is the submit side's directory for the job's files; "
                    "with file transfer the job itself runs in a s"
                ),
                "W301",
            ),
        ),
        "spec.execution.environment.vars": EXACT,
        "spec.execution.environment.secrets": lost(
            "Kubernetes secrets and config maps do not exist on HTCondor", by_writer=True
        ),
        "spec.execution.environment.configMaps": lost(
            "Kubernetes secrets and config maps do not exist on HTCondor", by_writer=True
        ),
        "spec.execution.environment.inheritFromSubmitter": EXACT,
        "spec.execution.stdin": EXACT,
        "spec.tasks": lost("condor_submit has no option for it"),
        "spec.gang": lost("condor_submit has no option for it"),
        "spec.array.indices": EXACT,
        "spec.array.maxConcurrent": exact(
            "",
            ("a throttle without indices limits nothing", "W201"),
        ),
        "spec.dependencies": exact(
            "",
            ("a submit file cannot wait for another job (`afterok` `4812345`)", "W201"),
        ),
        "spec.lifecycle.maxRetries": EXACT,
        "spec.lifecycle.requeueOnFailure": exact(
            "",
            ("HTCondor always runs an evicted job again", "W201"),
        ),
        "spec.lifecycle.successExitCodes": exact(
            "",
            ("HTCondor takes one success exit code: 0 is written", "W301"),
        ),
        "spec.lifecycle.ttlAfterFinished": lost("condor_submit has no option for it"),
        "spec.placement.nodeSelector": lost("condor_submit has no option for it"),
        "spec.placement.tolerations": lost("condor_submit has no option for it"),
        "spec.placement.affinity": lost("condor_submit has no option for it"),
        "spec.placement.topologySpread": lost("condor_submit has no option for it"),
        "spec.placement.topology": lost("condor_submit has no option for it"),
        "spec.placement.groupBy": lost("condor_submit has no option for it"),
        "spec.placement.constraint": lost("condor_submit has no option for it"),
        "spec.placement.prefer": lost("condor_submit has no option for it"),
        "spec.placement.exclusive": lost("condor_submit has no option for it"),
        "spec.placement.nodePools": lost("condor_submit has no option for it"),
        "spec.output.stdout": exact(
            "",
            (("the job has no name: `{job_name}` is the program's file name (`job.sh`)"), "W301"),
        ),
        "spec.output.stderr": exact(
            "",
            (("the job has no name: `{job_name}` is the program's file name (`job.sh`)"), "W301"),
        ),
        "spec.output.mergeStderr": exact(
            "",
            ("without `output` and `error` HTCondor keeps neither stream (/dev/null)", "W201"),
            (
                (
                    "`output` and `error` name the same file, so both streams go into it: they "
                    "are merged"
                ),
                "W301",
            ),
        ),
        "spec.output.openMode": exact(
            "",
            ("HTCondor writes the output files anew for each run", "W201"),
        ),
        "spec.notifications.email": EXACT,
        "spec.notifications.events": exact(
            "",
            (
                (
                    "HTCondor takes one `notification` value (`Complete` is written): no "
                    "mail on `begin`"
                ),
                "W201",
            ),
            ("`notification = Complete` mails on `end`, `fail`: it reads back as `end`", "W301"),
        ),
        "spec.fileStaging.inputs": exact(
            "",
            (
                (
                    "`gs://cmip7-forcing/ssp245/` arrives in the job's scratch directory "
                    "as `.`, not `forcing/`"
                ),
                "W301",
            ),
        ),
        "spec.fileStaging.outputs": EXACT,
        "spec.fileStaging.embeddedFiles": lost("condor_submit has no option for it"),
        "spec.fileStaging.transferPolicy": EXACT,
        "spec.fileStaging.checkpointFiles": EXACT,
        "spec.volumes": lost("condor_submit has no option for it"),
        "spec.workloadType": lost("condor_submit has no option for it"),
        "spec.distributedFramework": lost("condor_submit has no option for it"),
        "spec.extensions.htcondor.universe": EXACT,
        "spec.extensions.htcondor.requirements": EXACT,
        "spec.extensions.htcondor.rank": EXACT,
        "spec.extensions.htcondor.periodic_hold": EXACT,
        "spec.extensions.htcondor.periodic_hold_reason": EXACT,
        "spec.extensions.htcondor.periodic_hold_subcode": EXACT,
        "spec.extensions.htcondor.periodic_release": EXACT,
        "spec.extensions.htcondor.periodic_remove": EXACT,
        "spec.extensions.htcondor.periodic_vacate": EXACT,
        "spec.extensions.htcondor.on_exit_hold": EXACT,
        "spec.extensions.htcondor.on_exit_remove": EXACT,
        "spec.extensions.htcondor.checkpointExitCode": EXACT,
        "spec.extensions.htcondor.concurrency_limits": EXACT,
        "spec.extensions.htcondor.max_materialize": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.htcondor.max_idle": EXACT,
        "spec.extensions.htcondor.retry_request_memory": EXACT,
        "spec.extensions.htcondor.retry_request_disk": EXACT,
        "spec.extensions.htcondor.project_name": EXACT,
        "spec.extensions.htcondor.accounting_group": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.htcondor.batch_name": EXACT,
        "spec.extensions.htcondor.log": EXACT,
        "spec.extensions.htcondor.keep_claim_idle": EXACT,
        "spec.extensions.htcondor.stream_output": EXACT,
        "spec.extensions.htcondor.stream_error": EXACT,
        "spec.extensions.htcondor.encrypt_input_files": EXACT,
        "spec.extensions.htcondor.encrypt_output_files": EXACT,
        "spec.extensions.htcondor.transfer_output_remaps": EXACT,
        "spec.extensions.htcondor.output_destination": EXACT,
        "spec.extensions.htcondor.grid_resource": EXACT,
        "spec.extensions.htcondor.machine_count": exact(
            "",
            ("`machine_count` means something only in the parallel universe", "W201"),
        ),
        "spec.extensions.htcondor.dagman": exact(
            "",
            (("a DAGMan workflow is a `.dag` file of its own, not part of a submit file"), "W201"),
        ),
        "spec.extensions.htcondor.queue.count": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.htcondor.queue.vars": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.htcondor.queue.mode": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.htcondor.queue.items": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.htcondor.queue.source": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.htcondor.queue.slice": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.htcondor.queue.qualifier": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.htcondor.clusters": EXACT,
        "spec.extensions.htcondor.attributes": EXACT,
        "spec.extensions.htcondor.getenv": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.htcondor.notification": exact(
            "",
            ("the portable field was probably edited after the job was read", "W301"),
        ),
        "spec.extensions.htcondor.image_command": exact(
            "", ("the job has no container image to write it with", "W201")
        ),
        "spec.extensions.htcondor.macros": EXACT,
        "spec.extensions.htcondor.commands": EXACT,
        "spec.extensions.htcondor.verbatim": EXACT,
        "spec.extensions.htcondor.kept_macros": EXACT,
    },
)


#: a run of `$` that opens a macro reference condor_submit expands (`$(NAME)`, `$ENV(…)`,
#: `$INT(…)`, `$Fnx(…)`…) or the match fills in (`$$(Attr)`, `$$([expr])`); at a piece's end
#: (``(?=\Z)``), what the writer puts next may be its own `$(Cluster)`
REFERENCE: Final = re.compile(r"\$+(?=\(|[A-Za-z_][A-Za-z0-9_]*\(|\Z)")


def spelled_dollars(text: str, piece: bool = False) -> str | None:
    """Literal text as submit text that condor_submit expands back to it: each `$` that opens
    a reference is `$(DOLLAR)` (htcondor.md §2: `$(DOLLAR)` is a literal `$`; checked with
    htcondor2.Submit: `$(DOLLAR)(x)` expands to `$(x)`, `$(DOLLAR)ENV(HOME)` to `$ENV(HOME)`).
    None for text HTCondor cannot hold: `$$(` (the match fills it in, and `$` before a
    `$(DOLLAR)` makes one), or a literal `$(DOLLAR)` (condor_submit replaces `$(DOLLAR)` until
    none is left: `$(DOLLAR)(DOLLAR)` is `$`). A ``piece`` of a value ends where the writer
    may put a reference of its own, so a `$` at its end is spelled too.

    >>> spelled_dollars("$(x) $ENV(HOME) $HOME $5 $"), spelled_dollars("cost $", piece=True)
    ('$(DOLLAR)(x) $(DOLLAR)ENV(HOME) $HOME $5 $', 'cost $(DOLLAR)')
    >>> spelled_dollars("$$(Memory)"), spelled_dollars("$(dollar)"), spelled_dollars("$$ENV(x)")
    (None, None, '$$ENV(x)')
    """
    out: list[str] = []
    at = 0
    for match in REFERENCE.finditer(text):
        run, end = match.group(), match.end()
        opens = text.startswith("(", end) or (piece and end == len(text))
        if end == len(text) and not piece:
            continue
        if len(run) > 1:
            if opens:
                return None  # `$$(`: a match-time reference
            continue  # `$$NAME(` is no reference: condor_submit keeps it
        if re.match(r"\(\s*dollar", text[end:], re.IGNORECASE):
            return None
        out += [text[at : match.start()], "$(DOLLAR)"]
        at = end
    return "".join(out) + text[at:]


#: the blanks condor_submit trims around a value (C `isspace()`; a line break is E140)
TRIMMED: Final = " \t\v\f"


def without_discarded(out: Output) -> Output:
    """The output with `/dev/null` streams left unset: that is HTCondor's own default, so the
    submit file need not name it (a merged stream into `/dev/null` is discarded too)."""
    discarded = Template.parse(DISCARDED)
    if out.stdout == discarded:
        out = msgspec.structs.replace(out, stdout=None, merge_stderr=None)
    if out.stderr == discarded:
        out = msgspec.structs.replace(out, stderr=None)
    return out


class Unwritable(Exception):
    """A value no submit line can carry (already reported as E140)."""


def new_syntax_word(word: str) -> str:
    """One argument (or `NAME=value` entry) of the new `arguments`/`environment` syntax, without
    the surrounding double quotes: `'…'` around blanks and quotes, `''` for `'`, `""` for `"`.

    >>> [new_syntax_word(w) for w in ("plain", "a b", "it's", "")]
    ['plain', "'a b'", "'it''s'", "''"]
    >>> new_syntax_word('say "hi"')
    '\\'say ""hi""\\''
    """
    text = word.replace('"', '""')
    if word and not any(c in word for c in " \t'"):
        return text
    return "'" + text.replace("'", "''") + "'"


def size_text(n_bytes: int, base: str) -> tuple[str, int]:
    """A size with an explicit unit (the largest exact one of `T G M K`, never below ``base``,
    the unit a bare number has), and the bytes condor_submit reads from it: a size that is not
    a whole number of ``base`` units is rounded up, as condor_submit itself would.

    >>> size_text(4 * 1024**3, "M"), size_text(1536 * 1024**2, "M"), size_text(100 * 1024, "K")
    (('4G', 4294967296), ('1536M', 1610612736), ('100K', 102400))
    >>> size_text(4 * 10**9, "M"), size_text(1000, "K"), size_text(0, "M")
    (('3815M', 4000317440), ('1K', 1024), ('0M', 0))
    """
    unit = SIZE_FACTORS[base]
    whole = -(-n_bytes // unit) * unit
    if whole == 0:
        return f"0{base}", 0
    for name in ("T", "G", "M", "K"):
        factor = SIZE_FACTORS[name]
        if factor >= unit and whole % factor == 0:
            return f"{whole // factor}{name}", whole
    raise AssertionError("unreachable: the base unit divides the rounded size")


def progressions(ranges: Iterable[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The index set as maximal runs `(first, step, count)`, in order, each index once;
    computed from the ranges when they do not overlap.

    >>> progressions([(1, 10, 1)]), progressions([(1, 3, 1), (4, 6, 1)])
    ([(1, 1, 10)], [(1, 1, 6)])
    >>> progressions([(1, 1, 1), (3, 3, 1), (7, 12, 1)])
    [(1, 2, 2), (7, 1, 6)]
    >>> progressions([(0, 10**9, 2)])
    [(0, 2, 500000001)]
    """
    items = sorted((s, s + (e - s) // st * st, st) for s, e, st in ranges)
    if all(a[1] < b[0] for a, b in itertools.pairwise(items)):
        runs = [(first, step, (last - first) // step + 1) for first, last, step in items]
    else:  # overlapping ranges: list the indices
        runs = [(i, 1, 1) for i in sorted({i for s, e, st in items for i in range(s, e + 1, st)})]
    merged: list[tuple[int, int, int]] = []
    for first, step, count in runs:
        if merged:
            f0, s0, c0 = merged[-1]
            gap = first - (f0 + s0 * (c0 - 1))
            if gap > 0 and (c0 == 1 or s0 == gap) and (count == 1 or step == gap):
                merged[-1] = (f0, gap, c0 + count)
                continue
        merged.append((first, step, count))
    return [(f, st if c > 1 else 1, c) for f, st, c in merged]


@dataclass
class Submit:
    """What the writer means to write: the commands in order, then the queue statements (and
    the commands between them). ``script`` is the second file of a script-mode job."""

    commands: list[tuple[str, str]] = field(default_factory=list)
    queue: list[str] = field(default_factory=list)
    script: str | None = None

    def text(self) -> str:
        lines = [f"{key} = {value}" for key, value in self.commands]
        return "".join(line + "\n" for line in lines + self.queue)


@dataclass(frozen=True)
class ArrayPlan:
    """How the array's index reaches the job: the macro text for paths and arguments, and the
    shell expression the script's variable block reads it with."""

    macro: str
    shell: str


class HtcondorWriter(LossReports):
    """Writes one submit description (and the script of a script-mode job)."""

    WHERE = "for HTCondor"
    CHECK = "the converted submit command"

    def __init__(self, job: Job, reporter: Reporter, options: WriteOptions) -> None:
        self.job = job
        self.reporter = reporter
        self.options = options
        self.spec = job.spec or Spec()
        ext = self.spec.extensions
        self.ext = ext.htcondor if ext and ext.htcondor else HtcondorExt()
        self.out = Submit()
        self.written: set[str] = set()
        #: the field each written command comes from (`refuse_unreadable`)
        self.fields: dict[str, str] = {}
        self.universe = self.ext.universe
        ex = self.spec.execution
        image = ex.container.image if ex and ex.container and ex.container.image else None
        self.image = image
        self.parallel = self.universe == "parallel"
        res = self.spec.resources or Resources()
        self.res = res
        self.tasks = res.task_count
        cores = res.cpus_per_task.cores if res.cpus_per_task is not None else Fraction(1)
        self.cpus = cores
        self.array: ArrayPlan | None = None
        #: the queue statement(s), and the helper macros they need
        self.queue_plan: list[str] = []
        self.helper: list[tuple[str, str]] = []
        #: the `+BammmcArrayIndex` value, when the index is not `ProcId`
        self.attribute_index: str | None = None
        #: whether the script reads `BammmcArrayIndex` from the job ad
        self.needs_index_attribute = False
        #: commands whose portable text keeps HTCondor's own macro references
        self.kept = {k.lower() for k in self.ext.kept_macros or ()}

    # -- reporting -------------------------------------------------------------------------

    def unwritable(self, path: str | None, what: str, why: str) -> None:
        self.reporter.report("E140", f"{what} {why}", field=path, help="change the value")

    def overridden(self, ext_key: str, portable: str, shown: object) -> None:
        """An `extensions.htcondor` value that disagrees with the portable field it refines."""
        self.reporter.report(
            "W301",
            f"`spec.extensions.htcondor.{ext_key}` (`{shown}`) disagrees with `{portable}`; the "
            "portable value is written",
            field=f"spec.extensions.htcondor.{ext_key}",
            notes=("the portable field was probably edited after the job was read",),
            help=f"remove `extensions.htcondor.{ext_key}`, or make the two agree",
        )

    # -- values ----------------------------------------------------------------------------

    def line_safe(self, value: str, path: str | None, key: str, whole: bool = True) -> bool:
        """Whether ``value`` stays on its line: no line break, no NUL, and (a ``whole`` value:
        a part may end in one, `arguments = "C:\\dir\\"` does not) no trailing `\\`, which
        continues the line."""
        if any(c in value for c in "\n\r\0"):
            self.unwritable(
                path, f"the value of `{key}` contains a line break,", "so no submit line holds it"
            )
            return False
        if whole and value.rstrip(TRIMMED).endswith("\\"):
            self.unwritable(
                path,
                f"the value of `{key}` ends with `\\`,",
                "which would continue the submit line onto the next one",
            )
            return False
        return True

    def literal(
        self, text: str, path: str | None, key: str, whole: bool = True, follows: bool = False
    ) -> str:
        """Portable text as a submit value (``whole``) or a part of one (``follows``: more of
        the value comes right after it), or `Unwritable`. A `$` that would open a macro
        reference is `$(DOLLAR)` (:func:`spelled_dollars`), except in the commands the reader
        kept HTCondor's own references in (`extensions.htcondor.kept_macros`, W423): only
        HTCondor can say what those mean."""
        if not self.line_safe(text, path, key, whole):  # a part: `cmd` checks the whole
            raise Unwritable
        if whole and text != text.strip(TRIMMED):
            self.approximated(
                path or f"`{key}`", "condor_submit trims blanks around a value: they are dropped"
            )
            text = text.strip(TRIMMED)
        if key.lower() in self.kept:  # the reader's own references: HTCondor's to resolve
            return text
        spelled = spelled_dollars(text, piece=follows)
        if spelled is None:
            report_separator(
                self.reporter,
                path,
                "$",
                "condor_submit",
                f"the value of `{key}` holds `$$(` or `$(DOLLAR)`: HTCondor fills `$$(…)` in "
                "from the matched machine and replaces every `$(DOLLAR)`, and has no "
                "spelling of either as text",
                help="write the value without `$$(` and `$(DOLLAR)`, or list the command in "
                "`extensions.htcondor.kept_macros` if the references are HTCondor's own",
            )
            raise Unwritable
        return spelled

    def cmd(self, key: str, value: object, path: str | None = None) -> None:
        """``key = value``, ``value`` already in submit syntax."""
        text = str(value) if not isinstance(value, bool) else ("True" if value else "False")
        if not self.line_safe(text, path, key):
            return
        self.out.commands.append((key, text))
        self.written.add(key.lower())
        if path is not None:
            self.fields.setdefault(f"{key} = {text}", path)

    def put(self, key: str, text: str, path: str) -> None:
        """``key = text`` for portable text (macros escaped). An empty value is not written:
        condor_submit takes `key =` as the command's default, as the source schedulers do."""
        if not text:
            return
        try:
            self.cmd(key, self.literal(text, path, key), path)
        except Unwritable:
            return

    def native(self, key: str, value: object, path: str) -> None:
        """An `extensions.htcondor` value: HTCondor's own text, written as it is, but for the
        blanks condor_submit trims around it (W301)."""
        if isinstance(value, str) and value != value.strip(TRIMMED):
            self.approximated(path, "condor_submit trims blanks around a value: they are dropped")
            value = value.strip(TRIMMED)
        self.cmd(key, value, path)

    # -- the job ---------------------------------------------------------------------------

    def build(self) -> Submit:
        self.plan_array()
        self.universe_and_program()
        self.name()
        self.files()
        self.environment()
        self.resources()
        self.expressions()
        self.schedule()
        self.lifecycle()
        self.notifications()
        self.accounting()
        self.staging()
        self.extras()
        self.queue()
        self.unsupported()
        self.out.commands.sort(key=lambda kv: command_rank(kv[0]))  # stable: ties keep order
        return self.out

    def write(self) -> list[OutputFile]:
        submit = self.build()
        text = submit.text()
        # a raw value condor_submit refuses (`notification = often`) is not written
        refuse_unreadable(self.reporter, text, "htcondor", self.fields, "htcondor", "condor_submit")
        files = [OutputFile(text)]
        if submit.script is not None:
            files.append(OutputFile(submit.script, suffix=".sh", executable=True))
        return files

    # -- arrays ----------------------------------------------------------------------------

    def plan_array(self) -> None:
        """Decide the queue statement(s) and how the index is spelled."""
        arr = self.spec.array
        spec = arr.indices if arr is not None else None
        if spec is None or not spec.ranges:
            self.array = None
            return
        runs = progressions(spec.ranges)
        total = sum(c for _, _, c in runs)
        if len(runs) == 1:
            first, step, count = runs[0]
            self.queue_plan = [f"queue {count}" if count != 1 else "queue"]
            if (first, step) == (0, 1):
                self.array = ArrayPlan("$(Process)", job_ad("ProcId"))
                return
            expr = "$(Process)" + (f" * {step}" if step != 1 else "") + _signed(first)
            self.helper = [("bammmc_array_index", expr)]
            self.array = ArrayPlan("$INT(bammmc_array_index)", job_ad("BammmcArrayIndex"))
            self.attribute_index = "$INT(bammmc_array_index)"
            return
        if total <= MAX_LISTED:
            ids = [str(i) for i in sorted(spec)]
            self.queue_plan = ["queue bammmc_array_index in (", *item_rows(ids), ")"]
            self.array = ArrayPlan("$(bammmc_array_index)", job_ad("BammmcArrayIndex"))
            self.attribute_index = "$(bammmc_array_index)"
            return
        # one queue statement per run: the job ids go on counting across the statements of a
        # cluster, so each statement moves the base the index is counted from
        self.helper = [
            ("bammmc_array_index", "$(Process) * $(bammmc_array_step) + $(bammmc_array_base)")
        ]
        plan: list[str] = []
        done = 0
        for first, step, count in runs:
            plan += [
                f"bammmc_array_step = {step}",
                f"bammmc_array_base = {first - done * step}",
                f"queue {count}",
            ]
            done += count
        self.queue_plan = plan
        self.array = ArrayPlan("$INT(bammmc_array_index)", job_ad("BammmcArrayIndex"))
        self.attribute_index = "$INT(bammmc_array_index)"

    def submit_relative(self, program: str, initialdir: str | None) -> str:
        """The job model's executable, run from the job's working directory, as HTCondor's
        `executable`, a path from the submit directory (not from `initialdir`): `../run.sh` in
        `initialdir = data` is `./run.sh`. A word without `/` stays one: a command on `PATH`."""
        if program.startswith(("/", "~", "$")):
            return program
        where = (initialdir or "").strip()
        if where.startswith(("/", "~")) or "$" in where:
            self.approximated(
                "spec.execution.executable",
                f"HTCondor finds `executable` from the submit directory, not from `initialdir = "
                f"{where}`: submit the job from there, or write the program's full path",
            )
            return program
        if where and "/" in program:
            joined = posixpath.normpath(posixpath.join(where, program))
            program = joined if "/" in joined else f"./{joined}"
        return program

    def program_name(self) -> str:
        """The file name of what the job runs (a scheduler's default job name)."""
        ex = self.spec.execution or Execution()
        if ex.script is not None:
            return f"{self.options.script_stem}.sh"
        program = ex.executable or (
            ex.container.command[0] if ex.container and ex.container.command else ""
        )
        return program.rstrip("/").rsplit("/", 1)[-1] or "job"

    def index_macro(self) -> str:
        return self.array.macro if self.array is not None else "$(Process)"

    # -- program ---------------------------------------------------------------------------

    def universe_and_program(self) -> None:
        ex = self.spec.execution or Execution()
        universe = self.universe
        if universe is not None:
            self.cmd("universe", universe, "spec.extensions.htcondor.universe")
        if ex.script is not None:
            self.script_mode(ex)
        elif ex.executable is not None:
            program = self.submit_relative(ex.executable, ex.working_dir)
            arguments = ex.arguments
            if path_command(program):
                # a command word, found on `PATH` where the job runs; HTCondor's `executable`
                # is a file in the submit directory (htcondor.md §3): `env` does the lookup
                self.cmd("executable", ENV_PROGRAM, "spec.execution.executable")
                self.cmd("transfer_executable", False, "spec.execution.executable")
                arguments = shlex.quote(program) + (f" {arguments}" if arguments else "")
            else:  # `./run.sh` is written `run.sh`, as people write it
                self.put("executable", program.removeprefix("./"), "spec.execution.executable")
            if arguments:
                self.arguments(arguments, "spec.execution.arguments")
            if ex.shell is not None:
                self.lost(
                    "spec.execution.shell",
                    "the executable runs as a program, not through a shell",
                )
        elif ex.container is not None and (ex.container.command or ex.container.args):
            command = (ex.container.command or []) + (ex.container.args or [])
            if not ex.container.command:
                self.lost(
                    "spec.execution.container.args",
                    "HTCondor runs a named program in the image, not its entrypoint",
                )
                self.no_program()
            else:
                self.put("executable", command[0], "spec.execution.container.command")
                if len(ex.container.command) > 1:
                    for key in ("command", "args") if ex.container.args else ("command",):
                        self.approximated(
                            f"spec.execution.container.{key}",
                            "the command's words after the program are written as `arguments` "
                            "with the args: they read back as args",
                        )
                if len(command) > 1:
                    self.argument_list(command[1:], "spec.execution.container.args")
                # the program is inside the image: nothing to send
                self.cmd("transfer_executable", False, "spec.execution.container.command")
                if self.image is None:  # no image to run it in: it reads back as the program
                    for key in ("command", "args") if ex.container.args else ("command",):
                        self.approximated(
                            f"spec.execution.container.{key}",
                            "the job names no image: the command is the job's `executable` "
                            "(and `arguments`) on the execute machine",
                        )
                if ex.shell is not None:
                    self.lost(
                        "spec.execution.shell",
                        "the image's program runs as a program, not through a shell",
                    )
        elif ex.shell is not None:
            # HTCondor's `shell` command: a /bin/sh command line instead of executable+arguments
            self.put("shell", ex.shell, "spec.execution.shell")
        else:
            self.no_program()
        if ex.arguments and ex.executable is None and ex.script is None:
            self.lost("spec.execution.arguments", "the job runs no `executable` to pass them to")
        self.container(ex)

    def no_program(self) -> None:
        """condor_submit refuses a job without a program (the reader's E103): so does the
        writer, rather than write a file no one can submit."""
        self.reporter.report(
            "E103",
            "the job names no program (no script, executable or container command), and "
            "HTCondor needs `executable`: condor_submit refuses a submit file without one",
            field="spec.execution",
            notes=(
                "HTCondor runs one program per job, and no image's entrypoint: `spec.tasks` "
                "and `extensions.slurm.het_components` are not written",
            ),
            help="set `spec.execution.script`, `executable` or `container.command`",
        )

    def container(self, ex: Execution) -> None:
        if self.ext.image_command is not None and self.image is None:
            self.lost(
                "spec.extensions.htcondor.image_command",
                "it names the submit command of the container image, and the job has none "
                "(`execution.container.image`): nothing is written with it",
            )
        if ex.container is None:
            return
        c = ex.container
        if ex.script is not None or ex.executable is not None:
            for key, value in (("command", c.command), ("args", c.args)):
                if value:
                    self.lost(
                        f"spec.execution.container.{key}",
                        "the job's "
                        + ("script" if ex.script is not None else "executable")
                        + " is what runs in the image",
                    )
        if self.image is not None:
            universe = self.universe
            named = (c.image or "").strip(TRIMMED)
            if named != c.image:  # before the `docker://` that may go in front of it
                self.approximated(
                    "spec.execution.container.image",
                    "condor_submit trims blanks around a value: they are dropped",
                )
            if universe == "docker":
                image = named
                image = image[len("docker://") :] if image.startswith("docker://") else image
                self.put("docker_image", image, "spec.execution.container.image")
            elif universe in (None, "vanilla", "container") and (
                self.ext.image_command == "docker_image"
            ):  # the reader saw `docker_image` in the container universe: written as it was
                self.put("docker_image", named, "spec.execution.container.image")
            elif universe in (None, "vanilla", "container"):
                image = named
                if (
                    not re.match(r"[a-z][a-z0-9+.-]*://", image)
                    and not image.startswith(("/", "./", "../"))
                    and not image.endswith(".sif")
                ):
                    image = "docker://" + image
                self.put("container_image", image, "spec.execution.container.image")
            else:
                self.lost(
                    "spec.execution.container.image",
                    f"the `{universe}` universe runs no container image",
                )
                if self.ext.image_command is not None:
                    self.lost(
                        "spec.extensions.htcondor.image_command",
                        f"the `{universe}` universe runs no container image: nothing is written "
                        "with it",
                    )
        if c.image_pull_policy is not None:
            if c.image_pull_policy == "Always" and self.universe == "docker":
                self.cmd("docker_pull_policy", "always", "spec.execution.container.imagePullPolicy")
            elif c.image_pull_policy != "IfNotPresent":
                self.lost(
                    "spec.execution.container.imagePullPolicy",
                    "only the docker universe takes a pull policy (`docker_pull_policy = always`)",
                )
        if c.image_pull_secrets:
            self.lost(
                "spec.execution.container.imagePullSecrets",
                "registry credentials are the execute machine's configuration",
            )

    def script_mode(self, ex: Execution) -> None:
        text = ex.script or ""
        if "\r\n" in text:  # a `#!/bin/bash\r` line does not run
            text = text.replace("\r\n", "\n")
            self.approximated("spec.execution.script", "DOS line ends (CRLF) converted to LF")
        shell = ex.shell or "/bin/bash"
        if text.startswith("#!"):
            first, nl, body = text.partition("\n")
            shebang = first + nl
            if ex.shell is not None and ex.shell not in first:
                self.approximated(
                    "spec.execution.shell",
                    f"HTCondor runs the script with its own `{first}` line, not `{ex.shell}`",
                )
        else:
            shebang, body = f"#!{shell}\n", text
            self.approximated(
                "spec.execution.script",
                f"`#!{shell}` is added as its first line: HTCondor runs the script as a program",
            )
        body = rewrite_launchers(self, body, "htcondor", self.spec)
        block = compatibility_block(
            body,
            "htcondor",
            self.approximated,
            self.noted,
            self.derived_variables(),
            shell=job_shell(self.spec),
            spec=self.spec,
        )
        if block and self.attribute_index is not None and "BammmcArrayIndex" in block:
            self.needs_index_attribute = True
        self.out.script = shebang + block + body
        stem = self.options.script_stem
        self.put("executable", f"{stem}.sh", "spec.execution.script")
        if ex.arguments:  # the script is the program: it gets them as `$1`…
            self.arguments(ex.arguments, "spec.execution.arguments")

    def derived_variables(self) -> dict[str, tuple[str, str]]:
        """The job-specific shell expressions of the script's variable block."""
        out: dict[str, tuple[str, str]] = {}
        if self.array is not None:
            out["array_index"] = (self.array.shell, "read from the job ad")
            out["job_id"] = (
                job_ad("ClusterId") + "." + job_ad("ProcId"),
                "`ClusterId.ProcId` from the job ad: the cluster id is the same for every job "
                "of the array",
            )
        meta = self.job.metadata
        name = meta.name if meta is not None and meta.name else self.program_name()
        out["job_name"] = (_dq(name), "the job's name, written into the script")
        out["ntasks"] = (str(self.tasks), "the task count, written into the script")
        out["num_nodes"] = (
            str(self.res.nodes if self.parallel and self.res.nodes else 1),
            "one machine" if not self.parallel else "the machine count",
        )
        out["nslots"] = (str(self.total_cpus()), "the job's CPUs")
        if not self.parallel:
            out["nodefile"] = (
                '$(f=$(mktemp); hostname > "$f"; echo "$f")',
                "one line: the machine the job runs on",
            )
        return out

    def arguments(self, text: str, path: str) -> None:
        """SPLAT's argument string (shell words) in the new syntax."""
        try:
            words = shlex.split(text)
        except ValueError as exc:
            self.unwritable(path, f"the arguments `{text}`", f"are not shell words ({exc})")
            return
        plain = re.sub(r"\$\{?(" + "|".join(ARGUMENT_VARIABLES) + r")\}?", "", text)
        if "arguments" in self.kept:  # HTCondor's own references: no shell syntax
            plain = MACRO.sub("", plain)
        if _SHELL_SPECIAL.search(plain.replace("'", "").replace('"', "")):
            self.approximated(
                path,
                "HTCondor starts the program without a shell: variables, globs and operators "
                "in the arguments are passed as they are",
            )
        self.argument_list(words, path)

    def argument_list(self, words: list[str], path: str) -> None:
        parts: list[str] = []
        for word in words:
            pieces = re.split(r"(\$\{?(?:" + "|".join(ARGUMENT_VARIABLES) + r")\}?)", word)
            out: list[str] = []
            for n, piece in enumerate(pieces):
                match = re.fullmatch(r"\$\{?(\w+)\}?", piece)
                if match and match.group(1) in ARGUMENT_VARIABLES:
                    concept = ARGUMENT_VARIABLES[match.group(1)]
                    out.append(self.index_macro() if concept == "array_index" else "$(Cluster)")
                    continue
                try:
                    more = n + 1 < len(pieces) and pieces[n + 1] != ""
                    out.append(self.literal(piece, path, "arguments", whole=False, follows=more))
                except Unwritable:
                    return
            joined = "".join(out)
            parts.append(new_syntax_word(joined))
        self.cmd("arguments", '"' + " ".join(parts) + '"', path)

    # -- naming and files ------------------------------------------------------------------

    def name(self) -> None:
        meta = self.job.metadata
        name = meta.name if meta is not None else None
        batch = self.ext.batch_name
        if batch is not None and name is not None and batch != name:
            self.overridden("batch_name", "metadata.name", batch)
            batch = None
        if name is not None:
            with contextlib.suppress(Unwritable):
                text = self.literal(name, "metadata.name", "batch_name")
                if text[:1] == '"' and text[-1:] == '"':  # condor_submit takes one pair off
                    text = f'"{text}"'
                self.cmd("batch_name", text, "metadata.name")
        elif batch is not None:
            self.native("batch_name", batch, "spec.extensions.htcondor.batch_name")

    def workdir(self) -> None:
        ex = self.spec.execution
        if ex is not None and ex.working_dir is not None:
            self.put("initialdir", ex.working_dir, "spec.execution.workingDir")
            self.approximated(
                "spec.execution.workingDir",
                "`initialdir` is the submit side's directory for the job's files; with file "
                "transfer the job itself runs in a scratch directory",
            )

    def files(self) -> None:
        self.workdir()
        ex = self.spec.execution
        if ex is not None and ex.stdin is not None:
            self.put("input", ex.stdin, "spec.execution.stdin")
        out = self.spec.output
        if out is not None:
            out = without_discarded(out)
            stdout = self.path(out.stdout, "spec.output.stdout") if out.stdout else None
            if stdout is not None:
                self.cmd("output", stdout, "spec.output.stdout")
            if out.merge_stderr and out.stdout is not None:
                if out.stderr is not None and out.stderr != out.stdout:
                    self.lost(
                        "spec.output.stderr",
                        "stderr is merged into the output file (`mergeStderr`)",
                    )
                elif out.stderr is not None:
                    # the same file: what writing the name changes, it changes for stderr too
                    self.path(out.stderr, "spec.output.stderr")
                if stdout is not None:
                    self.cmd("error", stdout, "spec.output.mergeStderr")
            elif out.stderr is not None:
                stderr = self.path(out.stderr, "spec.output.stderr")
                if stderr is not None:
                    self.cmd("error", stderr, "spec.output.stderr")
                if out.merge_stderr is False and stderr is not None and stderr == stdout:
                    # `output` = `error` is one file that receives both streams (and bammmc's
                    # reader reads it so): merged, whatever `mergeStderr: false` says
                    self.approximated(
                        "spec.output.mergeStderr",
                        "`output` and `error` name the same file, so both streams go into it: "
                        "they are merged",
                    )
                if out.merge_stderr:
                    self.approximated(
                        "spec.output.mergeStderr",
                        "no `output` file to merge stderr into (without one HTCondor discards "
                        "stdout): stderr is written to `error` alone",
                    )
            if out.merge_stderr is not None and out.stdout is None and out.stderr is None:
                self.lost(
                    "spec.output.mergeStderr",
                    "without `output` and `error` HTCondor keeps neither stream (/dev/null)",
                )
            if out.open_mode == "append":
                self.lost(
                    "spec.output.openMode",
                    "HTCondor writes the output files anew for each run",
                )
        if self.ext.log is not None:
            self.native("log", self.ext.log, "spec.extensions.htcondor.log")
        for key in ("stream_output", "stream_error"):
            value = getattr(self.ext, key)
            if value is not None:
                self.native(key, bool(value), f"spec.extensions.htcondor.{key}")

    def path(self, template: Template, field: str) -> str | None:
        array = self.spec.array is not None and self.array is not None
        variables = template.variables()
        if array and "job_id" in variables and "array_index" not in variables:
            self.approximated(
                field,
                "`{job_id}` is `$(Cluster)`, which every job of the array shares: their "
                "files have the same name",
            )
        parts: list[str] = []
        for n, (kind, text) in enumerate(template.parts):
            if kind == "text":
                more = n + 1 < len(template.parts)
                try:
                    parts.append(self.literal(text, field, "output", whole=False, follows=more))
                except Unwritable:
                    return None
            elif text in PATH_MACROS:
                parts.append(PATH_MACROS[text])
            elif text == "array_index":
                parts.append(self.index_macro())
            elif text == "job_name":
                meta = self.job.metadata
                if meta is not None and meta.name:
                    try:
                        parts.append(
                            self.literal(
                                meta.name,
                                "metadata.name",
                                "batch_name",
                                whole=False,
                                follows=n + 1 < len(template.parts),
                            )
                        )
                    except Unwritable:
                        return None
                else:
                    program = self.program_name()
                    parts.append(program)
                    self.approximated(
                        field,
                        f"the job has no name: `{{job_name}}` is the program's file name "
                        f"(`{program}`)",
                    )
            elif text == "task_index":
                parts.append("$(Node)" if self.parallel else "0")
                if not self.parallel:
                    self.approximated(
                        field, "`{task_index}` is 0: a vanilla universe job is one task"
                    )
            else:
                self.approximated(
                    field, f"`{{{text}}}` has no HTCondor spelling in a file name: left out"
                )
        text = "".join(parts)
        if text != text.strip(TRIMMED):
            self.approximated(field, "condor_submit trims blanks around a value: they are dropped")
        return text.strip(TRIMMED)

    def environment(self) -> None:
        ex = self.spec.execution
        env = ex.environment if ex is not None else None
        path = "spec.execution.environment.vars"
        if env is not None and env.vars:
            entries: list[str] = []
            for key, value in env.vars.items():
                if not key or not ENV_NAME.fullmatch(key):
                    c = separator_in(key, " \"'=") if key else None
                    if c is None:
                        self.unwritable(path, f"`{key}`", "is not a name `environment` can carry")
                    else:  # the new syntax ends a name at `=` and a word at a blank
                        report_separator(
                            self.reporter,
                            path,
                            c,
                            "`environment`",
                            f"the variable name `{key}` would end there or become another "
                            "entry of the list",
                            help=f"rename the variable without {shown_char(c)}",
                        )
                    continue
                try:
                    name = self.literal(key, path, "environment", whole=False)
                    text = self.literal(value, path, "environment", whole=False)
                except Unwritable:
                    continue
                entries.append(new_syntax_word(f"{name}={text}"))
            if entries:
                self.cmd("environment", '"' + " ".join(entries) + '"', path)
        getenv = self.ext.getenv
        inherit = env.inherit_from_submitter if env is not None else None
        if getenv is not None and inherit is not None:
            self.overridden("getenv", "spec.execution.environment.inheritFromSubmitter", getenv)
            getenv = None
        if getenv is not None:
            self.native("getenv", getenv, "spec.extensions.htcondor.getenv")
        elif inherit is not None:
            self.cmd("getenv", inherit, "spec.execution.environment.inheritFromSubmitter")
        if env is not None:
            for key in ("secrets", "config_maps"):
                if getattr(env, key):
                    self.lost(
                        "spec.execution.environment."
                        + ("configMaps" if key == "config_maps" else key),
                        "Kubernetes secrets and config maps do not exist on HTCondor",
                    )

    # -- resources -------------------------------------------------------------------------

    def total_cpus(self) -> int:
        per_slot = self.cpus if self.parallel else self.cpus * self.tasks
        return -(-per_slot.numerator // per_slot.denominator)

    def slots(self) -> int:
        """How many slots the job's tasks share: one, or one per task (parallel universe)."""
        return self.tasks if self.parallel else 1

    def per_slot(self, amount: Fraction, scope: str | None, default: str, path: str) -> Fraction:
        """An amount stated per ``scope`` as the amount one slot needs."""
        scope = scope or default
        tasks, cpus = self.tasks, self.cpus
        if scope in ("task", "process"):
            total = amount * tasks
        elif scope in ("cpu", "slot"):
            total = amount * cpus * tasks
        elif scope == "job":
            total = amount
        elif scope in ("node", "chunk"):
            total = amount * self.node_count(path, scope)
        elif scope == "gpu":
            gpus = self.total_gpus()
            if gpus is None:
                self.approximated(path, "the amount per GPU is taken for the whole job")
                gpus = Fraction(1)
            total = amount * gpus
        else:
            self.approximated(path, f"the amount per {scope} is taken for the whole job")
            total = amount
        return total / self.slots()

    def node_count(self, path: str, scope: str) -> int:
        """The job's nodes, for an amount per node; one, with a W301, when the job does not say
        and has several tasks (they may have run on several)."""
        res = self.res
        nodes = res.nodes
        if nodes is None and res.tasks_per_node:
            nodes = -(-self.tasks // res.tasks_per_node)
        if nodes is None:
            if self.tasks > 1:
                self.approximated(
                    path,
                    f"the amount per {scope} is taken for the whole job: the job does not say "
                    f"how many nodes its {self.tasks} tasks ran on",
                )
            nodes = 1
        return nodes

    def total_gpus(self, path: str | None = None) -> Fraction | None:
        gpu = self.res.gpu
        if gpu is None or gpu.count is None:
            return None
        count = gpu.count
        scope = count.scope or "task"
        if scope == "task":
            return count.amount * self.tasks
        if scope == "node":
            if path is None:
                return count.amount * (self.res.nodes or 1)
            return count.amount * self.node_count(path, scope)
        if scope == "job":
            return count.amount
        return None

    def size(self, key: str, size: Size, path: str, default: str = "task") -> None:
        amount = self.per_slot(Fraction(size.bytes), size.scope, default, path)
        whole = -(-amount.numerator // amount.denominator)
        text, written = size_text(whole, BASE_UNIT[key])
        if amount != size.bytes:
            self.per_job(path, human_size(amount))
        if written != amount:
            unit = "MiB" if BASE_UNIT[key] == "M" else "KiB"
            self.approximated(
                path,
                f"{human_size(amount)} rounded up to {text}: condor_submit counts whole {unit}",
            )
        self.cmd(key, text, path)

    def per_job(self, path: str, amount: str) -> None:
        """W301: a per-task amount written as what the job's one slot needs (``amount``),
        which reads back as one task's."""
        self.approximated(
            path,
            f"written as the slot's {amount}: `request_*` is per slot, and a vanilla universe "
            f"job's {self.tasks} tasks share one slot",
        )

    def resources(self) -> None:
        res = self.res
        if res.cpus_per_task is not None or self.tasks != 1:
            per_slot = self.cpus if self.parallel else self.cpus * self.tasks
            cpus = self.total_cpus()
            if res.cpus_per_task is not None and per_slot != res.cpus_per_task.cores:
                self.per_job("spec.resources.cpusPerTask", f"{per_slot} CPUs")
            if cpus != per_slot:
                self.approximated(
                    "spec.resources.cpusPerTask", f"{per_slot} CPUs rounded up to {cpus}"
                )
            if cpus != 1 or res.cpus_per_task is not None:
                self.cmd("request_cpus", cpus, "spec.resources.cpusPerTask")
        self.shape()
        mem = res.memory_per_task
        ext = self.spec.extensions
        if mem is not None:
            self.size("request_memory", mem, "spec.resources.memoryPerTask")
        elif ext is not None and ext.slurm is not None and ext.slurm.mem is not None:
            if ext.slurm.mem.bytes:  # `--mem=0` (all of the node) is reported as lost
                self.size("request_memory", ext.slurm.mem, "spec.extensions.slurm.mem", "node")
                self.approximated(
                    "spec.extensions.slurm.mem",
                    "the slurm form is not written; `request_memory` carries it (the job's "
                    "memory, `resources.memoryPerTask`)",
                )
        elif ext is not None and ext.pbs is not None and ext.pbs.mem is not None:
            self.size("request_memory", ext.pbs.mem, "spec.extensions.pbs.mem", "job")
            self.approximated(
                "spec.extensions.pbs.mem",
                "the pbs form is not written; `request_memory` carries it (the job's memory, "
                "`resources.memoryPerTask`)",
            )
        if res.disk_per_task is not None:
            self.size("request_disk", res.disk_per_task, "spec.resources.diskPerTask")
        self.gpus()
        for name, count in (res.generic_resources or {}).items():
            path = f"spec.resources.genericResources.{name}"
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]+", name) or name.lower() in (
                "cpus",
                "memory",
                "disk",
                "gpus",
            ):
                self.lost(path, f"`request_{name}` is not a resource name HTCondor can request")
                continue
            amount = self.per_slot(count.amount, count.scope, "task", path)
            if amount != count.amount:
                self.per_job(path, str(amount))
            whole = -(-amount.numerator // amount.denominator)
            if whole != amount:
                self.approximated(path, f"{amount} rounded up to {whole}")
            self.cmd(f"request_{name}", whole, path)
        for key in ("retry_request_memory", "retry_request_disk"):
            sizes = getattr(self.ext, key)
            if sizes:
                path = f"spec.extensions.htcondor.{key}"
                amounts = []
                for size in sizes:
                    # the slot's amounts, as `request_*`: a size per task, CPU or node is the
                    # slot's share of it (a scope-less size is the slot's already)
                    if size.scope is None:
                        amounts.append(size.bytes)
                        continue
                    share = self.per_slot(Fraction(size.bytes), size.scope, "job", path)
                    whole = -(-share.numerator // share.denominator)
                    self.approximated(path, f"`{size}` written as the slot's {human_size(whole)}")
                    amounts.append(whole)
                texts = [size_text(n, BASE_UNIT[key]) for n in amounts]
                if any(written != n for (_, written), n in zip(texts, amounts, strict=True)):
                    self.approximated(path, "sizes rounded up to whole base units")
                self.native(key, ", ".join(t for t, _ in texts), path)

    def shape(self) -> None:
        res = self.res
        if self.parallel:
            count = self.tasks
            if self.ext.machine_count is not None and self.ext.machine_count != count:
                if res.tasks is not None or res.nodes is not None:
                    self.overridden("machine_count", "spec.resources", self.ext.machine_count)
                else:
                    count = self.ext.machine_count
            self.cmd("machine_count", count, "spec.resources")
            if res.tasks_per_node is not None and res.tasks_per_node != 1:
                self.lost(
                    "spec.resources.tasksPerNode",
                    "the parallel universe places its slots itself (one task per slot)",
                )
            return
        if self.ext.machine_count is not None:
            self.lost(
                "spec.extensions.htcondor.machine_count",
                "`machine_count` means something only in the parallel universe",
            )
        if self.tasks > 1:
            self.approximated(
                "spec.resources.tasks",
                f"{self.tasks} tasks share one slot on one machine (`request_cpus`): a "
                "vanilla universe job is one process; `extensions.htcondor.universe: "
                "parallel` gives one slot per task",
            )
        if res.nodes is not None and res.nodes > 1:
            self.lost(
                "spec.resources.nodes",
                f"a vanilla universe job runs on one machine, not {res.nodes} nodes",
                help="set `extensions.htcondor.universe: parallel` for one slot per task",
            )
        if res.tasks_per_node is not None and ((res.nodes or 1) > 1 or res.tasks_per_node > 1):
            self.lost("spec.resources.tasksPerNode", "a vanilla universe job runs on one machine")

    def gpus(self) -> None:
        gpu = self.res.gpu
        if gpu is None:
            return
        if gpu.count is not None:
            path = "spec.resources.gpu.count"
            total = self.total_gpus(path)
            if total is None:
                self.approximated(path, f"GPUs per {gpu.count.scope} taken for the whole job")
                total = gpu.count.amount
            per_slot = total / self.slots()
            whole = -(-per_slot.numerator // per_slot.denominator)
            if per_slot != gpu.count.amount:  # per task, or per node of several nodes
                self.per_job(path, f"{per_slot} GPUs")
            if whole != per_slot:
                self.approximated(path, f"{per_slot} GPUs rounded up to {whole}")
            if whole:
                self.cmd("request_gpus", whole, path)
        if gpu.memory is not None:
            text, written = size_text(gpu.memory.bytes, "M")
            if written != gpu.memory.bytes:
                self.approximated(
                    "spec.resources.gpu.memory",
                    f"{human_size(gpu.memory.bytes)} rounded up to {text}: condor_submit "
                    "counts whole MiB",
                )
            self.cmd("gpus_minimum_memory", text, "spec.resources.gpu.memory")
        if gpu.type is not None:
            self.lost(
                "spec.resources.gpu.type",
                "HTCondor matches GPUs by their properties, not by a model name",
                help=f'add `require_gpus = regexp("{gpu.type}", DeviceName, "i")` to '
                "`extensions.htcondor.commands` if the pool's GPU names contain it",
            )
        for key, path in (("fraction", "fraction"), ("mig_profile", "migProfile")):
            if getattr(gpu, key) is not None:
                self.lost(f"spec.resources.gpu.{path}", "HTCondor assigns whole GPUs")

    # -- policy ----------------------------------------------------------------------------

    def expressions(self) -> None:
        ext = self.ext
        for key in (
            "requirements",
            "rank",
            "periodic_hold",
            "periodic_hold_reason",
            "periodic_hold_subcode",
            "periodic_release",
            "periodic_remove",
            "periodic_vacate",
            "on_exit_hold",
            "on_exit_remove",
        ):
            value = getattr(ext, key)
            if value is not None:
                self.native(key, value, f"spec.extensions.htcondor.{key}")

    def schedule(self) -> None:
        sched = self.spec.schedule
        if sched is None:
            return
        if sched.walltime is not None and sched.walltime.seconds is not None:
            self.cmd("allowed_job_duration", sched.walltime.seconds, "spec.schedule.walltime")
            self.approximated(
                "spec.schedule.walltime",
                f"`allowed_job_duration = {sched.walltime.seconds}`: HTCondor puts a job that "
                "runs longer on hold (hold code 46) instead of ending it",
            )
        if sched.begin_after is not None:
            when = sched.begin_after.value
            if when.tzinfo is None:
                self.approximated(
                    "spec.schedule.beginAfter",
                    "a time without a zone is taken as UTC (`deferral_time` is Unix seconds)",
                )
                when = when.replace(tzinfo=dt.UTC)
            self.cmd("deferral_time", int(when.timestamp()), "spec.schedule.beginAfter")
        if sched.hold is not None:
            self.cmd("hold", sched.hold, "spec.schedule.hold")
        if sched.priority is not None:
            native = to_native(sched.priority, "htcondor", self.options.band)
            self.cmd("priority", native, "spec.schedule.priority")
            report_priority_rounding(
                self,
                sched.priority,
                native,
                "htcondor",
                self.options.band,
                "spec.schedule.priority",
            )
        for path, queue in (
            ("spec.schedule.queue", sched.queue),
            ("spec.schedule.partition", sched.partition),
        ):
            if queue is not None:
                self.lost(
                    path,
                    "HTCondor has no queues: a pool matches jobs to machines by `requirements`",
                    help="express the partition's machines in `extensions.htcondor.requirements`",
                )
        for key, path in (
            ("qos", "spec.schedule.qos"),
            ("reservation", "spec.schedule.reservation"),
            ("deadline", "spec.schedule.deadline"),
            ("walltime_min", "spec.schedule.walltimeMin"),
            ("signal_before_end", "spec.schedule.signalBeforeEnd"),
        ):
            if getattr(sched, key) is not None:
                self.lost(path, "condor_submit has no command for it")

    def lifecycle(self) -> None:
        life = self.spec.lifecycle
        if life is not None:
            if life.max_retries is not None:
                self.cmd("max_retries", life.max_retries, "spec.lifecycle.maxRetries")
            codes = life.success_exit_codes
            if codes:
                path = "spec.lifecycle.successExitCodes"
                self.cmd("success_exit_code", codes[0], path)
                if len(codes) > 1:
                    self.approximated(
                        path, f"HTCondor takes one success exit code: {codes[0]} is written"
                    )
                if codes[0] != 0:
                    retries = (
                        ""
                        if life.max_retries is not None
                        else "; without `max_retries`, condor_submit retries a job that exits "
                        "with another code up to DEFAULT_JOB_MAX_RETRIES times"
                    )
                    self.approximated(
                        path,
                        f"with `success_exit_code = {codes[0]}` an exit code of 0 counts as a "
                        f"failure{retries}",
                    )
            if life.requeue_on_failure is False:
                self.lost(
                    "spec.lifecycle.requeueOnFailure",
                    "HTCondor always runs an evicted job again",
                )
        if self.ext.checkpoint_exit_code is not None:
            self.native(
                "checkpoint_exit_code",
                self.ext.checkpoint_exit_code,
                "spec.extensions.htcondor.checkpointExitCode",
            )
        for dep_index, dep in enumerate(self.spec.dependencies or ()):
            self.lost(
                f"spec.dependencies[{dep_index}]",
                f"a submit file cannot wait for another job (`{dep.scheme}`"
                + (f" `{dep.value}`" if dep.value else "")
                + ")",
                help="order the jobs with DAGMan: a `.dag` file with `JOB` and `PARENT … CHILD` "
                "lines, submitted with `condor_submit_dag`",
            )
        if self.ext.dagman:
            self.lost(
                "spec.extensions.htcondor.dagman",
                "a DAGMan workflow is a `.dag` file of its own, not part of a submit file",
            )

    def notifications(self) -> None:
        note = self.spec.notifications
        raw = self.ext.notification
        if raw is not None and raw.strip().lower() not in {k.lower() for k in NOTIFICATIONS}:
            self.lost(
                "spec.extensions.htcondor.notification",
                f"`notification = {raw}` is not Always, Complete, Error, Start or Never: "
                "condor_submit refuses it",
            )
            raw = None
        if note is None or (note.events is None and note.email is None):
            if raw is not None:
                self.native("notification", raw, "spec.extensions.htcondor.notification")
            return
        events = note.events
        if raw is not None and events is not None:
            canonical = next((k for k in NOTIFICATIONS if k.lower() == raw.lower()), None)
            if canonical is None or NOTIFICATIONS[canonical] != frozenset(events):
                self.overridden("notification", "spec.notifications.events", raw)
                raw = None
        if raw is not None:
            self.native("notification", raw, "spec.extensions.htcondor.notification")
        elif events is not None:
            value = notification_for(events)
            covered = MAILED_ON[value]
            also = ""
            if set(events) & covered != NOTIFICATIONS[value]:
                also = (
                    f"`notification = {value}` mails on "
                    + ", ".join(f"`{e}`" for e in sorted(covered))
                    + ": it reads back as "
                    + (", ".join(f"`{e}`" for e in sorted(NOTIFICATIONS[value])) or "no mail")
                )
            # HTCondor takes one `notification` value: one warning for what it leaves out
            report_missed_mail(self, f"`notification = {value}`", list(events), covered, also)
            self.cmd("notification", value, "spec.notifications.events")
        if note.email is not None:
            self.put("notify_user", note.email, "spec.notifications.email")

    def accounting(self) -> None:
        sched = self.spec.schedule
        ext = self.ext
        account = sched.account if sched is not None else None
        group = ext.accounting_group
        if group is not None and account is not None and group != account:
            self.overridden("accounting_group", "spec.schedule.account", group)
            group = None
        if account is not None:
            self.put("accounting_group", account, "spec.schedule.account")
        elif group is not None:
            self.native("accounting_group", group, "spec.extensions.htcondor.accounting_group")
        project = sched.project if sched is not None else None
        pname = ext.project_name
        if pname is not None and project is not None and pname != project:
            self.overridden("project_name", "spec.schedule.project", pname)
            pname = None
        value = project if project is not None else pname
        if value is not None:
            path = (
                "spec.schedule.project"
                if project is not None
                else "spec.extensions.htcondor.project_name"
            )
            if not refuse_separator(
                self.reporter,
                path,
                value,
                "\\",
                "condor_submit",
                "`+ProjectName` is a ClassAd string: condor_submit reads it in old ClassAd "
                "syntax, where a `\\` is itself unless a quote follows, and the job's ClassAd "
                "tools in new syntax, where it starts an escape",
                help="remove the `\\` from the project name",
            ):
                with contextlib.suppress(Unwritable):
                    self.cmd(
                        "+ProjectName", self.literal(classad_string(value), path, "+ProjectName")
                    )
        path = "spec.extensions.htcondor.concurrency_limits"
        limits = ext.concurrency_limits or []
        if (
            not any(  # a `,` or a blank would end a limit and start another (htcondor.md §3)
                refuse_separator(
                    self.reporter,
                    path,
                    limit,
                    ", \t",
                    "`concurrency_limits`",
                    f"`concurrency_limits` is a comma-separated list: the limit `{limit}` would be "
                    "read as more than one",
                    help="name each limit in its own item, as `NAME` or `NAME:count`",
                )
                for limit in limits
            )
            and limits
        ):
            self.native("concurrency_limits", ", ".join(limits), path)
        if ext.keep_claim_idle is not None:
            self.native(
                "keep_claim_idle", ext.keep_claim_idle, "spec.extensions.htcondor.keep_claim_idle"
            )

    def staging(self) -> None:
        fs = self.spec.file_staging
        ext = self.ext
        remaps: dict[str, str] = dict(ext.transfer_output_remaps or {})
        if fs is not None:
            if fs.transfer_policy is not None:
                self.cmd(
                    "should_transfer_files",
                    TRANSFER_POLICIES[fs.transfer_policy],
                    "spec.fileStaging.transferPolicy",
                )
            if fs.inputs:
                path = "spec.fileStaging.inputs"
                names = [i.src for i in fs.inputs]
                for item in fs.inputs:
                    if item.dst not in (sandbox_name(item.src), "./" + sandbox_name(item.src)):
                        self.approximated(
                            path,
                            f"`{item.src}` arrives in the job's scratch directory as "
                            f"`{sandbox_name(item.src)}`, not `{item.dst}`",
                        )
                self.file_list("transfer_input_files", names, path)
            if fs.outputs:
                path = "spec.fileStaging.outputs"
                self.file_list("transfer_output_files", [o.src for o in fs.outputs], path)
                for item in fs.outputs:
                    if item.dst == item.src:
                        continue
                    if item.src in remaps and remaps[item.src] != item.dst:
                        self.overridden("transfer_output_remaps", path, remaps[item.src])
                    remaps[item.src] = item.dst
            if fs.checkpoint_files:
                self.file_list(
                    "transfer_checkpoint_files",
                    fs.checkpoint_files,
                    "spec.fileStaging.checkpointFiles",
                )
        if remaps:
            self.remaps(remaps)
        for key in ("encrypt_input_files", "encrypt_output_files"):
            files = getattr(ext, key)
            if files:  # a comma list, as transfer_input_files (a `,` in a name is E140)
                self.file_list(key, files, f"spec.extensions.htcondor.{key}")
        if ext.output_destination is not None:
            self.native(
                "output_destination",
                ext.output_destination,
                "spec.extensions.htcondor.output_destination",
            )
        if ext.grid_resource is not None:
            self.native(
                "grid_resource", ext.grid_resource, "spec.extensions.htcondor.grid_resource"
            )

    def file_list(self, key: str, names: list[str], path: str) -> None:
        texts: list[str] = []
        for name in names:
            if not name.strip():
                self.unwritable(path, f"the file name `{name}`", f"cannot be an item of `{key}`")
                return
            if refuse_separator(
                self.reporter,
                path,
                name,
                ",",
                f"`{key}`",
                f"`{key}` is a comma-separated list (htcondor.md §3.2): the file name "
                f"`{name}` would be read as several files",
                help="rename the file without `,`",
            ):
                return
            try:
                texts.append(self.literal(name, path, key))
            except Unwritable:
                return
        self.cmd(key, ", ".join(texts), path)

    def remaps(self, remaps: dict[str, str]) -> None:
        path = "spec.fileStaging.outputs"
        entries = []
        for src, dst in remaps.items():
            if '"' in src + dst or "\\" in src + dst:
                # the value is one double-quoted string, and `\=` `\;` are its only escapes
                # (htcondor.md §3.2): a `\` of a name has no spelling
                c = '"' if '"' in src + dst else "\\"
                report_separator(
                    self.reporter,
                    path,
                    c,
                    "`transfer_output_remaps`",
                    f"the remap `{src} = {dst}` would end the quoted list or escape the "
                    "character after it",
                    help=f"rename the file without {shown_char(c)}",
                )
                return
            pair = [s.replace("=", "\\=").replace(";", "\\;") for s in (src, dst)]
            try:
                entries.append(
                    " = ".join(self.literal(p, path, "transfer_output_remaps") for p in pair)
                )
            except Unwritable:
                return
        self.cmd("transfer_output_remaps", '"' + "; ".join(entries) + '"', path)

    def extras(self) -> None:
        ext = self.ext
        for key, value in (self.ext.macros or {}).items():
            self.raw_command(key, value, f"spec.extensions.htcondor.macros.{key}")
        for key, value in (self.ext.attributes or {}).items():
            path = f"spec.extensions.htcondor.attributes.{key}"
            if not ATTRIBUTE.fullmatch(key):
                self.unwritable(path, f"`{key}`", "is not a job attribute (`+Name` or `MY.Name`)")
                continue
            self.native(key, value, path)
        if self.needs_index_attribute and self.attribute_index is not None:
            self.cmd("+BammmcArrayIndex", self.attribute_index, "spec.array.indices")
        for key, value in (self.ext.commands or {}).items():
            self.raw_command(key, value, f"spec.extensions.htcondor.commands.{key}")
        if ext.max_idle is not None:
            self.native("max_idle", ext.max_idle, "spec.extensions.htcondor.max_idle")

    def raw_command(self, key: str, value: str, path: str) -> None:
        if not NAME.fullmatch(key) or key.lower() in STATEMENTS:
            self.unwritable(path, f"`{key}`", "is not a submit command name")
            return
        if key.lower() in self.written:
            self.reporter.report(
                "W301",
                f"`{path}` sets `{key}`, which is written from its own field; the field's "
                "value is written",
                field=path,
                help=f"remove `{key}` from `extensions.htcondor`",
            )
            return
        self.native(key, value, path)

    def verbatim(self) -> None:
        """`extensions.htcondor.verbatim`: `include` lines and `if` blocks the reader kept as
        written, just before the queue statement. A block holding a `queue` statement (or
        not ending its `if`) would change what is queued: E140."""
        for i, block in enumerate(self.ext.verbatim or []):
            path = f"spec.extensions.htcondor.verbatim[{i}]"
            lines = block.splitlines()
            opened = sum(bool(re.match(r"[ \t]*if\b(?![ \t]*=)", ln, re.I)) for ln in lines)
            closed = sum(bool(re.match(r"[ \t]*endif[ \t]*$", ln, re.I)) for ln in lines)
            if opened != closed or any(
                re.match(r"[ \t]*queue\b(?![ \t]*=)", ln, re.I) for ln in lines
            ):
                self.unwritable(path, "a kept statement", "holds `queue` or an unclosed `if`")
                continue
            check = Reporter()
            scan(block, check)  # the reader's own grammar: what condor_submit would refuse
            refused = next((d for d in check.diagnostics if d.is_error), None)
            if refused is not None:
                self.unwritable(path, "a kept statement", f"is refused: {refused.message}")
                continue
            self.out.queue += lines

    def queue(self) -> None:
        self.verbatim()
        arr = self.spec.array
        throttle = None
        if arr is not None:
            throttle = arr.max_concurrent
            if arr.indices is not None and arr.indices.throttle:
                throttle = arr.indices.throttle
        ext_mm = self.ext.max_materialize
        if ext_mm is not None and throttle is not None and ext_mm != throttle:
            self.overridden("max_materialize", "spec.array.maxConcurrent", ext_mm)
            ext_mm = None
        multi = sum(line.startswith("queue") for line in self.queue_plan) > 1
        if throttle is not None and self.array is not None:
            if multi:
                self.lost(
                    "spec.array.maxConcurrent",
                    "`max_materialize` needs a single `queue` statement",
                )
            else:
                self.cmd("max_materialize", throttle, "spec.array.maxConcurrent")
        elif ext_mm is not None:
            self.native("max_materialize", ext_mm, "spec.extensions.htcondor.max_materialize")
        elif throttle is not None:
            self.lost("spec.array.maxConcurrent", "a throttle without indices limits nothing")
        raw = self.ext.queue
        if raw is not None:
            statement = self.raw_queue()
            if statement is not None:
                self.out.queue += statement
                self.clusters()
                return
        for key, value in self.helper:
            self.cmd(key, value, "spec.array.indices")
        self.out.queue += self.queue_plan or ["queue"]
        self.clusters()

    def raw_queue(self) -> list[str] | None:
        """`extensions.htcondor.queue` (items, variables, slices, a count expression) as a
        statement, when the portable array still says what the reader made of it: an array
        `0..N-1` for N = count × items, no array for one job, a count that is an expression,
        a slice, or items from a file or a command. A plain count is not kept: it is N over the
        items."""
        q = self.ext.queue
        assert q is not None
        arr = self.spec.array
        indices = arr.indices if arr is not None else None
        jobs: int | None = 1
        if indices is not None:
            runs = progressions(indices.ranges)
            jobs = runs[0][2] if len(runs) == 1 and runs[0][:2] == (0, 1) else None
        count = q.count
        if q.mode is not None and q.items and not q.slice and count is None:
            consistent = jobs is not None and jobs % len(q.items) == 0
            if consistent and jobs is not None and jobs // len(q.items) != 1:
                count = str(jobs // len(q.items))
        elif q.mode is not None and q.items and not q.slice and is_int(count):
            consistent = jobs == int(count or 1) * len(q.items)
        else:  # an expression, a slice, items from elsewhere: the reader sets no array
            consistent = indices is None
        if not consistent:
            self.overridden("queue", "spec.array.indices", "queue " + queue_args(q, q.count))
            return None
        return self.queue_lines(q, count)

    def queue_lines(self, q: HtcondorQueue, count: str | None) -> list[str] | None:
        path = "spec.extensions.htcondor.queue"
        args = queue_args(q, count)
        head = f"queue {args}" if args else "queue"
        texts = [*(q.items or []), q.source or "", args]
        for text in texts:
            if not self.line_safe(text, path, "queue"):
                return None
        if q.mode is None:
            return [head]
        if q.source is not None:
            return [f"{head} {q.source}"]
        items = q.items or []
        if any(item.lstrip().startswith(")") for item in items):
            self.unwritable(path, "an item starting with `)`", "would end the item list")
            return None
        if q.mode == "matching":
            return [f"{head} {' '.join(items)}"]
        if q.mode == "in":  # items are words: several to a line, as the writer lists indices
            return [f"{head} (", *item_rows(items), ")"]
        return [f"{head} (", *items, ")"]

    def clusters(self) -> None:
        for i, cluster in enumerate(self.ext.clusters or ()):
            path = f"spec.extensions.htcondor.clusters[{i}]"
            for key, value in (cluster.commands or {}).items():
                if (
                    not (NAME.fullmatch(key) or ATTRIBUTE.fullmatch(key))
                    or key.lower() in STATEMENTS
                ):
                    self.unwritable(path, f"`{key}`", "is not a submit command name")
                    return
                if not self.line_safe(value, path, key):
                    return
                self.out.queue.append(f"{key} = {value}")
            if not self.line_safe(cluster.queue, path, "queue"):
                return
            self.out.queue.append(f"queue {cluster.queue}".rstrip())

    def unsupported(self) -> None:
        report_unsupported(self, self.job, CAPABILITIES, "condor_submit")
        spec = self.spec
        if spec.extensions:
            handled: tuple[str, ...] = ()
            ext = spec.extensions
            if (
                self.res.memory_per_task is None
                and ext.slurm is not None
                and ext.slurm.mem is not None
                and ext.slurm.mem.bytes
            ):
                handled += ("spec.extensions.slurm.mem",)
            if (
                self.res.memory_per_task is None
                and (ext.slurm is None or ext.slurm.mem is None)
                and ext.pbs is not None
                and ext.pbs.mem is not None
            ):
                handled += ("spec.extensions.pbs.mem",)
            report_foreign(self, spec, ("htcondor",), handled)


def notification_for(events: Iterable[str]) -> str:
    """The one `notification` value for a set of events: the one that mails on the most of
    them and on nothing else, ends before starts (pitfall 39).

    >>> [notification_for(e) for e in ([], ["end"], ["end", "fail"], ["fail"], ["begin", "end"])]
    ['Never', 'Complete', 'Complete', 'Error', 'Complete']
    """
    wanted = set(events)
    if wanted & {"end"}:
        return "Complete"
    if "fail" in wanted:
        return "Error"
    if "begin" in wanted:
        return "Start"
    return "Never"


def queue_args(q: HtcondorQueue, count: str | None) -> str:
    """The words after `queue` (count, variables, mode, qualifier, slice), as the reader keeps
    them.

    >>> queue_args(HtcondorQueue(vars=["x", "y"], mode="from", slice="1:"), "3")
    '3 x, y from [1:]'
    """
    words = [count] if count is not None else []
    if q.mode is not None:
        if q.vars and [v.lower() for v in q.vars] != ["item"]:
            words.append(", ".join(q.vars))
        words.append(q.mode)
        if q.qualifier:
            words.append(q.qualifier)
        if q.slice:
            words.append(f"[{q.slice}]")
    return " ".join(words)


def item_rows(items: list[str]) -> list[str]:
    """`in (…)` items, `ITEMS_PER_LINE` to a line.

    >>> item_rows([str(i) for i in range(23)])[1]
    '20, 21, 22'
    """
    return [", ".join(items[k : k + ITEMS_PER_LINE]) for k in range(0, len(items), ITEMS_PER_LINE)]


def is_int(text: str | None) -> bool:
    return text is not None and re.fullmatch(r"[0-9]+", text.strip()) is not None


def _signed(n: int) -> str:
    return f" + {n}" if n > 0 else f" - {-n}" if n < 0 else ""


def _dq(text: str) -> str:
    """Text for inside a shell `"…"` word."""
    return re.sub(r'([\\"$`])', r"\\\1", text)


def classad_string(text: str) -> str:
    r"""A ClassAd string literal for a `+Attr` value, read alike in old syntax (condor_submit's
    `ParseClassAdRvalExpr`) and new: a `"` is `\"`. A backslash reads otherwise in each (old:
    itself; new: an escape), so the writer refuses it first (docs/classad.md).

    >>> print(classad_string('say "hi"'))
    "say \"hi\""
    """
    return '"' + text.replace('"', '\\"') + '"'


def sandbox_name(path: str) -> str:
    """Where condor_submit puts a transferred input: its base name (`dir/` sends the contents)."""
    stripped = path.rstrip("/")
    if "://" in stripped:
        stripped = stripped.split("://", 1)[1]
    base = stripped.rsplit("/", 1)[-1]
    return "." if path.endswith("/") and path != "/" else base or path


def write(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> list[OutputFile]:
    return HtcondorWriter(job, reporter or Reporter(), options or WriteOptions()).write()


def intended(job: Job, options: WriteOptions | None = None) -> Submit:
    """What the writer means to write (commands and queue lines), for checks against
    HTCondor's own parser."""
    return HtcondorWriter(job, Reporter(), options or WriteOptions()).build()


__all__ = ["CAPABILITIES", "HtcondorWriter", "Submit", "intended", "write"]
