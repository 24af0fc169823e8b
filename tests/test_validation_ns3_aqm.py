"""ccsim's CoDel, FQ-CoDel and PIE against ns-3's queue discs (ccsim.validation.ns3.aqm)."""

import dataclasses

import pytest
from ccsim.validation.ns3 import aqm, ns3tcp


@pytest.mark.slow
@pytest.mark.skipif(not ns3tcp.have_ns3(), reason="ns-3 is not installed (pip install ns3)")
@pytest.mark.parametrize("kind", ["codel", "fq_codel", "pie"])
def test_aqm_sojourn_and_drops_agree_with_ns3_with_sack(kind):
    # Four SACK NewReno flows, 10 Mbps, 1000-packet buffer, 30 s (10 s warm-up):
    # ccsim and ns-3 keep the queueing delay near the AQM's target alike (mean
    # within 40 %: one seed) and drop about as often.
    case = dataclasses.replace(aqm.CASE, sack=True, duration_s=30.0)
    ns3 = aqm.run_ns3(case, kind, False, 1)
    cc = aqm.run_ccsim(case, kind, False, 1)
    print(kind, ns3, cc)
    assert abs(cc["sojourn_mean_s"] / ns3["sojourn_mean_s"] - 1) < 0.4
    assert abs(cc["aqm_drops"] / ns3["aqm_drops"] - 1) < 0.4
    assert cc["utilization"] > 0.9 and ns3["utilization"] > 0.9
