"""The speed guard (``benches/guard.py``): its comparison and baseline logic on synthetic
numbers, and the real check of the engine against ``benches/guard.json``, which runs in
CI (.ci/test installs valgrind there; elsewhere it is skipped where valgrind is missing).
"""

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _tools import require

ROOT = Path(__file__).resolve().parents[1]
GUARD = ROOT / "benches" / "guard.py"


def _load():
    spec = importlib.util.spec_from_file_location("ccsim_speed_guard", GUARD)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


guard = _load()
RUNS = (
    guard.Run("fast", guard.INSTRUCTIONS, "a speed run"),
    guard.Run("memory", guard.PEAK_RSS, "a memory run"),
)
BASE = {"fast": {"instructions": 1_000_000}, "memory": {"peak_rss_kb": 10_000}}


def check(measured, errors=None, baseline=BASE):
    return guard.compare(baseline, measured, errors, runs=RUNS)


def test_growth_over_the_tolerance_fails_naming_the_run():
    v = check({"fast": 1_050_000, "memory": 10_000})
    assert not v.ok
    assert len(v.failures) == 1 and v.failures[0].startswith("fast:")
    assert "+5.00 %" in v.failures[0] and "tolerance +3 %" in v.failures[0]


def test_growth_within_the_tolerance_passes():
    v = check({"fast": 1_020_000, "memory": 10_000})
    assert v.ok and not v.notes
    assert [r.cells()[-1] for r in v.rows] == ["+2.00 %", "+0.00 %"]


def test_memory_has_its_own_tolerance():
    assert check({"fast": 1_000_000, "memory": 10_400}).ok  # +4 % < 5 %
    v = check({"fast": 1_000_000, "memory": 10_600})  # +6 %
    assert not v.ok and v.failures[0].startswith("memory:")


def test_a_large_drop_passes_with_a_note_that_the_baseline_can_be_lowered():
    v = check({"fast": 900_000, "memory": 10_000})
    assert v.ok
    assert len(v.notes) == 1
    assert v.notes[0].startswith("fast:") and "can be lowered" in v.notes[0]
    assert "update --only fast" in v.notes[0]


def test_a_run_missing_from_the_baseline_fails_clearly():
    v = check({"fast": 1_000_000, "memory": 10_000}, baseline={"fast": BASE["fast"]})
    assert not v.ok
    assert v.failures == [
        "memory: no baseline for it in guard.json: record one with "
        'python benches/guard.py update --only memory --reason "new run"'
    ]


def test_a_run_that_could_not_be_measured_fails_with_its_error():
    v = check({"fast": 1_000_000}, errors={"memory": "exit status 1: bad scenario"})
    assert v.failures == ["memory: not measured: exit status 1: bad scenario"]


def test_update_without_a_reason_is_refused(tmp_path, monkeypatch):
    with pytest.raises(guard.GuardError, match="needs a reason"):
        guard.updated_baseline(None, {"fast": 1, "memory": 1}, " ", "d", "c", runs=RUNS)
    # From the command line, before measuring anything, and the file is left alone.
    monkeypatch.setattr(guard, "measure", lambda *a: pytest.fail("measured without a reason"))
    path = tmp_path / "guard.json"
    path.write_text("{}")
    assert guard.main(["update", "--reason", "", "--baseline", str(path)]) == 2
    assert path.read_text() == "{}"
    with pytest.raises(SystemExit):  # --reason is required
        guard.main(["update", "--baseline", str(path)])


def test_update_stamps_the_baseline_and_keeps_a_short_history():
    old = None
    for i in range(25):
        old = guard.updated_baseline(
            old, {"fast": 100 + i, "memory": 50}, f"change {i}", f"day {i}", f"c{i}", runs=RUNS
        )
    assert (old["reason"], old["date"], old["commit"]) == ("change 24", "day 24", "c24")
    assert old["runs"] == {"fast": {"instructions": 124}, "memory": {"peak_rss_kb": 50}}
    assert len(old["history"]) == guard.HISTORY_CAP
    assert [h["reason"] for h in old["history"][:2]] == ["change 23", "change 22"]
    assert old["history"][0]["runs"]["fast"] == {"instructions": 123}
    # --only: the other runs keep their numbers.
    new = guard.updated_baseline(
        old, {"memory": 60}, "memory", "d", "c", only=["memory"], runs=RUNS
    )
    assert new["runs"] == {"fast": {"instructions": 124}, "memory": {"peak_rss_kb": 60}}


def test_check_command_exit_status_and_advice(tmp_path, monkeypatch, capsys):
    path = tmp_path / "guard.json"
    path.write_text(json.dumps({"runs": BASE, "reason": "r", "date": "d", "commit": "c"}))
    monkeypatch.setattr(guard, "RUNS", RUNS)
    monkeypatch.setattr(guard, "DEFAULT_BIN", tmp_path / "run")
    measured = {"fast": 1_100_000, "memory": 10_000}
    monkeypatch.setattr(guard, "measure", lambda *a: (dict(measured), {}))
    assert guard.main(["check", "--no-build", "--baseline", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAILED (fast)" in out and "+10.00 %" in out
    assert 'benches/guard.py update --reason "' in out
    measured["fast"] = 1_000_000
    assert guard.main(["check", "--no-build", "--baseline", str(path)]) == 0
    assert "speed guard: OK" in capsys.readouterr().out
    # No baseline file: fails and says how to record one.
    assert guard.main(["check", "--no-build", "--baseline", str(tmp_path / "none.json")]) == 1
    assert "initial baseline" in capsys.readouterr().out


def test_every_run_has_a_scenario_and_a_baseline():
    baseline = json.loads((ROOT / "benches" / "guard.json").read_text())
    for run in guard.RUNS:
        assert run.scenario.is_file(), run.scenario
        assert run.measure in baseline["runs"].get(run.name, {}), run.name


def test_the_engine_passes_the_speed_guard():
    """The real check (about 10 s on 2 cores): the engine's instruction counts and peak
    memory within tolerance of benches/guard.json."""
    require("valgrind", "valgrind")
    if shutil.which("cargo") is None and not guard.DEFAULT_BIN.is_file():
        pytest.skip("neither cargo nor an engine binary (target/release/examples/run)")
    p = subprocess.run(
        [sys.executable, str(GUARD), "check"],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert p.returncode == 0, p.stdout + p.stderr
