"""Lowering for ``torque``: the PBS lowering reads both dialects (``script.dialect``)."""

from bammmc.passes.lower.pbs import lower

__all__ = ["lower"]
