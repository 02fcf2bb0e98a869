"""The Flux batch-script writer (format ``flux-batch``): IR -> a script for `flux batch` with
RFC 36 `#flux:` directives.

One long option per directive line, right after the `#!` line, so the directive block ends at the
body's first command. Values are escaped for Flux's shell-like splitting (``shlex``: every space,
quote, backslash, `#` and `();<>|&` gets a backslash), so no value can end its word, comment out
the rest, or open a triple quote; a value with a line break is an error (E140). The script body
follows byte for byte; a body line Flux would read as a directive is an error (E140), since Flux
refuses orphan directives. `extensions.flux` wins over the portable field it refines, and
`extensions.flux.batch_options` (what the reader kept as written) is written back last.

Inside a word, a value goes into a sub-language of flux-core, and is refused (E140) where it
would read as more than itself there: a literal `{{…}}` where the job shell renders mustache
templates (`--output`, `--error`, `--env` values), `=` in a `--setopt`/`--setattr` key (and
`^`, which loads a file), `?` and `#` in a `--dependency` value (flux-core reads the URI with
``urlparse``). `$` in an `--env` value is `$$`, except in a value holding `{{` (flux-core does
not substitute in those); `--output=kvs`/`none` name a file as `./kvs` (docs/flux-batch.md).

Siblings: ``frontends/flux_batch.py``, ``passes/lower/flux_batch.py``,
``backends/flux_batch_options.py``.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from typing import Final

from bammmc.backends import OutputFile, WriteOptions
from bammmc.backends.common import (
    MIRRORS,
    LossReports,
    read_own,
    refuse_separator,
    report_foreign,
    report_priority_rounding,
    report_separator,
    report_shadowed,
    report_unsupported,
    rewrite_launchers,
)
from bammmc.backends.container import refuser, script_body
from bammmc.backends.flux_batch_options import ENV_NAME, IDSET, OPTIONS
from bammmc.capabilities import EXACT, Capabilities, exact, lost
from bammmc.diagnostics.model import Reporter
from bammmc.facts.flux import DEFAULT_OUTPUT
from bammmc.frontends.flux_lang import (
    FluxDependency,
    FluxLangError,
    constraint_from_splat,
    format_dependency,
    format_fsd,
    format_requires,
    from_splat,
    mustache_clash,
)
from bammmc.ir.envvars import compatibility_block, job_shell
from bammmc.ir.job import FluxExt, Job, Spec
from bammmc.ir.priority import from_native, to_native
from bammmc.ir.values import Duration, Template

SENTINEL: Final = "#flux:"
#: template variable -> Flux mustache template (flux.md §8.2)
MUSTACHE: Final = {"job_id": "{{id}}", "job_name": "{{name}}"}
_TRIPLE: Final = re.compile(r"""["']{3}""")
_SPECIAL: Final = re.compile(r"""([ \t"'\\#();<>|&])""")
_DIRECTIVE_LINE: Final = re.compile(r"^[^\w\n]*(?:flux|FLUX):", re.M)

