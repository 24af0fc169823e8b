"""Sweeps: point identity, expansion, running, resuming, failures and crashes.

Everything runs the real engine on small dumbbells (a few ms to ~0.5 s each) and a
real DuckDB file in ``tmp_path``. The module-level metric functions below run inside
the worker processes, so they must stay importable (spawned workers import this module
by name from ``sys.path``).
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import ccsim
import duckdb
import pytest
from _processes import sigint_default
from _scenarios import one_pair
from ccsim import sweep as sw
from ccsim.store import DB_NAME

BASE = one_pair()

# ~0.3-0.5 s of wall time per point: long enough to kill a sweep in the middle
# About a second per point (0.9 s here): the kill and Ctrl-C tests must catch a sweep of 6-8
# such points on 2 workers between its first stored point and its last.
SLOW = copy.deepcopy(BASE)
SLOW["duration"] = "40s"
SLOW["topology"]["pairs"] = 8
SLOW["topology"]["bottleneck"].update(rate="1Gbps", queue={"kind": "droptail", "limit": "1000pkt"})
SLOW["topology"]["access"]["rate"] = "10Gbps"

RATE = "topology.bottleneck.rate"


def bottleneck_metrics(results):
    """Metrics of the bottleneck queue (runs in the workers)."""
    q = results.queues.set_index("queue").loc["R1->R2"]
    return {
        "utilization": float(q["utilization"]),
        "drops": int(q["drops"]),
        "flows": {"count": len(results.flows)},  # nested: stored as "flows.count"
    }


def raise_on_seed_12(results):
    if results.scenario["seed"] == 12:
        raise ValueError("metric undefined for seed 12")
    return bottleneck_metrics(results)


def die_on_seed_22(results):
    if results.scenario["seed"] == 22:
        os.kill(os.getpid(), signal.SIGKILL)
    return bottleneck_metrics(results)


def _subprocess_env() -> dict:
    env = dict(os.environ)
    pkg_parent = str(Path(ccsim.__file__).resolve().parent.parent)
    tests_dir = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join(
        [pkg_parent, tests_dir, *filter(None, [env.get("PYTHONPATH")])]
    )
    return env


def _count_points(db: Path) -> int:
    """Rows in ``points``, or -1 while the file is missing or locked by the writer."""
    if not db.exists():
        return -1
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error:
        return -1
    try:
        return con.execute("SELECT count(*) FROM points").fetchone()[0]
    except duckdb.Error:
        return -1
    finally:
        con.close()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _group_gone(pgid: int, timeout: float = 10) -> bool:
    """Waits up to ``timeout`` seconds for the process group to exit."""
    deadline = time.monotonic() + timeout
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _group_alive(pgid)


def _leftovers(results_dir: Path) -> list[str]:
    return [str(p) for p in results_dir.rglob("*") if ".tmp-" in p.name]


# --------------------------------------------------------------------------- identity


def test_point_id_is_deterministic_and_tracks_the_resolved_scenario():
    a = sw.make_point(BASE)
    b = sw.make_point(copy.deepcopy(BASE))
    assert a.point_id == b.point_id
    assert len(a.point_id) == 16 and int(a.point_id, 16) >= 0

    # key order and unit spelling do not matter: the id hashes the resolved scenario
    respelled = copy.deepcopy(BASE)
    respelled["topology"]["bottleneck"]["rate"] = "10000kbps"
    reordered = dict(reversed(list(respelled.items())))
    assert sw.make_point(reordered).point_id == a.point_id

    # defaults filled in explicitly give the same point too
    assert sw.make_point(ccsim.resolve(BASE)).point_id == a.point_id

    other = copy.deepcopy(BASE)
    other["topology"]["bottleneck"]["queue"]["limit"] = "51pkt"
    assert sw.make_point(other).point_id != a.point_id
    assert sw.make_point({**BASE, "seed": 2}).point_id != a.point_id

    # the engine fingerprint is part of the identity
    resolved = ccsim.resolve(BASE)
    assert sw.point_id(resolved) == a.point_id
    assert sw.point_id(resolved, engine="0.0.0-other") != a.point_id
    assert sw.point_id(resolved, engine=ccsim.fingerprint()) == a.point_id
    assert sw.point_id(resolved, engine=ccsim.__version__) != a.point_id


def test_expand_product_zip_and_replications():
    axes = {RATE: ["10Mbps", "20Mbps"], "topology.bottleneck.queue.limit": ["20pkt", "50pkt"]}
    pts = sw.expand(BASE, axes)
    assert len(pts) == 4 == len(sw.Sweep(BASE, axes))
    assert [p.params for p in pts][:2] == [
        {RATE: "10Mbps", "topology.bottleneck.queue.limit": "20pkt"},
        {RATE: "10Mbps", "topology.bottleneck.queue.limit": "50pkt"},
    ]
    assert len({p.point_id for p in pts}) == 4
    assert all(p.error is None and p.resolved is not None for p in pts)

    zipped = sw.expand(BASE, axes, zip=[[RATE, "topology.bottleneck.queue.limit"]])
    assert [p.params["topology.bottleneck.queue.limit"] for p in zipped] == ["20pkt", "50pkt"]
    assert len(sw.Sweep(BASE, axes, zip=[list(axes)])) == 2

    reps = sw.expand(BASE, {RATE: ["10Mbps", "20Mbps"]}, replications=3, experiment="r")
    assert [p.seed for p in reps] == [1, 2, 3, 1, 2, 3]
    assert all("seed" not in p.params and p.experiment == "r" for p in reps)
    assert [p.scenario["seed"] for p in reps] == [1, 2, 3, 1, 2, 3]

    # list elements are addressed by index
    cc = sw.expand(BASE, {"flows.0.cc": ["newreno", "reno"]})
    assert [p.resolved["flows"][0]["cc"] for p in cc] == ["newreno", "reno"]

    with pytest.raises(sw.SweepError, match="equal lengths"):
        sw.expand(BASE, {RATE: ["10Mbps"], "seed": [1, 2]}, zip=[[RATE, "seed"]])
    with pytest.raises(sw.SweepError, match="not an axis"):
        sw.expand(BASE, {RATE: ["10Mbps"]}, zip=[["nope"]])

    bad = sw.expand(BASE, {RATE: ["10Mbps", "fast"]})
    assert bad[0].error is None
    assert bad[1].resolved is None and "topology.bottleneck.rate" in bad[1].error
    assert bad[1].point_id != bad[0].point_id


# --------------------------------------------------------------------------- running


def test_small_sweep_runs_stores_and_rerun_runs_nothing(tmp_path):
    base = copy.deepcopy(BASE)
    base["monitor"] = {"interval": "50ms"}
    sweep = sw.Sweep(base, {RATE: ["10Mbps", "20Mbps"]}, replications=2, experiment="small")
    df = sweep.run(
        tmp_path, jobs=2, metrics=bottleneck_metrics, keep_timeseries=["queue"], progress=True
    )
    assert df.attrs["ccsim_ran"] == 4
    assert list(df["status"]) == ["done"] * 4
    assert df.attrs["ccsim_params"] == [RATE]
    assert {"utilization", "drops"} <= set(df.attrs["ccsim_metrics"])
    assert (df["utilization"] > 0.3).all() and (df["utilization"] <= 1.0).all()
    assert list(df["seed"]) == [1, 2, 1, 2]

    db = tmp_path / DB_NAME
    with duckdb.connect(str(db), read_only=True) as con:
        first = con.execute("SELECT point_id, finished_at FROM points ORDER BY 1").fetchall()
        n_metrics = con.execute("SELECT count(*) FROM metrics").fetchone()[0]
    assert sorted(df["point_id"]) == [r[0] for r in first]
    for pid in df["point_id"]:
        assert (tmp_path / "timeseries" / pid / "queue.parquet").is_file()
        assert not (tmp_path / "timeseries" / pid / "flow.parquet").exists()

    again = sweep.run(tmp_path, jobs=2, metrics=bottleneck_metrics, progress=False)
    assert again.attrs["ccsim_ran"] == 0
    assert list(again["status"]) == ["done"] * 4
    assert again["utilization"].tolist() == df["utilization"].tolist()
    with duckdb.connect(str(db), read_only=True) as con:
        assert (
            con.execute("SELECT point_id, finished_at FROM points ORDER BY 1").fetchall() == first
        )
        assert con.execute("SELECT count(*) FROM metrics").fetchone()[0] == n_metrics

    # replications aggregate into Student-t intervals
    from ccsim.theory import confidence_interval

    agg = sw.aggregate(df, metrics=["utilization"], level=0.9)
    assert list(agg[RATE]) == ["10Mbps", "20Mbps"]
    assert list(agg["utilization_n"]) == [2, 2]
    vals = df[df[RATE] == "10Mbps"]["utilization"].tolist()
    mean, hw = confidence_interval(vals, 0.9)
    assert agg["utilization_mean"][0] == pytest.approx(mean)
    assert agg["utilization_half_width"][0] == pytest.approx(hw, nan_ok=True)


def test_failing_points_are_recorded_and_do_not_stop_the_others(tmp_path, capsys):
    pts = sw.expand(BASE, {"seed": [11, 12, 13], RATE: ["10Mbps", "fast"]}, experiment="fail")
    df = sw.run_sweep(pts, tmp_path, jobs=2, metrics=raise_on_seed_12, progress=False)
    err = capsys.readouterr().err
    assert "4 point(s) failed" in err

    status = {(s, r): st for s, r, st in zip(df["seed"], df[RATE], df["status"])}
    assert status == {
        (11, "10Mbps"): "done",
        (12, "10Mbps"): "failed",
        (13, "10Mbps"): "done",
        (11, "fast"): "failed",
        (12, "fast"): "failed",
        (13, "fast"): "failed",
    }
    errors = dict(zip(df["point_id"], df["error"]))
    failed = df[df["status"] == "failed"]
    assert any("metric undefined for seed 12" in errors[p] for p in failed["point_id"])
    assert sum("topology.bottleneck.rate" in errors[p] for p in failed["point_id"]) == 3

    db = tmp_path / DB_NAME
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM points").fetchone()[0] == 2
        rows = con.execute("SELECT point_id, error, traceback FROM failures").fetchall()
    assert len(rows) == 4
    assert any("ValueError" in (tb or "") for _, _, tb in rows)

    # a rerun retries the failed points only; the failures table is replaced, not appended
    again = sw.run_sweep(pts, tmp_path, jobs=2, metrics=raise_on_seed_12, progress=False)
    assert again.attrs["ccsim_ran"] == 4
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM failures").fetchone()[0] == 4
        assert con.execute("SELECT count(*) FROM points").fetchone()[0] == 2


def test_metrics_function_must_be_importable_by_workers(tmp_path):
    with pytest.raises(sw.SweepError, match="picklable"):
        sw.run_sweep(sw.expand(BASE), tmp_path, metrics=lambda r: {}, progress=False)
    assert not (tmp_path / DB_NAME).exists()


def test_a_worker_that_dies_does_not_wedge_the_sweep(tmp_path):
    pts = sw.expand(BASE, {"seed": [21, 22, 23, 24]}, experiment="crash")
    t0 = time.monotonic()
    df = sw.run_sweep(pts, tmp_path, jobs=2, metrics=die_on_seed_22, progress=False)
    assert time.monotonic() - t0 < 60
    status = dict(zip(df["seed"], df["status"]))
    assert status == {21: "done", 22: "failed", 23: "done", 24: "done"}
    assert "worker process died" in df.set_index("seed").loc[22, "error"]
    with duckdb.connect(str(tmp_path / DB_NAME), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM points").fetchone()[0] == 3
        assert con.execute("SELECT count(*) FROM failures").fetchone()[0] == 1


def _start_sweep_subprocess(results_dir: Path, n: int) -> subprocess.Popen:
    code = textwrap.dedent(
        f"""
        import copy, sys
        import ccsim.sweep as sw
        from test_sweep import SLOW
        base = copy.deepcopy(SLOW)
        base["monitor"] = {{"interval": "100ms"}}
        pts = sw.expand(base, {{"seed": list(range(1, {n} + 1))}}, experiment="kill")
        sw.run_sweep(pts, {str(results_dir)!r}, jobs=2, keep_timeseries=True, progress=False)
        """
    )
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env=_subprocess_env(),
        start_new_session=True,
        preexec_fn=sigint_default,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_first_point(proc: subprocess.Popen, db: Path, timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        n = _count_points(db)
        if n >= 1:
            return n
        if proc.poll() is not None:
            _, err = proc.communicate()
            pytest.fail(f"sweep subprocess exited early ({proc.returncode}):\n{err}")
        time.sleep(0.05)
    pytest.fail("no point was stored in time")


def test_sigkill_of_the_parent_loses_only_running_points(tmp_path):
    n = 6
    proc = _start_sweep_subprocess(tmp_path, n)
    db = tmp_path / DB_NAME
    try:
        _wait_for_first_point(proc, db)
        os.kill(proc.pid, signal.SIGKILL)  # the parent only: its workers must notice
        proc.wait(timeout=10)
        assert _group_gone(proc.pid), "workers outlived their killed parent"
    finally:
        if _group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()

    stored = _count_points(db)
    assert 1 <= stored < n, "kill the sweep earlier: every point had already finished"

    pts = sw.expand(
        {**copy.deepcopy(SLOW), "monitor": {"interval": "100ms"}},
        {"seed": list(range(1, n + 1))},
        experiment="kill",
    )
    df = sw.run_sweep(pts, tmp_path, jobs=2, keep_timeseries=True, progress=False)
    assert df.attrs["ccsim_ran"] == n - stored
    assert list(df["status"]) == ["done"] * n

    with duckdb.connect(str(db), read_only=True) as con:
        counts = con.execute("SELECT point_id, count(*) FROM points GROUP BY 1").fetchall()
        per_metric = con.execute(
            "SELECT max(c) FROM (SELECT count(*) AS c FROM metrics GROUP BY point_id, name)"
        ).fetchone()[0]
        flows = con.execute("SELECT point_id, count(*) FROM flows GROUP BY 1").fetchall()
    assert sorted(pid for pid, _ in counts) == sorted(p.point_id for p in pts)
    assert all(c == 1 for _, c in counts)
    assert per_metric == 1
    assert all(c == 8 for _, c in flows) and len(flows) == n
    assert _leftovers(tmp_path) == []
    ts_dirs = sorted(p.name for p in (tmp_path / "timeseries").iterdir())
    assert ts_dirs == sorted(p.point_id for p in pts)


def test_ctrl_c_stops_the_pool_and_keeps_finished_points(tmp_path):
    n = 8
    proc = _start_sweep_subprocess(tmp_path, n)
    db = tmp_path / DB_NAME
    try:
        _wait_for_first_point(proc, db)
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert _group_gone(proc.pid), "workers left running after Ctrl-C"
    finally:
        if _group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.returncode is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode != 0
    assert "sweep interrupted" in err and "KeyboardInterrupt" in err
    stored = _count_points(db)
    assert 1 <= stored < n
    assert _leftovers(tmp_path) == []


def test_dask_backend(tmp_path, dask_cluster):
    pts = sw.expand(BASE, {RATE: ["10Mbps", "20Mbps", "fast"]}, experiment="dask")
    df = sw.run_sweep(
        pts,
        tmp_path,
        scheduler=dask_cluster.scheduler_address,
        metrics=bottleneck_metrics,
        progress=False,
    )
    assert list(df["status"]) == ["done", "done", "failed"]
    assert (df["utilization"].iloc[:2] > 0.3).all()
    # the same points are done for a local rerun
    again = sw.run_sweep(pts, tmp_path, jobs=1, metrics=bottleneck_metrics, progress=False)
    assert again.attrs["ccsim_ran"] == 1  # only the invalid point is tried again


def test_aggregate_student_t():
    import pandas as pd

    df = pd.DataFrame(
        {
            "buf": [10, 10, 10, 20, 20],
            "cc": ["a", "a", "a", "a", "a"],
            "util": [0.8, 0.9, 1.0, 0.95, None],
            "status": ["done"] * 4 + ["failed"],
        }
    )
    out = sw.aggregate(df, by=["buf", "cc"], metrics="util", level=0.95)
    assert list(out.columns) == ["buf", "cc", "util_mean", "util_half_width", "util_n"]
    assert out["util_mean"].tolist() == pytest.approx([0.9, 0.95])
    # t_{0.975, 2} = 4.3027, s = 0.1, n = 3
    assert out["util_half_width"][0] == pytest.approx(4.302653 * 0.1 / 3**0.5, rel=1e-5)
    assert out["util_n"].tolist() == [3, 1]
    assert pd.isna(out["util_half_width"][1])
    with pytest.raises(KeyError):
        sw.aggregate(df, by="nope", metrics="util")


# --------------------------------------------------------------------------- engine


FINGERPRINT_SWEEP = """
import json, sys
import ccsim
from ccsim import sweep as sw
assert ccsim.__file__.startswith(sys.argv[2]), ccsim.__file__
pts = sw.expand(json.loads(sys.argv[3]), {"seed": [1, 2]}, experiment="fp")
df = sw.run_sweep(pts, sys.argv[1], jobs=1, progress=False)
print(json.dumps({"ran": df.attrs["ccsim_ran"], "engine": ccsim.fingerprint(),
                  "engines": sorted(set(df["engine"])), "ids": sorted(df["point_id"])}))
