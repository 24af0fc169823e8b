"""The ccsim command line, run as a user would (subprocess)."""

import json
import subprocess
import sys

import pyarrow.parquet as pq


def ccsim(*args, **kw):
    return subprocess.run(
        [sys.executable, "-m", "ccsim.cli", *args], capture_output=True, text=True, **kw
    )


def test_help_documents_commands():
    r = ccsim("--help")
    assert r.returncode == 0
    for cmd in ("run", "bench", "list", "reproduce"):
        assert cmd in r.stdout
    r = ccsim("run", "--help")
    assert r.returncode == 0 and "--set" in r.stdout and "--out" in r.stdout


def test_run_writes_summary_and_parquet(tmp_path):
    out = tmp_path / "o"
    r = ccsim(
        "run",
        "scenarios/dumbbell-newreno.toml",
        "--out",
        str(out),
        "--set",
        "duration=3s",
        "--set",
        "seed=7",
        "--set",
        "warmup=1s",
    )
    assert r.returncode == 0, r.stderr
    assert "queue R1->R2" in r.stdout
    s = json.loads((out / "summary.json").read_text())
    assert s["seed"] == 7 and s["duration_s"] == 3
    assert pq.read_table(out / "flows.parquet").num_rows == 2
    assert pq.read_table(out / "ts_queue.parquet").num_rows > 0


def test_bad_scenario_exits_2_with_one_line(tmp_path):
    r = ccsim("run", "scenarios/bench-dumbbell-8.toml", "--set", "topology.bottleneck.rate=fast")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "topology.bottleneck.rate" in lines[0] and '"fast"' in lines[0]
    bad = tmp_path / "bad.toml"
    bad.write_text("duration = \n")
    r = ccsim("run", str(bad))
    assert r.returncode == 2 and "not valid TOML" in r.stderr
    r = ccsim("run", str(tmp_path / "missing.toml"))
    assert r.returncode == 2


def test_bench_reports_speed():
    r = ccsim(
        "bench",
        "scenarios/bench-dumbbell-8.toml",
        "--repeat",
        "1",
        "--json",
        "--set",
        "duration=2s",
    )
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["delivered_data_packets_per_s"] > 0 and d["events_per_s"] > 0
