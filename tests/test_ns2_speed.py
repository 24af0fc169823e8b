"""The speed harness (``benches/ns2_speed.py``) on a scenario it cannot compare with ns-2: a
scenario file of the user's has no ns-2 translation, so the harness says so in one line and
still reports ccsim's own figures (issue 12, "Bad input"); a wrong bottleneck name is one
clear error. Real processes: the harness runs ccsim in a fresh interpreter, as it does for
its own scenarios.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _scenarios import one_pair

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "benches" / "ns2_speed.py"

SCENARIO = one_pair()


def harness(*args: str, path: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=path) if path is not None else None
    return subprocess.run(
        [sys.executable, str(HARNESS), "--repeat", "1", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


# The same with the machine's PATH (ns-2 installed or not) and with one where `ns` is
# certainly missing (only the interpreter's directory).
@pytest.mark.parametrize("path", [None, str(Path(sys.executable).parent)], ids=["path", "no-ns"])
def test_a_scenario_file_is_measured_with_ccsim_alone(tmp_path, path):
    path_file = tmp_path / "mine.json"
    path_file.write_text(json.dumps(SCENARIO))
    r = harness("--scenario", str(path_file), path=path)
    assert r.returncode == 0, r.stderr
    said = [line for line in r.stderr.splitlines() if "not compared" in line]
    assert len(said) == 1 and said[0].startswith("mine.json: ns-2 not compared"), r.stderr
    row = next(line for line in r.stdout.splitlines() if line.startswith("| mine.json |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:4] == ["—", "—", "—"]  # no ns-2 figures
    assert cells[-2].startswith("— (not compared")
    assert 0 < float(cells[-1].removesuffix(" s")) < 5  # start-up and output, wall
    # ccsim's own figures: departures per CPU second on the bottleneck, events/s, memory.
    process, engine = (float(x.split()[0]) for x in cells[5].split("/"))
    assert process > 0 and engine >= process
    assert float(cells[6].split()[0]) > 0 and cells[7].endswith("MB")


def test_a_wrong_bottleneck_is_one_clear_error(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(SCENARIO))
    r = harness("--scenario", str(path), "--bottleneck", "R9->R1")
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("mine.json: ccsim failed:") and "R9->R1" in last and "R1->R2" in last
