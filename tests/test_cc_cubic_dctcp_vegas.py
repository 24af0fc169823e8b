"""CUBIC, DCTCP over step marking and Vegas on whole dumbbells, against theory.

Unit tests with hand-worked cases sit beside the code (cc/cubic.rs, cc/hystart.rs,
cc/dctcp.rs, cc/vegas.rs, qdisc/step.rs); these check what the models do together with
the sender, receiver and queues, over several seeds.
"""

import copy
import warnings

import numpy as np
import pytest

import ccsim
from ccsim.api import EcnWarning


def _dumbbell(cc, *, pairs=1, rate="10Mbps", delay="48ms", queue=None, duration="60s", seed=1):
    return {
        "seed": seed,
        "duration": duration,
        "warmup": "10s" if duration == "60s" else "1s",
        "topology": {
            "kind": "dumbbell",
            "pairs": pairs,
            "bottleneck": {
                "rate": rate,
                "delay": delay,
                "queue": queue or {"kind": "droptail", "limit": "1bdp"},
            },
            "access": {"rate": "1Gbps", "delay": "1ms"},
        },
        "flows": [{"pairs": "all", "cc": cc, "mss": 1460}],
        "monitor": {"interval": "10ms", "queues": ["R1->R2"]},
    }


def _bottleneck(r):
    return r.queues.set_index("queue").loc["R1->R2"]


