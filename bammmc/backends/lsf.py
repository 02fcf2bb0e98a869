"""The IBM Spectrum LSF writer (format ``lsf``): a script for `bsub < job.lsf`.

`#BSUB` lines in a fixed order, one option per line, values quoted so that bsub's tokenizer
reads them back exactly (E140 when no quoting can carry a value). Slots from the per-task IR
(`-n`, `span[ptile=N]` / `span[hosts=1]`, `affinity[core(C)]`), memory per slot as
`rusage[mem=…]` with an explicit unit (never a bare number: the site unit is unknown, pitfall
8/9), a raw `extensions.lsf.rusage_string` wins; `-W H:MM` rounded up to whole minutes
(pitfall 12/15); arrays in the job name (`-J "name[1-10:2]%5"`); dependencies as a `-w`
expression; `%J`/`%I` in output paths; `-oo`/`-eo` for truncating output.
The directives are read only for `bsub < job.lsf` (or with `LSB_BSUB_PARSE_SCRIPT=Y`).

Siblings: ``frontends/lsf.py``, ``passes/lower/lsf.py``.
"""

from __future__ import annotations

import datetime as dt
import re
from fractions import Fraction
from typing import Any, Final

import msgspec

from bammmc.backends import OutputFile, WriteOptions
from bammmc.backends.common import (
    BLANK,
    LossReports,
    camel,
    dependency_gap,
    refuse_separator,
    refuse_unreadable,
    report_foreign,
    report_missed_mail,
    report_priority_rounding,
    report_unsupported,
    rewrite_launchers,
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
from bammmc.facts.lsf import ID_LIKE
from bammmc.ir.envvars import compatibility_block, job_shell, shift_array_index
from bammmc.ir.job import Job, LsfComputeUnit, LsfExt, Resources, Schedule, Spec
from bammmc.ir.priority import to_native
from bammmc.ir.values import Count, Cpu, DateTime, Duration, Size, Template, Value

CAPABILITIES: Final = Capabilities(
    "lsf",
    ("lsf",),
    {
        "apiVersion": EXACT,
        "kind": EXACT,
        "metadata.name": exact(
            "",
            ("an LSF array needs a name: `array` is used", "W301"),
        ),
        "metadata.labels": lost("bsub has no option for it"),
        "metadata.annotations": lost("bsub has no option for it"),
        "metadata.clientId": lost("bsub has no idempotency key for a submission"),
        "spec.schedule.queue": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.queues` is written instead (`-q normal "
                    "long`), and it says something else"
                ),
                "W301",
            ),
        ),
        "spec.schedule.priority": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.priority` is written instead (`-sp 75`), "
                    "and it says something else"
                ),
                "W301",
            ),
        ),
        "spec.schedule.priorityClass": lost("bsub has no option for it"),
        "spec.schedule.account": EXACT,
        "spec.schedule.project": EXACT,
        "spec.schedule.walltime": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.run_limit` is written instead (`-W "
                    "30/hostA`), and it says something else"
                ),
                "W301",
            ),
        ),
        "spec.schedule.qos": lost("bsub has no option for it"),
        "spec.schedule.partition": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.queues` is written instead (`-q normal "
                    "long`), and it says something else"
                ),
                "W301",
            ),
        ),
        "spec.schedule.hold": EXACT,
        "spec.schedule.reservation": EXACT,
        "spec.schedule.beginAfter": approx("written in UTC; bsub reads the local time"),
        "spec.schedule.deadline": approx("written in UTC; bsub reads the local time"),
        "spec.schedule.walltimeMin": lost("bsub has no option for it"),
        "spec.schedule.signalBeforeEnd": lost("bsub has no option for it"),
        "spec.resources.cpusPerTask": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.resources.memoryPerTask": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.resources.tasks": exact(
            "", ("with `-nnodes`, which allocates whole nodes: `-n` is refused", "W201")
        ),
        "spec.resources.nodes": exact(
            "",
            ("4 hosts as one task per host", "W301"),
            ("5 tasks on 4 hosts written as 2 per host (on 3 hosts)", "W301"),
        ),
        "spec.resources.tasksPerNode": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.resources.gpu.count": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.gpu_options` is written instead (`-gpu "
                    "num=1:mode=exclusive_process:mps=no`), and it s"
                ),
                "W301",
            ),
        ),
        "spec.resources.gpu.type": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.gpu_options` is written instead (`-gpu "
                    "num=1:mode=exclusive_process:mps=no`), and it s"
                ),
                "W301",
            ),
        ),
        "spec.resources.gpu.memory": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.gpu_options` is written instead (`-gpu "
                    "num=1:mode=exclusive_process:mps=no`), and it s"
                ),
                "W301",
            ),
        ),
        "spec.resources.gpu.fraction": EXACT,
        "spec.resources.gpu.migProfile": EXACT,
        "spec.resources.diskPerTask": exact(
            "",
            ("scratch space is a site-defined LSF resource", "W201"),
        ),
        "spec.resources.genericResources": approx(
            "written as `rusage[NAME=N]`: a site-defined LSF resource, reserved per host, task "
            "or job as the site configures it"
        ),
        "spec.resources.limits": lost("bsub has no option for it"),
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
            ("`$BAMMM_ARRAY_INDEX` is defined from `$LSB_JOBINDEX`", "N003"),
            (
                "`$SLURM_ARRAY_JOB_ID` has no equivalent here: it is empty in the converted script",
                "W301",
            ),
        ),
        "spec.execution.executable": EXACT,
        "spec.execution.arguments": EXACT,
        "spec.execution.shell": EXACT,
        "spec.execution.workingDir": EXACT,
        "spec.execution.environment.vars": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.env` is written instead (`-env all, "
                    "~HOME`), and it says something else"
                ),
                "W301",
            ),
        ),
        "spec.execution.environment.secrets": lost(
            "Kubernetes secrets and config maps do not exist on LSF", by_writer=True
        ),
        "spec.execution.environment.configMaps": lost(
            "Kubernetes secrets and config maps do not exist on LSF", by_writer=True
        ),
        "spec.execution.environment.inheritFromSubmitter": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.env` is written instead (`-env all, "
                    "~HOME`), and it says something else"
                ),
                "W301",
            ),
        ),
        "spec.execution.stdin": EXACT,
        "spec.tasks": lost("bsub has no option for it"),
        "spec.gang": lost("bsub has no option for it"),
        "spec.array.indices": exact(
            "",
            (
                "LSF array indices start at 1: `0-199%25` is written shifted by 1, and the index "
                "variables of the script are `$LSB_JOBINDEX - 1`; `%I` in file names and "
                "`$LSB_JOBINDEX` itself are the shifted index",
                "W301",
            ),
        ),
        "spec.array.maxConcurrent": lost("a limit without indices has no array", by_writer=True),
        "spec.dependencies": exact(
            "",
            ("LSF has no `singleton` dependency", "W201"),
            (
                (
                    "the raw `extensions.lsf.dependency` is written instead (`-w "
                    'done(1234) || exit("prep", >2)`), and it says some'
                ),
                "W301",
            ),
        ),
        "spec.lifecycle.maxRetries": lost("bsub has no option for it"),
        "spec.lifecycle.requeueOnFailure": EXACT,
        "spec.lifecycle.successExitCodes": lost("bsub has no option for it"),
        "spec.lifecycle.ttlAfterFinished": lost("bsub has no option for it"),
        "spec.placement.nodeSelector": lost("bsub has no option for it"),
        "spec.placement.tolerations": lost("bsub has no option for it"),
        "spec.placement.affinity": lost("bsub has no option for it"),
        "spec.placement.topologySpread": lost("bsub has no option for it"),
        "spec.placement.topology": lost("bsub has no option for it"),
        "spec.placement.groupBy": lost("bsub has no option for it"),
        "spec.placement.constraint": exact(
            "",
            ("only features joined by `&` become an LSF `select[a && b]`", "W201"),
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.placement.prefer": lost("bsub has no option for it"),
        "spec.placement.exclusive": EXACT,
        "spec.placement.nodePools": lost("bsub has no option for it"),
        "spec.output.stdout": exact(
            "",
            ("LSF cannot put `{job_name}` in an output path; `%J` is used", "W301"),
        ),
        "spec.output.stderr": exact(
            "",
            ("LSF cannot put `{job_name}` in an output path; `%J` is used", "W301"),
        ),
        "spec.output.mergeStderr": exact(
            "",
            ("LSF writes stderr into the `-o` file when there is no `-e`", "W301"),
            (
                ("without `-o` or `-e`, LSF mails the output and the errors in one job report"),
                "W201",
            ),
        ),
        "spec.output.openMode": exact(
            "",
            ("it is the open mode of the `-o`/`-e` files, and neither is written", "W201"),
            (
                (
                    "the raw `extensions.lsf.error_open_mode` is written instead (`-eo "
                    "err`), and it says something else"
                ),
                "W301",
            ),
        ),
        "spec.notifications.email": EXACT,
        "spec.notifications.events": exact(
            "",
            ("LSF has no mail on `requeue`", "W201"),
            ("LSF has no mail on `requeue`; the job's other mail events are written", "W301"),
            (
                "`-N` mails at every end of the job, failures included: it reads back as `end`",
                "W301",
            ),
        ),
        "spec.fileStaging.inputs": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.files` is written instead (`-f log << "
                    "log`), and it says something else"
                ),
                "W301",
            ),
        ),
        "spec.fileStaging.outputs": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.files` is written instead (`-f log << "
                    "log`), and it says something else"
                ),
                "W301",
            ),
        ),
        "spec.fileStaging.embeddedFiles[].name": exact(
            "",
            ("bsub has no option for it", "W201"),
        ),
        "spec.fileStaging.embeddedFiles[].content": lost("bsub has no option for it"),
        "spec.fileStaging.embeddedFiles[].encoding": lost("bsub has no option for it"),
        "spec.fileStaging.embeddedFiles[].permissions": lost("bsub has no option for it"),
        "spec.fileStaging.transferPolicy": exact(
            "",
            ("bsub has no option for it", "W201"),
        ),
        "spec.fileStaging.checkpointFiles": exact(
            "",
            ("bsub has no option for it", "W201"),
        ),
        "spec.volumes": lost("bsub has no option for it"),
        "spec.workloadType": lost("bsub has no option for it"),
        "spec.distributedFramework": lost("bsub has no option for it"),
        "spec.extensions.lsf.app_profile": EXACT,
        "spec.extensions.lsf.service_class": EXACT,
        "spec.extensions.lsf.license_project": EXACT,
        "spec.extensions.lsf.rusage_string": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.extensions.lsf.compute_unit.type": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.extensions.lsf.compute_unit.policy": exact(
            "",
            ("`pack` has no `cu[]` keyword: LSF's default preference is used", "W301"),
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.extensions.lsf.compute_unit.max_units": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.extensions.lsf.compute_unit.exclusive": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.extensions.lsf.same_resource": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.extensions.lsf.order_expression": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.extensions.lsf.autoresizable": EXACT,
        "spec.extensions.lsf.frequency": exact(
            "",
            ("bammmc does not know the bsub option for it", "W201"),
        ),
        "spec.extensions.lsf.pre_exec": EXACT,
        "spec.extensions.lsf.post_exec": EXACT,
        "spec.extensions.lsf.cpu_time_limit": EXACT,
        "spec.extensions.lsf.stack_limit": EXACT,
        "spec.extensions.lsf.thread_limit": EXACT,
        "spec.extensions.lsf.run_window": exact(
            "",
            ("bammmc does not know the bsub option for it", "W201"),
        ),
        "spec.extensions.lsf.gpu_options": EXACT,
        "spec.extensions.lsf.mem_limit": EXACT,
        "spec.extensions.lsf.mem_limit_hard": EXACT,
        "spec.extensions.lsf.memory_from_limit": EXACT,
        "spec.extensions.lsf.select": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.extensions.lsf.span": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.extensions.lsf.cu": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.extensions.lsf.affinity": exact(
            "",
            (
                (
                    "the raw `extensions.lsf.resreq` is written instead (`-R "
                    "1*{select[LN]} + 4*{select[CN] span[ptile=1]}`), and i"
                ),
                "W301",
            ),
        ),
        "spec.extensions.lsf.resreq": EXACT,
        "spec.extensions.lsf.max_tasks": exact(
            "",
            ("the maximum of 64 slots is below the 512 tasks asked for", "W201"),
            ("`-nnodes` allocates whole nodes; `-n` is refused", "W201"),
        ),
        "spec.extensions.lsf.nnodes": EXACT,
        "spec.extensions.lsf.alloc_flags": EXACT,
        "spec.extensions.lsf.queues": EXACT,
        "spec.extensions.lsf.hosts": EXACT,
        "spec.extensions.lsf.priority": EXACT,
        "spec.extensions.lsf.dependency": EXACT,
        "spec.extensions.lsf.begin": EXACT,
        "spec.extensions.lsf.deadline": EXACT,
        "spec.extensions.lsf.run_limit": EXACT,
        "spec.extensions.lsf.files": EXACT,
        "spec.extensions.lsf.env": EXACT,
        "spec.extensions.lsf.login_shell": EXACT,
        "spec.extensions.lsf.outdir": EXACT,
        "spec.extensions.lsf.error_open_mode": exact(
            "", ("without a separate stderr file (`-e`)", "W201")
        ),
        "spec.extensions.lsf.options": EXACT,
    },
)


