"""BMCC's protocol mixes without BMCC, ccsim against ns-2.35 (ccsim.validation.ns2.bmcc_mix).

A subset of the comparison (about 25 s): three long-lived SACK flows at T = 40 ms
over drop-tail (with and without ECN), RED and RED+ECN, and over drop-tail with the
paper's cross traffic; at T = 300 ms over RED and RED+ECN (where this comparison found
two ccsim defects, now fixed: RED's average not decaying over idle periods, and the
per-ACK increase floored to whole bytes; docs/validation.md). Skipped where ``ns`` is
not installed.
"""

from __future__ import annotations

from _tools import needs_ns
from ccsim.validation.ns2 import bmcc_mix


def _load():
    return bmcc_mix


def _outside(mod, cs, seeds):
    raw = mod.run(cs, seeds, jobs=2)
    chks = mod.checks(cs, raw)
    bad = [ch for ch in chks if not ch.ok]
    return raw, chks, mod.report_bad(bad) + "\n".join(mod.identical_ecn(cs, raw))


def test_skips_with_one_line_without_ns(monkeypatch, capsys):
    mod = _load()
    monkeypatch.setattr(mod, "have_ns", lambda: False)
    assert mod.main(["--quick"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("ns-2 validation skipped")


@needs_ns
def test_40ms_drop_tail_agrees_with_ns2():
    mod = _load()
    cs = [
        mod.case(40, "droptail", False, False, quick=True),
        mod.case(40, "droptail", True, False, quick=True),
    ]
    raw, chks, report = _outside(mod, cs, seeds=5)
    assert not report, report
    by = {(ch.case, ch.quantity.key): ch for ch in chks}
    for side in ("reference", "ccsim"):  # ns-2, ccsim
        # Drop-tail neither marks nor drops early; it overflows.
        assert max(getattr(by[cs[0].name, "marks"], side)) == 0
        assert max(getattr(by[cs[0].name, "early"], side)) == 0
        assert min(getattr(by[cs[0].name, "other"], side)) > 0


@needs_ns
def test_40ms_cross_traffic_agrees_with_ns2():
    mod = _load()
    cs = [mod.case(40, "droptail", False, True, quick=True)]
    raw, chks, report = _outside(mod, cs, seeds=3)
    assert not report, report
    for ns, cc in zip(raw[cs[0].name]["ns2"], raw[cs[0].name]["ccsim"]):
        # The same files (arrivals and sizes) in both simulators.
        assert ns["cross_files"] == cc["cross_files"] > 1000


def _red_cases(mod, rtt: int, quick: bool):
    return [mod.case(rtt, "red", False, False, quick), mod.case(rtt, "red", True, False, quick)]


def _red_structure(by, cs):
    red, ecn = cs[0].name, cs[1].name
    for side in ("reference", "ccsim"):  # ns-2, ccsim
        # RED without ECN drops early and never overflows its BDP buffer;
        # RED+ECN marks and drops nothing.
        assert min(getattr(by[red, "early"], side)) > 0
        assert max(getattr(by[red, "other"], side)) == 0
        assert min(getattr(by[ecn, "marks"], side)) > 0
        assert max(getattr(by[ecn, "early"], side)) + max(getattr(by[ecn, "other"], side)) == 0


@needs_ns
def test_40ms_red_agrees_with_ns2():
    mod = _load()
    cs = _red_cases(mod, 40, quick=True)
    raw, chks, report = _outside(mod, cs, seeds=5)
    _red_structure({(ch.case, ch.quantity.key): ch for ch in chks}, cs)
    assert not report, report


@needs_ns
def test_300ms_red_agrees_with_ns2():
    """The full 300-s runs (five seeds): the quick ones end before RED signals."""
    mod = _load()
    cs = _red_cases(mod, 300, quick=False)
    raw, chks, report = _outside(mod, cs, seeds=5)
    _red_structure({(ch.case, ch.quantity.key): ch for ch in chks}, cs)
    assert not report, report


def test_a_rare_event_count_gets_the_noise_a_poisson_count_would_have():
    # Issue 45: RED's early drops at 40 ms with cross traffic are a few per run; five
    # seeds that happen to agree gave a paired half-width of about 1 and a failed check
    # (ns-2 3, ccsim 0). A count gets at least the noise a Poisson count has; a split that
    # chance does not explain still fails, and a non-count metric keeps its paired width.
    early = next(m for m in bmcc_mix.METRICS if m.key == "early")
    util = next(m for m in bmcc_mix.METRICS if m.key == "util")
    assert early.count and not util.count
    chance = bmcc_mix.Check("c", early, [3, 3, 3, 3, 2], [0, 0, 1, 0, 0])
    assert chance.ok and chance.tol > 2.7
    assert not bmcc_mix.Check("c", early, [3, 3, 3, 3, 3], [0, 0, 0, 0, 0]).ok
    timeouts = next(m for m in bmcc_mix.METRICS if m.key == "rto")
    # the 300-ms RED+ECN row's long-flow timeouts (10 seeds, about 5 against 11) stay out
    assert not bmcc_mix.Check("c", timeouts, [5] * 10, [11] * 10).ok


def test_ns2_timeouts_come_from_the_event_trace():
    """With ``counters`` ns-2 reports every expiry of its agents' retransmission timer
    (an ``E ... TIMEOUT`` line of the event trace, ``TcpAgent::timeout``), not
    ``nrexmit_``, which ns-2.35 leaves alone at a timeout whose last congestion response
    was an ECN one; the cross traffic's agents are not traced."""
    from ccsim.validation.ns2.tcp_scenario import parse_printed, tcl

    c = bmcc_mix.case(300, "red", True, True, quick=True)
    script = tcl(c, 1)
    lines = script.splitlines()
    on, off = lines.index("$ns eventtrace-all stdout"), lines.index("$ns set eventTraceAll_ 0")
    agents = [i for i, ln in enumerate(lines) if "[new Agent/TCP/Sack1]" in ln]
    assert on < agents[0] and agents[c.pairs - 1] < off < agents[c.pairs]
    p = parse_printed(
        "E 4.677549 6 7 TCP TIMEOUT 2 1022 512\nE 5.2 4 5 TCP FAST_RECOVERY 1 710 128\n"
        "E 61.66 4 5 TCP TIMEOUT 1 11709 17\n"
    )
    assert p.rto_events == [(4.677549, 2), (61.66, 1)]


@needs_ns
def test_ns2_timeout_events_equal_nrexmit_without_ecn():
    """Without ECN every timeout is counted in nrexmit_ as well: the two counts agree."""
    from ccsim.validation.ns2.reference import ns2_stdout
    from ccsim.validation.ns2.tcp_scenario import parse_printed, tcl

    c = bmcc_mix.case(40, "droptail", False, False, quick=True)
    n = 0
    for seed in (1, 2, 3):
        p = parse_printed(ns2_stdout(tcl(c, seed)))
        assert len(p.rto_events) == sum(int(f[3]) for f in p.flows)
        n += len(p.rto_events)
    assert n > 0
