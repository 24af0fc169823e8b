"""The data-centre classics (``ccsim reproduce dc``, issues 46 and 47): the five experiments
are registered under one prefix, their quick scenarios are valid, the hand-worked pieces
their checks rest on hold on hand-worked inputs (incast bounds, max-min fair shares,
the Monte-Carlo ECMP expectation, the seed-and-bootstrap errors), the metrics read a
real run right (ECMP paths of the right length, incast queries behind their barrier),
and every one of them passes end to end in quick mode."""

import math

import ccsim
import pandas as pd
import pytest
from ccsim import theory
from ccsim.cli import _expand
from ccsim.experiments import all_experiments, reproduce
from ccsim.experiments.datacenter import common, ecmp, hpcc, incast, pfc, websearch
from ccsim.experiments.framework import Data

NAMES = ["dc-incast", "dc-websearch", "dc-ecmp", "dc-pfc", "dc-hpcc"]


def test_the_five_are_registered_under_one_prefix():
    known = [e.name for e in all_experiments()]
    assert all(n in known for n in NAMES)
    assert _expand(["dc"], known) == NAMES


@pytest.mark.parametrize("exp", [incast, websearch, ecmp, pfc, hpcc])
def test_every_quick_scenario_is_valid(exp):
    for r in exp.runs(True):
        resolved = ccsim.resolve(r.scenario)
        assert resolved["seed"] == r.scenario["seed"]


def test_the_quick_modes_are_small():
    # the four together add at most ~90 s to `ccsim reproduce --all --quick`
    assert len(incast.runs(True)) <= 30
    assert len(websearch.runs(True)) <= 12
    assert len(ecmp.runs(True)) <= 6
    assert len(pfc.runs(True)) <= 18
    assert len(hpcc.runs(True)) <= 16


def test_incast_bounds_are_the_hand_worked_ones():
    # 64 000 B = 44 segments of 1460 B; slow start from 3: 3, 6, 12, 23
    assert incast.SRU_SEGMENTS == 44
    assert theory.slow_start_rounds(44, 3) == [3, 6, 12, 23]
    # 4·23 = 92 ≤ 108 < 5·23 = 115; 36·3 = 108 ≤ 108 < 37·3
    assert incast.N_TCP_SAFE == 4
    assert incast.N_FIRST_WINDOW == 36


def test_max_min_fair_on_a_hand_worked_network():
    # links A (capacity 2) and B (capacity 1); f1 on A and B, f2 on A, f3 on B:
    # B is the bottleneck (1/2 each for f1, f3); f2 takes what is left on A, 3/2
    r = theory.max_min_fair({"f1": ["A", "B"], "f2": ["A"], "f3": ["B"]}, {"A": 2.0, "B": 1.0})
    assert r == pytest.approx({"f1": 0.5, "f2": 1.5, "f3": 0.5})
    # two flows colliding on one uplink of a fat-tree get half each, the rest full
    paths = {"a": ["u1", "x"], "b": ["u2", "x"], "c": ["u3", "y"]}
    r = theory.max_min_fair(paths, dict.fromkeys(["u1", "u2", "u3", "x", "y"], 1.0))
    assert r == pytest.approx({"a": 0.5, "b": 0.5, "c": 1.0})
    with pytest.raises(ValueError):
        theory.max_min_fair({"a": ["nowhere"]}, {})


def test_the_ecmp_expectation_on_a_fat_tree_of_two_pods():
    # k = 2: two hosts, one per pod, one path each way: no collisions, full bisection
    assert theory.ecmp_permutation_throughput(2, 20) == (1.0, 0.0)
    m4, s4 = theory.ecmp_permutation_throughput(4, 400)
    m8, _ = theory.ecmp_permutation_throughput(8, 60)
    assert 0.55 < m4 < 0.63 and 0.05 < s4 < 0.1
    assert 0.45 < m8 < 0.5 < m4  # bigger fabrics collide more (Raiciu et al. 2011: ~0.4-0.6)


def test_ecmp_metrics_read_each_flows_path_from_the_trace():
    sc = ecmp.scenario(4, seed=1, duration=0.02, warmup=0.01)
    r = ccsim.run(sc)
    p = ecmp.paths(r)
    for _, f in r.flows.iterrows():
        same_edge = f["src"].rsplit("_", 1)[0] == f["dst"].rsplit("_", 1)[0]
        same_pod = f["src"].split("_")[0] == f["dst"].split("_")[0]
        hops = 2 if same_edge else 4 if same_pod else 6
        assert len(p[f["name"]]) == hops, (f["src"], f["dst"], p[f["name"]])
    m = ecmp.metrics(r)
    assert m["flows"] == 16 and 0 < m["maxmin"] <= 1


def test_incast_metrics_count_queries_behind_their_barrier():
    r = ccsim.run(incast.scenario("dctcp-200ms", 4, 3, seed=1))
    f = r.flows
    assert len(f) == 12
    q0, q1 = f[f["name"].str.startswith("q0.")], f[f["name"].str.startswith("q1.")]
    assert q1["start_s"].min() >= q0["completion_s"].max()  # the barrier
    m = incast.metrics(r)
    assert m["queries_done"] == 3 and m["timeout_fraction"] == 0
    assert 0.5 * common.RATE_BPS < m["goodput_bps"] < common.RATE_BPS


def _data(rows: list[dict]) -> Data:
    return Data("t", pd.DataFrame(rows), results_dir=None, quick=True)


