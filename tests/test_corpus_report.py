"""tools/corpus_report.py: the per-format report over a corpus directory, and its exit status
(a crash or a file of the baseline that is no longer clean fails; a newly clean file does not)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).parent.parent
CLEAN = "#!/bin/bash\n#SBATCH --time=1:00:00\nsrun hostname\n"
BROKEN = "#!/bin/bash\n#SBATCH --time=bogus\nsrun hostname\n"  # E134


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "corpus_report", ROOT / "tools" / "corpus_report.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _corpus(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "corpus"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _run(tool: ModuleType, capsys: Any, *args: str) -> tuple[int, str]:
    status = tool.main(list(args))
    return status, capsys.readouterr().out


@pytest.mark.parametrize(
    ("relative", "listed", "fmt"),
    [
        ("slurm/a.sbatch", None, "slurm"),
        ("torque/a.pbs", None, "torque"),  # the folder names the format, not the extension
        ("misc/a.pbs", None, "pbs"),
        ("flux/valid/a.yaml", "flux", "flux"),
        ("flux/batch/valid/a.sh", "flux", "flux-batch"),
        ("classad/a.ad", "classad", None),  # not a format bammmc reads
        ("k8s/volcano/a.yaml", "k8s", None),
        ("notes.txt", None, None),
    ],
)
def test_format_of(tool: ModuleType, relative: str, listed: str | None, fmt: str | None) -> None:
    assert tool.format_of(relative, listed) == fmt


def test_report_counts_per_format(tool: ModuleType, tmp_path: Path, capsys: Any) -> None:
    root = _corpus(tmp_path, {"slurm/ok.sbatch": CLEAN, "slurm/bad.sbatch": BROKEN, "x.txt": "hi"})
    status, out = _run(tool, capsys, str(root), "--list")
    assert status == 0, out
    assert any(line.split()[:6] == ["slurm", "2", "1", "0", "1", "0"] for line in out.splitlines())
    assert "E134 1" in out
    assert "errors   slurm/bad.sbatch: E134" in out
    assert "not read (no bammmc format): .txt 1" in out


def test_a_crash_fails(
    tool: ModuleType, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _corpus(tmp_path, {"slurm/ok.sbatch": CLEAN})

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("reader bug")

    monkeypatch.setattr(tool, "compile_text", boom)
    status, out = _run(tool, capsys, str(root))
    assert status == 1
    assert "CRASH slurm/ok.sbatch (slurm): RuntimeError: reader bug" in out
    assert "FAIL: 1 crash(es)" in out


def test_a_clean_file_that_stops_being_clean_fails(
    tool: ModuleType, tmp_path: Path, capsys: Any
) -> None:
    root = _corpus(tmp_path, {"slurm/ok.sbatch": CLEAN, "slurm/was.sbatch": BROKEN})
    baseline = tmp_path / "baseline.txt"
    baseline.write_text("# clean files\nslurm/ok.sbatch\nslurm/was.sbatch\n")
    status, out = _run(tool, capsys, str(root), "--baseline", str(baseline))
    assert status == 1
    assert "REGRESSION slurm/was.sbatch (slurm): errors: E134" in out
    assert "slurm/ok.sbatch" not in out.split("REGRESSION", 1)[1]


def test_a_newly_clean_file_is_fine(tool: ModuleType, tmp_path: Path, capsys: Any) -> None:
    root = _corpus(tmp_path, {"slurm/ok.sbatch": CLEAN, "slurm/new.sbatch": CLEAN})
    baseline = tmp_path / "baseline.txt"
    baseline.write_text("slurm/ok.sbatch\n")
    status, out = _run(tool, capsys, str(root), "--baseline", str(baseline))
    assert status == 0, out
    assert "1 file(s) clean that" in out and "  slurm/new.sbatch" in out


def test_write_baseline_lists_the_clean_files(
    tool: ModuleType, tmp_path: Path, capsys: Any
) -> None:
    root = _corpus(tmp_path, {"slurm/ok.sbatch": CLEAN, "slurm/bad.sbatch": BROKEN})
    baseline = tmp_path / "baseline.txt"
    status, _ = _run(tool, capsys, str(root), "--write-baseline", str(baseline))
    assert status == 0
    listed = [line for line in baseline.read_text().splitlines() if not line.startswith("#")]
    assert listed == ["slurm/ok.sbatch"]
    status, _ = _run(tool, capsys, str(root), "--baseline", str(baseline))
    assert status == 0


def test_the_baseline_is_checked_in() -> None:
    lines = (ROOT / "tools" / "corpus_baseline.txt").read_text().splitlines()
    assert len([line for line in lines if line and not line.startswith("#")]) > 100
