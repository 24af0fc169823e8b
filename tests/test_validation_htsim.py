"""The fat-tree comparison with htsim (ccsim.validation.htsim): both simulators' inputs
written from one description, the htsim program's output read back, the suite skipped
without htsim, and run against it where ``CCSIM_HTSIM_DIR`` names a built htsim."""

from __future__ import annotations

import dataclasses
import math
import os

import pytest
from ccsim.api import run
from ccsim.validation.htsim import fabric_scenario as fs
from ccsim.validation.htsim import fabric_suite, reference, transports_suite
from ccsim.validation.htsim import transports_suite as ts

CASES = [
    fs.Case("perm", 4, "permutation", pkts=20, end_us=50_000),
    fs.Case("incast", 4, "incast", senders=5, pkts=10, end_us=50_000),
    fs.Case("ws", 4, "websearch", window_us=2_000, end_us=50_000),
    fs.Case("ws dctcp", 4, "websearch", cc="dctcp", window_us=2_000, end_us=50_000),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_both_inputs_carry_the_same_flows(case):
    flows = fs.flows(case, 3)
    assert flows == fs.flows(case, 3) and flows != fs.flows(case, 4)
    lines = [line.split() for line in fs.htsim_flows_text(flows).splitlines()]
    sc = fs.ccsim_scenario(case, 3, flows)
    assert len(lines) == len(sc["flows"]) == len(flows) > 0
    for f, line, table in zip(flows, lines, sc["flows"]):
        src, dst, size, start = int(line[0]), int(line[1]), int(line[2]), float(line[3])
        assert (src, dst, start) == (f.src, f.dst, f.start_us) and src != dst
        assert size == f.pkts * fs.WIRE and table["size"] == f"{f.pkts * fs.PAYLOAD}B"
        assert table["src"] == fs.host(case, src) and table["dst"] == fs.host(case, dst)
        assert int(table["start"].removesuffix("ns")) == round(start * 1000)


def test_permutation_has_no_fixed_point_and_incast_one_receiver():
    perm = fs.flows(CASES[0], 1)
    assert sorted(f.dst for f in perm) == list(range(16))
    assert all(f.src != f.dst for f in perm)
    assert {f.dst for f in fs.flows(CASES[1], 1)} == {0}


def test_web_search_load_is_the_one_asked():
    case = fs.Case("ws", 8, "websearch", window_us=200_000)
    flows = fs.flows(case, 1)
    offered = sum(f.pkts for f in flows) * fs.WIRE * 8 / (case.window_us * 1e-6)
    assert offered / (case.hosts * case.rate_gbps * 1e9) == pytest.approx(0.5, rel=0.15)


def test_hosts_are_named_as_ccsim_names_them_and_hops_counted():
    case = fs.Case("x", 4, "permutation")
    assert [fs.host(case, i) for i in (0, 1, 2, 5, 15)] == [
        "h0_0_0",
        "h0_0_1",
        "h0_1_0",
        "h1_0_1",
        "h3_1_1",
    ]
    assert [fs.hops(case, 0, d) for d in (1, 2, 4)] == [2, 4, 6]


def test_ccsim_runs_the_scenario_and_one_flow_takes_its_ideal_fct():
    case = fs.Case("one", 4, "permutation", end_us=20_000)
    flow = fs.Flow(0, 15, 5, 0.0)
    r = run(fs.ccsim_scenario(case, 1, [flow]))
    fct_us = float(r.flows.fct_s.iloc[0]) * 1e6
    # Five packets fit the initial window: the FCT is the idle-fabric formula's.
    assert fct_us == pytest.approx(fs.ideal_fct_us(case, flow), rel=0.02)


def test_htsim_output_is_read_back():
    out = "flow 0 0 15 150000 0.000 265.5 101 1\nflow 1 1 14 150000 10.000 -1.000 7 0\n" + (
        "queue_drops queue(10000Mb/s,150000bytes)LS0->DST0(0) 3\n"
        "drops 3\ndelivered_pkts 1200\nqueue_mean_bytes 96.1\nqueue_max_bytes 138000\ntimeouts 2\n"
    )
    o = fs.parse_htsim(out)
    assert o.fct_us[0] == 265.5 and math.isnan(o.fct_us[1])
    assert (o.drops, o.queue_mean_bytes, o.queue_max_bytes, o.timeouts) == (3, 96.1, 138000, 2)


def test_ccsim_links_name_htsim_path_indices():
    """htsim lists a pod's aggregation switch a with cores a, a + k/2, ...: ccsim's core
    a·k/2 + l is htsim's path a·k/2 + l; within a pod the index is a, under one edge 0."""
    case = fs.Case("x", 4, "permutation")
    across = ["h0_0_0->edge0_0", "edge0_0->agg0_1", "agg0_1->core3", "core3->agg2_1"]
    assert fs.path_index(case, 0, 9, across) == 3
    assert fs.path_index(case, 0, 9, ["edge0_0->agg0_0", "agg0_0->core1"]) == 1
    assert fs.path_index(case, 0, 2, ["edge0_0->agg0_1", "agg0_1->edge0_1"]) == 1
    assert fs.path_index(case, 0, 1, ["h0_0_0->edge0_0", "edge0_0->h0_0_1"]) == 0
    flows = [fs.Flow(0, 9, 3, 0.0), fs.Flow(1, 2, 3, 1.0)]
    lines = fs.htsim_flows_text(flows, [(3, 2), (1, 0)]).splitlines()
    assert [line.split()[4:] for line in lines] == [["3", "2"], ["1", "0"]]


def test_ccsim_paths_are_the_ones_its_run_takes():
    case = fs.Case("perm", 4, "permutation", pkts=5, end_us=20_000)
    flows = fs.flows(case, 2)
    paths = fs.ccsim_paths(case, 2)
    assert len(paths) == len(flows)
    for f, (p, q) in zip(flows, paths):
        n = {2: 1, 4: 2, 6: 4}[fs.hops(case, f.src, f.dst)]
        assert 0 <= p < n and 0 <= q < n


def test_without_htsim_the_suite_is_skipped(monkeypatch, capsys):
    monkeypatch.delenv(reference.ENV, raising=False)
    assert not reference.have_htsim()
    assert fabric_suite.main([]) == 0
    assert "skipped" in capsys.readouterr().out


@pytest.mark.skipif(not reference.have_htsim(), reason=f"no htsim (${reference.ENV})")
def test_suite_against_htsim():
    res = fabric_suite.run_suite(True, only="k=4 permutation", jobs=1, seeds=3)
    assert len(res.verdicts) >= 8
    by = {v.quantity: v for v in res.verdicts}
    assert by["flows completed, %"].within
    assert os.environ.get(reference.ENV)


@pytest.mark.skipif(not reference.have_htsim(), reason=f"no htsim (${reference.ENV})")
def test_htsim_on_ccsims_paths_agrees_flow_by_flow():
    """A permutation of 30-packet flows: on ccsim's paths, data and ACKs, each flow's FCT
    in htsim is ccsim's within 5 %."""
    case = fs.Case("perm", 4, "permutation", pkts=30, end_us=20_000, htsim_paths="ccsim")
    ours = fs.run_ccsim(case, 2).fct_us
    theirs = fs.run_htsim(case, 2).fct_us
    assert len(ours) == len(theirs) == 16
    for a, b in zip(ours, theirs):
        assert a == pytest.approx(b, rel=0.05)


# ----- transports against htsim's own drivers (htsim-transports)

SMALL_INCAST = ts.Case("incast", "ndp", "incast", 90_000, senders=3, end_us=5_000)


def test_transports_one_matrix_file_feeds_both(tmp_path):
    flows = ts.flows(SMALL_INCAST, 2)
    assert flows == ts.flows(SMALL_INCAST, 2) and flows != ts.flows(SMALL_INCAST, 3)
    text = ts.matrix_text(SMALL_INCAST, flows)
    lines = text.splitlines()
    assert lines[:2] == ["Nodes 16", "Connections 3"]
    for f, line in zip(flows, lines[2:]):
        assert line == f"{f.src}->0 start {f.start_ns * 1000} size 90000" and f.src != 0
    # a permutation's draw depends on the traffic only, not on htsim's path strategy
    perm = ts.Case("p", "ndp", "permutation", 9000)
    assert ts.flows(perm, 1) == ts.flows(dataclasses.replace(perm, htsim_strat="rand"), 1)
    assert sorted(f.dst for f in ts.flows(perm, 1)) == list(range(16))
    # ccsim reads the file: three 10-packet flows into one host complete, the last no
    # sooner than 30 packets through the receiver's 10 Gb/s link
    o = ts.run_ccsim(SMALL_INCAST, 2)
    assert len(o.fct_us) == 3 and not any(math.isnan(x) for x in o.fct_us)
    assert max(o.fct_us) > 30 * (ts.MTU + 64) * 8 / 10e3
    assert o.timeouts == 0 and o.trims == o.retransmits


def test_htsim_ndp_output_is_read_back():
    flows = [ts.Flow(3, 0, 1000), ts.Flow(5, 0, 2000), ts.Flow(7, 0, 0)]
    out = (
        "startflow ndp_3_0 CWND 135960 rts 0 at 1\n"
        "Flow ndp_5_0 flow_id 1000000002 finished at 1146.13 total bytes 90000\n"
        "Flow ndp_3_0 flow_id 1000000001 finished at 772.11 total bytes 90000\n"
        "Total RTOs: 1\nTotal RTOs: 2\n.Done\nNew: 30 Rtx: 11 Bounced: 0\n"
    )
    o = ts.parse_htsim(out, flows)
    assert o.fct_us[:2] == [pytest.approx(771.11), pytest.approx(1144.13)]
    assert math.isnan(o.fct_us[2]) and (o.retransmits, o.timeouts) == (11, 2)
    # htsim_swift's lines have no flow_id, and it prints no retransmission totals
    swift = "Flow swift_3_0 finished at 607.664 total bytes 208500\n.Done\n"
    o = ts.parse_htsim(swift, flows)
    assert o.fct_us[0] == pytest.approx(606.664) and math.isnan(o.fct_us[1])
    assert math.isnan(o.retransmits) and math.isnan(o.timeouts)


def test_without_htsim_the_transports_suite_is_skipped(monkeypatch, capsys):
    monkeypatch.delenv(reference.ENV, raising=False)
    assert not transports_suite.have_htsim_transports()
    assert transports_suite.main([]) == 0
    assert "skipped" in capsys.readouterr().out


@pytest.mark.skipif(
    not transports_suite.have_htsim_transports(), reason=f"no htsim (${reference.ENV})"
)
def test_transports_suite_against_htsim_ndp():
    """The 8-sender incast over 2 seeds: every quantity within its tolerance (the last FCT
    within 3 % of htsim's or the seeds' spread, retransmissions within 10 %)."""
    res = transports_suite.run_suite(True, only="NDP incast 8", jobs=1, seeds=2)
    assert len(res.verdicts) == 5
    assert all(v.within for v in res.verdicts), [v.line() for v in res.verdicts]
