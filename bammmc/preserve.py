"""``--preserve``: what a target cannot say travels inside its output, in a form it ignores.

Writing (:func:`embed`): the target's text is written as usual and read back with the target's
own reader, giving the job ``J'`` that the target carries. The *patch* from ``J'`` to the source
job ``J`` — every place where the two differ, compared as SPLAT wire data (``backends/splat.py``
encodes, the SPLAT reader decodes, so typed values such as sizes and durations survive) — is
embedded in the output. Each entry of the patch holds the place (a list of keys and indices:
map keys may hold dots), the value the target carries there (``y``) and the source's (``x``),
either one absent when the field is unset. An empty patch writes no block.

Where the block goes (:func:`placement`):

* script formats and HTCondor submit files: comment lines at the very end of the main file,
  after one blank line, so stripping them shifts no line of the rest::

      # bammmc-preserve v2 sha256=<64 hex digits>
      # <base64url of zlib(compact JSON)>, 74 characters a line

  base64url has no ``#``, ``$``, ``:``, space, quote or line break, so no value can become a
  directive (``#SBATCH``, ``#PBS``, ``#BSUB``, ``#$``, ``#flux:``) or a submit command;
* a Flux jobspec: ``attributes.user.bammmc`` = ``{preserve: 2, sha256: …, payload: …}``
  (Flux ignores user attributes; the Flux lowering hands this key to :func:`find_attribute`
  instead of keeping it in ``user_attributes``);
* SPLAT carries every field: no block.

The digest (:func:`seal`) is the SHA-256 of the payload *and of the visible text the block
was written after*: for the comment form, the whole text before the block (directives and
body); for a Flux jobspec, its parsed data without the block (:func:`jobspec_text`). Any edit
of the file, or a block moved onto another file, no longer matches: the block is ignored
(W411). The digest is not keyed, so it detects edits, not forgeries: anyone can compute one.

So a block is trusted only with what cannot change the job the visible text describes
(:func:`refusal`, the same rule for :func:`embed` and :func:`restore`):

* it never sets what decides what runs — the script, the program and its arguments, the
  environment, the working directory, the files, the container, the shell and the
  format-specific fields that carry any of them: only the fields under :data:`RESTORABLE`
  (naming, scheduling, sizing, placement, notification) may be restored, W413 otherwise;
* it never overrides a value the visible text sets (the field is present in the job read from
  the text), unless it is the same typed value spelled otherwise (`walltime: '1:00:00'` for
  `PT1H`), W414 otherwise: it only adds what the text leaves unset;
* it restores a field only where the text still reads what the block recorded (``y``), which
  an unchanged text does unless the bammmc reading it reads it otherwise (W412).

The writer puts only such entries in the block, so a block bammmc wrote, on the file it wrote,
restores without a diagnostic. Reading (:func:`split_comment` / :func:`find_attribute`, then
:func:`restore`, both called by ``pipeline.compile_text``). Docs: ``docs/preserve.md``.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

import msgspec

from bammmc.diagnostics.model import Label, Reporter, Span
from bammmc.ir.paths import same_value
from bammmc.ir.sourcemap import SourceMap, join_path

if TYPE_CHECKING:
    from bammmc.backends import OutputFile, WriteOptions
    from bammmc.frontends.yamlnodes import Node
    from bammmc.ir.job import Job
    from bammmc.registry import Format

MAGIC: Final = "bammmc-preserve"
#: 2: the digest covers the visible text too (version 1's covered the payload only, so a block
#: could be moved onto any file or written by anyone; version 1 blocks are no longer read)
VERSION: Final = 2
#: the key under the Flux jobspec's `attributes.user`
FLUX_KEY: Final = "bammmc"
#: characters of payload on one comment line (`# ` + 74 = 76 columns)
WIDTH: Final = 74
#: a decompressed payload larger than this is refused (a block is a few KiB at most)
MAX_PAYLOAD: Final = 16 * 1024 * 1024
#: how deep a payload may nest (a job's wire data with the YAML reader's 64 levels inside it)
MAX_DEPTH: Final = 100
#: how many entries a patch may hold (a job has some 500 fields; a map one side lacks is one
#: entry however many keys it has), so that a hand-made block cannot flood the reader with
#: entries to judge and warnings to print
MAX_ENTRIES: Final = 10_000

_HEADER: Final = re.compile(r"# bammmc-preserve v(\d+) sha256=([0-9a-f]{64})")
#: what a header line, or a line that was one, holds (anything before it on the line: damaged)
_HEADER_NAME: Final = "bammmc-preserve v"
_LINE: Final = re.compile(r"# ([A-Za-z0-9_-]+)")
#: a here-document operator and its delimiter word (`<<EOF`, `<<-'END'`, `<< "X"`)
_HEREDOC: Final = re.compile(r"(?<![<$(])<<-?[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


class _Absent:
    """An unset field in a patch entry (distinct from JSON null)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Entry:
    """One place where the target's job differs from the source's."""

    path: Path
    #: the value the target's text carries (ABSENT: unset)
    y: Any
    #: the source's value (ABSENT: unset)
    x: Any


@dataclass(frozen=True)
class Found:
    """A verified block found in a text: its decoded patch and where it is."""

    target: str
    entries: tuple[Entry, ...]
    span: Span | None


def placement(fmt: str) -> str | None:
    """Where a format keeps the block: ``comment`` (trailing comment lines), ``attribute``
    (Flux `attributes.user.bammmc`) or ``None`` (SPLAT carries everything).

    >>> placement("slurm"), placement("flux"), placement("splat")
    ('comment', 'attribute', None)
    """
    if fmt == "splat":
        return None
    if fmt == "flux":
        return "attribute"
    return "comment"


