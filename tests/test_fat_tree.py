"""The k-ary fat-tree (Al-Fares, Loukissas & Vahdat, SIGCOMM 2008) through the Python API:
names, a permutation's flows spread over the core by ECMP, one path per flow,
oversubscription, the key's defaults in the resolved scenario, and bad input. The wiring
itself (switch, host and path counts) is checked in crates/ccsim-core/tests/fabrics.rs."""

import ccsim
import pytest

K = 4


def _fabric(**topology) -> dict:
    link = {"rate": "1Gbps", "delay": "1us", "queue": {"kind": "droptail", "limit": "100pkt"}}
    hosts = [f"h{p}_{e}_{i}" for p in range(K) for e in range(K // 2) for i in range(K // 2)]
    # a permutation: each host sends to the host in the same place of the next pod
    n = len(hosts) // K
    return {
        "seed": 1,
        "duration": "30ms",
        "warmup": "10ms",
        "topology": {
            "kind": "fat_tree",
            "k": K,
            "host_link": link,
            "fabric_link": link,
            **topology,
        },
        "flows": [
            {"src": h, "dst": hosts[(j + n) % len(hosts)], "cc": "newreno", "init_cwnd": 10}
            for j, h in enumerate(hosts)
        ],
    }


def _core_bps(r) -> dict[str, float]:
    q = r.queues.set_index("queue")
    return {n: q.loc[n, "utilization"] * 1e9 for n in q.index if n.startswith("agg")}


def test_names_links_and_resolved_keys():
    r = ccsim.run(_fabric())
    queues = set(r.queues["queue"])
    assert {"h0_0_0->edge0_0", "edge0_0->agg0_1", "agg0_1->core3", "core3->agg2_1"} <= queues
    assert len(queues) == 2 * 48
    topo = r.scenario["topology"]
    assert topo["ecmp"] is True and topo["oversubscription"] == 1.0
    assert topo["bdp_rtt"] == "0.000012s"  # 2 × (host + edge-agg + agg-core) × 2 directions


def test_ecmp_spreads_a_permutation_over_the_core_and_keeps_each_flow_on_one_path():
    sc = _fabric()
    sc["trace"] = {
        "links": [
            f"agg{p}_{a}->core{a * 2 + c}" for p in range(K) for a in range(2) for c in range(2)
        ]
    }
    r = ccsim.run(sc)
    used = [u for n, u in _core_bps(r).items() if "->core" in n and u > 1e6]
    assert len(used) >= 8  # 16 flows hashed onto 16 uplinks to the core
    tr = r.trace
    data = tr[(tr["event"] == "enqueue") & (tr["kind"] == "data")]
    paths = data.groupby("flow", observed=True)["link"].nunique()
    assert len(paths) == 16 and (paths == 1).all(), paths
    without = ccsim.run(_fabric(ecmp=False))
    assert sum(u > 1e6 for n, u in _core_bps(without).items() if "->core" in n) < len(used)


def test_same_seed_same_result():
    a, b = ccsim.run(_fabric()), ccsim.run(_fabric())
    assert a.flows.equals(b.flows) and a.queues.equals(b.queues)


def test_oversubscription_puts_more_hosts_under_each_edge_switch():
    sc = _fabric(oversubscription=2)
    sc["flows"] = [{"src": "h0_0_3", "dst": "h3_1_3", "cc": "newreno"}]
    r = ccsim.run(sc)
    assert "h3_1_3->edge3_1" in set(r.queues["queue"])
    assert len(r.queues) == 2 * (32 + 16 + 16)


@pytest.mark.parametrize(
    "key, value, words",
    [
        ("k", 5, "an even number of ports per switch"),
        ("k", 66, "an integer in [2, 64]"),
        ("oversubscription", 0.5, "a number in [1, 1000]"),
        ("oversubscription", 1.25, "a whole number of hosts"),
        ("k", 3, "an even number of ports per switch"),
        ("oversubscription", 0.99, "a number in [1, 1000]"),
    ],
)
def test_bad_fat_trees_are_refused_naming_the_key(key, value, words):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(_fabric(**{key: value}))
    assert f"topology.{key}" in str(e.value) and words in str(e.value)
    assert "\n" not in str(e.value)  # one line
