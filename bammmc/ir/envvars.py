"""Scheduler environment variables in a script body, across schedulers.

A body written for PBS says `cd $PBS_O_WORKDIR` and `$PBS_ARRAY_INDEX`; moved to Slurm unchanged
it would `cd` to the home directory and every array element would see an empty index. The body
is kept byte for byte (DESIGN.md), so a backend instead defines the foreign variables it uses
from its own, in a short block after the directives, and reports each definition (W301), or a
W201 where the target has no equivalent.

The table maps one concept to each scheduler's variable (shared/docs/formats/*.md, "environment
variables" sections; SPLAT's normalized `BAMMM_ARRAY_INDEX`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import Any, Final

from bammmc.diagnostics.model import Span

#: concept -> {scheduler: variable}
VARIABLES: Final[dict[str, dict[str, str]]] = {
    "job_id": {
        "slurm": "SLURM_JOB_ID",
        "splat": "BAMMM_JOB_ID",
        "pbs": "PBS_JOBID",
        "torque": "PBS_JOBID",
        "sge": "JOB_ID",
        "lsf": "LSB_JOBID",
        "flux-batch": "FLUX_JOB_ID",
        "flux": "FLUX_JOB_ID",
    },
    "job_name": {
        "slurm": "SLURM_JOB_NAME",
        "pbs": "PBS_JOBNAME",
        "torque": "PBS_JOBNAME",
        "sge": "JOB_NAME",
        "lsf": "LSB_JOBNAME",
    },
    "array_index": {
        "slurm": "SLURM_ARRAY_TASK_ID",
        "pbs": "PBS_ARRAY_INDEX",
        "torque": "PBS_ARRAYID",
        "splat": "BAMMM_ARRAY_INDEX",
        "sge": "SGE_TASK_ID",
        "lsf": "LSB_JOBINDEX",
        # set only under `flux submit --cc` (flux.md §9; the SPLAT table's array index)
        "flux-batch": "FLUX_JOB_CC",
        "flux": "FLUX_JOB_CC",
    },
    "array_job_id": {"slurm": "SLURM_ARRAY_JOB_ID", "pbs": "PBS_ARRAY_ID"},
    "submit_dir": {
        "slurm": "SLURM_SUBMIT_DIR",
        "pbs": "PBS_O_WORKDIR",
        "torque": "PBS_O_WORKDIR",
        "sge": "SGE_O_WORKDIR",
        "lsf": "LS_SUBCWD",
    },
    "submit_host": {"slurm": "SLURM_SUBMIT_HOST", "pbs": "PBS_O_HOST", "torque": "PBS_O_HOST"},
    "queue": {
        "slurm": "SLURM_JOB_PARTITION",
        "pbs": "PBS_QUEUE",
        "torque": "PBS_QUEUE",
        "sge": "QUEUE",
        "lsf": "LSB_QUEUE",
    },
    # LSF's host file has one line per slot, as PBS's has one per MPI rank
    "nodefile": {"pbs": "PBS_NODEFILE", "torque": "PBS_NODEFILE", "lsf": "LSB_DJOB_HOSTFILE"},
    # Grid Engine's host file has `host slots queue range` lines, not one host per line
    "pe_hostfile": {"sge": "PE_HOSTFILE"},
    "ntasks": {
        "slurm": "SLURM_NTASKS",
        "torque": "PBS_NP",
        "lsf": "LSB_DJOB_NUMPROC",
        "flux-batch": "FLUX_JOB_SIZE",
        "flux": "FLUX_JOB_SIZE",
    },
    # LSF's host lists: one host name per slot (`LSB_HOSTS`), `host slots` pairs
    # (`LSB_MCPU_HOSTS`), and `-n MIN,MAX`'s maximum (`LSB_MAX_NUM_PROCESSORS`, the slot count
    # of a fixed `-n`); other schedulers have no such variable, so a body using them elsewhere
    # gets a W201
    "hosts": {"lsf": "LSB_HOSTS"},
    "mcpu_hosts": {"lsf": "LSB_MCPU_HOSTS"},
    "max_slots": {"lsf": "LSB_MAX_NUM_PROCESSORS"},
    # Grid Engine's slots: the tasks of an MPI-style PE, the CPUs of a thread PE (docs/sge.md)
    "nslots": {"sge": "NSLOTS"},
    "num_nodes": {
        "slurm": "SLURM_JOB_NUM_NODES",
        "torque": "PBS_NUM_NODES",
        "sge": "NHOSTS",
        "flux-batch": "FLUX_JOB_NNODES",
        "flux": "FLUX_JOB_NNODES",
    },
    # Flux's other job variables (flux.md §9): no other scheduler in the table has them
    "job_tmpdir": {"flux-batch": "FLUX_JOB_TMPDIR", "flux": "FLUX_JOB_TMPDIR"},
    "task_rank": {"flux-batch": "FLUX_TASK_RANK", "flux": "FLUX_TASK_RANK"},
    "task_local_id": {"flux-batch": "FLUX_TASK_LOCAL_ID", "flux": "FLUX_TASK_LOCAL_ID"},
    "flux_uri": {"flux-batch": "FLUX_URI", "flux": "FLUX_URI"},
}


def job_ad(attribute: str) -> str:
    """A shell expression for an attribute of an HTCondor job's own ClassAd: HTCondor sets no
    job-id variables, but gives the job its ad as a file of `Name = value` lines at
    `$_CONDOR_JOB_AD` (`ClusterId`, `ProcId`; `Iwd`, the submit side's directory, is a quoted
    string).

    >>> print(job_ad("ProcId"))
    $(sed -n 's/^ProcId = //p' "$_CONDOR_JOB_AD")
    """
    program = f"s/^{attribute} = //p"
    if attribute == "Iwd":
        program = 's/^Iwd = "\\(.*\\)"$/\\1/p'
    return f"$(sed -n '{program}' \"$_CONDOR_JOB_AD\")"


#: How a target builds a concept that it has no plain variable for (a shell expression). A
#: writer may pass its own, job-specific expressions to `compatibility_block` (HTCondor's array
#: index depends on the `queue` statement, its job name on the job).
DERIVED: Final[dict[str, dict[str, str]]] = {
    "htcondor": {
        "job_id": job_ad("ClusterId"),
        "array_job_id": job_ad("ClusterId"),
        "array_index": job_ad("ProcId"),
        "submit_dir": job_ad("Iwd"),
        # one machine (a vanilla universe job): one line
        "nodefile": '$(f=$(mktemp); hostname > "$f"; echo "$f")',
        "num_nodes": "1",
    },
    # the distinct hosts of the host lists
    "pbs": {"num_nodes": '$(sort -u "$PBS_NODEFILE" | wc -l)'},
    "lsf": {"num_nodes": "$(echo $LSB_HOSTS | tr ' ' '\\n' | sort -u | wc -l)"},
    "slurm": {
        # one line per allocated node; PBS lists one line per MPI rank (mpiprocs)
        "nodefile": (
            '$(f=$(mktemp); scontrol show hostnames "$SLURM_JOB_NODELIST" > "$f"; echo "$f")'
        ),
        # slots = tasks × CPUs per task, whichever of the two the PE counted
        "nslots": "$(( ${SLURM_NTASKS:-1} * ${SLURM_CPUS_PER_TASK:-1} ))",
    },
}

#: What a derived definition gives, when it is not the node file's "one line per node".
DERIVED_NOTES: Final[dict[str, str]] = {
    "nslots": "tasks × CPUs per task",
    "num_nodes": "the distinct hosts of the job",
    "job_id": "read from the job ad (`ClusterId`)",
    "array_job_id": "read from the job ad (`ClusterId`)",
    "array_index": "read from the job ad (`ProcId`, 0-based)",
    "submit_dir": "the submit side's directory, from the job ad (`Iwd`); the job itself runs "
    "in a scratch directory unless the file system is shared",
}

MARKER: Final = "# bammmc: variables of the original scheduler, defined for this one\n"
END_MARKER: Final = "# bammmc: end of variables\n"


def references(text: str, file: str | None = None) -> dict[str, Span]:
    """Where the script in ``text`` first expands each variable, as its shell reads it
    (:mod:`bammmc.ir.shell`: not in comments, single quotes or quoted here-documents).

    >>> spans = references("#!/bin/bash\\n#PBS -N x\\ncd $PBS_O_WORKDIR # not '$PBS_JOBID'\\n")
    >>> s = spans["PBS_O_WORKDIR"]; (s.line, s.column, s.end_column), list(spans)
    ((3, 4, 18), ['PBS_O_WORKDIR'])
    """
    from bammmc.ir.shell import references as expansions

    found: dict[str, Span] = {}
    for ref in expansions(text):
        if ref.name not in found:
            found[ref.name] = Span(
                file=file,
                line=ref.line,
                column=ref.column,
                end_line=ref.line,
                end_column=ref.column + ref.end - ref.start,
                start=ref.start,
                end=ref.end,
            )
    return found


#: a diagnostic about one variable of the script names it first: "`$NAME` ..."
_NAMED = re.compile(r"`\$([A-Z_][A-Z0-9_]*)`")


def reference_span(message: str, spans: dict[str, Span]) -> Span | None:
    """The first use in the script of the variable a script diagnostic's message names."""
    match = _NAMED.match(message.split(": ", 1)[-1]) or _NAMED.search(message)
    return spans.get(match.group(1)) if match else None


