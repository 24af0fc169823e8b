"""The ``westwood`` suite of ``ccsim validate`` (ns-3 and ns-2.35's TCP-Linux).

What it runs and checks is tested without the references (the plan of runs, which
pairs are compared, which quantities are shown only); ns-2's TCP-Linux agent on one
Westwood+ flow runs where ``ns`` is installed (seconds), the whole quick suite where
the ``ns3`` package is too (minutes).
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from _tools import needs_ns

from ccsim.validation.ns2.tcp_linux import run_ns2_linux
from ccsim.validation.ns3 import reference, westwood_buffer_sizing


def _plan(monkeypatch, quick):
    monkeypatch.setattr(westwood_buffer_sizing, "have_ns", lambda: True)
    monkeypatch.setattr(westwood_buffer_sizing, "have_ns3", lambda: True)
    return westwood_buffer_sizing.suite_runs(quick, None)


def test_quick_runs_one_flow_full_adds_200_flows_with_one_ns3_seed(monkeypatch):
    quick = _plan(monkeypatch, True)
    assert {k for k, _, _, _ in quick} == {"single"} and {s for _, _, s, _ in quick} == {1}
    for p in westwood_buffer_sizing.PROTOCOLS:
        labels = {lab for _, q, _, lab in quick if q == p}
        assert labels == set(westwood_buffer_sizing.SUITE_CCSIM) | set(
            westwood_buffer_sizing.reference_labels(p)
        )
    full = _plan(monkeypatch, False)
    big = [(p, s, lab) for k, p, s, lab in full if k == "200"]
    assert {s for _, s, lab in big if lab.startswith("ns-3")} == {1}
    assert {s for _, s, lab in big if lab.startswith("ns-2")} == {1, 2, 3}
    assert {s for k, _, s, _ in full if k == "single"} == {1, 2, 3}


def test_only_the_references_installed_are_planned(monkeypatch):
    monkeypatch.setattr(westwood_buffer_sizing, "have_ns", lambda: False)
    monkeypatch.setattr(westwood_buffer_sizing, "have_ns3", lambda: True)
    labels = {lab for *_, lab in westwood_buffer_sizing.suite_runs(True, None)}
    assert not any(lab.startswith("ns-2") for lab in labels)
    assert any(lab.startswith("ns-3") for lab in labels)


def _metrics(u, drops, timeouts=0.0):
    return {
        "utilization": u,
        "goodput": u,
        "drops": drops,
        "timeouts": timeouts,
        "window_timeouts": timeouts,
        "window_jain": 0.9,
    }


def test_verdicts_check_the_references_and_show_what_is_not_one():
    ww = westwood_buffer_sizing.reference_labels("westwood")
    res = {("single", "westwood"): {1: {}}, ("200", "westwood"): {1: {}}}
    for kind in ("single", "200"):
        row = res[(kind, "westwood")][1]
        for ref, cc in ww.items():
            row[ref] = _metrics(0.95, 30.0)
            row[cc] = _metrics(0.99, 10.0)
    vs = westwood_buffer_sizing.suite_verdicts(res)
    by = {(v.case, v.quantity): v for v in vs}
    linux = next(r for r in ww if r.startswith("ns-2"))
    one = f"Fig. 4: 1 flow, Westwood+: {linux} vs {ww[linux]}"
    # ns-2's TCP-Linux on one flow: every quantity checked, and these are outside.
    assert by[(one, "utilization")].status == "FAIL"
    assert by[(one, "drops")].status == "FAIL"
    sack3 = next(r for r in ww if r.startswith("ns-3") and "no SACK" not in r)
    three = f"Fig. 4: 1 flow, Westwood+: {sack3} vs {ww[sack3]}"
    assert by[(three, "utilization")].status == "FAIL"
    assert not by[(three, "drops")].checked  # ns-3's recovery is PRR: shown only
    nosack = next(r for r in ww if "no SACK" in r)
    assert all(
        not v.checked for v in vs if v.case.startswith(f"Fig. 4: 1 flow, Westwood+: {nosack}")
    )
    big = f"Fig. 8: 200 flows RTT 300ms, Westwood+: {linux} vs {ww[linux]}"
    assert by[(big, "utilization")].checked and not by[(big, "drops")].checked
    assert math.isnan(by[(big, "Jain index")].tolerance)


def test_validate_names_what_to_install_without_ns3(monkeypatch, tmp_path):
    monkeypatch.setattr(reference, "ns3_prefix", lambda: None)
    from ccsim import cli

    assert cli.main(["validate", "westwood", "--out", str(tmp_path)]) == 0
    report = (tmp_path / "report.md").read_text()
    assert "| westwood | ns-3 | — | skipped: ns-3 not installed" in report
    assert "pip install ns3" in report


@needs_ns
def test_tcp_linux_westwood_keeps_one_flow_at_line_rate_as_ccsim_does():
    """ns-2's TCP-Linux running Linux's westwood module and ccsim's Westwood+ (ns-2's
    conventions, SACK) on Fig. 4's setting at 0.1 BDP: both keep the link full, with
    about one drop per congestion episode."""
    case = westwood_buffer_sizing.single_flow(quick=True)
    ns2 = westwood_buffer_sizing.finish(case, run_ns2_linux(case, 1, "westwood"))
    cc = westwood_buffer_sizing.finish(
        case, westwood_buffer_sizing.ccsim_run(case, 1, "westwood", "ns2", True)
    )
    assert ns2["utilization"] > 0.99 and cc["utilization"] > 0.99
    assert abs(ns2["utilization"] - cc["utilization"]) < 0.005
    assert 3 <= ns2["drops"] and abs(ns2["drops"] - cc["drops"]) <= 3


@pytest.mark.skipif(not reference.have_ns3(), reason="ns-3 is not installed (pip install ns3)")
def test_quick_suite_through_the_cli(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ccsim.cli",
            "validate",
            "westwood",
            "--quick",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    report = (tmp_path / "report.md").read_text()
    assert "TcpWestwoodPlus, SACK, PRR" in report, out.stderr
    assert "| [westwood](#westwood) | ns-3 3.44" in report