# ── the patch ────────────────────────────────────────────────────────────────────────────


def wire(job: Job) -> dict[str, Any]:
    """The job as SPLAT wire data (what the SPLAT writer writes)."""
    from bammmc.backends.splat import to_builtins

    data: dict[str, Any] = to_builtins(job)
    return data


def diff(y: Any, x: Any, path: Path = ()) -> list[Entry]:
    """The entries that turn ``y`` into ``x`` (both wire data): maps are compared key by key,
    lists of the same length item by item, anything else as a whole.

    >>> diff({"a": 1, "b": {"c": 2}}, {"a": 1, "b": {"c": 3, "d": 4}})
    [Entry(path=('b', 'c'), y=2, x=3), Entry(path=('b', 'd'), y=ABSENT, x=4)]
    """
    if _same(y, x):
        return []
    if isinstance(y, dict) and isinstance(x, dict):
        out: list[Entry] = []
        for key in [*x, *(k for k in y if k not in x)]:
            out += diff(y.get(key, ABSENT), x.get(key, ABSENT), (*path, key))
        return out
    if isinstance(y, list) and isinstance(x, list) and len(y) == len(x) and path:
        out = []
        for i, (a, b) in enumerate(zip(y, x, strict=True)):
            out += diff(a, b, (*path, i))
        return out
    return [Entry(path, y, x)]


def _same(a: Any, b: Any) -> bool:
    """Equal as data, and of the same JSON type (``1`` is not ``true``, nor ``1.0``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b, strict=True))
    return bool(a == b)


def _get(data: Any, path: Path) -> Any:
    for part in path:
        if isinstance(part, str) and isinstance(data, dict) and part in data:
            data = data[part]
            continue
        if isinstance(part, int) and isinstance(data, list) and 0 <= part < len(data):
            data = data[part]
            continue
        return ABSENT
    return data


def _set(data: dict[str, Any], path: Path, value: Any) -> bool:
    """Set (or, for ABSENT, remove) ``path`` in ``data``; missing maps on the way are made.
    False when the way is blocked (a list too short, a value that is not a map)."""
    at: Any = data
    for part in path[:-1]:
        if isinstance(part, str) and isinstance(at, dict):
            if part not in at:
                if value is ABSENT:
                    return True
                at[part] = {}
            at = at[part]
        elif isinstance(part, int) and isinstance(at, list) and 0 <= part < len(at):
            at = at[part]
        else:
            return False
    last = path[-1]
    if isinstance(last, str) and isinstance(at, dict):
        if value is ABSENT:
            at.pop(last, None)
        else:
            at[last] = value
        return True
    if isinstance(last, int) and isinstance(at, list) and 0 <= last < len(at):
        if value is ABSENT:
            return False
        at[last] = value
        return True
    return False


def field_path(path: Path) -> str:
    """A patch path in the spelling of diagnostics and source maps.

    >>> field_path(("metadata", "labels", "app.kubernetes.io/name"))
    'metadata.labels["app.kubernetes.io/name"]'
    >>> field_path(("spec", "tasks", 1, "name"))
    'spec.tasks[1].name'
    """
    out = ""
    for part in path:
        out = f"{out}[{part}]" if isinstance(part, int) else join_path(out, part)
    return out


# ── what a block may restore ─────────────────────────────────────────────────────────────

_SLURM: Final = """partition time_min wckey profile switches switches_max_wait kill_on_bad_exit
    spread_job no_kill overcommit sockets_per_node cores_per_socket threads_per_core
    ntasks_per_socket ntasks_per_core ntasks_per_gpu cpus_per_gpu mem_per_gpu gpu_bind gres_flags
    network mem mem_per_cpu tmp nodes nodelist exclude licenses comment distribution mem_bind
    cpu_freq gpu_freq hint nice mincpus contiguous oversubscribe exclusive gres gpus gpus_per_node
    gpus_per_socket gpus_per_task begin deadline dependency mail_type signal kill_on_invalid_dep
    ignore_pbs priority"""

#: ``prefix: names…`` (one path per name) or a path alone, one to a line
_RESTORABLE: Final = f"""
    metadata
    spec.schedule
    spec.resources
    spec.tasks.*: name replicas minReplicas resources lifecycle placement dependsOn
    spec.gang
    spec.array
    spec.dependencies
    spec.lifecycle
    spec.placement
    spec.notifications
    spec.workloadType
    spec.extensions.slurm: {" ".join(_SLURM.split())}
    spec.extensions.slurm.het_components.*: resources schedule placement
    spec.extensions.slurm.het_components.*.slurm: {" ".join(_SLURM.split())}
    spec.extensions.pbs: place checkpoint_interval mpiprocs_per_chunk ompthreads_per_chunk
        mixed_chunks server select nodes cput pcput mem resources mail_points priority begin
        dependency
    spec.extensions.lsf: service_class license_project rusage_string compute_unit same_resource
        order_expression autoresizable frequency cpu_time_limit stack_limit thread_limit
        run_window gpu_options mem_limit mem_limit_hard memory_from_limit select span cu affinity
        resreq max_tasks nnodes alloc_flags queues hosts priority dependency begin deadline
        run_limit
    spec.extensions.htcondor: requirements rank periodic_hold periodic_hold_reason
        periodic_hold_subcode periodic_release periodic_remove periodic_vacate on_exit_hold
        on_exit_remove checkpointExitCode concurrency_limits max_materialize max_idle
        retry_request_memory retry_request_disk project_name accounting_group batch_name
        keep_claim_idle machine_count notification
    spec.extensions.flux: bank urgency resource_graph symbolic_dependencies preemptible_after
        count_expression constraints_spec user_attributes version slots_from_command_line
    spec.extensions.armada: job_set_id scheduler_name
    spec.extensions.volcano: min_success max_retry ttl_seconds running_estimate policies
        network_topology
    spec.extensions.kueue
    spec.extensions.yunikorn
    spec.extensions.runai: project department large_shm minReplicas max_replicas nodePools
        migProfile pod_group_policy
    spec.extensions.sge: pe pe_slots memory_resource slot_memory resources soft_resources
        soft_queue s_rt hold_jid hold_jid_ad reserve notify now ckpt priority begin deadline
        mail_points
