"""Short reproductions of the token-based Fast-TCP paper (§4; docs/models/token-gate.md,
"What the paper reports") through the Python API, on the scenarios of
``ccsim.experiments.token_ftcp``."""

import ccsim
import pytest
from ccsim import theory
from ccsim.experiments import token_ftcp as T
from ccsim.experiments.base import reproduce

CAP = theory.token_ftcp_gate_cap(T.BF_BITS, T.PKT * 8, T.TH)  # 27 648 bits


def run(scheme, n=1, **kw):
    kw.setdefault("duration", "20s" if n == 1 else "14s")
    r = ccsim.run(T.scenario(scheme, n, **kw))
    return r, T.metrics(r)


def test_cap_27648_bits():
    assert CAP == 27648


def test_single_connection_gate_caps_buffer_without_loss_at_tcp_throughput():
    _, tcp = run("tcp")
    _, tok = run("token")  # promise accounting on the paper's 1 ms topology
    assert tok["max_forward_bits"] <= CAP
    assert tok["drops"] == tcp["drops"] == 0
    assert tok["retransmits"] == 0
    assert tok["acks_held"] > 0
    assert tok["phase_throughput_pps"] == pytest.approx(tcp["phase_throughput_pps"], rel=0.005)
    assert 269 <= tcp["phase_throughput_pps"] <= 278
    assert (tok["first_hold_cycle"], tok["last_hold_cycle"]) == (5, 7)  # slow start only
    assert tok["phase_end_s"] == pytest.approx(tcp["phase_end_s"], rel=0.01)  # same cycles
    # Plain TCP: 25 packets in the buffer (eq. 11's w_s/2 = 28.4 is the bound).
    assert 25 <= tcp["max_forward_pkts_system"] <= 29


def test_paper_timing_gives_the_papers_numbers_exactly():
    """0.1 ms access hops: the paper's rule, as published, caps at exactly
    (B − Th + 1)·L_p and oscillates between 4 and 6 packets while ACKs wait."""
    kw = dict(access_delay=T.PAPER_TIMING_ACCESS, interval="0.2ms", duration="4s")
    r, tok = run("token", in_transit="ignore", **kw)
    assert tok["max_forward_bits"] == CAP
    assert (tok["hold_backlog_min"], tok["hold_backlog_max"]) == (4, 6)
    assert tok["drops"] == 0
    assert tok["max_promised"] == 0  # the paper's rule promises nothing


def test_paper_rule_overflows_on_the_papers_topology():
    _, tok = run("token", in_transit="ignore", duration="6s")
    assert tok["max_forward_bits"] > CAP
    assert tok["drops"] > 0


def test_five_connections_gate_caps_buffer_and_keeps_utilization():
    rt, tcp = run("tcp", 5)
    rg, tok = run("token", 5)
    assert tok["max_forward_bits"] <= CAP
    assert tok["drops"] == tcp["drops"] == 0
    assert tok["forward_utilization"] == pytest.approx(tcp["forward_utilization"], rel=0.005)
    # Each connection delivers the same as with plain TCP, within 1 %.
    for a, b in zip(rg.flows["bytes_delivered"], rt.flows["bytes_delivered"]):
        assert a == pytest.approx(b, rel=0.01)


def test_flow_not_governed_passes_untouched():
    """Two connections share the bottleneck. Governing conn1 only, every ACK the gate
    lets out is conn1's (all go to server0) and conn2's ACKs never enter the gate;
    governing both, the gate lets out both streams."""

    def gate_run(flows):
        sc = T.scenario("token", 2, duration="6s")
        sc["flows"][1]["start"] = "0.5s"
        sc["components"][0]["flows"] = flows
        r = ccsim.run(sc)
        st = r.summary["components"]["router_1"]["stats"]
        to = {s: r.queue(f"router_1->{s}")["arrivals"] for s in ("server0", "server1")}
        return st, to

    st, to = gate_run(["conn1"])
    assert st["acks_held"] > 0 and to["server1"] > 0
    assert st["acks_passed"] + st["acks_released"] == to["server0"]
    st, to = gate_run("all")
    assert st["acks_passed"] + st["acks_released"] == to["server0"] + to["server1"]


def test_reproduce_token_ftcp_passes_every_check(tmp_path, monkeypatch):
    """The whole experiment (8 runs, about 5 s): report.md, figures, all checks PASS."""
    ok = reproduce(
        ["token-ftcp"], results_dir=tmp_path / "db", out_dir=tmp_path / "out", progress=False
    )
    report = (tmp_path / "out" / "token-ftcp" / "report.md").read_text()
    assert ok, report
    assert "| FAIL |" not in report
    # the paper's rule outside its timing assumption: demonstrations, not PASS rows
    assert report.count("| shown (demonstration) |") == 2
    assert "1 ms topology: packets dropped, 1 and 5 connections | (not in paper) |" in report
    assert (tmp_path / "out" / "token-ftcp" / "figs3-7-1-connection.png").exists()

    # The figures: one legend entry per scheme (not one per hidden identical line),
    # no offset label, whole-number ticks on the count axes.
    figs = []
    monkeypatch.setattr(T, "save_figure", lambda fig, outdir, stem: figs.append(fig) or [])
    from ccsim.experiments import get

    T.plot(get("token-ftcp").run(results_dir=tmp_path / "db", progress=False), tmp_path / "f")
    five = figs[1]
    window, seq, acks = five.axes[1], five.axes[2], five.axes[3]
    labels = [t.get_text() for t in window.get_legend().get_texts()]
    assert labels == [
        "TCP (infinite buffer) (each of 5 connections)",
        "Token F-TCP (each of 5 connections)",
    ]
    five.canvas.draw()
    assert seq.yaxis.get_offset_text().get_text() == ""
    assert all(float(t).is_integer() for t in acks.get_yticks())
