"""The ns-2.35 comparison of the queue disciplines (ccsim.validation.ns2.queue_disciplines).

Runs every case when ``ns`` is installed: the open-loop ones check the disciplines
alone, the TCP-driven ones (RED + ECN, DRR with NewReno) the disciplines with ccsim's TCP.
"""

from _tools import needs_ns
from ccsim.validation.ns2 import queue_disciplines


def _load():
    return queue_disciplines


def test_skips_with_one_line_without_ns(monkeypatch, capsys):
    mod = _load()
    monkeypatch.setattr(mod.shutil, "which", lambda name: None)
    assert mod.main([]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("ns-2 comparison skipped: `ns`")


@needs_ns
def test_open_loop_cases_agree_with_ns2(capsys):
    mod = _load()
    assert mod.main(["--cases", "red_cbr,red_default,ared,drr,fq"]) == 0, capsys.readouterr().out


@needs_ns
def test_tcp_driven_cases_agree_with_ns2(capsys):
    """RED + ECN and DRR under NewReno flows: these also check ccsim's TCP (the
    RED + ECN case found a defect in its ECN response, docs/validation.md)."""
    mod = _load()
    assert mod.main(["--cases", "red_ecn_tcp,drr_tcp"]) == 0, capsys.readouterr().out
