"""ccsim.run, resolve, Results and scenario errors through the Python API."""

import copy
import datetime
import json
import os
import re
import subprocess
import sys
import time

import ccsim
import numpy as np
import pandas as pd
import pytest
from _processes import interrupt, sigint_default
from ccsim.store import CorruptResultError


def test_run_dict_returns_tables(small):
    r = ccsim.run(small)
    assert set(r.flows.columns) >= {
        "flow",
        "name",
        "goodput_bps",
        "retransmits",
        "timeouts",
        "completion_s",
    }
    assert set(r.queues.columns) >= {
        "queue",
        "utilization",
        "drops",
        "mean_len_pkts",
        "max_len_pkts",
    }
    assert len(r.flows) == 2
    assert r.queue("R1->R2")["utilization"] > 0.5
    assert r.summary["packets_created"] == (
        r.summary["packets_delivered"]
        + r.summary["packets_dropped"]
        + r.summary["packets_in_flight"]
    )
    assert r.timeseries == {}


def test_run_toml_builder_and_overrides(tmp_path):
    r = ccsim.run(
        "scenarios/dumbbell-newreno.toml", overrides=["duration=3s", "seed=7", "warmup=1s"]
    )
    assert r.summary["duration_s"] == 3 and r.summary["seed"] == 7
    assert {"queue", "flow"} <= set(r.timeseries)
    sc = (
        ccsim.Scenario(duration="2s")
        .dumbbell(pairs=1, rate="5Mbps", delay="10ms", buffer="20pkt")
        .tcp(pairs="all", cc="reno", size="100KB")
    )
    r2 = ccsim.run(sc)
    assert r2.flows.iloc[0].bytes_delivered == 100_000
    assert r2.flows.iloc[0].completion_s > 0


def test_resolve_is_canonical(small):
    a = ccsim.resolve(small)
    small["topology"]["bottleneck"]["delay"] = "0.01s"
    small["topology"]["bottleneck"]["rate"] = 10_000_000
    assert ccsim.resolve(small) == a
    assert a["flows"][0]["mss"] == 1460  # defaults filled in
    assert a["topology"]["bottleneck"]["rate"] == "10000000bps"


def test_deterministic_and_seed_sensitive(small):
    a, b = ccsim.run(small), ccsim.run(small)
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.queues, b.queues)
    small["seed"] = 2
    c = ccsim.run(small)
    assert not a.flows["bytes_delivered"].equals(c.flows["bytes_delivered"])


def test_save_and_load_roundtrip(small, tmp_path):
    small["monitor"] = {"interval": "10ms"}
    r = ccsim.run(small)
    d = r.save(tmp_path / "out")
    assert json.loads((d / "summary.json").read_text())["seed"] == 1
    back = ccsim.Results.load(d)
    pd.testing.assert_frame_equal(back.flows, r.flows)
    pd.testing.assert_frame_equal(back.timeseries["flow"], r.timeseries["flow"])


BAD = [
    ("topology.bottleneck.rate", "45Mbs", "rate"),
    ("topology.bottleneck.rate", "-10Mbps", "positive rate"),
    ("topology.bottleneck.delay", "10", "time"),
    ("topology.bottleneck.queue.limit", "0pkt", "positive buffer"),
    ("topology.bottleneck.queue.limit", "0.00001bdp", "at least one packet"),
    ("topology.bottleneck.queue.kind", "fifo", "droptail"),
    ("topology.bottlenck", {"rate": "1Mbps"}, "unknown key"),
    ("flows[0].cc", "no-such-module", "newreno"),
    ("flows[0].colour", "red", "unknown key"),
    ("duration", "0s", "positive"),
    ("warmup", "5s", "shorter than duration"),
    ("seed", -1, "integer"),
]


@pytest.mark.parametrize("path,value,needle", BAD)
def test_bad_scenarios_name_path_value_and_expectation(small, path, value, needle):
    ccsim.set_path(small, path, value)
    with pytest.raises(ccsim.ScenarioError) as ei:
        ccsim.run(small)
    e = ei.value
    assert e.path.replace(".", "").replace("[", "").replace("]", "").startswith(
        path.replace(".", "").replace("[", "").replace("]", "")
    ) or path in str(e)
    assert needle in str(e)


