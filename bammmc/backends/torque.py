"""The Torque writer (format ``torque``): the PBS writer with Torque's flags.

`nodes=N:ppn=M[:gpus=G][:feature]` instead of `select`, `pmem` per task, `-t` arrays (lists, no
step), `-d` working directory, `-P` is not a project. shared/docs/formats/torque.md.
"""

from __future__ import annotations

from typing import ClassVar

from bammmc.backends import OutputFile, WriteOptions
from bammmc.backends.pbs import CAPABILITIES, PbsWriter
from bammmc.diagnostics.model import Reporter
from bammmc.ir.job import Job

__all__ = ["CAPABILITIES", "TorqueWriter", "write"]


class TorqueWriter(PbsWriter):
    DIALECT: ClassVar[str] = "torque"
    ARRAY_OPTION: ClassVar[str] = "-t"
    HAS_WORKDIR_OPTION: ClassVar[bool] = True
    HAS_PROJECT: ClassVar[bool] = False
    NAME_LIMIT: ClassVar[int] = 256
    ARRAY_INDEX_TAG: ClassVar[str | None] = None
    NAME_RULE: ClassVar[str] = "printable characters without spaces"

    def name_char(self, c: str) -> bool:
        return c.isprintable() and not c.isspace()


def write(
    job: Job, reporter: Reporter | None = None, options: WriteOptions | None = None
) -> list[OutputFile]:
    return TorqueWriter(job, reporter or Reporter(), options or WriteOptions()).write()
