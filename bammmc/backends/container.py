"""Running a job script inside a container image on a batch scheduler (Apptainer/Singularity).

Shared by the script-based backends (Slurm, PBS, Torque): the body is written to a file in /tmp,
which both runtimes bind into the container by default, and run there with the script's shell.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

Report = Callable[[str, str], None]


def in_container(
    body: str, shebang: str, image: str, runtime: str, lost: Report, approximated: Report
) -> str | None:
    """The body, run inside ``image``; ``None`` (and a W201) when it is not a shell script."""
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