#: LSF units for explicit sizes (powers of 1024), largest first
UNITS: Final = (
    ("EB", 1024**6),
    ("PB", 1024**5),
    ("TB", 1024**4),
    ("GB", 1024**3),
    ("MB", 1024**2),
    ("KB", 1024),
)
SCHEME_CONDITIONS: Final = {
    "afterok": "done",
    "afternotok": "exit",
    "afterany": "ended",
    "after": "started",
}
#: characters after which a value is quoted (the sheet quotes arrays, -R and -w values)
#: What a resource name cannot hold (IBM, "Configuring the lsf.shared resource section":
#: `: . ( ) [ + - * / ! & | < > @ = ,`), and what `-R` reads as syntax around one: `]` ends
#: its section, white space separates sections, a quote starts a string
RESOURCE_NAME_SYNTAX: Final = ":.()[]+-*/!&|<>@=,'\"" + BLANK
#: the keywords of a `-gpu` string are `:`-separated `name=value` pairs (IBM `bsub -gpu`)
KEYWORD_VALUE_SYNTAX: Final = ":[]'\"" + BLANK
SPECIAL: Final = frozenset(" \t\"'[]%*()|&<>!$;{}#`\\,")
#: patterns bsub fills in: in `-o`/`-e`/`-i` file names, and in `-cwd` (IBM bsub -o, -cwd)
FILE_PATTERN: Final = re.compile(r"%[JI]")
CWD_PATTERN: Final = re.compile(r"%(?:JG|EJ|EI|[JIPUGH])")
#: a Slurm-style array element in a dependency value (`123_4`, `123_*`, `123_[1-3]`)
ARRAY_ELEMENT: Final = re.compile(r"([0-9]+)_(.+)")


