"""``ccsim sweep``, ``ccsim results`` and ``ccsim plot STORE`` through the real CLI in
subprocesses: a sweep file run and resumed (after Ctrl-C too), queried with SQL,
exported to CSV and Parquet, drawn; bad sweep files are one-line errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest
from _processes import sigint_default
from test_sweep import _count_points, _group_gone, _subprocess_env

from ccsim import sweepfile
from ccsim.store import DB_NAME

BASE = """
seed = 1
duration = "{duration}"
[topology]
kind = "dumbbell"
pairs = 2
[topology.bottleneck]
rate = "{rate}"
delay = "10ms"
queue = {{kind = "droptail", limit = "20pkt"}}
[topology.access]
rate = "1Gbps"
delay = {{uniform = ["1ms", "5ms"]}}
[[flows]]
pairs = "all"
cc = "newreno"
start = {{uniform = ["0s", "0.2s"]}}
"""

SWEEP = """
experiment = "buffers"
base = "base.toml"
replications = {reps}
metrics = ["queues[R1->R2].utilization", "queues[R1->R2].drops", "flows.goodput_bps:sum",
           "summary.events"]
[axes]
"topology.bottleneck.queue.limit" = ["10pkt", "40pkt"]
"flows.0.cc" = ["reno", "newreno"]
"""


def _files(tmp_path, reps=2, duration="2s", rate="10Mbps"):
    (tmp_path / "base.toml").write_text(BASE.format(duration=duration, rate=rate))
    (tmp_path / "sweep.toml").write_text(SWEEP.format(reps=reps))
    return tmp_path / "sweep.toml"


def ccsim(*args, cwd=None, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "ccsim.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=_subprocess_env(),
    )


def test_sweep_runs_resumes_and_prints_the_intervals(tmp_path):
    sf = _files(tmp_path)
    res = tmp_path / "res"
    r = ccsim("sweep", sf, "--results", res, "--jobs", 2, "--quiet")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    head = lines[0].split()
    assert head[:2] == ["topology.bottleneck.queue.limit", "flows.0.cc"]
    assert "queues[R1->R2].utilization" in head and head[-1] == "n"
    assert len(lines) == 5  # 2 x 2 configurations
    assert all(" ± " in ln and ln.split()[-1] == "2" for ln in lines[1:])
    again = ccsim("sweep", sf, "--results", res)
    assert again.returncode == 0
    assert "8 of 8 points done (0 run now" in again.stdout
    assert again.stdout.splitlines()[1:] == r.stdout.splitlines()


def test_results_lists_queries_and_exports(tmp_path):
    sf = _files(tmp_path)
    res = tmp_path / "res"
    assert ccsim("sweep", sf, "--results", res, "--quiet").returncode == 0
    r = ccsim("results", res)
    assert r.returncode == 0, r.stderr
    row = r.stdout.splitlines()[1].split()
    assert row[:3] == ["buffers", "done", "8"] and row[-1].startswith("0.1.0+")
    r = ccsim(
        "results",
        res,
        "--sql",
        'SELECT "flows.0.cc" AS cc, count(*) AS n FROM metrics_wide GROUP BY cc ORDER BY cc',
    )
    assert r.stdout.split() == ["cc", "n", "newreno", "4", "reno", "4"], r.stdout
    assert ccsim("results", res, "--csv", tmp_path / "m.csv").returncode == 0
    csv = (tmp_path / "m.csv").read_text().splitlines()
    assert len(csv) == 9 and "queues[R1->R2].drops" in csv[0]
    assert (
        ccsim(
            "results", res, "--sql", "SELECT * FROM points", "--parquet", tmp_path / "p.parquet"
        ).returncode
        == 0
    )
    assert pq.read_table(tmp_path / "p.parquet").num_rows == 8
    bad = ccsim("results", tmp_path)
    assert bad.returncode == 2 and "no ccsim results store" in bad.stderr


def test_plot_draws_a_sweep(tmp_path):
    sf = _files(tmp_path)
    res = tmp_path / "res"
    assert ccsim("sweep", sf, "--results", res, "--quiet").returncode == 0
    y = "queues[R1->R2].utilization"
    r = ccsim("plot", res, "--x", "topology.bottleneck.queue.limit", "--y", y)
    assert r.returncode == 0, r.stderr
    png = res / "plots" / "queues_R1-_R2_.utilization-vs-topology.bottleneck.queue.limit.png"
    assert png.exists() and png.stat().st_size > 5000 and str(png) in r.stdout
    r = ccsim("plot", res, "--x", "nope", "--y", y)
    assert r.returncode == 2 and "--x 'nope' is not a column" in r.stderr
    r = ccsim("plot", res)
    assert r.returncode == 2 and "--x AXIS and --y METRIC" in r.stderr


def test_sweep_resumes_after_ctrl_c(tmp_path):
    # points of about a second each: the store is readable between two of them (it is
    # locked while the recorder writes), so the first point is seen long before the last
    sf = _files(tmp_path, reps=4, duration="60s", rate="200Mbps")
    res = tmp_path / "res"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ccsim.cli",
            "sweep",
            str(sf),
            "--results",
            str(res),
            "--jobs",
            "2",
            "--quiet",
        ],
        env=_subprocess_env(),
        start_new_session=True,
        preexec_fn=sigint_default,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while _count_points(res / DB_NAME) < 1 and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert _group_gone(proc.pid)
    finally:
        if proc.returncode is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, err
    stored = _count_points(res / DB_NAME)
    assert 1 <= stored < 16
    r = ccsim("sweep", sf, "--results", res, "--jobs", 2, "--quiet", timeout=600)
    assert r.returncode == 0, r.stderr
    assert _count_points(res / DB_NAME) == 16


@pytest.mark.parametrize(
    "text, key",
    [
        ('base = "base.toml"\nreplication = 2\n', "replication: unknown key"),
        ('base = "none.toml"\n', "base: got 'none.toml'"),
        (
            'base = "base.toml"\nmetrics = ["queues.utilization"]\n',
            "metrics: got 'queues.utilization'",
        ),
        ('base = "base.toml"\nmetrics = ["links[a].x"]\n', "no table 'links'"),
        ('base = "base.toml"\nreplications = 0\n', "replications: got 0"),
        ('base = "base.toml"\nzip = [["a"]]\n[axes]\nb = [1]\n', "zip: got 'a'"),
        ('base = "base.toml"\n[axes]\nb = 1\n', "axes: got"),
    ],
)
def test_bad_sweep_files_are_one_line_errors(tmp_path, text, key):
    _files(tmp_path)
    (tmp_path / "bad.toml").write_text(text)
    with pytest.raises(sweepfile.SweepFileError, match=key.replace("[", r"\[")):
        sweepfile.read(tmp_path / "bad.toml")
    r = ccsim("sweep", tmp_path / "bad.toml", "--results", tmp_path / "res")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and key in r.stderr
    assert not (tmp_path / "res").exists()  # refused before anything was written


def test_named_metrics_read_the_tables():
    import ccsim

    r = ccsim.run(
        {
            "duration": "1s",
            "topology": {
                "kind": "dumbbell",
                "pairs": 2,
                "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
                "access": {"rate": "100Mbps", "delay": "1ms"},
            },
            "flows": [{"pairs": "all"}],
        }
    )
    m = sweepfile.NamedMetrics(
        tuple(
            sweepfile.Metric.parse(t)
            for t in (
                "queues[R1->R2].drops",
                "flows.bytes_delivered:sum",
                "flows.name:count",
                "summary.events",
            )
        )
    )
    out = m(r)
    q = r.queues.set_index("queue").loc["R1->R2"]
    assert out["queues[R1->R2].drops"] == q["drops"]
    assert out["flows.bytes_delivered:sum"] == r.flows["bytes_delivered"].sum()
    assert out["flows.name:count"] == 2 and out["summary.events"] == r.summary["events"]
    with pytest.raises(KeyError, match="no queues row named 'X'"):
        sweepfile.Metric.parse("queues[X].drops").value(r)


def test_sweep_on_a_dask_cluster(tmp_path, dask_cluster):
    sf = _files(tmp_path, reps=1)
    r = ccsim("sweep", sf, "--results", tmp_path / "res", "--dask", dask_cluster.scheduler_address)
    assert r.returncode == 0, r.stderr
    assert "4 of 4 points done (4 run now" in r.stdout


def test_the_docs_sweep_is_the_same_in_toml_and_python(tmp_path):
    """docs/sweeps.md shows one sweep both ways: the TOML file and the Python code give
    the same base, axes, replications and experiment, and the named metrics the values
    of the Python metrics function."""
    import ast
    import re
    from pathlib import Path

    import ccsim

    doc = (Path(__file__).resolve().parents[1] / "docs" / "sweeps.md").read_text()
    toml = re.search(r"<!-- sweep-toml:begin -->\n```toml\n(.*?)```", doc, re.S).group(1)
    code = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    (tmp_path / "docs.toml").write_text(toml)
    sf = sweepfile.read(tmp_path / "docs.toml")
    ns: dict = {"__name__": "docs"}
    exec(compile(code, "docs/sweeps.md", "exec"), ns)  # defines base and bottleneck
    call = next(
        n
        for n in ast.walk(ast.parse(code))
        if isinstance(n, ast.Call) and any(k.arg == "axes" for k in n.keywords)
    )
    kw = {k.arg: k.value for k in call.keywords}
    assert sf.sweep.base == ns["base"]
    assert sf.sweep.axes == ast.literal_eval(kw["axes"])
    assert sf.sweep.replications == ast.literal_eval(kw["replications"])
    assert sf.sweep.experiment == ast.literal_eval(kw["experiment"])
    r = ccsim.run(dict(ns["base"], duration="2s"))
    named = sf.metrics(r)
    py = ns["bottleneck"](r)
    assert named == {f"queues[R1->R2].{k}": float(v) for k, v in py.items()}
