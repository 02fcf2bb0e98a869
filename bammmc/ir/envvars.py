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
    },
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
) -> str:
    """`export FOREIGN="${OWN}"` lines for the other schedulers' variables the body uses.
    A variable defined from the target's own is ``noted`` (N003: the same value), one built
    from an expression ``approximated``, and one with no equivalent too (it is empty there; the
    script itself is written whole).

    ``derived`` holds the writer's own expressions for concepts that depend on the job
    (concept -> (shell expression, what it gives)); they win over the table's. A concept in
    ``same`` is the very value there (flux batch's `$PWD` at the start is the submit
    directory): noted, not approximated. ``shell`` is the job's shell or `#!` line
    (:func:`job_shell`): a C shell gets `setenv` lines, and no definition that needs `$(…)`."""
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
    used = {ref.name for ref in expansions(body, "csh" if csh else None)}
    lines: list[str] = []
    done: set[str] = set()
    for concept, names in VARIABLES.items():
        own = names.get(target)
        for scheduler, name in names.items():
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
    if not lines:
        return ""
    return MARKER + "\n".join(dict.fromkeys(lines)) + "\n" + END_MARKER


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
