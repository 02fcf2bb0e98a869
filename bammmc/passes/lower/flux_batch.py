"""Lowering for ``flux-batch``: `flux batch` option occurrences -> SPLAT IR, with a source map.

`flux batch` asks for an instance: `-n` slots of `-c` cores and `-g` GPUs, over `-N` nodes. SPLAT
reads a slot as a task (its `cpusPerTask`, a per-task GPU count), which is what `--ntasks` and
`--cpus-per-task` mean to the other script schedulers. `-t` is minutes without a unit, else a
Flux Standard Duration (RFC 23). `--urgency` (0–31, default 16) maps onto `schedule.priority`
through the priority band, exactly kept in `extensions.flux.urgency` when the band cannot carry
it; urgency 0 is a held job. What SPLAT has no field for stays, as written, in
`extensions.flux.batch_options` (docs/ir.md), so `flux-batch -> splat -> flux-batch` loses nothing.

Siblings: ``frontends/flux_batch.py`` (scanning), ``backends/flux_batch.py`` (the writer).
"""

from __future__ import annotations

import math
import re
from typing import Any, Final, Literal

import msgspec

from bammmc.backends.flux_batch_options import (
    ENV_NAME,
    IDSET,
    OPTIONS,
    SUBMISSION_ONLY,
    URGENCY_NAMES,
)
from bammmc.diagnostics.model import Reporter
from bammmc.facts.flux import DEFAULT_OUTPUT
from bammmc.frontends.flux_batch import FluxBatchScript, parser
from bammmc.frontends.flux_lang import (
    FluxLangError,
    constraint_from_splat,
    constraint_to_splat,
    mustache_parts,
    parse_dependency,
    parse_fsd,
    parse_requires,
    to_splat,
)
from bammmc.frontends.slurm import Occurrence
from bammmc.ir.job import API_VERSION, Job
from bammmc.ir.priority import DEFAULT_BAND, PriorityBand, from_native, to_native
from bammmc.ir.sourcemap import SourceMap
from bammmc.ir.values import Count, Cpu, DateTime, Duration, Signal, Template
from bammmc.passes.lower.common import Invalid, duration, whole
from bammmc.passes.lower.slurm import _Builder as SlurmBuilder
from bammmc.passes.lower.slurm import _keep_values

#: mustache templates of `--output`/`--error` with a SPLAT template variable (flux.md §8.2)
MUSTACHE_VARIABLES: Final = {
    "id": "job_id",
    "jobid": "job_id",
    "name": "job_name",
}
_MUSTACHE: Final = re.compile(r"\{\{([^{}]*)\}\}")
_ENV_SET: Final = re.compile(ENV_NAME.pattern + "=")


class _Builder(SlurmBuilder):
    """The Slurm lowering's builder, writing `extensions.flux` and keeping options as written."""

    def ext(self, key: str, value: Any, occ: Occurrence) -> None:
        self.set(f"spec.extensions.flux.{key}", value, occ)

    def keep(self, occ: Occurrence) -> None:
        """The option as written, in `extensions.flux.batch_options`."""
        spec = self.data.setdefault("spec", {})
        kept = spec.setdefault("extensions", {}).setdefault("flux", {})
        kept.setdefault("batch_options", {}).setdefault(occ.name, []).append(
            occ.value if occ.value is not None else ""
        )
        self.source_map.add(
            f"spec.extensions.flux.batch_options.{occ.name}", occ.span, occ.value_span
        )


