"""The connection-table metrics (``ccsim.connmetrics``, Kim & Farber 1994, §4.1.4) on hand-made tables
and on a real run."""

import ccsim
import numpy as np
import pandas as pd
import pytest
from ccsim import connmetrics as cm


def table(starts, acks, size=100_000):
    c = pd.DataFrame(
        {
            "conn": range(len(starts)),
            "workload": "w",
            "start_s": starts,
            "size_bytes": size,
            "last_ack_s": acks,
        }
    )
    c["response_time_s"] = c.last_ack_s - c.start_s
    return c


def test_hand_worked_table():
    # Four 100-kB connections; the first is warm-up. Measured: R = 1, 2, 1 s; the
    # span is 1 s to 5 s; Θ = 300 kB / 4 s = 75 kB/s; P = 75 000 / (4/3) = 56 250.
    c = table([0.0, 1.0, 2.0, 4.0], [0.5, 2.0, 4.0, 5.0])
    m = cm.measured(c, warmup=1)
    assert list(m.conn) == [1, 2, 3]
    assert cm.mean_response_time(m) == pytest.approx(4 / 3)
    assert cm.mean_response_time(m, one_way_s=0.25) == pytest.approx(4 / 3 - 0.25)
    assert cm.throughput(m) == pytest.approx(75_000)
    assert cm.power(m) == pytest.approx(56_250)
    # Θ_k = F/R_k = 100, 50, 100 kB/s: Jain = 250² / (3 · 22 500) = 0.9259...
    assert cm.jain(m) == pytest.approx(250**2 / (3 * (100**2 + 50**2 + 100**2)))
    # Little over the arrivals' window [1, 4]: in the system, connection 1 for 1 s,
    # 2 for 2 s (connection 0 left at 0.5, 3 arrives at its end): 3 s / 3 s = 1;
    # λ̂ = 2 arrivals / 3 s, R̄ = 4/3: λ̂·R̄ = 8/9.
    assert cm.little(m, c) == pytest.approx((1.0, 8 / 9))
    assert cm.measured(c, warmup=1, count=2).conn.tolist() == [1, 2]


def test_pessimistic_throughput_uses_the_longest_run():
    a = table([0.0, 1.0], [1.0, 2.0])  # 200 kB in 2 s
    b = table([0.0, 1.0], [1.0, 4.0])  # 200 kB in 4 s
    assert cm.throughput(a) == 100_000 and cm.throughput(b) == 50_000
    assert cm.pessimistic_throughput([a, b]) == pytest.approx(200_000 / 4)


def test_unfinished_measured_connections_are_refused_not_averaged():
    c = table([0.0, 1.0, 2.0], [1.0, np.nan, 3.0])
    with pytest.raises(ValueError, match="1 of the 3 measured connections did not complete"):
        cm.mean_response_time(cm.measured(c))
    assert cm.mean_response_time(cm.measured(c, count=1)) == 1.0


def test_in_system_and_divergence():
    c = table([0.0, 1.0, 2.0], [1.5, 2.5, 3.5])
    assert cm.in_system(c, [0.5, 1.2, 2.2, 3.0, 4.0]).tolist() == [1, 2, 2, 1, 0]
    # A run whose arrivals outpace completions: one completion per 2 s, one arrival per s.
    starts = np.arange(0.0, 200.0, 1.0)
    acks = np.where(np.arange(200) < 100, 2.0 * np.arange(200) + 1.5, np.nan)
    grow = table(starts, acks)
    bad, why = cm.diverged(grow, end_s=200.0, warmup=10, count=150)
    assert bad and "unfinished" in why
    ok, _ = cm.diverged(table(starts, starts + 0.5), end_s=200.0, warmup=10, count=150)
    assert not ok


def test_a_real_run_obeys_littles_law():
    sc = {
        "seed": 3,
        "duration": "200s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 50,
            "bottleneck": {"rate": "30Mbps", "delay": "5ms"},
            "access": {"rate": "150Mbps", "delay": "5ms"},
        },
        "workloads": [
            {
                "name": "w",
                "pairs": "all",
                "pick": "idle",
                "arrival_rate": 10,
                "size": "100KB",
                "complete_first": 600,
                "transport": {"kind": "blt", "mss": 500, "header": 0},
            }
        ],
    }
    r = ccsim.run(sc)
    m = cm.measured(r.connections, warmup=100, count=500)
    n_avg, n_theta = cm.little(m, r.connections)
    assert n_avg == pytest.approx(n_theta, rel=0.05)
    # Θ ≈ λ·F for a stable system measured over its span.
    assert cm.throughput(m) == pytest.approx(10 * 100_000, rel=0.1)
    assert not cm.diverged(r.connections, r.summary["duration_s"], 100, 500)[0]


def test_a_run_stopped_before_its_measured_arrivals_diverged():
    """A run that stops (e.g. every host pair busy) before its measured connections all
    arrived has diverged: there is nothing honest to average, and no ValueError later."""
    starts = np.arange(0.0, 50.0, 1.0)
    c = table(starts, starts + 0.5)  # 50 arrivals, all done: 40 short of warm-up + count
    e = cm.divergence(c, end_s=50.0, warmup=20, count=70)
    assert e["diverged"] == 1.0 and e["never_arrived"] == 40 and e["unfinished"] == 0
    bad, why = cm.diverged(c, end_s=50.0, warmup=20, count=70)
    assert bad and "40 never arrived" in why
    e = cm.divergence(table(starts[:10], starts[:10] + 0.5), end_s=50.0, warmup=20, count=70)
    assert e["never_arrived"] == 70  # not one measured connection arrived
    assert cm.divergence(c, end_s=50.0, warmup=20, count=30)["diverged"] == 0.0
