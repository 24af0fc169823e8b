"""The AQM example scenarios (CoDel, FQ-CoDel, PIE) and the queue table's sojourn columns."""

import ccsim
import pytest
from ccsim import scenarios


@pytest.mark.parametrize(
    ("name", "kind", "signal"),
    [
        ("dumbbell-codel", "codel", "drops_early"),
        ("dumbbell-fq-codel", "fq_codel", "marks_early"),
        ("dumbbell-pie", "pie", "drops_early"),
    ],
)
def test_aqm_scenarios_keep_the_delay_low_against_droptail(name, kind, signal):
    short = ["duration=15s", "warmup=5s"]
    r = ccsim.run(str(scenarios.path(name)), overrides=short)
    q = r.queue("R1->R2")
    assert q["kind"] == kind
    assert q[signal] > 0
    assert q["utilization"] > 0.9
    assert 0 <= q["sojourn_p50_s"] <= q["sojourn_p95_s"] <= q["sojourn_p99_s"] <= q["sojourn_max_s"]
    dt = ccsim.run(
        str(scenarios.path(name)),
        overrides=[
            *short,
            'topology.bottleneck.queue={kind="droptail", limit="1000pkt"}',
            "flows[0].ecn=false",
        ],
    ).queue("R1->R2")
    assert q["sojourn_p95_s"] < dt["sojourn_p95_s"] / 5, (q["sojourn_p95_s"], dt["sojourn_p95_s"])
    ts = r.timeseries["queue"]
    assert "sojourn_mean_s" in ts.columns
    busy = ts[ts["time_s"] > 5]["sojourn_mean_s"]
    assert busy.notna().all() and busy.mean() < 0.05
