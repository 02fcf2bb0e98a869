"""Running a job script inside a container image on a batch scheduler (Apptainer/Singularity).

Shared by the script-based backends (Slurm, PBS, Torque, Flux batch): the body is written to a
file in /tmp, which both runtimes bind into the container by default, and run there with the
script's shell. :func:`script_body` builds the body of Slurm's and Flux's scripts.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from bammmc.diagnostics.model import Reporter
    from bammmc.ir.job import Spec

Report = Callable[[str, str], None]


def refuser(reporter: Reporter) -> Report:
    """A ``refuse(path, why)`` that reports E140: a value the target cannot carry safely."""

    def refuse(path: str, why: str) -> None:
        reporter.report(
            "E140",
            f"`{path}` {why}",
            field=path,
            help="remove the line break (write the command into a script instead)",
        )

    return refuse


def one_line_image(image: str | None, refuse: Report) -> str | None:
    """The container image for an `exec` line, or ``None`` (after an E140) when its name holds
    a line break, which would start another line of the script."""
    if image and ("\n" in image or "\r" in image):
        refuse("spec.execution.container.image", "holds a line break: no script line can carry it")
        return None
    return image


def exec_arguments(arguments: str | None, refuse: Callable[[str, str], None]) -> str | None:
    """The argument text of an `exec` line, or ``None`` (after an E140 through ``refuse``) when
    it holds a line break: the command would become several lines of the script, and a later
    line can be a directive (`#$` anywhere in a Grid Engine script) or another command."""
    if arguments and ("\n" in arguments or "\r" in arguments):
        refuse(
            "spec.execution.arguments",
            "holds a line break: the command line would become several lines of the script",
        )
        return None
    return arguments


#: the shell variable that holds an HTCondor queue item variable's value in a converted script
ITEM_VARIABLE = "bammmc_{}"


def queue_items(spec: Spec) -> tuple[list[str], list[list[str]], int] | None:
    """The item variables of an HTCondor `queue VARS in|from (…)` whose items are in the file,
    each item's values, and how many elements share an item (`queue 2 x in (a, b)`: elements
    0-1 take `a`, 2-3 `b`); ``None`` when the job has none or its elements cannot be told
    (items read at submit time from a file or command, a slice, `matching`)."""
    from bammmc.frontends.htcondor import split_row

    ext = spec.extensions.htcondor if spec.extensions else None
    queue = ext.queue if ext else None
    if queue is None or not queue.vars or queue.items is None or not queue.items:
        return None
    if queue.mode not in ("in", "from") or queue.slice or queue.count is not None:
        return None
    rows = [
        split_row(item, len(queue.vars)) if queue.mode == "from" else [item] for item in queue.items
    ]
    indices = spec.array.indices if spec.array else None
    total = len(indices) if indices is not None else 1
    if total % len(rows) or (indices is not None and str(indices) != f"0-{total - 1}"):
        return None
    return list(queue.vars), rows, total // len(rows)


def _item_references(text: str, names: dict[str, str]) -> str:
    """``text`` (shell words) with each HTCondor reference `$(var)` to an item variable as a
    reference to its shell variable, in whatever quoting it stands."""
    out: list[str] = []
    quote = ""
    opened = -1  # where in ``out`` the open single quote is
    i = 0
    while i < len(text):
        c = text[i]
        match = re.match(r"\$\(([A-Za-z_][A-Za-z0-9_.]*)\)", text[i:]) if c == "$" else None
        if match and match.group(1).lower() in names:
            shell = "${" + names[match.group(1).lower()] + "}"
            i += match.end()
            if quote != "'":
                out.append(shell if quote == '"' else f'"{shell}"')
                continue
            if opened == len(out) - 1:  # `'$(x)…`: no empty `''` before it
                out.pop()
            else:
                out.append("'")
            out.append(f'"{shell}"')
            if text[i : i + 1] == "'":  # `…$(x)'`: nor after it
                quote, i = "", i + 1
            else:
                out.append("'")
                opened = len(out) - 1
            continue
        if c == "\\" and quote != "'":
            out.append(text[i : i + 2])
            i += 2
            continue
        if c in "'\"" and quote in ("", c):
            quote = "" if quote else c
            opened = len(out) if quote == "'" else -1
        out.append(c)
        i += 1
    return "".join(out)


def items_prelude(spec: Spec) -> tuple[str, str | None]:
    """The lines that give each element its HTCondor queue items (a `case` on the element's
    index) and the job's arguments with `$(var)` as those variables; ``("", arguments)`` when
    the job has no items its arguments use."""
    ex = spec.execution
    arguments = ex.arguments if ex is not None else None
    found = queue_items(spec)
    ext = spec.extensions.htcondor if spec.extensions else None
    if (
        found is None
        or not arguments
        or "arguments" not in ((ext.kept_macros if ext else None) or [])
    ):
        return "", arguments
    variables, rows, share = found
    names = {v.lower(): ITEM_VARIABLE.format(re.sub(r"\W", "_", v.lower())) for v in variables}
    written = _item_references(arguments, names)
    if written == arguments:
        return "", arguments
    lines = ["# bammmc: the items of HTCondor's `queue`, by element"]
    if len(rows) == 1 and share == 1:
        lines += [
            f"{names[v.lower()]}={shlex.quote(value)}"
            for v, value in zip(variables, rows[0], strict=True)
        ]
    else:
        lines.append('case "${BAMMM_ARRAY_INDEX}" in')
        for n, row in enumerate(rows):
            pattern = "|".join(str(n * share + k) for k in range(share))
            values = " ".join(
                f"{names[v.lower()]}={shlex.quote(value)}"
                for v, value in zip(variables, row, strict=True)
            )
            lines.append(f"  {pattern}) {values} ;;")
        lines.append("esac")
    return "\n".join(lines) + "\n", written


def exec_line(spec: Spec, runtime: str, approximated: Report, refuse: Report) -> str:
    """The body of a script that runs the job's program: the `exec` line (in the job's container
    image, if any), after the lines that set its HTCondor queue items; ``""`` when there is no
    command."""
    ex = spec.execution
    if ex is None:
        return ""
    prelude, arguments = items_prelude(spec)
    command = exec_words(msgspec.structs.replace(ex, arguments=arguments), refuse)
    image = one_line_image(ex.container.image if ex.container else None, refuse)
    if image:
        approximated(
            "spec.execution.container.image",
            f"run through `{runtime} exec docker://…`; the cluster needs {runtime.title()}",
        )
        command = [runtime, "exec", shlex.quote(f"docker://{image}"), *command]
    return prelude + "exec " + " ".join(command) + "\n" if command else ""


def exec_words(ex: Any, refuse: Callable[[str, str], None]) -> list[str]:
    """The words of the `exec` line that runs the job's program (its executable and
    arguments, else the container's command and args), quoted for the shell. A word with a line
    break is an E140 through ``refuse``: the command would become several lines of the script,
    and a later line can be a directive (`#$`, `#BSUB` anywhere in the file)."""
    if ex.executable is not None:
        program: list[tuple[str, str]] = [("spec.execution.executable", ex.executable)]
    elif ex.container is not None:
        program = [
            (f"spec.execution.container.{key}[{i}]", word)
            for key in ("command", "args")
            for i, word in enumerate(getattr(ex.container, key) or ())
        ]
    else:
        return []
    for path, word in program:
        if "\n" in word or "\r" in word:
            refuse(path, "holds a line break: the command would become several lines of the script")
    words = [shlex.quote(word) for _, word in program]
    if ex.executable is not None:
        arguments = exec_arguments(ex.arguments, refuse)
        words += [arguments] if arguments else []
    return words


def container_losses(ex: Any, runtime: str, lost: Report, approximated: Report) -> None:
    """What of ``spec.execution.container`` a script-based target does not get when it runs
    the job in the image through ``runtime`` (or runs no image): the pull policy and secrets,
    which the runtime has no option for, and the container's command when the job's script or
    program is what runs. Also the job's `arguments` when no `executable` takes them: a batch
    script's arguments are words of the submission command line (`sbatch job.sh ARGS`), which
    no directive of the script can give."""
    if ex is not None and ex.arguments is not None and ex.executable is None:
        lost(
            "spec.execution.arguments",
            "the arguments of a batch script are given on the submission command line "
            "(after the script's name), not in the script: there is no executable to take them",
        )
    container = ex.container if ex is not None else None
    if container is None:
        return
    if not container.image:
        for key, name in (
            ("image_pull_policy", "imagePullPolicy"),
            ("image_pull_secrets", "imagePullSecrets"),
        ):
            if getattr(container, key):
                lost(
                    f"spec.execution.container.{name}",
                    "the container has no image: there is nothing to pull",
                )
        if ex.script is None and ex.executable is None and (container.command or container.args):
            approximated(
                "spec.execution.container",
                "the container has no image: its command and arguments run on the host, as the "
                "job's program",
            )
    if container.image:
        if container.image_pull_policy is not None:
            lost(
                "spec.execution.container.imagePullPolicy",
                f"`{runtime} exec` pulls through its own image cache; it has no pull policy",
            )
        if container.image_pull_secrets:
            lost(
                "spec.execution.container.imagePullSecrets",
                f"registry credentials are the cluster's {runtime.title()} configuration, "
                "not an option of the job",
            )
    runs = "script" if ex.script is not None else "program" if ex.executable else None
    if runs is not None:
        for key, name in (("command", "command"), ("args", "args")):
            if getattr(container, key):
                lost(
                    f"spec.execution.container.{name}",
                    f"the job's {runs} is what runs in the image, not the container's {name}",
                )
    elif container.image and container.args and not container.command:
        approximated(
            "spec.execution.container.args",
            f"`{runtime} exec` runs the arguments as the command: the image's entrypoint is "
            "not run",
        )


def script_body(
    spec: Spec,
    runtime: str,
    lost: Report,
    approximated: Report,
    refuse: Report,
    shell: str = "/bin/bash",
) -> tuple[str, str]:
    """A script-based target's body (after the `#!` line) and its `#!` line: the job's script
    (run in its container image, if any), or an `exec` line for an executable or a container
    command. ``shell`` is the target's shell when the job names none."""
    ex = spec.execution
    shell = ex.shell if ex and ex.shell else shell
    container_losses(ex, runtime, lost, approximated)
    if ex is None or (ex.script is None and ex.executable is None and ex.container is None):
        return "", f"#!{shell}"
    if ex.script is not None:
        text = ex.script
        first, rest = (
            (text.partition("\n")[0], text.partition("\n")[2])
            if text.startswith("#!")
            else (f"#!{shell}", text)
        )
        if ex.shell and first != f"#!{ex.shell}":
            lost("spec.execution.shell", f"the script's own `{first}` line names its interpreter")
        if ex.container is not None and ex.container.image:
            wrapped = in_container(
                rest, first, ex.container.image, runtime, lost, approximated, refuse
            )
            if wrapped is not None:
                return wrapped, first
        elif ex.container is not None:
            lost("spec.execution.container", "a container without an image")
        return rest, first
    body = exec_line(spec, runtime, approximated, refuse)
    if not body:
        lost("spec.execution.container", "a container without an image or command runs nothing")
    return body, f"#!{shell}"


