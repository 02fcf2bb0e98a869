"""Lowering for ``lsf``: bsub option occurrences -> SPLAT IR, with a source map.

Slots are tasks (`-n MIN[,MAX]`), `span[ptile=N]` is tasks per node, `span[hosts=1]` one node,
`affinity[core(N)]` CPUs per task, `rusage[mem=X]` memory per task (per slot). Sizes in `-M`,
`-S`, `rusage[mem=]` are in the site's `LSF_UNIT_FOR_LIMITS` (KB unless `--lsf-unit` says
otherwise; pitfall 8/9) when written without a unit, and each such guess is a W302. `-W 1:30` is
ninety minutes (pitfall 12), `-c` is CPU time, never walltime (pitfall 16), `-M` is a limit, not
a request (pitfall 3), arrays live in the job name (pitfall 24/25), `-w` conditions map to the
portable dependency schemes only when they are a plain `&&` of `done/exit/ended/started`.
Everything else is kept in `extensions.lsf`.

Siblings: ``frontends/lsf.py``, ``backends/lsf.py``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from typing import Any, Final

import msgspec

from bammmc.diagnostics.model import Reporter, Span
from bammmc.facts.lsf import ID_LIKE
from bammmc.frontends.lsf import LsfScript, values
from bammmc.frontends.slurm import Occurrence
from bammmc.ir.job import API_VERSION, Job
from bammmc.ir.priority import DEFAULT_BAND, NATIVE_RANGES, PriorityBand, from_native, to_native
from bammmc.ir.sourcemap import SourceMap
from bammmc.ir.values import (
    Count,
    Cpu,
    DateTime,
    IndexSpec,
    Size,
    Template,
    decimal_number,
    is_digits,
)
from bammmc.passes.lower.common import Invalid, decimal, duration, whole
from bammmc.passes.lower.slurm import _Builder, _keep_values

#: LSF size units (LSF_UNIT_FOR_LIMITS): powers of 1024, `K` and `KB` alike
UNITS: Final = {u: 1024 ** (i + 1) for i, u in enumerate("KMGTPEZ")}
SITE_UNITS: Final = ("KB", "MB", "GB", "TB", "PB", "EB")
#: -w conditions that are a portable dependency scheme
SCHEMES: Final = {"done": "afterok", "exit": "afternotok", "ended": "afterany", "started": "after"}
#: `-cwd` patterns (IBM bsub -cwd): `%J`, `%JG`, `%I`, `%EJ`, `%EI`, `%P`, `%U`, `%G`, `%H`
CWD_PATTERN: Final = re.compile(r"%(?:JG|EJ|EI|[JIPUGH])")
#: `-i` patterns: `%J` and `%I`
INPUT_PATTERN: Final = re.compile(r"%[JI]")
#: cu[type=] values the specification's `compute_unit.type` can hold
CU_TYPES: Final = frozenset({"rack", "chassis", "enclosure", "switch"})
#: options kept verbatim in extensions.lsf.options (no field of their own)
PASSED: Final = frozenset(
    {
        "a",
        "C",
        "core_isolation",
        "csm",
        "D",
        "data",
        "eptl",
        "ext",
        "extsched",
        "F",
        "freq",
        "g",
        "hostfile",
        "is",
        "Jd",
        "jsdl",
        "jsdl_strict",
        "jsm",
        "k",
        "mig",
        "network",
        "p",
        "pack",
        "Q",
        "rcacct",
        "rnc",
        "s",
        "smt",
        "stage",
        "step_cgroup",
        "v",
        "We",
        "wa",
        "wt",
        "I",
        "IS",
        "ISp",
        "ISs",
        "Ip",
        "Is",
        "IX",
        "K",
        "ti",
        "tty",
        "XF",
        "Zs",
    }
)


def lower(
    script: LsfScript,
    reporter: Reporter,
    unit: str | None = None,
    *,
    band: PriorityBand | None = None,
    reserve: str | None = None,
) -> tuple[Job | None, SourceMap]:
    """Lower the options; ``unit`` is the site's `LSF_UNIT_FOR_LIMITS` for bare numbers,
    ``band`` the canonical priority band `-sp` is mapped onto (`--priority-range`),
    ``reserve`` how the site reserves an `rusage[mem=]` without `/task` or `/host` for a job
    of several slots (`host`, LSF's default; `task` with `RESOURCE_RESERVE_PER_TASK=y`).
    ``None``: not known, LSF's defaults are assumed (MB, as `lsfinstall` writes it, and per
    host), each use said by a W302."""
    source_map = SourceMap()
    errors_before = sum(d.is_error for d in reporter.diagnostics)
    b = _Builder(reporter, "", source_map, band=band or DEFAULT_BAND)
    b.data = {"apiVersion": API_VERSION, "kind": "Job"}
    last: dict[str, Occurrence] = {}
    repeated: dict[str, list[Occurrence]] = {"R": [], "f": []}
    for occ in script.options:
        if occ.name in repeated:
            repeated[occ.name].append(occ)
        else:
            last[occ.name] = occ  # within the script, the last occurrence wins
    state = _State(b, unit, reserve)
    if "nnodes" in last and "n" in last:
        reporter.report(
            "E135",
            "`-nnodes` and `-n` cannot be combined",
            last["n"].span,
            notes=("CSM clusters allocate whole nodes with `-nnodes` and refuse `-n`",),
            help="keep `-nnodes` and remove `-n`",
        )
    for name, occ in last.items():
        try:
            _option(name, occ, state)
        except Invalid:
            continue
    with contextlib.suppress(Invalid):
        _resreqs(repeated["R"], state)
    with contextlib.suppress(Invalid):
        _transfers(repeated["f"], state)
    _finish(state)
    if script.script:
        b.data.setdefault("spec", {}).setdefault("execution", {})["script"] = script.script
    if sum(d.is_error for d in reporter.diagnostics) > errors_before:
        return None, source_map
    job = msgspec.convert(b.data, Job, dec_hook=_keep_values)
    return job, source_map


class _State:
    """What the options say, collected before the parts that depend on each other are set."""

    def __init__(self, b: _Builder, unit: str | None, reserve: str | None) -> None:
        self.b = b
        #: the site's `LSF_UNIT_FOR_LIMITS` (MB, as `lsfinstall` writes it, unless given)
        self.unit = (unit or "MB").upper()
        self.unit_given = unit is not None
        #: `--lsf-reserve`: `host` or `task` when given
        self.reserve = reserve
        #: the `rusage[mem=]` reservation: bytes, the method written (`task`, `host`, `job` or
        #: None: the site's) and where; its scope needs the slots and hosts (``_finish``)
        self.mem: tuple[int, str | None, Occurrence] | None = None
        #: each distinct `mem=` value of the rusage sections: its text, where, and the method
        self.mem_values: list[tuple[str, Occurrence, str | None]] = []
        self.other: dict[str, str] = {}
        self.other_occ: Occurrence | None = None
        self.slots: tuple[int, Occurrence] | None = None
        self.ptile: tuple[int, Occurrence] | None = None
        self.one_host: Occurrence | None = None
        self.streams: dict[str, tuple[str, Occurrence]] = {}
        #: `-J` as written
        self.name_value: str | None = None
        #: `-M`: bytes and where
        self.mem_limit: tuple[int, Occurrence] | None = None


def _ext(b: _Builder, key: str, value: Any, occ: Occurrence) -> None:
    b.set(f"spec.extensions.lsf.{key}", value, occ)


def _invalid(reporter: Reporter, occ: Occurrence, message: str, help: str) -> Invalid:
    reporter.report(
        "E134", message, occ.value_span or occ.span, notes=("bsub rejects the script",), help=help
    )
    return Invalid()


def _tree(
    start: str, text: str, occ: Occurrence, reporter: Reporter, what: str, example: str
) -> Any:
    from lark.exceptions import UnexpectedInput

    try:
        return values(start).parse(text)
    except UnexpectedInput:
        raise _invalid(
            reporter, occ, f"`{text}` is not a valid {what}", f"write e.g. `{example}`"
        ) from None


def lsf_bytes(
    text: str, occ: Occurrence, state: _State, what: str, *, report: bool = True
) -> tuple[int, bool]:
    """Bytes of an LSF size (`N[unit][!]`) and whether it is hard (`!`); a bare number is in
    the site unit, said by a W302 (unless ``report`` is false: the caller says it)."""
    tree = _tree("lsf_size", text, occ, state.b.reporter, "size", "8GB")
    number = decimal(str(tree.children[0]), occ, state.b.reporter)
    unit = None
    hard = False
    for tok in tree.children[1:]:
        if tok.type == "SIZE_UNIT":
            unit = str(tok).upper()[0]
        elif tok.type == "HARD":
            hard = True
    if unit is None:
        unit = state.unit[0]
        if report and not state.unit_given:
            _site_assumed(f"`{text}` has no unit: read as {state.unit} ({what})", occ, state)
    exact = number * UNITS[unit]
    return -(-exact.numerator // exact.denominator), hard


def _site_assumed(
    message: str,
    occ: Occurrence,
    state: _State,
    *,
    unit: bool = True,
    notes: tuple[str, ...] = (),
    help: str | None = None,
) -> None:
    """W302: a value read by a site setting bammmc cannot see (the unit of a bare size when
    ``unit``, the reservation method of `rusage[mem]`) and not given by `--lsf-unit` or
    `--lsf-reserve`."""
    unit_note = (
        "LSF reads bare numbers in the unit of `LSF_UNIT_FOR_LIMITS` in lsf.conf: "
        "`lsfinstall` sets MB (KB where the line is missing)"
    )
    state.b.reporter.report(
        "W302",
        message,
        occ.value_span or occ.span,
        notes=((unit_note,) if unit else ()) + notes,
        help=help
        or "write the unit (`8GB`), or pass `--lsf-unit` with the site's unit "
        "(`grep LSF_UNIT_FOR_LIMITS $LSF_ENVDIR/lsf.conf` on the cluster says it)",
    )


def minutes(text: str, occ: Occurrence, reporter: Reporter) -> tuple[int, bool]:
    """Minutes of `[hour:]minute[/host]` (`1:30` is ninety minutes) and whether a host part
    is present."""
    tree = _tree("run_limit", text, occ, reporter, "time limit", "1:30")
    nums = [whole(str(t), occ, reporter) for t in tree.children if t.type == "INT"]
    host = any(t.type == "HOST_SPEC" for t in tree.children)
    if len(nums) == 2:
        if nums[1] > 59:
            raise _invalid(
                reporter, occ, f"`{text}`: minutes after `:` must be below 60", "write `2:30`"
            )
        return nums[0] * 60 + nums[1], host
    return nums[0], host


def _option(name: str, occ: Occurrence, s: _State) -> None:
    b = s.b
    reporter = b.reporter
    value = occ.value or ""
    if name == "J":
        s.name_value = value
        _name(occ, b)
    elif name == "q":
        queues = value.split()
        if not queues:
            raise _invalid(reporter, occ, "`-q` needs a queue name", "write `-q normal`")
        b.set("spec.schedule.queue", queues[0], occ)
        if len(queues) > 1:
            _ext(b, "queues", queues, occ)
    elif name == "P":
        b.set("spec.schedule.account", value, occ)
    elif name == "G":
        b.set("spec.schedule.project", value, occ)
    elif name == "app":
        _ext(b, "app_profile", value, occ)
    elif name == "sla":
        _ext(b, "service_class", value, occ)
    elif name == "Lp":
        _ext(b, "license_project", value, occ)
    elif name == "sp":
        if not is_digits(value) or whole(value, occ, reporter) < 1:
            raise _invalid(
                reporter, occ, f"`-sp` needs a positive integer, not `{value}`", "write `-sp 50`"
            )
        native = int(value)
        if native <= NATIVE_RANGES["lsf"].high:
            level = from_native(native, "lsf", b.band)
            b.set("spec.schedule.priority", level, occ)
            if to_native(level, "lsf", b.band) != native:
                _ext(b, "priority", native, occ)
        else:  # above the default MAX_USER_PRIORITY (100): only the site knows its range
            _ext(b, "priority", native, occ)
    elif name == "H":
        b.set("spec.schedule.hold", True, occ)
    elif name in ("b", "t"):
        _clock(name, occ, b)
    elif name == "W":
        mins, host = minutes(value, occ, reporter)
        b.set("spec.schedule.walltime", duration(mins * 60, occ, reporter), occ)
        if host:
            _ext(b, "run_limit", value, occ)
    elif name == "c":  # CPU time, not CPUs and not walltime (pitfall 16)
        mins, host = minutes(value, occ, reporter)
        if host:
            s.other["c"] = value
        else:
            _ext(b, "cpu_time_limit", duration(mins * 60, occ, reporter), occ)
    elif name == "n":
        tree = _tree("slots", value, occ, reporter, "slot count", "4 or 4,8")
        nums = [whole(str(t), occ, reporter) for t in tree.children]
        if nums[0] < 1 or (len(nums) > 1 and nums[1] < nums[0]):
            raise _invalid(reporter, occ, f"`-n {value}`: need 1 ≤ MIN ≤ MAX", "write `-n 4,8`")
        s.slots = (nums[0], occ)
        if len(nums) > 1:
            _ext(b, "max_tasks", nums[1], occ)
    elif name == "nnodes":
        if not is_digits(value) or whole(value, occ, reporter) < 1:
            raise _invalid(
                reporter, occ, f"`-nnodes` needs a node count, not `{value}`", "write `-nnodes 2`"
            )
        b.set("spec.resources.nodes", int(value), occ)
        _ext(b, "nnodes", True, occ)
    elif name == "M":
        n_bytes, hard = lsf_bytes(value, occ, s, "memory limit")
        _ext(b, "mem_limit", Size.from_bytes(n_bytes), occ)
        s.mem_limit = (n_bytes, occ)
        if hard:
            _ext(b, "mem_limit_hard", True, occ)
    elif name == "S":
        n_bytes, _ = lsf_bytes(value, occ, s, "stack limit")
        _ext(b, "stack_limit", Size.from_bytes(n_bytes), occ)
    elif name == "T":
        if not is_digits(value) or whole(value, occ, reporter) < 1:
            raise _invalid(
                reporter, occ, f"`-T` needs a thread count, not `{value}`", "write `-T 8`"
            )
        _ext(b, "thread_limit", int(value), occ)
    elif name == "gpu":
        _gpu(occ, b)
    elif name == "x":
        b.set("spec.placement.exclusive", True, occ)
    elif name == "m":
        _ext(b, "hosts", value, occ)
    elif name == "U":
        b.set("spec.schedule.reservation", value, occ)
    elif name == "w":
        _depend(occ, b)
    elif name in ("o", "oo", "e", "eo"):
        s.streams[name[0]] = (name, occ)
    elif name == "i":
        b.set("spec.execution.stdin", value, occ)
        _raw_path(occ, s, INPUT_PATTERN, "spec.execution.stdin")
    elif name == "cwd":
        b.set("spec.execution.workingDir", value, occ)
        _raw_path(occ, s, CWD_PATTERN, "spec.execution.workingDir")
    elif name == "outdir":
        _ext(b, "outdir", value, occ)
    elif name == "u":
        b.set("spec.notifications.email", value, occ)
    elif name in ("B", "N", "Ne"):
        events = b.get("spec.notifications.events") or []
        event = {"B": "begin", "N": "end", "Ne": "fail"}[name]
        order = ["begin", "end", "fail"]
        b.set(
            "spec.notifications.events",
            sorted({*events, event}, key=order.index),
            occ,
        )
    elif name == "env":
        _env(occ, b)
    elif name == "L":
        _ext(b, "login_shell", value, occ)
    elif name == "E":
        _ext(b, "pre_exec", value, occ)
    elif name == "Ep":
        _ext(b, "post_exec", value, occ)
    elif name in ("r", "rn"):
        b.set("spec.lifecycle.requeueOnFailure", name == "r", occ)
    elif name == "ar":
        _ext(b, "autoresizable", True, occ)
    elif name == "alloc_flags":
        _ext(b, "alloc_flags", value, occ)
    else:  # PASSED and anything else in the option table: kept as written
        s.other[name] = value if occ.value is not None else ""
        s.other_occ = s.other_occ or occ


def _raw_path(occ: Occurrence, s: _State, pattern: re.Pattern[str], field: str) -> None:
    """`-i in.%J`, `-cwd /scratch/%U/%J`: LSF fills the patterns in, but the SPLAT field is a
    literal path. The option is kept as written (`extensions.lsf.options`), and a W301 says
    that other schedulers get the text as it stands."""
    value = occ.value or ""
    found = list(dict.fromkeys(m.group() for m in pattern.finditer(value)))
    if not found:
        return
    s.other[occ.name] = value
    s.other_occ = s.other_occ or occ
    shown = ", ".join(f"`{p}`" for p in found)
    s.b.reporter.report(
        "W301",
        f"LSF fills in {shown} in `-{occ.name}`; `{field}` is a literal path",
        occ.value_span or occ.span,
        field=field,
        notes=(
            "SPLAT has no pattern for this field (and no variable at all for `%U`, `%G`, `%P`, "
            "`%H`): other schedulers get the text as written",
            "the option is kept as written in `extensions.lsf.options` for LSF",
        ),
        help="write the path without patterns if the job runs elsewhere",
    )


def _name(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    reporter = b.reporter
    if not value or "\n" in value:
        raise _invalid(reporter, occ, "`-J` needs a job name", "write `-J myjob`")
    if "[" not in value:
        if len(value) > 4094:
            raise _invalid(reporter, occ, "a job name has at most 4094 characters", "shorten it")
        b.set("metadata.name", value, occ)
        return
    tree = _tree("job_array", value, occ, reporter, "job array", "sweep[1-100:2]%10")
    children = list(tree.children)
    name = (
        str(children.pop(0))
        if children and getattr(children[0], "type", "") == "ARRAY_NAME"
        else ""
    )
    throttle = None
    if children and getattr(children[-1], "type", "") == "INT":
        throttle = whole(str(children.pop()), occ, reporter)
    items = []
    for item in children:
        nums = [whole(str(t), occ, reporter) for t in item.children]
        if nums[0] < 1:
            raise _invalid(
                reporter, occ, f"`{value}`: LSF array indices start at 1", "write e.g. `[1-10]`"
            )
        if len(nums) > 1 and nums[1] < nums[0]:
            raise _invalid(
                reporter, occ, f"`{value}`: a range ends before it starts", "write `[1-10]`"
            )
        items.append("-".join(str(n) for n in nums[:2]) + (f":{nums[2]}" if len(nums) > 2 else ""))
    if throttle is not None and throttle < 1:
        raise _invalid(reporter, occ, f"`{value}`: the limit must be at least 1", "write `%5`")
    spec = ",".join(items) + (f"%{throttle}" if throttle is not None else "")
    try:
        indices = IndexSpec.parse(spec)
    except ValueError:
        raise _invalid(
            reporter, occ, f"`{value}` is not a valid job array", "write `a[1-10]`"
        ) from None
    if name:
        b.set("metadata.name", name, occ)
    b.set("spec.array.indices", indices, occ)


def _clock(letter: str, occ: Occurrence, b: _Builder) -> None:
    """`-b`/`-t` `[[year:][month:]day:]hour:minute`: absolute only with all five fields."""
    value = occ.value or ""
    tree = _tree("clock_time", value, occ, b.reporter, "time", "2026:03:01:08:00")
    nums = [whole(str(t), occ, b.reporter) for t in tree.children]
    if len(nums) > 5:
        raise _invalid(
            b.reporter, occ, f"`{value}` has too many fields", "write `2026:03:01:08:00`"
        )
    if nums[-2] > 23 or nums[-1] > 59 or (len(nums) >= 3 and not 1 <= nums[-3] <= 31):
        raise _invalid(b.reporter, occ, f"`{value}` is not a valid time", "write `hour:minute`")
    path = "spec.schedule.beginAfter" if letter == "b" else "spec.schedule.deadline"
    if len(nums) == 5:
        try:
            when = dt.datetime(nums[0], nums[1], nums[2], nums[3], nums[4])
        except (ValueError, OverflowError):
            raise _invalid(
                b.reporter, occ, f"`{value}` is not a valid date", "write `2026:03:01:08:00`"
            ) from None
        b.set(path, DateTime.parse(when.isoformat()), occ)
    else:  # the next such time from submission: not a fixed date
        _ext(b, "begin" if letter == "b" else "deadline", value, occ)


def _gpu(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    tree = _tree("gpu", value, occ, b.reporter, "GPU requirement", "num=2:mode=exclusive_process")
    _ext(b, "gpu_options", value, occ)
    if tree.data == "gpu_default":
        return
    items = {str(i.children[0]): str(i.children[1]) for i in tree.children}
    if "num" in items:
        num, _, scope = items["num"].partition("/")
        if not is_digits(num) or scope not in ("", "task", "host"):
            raise _invalid(
                b.reporter, occ, f"`num={items['num']}` is not a GPU count", "write `num=2`"
            )
        # `num` is per host unless `/task` (pitfall 20)
        b.set(
            "spec.resources.gpu.count",
            Count.parse(whole(num, occ, b.reporter) if scope == "task" else f"{num}/node"),
            occ,
        )
    if "gmodel" in items:
        b.set("spec.resources.gpu.type", items["gmodel"], occ)
    if "gmem" in items:
        text = items["gmem"]
        digits = text.rstrip("KMGTPkmgtpBb")
        suffix = text[len(digits) :].upper().rstrip("B") or "M"  # gmem defaults to MB
        if not is_digits(digits) or suffix not in UNITS:
            raise _invalid(b.reporter, occ, f"`gmem={text}` is not a size", "write `gmem=16G`")
        b.set(
            "spec.resources.gpu.memory",
            Size.from_bytes(whole(digits, occ, b.reporter) * UNITS[suffix]),
            occ,
        )


def _job_text(ref: Any) -> tuple[str, bool]:
    """A -w job reference: its text and whether it names one whole job (id or plain name).

    A quoted name that the portable value would read as a job id (`done("123")` is the job
    *named* 123) keeps its double quotes, so that no writer turns it into an id."""
    tok = ref.children[0]
    text = str(tok)
    if tok.type == "DQSTRING":
        text = text[1:-1]
        if ID_LIKE.fullmatch(text):
            text = f'"{text}"'
    plain = "[" not in text and "*" not in text and text.strip('"') != ""
    return text, plain


def _depend(occ: Occurrence, b: _Builder) -> None:
    value = occ.value or ""
    tree = _tree(
        "depend", value, occ, b.reporter, "dependency expression", 'done(123) && ended("prep")'
    )
    terms = []
    stack = [tree]
    exact = True
    while stack:
        node = stack.pop()
        if node.data == "dep_and":
            stack.extend(reversed(node.children))
            continue
        terms.append(node)
    deps: list[dict[str, str]] = []
    for term in terms:
        if term.data == "bare_condition":
            text, plain = _job_text(term.children[0])
            deps.append({"scheme": "afterok", "value": text})
            exact = exact and plain
        elif term.data == "call_condition":
            cond = str(term.children[0])
            text, plain = _job_text(term.children[1])
            if cond in SCHEMES and len(term.children) == 2 and plain:
                deps.append({"scheme": SCHEMES[cond], "value": text})
            else:
                exact = False
        else:
            exact = False
    if deps and exact:
        b.set("spec.dependencies", deps, occ)
    else:
        if deps:  # the `&&` terms that are portable; the raw expression decides
            b.set("spec.dependencies", deps, occ)
        _ext(b, "dependency", value, occ)


def _env(occ: Occurrence, b: _Builder) -> None:
    """`-env "all|none|VAR=val, …"`. A list without `all` passes only the listed variables
    (IBM bsub -env; the sheet marks the detail UNVERIFIED), so it reads as
    `inheritFromSubmitter: false`."""
    value = occ.value or ""
    tree = _tree("env", value, occ, b.reporter, "environment list", "all, A=1")
    inherit: bool | None = None
    out: dict[str, str] = {}
    exact = True
    for item in tree.children:
        name = str(item.children[0])
        if item.data == "env_exclude":
            exact = False
        elif len(item.children) == 1 and name in ("all", "none"):
            inherit = name == "all"
        elif len(item.children) == 1:
            exact = False  # a name without a value: the submitter's value
        else:
            parts = item.children[1].children
            text = ""
            for n, t in enumerate(parts):
                piece = str(t)
                if t.type == "SQSTRING":
                    piece = piece[1:-1]  # quoted: exactly as written, spaces included
                elif n == len(parts) - 1:
                    piece = piece.rstrip()  # the white space before the next `,`
                text += piece
            out[name] = text
    if not exact:
        _ext(b, "env", value, occ)
        return
    if inherit is None and out:
        inherit = False  # only the listed variables
    if inherit is not None:
        b.set("spec.execution.environment.inheritFromSubmitter", inherit, occ)
    if out:
        b.set("spec.execution.environment.vars", out, occ)


# ── -R ──────────────────────────────────────────────────────────────────────────────────────


def _resreqs(occs: list[Occurrence], s: _State) -> None:
    b = s.b
    simple: list[tuple[Any, str, Occurrence]] = []
    raw = False
    for occ in occs:
        text = occ.value or ""
        tree = _tree(
            "resreq",
            text,
            occ,
            b.reporter,
            "resource requirement",
            "select[mem>4000] span[ptile=4]",
        )
        if tree.data != "simple":
            raw = True
            continue
        kinds = [c.data.replace("bare_select", "select_sec") for c in tree.children]
        twice = sorted({k for k in kinds if kinds.count(k) > 1})
        if twice:
            raise _invalid(
                b.reporter,
                occ,
                f"`{twice[0].removesuffix('_sec')}` appears twice in one `-R`",
                "write each section once (a bare leading expression is the select section)",
            )
        simple.append((tree, text, occ))
    if raw:  # compound `N*{…}` or alternative `{…} || {…}`: kept whole
        _ext(b, "resreq", [o.value or "" for o in occs], occs[0])
        return
    # each distinct section once: the same section in two `-R` (a script whose own `#BSUB`
    # lines repeat the header's, `rusage[mem=2500]` and `rusage[mem=2500KB]`) means it once
    groups: dict[str, list[tuple[Any, str, Occurrence]]] = {}
    keys: set[tuple[str, Any]] = set()
    for tree, text, occ in simple:
        for section in tree.children:
            kind = section.data.replace("bare_select", "select_sec")
            key = (kind, _section_key(section, text, occ, s))
            if key not in keys:
                keys.add(key)
                groups.setdefault(kind, []).append((section, text, occ))
    if all(len(items) == 1 for items in groups.values()):
        for items in groups.values():
            section, text, occ = items[0]
            _section(section, text, occ, s)
        return
    # one section in several `-R`: LSF merges them. Documented for select (ANDed), order and
    # rusage (merged); UNVERIFIED for span, same, cu and affinity (lsf.md §2.3). The `-R`
    # strings are kept as written for LSF; the portable fields get what the merge says
    # unambiguously, so that other schedulers still see the layout, memory and features.
    _ext(b, "resreq", [o.value or "" for o in occs], occs[0])
    for kind, items in groups.items():
        if kind == "select_sec":
            names: list[str] = []
            for section, _, _ in items:
                found = _feature_names(section.children[0])
                if found is None:
                    break
                names += [n for n in found if n not in names]
            else:
                b.set("spec.placement.constraint", "&".join(names), items[0][2])
        elif kind == "rusage_sec":
            sizes = {n for section, _, _ in items if (n := _rusage_mem(section, s)) is not None}
            single = all(len(section.children) == 1 for section, _, _ in items)
            if single and len(sizes) == 1:
                s.mem = (*sizes.pop(), items[0][2])
        elif kind in ("span_sec", "affinity_sec") and len(items) == 1:
            section, text, occ = items[0]
            _section(section, text, occ, s, portable_only=True)


def _slice(node: Any, text: str) -> str:
    return text[node.meta.start_pos : node.meta.end_pos]


def _sub_span(occ: Occurrence, start: int, end: int) -> Span:
    """The span of ``value[start:end]`` inside the option's value as written (quotes around the
    whole value allowed); the whole value's span when the mapping is not that simple."""
    span = occ.value_span or occ.span
    width = span.end_column - span.column
    shift = {0: 0, 2: 1}.get(width - len(occ.value or ""))
    if span.line != span.end_line or shift is None:
        return span
    return span.shifted(start + shift, end + shift)


