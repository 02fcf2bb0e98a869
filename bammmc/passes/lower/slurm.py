"""Lowering for ``slurm``: sbatch option occurrences -> SPLAT IR, with a source map.

Semantics, not spelling: SPLAT resources are per task, so `--mem` (per node) becomes per-task
memory only when tasks per node is known and divides it exactly; otherwise it stays in
`extensions.slurm.mem`. `--mem-per-cpu` × cpus per task is per-task memory. GPU and GRES counts
keep their Slurm scope (`4/node`, `8/job`). What SPLAT has no field for goes to
`extensions.slurm` (documented in docs/ir.md), so `slurm -> splat -> slurm` loses nothing.

Siblings: ``frontends/slurm.py`` (scanning), ``backends/slurm.py`` (the writer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from bammmc.backends.slurm_options import (
    EXT_FLAGS,
    EXT_INTS,
    EXT_STRINGS,
    SLURM_MAX_SECONDS,
    SLURM_SIGNALS,
)
from bammmc.diagnostics.model import Reporter, Span
from bammmc.facts.slurm import default_output
from bammmc.frontends.slurm import Occurrence, SlurmScript, parser
from bammmc.ir.job import API_VERSION, Job
from bammmc.ir.priority import (
    DEFAULT_BAND,
    NATIVE_RANGES,
    PriorityBand,
    from_native,
    to_native,
)
from bammmc.ir.sourcemap import SourceMap
from bammmc.ir.values import (
    Count,
    Cpu,
    DateTime,
    IndexSpec,
    Signal,
    Size,
    Template,
    Value,
    is_digits,
)
from bammmc.passes.lower.common import Invalid, duration, whole

MIB: Final = 1024 * 1024

#: `%` tokens of sbatch filename patterns that have a SPLAT template variable. `%J` is
#: jobid.stepid, but the batch script's own files are named with the job id alone (no step:
#: `_batch_path_check()` in src/slurmd/common/fname.c; the run-mode oracle wrote `run-1.out`)
PATTERN_VARIABLES: Final = {
    "j": "job_id",
    "J": "job_id",
    "A": "array_job_id",
    "a": "array_index",
    "x": "job_name",
    "N": "node_hostname",
    "t": "task_index",
}
#: --mail-type words with a portable event
MAIL_EVENTS: Final = {
    "BEGIN": "begin",
    "END": "end",
    "FAIL": "fail",
    "REQUEUE": "requeue",
    "TIME_LIMIT_50": "time_limit_50",
    "TIME_LIMIT_80": "time_limit_80",
    "TIME_LIMIT_90": "time_limit_90",
}
MAIL_WORDS: Final = frozenset(
    {*MAIL_EVENTS, "NONE", "ALL", "INVALID_DEPEND", "STAGE_OUT", "TIME_LIMIT", "ARRAY_TASKS"}
)
PORTABLE_DEPENDENCIES: Final = frozenset({"after", "afterany", "afterok", "afternotok"})
#: options that undo each other: the later one wins
OPPOSITES: Final = {
    "exclusive": "oversubscribe",
    "oversubscribe": "exclusive",
    "requeue": "no-requeue",
    "no-requeue": "requeue",
}
SLURM_DEPENDENCIES: Final = frozenset({*PORTABLE_DEPENDENCIES, "aftercorr", "afterburstbuffer"})

#: options sbatch takes but that only change how sbatch itself behaves
SUBMISSION_ONLY: Final = frozenset({"parsable", "test-only", "wait"})
#: options whose SPLAT field exists once per job, not per het component
JOB_WIDE: Final = frozenset(
    {
        "job-name",
        "output",
        "error",
        "input",
        "open-mode",
        "mail-type",
        "mail-user",
        "array",
        "dependency",
        "requeue",
        "no-requeue",
        "hold",
        "begin",
        "deadline",
        "priority",
        "signal",
        "export",
        "chdir",
        "time-min",
        "kill-on-invalid-dep",
    }
)


@dataclass
class _Builder:
    """Collects wire-form fields for one component and where each came from."""

    reporter: Reporter
    prefix: str
    source_map: SourceMap
    data: dict[str, Any] = field(default_factory=dict)
    #: the canonical band native priorities are mapped onto (`--priority-range`)
    band: PriorityBand = DEFAULT_BAND

    def set(self, path: str, value: Any, occ: Occurrence) -> None:
        node = self.data
        parts = path.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
        full = f"{self.prefix}.{path}" if self.prefix else path
        self.source_map.add(full, occ.span, occ.value_span or occ.span)

    def get(self, path: str) -> Any:
        node: Any = self.data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def ext(self, key: str, value: Any, occ: Occurrence) -> None:
        self.set(f"spec.extensions.slurm.{key}", value, occ)


def lower(
    script: SlurmScript, reporter: Reporter, band: PriorityBand = DEFAULT_BAND
) -> tuple[Job | None, SourceMap]:
    source_map = SourceMap()
    errors_before = sum(d.is_error for d in reporter.diagnostics)
    top = _Builder(reporter, "", source_map, band=band)
    top.data = {"apiVersion": API_VERSION, "kind": "Job"}
    mem = _component(script.components[0], top, first=True)
    if script.script:
        top.data.setdefault("spec", {}).setdefault("execution", {})["script"] = script.script
    comps = []
    for n, occs in enumerate(script.components[1:], 1):
        comp = _Builder(
            reporter, f"spec.extensions.slurm.het_components[{n - 1}]", source_map, band=band
        )
        mem = _component(occs, comp, first=False, mem=mem)
        comps.append(_het_component(comp.data))
    if comps:
        spec = top.data.setdefault("spec", {})
        spec.setdefault("extensions", {}).setdefault("slurm", {})["het_components"] = comps
    if sum(d.is_error for d in reporter.diagnostics) > errors_before:
        return None, source_map
    job = msgspec.convert(top.data, Job, dec_hook=_keep_values)
    return job, source_map


def _keep_values(t: type, obj: Any) -> Any:
    """msgspec ``dec_hook`` of every lowering: a value already parsed stays as it is."""
    if isinstance(obj, Value) and isinstance(obj, t):
        return obj
    raise NotImplementedError(t)  # msgspec's hook protocol: "not a type this hook knows"


def _het_component(data: dict[str, Any]) -> dict[str, Any]:
    """A het component keeps resources/schedule/execution/placement and its own
    `extensions.slurm` options under `slurm`."""
    spec = data.get("spec", {})
    comp: dict[str, Any] = {
        k: spec[k] for k in ("resources", "schedule", "execution", "placement") if k in spec
    }
    ext = spec.get("extensions", {}).get("slurm")
    if ext:
        comp["slurm"] = ext
    return comp


def _last(occs: list[Occurrence], reporter: Reporter) -> dict[str, Occurrence]:
    """The last occurrence of each option (sbatch: later ones win), W407 when they differ.
    `--mail-type` is the exception: sbatch adds each one's types to the earlier ones."""
    seen: dict[str, Occurrence] = {}
    mail = [o for o in occs if o.name == "mail-type"]
    if len(mail) > 1:
        words: list[str] = []
        for o in mail:
            mine = [w for w in (o.value or "").split(",") if w]
            if any(w.upper() == "NONE" for w in mine):
                continue  # NONE empties its own option only
            words += [w for w in mine if w.upper() not in (x.upper() for x in words)]
        last = mail[-1]
        combined = Occurrence(
            last.name,
            ",".join(words) or "NONE",
            last.span,
            last.value_span,
            last.written,
            last.component,
        )
        occs = [o for o in occs if o.name != "mail-type"] + [combined]
    for occ in occs:
        rival = OPPOSITES.get(occ.name)
        if rival in seen:  # `--exclusive` then `--oversubscribe`: the later one wins (checked)
            reporter.report(
                "W407",
                f"`--{occ.name}` overrides the earlier `--{rival}`",
                occ.span,
                notes=(f"`--{rival}` is at line {seen[rival].span.line}",),
                help="remove one of them",
            )
            del seen[rival]
        before = seen.pop(occ.name, None)  # re-inserted below, so the order is the last one
        if before is not None and before.value != occ.value:
            reporter.report(
                "W407",
                f"`--{occ.name}` is given twice; sbatch uses the last one",
                occ.span,
                notes=(f"the earlier `{before.written}` is at line {before.span.line}",),
                help="remove one of them",
            )
        seen[occ.name] = occ
    return seen


