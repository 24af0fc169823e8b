"""NDP (Handley et al., SIGCOMM 2017, §3; docs/models/ndp.md) on a k = 4 fat-tree of
10 Gb/s links through the Python API: an incast completes with no loss, the receiver's
link full and the last flow within a few per cent of the ideal; a permutation with
per-packet spraying comes close to full bisection where one ECMP path per flow does not;
runs repeat byte for byte; and NDP without trimming switches is refused naming the key.
The trimming queue, the pull pacer and the sender's retransmissions are unit-tested in
crates/ccsim-core/src/qdisc/ndp.rs and crates/ccsim-core/src/transport/ndp.rs."""

import ccsim
import pytest

RATE = 10e9
MSS, HEADER = 9000, 64
HOSTS = [f"h{p}_{e}_{i}" for p in range(4) for e in range(2) for i in range(2)]
RECEIVER = "h0_0_0"


def _fabric(fabric_queue=None, duration="20ms", seed=1) -> dict:
    trim = {"kind": "ndp", "limit": "8pkt"}
    host = {
        "rate": "10Gbps",
        "delay": "1us",
        # the sender's NIC: a host queue that holds its first window (htsim's host queue)
        "queue": {"kind": "droptail", "limit": "1000pkt"},
        "reverse_queue": trim,
    }
    fab = {"rate": "10Gbps", "delay": "1us", "queue": fabric_queue or trim}
    return {
        "seed": seed,
        "duration": duration,
        "topology": {"kind": "fat_tree", "k": 4, "host_link": host, "fabric_link": fab},
    }


def _incast(senders: int, size: int, per_host: int = 1) -> dict:
    sc = _fabric()
    hosts = [h for h in HOSTS if h != RECEIVER][: senders // per_host]
    sc["flows"] = [
        {"kind": "ndp", "src": h, "dst": RECEIVER, "size": size, "count": per_host} for h in hosts
    ]
    return sc


@pytest.mark.parametrize("senders,per_host", [(8, 1), (30, 2)])
def test_an_incast_completes_without_loss_at_the_receivers_line_rate(senders, per_host):
    size = 200_000
    r = ccsim.run(_incast(senders, size, per_host))
    f, q = r.flows, r.queues.set_index("queue")
    assert len(f) == senders and f["fct_s"].notna().all()
    assert (f["bytes_delivered"] == size).all()
    assert q["drops"].sum() == 0  # trimmed, never dropped
    last_hop = q.loc[f"edge0_0->{RECEIVER}"]
    assert last_hop["trims"] > 0
    # The ideal: every byte (with its header) through the receiver's link back to back
    # (a bound no run beats), plus one round trip from the farthest sender (6 hops of
    # 1 us and 9064 B at 10 Gb/s there, 6 hops of 1 us back).
    packets = -(-size // MSS)
    wire = senders * packets * (MSS + HEADER) * 8 / RATE
    ideal = wire + 6 * (1e-6 + (MSS + HEADER) * 8 / RATE) + 6e-6
    tail = f["fct_s"].max()
    assert wire < tail <= 1.03 * ideal, (tail, ideal)
    # the receiver's link busy for all but a few per cent of the incast
    busy = last_hop["departure_bytes"] * 8 / RATE
    assert busy / tail > 0.95


def _permutation(spray: bool) -> dict:
    sc = _fabric(duration="6ms")
    sc["warmup"] = "1ms"
    sc["flows"] = [{"kind": "ndp", "matrix": {"kind": "permutation"}, "spray": spray}]
    return sc


def test_spraying_a_permutation_comes_close_to_full_bisection_unlike_ecmp():
    best = 16 * RATE * MSS / (MSS + HEADER)  # every host's link full of payload
    sprayed = ccsim.run(_permutation(True))
    ecmp = ccsim.run(_permutation(False))
    s, e = sprayed.flows["goodput_bps"].sum(), ecmp.flows["goodput_bps"].sum()
    assert s > 0.85 * best, s / best
    assert s > 1.15 * e, (s / best, e / best)
    # one ECMP path per flow: flows that collide on an uplink get about half a link
    assert ecmp.flows["goodput_bps"].min() < 0.6 * RATE
    assert sprayed.flows["goodput_bps"].min() > 0.8 * RATE
    # sprayed: every aggregation switch's uplinks to the core all carry traffic
    q = sprayed.queues.set_index("queue")
    up = [n for n in q.index if n.startswith("agg") and "->core" in n]
    assert len(up) == 16 and (q.loc[up, "utilization"] > 0.3).all()


def test_a_run_repeats_byte_for_byte():
    a, b = ccsim.run(_incast(8, 100_000)), ccsim.run(_incast(8, 100_000))
    assert a.flows.equals(b.flows)
    assert a.queues.equals(b.queues)


def test_ndp_over_switches_that_do_not_trim_is_refused_naming_the_key():
    sc = _incast(4, 50_000)
    sc["topology"]["fabric_link"]["queue"] = {"kind": "droptail", "limit": "100pkt"}
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(sc)
    msg = str(e.value)
    # flow 0 (h0_0_1, under the receiver's edge switch) crosses no fabric link; flow 1 does
    assert msg.startswith("flows[1].kind") and '"droptail"' in msg and "->agg" in msg, msg
    assert "\n" not in msg


def test_bad_ndp_values_are_refused_naming_the_key():
    sc = _incast(2, 50_000)
    sc["flows"][0]["pull_rate"] = 0
    with pytest.raises(ccsim.ScenarioError, match=r"flows\[0\]\.pull_rate"):
        ccsim.run(sc)
    sc = _incast(2, 50_000)
    sc["topology"]["host_link"]["reverse_queue"] = {"kind": "ndp", "limit": "inf"}
    with pytest.raises(ccsim.ScenarioError, match=r"reverse_queue\.limit"):
        ccsim.run(sc)
    sc = _fabric()
    sc["workloads"] = [
        {
            "name": "w",
            "transport": {"kind": "ndp"},
            "size": {"kind": "fixed", "bytes": 1000},
            "process": {"kind": "poisson", "rate": 100},
        }
    ]
    with pytest.raises(ccsim.ScenarioError, match=r"ndp"):
        ccsim.run(sc)
