"""Lowering for ``sge``: qsub option occurrences -> SPLAT IR, with a source map.

Slots are the semantics (sge.md §3): ``-pe NAME N`` asks for N slots of a site-defined parallel
environment. A thread-style PE (``smp``, ``threads``, ``openmp``, ``shm``…) puts its slots on one
host for one process, so N slots are ``cpusPerTask: N``; an MPI-style PE (``mpi``, ``orte``,
``openmpi…``, ``mpich…``) and any other PE run one process per slot, so N slots are
``tasks: N`` (a PE whose name tells nothing is W301). The PE name and a slot range stay in
``extensions.sge``. Numeric ``-l`` requests are **per slot** (complex(5)): the site's memory
resource (``--sge-memory-resource``, default ``h_vmem``) becomes ``memoryPerTask`` = per slot ×
slots per task (pitfall 1, 11); other memory limits keep their per-slot value (``/slot``) in
``extensions.sge.slot_memory``. Sizes: ``k m g`` are powers of 1000, ``K M G`` powers of 1024,
no suffix is bytes. Times: seconds or ``H:M:S``. ``-hold_jid`` waits for any end (``afterany``).

Siblings: ``frontends/sge.py``, ``backends/sge.py`` (the tables both directions read).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from typing import Any, Final

import msgspec

from bammmc.backends.sge import (
    MAIL_EVENTS,
    MEMORY_RESOURCES,
    NAME_FORBIDDEN,
    SIZE_FACTORS,
    TEMPLATE_VARIABLES,
    pe_kind,
)
from bammmc.diagnostics.model import Reporter
from bammmc.frontends.sge import SgeScript, parser
from bammmc.frontends.slurm import Occurrence
from bammmc.ir.job import API_VERSION, Job
from bammmc.ir.priority import DEFAULT_BAND, from_native, to_native
from bammmc.ir.sourcemap import SourceMap
from bammmc.ir.values import Cpu, DateTime, Duration, IndexSpec, Size, Template
from bammmc.passes.lower.slurm import _Builder, _keep_values

#: options whose repetitions add up instead of replacing each other
ACCUMULATE: Final = frozenset({"l", "v", "hold_jid", "hold_jid_ad", "hard", "soft", "clear"})
YES: Final = {"y": True, "yes": True, "n": False, "no": False}
#: qsub options that only change how qsub itself runs, kept as written
SUBMISSION_ONLY: Final = frozenset({"terse", "verify", "sync", "w", "jsv", "@"})


class Invalid(Exception):
    pass


def lower(
    script: SgeScript, reporter: Reporter, memory_resource: str = "h_vmem"
) -> tuple[Job | None, SourceMap]:
    source_map = SourceMap()
    errors_before = sum(d.is_error for d in reporter.diagnostics)
    b = _Builder(reporter, "", source_map)
    b.data = {"apiVersion": API_VERSION, "kind": "Job"}
    last: dict[str, Occurrence] = {}
    hard: list[tuple[str, str, Occurrence]] = []
    soft: list[tuple[str, str, Occurrence]] = []
    soft_queue: Occurrence | None = None
    lists: dict[str, list[Occurrence]] = {}
    soft_mode = False
    for occ in script.options:
        if occ.name == "clear":  # discards every earlier request (submit(1))
            last.clear()
            hard.clear()
            soft.clear()
            lists.clear()
            soft_queue = None
        elif occ.name in ("hard", "soft"):
            soft_mode = occ.name == "soft"
        elif occ.name == "l":
            (soft if soft_mode else hard).extend(_resource_list(occ, reporter))
        elif occ.name == "q" and soft_mode:
            soft_queue = occ
        elif occ.name in ACCUMULATE:
            lists.setdefault(occ.name, []).append(occ)
        else:
            before = last.get(occ.name)
            if before is not None and before.value != occ.value:
                reporter.report(
                    "W407",
                    f"`-{occ.name}` is given twice; qsub uses the later `{occ.value}`",
                    occ.span,
                    help="remove the one that should not apply",
                )
            last[occ.name] = occ
    other: dict[str, str] = {}
    slots = None
    if "pe" in last:
        with contextlib.suppress(Invalid):
            slots = _pe(last.pop("pe"), b)
    for name, occ in last.items():
        try:
            _option(name, occ, b, other)
        except Invalid:
            continue
    for name, occs in lists.items():
        try:
            _list_option(name, occs, b)
        except Invalid:
            continue
    with contextlib.suppress(Invalid):
        _resources(hard, b, slots, memory_resource)
    if soft:
        _ext(b, "soft_resources", {n: v for n, v, _ in soft}, soft[0][2])
    if soft_queue is not None:
        _ext(b, "soft_queue", soft_queue.value or "", soft_queue)
    if other:
        first = next(o for o in script.options if o.name in other)
        _ext(b, "options", other, first)
    if script.script:
        b.data.setdefault("spec", {}).setdefault("execution", {})["script"] = script.script
    if sum(d.is_error for d in reporter.diagnostics) > errors_before:
        return None, source_map
    job = msgspec.convert(b.data, Job, dec_hook=_keep_values)
    return job, source_map


def _ext(b: _Builder, key: str, value: Any, occ: Occurrence) -> None:
    b.set(f"spec.extensions.sge.{key}", value, occ)


def _invalid(reporter: Reporter, occ: Occurrence, message: str, help: str) -> Invalid:
    reporter.report(
        "E134", message, occ.value_span or occ.span, notes=("qsub rejects the script",), help=help
    )
    return Invalid()


def _tree(
    start: str, text: str, occ: Occurrence, reporter: Reporter, what: str, example: str
) -> Any:
    from lark.exceptions import UnexpectedInput

    try:
        return parser(start).parse(text)
    except UnexpectedInput:
        raise _invalid(
            reporter, occ, f"`{text}` is not a valid {what}", f"write e.g. `{example}`"
        ) from None


def _int(text: str) -> int:
    """An SGE integer: decimal, `0x` hex or leading-0 octal (sge_types(1))."""
    if text[:2] in ("0x", "0X"):
        return int(text[2:], 16)
    if len(text) > 1 and text.startswith("0"):
        return int(text[1:], 8)
    return int(text)


def sge_size_bytes(text: str, occ: Occurrence, reporter: Reporter) -> int:
    """Bytes of a memory_specifier: `k m g` × 1000ⁿ, `K M G` × 1024ⁿ, no suffix = bytes."""
    from fractions import Fraction

    tree = _tree("sge_size", text, occ, reporter, "memory size", "2G")
    number = str(tree.children[0])
    try:
        amount = Fraction(_int(number)) if "." not in number else Fraction(number)
    except ValueError:
        raise _invalid(reporter, occ, f"`{number}` is not a number", "write e.g. `2G`") from None
    suffix = str(tree.children[1]) if len(tree.children) > 1 else ""
    exact = amount * SIZE_FACTORS[suffix]
    return -(-exact.numerator // exact.denominator)


def sge_seconds(text: str, occ: Occurrence, reporter: Reporter) -> int | None:
    """Seconds of a time_specifier (`None` for INFINITY); a two-field time is refused."""
    if text.count(":") not in (0, 2):
        raise _invalid(
            reporter,
            occ,
            f"`{text}` is not a Grid Engine time: it takes seconds or `H:M:S`",
            "write `H:M:S` (three fields) or seconds",
        )
    tree = _tree("sge_time", text, occ, reporter, "time", "02:30:00")
    if tree.data == "infinity":
        return None
    if tree.data == "seconds":
        try:
            return _int(str(tree.children[0]))
        except ValueError:
            raise _invalid(reporter, occ, f"`{text}` is not a number", "write `3600`") from None
    fields = [int(str(t)) if t is not None else 0 for t in tree.children]
    return fields[0] * 3600 + fields[1] * 60 + fields[2]


def _resource_list(occ: Occurrence, reporter: Reporter) -> list[tuple[str, str, Occurrence]]:
    try:
        tree = _tree("resources", occ.value or "", occ, reporter, "resource list", "h_rt=1:00:00")
    except Invalid:
        return []
    out = []
    for res in tree.children:
        name = str(res.children[0])
        value = str(res.children[1]) if len(res.children) > 1 else "true"
        out.append((name, value, occ))
    return out


def _pe(occ: Occurrence, b: _Builder) -> int | None:
    """`-pe NAME RANGE`: the slots per task (threads) or 1 (one process per slot)."""
    name, _, text = (occ.value or "").partition(" ")
    tree = _tree("slot_range", text, occ, b.reporter, "slot range", "8 or 2-8")
    _ext(b, "pe", name, occ)
    kind = pe_kind(name)
    items = tree.children
    if len(items) == 1 and items[0].data == "exact":
        slots = int(str(items[0].children[0]))
        if slots < 1:
            raise _invalid(b.reporter, occ, "a PE needs at least one slot", f"write `-pe {name} 1`")
        minimum = slots
    else:
        _ext(b, "pe_slots", text, occ)
        counts = [int(str(t)) for item in items for t in item.children]
        minimum = max(1, min(counts) if items[0].data != "up_to" else 1)
        if items[0].data in ("exact", "at_least", "between"):
            minimum = max(1, int(str(items[0].children[0])))
        b.reporter.report(
            "W301",
            f"the slot range `{text}` is read as its minimum, {minimum} slots",
            occ.value_span or occ.span,
            field="spec.resources",
            notes=("SPLAT has no slot ranges; the range is kept in `extensions.sge.pe_slots`",),
            help="request a fixed number of slots",
        )
        slots = None
    if kind is None:
        b.reporter.report(
            "W301",
            f"parallel environment `{name}` is read as one task per slot",
            occ.value_span or occ.span,
            field="spec.resources.tasks",
            notes=(
                "the PE's allocation rule is site configuration; names with `smp`/`thread`/"
                "`omp`/`shm` read as CPUs of one task, `mpi`/`orte` names as tasks",
            ),
            help="check `qconf -sp " + name + "` on the cluster",
        )
    if kind == "threads":
        b.set("spec.resources.cpusPerTask", Cpu.parse(minimum), occ)
        return slots
    b.set("spec.resources.tasks", minimum, occ)
    return 1 if slots is not None else None


def _yes(occ: Occurrence, b: _Builder) -> bool:
    value = occ.value or ""
    if value not in YES:
        raise _invalid(
            b.reporter, occ, f"`-{occ.name}` is `y` or `n`, not `{value}`", f"write `-{occ.name} y`"
        )
    return YES[value]


def _option(name: str, occ: Occurrence, b: _Builder, other: dict[str, str]) -> None:
    reporter = b.reporter
    value = occ.value or ""
    if name == "N":
        bad = [c for c in value if c in NAME_FORBIDDEN or not c.isprintable() or c.isspace()]
        if bad or not value:
            raise _invalid(
                reporter,
                occ,
                f"job name `{value}` has characters qsub refuses: "
                + " ".join(f"`{c}`" for c in dict.fromkeys(bad)),
                "use letters, digits and `_.-`",
            )
        b.set("metadata.name", value, occ)
    elif name == "q":
        b.set("spec.schedule.queue", value, occ)
    elif name == "A":
        b.set("spec.schedule.account", value, occ)
    elif name == "P":
        b.set("spec.schedule.project", value, occ)
    elif name == "ar":
        b.set("spec.schedule.reservation", value, occ)
    elif name == "p":
        try:
            native = int(value)
        except ValueError:
            raise _invalid(
                reporter, occ, f"`-p` needs an integer, not `{value}`", "write `-p -100`"
            ) from None
        if not -1023 <= native <= 1024:
            raise _invalid(reporter, occ, f"`-p {value}` is outside -1023..1024", "write `-p 0`")
        band = min(from_native(native, "sge"), DEFAULT_BAND.high)  # 1024: above the mapped range
        b.set("spec.schedule.priority", band, occ)
        if to_native(band, "sge") != native:
            _ext(b, "priority", native, occ)
    elif name == "h":
        b.set("spec.schedule.hold", True, occ)
    elif name == "a":
        _begin(occ, b)
    elif name == "dl":
        _tree("sge_datetime", value, occ, reporter, "date and time", "202603010800")
        _ext(b, "deadline", value, occ)
    elif name == "r":
        b.set("spec.lifecycle.requeueOnFailure", _yes(occ, b), occ)
    elif name == "j":
        b.set("spec.output.mergeStderr", _yes(occ, b), occ)
    elif name in ("o", "e"):
        _path(name, occ, b)
    elif name == "i":
        if ":" in value or "," in value:
            _ext(b, "input", value, occ)
        else:
            b.set("spec.execution.stdin", value, occ)
    elif name == "m":
        _mail(occ, b)
    elif name == "M":
        b.set("spec.notifications.email", value, occ)
    elif name == "S":
        if ":" in value or "," in value:  # `host:path` lists: not one shell
            _ext(b, "shell", value, occ)
        else:
            b.set("spec.execution.shell", value, occ)
    elif name == "V":
        b.set("spec.execution.environment.inheritFromSubmitter", True, occ)
    elif name == "cwd":
        _ext(b, "cwd", True, occ)
    elif name == "wd":
        b.set("spec.execution.workingDir", value, occ)
    elif name == "t":
        tree = _tree("task_range", value, occ, reporter, "task range", "1-100:2")
        nums = [int(str(t)) for t in tree.children]
        start, end, step = nums[0], nums[1] if len(nums) > 1 else nums[0], nums[2:] or [1]
        if not 1 <= start <= end or step[0] < 1:
            raise _invalid(
                reporter,
                occ,
                f"`-t {value}`: task ids run from 1 up, start ≤ end, step ≥ 1",
                "write e.g. `-t 1-10`",
            )
        text = f"{start}-{end}" + (f":{step[0]}" if step[0] != 1 else "")
        b.set("spec.array.indices", IndexSpec.parse(text if end != start else str(start)), occ)
    elif name == "tc":
        if not value.isdigit() or int(value) < 1:
            raise _invalid(reporter, occ, f"`-tc` needs a positive number, not `{value}`", "-tc 10")
        b.set("spec.array.maxConcurrent", int(value), occ)
    elif name == "b":
        _ext(b, "binary", _yes(occ, b), occ)
        reporter.report(
            "W406",
            "qsub does not take `-b` from a script",
            occ.span,
            notes=(
                "`-b y` says the job is a binary, not a script; it means something only on "
                "the command line",
            ),
            help="remove it",
        )
    elif name == "R":
        _ext(b, "reserve", _yes(occ, b), occ)
    elif name == "now":
        _ext(b, "now", _yes(occ, b), occ)
    elif name == "notify":
        _ext(b, "notify", True, occ)
    elif name == "ckpt":
        _ext(b, "ckpt", value, occ)
    elif name == "C":
        reporter.report(
            "W406",
            "qsub ignores `-C` inside a script",
            occ.span,
            notes=("the directive prefix can only be changed on the command line",),
            help="remove it",
        )
    else:
        other[name] = value


def _list_option(name: str, occs: list[Occurrence], b: _Builder) -> None:
    occ = occs[0]
    value = ",".join(o.value or "" for o in occs)
    if name == "v":
        _variables(value, occ, b)
        return
    tree = _tree("job_list", value, occ, b.reporter, "job list", "1234,prep_data")
    refs = [str(t) for t in tree.children]
    if name == "hold_jid_ad":
        _ext(b, "hold_jid_ad", refs, occ)
        return
    numeric = [r for r in refs if r.isdigit()]
    if numeric:
        b.set("spec.dependencies", [{"scheme": "afterany", "value": r} for r in numeric], occ)
    if len(numeric) != len(refs):  # names and patterns: only Grid Engine can look them up
        _ext(b, "hold_jid", refs, occ)


def _variables(value: str, occ: Occurrence, b: _Builder) -> None:
    tree = _tree("variables", value, occ, b.reporter, "variable list", "A=1,B=2")
    out: dict[str, str] = {}
    bare: list[str] = []
    for var in tree.children:
        parts = var.children
        if len(parts) == 1:  # `-v NAME` copies the submitter's value
            bare.append(str(parts[0]))
            continue
        out[str(parts[0])] = str(parts[2]) if len(parts) > 2 else ""
    if out:
        b.set("spec.execution.environment.vars", out, occ)
    if bare:
        _ext(b, "export", bare, occ)


def _begin(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    tree = _tree("sge_datetime", value, occ, b.reporter, "date and time", "202603010800")
    digits = str(tree.children[0])
    seconds = int(str(tree.children[1])[1:]) if len(tree.children) > 1 else 0
    if len(digits) == 12:  # CCYYMMDDhhmm: absolute
        try:
            when = dt.datetime(
                int(digits[:4]),
                int(digits[4:6]),
                int(digits[6:8]),
                int(digits[8:10]),
                int(digits[10:12]),
                seconds,
            )
        except ValueError:
            raise _invalid(
                b.reporter, occ, f"`-a {value}` is not a valid date", "write `CCYYMMDDhhmm`"
            ) from None
        b.set("spec.schedule.beginAfter", DateTime.parse(when.isoformat()), occ)
    else:  # without the century or year: the current one, not a fixed time
        _ext(b, "begin", value, occ)


def _path(letter: str, occ: Occurrence, b: _Builder) -> None:
    """`-o`/`-e [[host]:]path[,...]` with the pseudo variables `$JOB_ID`, `$TASK_ID`,
    `$JOB_NAME`; `$HOME`, `$USER`, `$HOSTNAME` and host parts keep the raw value too."""
    value = occ.value or ""
    key = "output" if letter == "o" else "error"
    field = "stdout" if letter == "o" else "stderr"
    raw = "," in value or ":" in value or value.endswith("/")
    text = value.replace("{", "{{").replace("}", "}}")
    for var, name in TEMPLATE_VARIABLES.items():
        text = text.replace(f"${{{var}}}", f"{{{name}}}").replace(f"${var}", f"{{{name}}}")
    if "$" in text:
        raw = True
    if raw:
        _ext(b, key, value, occ)
    if "," in value:
        return
    path = text.rsplit(":", 1)[-1] if ":" in value else text
    if path.endswith("/"):  # a directory: Grid Engine's default name inside it
        path += "{job_name}." + letter + "{job_id}"
    b.set(f"spec.output.{field}", Template.parse(path), occ)


def _mail(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    letters = value.replace(",", "")
    if not letters or set(letters) - set("beasn") or ("n" in letters and len(letters) > 1):
        raise _invalid(
            b.reporter, occ, f"`-m {value}` is not a mail option", "write `-m bea` or `-m n`"
        )
    events = [MAIL_EVENTS[c] for c in "bea" if c in letters]
    b.set("spec.notifications.events", events, occ)
    if "s" in letters:  # suspend: no portable event
        _ext(b, "mail_points", value, occ)


def _resources(
    items: list[tuple[str, str, Occurrence]],
    b: _Builder,
    slots: int | None,
    memory_resource: str,
) -> None:
    reporter = b.reporter
    extra: dict[str, str] = {}
    slot_memory: dict[str, Size] = {}
    threads = b.get("spec.resources.cpusPerTask") is not None
    for name, value, occ in items:
        if name == "h_rt":
            seconds = sge_seconds(value, occ, reporter)
            b.set("spec.schedule.walltime", Duration.from_seconds(seconds), occ)
        elif name == "s_rt":
            _ext(b, "s_rt", Duration.from_seconds(sge_seconds(value, occ, reporter)), occ)
        elif name == memory_resource:
            per_slot = sge_size_bytes(value, occ, reporter)
            _ext(b, "memory_resource", name, occ)
            if not threads:
                b.set("spec.resources.memoryPerTask", Size.from_bytes(per_slot), occ)
            elif slots is not None:  # a task holds all the slots of a thread PE
                b.set("spec.resources.memoryPerTask", Size.from_bytes(per_slot * slots), occ)
            else:  # a slot range: the slots per task are not known
                size = Size.from_bytes(per_slot, scope="slot")
                b.set("spec.resources.memoryPerTask", size, occ)
        elif name in MEMORY_RESOURCES:
            per_slot = sge_size_bytes(value, occ, reporter)
            slot_memory[name] = Size.from_bytes(per_slot, scope="slot")
            b.source_map.add(f"spec.extensions.sge.slot_memory.{name}", occ.span, occ.value_span)
        elif name == "exclusive" and value.lower() in ("true", "1"):
            b.set("spec.placement.exclusive", True, occ)
        else:
            extra[name] = value
            b.source_map.add(f"spec.extensions.sge.resources.{name}", occ.span, occ.value_span)
    for key, found in (("slot_memory", slot_memory), ("resources", extra)):
        if found:
            spec = b.data.setdefault("spec", {})
            spec.setdefault("extensions", {}).setdefault("sge", {})[key] = found


__all__ = ["lower", "sge_seconds", "sge_size_bytes"]
