"""The PBS Professional / OpenPBS writer (format ``pbs``) and its Torque variant (``torque``).

`select`/`place` built from the per-task IR (N chunks of M tasks × C CPUs, memory and GPUs per
chunk, explicit units on every size), names sanitized to PBS's charset (W301 when changed),
priority mapped with the right direction, `-j oe` from `mergeStderr`, dependencies as
`-W depend=`, arrays as `-J` (PBS Pro) or `-t` (Torque), `extensions.pbs` taking precedence.
PBS Pro has no working-directory option: a `cd` line opens the body instead (Torque has `-d`).

Siblings: ``frontends/pbs.py``, ``passes/lower/pbs.py``; ``backends/torque.py`` is the variant.
"""

from __future__ import annotations

import itertools
import re
import shlex
from fractions import Fraction
from typing import Any, ClassVar, Final

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
    report_priority_rounding,
    report_separator,
    report_shadowed,
    report_unsupported,
    rewrite_launchers,
    separator_in,
)
from bammmc.backends.container import (
    container_losses,
    exec_line,
    in_container,
    refuser,
)
from bammmc.capabilities import EXACT, Capabilities, Capability, approx, exact, lost
from bammmc.diagnostics.model import Reporter
from bammmc.facts.pbs import default_path, torque_chunks
from bammmc.facts.slurm import default_output
from bammmc.ir.envvars import compatibility_block, job_shell
from bammmc.ir.job import Environment, Job, PbsExt, Resources, Schedule, Spec
from bammmc.ir.priority import to_native
from bammmc.ir.values import Size, Template, human_size, is_digits

MAIL_LETTERS: Final = {"fail": "a", "begin": "b", "end": "e"}
#: `-l` resources the PBS Pro reader reads as other fields: never a raw resource
PBS_OWN_RESOURCES: Final = frozenset(
    {"walltime", "cput", "pcput", "select", "place", "advres", "pmem"}
)
#: PBS Pro's host-level (chunk) resources and the old chunk syntax: qsub refuses them
#: job-wide beside `select`/`place` ("-lresource=" cannot be used with "select" or "place")
PBS_CHUNK_RESOURCES: Final = frozenset(
    {
        "ncpus",
        "mem",
        "vmem",
        "mpiprocs",
        "ompthreads",
        "ngpus",
        "host",
        "vnode",
        "arch",
        "aoe",
        "accelerator",
        "naccelerators",
        "accelerator_model",
        "accelerator_memory",
        "hbmem",
        "vntype",
        "nodes",
        "nodect",
    }
)
#: What qsub's `-l` parser reads as syntax in a job-wide value (OpenPBS and Torque
#: `set_resources()`): `,` ends the value and starts another resource, a quote starts quoting
#: (pbs.md §2). OpenPBS's `pbs_quote_parse()` also ends an unquoted value at white space (the
#: next word is another resource) and refuses `&`; Torque keeps both in the value. `=` and `:`
#: are plain characters of a job-wide value.
RESOURCE_VALUE_SYNTAX: Final = {"pbs": ",\"'&" + BLANK, "torque": ",\"'"}
#: ... in a resource name: it ends at `=` or `,`
RESOURCE_NAME_SYNTAX: Final = "=,\"'" + BLANK
#: ... in a `select`/`nodes` chunk, whose resources are `:`-separated `name=value` pairs and
#: whose chunks are `+`-separated (pbs.md §2, torque.md §2)
CHUNK_SYNTAX: Final = ":+" + RESOURCE_NAME_SYNTAX
NAME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+_.-")