"""


def test_a_changed_engine_recomputes_the_points(tmp_path):
    """Another engine (here: one edited Python source of a copy of the package) gives
    other point ids, so a rerun computes the points again instead of reusing them."""
    import shutil

    pkg = tmp_path / "pkg"
    shutil.copytree(
        Path(ccsim.__file__).parent, pkg / "ccsim", ignore=shutil.ignore_patterns("__pycache__")
    )
    env = dict(os.environ, PYTHONPATH=str(pkg))
    store = tmp_path / "store"

    def sweep() -> dict:
        r = subprocess.run(
            [sys.executable, "-c", FINGERPRINT_SWEEP, str(store), str(pkg), json.dumps(BASE)],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout.strip().splitlines()[-1])

    first = sweep()
    assert first["ran"] == 2 and first["engines"] == [first["engine"]]
    assert sweep()["ran"] == 0  # same engine: reused
    with open(pkg / "ccsim" / "results.py", "a") as f:
        f.write("\n# a change to the model code\n")
    second = sweep()
    assert second["engine"] != first["engine"]
    assert second["engine"].rsplit(".", 1)[0] == first["engine"].rsplit(".", 1)[0]  # same Rust
    assert second["ran"] == 2 and second["engines"] == [second["engine"]]
    assert set(second["ids"]).isdisjoint(first["ids"])
    with duckdb.connect(str(store / DB_NAME), read_only=True) as con:
        engines = con.execute(
            "SELECT engine, count(*) FROM points GROUP BY 1 ORDER BY 1"
        ).fetchall()
    assert sorted(engines) == sorted([(first["engine"], 2), (second["engine"], 2)])


def test_an_outcome_from_another_engine_is_a_failure_not_a_point(tmp_path):
    from ccsim.progress import ProgressBar
    from ccsim.recorder import Recorder
    from ccsim.store import Store

    p = sw.make_point(BASE, experiment="mixed")
    out = {"ok": True, "engine": "0.0.0+elsewhere", "metrics": {}, "summary": {}}
    with Store(tmp_path).open_for_writing() as store:
        rec = Recorder(store, ccsim.__version__, ccsim.fingerprint(), ProgressBar(enabled=False))
        rec.record([(p, out)])
    assert rec.done == 0 and "computed by engine 0.0.0+elsewhere" in rec.failed[0][1]
    res = ccsim.open_results(tmp_path)
    assert res.points.empty and res.failures["engine"][0] == ccsim.fingerprint()


def test_aggregate_warns_when_replications_are_identical():
    import warnings

    import pandas as pd

    df = pd.DataFrame({"buf": [10, 10, 20, 20], "util": [0.9, 0.9, 0.8, 0.85]})
    with pytest.warns(sw.IdenticalReplicationsWarning, match="identical values of util"):
        out = sw.aggregate(df, by="buf", metrics="util")
    assert out["util_half_width"][0] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # different values, or a single run: no warning
        sw.aggregate(df[df["buf"] == 20], by="buf", metrics="util")
        sw.aggregate(df.head(1), by="buf", metrics="util")


def test_a_store_query_interrupted_by_ctrl_c_counts_as_ctrl_c():
    """DuckDB turns a SIGINT that arrives during a statement into its own error; the
    sweep treats that as Ctrl-C (message, KeyboardInterrupt), not as a crash. A real
    query, interrupted from another thread as SIGINT would."""
    import threading
    import time

    import duckdb

    con = duckdb.connect()
    caught = []

    def long_query():
        try:
            con.execute("SELECT count(*) FROM range(100000000000) t")
        except BaseException as e:  # the error is the subject of the test
            caught.append(e)

    t = threading.Thread(target=long_query)
    t.start()
    time.sleep(0.3)
    con.interrupt()
    t.join(30)
    assert caught and sw._interrupted_query(caught[0])
    assert sw._interrupted_query(RuntimeError("Query interrupted"))
    assert not sw._interrupted_query(RuntimeError("disk full"))
    assert not sw._interrupted_query(ValueError("interrupted"))
