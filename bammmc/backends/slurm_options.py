"""The sbatch option table: every option, its short letter, and whether it takes a value.

The one list both directions read (the reader to recognise options, the writer to spell them),
from shared/docs/formats/slurm.md §4 (sbatch.1 and src/common/slurm_opt.c of Slurm 26.11), checked
against a real Slurm 22.05 `sbatch`. ``REQUIRED`` options take ``--opt=value`` or ``--opt value``;
``OPTIONAL`` ones only ``--opt=value`` (a separate word is not their value); ``NONE`` are flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Arg = Literal["none", "required", "optional"]
NONE: Final = "none"
REQUIRED: Final = "required"
OPTIONAL: Final = "optional"


@dataclass(frozen=True)
class Option:
    long: str
    short: str | None
    arg: Arg
    #: sbatch skips it when it comes from a script (its "early pass" options)
    cli_only: bool = False
    #: the SPANK plugin that adds it, for options that are not sbatch's own
    plugin: str | None = None


_TABLE: Final[tuple[tuple[str, str | None, Arg], ...]] = (
    ("account", "A", REQUIRED),
    ("acctg-freq", None, REQUIRED),
    ("array", "a", REQUIRED),
    ("batch", None, REQUIRED),
    ("bb", None, REQUIRED),
    ("bbf", None, REQUIRED),
    ("begin", "b", REQUIRED),
    ("chdir", "D", REQUIRED),
    ("cluster-constraint", None, REQUIRED),
    ("clusters", "M", REQUIRED),
    ("comment", None, REQUIRED),
    ("consolidate-segments", None, NONE),
    ("constraint", "C", REQUIRED),
    ("container", None, REQUIRED),
    ("container-id", None, REQUIRED),
    ("contiguous", None, NONE),
    ("core-spec", "S", REQUIRED),
    ("cores-per-socket", None, REQUIRED),
    ("cpu-freq", None, REQUIRED),
    ("cpus-per-gpu", None, REQUIRED),
    ("cpus-per-task", "c", REQUIRED),
    ("deadline", None, REQUIRED),
    ("delay-boot", None, REQUIRED),
    ("dependency", "d", REQUIRED),
    ("distribution", "m", REQUIRED),
    ("error", "e", REQUIRED),
    ("exclude", "x", REQUIRED),
    ("exclusive", None, OPTIONAL),
    ("export", None, REQUIRED),
    ("export-file", None, REQUIRED),
    ("extra", None, REQUIRED),
    ("extra-node-info", "B", REQUIRED),
    ("get-user-env", None, OPTIONAL),
    ("gid", None, REQUIRED),
    ("gpu-bind", None, REQUIRED),
    ("gpu-freq", None, REQUIRED),
    ("gpus", "G", REQUIRED),
    ("gpus-per-node", None, REQUIRED),
    ("gpus-per-socket", None, REQUIRED),
    ("gpus-per-task", None, REQUIRED),
    ("gres", None, REQUIRED),
    ("gres-flags", None, REQUIRED),
    ("help", "h", NONE),
    ("hint", None, REQUIRED),
    ("hold", "H", NONE),
    ("ignore-pbs", None, NONE),
    ("input", "i", REQUIRED),
    ("job-name", "J", REQUIRED),
    ("kill-on-invalid-dep", None, REQUIRED),
    ("licenses", "L", REQUIRED),
    ("mail-type", None, REQUIRED),
    ("mail-user", None, REQUIRED),
    ("mcs-label", None, REQUIRED),
    ("mem", None, REQUIRED),
    ("mem-bind", None, REQUIRED),
    ("mem-per-cpu", None, REQUIRED),
    ("mem-per-gpu", None, REQUIRED),
    ("mem-update", None, REQUIRED),
    ("mincpus", None, REQUIRED),
    ("network", None, REQUIRED),
    ("nice", None, OPTIONAL),
    ("no-kill", "k", OPTIONAL),
    ("no-requeue", None, NONE),
    ("nodefile", "F", REQUIRED),
    ("nodelist", "w", REQUIRED),
    ("nodes", "N", REQUIRED),
    ("ntasks", "n", REQUIRED),
    ("ntasks-per-core", None, REQUIRED),
    ("ntasks-per-gpu", None, REQUIRED),
    ("ntasks-per-node", None, REQUIRED),
    ("ntasks-per-socket", None, REQUIRED),
    ("oom-kill-step", None, OPTIONAL),
    ("open-mode", None, REQUIRED),
    ("output", "o", REQUIRED),
    ("overcommit", "O", NONE),
    ("oversubscribe", "s", NONE),
    ("parsable", None, NONE),
    ("partition", "p", REQUIRED),
    ("prefer", None, REQUIRED),
    ("priority", None, REQUIRED),
    ("profile", None, REQUIRED),
    ("propagate", None, OPTIONAL),
    ("qos", "q", REQUIRED),
    ("quiet", "Q", NONE),
    ("reboot", None, NONE),
    ("requeue", None, OPTIONAL),
    ("reservation", None, REQUIRED),
    ("resources", None, REQUIRED),
    ("resv-ports", None, OPTIONAL),
    ("runtime", None, REQUIRED),
    ("segment", None, REQUIRED),
    ("signal", None, REQUIRED),
    ("sockets-per-node", None, REQUIRED),
    ("spread-job", None, NONE),
    ("spread-segments", None, NONE),
    ("stepmgr", None, NONE),
    ("switches", None, REQUIRED),
    ("test-only", None, NONE),
    ("thread-spec", None, REQUIRED),
    ("threads-per-core", None, REQUIRED),
    ("time", "t", REQUIRED),
    ("time-min", None, REQUIRED),
    ("tmp", None, REQUIRED),
    ("tres-bind", None, REQUIRED),
    ("tres-per-task", None, REQUIRED),
    ("uid", None, REQUIRED),
    ("usage", None, NONE),
    ("use-min-nodes", None, NONE),
    ("verbose", "v", NONE),
    ("version", "V", NONE),
    ("wait", "W", NONE),
    ("wait-all-nodes", None, REQUIRED),
    ("wckey", None, REQUIRED),
    ("wrap", None, REQUIRED),
)

#: Options sbatch handles in its early pass and skips when they come from a script.
CLI_ONLY: Final = frozenset({"help", "usage", "verbose", "quiet", "version", "wrap"})

#: Other spellings sbatch accepts, -> the canonical long name.
ALIASES: Final[dict[str, str]] = {
    "tasks-per-node": "ntasks-per-node",
    "share": "oversubscribe",
    "cluster": "clusters",
    "workdir": "chdir",
}

OPTIONS: Final[dict[str, Option]] = {
    long: Option(long, short, arg, cli_only=long in CLI_ONLY) for long, short, arg in _TABLE
}
SHORT: Final[dict[str, Option]] = {o.short: o for o in OPTIONS.values() if o.short}
#: Every long spelling sbatch's getopt knows (names and aliases), for prefix matching.
LONG_NAMES: Final[tuple[str, ...]] = tuple(sorted([*OPTIONS, *ALIASES]))

#: Options that SPANK plugins add to sbatch at the sites that install them (plugin docs: NVIDIA
#: pyxis README, EAR user guide, NERSC Shifter, Cray CCM, Paderborn PC2 fpgalink, Slurm X11).
#: They are read and written back, with a warning that they work only where the plugin is.
_PLUGINS: Final[tuple[tuple[str, Arg, str], ...]] = (
    ("container-image", REQUIRED, "pyxis"),
    ("container-mounts", REQUIRED, "pyxis"),
    ("container-workdir", REQUIRED, "pyxis"),
    ("container-name", REQUIRED, "pyxis"),
    ("container-save", REQUIRED, "pyxis"),
    ("container-env", REQUIRED, "pyxis"),
    ("container-mount-home", NONE, "pyxis"),
    ("no-container-mount-home", NONE, "pyxis"),
    ("container-remap-root", NONE, "pyxis"),
    ("no-container-remap-root", NONE, "pyxis"),
    ("container-entrypoint", NONE, "pyxis"),
    ("no-container-entrypoint", NONE, "pyxis"),
    ("container-writable", NONE, "pyxis"),
    ("container-readonly", NONE, "pyxis"),
    ("ear", OPTIONAL, "EAR"),
    ("ear-policy", REQUIRED, "EAR"),
    ("ear-cpufreq", REQUIRED, "EAR"),
    ("ear-policy-th", REQUIRED, "EAR"),
    ("ear-user-db", REQUIRED, "EAR"),
    ("ear-verbose", REQUIRED, "EAR"),
    ("ear-learning", REQUIRED, "EAR"),
    ("ear-tag", REQUIRED, "EAR"),
    ("image", REQUIRED, "Shifter"),
    ("module", REQUIRED, "Shifter"),
    ("volume", REQUIRED, "Shifter"),
    ("ccm", NONE, "Cray CCM"),
    ("fpgalink", REQUIRED, "PC2 fpgalink"),
    ("x11", OPTIONAL, "X11 forwarding"),
)
PLUGIN_OPTIONS: Final[dict[str, Option]] = {
    long: Option(long, None, arg, plugin=plugin) for long, arg, plugin in _PLUGINS
}


#: The signal names `sbatch --signal` accepts (checked with sbatch 22.05; numbers always work).
#: the longest time sbatch holds: it adds up a time's parts in seconds in a C `int`, then
#: rounds up to whole minutes (src/common/parse_time.c, `time_str2secs` and `time_str2mins`),
#: so a longer time wraps around (the oracle: `--time=100000-00:00:00` is read as 579-11:04:00)
SLURM_MAX_SECONDS: Final = 2**31 - 1 - 59

SLURM_SIGNALS: Final = frozenset(
    "HUP INT QUIT ABRT KILL ALRM TERM USR1 USR2 URG CONT STOP TSTP TTIN TTOU XCPU".split()  # noqa: SIM905
)

#: Options that are one key of extensions.slurm: a string, a positive integer, or a flag.
#: The reader maps option -> key, the writer key -> option.
EXT_STRINGS: Final[dict[str, str]] = {
    "nodelist": "nodelist",
    "exclude": "exclude",
    "licenses": "licenses",
    "comment": "comment",
    "distribution": "distribution",
    "mem-bind": "mem_bind",
    "cpu-freq": "cpu_freq",
    "gpu-freq": "gpu_freq",
    "hint": "hint",
    "gpu-bind": "gpu_bind",
    "gres-flags": "gres_flags",
    "network": "network",
    "bb": "burst_buffer",
    "bbf": "burst_buffer_file",
    "wckey": "wckey",
    "gpus-per-socket": "gpus_per_socket",
}
EXT_INTS: Final[dict[str, str]] = {
    "sockets-per-node": "sockets_per_node",
    "cores-per-socket": "cores_per_socket",
    "threads-per-core": "threads_per_core",
    "ntasks-per-socket": "ntasks_per_socket",
    "ntasks-per-core": "ntasks_per_core",
    "ntasks-per-gpu": "ntasks_per_gpu",
    "cpus-per-gpu": "cpus_per_gpu",
    "mincpus": "mincpus",
}
EXT_FLAGS: Final[dict[str, str]] = {
    "overcommit": "overcommit",
    "contiguous": "contiguous",
    "oversubscribe": "oversubscribe",
}