CAPABILITIES: Final = Capabilities(
    "pbs",
    ("pbs",),
    {
        "apiVersion": EXACT,
        "kind": EXACT,
        "metadata.name": exact(
            "",
            (
                (
                    "`srun_<enter` written as `srun__enter` (letters, digits and `+_.-`, "
                    "not starting with a symbol, at most 230 ch"
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
            (
                (
                    "the raw `extensions.pbs.priority` is written instead, and it says "
                    "something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.schedule.priorityClass": lost("qsub has no option for it"),
        "spec.schedule.account": EXACT,
        "spec.schedule.project": EXACT,
        "spec.schedule.walltime": EXACT,
        "spec.schedule.qos": lost("qsub has no option for it"),
        "spec.schedule.partition": EXACT,
        "spec.schedule.hold": EXACT,
        "spec.schedule.reservation": EXACT,
        "spec.schedule.beginAfter": approx("written in UTC; qsub reads local time"),
        "spec.schedule.deadline": lost("qsub has no option for it"),
        "spec.schedule.walltimeMin": lost("qsub has no option for it"),
        "spec.schedule.signalBeforeEnd": lost("qsub has no option for it"),
        "spec.resources.cpusPerTask": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.mixed_chunks` is written instead, and it "
                    "says something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.resources.memoryPerTask": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.mixed_chunks` is written instead, and it "
                    "says something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.resources.tasks": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.mixed_chunks` is written instead, and it "
                    "says something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.resources.nodes": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.mixed_chunks` is written instead, and it "
                    "says something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.resources.tasksPerNode": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.mpiprocs_per_chunk` is written instead, and "
                    "it says something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.resources.gpu.count": exact(
            "",
            ("GPUs per node written per chunk, and each chunk here is one task", "W301"),
        ),
        "spec.resources.gpu.type": exact(
            "",
            ("GPU models are site-defined custom resources in PBS", "W201"),
            (
                (
                    "the raw `extensions.pbs.mixed_chunks` is written instead, and it "
                    "says something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.resources.gpu.memory": lost(
            "PBS has no standard resource for GPU memory (a site may define one)"
        ),
        "spec.resources.gpu.fraction": lost(
            "PBS allocates whole GPUs (`ngpus`); it cannot share one"
        ),
        "spec.resources.gpu.migProfile": lost(
            "MIG slices are site-defined custom resources in PBS"
        ),
        "spec.resources.diskPerTask": exact(
            "",
            ("scratch space is a site-defined PBS resource", "W201"),
            (
                (
                    "the raw `extensions.pbs.select` is written instead, and it says "
                    "something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.resources.genericResources": approx(
            "written as a custom resource of each `select` chunk (a chunk is not a node)"
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
            ("`$BAMMM_ARRAY_INDEX` is defined from `$PBS_ARRAY_INDEX`", "N003"),
            ("`$SLURM_NTASKS` has no equivalent here: it is empty in the converted script", "W301"),
        ),
        "spec.execution.executable": EXACT,
        "spec.execution.arguments": EXACT,
        "spec.execution.shell": EXACT,
        "spec.execution.workingDir": EXACT,
        "spec.execution.environment.vars": EXACT,
        "spec.execution.environment.secrets": lost(
            "Kubernetes secrets and config maps do not exist on PBS", by_writer=True
        ),
        "spec.execution.environment.configMaps[].name": exact(
            "",
            ("Kubernetes secrets and config maps do not exist on PBS", "W201"),
        ),
        "spec.execution.environment.configMaps[].configMapName": lost("qsub has no option for it"),
        "spec.execution.environment.configMaps[].configMapKey": lost("qsub has no option for it"),
        "spec.execution.environment.inheritFromSubmitter": EXACT,
        "spec.execution.stdin": lost("qsub has no standard input option", by_writer=True),
        "spec.tasks": lost("qsub has no option for it"),
        "spec.gang": lost("qsub has no option for it"),
        "spec.array.indices": exact(
            "",
            (
                (
                    "PBS Pro takes one range `X-Y` with X < Y: `1-15:2,20-24%4` is "
                    "written as `1-24`, so indices outside `1-15:2,20"
                ),
                "W301",
            ),
        ),
        "spec.array.maxConcurrent": lost(
            "a throttle without indices has no array to limit", by_writer=True
        ),
        "spec.dependencies": exact(
            "",
            ("`e3sm-spinup-m07` is not a PBS job id; PBS depends on ids only", "W201"),
            (
                (
                    "the raw `extensions.pbs.dependency` is written instead, and it says "
                    "something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.lifecycle.maxRetries": lost("qsub has no option for it"),
        "spec.lifecycle.requeueOnFailure": EXACT,
        "spec.lifecycle.successExitCodes": lost("qsub has no option for it"),
        "spec.lifecycle.ttlAfterFinished": lost("qsub has no option for it"),
        "spec.placement.nodeSelector": lost("qsub has no option for it"),
        "spec.placement.tolerations": lost("qsub has no option for it"),
        "spec.placement.affinity": lost("qsub has no option for it"),
        "spec.placement.topologySpread": lost("a Kubernetes concept; qsub has no option"),
        "spec.placement.topology": EXACT,
        "spec.placement.groupBy": exact(
            "",
            (
                (
                    "the raw `extensions.pbs.place` is written instead, and it says "
                    "something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.placement.constraint": exact(
            "",
            ("PBS selects node features through site-defined chunk resources", "W201"),
            (
                (
                    "the raw `extensions.pbs.place` is written instead, and it says "
                    "something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.placement.prefer": lost("qsub has no option for it"),
        "spec.placement.exclusive": EXACT,
        "spec.placement.nodePools": lost("qsub has no option for it"),
        "spec.output.stdout": exact(
            "",
            (
                (
                    "PBS cannot put `{job_name}`, `{array_job_id}` in an output path; "
                    "its default name (job name and id) is used in"
                ),
                "W301",
            ),
        ),
        "spec.output.stderr": exact(
            "",
            (
                (
                    "PBS cannot put `{job_name}`, `{array_job_id}` in an output path; "
                    "its default name (job name and id) is used in"
                ),
                "W301",
            ),
        ),
        "spec.output.mergeStderr": EXACT,
        "spec.output.openMode": lost("PBS always writes new output files", by_writer=True),
        "spec.notifications.email": EXACT,
        "spec.notifications.events": exact(
            "",
            ("PBS has no mail on `requeue`", "W201"),
            ("PBS has no mail on `requeue`; the job's other mail events are written", "W301"),
            (
                (
                    "the raw `extensions.pbs.mail_points` is written instead, and it "
                    "says something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.fileStaging.inputs": exact(
            "",
            ("PBS stages from `host:path` only", "W201"),
            (
                (
                    "the raw `extensions.pbs.stagein` is written instead, and it says "
                    "something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.fileStaging.outputs": exact(
            "",
            ("PBS stages from `host:path` only", "W201"),
            (
                (
                    "the raw `extensions.pbs.stagein` is written instead, and it says "
                    "something else for PBS"
                ),
                "W301",
            ),
        ),
        "spec.fileStaging.embeddedFiles[].name": exact(
            "",
            ("qsub has no option for it", "W201"),
        ),
        "spec.fileStaging.embeddedFiles[].content": lost("qsub has no option for it"),
        "spec.fileStaging.embeddedFiles[].encoding": lost("qsub has no option for it"),
        "spec.fileStaging.embeddedFiles[].permissions": lost("qsub has no option for it"),
        "spec.fileStaging.transferPolicy": exact(
            "",
            ("qsub has no option for it", "W201"),
        ),
        "spec.fileStaging.checkpointFiles": exact(
            "",
            ("qsub has no option for it", "W201"),
        ),
        "spec.volumes": lost("qsub has no option for it"),
        "spec.workloadType": lost("qsub has no option for it"),
        "spec.distributedFramework": lost("qsub has no option for it"),
        "spec.extensions.pbs.place": EXACT,
        "spec.extensions.pbs.stagein": EXACT,
        "spec.extensions.pbs.stageout": EXACT,
        "spec.extensions.pbs.aoe": lost("bammmc does not write PBS Pro's `-l aoe=` yet"),
        "spec.extensions.pbs.checkpoint_interval": lost(
            "bammmc does not write the checkpoint interval (`-c c=MINUTES`) yet"
        ),
        "spec.extensions.pbs.mpiprocs_per_chunk": exact(
            "",
            ("the chunks have `mpiprocs=2` (the tasks per node), not `mpiprocs=4`", "W301"),
            (
                (
                    "no `select` chunk is written (the job asks for no resources of its own), "
                    "so no chunk holds `mpiprocs=`"
                ),
                "W201",
            ),
        ),
        "spec.extensions.pbs.ompthreads_per_chunk": exact(
            "", ("the raw chunk request written instead has no `ompthreads`", "W201")
        ),
        "spec.extensions.pbs.mixed_chunks": exact(
            "",
            ("the other dialect's chunks in PBS's words, with what they cannot say", "W301"),
            (
                "only the first chunk shape when the other dialect's chunks hold words "
                "PBS has none for",
                "W301",
            ),
        ),
        "spec.extensions.pbs.server": EXACT,
        "spec.extensions.pbs.select": exact(
            "", ("the raw `extensions.pbs.mixed_chunks` is the chunk request written", "W201")
        ),
        "spec.extensions.pbs.nodes": lost(
            "`-l nodes=` is the other dialect's chunk request; PBS does not take it",
            by_writer=True,
        ),
        "spec.extensions.pbs.cput": exact("", ("`unlimited`: the queue's limit applies", "W201")),
        "spec.extensions.pbs.pcput": exact("", ("`unlimited`: the queue's limit applies", "W201")),
        "spec.extensions.pbs.mem": Capability(
            "lost",
            "Torque's job-wide `-l mem`: PBS Pro states memory per `select` chunk",
            "W201",
            (("while `memoryPerTask` is set: written per chunk", "W301"),),
            by_writer=True,
        ),
        "spec.extensions.pbs.resources": exact(
            "",
            ("a name the reader reads as a field of its own (`walltime`, `select`…)", "W201"),
            ("a chunk resource (`mem`, `ncpus`…) beside `select`/`place`", "W201"),
        ),
        "spec.extensions.pbs.join": EXACT,
        "spec.extensions.pbs.keep": EXACT,
        "spec.extensions.pbs.mail_points": EXACT,
        "spec.extensions.pbs.group_list": EXACT,
        "spec.extensions.pbs.umask": EXACT,
        "spec.extensions.pbs.sandbox": EXACT,
        "spec.extensions.pbs.priority": EXACT,
        "spec.extensions.pbs.begin": EXACT,
        "spec.extensions.pbs.dependency": EXACT,
        "spec.extensions.pbs.output": EXACT,
        "spec.extensions.pbs.error": EXACT,
        "spec.extensions.pbs.options": exact(
            "",
            (
                (
                    "`xy` is not a qsub option: the keys are option letters (`v`), or "
                    "`W:NAME` for `-W NAME=VALUE`"
                ),
                "W201",
            ),
        ),
    },
)


class PbsWriter(LossReports):
    """Writes PBS Pro; `TorqueWriter` changes the flags."""

    DIALECT: ClassVar[str] = "pbs"
    TABLE: ClassVar[Capabilities] = CAPABILITIES
    ARRAY_OPTION: ClassVar[str] = "-J"
    HAS_WORKDIR_OPTION: ClassVar[bool] = False
    HAS_PROJECT: ClassVar[bool] = True
    NAME_LIMIT: ClassVar[int] = 230
    NAME_RULE: ClassVar[str] = "letters, digits and `+_.-`, not starting with a symbol"
    ARRAY_INDEX_TAG: ClassVar[str | None] = "^array_index^"

    def __init__(self, job: Job, reporter: Reporter, options: WriteOptions) -> None:
        self.job = job
        self.reporter = reporter
        self.options = options
        self.lines: list[str] = []
        self.reported: set[tuple[str, str, str]] = set()
        #: the field each written line comes from (`refuse_unreadable`)
        self.fields: dict[str, str] = {}
        #: each chunk holds one task (tasks without nodes): per-node amounts do not fit
        self.chunk_is_task = False
        #: the chunks are tasks placed anywhere (`place=free`, written when nothing else is)
        self.free_chunks = False
        #: Torque's job-wide `mem` went into the translated chunks (`translated_chunks`)
        self.memory_in_chunks = False
        #: `mpiprocs=` of each `select` chunk built from the IR (None: no chunk was built)
        self.wrote_mpiprocs: set[int] | None = None
        self.spec = job.spec or Spec()
        ext = self.spec.extensions
        self.ext = ext.pbs if ext and ext.pbs else PbsExt()

    # -- reporting -------------------------------------------------------------------------

    @property
    def label(self) -> str:
        return "Torque" if self.DIALECT == "torque" else "PBS"

    def where(self) -> str:
        return f"for {self.label}"

    def lost(self, path: str, why: str, help: str | None = None) -> None:
        if not self.once("W201", path, why):
            super().lost(path, why, help)

    def once(self, code: str, path: str, text: str) -> bool:
        """True if this very diagnostic was already given (the same chunk written twice)."""
        key = (code, path, text)
        seen = key in self.reported
        self.reported.add(key)
        return seen

    def approximated(self, path: str, how: str) -> None:
        if not self.once("W301", path, how):
            super().approximated(path, how)

    def opt(self, letter: str, value: object = None, path: str | None = None) -> None:
        if value is None:
            self.lines.append(f"#PBS -{letter}")
            return
        text = str(value)
        if "\n" in text or "\r" in text:
            self.reporter.report(
                "E140",
                f"the value of `-{letter}` contains a line break, which no `#PBS` line can carry",
                field=path,
                help="remove the line break from the value",
            )
            return
        if letter == "l" and (text.count('"') % 2 or text.count("'") % 2):
            # qsub reads quotes in a resource list as quoting: an odd one leaves it open
            self.reporter.report(
                "E140",
                f"the resource `{text}` holds an unbalanced quote, which a `-l` list cannot carry",
                field=path,
                help="remove the quote from the value",
            )
            return
        if letter == "W" and not self.attribute_ok(text, path):
            return
        line = f"#PBS -{letter} {quote(text)}"
        self.lines.append(line)
        if path is not None:
            self.fields[line] = path

    def attribute_ok(self, text: str, path: str | None) -> bool:
        """Whether `-W name=value` reads back as this one attribute. qsub splits a `-W` list
        with `parse_equal_string()` (pbs.md §6): the name runs to its `=`; the value runs to
        the next `=` and then back to the `,` before it, where the next attribute starts (no
        `,` before it: a syntax error); a value starting with a quote is quoted. So a `=` in
        the value, or a leading quote, is never the value's own; a `,` without a `=` after
        it is (`group_list=a,b@h`)."""
        name, eq, value = text.partition("=")
        where = "qsub's `-W` attribute list"
        c = separator_in(name, "=," + BLANK) if eq else None
        if c is None:
            c = separator_in(value, "=") or (value[:1] if value[:1] in ("'", '"') else None)
        if c is None:
            return True
        report_separator(
            self.reporter,
            path,
            c,
            where,
            "qsub reads `name=value[,name=value…]`: a `=` in a value makes what follows the "
            "`,` before it another attribute (or, without a `,`, an error), and a value "
            "starting with a quote is quoted",
        )
        return False

    def resource_value(self, value: str, path: str | None) -> bool:
        """Whether ``value`` can be the value of a job-wide `-l name=value` (E140 if not)."""
        pbs = self.DIALECT == "pbs"
        return not refuse_separator(
            self.reporter,
            path,
            value,
            RESOURCE_VALUE_SYNTAX[self.DIALECT],
            "a `-l` resource list",
            "qsub ends a resource's value at `,`"
            + (" or white space" if pbs else "")
            + " and reads what follows as another resource; quotes start quoting"
            + ("; `&` is refused" if pbs else ""),
        )

    def resource_name(self, name: str, path: str | None, syntax: str, where: str) -> bool:
        """Whether ``name`` can be written as a resource name in ``where`` (E140 if not)."""
        return not refuse_separator(
            self.reporter,
            path,
            name,
            syntax,
            where,
            "qsub ends a resource name at `=` or `,`"
            + (", and a chunk's resources at `:` and its chunks at `+`" if ":" in syntax else ""),
            help="use the resource's name as the PBS site defines it",
        )

    def translated_chunks(self, text: str, memory: int | None, notes: list[str]) -> None:
        """The other dialect's chunks (`extensions.pbs.mixed_chunks`) in this one's words, with
        Torque's job-wide `mem` for the PBS Pro chunks' memory (torque.md: `mem` is the job's
        total) and a W301 for what the words cannot say."""
        path = "spec.extensions.pbs.mixed_chunks"
        key = "select" if self.DIALECT == "pbs" else "nodes"
        self.opt("l", f"{key}={text}", path)
        self.memory_in_chunks = self.DIALECT == "pbs" and ":mem=" in text
        if memory is not None and self.ext.mem is None:
            self.opt("l", f"mem={pbs_size(memory)}", path)
            notes.append(
                f"the chunks' memory is written as the job's total, `mem={pbs_size(memory)}`: "
                "Torque does not say how much each node gets"
            )
        res = self.spec.resources or Resources()
        # the portable fields hold the chunks' first shape, or their totals: the chunks written
        # are their words here, and this target's reader may read them another way
        fields = [f for f, attr in _CHUNK_FIELDS.items() if getattr(res, attr) is not None]
        fields += ["gpu.count"] if res.gpu is not None and res.gpu.count is not None else []
        words = f"the chunks are written in {self.label}'s words, `{key}={text}`"
        for field in fields:
            self.noted(f"spec.resources.{field}", words)
        if notes:
            self.approximated(path, f"{words}: " + "; ".join(notes))

    def raw_resources(self, text: str, path: str) -> bool:
        """Whether a raw chunk request (`select`, `nodes`, `place` of `extensions.pbs`) is one
        `-l` resource: `:`, `+` and `=` are its own syntax, a `,` (or in PBS Pro a blank)
        would start another resource."""
        pbs = self.DIALECT == "pbs"
        return not refuse_separator(
            self.reporter,
            path,
            text,
            "," + (BLANK if pbs else ""),
            "a `-l` resource list",
            "qsub ends a resource's value at `,`"
            + (" or white space" if pbs else "")
            + " and reads what follows as another resource (`select=…,walltime=…`)",
        )

    # -- the job ---------------------------------------------------------------------------

    def write(self) -> list[OutputFile]:
        spec, ext = self.spec, self.ext
        body, shebang = self.script()  # its directives go after the `#!` line
        self.lines = ([shebang] if shebang else []) + self.lines
        self.name()
        self.schedule(spec.schedule or Schedule())
        self.resources(spec.resources or Resources())
        self.array()
        self.dependencies()
        self.output()
        self.notifications()
        self.environment()
        for letter, value in (ext.options or {}).items():
            if letter == "v":
                continue  # written in the one `-v` list, beside the variables (environment())
            if letter.startswith("W:"):
                self.opt("W", f"{letter[2:]}={value}", f"spec.extensions.pbs.options.{letter}")
            elif len(letter) == 1:
                self.opt(letter, value or None, f"spec.extensions.pbs.options.{letter}")
            else:
                self.lost(
                    f"spec.extensions.pbs.options.{letter}",
                    f"`{letter}` is not a qsub option: the keys are option letters (`v`), or "
                    "`W:NAME` for `-W NAME=VALUE`",
                )
        self.unsupported()
        if _body_has_directives(body):
            # qsub would read them over the converted options: a command first ends its scan
            body = "true  # bammmc: qsub does not read the #PBS lines below\n" + body
            self.approximated(
                "spec.execution.script",
                "the script holds #PBS lines before its first command; a `true` line is put in "
                "front of them so that qsub ignores them",
            )
        header = "".join(line + "\n" for line in self.lines)
        text = header + body
        fmt = self.TABLE.target
        if not refuse_unreadable(self.reporter, text, fmt, self.fields, "pbs", "qsub"):
            report_shadowed(self, self.job, "pbs", lambda: read_own(text, fmt), self.label)
        return [OutputFile(text)]

    def script(self) -> tuple[str, str]:
        ex = self.spec.execution
        shell = ex.shell if ex and ex.shell else "/bin/bash"
        container_losses(ex, self.options.container_runtime, self.lost, self.approximated)
        body = ""
        if ex is not None and ex.script is not None:
            text = ex.script
            if text.startswith("#!"):
                first, _, body = text.partition("\n")
                shell_line = first
            else:  # qsub needs no `#!` line (it runs the script with -S or the login shell)
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
            shell_line = f"#!{shell}"
        else:
            shell_line = f"#!{shell}"
        if ex is not None and ex.shell:
            if not refuse_separator(
                self.reporter,
                "spec.execution.shell",
                ex.shell,
                "@,",
                "`-S path[@host][,path@host…]`",
                "qsub reads what follows `@` as a host and a `,` as the start of another shell",
            ):
                self.opt("S", ex.shell, "spec.execution.shell")
        body = rewrite_launchers(self, body, self.DIALECT, self.spec)
        body = (
            compatibility_block(
                body,
                self.DIALECT,
                self.approximated,
                self.noted,
                shell=job_shell(self.spec),
                spec=self.spec,
            )
            + body
        )
        if ex is not None and ex.working_dir is not None:
            if self.HAS_WORKDIR_OPTION:
                self.opt("d", ex.working_dir, "spec.execution.workingDir")
            else:  # PBS Pro starts jobs in $HOME and has no -d: change directory first
                body = f"cd {shlex.quote(ex.working_dir)}\n" + body
        elif _submit_dir(self.spec):  # Grid Engine's `-cwd`: PBS starts the job in $HOME
            body = 'cd "$PBS_O_WORKDIR"\n' + body
        if ex is not None and ex.stdin is not None:
            self.lost("spec.execution.stdin", "qsub has no standard input option")
        return body, shell_line

    def name(self) -> None:
        meta = self.job.metadata
        if meta is None or meta.name is None:
            return
        name = "".join(c if self.name_char(c) else "_" for c in meta.name)[: self.NAME_LIMIT]
        if name and not name[0].isalnum() and self.DIALECT == "pbs":
            name = ("j" + name)[: self.NAME_LIMIT]
        if name != meta.name:
            self.approximated(
                "metadata.name",
                f"`{meta.name}` written as `{name}` ({self.NAME_RULE}, at most "
                f"{self.NAME_LIMIT} characters)",
            )
        if name:
            self.opt("N", name, "metadata.name")

    def name_char(self, c: str) -> bool:
        return c in NAME_CHARS

    def schedule(self, sched: Schedule) -> None:
        ext = self.ext
        queue = sched.queue or sched.partition
        refused = queue is not None and refuse_separator(
            self.reporter,
            "spec.schedule.queue" if sched.queue else "spec.schedule.partition",
            queue,
            "@",
            "`-q queue@server`",
            "qsub reads what follows `@` as the server the job goes to",
        )
        if not refused and (queue is not None or ext.server is not None):
            self.opt(
                "q", (queue or "") + (f"@{ext.server}" if ext.server else ""), "spec.schedule.queue"
            )
        if sched.account is not None:
            self.opt("A", sched.account, "spec.schedule.account")
        if sched.project is not None:
            if self.HAS_PROJECT:
                self.opt("P", sched.project, "spec.schedule.project")
            else:
                self.lost("spec.schedule.project", "Torque's -P is a proxy user, not a project")
        if ext.priority is not None:
            self.opt("p", ext.priority, "spec.extensions.pbs.priority")
        elif sched.priority is not None:
            native = to_native(sched.priority, "pbs", self.options.band)
            self.opt("p", native, "spec.schedule.priority")
            report_priority_rounding(
                self, sched.priority, native, "pbs", self.options.band, "spec.schedule.priority"
            )
        if sched.hold:
            self.opt("h")
        if ext.begin is not None:
            self.opt("a", ext.begin, "spec.extensions.pbs.begin")
        elif sched.begin_after is not None:
            value = sched.begin_after.value
            if value.tzinfo is not None:
                import datetime as dt

                value = value.astimezone(dt.UTC).replace(tzinfo=None)
                self.approximated(
                    "spec.schedule.beginAfter", "written in UTC; qsub reads local time"
                )
            self.opt("a", value.strftime("%Y%m%d%H%M.%S"), "spec.schedule.beginAfter")
        if sched.walltime is not None:
            if sched.walltime.seconds is None:
                self.lost(
                    "spec.schedule.walltime",
                    "PBS has no unlimited walltime; the queue's limit applies",
                )
            else:
                self.opt(
                    "l", f"walltime={pbs_time(sched.walltime.seconds)}", "spec.schedule.walltime"
                )
        for key in ("cput", "pcput"):
            value = getattr(ext, key)
            if value is not None and value.seconds is not None:
                self.opt("l", f"{key}={pbs_time(value.seconds)}", f"spec.extensions.pbs.{key}")
            elif value is not None:
                self.lost(
                    f"spec.extensions.pbs.{key}",
                    f"PBS has no unlimited `{key}`; the queue's limit applies",
                )
        if sched.reservation is not None and self.resource_value(
            sched.reservation, "spec.schedule.reservation"
        ):
            self.opt("l", f"advres={sched.reservation}", "spec.schedule.reservation")
        life = self.spec.lifecycle
        if life is not None and life.requeue_on_failure is not None:
            self.opt(
                "r", "y" if life.requeue_on_failure else "n", "spec.lifecycle.requeueOnFailure"
            )
        for key, path in (
            ("qos", "spec.schedule.qos"),
            ("walltime_min", "spec.schedule.walltimeMin"),
            ("signal_before_end", "spec.schedule.signalBeforeEnd"),
            ("deadline", "spec.schedule.deadline"),
        ):
            if getattr(sched, key) is not None:
                self.lost(path, "qsub has no option for it")

    def resources(self, res: Resources) -> None:
        ext = self.ext
        # the raw chunk request of the other dialect: PBS Pro's `select`, Torque's `nodes`
        other = "nodes" if self.DIALECT == "pbs" else "select"
        if getattr(ext, other) is not None and ext.mixed_chunks is None:
            self.lost(
                f"spec.extensions.pbs.{other}",
                f"`-l {other}=` is the other dialect's chunk request; {self.label} does not "
                "take it",
            )
        if ext.mixed_chunks is not None:
            job_memory = ext.mem.bytes if ext.mem is not None and self.DIALECT == "pbs" else None
            translated = other_dialect_chunks(ext.mixed_chunks, self.DIALECT, job_memory)
            if translated is not None:
                self.translated_chunks(*translated)
            elif torque_chunks(ext.mixed_chunks) != (self.DIALECT == "torque"):
                # the other dialect's words with no counterpart here: the first chunk alone
                first = ext.mixed_chunks.split("+", 1)[0]
                self.approximated(
                    "spec.extensions.pbs.mixed_chunks",
                    f"only the first chunk shape (`{first}`) is written: the chunks "
                    f"`{ext.mixed_chunks}` hold words {self.label} has no counterpart for",
                )
                self.chunks(res)
            elif self.raw_resources(ext.mixed_chunks, "spec.extensions.pbs.mixed_chunks"):
                self.opt(
                    "l", f"{'select' if self.DIALECT == 'pbs' else 'nodes'}={ext.mixed_chunks}"
                )
            for key in ("select", "nodes"):
                if getattr(ext, key) is not None:
                    self.lost(
                        f"spec.extensions.pbs.{key}",
                        "the raw `extensions.pbs.mixed_chunks` is the chunk request written",
                    )
        elif ext.select is not None and self.DIALECT == "pbs":
            if self.raw_resources(ext.select, "spec.extensions.pbs.select"):
                self.opt("l", f"select={ext.select}", "spec.extensions.pbs.select")
        elif ext.nodes is not None and self.DIALECT == "torque":
            if self.raw_resources(ext.nodes, "spec.extensions.pbs.nodes"):
                self.opt("l", f"nodes={ext.nodes}", "spec.extensions.pbs.nodes")
        else:
            mpiprocs = ext.mpiprocs_per_chunk
            if (
                self.DIALECT == "pbs"
                and mpiprocs is not None
                and res.tasks_per_node is None
                and res.tasks is None
                and res != Resources()
            ):
                # the spec's own form of tasks per node (SPLAT §resources: "PBS: mpiprocs per
                # chunk"): the chunks' shape when the portable fields leave it open
                res = msgspec.structs.replace(res, tasks_per_node=mpiprocs)
            self.chunks(res)
        if self.DIALECT == "pbs":
            self.mpiprocs_per_chunk()
        if ext.place is not None and self.DIALECT == "pbs":
            if self.raw_resources(ext.place, "spec.extensions.pbs.place"):
                self.opt("l", f"place={ext.place}", "spec.extensions.pbs.place")
        elif self.DIALECT == "pbs":
            self.place()
        else:
            self.torque_placement()
        if ext.mem is not None and self.DIALECT == "pbs" and self.memory_in_chunks:
            pass  # divided among the translated chunks, with its W301
        elif ext.mem is not None and self.DIALECT == "pbs":
            # Torque's memory of the whole job: PBS Pro states memory per chunk, and qsub
            # refuses a job-wide `-l mem` (a host-level resource) beside `select`/`place`
            if res.memory_per_task is not None:
                self.approximated(
                    "spec.extensions.pbs.mem",
                    "the job-wide `-l mem` is Torque's: `memoryPerTask` is written per chunk",
                )
            else:
                self.lost(
                    "spec.extensions.pbs.mem",
                    "the job-wide `-l mem` is Torque's; PBS Pro states memory per `select` chunk",
                )
        elif ext.mem is not None:
            self.opt(
                "l", f"mem={pbs_size(self.job_memory(ext.mem, res))}", "spec.extensions.pbs.mem"
            )
        chunked = any(line.startswith(("#PBS -l select=", "#PBS -l place=")) for line in self.lines)
        for name, value in (ext.resources or {}).items():
            path = f"spec.extensions.pbs.resources.{name}"
            if self.DIALECT == "pbs" and name in PBS_OWN_RESOURCES:
                self.lost(path, f"`-l {name}` is read as a field of its own, not a raw resource")
                continue
            if self.DIALECT == "pbs" and chunked and name in PBS_CHUNK_RESOURCES:
                self.lost(
                    path,
                    f"qsub refuses `-l {name}` for the whole job beside `select`/`place` (a "
                    "chunk resource, or the old `nodes` syntax)",
                )
                continue
            if self.resource_name(
                name, path, RESOURCE_NAME_SYNTAX, "a `-l` resource list"
            ) and self.resource_value(value, path):
                self.opt("l", f"{name}={value}", path)
        if ext.ompthreads_per_chunk is not None and not getattr(self, "wrote_ompthreads", False):
            self.lost(
                "spec.extensions.pbs.ompthreads_per_chunk",
                "Torque has no threads per node"
                if self.DIALECT != "pbs"
                else "the raw chunk request written instead has no `ompthreads`",
            )

    def mpiprocs_per_chunk(self) -> None:
        """Report a raw `extensions.pbs.mpiprocs_per_chunk` the chunks written do not hold."""
        want = self.ext.mpiprocs_per_chunk
        if want is None:
            return
        path = "spec.extensions.pbs.mpiprocs_per_chunk"
        raw = self.ext.mixed_chunks or self.ext.select
        if self.wrote_mpiprocs is not None:
            if self.wrote_mpiprocs != {want}:
                got = ", ".join(f"`mpiprocs={n}`" for n in sorted(self.wrote_mpiprocs))
                self.approximated(
                    path, f"the chunks have {got} (the tasks per node), not `mpiprocs={want}`"
                )
        elif raw is not None:
            if any(f"mpiprocs={want}" not in term.split(":") for term in raw.split("+")):
                self.lost(
                    path,
                    "the raw chunk request written instead (`extensions.pbs."
                    f"{'mixed_chunks' if self.ext.mixed_chunks else 'select'}`) does not have "
                    f"`mpiprocs={want}` in each chunk",
                )
        else:
            self.lost(
                path,
                "no `select` chunk is written (the job asks for no resources of its own), so "
                "no chunk holds `mpiprocs=`",
                help="set `resources` (nodes, tasks per node) for the chunks",
            )

    def chunk_shape(self, res: Resources) -> tuple[int, int, int, tuple[int, int] | None]:
        """Chunks, tasks per chunk and CPUs per task from the IR, and ``(chunks, tasks)`` of a
        second term holding fewer tasks each when the tasks do not divide evenly."""
        nodes, tpn, tasks = res.nodes, res.tasks_per_node, res.tasks
        extra: tuple[int, int] | None = None
        if tpn is None and tasks is not None:
            if nodes is not None and nodes > tasks:
                # a chunk without a task is refused or dropped: one chunk per task
                self.approximated(
                    "spec.resources.nodes",
                    f"{tasks} tasks on {nodes} nodes written as {tasks} chunks of one task",
                )
                nodes, tpn = tasks, 1
                self.chunk_is_task = True
            elif nodes is None:
                nodes, tpn = tasks, 1  # one chunk per task: PBS places them freely
                self.chunk_is_task = True
                self.free_chunks = tasks > 1
            elif tasks % nodes == 0:
                tpn = tasks // nodes
                if nodes > 1:
                    self.noted(
                        "spec.resources.tasks",
                        f"{tasks} tasks on {nodes} nodes are written as {tpn} on each: a "
                        "balanced layout the job did not ask for (Slurm fills nodes in turn: "
                        "7 and 1 for `-n 8 -N 2` on the real Slurm)",
                    )
            else:
                # `-N 3 -n 10` as evenly as chunks can say it: one chunk of 4 tasks, two of 3
                # (Slurm itself only promises at least one task on each node)
                tpn = -(-tasks // nodes)
                full = tasks - nodes * (tpn - 1)
                extra = (nodes - full, tpn - 1)
                nodes = full
        elif tpn is not None and tasks is not None and nodes is None:
            # as Slurm's `-n 10 --ntasks-per-node=4`: full chunks and one for the rest
            nodes, rest = divmod(tasks, tpn)
            if nodes == 0:
                nodes, tpn, rest = 1, tasks, 0
            extra = (1, rest) if rest else None
        elif tpn is not None and tasks is not None and nodes is not None and tasks != nodes * tpn:
            self.approximated(
                "spec.resources.tasks",
                f"PBS starts {nodes * tpn} tasks (nodes × tasks per node), not {tasks}",
            )
        cpus = 1
        if res.cpus_per_task is not None:
            cores = res.cpus_per_task.cores
            cpus = -(-cores.numerator // cores.denominator)
            if cpus != cores:
                self.approximated(
                    "spec.resources.cpusPerTask", f"{cores} CPUs rounded up to {cpus}"
                )
        return nodes or 1, tpn or 1, cpus, extra

    def chunks(self, res: Resources) -> None:
        if res == Resources():
            return
        placement = self.spec.placement
        if self.DIALECT == "pbs" and placement is not None and placement.topology == "pack":
            # `place=pack` puts every chunk on one host (pbs.md §2): the job is one chunk
            if res.nodes is not None and res.nodes > 1:
                self.approximated(
                    "spec.resources.nodes",
                    f"`place=pack` puts every chunk on one host: {res.nodes} nodes written as "
                    "one chunk",
                )
            res = msgspec.structs.replace(res, tasks=res.task_count, nodes=1, tasks_per_node=None)
        elif self.DIALECT == "pbs" and placement is not None and placement.topology == "free":
            if res.nodes is not None and res.nodes > 1:
                self.approximated(
                    "spec.resources.nodes",
                    f"`place=free` lets PBS put the {res.nodes} chunks on fewer hosts: the "
                    "node count is its choice",
                )
        nodes, tpn, cpus, extra = self.chunk_shape(res)
        if res.disk_per_task is not None:
            self.lost("spec.resources.diskPerTask", "scratch space is a site-defined PBS resource")
        if res.gpu is not None and res.gpu.type is not None:
            self.lost(
                "spec.resources.gpu.type", "GPU models are site-defined custom resources in PBS"
            )
        total = nodes + (extra[0] if extra else 0)
        if self.DIALECT != "pbs":
            if extra:
                self.approximated(
                    "spec.resources.tasks",
                    f"{res.tasks} tasks written as {total} nodes of {tpn}",
                )
            placement = self.spec.placement
            procs = (
                self.chunk_is_task
                and res.nodes is None
                and cpus == 1
                and res.gpu is None
                and not (placement is not None and placement.constraint)
            )
            if self.chunk_is_task and not procs:
                self.approximated(
                    "spec.resources.tasks",
                    f"{res.tasks} tasks written as {total} nodes of one processor "
                    "(`nodes=`): Torque has no task count",
                )
            for name in res.generic_resources or {}:
                self.lost(
                    f"spec.resources.genericResources.{name}",
                    "Torque's `nodes=` request has GPUs (`gpus=`) but no other generic resource",
                )
            self.torque_nodes(total, tpn, cpus, res, procs=procs)
            return
        for name in res.generic_resources or {}:
            if not self.resource_name(
                name, f"spec.resources.genericResources.{name}", CHUNK_SYNTAX, "a `select` chunk"
            ):
                return
        select = self.chunk(nodes, tpn, cpus, total, res)
        if extra:
            select += "+" + self.chunk(extra[0], extra[1], cpus, total, res)
        self.opt("l", "select=" + select, "spec.resources")

    def chunk(self, count: int, tpn: int, cpus: int, total: int, res: Resources) -> str:
        """One `select` term: ``count`` chunks of ``tpn`` tasks (``total`` chunks in all)."""
        parts = [str(count), f"ncpus={tpn * cpus}", f"mpiprocs={tpn}"]
        self.wrote_mpiprocs = (self.wrote_mpiprocs or set()) | {tpn}
        if self.ext.ompthreads_per_chunk is not None:
            parts.append(f"ompthreads={self.ext.ompthreads_per_chunk}")
            self.wrote_ompthreads = True
        mem = res.memory_per_task
        if mem is not None:
            parts.append(f"mem={pbs_size(self.per_chunk(mem, tpn, cpus, total, res))}")
        gpu = res.gpu
        if gpu is not None and gpu.count is not None:
            count_ = gpu.count
            scope = count_.scope or "task"
            factors: dict[str, Fraction] = {
                "task": Fraction(tpn),
                "node": Fraction(1),
                "chunk": Fraction(1),
                "job": Fraction(1, total),
            }
            if scope == "node" and self.chunk_is_task and total > 1:
                self.approximated(
                    "spec.resources.gpu.count",
                    "GPUs per node written per chunk, and each chunk here is one task",
                )
            elif scope != "task" and total > 1:
                # bammmc's reader (as qsub) reads `ngpus` per chunk, or per task when the
                # chunk's tasks share it evenly: a count per node or per job is not kept
                # (with one chunk, per node, per job and per chunk are the same)
                self.approximated(
                    "spec.resources.gpu.count",
                    f"GPUs per {scope} written per chunk (`ngpus` of each `select` chunk)",
                )
            amount = count_.amount * factors.get(scope, Fraction(1))
            whole = -(-amount.numerator // amount.denominator)
            if whole != amount:
                self.approximated(
                    "spec.resources.gpu.count", f"{amount} GPUs per chunk rounded up to {whole}"
                )
            parts.append(f"ngpus={whole}")
        for name, amount_ in (res.generic_resources or {}).items():
            whole = -(-amount_.amount.numerator // amount_.amount.denominator)
            # a custom resource of a chunk is PBS's own request, but not a count per node (a
            # node can hold several chunks) nor per job: bammmc's reader keeps it in the raw
            # `select` of extensions.pbs
            self.approximated(
                f"spec.resources.genericResources.{name}",
                f"{amount_.amount} per {amount_.scope or 'node'} written as `{name}={whole}` "
                "in each `select` chunk",
            )
            parts.append(f"{name}={whole}")
        return ":".join(parts)

    def torque_nodes(
        self, nodes: int, tpn: int, cpus: int, res: Resources, *, procs: bool = False
    ) -> None:
        """`nodes=N:ppn=M[:gpus=G][:feature]` and `pmem`; ``procs``: tasks without a node
        count are `procs=N` (Torque 2.5+: "processors … from one or more qualified nodes",
        as Slurm's `--ntasks`), each a processor."""
        if procs:
            self.opt("l", f"procs={nodes}", "spec.resources.tasks")
            self.processor_memory(nodes, 1, 1, nodes, res)
            return
        spec = [str(nodes)]
        if res.tasks_per_node is not None or cpus > 1 or tpn > 1:
            spec.append(f"ppn={tpn * cpus}")
        if res.gpu is not None and res.gpu.count is not None:
            count = res.gpu.count
            scope = count.scope or "task"
            factors = {"task": Fraction(tpn), "node": Fraction(1), "job": Fraction(1, nodes)}
            per_node = count.amount * factors.get(scope, Fraction(1))
            whole = -(-per_node.numerator // per_node.denominator)
            if (
                scope not in ("task", "node")
                or whole != per_node
                or (scope == "task" and self.chunk_is_task)
                # tasks that do not fill the nodes evenly: GPUs for `tpn` tasks on every node
                or (scope == "task" and res.tasks is not None and res.tasks != nodes * tpn)
            ):
                self.approximated(
                    "spec.resources.gpu.count",
                    f"{count.amount} GPUs per {scope} written as `gpus={whole}` on each of the "
                    f"{nodes} nodes",
                )
            spec.append(f"gpus={whole}")
        placement = self.spec.placement
        if placement is not None and placement.constraint:
            features = placement.constraint.split("&")
            if all(f.replace("_", "").replace("-", "").isalnum() for f in features):
                spec += features
            else:
                self.approximated(
                    "spec.placement.constraint",
                    "Torque node properties are plain words joined by `:`",
                )
        self.opt("l", "nodes=" + ":".join(spec), "spec.resources")
        self.processor_memory(nodes, tpn, cpus, nodes, res)
        if cpus > 1:
            self.approximated(
                "spec.resources.cpusPerTask",
                "Torque has processors per node, not per task: ppn counts all of them",
            )
            for key, path in (("tasks_per_node", "tasksPerNode"), ("tasks", "tasks")):
                if getattr(res, key) is not None:
                    self.approximated(
                        f"spec.resources.{path}",
                        f"ppn={tpn * cpus} counts {tpn} tasks × {cpus} CPUs per node; Torque "
                        "reads it as processors, not tasks",
                    )

    def processor_memory(self, nodes: int, tpn: int, cpus: int, total: int, res: Resources) -> None:
        """`pmem`: the memory of each processor."""
        if res.memory_per_task is None:
            return
        # `pmem` is per process: Torque and Moab reserve it for each processor `ppn`
        # counts (torque.md §2), so a node's memory is shared by all `tpn × cpus` of them
        mem = res.memory_per_task
        node_bytes = self.per_chunk(mem, tpn, cpus, nodes, res)
        procs = tpn * cpus
        per_proc = -(-node_bytes // procs)
        if per_proc * procs != node_bytes:
            self.approximated(
                "spec.resources.memoryPerTask",
                f"{Size.from_bytes(node_bytes)} per node over {procs} processors rounded up to "
                f"{Size.from_bytes(per_proc)} per processor (`pmem`)",
            )
        elif cpus > 1:
            self.approximated(
                "spec.resources.memoryPerTask",
                f"`pmem` is per processor: {Size.from_bytes(node_bytes // tpn)} per task "
                f"written as {Size.from_bytes(per_proc)} for each of its {cpus} processors",
            )
        self.opt("l", f"pmem={pbs_size(per_proc)}", "spec.resources.memoryPerTask")

    def job_memory(self, mem: Size, res: Resources) -> int:
        """Torque's `-l mem` is the whole job's memory: a raw value stated per node, task or
        CPU is multiplied out when the job's count of them is known (W301 either way, as it
        reads back per job)."""
        scope = mem.scope or "job"
        if scope == "job":
            return mem.bytes
        cores = res.cpus_per_task.cores if res.cpus_per_task is not None else Fraction(1)
        # unset counts as SPLAT defaults them: one task; one node for one task
        tasks = res.tasks
        if tasks is None and res.nodes is not None and res.tasks_per_node is not None:
            tasks = res.nodes * res.tasks_per_node
        elif tasks is None and res.nodes is None:
            tasks = 1
        nodes = res.nodes if res.nodes is not None else (1 if tasks == 1 else None)
        count: Fraction | None = {
            "node": Fraction(nodes) if nodes is not None else None,
            "task": Fraction(tasks) if tasks is not None else None,
            "cpu": tasks * cores if tasks is not None else None,
        }.get(scope)
        path = "spec.extensions.pbs.mem"
        if count is None:
            self.approximated(
                path,
                f"{mem} written as the whole job's memory: Torque's `-l mem` is per job, and "
                f"the job does not say how many {'CPUs' if scope == 'cpu' else scope + 's'} it "
                "has",
            )
            return mem.bytes
        total = mem.bytes * count
        whole = -(-total.numerator // total.denominator)
        self.approximated(
            path,
            f"{mem} written as the whole job's {human_size(whole)} ({count} × {mem}): Torque's "
            "`-l mem` is per job",
        )
        return whole

    def per_chunk(self, mem: Size, tpn: int, cpus: int, nodes: int, res: Resources) -> int:
        scope = mem.scope or "task"
        if scope == "task":
            return mem.bytes * tpn
        if scope == "node" and self.chunk_is_task and res.nodes is None and res.tasks == 1:
            return mem.bytes  # one task on its one node: the node's memory is the task's
        if scope == "node" and self.chunk_is_task and res.nodes is None and res.tasks:
            # tasks without a node count, one chunk each: they are taken to share one host,
            # as the Grid Engine writer takes its slots (a chunk each with the node's memory
            # would ask for it once per task: `--ntasks=8 --mem=16G` was 8 × 16gb)
            per = -(-mem.bytes // res.tasks)
            self.approximated(
                "spec.resources.memoryPerTask",
                f"memory per node shared by the {res.tasks} tasks ({Size.from_bytes(per)} "
                "each): the job gives no node count, so they are taken to "
                "share one host",
            )
            return per
        if scope in ("node", "chunk"):
            if scope == "node" and self.chunk_is_task:
                self.approximated(
                    "spec.resources.memoryPerTask",
                    "memory per node written per chunk, and each chunk here is one task",
                )
            elif scope == "node" and nodes > 1:
                self.approximated(
                    "spec.resources.memoryPerTask",
                    "memory per node written per chunk"
                    + (
                        " (`mem` of each `select` chunk)" if self.DIALECT == "pbs" else ", per task"
                    ),
                )
            return mem.bytes
        if scope == "cpu":
            self.cpus_rounded(res, cpus)
            return mem.bytes * tpn * cpus
        if scope == "job":
            if nodes > 1:
                self.approximated(
                    "spec.resources.memoryPerTask",
                    f"memory per job written per chunk ({nodes} chunks)",
                )
            return -(-mem.bytes // nodes)
        self.approximated("spec.resources.memoryPerTask", f"memory per {scope} written per chunk")
        return mem.bytes

    def cpus_rounded(self, res: Resources, cpus: int) -> None:
        """Memory per CPU on a task's CPUs rounded up to a whole count: more memory per task."""
        have = res.cpus_per_task.cores if res.cpus_per_task is not None else 1
        if have != cpus:
            self.approximated(
                "spec.resources.memoryPerTask",
                f"memory per CPU given to {cpus} CPUs per task ({have} rounded up)",
            )

    def torque_placement(self) -> None:
        """Torque has no `place=`: node-exclusive access is `-n`, the rest has no option."""
        placement = self.spec.placement
        if self.ext.place is not None:
            self.lost("spec.extensions.pbs.place", "Torque has no `place=`")
        if placement is None:
            return
        if placement.constraint and not any(" nodes=" in line for line in self.lines):
            self.lost(
                "spec.placement.constraint",
                "Torque node properties go in `-l nodes=`, which this job does not request",
            )
        if placement.exclusive:
            self.opt("n", None, "spec.placement.exclusive")
        for key, path in (("topology", "topology"), ("group_by", "groupBy")):
            if getattr(placement, key) is not None:
                self.lost(f"spec.placement.{path}", "Torque has no `place=`")

    def place(self) -> None:
        """`place=` of the placement; `free` stated for chunks that are tasks placed anywhere
        (PBS's own default: the reader then reads tasks, not nodes)."""
        placement = self.spec.placement
        if placement is None:
            if self.free_chunks:
                self.opt("l", "place=free", "spec.resources.tasks")
            return
        parts: list[str] = []
        if placement.topology is not None:
            parts.append(placement.topology)
        elif self.free_chunks:
            parts.append("free")
        if placement.exclusive:
            parts.append("excl")
        if placement.group_by is not None and self.resource_name(
            placement.group_by, "spec.placement.groupBy", CHUNK_SYNTAX, "`-l place=`"
        ):
            parts.append(f"group={placement.group_by}")
        if parts:
            self.opt("l", "place=" + ":".join(parts), "spec.placement")
        if placement.constraint is not None:
            self.lost(
                "spec.placement.constraint",
                "PBS selects node features through site-defined chunk resources",
            )

    def array(self) -> None:
        arr = self.spec.array
        if arr is None or arr.indices is None:
            if arr is not None and arr.max_concurrent is not None:
                self.lost(
                    "spec.array.maxConcurrent", "a throttle without indices has no array to limit"
                )
            return
        spec = arr.indices
        throttle = spec.throttle if spec.throttle is not None else arr.max_concurrent
        if self.DIALECT == "pbs":
            start, end, step = spec.ranges[0]
            indices = spec.indices() if spec.is_list or start >= end else []
            steps = {b - a for a, b in itertools.pairwise(indices)}
            if not indices:
                text = f"{start}-{end}" + (f":{step}" if step != 1 else "")
            elif len(indices) > 1 and len(steps) == 1:  # an arithmetic list is one range
                step = steps.pop()
                text = f"{indices[0]}-{indices[-1]}" + (f":{step}" if step != 1 else "")
            else:
                last = max(indices[-1], indices[0] + 1)
                text = f"{indices[0]}-{last}"
                self.approximated(
                    "spec.array.indices",
                    f"PBS Pro takes one range `X-Y` with X < Y: `{spec}` is written as "
                    f"`{text}`, so indices outside `{spec}` run too",
                )
        else:
            items = []
            for start, end, step in spec.ranges:
                if step != 1:
                    items += [str(i) for i in range(start, end + 1, step)]
                else:
                    items.append(str(start) if start == end else f"{start}-{end}")
            if spec.has_step:
                self.approximated(
                    "spec.array.indices", "Torque has no step: the indices are listed"
                )
            text = ",".join(items)
        if throttle is not None:
            text += f"%{throttle}"
        self.opt(self.ARRAY_OPTION[1], text, "spec.array.indices")

    def dependencies(self) -> None:
        ext = self.ext
        if ext.dependency is not None:
            self.opt("W", f"depend={ext.dependency}", "spec.extensions.pbs.dependency")
        else:
            groups: dict[str, list[str]] = {}
            for i, dep in enumerate(self.spec.dependencies or ()):
                path = f"spec.dependencies[{i}]"
                if dep.scheme in ("afterok", "afternotok", "afterany", "after") and dep.value:
                    ref = pbs_job_ref(dep.value)
                    if ref is None:
                        self.lost(
                            path, f"`{dep.value}` is not a PBS job id; PBS depends on ids only"
                        )
                        continue
                    groups.setdefault(dep.scheme, []).append(ref)
                    if dep.count is not None:
                        self.approximated(
                            path, "waiting for some array elements becomes waiting for all"
                        )
                elif dep.scheme == "begin_time":
                    self.lost(path, "write the start time as `schedule.beginAfter` (`-a`)")
                else:
                    self.lost(path, dependency_gap(dep, "PBS"))
            if groups:
                self.opt(
                    "W",
                    "depend=" + ",".join(f"{k}:{':'.join(v)}" for k, v in groups.items()),
                    "spec.dependencies",
                )
        for key in ("group_list", "umask", "sandbox"):
            if getattr(ext, key) is not None:
                self.opt("W", f"{key}={getattr(ext, key)}", f"spec.extensions.pbs.{key}")
        staging = self.spec.file_staging
        for key, entries_attr in (("stagein", "inputs"), ("stageout", "outputs")):
            entries = getattr(ext, key)
            if entries is None and staging is not None and getattr(staging, entries_attr):
                entries = []
                for j, item in enumerate(getattr(staging, entries_attr)):
                    local, remote = (
                        (item.dst, item.src) if key == "stagein" else (item.src, item.dst)
                    )
                    if ":" not in remote:
                        self.lost(
                            f"spec.fileStaging.{entries_attr}[{j}]",
                            "PBS stages from `host:path` only",
                        )
                        continue
                    # `local@host:remote,…`, and a `=` starts another `-W` attribute
                    if "@" in local or any(c in local + remote for c in ",="):
                        self.reporter.report(
                            "E140",
                            f"a file of `spec.fileStaging.{entries_attr}[{j}]` holds `@`, `,` "
                            f"or `=`, which `-W {key}=local@host:remote,…` reads as its "
                            "separators",
                            field=f"spec.fileStaging.{entries_attr}[{j}]",
                            help="rename the file",
                        )
                        continue
                    entries.append(f"{local}@{remote}")
            elif entries is not None:
                raw = f"spec.extensions.pbs.{key}"
                if any(
                    refuse_separator(
                        self.reporter,
                        raw,
                        entry,
                        ",",
                        f"`-W {key}=`",
                        "qsub reads `local@host:remote[,local@host:remote…]`: a `,` in an entry "
                        "starts another one",
                    )
                    for entry in entries
                ):
                    entries = []
            if entries:
                self.opt("W", f"{key}=" + ",".join(entries), f"spec.fileStaging.{entries_attr}")
        if staging is not None:
            for key in ("embedded_files", "checkpoint_files", "transfer_policy"):
                if getattr(staging, key):
                    self.lost(f"spec.fileStaging.{camel(key)}", "qsub has no option for it")

    def output(self) -> None:
        out = self.spec.output
        ext = self.ext
        if ext.keep is not None:
            self.opt("k", ext.keep)
        if out is None:
            return
        if out.merge_stderr:
            self.opt("j", ext.join or "oe", "spec.output.mergeStderr")
        for letter, template, raw in (("o", out.stdout, ext.output), ("e", out.stderr, ext.error)):
            path = f"spec.output.{'stdout' if letter == 'o' else 'stderr'}"
            if raw is not None:
                self.opt(letter, raw)
            elif template is not None:
                self.path(letter, template, path)
        if out.open_mode == "append":
            self.lost("spec.output.openMode", "PBS always writes new output files")

    def default_name(self, letter: str) -> str | None:
        """The SPLAT template of the file qsub names when `-{letter}` names none."""
        return default_path(letter, self.spec.array is not None, self.DIALECT == "torque")

    def path(self, letter: str, template: Template, field: str) -> None:
        default = self.default_name(letter)
        if default is not None and template.parts == Template.parse(default).parts:
            return  # qsub's own name for it
        mapping = {"array_index": self.ARRAY_INDEX_TAG} if self.ARRAY_INDEX_TAG else {}
        name = self.job.metadata.name if self.job.metadata is not None else None
        if name and not set(name) & set("/:^"):
            mapping["job_name"] = name  # the job's own name, known now: the same file
        missing = [v for v in template.variables() if v not in mapping]
        if missing and str(template) in (default_output(False), default_output(True)):
            # sbatch's own name where the job named none: qsub's own name here, alike
            self.noted(field, f"sbatch's default name `{template}` is qsub's own here")
            return
        if missing:
            shown = ", ".join(f"`{{{v}}}`" for v in missing)
            self.approximated(
                field,
                f"{self.label} cannot put {shown} in an output path; its default name "
                "(job name and id) is used instead",
            )
            return
        rendered = template.render(mapping)
        if ":" in rendered:  # `-o [host:]path`: the part before the first `:` is a host
            self.reporter.report(
                "E140",
                f"`{field}` holds `:`: qsub reads `-{letter} host:path`, so the part before "
                "the first `:` would name a host",
                field=field,
                help="remove the `:` from the file name",
            )
        self.opt(letter, rendered, field)

    def notifications(self) -> None:
        note = self.spec.notifications
        if self.ext.mail_points is not None:
            self.opt("m", self.ext.mail_points)
        elif note is not None and note.events is not None:
            letters = "".join(MAIL_LETTERS[e] for e in ("fail", "begin", "end") if e in note.events)
            report_missed_mail(self, "PBS", list(note.events), MAIL_LETTERS)
            self.opt("m", letters or "n", "spec.notifications.events")
        if note is not None and note.email is not None:
            self.opt("M", note.email, "spec.notifications.email")

    def environment(self) -> None:
        ex = self.spec.execution
        env = (ex.environment if ex else None) or Environment()
        if env.inherit_from_submitter:
            self.opt("V", None, "spec.execution.environment.inheritFromSubmitter")
        items: list[str] = []
        for key, value in (env.vars or {}).items():
            if refuse_separator(
                self.reporter,
                f"spec.execution.environment.vars.{key}",
                key,
                "=,'\"\\",
                "a `-v` variable list",
                "qsub reads `NAME[=value][,NAME[=value]…]`: a variable's name ends at `=` "
                "and the item at `,`, quotes quote, and `\\` escapes a `,`",
                help="rename the variable, or set it in the script body",
            ):
                continue
            if "'" in value or '"' in value:  # qsub's -v list reads quotes as quoting
                self.reporter.report(
                    "E140",
                    f"the value of `{key}` holds a quote, which a `-v` list cannot carry",
                    field=f"spec.execution.environment.vars.{key}",
                    help="set the variable in the script body instead",
                )
                continue
            if "," in value:
                quote_char = "'" if "'" not in value else '"'
                items.append(f"{key}={quote_char}{value}{quote_char}")
            else:
                items.append(f"{key}={value}")
        copied = (self.ext.options or {}).get("v")
        if copied:  # `-v NAME` items (the submitter's values), read into the extension
            items.append(copied)
        if items:
            self.opt("v", ",".join(items), "spec.execution.environment.vars")
        for key in ("secrets", "config_maps"):
            if getattr(env, key):
                self.lost(
                    f"spec.execution.environment.{camel(key)}",
                    "Kubernetes secrets and config maps do not exist on PBS",
                )

    def unsupported(self) -> None:
        spec = self.spec
        report_unsupported(self, self.job, self.TABLE, "qsub")
        if spec.extensions:
            handled = ("spec.extensions.sge.cwd",) if _submit_dir(spec) else ()
            report_foreign(self, spec, ("pbs", "torque"), handled, script=True)


def _submit_dir(spec: Spec) -> bool:
    """Whether the job is a Grid Engine script's with `-cwd` (the submit directory)."""
    sge = spec.extensions.sge if spec.extensions is not None else None
    ex = spec.execution
    return sge is not None and bool(sge.cwd) and (ex is None or ex.working_dir is None)


def quote(value: str) -> str:
    """Quote a value for qsub's tokenizer (quotes group, no escapes inside them).

    A value with both kinds of quotes is a run of groups, each in the quotes it does not hold,
    which the tokenizer joins into one word (`'"'"it's"` is `"it's`; `'{value}'` was cut at the
    value's own `'`, found by tests/property/test_separators.py).

    >>> print(quote("plain"), quote("a b"), quote("it's"), quote('say "hi"'))
    plain "a b" "it's" 'say "hi"'
    >>> print(quote('"\\'#^\\']'))
    '"'"'#^']"
    """
    if value and all(not c.isspace() and c not in "'\"\\" for c in value):
        return value
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return "".join("'\"'" if run == '"' else f'"{run}"' for run in re.split('(")', value) if run)


def pbs_time(seconds: int) -> str:
    """`HH:MM:SS` (hours may exceed 24).

    >>> pbs_time(90), pbs_time(129600)
    ('00:01:30', '36:00:00')
    """
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}"


#: the portable fields a PBS job's chunks set (wire name: attribute)
_CHUNK_FIELDS: Final = {
    "nodes": "nodes",
    "tasks": "tasks",
    "tasksPerNode": "tasks_per_node",
    "cpusPerTask": "cpus_per_task",
    "memoryPerTask": "memory_per_task",
}


def other_dialect_chunks(
    text: str, dialect: str, job_memory: int | None = None
) -> tuple[str, int | None, list[str]] | None:
    """Chunks of several shapes written in the other dialect, in ``dialect``'s words: PBS Pro's
    `N:ncpus=C:mpiprocs=M:mem=X:ngpus=G` as Torque's `N:ppn=C:gpus=G` (ppn counts processors,
    the memory summed into the job's `mem`), Torque's `N:ppn=P:gpus=G` as PBS Pro's
    `N:ncpus=P:mpiprocs=P:ngpus=G`, as PBS Pro itself converts `nodes` (pbs.md §2), Torque's
    job-wide ``job_memory`` divided among them by processors (PBS Pro refuses a job-wide
    `mem` beside `select`, and states it per chunk). Also the
    memory to write job-wide (bytes, or None) and what the words cannot say. None when the
    chunks are in ``dialect`` already, or hold a resource or a node property with no
    counterpart: then they are written as they are (W301)."""
    from bammmc.facts.pbs import size_bytes

    torque = torque_chunks(text)
    if torque == (dialect == "torque"):
        return None
    out: list[str] = []
    notes: list[str] = []
    total: int | None = 0
    for chunk in text.split("+"):
        first, *rest = chunk.split(":")
        count = first if first.isdigit() else "1"
        parts = rest if first.isdigit() else [first, *rest]
        res = dict(part.split("=", 1) for part in parts if "=" in part)
        if len(res) != len(parts) or not all(v.isdigit() or k == "mem" for k, v in res.items()):
            return None
        if torque:
            if set(res) - {"ppn", "gpus"}:
                return None
            ppn = res.get("ppn", "1")
            words = [count, f"ncpus={ppn}", f"mpiprocs={ppn}"]
            words += [f"ngpus={res['gpus']}"] if "gpus" in res else []
        else:
            if set(res) - {"ncpus", "mpiprocs", "mem", "ngpus"}:
                return None
            ncpus = res.get("ncpus", "1")
            words = [count, f"ppn={ncpus}"] + ([f"gpus={res['ngpus']}"] if "ngpus" in res else [])
            if res.get("mpiprocs", "1") != ncpus:
                notes.append(
                    f"`{chunk}` is {ncpus} processors per node in Torque's `ppn`: the node "
                    f"file lists each node {ncpus} times, not {res.get('mpiprocs', '1')}"
                )
            size = size_bytes(res["mem"]) if "mem" in res else None
            total = total + int(count) * size if total is not None and size is not None else None
        out.append(":".join(words))
    if torque and job_memory:
        out, note = _divided_memory(out, job_memory)
        notes.append(note)
    return "+".join(out), (total or None) if not torque else None, notes


def _divided_memory(chunks: list[str], job_memory: int) -> tuple[list[str], str]:
    """PBS Pro chunks `N:ncpus=P:…` with a job's memory shared among them by processors, each
    chunk's share rounded up to a KiB, and the W301 that says so."""
    counts = [int(c.split(":", 1)[0]) * int(c.split("ncpus=")[1].split(":")[0]) for c in chunks]
    total = sum(counts)
    shares = [
        -(-job_memory * n // (total * int(c.split(":", 1)[0]) * 1024))
        for c, n in zip(chunks, counts, strict=True)
    ]
    out = [f"{c}:mem={kib}kb" for c, kib in zip(chunks, shares, strict=True)]
    return out, (
        f"Torque's job-wide `mem={pbs_size(job_memory)}` is divided among the chunks by their "
        "processors (PBS Pro states memory per chunk, and refuses a job-wide `mem` beside "
        "`select`)"
    )


def pbs_size(n_bytes: int) -> str:
    """The largest exact PBS unit, always explicit (`mem=1000` would be 1000 bytes: pitfall 8).

    >>> pbs_size(4 * 1024**3), pbs_size(1536 * 1024**2), pbs_size(1000)
    ('4gb', '1536mb', '1000b')
    """
    for unit, factor in (("tb", 1024**4), ("gb", 1024**3), ("mb", 1024**2), ("kb", 1024)):
        if n_bytes and n_bytes % factor == 0:
            return f"{n_bytes // factor}{unit}"
    return f"{n_bytes}b"


def _body_has_directives(body: str) -> bool:
    """Would qsub read a `#PBS` line of this body? It scans up to the first command: a line
    whose first non-blank character is not `#` (a `:` in column 0 does not count), and takes
    `#PBS` after leading blanks too (pbs.md §1)."""
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#PBS"):
            return True
        if stripped and not stripped.startswith("#") and not line.startswith(":"):
            return False
    return False


def write(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> list[OutputFile]:
    return PbsWriter(job, reporter or Reporter(), options or WriteOptions()).write()


__all__ = ["CAPABILITIES", "PbsWriter", "write"]
_unused: Any = None


def pbs_job_ref(value: str) -> str | None:
    """A job id as PBS writes it in `-W depend=` (`123`, `123.server`, `123[]`, `123[4]`),
    from that or from a Slurm array reference (`123_4` → `123[4]`, `123_*` → `123[]`);
    None for anything else (a job name, a shell variable)."""
    seq, dot, server = value.partition(".")
    if dot and not (server and all(c.isalnum() or c in "-_." for c in server)):
        return None
    job, under, index = seq.partition("_")
    if under:
        if index == "*":
            seq = f"{job}[]"
        elif is_digits(index):
            seq = f"{job}[{index}]"
        else:
            return None
    else:
        job, bracket, rest = seq.partition("[")
        if bracket and not (rest == "]" or (rest.endswith("]") and is_digits(rest[:-1]))):
            return None
    if not is_digits(job):
        return None
    return seq + dot + server
