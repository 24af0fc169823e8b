"""The results store: DuckDB schema, plain-DuckDB/pyarrow readability, the reader API,
schema evolution, leftovers of crashes and the single-writer lock.

Real engine runs, real DuckDB files in ``tmp_path``.
"""

from __future__ import annotations

import copy
import json
import math

import ccsim
import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest
from _scenarios import one_pair
from ccsim import store as st
from ccsim import sweep as sw

BASE = one_pair(monitor={"interval": "50ms"})
LIMIT = "topology.bottleneck.queue.limit"
PAIRS = "topology.pairs"
#: A finished point as `Store.record_points` takes it, without its id and tables.
RECORD = {
    "experiment": "x",
    "params": {"k": 1},
    "scenario": {"seed": 1},
    "summary": {"a": 1},
    "ccsim_version": "v",
    "seed": 1,
    "wall_s": 0.1,
}


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory):
    """Two experiments in one store: 2 points with time series, 2 points without."""
    d = tmp_path_factory.mktemp("store")
    a = sw.expand(BASE, {LIMIT: ["20pkt", "50pkt"]}, experiment="buffers")
    b = sw.expand(BASE, {PAIRS: [1, 2], "flows.0.cc": ["reno"]}, experiment="pairs")
    sw.run_sweep(a, d, jobs=2, keep_timeseries=True, progress=False)
    sw.run_sweep(b, d, jobs=2, progress=False)
    return d, a, b


def test_plain_duckdb_and_pyarrow_can_read_everything(store_dir):
    d, a, b = store_dir
    db = d / st.DB_NAME
    with duckdb.connect(str(db), read_only=True) as con:
        names = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        views = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views()").fetchall()}
        assert {"points", "metrics", "flows", "queues", "failures", "store_meta"} <= names
        assert "metrics_wide" in views
        assert con.execute("SELECT count(*) FROM points").fetchone()[0] == 4
        assert con.execute(
            "SELECT value FROM store_meta WHERE key = 'schema_version'"
        ).fetchone() == (st.SCHEMA_VERSION,)

        # JSON columns query like JSON
        limits = con.execute(
            "SELECT params->>'$.\"topology.bottleneck.queue.limit\"' AS l, "
            "scenario->>'$.topology.bottleneck.queue.limit' AS resolved "
            "FROM points WHERE experiment = 'buffers' ORDER BY l"
        ).fetchall()
        assert [r[0] for r in limits] == ["20pkt", "50pkt"]
        assert all(r[1] for r in limits)

        # the wide view has typed parameter columns and one column per metric
        wide = con.execute("SELECT * FROM metrics_wide WHERE experiment = 'pairs'").df()
        assert wide[PAIRS].dtype.kind == "i"
        assert sorted(wide[PAIRS]) == [1, 2]
        assert (wide["packets_delivered"] > 0).all()

        # flows and queues carry the point id; one flow per pair
        flows = con.execute(
            "SELECT p.params->>'$.\"topology.pairs\"' AS pairs, count(*) AS n "
            "FROM flows f JOIN points p USING (experiment, point_id) "
            "WHERE experiment = 'pairs' GROUP BY 1 ORDER BY 1"
        ).fetchall()
        assert flows == [("1", 1), ("2", 2)]
        util = con.execute(
            "SELECT point_id, utilization FROM queues WHERE queue = 'R1->R2'"
        ).fetchall()
        assert len(util) == 4 and all(0 < u <= 1 for _, u in util)

    for p in a:
        folder = d / "timeseries" / p.point_id
        files = sorted(f.name for f in folder.iterdir())
        assert "queue.parquet" in files and "flow.parquet" in files
        table = pq.read_table(folder / "queue.parquet")
        assert table.num_rows > 10 and "time_s" in table.column_names
    for p in b:  # keep_timeseries=False
        assert not (d / "timeseries" / p.point_id).exists()


