"""VCP (``cc = "vcp"``, ``queue = {kind = "vcp"}``, ``feedback = {kind = "vcp"}``,
docs/models/vcp.md) through ``ccsim.run``.

Unit tests with hand-worked cases sit beside the code (qdisc/vcp.rs, cc/vcp.rs,
feedback/vcp.rs, the shared qdisc/load_factor.rs and cc/load_factor.rs), and the engine's
tests/vcp.rs compares whole runs with VCP's ns-2 code; these check the three parts as a
user meets them: the tables, the time series and the errors.
"""

import pytest

import ccsim


def _dumbbell(queue="vcp", cc="vcp", *, pairs=4, duration="60s", warmup="25s"):
    """45 Mb/s, propagation RTT 60 ms, a one-BDP buffer (325 packets of 1040 B), as
    VCP's ns-2 programs build it."""
    return {
        "seed": 1,
        "duration": duration,
        "warmup": warmup,
        "topology": {
            "kind": "dumbbell",
            "pairs": pairs,
            "bottleneck": {
                "rate": "45Mbps",
                "delay": "24ms",
                "queue": {"kind": queue, "limit": "325pkt"},
            },
            "access": {"rate": "450Mbps", "delay": "3ms", "queue": {"limit": "100000pkt"}},
        },
        "flows": [
            {
                "pairs": "all",
                "cc": cc,
                "feedback": {"kind": "vcp"},
                "mss": 1000,
                "conventions": "ns2",
            }
        ],
        "monitor": {"interval": "100ms", "queues": ["R1->R2"], "flows": "all"},
    }


def test_high_utilization_near_empty_queue_no_loss_equal_shares():
    """4 flows after VCP's MI start-up (≈ 15 s at 6.25 % per 200 ms): utilization 0.937
    (VCP's ns-2 code: 0.937), a queue of a fraction of a packet, no drop, equal shares,
    and an MD about every 2 s per flow (24 in 60 s, as ns-2's)."""
    r = ccsim.run(_dumbbell())
    q = r.queues.set_index("queue").loc["R1->R2"]
    assert 0.92 < q.utilization < 0.96
    assert q.mean_len_pkts < 1.0
    assert q.drops == 0
    g = r.flows.goodput_bps
    assert g.sum() ** 2 / (len(g) * (g**2).sum()) > 0.999
    mds = [r.summary["cc"][f]["md"] for f in r.flows.name]
    assert all(20 <= m <= 28 for m in mds), mds


def test_router_trace_and_echoed_codes():
    """The router's time series: γ climbs from 0.95 by 0.004 per 2 s to 0.999, the load
    factor sits in high load between MDs, and its codes are 2 (high) and 3 (overload)
    once the flows have filled the link; the senders' ``cc_state`` is the echoed code."""
    r = ccsim.run(_dumbbell(duration="40s"))
    ts = r.timeseries["qdisc"]
    late = ts[ts.time_s >= 30]
    gamma = late[late.name == "gamma"].value
    assert (gamma == 0.999).all()
    codes = set(late[late.name == "load_code"].value)
    assert codes <= {2.0, 3.0} and 2.0 in codes, codes
    rho = late[late.name == "load_factor"].value
    assert 0.85 < rho.mean() < 0.99
    f = r.timeseries["flow"]
    assert set(f[f.time_s >= 30].cc_state) <= {2.0, 3.0}


def test_without_a_vcp_router_the_code_stays_low_load():
    """Over drop-tail the packets keep the sender's ``01``: MI until a loss, then Reno's
    halving; no AI, no MD."""
    r = ccsim.run(_dumbbell(queue="droptail", pairs=2, duration="40s", warmup="10s"))
    for f in r.flows.name:
        s = r.summary["cc"][f]
        assert s["acks_low_load"] > 0
        assert s["acks_high_load"] == s["acks_overload"] == s["md"] == 0
    assert r.queues.set_index("queue").loc["R1->R2"].drops > 0


@pytest.mark.parametrize(
    "where, key, value, says",
    [
        ("cc", "beta", 1.5, "in (0, 1)"),
        ("cc", "srtt_tick", "2s", "up to 1 s"),
        ("queue", "quantize", "round", '"percent", "none"'),
        ("queue", "gamma", 0, "(0, 1]"),
        ("queue", "q_sample", "1s", "no longer than the measurement interval"),
    ],
)
def test_bad_values_name_key_value_and_what_is_accepted(where, key, value, says):
    s = _dumbbell(duration="1s", warmup="0s")
    if where == "cc":
        s["flows"][0]["cc"] = {"kind": "vcp", key: value}
        path = rf"flows\[0\]\.cc\.{key}"
    else:
        s["topology"]["bottleneck"]["queue"][key] = value
        path = rf"topology\.bottleneck\.queue\.{key}"
    with pytest.raises(ccsim.ScenarioError, match=path) as e:
        ccsim.run(s)
    assert says in str(e.value)


def test_the_sender_requires_the_echo():
    s = _dumbbell(duration="1s", warmup="0s")
    del s["flows"][0]["feedback"]
    with pytest.raises(ccsim.ScenarioError, match=r'flows\[0\]\.feedback: .*kind = "vcp"'):
        ccsim.run(s)