#: IR fields written exactly, approximated, or not at all (for the fidelity pass)
CAPABILITIES: Final = Capabilities(
    "flux-batch",
    ("flux",),
    {
        "apiVersion": EXACT,
        "kind": EXACT,
        "metadata.name": EXACT,
        "metadata.labels": lost("flux batch has no option for it"),
        "metadata.annotations": lost("flux batch has no option for it"),
        "metadata.clientId": lost("flux batch has no option for it"),
        "spec.schedule.queue": EXACT,
        "spec.schedule.priority": exact(
            "",
            (
                (
                    "`--urgency=23`: above 16 only the instance owner may submit; other "
                    "users' jobs are refused"
                ),
                "W301",
            ),
        ),
        "spec.schedule.priorityClass": lost("flux batch has no option for it"),
        "spec.schedule.account": EXACT,
        "spec.schedule.project": lost("flux batch has no option for it"),
        "spec.schedule.walltime": EXACT,
        "spec.schedule.qos": lost("flux batch has no option for it"),
        "spec.schedule.partition": lost("flux batch has no option for it"),
        "spec.schedule.hold": EXACT,
        "spec.schedule.reservation": lost("flux batch has no option for it"),
        "spec.schedule.beginAfter": exact(
            "",
            (("written in UTC; `flux batch` reads times in the submit host's time zone"), "W301"),
        ),
        "spec.schedule.deadline": lost("flux batch has no option for it"),
        "spec.schedule.walltimeMin": lost("flux batch has no option for it"),
        "spec.schedule.signalBeforeEnd": EXACT,
        "spec.resources.cpusPerTask": EXACT,
        "spec.resources.memoryPerTask": lost("flux batch has no option for it"),
        "spec.resources.tasks": EXACT,
        "spec.resources.nodes": EXACT,
        "spec.resources.tasksPerNode": exact(
            "",
            ("1 slots over 1 nodes; Flux decides how many go on each node", "W301"),
            ("`flux batch` spreads its slots over the nodes itself", "W201"),
        ),
        "spec.resources.gpu.count": exact(
            "",
            ("4/node written as 4 per slot (16 slots)", "W301"),
            ("`1/node` has no per-slot count", "W201"),
        ),
        "spec.resources.gpu.type": lost("flux batch has no option for it"),
        "spec.resources.gpu.memory": lost("flux batch has no option for it"),
        "spec.resources.gpu.fraction": lost("Flux allocates whole GPUs"),
        "spec.resources.gpu.migProfile": lost("flux batch has no option for it"),
        "spec.resources.diskPerTask": lost("flux batch has no option for it"),
        "spec.resources.genericResources": lost("flux batch has no option for it"),
        "spec.resources.limits": lost("flux batch has no option for it"),
        "spec.execution.container.image": exact(
            "",
            ("a container without an image or command runs nothing", "W201"),
            ("run through `apptainer exec docker://…`; the cluster needs Apptainer", "W301"),
        ),
        "spec.execution.container.imagePullPolicy": exact(
            "",
            ("a container without an image or command runs nothing", "W201"),
        ),
        "spec.execution.container.imagePullSecrets": exact(
            "",
            ("a container without an image or command runs nothing", "W201"),
        ),
        "spec.execution.container.command": exact(
            "",
            ("a container without an image or command runs nothing", "W201"),
            ("a container without an image: its command line runs as a plain program", "W301"),
        ),
        "spec.execution.container.args": exact(
            "",
            ("a container without an image or command runs nothing", "W201"),
            ("a container without an image: its command line runs as a plain program", "W301"),
        ),
        "spec.execution.script": exact(
            "",
            ("`$BAMMM_ARRAY_INDEX` is defined from `$FLUX_JOB_CC`", "N003"),
            (
                "`$SLURM_ARRAY_JOB_ID` has no equivalent here: it is empty in the converted script",
                "W301",
            ),
        ),
        "spec.execution.executable": exact(
            "",
            (
                (
                    "the raw `extensions.flux.tasks` is written instead, and it says "
                    "something else for a Flux batch script"
                ),
                "W301",
            ),
        ),
        "spec.execution.arguments": EXACT,
        "spec.execution.shell": exact(
            "",
            ("the script's own `#!/bin/sh ` line names its interpreter", "W201"),
        ),
        "spec.execution.workingDir": EXACT,
        "spec.execution.environment.vars": exact(
            "",
            ("not a name an `--env` rule sets", "W201"),
        ),
        "spec.execution.environment.secrets": lost("flux batch has no option for it"),
        "spec.execution.environment.configMaps": lost("flux batch has no option for it"),
        "spec.execution.environment.inheritFromSubmitter": exact(
            "",
            (
                (
                    "the raw `extensions.flux.batch_options` is written instead, and it "
                    "says something else for a Flux batch script"
                ),
                "W301",
            ),
        ),
        "spec.execution.stdin": exact(
            "",
            (
                (
                    "the raw `extensions.flux.batch_options` is written instead, and it "
                    "says something else for a Flux batch script"
                ),
                "W301",
            ),
        ),
        "spec.tasks": lost("flux batch has no option for it"),
        "spec.gang": lost("flux batch has no option for it"),
        "spec.array.indices": exact(
            "",
            (
                (
                    "`flux batch` has no `--cc`: submit copies with `flux submit "
                    "--cc=IDSET` (`{{cc}}`, `$FLUX_JOB_CC`); Flux has n"
                ),
                "W201",
            ),
        ),
        "spec.array.maxConcurrent": exact(
            "",
            (
                (
                    "`flux batch` has no `--cc`: submit copies with `flux submit "
                    "--cc=IDSET` (`{{cc}}`, `$FLUX_JOB_CC`); Flux has n"
                ),
                "W201",
            ),
        ),
        "spec.dependencies": exact(
            "",
            ("Flux waits for whole jobs, not for a count of array elements", "W201"),
            (
                (
                    "the raw `extensions.flux.symbolic_dependencies` is written instead, "
                    "and it says something else for a Flux batc"
                ),
                "W301",
            ),
        ),
        "spec.lifecycle.maxRetries": lost("flux batch has no option for it"),
        "spec.lifecycle.requeueOnFailure": lost("flux batch has no option for it"),
        "spec.lifecycle.successExitCodes": lost("flux batch has no option for it"),
        "spec.lifecycle.ttlAfterFinished": lost("flux batch has no option for it"),
        "spec.placement.nodeSelector": lost("flux batch has no option for it"),
        "spec.placement.tolerations": lost("flux batch has no option for it"),
        "spec.placement.affinity": lost("flux batch has no option for it"),
        "spec.placement.topologySpread": lost("flux batch has no option for it"),
        "spec.placement.topology": lost("flux batch has no option for it"),
        "spec.placement.groupBy": lost("flux batch has no option for it"),
        "spec.placement.constraint": EXACT,
        "spec.placement.prefer": lost("flux batch has no option for it"),
        "spec.placement.exclusive": exact(
            "",
            ("`flux batch --exclusive` needs `-N`", "W201"),
        ),
        "spec.placement.nodePools": lost("flux batch has no option for it"),
        "spec.output.stdout": exact(
            "",
            ("Flux has no template for `{array_job_id}`", "W201"),
        ),
        "spec.output.stderr": exact(
            "",
            ("Flux has no template for `{array_job_id}`", "W201"),
        ),
        "spec.output.mergeStderr": exact(
            "",
            (
                ("stdout and stderr stay separate, in Flux-style default names (flux-{{id}}.err)"),
                "W301",
            ),
        ),
        "spec.output.openMode": lost("flux batch has no option for it"),
        "spec.notifications.email": lost("flux batch has no option for it"),
        "spec.notifications.events": lost("flux batch has no option for it"),
        "spec.fileStaging.inputs": lost("flux batch has no option for it"),
        "spec.fileStaging.outputs": lost("flux batch has no option for it"),
        "spec.fileStaging.embeddedFiles": lost("flux batch has no option for it"),
        "spec.fileStaging.transferPolicy": lost("flux batch has no option for it"),
        "spec.fileStaging.checkpointFiles": lost("flux batch has no option for it"),
        "spec.volumes": lost("flux batch has no option for it"),
        "spec.workloadType": lost("flux batch has no option for it"),
        "spec.distributedFramework": lost("flux batch has no option for it"),
        "spec.extensions.flux.bank": EXACT,
        "spec.extensions.flux.urgency": exact(
            "",
            ("urgency 0 holds the job (`schedule.hold`)", "W301"),
            ("a held Flux job has urgency 0 (`hold`)", "W201"),
        ),
        "spec.extensions.flux.resource_graph": exact(
            "",
            ("a batch script has no place for this part of a jobspec", "W201"),
            (
                ("the jobspec form is not written; `spec.resources.nodes` carries its meaning"),
                "W301",
            ),
        ),
        "spec.extensions.flux.symbolic_dependencies": EXACT,
        "spec.extensions.flux.embeddedFiles": exact(
            "",
            (
                ("the jobspec form is not written; `spec.execution.script` carries its meaning"),
                "W301",
            ),
        ),
        "spec.extensions.flux.preemptible_after": lost(
            "flux batch has no option for it (the jobspec's `preemptible-after`)"
        ),
        "spec.extensions.flux.count_expression.min": exact(
            "",
            ("a batch script has no place for this part of a jobspec", "W201"),
        ),
        "spec.extensions.flux.count_expression.max": exact(
            "",
            ("a batch script has no place for this part of a jobspec", "W201"),
        ),
        "spec.extensions.flux.count_expression.operator": exact(
            "",
            ("a batch script has no place for this part of a jobspec", "W201"),
        ),
        "spec.extensions.flux.count_expression.operand": exact(
            "",
            ("a batch script has no place for this part of a jobspec", "W201"),
        ),
        "spec.extensions.flux.constraints_spec": EXACT,
        "spec.extensions.flux.shell_options": exact(
            "",
            ("the kept `--setopt` options read back here", "W301"),
        ),
        "spec.extensions.flux.user_attributes": exact(
            "",
            ("the kept `--setattr` options read back here", "W301"),
        ),
        "spec.extensions.flux.batch_options": exact(
            "",
            ("`--setopt` is written as kept, and it reads back as a field it sets", "W301"),
        ),
        "spec.extensions.flux.slots_from_command_line": EXACT,
        "spec.extensions.flux.version": exact(
            "",
            ("`flux batch` writes its own jobspec (version 1)", "W201"),
        ),
        "spec.extensions.flux.task": exact(
            "",
            ("a batch script has no place for this part of a jobspec", "W201"),
            (
                ("the jobspec form is not written; `spec.resources.nodes` carries its meaning"),
                "W301",
            ),
        ),
        "spec.extensions.flux.tasks": exact(
            "",
            ("a batch script has no place for this part of a jobspec", "W201"),
            (
                (
                    "the jobspec form is not written; `spec.execution.executable` "
                    "carries its meaning"
                ),
                "W301",
            ),
        ),
        "spec.extensions.flux.system": exact(
            "",
            ("a batch script has no place for this part of a jobspec", "W201"),
            (
                ("the jobspec form is not written; `spec.schedule.walltime` carries its meaning"),
                "W301",
            ),
        ),
        "spec.extensions.flux.env_unset": exact(
            "",
            ("`--env=-a*` would remove the variables a pattern matches, not `a*`", "W201"),
        ),
    },
)


