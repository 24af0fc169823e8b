"""ccsim against ns-2.35 on small TCP dumbbells (ccsim.validation.ns2, docs/validation.md).

Each case runs the same scenario in both simulators, ccsim with ``conventions =
"ns2"``; counts of drops, retransmissions and timeouts must agree, not only
utilization. Skipped where the ns-2 binary ``ns`` is not installed.
"""

from __future__ import annotations

import pytest
from _tools import needs_ns
from ccsim.validation.ns2.tcp_scenario import Case, run_ccsim, run_ns2

pytestmark = needs_ns

ONE = dict(pairs=1, rate_mbps=10, delay_ms=20, buffer_pkts=55, duration_s=30.0, warmup_s=5.0)


@pytest.mark.parametrize(
    "case",
    [
        Case("newreno", cc="newreno", **ONE),
        Case("reno delack", cc="reno", delayed_ack=True, **ONE),
        Case("tahoe", cc="tahoe", **ONE),
        Case("newreno 0.25 BDP", cc="newreno", **dict(ONE, buffer_pkts=14)),
    ],
    ids=lambda c: c.name,
)
def test_single_flow_matches_ns2(case):
    a, b = run_ns2(case, 1), run_ccsim(case, 1)
    assert b.utilization == pytest.approx(a.utilization, abs=0.005)
    assert abs(b.drops - a.drops) <= 1
    assert b.timeouts == a.timeouts
    assert b.retransmits == pytest.approx(a.retransmits, rel=0.05)


def test_eight_flows_match_ns2_over_seeds():
    case = Case(
        "8 flows",
        pairs=8,
        rate_mbps=100,
        delay_ms=20,
        access_mbps=1000,
        start_max_s=0.1,
        buffer_pkts=100,
        mss=1448,
        duration_s=20.0,
        warmup_s=5.0,
    )
    ns = [run_ns2(case, s) for s in (1, 2)]
    cc = [run_ccsim(case, s) for s in (1, 2)]

    def total(runs, key):
        return sum(getattr(o, key) for o in runs)

    assert total(cc, "utilization") / 2 == pytest.approx(total(ns, "utilization") / 2, abs=0.02)
    for key in ("drops", "retransmits"):
        assert total(cc, key) == pytest.approx(total(ns, key), rel=0.1), key
    assert abs(total(cc, "timeouts") - total(ns, "timeouts")) <= max(3, 0.2 * total(ns, "timeouts"))
