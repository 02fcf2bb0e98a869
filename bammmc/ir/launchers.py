"""Launcher lines of a script body, rewritten for the target scheduler.

A body says `srun -n 8 ./a.out` or `flux run -n 4 ./sim`; moved to Grid Engine unchanged, the
line fails (`srun: command not found`), and moved from Flux to Slurm as a bare `srun` it would
start every task of the job where Flux started one. Each launcher command the shell runs
(:func:`bammmc.ir.shell.commands`: not inside a here-document, a comment or a line the parser
gave up on) is read with its launcher's own option rules (:mod:`bammmc.facts.launchers`) into
a task geometry, and the words before its program are written again as the target's launcher
with that geometry: `srun` on Slurm, `flux run` on Flux, and `mpiexec -n N` elsewhere (the MPI
standard's form, which the MPI's scheduler integration places on the job's slots). The program
and its arguments, and every other line, are kept byte for byte.

What the rewrite leaves out (a binding or placement option) is named in its report; a line it
cannot rewrite exactly (an option of no counterpart, options held in a variable, several
programs) is kept as written and reported with its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bammmc.diagnostics.model import Span
from bammmc.facts.launchers import (
    LAUNCHERS,
    MPI_LAUNCHERS,
    MPIEXEC,
    TARGET_LAUNCHER,
    UNMAPPED,
    Launcher,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from bammmc.ir.shell import Command

#: the field a body's diagnostics are about
SCRIPT = "spec.execution.script"
#: how each target is named in a report
TARGET_NAMES = {
    "slurm": "Slurm",
    "pbs": "PBS",
    "torque": "Torque",
    "sge": "Grid Engine",
    "lsf": "LSF",
    "htcondor": "HTCondor",
    "flux": "Flux",
    "flux-batch": "Flux",
}


@dataclass
class Call:
    """One launcher command as its launcher reads it."""

    launcher: Launcher
    command: Command
    #: geometry kind -> its value as written (`tasks` -> `8`, or `$N`)
    geometry: dict[str, str] = field(default_factory=dict)
    #: the options left out of a rewrite (binding, placement, labels), as written
    hints: list[str] = field(default_factory=list)
    #: why the line cannot be rewritten exactly (None: it can)
    kept: str | None = None
    #: the index in ``command.words`` of the program the launcher starts
    program: int = 0

    @property
    def text(self) -> str:
        """The command's first line as written."""
        return self.command.line_text


#: a launcher report names its line first: "`srun -n 4 ./a` is written …", "`srun …`: …"
_REPORTED = re.compile(r"`([^`]+)`(?: is written `|: [A-Z][^`]* has no `)")


def rewritten(message: str) -> tuple[str, str, str] | None:
    """The line before, the line after and the rest of a rewrite's report, or None for
    another message.

    >>> rewritten("`srun ./a` is written `mpiexec -n 2 ./a`: Grid Engine has no launcher")
    ('srun ./a', 'mpiexec -n 2 ./a', 'Grid Engine has no launcher')
    """
    match = _REWRITTEN.match(message)
    if match is None:
        return None
    return match.group(1), match.group(2), match.group(3).lstrip(":; ")


_REWRITTEN = re.compile(r"`([^`]+)` is written `([^`]+)`(.*)\Z", re.S)


def command_span(message: str, text: str, file: str | None) -> Span | None:
    """Where ``text`` (the file a job was read from) has the launcher line a report of
    :func:`rewrite` names: its first occurrence at the start of a command.

    >>> message = "`srun ./a` is written `mpiexec -n 2 ./a`"
    >>> s = command_span(message, "#!/bin/sh\\n  srun ./a\\n", None)
    >>> (s.line, s.column, s.end_column)
    (2, 3, 11)
    """
    match = _REPORTED.match(message)
    if match is None or not text:
        return None
    line_text = match.group(1)
    at = 0
    while (at := text.find(line_text, at)) >= 0:
        before = text[text.rfind("\n", 0, at) + 1 : at]
        if (
            not before.strip()
            or before.rstrip()[-1:] in (";", "&", "|", "(", "{")
            or (before.split()[-1] in ("then", "do", "else", "time", "exec"))
        ):
            line = text.count("\n", 0, at) + 1
            column = len(before) + 1
            return Span(
                file=file,
                line=line,
                column=column,
                end_line=line,
                end_column=column + len(line_text),
                start=at,
                end=at + len(line_text),
            )
        at += 1
    return None


