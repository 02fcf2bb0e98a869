"""Helpers every backend shares."""

from __future__ import annotations

import msgspec

from bammmc.ir.job import Extensions, Spec


def foreign_extensions(spec: Spec, own: tuple[str, ...]) -> list[str]:
    """The `extensions.<scheduler>` blocks the job sets that belong to other schedulers (a
    backend reports each as lost): every block of the model, so a new one is never missed.

    >>> from bammmc.ir.job import PbsExt
    >>> foreign_extensions(Spec(extensions=Extensions(pbs=PbsExt(aoe="x"))), ("slurm",))
    ['pbs']
    """
    if spec.extensions is None:
        return []
    names = [f.name for f in msgspec.structs.fields(Extensions)]
    return [n for n in names if n not in own and getattr(spec.extensions, n) is not None]