def test_open_results_reader(store_dir):
    d, a, b = store_dir
    res = ccsim.open_results(d) if hasattr(ccsim, "open_results") else st.open_results(d)
    assert res.experiments == ["buffers", "pairs"]
    pts = res.points
    assert len(pts) == 4 and set(pts["status"]) == {"done"}
    assert isinstance(pts["params"][0], dict) and isinstance(pts["scenario"][0], dict)
    assert (pts["ccsim_version"] == ccsim.__version__).all()
    assert (pts["wall_s"] > 0).all()

    only_b = st.open_results(d, experiment="pairs")
    m = only_b.metrics
    assert list(m.columns[:3]) == ["experiment", "point_id", "seed"]
    assert m.attrs["ccsim_params"] == [PAIRS, "flows.0.cc"]
    assert LIMIT not in m.columns  # a parameter of the other experiment
    assert "packets_delivered" in m.attrs["ccsim_metrics"]
    assert set(m["experiment"]) == {"pairs"}
    assert len(only_b.flows) == 3 and set(only_b.flows["point_id"]) == {p.point_id for p in b}
    assert len(only_b.queues) > 0

    both = res.metrics
    assert len(both) == 4 and {LIMIT, PAIRS} <= set(both.columns)

    pid = a[0].point_id
    assert res.timeseries_names(pid) == ["component", "flow", "qdisc", "queue"]
    q = res.timeseries(pid, "queue")
    assert isinstance(q, pd.DataFrame) and len(q) > 10
    with pytest.raises(KeyError, match="keep_timeseries"):
        res.timeseries(b[0].point_id, "queue")

    n = res.sql("SELECT experiment, count(*) AS n FROM points GROUP BY ALL ORDER BY 1")
    assert n.to_dict("list") == {"experiment": ["buffers", "pairs"], "n": [2, 2]}
    got = res.sql("SELECT count(*) AS n FROM metrics WHERE point_id = ?", [pid])["n"][0]
    assert got > 5

    with pytest.raises(FileNotFoundError):
        st.open_results(d / "nope")


def test_reader_does_not_hold_the_file(store_dir):
    d, _, _ = store_dir
    res = st.open_results(d)
    _ = res.metrics
    # a writer can open the file right after a read: no lingering connection
    with st.Store(d).open_for_writing() as store:
        assert len(store.done_ids("buffers")) == 2


def test_columns_are_added_as_new_ones_appear(tmp_path):
    store = st.Store(tmp_path).open_for_writing()
    try:
        rec = RECORD | {
            "point_id": "p1",
            "metrics": {"m1": 1.0, "m2": None},
            "flows": pd.DataFrame({"flow": [0, 1], "bytes": [10, 20]}),
            "queues": pd.DataFrame({"queue": ["q"], "drops": [3]}),
        }
        assert store.record_points([rec]) == []
        rec2 = dict(rec, point_id="p2", params={"k": 2.5, "tag": "b"}, metrics={"m3": 7})
        rec2["flows"] = pd.DataFrame(
            {"flow": [0], "bytes": [5], "extra": ["new"], "empty": pd.Series([None], dtype=object)}
        )
        assert store.record_points([rec2]) == []
        # recording a point again replaces it (no duplicate rows)
        assert store.record_points([rec2]) == []
    finally:
        store.close()
    res = st.open_results(tmp_path)
    flows = res.flows.sort_values(["point_id", "flow"])
    assert flows["extra"].isna().sum() == 2
    assert flows["extra"].tolist()[-1] == "new"
    assert "empty" not in flows.columns  # no type yet: added once a value appears
    wide = res.metrics.set_index("point_id")
    assert wide.loc["p2", "k"] == 2.5 and wide.loc["p1", "k"] == 1.0  # BIGINT+DOUBLE -> DOUBLE
    assert wide.loc["p2", "tag"] == "b" and pd.isna(wide.loc["p1", "tag"])
    assert math.isnan(wide.loc["p1", "m2"]) and wide.loc["p2", "m3"] == 7
    assert res.sql("SELECT count(*) AS n FROM points")["n"][0] == 2
    assert res.sql("SELECT count(*) AS n FROM flows")["n"][0] == 3


