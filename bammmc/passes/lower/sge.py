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
no suffix is bytes; numbers as ``sge_parse_num_val()`` reads them (strtod: ``.5G``, ``1e5``).
Times: seconds or ``H:M:S``. ``-hold_jid`` waits for any end (``afterany``).

How repeated options combine follows ``cull_parse_job_parameter()`` (parse_job_cull.c): ``-l``,
``-q``, ``-v``, ``-hold_jid`` add up, ``-m`` letters are OR-ed (``n`` clears them), ``-M``
addresses merge per host, ``-cwd`` is ``-wd`` of the submit directory (the last of the two
wins), ``-t``/``-tc`` are applied before ``-clear`` (which keeps them) and the rest: the last
wins (W407). ``-soft`` lasts to the end of its own ``#$`` line. Without ``-j y`` Grid Engine
keeps stdout and stderr apart (``mergeStderr: false``).

Siblings: ``frontends/sge.py``, ``backends/sge.py`` (the tables both directions read).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import posixpath
import re
from fractions import Fraction
from typing import Any, Final

import msgspec

from bammmc.backends.sge import (
    MAIL_EVENTS,
    MAX_TASK_ID,
    MEMORY_RESOURCES,
    NAME_FORBIDDEN,
    SIZE_FACTORS,
    path_template,
    pe_kind,
    progression,
    slot_minimum,
)
from bammmc.diagnostics.model import Reporter, Span
from bammmc.facts.sge import default_path, is_pattern
from bammmc.frontends.sge import SgeScript, parser
from bammmc.frontends.slurm import Occurrence
from bammmc.ir.job import API_VERSION, Job
from bammmc.ir.priority import DEFAULT_BAND, PriorityBand, from_native, to_native
from bammmc.ir.sourcemap import SourceMap
from bammmc.ir.values import (
    Count,
    Cpu,
    DateTime,
    IndexSpec,
    Size,
    Template,
    ValueSyntaxError,
    is_digits,
)
from bammmc.passes.lower.common import Invalid, duration, whole
from bammmc.passes.lower.slurm import _Builder, _keep_values

#: options whose repetitions add up instead of replacing each other (parse_job_cull.c)
ACCUMULATE: Final = frozenset({"v", "hold_jid", "hold_jid_ad", "m", "M"})


#: options qsub applies before it handles `-clear`, so an earlier `-clear` does not drop them
BEFORE_CLEAR: Final = frozenset({"t", "tc", "b", "binding", "shell"})
#: set_yn_option(): `y`, `yes`, `n`, `no` in any case (strcasecmp)
YES: Final = {"y": True, "yes": True, "n": False, "no": False}
#: an integer as strtol(…, 10) reads it (ASCII digits only)
INTEGER: Final = re.compile(r"[ \t]*[+-]?[0-9]+")
#: sizes and times above this are no limit bammmc can carry (Grid Engine makes them unlimited)
LARGEST: Final = 2**63


