"""The engine's own Parquet writer (``crates/ccsim-core/src/table/parquet.rs``), read back
by real readers (pyarrow, pandas, DuckDB), and the lazy tables of ``ccsim.Results``: a run
that is only saved builds no DataFrame and imports neither pandas nor pyarrow."""

import io
import json
import subprocess
import sys

import ccsim
import duckdb
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from ccsim import _ccsim
from hypothesis import given, settings
from hypothesis import strategies as st

TABLES = ("flows", "queues", "connections", "workloads", "trace")


def _everything(small) -> dict:
    """A scenario with every table: flows, queues, time series, a workload's
    connections, and the per-packet trace."""
    return {
        **small,
        "duration": "3s",
        "monitor": {"interval": "10ms"},
        "trace": {"links": ["R1->R2"]},
        "workloads": [
            {
                "name": "web",
                "pairs": "all",
                "arrival_rate": 20,
                "size": "20KB",
                "transport": {"kind": "tcp"},
            }
        ],
    }


def _frames(r: ccsim.Results) -> dict[str, pd.DataFrame]:
    out = {n: getattr(r, n) for n in TABLES}
    out |= {f"ts_{k}": v for k, v in r.timeseries.items()}
    return out


def test_saved_tables_read_back_exactly(small, tmp_path):
    r = ccsim.run(_everything(small))
    d = r.save(tmp_path / "out")
    frames = _frames(r)
    assert len(frames["connections"]) > 0 and len(frames["trace"]) > 0
    assert {"ts_queue", "ts_flow"} <= set(frames)
    back = _frames(ccsim.Results.load(d))
    assert set(back) == set(frames)
    for name, df in frames.items():
        pd.testing.assert_frame_equal(back[name], df, obj=name)  # dtypes too: categoricals
        # Plain readers see the same values (categoricals as their labels).
        via_arrow = pq.read_table(d / f"{name}.parquet").to_pandas()
        plain = df.astype({c: object for c in df.select_dtypes("category").columns})
        pd.testing.assert_frame_equal(via_arrow, plain, check_dtype=False, obj=name)
        rows = duckdb.sql(f"select * from '{d / f'{name}.parquet'}'").fetchall()
        want = [tuple(t) for t in plain.itertuples(index=False)]
        assert len(rows) == len(want), name
        for got, exp in zip(rows, want):
            assert all(a == b or (a != a and b != b) for a, b in zip(got, exp)), (name, got, exp)


def test_table_bytes_do_not_depend_on_building_frames(small, tmp_path):
    sc = _everything(small)
    untouched = ccsim.run(sc)
    viewed = ccsim.run(sc)
    _frames(viewed)  # every DataFrame built
    a, b = untouched.save(tmp_path / "a"), viewed.save(tmp_path / "b")
    files = sorted(p.name for p in a.glob("*.parquet"))
    assert files == sorted(p.name for p in b.glob("*.parquet")) and len(files) >= 7
    for name in files:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    # A loaded run saves the very bytes it read.
    c = ccsim.Results.load(a).save(tmp_path / "c")
    for name in files:
        assert (c / name).read_bytes() == (a / name).read_bytes(), name