def shift_array_index(block: str, target: str, shift: int) -> str:
    """The compatibility block with the other schedulers' array index variables lowered by
    ``shift``: the writer moved the indices up so that the lowest is the target's first
    (Grid Engine and LSF count from 1), so each element still sees the index it had."""
    own = VARIABLES["array_index"][target]
    if not shift or not block:
        return block
    for scheduler, name in VARIABLES["array_index"].items():
        if scheduler != target:
            block = block.replace(
                f'export {name}="${{{own}}}"', f'export {name}="$(({own} - {shift}))"'
            ).replace(_csh_set(name, own), f"if ($?{own}) setenv {name} `expr ${own} - {shift}`")
    return block


def _csh_set(name: str, own: str) -> str:
    """A C shell's `export NAME="${OWN}"`: csh stops at an unset `$OWN` ("Undefined
    variable"), so the definition asks first."""
    return f'if ($?{own}) setenv {name} "${own}"'


#: a rule's answer for a variable its scheduler would not set for the job
UNSET: Final = ""


def static_value(rule: str, spec: Any) -> str | None:
    """The value the rule of :data:`bammmc.facts.variables.STATIC` gives for the job
    (``UNSET`` when its scheduler leaves the variable unset for such a job), or None when the
    job as written does not decide it (the nodes of tasks the scheduler places).

    >>> from bammmc.ir.job import Array, Resources, Spec
    >>> from bammmc.ir.values import Cpu, IndexSpec
    >>> spec = Spec(resources=Resources(tasks=4, cpus_per_task=Cpu.parse(2)),
    ...     array=Array(indices=IndexSpec.parse("1-9:4")))
    >>> [static_value(r, spec) for r in ("ntasks", "cpus_per_task", "tasks_per_node",
    ...     "nodes", "slots", "array_count", "array_max", "sge_step")]
    ['4', '2', None, None, '8', '3', '9', '4']
    """
    from bammmc.ir.job import Resources

    res = (spec.resources if spec is not None else None) or Resources()
    tasks = res.task_count
    cpus = res.cpus_per_task
    whole_cpus = int(cpus.cores) if cpus is not None and cpus.whole else 1
    arr = spec.array if spec is not None else None
    indices = sorted(arr.indices) if arr is not None and arr.indices is not None else []
    ranges: tuple[tuple[int, int, int], ...] = ()
    if arr is not None and arr.indices is not None:
        ranges = arr.indices.ranges
    one_range = ranges[0] if len(ranges) == 1 else None
    schedule = spec.schedule if spec is not None else None
    if rule == "ntasks":
        return str(tasks)
    if rule == "cpus_per_task":
        return str(whole_cpus) if cpus is None or cpus.whole else None
    if rule == "tasks_per_node":
        if res.tasks_per_node is not None:
            return str(res.tasks_per_node)
        if res.nodes is not None and tasks % res.nodes == 0:
            return str(tasks // res.nodes)
        return "1" if tasks == 1 else None
    if rule == "nodes":
        if res.nodes is not None:
            return str(res.nodes)
        return "1" if tasks == 1 or res.tasks_per_node is not None else None
    if rule == "slots":
        return str(tasks * whole_cpus) if cpus is None or cpus.whole else None
    if rule == "slots_per_node":
        nodes = res.nodes or 1
        if tasks % nodes or (cpus is not None and not cpus.whole):
            return None
        return str(tasks // nodes * whole_cpus)
    if rule == "chunk_cpus":
        per_node = res.tasks_per_node or (-(-tasks // res.nodes) if res.nodes else 1)
        return str(per_node * whole_cpus) if cpus is None or cpus.whole else None
    if rule.startswith("array_"):
        if not indices:
            return UNSET
        if rule == "array_count":
            return str(len(set(indices)))
        if rule == "array_min":
            return str(indices[0])
        if rule == "array_max":
            return str(indices[-1])
        # a list of indices (`1,3,8`) has step 1: the Slurm oracle's SLURM_ARRAY_TASK_STEP
        return str(one_range[2]) if one_range is not None else "1"
    if rule.startswith("sge_"):
        if not indices:
            return "undefined"
        if one_range is None:
            return None
        first, last, step = one_range
        last = first + (last - first) // step * step
        return str({"sge_first": first, "sge_last": last, "sge_step": step}[rule])
    if rule == "zero":
        return "0"
    if rule == "walltime_seconds":
        wall = schedule.walltime if schedule is not None else None
        return str(wall.seconds) if wall is not None and wall.seconds is not None else UNSET
    if rule in ("account", "qos", "reservation"):
        value = getattr(schedule, rule, None) if schedule is not None else None
        return str(value) if value is not None else UNSET
    raise ValueError(f"no rule {rule!r}")


def job_shell(spec: Any) -> str | None:
    """The shell that runs the job's script: the one it names (`-S`), or its `#!` line."""
    ex = spec.execution if spec is not None else None
    if ex is None:
        return None
    if ex.shell:
        return str(ex.shell)
    script = ex.script or ""
    return script.split("\n", 1)[0] if script.startswith("#!") else None


def compatibility_block(
    body: str,
    target: str,
    approximated: Callable[[str, str], None],
    noted: Callable[[str, str], None],
    derived: dict[str, tuple[str, str]] | None = None,
    same: frozenset[str] = frozenset(),
    shell: str | None = None,
    spec: Any = None,
    arrays: bool = True,
) -> str:
    """`export FOREIGN="${OWN}"` lines for the other schedulers' variables the body uses.
    A variable defined from the target's own is ``noted`` (N003: the same value), one built
    from an expression ``approximated``, and one with no equivalent too (it is empty there; the
    script itself is written whole).

    ``derived`` holds the writer's own expressions for concepts that depend on the job
    (concept -> (shell expression, what it gives)); they win over the table's. A concept in
    ``same`` is the very value there (flux batch's `$PWD` at the start is the submit
    directory): noted, not approximated. ``shell`` is the job's shell or `#!` line
    (:func:`job_shell`): a C shell gets `setenv` lines, and no definition that needs `$(…)`.
    ``spec`` is the job: the values its resources decide (:func:`static_value`); a target that
    writes no array (``arrays``: Flux copies a job with `--cc` at submission) defines no array
    bounds from it."""
    from bammmc.ir.shell import job_runs_csh
    from bammmc.ir.shell import references as expansions

    csh = job_runs_csh(body, shell)
    derived_here = {
        **{
            c: (e, DERIVED_NOTES.get(c, "one line per node, not per task"))
            for c, e in DERIVED.get(target, {}).items()
        },
        **(derived or {}),
    }
    used = dict.fromkeys(ref.name for ref in expansions(body, "csh" if csh else None))
    lines: list[str] = []
    done = _statics(used, target, spec, csh, lines, noted, arrays)
    from bammmc.facts.variables import ALIASES

    for concept, names in VARIABLES.items():
        own = names.get(target)
        pairs = list(names.items())
        pairs += [(s, a) for a, c in ALIASES.items() for s, n in names.items() if n == c]
        for scheduler, name in pairs:
            if scheduler == target or name not in used or name == own or name in done:
                continue
            done.add(name)
            if name in (v for s, v in names.items() if s == target):
                continue
            if own is not None:
                lines.append(_csh_set(name, own) if csh else f'export {name}="${{{own}}}"')
                noted(
                    "spec.execution.script",
                    f"`${name}` is defined from `${own}`",
                )
            elif concept in derived_here and csh and _needs_sh(derived_here[concept][0]):
                approximated(
                    "spec.execution.script",
                    f"`${name}` has no equivalent in a C shell script here (it would be built "
                    f"with a Bourne shell's `$(…)`): it is empty in the converted script",
                )
            elif concept in derived_here and csh:
                expression, note = derived_here[concept]
                lines.append(f'setenv {name} "{expression}"')
                (noted if concept in same else approximated)(
                    "spec.execution.script", f"`${name}` is defined as `{expression}`: {note}"
                )
            elif concept in derived_here:
                expression, note = derived_here[concept]
                lines.append(f'export {name}="{expression}"')
                if concept in same:
                    noted(
                        "spec.execution.script", f"`${name}` is defined as `{expression}`: {note}"
                    )
                else:
                    approximated(
                        "spec.execution.script", f"`${name}` is built for {target}: {note}"
                    )
            else:
                # the script is written whole: only this variable is empty there
                approximated(
                    "spec.execution.script",
                    f"`${name}` has no equivalent here: it is empty in the converted script",
                )
    _the_rest(body, used, done, target, csh, lines, noted, approximated)
    if not lines:
        return ""
    return MARKER + "\n".join(dict.fromkeys(lines)) + "\n" + END_MARKER


def _own(target: str) -> frozenset[str]:
    """The variables the target sets itself: its documented ones and its table entries."""
    from bammmc.facts.variables import DOCUMENTED, FAMILY

    names = {n[target] for n in VARIABLES.values() if target in n}
    return DOCUMENTED.get(FAMILY.get(target, target), frozenset()) | names


def _define(name: str, value: str, csh: bool) -> str:
    if csh:
        return f"setenv {name} {shlex.quote(value)}"
    return f"export {name}={shlex.quote(value)}"


def _statics(
    used: dict[str, None],
    target: str,
    spec: Any,
    csh: bool,
    lines: list[str],
    noted: Callable[[str, str], None],
    arrays: bool,
) -> set[str]:
    """The lines for the foreign variables whose value the job as written decides
    (:data:`bammmc.facts.variables.STATIC`): the names it handled."""
    from bammmc.facts.variables import NAMES, RULES, STATIC

    own = _own(target)
    done: set[str] = set()
    for name in used:
        if name not in STATIC or name in own:
            continue
        scheduler, rule = STATIC[name]
        if not arrays and rule.startswith(("array_", "sge_")):
            continue  # each copy is one job: its bounds are reported, below
        value = static_value(rule, spec)
        if value is None:
            continue  # the allocation decides: the target's own variable, below
        done.add(name)
        if value == UNSET:
            noted(
                "spec.execution.script",
                f"`${name}` stays unset, as {NAMES[scheduler]} leaves it for this job",
            )
            continue
        lines.append(_define(name, value, csh))
        noted("spec.execution.script", f"`${name}` is defined as `{value}`: {RULES[rule]}")
    return done


def _the_rest(
    body: str,
    used: dict[str, None],
    done: set[str],
    target: str,
    csh: bool,
    lines: list[str],
    noted: Callable[[str, str], None],
    approximated: Callable[[str, str], None],
) -> None:
    """The foreign variables no table entry defined: the submit side's (`$PBS_O_HOME` is
    `$HOME`), else reported: a documented variable with no equivalent, or one with a
    scheduler's prefix that it does not document (and the body does not set)."""
    from bammmc.facts.variables import ALIASES, ANYWHERE, COMMON, NAMES, PREFIXES, documented_by
    from bammmc.ir.shell import assigned

    own = _own(target)
    handled = done | {name for names in VARIABLES.values() for name in names.values()}
    handled |= {a for a, c in ALIASES.items() if c in handled}
    own_prefixes = PREFIXES.get(target, ())
    mine: set[str] | None = None
    for name in used:
        if name in handled or name in own or name in COMMON:
            continue
        if name in ANYWHERE and not (csh and _needs_sh(ANYWHERE[name])):
            lines.append(
                f'setenv {name} "{ANYWHERE[name]}"' if csh else f'export {name}="{ANYWHERE[name]}"'
            )
            noted("spec.execution.script", f"`${name}` is defined as `{ANYWHERE[name]}`")
            continue
        owner = documented_by(name)
        if owner is None:
            owner = next(
                (
                    s
                    for s, prefixes in PREFIXES.items()
                    if name.startswith(prefixes) and not name.startswith(own_prefixes)
                ),
                None,
            )
            if owner is None:
                continue
            mine = assigned(body, "csh" if csh else None) if mine is None else mine
            if name in mine:
                continue
            approximated(
                "spec.execution.script",
                f"`${name}` is not a variable {NAMES[owner]} documents for jobs, and nothing "
                "sets it here: it is empty in the converted script unless the environment "
                "sets it",
            )
            continue
        approximated(
            "spec.execution.script",
            f"`${name}` ({NAMES[owner]}'s) has no equivalent here: it is empty in the "
            "converted script",
        )


def _needs_sh(expression: str) -> bool:
    """Whether a definition's expression is Bourne shell only (`$(…)`, `${X:-d}`)."""
    return "$(" in expression or ":-" in expression or "`" in expression


def strip_compatibility_block(body: str) -> str:
    r"""The body without a block an earlier bammmc conversion put at its start, so that
    `X -> Y -> X` gives back the original script.

    >>> block = MARKER + 'export PBS_JOBID="${SLURM_JOB_ID}"\n' + END_MARKER
    >>> strip_compatibility_block(block + "export MINE=1\nrun\n")
    'export MINE=1\nrun\n'
    """
    if not body.startswith(MARKER) or END_MARKER not in body:
        return body
    return body.split(END_MARKER, 1)[1]