"""


def _table(text: str) -> tuple[str, ...]:
    """The paths of a table of ``prefix: names…`` rows and lone paths; a line indented more
    than the first continues the row before it.

    >>> _table("  a.b: c d\\n    e\\n  f")
    ('a.b.c', 'a.b.d', 'a.b.e', 'f')
    """
    lines = [line for line in text.splitlines() if line.strip()]
    base = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    rows: list[str] = []
    for line in lines:
        if rows and len(line) - len(line.lstrip()) > base:
            rows[-1] += " " + line.strip()
        else:
            rows.append(line.strip())
    out: list[str] = []
    for row in rows:
        prefix, colon, names = row.partition(":")
        out += [f"{prefix}.{name}" for name in names.split()] if colon else [row]
    return tuple(out)


#: The subtrees of a job (wire names, ``*`` for any one key or index) that a block may
#: restore: what names, schedules, sizes, places and notifies a job. Everything else — and so
#: every field added to the IR later, until it is listed here — decides what runs or where its
#: files go, and only the visible text sets it (:data:`NEVER_RESTORED`).
RESTORABLE: Final[tuple[str, ...]] = _table(_RESTORABLE)

#: What a block never restores, and why (documentation; ``restore`` trusts only
#: :data:`RESTORABLE`, and a test checks that every field of the IR is in exactly one list).
NEVER_RESTORED: Final[dict[str, str]] = {
    "apiVersion": "the document's own header",
    "kind": "the document's own header",
    "spec.execution": "the script, program, arguments, environment, directory, shell, container",
    "spec.tasks.*.execution": "what a task runs",
    "spec.extensions.slurm.het_components.*.execution": "what a component runs",
    "spec.output": "the files stdout and stderr go to",
    "spec.fileStaging": "the files a job reads, writes and is given",
    "spec.volumes": "the file systems a job sees",
    "spec.distributedFramework": "how the tasks are launched (an MPI or training launcher)",
    **{
        f"spec.extensions.slurm.{k}": why
        for k, why in {
            "mpi": "how srun launches the tasks",
            "burst_buffer": "burst buffer directives stage files",
            "burst_buffer_file": "burst buffer directives stage files",
            "export": "the environment",
            "get_user_env": "the environment",
            "output": "the stdout file",
            "error": "the stderr file",
            "input": "the stdin file",
            "options": "raw sbatch options: any of them",
        }.items()
    },
    **{
        f"spec.extensions.slurm.het_components.*.slurm.{k}": "as for the job"
        for k in (
            *("mpi", "burst_buffer", "burst_buffer_file", "export", "get_user_env"),
            *("output", "error", "input", "options", "het_components"),
        )
    },
    **{
        f"spec.extensions.pbs.{k}": why
        for k, why in {
            "stagein": "files staged in",
            "stageout": "files staged out",
            "aoe": "the operating system image the nodes boot",
            "join": "the output files",
            "keep": "the output files",
            "group_list": "the group the job runs as",
            "umask": "the permissions of the files it writes",
            "sandbox": "the working directory",
            "output": "the stdout file",
            "error": "the stderr file",
            "options": "raw qsub options: any of them",
        }.items()
    },
    **{
        f"spec.extensions.lsf.{k}": why
        for k, why in {
            "app_profile": "an application profile sets pre-execution commands and job starters",
            "pre_exec": "a command",
            "post_exec": "a command",
            "files": "files copied",
            "env": "the environment",
            "login_shell": "the shell",
            "outdir": "the output directory",
            "error_open_mode": "the output files",
            "options": "raw bsub options: any of them",
        }.items()
    },
    **{
        f"spec.extensions.htcondor.{k}": why
        for k, why in {
            "universe": "how and where the job runs (`local` runs it on the submit host)",
            "log": "a file the schedd writes",
            "stream_output": "the output files",
            "stream_error": "the output files",
            "encrypt_input_files": "file transfer",
            "encrypt_output_files": "file transfer",
            "transfer_output_remaps": "file transfer",
            "output_destination": "file transfer",
            "grid_resource": "the grid system the job runs on",
            "dagman": "other jobs and scripts",
            "queue": "the items and variables the commands are expanded with",
            "clusters": "submit commands",
            "attributes": "custom ClassAd attributes (a container image, for one)",
            "getenv": "the environment",
            "image_command": "the container image",
            "macros": "submit macros, expanded into any command",
            "commands": "raw submit commands: any of them",
            "verbatim": "raw submit lines: any of them",
            "kept_macros": "the macro references of any portable value",
        }.items()
    },
    **{
        f"spec.extensions.flux.{k}": why
        for k, why in {
            "embeddedFiles": "files (the batch script among them)",
            "shell_options": "job shell options (an `initrc` runs Lua)",
            "batch_options": "raw flux batch options: any of them",
            "task": "the command",
            "tasks": "the commands",
            "system": "the environment, directory, shell and files",
            "env_unset": "the environment",
        }.items()
    },
    "spec.extensions.armada.ingress": "opens the job to the network",
    "spec.extensions.armada.services": "opens the job to the network",
    "spec.extensions.armada.namespace": "the secrets and config maps the environment refers to",
    "spec.extensions.volcano.plugins": "the env, ssh and svc plugins set environment and keys",
    "spec.extensions.runai.interactive": "an interactive workload runs otherwise",
    "spec.extensions.runai.run_as_user": "the user the job runs as",
    "spec.extensions.runai.service_account": "the credentials the job runs with",
    **{
        f"spec.extensions.sge.{k}": why
        for k, why in {
            "cwd": "the working directory",
            "binary": "whether the job is a command or a script",
            "output": "the stdout file",
            "error": "the stderr file",
            "input": "the stdin file",
            "shell": "the shell",
            "export": "the environment",
            "options": "raw qsub options: any of them",
        }.items()
    },
}


def _trie(patterns: Sequence[str]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for pattern in patterns:
        node = root
        for part in pattern.split("."):
            node = node.setdefault(part, {})
        node[""] = True  # a subtree root ends here (no wire name is empty)
    return root


_ROOTS: Final = _trie(RESTORABLE)


def _place(path: Path) -> str | None:
    """``under`` when ``path`` lies in a :data:`RESTORABLE` subtree, ``above`` when it is on the
    way to one, else None (``*`` in a pattern: any one key or index)."""
    nodes = [_ROOTS]
    for part in path:
        if any("" in node for node in nodes):
            return "under"
        key = part if isinstance(part, str) else None
        nodes = [c for node in nodes for c in (node.get(key) if key else None, node.get("*")) if c]
        if not nodes:
            return None
    return "under" if any("" in node for node in nodes) else "above"


def _leaves(path: Path, value: Any) -> list[tuple[Path, bool]]:
    """The places ``value`` (wire data at ``path``) sets: ``(path, empty)``, a map and a list
    item by item; ``empty`` for an empty map or list."""
    out: list[tuple[Path, bool]] = []
    stack = [(path, value)]
    while stack:
        at, node = stack.pop()
        if isinstance(node, dict) and node:
            stack += [((*at, k), v) for k, v in node.items()]
        elif isinstance(node, list) and node:
            stack += [((*at, i), v) for i, v in enumerate(node)]
        elif node is not ABSENT:
            out.append((at, isinstance(node, dict | list)))
    return out


def restorable(entry: Entry) -> bool:
    """May a block set (or unset) every place ``entry`` touches? Each must lie under a
    :data:`RESTORABLE` subtree (an empty map or list may also be a way to one).

    >>> restorable(Entry(("spec", "schedule", "qos"), ABSENT, "high"))
    True
    >>> restorable(Entry(("spec", "execution", "environment"), ABSENT, {"vars": {"A": "1"}}))
    False
    >>> restorable(Entry(("spec", "extensions"), ABSENT, {"slurm": {"export": "ALL"}}))
    False
    >>> restorable(Entry(("spec", "tasks", 0, "name"), ABSENT, "a"))
    True
    """
    for path, empty in [*_leaves(entry.path, entry.y), *_leaves(entry.path, entry.x)]:
        place = _place(path)
        if place != "under" and not (empty and place == "above"):
            return False
    return True


def _restorable_parts(entry: Entry) -> list[Entry]:
    """``entry``, or when it touches places a block may not set, the parts of it that a block
    may set: a map that one side lacks is split key by key."""
    if restorable(entry):
        return [entry]
    x, y = entry.x, entry.y
    if not (
        (isinstance(x, dict) and (y is ABSENT or isinstance(y, dict)))
        or (isinstance(y, dict) and x is ABSENT)
    ):
        return []
    xs: dict[str, Any] = x if isinstance(x, dict) else {}
    ys: dict[str, Any] = y if isinstance(y, dict) else {}
    out: list[Entry] = []
    for key in [*xs, *(k for k in ys if k not in xs)]:
        part = Entry((*entry.path, key), ys.get(key, ABSENT), xs.get(key, ABSENT))
        out += _restorable_parts(part)
    return out


def refusal(entry: Entry, data: dict[str, Any], job: Job) -> str | None:
    """Why a block may not apply ``entry`` to ``job`` (the job read from the visible text, as
    wire data ``data``): W413, a place no block sets; W412, the text does not read what the
    block recorded; W414, the text sets the field (the job has a value there), to a value that
    is not the block's spelled otherwise. None: it may.

    A field counts as set when the job read from the text has it, whether or not the reader
    recorded where (a reader's defaults and values derived from other options, such as the
    components of a Slurm heterogeneous job, have no span of their own but come from the text
    all the same)."""
    if not restorable(entry):
        return "W413"
    now = _get(data, entry.path)
    if not _same_or_absent(now, entry.y):
        return "W412"
    if now is not ABSENT and not respelled(job, entry):
        return "W414"
    return None


def respelled(job: Job, entry: Entry) -> bool:
    """Is the block's value the job's typed value at that place, spelled otherwise
    (`walltime: '1:00:00'` where the job has `PT1H`)?"""
    from bammmc.ir.values import Value, ValueSyntaxError

    now = _typed(job, entry.path)
    if not isinstance(now, Value) or isinstance(entry.x, bool):
        return False
    if not isinstance(entry.x, str | int | float):
        return False
    try:
        return same_value(now, type(now).parse(entry.x))
    except ValueSyntaxError:
        return False


def _typed(job: Job, path: Path) -> Any:
    """The job's own (typed) value at a wire path, or ABSENT."""
    node: Any = job
    for part in path:
        if isinstance(node, msgspec.Struct) and isinstance(part, str):
            names = {f.encode_name: f.name for f in msgspec.structs.fields(node)}
            if part not in names:
                return ABSENT
            node = getattr(node, names[part])
        elif isinstance(node, dict):
            if part not in node:
                return ABSENT
            node = node[part]
        elif isinstance(node, list | tuple) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return ABSENT
        if node is None:
            return ABSENT
    return node


