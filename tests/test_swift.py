"""Swift through the Python API (docs/models/swift.md): ``cc = "swift"`` TCP flows in an
incast into one host of a fat tree of 10 Gb/s links (1 µs each), drop-tail queues of 2 MB.

What the paper leads us to expect (Kumar et al., SIGCOMM 2020, §3 and §5): the fabric
delay each flow measures held near its target (base_target + hops·h + flow scaling),
the receiver's port fully used, no loss, a fair share. Measured (seeds 1-3; 40-60 ms,
the second half): 15 senders (k = 4): utilization 1.000, Jain 0.989-0.997, each flow's
smoothed RTT 1.06-1.17 × its final target, the port's mean queueing delay 34 µs against
targets of 36-52 µs (mean 48); 32 senders (k = 6): Jain 0.987-0.993, RTTs 1.11-1.28 ×
target, mean queueing delay 45 µs against targets of 45-59 µs (mean 56). The delay sits
above the target by the growth of N flows between once-per-RTT decreases."""

import numpy as np
import pytest

import ccsim

RECEIVER = "h0_0_0"


def _incast(senders, seed=1, k=4, rate="10Gbps", duration="40ms", **flow):
    link = {"rate": rate, "delay": "1us", "queue": {"limit": "2MB"}}
    half = f"{int(duration[:-2]) // 2}ms"
    return {
        "seed": seed,
        "duration": duration,
        "warmup": half,
        "topology": {"kind": "fat_tree", "k": k, "host_link": link, "fabric_link": link},
        "flows": [
            {
                "matrix": {"kind": "incast", "receiver": RECEIVER, "senders": senders},
                "cc": "swift",
                "mss": 1460,
                "init_cwnd": 10,
                "start": {"uniform": ["0s", "10us"]},
                **flow,
            }
        ],
    }


def _port(r):
    q = r.queues
    return q[q.to == RECEIVER].iloc[0]


def _jain(x):
    x = np.asarray(x, dtype=float)
    return x.sum() ** 2 / len(x) / (x**2).sum()


@pytest.mark.parametrize("senders, k, duration", [(15, 4, "40ms"), (32, 6, "60ms")])
def test_incast_holds_the_fabric_delay_near_its_target(senders, k, duration):
    for seed in (1, 2, 3):
        r = ccsim.run(_incast(senders, seed, k=k, duration=duration))
        port = _port(r)
        assert port.utilization > 0.99, (seed, port.utilization)
        assert r.queues.drops.sum() == 0
        assert _jain(r.flows.bytes_delivered_window) > 0.95
        targets = np.array([r.summary["cc"][n]["target_us"] * 1e-6 for n in r.flows.name])
        ratio = r.flows.srtt_s.to_numpy() / targets
        assert (ratio > 0.8).all() and (ratio < 1.35).all(), (seed, ratio)
        # the queueing part of the delay, at the port all flows share, within the mean target
        assert port.sojourn_mean_s < targets.mean(), (port.sojourn_mean_s, targets)


def test_hops_are_the_switches_on_the_path_and_scale_the_target():
    r = ccsim.run(_incast(15, duration="4ms"))
    hops = {s: r.summary["cc"][n]["hops"] for n, s in zip(r.flows.name, r.flows.src)}
    # the same edge switch: 1; the same pod (edge, aggregation, edge): 3; across the core: 5
    assert hops["h0_0_1"] == 1
    assert {hops[h] for h in ("h0_1_0", "h0_1_1")} == {3}
    assert {v for h, v in hops.items() if not h.startswith("h0_")} == {5}
    # a target (µs) of 20 + 3.053·hops + the flow scaling of its window
    for n, s in zip(r.flows.name, r.flows.src):
        cc = r.summary["cc"][n]
        w = min(cc["fcwnd"], cc["ecwnd"])
        fs = 100 * (1 / np.sqrt(w) - 0.1) / (np.sqrt(10) - 0.1)
        assert cc["target_us"] == pytest.approx(
            20 + 3.053 * hops[s] + np.clip(fs, 0, 100), abs=1e-6
        )


def test_below_one_packet_flows_are_paced_not_lost():
    """32 senders into a 1 Gb/s port: about 0.15 packets of window each, so most flows
    send one packet per srtt/cwnd. Nothing is lost and the port stays busy. The share is
    not fair across path lengths: at 1 Gb/s each hop adds 12 µs of serialization, four
    times the 3.05 µs the target adds per hop (docs/models/swift.md)."""
    r = ccsim.run(_incast(32, k=6, rate="1Gbps", duration="60ms"))
    fcwnd = np.array([r.summary["cc"][n]["fcwnd"] for n in r.flows.name])
    assert (fcwnd < 1).mean() > 0.5, fcwnd
    assert (r.flows.cwnd_bytes[fcwnd < 1] == 1460).all()
    assert r.queues.drops.sum() == 0 and r.flows.retransmits.sum() == 0
    assert _port(r).utilization > 0.95


def test_flows_table_and_counters():
    r = ccsim.run(_incast(4, duration="4ms"))
    assert set(r.flows.cc) == {"swift"}
    cc = r.summary["cc"][r.flows.name[0]]
    assert cc["increases"] > 0 and cc["ecwnd"] == 1000  # no ACK is held: no endpoint delay


@pytest.mark.parametrize(
    "flow, key",
    [
        ({"base_target": "0s"}, "base_target"),
        ({"beta": 0}, "beta"),
        ({"beta": 1.5}, "beta"),
        ({"max_mdf": 1}, "max_mdf"),
        ({"ai": 0}, "ai"),
        ({"min_cwnd": 0}, "min_cwnd"),
        ({"max_cwnd": 0.5}, "max_cwnd"),
        ({"fs_min_cwnd": 10, "fs_max_cwnd": 5}, "fs_max_cwnd"),
        ({"endpoint_target": "0s"}, "endpoint_target"),
        ({"retx_reset": 0}, "retx_reset"),
    ],
)
def test_bad_values_name_their_key(flow, key):
    s = _incast(2, duration="1ms")
    s["flows"][0]["cc"] = {"kind": "swift", **flow}
    with pytest.raises(ccsim.ScenarioError, match=rf"cc\.{key}") as e:
        ccsim.run(s)
    assert "\n" not in str(e.value)


def test_same_seed_same_result_and_workload_connections_run_swift():
    a = ccsim.run(_incast(8, duration="4ms"))
    b = ccsim.run(_incast(8, duration="4ms"))
    assert a.flows.bytes_delivered.tolist() == b.flows.bytes_delivered.tolist()
    link = {"rate": "10Gbps", "delay": "1us"}
    s = {
        "seed": 1,
        "duration": "5ms",
        "topology": {"kind": "fat_tree", "k": 4, "host_link": link, "fabric_link": link},
        "workloads": [
            {
                "sources": ["h0_0_0"],
                "destinations": ["h1_0_0"],
                "arrival_rate": 2000,
                "size": {"dist": "fixed", "mean": "20KB"},
                "transport": {"cc": "swift", "init_cwnd": 10},
            }
        ],
    }
    r = ccsim.run(s)
    c = r.connections.dropna(subset=["response_time_s"])
    # 20 KB, 14 packets from a window of 10: two round trips of about 14 µs and the bytes
    assert len(c) >= 5 and (c.response_time_s < 100e-6).all() and c.retransmits.sum() == 0
