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

      # bammmc-preserve v1 sha256=<64 hex digits>
      # <base64url of zlib(compact JSON)>, 74 characters a line

  base64url has no ``#``, ``$``, ``:``, space, quote or line break, so no value can become a
  directive (``#SBATCH``, ``#PBS``, ``#BSUB``, ``#$``, ``#flux:``) or a submit command;
* a Flux jobspec: ``attributes.user.bammmc`` = ``{preserve: 1, sha256: …, payload: …}``
  (Flux ignores user attributes; the Flux lowering hands this key to :func:`find_attribute`
  instead of keeping it in ``user_attributes``);
* SPLAT carries every field: no block.

The digest is the SHA-256 of the payload as written (the base64url text), checked before
anything is decoded. It detects edits and damage; it is not a signature.

Reading (:func:`split_comment` / :func:`find_attribute`, then :func:`restore`, both called by
``pipeline.compile_text``): a block that verifies is applied entry by entry — the source's value
is put back only where the text still carries the value the block recorded (``y``); a field the
user changed since keeps the user's value (W412). A block that does not verify, or that was
written for another format, is ignored (W411). Docs: ``docs/preserve.md``.
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
from bammmc.ir.sourcemap import SourceMap, join_path

if TYPE_CHECKING:
    from bammmc.backends import OutputFile, WriteOptions
    from bammmc.frontends.yamlnodes import Node
    from bammmc.ir.job import Job
    from bammmc.registry import Format

MAGIC: Final = "bammmc-preserve"
VERSION: Final = 1
#: the key under the Flux jobspec's `attributes.user`
FLUX_KEY: Final = "bammmc"
#: characters of payload on one comment line (`# ` + 74 = 76 columns)
WIDTH: Final = 74
#: a decompressed payload larger than this is refused (a block is a few KiB at most)
MAX_PAYLOAD: Final = 16 * 1024 * 1024
#: how deep a payload may nest (a job's wire data with the YAML reader's 64 levels inside it)
MAX_DEPTH: Final = 100

_HEADER: Final = re.compile(r"# bammmc-preserve v(\d+) sha256=([0-9a-f]{64})")
#: the start of a header line, or of a line that was one (anything before the name: damaged)
_HEADER_START: Final = re.compile(r"^[^\n]*?bammmc-preserve v", re.M)
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


# ── the payload ──────────────────────────────────────────────────────────────────────────


def encode(target: str, entries: Sequence[Entry], sep: str = "") -> tuple[str, str]:
    """``(sha256 hex, payload)``: the patch as compact JSON, zlib-compressed, base64url."""
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
    return hashlib.sha256(payload.encode("ascii")).hexdigest(), payload


class Invalid(Exception):
    """A block that does not verify; the message says why."""


def decode(digest: str, payload: str) -> dict[str, Any]:
    """The body of a block, verified; :class:`Invalid` when it is not one bammmc wrote."""
    if not re.fullmatch(r"[A-Za-z0-9_-]*", payload):
        raise Invalid("its payload holds characters that base64url does not use")
    if hashlib.sha256(payload.encode("ascii")).hexdigest() != digest:
        raise Invalid("its SHA-256 digest does not match its payload (it was edited or damaged)")
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
        raise Invalid("its payload is not a version-1 patch")
    return body


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
    starts = [m.start() for m in _HEADER_START.finditer(text)]
    if not starts:
        return text, None
    start = starts[-1]
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
            raise Invalid(f"it is version {header.group(1)}; this bammmc reads version {VERSION}")
        body = decode(header.group(2), "".join(m.group(1) for m in payload_lines if m))
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
            raise Invalid(f"it is version {value.get('preserve')!r}; this bammmc reads {VERSION}")
        digest, payload = value.get("sha256"), value.get("payload")
        if not isinstance(digest, str) or not isinstance(payload, str):
            raise Invalid("it needs `sha256` and `payload` strings")
        body = decode(digest, payload)
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
    """Write ``job`` as ``fmt`` with a block holding what ``fmt`` does not carry.

    ``write(options, reporter)`` runs the backend; its diagnostics about the fields the block
    keeps get a note saying so."""
    where = placement(fmt.name)
    if where is None:
        return write(options, reporter)
    if where == "attribute":
        files = write(replace(options, preserve_block=PLACEHOLDER), reporter)
    else:
        files = write(options, reporter)
    main = files[0].text
    carried = _read_back(main, fmt, options)
    if carried is None:
        _unwritable(
            reporter,
            f"bammmc cannot read its own `{fmt.name}` output back",
            "report this as a bug of bammmc; convert to `splat` to keep every field",
        )
        return write(options, Reporter(reporter.file)) if where == "attribute" else files
    entries = diff(wire(carried), wire(job))
    if not entries:
        return write(options, Reporter(reporter.file)) if where == "attribute" else files
    if where == "attribute":
        digest, payload = encode(fmt.name, entries)
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
        digest, payload = encode(fmt.name, entries, sep)
        files = [replace(files[0], text=main + sep + comment_block(digest, payload)), *files[1:]]
    _note_kept(reporter, entries, where)
    return files


def _read_back(text: str, fmt: Format, options: WriteOptions) -> Job | None:
    from bammmc.pipeline import Options, compile_text

    scratch = Reporter()
    settings = Options(
        band=options.band,
        lsf_unit=options.lsf_unit,
        sge_memory_resource=options.sge_memory_resource,
    )
    compiled = compile_text(text, fmt, scratch, settings)
    if len(compiled) != 1 or scratch.has_errors:
        return None
    return compiled[0].job


def _note_kept(reporter: Reporter, entries: Sequence[Entry], where: str) -> None:
    kept = [field_path(e.path) for e in entries]
    place = "`attributes.user.bammmc`" if where == "attribute" else f"the `{MAGIC}` comment block"
    for i, diag in enumerate(reporter.diagnostics):
        if diag.code[:2] not in ("W2", "W3") or not diag.field:
            continue
        f = diag.field
        if any(
            k == f or k.startswith((f + ".", f + "[")) or f.startswith((k + ".", k + "["))
            for k in kept
        ):
            note = f"kept in {place}: converting this output back with bammmc restores it"
            reporter.diagnostics[i] = msgspec.structs.replace(diag, notes=(*diag.notes, note))


# ── reading ──────────────────────────────────────────────────────────────────────────────


def restore(job: Job, source_map: SourceMap, found: Found, fmt: str, reporter: Reporter) -> Job:
    """``job`` (read from ``fmt``) with the block's values put back where the text still
    carries what the block recorded; W412 for each field changed since, W411 for a block
    written for another format."""
    if found.target != fmt:
        _invalid(
            reporter,
            found.span,
            f"it was written for `{found.target}`, but the file is read as `{fmt}`",
            f"read the file with `--from {found.target}`",
        )
        return job
    data = wire(job)
    restored: list[Path] = []
    for entry in found.entries:
        now = _get(data, entry.path)
        if not _same_or_absent(now, entry.y) or not _set(data, entry.path, entry.x):
            _edited(reporter, source_map, found.span, entry, now)
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


def _edited(
    reporter: Reporter, source_map: SourceMap, block: Span | None, entry: Entry, now: Any
) -> None:
    path = field_path(entry.path)
    written = source_map.key(path)
    labels: tuple[Label, ...] = ()
    if written is not None and block is not None:
        labels = (Label(span=block, message="the block keeps the original value"),)

    def shown(v: Any) -> str:
        text = "unset" if v is ABSENT else msgspec.json.encode(v).decode()
        return text if len(text) <= 60 else text[:57] + "..."

    reporter.report(
        "W412",
        f"`{path}` was changed after bammmc wrote this file; the file's value is kept",
        written or block,
        label="changed since" if written is not None else None,
        labels=labels,
        field=path,
        notes=(
            f"bammmc wrote {shown(entry.y)} here and kept {shown(entry.x)} in the block; the "
            f"file now has {shown(now)}",
        ),
        help="nothing to do if the change was meant; otherwise convert the original again",
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