def test_ctrl_c_while_storing_keeps_the_points_stored_before(tmp_path, monkeypatch):
    """A SIGINT that lands while DuckDB runs a point's statements comes back as DuckDB's
    own interrupt error: storing stops with KeyboardInterrupt (the sweep's Ctrl-C), not
    a failure row for that point; the points stored before it stay. The interrupt is
    DuckDB's own, on a real query of the store's connection."""
    import threading

    store = st.Store(tmp_path).open_for_writing()
    real = type(store)._insert_point

    def insert(self, con, rec):
        if rec["point_id"] == "p2":
            threading.Timer(0.3, con.interrupt).start()
            con.execute("SELECT count(*) FROM range(100000000000) t")
        return real(self, con, rec)

    monkeypatch.setattr(type(store), "_insert_point", insert)
    rec = RECORD | {"metrics": {"m1": 1.0}}
    try:
        with pytest.raises(KeyboardInterrupt):
            store.record_points([dict(rec, point_id=p) for p in ("p1", "p2", "p3")])
    finally:
        store.close()
    res = st.open_results(tmp_path)
    assert res.sql("SELECT point_id FROM points")["point_id"].tolist() == ["p1"]


def test_leftovers_of_a_crash_are_cleaned_on_open_and_nothing_else(tmp_path):
    pts = sw.expand(copy.deepcopy(BASE), {LIMIT: ["20pkt", "30pkt"]}, experiment="c")
    sw.run_sweep(pts[:1], tmp_path, jobs=1, keep_timeseries=["queue"], progress=False)
    ts = tmp_path / "timeseries"
    done = ts / pts[0].point_id
    # a writer killed after writing a point's time series, before recording the point:
    # the files are recorded as being written, one is still under its temporary name
    crashed = pts[1].point_id
    store = st.Store(tmp_path).open_for_writing()
    store.begin_files([("c", crashed, "queue"), ("c", crashed, "flow")])
    store.write_timeseries(crashed, {"queue": pd.DataFrame({"x": [1]})})
    (ts / crashed / ".flow.parquet.tmp-deadbeef").write_bytes(b"partial")
    store.close()
    # files ccsim did not write, even with names like its own, stay
    (ts / "mydata").mkdir()
    (ts / "mydata" / "queue.parquet").write_bytes(b"user data")
    (ts / "notes.tmp-keep.txt").write_text("keep")
    (done / ".flow.parquet.tmp-cafebabe").write_bytes(b"not ours: no record says so")

    with st.Store(tmp_path).open_for_writing():
        pass
    assert sorted(p.name for p in ts.iterdir()) == sorted(
        [pts[0].point_id, "mydata", "notes.tmp-keep.txt"]
    )
    assert sorted(p.name for p in done.iterdir()) == [".flow.parquet.tmp-cafebabe", "queue.parquet"]
    assert (ts / "mydata" / "queue.parquet").read_bytes() == b"user data"
    with duckdb.connect(str(tmp_path / st.DB_NAME), read_only=True) as con:
        rows = con.execute("SELECT point_id, name, status FROM files ORDER BY 1, 2").fetchall()
    assert rows == [(pts[0].point_id, "queue", "done")]


def test_one_writer_at_a_time(tmp_path):
    first = st.Store(tmp_path).open_for_writing()
    try:
        with pytest.raises(st.StoreLockedError, match="another sweep"):
            st.Store(tmp_path).open_for_writing()
        with pytest.raises(st.StoreLockedError):
            sw.run_sweep(sw.expand(BASE), tmp_path, progress=False)
    finally:
        first.close()
    st.Store(tmp_path).open_for_writing().close()  # released


def test_json_helpers():
    import numpy as np

    value = {"b": np.int64(3), "a": (1, np.float64(2.5)), "n": float("nan"), "s": {2, 1}}
    assert st.jsonable(value) == {"b": 3, "a": [1, 2.5], "n": None, "s": [1, 2]}
    assert st.dumps(value) == '{"a":[1,2.5],"b":3,"n":null,"s":[1,2]}'
    assert json.loads(st.dumps(value, sort_keys=False)) == json.loads(st.dumps(value))