def quote(value: str) -> str:
    """A value as one shlex word that Flux's directive parser gives back exactly.

    >>> quote("a b|c#d")
    'a\\\\ b\\\\|c\\\\#d'
    >>> quote("")
    "''"
    """
    if value == "":
        return "''"
    return _SPECIAL.sub(r"\\\1", value)


class FluxBatchWriter(LossReports):
    WHERE = "for a Flux batch script"

    def __init__(self, job: Job, reporter: Reporter, options: WriteOptions) -> None:
        self.job = job
        self.reporter = reporter
        self.options = options
        self.lines: list[str] = []
        ext = job.spec.extensions.flux if job.spec and job.spec.extensions else None
        #: single-valued options kept as written (`extensions.flux.batch_options`): they win
        #: over the portable field the reader also set from them (`-t 0.5s`, `-t 0`)
        self.kept = {
            n
            for n in ((ext.batch_options or {}) if ext else {})
            if n in OPTIONS and not OPTIONS[n].repeat
        }
        #: `#flux:`, or `-- flux:` for a Lua script (whose comments start with `--`)
        self.sentinel = SENTINEL
        #: the `flux batch` words the directives carry, in order (for the oracle tests)
        self.args: list[str] = []

    def opt(self, name: str, value: object = None, path: str | None = None) -> None:
        assert name in OPTIONS, name
        if path is not None and name in self.kept:
            return  # the option as the reader kept it is written instead (it is exact)
        if value is None or value is True:
            self.lines.append(f"{self.sentinel} --{name}")
            self.args.append(f"--{name}")
            return
        text = str(value)
        # Flux quotes a multi-line value with shlex.quote and then splits it with backslash
        # escapes on inside single quotes: a backslash there would be eaten (checked)
        closing_quote = not text.endswith("\n") and text.endswith(("'", '"'))
        unsafe = _TRIPLE.search(text) or closing_quote or "\\" in text
        if "\r" in text or ("\n" in text and unsafe):
            self.reporter.report(
                "E140",
                f"the value of `--{name}` cannot be carried by `#flux:` lines: "
                + (
                    "it contains a carriage return"
                    if "\r" in text
                    else "it has several lines and holds three quotes in a row or a "
                    "backslash, or ends in a quote, which Flux's triple-quoted block cannot "
                    "carry"
                ),
                field=path,
                help="remove the carriage return, the backslashes or the quotes from the value",
            )
            return
        if "\n" in text:
            # RFC 36 multi-line value: `"""` ends the first and the last line, every line
            # carries the sentinel, the common indent (one space) is stripped
            last, ends = (text[:-1], True) if text.endswith("\n") else (text, False)
            rows = last.split("\n")
            self.lines.append(f'{self.sentinel} --{name}="""')
            self.lines.extend(
                f"{self.sentinel} {row}".rstrip(" ") if not row else f"{self.sentinel} {row}"
                for row in rows[:-1]
            )
            if ends:
                self.lines.append(f"{self.sentinel} {rows[-1]}")
                self.lines.append(f'{self.sentinel} """')
            else:
                self.lines.append(f'{self.sentinel} {rows[-1]}"""')
            self.args.append(f"--{name}={text}")
            return
        self.lines.append(f"{self.sentinel} --{name}={quote(text)}")
        self.args.append(f"--{name}={text}")


