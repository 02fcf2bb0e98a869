"""CLI behaviour that the command tests in tests/cli/*.md cannot show (files, processes, colour)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

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


# ── --explain, --to all, levels: what the .md command tests cannot show ─────────────────────

GRES = "#!/bin/bash\n#SBATCH -J train\n#SBATCH --time=2:00:00\n#SBATCH --gres=gpu:a100:2\nrun\n"
SCHEMA = ROOT / "bammmc" / "diagnostics" / "diagnostics.schema.json"


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line]


def test_json_lines_follow_the_schema(tmp_path: Path) -> None:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    runs = [
        ["--from", "slurm", "--to", "pbs", "--explain", "--diagnostics", "json", "-"],
        [
            "--from",
            "slurm",
            "--to",
            "htcondor",
            "--explain",
            "--strict",
            "--diagnostics",
            "json",
            "-",
        ],
        ["--from", "slurm", "--to", "all", "--explain", "--diagnostics", "json", "-"],
        ["check", "--from", "slurm", "--diagnostics", "json", "-"],
    ]
    kinds = set()
    for argv in runs:
        stdin = "echo no shebang\n" if argv[0] == "check" else GRES  # W409
        result = CliRunner().invoke(main, argv, input=stdin)
        lines = _json_lines(result.stderr)
        if "all" in argv:
            lines += _json_lines(result.stdout)
        assert lines, argv
        for obj in lines:
            validator.validate(obj)
            kinds.add(obj["kind"])
    assert kinds == {"diagnostic", "explain", "explain-summary", "target"}
    # and the schema can fail: a row without its source, an unknown status, an extra key
    row = next(
        o
        for o in _json_lines(CliRunner().invoke(main, runs[0], input=GRES).stderr)
        if o["kind"] == "explain"
    )
    for bad in (
        {k: v for k, v in row.items() if k != "source"},
        {**row, "status": "kept"},
        {**row, "extra": 1},
        {**row, "kind": "explained"},
    ):
        assert not validator.is_valid(bad)
    config = tmp_path / "bad.toml"
    config.write_text("stirct = true\n")
    e016 = CliRunner().invoke(
        main, ["check", "--config", str(config), "--diagnostics", "json", "x"]
    )
    (diag,) = _json_lines(e016.stderr)
    validator.validate(diag)
    assert (diag["code"], diag["line"], e016.exit_code) == ("E016", 1, 2)


def test_explain_rows_read_the_output_back() -> None:
    result = CliRunner().invoke(
        main,
        ["--from", "slurm", "--to", "pbs", "--explain", "--diagnostics", "json", "-"],
        input=GRES,
    )
    rows = {o["field"]: o for o in _json_lines(result.stderr) if o["kind"] == "explain"}
    walltime = rows["spec.schedule.walltime"]
    assert (walltime["source"], walltime["line"], walltime["column"]) == ("--time=2:00:00", 3, 9)
    assert walltime["got"] == "-l walltime=02:00:00"  # the text PBS's reader maps to the field
    assert rows["metadata.name"]["source"] == "-J train"  # the option's dash included
    lost = rows["spec.resources.gpu.type"]
    assert (lost["status"], lost["code"], lost["got"]) == ("lost", "W201", None)
    assert "dropped" in lost["reason"]
    (summary,) = [o for o in _json_lines(result.stderr) if o["kind"] == "explain-summary"]
    counts = [
        sum(r["status"] == s for r in rows.values()) for s in ("exact", "approximated", "lost")
    ]
    assert [summary["exact"], summary["approximated"], summary["lost"]] == counts


def test_explain_table_is_rich_only_with_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["--from", "slurm", "--to", "pbs", "--explain", "-"]
    plain = CliRunner().invoke(main, argv, input=GRES)
    assert "\x1b[" not in plain.stderr and "lost W201" in plain.stderr
    monkeypatch.setenv("NO_COLOR", "1")  # `--color` beats NO_COLOR
    coloured = CliRunner().invoke(main, [*argv, "--color"], input=GRES)
    assert "\x1b[" in coloured.stderr and "spec.resources.gpu.type" in coloured.stderr
    assert "pbs: 4 exact, 0 approximated, 1 lost" in coloured.stderr


def test_no_color_is_respected_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from bammmc.cli import _use_color

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert _use_color(Tty(), None) is True
    assert _use_color(io.StringIO(), None) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert _use_color(Tty(), None) is False
    assert _use_color(Tty(), True) is True
    monkeypatch.setenv("NO_COLOR", "")  # an empty value does not count (no-color.org)
    assert _use_color(Tty(), None) is True


def test_explain_goes_into_the_sarif_log() -> None:
    result = CliRunner().invoke(
        main,
        ["--from", "slurm", "--to", "pbs", "--explain", "--diagnostics", "sarif", "-"],
        input=GRES,
    )
    (run,) = json.loads(result.stderr)["runs"]
    # `--gres=gpu:a100:2` is the GPU fields' spelling: a note; the model is lost (W201)
    assert {r["ruleId"] for r in run["results"]} == {"W201", "N003"}
    assert any(r["field"] == "spec.resources.gpu.type" for r in run["properties"]["explain"])
    assert run["properties"]["explainSummaries"][0]["lost"] == 1


def test_promoted_warnings_are_errors_in_sarif() -> None:
    result = CliRunner().invoke(
        main,
        ["--from", "slurm", "--to", "pbs", "--deny", "W201", "--diagnostics", "sarif", "-"],
        input=GRES,
    )
    assert result.exit_code == 1 and result.stdout == ""
    (run,) = json.loads(result.stderr)["runs"]
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels == {"W201": "error", "N003": "note"}
    rules = {r["id"]: r["defaultConfiguration"]["level"] for r in run["tool"]["driver"]["rules"]}
    assert rules["W201"] == "warning"  # the code's own level is unchanged


def test_to_all_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("job.sbatch").write_text(GRES)
    result = CliRunner().invoke(main, ["job.sbatch", "--to", "all"])
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.sbatch"]  # no job.sh either
    rows = result.stdout.splitlines()[1:-1]
    from bammmc.registry import FORMATS

    assert [r.split()[0] for r in rows] == [f for f in FORMATS if f != "slurm"]
    refused = CliRunner().invoke(main, ["job.sbatch", "--to", "all", "-o", "x.pbs"])
    assert refused.exit_code == 2 and not Path("x.pbs").exists()


def test_to_all_counts_the_writers_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    """A target whose writer reports an error `fails`; the others still convert (exit 0)."""
    from bammmc.registry import FORMATS

    writer = FORMATS["pbs"].writer()
    real = writer.write

    def refuse(job, reporter, options):
        files = real(job, reporter, options)
        reporter.report("E004", "refused for the test")
        return files

    monkeypatch.setattr(writer, "write", refuse)
    result = CliRunner().invoke(
        main, ["--from", "slurm", "--to", "all", "--diagnostics", "json", "-"], input=GRES
    )
    rows = {r["target"]: r for r in _json_lines(result.stdout)}
    assert (rows["pbs"]["status"], rows["pbs"]["errors"]) == ("fails", 1)
    assert "E004" in rows["pbs"]["codes"]
    assert rows["torque"]["status"] == "lossy" and result.exit_code == 0


def test_config_does_not_import_tomllib_without_a_file(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from bammmc.cli import main\n"
        "try:\n"
        "    main(['codes', 'W201'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "try:\n"
        "    main(['check', 'missing.sbatch'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('tomllib' in sys.modules, 'rich' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert proc.stdout.splitlines()[-1] == "False False", proc.stderr
    (tmp_path / "bammmc.toml").write_text("strict = true\n")
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert proc.stdout.splitlines()[-1] == "True False", proc.stderr


def test_config_sets_option_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bammmc.toml").write_text(
        'container-runtime = "singularity"\npriority-range = "0:10"\nmax-input-size = 20\n'
    )
    job = HEAD + "spec:\n  execution:\n    container: {image: alpine}\n    executable: /bin/true\n"
    Path("job.splat.yaml").write_text(job)
    result = CliRunner().invoke(main, ["job.splat.yaml", "--to", "slurm", "--diagnostics", "json"])
    assert result.exit_code == 1  # larger than 20 bytes
    assert [d["code"] for d in _json_lines(result.stderr)] == ["E005"]
    bigger = CliRunner().invoke(
        main, ["job.splat.yaml", "--to", "slurm", "--max-input-size", "9999"]
    )
    assert bigger.exit_code == 0, bigger.stderr
    assert "singularity" in bigger.stdout and "apptainer" not in bigger.stdout
    Path("bammmc.toml").write_text('priority-range = "10:0"\n')
    bad = CliRunner().invoke(main, ["check", "job.splat.yaml"])
    assert bad.exit_code == 2 and "E016" in bad.stderr and "priority-range" in bad.stderr
    Path("bammmc.toml").write_text('container-runtime = "docker"\n')
    assert CliRunner().invoke(main, ["check", "job.splat.yaml"]).exit_code == 0  # convert's key
    assert CliRunner().invoke(main, ["job.splat.yaml", "--to", "slurm"]).exit_code == 2


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
    assert script.read_text().splitlines()[::2] == ["#!/bin/bash", "hostname"]  # and a mark
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
    # sbatch's own output file (no `-o`), which HTCondor would otherwise discard
    out = "output = slurm-$(Cluster).out\nerror = slurm-$(Cluster).out\n"
    assert files[0][1] == f"executable = run.sh\nbatch_name = two\n{out}queue\n"
    text, _ = bammmc.convert(SBATCH, "slurm", "htcondor")
    assert text == f"executable = job.sh\nbatch_name = two\n{out}queue\n"


def test_notes_are_shown_with_verbose_only() -> None:
    """N003 (a value in the target's own form) is no warning: the human form prints it with
    `-v`, and otherwise one line counts it after the other diagnostics; a conversion with
    nothing else to say prints nothing; JSON always holds it (issue 19 item 8)."""
    args = ["--from", "slurm", "--to", "pbs", "-"]
    lossy = "#!/bin/bash\n#SBATCH --mem=8G --comment=hello -o out\necho $SLURM_JOB_ID\n"
    quiet = CliRunner().invoke(main, args, input=lossy)
    assert "note[N003]" not in quiet.stderr and "warning[W201]" in quiet.stderr
    # one summary line: what was printed, and the notes left out
    assert quiet.stderr.endswith("\n1 warning, 2 notes not shown (`-v` shows them)\n")
    loud = CliRunner().invoke(main, [*args, "-v"], input=lossy)
    assert loud.stderr.count("note[N003]") == 2 and "not shown" not in loud.stderr
    assert loud.stderr.endswith("\n1 warning, 2 notes\n")
    clean = "#!/bin/bash\n#SBATCH --gpus=2 -o out\necho $SLURM_JOB_ID\n"
    silent = CliRunner().invoke(main, args, input=clean)
    assert silent.exit_code == 0 and silent.stderr == "", silent.stderr
    machine = CliRunner().invoke(main, [*args[:-1], "--diagnostics", "json", "-"], input=clean)
    assert {json.loads(line)["code"] for line in machine.stderr.splitlines()} == {"N003"}