def test_damaged_time_series_are_errors_on_read_and_recomputed(tmp_path):
    pts = sw.expand(copy.deepcopy(BASE), {LIMIT: ["20pkt", "30pkt", "40pkt"]}, experiment="d")
    sw.run_sweep(pts, tmp_path, jobs=2, keep_timeseries=["queue"], progress=False)
    res = st.open_results(tmp_path)
    files = [tmp_path / "timeseries" / p.point_id / "queue.parquet" for p in pts]
    good = [f.read_bytes() for f in files]
    with duckdb.connect(str(tmp_path / st.DB_NAME), read_only=True) as con:
        rows = con.execute("SELECT point_id, bytes, sha256 FROM files ORDER BY 1").fetchall()
    assert len(rows) == 3 and all(b > 0 and len(h) == 64 for _, b, h in rows)

    files[0].write_bytes(good[0][: len(good[0]) // 2])  # truncated
    files[1].unlink()  # deleted
    flipped = bytearray(good[2])
    flipped[len(flipped) // 2] ^= 0x10  # one flipped bit
    files[2].write_bytes(bytes(flipped))
    with pytest.raises(st.CorruptResultError, match="truncated"):
        res.timeseries(pts[0].point_id, "queue")
    with pytest.raises(st.CorruptResultError, match="missing"):
        res.timeseries(pts[1].point_id, "queue")
    with pytest.raises(st.CorruptResultError, match="checksum mismatch"):
        res.timeseries(pts[2].point_id, "queue")

    df = sw.run_sweep(pts, tmp_path, jobs=2, keep_timeseries=["queue"], progress=False)
    assert df.attrs["ccsim_ran"] == 3 and list(df["status"]) == ["done"] * 3
    assert [f.read_bytes() for f in files] == good  # deterministic: the same bytes again
    assert len(res.timeseries(pts[2].point_id, "queue")) > 10
    again = sw.run_sweep(pts, tmp_path, jobs=2, keep_timeseries=["queue"], progress=False)
    assert again.attrs["ccsim_ran"] == 0


def test_a_non_store_directory_is_refused_and_left_alone(tmp_path):
    proj = tmp_path / "proj"
    (proj / "timeseries" / "mydata").mkdir(parents=True)
    (proj / "timeseries" / "2024").mkdir()
    (proj / "timeseries" / "notes.tmp-keep.txt").write_text("mine")
    (proj / "timeseries" / "0123456789abcdef").mkdir()  # even a point-id-like name
    before = sorted(p.relative_to(proj) for p in proj.rglob("*"))
    with pytest.raises(st.NotAStoreError, match="not a ccsim results store"):
        sw.run_sweep(sw.expand(BASE), proj, progress=False)
    assert sorted(p.relative_to(proj) for p in proj.rglob("*")) == before
    with pytest.raises(st.StoreError, match="is a file"):
        sw.run_sweep(sw.expand(BASE), proj / "timeseries" / "notes.tmp-keep.txt", progress=False)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    with duckdb.connect(str(foreign / st.DB_NAME)) as con:
        con.execute("CREATE TABLE mine (x INTEGER)")
    with pytest.raises(st.NotAStoreError, match="did not create"):
        st.Store(foreign).open_for_writing()
    # an empty directory, or a new one, becomes a store
    (tmp_path / "empty").mkdir()
    st.Store(tmp_path / "empty").open_for_writing().close()
    st.Store(tmp_path / "new" / "store").open_for_writing().close()


def test_a_schema_1_store_is_upgraded_in_place(tmp_path):
    con = duckdb.connect(str(tmp_path / st.DB_NAME))
    con.execute("CREATE TABLE store_meta (key VARCHAR NOT NULL, value VARCHAR)")
    con.execute("INSERT INTO store_meta VALUES ('schema_version', '1')")
    con.execute(
        "CREATE TABLE points (experiment VARCHAR NOT NULL, point_id VARCHAR NOT NULL, "
        "params JSON, scenario JSON, summary JSON, ccsim_version VARCHAR, seed BIGINT, "
        "status VARCHAR, wall_s DOUBLE, finished_at TIMESTAMP)"
    )
    con.execute(
        "INSERT INTO points VALUES ('old', 'p', '{}', '{}', '{}', '0.1.0', 1, 'done', 1, now())"
    )
    con.close()
    df = sw.run_sweep(sw.expand(BASE, experiment="new"), tmp_path, jobs=1, progress=False)
    assert list(df["status"]) == ["done"] and df["engine"][0] == ccsim.fingerprint()
    pts = st.open_results(tmp_path).points.set_index("experiment")
    assert pd.isna(pts.loc["old", "engine"]) and pts.loc["new", "engine"] == ccsim.fingerprint()