def read_call(command: Command) -> Call | None:
    """``command`` as a launcher call, or None when it starts no launcher.

    >>> from bammmc.ir.shell import commands
    >>> call = read_call(commands("srun -n4 --cpus-per-task=2 --cpu-bind=cores ./a -n 1\\n")[0])
    >>> call.geometry, call.hints, call.kept, call.command.words[call.program].text
    ({'tasks': '4', 'cpus': '2'}, ['--cpu-bind=cores'], None, './a')
    """
    words = command.words
    launcher = LAUNCHERS.get(words[0].text)
    if launcher is None or tuple(w.text for w in words[: len(launcher.name)]) != launcher.name:
        return None
    call = Call(launcher, command)
    i = len(launcher.name)
    while i < len(words):
        word = words[i]
        text = word.text
        if text.startswith("$"):  # `srun $OPTS ./a`: options the body holds, or the program
            call.kept = f"`{text}` may hold options, which are known only when the job runs"
            return call
        if text == "--":
            i += 1
            break
        if not text.startswith("-") or text == "-":
            break
        begin = i
        option, value, i = _option(launcher, words, i)
        kind = launcher.geometry.get(option)
        if kind is not None and value is not None:
            call.geometry[kind] = value
        elif option in launcher.hints or option in launcher.hint_flags:
            call.hints.append(" ".join(w.text for w in words[begin:i]))
        else:
            call.kept = f"`{text}` has no counterpart"
            return call
    if i >= len(words):
        call.kept = "it starts no program"
        return call
    call.program = i
    if any(w.text == ":" and w.literal for w in words[i:]):
        call.kept = "it starts several programs (`:`)"
    return call


def _option(launcher: Launcher, words: Any, i: int) -> tuple[str, str | None, int]:
    """The option at ``words[i]``, its value (None for a flag) and the index after it."""
    text = words[i].text
    if text.startswith("--") and "=" in text:
        option, _, value = text.partition("=")
        return option, value, i + 1
    if text in launcher.values:
        if i + 1 < len(words):
            return text, words[i + 1].text, i + 2
        return text, None, i + 1
    if launcher.attached and not text.startswith("--") and len(text) > 2:
        if text[:2] in launcher.values:  # `-n4`
            return text[:2], text[2:], i + 1
    return text, None, i + 1


def rewrite(
    body: str,
    target: str,
    spec: Any,
    report: Callable[[str, str, tuple[str, ...]], None],
    *,
    shell: str | None = None,
    enabled: bool = True,
) -> str:
    """``body`` with each launcher line that is not the target's own written as the target's
    launcher. ``report(code, message, notes)`` says what each rewrite did: N003 for the same
    tasks on the target's own launcher, W301 for `mpiexec` or a left-out option, W301 for a
    line kept as written (or, with ``enabled`` False, for each line that would be rewritten).
    ``spec`` gives the job's geometry, which a bare `srun` inherits."""
    from bammmc.ir.shell import commands, job_runs_csh

    if job_runs_csh(body, shell):
        return body
    where = TARGET_NAMES.get(target, target)
    edits: list[tuple[int, int, str]] = []
    found = commands(body)
    asked = _asked_for(found)
    for command in found:
        name = command.words[0].text
        if name in asked:  # `if command -v srun …`: the body runs where srun is missing too
            continue
        if name in UNMAPPED and target not in UNMAPPED[name][0]:
            report(
                "W301",
                f"`{command.line_text}`: {where} has no `{name}`, and the line is kept as "
                f"written: {UNMAPPED[name][1]}, which no launcher there says",
                (),
            )
            continue
        if name in MPI_LAUNCHERS:
            continue
        call = read_call(command)
        if call is None or target in call.launcher.home:
            continue
        launcher = " ".join(call.launcher.name)
        if call.kept is not None:
            theirs = TARGET_LAUNCHER.get(target, MPIEXEC)
            why = f"{call.kept} in `{theirs}`" if call.kept.endswith("counterpart") else call.kept
            report(
                "W301",
                f"`{call.text}`: {where} has no `{launcher}`, and the line is kept as written: "
                f"{why}",
                ("rewrite the line with the target's launcher",),
            )
            continue
        words, left_out = _target_words(call, target, spec)
        start = command.words[0].start
        end = command.words[call.program].start
        after = " ".join(words) + " " if words else ""
        if "\n" in body[start:end]:  # options over continued lines: the program keeps its line
            after = (after + "\\\n" if words else "") + body[body.rfind("\n", 0, end) + 1 : end]
        line_after = (body[:start] + after + body[end:])[start:].split("\n", 1)[0]
        if not enabled:
            report(
                "W301",
                f"`{call.text}`: {where} has no `{launcher}`; the line is kept as written "
                f"(`--no-rewrite-body`)",
                (f"written for {where} it would be `{line_after}`",),
            )
            continue
        edits.append((start, end, after))
        dropped = [*call.hints, *left_out]
        own = TARGET_LAUNCHER.get(target)
        lost = f"; it leaves out {', '.join(f'`{d}`' for d in dropped)}" if dropped else ""
        if not words:
            report(
                "N003", f"`{call.text}` is written `{line_after}`: one task needs no launcher", ()
            )
        elif own is not None and not dropped:
            report("N003", f"`{call.text}` is written `{line_after}`", ())
        elif own is not None:
            report("W301", f"`{call.text}` is written `{line_after}`{lost}", ())
        else:
            report(
                "W301",
                f"`{call.text}` is written `{line_after}`: {where} has no launcher of its "
                f"own{lost}",
                (
                    f"`{MPIEXEC}` of an MPI built with {where} support (Open MPI, MPICH) starts "
                    "the tasks on the job's slots; it must be on the job's PATH",
                ),
            )
    for start, end, after in reversed(edits):
        body = body[:start] + after + body[end:]
    return body