def _reductions(r, flow=0):
    """Times and cwnd (segments) before and after each window reduction of a flow."""
    f = r.timeseries["flow"]
    f = f[f.flow == f.flow.unique()[flow]]
    t, c = f.time_s.to_numpy(), f.cwnd_bytes.to_numpy() / 1460
    i = np.where(np.diff(c) < -0.2 * c[:-1])[0]
    return t[i + 1], c[i], c[i + 1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cubic_epoch_period_is_k_once_steady(seed):
    """One CUBIC flow, 10 Mbps, 100 ms RTT, one BDP of drop-tail buffer, fast convergence
    off: every loss comes at the same window W_max ≈ BDP + buffer, after which cwnd =
    0.7·W_max and the cubic curve is back at W_max after K = cbrt(0.3·W_max / 0.4) s
    (RFC 9438 eq. 2). The loss itself needs cwnd a little above W_max, on the flat
    plateau: the period is K plus at most ~1.5 s (0.4·τ³ = 1.35 segments at τ = 1.5 s).
    Measured: 5.54 s against K = 5.01 s."""
    s = _dumbbell({"kind": "cubic", "fast_convergence": False}, seed=seed)
    r = ccsim.run(s)
    t, before, after = _reductions(r)
    steady = t > 20
    periods = np.diff(t[steady])
    w_max = np.median(before[steady])
    k = np.cbrt(w_max * 0.3 / 0.4)
    assert len(periods) >= 5
    assert np.allclose(after[steady] / before[steady], 0.7, atol=0.02)
    assert k <= periods.min() and periods.max() <= k + 1.5, (k, periods)
    assert _bottleneck(r).utilization > 0.99


def test_cubic_fast_convergence_alternates_short_and_long_epochs():
    """With fast convergence (RFC 9438 §4.7) a lone flow that loses below its last W_max
    sets W_max = W·(1 + β)/2, so the next epoch's plateau is below the path's capacity and
    the loss comes in the convex region: epochs alternate short (the plateau at W_max ≈
    capacity is not reached) and long."""
    r = ccsim.run(_dumbbell({"kind": "cubic"}))
    t, _, _ = _reductions(r)
    p = np.diff(t[t > 20])
    assert len(p) >= 4
    assert p.max() > 1.8 * p.min(), p


def test_cubic_hystart_leaves_slow_start_without_a_timeout():
    """HyStart++ (RFC 9406) on a long fat path: standard slow start overshoots the BDP
    + buffer by about a window and ends in a timeout here; with HyStart++ the delay
    increase ends slow start first (CSS), and there is no timeout."""
    plain = ccsim.run(_dumbbell({"kind": "cubic"}, rate="100Mbps", duration="20s"))
    hy = ccsim.run(
        _dumbbell({"kind": "cubic", "hystart": "hystart++"}, rate="100Mbps", duration="20s")
    )
    assert hy.summary["cc"]["f0"]["css_entries"] >= 1
    assert hy.flows.timeouts.iloc[0] <= plain.flows.timeouts.iloc[0]
    assert hy.flows.timeouts.iloc[0] == 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cubic_linux_and_ns3_variants_count_in_whole_segments(seed):
    """Linux's ``tcp_cubic.c`` and ns-3's ``TcpCubic`` (``variant = "linux"``, ``"ns3"``)
    keep cwnd in whole segments through slow start, congestion avoidance, PRR's
    recoveries and timeouts, where the RFC's real-valued window almost never is: two
    flows over FQ-CoDel at 10 Mbps and 20 ms, whose 10-15-segment windows CoDel cuts
    every few hundred milliseconds. The link stays full with each."""
    seen = {}
    for v in ("rfc9438", "linux", "ns3"):
        s = _dumbbell(
            {"kind": "cubic", "variant": v},
            pairs=2,
            delay="8ms",
            queue={"kind": "fq_codel"},
            duration="30s",
            seed=seed,
        )
        s["warmup"] = "5s"
        r = ccsim.run(s)
        t, _, _ = _reductions(r)
        assert (t > 5).sum() >= 50, v
        assert _bottleneck(r).utilization > 0.97, v
        f = r.timeseries["flow"]
        seen[v] = np.mean(f.cwnd_bytes.to_numpy() % 1460 == 0)
    assert seen["linux"] == 1.0 and seen["ns3"] == 1.0
    assert seen["rfc9438"] < 0.1


@pytest.mark.parametrize("variant", ["rfc8257", "ns3"])
@pytest.mark.parametrize("pairs", [2, 8])
def test_dctcp_holds_the_queue_near_k_with_the_link_full(pairs, variant):
    """DCTCP over step marking at K = 20 packets (RFC 8257; Alizadeh et al. 2010 §3.3):
    N synchronized flows with W* = (C·RTT + K)/N peak at Q_max = N·(W* + 1) − C·RTT
    = K + N and oscillate with amplitude A ≈ ½·sqrt(2N·(C·RTT + K)). Here C·RTT = 50
    packets (100 Mbps, 6 ms): N = 2: Q_max = 22, A = 8.4; N = 8: Q_max = 28, A = 16.7.
    Measured: maximum 22 and 28, 5th percentile 15 and 9 (Q_max − A = 13.6 and 11.3), the
    link 100 % busy (K > C·RTT/7), no drop. ns-3's growth (``variant = "ns3"``) is
    Reno's in whole segments: the same bounds hold."""
    s = _dumbbell(
        {"kind": "dctcp", "variant": variant},
        pairs=pairs,
        rate="100Mbps",
        delay="1ms",
        queue={"kind": "step", "threshold": 20, "limit": "200pkt"},
        duration="5s",
    )
    r = ccsim.run(s)
    q = _bottleneck(r)
    tq = r.timeseries["queue"]
    tq = tq[(tq.queue == "R1->R2") & (tq.time_s > 1)]
    q_max, amplitude = 20 + pairs, 0.5 * np.sqrt(2 * pairs * 70)
    assert q.utilization > 0.99
    assert abs(q.max_len_pkts - q_max) <= 2, q.max_len_pkts
    low = np.percentile(tq.packets, 5)
    assert q_max - amplitude - 3 <= low <= q_max - amplitude / 3, low
    assert q.drops == 0 and q.marks > 0
    alphas = [v["alpha"] for v in r.summary["cc"].values()]
    assert all(0 < a < 1 for a in alphas), alphas


def test_dctcp_without_marking_warns_and_without_ecn_is_refused():
    s = _dumbbell("dctcp", duration="5s")
    with pytest.warns(EcnWarning, match=r"flows\[0\]\.cc: DCTCP"):
        ccsim.run(s)
    bad = copy.deepcopy(s)
    bad["flows"][0]["ecn"] = False
    with pytest.raises(ccsim.ScenarioError, match=r"flows\[0\]\.ecn"):
        ccsim.run(bad)
    ok = copy.deepcopy(s)
    ok["topology"]["bottleneck"]["queue"] = {"kind": "step", "threshold": 10, "limit": "100pkt"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ccsim.run(ok)


@pytest.mark.parametrize("rate, delay", [("10Mbps", "20ms"), ("100Mbps", "10ms")])
def test_vegas_single_flow_keeps_alpha_to_beta_packets_queued(rate, delay):
    """Vegas (Brakmo & Peterson 1995 §3.2): at equilibrium Diff = cwnd − cwnd·BaseRTT/RTT
    = the flow's packets queued is held in [α, β] = [2, 4]: the bottleneck queue stays
    between 2 and 4 packets, no loss, full link (measured: mean 2.3 and 2.8 packets)."""
    s = _dumbbell("vegas", rate=rate, delay=delay, queue={"kind": "droptail", "limit": "200pkt"})
    r = ccsim.run(s)
    q = _bottleneck(r)
    tq = r.timeseries["queue"]
    tq = tq[(tq.queue == "R1->R2") & (tq.time_s > 20)]
    assert q.drops == 0 and q.utilization > 0.99
    assert 2 <= np.percentile(tq.packets, 5) and np.percentile(tq.packets, 95) <= 4
    assert 2 <= q.mean_len_pkts <= 4


@pytest.mark.parametrize(
    "cc, key, value",
    [
        ({"kind": "cubic", "beta": 1.0}, "beta", "open interval"),
        ({"kind": "cubic", "c": 0}, "c", "open interval"),
        ({"kind": "dctcp", "g": 0}, "g", "open interval"),
        ({"kind": "vegas", "alpha": 4, "beta": 3}, "beta", "alpha"),
    ],
)
def test_out_of_range_parameters_name_their_key(cc, key, value):
    s = _dumbbell(cc, duration="5s")
    with pytest.raises(ccsim.ScenarioError, match=rf"flows\[0\]\.cc\.{key}:.*{value}"):
        ccsim.run(s)
