"""The leaf-spine topology and equal-cost multipath through the Python API: names, ECMP
against the lowest-link rule, one path per flow, determinism and bad input."""

import copy

import ccsim
import pytest

FABRIC = {
    "seed": 1,
    "duration": "0.4s",
    "warmup": "0.1s",
    "topology": {
        "kind": "leaf_spine",
        "leaves": 2,
        "spines": 4,
        "hosts_per_leaf": 8,
        "host_link": {"rate": "1Gbps", "delay": "10us"},
        "fabric_link": {"rate": "1Gbps", "delay": "10us"},
    },
    # Eight flows from rack 0 to rack 1: the hosts could send 8 Gbps, rack 0's four
    # uplinks carry at most 4.
    "flows": [{"src": f"h0_{k}", "dst": f"h1_{k}", "cc": "newreno"} for k in range(8)],
}


def _uplink_bps(r) -> dict[str, float]:
    q = r.queues.set_index("queue")
    return {f"leaf0->spine{j}": q.loc[f"leaf0->spine{j}", "utilization"] * 1e9 for j in range(4)}


def test_names_and_links():
    r = ccsim.run(FABRIC)
    queues = set(r.queues["queue"])
    assert {"h0_0->leaf0", "leaf0->h0_0", "leaf0->spine3", "spine3->leaf1"} <= queues
    # 2 × 8 host links and 2 × 4 fabric links, both directions.
    assert len(queues) == 2 * (16 + 8)
    assert r.scenario["topology"]["ecmp"] is True


def test_ecmp_spreads_flows_over_the_uplinks_and_raises_throughput():
    spread = ccsim.run(FABRIC)
    one = ccsim.run({**FABRIC, "topology": {**FABRIC["topology"], "ecmp": False}})
    used = [u for u in _uplink_bps(spread).values() if u > 1e6]
    assert len(used) >= 3  # 8 flows hashed onto 4 uplinks: 3 or 4 in use
    assert set(_uplink_bps(one).values()) - {0.0} == {max(_uplink_bps(one).values())}
    # Rack 0 sends over as many uplinks as the hash uses, each near its rate; the
    # flows' goodput follows (it counts in-order bytes, so recoveries that began
    # before the warm-up ended add to it).
    assert sum(_uplink_bps(spread).values()) > 0.95e9 * len(used)
    assert sum(_uplink_bps(one).values()) <= 1e9
    assert spread.flows["goodput_bps"].sum() > 1.8 * one.flows["goodput_bps"].sum()


def test_each_flow_keeps_one_path():
    sc = copy.deepcopy(FABRIC)
    sc["duration"], sc["warmup"] = "0.05s", "0s"
    sc["trace"] = {"links": [f"leaf0->spine{j}" for j in range(4)]}
    tr = ccsim.run(sc).trace
    data = tr[tr["event"] == "enqueue"]
    paths = data.groupby("flow", observed=True)["link"].nunique()
    assert len(paths) == 8 and (paths == 1).all(), paths


def test_same_seed_same_paths_other_seed_other_hash():
    a, b = ccsim.run(FABRIC), ccsim.run(FABRIC)
    assert _uplink_bps(a) == _uplink_bps(b)
    spreads = {
        tuple(u > 1e6 for u in _uplink_bps(ccsim.run({**FABRIC, "seed": s})).values())
        for s in range(1, 9)
    }
    assert len(spreads) > 1  # the hash salt comes from the seed


@pytest.mark.parametrize(
    "key, value, words",
    [
        ("leaves", 0, "an integer in [1, 10000]"),
        ("spines", 1001, "an integer in [1, 1000]"),
        ("hosts_per_leaf", 2_000_000, "an integer in [1, 100000]"),
        ("fabric_link", {"rate": "1Gbps"}, "topology.fabric_link.delay"),
        ("ecmp", "yes", "ecmp"),
    ],
)
def test_bad_fabric_names_the_key(key, value, words):
    sc = copy.deepcopy(FABRIC)
    sc["topology"][key] = value
    with pytest.raises(ccsim.ScenarioError, match=None) as e:
        ccsim.run(sc)
    assert words in str(e.value) and "topology." in str(e.value)


def test_hosts_in_all_are_bounded():
    sc = copy.deepcopy(FABRIC)
    sc["topology"].update(leaves=100, hosts_per_leaf=20_000)
    with pytest.raises(ccsim.ScenarioError, match="topology.hosts_per_leaf.*1 000 000 hosts"):
        ccsim.resolve(sc)