#: commands that tell whether a program is there (`command -v srun`, `which srun`)
_LOOKUPS = frozenset({"command", "which", "type", "hash"})


def _asked_for(found: list[Command]) -> set[str]:
    """The programs the body looks for itself before it runs them: it is written for
    schedulers that have them and for those that do not, and its lines of them are kept."""
    asked: set[str] = set()
    for c in found:
        words = [w.text for w in c.words[1:]]
        if c.name in _LOOKUPS and (c.name != "command" or words[:1] in (["-v"], ["-V"])):
            asked.update(w for w in words if not w.startswith("-"))  # not `command srun ./a`
    return asked


def _target_words(call: Call, target: str, spec: Any) -> tuple[list[str], list[str]]:
    """The target launcher's words for ``call``'s geometry, and what of it they leave out.
    A launcher that starts the job's tasks when bare (`srun`) inherits the job's geometry."""
    given = dict(call.geometry)
    job = _job_geometry(spec) if call.launcher.default == "job" else {}
    if call.launcher.default == "one" and "tasks" not in given and "nodes" in given:
        given["tasks"] = given["nodes"]  # flux-run(1): `-N n` without `-n` is n tasks
    if "tasks" not in given and "per_node" in given and "nodes" in given:
        if given["per_node"].isdigit() and given["nodes"].isdigit():
            given["tasks"] = str(int(given["per_node"]) * int(given["nodes"]))
    own = TARGET_LAUNCHER.get(target)
    if own == "srun":
        # a bare srun takes the job's own geometry: only what the line says is written
        words = ["srun"]
        if "tasks" in given or call.launcher.default == "one":
            words.append(f"-n {given.get('tasks', '1')}")
        words += [f"-N {given['nodes']}"] if "nodes" in given else []
        words += [f"--ntasks-per-node={given['per_node']}"] if "per_node" in given else []
        words += [f"-c {given['cpus']}"] if "cpus" in given else []
        words += [f"--gpus-per-task={given['gpus']}"] if "gpus" in given else []
        return words, []
    tasks = given.get("tasks") or job.get("tasks") or "1"
    if own == "flux run":
        # a bare `flux run` is one task: the whole geometry is written
        words = ["flux run", f"-n {tasks}"]
        # the job's nodes go with the job's tasks: a line's own count may be fewer
        nodes = given.get("nodes") or (job.get("nodes") if "tasks" not in given else None)
        if nodes and nodes.isdigit() and tasks.isdigit() and int(nodes) > int(tasks):
            nodes = None  # srun uses as many of the job's nodes as it has tasks
        words += [f"-N {nodes}"] if nodes else []
        cpus = given.get("cpus") or job.get("cpus")
        words += [f"-c {cpus}"] if cpus else []
        gpus = given.get("gpus") or job.get("gpus")
        words += [f"-g {gpus}"] if gpus else []
        left = [f"{given['per_node']} tasks per node"] if "per_node" in given else []
        return words, left
    if tasks == "1":  # one task: the program itself, on the job's one slot
        return [], []
    left = []
    if "nodes" in given:
        left.append(f"{given['nodes']} nodes")
    if "per_node" in given:
        left.append(f"{given['per_node']} tasks per node")
    if "cpus" in given:
        left.append(f"{given['cpus']} CPUs per task")
    if "gpus" in given:
        left.append(f"{given['gpus']} GPUs per task")
    return [MPIEXEC, f"-n {tasks}"], left


def _job_geometry(spec: Any) -> dict[str, str]:
    """What a bare `srun` inherits from its job: the tasks, nodes, CPUs and GPUs per task."""
    res = spec.resources if spec is not None else None
    if res is None:
        return {"tasks": "1"}
    out = {"tasks": str(res.task_count)}
    if res.nodes and res.nodes > 1:
        out["nodes"] = str(res.nodes)
    cpus = res.cpus_per_task
    if cpus is not None and cpus.whole and cpus.cores > 1:
        out["cpus"] = str(cpus.cores)
    count = res.gpu.count if res.gpu is not None else None
    if count is not None and count.scope in (None, "task") and count.amount.denominator == 1:
        out["gpus"] = str(count.amount)  # GPUs per task (SPLAT: a count without a scope)
    return out