def lower(
    script: SgeScript,
    reporter: Reporter,
    memory_resource: str = "h_vmem",
    band: PriorityBand | None = None,
) -> tuple[Job | None, SourceMap]:
    source_map = SourceMap()
    errors_before = sum(d.is_error for d in reporter.diagnostics)
    b = _Builder(reporter, "", source_map)
    b.data = {"apiVersion": API_VERSION, "kind": "Job"}
    last: dict[str, Occurrence] = {}
    hard: list[tuple[str, str | None, Occurrence]] = []
    soft: list[tuple[str, str | None, Occurrence]] = []
    queues: list[Occurrence] = []
    soft_queues: list[Occurrence] = []
    lists: dict[str, list[Occurrence]] = {}
    soft_mode = False
    line: int | None = None
    for occ in script.options:
        if occ.span.line != line:  # cull_parse_cmdline() runs once per line: hard again
            line, soft_mode = occ.span.line, False
        name = occ.name
        if name == "clear":  # discards every earlier request but those applied before it
            last = {k: v for k, v in last.items() if k in BEFORE_CLEAR}
            hard.clear()
            soft.clear()
            queues.clear()
            soft_queues.clear()
            lists.clear()
        elif name in ("hard", "soft"):
            soft_mode = name == "soft"
        elif name == "l":
            (soft if soft_mode else hard).extend(_resource_list(occ, reporter))
        elif name == "q":
            (soft_queues if soft_mode else queues).append(occ)
        elif name in ACCUMULATE:
            lists.setdefault(name, []).append(occ)
        else:
            key = "wd" if name == "cwd" else name  # qsub turns `-cwd` into `-wd` (parse_qsub.c)
            before = last.get(key)
            if before is not None and (before.name, before.value) != (name, occ.value):
                shown = f"`-{name}`" if occ.value is None else f"`{occ.value}`"
                reporter.report(
                    "W407",
                    f"`-{before.name}` is given "
                    + ("twice" if before.name == name else f"before `-{name}`")
                    + f"; qsub uses the later {shown}",
                    occ.span,
                    help="remove the one that should not apply",
                )
            last[key] = occ
    other: dict[str, str] = {}
    array = False
    if "t" in last:
        with contextlib.suppress(Invalid):
            array = _tasks(last.pop("t"), b)
    slots = None
    if "pe" in last:
        with contextlib.suppress(Invalid):
            slots = _pe(last.pop("pe"), b)
    merged = "j" in last and (last["j"].value or "").lower() in ("y", "yes")
    for name, occ in last.items():
        try:
            if name == "e" and merged:
                _ignored_error(occ, last["j"], reporter)
            else:
                _option(occ.name, occ, b, other, array, band or DEFAULT_BAND)
        except Invalid:
            continue
    if queues:
        _queues(queues, b, "spec.schedule.queue")
    if soft_queues:
        _queues(soft_queues, b, "spec.extensions.sge.soft_queue")
    for name, occs in lists.items():
        try:
            _list_option(name, occs, b)
        except Invalid:
            continue
    _resources(hard, b, slots, memory_resource)
    _soft_resources(soft, b)
    if "wd" not in last:  # neither `-cwd` nor `-wd`: Grid Engine starts it in the home directory
        b.data.setdefault("spec", {}).setdefault("extensions", {}).setdefault("sge", {})["cwd"] = (
            False
        )
    if b.get("spec.output.mergeStderr") is None:
        # Grid Engine writes stdout and stderr to separate files unless `-j y` joins them
        b.data.setdefault("spec", {}).setdefault("output", {})["mergeStderr"] = False
    _default_files(b, array, merged)
    if other:
        first = next(o for o in script.options if o.name in other)
        _ext(b, "options", other, first)
    if script.script:
        b.data.setdefault("spec", {}).setdefault("execution", {})["script"] = script.script
    if "S" in last:
        _shell_and_shebang(last["S"], b, script.script)
    if sum(d.is_error for d in reporter.diagnostics) > errors_before:
        return None, source_map
    job = msgspec.convert(b.data, Job, dec_hook=_keep_values)
    return job, source_map


def _ext(b: _Builder, key: str, value: Any, occ: Occurrence) -> None:
    b.set(f"spec.extensions.sge.{key}", value, occ)


