"""The `flux batch` options, one table for the reader (``frontends/flux_batch.py``) and the writer
(``backends/flux_batch.py``).

Taken from flux-core 0.88.0 ``flux/cli/base.py`` (``MiniCmd.create_parser`` and
``BatchAllocCmd``) and ``flux/cli/batch.py``: a ``FluxArgumentParser`` with ``allow_abbrev=False``
(long options are never abbreviated) in POSIX mode (options stop at the first non-option word).
`flux batch` parses every directive line on its own (``parse_args(item.args, namespace=args)``),
so an option's value never comes from the next directive line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal


@dataclass(frozen=True)
class Option:
    long: str
    short: str | None = None
    #: "required": takes a value; "none": a flag; "optional": `--dump[=FILE]`
    arg: Literal["required", "none", "optional"] = "required"
    #: may be given several times, each adding one item (argparse ``action="append"``)
    repeat: bool = False


_TABLE: Final = (
    Option("bank", "B"),
    Option("queue", "q"),
    Option("time-limit", "t"),
    Option("urgency"),
    Option("job-name"),
    Option("setopt", "o", repeat=True),
    Option("setattr", "S", repeat=True),
    Option("add-file", repeat=True),
    Option("dependency", repeat=True),
    Option("requires", repeat=True),
    Option("begin-time"),
    Option("env", repeat=True),
    Option("env-remove", repeat=True),
    Option("env-file", repeat=True),
    Option("rlimit", repeat=True),
    Option("input"),
    Option("output"),
    Option("error"),
    Option("unbuffered", "u", "none"),
    Option("label-io", "l", "none"),
    Option("cwd"),
    Option("flags", repeat=True),
    Option("signal"),
    Option("dry-run", arg="none"),
    Option("quiet", arg="none"),
    Option("list-plugins", arg="none"),
    Option("debug-emulate", arg="none"),
    Option("help", arg="optional"),
    Option("add-brokers"),
    Option("conf", repeat=True),
    Option("broker-opts", repeat=True),
    Option("dump", arg="optional"),
    Option("nslots", "n"),
    Option("cores-per-slot", "c"),
    Option("gpus-per-slot", "g"),
    Option("nodes", "N"),
    Option("exclusive", "x", "none"),
    Option("wrap", arg="none"),
)

OPTIONS: Final[dict[str, Option]] = {o.long: o for o in _TABLE}
SHORT: Final[dict[str, Option]] = {o.short: o for o in _TABLE if o.short}
#: hidden aliases flux-core accepts for a long option
ALIASES: Final[dict[str, str]] = {
    "require": "requires",
    "dry": "dry-run",
    "broker-opt": "broker-opts",
}
#: options of `flux run` / `flux submit` that `flux batch` does not have, and what `flux batch`
#: calls the nearest one (shared/docs/formats/flux.md §8); `None`: no counterpart
NOT_BATCH: Final[dict[str, str | None]] = {
    "ntasks": "nslots",
    "cores-per-task": "cores-per-slot",
    "gpus-per-task": "gpus-per-slot",
    "cores": None,
    "tasks-per-node": None,
    "tasks-per-core": None,
    "gpus-per-node": None,
    "taskmap": None,
    "cc": None,
    "bcc": None,
    "wait": None,
    "wait-event": None,
    "watch": None,
    "log": None,
    "log-stderr": None,
    "progress": None,
    "jps": None,
}
#: options that change how `flux batch` itself behaves, not the job
SUBMISSION_ONLY: Final = frozenset(
    {"dry-run", "quiet", "list-plugins", "debug-emulate", "help", "wrap"}
)
#: --urgency names (flux-core `job-urgency`)
URGENCY_NAMES: Final = {"hold": 0, "default": 16, "expedite": 31}

#: an RFC 22 idset (`0`, `0-3,7`, `[1-2]`): `--input` then names the task ranks that read the
#: job's stdin, not a file (flux-core's job submission tries `IDset(input)` first)
IDSET: Final = re.compile(r"\[?\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*\]?")

#: a variable name that an `--env=NAME=VALUE` rule sets as it is: not a removal (`-…`), a file
#: of rules (`^FILE`, flux-core get_filtered_environment), a regular expression (`/…/`) or a
#: glob (`*?[`), and no `=` or blank
ENV_NAME: Final = re.compile(r"[^-/^=*?\[\s][^=*?\[\s]*")