def test_flow_between_unconnected_nodes():
    s = {
        "duration": "1s",
        "topology": {
            "kind": "graph",
            "nodes": ["a", "b", "c"],
            "links": [{"from": "a", "to": "b", "rate": "1Mbps", "delay": "1ms"}],
        },
        "flows": [{"src": "a", "dst": "c"}],
    }
    with pytest.raises(ccsim.ScenarioError, match="no path found"):
        ccsim.run(s)
    s["flows"] = [{"src": "a", "dst": "zz"}]
    with pytest.raises(ccsim.ScenarioError, match=r"flows\[0\]\.dst"):
        ccsim.run(s)


def test_missing_and_wrongly_typed_input():
    with pytest.raises(ccsim.ScenarioError, match="duration: required key missing"):
        ccsim.run({"topology": {}, "flows": []})
    with pytest.raises(ccsim.ScenarioError, match="file not found"):
        ccsim.run("no/such/file.toml")
    with pytest.raises(ccsim.ScenarioError, match=r"^duration: got <object .*expected a string"):
        ccsim.run({"duration": object()})
    with pytest.raises(ccsim.ScenarioError):
        ccsim.run(42)


def test_scenario_error_is_a_value_error():
    assert issubclass(ccsim.ScenarioError, ValueError)
    assert issubclass(ccsim.SimulationError, RuntimeError)


def test_builder_selects_queue_disciplines_per_link():
    sc = (
        ccsim.Scenario(duration="3s")
        .dumbbell(pairs=2, rate="10Mbps", delay="10ms")
        .queue("red", limit="100pkt", min_th=5, max_th=15, mean_pktsize="1500B", ecn=True)
        .queue("fq", where="access", limit="50pkt")
        .tcp(pairs="all", ecn=True)
        .monitor(interval="50ms", queues=["R1->R2"])
    )
    r = ccsim.run(sc)
    q = r.queues.set_index("queue")
    assert q.loc["R1->R2", "kind"] == "red" and q.loc["s0->R1", "kind"] == "fq"
    assert q.loc["R2->R1", "kind"] == "red"  # reverse_queue defaults to the forward one
    assert {"avg", "max_p", "p_b"} <= set(r.timeseries["qdisc"]["name"])
    assert r.scenario["topology"]["bottleneck"]["queue"]["gentle"] is True  # ns-2.35 default
    g = ccsim.Scenario(duration="1s").graph(
        ["a", "b"], [{"from": "a", "to": "b", "rate": "1Mbps", "delay": "1ms"}]
    )
    assert g.queue("drr", where=0, limit="20pkt", quantum="1000B").to_dict()["topology"]["links"][
        0
    ]["queue"] == {"kind": "drr", "limit": "20pkt", "quantum": "1000B"}
    with pytest.raises(ccsim.ScenarioError, match="where: got 'middle'"):
        sc.queue("red", where="middle")


def test_queue_errors_name_the_key_path():
    sc = (
        ccsim.Scenario(duration="1s")
        .dumbbell(pairs=1, rate="10Mbps", delay="10ms")
        .tcp(pairs="all")
    )
    cases = [
        (dict(kind="red", limit="100pkt", min_th=20, max_th=10), r"queue\.max_th: got 10"),
        (dict(kind="red", max_p=0), r"queue\.max_p: got 0, expected a number in \(0, 1\]"),
        (dict(kind="red", q_weight=3), r"queue\.q_weight: got 3"),
        (dict(kind="red", limit="10pkt", min_th=5, max_th=15), r"queue\.limit: got \"10pkt\""),
        (dict(kind="fq", limit="inf"), r"queue\.limit: got \"inf\", expected a finite shared"),
        (dict(kind="fifo"), r"queue\.kind: got \"fifo\", expected one of"),
    ]
    for q, msg in cases:
        with pytest.raises(ccsim.ScenarioError, match=msg):
            ccsim.run(sc.queue(**q))


# --------------------------------------------------------------------------- hostile input