def _invalid(
    reporter: Reporter,
    occ: Occurrence,
    message: str,
    help: str,
    note: str = "sbatch rejects the script",
) -> Invalid:
    reporter.report(
        "E134",
        message,
        occ.value_span or occ.span,
        notes=(note,),
        help=help,
        field=None,
    )
    return Invalid()


def _tree(start: str, occ: Occurrence, reporter: Reporter, what: str, example: str) -> Any:
    from lark.exceptions import UnexpectedInput

    value = occ.value or ""
    try:
        return parser(start).parse(value)
    except UnexpectedInput:
        raise _invalid(
            reporter,
            occ,
            f"`{value}` is not a valid {what} for `--{occ.name}`",
            f"write e.g. `--{occ.name}={example}`",
        ) from None


def slurm_time_seconds(occ: Occurrence, reporter: Reporter) -> int | None:
    """Seconds of a Slurm time value; ``None`` is no limit (`0`, `UNLIMITED`, `-1`)."""
    tree = _tree("slurm_time", occ, reporter, "time", "1-12:00:00")
    nums = [whole(str(t), occ, reporter) for t in tree.children if is_digits(str(t))]
    kind = tree.data
    if kind == "unlimited":
        return None
    if kind == "negative":
        if nums != [1]:
            raise _invalid(reporter, occ, f"`{occ.value}` is not a valid time", "use `UNLIMITED`")
        return None
    seconds = {
        "minutes": lambda n: n[0] * 60,
        "min_sec": lambda n: n[0] * 60 + n[1],
        "hms": lambda n: n[0] * 3600 + n[1] * 60 + n[2],
        "d_h": lambda n: n[0] * 86400 + n[1] * 3600,
        "d_hm": lambda n: n[0] * 86400 + n[1] * 3600 + n[2] * 60,
        "d_hms": lambda n: n[0] * 86400 + n[1] * 3600 + n[2] * 60 + n[3],
    }[kind](nums)
    if seconds > SLURM_MAX_SECONDS:
        raise _invalid(
            reporter,
            occ,
            f"`{occ.value}` is longer than sbatch can hold: it counts a time in seconds in a "
            f"32-bit integer, which wraps around after {SLURM_MAX_SECONDS} s (about 68 years)",
            "write `UNLIMITED` for no limit, or a time of at most 24855-03:13:08",
            "sbatch runs the job with the wrapped time, or the controller refuses it",
        )
    return seconds if seconds > 0 else None  # `0` means no limit (sbatch.1)


