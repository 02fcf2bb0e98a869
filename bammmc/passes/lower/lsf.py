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
from fractions import Fraction
from typing import Any, Final

import msgspec

from bammmc.diagnostics.model import Reporter
from bammmc.frontends.lsf import LsfScript, values
from bammmc.frontends.slurm import Occurrence
from bammmc.ir.job import API_VERSION, Job
from bammmc.ir.priority import NATIVE_RANGES, from_native, to_native
from bammmc.ir.sourcemap import SourceMap
from bammmc.ir.values import Count, Cpu, DateTime, Duration, IndexSpec, Size, Template
from bammmc.passes.lower.slurm import _Builder, _keep_values

#: LSF size units (LSF_UNIT_FOR_LIMITS): powers of 1024, `K` and `KB` alike
UNITS: Final = {u: 1024 ** (i + 1) for i, u in enumerate("KMGTPEZ")}
SITE_UNITS: Final = ("KB", "MB", "GB", "TB", "PB", "EB")
#: -w conditions that are a portable dependency scheme
SCHEMES: Final = {"done": "afterok", "exit": "afternotok", "ended": "afterany", "started": "after"}
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


class Invalid(Exception):
    pass


def lower(script: LsfScript, reporter: Reporter, unit: str = "KB") -> tuple[Job | None, SourceMap]:
    """Lower the options; ``unit`` is the site's `LSF_UNIT_FOR_LIMITS` for bare numbers."""
    source_map = SourceMap()
    errors_before = sum(d.is_error for d in reporter.diagnostics)
    b = _Builder(reporter, "", source_map)
    b.data = {"apiVersion": API_VERSION, "kind": "Job"}
    last: dict[str, Occurrence] = {}
    repeated: dict[str, list[Occurrence]] = {"R": [], "f": []}
    for occ in script.options:
        if occ.name in repeated:
            repeated[occ.name].append(occ)
        else:
            last[occ.name] = occ  # within the script, the last occurrence wins
    state = _State(b, unit.upper())
    if "nnodes" in last and "n" in last:
        reporter.report(
            "E135",
            "`-nnodes` and `-n` cannot be combined",
            last["n"].span,
            notes=(
                "CSM clusters allocate whole nodes with `-nnodes` and refuse `-n` (pitfall 22)",
            ),
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

    def __init__(self, b: _Builder, unit: str) -> None:
        self.b = b
        self.unit = unit
        self.other: dict[str, str] = {}
        self.other_occ: Occurrence | None = None
        self.slots: tuple[int, Occurrence] | None = None
        self.ptile: tuple[int, Occurrence] | None = None
        self.one_host: Occurrence | None = None
        self.streams: dict[str, tuple[str, Occurrence]] = {}


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


def lsf_bytes(text: str, occ: Occurrence, state: _State, what: str) -> tuple[int, bool]:
    """Bytes of an LSF size (`N[unit][!]`) and whether it is hard (`!`); a bare number is in
    the site unit, said by a W302."""
    tree = _tree("lsf_size", text, occ, state.b.reporter, "size", "8GB")
    number = Fraction(str(tree.children[0]))
    unit = None
    hard = False
    for tok in tree.children[1:]:
        if tok.type == "SIZE_UNIT":
            unit = str(tok).upper()[0]
        elif tok.type == "HARD":
            hard = True
    if unit is None:
        unit = state.unit[0]
        state.b.reporter.report(
            "W302",
            f"`{text}` has no unit: read as {state.unit} ({what})",
            occ.value_span or occ.span,
            notes=(
                "LSF reads bare numbers in the unit of `LSF_UNIT_FOR_LIMITS` in lsf.conf "
                "(KB unless the site sets it)",
            ),
            help="write the unit (`8GB`), or pass `--lsf-unit MB` if the site uses MB",
        )
    exact = number * UNITS[unit]
    return -(-exact.numerator // exact.denominator), hard


def minutes(text: str, occ: Occurrence, reporter: Reporter) -> tuple[int, bool]:
    """Minutes of `[hour:]minute[/host]` (`1:30` is ninety minutes) and whether a host part
    is present."""
    tree = _tree("run_limit", text, occ, reporter, "time limit", "1:30")
    nums = [int(str(t)) for t in tree.children if t.type == "INT"]
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
        if not value.isdigit() or int(value) < 1:
            raise _invalid(
                reporter, occ, f"`-sp` needs a positive integer, not `{value}`", "write `-sp 50`"
            )
        native = int(value)
        if native <= NATIVE_RANGES["lsf"].high:
            band = from_native(native, "lsf")
            b.set("spec.schedule.priority", band, occ)
            if to_native(band, "lsf") != native:
                _ext(b, "priority", native, occ)
        else:  # above the default MAX_USER_PRIORITY (100): only the site knows its range
            _ext(b, "priority", native, occ)
    elif name == "H":
        b.set("spec.schedule.hold", True, occ)
    elif name in ("b", "t"):
        _clock(name, occ, b)
    elif name == "W":
        mins, host = minutes(value, occ, reporter)
        b.set("spec.schedule.walltime", Duration.from_seconds(mins * 60), occ)
        if host:
            _ext(b, "run_limit", value, occ)
    elif name == "c":  # CPU time, not CPUs and not walltime (pitfall 16)
        mins, host = minutes(value, occ, reporter)
        if host:
            s.other["c"] = value
        else:
            _ext(b, "cpu_time_limit", Duration.from_seconds(mins * 60), occ)
    elif name == "n":
        tree = _tree("slots", value, occ, reporter, "slot count", "4 or 4,8")
        nums = [int(str(t)) for t in tree.children]
        if nums[0] < 1 or (len(nums) > 1 and nums[1] < nums[0]):
            raise _invalid(reporter, occ, f"`-n {value}`: need 1 ≤ MIN ≤ MAX", "write `-n 4,8`")
        s.slots = (nums[0], occ)
        if len(nums) > 1:
            _ext(b, "max_tasks", nums[1], occ)
    elif name == "nnodes":
        if not value.isdigit() or int(value) < 1:
            raise _invalid(
                reporter, occ, f"`-nnodes` needs a node count, not `{value}`", "write `-nnodes 2`"
            )
        b.set("spec.resources.nodes", int(value), occ)
        _ext(b, "nnodes", True, occ)
    elif name == "M":
        n_bytes, hard = lsf_bytes(value, occ, s, "memory limit")
        _ext(b, "mem_limit", Size.from_bytes(n_bytes), occ)
        if hard:
            _ext(b, "mem_limit_hard", True, occ)
    elif name == "S":
        n_bytes, _ = lsf_bytes(value, occ, s, "stack limit")
        _ext(b, "stack_limit", Size.from_bytes(n_bytes), occ)
    elif name == "T":
        if not value.isdigit() or int(value) < 1:
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
    elif name == "cwd":
        b.set("spec.execution.workingDir", value, occ)
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
        throttle = int(str(children.pop()))
    items = []
    for item in children:
        nums = [int(str(t)) for t in item.children]
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
    nums = [int(str(t)) for t in tree.children]
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
        except ValueError:
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
        if not num.isdigit() or scope not in ("", "task", "host"):
            raise _invalid(
                b.reporter, occ, f"`num={items['num']}` is not a GPU count", "write `num=2`"
            )
        # `num` is per host unless `/task` (pitfall 20)
        b.set(
            "spec.resources.gpu.count",
            Count.parse(int(num) if scope == "task" else f"{num}/node"),
            occ,
        )
    if "gmodel" in items:
        b.set("spec.resources.gpu.type", items["gmodel"], occ)
    if "gmem" in items:
        text = items["gmem"]
        digits = text.rstrip("KMGTPkmgtpBb")
        suffix = text[len(digits) :].upper().rstrip("B") or "M"  # gmem defaults to MB
        if not digits.isdigit() or suffix not in UNITS:
            raise _invalid(b.reporter, occ, f"`gmem={text}` is not a size", "write `gmem=16G`")
        b.set("spec.resources.gpu.memory", Size.from_bytes(int(digits) * UNITS[suffix]), occ)


def _job_text(ref: Any) -> tuple[str, bool]:
    """A -w job reference: its text and whether it names one whole job (id or plain name)."""
    tok = ref.children[0]
    text = str(tok)
    if tok.type == "DQSTRING":
        text = text[1:-1]
    plain = "[" not in text and "*" not in text and bool(text)
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
            text = "".join(
                str(t)[1:-1] if t.type == "SQSTRING" else str(t) for t in item.children[1].children
            )
            out[name] = text.strip()
    if not exact:
        _ext(b, "env", value, occ)
        return
    if inherit is not None:
        b.set("spec.execution.environment.inheritFromSubmitter", inherit, occ)
    if out:
        b.set("spec.execution.environment.vars", out, occ)


# ── -R ──────────────────────────────────────────────────────────────────────────────────────


def _resreqs(occs: list[Occurrence], s: _State) -> None:
    b = s.b
    seen: dict[str, int] = {}
    simple: list[tuple[Any, Occurrence]] = []
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
        for kind in kinds:
            seen[kind] = seen.get(kind, 0) + 1
        simple.append((tree, occ))
    if raw or any(n > 1 for n in seen.values()):
        # compound/alternative, or one section in several -R: kept whole (merge rules for
        # span/same/cu/affinity across -R are unverified, lsf.md §2.3)
        _ext(b, "resreq", [o.value or "" for o in occs], occs[0])
        return
    for tree, occ in simple:
        text = occ.value or ""
        for section in tree.children:
            _section(section, text, occ, s)


def _slice(node: Any, text: str) -> str:
    return text[node.meta.start_pos : node.meta.end_pos]


def _section(section: Any, text: str, occ: Occurrence, s: _State) -> None:
    b = s.b
    kind = section.data
    if kind in ("bare_select", "select_sec"):
        expr = section.children[0]
        names = _feature_names(expr)
        if names is not None:
            b.set("spec.placement.constraint", "&".join(names), occ)
        else:
            _ext(b, "select", " ".join(_slice(expr, text).split()), occ)
    elif kind == "order_sec":
        _ext(
            b,
            "order_expression",
            ":".join("".join(str(t) for t in k.children) for k in section.children),
            occ,
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
            if key == "ptile" and val.isdigit() and int(val) >= 1:
                s.ptile = (int(val), occ)
                return
        inner = " ".join(_slice(section, text).split())
        _ext(b, "span", inner[inner.index("[") + 1 : -1].strip(), occ)
    elif kind == "same_sec":
        _ext(b, "same_resource", [str(t) for t in section.children], occ)
    elif kind == "cu_sec":
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
            n = int(str(pu.children[1].children[0].children[0]))
            if n >= 1:
                b.set("spec.resources.cpusPerTask", Cpu.parse(n), occ)
                return
        _ext(b, "affinity", inner, occ)


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
    items = [
        (str(i.children[0]), str(i.children[1]))
        for lst in lists
        for usage in lst.children
        for i in usage.children
    ]
    keys = [k for k, _ in items]
    mem = [v for k, v in items if k == "mem"]
    if len(lists) == 1 and len(mem) == 1:
        value = mem[0]
        mem_occ = Occurrence(occ.name, value, occ.span, occ.value_span, occ.written)
        n_bytes, _ = lsf_bytes(value, mem_occ, s, "memory reservation per slot")
        b.set("spec.resources.memoryPerTask", Size.from_bytes(n_bytes), occ)
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
        elif key == "maxcus" and val is not None and val.isdigit() and int(val) >= 1:
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
        if op == ">":
            inputs.append({"src": local, "dst": remote})
        elif op == "<":
            outputs.append({"src": remote, "dst": local})
        else:  # `<<` appends; `><`/`<>` copy both ways
            exact = False
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
        if s.ptile is not None and tasks % s.ptile[0] == 0:
            b.set("spec.resources.nodes", tasks // s.ptile[0], s.ptile[1])
    if s.ptile is not None:
        b.set("spec.resources.tasksPerNode", s.ptile[0], s.ptile[1])
    if s.one_host is not None:
        b.set("spec.resources.nodes", 1, s.one_host)
    _streams(s)
    if s.other and s.other_occ is not None:
        _ext(b, "options", s.other, s.other_occ)


def _template(path: str) -> Template:
    text = path.replace("{", "{{").replace("}", "}}")
    return Template.parse(text.replace("%J", "{job_id}").replace("%I", "{array_index}"))


def _streams(s: _State) -> None:
    b = s.b
    modes = {}
    for letter in ("o", "e"):
        if letter not in s.streams:
            continue
        name, occ = s.streams[letter]
        field = "stdout" if letter == "o" else "stderr"
        b.set(f"spec.output.{field}", _template(occ.value or ""), occ)
        modes[letter] = ("truncate" if len(name) == 2 else "append", occ)
    if "o" in s.streams and "e" not in s.streams:
        b.set("spec.output.mergeStderr", True, s.streams["o"][1])  # -o without -e takes both
    first = modes.get("o") or modes.get("e")
    if first is not None:  # `-o`/`-e` append, `-oo`/`-eo` overwrite
        b.set("spec.output.openMode", first[0], first[1])
    if "o" in modes and "e" in modes and modes["o"][0] != modes["e"][0]:
        _ext(b, "error_open_mode", modes["e"][0], modes["e"][1])


__all__ = ["UNITS", "lower", "lsf_bytes", "minutes"]
