"""TIMELY through the Python API (docs/models/timely.md): ``kind = "roce"`` flows with
``rate_control = "timely"`` on 10 and 40 Gb/s dumbbells (drop-tail queues, no PFC).

What the paper leads us to expect (Mittal et al., SIGCOMM 2015, §4 and §6): near line
rate with a low, bounded RTT, the gradient holding the queue once the RTT passes T_low
(50 µs), and never the T_high (500 µs) regime at these loads. What the CoNEXT 2016
analysis of TIMELY (Zhu, Ghobadi, Misra, Padhye, §4) adds: TIMELY has no unique fixed
point, so the split of the link between flows is not fair in general; the tests do not
ask for fairness. Measured (seeds 1-3, 100-200 ms): utilization 0.942-0.951 (10 Gb/s, 4
flows), 0.958-0.967 (10 Gb/s, 2), 0.966-0.976 (40 Gb/s); the largest queue 47.8-49.5 µs
of the link's time, just under T_low; Jain's index 0.46-0.99 at 10 Gb/s."""

import numpy as np
import pytest

import ccsim


def _dumbbell(n, rate, seed=1, duration="200ms", **flow):
    return {
        "seed": seed,
        "duration": duration,
        "warmup": "100ms" if duration == "200ms" else "0s",
        "topology": {
            "kind": "dumbbell",
            "pairs": n,
            "bottleneck": {"rate": rate, "delay": "1us", "queue": {"limit": "10MB"}},
            "access": {"rate": rate, "delay": "1us", "queue": {"limit": "10MB"}},
        },
        "flows": [
            {
                "pairs": "all",
                "kind": "roce",
                "rate_control": "timely",
                "start": {"uniform": ["0s", "10us"]},
                **flow,
            }
        ],
    }


@pytest.mark.parametrize("n, rate, floor", [(4, 10e9, 0.93), (2, 40e9, 0.96)])
def test_timely_fills_the_link_with_the_queue_below_t_low(n, rate, floor):
    for seed in (1, 2, 3):
        r = ccsim.run(_dumbbell(n, f"{rate / 1e9:.0f}Gbps", seed))
        q = r.queues.set_index("queue").loc["R1->R2"]
        assert q.utilization > floor, (seed, q.utilization)
        assert r.queues.drops.sum() == 0
        max_delay = q.max_len_bytes * 8 / rate
        assert 30e-6 < max_delay < 50e-6, (seed, max_delay)  # T_low = 50 µs
        assert (r.flows.srtt_s < 500e-6).all(), r.flows.srtt_s  # never near T_high
        cc = r.summary["cc"]["f0"]
        assert cc["above_t_high"] == 0 and cc["gradient_decreases"] > 0
        assert cc["below_t_low"] > 0 and cc["completions"] > 1000


def test_the_flows_table_and_counters_name_timely():
    r = ccsim.run(_dumbbell(2, "10Gbps", duration="20ms"))
    assert list(r.flows.cc) == ["timely", "timely"]
    for name in r.flows.name:
        cc = r.summary["cc"][name]
        branches = ["below_t_low", "above_t_high", "additive", "hyper", "gradient_decreases"]
        # every completion but the first takes exactly one branch of Algorithm 1
        assert sum(cc[b] for b in branches) == cc["completions"] - 1
    decreases = [r.summary["cc"][n]["gradient_decreases"] for n in r.flows.name]
    assert list(r.flows.ecn_reductions) == decreases


def test_one_completion_event_per_segment():
    """A completion event (one RTT sample, one rate update) each time the cumulative ACK
    passes the end of a segment: the next ends `seg` bytes past that ACK, so events are
    seg to seg + one 1000-byte packet apart."""
    for seg in (16_000, 64_000):
        r = ccsim.run(_dumbbell(2, "10Gbps", duration="20ms", seg=seg))
        for name, delivered in zip(r.flows.name, r.flows.bytes_delivered):
            n = r.summary["cc"][name]["completions"]
            assert seg <= delivered / n <= seg + 1000 + (seg + 1000) / n, (seg, delivered, n)


@pytest.mark.parametrize(
    "flow, key",
    [
        ({"alpha": 0}, "alpha"),
        ({"alpha": 1.5}, "alpha"),
        ({"beta": -0.1}, "beta"),
        ({"t_low": "500us", "t_high": "100us"}, "t_high"),
        ({"min_rtt": "0s"}, "min_rtt"),
        ({"delta": "0bps"}, "delta"),
        ({"seg": "100B"}, "seg"),
        ({"hai_after": 0}, "hai_after"),
        ({"hai_n": 0.5}, "hai_n"),
        ({"g": 0.1}, "g"),  # a DCQCN key
    ],
)
def test_bad_values_name_their_key(flow, key):
    with pytest.raises(ccsim.ScenarioError, match=rf"flows\[0\]\.{key}") as e:
        ccsim.run(_dumbbell(2, "10Gbps", duration="1ms", **flow))
    assert "\n" not in str(e.value)


def test_same_seed_same_result():
    a = ccsim.run(_dumbbell(2, "10Gbps", duration="5ms"))
    b = ccsim.run(_dumbbell(2, "10Gbps", duration="5ms"))
    assert np.array_equal(a.flows.bytes_delivered.to_numpy(), b.flows.bytes_delivered.to_numpy())