def _section_key(section: Any, text: str, occ: Occurrence, s: _State) -> Any:
    """What a section means, to find the same section written twice. Sizes in `rusage` count
    as bytes (and each bare number is reported here, once: W302)."""
    if section.data == "rusage_sec":
        out: list[Any] = []
        for lst in section.children:
            for usage in lst.children:
                for item in usage.children:
                    key, tok = str(item.children[0]), item.children[1]
                    method = str(item.children[2]) if len(item.children) > 2 else None
                    if key == "mem":
                        end = item.children[-1]
                        mem_occ = Occurrence(
                            occ.name,
                            str(tok),
                            occ.span,
                            _sub_span(occ, tok.start_pos or 0, end.end_pos or 0),
                            occ.written,
                        )
                        n_bytes, _ = lsf_bytes(str(tok), mem_occ, s, "memory", report=False)
                        s.mem_values.append((str(tok), mem_occ, method))
                        out.append((key, n_bytes, method))
                    else:
                        out.append((key, str(tok), method))
                out.append(":")
            out.append("||")
        return tuple(out)
    node = section.children[0] if section.data in ("bare_select", "select_sec") else section
    return " ".join(_slice(node, text).split())


def _rusage_mem(section: Any, s: _State) -> tuple[int, str | None] | None:
    """Bytes and reservation method (`task`, `host`, `job`, None) of the `mem=` of a rusage
    section with one usage list (its W302 is reported by ``_finish``); ``None`` without one."""
    mems = [
        i.children
        for lst in section.children[:1]
        for usage in lst.children
        for i in usage.children
        if str(i.children[0]) == "mem"
    ]
    if len(mems) != 1:
        return None
    n_bytes = _quiet_bytes(str(mems[0][1]), s)
    if n_bytes is None:
        return None
    return n_bytes, (str(mems[0][2]) if len(mems[0]) > 2 else None)