def test_run_with_out_imports_neither_pandas_nor_pyarrow(tmp_path):
    code = (
        "import sys, ccsim.cli\n"
        "rc = ccsim.cli.main(['run', 'scenarios/dumbbell-newreno.toml', '--set', 'duration=2s', '--set', 'warmup=1s',"
        f" '--out', {str(tmp_path / 'o')!r}])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'pyarrow', 'numpy'})\n"
        "print('HEAVY', heavy); sys.exit(rc)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "HEAVY []" in p.stdout, p.stdout
    assert "goodput" in p.stdout  # the summary was printed, from the engine's columns
    r = ccsim.Results.load(tmp_path / "o")
    assert len(r.flows) == 2 and (r.flows["bytes_delivered"] > 0).all()


def test_column_reads_every_form(small, tmp_path):
    r = ccsim.run(small)
    before = r.column("flows", "goodput_bps")
    assert before == r.flows["goodput_bps"].tolist()  # engine columns, then the frame
    loaded = ccsim.Results.load(r.save(tmp_path / "o"))
    assert loaded.column("flows", "goodput_bps") == before  # Parquet bytes
    assert loaded.column("queues", "queue") == r.queues["queue"].astype(str).tolist()
    assert loaded.column("connections", "start_s") == []  # no workload: no rows
    with pytest.raises(KeyError, match="no column 'nope'"):
        r.column("flows", "nope")


def test_frames_of_other_types_are_saved_by_pyarrow(small, tmp_path):
    r = ccsim.run(small)
    r.flows = r.flows.assign(done=r.flows["bytes_delivered"] > 0, n32=np.int32(3))
    back = ccsim.Results.load(r.save(tmp_path / "o"))
    pd.testing.assert_frame_equal(back.flows, r.flows)


def test_bad_columns_are_refused():
    f8 = np.arange(3, dtype="<f8").tobytes()
    with pytest.raises(ValueError, match="different lengths"):
        _ccsim.parquet("t", {"a": ("<f8", f8), "b": ("<i8", b"\0" * 16)})
    with pytest.raises(ValueError, match="not a whole number of 8-byte values"):
        _ccsim.parquet("t", {"a": ("<f8", f8[:-1])})
    with pytest.raises(ValueError, match='dtype "<f4"'):
        _ccsim.parquet("t", {"a": ("<f4", f8)})
    with pytest.raises(ValueError, match="code 2 but 2 labels"):
        _ccsim.parquet("t", {"c": ("cat", (np.array([0, 2], "<u4").tobytes(), ["x", "y"]))})


def _read(data: bytes) -> pd.DataFrame:
    meta = pq.read_schema(io.BytesIO(data)).metadata or {}
    cats = json.loads(meta.get(b"ccsim.categorical", b"[]"))
    return pq.read_table(io.BytesIO(data), read_dictionary=cats or None).to_pandas()


@st.composite
def tables(draw):
    rows = draw(st.sampled_from([0, 1, 2, 7, 100]))
    kinds = draw(st.lists(st.sampled_from(["f8", "i8", "str", "cat"]), min_size=1, max_size=5))
    cols, want = {}, {}
    for i, kind in enumerate(kinds):
        name = f"c{i}_{kind}"
        if kind == "f8":
            v = draw(
                st.lists(
                    st.floats(allow_nan=True, allow_infinity=True), min_size=rows, max_size=rows
                )
            )
            cols[name] = ("<f8", np.array(v, "<f8").tobytes())
            want[name] = pd.Series(np.array(v, "<f8"))
        elif kind == "i8":
            v = draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=rows, max_size=rows))
            cols[name] = ("<i8", np.array(v, "<i8").tobytes())
            want[name] = pd.Series(np.array(v, "<i8"))
        elif kind == "str":
            v = draw(st.lists(st.text(max_size=12), min_size=rows, max_size=rows))
            cols[name] = ("str", v)
            want[name] = pd.Series(v, dtype=object)
        else:
            labels = draw(
                st.lists(st.text(max_size=6), min_size=1 if rows else 0, max_size=300, unique=True)
            )
            codes = draw(
                st.lists(st.integers(0, max(len(labels) - 1, 0)), min_size=rows, max_size=rows)
            )
            cols[name] = ("cat", (np.array(codes, "<u4").tobytes(), labels))
            want[name] = pd.Categorical.from_codes(codes, categories=labels)
    return cols, pd.DataFrame(want, index=pd.RangeIndex(rows))


@settings(max_examples=150, deadline=None)
@given(tables())
def test_any_table_reads_back(t):
    cols, want = t
    got = _read(_ccsim.parquet("t", cols))
    assert list(got.columns) == list(want.columns)
    for name in want.columns:
        g, w = got[name], want[name]
        if isinstance(w.dtype, pd.CategoricalDtype):
            assert list(g.astype(object)) == list(w.astype(object))
        elif w.dtype == object:
            assert g.tolist() == w.tolist()
        else:
            np.testing.assert_array_equal(g.to_numpy(), w.to_numpy())  # NaN == NaN here
            assert g.dtype == w.dtype


def test_many_pages_and_wide_dictionaries():
    n = 3 * (1 << 16) + 5  # four data pages a column
    codes = (np.arange(n) * 7919) % 1000  # 10-bit codes, two bytes per run value
    cols = {
        "x": ("<f8", np.arange(n, dtype="<f8").tobytes()),
        "c": ("cat", (codes.astype("<u4").tobytes(), [f"l{i}" for i in range(1000)])),
        "s": ("str", [str(i) for i in range(n)]),
    }
    got = _read(_ccsim.parquet("t", cols))
    assert len(got) == n
    np.testing.assert_array_equal(got["x"].to_numpy(), np.arange(n))
    np.testing.assert_array_equal(got["c"].cat.codes.to_numpy(), codes)
    assert got["s"].iloc[-1] == str(n - 1)
    assert pq.ParquetFile(io.BytesIO(_ccsim.parquet("t", cols))).metadata.num_rows == n