HOSTILE = [
    ("topology.bottleneck.loss", float("nan"), "topology.bottleneck.loss: got nan"),
    ("topology.bottleneck.loss", float("inf"), "topology.bottleneck.loss: got inf"),
    ("topology.bottleneck.rate", b"10Mbps", "topology.bottleneck.rate: got b'10Mbps'"),
    ("seed", datetime.datetime(2024, 1, 1), "seed: got datetime.datetime(2024"),
    ("seed", 2**64, "seed: got 18446744073709551616, expected an integer below 2^64"),
    ("topology.pairs", 2**70, "topology.pairs: got 1180591620717411303424"),
    ("topology.bottleneck.rate", "100Tbps", "at most 10Tbps"),
    ("topology.bottleneck.rate", "1e30Gbps", "at most 10Tbps"),
    ("topology.bottleneck.rate", 1e30, "at most 10Tbps"),
    ("topology.bdp_packet", "0B", 'topology.bdp_packet: got "0B", expected a positive'),
    ("monitor", {"interval": "0.4ns"}, 'monitor.interval: got "0.4ns"'),
    ("flows[0].size", 2**61 + 5000, "flows[0].size: got 2305843009213698952"),
]


@pytest.mark.parametrize("path,value,needle", HOSTILE)
def test_hostile_values_give_one_scenario_error_naming_the_key(small, path, value, needle):
    ccsim.set_path(small, path, value)
    with pytest.raises(ccsim.ScenarioError) as ei:
        ccsim.resolve(small)
    msg = str(ei.value)
    assert needle in msg, msg
    assert "scenario: scenario:" not in msg and "\n" not in msg
    assert ei.value.path.startswith(path.split(".")[0].split("[")[0])


