"""Facts of Grid Engine's qsub and qmaster shared by its reader, lowering and writer."""

from __future__ import annotations

from typing import Final

from bammmc.ir.values import is_digits

#: what the qmaster refuses in a job's account string (`-A`) and name (`-N`): the
#: `QSUB_TABLE` of verify_str_key() (source/libs/sgeobj/sge_utility.c), "Slash ('/') not
#: allowed in objectname" and the like, checked with the Grid Engine oracle
QSUB_TABLE_CHARS: Final = "\n\t\r/:@\\*?"
#: and, beside them, in an account string: a blank, on which the oracle's qmaster fails ("Error
#: reading answer list from qmaster": the job is not submitted)
ACCOUNT_REFUSES: Final = QSUB_TABLE_CHARS + " "
#: names verify_str_key() refuses whatever the table, compared without case
RESERVED_NAMES: Final = frozenset({"none", "all", "template"})

#: what neither a cluster queue's name (the `KEY_TABLE` of verify_str_key(): no blank, `/ : '
#: " \ [ ] { } | ( ) @ % ,`) nor the syntax of a `-q` list around names (`,` between them,
#: `@host`, and the `[ ] * ? ! | & ( )` of a wildcard expression) has
QUEUE_REFUSES: Final = " \t\r\n/:\\{}%"

#: the pattern characters of a `wc_job` (formats/sge.md §2, sge_types(1): `*`, `?`, `[...]`,
#: and `\` to escape one): a job reference holding one is a pattern, not a job name
WILDCARDS: Final = "*?[]\\"


def is_pattern(ref: str) -> bool:
    """Is this `-hold_jid` reference a wildcard pattern (only Grid Engine matches it), not a
    job id or name (the portable dependency's value)?"""
    return not is_digits(ref) and any(c in ref for c in WILDCARDS)


def default_path(letter: str, array: bool) -> str:
    """The SPLAT template of the file qsub's `-o` (`letter` "o") or `-e` ("e") names when it
    names none, or names a directory: `<job_name>.o<job_id>[.<task_id>]` (qsub(1))."""
    return "{job_name}." + letter + ("{array_job_id}.{array_index}" if array else "{job_id}")
