"""Priorities: SPLAT's canonical band and each scheduler's native range.

SPLAT ``schedule.priority`` is an integer on a band, 0–1000 by default, higher = more urgent
(500 = normal). ``--priority-range MIN:MAX`` changes the band. Each scheduler's native value is
mapped linearly between the band and its native range, inverting nice-style scales where a lower
number is more urgent, so conversions stay in range and keep their direction (pitfall 36).

>>> band = PriorityBand(0, 1000)
>>> to_native(1000, "pbs", band), to_native(0, "pbs", band)
(1023, -1024)
>>> from_native(1023, "pbs", band)
1000
>>> to_native(500, "flux", band)
16
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final


@dataclass(frozen=True)
class PriorityBand:
    low: int = 0
    high: int = 1000

    def __post_init__(self) -> None:
        if self.low >= self.high:
            raise ValueError(f"priority band {self.low}:{self.high} is empty")

    def __contains__(self, value: int) -> bool:
        return self.low <= value <= self.high

    def __str__(self) -> str:
        return f"{self.low}:{self.high}"

    @classmethod
    def parse(cls, text: str) -> PriorityBand:
        """``MIN:MAX`` as given to ``--priority-range``.

        >>> PriorityBand.parse("0:100000")
        PriorityBand(low=0, high=100000)
        """
        low, sep, high = text.partition(":")
        try:
            if not sep:
                raise ValueError
            return cls(int(low), int(high))
        except ValueError:
            raise ValueError(f"`{text}` is not MIN:MAX with MIN < MAX, e.g. `0:1000`") from None


DEFAULT_BAND: Final = PriorityBand()


@dataclass(frozen=True)
class NativeRange:
    low: int
    high: int
    #: True where a lower native number is more urgent (nice values)
    inverted: bool = False
    default: int | None = None


#: Native priority ranges (SPLAT specification, "Native ranges"; Flux RFC 14 urgency 0–31,
#: default 16; LSF ``-sp`` 1..MAX_USER_PRIORITY, 100 by default; Slurm ``--nice`` −2147483645…;
#: Grid Engine ``qsub -p`` −1023..1024, default 0, higher = more urgent, and users may only
#: lower it: a positive value needs operator or manager rights, shared/docs/formats/sge.md §3.
#: The band maps onto the symmetric −1023..1023 so that its middle is 0 (the default), not 1;
#: a native 1024 is still read, as the band's top, and kept exactly in extensions.sge.priority).
NATIVE_RANGES: Final[dict[str, NativeRange]] = {
    "slurm": NativeRange(0, 1000),
    "pbs": NativeRange(-1024, 1023, default=0),
    "torque": NativeRange(-1024, 1023, default=0),
    "htcondor": NativeRange(-1000, 1000, default=0),
    "armada": NativeRange(0, 1000),
    "flux": NativeRange(0, 31, default=16),
    "lsf": NativeRange(1, 100),
    "slurm-nice": NativeRange(-10000, 10000, inverted=True, default=0),
    "sge": NativeRange(-1023, 1023, default=0),
}


def _scale(value: Fraction, src: tuple[int, int], dst: tuple[int, int]) -> Fraction:
    return dst[0] + (value - src[0]) * (dst[1] - dst[0]) / (src[1] - src[0])


def _round(x: Fraction) -> int:
    return int(x.numerator * 2 + x.denominator) // (2 * x.denominator)


def to_native(priority: int, scheduler: str, band: PriorityBand = DEFAULT_BAND) -> int:
    """The native priority for a band value (rounded half up)."""
    rng = NATIVE_RANGES[scheduler]
    dst = (rng.high, rng.low) if rng.inverted else (rng.low, rng.high)
    return _round(_scale(Fraction(priority), (band.low, band.high), dst))


def from_native(native: int, scheduler: str, band: PriorityBand = DEFAULT_BAND) -> int:
    """The band value for a native priority (rounded half up)."""
    rng = NATIVE_RANGES[scheduler]
    src = (rng.high, rng.low) if rng.inverted else (rng.low, rng.high)
    return _round(_scale(Fraction(native), src, (band.low, band.high)))
