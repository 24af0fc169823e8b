"""Short reproductions of the BMCC paper (Qazi, Znati & Andrew, PFLDNeT 2009; the targets
of docs/models/bmcc.md, "Reproduction targets") through the Python API, on the scenarios
of ``ccsim.experiments.bmcc``: Fig. 1 (three flows converging on a BMCC bottleneck),
Fig. 6 (BMCC and SACK over drop-tail and RED + ECN), Fig. 9 (the modified router), the
analytic rows, and bad input."""

import math

import ccsim
import pytest
from ccsim import theory
from ccsim.experiments import bmcc as B


def run(sc):
    r = ccsim.run(sc)
    return r, B.metrics(r)


def test_analytic_rows_of_spec_10():
    assert theory.bmcc_mi_factor(0.15, 0.2) == pytest.approx(2.983, abs=5e-4)
    assert theory.bmcc_md_factor(1.2) == 0.65
    assert theory.bmcc_md_factor(1.0) == 0.875
    assert theory.bmcc_md_factor(1.1) == pytest.approx(0.7625)
    assert theory.bmcc_ai_increment(0.3) == pytest.approx(2.25)
    assert theory.bmcc_cross_arrival_rate(45e6, 0.1, 30_000) == 18.75
    assert theory.bdp_packets(45e6, 0.04, 1000) == 225
    assert round(theory.bdp_packets(45e6, 0.3, 1000)) == 1688


def test_fig1_bmcc_router_no_loss_tracks_the_load_and_stays_below_gamma():
    """Fig. 1-2, shortened (arrivals 20 s apart): no loss, f̂ follows f within a
    t_p or two, the link runs near γ; a newcomer starts slowly (AI only)."""
    sc = B.scenario(
        [("bmcc", 150.0, 0.0), ("bmcc", 200.0, 20.0), ("bmcc", 250.0, 40.0)],
        router="bmcc",
        rate_mbps=100.0,
        rtt_ms=200.0,
        duration=60.0,
        warmup=0.0,
        cross=False,
    )
    r, m = run(sc)
    assert m["drops"] == 0
    assert m["tracking_lag_s"] <= 0.4
    assert m["tracking_gap"] < 0.05
    assert 0.85 < m["utilization"] < 0.98
    assert 0.8 < m["p1_total_mbps"] * B.WIRE / 100 < 0.98
    # The newcomers have not caught up after 20 s: equalization is by AI alone.
    assert m["p3_jain"] < 0.9
    # MI from f̂ = 0.15 multiplies the first window by ≈ 3 per t_p.
    assert m["mi_growth_per_tp"] == pytest.approx(2.983, rel=0.1)


@pytest.mark.parametrize("router,sack", [("droptail", "sack"), ("red", "sack-ecn")])
def test_fig6_bmcc_takes_most_of_a_non_bmcc_bottleneck(router, sack):
    """Fig. 6(a), (c): 3 BMCC + 3 SACK flows at 40 ms, 40 s: SACK's windows stay small."""
    flows = B.long_flows(["bmcc"] * 3 + [sack] * 3, 40.0)
    _, m = run(B.scenario(flows, router, duration=40.0, warmup=10.0))
    assert m["thr_sack"] < 0.5 * m["thr_bmcc"]
    assert m["adpm_marks"] == 0, "no BMCC router on the path"
    if router == "droptail":
        assert m["ce_marks"] == 0 and m["md"] == 0, "f̂ stays at 0.15: MIMD"
        assert m["loss_factor_min"] == 0.5
    else:
        assert m["ce_md_factor_min"] == m["ce_md_factor_max"] == 0.65, "β(u) on 11"


def test_fig9_modified_router_lets_sack_and_bmcc_share():
    """Fig. 9: 3 SACK + ECN and 3 BMCC flows over the modified BMCC router, 40 s."""
    flows = B.long_flows(["bmcc"] * 3 + ["sack-ecn"] * 3, 40.0)
    _, m = run(B.scenario(flows, "modified", duration=40.0, warmup=10.0))
    assert m["jain"] > 0.75
    assert min(m["thr_bmcc"], m["thr_sack"]) > 0.15 * m["total_mbps"]
    assert m["utilization"] > 0.9
    # Against the unmodified router (Fig. 8) BMCC starves.
    _, starved = run(B.scenario(flows, "bmcc", duration=40.0, warmup=10.0))
    assert starved["thr_bmcc"] < 0.1 * starved["thr_sack"]


def test_fig12_heuristic_switches_over_droptail_once():
    flows = B.long_flows(["bmcc-h"] * 2, 40.0)
    _, m = run(B.scenario(flows, "droptail", duration=30.0, warmup=5.0))
    assert m["to_sack_mode"] == 2 and m["to_bmcc_mode"] == 0
    assert m["first_sack_mode_s"] < 2.0


def test_validation_equal_rtts_fair_no_loss_small_queue():
    """Beyond the paper: 4 BMCC flows of equal RTT, 2 seeds, 150 s."""
    for seed in (1, 2):
        _, m = run(B.validation_scenario(4, "equal", seed, duration=150.0, warmup=75.0))
        assert m["drops"] == 0
        assert m["jain"] > 0.99
        assert m["mean_queue_pkts"] < 5
        assert 0.85 < m["utilization"] < 0.98


def test_experiments_are_registered_with_their_checks():
    from ccsim.experiments import all_experiments

    names = [e.name for e in all_experiments() if e.name.startswith("bmcc-")]
    assert names == [e.name for e in B.EXPERIMENTS]
    assert len(names) == 7
    assert sum(len(e.checks) for e in B.EXPERIMENTS) >= 40
    assert all(not math.isnan(c.lo) for e in B.EXPERIMENTS for c in e.checks)


def test_bmcc_bad_input_is_one_line_naming_the_key():
    sc = B.scenario(B.long_flows(["bmcc"], 40.0), "bmcc", duration=1.0, warmup=0.0, cross=False)
    del sc["flows"][0]["feedback"]
    with pytest.raises(ccsim.ScenarioError, match=r"^flows\[0\]\.feedback: required key missing"):
        ccsim.run(sc)
    sc = B.scenario(B.long_flows(["bmcc"], 40.0), "bmcc", duration=1.0, warmup=0.0, cross=False)
    sc["topology"]["bottleneck"]["queue"]["gamma"] = 0
    with pytest.raises(ccsim.ScenarioError, match="bottleneck.queue.gamma: got 0"):
        ccsim.run(sc)
    sc["topology"]["bottleneck"]["queue"]["gamma"] = 0.98
    sc["flows"][0]["cc"] = {"kind": "bmcc", "md_rule": "always"}
    with pytest.raises(ccsim.ScenarioError, match=r"cc\.md_rule: got \"always\""):
        ccsim.run(sc)