def in_container(
    body: str,
    shebang: str,
    image: str,
    runtime: str,
    lost: Report,
    approximated: Report,
    refuse: Report | None = None,
) -> str | None:
    """The body, run inside ``image``; ``None`` when it is not a shell script (W201), or when
    the image's name holds a line break, which would start another line of the script (E140
    through ``refuse``)."""
    if "\n" in image or "\r" in image:
        (refuse or lost)(
            "spec.execution.container.image",
            "holds a line break: no script line can carry it",
        )
        return None
    interpreter = shebang[2:].strip().split()
    shell = interpreter[-1] if interpreter else "bash"
    name = shell.rsplit("/", 1)[-1]
    if name not in ("bash", "sh"):
        lost(
            "spec.execution.container",
            f"only shell scripts can be run in the image, not `{shebang}`",
        )
        return None
    end = "BAMMMC_SCRIPT_END"
    while end in body.split("\n"):
        end += "_"
    approximated(
        "spec.execution.container.image",
        f"the script runs in `{image}` through `{runtime} exec`; the cluster needs "
        f"{runtime.title()} and /tmp shared with the container",
    )
    newline = "" if body.endswith("\n") or not body else "\n"
    return (
        f"# bammmc: run the job script in the container image {image}\n"
        "bammmc_script=$(mktemp /tmp/bammmc-script.XXXXXX) || exit 1\n"
        f"cat > \"$bammmc_script\" <<'{end}'\n{body}{newline}{end}\n"
        f"exec {runtime} exec {shlex.quote('docker://' + image)} {name} "
        '"$bammmc_script" "$@"\n'
    )