def test_incast_check_helpers_on_a_hand_made_table():
    rows = [
        {"variant": v, "n": n, "goodput_bps": g, "timeout_fraction": t}
        for v, n, g, t in [
            ("tcp-200ms", 2, 9e8, 0.0),
            ("tcp-200ms", 4, 8e8, 0.0),
            ("tcp-200ms", 8, 5e7, 0.9),
            ("dctcp-200ms", 2, 9e8, 0.0),
            ("dctcp-200ms", 4, 9e8, 0.0),
            ("dctcp-200ms", 8, 9e8, 0.1),
        ]
    ]
    d = _data(rows)
    assert incast._safe_range(d, "tcp-200ms") == 4
    assert incast._safe_range(d, "dctcp-200ms") == 4  # a timeout at 8 ends the range
    assert incast._worst(d, "tcp-200ms", 4, 8) == pytest.approx(0.05)
    assert incast._worst(d, "tcp-200ms", 2, 8, pick=max, metric="timeout_fraction") == 0.9


def test_websearch_errors_combine_seeds_and_bootstrap():
    rows = [
        {"cc": "tcp", "load": 0.3, "short_p99": 10.0, "short_p99_se": 3.0},
        {"cc": "tcp", "load": 0.3, "short_p99": 14.0, "short_p99_se": 4.0},
    ]
    m, se = websearch._stat(_data(rows), "tcp", 0.3, "p99")
    # mean 12; the seeds' spread σ/√2 = 2√2/√2 = 2; the bootstrap's √(9+16)/2 = 2.5
    assert m == 12.0 and se == pytest.approx(2.5)
    rows = [
        {"cc": cc, "load": x, "short_p99": v, "short_p99_se": 1.0}
        for cc, x, v in [("tcp", 0.3, 20), ("dctcp", 0.3, 5), ("tcp", 0.7, 50), ("dctcp", 0.7, 6)]
    ]
    d = _data(rows)
    # the gap grows from 15 to 44: 29 over √4 · 1
    assert websearch._z_growth(d) == pytest.approx(29 / 2)
    assert websearch._z_lower(d, "tcp") == pytest.approx(15 / math.sqrt(2))
    assert websearch._ratio(d, "tcp", "p99") == pytest.approx(0.25)


def test_reproduce_dc_incast_quick_passes_every_check(tmp_path):
    ok = reproduce(
        ["dc-incast"],
        quick=True,
        jobs=1,
        results_dir=tmp_path / "db",
        out_dir=tmp_path / "out",
        progress=False,
    )
    report = (tmp_path / "out" / "dc-incast" / "report.md").read_text()
    assert ok, report
    assert report.count("| PASS |") == len(incast.EXPERIMENT.checks)


# dc-websearch: about 40 s on two cores (12 fat-tree runs and their solo runs)
@pytest.mark.parametrize("name", ["dc-websearch", "dc-ecmp", "dc-pfc"])
def test_reproduce_quick_passes_every_check(tmp_path, name):
    ok = reproduce(
        [name], quick=True, results_dir=tmp_path / "db", out_dir=tmp_path / "out", progress=False
    )
    report = (tmp_path / "out" / name / "report.md").read_text()
    assert ok, report


def test_hpcc_scenarios_give_each_transport_its_switch():
    by = {r.params["cc"]: r.scenario for r in hpcc.runs(True)}
    assert set(by) == {"hpcc", "dcqcn", "timely", "dctcp"}
    assert by["hpcc"]["switches"] == {"buffer": "1MB", "pfc": {}, "int": True}
    assert "int" not in by["dcqcn"]["switches"]
    assert by["dcqcn"]["topology"]["host_link"]["queue"]["kind"] == "kmin_kmax"
    assert by["dctcp"]["topology"]["fabric_link"]["queue"]["kind"] == "step"
    assert by["dctcp"]["workloads"][0]["transport"]["kind"] == "tcp"
    assert "queue" not in by["timely"]["topology"]["host_link"]


def test_hpcc_check_helpers_on_a_hand_made_table():
    rows = [
        {"cc": cc, "load": x, "seed_": s, "short_p99": v, "pauses": p}
        for cc, x, s, v, p in [
            ("hpcc", 0.3, 1, 2.0, 0),
            ("hpcc", 0.3, 2, 4.0, 10),
            ("dcqcn", 0.3, 1, 6.0, 20),
            ("dcqcn", 0.3, 2, 6.0, 40),
            ("hpcc", 0.5, 1, 5.0, 50),
            ("dcqcn", 0.5, 1, 4.0, 30),
        ]
    ]
    d = _data(rows)
    # load 0.3: 3/6; load 0.5: 5/4 (HPCC worse there): the largest, 1.25
    assert hpcc._ratio(d, "dcqcn") == pytest.approx(1.25)
    # pauses: 5 - 30 at 0.3, 50 - 30 at 0.5
    assert hpcc._pauses(d) == pytest.approx(20)


# dc-hpcc: about 30 s on two cores (16 runs of 50 ms at 25 Gb/s and their solo runs); its
# completion check fails in quick mode, with its cause in the report (docs/experiments.md)
def test_reproduce_dc_hpcc_quick_reports_every_check_with_a_cause(tmp_path):
    out = reproduce(
        ["dc-hpcc"],
        quick=True,
        results_dir=tmp_path / "db",
        out_dir=tmp_path / "out",
        progress=False,
    )
    report = (tmp_path / "out" / "dc-hpcc" / "report.md").read_text()
    assert out.exit_status() == 0, report
    assert report.count("| PASS |") + report.count("| FAIL |") == len(hpcc.CHECKS)
    assert "FCT slowdown by flow size, p50 / p95 / p99" in report
