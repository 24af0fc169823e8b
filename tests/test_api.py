"""ccsim.run, resolve, Results and scenario errors through the Python API."""

import json

import ccsim
import pandas as pd
import pytest


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
    ("flows[0].cc", "cubic", "newreno"),
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