def _quiet_bytes(text: str, s: _State) -> int | None:
    digits = text.rstrip("!").rstrip("KMGTPEZkmgtpezBb")
    unit = text.rstrip("!")[len(digits) :].upper()[:1] or s.unit[0]
    try:
        exact = decimal_number(digits) * UNITS[unit]  # a ValueError when too long
    except (ValueError, KeyError, ZeroDivisionError):
        return None
    return int(-(-exact.numerator // exact.denominator))


def _section(
    section: Any, text: str, occ: Occurrence, s: _State, *, portable_only: bool = False
) -> None:
    """One `-R` section. ``portable_only``: the `-R` strings are kept whole, so only the
    portable fields are set (no raw section in `extensions.lsf`)."""
    b = s.b
    kind = section.data

    def ext(key: str, value: Any) -> None:
        if not portable_only:
            _ext(b, key, value, occ)

    if kind in ("bare_select", "select_sec"):
        expr = section.children[0]
        names = _feature_names(expr)
        if names is not None:
            b.set("spec.placement.constraint", "&".join(names), occ)
        else:
            ext("select", " ".join(_slice(expr, text).split()))
    elif kind == "order_sec":
        ext(
            "order_expression",
            ":".join("".join(str(t) for t in k.children) for k in section.children),
        )
    elif kind == "rusage_sec":
        _rusage(section, text, occ, s)
    elif kind == "span_sec":
        items = section.children
        if len(items) == 1 and items[0].data == "span_key" and len(items[0].children) == 2:
            key, val = str(items[0].children[0]), str(items[0].children[1])
            if key == "hosts" and val == "1":
                s.one_host = occ
                return
            if key == "ptile" and is_digits(val) and whole(val, occ, b.reporter) >= 1:
                s.ptile = (int(val), occ)
                return
        inner = " ".join(_slice(section, text).split())
        ext("span", inner[inner.index("[") + 1 : -1].strip())
    elif kind == "same_sec":
        ext("same_resource", [str(t) for t in section.children])
    elif kind == "cu_sec":
        if not portable_only:
            _cu(section, text, occ, b)
    elif kind == "affinity_sec":
        inner = _slice(section, text)
        inner = inner[inner.index("[") + 1 : -1].strip()
        pu = section.children[0]
        if (
            len(section.children) == 1
            and str(pu.children[0]) == "core"
            and len(pu.children) == 2
            and pu.children[1].data == "aff_args"
            and len(pu.children[1].children) == 1
            and pu.children[1].children[0].children[0].type == "INT"
        ):
            n = whole(str(pu.children[1].children[0].children[0]), occ, b.reporter)
            if n >= 1:
                b.set("spec.resources.cpusPerTask", Cpu.parse(n), occ)
                return
        ext("affinity", inner)


def _feature_names(expr: Any) -> list[str] | None:
    """`a && b && c` (plain resource names): a feature constraint; anything else: ``None``."""
    if expr.data == "resource":
        return [str(expr.children[0])]
    if expr.data == "and_expr":
        out: list[str] = []
        for child in expr.children:
            names = _feature_names(child)
            if names is None:
                return None
            out += names
        return out
    return None


def _rusage(section: Any, text: str, occ: Occurrence, s: _State) -> None:
    b = s.b
    raw = " ".join(_slice(section, text).split())
    lists = section.children
    keys = [str(i.children[0]) for lst in lists for usage in lst.children for i in usage.children]
    if len(lists) == 1:
        mem = _rusage_mem(section, s)
        if mem is not None:
            s.mem = (*mem, occ)
    if keys != ["mem"] or len(lists) != 1:
        _ext(b, "rusage_string", raw, occ)


def _cu(section: Any, text: str, occ: Occurrence, b: _Builder) -> None:
    items = {
        str(i.children[0]): (str(i.children[1]) if len(i.children) > 1 else None)
        for i in section.children
    }
    unit: dict[str, Any] = {}
    exact = len(items) == len(section.children)
    for key, val in items.items():
        if key == "type" and val in CU_TYPES:
            unit["type"] = val
        elif (
            key == "maxcus"
            and val is not None
            and is_digits(val)
            and whole(val, occ, b.reporter) >= 1
        ):
            unit["max_units"] = int(val)
        elif key == "excl" and val is None:
            unit["exclusive"] = True
        elif key == "balance" and val is None:
            unit["policy"] = "balance"
        else:
            exact = False
    if exact and unit:
        _ext(b, "compute_unit", unit, occ)
    else:
        inner = _slice(section, text)
        _ext(b, "cu", inner[inner.index("[") + 1 : -1].strip(), occ)


def _transfers(occs: list[Occurrence], s: _State) -> None:
    b = s.b
    inputs: list[dict[str, str]] = []
    outputs: list[dict[str, str]] = []
    exact = True
    for occ in occs:
        tree = _tree(
            "transfer", occ.value or "", occ, b.reporter, "file transfer", "in.dat > in.dat"
        )
        local, op = str(tree.children[0]), str(tree.children[1])
        remote = str(tree.children[2]) if len(tree.children) > 2 else local
        # the same transfer twice (a script's own `#BSUB` lines repeating the header) is one
        if op == ">":
            entry, into = {"src": local, "dst": remote}, inputs
        elif op == "<":
            entry, into = {"src": remote, "dst": local}, outputs
        else:  # `<<` appends; `><`/`<>` copy both ways
            exact = False
            continue
        if entry not in into:
            into.append(entry)
    if not occs:
        return
    if inputs:
        b.set("spec.fileStaging.inputs", inputs, occs[0])
    if outputs:
        b.set("spec.fileStaging.outputs", outputs, occs[0])
    if not exact:
        _ext(b, "files", [o.value or "" for o in occs], occs[0])


# ── what depends on several options ─────────────────────────────────────────────────────────


def _finish(s: _State) -> None:
    b = s.b
    if s.slots is not None:
        tasks, occ = s.slots
        b.set("spec.resources.tasks", tasks, occ)
        if s.ptile is not None:
            # LSF fills hosts `ptile` slots at a time, the last one with the rest: -n 10 with
            # ptile=4 is 4+4+2 slots on 3 hosts
            b.set("spec.resources.nodes", -(-tasks // s.ptile[0]), s.ptile[1])
            b.set("spec.resources.tasksPerNode", s.ptile[0], s.ptile[1])
    elif s.ptile is not None:
        # without `-n` the job has one slot: `tasksPerNode` alone would mean a node of
        # `ptile` tasks in SPLAT, so the section stays LSF's own
        _ext(b, "span", f"ptile={s.ptile[0]}", s.ptile[1])
    if s.one_host is not None:
        b.set("spec.resources.nodes", 1, s.one_host)
    _memory(s)
    _streams(s)
    if s.other and s.other_occ is not None:
        _ext(b, "options", s.other, s.other_occ)


def _memory(s: _State) -> None:
    """`rusage[mem=]` is memory per task, per host or per job: `/task`, `/host`, `/job` when
    written (LSF 10.1.0.9+), else the site's `RESOURCE_RESERVE_PER_TASK` decides, per host by
    default (IBM, "Enabling per-task memory reservation": `bsub -n 4 -R "rusage[mem=500]"`
    reserves 500 MB on each host). One slot, or one slot per host, is the same either way.
    Without a reservation, `-M` (a limit per process, the job's tasks) stands for the memory
    the job needs: `extensions.lsf.memory_from_limit` marks it."""
    b = s.b
    tasks = s.slots[0] if s.slots is not None else 1
    one_per_host = s.ptile is not None and s.ptile[0] == 1
    reserve = s.reserve or "host"
    seen: set[tuple[str, str | None]] = set()
    for text, occ, method in s.mem_values:
        if (text, method) in seen:
            continue
        seen.add((text, method))
        bare = text.rstrip("!").rstrip("KMGTPEZkmgtpezBb") == text.rstrip("!") and not s.unit_given
        by_site = method is None and tasks > 1 and not one_per_host and s.reserve is None
        if by_site:
            what = f"reserved per {reserve} ({tasks} slots)"
            message = (
                f"`mem={text}` has no unit: read as {text} {s.unit}, {what}"
                if bare
                else f"`mem={text}` of {tasks} slots has no `/task` or `/host`: read as {what}"
            )
            sized = text.rstrip("!") + (s.unit if bare else "")
            _site_assumed(
                message,
                occ,
                s,
                unit=bare,
                notes=(
                    "LSF reserves `rusage[mem]` on each host unless lsb.params sets "
                    "`RESOURCE_RESERVE_PER_TASK=y` (then for each task)",
                ),
                help=f"write `mem={sized}/task` or `mem={sized}/host` (LSF 10.1.0.9+), or pass "
                + ("`--lsf-unit` and " if bare else "")
                + "`--lsf-reserve` with the site's settings",
            )
        elif bare:
            _site_assumed(f"`mem={text}` has no unit: read as {s.unit}", occ, s)
    if s.mem is not None:
        n_bytes, method, occ = s.mem
        if method is None:
            method = reserve
        if method == "job" and tasks > 1:
            size = Size.from_bytes(n_bytes, scope="job")
        elif method == "host" and tasks > 1 and not one_per_host:
            size = Size.from_bytes(n_bytes, scope="node")
        else:
            size = Size.from_bytes(n_bytes)
        b.set("spec.resources.memoryPerTask", size, occ)
    elif (
        s.mem_limit is not None and not s.mem_values and b.get("spec.extensions.lsf.resreq") is None
    ):
        n_bytes, occ = s.mem_limit
        b.set("spec.resources.memoryPerTask", Size.from_bytes(n_bytes), occ)
        _ext(b, "memory_from_limit", True, occ)


def _template(occ: Occurrence, s: _State, field: str) -> Template:
    """An `-o`/`-e` file name: `%J` is the job id (the array's, shared by its elements, in an
    array job), `%I` the array index; any other `%` is literal. A directory (a trailing `/`)
    holds LSF's default `<job id>.out` / `.err`."""
    path = occ.value or ""
    if path.endswith("/"):
        path += "%J." + ("out" if field == "stdout" else "err")
    array = s.b.get("spec.array.indices") is not None or "[" in (
        s.name_value or ""
    )  # an array, even a faulty one
    text = path.replace("{", "{{").replace("}", "}}")
    text = text.replace("%J", "{array_job_id}" if array else "{job_id}")
    if "%I" in text and not array:
        s.b.reporter.report(
            "W301",
            f"`%I` in `-{occ.name}` is 0 in a job that is not an array",
            occ.value_span or occ.span,
            field=f"spec.output.{field}",
            notes=("`{array_index}` is written, which other schedulers fill in differently",),
            help="remove `%I`, or make the job an array",
        )
    return Template.parse(text.replace("%I", "{array_index}"))


def _streams(s: _State) -> None:
    b = s.b
    modes = {}
    for letter in ("o", "e"):
        if letter not in s.streams:
            continue
        name, occ = s.streams[letter]
        field = "stdout" if letter == "o" else "stderr"
        b.set(f"spec.output.{field}", _template(occ, s, field), occ)
        modes[letter] = ("truncate" if len(name) == 2 else "append", occ)
    if "o" in s.streams and "e" not in s.streams:
        b.set("spec.output.mergeStderr", True, s.streams["o"][1])  # -o without -e takes both
    first = modes.get("o") or modes.get("e")
    if first is not None:  # `-o`/`-e` append, `-oo`/`-eo` overwrite
        b.set("spec.output.openMode", first[0], first[1])
    if "o" in modes and "e" in modes and modes["o"][0] != modes["e"][0]:
        _ext(b, "error_open_mode", modes["e"][0], modes["e"][1])


__all__ = ["UNITS", "lower", "lsf_bytes", "minutes"]