# ── the payload ──────────────────────────────────────────────────────────────────────────


def seal(visible: bytes, payload: str) -> str:
    """The digest of a block: SHA-256 of the version, the visible text the block is written
    after (its length first, so no text can shift into the payload) and the payload.

    >>> seal(b"#!/bin/bash\\necho hi\\n\\n", "eNo") == seal(b"#!/bin/bash\\necho HI\\n\\n", "eNo")
    False
    """
    sha = hashlib.sha256(f"{MAGIC} v{VERSION}\n{len(visible)}\n".encode("ascii"))
    sha.update(visible)
    sha.update(payload.encode("ascii"))
    return sha.hexdigest()


def script_text(before: str) -> bytes:
    """The visible text of a comment-form block: everything before its first line, exactly."""
    return before.encode("utf-8", "surrogatepass")


def jobspec_text(data: Any) -> bytes:
    """The visible text of a Flux jobspec: its parsed data without ``attributes.user.bammmc``
    (a `user` map left empty goes too), in a canonical form — so YAML or JSON, key order,
    quoting and comments do not matter, and every value that the reader reads does.

    >>> jobspec_text({"b": [1, "1"], "a": None}) == jobspec_text({"a": None, "b": [1, "1"]})
    True
    >>> jobspec_text({"a": 1}) == jobspec_text({"a": 1.0})
    False
    """
    if isinstance(data, dict):
        attributes = data.get("attributes")
        user = attributes.get("user") if isinstance(attributes, dict) else None
        if isinstance(user, dict) and is_attribute(user.get(FLUX_KEY)):
            user = {k: v for k, v in user.items() if k != FLUX_KEY}
            assert isinstance(attributes, dict)
            attributes = {k: v for k, v in attributes.items() if k != "user"}
            if user:
                attributes["user"] = user
            data = {**data, "attributes": attributes}
    return _canonical(data)


