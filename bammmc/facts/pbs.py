"""Facts of PBS Professional's and Torque's `qsub` shared by their lowering and writers."""

from __future__ import annotations

import re
from typing import Final

#: a PBS size: INT[k|m|g|t|p][b|w], bytes by default, powers of 1024, `w` a word of 8 bytes
#: (pbs.md, `size`)
SIZE_MULTIPLIERS: Final = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}
_SIZE = re.compile(r"([0-9]+)([kmgtp]?)([bw]?)", re.I)


def default_path(letter: str, array: bool, torque: bool) -> str | None:
    """The SPLAT template of the file qsub names when `-o` (`letter` "o") or `-e` ("e")
    names none: `<jobname>.o<sequence number>` in the submit directory (pbs.md, `-e`/`-o`);
    PBS Professional appends the subjob index to an array's (`svr_jobfunc.c`, pbs.md §
    arrays). None for a Torque array, whose name is not verified here."""
    if not array:
        return "{job_name}." + letter + "{job_id}"
    if not torque:
        return "{job_name}." + letter + "{array_job_id}.{array_index}"
    return None


def size_bytes(text: str) -> int | None:
    """Bytes of a PBS size the reader's grammar has accepted (`4gb`, `512mb`, `100`), or None.

    >>> size_bytes("4gb"), size_bytes("3w"), size_bytes("x")
    (4294967296, 24, None)
    """
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        return None
    scale = SIZE_MULTIPLIERS[match.group(2).lower()] * (8 if match.group(3).lower() == "w" else 1)
    return int(match.group(1)) * scale


def torque_chunks(text: str) -> bool:
    """Whether chunks are in Torque's words: `ppn=`, or a node property (a word without `=`)
    (torque.md: `nodes=2:blue:ppn=2+red:ppn=3`).

    >>> torque_chunks("2:ppn=8+1:ppn=4"), torque_chunks("1:ncpus=4+2:ncpus=8")
    (True, False)
    """
    return "ppn=" in text or any(
        "=" not in part for chunk in text.split("+") for part in chunk.split(":")[1:]
    )
