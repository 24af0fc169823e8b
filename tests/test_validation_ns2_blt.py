"""ccsim's TCP in the BLT study against ns-2.35 (ccsim.validation.ns2.blt_tcp).

One short point of the reference network (λ = 10 conn/s, 300 connections) in both
simulators with the same arrivals: wire sizes, the idle-pair pool, the aggregate
metrics and the response times connection by connection. Skipped where the ns-2
binary ``ns`` is not installed.
"""

from __future__ import annotations

import pytest
from _tools import needs_ns
from ccsim.validation.ns2 import blt_tcp


POINT = blt_tcp.Point(lam=10.0, seed=1, warmup=50, measured=250)


def test_skips_with_one_line_without_ns(monkeypatch, capsys):
    monkeypatch.setattr(blt_tcp, "have_ns", lambda: False)
    assert blt_tcp.main([]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "skipped" in out[0]


def test_ns2_script_matches_the_experiment():
    """The ns-2 settings that carry the experiment's TCP keys and buffers."""
    p = blt_tcp.Point(10.0, 1, 50, 250, offset_us=50.0)
    s = blt_tcp.tcl(p, [(0.5, 0), (0.7, 3)], pairs=4)
    for line in (
        "Agent/TCP set numdupacks_ 1",
        "Agent/TCP set windowInit_ 1",
        "Agent/TCP set useHeaders_ false",
        "Agent/TCP set timestamps_ true",
        "Agent/TCP set tcpTick_ 0.001",
        "Agent/TCP set minrto_ 0.06",
        "Agent/TCP set rtxcur_init_ 1.0",
        "$ns queue-limit $r1 $r2 76",  # 75 waiting = 37 500 B, plus the one in service
        "set pkts 200",
        "$t advanceby $pkts",
        '"arrive 1 3"',
        "$t target $null",  # a finished connection sends nothing more
    ):
        assert line in s, line
    sc = blt_tcp.ccsim_scenario(p, {})
    tx = sc["workloads"][0]["transport"]
    assert (tx["mss"], tx["header"], tx["ack_size"], tx["dupthresh"]) == (500, 0, 40, 1)
    assert sc["topology"]["bottleneck"]["queue"]["limit"] == "37500B"
    # The same per-pair offsets in both simulators.
    ms = [float(d.removesuffix("ms")) for d in sc["topology"]["access"]["delay"]]
    assert ms[:4] == p.delays_ms(4) and all(5.0 <= d < 5.05 for d in ms)


@pytest.fixture(scope="module")
def point():
    labels = ("ns-2", "ccsim", "ccsim, ns-2 conventions")
    return blt_tcp.run_point(POINT, labels)


@needs_ns
def test_same_arrivals_and_pairs(point):
    ns, cc = point.runs["ns-2"].conns, point.runs["ccsim"].conns
    assert len(ns) == len(cc) > POINT.warmup + POINT.measured
    assert (ns["start_s"].to_numpy() == cc["start_s"].to_numpy()).all()
    # Every connection found its host pair idle, in ccsim's pool and in ns-2's replay.
    assert point.runs["ns-2"].busy_picks == 0 and point.runs["ccsim"].busy_picks == 0


@needs_ns
@pytest.mark.parametrize("label", ["ccsim", "ccsim, ns-2 conventions"])
def test_metrics_agree_with_ns2(point, label):
    a = blt_tcp.metrics(point.runs["ns-2"], POINT)
    b = blt_tcp.metrics(point.runs[label], POINT)
    assert b["r_mean"] == pytest.approx(a["r_mean"], rel=0.02)
    assert b["r_p90"] == pytest.approx(a["r_p90"], rel=0.03)
    assert b["util"] == pytest.approx(a["util"], abs=0.003)
    assert abs(b["drops"] - a["drops"]) <= 0.05 * a["drops"] + 5
    assert abs(b["retx"] - a["retx"]) <= 0.05 * a["retx"] + 5
    assert abs(b["timeouts"] - a["timeouts"]) <= 0.2 * a["timeouts"] + 3
    # Most connections have exactly ns-2's response time.
    assert blt_tcp.same_r(point.runs[label], point.runs["ns-2"], POINT) > 0.8


@needs_ns
def test_wire_sizes_and_ties_removed(tmp_path):
    """500-B data packets and 40-B ACKs on the wire in ns-2 as in ccsim; with per-pair
    offsets (no exact arrival/departure ties) and ns-2's backoff rule set to ccsim's,
    nearly every connection's response time is ns-2's to the microsecond."""
    p = blt_tcp.Point(10.0, 1, 50, 250, offset_us=50.0)
    cc, sc = blt_tcp.run_ccsim(p, blt_tcp.VARIANTS["ns2"])
    trace = tmp_path / "bottleneck.tr"
    conns = list(zip(cc.conns["start_s"], cc.conns["pair"]))
    ns = blt_tcp.run_ns2(p, conns, sc["topology"]["pairs"], {"ts_resetRTO_": "true"}, str(trace))
    sizes = {}
    for line in trace.read_text().splitlines():
        f = line.split()
        sizes.setdefault((f[2], f[4]), set()).add(int(f[5]))
    assert sizes[("0", "tcp")] == {500} and sizes[("1", "ack")] == {40}
    assert blt_tcp.same_r(cc, ns, p) > 0.97
    a, b = blt_tcp.metrics(ns, p), blt_tcp.metrics(cc, p)
    assert abs(b["drops"] - a["drops"]) <= 2 and abs(b["timeouts"] - a["timeouts"]) <= 1


def test_tolerance_is_the_larger_confidence_half_width():
    # t_{0.95, 1} = 6.3138 (two-sided 90 %) times s/√n = √2/√2.
    assert blt_tcp.mean_ci([1.0, 3.0])[1] == pytest.approx(6.313752 * 2**0.5 / 2**0.5)
    v = blt_tcp.Verdict(10.0, "ccsim", "drops", ns2=100.0, ccsim=108.0, tol=5.0)
    assert v.checked and not v.ok
    assert blt_tcp.Verdict(10.0, "ccsim", "drops", 100.0, 104.0, 5.0).ok
    # One seed: no spread to judge by, so no verdict (reported as such).
    assert not blt_tcp.Verdict(10.0, "ccsim", "drops", 100.0, 150.0, float("nan")).checked