def _invalid(
    reporter: Reporter, occ: Occurrence, message: str, help: str, span: Span | None = None
) -> Invalid:
    reporter.report(
        "E134",
        message,
        span or occ.value_span or occ.span,
        notes=("qsub rejects the script",),
        help=help,
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
    """strtol(…, 0): decimal, `0x` hex or leading-0 octal (sge_types(1)).

    >>> _int("0x10"), _int("010"), _int("+7")
    (16, 8, 7)
    """
    text = text.lstrip("+")
    if text[:2] in ("0x", "0X"):
        return int(text[2:], 16)
    if len(text) > 1 and text.startswith("0"):
        return int(text[1:], 8)
    return int(text)


def _number(text: str) -> Fraction:
    """A number as sge_parse_num_val() reads it: strtod() when it has a `.` or does not start
    with `0`, else strtol() base 0 (`ValueError` for `08`).

    >>> _number(".5"), _number("1e3"), _number("010"), _number("0x1F")
    (Fraction(1, 2), Fraction(1000, 1), Fraction(8, 1), Fraction(31, 1))
    """
    if "." in text or not text.lstrip("+").startswith("0"):
        return Fraction(text.lstrip("+"))
    return Fraction(_int(text))


def sge_size_bytes(text: str, occ: Occurrence, reporter: Reporter, span: Span | None) -> int:
    """Bytes of a memory_specifier: `k m g` × 1000ⁿ, `K M G` × 1024ⁿ, no suffix = bytes; the
    number by strtod() or strtol() as qsub reads it, truncated to whole bytes."""
    if text == "":
        raise _invalid(
            reporter, occ, "the memory size is empty", "write e.g. `h_vmem=2G`", span=span
        )
    from lark.exceptions import UnexpectedInput

    try:
        tree = parser("sge_size").parse(text)
        amount = _number(str(tree.children[0]))
    except (UnexpectedInput, ValueError):  # also an octal number with an 8 or 9
        raise _invalid(
            reporter, occ, f"`{text}` is not a valid memory size", "write e.g. `2G`", span=span
        ) from None
    suffix = str(tree.children[1]) if len(tree.children) > 1 else ""
    exact = amount * SIZE_FACTORS[suffix]
    if exact > LARGEST:
        raise _invalid(
            reporter, occ, f"`{text}` is larger than any memory limit", "write e.g. `2G`", span=span
        )
    return exact.numerator // exact.denominator


def sge_seconds(
    text: str, occ: Occurrence, reporter: Reporter, span: Span | None = None
) -> int | None:
    """Seconds of a time_specifier (`None` for INFINITY); a two-field time is refused."""
    if text == "":
        raise _invalid(reporter, occ, "the time is empty", "write e.g. `h_rt=1:00:00`", span=span)
    if text.count(":") not in (0, 2):
        raise _invalid(
            reporter,
            occ,
            f"`{text}` is not a Grid Engine time: it takes seconds or `H:M:S`",
            "write `H:M:S` (three fields) or seconds",
            span=span,
        )
    from lark.exceptions import UnexpectedInput

    try:
        tree = parser("sge_time").parse(text)
        if tree.data == "infinity":
            return None
        if tree.data == "seconds":
            exact = _number(str(tree.children[0]))
        else:  # each field by strtod(): `010` is ten, an empty field is 0
            h, m, s = (Fraction(str(t).lstrip("+")) if t is not None else 0 for t in tree.children)
            exact = Fraction(int(h * 3600) + int(m * 60) + int(s))
    except (UnexpectedInput, ValueError):  # also an octal number with an 8 or 9
        raise _invalid(
            reporter, occ, f"`{text}` is not a valid time", "write e.g. `02:30:00`", span=span
        ) from None
    if exact > LARGEST:
        raise _invalid(
            reporter, occ, f"`{text}` is too long a time", "write e.g. `INFINITY`", span=span
        )
    return exact.numerator // exact.denominator


def _resource_list(occ: Occurrence, reporter: Reporter) -> list[tuple[str, str | None, Occurrence]]:
    """The items of one `-l` list, each checked on its own and pointing at its own text."""
    from lark.exceptions import UnexpectedInput

    value = occ.value or ""
    span = occ.value_span
    exact = span is not None and span.end_column - span.column == len(value)  # not quoted
    out: list[tuple[str, str | None, Occurrence]] = []
    offset = 0
    for item in value.split(","):
        sub = occ
        if exact and span is not None:
            sub = Occurrence(
                occ.name, item, occ.span, span.shifted(offset, offset + len(item)), occ.written
            )
        offset += len(item) + 1
        try:
            tree = parser("resource").parse(item)
        except UnexpectedInput:
            reporter.report(
                "E134",
                f"`{item}` is not a resource request" if item else "an empty resource request",
                sub.value_span or occ.span,
                notes=("qsub rejects the script",),
                help="write `NAME=VALUE`, e.g. `h_rt=1:00:00`",
            )
            continue
        name = str(tree.children[0])
        if len(tree.children) == 1:  # a bare name is a boolean request (`-l exclusive`)
            out.append((name, None, sub))
        else:
            out.append((name, str(tree.children[2]) if len(tree.children) > 2 else "", sub))
    return out


def _tasks(occ: Occurrence, b: _Builder) -> bool:
    """`-t n[-m[:s]][,…]`: qsub merges the list (range_list_sort_uniq_compress()) and takes it
    when one range remains."""
    reporter, value = b.reporter, occ.value or ""
    tree = _tree("task_ranges", value, occ, reporter, "task range", "1-100:2")
    ranges: list[tuple[int, int, int]] = []
    for item in tree.children:
        nums = [whole(str(t), occ, reporter) for t in item.children]
        start, end, step = nums[0], nums[1] if len(nums) > 1 else nums[0], (nums[2:] or [1])[0]
        if max(nums) > MAX_TASK_ID:
            raise _invalid(
                reporter,
                occ,
                f"`-t {value}`: task ids go up to {MAX_TASK_ID}",
                "write smaller task ids",
            )
        if not 1 <= start <= end or step < 1:
            raise _invalid(
                reporter,
                occ,
                f"`-t {value}`: task ids run from 1 up, start ≤ end, step ≥ 1",
                "write e.g. `-t 1-10`",
            )
        ranges.append((start, end, step))
    one = progression(ranges)  # also ends a range at its last id, as range_correct_end()
    if one is None:
        raise _invalid(
            reporter,
            occ,
            f"`-t {value}` is not one range of task ids",
            "qsub takes one range `n-m:s`; submit the others as another job",
        )
    start, end, step = one
    text = str(start) if start == end else f"{start}-{end}" + (f":{step}" if step != 1 else "")
    try:
        indices = IndexSpec.parse(text)
    except ValueSyntaxError as exc:
        raise _invalid(reporter, occ, f"`-t {value}`: {exc.message}", exc.help or "") from None
    b.set("spec.array.indices", indices, occ)
    return True


def _pe(occ: Occurrence, b: _Builder) -> int | None:
    """`-pe NAME RANGE`: the slots per task (threads) or 1 (one process per slot)."""
    name, _, text = (occ.value or "").partition(" ")
    tree = _tree("slot_range", text, occ, b.reporter, "slot range", "8 or 2-8")
    for item in tree.children:
        low_high = [whole(str(t), occ, b.reporter) for t in item.children]
        if item.data == "between" and low_high[0] > low_high[1]:
            low, high = (str(t) for t in item.children)
            raise _invalid(
                b.reporter,
                occ,
                f"the slot range `{low}-{high}` ends before it starts",
                f"write `{high}-{low}`",
            )
    _ext(b, "pe", name, occ)
    kind = pe_kind(name)
    items = tree.children
    if len(items) == 1 and items[0].data == "exact":
        slots = whole(str(items[0].children[0]), occ, b.reporter)
        if slots < 1:
            raise _invalid(b.reporter, occ, "a PE needs at least one slot", f"write `-pe {name} 1`")
        minimum = slots
    else:
        _ext(b, "pe_slots", text, occ)
        minimum = slot_minimum(text) or 1
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
    if value.lower() not in YES:
        raise _invalid(
            b.reporter, occ, f"`-{occ.name}` is `y` or `n`, not `{value}`", f"write `-{occ.name} y`"
        )
    return YES[value.lower()]


def _option(
    name: str,
    occ: Occurrence,
    b: _Builder,
    other: dict[str, str],
    array: bool,
    band: PriorityBand,
) -> None:
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
    elif name == "A":
        b.set("spec.schedule.account", value, occ)
    elif name == "P":
        b.set("spec.schedule.project", value, occ)
    elif name == "ar":
        # qsub: "invalid advance reservation id, must be an unsigned integer"
        if not is_digits(value):
            raise _invalid(
                reporter,
                occ,
                f"`-ar` takes the id of an advance reservation, not `{value}`",
                "write the number `qrsub` printed, e.g. `-ar 42`",
            )
        b.set("spec.schedule.reservation", value, occ)
    elif name == "p":
        if not INTEGER.fullmatch(value) or not -1023 <= whole(value, occ, reporter) <= 1024:
            raise _invalid(
                reporter,
                occ,
                f"`-p` takes an integer from -1023 to 1024, not `{value}`",
                "write e.g. `-p -100`",
            )
        native = int(value)
        priority = min(from_native(native, "sge", band), band.high)  # 1024: above the range
        b.set("spec.schedule.priority", priority, occ)
        if to_native(priority, "sge", band) != native:
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
        _path(name, occ, b, array)
    elif name == "i":
        path = _hostless(value)
        if path is None:
            _ext(b, "input", value, occ)
        else:
            b.set("spec.execution.stdin", path, occ)
    elif name == "S":
        path = _hostless(value)
        if path is None:  # `host:path` lists: not one shell
            _ext(b, "shell", value, occ)
        else:
            b.set("spec.execution.shell", path, occ)
    elif name == "V":
        b.set("spec.execution.environment.inheritFromSubmitter", True, occ)
    elif name == "cwd":
        _ext(b, "cwd", True, occ)
    elif name == "wd":
        b.set("spec.execution.workingDir", value, occ)
    elif name == "tc":
        if not INTEGER.fullmatch(value) or whole(value, occ, reporter) < 0:
            raise _invalid(
                reporter, occ, f"`-tc` needs a number of tasks, not `{value}`", "write `-tc 10`"
            )
        if int(value) > 0:  # 0: no limit
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


def _ignored_error(occ: Occurrence, join: Occurrence, reporter: Reporter) -> None:
    reporter.report(
        "W406",
        "qsub ignores `-e` when `-j y` joins stderr to stdout",
        occ.span,
        notes=(f"`-j {join.value}` is on line {join.span.line}; stderr goes to the `-o` file",),
        help="remove `-e`, or write `-j n` to keep stderr in its own file",
    )


def _queues(occs: list[Occurrence], b: _Builder, path: str) -> None:
    """`-q` lists add up (parse_list_hardsoft())."""
    value = ",".join(o.value or "" for o in occs)
    b.set(path, value, occs[0])


def _list_option(name: str, occs: list[Occurrence], b: _Builder) -> None:
    occ = occs[0]
    if name == "m":
        _mail(occs, b)
        return
    if name == "M":
        _mail_users(occs, b)
        return
    value = ",".join(o.value or "" for o in occs)
    if name == "v":
        _variables(value, occ, b)
        return
    tree = _tree("job_list", value, occ, b.reporter, "job list", "1234,prep_data")
    refs = [str(t) for t in tree.children]
    if name == "hold_jid_ad":
        _ext(b, "hold_jid_ad", refs, occ)
        return
    # ids and plain job names are the portable dependency's value (SPLAT: "job name or job
    # ID"); a wildcard pattern (`prep*`, a `wc_job`) only Grid Engine matches
    plain = [r for r in refs if not is_pattern(r)]
    if plain:
        b.set("spec.dependencies", [{"scheme": "afterany", "value": r} for r in plain], occ)
    if len(plain) != len(refs):
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


def _hostless(value: str) -> str | None:
    """The path of a `[[host]:]path[,…]` value that names one path on no host: a value
    without `:` or `,`, or one after an empty host (`:a:b` is the path `a:b`, as the qmaster
    records it); None for a host or a list.

    >>> _hostless("in.txt"), _hostless(":in:2024.txt"), _hostless("in:2024.txt"), _hostless("a,b")
    ('in.txt', 'in:2024.txt', None, None)
    """
    if "," in value:
        return None
    if value.startswith(":"):
        return value[1:]
    return None if ":" in value else value


def _path(letter: str, occ: Occurrence, b: _Builder, array: bool) -> None:
    """`-o`/`-e [[host]:]path[,...]` with Grid Engine's pseudo variables; a host, a list, a
    directory or a variable only Grid Engine has keep the raw value in `extensions.sge`."""
    value = occ.value or ""
    key = "output" if letter == "o" else "error"
    field = "stdout" if letter == "o" else "stderr"
    if "," in value:  # several `host:path` entries: only Grid Engine can pick one
        _ext(b, key, value, occ)
        return
    hostless = _hostless(value)
    path = hostless if hostless is not None else value.split(":", 1)[1]
    text, site_only = path_template(path, array)
    if hostless is None or path.endswith("/") or site_only:
        _ext(b, key, value, occ)
    if site_only:
        shown = ", ".join(f"`{v}`" if v in ("~", "$$") else f"`${v}`" for v in site_only)
        b.reporter.report(
            "W301",
            f"Grid Engine expands {shown} in this path; other schedulers do not",
            occ.value_span or occ.span,
            field=f"spec.output.{field}",
            notes=(
                f"the path is kept in `extensions.sge.{key}` for Grid Engine only; other "
                "schedulers write their default file",
            ),
            help="write the path without it, e.g. relative to the working directory",
        )
        return
    if path.endswith("/"):  # a directory: Grid Engine's default name inside it
        text += default_path(letter, array)
    try:
        b.set(f"spec.output.{field}", Template.parse(text), occ)
    except ValueSyntaxError as exc:
        raise _invalid(b.reporter, occ, f"`{value}`: {exc.message}", "check the path") from None


def _default_files(b: _Builder, array: bool, merged: bool) -> None:
    """The files Grid Engine writes when `-o`/`-e` name none (qsub(1) -o: "the standard
    output stream of the job is placed in the file <job_name>.o<job_id>", in an array
    `<job_name>.o<job_id>.<task_id>`), so that another scheduler writes the same names."""
    output = b.data.setdefault("spec", {}).setdefault("output", {})
    ext = b.get("spec.extensions.sge") or {}
    for letter, stream, key in (("o", "stdout", "output"), ("e", "stderr", "error")):
        if stream in output or key in ext or (letter == "e" and merged):
            continue
        output[stream] = Template.parse(default_path(letter, array))


def _mail(occs: list[Occurrence], b: _Builder) -> None:
    """`-m` letters are OR-ed over the options; a word with `n` clears them."""
    letters: set[str] = set()
    for occ in occs:
        value = occ.value or ""
        word = value.replace(",", "")
        if not word or set(word) - set("beasn"):
            raise _invalid(
                b.reporter, occ, f"`-m {value}` is not a mail option", "write `-m bea` or `-m n`"
            )
        letters = set() if "n" in word else letters | set(word)
    occ = occs[-1]
    events = [MAIL_EVENTS[c] for c in "bea" if c in letters]
    b.set("spec.notifications.events", events, occ)
    if "s" in letters:  # suspend: no portable event
        _ext(b, "mail_points", "".join(c for c in "beas" if c in letters), occ)


def _mail_users(occs: list[Occurrence], b: _Builder) -> None:
    """`-M` lists merge per host (cull_merge_definition_list()): an address of a later `-M`
    replaces the first one at the same host (or the first one without a host)."""
    merged: list[tuple[str, str]] = []
    for n, occ in enumerate(occs):
        for user in (occ.value or "").split(","):
            host = user.partition("@")[2]
            at = next((i for i, (h, _) in enumerate(merged) if h == host), None)
            if n == 0 or at is None:  # the first list is taken as written
                merged.append((host, user))
                continue
            if merged[at][1] != user:
                b.reporter.report(
                    "W407",
                    f"`-M {user}` replaces `{merged[at][1]}`: qsub keeps one address per host",
                    occ.value_span or occ.span,
                    help="remove the one that should not apply",
                )
            merged[at] = (host, user)
    b.set("spec.notifications.email", ",".join(u for _, u in merged), occs[0])


def _resources(
    items: list[tuple[str, str | None, Occurrence]],
    b: _Builder,
    slots: int | None,
    memory_resource: str,
) -> None:
    extra: dict[str, str] = {}
    slot_memory: dict[str, Size] = {}
    for name, value, occ in items:
        try:
            _resource(name, value, occ, b, slots, memory_resource, extra, slot_memory)
        except Invalid:
            continue
    for key, found in (("slot_memory", slot_memory), ("resources", extra)):
        if found:
            spec = b.data.setdefault("spec", {})
            spec.setdefault("extensions", {}).setdefault("sge", {})[key] = found


def _resource(
    name: str,
    value: str | None,
    occ: Occurrence,
    b: _Builder,
    slots: int | None,
    memory_resource: str,
    extra: dict[str, str],
    slot_memory: dict[str, Size],
) -> None:
    reporter = b.reporter
    span = occ.value_span
    timed = name in ("h_rt", "s_rt")
    if (timed or name == memory_resource or name in MEMORY_RESOURCES) and not value:
        raise _invalid(
            reporter,
            occ,
            f"`-l {name}` has no value" if value is None else f"the value of `{name}` is empty",
            f"write `{name}=" + ("1:00:00`" if timed else "2G`"),
            span=span,
        )
    text = value or ""
    if name == "h_rt":
        seconds = sge_seconds(text, occ, reporter, span)
        b.set("spec.schedule.walltime", duration(seconds, occ, reporter), occ)
    elif name == "s_rt":
        _ext(b, "s_rt", duration(sge_seconds(text, occ, reporter, span), occ, reporter), occ)
    elif name == memory_resource:
        per_slot = sge_size_bytes(text, occ, reporter, span)
        _ext(b, "memory_resource", name, occ)
        threads = b.get("spec.resources.cpusPerTask") is not None
        if not threads:
            b.set("spec.resources.memoryPerTask", Size.from_bytes(per_slot), occ)
        elif slots is not None:  # a task holds all the slots of a thread PE
            b.set("spec.resources.memoryPerTask", Size.from_bytes(per_slot * slots), occ)
        else:  # a slot range of a thread PE: each slot is one CPU of the task
            b.set("spec.resources.memoryPerTask", Size.from_bytes(per_slot, scope="cpu"), occ)
    elif name in MEMORY_RESOURCES:
        per_slot = sge_size_bytes(text, occ, reporter, span)
        slot_memory[name] = Size.from_bytes(per_slot, scope="slot")
        b.source_map.add(f"spec.extensions.sge.slot_memory.{name}", occ.span, occ.value_span)
    elif name == "gpu" and INTEGER.fullmatch(text) and int(text) > 0:
        # the consumable complex sites define for GPUs, counted per slot (sge_complex(5)); a
        # task of a thread PE holds all the job's slots
        threads = b.get("spec.resources.cpusPerTask") is not None
        if threads and slots is None:  # a slot range: no count per task
            extra[name] = text
            b.source_map.add(f"spec.extensions.sge.resources.{name}", occ.span, occ.value_span)
        else:
            per_task = int(text) * (slots if threads and slots else 1)
            b.set("spec.resources.gpu.count", Count.parse(str(per_task)), occ)
    elif name == "exclusive" and (value is None or text.lower() in ("true", "1")):
        b.set("spec.placement.exclusive", True, occ)
    else:
        extra[name] = "true" if value is None else text
        b.source_map.add(f"spec.extensions.sge.resources.{name}", occ.span, occ.value_span)


def _soft_resources(items: list[tuple[str, str | None, Occurrence]], b: _Builder) -> None:
    if items:
        found = {n: "true" if v is None else v for n, v, _ in items}
        _ext(b, "soft_resources", found, items[0][2])


def _shell_and_shebang(occ: Occurrence, b: _Builder, script: str) -> None:
    """qsub runs the script with `-S` (shell_start_mode posix_compliant), not its `#!` line.
    A `-S` naming the `#!` line's own shell adds nothing and is not kept."""
    shell = b.get("spec.execution.shell")
    if shell is None or not script.startswith("#!"):
        return
    words = script.partition("\n")[0][2:].split()
    if not words:
        return
    program = posixpath.basename(words[0])
    if program == "env" and len(words) > 1:
        program = posixpath.basename(words[1])
        if len(words) == 2 and shell == f"/bin/{program}":
            words = [shell]
    if len(words) == 1 and words[0] == shell:
        # `-S` says what the `#!` line says (as the Grid Engine writer writes it): the job's
        # shell is its script's own, with nothing of `-S`'s to keep
        del b.data["spec"]["execution"]["shell"]
        return
    if program != posixpath.basename(shell):
        b.reporter.report(
            "W301",
            f"qsub runs the script with `{shell}` (`-S`), not with its `#!{words[0]}` line",
            occ.value_span or occ.span,
            field="spec.execution.shell",
            notes=(
                "Grid Engine's default shell_start_mode starts the `-S` shell and ignores "
                "`#!`; other schedulers run the `#!` line. The shell is kept in "
                "`execution.shell`",
            ),
            help="make the `#!` line and `-S` name the same shell",
        )


__all__ = ["lower", "sge_seconds", "sge_size_bytes"]
