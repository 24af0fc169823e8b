"""Scalable TCP (``cc = "scalable"``, docs/models/scalable.md) on a whole dumbbell.

Unit tests with hand-worked cases sit beside the code (cc/scalable.rs); these check the
window law with the sender, receiver and queue: one segment per 100 acknowledged above
100 segments, an eighth off at each loss, a regrowth time in round trips that does not
depend on the rate, and Reno's halving below the legacy window.
"""

import numpy as np
import pytest

import ccsim

MSS = 1460


def _dumbbell(cc, *, rate="100Mbps", delay="48ms", limit="0.2bdp", duration="40s", seed=1):
    return {
        "seed": seed,
        "duration": duration,
        "warmup": "10s" if duration != "5s" else "1s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 1,
            "bottleneck": {
                "rate": rate,
                "delay": delay,
                "queue": {"kind": "droptail", "limit": limit},
            },
            "access": {"rate": "10Gbps", "delay": "1ms"},
        },
        "flows": [{"pairs": "all", "cc": cc, "mss": MSS}],
        "monitor": {"interval": "10ms", "queues": ["R1->R2"]},
    }


def _series(r):
    f = r.timeseries["flow"]
    return (
        f.time_s.to_numpy(),
        f.cwnd_bytes.to_numpy() / MSS,
        f.delivered_bytes.to_numpy() / MSS,
        f.in_recovery.to_numpy(),
        f.srtt_s.to_numpy(),
    )


def _reductions(c):
    """Indices of the samples just before each window reduction."""
    return np.where(np.diff(c) < -0.05 * c[:-1])[0]


def test_fills_the_link_and_regrows_one_segment_per_hundred_acknowledged():
    """One flow, 100 Mbps, RTT ≈ 100 ms (a BDP of ≈ 840 segments), a 0.2-BDP drop-tail
    buffer: every loss comes at the same window W ≈ 1010 segments and leaves W − ⌊W/8⌋
    (1011 → 886); the buffer (more than W/8) never drains, so the link stays full. In
    congestion avoidance, away from a recovery's edges (an RTT after it, 50 ms before the
    next), cwnd gains one segment per 100 delivered: measured 108 segments gained for
    10 833 delivered, in every cycle (one flow on a fixed path: every seed alike)."""
    r = ccsim.run(_dumbbell("scalable"))
    t, c, d, rec, _ = _series(r)
    i = _reductions(c)
    steady = i[t[i] > 5]
    assert len(steady) >= 15
    before, after = c[steady], c[steady + 1]
    assert np.all(np.abs(after - (before - np.floor(before / 8))) <= 1), (before, after)
    assert r.queues.set_index("queue").loc["R1->R2"].utilization > 0.999
    for a, b in zip(steady[:-1], steady[1:]):
        j = a + 1
        while rec[j]:
            j += 1
        j, k = j + 15, b - 5
        grown, delivered = c[k] - c[j], d[k] - d[j]
        assert grown > 100
        assert abs(grown - delivered / 100) <= 2, (grown, delivered)


def test_regrowth_takes_the_same_round_trips_at_four_times_the_rate():
    """Scalable TCP's point (Kelly 2003, §2): the window regains a reduction in a number
    of round trips that does not depend on the window, ln(8/7)/ln(1.01) ≈ 13.4 plus the
    recovery's. At 100 and 400 Mbps (windows of ≈ 1000 and ≈ 4000 segments) the period
    between losses is the same 14.5 RTTs, where NewReno's one segment per RTT would take
    W/8 ≈ 125 and ≈ 500 RTTs to regain an eighth."""
    periods = []
    for rate in ("100Mbps", "400Mbps"):
        r = ccsim.run(_dumbbell("scalable", rate=rate))
        t, c, _, _, srtt = _series(r)
        i = _reductions(c)
        steady = i[t[i] > 5]
        assert len(steady) >= 15
        periods.append(np.median(np.diff(t[steady])) / np.mean(srtt[t > 5]))
        assert r.queues.set_index("queue").loc["R1->R2"].utilization > 0.999
    assert 13 < periods[0] < 16 and abs(periods[1] - periods[0]) < 0.5, periods


def test_below_the_legacy_window_a_loss_halves_as_reno():
    """10 Mbps, RTT ≈ 10 ms, a 3-packet buffer: the window peaks at ≈ 15 segments, below
    the legacy window of 16, and each loss halves it as NewReno's does (15.5 → 7.5);
    with ``low_window = 0`` (Linux's tcp_scalable, no legacy window) it loses an eighth
    (15 → 14)."""
    ratios = {}
    for name, cc in (
        ("default", "scalable"),
        ("linux", {"kind": "scalable", "low_window": 0}),
        ("newreno", "newreno"),
    ):
        r = ccsim.run(_dumbbell(cc, rate="10Mbps", delay="4ms", limit="3pkt", duration="30s"))
        t, c, _, _, _ = _series(r)
        i = _reductions(c)
        steady = i[t[i] > 5]
        assert len(steady) >= 50, name
        assert c[steady].max() < 16, name
        ratios[name] = np.median(c[steady + 1] / c[steady])
    assert abs(ratios["default"] - ratios["newreno"]) < 0.02, ratios
    assert 0.45 < ratios["default"] < 0.55, ratios
    assert abs(ratios["linux"] - 14 / 15) < 0.01, ratios


@pytest.mark.parametrize(
    "key, value",
    [("ai_cnt", 0), ("md_scale", 0), ("md_scale", 17), ("low_window", -1)],
)
def test_out_of_range_keys_name_themselves(key, value):
    s = _dumbbell({"kind": "scalable", key: value}, duration="5s")
    with pytest.raises(ccsim.ScenarioError, match=rf"flows\[0\]\.cc\.{key}:"):
        ccsim.run(s)
