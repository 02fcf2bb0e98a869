"""The canonical priority band and its mapping to each scheduler's native range (pitfall 36)."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction

import pytest

from bammmc.ir.priority import (
    DEFAULT_BAND,
    NATIVE_RANGES,
    NativeRange,
    PriorityBand,
    from_native,
    to_native,
)

SCHEDULERS = sorted(NATIVE_RANGES)
WIDE = PriorityBand(0, 100000)
SIGNED = PriorityBand(-100, 100)
BANDS = [DEFAULT_BAND, WIDE, SIGNED, PriorityBand(1, 10)]

# ---- PriorityBand ----------------------------------------------------------------------------

BAND_VALID = [
    ("0:1000", 0, 1000),
    ("0:100000", 0, 100000),
    ("-5:5", -5, 5),
    ("-100:-1", -100, -1),
    ("1:2", 1, 2),
]


@pytest.mark.parametrize(("text", "low", "high"), BAND_VALID)
def test_band_parse_valid(text: str, low: int, high: int) -> None:
    band = PriorityBand.parse(text)
    assert (band.low, band.high) == (low, high)
    assert band == PriorityBand(low, high)
    assert str(band) == text


BAND_INVALID = ["1000:0", "5:5", "abc", "0-1000", "", "0:", ":1000", "1.5:3", "0:10:20", "a:b"]


@pytest.mark.parametrize("text", BAND_INVALID)
def test_band_parse_invalid(text: str) -> None:
    with pytest.raises(ValueError) as info:
        PriorityBand.parse(text)
    assert f"`{text}`" in str(info.value)
    assert "MIN:MAX" in str(info.value)


@pytest.mark.parametrize(("low", "high"), [(5, 5), (10, 0), (0, -1)])
def test_empty_band_rejected(low: int, high: int) -> None:
    with pytest.raises(ValueError, match="empty"):
        PriorityBand(low, high)


def test_band_defaults_and_membership() -> None:
    assert (DEFAULT_BAND.low, DEFAULT_BAND.high) == (0, 1000)
    assert PriorityBand() == DEFAULT_BAND
    assert 0 in DEFAULT_BAND
    assert 500 in DEFAULT_BAND
    assert 1000 in DEFAULT_BAND
    assert -1 not in DEFAULT_BAND
    assert 1001 not in DEFAULT_BAND
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_BAND.low = 1  # type: ignore[misc]


# ---- native ranges ---------------------------------------------------------------------------

NATIVE_EXPECTED = [
    # (scheduler, native range, native at band low / midpoint / high of 0:1000)
    ("slurm", NativeRange(0, 1000), (0, 500, 1000)),
    ("pbs", NativeRange(-1024, 1023, default=0), (-1024, 0, 1023)),
    ("torque", NativeRange(-1024, 1023, default=0), (-1024, 0, 1023)),
    ("htcondor", NativeRange(-1000, 1000, default=0), (-1000, 0, 1000)),
    ("armada", NativeRange(0, 1000), (0, 500, 1000)),
    ("flux", NativeRange(0, 31, default=16), (0, 16, 31)),  # 15.5 rounds half up
    ("lsf", NativeRange(1, 100), (1, 51, 100)),  # 50.5 rounds half up
    # Grid Engine reads -1023..1024; the band maps onto the symmetric part, so 500 is 0
    ("sge", NativeRange(-1023, 1023, default=0), (-1023, 0, 1023)),
    # nice: lower is more urgent, so the band's top maps to the bottom of the range
    ("slurm-nice", NativeRange(-10000, 10000, inverted=True, default=0), (10000, 0, -10000)),
]


def test_every_scheduler_has_an_expectation() -> None:
    assert sorted(s for s, _, _ in NATIVE_EXPECTED) == SCHEDULERS


@pytest.mark.parametrize(("scheduler", "rng", "natives"), NATIVE_EXPECTED)
def test_native_ranges(scheduler: str, rng: NativeRange, natives: tuple[int, int, int]) -> None:
    assert NATIVE_RANGES[scheduler] == rng


@pytest.mark.parametrize(("scheduler", "rng", "natives"), NATIVE_EXPECTED)
def test_to_native_at_band_ends_and_midpoint(
    scheduler: str, rng: NativeRange, natives: tuple[int, int, int]
) -> None:
    assert tuple(to_native(p, scheduler) for p in (0, 500, 1000)) == natives


@pytest.mark.parametrize(("scheduler", "rng", "natives"), NATIVE_EXPECTED)
def test_from_native_at_native_ends(
    scheduler: str, rng: NativeRange, natives: tuple[int, int, int]
) -> None:
    low, _, high = natives
    assert from_native(low, scheduler) == 0
    assert from_native(high, scheduler) == 1000


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("band", BANDS, ids=str)
def test_band_ends_map_to_native_ends(scheduler: str, band: PriorityBand) -> None:
    rng = NATIVE_RANGES[scheduler]
    urgent, relaxed = (rng.low, rng.high) if rng.inverted else (rng.high, rng.low)
    assert to_native(band.high, scheduler, band) == urgent
    assert to_native(band.low, scheduler, band) == relaxed
    assert from_native(urgent, scheduler, band) == band.high
    assert from_native(relaxed, scheduler, band) == band.low


@pytest.mark.parametrize(
    "scheduler", [s for s in SCHEDULERS if NATIVE_RANGES[s].default is not None]
)
def test_normal_priority_is_the_native_default(scheduler: str) -> None:
    assert to_native(500, scheduler) == NATIVE_RANGES[scheduler].default
    assert to_native(50000, scheduler, WIDE) == NATIVE_RANGES[scheduler].default
    assert to_native(0, scheduler, SIGNED) == NATIVE_RANGES[scheduler].default


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_direction_is_preserved(scheduler: str) -> None:
    """Higher band value = more urgent: native goes up, or down for nice-style scales."""
    rng = NATIVE_RANGES[scheduler]
    sign = -1 if rng.inverted else 1
    natives = [to_native(p, scheduler) for p in range(0, 1001)]
    steps = [sign * (b - a) for a, b in itertools.pairwise(natives)]
    assert all(step >= 0 for step in steps)
    assert sign * (natives[-1] - natives[0]) == rng.high - rng.low
    back = [from_native(n, scheduler) for n in range(rng.low, rng.high + 1)]
    back_steps = [sign * (b - a) for a, b in itertools.pairwise(back)]
    assert all(step >= 0 for step in back_steps)


def test_pbs_priority_is_not_slurm_nice() -> None:
    """Pitfall 36: PBS `-p` passed straight to Slurm `--nice` flips urgency."""
    urgent = from_native(1023, "pbs")
    assert urgent == 1000
    assert to_native(urgent, "slurm-nice") == -10000
    assert to_native(from_native(-1024, "pbs"), "slurm-nice") == 10000


def _native_step(scheduler: str, band: PriorityBand) -> Fraction:
    """One native unit, measured in band units."""
    rng = NATIVE_RANGES[scheduler]
    return Fraction(band.high - band.low, rng.high - rng.low)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("band", [DEFAULT_BAND, SIGNED, PriorityBand(1, 10)], ids=str)
def test_round_trip_error_is_at_most_half_a_native_step(scheduler: str, band: PriorityBand) -> None:
    step = _native_step(scheduler, band)
    errors = [
        abs(from_native(to_native(p, scheduler, band), scheduler, band) - p)
        for p in range(band.low, band.high + 1)
    ]
    assert max(errors) <= step / 2 + Fraction(1, 2)
    if step < 1:  # the native range is finer than the band: exact
        assert max(errors) == 0


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_round_trip_wide_band(scheduler: str) -> None:
    band = WIDE
    step = _native_step(scheduler, band)
    for p in range(0, 100001, 97):
        error = abs(from_native(to_native(p, scheduler, band), scheduler, band) - p)
        assert error <= step / 2 + Fraction(1, 2)


FINER_BANDS = [
    (scheduler, band)
    for band in (DEFAULT_BAND, WIDE)
    for scheduler in SCHEDULERS
    if _native_step(scheduler, band) >= 1
]


def test_finer_bands_cover_both_bands() -> None:
    assert {str(band) for _, band in FINER_BANDS} == {"0:1000", "0:100000"}
    assert len(FINER_BANDS) == 13  # all but pbs, torque, htcondor, sge and slurm-nice on 0:1000


@pytest.mark.parametrize(("scheduler", "band"), FINER_BANDS, ids=str)
def test_native_round_trip_exact_when_band_is_finer(scheduler: str, band: PriorityBand) -> None:
    rng = NATIVE_RANGES[scheduler]
    for n in range(rng.low, rng.high + 1):
        assert to_native(from_native(n, scheduler, band), scheduler, band) == n


DEFAULT_BAND_ROUND_TRIP = [
    # (scheduler, worst band → native → band error on 0:1000)
    ("slurm", 0),
    ("armada", 0),
    ("pbs", 0),
    ("torque", 0),
    ("htcondor", 0),
    ("slurm-nice", 0),
    ("lsf", 5),  # 99 native steps: 10.1 band units each
    ("flux", 16),  # 31 native steps: 32.3 band units each
]


@pytest.mark.parametrize(("scheduler", "worst"), DEFAULT_BAND_ROUND_TRIP)
def test_default_band_worst_round_trip(scheduler: str, worst: int) -> None:
    errors = [abs(from_native(to_native(p, scheduler), scheduler) - p) for p in range(1001)]
    assert max(errors) == worst


def test_wider_band_reduces_slurm_nice_loss() -> None:
    """`--priority-range 0:100000` exists to cut round-trip loss on wide native ranges."""
    lost_default = sum(
        to_native(from_native(n, "slurm-nice"), "slurm-nice") != n for n in range(-10000, 10001)
    )
    lost_wide = sum(
        to_native(from_native(n, "slurm-nice", WIDE), "slurm-nice", WIDE) != n
        for n in range(-10000, 10001)
    )
    assert lost_default > 0
    assert lost_wide == 0


def test_unknown_scheduler() -> None:
    with pytest.raises(KeyError):
        to_native(500, "moab")


# ---- the band through readers and writers -------------------------------------------------

BAND_CONVERSIONS = [
    # (source format, source line, band, target, expected native line in the output)
    ("slurm", "#SBATCH --priority=1000", "0:1000", "pbs", "#PBS -p 1023"),
    ("slurm", "#SBATCH --priority=1000", "0:100000", "pbs", "#PBS -p 1023"),
    ("slurm", "#SBATCH --priority=500", "0:100000", "slurm", "#SBATCH --priority=500"),
    ("pbs", "#PBS -p 1023", "0:100000", "slurm", "#SBATCH --priority=1000"),
    ("pbs", "#PBS -p -1024", "-100:100", "slurm", "#SBATCH --priority=0"),
    ("pbs", "#PBS -p 0", "-100:100", "pbs", "#PBS -p 0"),
]


@pytest.mark.parametrize(("src", "line", "band", "dst", "want"), BAND_CONVERSIONS)
def test_band_through_conversion(src: str, line: str, band: str, dst: str, want: str) -> None:
    """`--priority-range` reaches both the reader's and the writer's native mapping."""
    from click.testing import CliRunner

    from bammmc.cli import main

    text = f"#!/bin/bash\n{line}\necho hi\n"
    result = CliRunner().invoke(
        main, ["convert", "-", "--from", src, "--to", dst, "--priority-range", band], input=text
    )
    assert result.exit_code == 0, result.output
    assert want in result.stdout.splitlines()


@pytest.mark.parametrize(("band", "value"), [("0:1000", 300), ("0:100000", 30000)])
def test_band_sets_the_splat_value(band: str, value: int) -> None:
    """The SPLAT value is on the chosen band: Slurm 300 of 0..1000 is 30% of the way up."""
    from click.testing import CliRunner

    from bammmc.cli import main

    text = "#!/bin/bash\n#SBATCH --priority=300\necho hi\n"
    result = CliRunner().invoke(
        main,
        ["convert", "-", "--from", "slurm", "--to", "splat", "--priority-range", band],
        input=text,
    )
    assert result.exit_code == 0, result.output
    assert f"priority: {value}" in result.stdout
