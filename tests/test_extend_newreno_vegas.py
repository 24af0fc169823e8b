"""The Python ports of NewReno (with Reno and Tahoe) and Vegas in ``ccsim.examples`` give
the built-in modules' results to the last bit: flows, queues, every time series table
and the event count, on the four scenarios of ``_ports`` (issue 43), with the sender's
default byte counting and without it (RFC 5681 eq. 3 with the fraction carried in
cwnd_cnt, ``byte_counting = false`` and ``conventions = "ns2"``), and for Vegas with its
default parameters and another set.
"""

from __future__ import annotations

import pytest
from _ports import SCENARIOS, assert_identical, scenario

import ccsim
from ccsim.examples.newreno import NewReno

NEWRENO = "ccsim.examples.newreno:NewReno"
VEGAS = "ccsim.examples.vegas:Vegas"
#: Vegas with every parameter away from its default (α < β still).
VEGAS_OTHER = {"alpha": 1, "beta": 3, "gamma": 2, "loss": "one_segment"}


def _tcp(sc: dict, **keys) -> dict:
    """``keys`` on every TCP of the scenario: its flows and its workload's connections."""
    for f in sc.get("flows", []):
        f.update(keys)
    for w in sc.get("workloads", []):
        w["transport"].update(keys)
    return sc


def _pair(name: str, builtin, port: dict, **keys):
    a = ccsim.run(_tcp(scenario(name, cc=builtin), **keys))
    b = ccsim.run(_tcp(scenario(name, cc={"kind": "python", **port}), **keys))
    return a, b


# ------------------------------------------------------------------------------ NewReno


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_newreno_port_is_the_builtin(name):
    a, b = _pair(name, "newreno", {"class": NEWRENO})
    assert_identical(a, b)
    assert (b.flows.cc == "NewReno").all()


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_newreno_port_without_byte_counting(name):
    """RFC 5681 eq. 3 per ACK, the fraction of a byte carried in cwnd_cnt."""
    a, b = _pair(name, "newreno", {"class": NEWRENO}, byte_counting=False)
    assert_identical(a, b)


@pytest.mark.parametrize("name", ["bench8", "ecn"])
def test_newreno_port_ns2_conventions(name):
    """ns-2's conventions (byte counting off, loss window cwnd, full ACK keeps cwnd...)."""
    a, b = _pair(name, "newreno", {"class": NEWRENO}, conventions="ns2")
    assert_identical(a, b)


@pytest.mark.parametrize("variant", ["reno", "tahoe"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_reno_and_tahoe_ports_are_the_builtins(name, variant):
    a, b = _pair(name, variant, {"class": f"ccsim.examples.newreno:{variant.title()}"})
    assert_identical(a, b)


class _NoCarry(NewReno):
    """Eq. 3 rounded down to whole bytes, the fraction dropped: not the built-in."""

    def cong_avoid(self, s, acked):
        if s.byte_counting or s.cwnd < s.ssthresh:
            return super().cong_avoid(s, acked)
        s.cwnd += s.mss * s.mss // s.cwnd


def test_the_comparison_sees_the_carry_and_the_recovery():
    """The scenarios tell the ports from near misses: the fraction dropped without byte
    counting, and Reno's recovery in place of NewReno's."""
    a, b = _pair("bench8", "newreno", {"class": _NoCarry}, byte_counting=False)
    with pytest.raises(AssertionError):
        assert_identical(a, b)
    a, b = _pair("bench8", "newreno", {"class": "ccsim.examples.newreno:Reno"})
    with pytest.raises(AssertionError):
        assert_identical(a, b)


# ------------------------------------------------------------------------------ Vegas


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_vegas_port_is_the_builtin(name):
    a, b = _pair(name, "vegas", {"class": VEGAS})
    assert_identical(a, b)
    assert (b.flows.cc == "Vegas").all()


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_vegas_port_other_parameters(name):
    a, b = _pair(name, {"kind": "vegas", **VEGAS_OTHER}, {"class": VEGAS, **VEGAS_OTHER})
    assert_identical(a, b)


@pytest.mark.parametrize("keys", [{"byte_counting": False}, {"conventions": "ns2"}])
@pytest.mark.parametrize("name", ["bench8", "ecn"])
def test_vegas_port_ns2_conventions(name, keys):
    a, b = _pair(name, {"kind": "vegas", **VEGAS_OTHER}, {"class": VEGAS, **VEGAS_OTHER}, **keys)
    assert_identical(a, b)


def test_vegas_port_traces_diff_and_reads_the_builtins_parameters():
    """``cc_state`` is the last Diff (as the built-in's trace), and the port refuses what
    the built-in refuses."""
    a, b = _pair("bench8", "vegas", {"class": VEGAS})
    assert b.timeseries["flow"].cc_state.max() > 0
    for bad in ({"alpha": 4, "beta": 4}, {"loss": "third"}, {"gamma": 10_001}):
        with pytest.raises(ccsim.ScenarioError):
            ccsim.run(scenario("workload", cc={"kind": "vegas", **bad}))
        with pytest.raises(ccsim.ScenarioError):
            ccsim.run(scenario("workload", cc={"kind": "python", "class": VEGAS, **bad}))
