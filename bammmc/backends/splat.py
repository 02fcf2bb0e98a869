"""The SPLAT writer (format ``splat``): IR -> canonical SPLAT YAML.

Canonical means: the specification's field order (the order of the struct fields in
``ir/job.py``), defaults omitted, values as the user wrote them, multi-line strings as literal
blocks, no line wrapping, and the same bytes on every run, so that
``emit(parse(emit(job))) == emit(job)``. Siblings: ``frontends/splat.py``, ``ir/job.py``.

SPLAT keeps every field, so its capability table is simply "everything exact".
"""

from __future__ import annotations

import functools
from typing import Any, Final

import msgspec

from bammmc.backends import OutputFile, WriteOptions
from bammmc.capabilities import EXACT, Capabilities
from bammmc.diagnostics.model import Reporter
from bammmc.ir.job import Extensions, Job
from bammmc.ir.values import Value

#: Every IR field is written exactly.
CAPABILITIES: Final = Capabilities(
    "splat",
    tuple(f.name for f in msgspec.structs.fields(Extensions)),
    {"apiVersion": EXACT, "kind": EXACT, "metadata": EXACT, "spec": EXACT},
)


def enc_hook(obj: Any) -> Any:
    if isinstance(obj, Value):
        return obj.wire()
    # msgspec's hook protocol: "not a type this hook knows" (every IR type is handled above)
    raise NotImplementedError(f"cannot encode {type(obj).__name__}")


def to_builtins(job: Job) -> Any:
    """The job as plain data in wire form (camelCase keys, defaults omitted)."""
    return msgspec.to_builtins(job, enc_hook=enc_hook)


#: Characters a literal block cannot hold as themselves (YAML line breaks other than `\n`, BOM).
_NOT_IN_BLOCKS = frozenset("\r\x85\u2028\u2029\ufeff")


def _block_safe(text: str) -> bool:
    """Can this multi-line string be written as a `|` block and read back unchanged? Tabs and
    trailing spaces can (PyYAML refuses them only out of caution); control characters cannot."""
    return "\n" in text and not any(
        (ch < " " and ch not in "\n\t") or ch == "\x7f" or ch in _NOT_IN_BLOCKS for ch in text
    )


@functools.cache
def _dumper() -> type:
    """The pure-Python SafeDumper, so the canonical bytes do not depend on whether libyaml is
    installed (libyaml escapes characters beyond the BMP and refuses more block scalars)."""
    import yaml

    from bammmc.frontends.yamlnodes import resolve_plain

    class Dumper(yaml.SafeDumper):
        def analyze_scalar(self, scalar: str) -> Any:
            analysis = super().analyze_scalar(scalar)
            if _block_safe(scalar):
                analysis.allow_block = True
            return analysis

    def represent_str(dumper: Any, data: str) -> Any:
        # PyYAML quotes by YAML 1.1 rules; our reader resolves by YAML 1.2, so also quote what
        # 1.2 would read as something else (`1e3`, `0o17`).
        style: str | None = None
        if _block_safe(data):
            style = "|"
        elif any(ch in _NOT_IN_BLOCKS for ch in data):
            style = '"'  # a line break YAML folds in other styles (`\x85`, `\u2028`): escaped
        elif resolve_plain(data) != data or not isinstance(resolve_plain(data), str):
            style = "'"
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    Dumper.add_representer(str, represent_str)
    return Dumper


def dump_yaml(data: Any) -> str:
    import yaml

    text: str = yaml.dump(
        data,
        Dumper=_dumper(),
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=1_000_000,
        indent=2,
    )
    return text


def write(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> list[OutputFile]:
    return [OutputFile(dump_yaml(to_builtins(job)))]
