"""bammmc.config: severity levels, selectors, configuration discovery and E016 positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from bammmc.config import (
    ConfigError,
    Policy,
    Rule,
    SelectorError,
    conflicts,
    file_rules,
    find_config,
    load,
    parse_selector,
)
from bammmc.diagnostics.model import Diagnostic

# ── selectors ───────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("text", "action", "selector"),
    [
        ("W201", "allow", "W201"),
        ("w201", "deny", "W201"),
        ("field-lost", "allow", "W201"),
        ("W3", "deny", "W3"),
        ("W40", "allow", "W40"),
        ("W", "deny", "W"),
        ("N001", "allow", "N001"),
    ],
)
def test_selectors(text: str, action: str, selector: str) -> None:
    assert parse_selector(text, action) == selector  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "action", "message"),
    [
        ("W999", "allow", "unknown code `W999`"),
        ("W99", "allow", "no code starts with `W99`"),
        ("feild-lost", "deny", "did you mean `field-lost`?"),
        ("E101", "allow", "errors cannot be allowed"),
        ("unknown-field", "allow", "errors cannot be allowed"),
        ("E1", "deny", "it is an error already"),
        ("W2,W3", "allow", "unknown code"),
    ],
)
def test_bad_selectors(text: str, action: str, message: str) -> None:
    with pytest.raises(SelectorError, match=message.replace("`", ".").replace("?", ".")):
        parse_selector(text, action)  # type: ignore[arg-type]


# ── levels ──────────────────────────────────────────────────────────────────────────────────

LEVELS = [
    # (strict, rules (selector, action, layer), code, level)
    (False, [], "W201", "default"),
    (True, [], "W201", "error"),
    (True, [], "W301", "error"),
    (True, [], "W401", "default"),  # strict is about losses, not suspicious input
    (False, [], "E101", "error"),
    (False, [("W4", "deny", 1)], "W409", "error"),
    (True, [("W201", "allow", 1)], "W201", "allow"),  # allowed beats strict
    (True, [("W2", "allow", 1)], "W301", "error"),
    # a code beats a prefix, a longer prefix a shorter one, whatever the order
    (False, [("W2", "deny", 1), ("W201", "allow", 1)], "W201", "allow"),
    (False, [("W201", "allow", 1), ("W2", "deny", 1)], "W201", "allow"),
    (False, [("W", "allow", 1), ("W40", "deny", 1)], "W409", "error"),
    (False, [("W", "allow", 1), ("W40", "deny", 1)], "W410", "allow"),
    # the command line (layer 1) beats the file (layer 0), even with a shorter selector
    (False, [("W201", "deny", 0), ("W2", "allow", 1)], "W201", "allow"),
    (False, [("W201", "allow", 0), ("W", "deny", 1)], "W201", "error"),
    # errors stay errors
    (False, [("E", "allow", 1)], "E101", "error"),
]


@pytest.mark.parametrize(("strict", "rules", "code", "level"), LEVELS)
def test_levels(strict: bool, rules: list[tuple[str, str, int]], code: str, level: str) -> None:
    policy = Policy(strict, tuple(Rule(s, a, n) for s, a, n in rules))  # type: ignore[arg-type]
    assert policy.level(code) == level


def test_apply_drops_allowed_and_promotes_denied() -> None:
    diags = [
        Diagnostic(code="W201", severity="warning", message="lost"),
        Diagnostic(code="W301", severity="warning", message="approximated"),
        Diagnostic(code="W409", severity="warning", message="suspicious"),
    ]
    policy = Policy(True, (Rule("W3", "allow", 1),))
    shown = policy.apply(diags)
    assert [(d.code, d.severity) for d in shown] == [("W201", "error"), ("W409", "warning")]
    assert policy.fails(diags)
    assert not Policy(False, (Rule("W3", "allow", 1),)).fails(diags)


def test_conflicts_are_per_layer() -> None:
    assert conflicts([Rule("W201", "allow", 0), Rule("W201", "deny", 1)]) == []
    assert conflicts([Rule("W2", "allow", 1), Rule("W2", "deny", 1)]) == ["W2"]


# ── discovery ───────────────────────────────────────────────────────────────────────────────


def test_the_closest_file_wins_and_bammmc_toml_before_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.bammmc]\nstrict = true\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_config(str(deep)) == str(tmp_path / "pyproject.toml")
    (tmp_path / "bammmc.toml").write_text("strict = false\n")
    assert find_config(str(deep)) == str(tmp_path / "bammmc.toml")
    (tmp_path / "a" / "pyproject.toml").write_text("[tool.bammmc]\n")
    assert find_config(str(deep)) == str(tmp_path / "a" / "pyproject.toml")


def test_a_pyproject_without_the_table_is_passed_over(tmp_path: Path) -> None:
    (tmp_path / "bammmc.toml").write_text("strict = true\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[project]\nname = "bammmc"\n[tool.ruff]\n')
    assert find_config(str(sub)) == str(tmp_path / "bammmc.toml")
    (sub / "pyproject.toml").write_text("[tool]\nbammmc = { strict = true }\n")
    assert find_config(str(sub)) == str(sub / "pyproject.toml")


# ── E016 ────────────────────────────────────────────────────────────────────────────────────


def _error(tmp_path: Path, name: str, text: str) -> Diagnostic:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        file_rules(load(str(path)))
    assert info.value.diagnostic.code == "E016"
    return info.value.diagnostic


@pytest.mark.parametrize(
    ("name", "text", "message", "where"),
    [
        ("bammmc.toml", "stirct = true\n", "unknown key `stirct` in `bammmc.toml`", (1, 1)),
        (
            "pyproject.toml",
            '[project]\nname = "x"\n\n[tool.bammmc]\n  "lsf_unit" = "MB"\n',
            "unknown key `lsf_unit` in `[tool.bammmc]`",
            (5, 3),
        ),
        (
            "bammmc.toml",
            'strict = "yes"\n',
            "`strict` must be `true` or `false`, not a string",
            (1, 1),
        ),
        ("bammmc.toml", 'allow = "W201"\n', "`allow` must be a list of codes", (1, 1)),
        ("bammmc.toml", 'deny = [\n  "W2",\n  "W99",\n]\n', "no code starts with `W99`", (3, 3)),
        ("bammmc.toml", "allow = ['E101']\n", "errors cannot be allowed", (1, 10)),
        ("bammmc.toml", 'allow = ["W201"]\ndeny = ["W201"]\n', "both allowed and denied", (2, 1)),
        ("bammmc.toml", "strict = true\nallow = [\n", "invalid TOML", (2, 10)),
        ("bammmc.toml", 'strict = "yes\n', "invalid TOML", (1, 14)),
        ("pyproject.toml", "[tool]\nbammmc = 3\n", "`bammmc` is not a table", None),
    ],
)
def test_invalid_files_point_at_the_place(
    tmp_path: Path, name: str, text: str, message: str, where: tuple[int, int] | None
) -> None:
    diag = _error(tmp_path, name, text)
    assert message in diag.message
    if where is None:
        assert diag.span is None and diag.file == str(tmp_path / name)
    else:
        assert diag.span is not None and (diag.span.line, diag.span.column) == where
        assert diag.span.file == str(tmp_path / name)


def test_a_valid_file(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.bammmc]\nstrict = true\nallow = ["W3", "field-lost"]\ndeny = ["W4"]\n')
    config = load(str(path))
    strict, rules = file_rules(config)
    assert strict is True
    assert rules == (Rule("W3", "allow", 0), Rule("W201", "allow", 0), Rule("W4", "deny", 0))


def test_an_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load(str(tmp_path / "missing.toml"))
    assert "cannot read the configuration file" in info.value.diagnostic.message
    (tmp_path / "latin1.toml").write_bytes(b"strict = true # caf\xe9\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load(str(tmp_path / "latin1.toml"))


@pytest.mark.parametrize("kind", ["device", "fifo", "huge"])
def test_reads_are_bounded(kind: str, tmp_path: Path) -> None:
    """`--config /dev/zero`, a FIFO nobody writes to, a 3 GB file: E016 at once, never a hang
    or a 3 GB read (issue #18, item 6)."""
    import os
    import subprocess
    import sys
    import time

    if kind == "device":
        path = "/dev/zero"
    elif kind == "fifo":
        path = str(tmp_path / "bammmc.toml")
        os.mkfifo(path)
    else:
        path = str(tmp_path / "bammmc.toml")
        with open(path, "wb") as fh:
            fh.truncate(3 * 1024**3)  # sparse: no disk used
    job = tmp_path / "job.sbatch"
    job.write_text("#!/bin/bash\n#SBATCH -n 1\nhostname\n")
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "bammmc", "check", str(job), "--config", path],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=Path(__file__).parent.parent,
    )
    assert proc.returncode == 2 and "E016" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert time.monotonic() - started < 30  # a real read of 3 GB (or of /dev/zero) takes longer