def _canonical(data: Any) -> bytes:
    """Typed, key-sorted JSON-like bytes of plain data (YAML keys may be numbers or booleans)."""
    if isinstance(data, dict):
        items = sorted(_canonical(k) + b":" + _canonical(v) for k, v in data.items())
        return b"{" + b",".join(items) + b"}"
    if isinstance(data, list):
        return b"[" + b",".join(_canonical(v) for v in data) + b"]"
    if isinstance(data, float):
        return b"f" + repr(data).encode("ascii")
    if isinstance(data, bool) or data is None:
        return str(data).encode("ascii")
    if isinstance(data, int):
        return b"i" + str(data).encode("ascii")
    text = (data if isinstance(data, str) else str(data)).encode("utf-8", "surrogatepass")
    return b"s" + str(len(text)).encode("ascii") + b":" + text


def encode(target: str, entries: Sequence[Entry], visible: bytes, sep: str = "") -> tuple[str, str]:
    """``(digest, payload)``: the patch as compact JSON, zlib-compressed, base64url; the digest
    binds it to ``visible`` (:func:`seal`)."""
    body = {
        "v": VERSION,
        "to": target,
        "sep": sep,
        "patch": [
            {"p": list(e.path)}
            | ({} if e.y is ABSENT else {"y": e.y})
            | ({} if e.x is ABSENT else {"x": e.x})
            for e in entries
        ],
    }
    raw = zlib.compress(msgspec.json.encode(body), 9)
    payload = base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
    return seal(visible, payload), payload


class Invalid(Exception):
    """A block that does not verify; the message says why."""


#: why a block whose digest does not match is ignored
EDITED: Final = "the file was edited since bammmc wrote it, so the block no longer describes it"


def decode(digest: str, payload: str, visible: bytes) -> dict[str, Any]:
    """The body of a block written after ``visible``, verified; :class:`Invalid` when it is not
    one bammmc wrote there."""
    if not re.fullmatch(r"[A-Za-z0-9_-]*", payload):
        raise Invalid("its payload holds characters that base64url does not use")
    if seal(visible, payload) != digest:
        raise Invalid(EDITED)
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        inflate = zlib.decompressobj()
        data = inflate.decompress(raw, MAX_PAYLOAD)
        if inflate.unconsumed_tail or not inflate.eof:
            raise Invalid("its payload is truncated or too large")
        body = msgspec.json.decode(data)
    except (ValueError, zlib.error, msgspec.DecodeError, RecursionError) as exc:
        raise Invalid(f"its payload does not decode ({exc})") from None
    if _too_deep(body):
        raise Invalid(f"its payload nests deeper than {MAX_DEPTH} levels")
    if not isinstance(body, dict) or body.get("v") != VERSION:
        raise Invalid(f"its payload is not a version-{VERSION} patch")
    return body