def slurm_mem_bytes(occ: Occurrence, reporter: Reporter) -> int:
    """Bytes of a Slurm size: INT[K|M|G|T][B], default MiB (K rounds up to whole MiB)."""
    tree = _tree("slurm_mem", occ, reporter, "size", "4G")
    number = whole(str(tree.children[0]), occ, reporter)
    unit = str(tree.children[1])[0].upper() if len(tree.children) > 1 else "M"
    if unit == "K":
        return -(-number // 1024) * MIB
    return number * {"M": 1, "G": 1024, "T": 1024 * 1024}[unit] * MIB


def _size(n: int, scope: str | None = None) -> Size:
    return Size.from_bytes(n, scope=scope)


def _int(occ: Occurrence, reporter: Reporter, minimum: int = 0) -> int:
    value = occ.value or ""
    if not is_digits(value) or whole(value, occ, reporter) < minimum:
        raise _invalid(
            reporter,
            occ,
            f"`--{occ.name}` needs a whole number"
            + (f" of at least {minimum}" if minimum else "")
            + f", not `{value}`",
            f"write e.g. `--{occ.name}=4`",
        )
    return whole(value, occ, reporter)


def _component(
    occs: list[Occurrence], b: _Builder, *, first: bool, mem: Occurrence | None = None
) -> Occurrence | None:
    """Lower one het component; ``mem`` is the `--mem` in force before it, which sbatch carries
    into a component that names none (the real Slurm: `--mem=1G`, then `hetjob` and `-n 1`,
    gives both components 1G; `--mem-per-cpu` and `-c` are reset, as heterogeneous_jobs.html
    says). Returns the `--mem` in force after it."""
    reporter = b.reporter
    opts = _last(occs, reporter)
    _conflicts(opts, reporter)
    if mem is not None and "mem" not in opts:
        per = next((opts[n] for n in ("mem-per-cpu", "mem-per-gpu") if n in opts), None)
        if per is not None:
            line = mem.span.line if mem.span is not None else "?"
            reporter.report(
                "E135",
                f"`--{per.name}` conflicts with the `--mem` this het component takes over from "
                f"the one before it (line {line})",
                per.span,
                notes=(
                    "sbatch carries `--mem` into the next component and rejects the script: "
                    "`--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive`",
                ),
                help=f"give this component `--mem` instead of `--{per.name}`",
            )
        else:
            opts = {**opts, "mem": mem}
    other: dict[str, str] = {}
    for name, occ in opts.items():
        if not first and name in JOB_WIDE:
            # SPLAT has these once per job; a later het component keeps its own raw value
            other[name] = occ.value if occ.value is not None else ""
            continue
        try:
            _option(name, occ, opts, b, other)
        except Invalid:
            continue
    if other:
        b.data.setdefault("spec", {}).setdefault("extensions", {}).setdefault("slurm", {})[
            "options"
        ] = other
    if first and "error" not in opts:
        # sbatch writes stderr into the stdout file unless -e is given (pitfall 30)
        b.data.setdefault("spec", {}).setdefault("output", {})["mergeStderr"] = True
    if first and "output" not in opts:
        # the file sbatch names when --output names none: other targets write the same file
        # (without a name LSF mails the output and HTCondor discards it)
        default = Template.parse(default_output("array" in opts))
        b.data.setdefault("spec", {}).setdefault("output", {})["stdout"] = default
    _memory(opts, b)
    return opts.get("mem")


def _conflicts(opts: dict[str, Occurrence], reporter: Reporter) -> None:
    # checked with a real sbatch: `--exclusive` + `--oversubscribe` and `--gpus-per-node` +
    # `--gres=gpu` are accepted (the last one wins / both apply), so they are not here
    groups = [
        (("mem", "mem-per-cpu", "mem-per-gpu"), "are mutually exclusive"),
        (("cpus-per-task", "cpus-per-gpu"), "cannot be combined"),
    ]
    for names, why in groups:
        given = [opts[n] for n in names if n in opts]
        if len(given) > 1:
            shown = " and ".join(f"`--{o.name}`" for o in given)
            reporter.report(
                "E135",
                f"{shown} {why}",
                given[-1].span,
                notes=("sbatch rejects the script",),
                help=f"keep only one of {shown}",
            )


def _option(
    name: str, occ: Occurrence, opts: dict[str, Occurrence], b: _Builder, other: dict[str, str]
) -> None:
    reporter = b.reporter
    value = occ.value
    if name == "ignore-pbs":
        # sbatch obeys it in the first component only (the reader's W404 check); the writer
        # writes it for this field and when the body has #PBS/#BSUB lines
        if b.prefix == "":
            b.ext("ignore_pbs", True, occ)
        else:
            reporter.report(
                "W406",
                "sbatch obeys `--ignore-pbs` only before the first `hetjob`",
                occ.span,
                help="move it to the first component",
            )
        return
    if name in ("help", "usage", "verbose", "quiet", "version", "wrap"):
        reporter.report(
            "W406",
            f"sbatch ignores `--{name}` in a script",
            occ.span,
            help="remove it; it only means something on the command line",
        )
        return
    if name == "job-name":
        b.set("metadata.name", value, occ)
    elif name == "partition":
        b.set("spec.schedule.queue", value, occ)
    elif name == "account":
        b.set("spec.schedule.account", value, occ)
    elif name == "qos":
        b.set("spec.schedule.qos", value, occ)
    elif name == "reservation":
        b.set("spec.schedule.reservation", value, occ)
    elif name == "hold":
        b.set("spec.schedule.hold", True, occ)
    elif name == "time":
        b.set(
            "spec.schedule.walltime",
            duration(slurm_time_seconds(occ, reporter), occ, reporter),
            occ,
        )
    elif name == "time-min":
        b.set(
            "spec.schedule.walltimeMin",
            duration(slurm_time_seconds(occ, reporter), occ, reporter),
            occ,
        )
    elif name in ("begin", "deadline"):
        _when(name, occ, b)
    elif name == "priority":
        if (
            value
            and is_digits(value)
            and whole(value, occ, reporter) <= NATIVE_RANGES["slurm"].high
        ):
            band_value = from_native(int(value), "slurm", b.band)
            b.set("spec.schedule.priority", band_value, occ)
            if to_native(band_value, "slurm", b.band) != int(value):
                b.ext("priority", value, occ)  # the band cannot carry every native step
        elif value and (is_digits(value) or value.upper() == "TOP"):
            b.ext("priority", value, occ)
        else:
            raise _invalid(
                reporter,
                occ,
                f"`--priority` is a number or `TOP`, not `{value}`",
                "write `--priority=100`",
            )
    elif name == "signal":
        _signal(occ, b)
    elif name == "nodes":
        _nodes(occ, b)
    elif name == "ntasks":
        b.set("spec.resources.tasks", _int(occ, reporter, 1), occ)
    elif name == "ntasks-per-node":
        b.set("spec.resources.tasksPerNode", _int(occ, reporter, 1), occ)
    elif name == "cpus-per-task":
        b.set("spec.resources.cpusPerTask", Cpu.parse(_int(occ, reporter, 1)), occ)
    elif name in ("mem", "mem-per-cpu"):
        pass  # _memory, once every option is known
    elif name == "mem-per-gpu":
        b.ext("mem_per_gpu", _size(slurm_mem_bytes(occ, reporter), "gpu"), occ)
    elif name == "tmp":
        b.ext("tmp", _size(slurm_mem_bytes(occ, reporter), "node"), occ)
    elif name in ("gres", "gpus", "gpus-per-node", "gpus-per-task"):
        _gpus(name, occ, b)
    elif name in EXT_STRINGS:
        b.ext(EXT_STRINGS[name], value, occ)
    elif name in EXT_INTS:
        b.ext(EXT_INTS[name], _int(occ, reporter, 1), occ)
    elif name in EXT_FLAGS:
        b.ext(EXT_FLAGS[name], True, occ)
    elif name == "chdir":
        b.set("spec.execution.workingDir", value, occ)
    elif name == "export":
        _export(occ, b)
    elif name == "get-user-env":
        b.ext("get_user_env", value or "", occ)
    elif name in ("output", "error", "input"):
        _filename(name, occ, b)
    elif name == "open-mode":
        # sbatch looks at the first letter only, either case (checked: `APPEND`, `a`)
        value = {"a": "append", "t": "truncate"}.get((value or " ")[0].lower(), value)
        if value not in ("append", "truncate"):
            raise _invalid(
                reporter,
                occ,
                f"`--open-mode` is `append` or `truncate`, not `{value}`",
                "write `--open-mode=append`",
            )
        b.set("spec.output.openMode", value, occ)
    elif name == "mail-user":
        b.set("spec.notifications.email", value, occ)
    elif name == "mail-type":
        _mail(occ, b)
    elif name == "array":
        _array(occ, b)
    elif name == "dependency":
        _dependency(occ, b)
    elif name == "requeue":
        if value:
            other[name] = value
        else:
            b.set("spec.lifecycle.requeueOnFailure", True, occ)
    elif name == "no-requeue":
        b.set("spec.lifecycle.requeueOnFailure", False, occ)
    elif name in ("constraint", "prefer"):
        _tree("slurm_constraint", occ, reporter, "feature expression", "avx512&ib")
        # slurmctld reads each `,` as `&` (build_feature_list(), Slurm 16.05 and later)
        b.set(f"spec.placement.{name}", (value or "").replace(",", "&"), occ)
    elif name == "exclusive":
        if value:
            if value not in ("user", "mcs", "topo", "exclusive", "oversubscribe"):
                raise _invalid(
                    reporter,
                    occ,
                    f"`--exclusive` takes `user`, `mcs` or `topo`, not `{value}`",
                    "write `--exclusive` or `--exclusive=user`",
                )
            b.ext("exclusive", value, occ)
        else:
            b.set("spec.placement.exclusive", True, occ)
    elif name == "spread-job":
        b.set("spec.placement.topology", "scatter", occ)
    elif name == "switches":
        _switches(occ, b)
    elif name == "no-kill":
        if value:
            other[name] = value
        else:
            b.ext("no_kill", True, occ)
    elif name == "kill-on-invalid-dep":
        if (value or "").lower() not in ("yes", "no"):
            raise _invalid(
                reporter,
                occ,
                f"`--kill-on-invalid-dep` is `yes` or `no`, not `{value}`",
                "write `--kill-on-invalid-dep=yes`",
            )
        b.ext("kill_on_invalid_dep", (value or "").lower() == "yes", occ)
    elif name == "nice":
        if value is None:
            other[name] = ""
        else:
            try:
                b.ext("nice", whole(value, occ, reporter), occ)
            except ValueError:
                raise _invalid(
                    reporter, occ, f"`--nice` needs an integer, not `{value}`", "write `--nice=10`"
                ) from None
    elif name == "profile":
        b.ext("profile", [p for p in (value or "").split(",") if p], occ)
    else:
        other[name] = value if value is not None else ""
        b.source_map.add(f"spec.extensions.slurm.options.{name}", occ.span, occ.value_span)


def _nodes(occ: Occurrence, b: _Builder) -> None:
    tree = _tree("slurm_nodes", occ, b.reporter, "node count", "2 or 2-4")
    counts = []
    for tok in tree.children:
        text = str(tok)
        mult = {"k": 1024, "m": 1024 * 1024}.get(text[-1].lower(), 1)
        counts.append(whole(text.rstrip("kKmM"), occ, b.reporter) * mult)
    if counts[0] < 1:
        raise _invalid(b.reporter, occ, "`--nodes` must be at least 1", "write `--nodes=1`")
    if len(counts) > 1 and counts[1] < counts[0]:
        raise _invalid(
            b.reporter,
            occ,
            f"`--nodes={occ.value}`: the maximum is below the minimum",
            "write e.g. `--nodes=2-4`",
        )
    b.set("spec.resources.nodes", counts[0], occ)
    if len(counts) > 1 or not is_digits(occ.value or ""):
        b.ext("nodes", occ.value, occ)


def _when(name: str, occ: Occurrence, b: _Builder) -> None:
    from bammmc.ir.values import ValueSyntaxError

    value = occ.value or ""
    tree = _tree("slurm_begin", occ, b.reporter, "time", "2026-03-01T08:00 or now+1hour")
    # Slurm's YYYY-MM-DD[THH:MM[:SS]] is ISO 8601; every other form is relative or local
    if tree.data == "iso":
        try:
            when = DateTime.parse(value)
        except ValueSyntaxError:
            raise _invalid(
                b.reporter, occ, f"`{value}` is not a valid date", "write e.g. `2026-03-01T08:00`"
            ) from None
        else:
            field_name = "beginAfter" if name == "begin" else "deadline"
            b.set(f"spec.schedule.{field_name}", when, occ)
            return
    b.ext(name, value, occ)


def _signal(occ: Occurrence, b: _Builder) -> None:
    from bammmc.ir.values import ValueSyntaxError

    tree = _tree("slurm_signal", occ, b.reporter, "signal", "B:USR1@300")
    flags = name = None
    seconds = 60  # sbatch's default
    for tok in tree.children:
        if tok is None:
            continue
        if tok.type == "SIG_FLAGS":
            flags = str(tok)
        elif tok.type == "SIG_NAME":
            name = str(tok)
        else:
            seconds = whole(str(tok), occ, b.reporter)
    if (occ.value or "").endswith("@"):
        seconds = 0  # sbatch reads `USR1@` as `USR1@0` (checked)
    upper = (name or "").upper().removeprefix("SIG")
    if not is_digits(upper) and upper not in SLURM_SIGNALS:
        raise _invalid(
            b.reporter,
            occ,
            f"Slurm does not know the signal `{name}`",
            "use a number or one of " + ", ".join(sorted(SLURM_SIGNALS)),
        )
    if not 0 <= seconds <= 65535:
        raise _invalid(
            b.reporter,
            occ,
            f"`{seconds}` seconds is out of range (0-65535)",
            "write e.g. `USR1@60`",
        )
    try:
        sig = Signal.parse(f"{name}@{seconds}")
    except ValueSyntaxError as exc:
        raise _invalid(
            b.reporter, occ, f"`{occ.value}`: {exc.message}", exc.help or "write e.g. `USR1@60`"
        ) from None
    b.set("spec.schedule.signalBeforeEnd", sig, occ)
    if flags or "@" not in (occ.value or ""):
        b.ext("signal", occ.value, occ)


def _gpus(name: str, occ: Occurrence, b: _Builder) -> None:
    tree = _tree("gres_list", occ, b.reporter, "GRES list", "gpu:a100:2")
    scope = {"gres": "node", "gpus": "job", "gpus-per-node": "node", "gpus-per-task": None}[name]
    generic: dict[str, Count] = {}
    for entry in tree.children:
        parts = [str(p) for p in entry.children]
        if name != "gres":
            parts = ["gpu", *parts]
        kind = parts[0]
        gtype = None
        count = 1
        rest = parts[1:]
        if rest and _is_count(rest[-1]):
            count = _count(rest[-1], occ, b.reporter)
            rest = rest[:-1]
        if rest:
            gtype = ":".join(rest)
        amount = Count.parse(f"{count}/{scope}" if scope else count)
        if kind == "gpu":
            b.set("spec.resources.gpu.count", amount, occ)
            if gtype:
                b.set("spec.resources.gpu.type", gtype, occ)
        elif kind == "none" and name == "gres":
            continue
        else:
            generic[kind if not gtype else f"{kind}:{gtype}"] = amount
    if generic:
        b.set("spec.resources.genericResources", generic, occ)
    key = {
        "gres": "gres",
        "gpus": "gpus",
        "gpus-per-node": "gpus_per_node",
        "gpus-per-task": "gpus_per_task",
    }[name]
    b.ext(key, occ.value, occ)


def _is_count(text: str) -> bool:
    return is_digits(text.rstrip("kKmMgGtTpP")) and is_digits(text[:1])


def _count(text: str, occ: Occurrence, reporter: Reporter) -> int:
    """A GRES count, with sbatch's k/m/g/t/p suffixes (powers of 1024)."""
    suffix = text[-1].lower()
    power = "kmgtp".index(suffix) + 1 if suffix in "kmgtp" else 0
    count: int = whole(text.rstrip("kKmMgGtTpP"), occ, reporter) * 1024**power
    return count


def _memory(opts: dict[str, Occurrence], b: _Builder) -> None:
    """`--mem` and `--mem-per-cpu` are kept as written (extensions.slurm), because they are not
    interchangeable: with `--exclusive`, `--cpus-per-gpu` or `--mincpus` Slurm allocates more
    CPUs than tasks × cpus per task, and memory per CPU then grows with them (checked with
    real jobs). Per-task memory, for other targets, is added where it is exact."""
    reporter = b.reporter
    res = b.get("spec.resources") or {}
    per_gpu = b.get("spec.extensions.slurm.mem_per_gpu")
    gpus = b.get("spec.resources.gpu.count")
    if "mem-per-gpu" in opts and isinstance(per_gpu, Size) and isinstance(gpus, Count):
        if per_gpu.bytes and gpus.amount.denominator == 1:
            # memory for each GPU the job gets (sbatch(1)): per task, node or job as the GPUs
            scope = gpus.scope if gpus.scope in ("node", "job") else None
            if res.get("tasks") == 1 and res.get("nodes") in (None, 1):
                scope = None  # one task: all of its node's or job's GPUs are its own
            total = _size(per_gpu.bytes * int(gpus.amount), scope)
            b.set("spec.resources.memoryPerTask", total, opts["mem-per-gpu"])
    cpus = res.get("cpusPerTask")
    cpus_n = int(cpus.cores) if cpus is not None else 1
    if "mem-per-cpu" in opts and "mem" not in opts:
        occ = opts["mem-per-cpu"]
        try:
            per_cpu = slurm_mem_bytes(occ, reporter)
        except Invalid:
            return
        b.ext("mem_per_cpu", _size(per_cpu, "cpu") if per_cpu else Size.parse("0/cpu"), occ)
        if per_cpu:
            b.set("spec.resources.memoryPerTask", _size(per_cpu * cpus_n), occ)
    if "mem" in opts and "mem-per-cpu" not in opts:
        occ = opts["mem"]
        try:
            per_node = slurm_mem_bytes(occ, reporter)
        except Invalid:
            return
        b.ext("mem", _size(per_node, "node") if per_node else Size.parse(0), occ)
        per_node_tasks = res.get("tasksPerNode")
        tasks, nodes = res.get("tasks"), res.get("nodes")
        if per_node_tasks is not None and tasks is not None:
            per_node_tasks = min(per_node_tasks, tasks)  # fewer tasks than a node may hold
        elif per_node_tasks is None and tasks is None:
            per_node_tasks = 1  # sbatch's default: one task on each node
        elif per_node_tasks is None and (nodes == 1 or tasks == 1):
            per_node_tasks = tasks  # one node, or one task (which never spans nodes)
        elif (
            per_node_tasks is None
            and tasks == nodes
            and b.get("spec.extensions.slurm.nodes") is None
        ):
            per_node_tasks = 1  # as many tasks as nodes: Slurm puts one on each
        if per_node and per_node_tasks and per_node % per_node_tasks == 0:
            b.set("spec.resources.memoryPerTask", _size(per_node // per_node_tasks), occ)
        elif per_node:
            # tasks on nodes Slurm picks, or a node's memory that its tasks do not divide
            # into whole bytes: the memory is per node, whatever each one holds
            b.set("spec.resources.memoryPerTask", _size(per_node, "node"), occ)


def _export(occ: Occurrence, b: _Builder) -> None:
    """`ALL`/`NONE` plus `NAME=value` pairs are portable; a bare `NAME` (taken from the submit
    shell), `NIL` or anything else keeps the raw value."""
    value = occ.value or ""
    tree = _tree("slurm_export", occ, b.reporter, "export list", "ALL,OMP_NUM_THREADS=4")
    items: list[tuple[str, str | None]] = []
    for item in tree.children:
        if item.data == "quoted_export_item":  # `"NAME=va,lue"`: the quotes are taken off
            name, _, text = str(item.children[0])[1:-1].partition("=")
            items.append((name, text))
            continue
        parts = [str(t) for t in item.children]
        items.append((parts[0], (parts[2] if len(parts) > 2 else "") if len(parts) > 1 else None))
    head = items[0][0].upper() if items[0][1] is None else ""
    rest = items[1:] if head in ("ALL", "NONE", "NIL") else items
    if head in ("ALL", "NONE", "") and all(v is not None for _, v in rest) and (head or rest):
        b.set("spec.execution.environment.inheritFromSubmitter", head == "ALL", occ)
        if rest:
            b.set("spec.execution.environment.vars", {k: v or "" for k, v in rest}, occ)
        return
    b.ext("export", value, occ)


def _filename(name: str, occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    tree = _tree("filename", occ, b.reporter, "file name pattern", "out_%j.log")
    parts: list[str] = []
    plain: list[str] = []  # the name itself, where it holds no replacement
    exact = literal = True
    for tok in tree.children:
        if tok.type == "FN_TEXT":
            parts.append(str(tok).replace("{", "{{").replace("}", "}}"))
            plain.append(str(tok))
        elif tok.type == "FN_PERCENT":
            parts.append("%")
            plain.append("%")
        elif tok.type == "FN_BACKSLASH":
            exact = False  # a backslash turns every replacement off: keep the raw name
            parts.append("\\")
        else:
            literal = False
            letter = str(tok)[-1]
            if letter in PATTERN_VARIABLES and len(str(tok)) == 2:
                parts.append("{" + PATTERN_VARIABLES[letter] + "}")
            else:
                exact = False
                parts.append(str(tok))
    if name == "input":
        # `%%` is one `%`; a name with a replacement (`%j`) is kept raw beside it
        b.set("spec.execution.stdin", "".join(plain) if literal and exact else value, occ)
        if not (literal and exact):
            b.ext("input", value, occ)
        return
    template = Template.parse("".join(parts))
    b.set(f"spec.output.{'stdout' if name == 'output' else 'stderr'}", template, occ)
    if not exact:
        b.ext(name, value, occ)


def _mail(occ: Occurrence, b: _Builder) -> None:
    tree = _tree("mail_types", occ, b.reporter, "mail type list", "END,FAIL")
    words = [str(t).upper() for t in tree.children if t is not None]
    if not any(w in MAIL_WORDS for w in words):
        raise _invalid(
            b.reporter,
            occ,
            f"`--mail-type={occ.value}` names no mail type",
            "use BEGIN, END, FAIL, REQUEUE, ALL, NONE, TIME_LIMIT_50/80/90, ARRAY_TASKS",
        )
    events: list[str] = []
    exact = True
    for w in words:
        if w in MAIL_EVENTS:
            if MAIL_EVENTS[w] not in events:
                events.append(MAIL_EVENTS[w])
        elif w == "ALL":
            events += [e for e in ("begin", "end", "fail", "requeue") if e not in events]
            exact = False
        else:
            exact = False
    if "NONE" in words:
        events = []
    b.set("spec.notifications.events", events, occ)
    if not exact or [w for w in words if w in MAIL_EVENTS] != words:
        b.ext("mail_type", occ.value, occ)


def _array(occ: Occurrence, b: _Builder) -> None:
    from bammmc.ir.values import ValueSyntaxError

    try:
        spec = IndexSpec.parse(occ.value or "")
    except ValueSyntaxError as exc:
        raise _invalid(
            b.reporter,
            occ,
            f"`--array={occ.value}`: {exc.message}",
            exc.help or "write e.g. `--array=0-99%10`",
        ) from None
    b.set("spec.array.indices", spec, occ)


def _dependency(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    tree = _tree("dependency", occ, b.reporter, "dependency list", "afterok:1234")
    joins = {str(t) for t in tree.children if getattr(t, "type", None) == "DEP_JOIN"}
    any_of = "?" in joins  # sbatch: one `?` makes the whole list "any" (checked)
    portable: list[dict[str, Any]] = []
    exact = not any_of
    for dep in tree.children:
        if getattr(dep, "data", None) is None:
            continue
        word = str(dep.children[0])
        if dep.data == "bare":
            if word.lower() == "singleton":
                portable.append({"scheme": "singleton"})
            elif is_digits(word):
                portable.append({"scheme": "afterany", "value": word})
                exact = False  # legacy bare id; written back as afterany:ID
            else:
                raise _invalid(
                    b.reporter,
                    occ,
                    f"unknown dependency type `{word}`",
                    "use afterok, afternotok, afterany, after, aftercorr or singleton",
                )
            continue
        kind = word.lower()
        if kind not in SLURM_DEPENDENCIES:
            raise _invalid(
                b.reporter,
                occ,
                f"unknown dependency type `{word}`",
                "use afterok, afternotok, afterany, after, aftercorr or singleton",
            )
        for ref in dep.children[1:]:
            job = str(ref.children[0])
            extra = [c for c in ref.children[1:]]
            text = job
            for part in extra:
                if part.data == "array_part":
                    inner = part.children[0]
                    text += "_" + (
                        f"[{inner}]" if getattr(inner, "type", "") == "IDXLIST" else str(inner)
                    )
                else:
                    exact = False  # +minutes
            if kind in PORTABLE_DEPENDENCIES:
                portable.append({"scheme": kind, "value": text})
            else:
                exact = False
    if exact:
        b.set("spec.dependencies", portable, occ)
    else:
        if not any_of and portable:
            b.set("spec.dependencies", portable, occ)
        b.ext("dependency", value, occ)


def _switches(occ: Occurrence, b: _Builder) -> None:
    count, _, wait = (occ.value or "").partition("@")
    if not is_digits(count) or whole(count, occ, b.reporter) < 1:
        raise _invalid(
            b.reporter,
            occ,
            f"`--switches` needs a count, not `{occ.value}`",
            "write `--switches=1@10:00`",
        )
    b.ext("switches", whole(count, occ, b.reporter), occ)
    if wait:
        inner = Occurrence(occ.name, wait, occ.span, occ.value_span, occ.written)
        b.ext(
            "switches_max_wait",
            duration(slurm_time_seconds(inner, b.reporter), inner, b.reporter),
            occ,
        )


def span_of(occ: Occurrence) -> Span:
    return occ.value_span or occ.span