def lower(
    script: FluxBatchScript, reporter: Reporter, band: PriorityBand = DEFAULT_BAND
) -> tuple[Job | None, SourceMap]:
    source_map = SourceMap()
    errors_before = sum(d.is_error for d in reporter.diagnostics)
    b = _Builder(reporter, "", source_map, band=band)
    b.data = {"apiVersion": API_VERSION, "kind": "Job"}
    last: dict[str, Occurrence] = {}
    for occ in script.occurrences:
        opt = OPTIONS[occ.name]
        if opt.repeat:
            continue
        if occ.name in last and occ.name not in SUBMISSION_ONLY:
            reporter.report(
                "W407",
                f"`--{occ.name}` is given again; the later value wins",
                last[occ.name].span,
                help="keep one of them",
            )
        last[occ.name] = occ
    for occ in script.occurrences:
        opt = OPTIONS[occ.name]
        if not opt.repeat and last.get(occ.name) is not occ:
            continue
        try:
            _option(occ, b)
        except Invalid:
            continue
    if script.script:
        b.data.setdefault("spec", {}).setdefault("execution", {})["script"] = script.script
    if "nslots" not in last and "nodes" not in last:
        # `flux batch` takes the count from its command line then (it refuses a job without)
        flux = b.data.setdefault("spec", {}).setdefault("extensions", {}).setdefault("flux", {})
        flux["slots_from_command_line"] = True
    if "error" not in last:
        # flux batch writes stderr with stdout unless --error names a file
        b.data.setdefault("spec", {}).setdefault("output", {})["mergeStderr"] = True
    if "output" not in last:
        # the file flux batch names when --output names none: other targets write the same
        # file (without a name LSF mails the output and HTCondor discards it)
        output = b.data.setdefault("spec", {}).setdefault("output", {})
        output["stdout"] = Template.parse(DEFAULT_OUTPUT)
    if sum(d.is_error for d in reporter.diagnostics) > errors_before or not script.ok:
        return None, source_map
    job = msgspec.convert(b.data, Job, dec_hook=_keep_values)
    return job, source_map


def _invalid(b: _Builder, occ: Occurrence, message: str, help: str) -> Invalid:
    b.reporter.report(
        "E134",
        message,
        occ.value_span or occ.span,
        label="flux batch rejects the script",
        help=help,
    )
    return Invalid()


def _int(occ: Occurrence, b: _Builder, minimum: int = 1) -> int:
    value = occ.value or ""
    try:
        number = whole(value, occ, b.reporter)  # E134 for one no scheduler holds
    except ValueError:
        number = None
    if number is None or number < minimum:
        raise _invalid(
            b,
            occ,
            f"`--{occ.name}` needs a whole number of at least {minimum}, not `{value}`",
            f"write e.g. `--{occ.name}=4`",
        )
    return number


def fsd_seconds(text: str, bare_unit: Literal["s", "m"] = "s") -> float | None:
    """An RFC 23 duration in seconds (``None``: infinite); ``bare_unit`` for a number without
    unit (`m` for `-t`). Raises ``FluxLangError`` when it is not one."""
    seconds = parse_fsd(text, bare=bare_unit)
    return None if math.isinf(seconds) else seconds


def _option(occ: Occurrence, b: _Builder) -> None:
    name, value = occ.name, occ.value
    if name in SUBMISSION_ONLY:
        b.reporter.report(
            "W406",
            f"`--{name}` only changes how `flux batch` itself runs; it is not part of the job",
            occ.span,
            help="remove it; give it on the command line when you need it",
        )
        return
    if name == "job-name":
        b.set("metadata.name", value, occ)
    elif name == "queue":
        b.set("spec.schedule.queue", value, occ)
    elif name == "bank":
        b.set("spec.schedule.account", value, occ)
    elif name == "nodes":
        b.set("spec.resources.nodes", _int(occ, b), occ)
    elif name == "nslots":
        b.set("spec.resources.tasks", _int(occ, b), occ)
    elif name == "cores-per-slot":
        b.set("spec.resources.cpusPerTask", Cpu.parse(_int(occ, b)), occ)
    elif name == "gpus-per-slot":
        count = _int(occ, b, 0)
        b.set("spec.resources.gpu.count", Count.parse(count), occ)
    elif name == "exclusive":
        b.set("spec.placement.exclusive", True, occ)
    elif name == "time-limit":
        _time_limit(occ, b)
    elif name == "urgency":
        _urgency(occ, b)
    elif name == "cwd":
        b.set("spec.execution.workingDir", value, occ)
    elif name in ("output", "error"):
        _output(occ, b)
    elif name == "signal":
        _signal(occ, b)
    elif name == "begin-time":
        _begin(occ, b)
    elif name == "env":
        _env(occ, b)
    elif name in ("setattr", "setopt"):
        _attribute(occ, b)
    elif name == "dependency":
        _dependency(occ, b)
    elif name == "requires":
        _requires(occ, b)
    elif name == "input" and value and not IDSET.fullmatch(value):
        b.set("spec.execution.stdin", value, occ)
    else:
        b.keep(occ)