def fsd(seconds: float) -> str:
    """Seconds as the shortest Flux Standard Duration: `2h`, `2.5m`, `45s`, `inf`."""
    return format_fsd(seconds)


def write(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> list[OutputFile]:
    reporter = reporter or Reporter()
    text, _ = render(job, reporter, options)
    if not reporter.has_errors:
        _report_kept_options(reporter, job, text)
        report_shadowed(
            _Approximations(reporter),
            job,
            "flux",
            lambda: read_own(text, "flux-batch"),
            "a Flux batch script",
        )
    return [OutputFile(text)]


#: the `extensions.flux` maps the reader fills from a kept option's kind
FILLED_BY: Final = {"setopt": "shell_options", "setattr": "user_attributes"}


def _report_kept_options(reporter: Reporter, job: Job, text: str) -> None:
    """W301 for each option kept as written (`extensions.flux.batch_options`) that does not
    read back as kept: the reader reads it as a field (`--setopt=mpibind=off` is
    `shell_options`, a `--requires` the constraint), which it then changes."""
    ext = job.spec.extensions.flux if job.spec and job.spec.extensions else None
    if ext is None or not ext.batch_options:
        return
    back = read_own(text, "flux-batch")
    if back is None:
        return
    back_ext = back.spec.extensions.flux if back.spec and back.spec.extensions else None
    kept = (back_ext.batch_options if back_ext else None) or {}
    w = _Approximations(reporter)
    for name, values in ext.batch_options.items():
        if name not in OPTIONS or kept.get(name) == values:
            continue
        w.approximated(
            f"spec.extensions.flux.batch_options.{name}",
            f"`--{name}` is written as kept, and it reads back as a field it sets",
        )
        field = FILLED_BY.get(name)
        if field and getattr(ext, field) != (getattr(back_ext, field) if back_ext else None):
            w.approximated(
                f"spec.extensions.flux.{field}",
                f"the kept `--{name}` options read back here",
            )


class _Approximations(LossReports):
    """The W301 of :func:`report_shadowed` worded as the writer words its own."""

    WHERE = FluxBatchWriter.WHERE

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter


def render(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> tuple[str, list[str]]:
    """The script and the `flux batch` words its directives carry."""
    reporter = reporter or Reporter()
    w = FluxBatchWriter(job, reporter, options or WriteOptions())
    spec = job.spec or Spec()
    ext = spec.extensions.flux if spec.extensions and spec.extensions.flux else FluxExt()
    body, shebang = script_body(
        spec,
        w.options.container_runtime,
        w.lost,
        w.approximated,
        refuser(w.reporter),
        "/bin/sh",
    )
    w.lines.append(shebang)
    ex = spec.execution
    if ex is not None and ex.script is not None and not ex.script.startswith("#!"):
        w.approximated(
            "spec.execution.script",
            f"`{shebang}` is added as its first line: `flux batch` runs only a script that "
            "starts with `#!`",
        )
    if (
        ex is not None
        and ex.script is None
        and ex.executable is None
        and ex.container is not None
        and not ex.container.image
    ):
        for key in ("command", "args"):
            if getattr(ex.container, key):
                w.approximated(
                    f"spec.execution.container.{key}",
                    "a container without an image: its command line runs as a plain program "
                    "(`exec …`)",
                )
    if ex is not None and ex.arguments and ex.executable is None:
        w.lost(
            "spec.execution.arguments",
            "a batch script has no place for its own arguments: pass them on the command line "
            "(`flux batch job.sh ARGS`)",
        )
    interpreter = shebang[2:].split()
    if interpreter and any(p.rsplit("/", 1)[-1].startswith("lua") for p in interpreter[:2]):
        w.sentinel = "-- flux:"
    if job.metadata and job.metadata.name is not None:
        w.opt("job-name", job.metadata.name, "metadata.name")
    _schedule(w, spec, ext)
    _resources(w, spec, ext)
    _execution(w, spec)
    _output(w, spec)
    _dependencies(w, spec)
    _placement(w, spec)
    if spec.array is not None:
        w.lost(
            "spec.array",
            "`flux batch` has no `--cc`: submit copies with `flux submit --cc=IDSET` "
            "(`{{cc}}`, `$FLUX_JOB_CC`); Flux has no throttle (`maxConcurrent`)",
        )
    _flux_ext(w, spec, ext)
    for key, value in (ext.shell_options or {}).items():
        if (
            key == "output"
            and spec.output is not None
            and (spec.output.stdout or spec.output.stderr)
        ):
            w.approximated(
                "spec.extensions.flux.shell_options.output",
                "`--output`/`--error` carry the output files",
            )
            continue
        if _refuse_key(w, "setopt", f"spec.extensions.flux.shell_options.{key}", key):
            continue
        if "." in key:
            w.approximated(
                f"spec.extensions.flux.shell_options.{key}",
                f"`--setopt={key}=…` sets a nested option (`{key.replace('.', ' > ')}`)",
            )
        w.opt("setopt", f"{key}={_json_value(value)}", f"spec.extensions.flux.shell_options.{key}")
    for key, value in (ext.user_attributes or {}).items():
        if "" in key.split("."):
            w.lost(
                f"spec.extensions.flux.user_attributes.{key}",
                "not an attribute name (`--setattr=user.NAME`): an empty part between dots",
            )
            continue
        if _refuse_key(w, "setattr", f"spec.extensions.flux.user_attributes.{key}", key):
            continue
        if "." in key:
            w.approximated(
                f"spec.extensions.flux.user_attributes.{key}",
                f"`--setattr=user.{key}` sets a nested attribute (`{key.replace('.', ' > ')}`)",
            )
        w.opt(
            "setattr",
            f"user.{key}={_json_value(value)}",
            f"spec.extensions.flux.user_attributes.{key}",
        )
    for name, values in (ext.batch_options or {}).items():
        if name not in OPTIONS:
            w.lost(f"spec.extensions.flux.batch_options.{name}", "not a `flux batch` option")
            continue
        for value in values:
            w.opt(name, value if OPTIONS[name].arg != "none" else None)
    report_unsupported(w, job, CAPABILITIES, "flux batch")
    if spec.extensions:
        report_foreign(w, spec, ("flux",), script=True)
    # Flux reads the script in text mode: `\r` and `\r\n` end a line too (universal newlines)
    as_read = body.replace("\r\n", "\n").replace("\r", "\n")
    for match in _DIRECTIVE_LINE.finditer(as_read):
        line = as_read.count("\n", 0, match.start()) + 1
        reporter.report(
            "E140",
            f"line {line} of the script body is a Flux directive line (`{match.group(0)}`); "
            "Flux would refuse it as an orphan after the written directives",
            field="spec.execution.script",
            help="change the line so that it does not start with non-word characters and "
            "`flux:`, e.g. put a word before it",
        )
        break
    if "\r\n" in body:
        body = body.replace("\r\n", "\n")
        w.approximated("spec.execution.script", "DOS line ends (CRLF) converted to LF")
    derived: dict[str, tuple[str, str]] = {}
    same: frozenset[str] = frozenset()
    if spec.execution is None or spec.execution.working_dir is None:
        # `flux batch` starts the job where it was submitted unless `--cwd` says otherwise
        # (flux/cli/base.py: `cwd=args.cwd if args.cwd is not None else os.getcwd()`)
        derived = {"submit_dir": ("$PWD", "the job starts in the submit directory")}
        same = frozenset({"submit_dir"})
    body = rewrite_launchers(w, body, "flux-batch", spec)
    body = (
        compatibility_block(
            body,
            "flux-batch",
            w.approximated,
            w.noted,
            derived,
            same,
            shell=job_shell(spec),
            spec=spec,
            arrays=False,
        )
        + body
    )
    return "\n".join(w.lines) + "\n" + body, w.args


def _refuse_key(w: FluxBatchWriter, option: str, field: str, key: str) -> bool:
    """E140 for a `--setopt`/`--setattr` key that flux-core (``parse_jobspec_keyval`` in
    flux/job/_utils.py) reads as more than a key: it splits `KEY=VALUE` at the first `=`, and
    `--setopt=^KEY=FILE` loads the value from the file (`--setattr=user.KEY` cannot start so)."""
    if option == "setopt" and key.startswith("^"):
        report_separator(
            w.reporter,
            field,
            "^",
            f"`--{option}=KEY=VALUE`",
            f"flux-core reads `--{option}=^KEY=FILE` as a JSON file to load the value from",
            help="remove the leading `^` from the key",
        )
        return True
    return refuse_separator(
        w.reporter,
        field,
        key,
        "=",
        f"`--{option}=KEY=VALUE`",
        "flux-core splits the option at its first `=`: the rest of the key would be read as "
        "the value",
    )


def _json_value(value: object) -> str:
    """A `--setattr`/`--setopt` value: flux-core reads it as JSON when it is JSON, else as a
    string, so a one-line string that is not JSON is written as it is (`mpibind=off`)."""
    if isinstance(value, str) and "\n" not in value:
        try:
            json.loads(value)
        except ValueError:
            return value
    return json.dumps(value)


def _flux_ext(w: FluxBatchWriter, spec: Spec, ext: FluxExt) -> None:
    """The jobspec reader's keys (`extensions.flux`) that a batch script can carry, or that the
    portable fields carry for it."""
    base = "spec.extensions.flux"
    for i, sym in enumerate(ext.symbolic_dependencies or ()):
        if _refuse_uri_value(w, f"{base}.symbolic_dependencies[{i}].value", sym.value):
            continue
        options: dict[str, str] = {
            k: v for k, v in (("type", sym.type), ("scope", sym.scope)) if v is not None
        }
        try:
            uri = format_dependency(FluxDependency(sym.scheme, sym.value, options))
        except FluxLangError as exc:
            w.lost(f"{base}.symbolic_dependencies[{i}]", exc.message)
            continue
        if sym.scheme not in ("string", "fluid"):
            w.approximated(
                f"{base}.symbolic_dependencies[{i}]",
                f"`--dependency={uri}`: Flux knows no `{sym.scheme}` scheme; it is kept as an "
                "option as written",
            )
        w.opt("dependency", uri, f"{base}.symbolic_dependencies[{i}]")
    if ext.constraints_spec is not None:
        carried = False
        if spec.placement is not None and spec.placement.constraint is not None:
            try:
                carried = constraint_from_splat(spec.placement.constraint) == ext.constraints_spec
            except FluxLangError:
                carried = False
        if not carried:
            query = format_requires(ext.constraints_spec)
            if query is None:
                w.lost(f"{base}.constraints_spec", "RFC 35 has no query for this constraint")
            else:
                w.opt("requires", query, f"{base}.constraints_spec")
    for name in ext.env_unset or ():
        if not ENV_NAME.fullmatch(name):
            w.lost(
                f"{base}.env_unset",
                f"`--env=-{name}` would remove the variables a pattern matches, not `{name}`",
            )
            continue
        w.opt("env", f"-{name}", f"{base}.env_unset")
    if ext.version is not None and ext.version != 1:
        w.lost(f"{base}.version", "`flux batch` writes its own jobspec (version 1)")
    for key in ("resource_graph", "task", "tasks", "count_expression", "embedded_files", "system"):
        if getattr(ext, key) is None:
            continue
        path = f"{base}.{'embeddedFiles' if key == 'embedded_files' else key}"
        carried_by = [f for f in MIRRORS["flux"].get(key, ()) if _is_set(spec, f.replace(".", "/"))]
        if carried_by:
            w.approximated(
                path, f"the jobspec form is not written; `spec.{carried_by[0]}` carries its meaning"
            )
        else:
            w.lost(path, "a batch script has no place for this part of a jobspec")


def _is_set(spec: Spec, path: str) -> bool:
    node: object = spec
    for part in path.split("/"):
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", part).lower()
        node = getattr(node, snake, None)
        if node is None:
            return False
    return not (isinstance(node, (list, dict, str)) and not node)


def _schedule(w: FluxBatchWriter, spec: Spec, ext: FluxExt) -> None:
    sched = spec.schedule
    if ext.bank is not None:
        w.opt("bank", ext.bank, "spec.extensions.flux.bank")
    elif sched is not None and sched.account is not None:
        w.opt("bank", sched.account, "spec.schedule.account")
    if ext.urgency == 0 and not (sched is not None and sched.hold):
        w.approximated("spec.extensions.flux.urgency", "urgency 0 holds the job (`schedule.hold`)")
    if sched is None:
        if ext.urgency is not None:
            w.opt("urgency", ext.urgency, "spec.extensions.flux.urgency")
        return
    if sched.queue is not None:
        w.opt("queue", sched.queue, "spec.schedule.queue")
    if sched.walltime is not None:
        seconds = sched.walltime.seconds
        w.opt("time-limit", "inf" if seconds is None else fsd(seconds), "spec.schedule.walltime")
    if sched.hold:
        w.opt("urgency", "hold", "spec.schedule.hold")
        if sched.priority is not None:
            w.lost("spec.schedule.priority", "a held Flux job has urgency 0 (`hold`)")
        if ext.urgency is not None:
            w.lost("spec.extensions.flux.urgency", "a held Flux job has urgency 0 (`hold`)")
    elif ext.urgency is not None:
        w.opt("urgency", ext.urgency, "spec.extensions.flux.urgency")
        if sched.priority is not None and from_native(ext.urgency, "flux", w.options.band) != (
            sched.priority
        ):
            w.approximated(
                "spec.schedule.priority",
                f"the raw `extensions.flux.urgency` ({ext.urgency}) is written instead",
            )
    elif sched.priority is not None:
        native = to_native(sched.priority, "flux", w.options.band)
        raised = native == 0
        if raised:
            native = 1  # urgency 0 would hold the job
            w.approximated("spec.schedule.priority", "urgency 1, the lowest that still runs")
        if native > 16:
            w.approximated(
                "spec.schedule.priority",
                f"`--urgency={native}`: above 16 only the instance owner may submit; "
                "other users' jobs are refused",
            )
        w.opt("urgency", native, "spec.schedule.priority")
        if not raised:  # a priority raised to urgency 1 is reported above
            report_priority_rounding(
                w, sched.priority, native, "flux", w.options.band, "spec.schedule.priority"
            )
    if sched.begin_after is not None:
        value = sched.begin_after.value
        if value.tzinfo is not None:
            import datetime as dt

            value = value.astimezone(dt.UTC).replace(tzinfo=None)
            w.approximated(
                "spec.schedule.beginAfter",
                "written in UTC; `flux batch` reads times in the submit host's time zone",
            )
        w.opt("begin-time", value.strftime("%Y-%m-%d %H:%M:%S"), "spec.schedule.beginAfter")
    sig = sched.signal_before_end
    if sig is not None:
        name = f"SIG{sig.name}" if sig.name else str(sig.number)
        w.opt("signal", f"{name}@{fsd(sig.seconds)}", "spec.schedule.signalBeforeEnd")


def _resources(w: FluxBatchWriter, spec: Spec, ext: FluxExt) -> None:
    res = spec.resources
    nodes = res.nodes if res else None
    tasks = res.tasks if res else None
    alone = res is not None and res.tasks_per_node is not None and tasks is None and nodes is None
    if alone:
        # tasks per node alone: that many tasks on the job's one node (sbatch does the same)
        assert res is not None and res.tasks_per_node is not None
        tasks = res.tasks_per_node
        w.opt("nodes", 1, "spec.resources.tasksPerNode")
    elif nodes is not None:
        w.opt("nodes", nodes, "spec.resources.nodes")
    if res is not None and res.tasks_per_node is not None and not alone:
        if tasks is None and nodes is not None:
            tasks = nodes * res.tasks_per_node
            if nodes > 1:
                w.approximated(
                    "spec.resources.tasksPerNode",
                    f"{tasks} slots over {nodes} nodes; Flux decides how many go on each node",
                )
        else:
            w.lost(
                "spec.resources.tasksPerNode",
                "`flux batch` spreads its slots over the nodes itself",
            )
    if tasks is not None:
        w.opt("nslots", tasks, "spec.resources.tasks")
    elif nodes is None and not ext.slots_from_command_line:
        # `flux batch` refuses a job with neither: "Number of slots to allocate must be
        # specified" (BatchAllocCmd.init_common() in flux-core's cli/base.py). One slot is
        # what every other scheduler gives such a job; a count on the command line still wins.
        w.opt("nslots", 1)
    # with -N alone, flux batch makes one exclusive slot per node (flux-batch(1) -n)
    slots = tasks if tasks is not None else (nodes or 1)
    cpus = res.cpus_per_task if res else None
    if cpus is not None:
        amount = cpus.cores
        if amount == int(amount) and amount >= 1:
            w.opt("cores-per-slot", int(amount), "spec.resources.cpusPerTask")
        else:
            w.lost("spec.resources.cpusPerTask", f"Flux allocates whole cores, not {amount}")
    gpu = res.gpu if res else None
    if gpu is not None and gpu.count is not None:
        count = gpu.count
        per = count.amount
        scope = count.scope
        said = None
        if scope in ("node", "job"):
            total = per * (nodes or 1) if scope == "node" else per
            per = total / slots
            if slots != (nodes or 1):
                said = f"{count} written as {per} per slot ({slots} slots)"
        elif scope not in (None, "task"):
            w.lost("spec.resources.gpu.count", f"`{count}` has no per-slot count")
            return
        if per != int(per):
            # fewer GPUs than slots: each slot gets a whole one, more than the job asked,
            # rather than none
            whole = math.ceil(per)
            said = (
                f"Flux allocates whole GPUs per slot: {count} is {per} per slot ({slots} "
                f"slots), rounded up to {whole}: {whole * slots} GPUs in all, not {per * slots}"
            )
            per = Fraction(whole)
        if said is not None:
            w.approximated("spec.resources.gpu.count", said)
        w.opt("gpus-per-slot", int(per), "spec.resources.gpu.count")


def _execution(w: FluxBatchWriter, spec: Spec) -> None:
    ex = spec.execution
    if ex is None:
        return
    if ex.working_dir is not None:
        w.opt("cwd", ex.working_dir, "spec.execution.workingDir")
    env = ex.environment
    if env is not None:
        if env.inherit_from_submitter is False:
            w.opt("env", "-*", "spec.execution.environment.inheritFromSubmitter")
        for key, value in (env.vars or {}).items():
            if not ENV_NAME.fullmatch(key):  # `--env=RULE` reads the name up to the `=`
                w.reporter.report(
                    "E140",
                    f"`{key}` cannot be written as the name of an `--env=NAME=VALUE` rule: Flux "
                    "splits the rule at its first `=`, a rule starting with `-` or `/` removes "
                    "variables, one starting with `^` reads rules from a file, and `*?[` are "
                    "globs",
                    field=f"spec.execution.environment.vars.{key}",
                    help="name the variable without `=`, white space, `*?[` or a leading "
                    "`-`, `/` or `^`",
                )
                continue
            field = f"spec.execution.environment.vars.{key}"
            if "{{" not in value:
                # `$` starts a substitution in an --env rule; `$$` is a literal `$`
                w.opt("env", f"{key}={value.replace('$', '$$')}", field)
                continue
            # flux-core (get_filtered_environment) hands a rule whose value holds `{{` to the job
            # shell as a mustache template (`env-expand`) and substitutes no `$` in it
            clash = mustache_clash([("text", value)])
            if clash is not None:
                _report_mustache(w, field, clash, "an `--env` value")
                continue
            w.opt("env", f"{key}={value}", field)
    if ex.stdin is not None:
        stdin = ex.stdin
        if IDSET.fullmatch(stdin):
            stdin = f"./{stdin}"
            w.approximated(
                "spec.execution.stdin",
                f"written as `{stdin}`: Flux reads `--input={ex.stdin}` as the task ranks that "
                "get stdin, not as a file",
            )
        w.opt("input", stdin, "spec.execution.stdin")


def _template(w: FluxBatchWriter, template: Template, path: str) -> str | None:
    """An output path with the job shell's mustache tags, or None (reported)."""
    try:
        text = template.render(MUSTACHE)
    except KeyError as exc:
        w.lost(path, f"Flux has no template for `{{{exc.args[0]}}}`")
        return None
    meant = [(k, v) if k == "text" else ("tag", MUSTACHE[v][2:-2]) for k, v in template.parts]
    clash = mustache_clash(meant)
    if clash is not None:
        _report_mustache(w, path, clash, "an output path")
        return None
    if text in ("kvs", "none"):
        # flux-core (JobspecV1._set_extra_options): `--output=kvs`/`none` keep the output in
        # the KVS, and name no file
        w.approximated(
            path,
            f"written as `./{text}`: `flux batch` reads `{text}` as the job's output log in the "
            "KVS, not as a file",
        )
        text = "./" + text
    return text


def _report_mustache(w: FluxBatchWriter, field: str, clash: str, what: str) -> None:
    report_separator(
        w.reporter,
        field,
        clash,
        "Flux's job shell",
        f"the job shell renders {what} as a mustache template: `{{{{NAME}}}}` is a tag "
        "(`{{id}}`, `{{name}}`, a plugin's own), and Flux has no escape for a literal `{{`",
        help=f"remove {'`{{`' if clash == '{{' else 'the `{` before the template'} from the value",
    )


def _output(w: FluxBatchWriter, spec: Spec) -> None:
    out = spec.output
    if out is None:
        return
    stdout = error = False
    if str(out.stdout) == DEFAULT_OUTPUT and (out.stderr is None or out.merge_stderr is False):
        stdout = True  # flux batch's own name for it: nothing to write
    elif out.stdout is not None:
        text = _template(w, out.stdout, "spec.output.stdout")
        if text is not None:
            w.opt("output", text, "spec.output.stdout")
            stdout = True
    if out.stderr is not None and out.merge_stderr:
        w.approximated(
            "spec.output.stderr",
            "merged into the output file (`mergeStderr`): `--error` is not written",
        )
    elif out.stderr is not None:
        text = _template(w, out.stderr, "spec.output.stderr")
        if text is not None:
            w.opt("error", text, "spec.output.stderr")
            error = True
    if out.merge_stderr is False and not error:
        # flux batch writes stderr with stdout unless --error names a file
        if not stdout:
            w.opt("output", "flux-{{id}}.out", "spec.output.mergeStderr")
        w.opt("error", "flux-{{id}}.err", "spec.output.mergeStderr")
        w.approximated(
            "spec.output.mergeStderr",
            "stdout and stderr stay separate, in Flux-style default names (flux-{{id}}.err)",
        )


def _dependencies(w: FluxBatchWriter, spec: Spec) -> None:
    for i, dep in enumerate(spec.dependencies or ()):
        path = f"spec.dependencies[{i}]"
        if _refuse_uri_value(w, f"{path}.value", dep.value or ""):
            continue
        uri = from_splat(dep)
        if uri is None:
            why = (
                "Flux waits for whole jobs, not for a count of array elements"
                if dep.count is not None
                else "RFC 26 has no form for it (a `begin_time` needs a time zone)"
            )
            w.lost(path, why)
            continue
        w.opt("dependency", uri, path)


def _refuse_uri_value(w: FluxBatchWriter, field: str, value: str) -> bool:
    """E140 for a dependency value with `?` or `#`: flux-core reads `--dependency=URI` with
    Python's ``urlparse`` (``URIArg`` in flux/job/_utils.py), where `?` starts the query (its
    `KEY=VALUE` pairs become the dependency's own keys) and `#` a fragment, which is dropped."""
    return refuse_separator(
        w.reporter,
        field,
        value,
        "?#",
        "an RFC 26 dependency URI",
        "flux-core reads `--dependency=SCHEME:VALUE?KEY=VAL` as a URL: `?` starts the keys "
        "added to the dependency, and `#` starts a fragment, which is dropped",
        help="name the job by its Flux id",
    )


def _placement(w: FluxBatchWriter, spec: Spec) -> None:
    pl = spec.placement
    if pl is None:
        return
    if pl.constraint is not None:
        try:
            query = format_requires(constraint_from_splat(pl.constraint))
        except FluxLangError as exc:
            query = None
            why = exc.message
        else:
            why = "RFC 35 has no query for it"
        if query is None:
            w.lost("spec.placement.constraint", f"`{pl.constraint}`: {why}")
        else:
            w.opt("requires", query, "spec.placement.constraint")
    if pl.exclusive:
        if spec.resources is not None and spec.resources.nodes is not None:
            w.opt("exclusive", None, "spec.placement.exclusive")
        else:
            w.lost("spec.placement.exclusive", "`flux batch --exclusive` needs `-N`")


def emit_duration(d: Duration) -> str:
    return "inf" if d.seconds is None else fsd(d.seconds)


__all__ = ["CAPABILITIES", "FluxBatchWriter", "quote", "render", "write"]
