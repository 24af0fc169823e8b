"""Switches with a shared buffer and PFC through the Python API (docs/models/
switch-buffers.md): the queues table's PFC columns, a lossless incast, a PFC deadlock
that ends the run with a ``SimulationError`` naming its ports (no panic crosses into
Python), and a bad value's one-line ``ScenarioError``."""

import pytest

import ccsim


def _leaf_spine(switches, flows, duration="20ms"):
    return {
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "leaf_spine",
            "leaves": 2,
            "spines": 2,
            "hosts_per_leaf": 4,
            "host_link": {"rate": "10Gbps", "delay": "1us", "queue": {"limit": "10000pkt"}},
            "fabric_link": {"rate": "10Gbps", "delay": "1us"},
        },
        "switches": switches,
        "flows": flows,
    }


INCAST = [
    {"matrix": {"kind": "incast", "receiver": "h0_0", "senders": 7}, "size": "2MB", "cc": "newreno"}
]


def test_pfc_incast_is_lossless_and_counts_its_pauses():
    lossy = ccsim.run(_leaf_spine({"buffer": "200KB"}, INCAST)).queues
    pfc = ccsim.run(_leaf_spine({"buffer": "200KB", "pfc": {}}, INCAST)).queues
    switch = pfc.queue.str.startswith(("leaf", "spine"))
    assert lossy.drops_shared_buffer.sum() > 0 and lossy.pfc_pauses.sum() == 0
    assert pfc[switch].drops.sum() == 0
    assert pfc.pfc_pauses.sum() > 0 and (pfc.pfc_paused_s > 0).sum() >= 3
    # a pause is counted on the link it stops: never on a switch's link to a host
    to_hosts = pfc.queue.str.contains("->h")
    assert pfc[to_hosts].pfc_pauses.sum() == 0


def test_pfc_deadlock_is_a_simulation_error_naming_the_ports():
    nodes, links = [], []
    for i in range(4):
        nodes += [f"S{i}", f"h{i}"]
        links.append({"from": f"h{i}", "to": f"S{i}", "rate": "10Gbps", "delay": "1us"})
        links.append(
            {
                "from": f"S{i}",
                "to": f"S{(i + 1) % 4}",
                "rate": "10Gbps",
                "delay": "1us",
                "duplex": False,
            }
        )
    flows = [
        {"kind": "cbr", "src": f"h{i}", "dst": f"h{(i + 2) % 4}", "rate": "10Gbps"}
        for i in range(4)
    ]
    s = {
        "seed": 1,
        "duration": "50ms",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "switches": {
            "nodes": ["S0", "S1", "S2", "S3"],
            "buffer": "100KB",
            "pfc": {"deadlock_check": "1ms"},
        },
        "flows": flows,
    }
    with pytest.raises(ccsim.SimulationError, match="PFC deadlock") as e:
        ccsim.run(s)
    for link in ("S0->S1", "S1->S2", "S2->S3", "S3->S0"):
        assert link in str(e.value)


def test_bad_threshold_is_one_line_naming_the_key():
    with pytest.raises(ccsim.ScenarioError, match=r"^switches\.pfc\.xoff: got") as e:
        ccsim.run(_leaf_spine({"buffer": "1MB", "pfc": {"xoff": "2MB"}}, INCAST))
    assert "\n" not in str(e.value)


def test_pause_counters_cover_the_measurement_window():
    s = _leaf_spine({"buffer": "200KB", "pfc": {}}, INCAST)
    whole = ccsim.run(s).queues.set_index("queue")
    s["warmup"] = "5ms"
    window = ccsim.run(s).queues.set_index("queue")
    paused = whole.pfc_pauses > 0
    assert (window.pfc_pauses <= whole.pfc_pauses).all()
    assert (window.pfc_pauses[paused] < whole.pfc_pauses[paused]).any()
    assert (window.pfc_paused_s <= 0.015 + 1e-12).all() and (
        whole.pfc_paused_s <= 0.02 + 1e-12
    ).all()
    assert (window.pfc_paused_s <= whole.pfc_paused_s + 1e-12).all()