def _time_limit(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    try:
        seconds = fsd_seconds(value, bare_unit="m")
    except FluxLangError:
        raise _invalid(
            b,
            occ,
            f"`--time-limit` is minutes or a Flux Standard Duration, not `{value}`",
            "write e.g. `-t 30` (minutes), `-t 2h` or `-t 1.5d`",
        ) from None
    if seconds is None or seconds == 0:
        b.set("spec.schedule.walltime", Duration.parse("unlimited"), occ)
        if seconds == 0:
            b.keep(occ)  # Flux reads 0 as "no limit"; keep the spelling
        return
    rounded = math.ceil(seconds)
    b.set("spec.schedule.walltime", duration(rounded, occ, b.reporter), occ)
    if rounded != seconds:
        b.keep(occ)  # sub-second precision: the exact spelling stays


def _urgency(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    native = URGENCY_NAMES.get(value)
    if native is None:
        try:
            native = int(value)
        except ValueError:
            native = -1
    if not 0 <= native <= 31:
        raise _invalid(
            b,
            occ,
            f"`--urgency` is 0–31 or `hold`, `default`, `expedite`, not `{value}`",
            "write e.g. `--urgency=20` (16 is the default; users may go up to 16)",
        )
    if native == 0:
        b.set("spec.schedule.hold", True, occ)
        return
    band_value = from_native(native, "flux", b.band)
    b.set("spec.schedule.priority", band_value, occ)
    if to_native(band_value, "flux", b.band) != native:
        b.ext("urgency", native, occ)


def _output(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    path = "spec.output.stdout" if occ.name == "output" else "spec.output.stderr"
    names = _MUSTACHE.findall(value)
    if value in ("none", "kvs") or any(n.strip() not in MUSTACHE_VARIABLES for n in names):
        b.keep(occ)  # a Flux-only template (`{{node.id}}`, `{{task.id}}`…) or the KVS
        return
    text = value.replace("{", "{{").replace("}", "}}")
    text = re.sub(
        r"\{\{\{\{([^{}]*)\}\}\}\}", lambda m: "{" + MUSTACHE_VARIABLES[m[1].strip()] + "}", text
    )
    b.set(path, Template.parse(text), occ)


def _signal(occ: Occurrence, b: _Builder) -> None:
    from lark.exceptions import UnexpectedInput

    value = occ.value or ""
    try:
        tree = parser("flux_signal").parse(value)
    except UnexpectedInput:
        raise _invalid(
            b, occ, f"`--signal` is `SIG@TIME`, not `{value}`", "write e.g. `--signal=SIGUSR1@2m`"
        ) from None
    sig, seconds = "SIGUSR1", 60.0
    for child in tree.children:
        if getattr(child, "type", None) == "SIGNAME":
            sig = str(child)
        else:
            try:
                fsd = fsd_seconds(str(child))
            except FluxLangError as exc:
                raise _invalid(b, occ, f"`--signal`: {exc.message}", exc.help) from None
            seconds = fsd if fsd is not None else -1.0
    if seconds < 0 or seconds != int(seconds):
        b.keep(occ)
        return
    try:
        signal = Signal.parse(f"{sig}@{int(seconds)}")
    except Exception:
        b.keep(occ)  # a name only Flux knows, or an abbreviation: kept as written
        return
    b.set("spec.schedule.signalBeforeEnd", signal, occ)


def _begin(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?", value):
        value = value.replace(" ", "T")  # the writer's spelling, the one the sheet shows
    try:
        when = DateTime.parse(value)
    except Exception:
        b.keep(occ)  # `+FSD` or a parsedatetime phrase: only Flux knows when that is
        return
    b.set("spec.schedule.beginAfter", when, occ)


def _env(occ: Occurrence, b: _Builder) -> None:
    """`NAME=VALUE` without `$` substitutions (`$$` is a `$`) or mustache templates becomes a
    variable; `-*` (clear all) says the job does not inherit the submitter's environment; other
    rules stay as written, in order."""
    value = occ.value or ""
    spec = b.data.setdefault("spec", {})
    kept = spec.get("extensions", {}).get("flux", {}).get("batch_options", {}).get("env")
    key, _, val = value.partition("=")
    if "{{" in value:
        # flux-core hands such a rule to the job shell as a mustache template and substitutes
        # no `$` in it: without a tag it is its own text
        literal = mustache_parts(val) == [("text", val)] and "{{" not in key
    else:
        # flux substitutes `$NAME` in the value alone (`$$` is a `$`); the name is as written
        literal = "$" not in val.replace("$$", "")
    if _ENV_SET.match(value) and literal and not kept:
        # set in the map itself: a name may hold a `.`, which `b.set` reads as a path
        env = spec.setdefault("execution", {}).setdefault("environment", {})
        env.setdefault("vars", {})[key] = val if "{{" in value else val.replace("$$", "$")
        path = f"spec.execution.environment.vars.{key}"
        b.source_map.add(path, occ.span, occ.value_span or occ.span)
        return
    env = spec.get("execution", {}).get("environment", {})
    if value == "-*" and not env and not kept:
        b.set("spec.execution.environment.inheritFromSubmitter", False, occ)
        return
    name = value[1:]
    if (
        value.startswith("-")
        and ENV_NAME.fullmatch(name)
        and name not in env.get("vars", {})
        and not kept
    ):
        # `-NAME` without a glob removes that one variable: the jobspec's `NAME: null`
        flux = spec.setdefault("extensions", {}).setdefault("flux", {})
        unset = flux.setdefault("env_unset", [])
        b.source_map.add(f"spec.extensions.flux.env_unset[{len(unset)}]", occ.span, occ.span)
        unset.append(name)
        return
    b.keep(occ)


def _lang_error(b: _Builder, occ: Occurrence, exc: FluxLangError) -> Invalid:
    span = occ.value_span or occ.span
    if occ.value_span is not None and exc.end > exc.start:
        span = occ.value_span.shifted(exc.start, exc.end)
    b.reporter.report(
        "E134",
        f"`--{occ.name}`: {exc.message}",
        span,
        label="flux batch rejects the script",
        help=exc.help or f"see `man flux-batch` for `--{occ.name}`",
    )
    return Invalid()


def _dependency(occ: Occurrence, b: _Builder) -> None:
    """An RFC 26 URI: a SPLAT dependency where there is one, else kept as written."""
    try:
        dep = parse_dependency(occ.value or "")
    except FluxLangError as exc:
        raise _lang_error(b, occ, exc) from None
    splat = to_splat(dep)
    if splat is None:
        b.keep(occ)  # `string:`/`fluid:`, `afterexcept`, options: only Flux has them
        return
    deps = b.data.setdefault("spec", {}).setdefault("dependencies", [])
    b.source_map.add(f"spec.dependencies[{len(deps)}]", occ.span, occ.value_span or occ.span)
    deps.append({k: v for k, v in msgspec.to_builtins(splat).items() if v is not None})


def _requires(occ: Occurrence, b: _Builder) -> None:
    """An RFC 35 query: `placement.constraint` when SPLAT's `&`/`|` form carries it exactly,
    else kept as written (hosts, ranks, negations…)."""
    try:
        obj = parse_requires(occ.value or "")
    except FluxLangError as exc:
        raise _lang_error(b, occ, exc) from None
    kept = b.data.get("spec", {}).get("extensions", {}).get("flux", {}).get("batch_options", {})
    placement = b.data.get("spec", {}).get("placement", {})
    text = constraint_to_splat(obj)
    if text is None or "constraint" in placement or "requires" in kept:
        b.keep(occ)
        return
    try:
        exact = constraint_from_splat(text) == obj
    except FluxLangError:  # pragma: no cover - constraint_to_splat writes what it reads
        exact = False
    if not exact:
        b.keep(occ)
        return
    b.set("spec.placement.constraint", text, occ)


def _attribute(occ: Occurrence, b: _Builder) -> None:
    """`--setattr=user.NAME[=VAL]` -> `extensions.flux.user_attributes`, `--setopt=NAME[=VAL]`
    -> `shell_options` (VAL read as JSON if it is JSON, else a string; no VAL is 1, as flux-core
    does); dotted (hierarchical) names, `system.` attributes and `^FILE` stay as written."""
    import json

    key, eq, raw = (occ.value or "").partition("=")
    if occ.name == "setattr":
        if not key.startswith("user.") or "." in key[5:] or not key[5:]:
            b.keep(occ)
            return
        field, name = "user_attributes", key[5:]
    else:
        if "." in key or not key or key.startswith("^"):
            b.keep(occ)
            return
        field, name = "shell_options", key
    kept = b.data.get("spec", {}).get("extensions", {}).get("flux", {}).get(field, {})
    if name in kept:
        b.keep(occ)  # set twice: the spelling keeps the order
        return
    value: Any = 1
    if eq:
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
    b.ext(f"{field}.{name}", value, occ)
