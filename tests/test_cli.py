"""CLI behaviour that the command tests in tests/cli/*.md cannot show (files, processes, colour)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from bammmc.cli import main

ROOT = Path(__file__).parent.parent
HEAD = "apiVersion: bammm.io/v1alpha1\nkind: Job\n"


def test_a_file_named_like_a_subcommand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("check").write_text(HEAD + "metadata:\n  name: x\n")
    result = CliRunner().invoke(main, ["./check", "--to", "splat"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == HEAD + "metadata:\n  name: x\n"


def test_python_dash_m(tmp_path: Path) -> None:
    out = tmp_path / "out.splat.yaml"
    proc = subprocess.run(
        [sys.executable, "-m", "bammmc", "examples/simple-job.yaml", "-o", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().startswith("apiVersion: bammm.io/v1alpha1\nkind: Job\n")


def test_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and "0.1.0" in result.stdout


def test_output_to_stdout_with_dash() -> None:
    result = CliRunner().invoke(main, ["examples/simple-job.yaml", "--to", "splat", "-o", "-"])
    assert result.exit_code == 0 and result.stdout.startswith("apiVersion:")


def test_target_from_output_extension(tmp_path: Path) -> None:
    out = tmp_path / "x.splat.yaml"
    result = CliRunner().invoke(main, [str(ROOT / "examples/simple-job.yaml"), "-o", str(out)])
    assert result.exit_code == 0 and out.is_file()
    bad = CliRunner().invoke(main, [str(ROOT / "examples/simple-job.yaml"), "-o", "x.txt"])
    assert bad.exit_code == 2 and "cannot tell the target format" in bad.stderr


def test_colour_only_when_asked() -> None:
    bad = HEAD + "spec:\n  resources:\n    cpuPerTask: 4\n"
    plain = CliRunner().invoke(main, ["check", "--from", "splat", "-"], input=bad)
    assert "\x1b[" not in plain.stderr
    coloured = CliRunner().invoke(main, ["check", "--color", "--from", "splat", "-"], input=bad)
    assert "\x1b[" in coloured.stderr
    assert "cpuPerTask" in coloured.stderr


def test_schema_is_valid_json_schema() -> None:
    result = CliRunner().invoke(main, ["schema"])
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert "Job" in json.dumps(schema)


def test_formats_lists_the_registry() -> None:
    result = CliRunner().invoke(main, ["formats"])
    assert result.exit_code == 0
    assert result.stdout.split()[0] == "splat"


def test_explain_lists_fields() -> None:
    result = CliRunner().invoke(main, ["examples/simple-job.yaml", "--to", "splat", "--explain"])
    assert result.exit_code == 0
    assert "spec.resources.cpusPerTask" in result.stderr
    assert result.stderr.rstrip().splitlines()[-1].startswith("splat: ")
    assert " 0 approximated, 0 lost" in result.stderr


def test_sarif_is_valid_shape() -> None:
    bad = HEAD + "spec:\n  resources:\n    cpuPerTask: 4\n"
    result = CliRunner().invoke(main, ["check", "--diagnostics", "sarif", "-"], input=bad)
    log = json.loads(result.stdout if result.stdout else result.stderr)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    (res,) = run["results"]
    assert res["ruleId"] == "E101" and res["level"] == "error"
    region = res["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (5, 5)
    assert run["tool"]["driver"]["rules"][0]["id"] == "E101"


def test_strict_has_nothing_to_promote_for_splat() -> None:
    result = CliRunner().invoke(main, ["examples/array-job.yaml", "--to", "splat", "--strict"])
    assert result.exit_code == 0


def test_check_exit_status_and_summary(tmp_path: Path) -> None:
    good = tmp_path / "good.splat.yaml"
    good.write_text(HEAD)
    warn = tmp_path / "warn.splat.yaml"
    warn.write_text(
        HEAD + "spec:\n  resources:\n    tasks: 1\n  tasks:\n  - name: a\n    resources:\n"
        "      tasks: 2\n"
    )
    bad = tmp_path / "bad.splat.yaml"
    bad.write_text("kind: Job\n")
    ok = CliRunner().invoke(main, ["check", str(good), str(warn)])
    assert ok.exit_code == 0
    assert "checked 2 files: 1 clean, 1 with warnings, 0 with errors" in ok.stderr
    failing = CliRunner().invoke(main, ["check", str(good), str(bad)])
    assert failing.exit_code == 1
    assert "1 with errors" in failing.stderr


def test_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    import os

    name = os.fsdecode(b"caf\xe9.splat.yaml")
    path = tmp_path / name
    path.write_text("kind: Job\n")
    result = CliRunner().invoke(main, ["check", "--diagnostics", "json", str(path)])
    (diag,) = [json.loads(line) for line in result.stderr.splitlines()]
    assert diag["code"] == "E103" and diag["file"].endswith("caf\\xe9.splat.yaml")
    sarif = CliRunner().invoke(main, ["check", "--diagnostics", "sarif", str(path)])
    assert json.loads(sarif.stderr)["runs"][0]["results"][0]["ruleId"] == "E103"


def test_whole_file_problems_name_the_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.splat.yaml"
    empty.write_text("")
    result = CliRunner().invoke(main, ["check", "--diagnostics", "json", str(empty)])
    (diag,) = [json.loads(line) for line in result.stderr.splitlines()]
    assert (diag["code"], diag["file"], diag["line"]) == ("E001", str(empty), None)


def test_stdout_is_utf8_whatever_the_locale(tmp_path: Path) -> None:
    src = tmp_path / "job.splat.yaml"
    src.write_text(HEAD + "metadata:\n  name: café\n")
    proc = subprocess.run(
        [sys.executable, "-m", "bammmc", str(src), "--to", "splat"],
        capture_output=True,
        env={**__import__("os").environ, "PYTHONIOENCODING": "ascii"},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "café".encode() in proc.stdout


def test_trailing_document_marker_is_not_a_second_job() -> None:
    result = CliRunner().invoke(main, ["check", "--from", "splat", "-"], input=HEAD + "---\n")
    assert result.exit_code == 0, result.stderr


def test_output_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    src = tmp_path / "job.splat.yaml"
    src.write_text(HEAD)
    target = tmp_path / "real.splat.yaml"
    target.write_text("old\n")
    link = tmp_path / "link.splat.yaml"
    link.symlink_to(target)
    result = CliRunner().invoke(main, [str(src), "-o", str(link)])
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink() and target.read_text() == HEAD


# ── several files: an HTCondor submit file and the script it runs ───────────────────────────

SBATCH = "#!/bin/bash\n#SBATCH -J two\nhostname\n"


def test_script_job_to_htcondor_writes_the_submit_file_and_the_script(tmp_path: Path) -> None:
    src = tmp_path / "job.sbatch"
    src.write_text(SBATCH)
    out = tmp_path / "sub" / "out.sub"
    out.parent.mkdir()
    result = CliRunner().invoke(main, [str(src), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    script = tmp_path / "sub" / "out.sh"
    assert out.read_text().startswith("executable = out.sh\n")
    assert script.read_text() == "#!/bin/bash\nhostname\n"
    assert script.stat().st_mode & 0o100  # the submit file runs it
    assert f"wrote {script}" in result.stderr
    again = CliRunner().invoke(main, [str(src), "-o", str(out), "--diagnostics", "json"])
    assert again.exit_code == 0 and "wrote" not in again.stderr  # stderr stays JSON lines


def test_several_files_cannot_go_to_stdout(tmp_path: Path) -> None:
    src = tmp_path / "job.sbatch"
    src.write_text(SBATCH)
    result = CliRunner().invoke(main, [str(src), "--to", "htcondor", "--diagnostics", "json"])
    assert result.exit_code == 1 and result.stdout == ""
    (diag,) = [json.loads(line) for line in result.stderr.splitlines() if '"E015"' in line]
    assert "-o" in diag["help"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.sbatch"]


def test_an_executable_job_is_one_file_and_may_go_to_stdout(tmp_path: Path) -> None:
    src = tmp_path / "job.splat.yaml"
    src.write_text(HEAD + "spec:\n  execution:\n    executable: /bin/date\n")
    result = CliRunner().invoke(main, [str(src), "--to", "htcondor"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "executable = /bin/date\nqueue\n"


def test_the_extra_file_may_not_be_the_output_or_the_input(tmp_path: Path) -> None:
    src = tmp_path / "job.sh"
    src.write_text(SBATCH)
    clash = CliRunner().invoke(
        main, [str(src), "--from", "slurm", "--to", "htcondor", "-o", str(tmp_path / "x.sh")]
    )
    assert clash.exit_code == 1 and "E015" in clash.stderr
    over = CliRunner().invoke(main, [str(src), "--from", "slurm", "-o", str(tmp_path / "job.sub")])
    assert over.exit_code == 2 and "E013" in over.stderr
    assert src.read_text() == SBATCH
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.sh"]  # nothing written


def test_no_file_is_written_when_one_cannot_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    src = tmp_path / "job.sbatch"
    src.write_text(SBATCH)
    out = tmp_path / "out.sub"
    real = os.replace

    def fail_on_main_file(a: str, b: str) -> None:  # renamed last: the script is in place
        if str(b).endswith(".sub"):
            raise OSError(28, "No space left on device", str(b))
        real(a, b)

    monkeypatch.setattr(os, "replace", fail_on_main_file)
    result = CliRunner().invoke(main, [str(src), "-o", str(out)])
    assert result.exit_code == 1 and "E014" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.sbatch"]  # nothing left over


def test_library_returns_every_file() -> None:
    import bammmc

    files, _ = bammmc.convert_files(SBATCH, "slurm", "htcondor", stem="run")
    assert files is not None and [s for s, _ in files] == ["", ".sh"]
    assert files[0][1] == "executable = run.sh\nbatch_name = two\nqueue\n"
    text, _ = bammmc.convert(SBATCH, "slurm", "htcondor")
    assert text == "executable = job.sh\nbatch_name = two\nqueue\n"