def test_python_values_that_are_not_scenario_values(small, tmp_path):
    deep = {}
    cur = deep
    for _ in range(5000):
        cur["a"] = {}
        cur = cur["a"]
    looped = {"duration": "1s"}
    looped["self"] = looped
    cases = [
        (deep, "nested at most 32 levels"),
        (looped, "nested at most 32 levels"),
        ({**small, (1, 2): 3}, "(1, 2): a key that is a string, not a tuple"),
    ]
    for scenario, needle in cases:
        with pytest.raises(ccsim.ScenarioError, match=re.escape(needle)):
            ccsim.resolve(scenario)
    with pytest.raises(ccsim.ScenarioError, match=r"overrides\[0\]: got 1"):
        ccsim.resolve(small, overrides=[1])
    with pytest.raises(ccsim.ScenarioError, match="overrides: got 'duration=1s'"):
        ccsim.resolve(small, overrides="duration=1s")
    with pytest.raises(ccsim.ScenarioError, match="overrides: got 3"):
        ccsim.resolve(small, overrides={3: "x"})
    # NumPy numbers are numbers
    small["seed"] = np.int64(7)
    small["topology"]["bottleneck"]["loss"] = np.float32(0.0)
    assert ccsim.resolve(small, overrides={"topology.pairs": np.uint8(3)})["seed"] == 7
    # TOML files: not UTF-8, dates, nesting
    bad = tmp_path / "latin1.toml"
    bad.write_bytes('duration = "2s"\nname = "caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(ccsim.ScenarioError, match="not valid TOML .not UTF-8"):
        ccsim.resolve(bad)
    dated = tmp_path / "dated.toml"
    dated.write_text("duration = 1979-05-27T07:32:00Z\n")
    with pytest.raises(ccsim.ScenarioError, match="duration: got datetime"):
        ccsim.resolve(dated)
    nested = tmp_path / "nested.toml"
    nested.write_text("duration = " + "[" * 3000 + "]" * 3000 + "\n")
    with pytest.raises(ccsim.ScenarioError, match="nested|nesting"):
        ccsim.resolve(nested)


def test_token_gate_sizes_that_overflowed_are_errors(small):
    small["components"] = [
        {"node": "R1", "kind": "token_gate", "forward": "R1->R2", "buffer": "40000bit"}
    ]
    small["topology"]["bottleneck"]["queue"]["limit"] = "inf"
    assert ccsim.resolve(small)["components"][0]["packet_length"] == "576B"
    for key, value in [("packet_length", 2**61), ("buffer", 2**61 + 5000)]:
        s = copy.deepcopy(small)
        s["components"][0][key] = value
        with pytest.raises(ccsim.ScenarioError, match=rf"components\[0\]\.{key}: .*at most 1PB"):
            ccsim.resolve(s)


# --------------------------------------------------------------------------- never hang

ZERO_TIME = {
    "duration": "1s",
    "topology": {
        "kind": "graph",
        "nodes": ["a", "b"],
        "links": [{"from": "a", "to": "b", "rate": "10Tbps", "delay": "0s"}],
    },
    "flows": [{"src": "a", "dst": "b", "mss": 1, "header": 0, "ack_size": 1}],
}


def test_a_zero_time_loop_is_an_error_not_a_hang():
    t0 = time.monotonic()
    with pytest.raises(ccsim.SimulationError, match="simulated time stopped advancing.*a->b"):
        ccsim.run(ZERO_TIME)
    assert time.monotonic() - t0 < 60  # about 1 s; generous for slow CI
    s = copy.deepcopy(ZERO_TIME)
    s["topology"]["links"][0]["rate"] = "100Tbps"
    with pytest.raises(ccsim.ScenarioError, match=r"links\[0\]\.rate.*at most 10Tbps"):
        ccsim.run(s)


def test_an_unbounded_queue_stops_at_the_memory_budget(small):
    small["duration"] = "100s"
    small["topology"]["bottleneck"]["queue"]["limit"] = "inf"
    small["flows"] = [{"pairs": "all", "kind": "cbr", "rate": "50Mbps"}]
    with pytest.raises(ccsim.SimulationError, match="memory budget exceeded.*R1->R2.*limit inf"):
        ccsim.run(small, memory_limit="30MB")
    os.environ["CCSIM_MEMORY_LIMIT"] = "30MB"
    try:
        with pytest.raises(ccsim.SimulationError, match=r"budget 30\.0 MB"):
            ccsim.run(small)
    finally:
        del os.environ["CCSIM_MEMORY_LIMIT"]
    with pytest.raises(ccsim.ScenarioError, match="memory_limit: got 'lots'"):
        ccsim.run(small, memory_limit="lots")


def test_what_cannot_fit_is_refused_before_building(small):
    small["duration"] = "1000s"
    small["monitor"] = {"interval": "1ns"}
    t0 = time.monotonic()
    with pytest.raises(ccsim.ScenarioError, match=r'monitor.interval: got "1ns".*TB'):
        ccsim.resolve(small, memory_limit="8GB")
    assert time.monotonic() - t0 < 10


def test_a_hundred_thousand_pairs_resolve_quickly_in_bounded_memory_or_are_refused(small):
    """The n² forwarding table made 100 000 pairs need 160 GB; until the routing
    rewrite lands, the estimate refuses it before anything is built."""
    small["topology"]["pairs"] = 100_000
    t0 = time.monotonic()
    try:
        resolved = ccsim.resolve(small, memory_limit="8GB")
    except ccsim.ScenarioError as e:
        assert str(e).startswith("topology.pairs: got 100000") and "GB" in str(e)
    else:
        assert resolved["topology"]["pairs"] == 100_000
    assert time.monotonic() - t0 < 60


CTRL_C = """
import sys, time, ccsim
s = {"duration": "1e9s", "topology": {"kind": "dumbbell", "pairs": 1,
     "bottleneck": {"rate": "10Mbps", "delay": "10ms"}, "access": {"rate": "100Mbps"}},
     "flows": [{"pairs": "all"}]}
print("running", flush=True)
try:
    ccsim.run(s)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    sys.exit(3)
"""


def test_ctrl_c_stops_a_long_run_within_a_second():
    proc = subprocess.Popen(
        [sys.executable, "-c", CTRL_C],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_default,
    )
    assert proc.stdout.readline().strip() == "running"
    time.sleep(1.0)  # well inside the run
    out, err, stopped = interrupt(proc)
    assert proc.returncode == 3, err
    assert "KeyboardInterrupt" in out
    assert stopped < 5  # within a second; generous for slow CI


# --------------------------------------------------------------------------- saved results


def test_saved_results_are_one_run_whole(small, tmp_path):
    small["monitor"] = {"interval": "100ms"}
    a = ccsim.run(small)
    out = tmp_path / "out"
    a.save(out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["files"]) == {p.name for p in out.iterdir()} - {"manifest.json"}
    assert manifest["engine"] == ccsim.fingerprint()

    # a run without time series over it: no stale ts_*.parquet beside the new tables
    b = ccsim.run(small, overrides={"monitor.interval": "0s", "seed": 2})
    b.save(out)
    assert not list(out.glob("ts_*"))
    back = ccsim.Results.load(out)
    assert back.summary["seed"] == 2 and back.timeseries == {}
    assert not list(tmp_path.glob(".out.*"))  # temporary directories are gone

    # a stale file dropped in later is not read; a changed one is an error
    a.save(tmp_path / "a")
    (tmp_path / "a" / "ts_queue.parquet").rename(tmp_path / "a" / "ts_old.parquet")
    (out / "ts_queue.parquet").write_bytes((tmp_path / "a" / "ts_old.parquet").read_bytes())
    assert ccsim.Results.load(out).timeseries == {}
    raw = bytearray((out / "flows.parquet").read_bytes())
    raw[len(raw) // 2] ^= 1
    (out / "flows.parquet").write_bytes(bytes(raw))
    with pytest.raises(CorruptResultError, match="flows.parquet is altered"):
        ccsim.Results.load(out)


def test_save_never_mixes_deletes_or_follows_links(small, tmp_path):
    r = ccsim.run(small)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    with pytest.raises(FileExistsError, match="notes.txt.*--force"):
        r.save(mine)
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    r.save(mine, force=True)  # beside the user's file, which stays
    assert (mine / "notes.txt").read_text() == "keep"
    assert ccsim.Results.load(mine).summary["seed"] == 1

    target = tmp_path / "precious.parquet"
    target.write_bytes(b"precious")
    (mine / "flows.parquet").unlink()
    (mine / "flows.parquet").symlink_to(target)
    r.save(mine, force=True)
    assert target.read_bytes() == b"precious" and not (mine / "flows.parquet").is_symlink()

    link = tmp_path / "link"
    link.symlink_to(mine)
    with pytest.raises(FileExistsError, match="symbolic link"):
        r.save(link)
    with pytest.raises(FileExistsError, match="is a file"):
        r.save(target)


def test_dumbbell_access_rates_per_pair():
    from _scenarios import ONE_PAIR

    sc = {**ONE_PAIR, "topology": {**ONE_PAIR["topology"], "pairs": 2}}
    sc["topology"]["access"] = {"rate": ["100Mbps", "2Mbps"], "delay": "1ms"}
    r = ccsim.run(sc)
    q = r.queues.set_index("queue")
    assert q.loc["s0->R1", "rate_bps"] == 100e6 and q.loc["s1->R1", "rate_bps"] == 2e6
    assert q.loc["R2->d1", "rate_bps"] == 2e6  # receiver access as the sender's by default
    assert r.scenario["topology"]["access"]["rate"] == ["100000000bps", "2000000bps"]
    f = r.flows.set_index("name")["goodput_bps"]
    assert f["f1"] < 2e6 < f["f0"]
    sc["topology"]["access"]["rate"] = ["100Mbps"]
    with pytest.raises(ccsim.ScenarioError, match=r"topology\.access\.rate: .*exactly 2 rates"):
        ccsim.run(sc)


def test_datagram_flows_have_time_series():
    from _scenarios import ONE_PAIR

    sc = {**ONE_PAIR, "flows": [{"pairs": [0], "kind": "cbr", "rate": "1Mbps"}]}
    sc["monitor"] = {"interval": "100ms"}
    ts = ccsim.run(sc).timeseries["flow"]
    assert set(ts["flow"]) == {"f0"} and ts["delivered_bytes"].iloc[-1] > 0.9 * 1e6 / 8 * 1.8
    assert (ts["cwnd_bytes"] == 0).all() and ts["srtt_s"].isna().all()