def _version(written: object) -> Invalid:
    if str(written) == "1":
        return Invalid(
            "it is a version-1 block, whose digest does not cover the file's text, so nothing "
            f"shows that it describes this file (this bammmc reads version {VERSION})"
        )
    return Invalid(f"it is version {written}; this bammmc reads version {VERSION}")


def _too_deep(data: Any) -> bool:
    """Deeper than a job can be (SPLAT's reader refuses more; the restore would recurse)."""
    stack = [(data, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(node, dict):
            stack += [(v, depth + 1) for v in node.values()]
        elif isinstance(node, list):
            stack += [(v, depth + 1) for v in node]
    return False


def _entries(body: dict[str, Any]) -> tuple[Entry, ...]:
    patch = body.get("patch")
    if not isinstance(patch, list):
        raise Invalid("its payload has no patch")
    if len(patch) > MAX_ENTRIES:
        raise Invalid(f"its patch holds {len(patch)} entries, more than {MAX_ENTRIES}")
    out = []
    for item in patch:
        path = item.get("p") if isinstance(item, dict) else None
        if (
            not isinstance(path, list)
            or not path
            or not all(
                isinstance(p, str) or (isinstance(p, int) and not isinstance(p, bool)) for p in path
            )
            or set(item) - {"p", "y", "x"}
        ):
            raise Invalid("its patch has a malformed entry")
        out.append(Entry(tuple(path), item.get("y", ABSENT), item.get("x", ABSENT)))
    return tuple(out)


# ── the comment form (script formats, HTCondor) ──────────────────────────────────────────


def comment_block(digest: str, payload: str) -> str:
    lines = [f"# {MAGIC} v{VERSION} sha256={digest}\n"]
    lines += [f"# {payload[i : i + WIDTH]}\n" for i in range(0, len(payload), WIDTH)]
    return "".join(lines)


def separator(text: str) -> str:
    """What goes between a text and its block: a blank line (which also ends a command whose
    last line ends with a `\\` continuation), after a final newline if the text lacks one."""
    return "\n" if text.endswith("\n") else "\n\n"


def open_heredoc(text: str) -> str | None:
    """The delimiter of a here-document the text leaves open at its end (a comment line
    appended there would become its input), or None.

    >>> open_heredoc("cat <<EOF\\nhi\\n"), open_heredoc("cat <<'EOF'\\nhi\\nEOF\\n")
    ('EOF', None)
    """
    pending: list[tuple[str, bool]] = []
    for line in text.split("\n"):
        if pending:
            word, tabs = pending[0]
            if (line.lstrip("\t") if tabs else line) == word:
                pending.pop(0)
            continue
        if line.lstrip().startswith("#"):  # a comment or a directive (`#BSUB -f "a << b"`)
            continue
        for m in _HEREDOC.finditer(line):
            pending.append((m.group(2), m.group(0).startswith("<<-")))
    return pending[0][0] if pending else None


def split_comment(text: str, reporter: Reporter) -> tuple[str, Found | None]:
    """``(text without its block, the verified block)``. A block that does not verify is
    reported (W411) and its comment lines are still taken off (they carry nothing the
    scheduler reads); a header that is not followed only by payload lines to the end of the
    file is reported and left in place."""
    found = text.rfind(_HEADER_NAME)  # a plain search: a lazy regex took 0.2 s on an 8 MB line
    if found < 0:
        return text, None
    start = text.rfind("\n", 0, found) + 1  # the start of the last line that names a block
    line_no = text.count("\n", 0, start) + 1
    head, _, rest = text[start:].partition("\n")
    span = Span(
        file=reporter.file,
        line=line_no,
        column=1,
        end_line=line_no,
        end_column=len(head) + 1,
        start=start,
        end=start + len(head),
    )
    lines = rest.split("\n")
    header = _HEADER.fullmatch(head.rstrip("\r"))
    payload_lines = [_LINE.fullmatch(line.rstrip("\r")) for line in lines[:-1]]
    if header is None or lines[-1] != "" or not payload_lines or not all(payload_lines):
        why = (
            "its first line is not `# bammmc-preserve v1 sha256=<digest>`"
            if header is None
            else "lines that are not part of it follow it"
            if lines[-1] != "" or not all(payload_lines)
            else "it has no payload"
        )
        _invalid(reporter, span, why, "the block must be the last lines of the file")
        return text, None
    before = text[:start]
    try:
        if header.group(1) != str(VERSION):
            raise _version(header.group(1))
        payload = "".join(m.group(1) for m in payload_lines if m)
        body = decode(header.group(2), payload, script_text(before))
        sep = body.get("sep")
        if not isinstance(sep, str) or not sep or not before.endswith(sep):
            raise Invalid("the text before it was changed where it joins the block")
        entries = _entries(body)
        target = body.get("to")
        if not isinstance(target, str):
            raise Invalid("its payload names no format")
    except Invalid as exc:
        _invalid(reporter, span, str(exc))
        return (before[:-1] if before.endswith("\n\n") else before), None
    return before[: len(before) - len(sep)], Found(target, entries, span)


def _invalid(reporter: Reporter, span: Span | None, why: str, help: str | None = None) -> None:
    reporter.report(
        "W411",
        f"the `{MAGIC}` block is ignored: {why}",
        span,
        notes=(
            "the fields the target format cannot express that bammmc kept in it are not "
            "restored; the job reads as the target scheduler runs it",
        ),
        help=help or "convert the original job again with `--preserve`",
    )


def _unwritable(reporter: Reporter, why: str, help: str) -> None:
    reporter.report(
        "W411",
        f"`--preserve` wrote no `{MAGIC}` block: {why}",
        notes=("the fields the target format cannot express are lost, as without `--preserve`",),
        help=help,
    )


# ── the attribute form (Flux jobspec) ────────────────────────────────────────────────────


def attribute(digest: str, payload: str) -> dict[str, Any]:
    """The value of ``attributes.user.bammmc``."""
    return {"preserve": VERSION, "sha256": digest, "payload": payload}


#: what the Flux writer embeds while the patch is being computed (its reader skips it)
PLACEHOLDER: Final = {"preserve": VERSION, "sha256": "", "payload": ""}


def is_attribute(value: Any) -> bool:
    """Is this ``attributes.user.bammmc`` value a block (a mapping with a ``preserve`` key)?
    The Flux lowering leaves such a value out of the job."""
    return isinstance(value, dict) and "preserve" in value


def find_attribute(root: Node | None, reporter: Reporter) -> Found | None:
    """The verified block of a Flux jobspec tree, or None (W411 when it does not verify)."""
    node = root
    for key in ("attributes", "user", FLUX_KEY):
        node = _child(node, key) if node is not None else None
    if node is None or not is_attribute(node.plain()):
        return None
    value = node.plain()
    try:
        if value.get("preserve") != VERSION:
            raise _version(value.get("preserve"))
        digest, payload = value.get("sha256"), value.get("payload")
        if not isinstance(digest, str) or not isinstance(payload, str):
            raise Invalid("it needs `sha256` and `payload` strings")
        body = decode(digest, payload, jobspec_text(root.plain() if root else None))
        target = body.get("to")
        if not isinstance(target, str):
            raise Invalid("its payload names no format")
        return Found(target, _entries(body), node.span)
    except Invalid as exc:
        _invalid(reporter, node.span, str(exc))
        return None


def _child(node: Node, key: str) -> Node | None:
    if node.kind != "map":
        return None
    for k, v in node.items:
        if k.kind == "scalar" and k.value == key:
            return v
    return None


# ── writing ──────────────────────────────────────────────────────────────────────────────


def embed(
    job: Job,
    fmt: Format,
    write: Callable[[WriteOptions, Reporter], list[OutputFile]],
    options: WriteOptions,
    reporter: Reporter,
) -> list[OutputFile]:
    """Write ``job`` as ``fmt`` with a block holding what ``fmt`` does not carry and a block may
    restore (:func:`kept`).

    ``write(options, reporter)`` runs the backend; its diagnostics about the fields the block
    keeps get a note saying so, and those about fields it may not keep a note saying why."""
    where = placement(fmt.name)
    if where is None:
        return write(options, reporter)
    if where == "attribute":
        files = write(replace(options, preserve_block=PLACEHOLDER), reporter)
    else:
        files = write(options, reporter)
    main = files[0].text
    back = _read_back(main, fmt, options)
    if back is None:
        _unwritable(
            reporter,
            f"bammmc cannot read its own `{fmt.name}` output back",
            "report this as a bug of bammmc; convert to `splat` to keep every field",
        )
        return write(options, Reporter(reporter.file)) if where == "attribute" else files
    entries, refused = kept(job, back)
    _note_kept(reporter, entries, refused, where)
    if not entries:
        return write(options, Reporter(reporter.file)) if where == "attribute" else files
    if where == "attribute":
        visible = jobspec_text(_jobspec_data(main, fmt))
        digest, payload = encode(fmt.name, entries, visible)
        files = write(replace(options, preserve_block=attribute(digest, payload)), Reporter())
    else:
        delimiter = open_heredoc(main)
        if delimiter is not None:
            _unwritable(
                reporter,
                f"the script ends inside a here-document (no `{delimiter}` line closes it), "
                "where comment lines would become its input",
                f"end the here-document with a `{delimiter}` line",
            )
            return files
        sep = separator(main)
        digest, payload = encode(fmt.name, entries, script_text(main + sep), sep)
        files = [replace(files[0], text=main + sep + comment_block(digest, payload)), *files[1:]]
    return files


def kept(job: Job, carried: Job) -> tuple[list[Entry], list[tuple[Path, str]]]:
    """The entries of the patch from ``carried`` (the job the target's text reads as) to
    ``job`` that a block may hold — exactly those :func:`restore` applies
    without a diagnostic — and the places it may not hold, with the code that would refuse
    them (W413: what runs, W414: the text sets it)."""
    data = wire(carried)
    entries: list[Entry] = []
    refused: list[tuple[Path, str]] = []
    for entry in diff(data, wire(job)):
        parts = _restorable_parts(entry)
        if parts != [entry]:
            refused += [(path, "W413") for path in _unrestorable(entry)]
        for part in parts:
            why = refusal(part, data, carried)
            if why is None:
                entries.append(part)
            else:
                refused.append((part.path, why))
    return entries, refused


def _unrestorable(entry: Entry) -> list[Path]:
    """The places of ``entry`` that no block may set."""
    out: list[Path] = []
    for path, empty in [*_leaves(entry.path, entry.y), *_leaves(entry.path, entry.x)]:
        if not restorable(Entry(path, ABSENT, [] if empty else None)) and path not in out:
            out.append(path)
    return out


def _jobspec_data(text: str, fmt: Format) -> Any:
    root = getattr(fmt.reader().scan(text, Reporter()), "root", None)
    return root.plain() if root is not None else None


def _read_back(text: str, fmt: Format, options: WriteOptions) -> Job | None:
    from bammmc.pipeline import Options, compile_text

    scratch = Reporter()
    settings = Options(
        band=options.band,
        lsf_unit=options.lsf_unit,
        lsf_reserve=options.lsf_reserve,
        sge_memory_resource=options.sge_memory_resource,
    )
    compiled = compile_text(text, fmt, scratch, settings)
    if len(compiled) != 1 or scratch.has_errors:
        return None
    return compiled[0].job


#: why a block does not keep a field, by the code that would refuse it
_NOT_KEPT: Final = {
    "W413": "a block never carries what decides what the job runs or where its files go",
    "W414": "the output sets this field, and a block never overrides what its file sets",
}


def _note_kept(
    reporter: Reporter, entries: Sequence[Entry], refused: Sequence[tuple[Path, str]], where: str
) -> None:
    from bammmc.ir.paths import related

    kept_paths = [field_path(e.path) for e in entries]
    place = "`attributes.user.bammmc`" if where == "attribute" else f"the `{MAGIC}` comment block"
    for i, diag in enumerate(reporter.diagnostics):
        if diag.code[:2] not in ("W2", "W3") or not diag.field:
            continue
        f = diag.field
        notes: list[str] = []
        if any(related(k, f) for k in kept_paths):
            notes.append(f"kept in {place}: converting this output back with bammmc restores it")
        for code in dict.fromkeys(c for p, c in refused if related(field_path(p), f)):
            notes.append(f"not kept in {place}: {_NOT_KEPT.get(code, code)}")
        if notes:
            reporter.diagnostics[i] = msgspec.structs.replace(diag, notes=(*diag.notes, *notes))


# ── reading ──────────────────────────────────────────────────────────────────────────────


def restore(job: Job, source_map: SourceMap, found: Found, fmt: str, reporter: Reporter) -> Job:
    """``job`` (read from ``fmt``) with the block's values put back where a block may set them
    (:func:`refusal`); W413, W414 or W412 for each entry it may not apply, W411 for a block
    written for another format."""
    if found.target != fmt:
        _invalid(
            reporter,
            found.span,
            f"it was written for `{found.target}`, but the file is read as `{fmt}`",
            f"read the file with `--from {found.target}`",
        )
        return job
    base = wire(job)
    data = wire(job)
    restored: list[Path] = []
    for entry in found.entries:
        why = refusal(entry, base, job)
        if why is None and not _set(data, entry.path, entry.x):
            why = "W412"
        if why is not None:
            _refused(reporter, source_map, found.span, entry, _get(base, entry.path), why)
            continue
        restored.append(entry.path)
    if not restored:
        return job
    rebuilt = _rebuild(data)
    if rebuilt is None:
        _invalid(
            reporter,
            found.span,
            "the fields it restores do not form a valid job with the file's other fields",
        )
        return job
    if found.span is not None:
        for path in restored:
            source_map.add(field_path(path), found.span, found.span)
    return rebuilt


def _same_or_absent(a: Any, b: Any) -> bool:
    return a is b if a is ABSENT or b is ABSENT else _same(a, b)


def _shown(v: Any) -> str:
    text = "unset" if v is ABSENT else msgspec.json.encode(v).decode()
    return text if len(text) <= 60 else text[:57] + "..."


def _refused(
    reporter: Reporter,
    source_map: SourceMap,
    block: Span | None,
    entry: Entry,
    now: Any,
    code: str,
) -> None:
    path = field_path(entry.path)
    if code == "W413":
        reporter.report(
            "W413",
            f"`{path}` is not restored from the `{MAGIC}` block: a block never sets what decides "
            "what the job runs",
            block,
            field=path,
            notes=(
                "the script, the program and its arguments, the environment, the working "
                "directory, the files and the container come from the file's own text only",
                "bammmc never writes such an entry: someone or something else made this block",
            ),
            help="nothing to do if the file's text is what should run; check where the file "
            "came from, and write the value in the file itself if it is wanted",
        )
        return
    written_at = source_map.key(path)
    labels: tuple[Label, ...] = ()
    if written_at is not None and block is not None:
        labels = (Label(span=block, message="the block holds another value"),)
    if code == "W414":
        reporter.report(
            "W414",
            f"`{path}` is not restored from the `{MAGIC}` block: the file sets it",
            written_at or block,
            label="set here" if written_at is not None else None,
            labels=labels,
            field=path,
            notes=(
                f"the file has {_shown(now)}; the block holds {_shown(entry.x)}",
                "a block restores only what the file cannot express, never a value it sets",
            ),
            help="nothing to do: the file's value is what the scheduler runs; to use the "
            "block's, write it in the file",
        )
        return
    reporter.report(
        "W412",
        f"`{path}` does not read as the `{MAGIC}` block recorded; the file's value is kept",
        written_at or block,
        label="reads otherwise" if written_at is not None else None,
        labels=labels,
        field=path,
        notes=(
            f"the block recorded {_shown(entry.y)} here and holds {_shown(entry.x)}; the file "
            f"reads {_shown(now)}",
            "the text is the one the block was written after (its digest matches): the bammmc "
            "reading it reads it otherwise than the one that wrote the block, or bammmc did "
            "not write the block",
        ),
        help="convert the original job again with `--preserve`",
    )


def _rebuild(data: dict[str, Any]) -> Job | None:
    """Wire data back into a job through the SPLAT reader (None when it does not decode)."""
    from bammmc.backends.splat import dump_yaml
    from bammmc.frontends.splat import read

    scratch = Reporter()
    reads = read(dump_yaml(data), scratch)
    if scratch.has_errors or len(reads) != 1:
        return None
    return reads[0].job
