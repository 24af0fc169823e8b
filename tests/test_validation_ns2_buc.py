"""The BUC comparison's FIFO setting in ccsim and ns-2.35 (``ccsim validate buc-fifo``).

A subset (about 15 s): with the experiment's 4-ms send jitter both simulators give the
same drop-tail shares, drops and timeouts within the seed-to-seed spread; in one traced
run every timeout each simulator counts is found and classified from its per-packet
trace. Skipped where ``ns`` is not installed.
"""

from __future__ import annotations

import statistics
from _tools import needs_ns

from ccsim.validation.ns2 import buc_fifo, buc_fifo_timeouts


def _load():
    return buc_fifo


def test_skips_with_one_line_without_ns(monkeypatch, capsys):
    mod = _load()
    monkeypatch.setattr(mod, "have_ns", lambda: False)
    assert mod.main(["--quick"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("ns-2 validation skipped")


def test_cases_cover_the_jitters_and_the_tie_breaking_offsets():
    mod = _load()
    runs = mod.cases(quick=True)
    assert {(r.jitter_s, r.offset_us) for r in runs} == set(mod.VARIANTS.values())
    assert {r.duration_s for r in runs} == {300.0}
    off = next(r for r in runs if r.offset_us > 0)
    delays = off.access_ms()
    assert all(0 <= d - a < 0.05 for d, a in zip(delays, [1, 3, 5, 8, 12, 18, 25, 35]))
    sc = mod.scenario(off)
    assert [lk["delay"] for lk in sc["topology"]["links"][:8]] == [f"{d}ms" for d in delays]
    assert f"$ns duplex-link $s(7) $g1 10Mb {delays[7]}ms DropTail" in mod.tcl(off)
    sc = mod.scenario(runs[-1])
    assert {f["send_jitter"] for f in sc["flows"]} == {"0.004s"}
    assert {f["limited_transmit"] for f in sc["flows"]} == {False}
    tcl = mod.tcl(runs[-1])
    for line in ("overhead_ 0.004", "singledup_ 0", "tcpTick_ 0.1", "window_ 300"):
        assert f"Agent/TCP set {line}" in tcl
    assert "$ns queue-limit $g1 $g2 301" in tcl  # 300 waiting + 1 in transmission


@needs_ns
def test_jittered_fifo_agrees_with_ns2():
    mod = _load()
    res = [mod.run_both(mod.Run(0.004, s, 300.0)) for s in (1, 2, 3, 4)]

    def mean(sim, f):
        return statistics.fmean(f(m[sim]) for m in res)

    md = {sim: mean(sim, lambda m: m.md_norm) for sim in ("ns2", "ccsim")}
    assert abs(md["ns2"] - md["ccsim"]) < 0.06, md
    drops = {sim: mean(sim, lambda m: m.drops) for sim in ("ns2", "ccsim")}
    assert abs(drops["ccsim"] / drops["ns2"] - 1) < 0.1, drops
    tos = {sim: mean(sim, lambda m: m.timeouts) for sim in ("ns2", "ccsim")}
    assert abs(tos["ns2"] - tos["ccsim"]) < 3, tos
    for m in res:
        for sim in ("ns2", "ccsim"):
            assert m[sim].utilization > 0.999


@needs_ns
def test_every_timeout_is_found_in_the_traces(tmp_path):
    mod = _load()
    tmo = buc_fifo_timeouts
    run = mod.with_setting(mod.Run(0.001, 1, 60.0), "limited transmit, both")
    m = mod.run_both(run, tmp_path)
    for sim in ("ns2", "ccsim"):
        a = tmo.analyse(tmo.parse(tmp_path / f"{sim}.tr"), run.jitter_s)
        assert len(a.timeouts) == m[sim].timeouts > 0, sim
        assert a.fast_retransmits > 10


@needs_ns
def test_suite_checks_every_variant_and_knows_the_phase_locked_one():
    res = buc_fifo.run_suite(quick=True, only="jitter", seeds=3)
    names = {v.case for v in res.verdicts}
    assert names == {f"FIFO, {v}" for v in buc_fifo.VARIANTS}
    assert {v.quantity for v in res.verdicts} == {h for h, _, _ in buc_fifo.CHECKS}
    for v in res.verdicts:
        if v.case == "FIFO, jitter 4 ms":
            assert v.within and not v.explained, v.line()
        if v.case == "FIFO, no jitter":
            assert v.explained  # phase locking, reported if it leaves the tolerance
    assert not res.failures
    assert "| jitter 4 ms | ccsim | 3 |" in res.block