class LsfWriter(LossReports):
    WHERE = "for LSF"

    def __init__(self, job: Job, reporter: Reporter, options: WriteOptions) -> None:
        self.job = job
        self.reporter = reporter
        self.options = options
        self.lines: list[str] = []
        #: the field each written line comes from (`refuse_unreadable`)
        self.fields: dict[str, str] = {}
        self.spec = job.spec or Spec()
        ext = self.spec.extensions
        self.ext = ext.lsf if ext and ext.lsf else LsfExt()

    # -- reporting -------------------------------------------------------------------------

    def unwritable(self, path: str | None, message: str, why: str, help: str) -> None:
        self.reporter.report("E140", message, field=path, notes=(why,), help=help)

    def resource_name(self, name: str, path: str, section: str) -> bool:
        """Whether ``name`` can be written as a resource name in the `-R` section
        ``section`` (E140 if not): LSF's resource names cannot hold the characters its
        expressions use, and a `]`, a blank or a quote would end the section or the string."""
        return not refuse_separator(
            self.reporter,
            path,
            name,
            RESOURCE_NAME_SYNTAX,
            f"an `-R` `{section}[…]` section",
            "LSF resource names cannot hold `: . ( ) [ + - * / ! & | < > @ = ,`; in `-R`, `]` "
            "ends the section, white space starts another one and a quote starts a string",
            help="use the resource's name as the LSF site defines it",
        )

    def in_section(self, text: str, path: str, section: str) -> bool:
        """Whether a raw fragment of `extensions.lsf` stays inside its `-R` section
        ``section[…]`` (E140 if not): a `[` or `]` in it would end the section and open
        others (`ptile=4] rusage[mem=1`)."""
        return not refuse_separator(
            self.reporter,
            path,
            text,
            "[]",
            f"an `-R` `{section}[…]` section",
            "LSF ends the section at its first `]`: what follows would be read as sections "
            "of its own",
        )

    def shadowed(self, path: str, key: str, option: str, raw: str) -> None:
        self.approximated(
            path,
            f"the raw `extensions.lsf.{key}` is written instead (`-{option} {raw}`), and it says "
            "something else",
        )

    def shadow(self, key: str, options: list[tuple[str, str | None]], paths: list[str]) -> None:
        """W301 for each portable field (``paths``) that the raw ``extensions.lsf.<key>``, which
        is written instead, does not say the same as: the raw option, read back, must give it."""
        back = _read_back(options, self.options)
        for path in paths:
            mine = _field(self.job, path)
            if mine is not None and _meaning(mine) != _meaning(_field(back, path)):
                self.shadowed(path, key, options[0][0], str(options[0][1]))

    def opt(self, name: str, value: object = None, path: str | None = None) -> None:
        if value is None:
            self.lines.append(f"#BSUB -{name}")
            return
        text = str(value)
        quoted = quote(text)
        if quoted is None:
            self.reporter.report(
                "E140",
                f"the value of `-{name}` cannot be carried by a `#BSUB` line: `{text}`",
                field=path,
                notes=("bsub's words cannot hold a line break or both kinds of quote",),
                help="remove the line break or one kind of quote from the value",
            )
            return
        line = f"#BSUB -{name} {quoted}"
        self.lines.append(line)
        if path is not None:
            self.fields[line] = path

    # -- the job ---------------------------------------------------------------------------

    def write(self) -> list[OutputFile]:
        body, shebang = self.script()
        self.name()
        self.schedule(self.spec.schedule or Schedule())
        self.resources(self.spec.resources or Resources())
        self.dependencies()
        self.staging()
        self.output()
        self.notifications()
        self.environment()
        self.rest()
        self.unsupported()
        header = "".join(line + "\n" for line in ([shebang] if shebang else []) + self.lines)
        self.body_directives(header, body)
        refuse_unreadable(self.reporter, header + body, "lsf", self.fields, "lsf", "bsub")
        return [OutputFile(header + body)]

    def script(self) -> tuple[str, str]:
        ex = self.spec.execution
        shell = ex.shell if ex and ex.shell else "/bin/bash"
        container_losses(ex, self.options.container_runtime, self.lost, self.approximated)
        body = ""
        shell_line = f"#!{shell}"
        if ex is not None and ex.script is not None:
            text = ex.script
            if text.startswith("#!"):
                shell_line, _, body = text.partition("\n")
                if ex.shell and ex.shell not in shell_line:
                    self.approximated(
                        "spec.execution.shell", f"the script's `{shell_line}` line decides"
                    )
            elif ex.shell:  # the shell asked for, as its `#!` line
                body = text
            else:  # bsub needs no `#!` line (LSF runs the job file with /bin/sh)
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
        body = rewrite_launchers(self, body, "lsf", self.spec)
        block = compatibility_block(
            body, "lsf", self.approximated, self.noted, shell=job_shell(self.spec), spec=self.spec
        )
        return shift_array_index(block, "lsf", self.array_shift()) + body, shell_line

    def array_shift(self) -> int:
        """How far the array's indices move up so that the lowest is 1 (LSF's lowest index)."""
        arr = self.spec.array
        if arr is None or arr.indices is None or not arr.indices.ranges:
            return 0
        first = min(start for start, _, _ in arr.indices.ranges)
        return 1 - first if first < 1 else 0

    def body_directives(self, header: str, body: str) -> None:
        """bsub reads every `#BSUB` line of the file, the body's too, and there is no way to
        switch them off (a `:` line first, as for sbatch, does not stop bsub), nor to change
        them without changing the script (they may be the text of a heredoc). When they change
        the job (read with and without them) that is a W301; when bsub would reject the
        script because of them, an E140."""
        from lark import Token

        from bammmc.frontends.lsf import parser

        if "#BSUB" not in body:
            return
        tree = parser("script").parse(body)
        found = [t for t in tree.children if isinstance(t, Token) and t.type == "DIRECTIVE"]
        if not found:
            return
        without, cursor = [], 0
        for tok in found:
            without.append(body[cursor : tok.start_pos])
            cursor = tok.end_pos or 0
        without.append(body[cursor:])
        offset = header.count("\n")  # line numbers of the written script
        lines = ", ".join(str(offset + (t.line or 1)) for t in found[:5])
        lines += "…" if len(found) > 5 else ""
        first = " ".join(str(found[0]).split())
        both, errors = _read_back_text(header + body, self.options)
        alone, errors_alone = _read_back_text(header + "".join(without), self.options)
        if errors and not errors_alone:
            self.unwritable(
                "spec.execution.script",
                f"the script body holds `#BSUB` lines that bsub reads too (`{first}`, line "
                f"{lines} of the written script), and it would reject them",
                "bsub reads every `#BSUB` line of the file; there is no way to switch one off",
                "remove or reword the body's `#BSUB` lines (bsub reads them wherever they are)",
            )
        elif _without_script(both) != _without_script(alone):
            self.approximated(
                "spec.execution.script",
                f"the script body holds `#BSUB` lines (`{first}`, line {lines} of the written "
                "script) that bsub reads too: they change the job's options, and cannot be "
                "switched off",
            )

    def name(self) -> None:
        meta = self.job.metadata
        name = meta.name if meta is not None and meta.name is not None else None
        arr = self.spec.array
        if arr is None or arr.indices is None:
            if arr is not None and arr.max_concurrent is not None:
                self.lost("spec.array.maxConcurrent", "a limit without indices has no array")
            if name is not None and ("[" in name or "]" in name):
                # bsub reads `name[…]` as an array: a name with brackets would make one
                safe = name.replace("[", "_").replace("]", "_")
                self.approximated(
                    "metadata.name",
                    f"`{name}` written as `{safe}`: bsub reads `name[…]` as a job array",
                )
                name = safe
            if name is not None:
                self.opt("J", name, "metadata.name")
            return
        spec = arr.indices
        shift = self.array_shift()
        items = []
        for start, end, step in spec.ranges:
            start, end = start + shift, end + shift
            items.append(
                str(start) if start == end else f"{start}-{end}" + (f":{step}" if step != 1 else "")
            )
        if shift:
            self.approximated(
                "spec.array.indices",
                f"LSF array indices start at 1: `{spec}` is written shifted by {shift}, and the "
                f"index variables of the script are `$LSB_JOBINDEX - {shift}`; `%I` in file "
                "names and `$LSB_JOBINDEX` itself are the shifted index",
            )
        throttle = spec.throttle if spec.throttle is not None else arr.max_concurrent
        array_name = name or "array"
        if name is None:
            self.approximated("metadata.name", "an LSF array needs a name: `array` is used")
        elif any(not (c.isalnum() or c in "._-") for c in name):
            array_name = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
            self.approximated(
                "metadata.name",
                f"`{name}` written as `{array_name}` (array names take letters, digits and `._-`)",
            )
        text = f"{array_name}[{','.join(items)}]" + (f"%{throttle}" if throttle is not None else "")
        self.opt("J", text, "spec.array.indices")

    def schedule(self, sched: Schedule) -> None:
        ext = self.ext
        queue = sched.queue or sched.partition
        queue_path = "spec.schedule.queue" if sched.queue else "spec.schedule.partition"
        names = list(ext.queues) if ext.queues else [queue] if queue is not None else []
        bad = [q for q in names if not q or q.startswith("-") or any(c.isspace() for c in q)]
        if bad:
            self.unwritable(
                queue_path,
                f"the queue name `{bad[0]}` cannot be written for bsub",
                "`-q` takes queue names separated by white space, and a name starting with `-` "
                "would be read as an option",
                "use the queue's real name",
            )
        elif names:
            self.opt("q", " ".join(names), queue_path)
        for path, value in (
            ("spec.schedule.queue", sched.queue),
            ("spec.schedule.partition", sched.partition),  # SPLAT: the same as `queue`
        ):
            if ext.queues and value is not None and value != ext.queues[0]:
                self.shadowed(path, "queues", "q", " ".join(ext.queues))
        if sched.account is not None:
            self.opt("P", sched.account, "spec.schedule.account")
        if sched.project is not None:
            self.opt("G", sched.project, "spec.schedule.project")
        for name, value in (
            ("app", ext.app_profile),
            ("sla", ext.service_class),
            ("Lp", ext.license_project),
        ):
            if value is not None:
                self.opt(name, value)
        if ext.priority is not None:
            self.opt("sp", ext.priority, "spec.extensions.lsf.priority")
            self.shadow("priority", [("sp", str(ext.priority))], ["spec.schedule.priority"])
        elif sched.priority is not None:
            native = to_native(sched.priority, "lsf", self.options.band)
            self.opt("sp", native, "spec.schedule.priority")
            report_priority_rounding(
                self, sched.priority, native, "lsf", self.options.band, "spec.schedule.priority"
            )
        if sched.hold:
            self.opt("H")
        self.clock("b", ext.begin, sched.begin_after, "spec.schedule.beginAfter")
        self.clock("t", ext.deadline, sched.deadline, "spec.schedule.deadline")
        if ext.run_limit is not None:
            self.opt("W", ext.run_limit, "spec.extensions.lsf.run_limit")
            self.shadow("run_limit", [("W", ext.run_limit)], ["spec.schedule.walltime"])
        elif sched.walltime is not None:
            self.limit("W", sched.walltime, "spec.schedule.walltime")
        if ext.cpu_time_limit is not None:
            self.limit("c", ext.cpu_time_limit, "spec.extensions.lsf.cpu_time_limit")
        if sched.reservation is not None:
            self.opt("U", sched.reservation, "spec.schedule.reservation")
        for key, path in (
            ("qos", "spec.schedule.qos"),
            ("walltime_min", "spec.schedule.walltimeMin"),
            ("signal_before_end", "spec.schedule.signalBeforeEnd"),
        ):
            if getattr(sched, key) is not None:
                self.lost(path, "bsub has no option for it")

    def clock(self, letter: str, raw: str | None, when: DateTime | None, path: str) -> None:
        if raw is not None:
            self.opt(letter, raw)
            if when is not None:  # a raw `-b 8:00` is the next 8:00, never a fixed time
                self.shadowed(path, "begin" if letter == "b" else "deadline", letter, raw)
            return
        if when is None:
            return
        value = when.value
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
            self.approximated(path, "written in UTC; bsub reads the local time")
        if value.second or value.microsecond:
            self.approximated(path, "LSF times have no seconds: rounded down to the minute")
        self.opt(letter, value.strftime("%Y:%m:%d:%H:%M"), path)

    def limit(self, letter: str, duration: Duration, path: str) -> None:
        if duration.seconds is None:
            self.lost(path, "LSF has no unlimited time limit; the queue's limit applies")
            return
        mins = -(-duration.seconds // 60)
        if mins * 60 != duration.seconds:
            self.approximated(path, f"LSF limits are whole minutes: rounded up to {mins} min")
        self.opt(letter, f"{mins // 60}:{mins % 60:02d}", path)

    def resources(self, res: Resources) -> None:
        ext = self.ext
        tasks, nodes, tpn = res.tasks, res.nodes, res.tasks_per_node
        ptile: int | None = None
        slots: int | None = None
        one_host = False
        if ext.nnodes and nodes is not None:
            self.opt("nnodes", nodes, "spec.resources.nodes")
            if tasks is not None or tpn is not None:
                self.lost(
                    "spec.resources.tasks", "`-nnodes` allocates whole nodes; `-n` is refused"
                )
            if ext.max_tasks is not None:
                self.lost(
                    "spec.extensions.lsf.max_tasks",
                    "`-nnodes` allocates whole nodes; `-n` is refused",
                )
        else:
            if ext.nnodes:
                self.lost(
                    "spec.extensions.lsf.nnodes",
                    "`-nnodes` takes a node count, and the job has none (`resources.nodes`)",
                )
            slots = tasks
            if tpn is not None:
                ptile = tpn
                if slots is None:  # SPLAT: `nodes` (default 1) × `tasksPerNode` tasks
                    slots = (nodes or 1) * tpn
                elif nodes is not None and nodes != -(-slots // tpn):
                    # LSF fills each host with `ptile` slots, the last with the rest
                    self.approximated(
                        "spec.resources.nodes",
                        f"LSF places {slots} tasks {tpn} per host, on {-(-slots // tpn)} hosts, "
                        f"not on exactly {nodes} hosts",
                    )
            elif nodes is not None:
                if nodes == 1:
                    one_host = True
                elif slots is None:
                    slots, ptile = nodes, 1
                    self.approximated("spec.resources.nodes", f"{nodes} hosts as one task per host")
                else:
                    ptile = -(-slots // nodes)
                    if -(-slots // ptile) != nodes:  # the last host takes the rest
                        self.approximated(
                            "spec.resources.nodes",
                            f"{slots} tasks on {nodes} hosts written as {ptile} per host "
                            f"(on {-(-slots // ptile)} hosts)",
                        )
            if slots is not None:
                top = ext.max_tasks
                if top is not None and top < slots:
                    self.lost(
                        "spec.extensions.lsf.max_tasks",
                        f"the maximum of {top} slots is below the {slots} tasks asked for",
                    )
                    top = None
                self.opt("n", f"{slots},{top}" if top else slots, "spec.resources.tasks")
            elif ext.max_tasks is not None:
                # no task count: bsub's minimum is one task (`-n 1,MAX`)
                self.opt("n", f"1,{ext.max_tasks}", "spec.extensions.lsf.max_tasks")
        if ext.resreq:
            strings = list(ext.resreq)
            for text in strings:
                self.opt("R", text)
            self.shadow_sections(strings)
        else:
            sections = self.sections(res, slots, ptile, one_host)
            strings = [" ".join(sections)] if sections else []
            if sections:
                self.opt("R", " ".join(sections), "spec.resources")
        self.shadow_resources(res, None if ext.nnodes else slots, strings)
        self.generic(res, strings)
        self.gpu(res)
        if ext.mem_limit is not None:
            size = self.size(ext.mem_limit, "spec.extensions.lsf.mem_limit")
            self.opt("M", size + ("!" if ext.mem_limit_hard else ""))
        if ext.stack_limit is not None:
            self.opt("S", self.size(ext.stack_limit, "spec.extensions.lsf.stack_limit"))
        if ext.thread_limit is not None:
            self.opt("T", ext.thread_limit)
        placement = self.spec.placement
        if placement is not None and placement.exclusive:
            self.opt("x", None, "spec.placement.exclusive")
        if ext.hosts is not None:
            self.opt("m", ext.hosts)
        if res.disk_per_task is not None:
            self.lost("spec.resources.diskPerTask", "scratch space is a site-defined LSF resource")

    def shadow_resources(self, res: Resources, slots: int | None, strings: list[str]) -> None:
        """W301 for a portable resource the raw `-R` parts (`resreq`, `rusage_string`, `span`,
        `affinity`) replace with something else: the written `-R` read back must say the
        same."""
        ext = self.ext
        compared: dict[str, str] = {}
        if ext.resreq:
            compared = dict.fromkeys(
                ("memoryPerTask", "cpusPerTask", "tasksPerNode", "nodes", "constraint"), "resreq"
            )
        else:
            if ext.rusage_string is not None:
                compared["memoryPerTask"] = "rusage_string"
            if ext.span is not None:
                compared.update(dict.fromkeys(("tasksPerNode", "nodes"), "span"))
            if ext.affinity is not None:
                compared["cpusPerTask"] = "affinity"
        if not compared:
            return
        options: list[tuple[str, str | None]] = [("n", str(slots))] if slots else []
        back = _read_back(options + [("R", text) for text in strings], self.options)
        got = back.spec.resources if back and back.spec and back.spec.resources else Resources()
        got_place = back.spec.placement if back and back.spec else None
        place = self.spec.placement
        checks: dict[str, tuple[object, object]] = {
            "memoryPerTask": (
                _reserved(self.reservation(res, slots, res.tasks_per_node, quiet=True)),
                got.memory_per_task and _reserved((got.memory_per_task, None)),
            ),
            "cpusPerTask": (
                res.cpus_per_task and res.cpus_per_task.cores,
                (got.cpus_per_task.cores if got.cpus_per_task else 1),
            ),
            "tasksPerNode": (res.tasks_per_node, got.tasks_per_node),
            "nodes": (
                None if ext.nnodes or (res.nodes == 1 and (slots or 1) == 1) else res.nodes,
                got.nodes,
            ),
            "constraint": (
                place and place.constraint and set(place.constraint.split("&")),
                got_place and got_place.constraint and set(got_place.constraint.split("&")),
            ),
        }
        for key, raw in compared.items():
            mine, theirs = checks[key]
            if mine and mine != theirs:
                where = "placement" if key == "constraint" else "resources"
                self.shadowed(f"spec.{where}.{key}", raw, "R", " ".join(strings))

    def shadow_sections(self, strings: list[str]) -> None:
        """W301 for each raw `-R` section of `extensions.lsf` (`select`, `order_expression`,
        `rusage_string`, `span`, `same_resource`, `cu`, `compute_unit`, `affinity`) that the raw
        `resreq`, written instead of the built `-R`, does not hold as written."""
        ext = self.ext
        written = " ".join(" ".join(strings).split())
        unit = ext.compute_unit
        words = _cu_words(unit) if unit is not None else []
        fragments = {
            "select": ext.select,
            "order_expression": ext.order_expression and f"order[{ext.order_expression}]",
            "rusage_string": ext.rusage_string,
            "span": ext.span and f"span[{ext.span}]",
            "same_resource": ext.same_resource and f"same[{':'.join(ext.same_resource)}]",
            "cu": ext.cu and f"cu[{ext.cu}]",
            "compute_unit": (
                None if ext.cu is not None or unit is None else f"cu[{':'.join(words)}]"
            ),
            "affinity": ext.affinity and f"affinity[{ext.affinity}]",
        }
        for key, fragment in fragments.items():
            if not fragment or " ".join(fragment.split()) in written:
                continue
            paths = [f"spec.extensions.lsf.{key}"]
            if key == "compute_unit" and unit is not None:  # the table lists its parts
                paths = [
                    f"{paths[0]}.{wire}"
                    for name, wire in zip(
                        unit.__struct_fields__, unit.__struct_encode_fields__, strict=True
                    )
                    if getattr(unit, name) is not None
                ]
            for path in paths:
                self.shadowed(path, "resreq", "R", " ".join(strings))

    def generic(self, res: Resources, strings: list[str]) -> None:
        """`genericResources` go into the built `rusage[NAME=N]`: a site-defined resource, that
        the site reserves per host, per task or per job (`ReservationUsage`), and that reads
        back as the raw `rusage_string`. A raw `resreq` or `rusage_string` written instead of
        the built rusage leaves them out."""
        if not res.generic_resources:
            return
        path = "spec.resources.genericResources"
        ext = self.ext
        raw = " ".join(strings) if ext.resreq else ext.rusage_string
        usage = [f"{name}={_whole(count)}" for name, count in res.generic_resources.items()]
        if raw is not None and not all(
            re.search(rf"(?<![\w.]){re.escape(item)}(?![\w.])", raw) for item in usage
        ):
            key = "resreq" if ext.resreq else "rusage_string"
            self.shadowed(path, key, "R", raw)
        else:
            scopes = sorted({c.scope for c in res.generic_resources.values() if c.scope})
            per = f"; the amounts per {', '.join(scopes)} are written as they are" if scopes else ""
            self.approximated(
                path,
                "written as `rusage[NAME=N]`: a site-defined LSF resource, reserved per host, "
                f"task or job as the site configures it{per}",
            )

    def sections(
        self, res: Resources, slots: int | None, ptile: int | None, one_host: bool
    ) -> list[str]:
        ext = self.ext
        out: list[str] = []
        terms: list[str] = []
        if ext.select is not None and self.in_section(
            ext.select, "spec.extensions.lsf.select", "select"
        ):
            terms.append(ext.select if not self.constraint_terms() else f"({ext.select})")
        terms += self.constraint_terms()
        if terms:
            out.append(f"select[{' && '.join(terms)}]")
        if ext.order_expression is not None and self.in_section(
            ext.order_expression, "spec.extensions.lsf.order_expression", "order"
        ):
            out.append(f"order[{ext.order_expression}]")
        raw = (ext.rusage_string or "").strip()
        if ext.rusage_string is not None and not (raw.startswith("rusage[") and raw.endswith("]")):
            self.reporter.report(
                "E134",
                f"`{ext.rusage_string}` is not an rusage section of `-R`",
                field="spec.extensions.lsf.rusage_string",
                help="write the section whole, e.g. `rusage[mem=4096]`",
            )
        elif ext.rusage_string is not None:
            if self.in_section(
                raw[len("rusage[") : -1], "spec.extensions.lsf.rusage_string", "rusage"
            ):
                out.append(ext.rusage_string)
        else:
            usage = []
            reserved = self.reservation(res, slots, ptile)
            if reserved is not None:
                size, method = reserved
                text = self.size(size, "spec.resources.memoryPerTask")
                usage.append(f"mem={text}/{method}" if method else f"mem={text}")
            for name, count in (res.generic_resources or {}).items():
                if self.resource_name(name, f"spec.resources.genericResources.{name}", "rusage"):
                    usage.append(f"{name}={_whole(count)}")
            if usage:
                out.append(f"rusage[{','.join(usage)}]")
        if ext.span is not None:
            if self.in_section(ext.span, "spec.extensions.lsf.span", "span"):
                out.append(f"span[{ext.span}]")
        elif ptile is not None:
            out.append(f"span[ptile={ptile}]")
        elif one_host:
            out.append("span[hosts=1]")
        if ext.same_resource and all(
            self.resource_name(name, "spec.extensions.lsf.same_resource", "same")
            for name in ext.same_resource
        ):
            out.append(f"same[{':'.join(ext.same_resource)}]")
        if ext.cu is not None:
            if self.in_section(ext.cu, "spec.extensions.lsf.cu", "cu"):
                out.append(f"cu[{ext.cu}]")
        elif ext.compute_unit is not None:
            unit = ext.compute_unit
            words = _cu_words(unit)
            if unit.policy not in (None, "balance"):
                self.approximated(
                    "spec.extensions.lsf.compute_unit.policy",
                    f"`{unit.policy}` has no `cu[]` keyword: LSF's default preference is used",
                )
            if words:
                out.append(f"cu[{':'.join(words)}]")
        if ext.affinity is not None:
            if self.in_section(ext.affinity, "spec.extensions.lsf.affinity", "affinity"):
                out.append(f"affinity[{ext.affinity}]")
        elif res.cpus_per_task is not None:
            cores = res.cpus_per_task.cores
            whole = -(-cores.numerator // cores.denominator)
            if whole != cores:
                self.approximated(
                    "spec.resources.cpusPerTask", f"{cores} CPUs rounded up to {whole}"
                )
            if whole > 1:
                out.append(f"affinity[core({whole})]")
        return out

    def constraint_terms(self) -> list[str]:
        placement = self.spec.placement
        if placement is None or not placement.constraint:
            return []
        words = placement.constraint.split("&")
        if all(
            w and (w[0].isalpha() or w[0] == "_") and all(c.isalnum() or c in "_.-" for c in w)
            for w in words
        ):
            return words
        self.lost(
            "spec.placement.constraint",
            "only features joined by `&` become an LSF `select[a && b]`",
        )
        return []

    def reservation(
        self, res: Resources, slots: int | None, ptile: int | None, quiet: bool = False
    ) -> tuple[Size, str | None] | None:
        """The `rusage[mem=]` of the job: the size and the reservation method after it
        (`task`, `host`, `job`), so that every site reads it alike whatever its
        `RESOURCE_RESERVE_PER_TASK` (IBM: per host by default); no method for one slot or one
        slot per host, where they are the same (and any LSF reads it). ``None``: nothing is
        reserved, `memoryPerTask` is the `-M` limit (`extensions.lsf.memory_from_limit`)."""
        mem = res.memory_per_task
        if mem is None:
            return None
        ext = self.ext
        scope = mem.scope or "task"
        limit = ext.mem_limit
        if (
            ext.memory_from_limit
            and limit is not None
            and (scope, mem.bytes) == ("task", limit.bytes)
        ):
            return None
        if quiet:  # the same conversion, without the reports (they are made once)
            return LsfWriter(self.job, Reporter(), self.options).reservation(res, slots, ptile)
        size = mem.with_scope(None)
        if scope == "cpu":
            scope = "task"
            if res.cpus_per_task is not None:
                cores = res.cpus_per_task.cores
                size = Size.from_bytes(-(-(mem.bytes * cores.numerator) // cores.denominator))
        elif scope not in ("task", "node", "job"):
            self.approximated(
                "spec.resources.memoryPerTask", f"memory per {scope} written per task"
            )
            scope = "task"
        if (slots or 1) == 1 or (ptile == 1 and scope != "job"):
            return size, None
        return size, {"task": "task", "node": "host", "job": "job"}[scope]

    def size(self, size: Size, path: str) -> str:
        """An explicit LSF size (`4GB`, `1536MB`): never a bare number, whose unit is the site's."""
        n = size.bytes
        if n % 1024:
            n = -(-n // 1024) * 1024
            self.approximated(path, "LSF sizes are whole KB: rounded up")
        for unit, factor in UNITS:
            if n and n % factor == 0:
                return f"{n // factor}{unit}"
        return "0KB"

    def gpu(self, res: Resources) -> None:
        if self.ext.gpu_options is not None:
            self.opt("gpu", self.ext.gpu_options)
            self.shadow(
                "gpu_options",
                [("gpu", self.ext.gpu_options)],
                [f"spec.resources.gpu.{key}" for key in ("count", "type", "memory")],
            )
            return
        gpu = res.gpu
        if gpu is None:
            return
        parts = []
        if gpu.count is not None:
            count = gpu.count
            scope = count.scope or "task"
            amount = count.amount
            if scope == "job":
                amount = amount / (res.nodes or 1)
                self.approximated(
                    "spec.resources.gpu.count",
                    f"GPUs per job written per host (`num=` on each of {res.nodes or 1})",
                )
            elif scope not in ("task", "node"):
                self.approximated("spec.resources.gpu.count", f"GPUs per {scope} written per host")
            whole = -(-amount.numerator // amount.denominator)
            if whole != amount:
                self.approximated(
                    "spec.resources.gpu.count", f"{amount} GPUs rounded up to {whole}"
                )
            parts.append(f"num={whole}/task" if scope == "task" else f"num={whole}")
        if gpu.type is not None and not refuse_separator(
            self.reporter,
            "spec.resources.gpu.type",
            gpu.type,
            KEYWORD_VALUE_SYNTAX,
            "a `-gpu` string",
            'bsub reads `-gpu "num=N:gmodel=NAME:…"`: a `:` starts another keyword '
            "(`a100:num=8` would ask for 8 GPUs)",
            help="use the GPU model name as LSF reports it (`lshosts -gpu`)",
        ):
            parts.append(f"gmodel={gpu.type}")
        if gpu.memory is not None:
            mib = Fraction(gpu.memory.bytes, 1024**2)
            whole = -(-mib.numerator // mib.denominator)
            if whole != mib:
                self.approximated("spec.resources.gpu.memory", "written in whole MB, rounded up")
            parts.append(f"gmem={whole}M")
        for key in ("fraction", "mig_profile"):
            if getattr(gpu, key) is not None:
                self.lost(
                    f"spec.resources.gpu.{'migProfile' if key == 'mig_profile' else key}",
                    "bsub -gpu has no such request",
                )
        if parts:
            self.opt("gpu", ":".join(parts), "spec.resources.gpu")

    def dependencies(self) -> None:
        if self.ext.dependency is not None:
            self.opt("w", self.ext.dependency, "spec.extensions.lsf.dependency")
            self.shadow("dependency", [("w", self.ext.dependency)], ["spec.dependencies"])
            return
        terms = []
        for i, dep in enumerate(self.spec.dependencies or ()):
            path = f"spec.dependencies[{i}]"
            cond = SCHEME_CONDITIONS.get(dep.scheme or "")
            if cond is None or not dep.value:
                self.lost(path, dependency_gap(dep, "LSF"))
                continue
            if dep.count is not None:
                self.approximated(path, "waiting for some array elements becomes waiting for all")
            ref = self.job_ref(dep.value, path)
            if ref is not None:
                terms.append(f"{cond}({ref})")
        if terms:
            self.opt("w", " && ".join(terms), "spec.dependencies")

    def job_ref(self, value: str, path: str) -> str | None:
        """A `-w` job: an id, `"123[4]"` for an array element (Slurm's `123_4`), `"name"` for
        a name (always quoted: a name starting with a digit must be, and `"123"` — a quoted
        value — is the job *named* 123, as the reader spells it; any other `"` is the name's)."""
        if value.isdigit():
            return value
        if value[:1] == value[-1:] == '"' and ID_LIKE.fullmatch(value[1:-1]):
            return value  # the reader's spelling of a name that looks like an id
        element = ARRAY_ELEMENT.fullmatch(value)
        if element is not None:
            job, index = element.groups()
            if index.isdigit():
                return f'"{job}[{index}]"'
            if index == "*":
                return job  # every element: the whole array
            self.lost(path, f"`{value}`: LSF waits for one array element or the whole array")
            return None
        if '"' in value:
            self.lost(path, f'the job name `{value}` holds `"`, which `-w` cannot quote')
            return None
        if "*" in value:  # IBM bsub -w: `"name*"` waits for every job whose name matches
            self.lost(path, f"the job name `{value}` holds `*`, which `-w` reads as a wildcard")
            return None
        if "[" in value or "]" in value:  # `"name[1-9]"` is elements 1-9 of the array `name`
            self.lost(path, f"the job name `{value}` holds brackets: `-w` reads array elements")
            return None
        return f'"{value}"'

    def staging(self) -> None:
        staging = self.spec.file_staging
        for key in ("embedded_files", "checkpoint_files", "transfer_policy"):
            if staging is not None and getattr(staging, key):
                self.lost(f"spec.fileStaging.{camel(key)}", "bsub has no option for it")
        if self.ext.files:
            for entry in self.ext.files:
                self.opt("f", entry)
            self.shadow(
                "files",
                [("f", entry) for entry in self.ext.files],
                ["spec.fileStaging.inputs", "spec.fileStaging.outputs"],
            )
            return
        if staging is None:
            return
        for key, op in (("inputs", ">"), ("outputs", "<")):
            items = getattr(staging, key) or ()
            for j, item in enumerate(items):
                local, remote = (item.src, item.dst) if op == ">" else (item.dst, item.src)
                if item in items[:j]:
                    self.lost(
                        f"spec.fileStaging.{key}[{j}]",
                        "the same transfer is listed before it: it is written once",
                    )
                    continue
                bad = [p for p in (local, remote) if not p or re.search(r"[\s<>]", p)]
                if bad:
                    self.unwritable(
                        f"spec.fileStaging.{key}[{j}]",
                        f"the path `{bad[0]}` cannot be written in a `-f` transfer",
                        'bsub splits `-f "LOCAL OP REMOTE"` at white space and at `<`/`>`, '
                        "and has no quoting inside it",
                        "rename the file, or stage it in the script",
                    )
                    continue
                self.opt("f", f"{local} {op} {remote}", f"spec.fileStaging.{key}")

    def output(self) -> None:
        out = self.spec.output
        if self.ext.error_open_mode is not None and (
            out is None or out.stderr is None or out.merge_stderr
        ):
            self.lost(
                "spec.extensions.lsf.error_open_mode",
                "it is the open mode of the `-e` file, and no `-e` is written",
            )
        if out is None:
            return
        truncate = out.open_mode != "append"
        stdout, stderr = out.stdout, out.stderr
        if out.merge_stderr and stderr is not None:
            self.approximated("spec.output.stderr", "merged into stdout (`-o` without `-e`)")
            stderr = None
        if stdout is not None:
            self.path("oo" if truncate else "o", stdout, "spec.output.stdout")
        if stderr is not None:
            err_truncate = truncate
            raw_mode = self.ext.error_open_mode
            if raw_mode is not None:
                err_truncate = raw_mode == "truncate"
                if stdout is None and out.open_mode not in (None, raw_mode):
                    # the `-e` file is the only one: its mode is what reads back as `openMode`
                    self.shadowed(
                        "spec.output.openMode",
                        "error_open_mode",
                        "eo" if err_truncate else "e",
                        str(stderr),
                    )
            self.path("eo" if err_truncate else "e", stderr, "spec.output.stderr")
        elif stdout is not None and out.merge_stderr is False:
            self.approximated(
                "spec.output.mergeStderr",
                "LSF writes stderr into the `-o` file when there is no `-e`",
            )
        if stdout is None and stderr is None and out.open_mode is not None:
            self.lost(
                "spec.output.openMode",
                "it is the open mode of the `-o`/`-e` files, and neither is written",
            )
        if stdout is None and stderr is None and out.merge_stderr is False:
            # bsub without `-o`/`-e` mails one job report, with the output and the errors
            self.lost(
                "spec.output.mergeStderr",
                "without `-o` or `-e`, LSF mails the output and the errors in one job report",
            )

    def path(self, name: str, template: Template, field: str) -> None:
        literal = [t for kind, t in template.parts if kind == "text" and FILE_PATTERN.search(t)]
        if literal:
            found = FILE_PATTERN.search(literal[0])
            self.unwritable(
                field,
                f"the file name holds a literal `{found.group() if found else '%'}`, which bsub "
                "would replace",
                "bsub fills in `%J` and `%I` in `-o`/`-e` names and has no way to escape them",
                "write `{job_id}` or `{array_index}` for the id or index, or rename the file",
            )
            return
        mapping = {"job_id": "%J", "array_index": "%I", "array_job_id": "%J"}
        job_name = self.job.metadata.name if self.job.metadata is not None else None
        if job_name and "/" not in job_name and not FILE_PATTERN.search(job_name):
            mapping["job_name"] = job_name  # the job's own name, known now: the same file
        array = self.spec.array is not None and self.spec.array.indices is not None
        if array and "job_id" in template.variables():
            self.approximated(
                field,
                "`{job_id}` is written as `%J`, the array's id, which all its elements share"
                + ("" if "array_index" in template.variables() else ": they write one file"),
            )
        missing = [v for v in template.variables() if v not in mapping]
        if missing:
            shown = ", ".join(f"`{{{v}}}`" for v in missing)
            self.approximated(field, f"LSF cannot put {shown} in an output path; `%J` is used")
            mapping.update({v: "%J" for v in missing})
        text = template.render(mapping)
        if text.endswith("/"):  # bsub reads it as a folder for its own `<job id>.out`
            default = "%J." + ("out" if name[0] == "o" else "err")
            text += default
            self.approximated(
                field,
                f"bsub reads a path ending in `/` as a folder and writes `{default}` in it: "
                f"`-{name} {text}` names that file",
            )
        self.opt(name, text, field)

    def notifications(self) -> None:
        note = self.spec.notifications
        if note is None:
            return
        if note.email is not None:
            self.opt("u", note.email, "spec.notifications.email")
        events = note.events or []
        also = ""
        if "begin" in events:
            self.opt("B", None, "spec.notifications.events")
        if "end" in events:
            self.opt("N", None, "spec.notifications.events")
            if "fail" in events:  # IBM: `-Ne` (exit only) conflicts with `-N`
                also = (
                    "`-N` mails at every end of the job, failures included: it reads back as `end`"
                )
        elif "fail" in events:
            self.opt("Ne", None, "spec.notifications.events")
        report_missed_mail(self, "LSF", list(events), ("begin", "end", "fail"), also)

    def literal_path(self, name: str, value: str, pattern: re.Pattern[str], field: str) -> None:
        """`-cwd`/`-i` from a SPLAT path, which is literal: a `%J` in it would be filled in.
        The raw option of an LSF script (`extensions.lsf.options`) is written by ``rest``."""
        raw = (self.ext.options or {}).get(name)
        if raw is not None:
            if raw != value:
                self.shadowed(field, f"options.{name}", name, raw)
            return
        found = pattern.search(value)
        if found is not None:
            self.unwritable(
                field,
                f"the path holds a literal `{found.group()}`, which bsub would replace",
                f"bsub fills in patterns in `-{name}` and has no way to escape them",
                "rename the directory or file",
            )
            return
        self.opt(name, value, field)

    def environment(self) -> None:
        ex = self.spec.execution
        if ex is not None and ex.working_dir is not None:
            self.literal_path("cwd", ex.working_dir, CWD_PATTERN, "spec.execution.workingDir")
        if self.ext.outdir is not None:
            self.opt("outdir", self.ext.outdir)
        if ex is not None and ex.stdin is not None:
            self.literal_path("i", ex.stdin, FILE_PATTERN, "spec.execution.stdin")
        env = ex.environment if ex else None
        if self.ext.env is not None:
            self.opt("env", self.ext.env)
            self.shadow(
                "env",
                [("env", self.ext.env)],
                [
                    "spec.execution.environment.inheritFromSubmitter",
                    "spec.execution.environment.vars",
                ],
            )
        elif env is not None:
            self.env(env.inherit_from_submitter, env.vars or {})
        if env is not None:
            for key in ("secrets", "config_maps"):
                if getattr(env, key):
                    wire = "configMaps" if key == "config_maps" else key
                    self.lost(
                        f"spec.execution.environment.{wire}",
                        "Kubernetes secrets and config maps do not exist on LSF",
                    )

    def env(self, inherit: bool | None, variables: dict[str, str]) -> None:
        """`-env`: `none` alone (IBM: never with variables), `all, A=1` to add variables to
        the submitter's environment, `A=1, B=2` for only those. Values with a `,`, white space
        at an end, or nothing at all are single-quoted; a value holding `'` cannot be written."""
        path = "spec.execution.environment.vars"
        items = []
        for key, value in variables.items():
            if key in ("all", "none") or re.search(r"[\s,~=\"']", key) or not key:
                self.unwritable(
                    path,
                    f"the variable name `{key}` cannot be written in `-env`",
                    "bsub's `-env` names cannot be `all` or `none`, nor hold `,~=\"'` or spaces",
                    "rename the variable, or set it in the script",
                )
                continue
            if "'" in value:
                self.unwritable(
                    path,
                    f"the value of `{key}` holds `'`, which `-env` cannot carry",
                    "bsub's `-env` quotes values with single quotes only, with no escape",
                    f"set `{key}` in the script instead",
                )
                continue
            if not value or "," in value or value != value.strip():
                value = f"'{value}'"
            items.append(f"{key}={value}")
        if inherit is not False and items:
            items.insert(0, "all")  # the submitter's environment, as without `-env`
        elif inherit is not None and not items:
            items = ["all" if inherit else "none"]
        if items:
            self.opt("env", ", ".join(items), "spec.execution.environment")

    def rest(self) -> None:
        ext = self.ext
        for name, value in (("L", ext.login_shell), ("E", ext.pre_exec), ("Ep", ext.post_exec)):
            if value is not None:
                self.opt(name, value)
        life = self.spec.lifecycle
        if life is not None and life.requeue_on_failure is not None:
            self.opt(
                "r" if life.requeue_on_failure else "rn", None, "spec.lifecycle.requeueOnFailure"
            )
        if ext.autoresizable:
            self.opt("ar")
        if ext.alloc_flags is not None:
            self.opt("alloc_flags", ext.alloc_flags)
        from bammmc.frontends.lsf import OPTIONS

        for name, value in (ext.options or {}).items():
            if name in OPTIONS:
                self.opt(
                    name, value if value != "" else None, f"spec.extensions.lsf.options.{name}"
                )
            else:  # a key that is no option would write words of its own (`x\n#BSUB -W 9`)
                self.lost(f"spec.extensions.lsf.options.{name}", f"`-{name}` is not a bsub option")
        for key in ("frequency", "run_window"):
            if getattr(ext, key) is not None:
                self.lost(
                    f"spec.extensions.lsf.{key}", "bammmc does not know the bsub option for it"
                )

    def unsupported(self) -> None:
        spec = self.spec
        report_unsupported(self, self.job, CAPABILITIES, "bsub")
        if spec.extensions:
            report_foreign(self, spec, ("lsf",), script=True)


def _whole(count: Count) -> int:
    """A count rounded up to a whole number, as `rusage[NAME=N]` takes it."""
    return -(-count.amount.numerator // count.amount.denominator)


def _cu_words(unit: LsfComputeUnit) -> list[str]:
    """The keywords of `cu[…]` for `extensions.lsf.compute_unit` (a `pack` policy has none)."""
    words = []
    if unit.type is not None:
        words.append(f"type={unit.type}")
    if unit.policy == "balance":
        words.append("balance")
    if unit.max_units is not None:
        words.append(f"maxcus={unit.max_units}")
    if unit.exclusive:
        words.append("excl")
    return words


def _reserved(reserved: tuple[Size, str | None] | None) -> tuple[int, str] | None:
    """A reservation as what it means, to compare two: bytes and `node`, `job` or `task`."""
    if reserved is None:
        return None
    size, method = reserved
    scope = {"host": "node", "job": "job", "task": "task"}.get(method or "", size.scope)
    return size.bytes, scope if scope in ("node", "job") else "task"


def _read_back(options: list[tuple[str, str | None]], write_options: WriteOptions) -> Job | None:
    """What bammmc's own reader makes of these bsub options (no diagnostics)."""
    from bammmc.diagnostics.model import Span
    from bammmc.frontends.lsf import LsfScript
    from bammmc.frontends.slurm import Occurrence
    from bammmc.passes.lower.lsf import lower

    span = Span(line=1, column=1, end_line=1, end_column=2)
    occs = [Occurrence(name, value, span, span, f"-{name}") for name, value in options]
    job, _ = lower(
        LsfScript(options=occs),
        Reporter(),
        write_options.lsf_unit,
        band=write_options.band,
        reserve=write_options.lsf_reserve,
    )
    return job


def _read_back_text(text: str, write_options: WriteOptions) -> tuple[Job | None, bool]:
    """A whole bsub script read back: the job and whether bsub would reject it."""
    from bammmc.frontends.lsf import scan
    from bammmc.passes.lower.lsf import lower

    reporter = Reporter()
    job, _ = lower(
        scan(text, reporter),
        reporter,
        write_options.lsf_unit,
        band=write_options.band,
        reserve=write_options.lsf_reserve,
    )
    return job, any(d.is_error for d in reporter.diagnostics)


def _without_script(job: Job | None) -> Any:
    return _meaning(spec_without_script(job))


def _field(job: Job | None, path: str) -> Any:
    """The value at a SPLAT wire path (`spec.resources.gpu.count`), or ``None``."""
    node: Any = job
    for part in path.split("."):
        if node is None:
            return None
        node = getattr(node, _snake(part), None)
    return node


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _meaning(value: Any) -> Any:
    """A comparable form of an IR value: sizes in bytes, durations in seconds, … (values
    compare as written otherwise)."""
    if isinstance(value, Size):
        return ("size", value.bytes, value.scope)
    if isinstance(value, Count):
        return ("count", value.amount, value.scope)
    if isinstance(value, Cpu):
        return ("cpu", value.cores)
    if isinstance(value, Duration):
        return ("duration", value.seconds)
    if isinstance(value, DateTime):
        return ("time", value.value)
    if isinstance(value, Template):
        return ("template", value.parts)
    if isinstance(value, Value):
        return value
    if isinstance(value, msgspec.Struct):
        return tuple(
            (name, _meaning(getattr(value, name)))
            for name in value.__struct_fields__
            if getattr(value, name) is not None
        )
    if isinstance(value, (list, tuple)):
        return tuple(_meaning(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _meaning(v)) for k, v in value.items()))
    return value


def quote(value: str) -> str | None:
    """Quote a value for bsub's tokenizer (quotes group, no escapes; a word starting with `#`
    ends the directive); ``None`` when no quoting can carry it.

    >>> quote("plain"), quote("a[1-3]%2"), quote('done("x")'), quote("a\\nb")
    ('plain', '"a[1-3]%2"', '\\'done("x")\\'', None)
    """
    if "\n" in value or "\r" in value:
        return None
    if value and not (set(value) & SPECIAL):
        return value
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return None


def write(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> list[OutputFile]:
    return LsfWriter(job, reporter or Reporter(), options or WriteOptions()).write()


__all__ = ["CAPABILITIES", "LsfWriter", "quote", "write"]
