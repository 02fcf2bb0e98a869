"""Near-name suggestions ("did you mean `--time`?"), by edit distance as elm's Reporting.Suggest."""

from __future__ import annotations

from collections.abc import Iterable


def distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment), case-insensitive.

    >>> distance("cpuPerTask", "cpusPerTask"), distance("qeue", "queue")
    (1, 1)
    """
    a, b = a.lower(), b.lower()
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def suggestions(name: str, candidates: Iterable[str], limit: int = 3) -> list[str]:
    """Candidates close to ``name``, nearest first.

    >>> suggestions("walltme", ["walltime", "walltimeMin", "queue"])
    ['walltime']
    """
    scored = []
    limit_d = max(1, min(3, len(name) // 3))
    for cand in candidates:
        if cand.lower().startswith(name.lower()) and len(name) >= 3:
            scored.append((len(cand) - len(name), cand))  # the distance to a prefix
        elif abs(len(cand) - len(name)) <= limit_d:  # never nearer than the lengths differ:
            d = distance(name, cand)  # a 10 000-character name is not compared letter by letter
            if d <= limit_d:
                scored.append((d, cand))
    scored.sort()
    return [c for _, c in scored[:limit]]


def did_you_mean(name: str, candidates: Iterable[str], wrap: str = "%s") -> str | None:
    """``did you mean `x`?`` or ``None``.

    >>> did_you_mean("cpuPerTask", ["cpusPerTask", "tasks"])
    'did you mean `cpusPerTask`?'
    """
    found = suggestions(name, candidates)
    if not found:
        return None
    best = distance(name, found[0])
    found = [c for c in found if distance(name, c) == best]
    return "did you mean " + " or ".join(f"`{wrap % c}`" for c in found[:2]) + "?"
