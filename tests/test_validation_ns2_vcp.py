"""VCP against its authors' ns-2 code (ccsim.validation.ns2.vcp_suite, vcp_scenario;
docs/validation.md, "VCP against its authors' ns-2 code").

Without the binary: the cases' geometry, the two simulators' inputs from one draw, the
Tcl programs' keys, reading a program's output, the convergence measures and the
suite's tables and verdicts on given outcomes. With ``CCSIM_NS2_VCP`` naming a
VCP-enabled ns-2.35 (tools/ns2-vcp/build.sh): small cases run in both (about 30 s).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import pytest
from ccsim.validation.ns2 import vcp_scenario as vs
from ccsim.validation.ns2 import vcp_suite

needs_vcp_ns = pytest.mark.skipif(
    not vs.have_vcp_ns(),
    reason=f"no VCP-enabled ns-2 ({vs.INSTALL}): skipped",
)

DUMBBELL = vs.Case("d", 45, (60,) * 4, (0,) * 4, nrev=2, rev_rtt_ms=80, duration_s=20)
JOINS = vs.Case("j", 10, (40, 80), (0, 10), jitter_s=1.0, duration_s=20, warmup_s=15, series=True)


def test_every_flow_has_its_rtt_and_both_simulators_its_start():
    c = DUMBBELL
    assert c.bdelay_ms() == 24.0
    for rtt, a in zip(c.all_rtts(), c.access_ms()):
        assert 2 * (c.bdelay_ms() + 2 * a) == pytest.approx(rtt)
    # One BDP at the mean RTT in 1000-byte packets (vcp-lib.tcl).
    assert c.buffer_pkts() == round(45e6 * (4 * 60 + 2 * 80) / 6 / 1000 / 8000)
    args = dict(a.split("=", 1) for a in vs.ns2_args(c, 3))
    starts = [float(x) for x in args["start"].split(",")]
    assert starts == c.draw(3) and starts != c.draw(4)
    assert all(0 <= s <= 0.3 for s in starts) and args["jitter"] == "0"
    sc = vs.ccsim_scenario(c, 3)
    assert [float(f["start"][:-1]) for f in sc["flows"]] == starts
    assert sc["flows"][5]["src"] == "d5" and sc["flows"][5]["dst"] == "s5"
    q = sc["topology"]["bottleneck"]
    assert q["queue"] == q["reverse_queue"] == {"kind": "vcp", "limit": f"{c.buffer_pkts() - 1}pkt"}
    assert args["ackprio"] == "1" and args["alpha"] == "1"


def test_variants_reach_both_simulators():
    c = dataclasses.replace(DUMBBELL, ack_priority=False, alpha=0.25)
    args = dict(a.split("=", 1) for a in vs.ns2_args(c, 1))
    assert (args["ackprio"], args["alpha"]) == ("0", "0.25")
    sc = vs.ccsim_scenario(c, 1)
    assert sc["topology"]["bottleneck"]["queue"]["ack_priority"] is False
    assert sc["flows"][0]["cc"] == {"kind": "vcp", "alpha": 0.25}
    bmcc = vs.ccsim_scenario(dataclasses.replace(DUMBBELL, protocol="bmcc"), 1)
    assert bmcc["topology"]["bottleneck"]["queue"]["kind"] == "bmcc"
    assert bmcc["flows"][0]["feedback"] == {"kind": "bmcc"}


def _keys(program: str) -> set[str]:
    """The keys a shipped Tcl program accepts (its ``vcp_args {...}`` defaults)."""
    text = (vs.PROGRAMS / f"{program}.tcl").read_text()
    body = re.search(r"vcp_args \{(.*?)\}\n", text, re.S).group(1)
    words = re.findall(r'""|\S+', body)
    return set(words[0::2])


def test_the_programs_are_shipped_and_accept_every_key_the_suite_passes():
    for c in vcp_suite.cases(quick=False):
        keys = {a.split("=", 1)[0] for a in vs.ns2_args(c, 1)}
        assert keys <= _keys(c.program), keys - _keys(c.program)
    assert (vs.PROGRAMS / "vcp-lib.tcl").is_file()
    assert (vs.PROGRAMS / "lf_timeseries.tcl").is_file()


NS2_OUTPUT = """\
param bw 10
q 14.990 9 9360
q 15.000 3 3120
q 15.010 1 1040
flow 0 10.000 1000000 800000 10.000
flow 1 10.000 0 0 2.000
sum util 0.95000
sum queue_mean_pkts 2.500
sum drops_pkts 1
flowsum 0 rtt_ms 40 start 0.1 stop 20 rev 0 goodput_bps 5000000 goodput_active_bps 5000000 \
bytes_window 1 bytes_total 3000000 cwnd 10 retx_pkts 1 timeouts 0 cwnd_cuts 7 md_timer_expiries 12
flowsum 1 rtt_ms 80 start 10.2 stop 20 rev 0 goodput_bps 4000000 goodput_active_bps 4000000 \
bytes_window 1 bytes_total 2000000 cwnd 10 retx_pkts 0 timeouts 1 cwnd_cuts 5 md_timer_expiries 8
wall_s 0.1
"""


def test_a_programs_records_are_read():
    o = vs.parse_ns2(NS2_OUTPUT.replace("\\\n", ""), JOINS)
    assert (o.utilization, o.queue_mean_pkts, o.drops) == (0.95, 2.5, 1)
    # Queue samples from the warm-up (15 s) on.
    assert (o.queue_p95_pkts, o.queue_max_pkts) == (3, 3)
    assert o.goodputs == [5e6, 4e6] and o.cuts == [7, 5]
    assert (o.retransmits, o.timeouts) == (1, 1)
    # Per second; the program stops before the last tick: the end comes from flowsum.
    assert o.delivered[0][9] == 1e6 and o.delivered[0][19] == 3e6
    assert o.delivered[1][19] == 2e6 and o.delivered[1][10] == 0.0


def _ramp(case: vs.Case, rates_mbps: list[list[float]]) -> vs.Outcome:
    """An outcome whose flows deliver ``rates_mbps[i][t]`` in second t + 1."""
    delivered = []
    for r in rates_mbps:
        total, d = 0.0, []
        for x in r:
            total += x * 1e6 / 8
            d.append(total)
        delivered.append(d)
    return vs.Outcome(0.9, 1.0, 2.0, 3.0, 0, [1.0, 1.0], [1.0, 1.0], 0, 0, delivered)


def test_convergence_measures():
    fair = 10 * 1000 / 1040 / 2  # Mb/s, two flows
    newcomer = [0.0] * 10 + [0.5 * fair] * 3 + [0.75 * fair] * 2 + [0.85 * fair] * 5
    o = _ramp(JOINS, [[9.0] * 10 + [5.0] * 10, newcomer])
    assert vcp_suite.period_bounds(JOINS, 1) == (10, 20)
    assert vcp_suite.time_to_share(JOINS, o, 1, 0.7) == 4  # the 14th second
    assert vcp_suite.time_to_share(JOINS, o, 1, 0.8) == 6
    assert vcp_suite.time_to_share(JOINS, o, 1, 0.9) == 10  # never: the period
    assert vcp_suite.period_rate(JOINS, o, 1, 0) == pytest.approx(5.0)
    assert vcp_suite.period_rate(JOINS, o, 1, 1) == pytest.approx(0.85 * fair)


def test_tables_and_verdicts_on_given_outcomes(monkeypatch):
    """The suite on fake runs: ccsim 1 % above ns-2 in every run passes; a large
    difference fails, and an entry of EXPLAINED turns it into an explained one."""
    joins = dataclasses.replace(JOINS, name=vcp_suite.FIG1)
    cs = [dataclasses.replace(DUMBBELL, name="dumb"), joins]
    base = _ramp(joins, [[9.0] * 10 + [5.0] * 10, [0.0] * 10 + [4.0] * 10])

    def fake(scale: float):
        def run(c, seed):
            o = dataclasses.replace(base, utilization=base.utilization * scale * (1 + seed / 1e4))
            return dataclasses.replace(o, queue_mean_pkts=o.queue_mean_pkts * scale)

        return run

    monkeypatch.setattr(vcp_suite, "run_ns2", fake(1.0))
    monkeypatch.setattr(vcp_suite, "run_ccsim", fake(1.001))
    res = vcp_suite.result(cs, vcp_suite.run(cs, 3, 1), 3, 0.0)
    assert not res.failures and res.checked == len(res.verdicts) == 17
    assert "**dumb**" not in res.block and "| dumb (20 s, from 20 s) |" in res.block
    assert f"**{vcp_suite.FIG1}**" in res.block and "*4.00 ± 0.00*" in res.block  # BMCC
    monkeypatch.setattr(vcp_suite, "run_ccsim", fake(1.2))
    raw = vcp_suite.run(cs, 3, 1)
    res = vcp_suite.result(cs, raw, 3, 0.0)
    assert {v.quantity for v in res.failures} == {"utilization"}
    assert "**✗**" in res.block
    monkeypatch.setitem(vcp_suite.EXPLAINED, ("dumb", "util"), "a known cause")
    res = vcp_suite.result(cs, raw, 3, 0.0)
    assert len(res.explained) == 1 and "‡1" in res.block and "1. a known cause." in res.block


def test_skips_with_one_line_without_the_binary(monkeypatch, capsys):
    monkeypatch.delenv(vs.ENV, raising=False)
    assert vcp_suite.main(["--quick"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("VCP validation skipped")
    assert "tools/ns2-vcp/build.sh" in out[0] and vs.ENV in out[0]


@needs_vcp_ns
def test_two_way_dumbbell_agrees_with_vcps_code_with_and_without_ack_priority():
    """45 Mb/s, 60 ms, 4 flows each way: with ACKs first (VCP's DropTail2) both keep the
    queue below a packet without loss; in one FIFO the ACKs return in bursts and both
    keep tens of packets queued (seed 1: ns-2 36, ccsim 97; both lose packets and time
    out; seeds 2, 3: 105-133 packets, no loss)."""
    c = vs.Case("two-way", 45, (60,) * 4, (0,) * 4, nrev=4, rev_rtt_ms=60, warmup_s=25)
    chks = vcp_suite.checks([c], vcp_suite.run([c], 3, 2))
    bad = [ch.verdict().line() for ch in chks if not ch.ok]
    assert not bad, bad
    for run in (vs.run_ns2, vs.run_ccsim):
        fifo = run(dataclasses.replace(c, ack_priority=False), 1)
        assert fifo.queue_mean_pkts > 20 and fifo.drops > 10 and fifo.timeouts > 10, run


@needs_vcp_ns
def test_a_newcomer_converges_as_in_vcps_code():
    """Two flows of RTT 40 and 150 ms on 45 Mb/s, the second from 60 s: its rate, its
    time to 70 % and 80 % of the fair share and the shares agree."""
    c = vs.Case(
        "join",
        45,
        (40, 150),
        (0, 60),
        jitter_s=1.0,
        duration_s=120,
        warmup_s=90,
        program="convergence",
        series=True,
    )
    chks = vcp_suite.checks([c], vcp_suite.run([c], 2, 2))
    bad = [ch.verdict().line() for ch in chks if not ch.ok]
    assert not bad, bad


def _port():
    spec = importlib.util.spec_from_file_location(
        "port", Path(__file__).resolve().parents[1] / "tools" / "ns2-vcp" / "port.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_builds_port_edits_each_anchor_once(tmp_path):
    """tools/ns2-vcp/port.py on stand-ins of ns-2.35's and VCP's files that hold only
    the anchors: every edit lands once, VCP's defaults are copied verbatim with the
    trace's default after the measurement interval; a missing anchor stops it."""
    port = _port()
    ns, vcp = tmp_path / "ns-2.35", tmp_path / "ns-2.29"
    for d in (ns / "common", ns / "tcl" / "lib", vcp / "vcp", vcp / "tcl" / "lib"):
        d.mkdir(parents=True)
    for f in port.SOURCES:
        (vcp / "vcp" / f).write_text(f"// {f}\n")
    (vcp / "vcp" / "vcp-queue.h").write_text("  unsigned int    utilization_adjustment_counter_;\n")
    (vcp / "vcp" / "vcp-queue.cc").write_text(
        '  bind("load_measurement_interval_", &load_measurement_interval_);\n'
        "  // adjust target utilization every a number of measurement intervals\n"
    )
    block = [
        "# vcp -xy",
        "Queue/DropTail2/VcpQueue set load_measurement_interval_ 0.200",
        "Agent/VcpSink set bytes_ 0",
    ]
    (vcp / "tcl" / "lib" / "ns-default.tcl").write_text("x\n" + "\n".join(block) + "\ny\n")
    (ns / "common" / "flags.h").write_text(
        "\t\t\t\t * a window following an approved QS request.\n\t\t\t\t */\n"
        "\tunsigned char& ce() { return ecn_to_echo_; }\n"
    )
    (ns / "tcl" / "lib" / "ns-default.tcl").write_text("a\nQueue/RED set bytes_ true ;\n")
    (ns / "Makefile.in").write_text(
        "\t-I./tcp -I./sctp -I./common -I./link -I./queue \\\n"
        "\txcp/xcpq.o xcp/xcp.o xcp/xcp-end-sys.o \\\n"
    )
    port.main([str(ns), str(vcp)])
    assert (ns / "vcp" / "vcp-src.cc").read_text() == "// vcp-src.cc\n"
    assert "lf_trace_" in (ns / "vcp" / "vcp-queue.h").read_text()
    cc = (ns / "vcp" / "vcp-queue.cc").read_text()
    assert cc.count('bind("lf_trace_"') == 1 and cc.index("lf-trace") < cc.index("// adjust")
    assert "unsigned short& lf()" in (ns / "common" / "flags.h").read_text()
    tcl = (ns / "tcl" / "lib" / "ns-default.tcl").read_text().splitlines()
    assert tcl[1:3] == block[:2] and tcl[3].startswith("Queue/DropTail2/VcpQueue set lf_trace_")
    assert tcl[4:] == [block[2], "", "Queue/RED set bytes_ true ;"]
    make = (ns / "Makefile.in").read_text()
    assert "-I./queue -I./vcp" in make and "common/tclcl-int64-shim.o" in make
    assert (ns / "common" / "tclcl-int64-shim.cc").is_file()
    (ns / "common" / "flags.h").write_text("changed\n")
    with pytest.raises(SystemExit, match="found it 0 times"):
        port.flags(ns)
