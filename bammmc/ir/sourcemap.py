"""Field path -> source span, kept beside the IR (never inside it).

Paths use the wire names: ``spec.resources.cpusPerTask``, ``spec.tasks[1].name``,
``metadata.labels["app.kubernetes.io/name"]``. A path names the SPLAT field a diagnostic is about
(the ``field`` of a diagnostic) and finds the text in the source that set it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bammmc.diagnostics.model import Span


def join_path(path: str, name: str) -> str:
    """Append a key to a field path.

    >>> join_path("spec", "resources"), join_path("metadata.labels", "app.kubernetes.io/name")
    ('spec.resources', 'metadata.labels["app.kubernetes.io/name"]')
    """
    if name.replace("_", "a").isalnum() and not name[:1].isdigit():
        return f"{path}.{name}" if path else name
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'{path}["{quoted}"]'


@dataclass
class SourceMap:
    """Where each field was written: the span of its key and of its value."""

    keys: dict[str, Span] = field(default_factory=dict)
    values: dict[str, Span] = field(default_factory=dict)
    #: the first use of each shell variable in the job's script (`$PBS_NODEFILE`, `${X}`), for
    #: a diagnostic about one (bammmc.ir.envvars.references)
    references: dict[str, Span] = field(default_factory=dict)
    #: the text the job was read from, for a diagnostic about one of its script's lines
    text: str = ""

    def add(self, path: str, key: Span | None, value: Span | None) -> None:
        if key is not None:
            self.keys[path] = key
        if value is not None:
            self.values[path] = value

    def key(self, path: str) -> Span | None:
        """The span of the key that set ``path`` (or of its nearest written ancestor)."""
        return self._lookup(self.keys, path)

    def value(self, path: str) -> Span | None:
        """The span of the value of ``path`` (or of its nearest written ancestor)."""
        return self._lookup(self.values, path)

    def __contains__(self, path: str) -> bool:
        return path in self.keys or path in self.values

    def paths(self) -> list[str]:
        return list(dict.fromkeys([*self.keys, *self.values]))

    @staticmethod
    def _lookup(table: dict[str, Span], path: str) -> Span | None:
        """The span of ``path``, else of its nearest written ancestor, else of the first written
        field inside it (a whole `extensions.lsf` block is where its first key is)."""
        probe = path
        while probe:
            if probe in table:
                return table[probe]
            cut = max(probe.rfind("."), probe.rfind("["))
            if cut <= 0:
                break
            probe = probe[:cut]
        inside = [span for key, span in table.items() if key.startswith((path + ".", path + "["))]
        return min(inside, key=lambda s: (s.line, s.column)) if inside else None
