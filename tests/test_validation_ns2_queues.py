"""The ns-2.35 comparison of the queue disciplines (validation/ns2/queues/).

Runs every case when ``ns`` is installed: the open-loop ones check the disciplines
alone, the TCP-driven ones (RED + ECN, DRR with NewReno) the disciplines with ccsim's TCP.
"""

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "validation" / "ns2" / "queues" / "run.py"


def _load():
    spec = importlib.util.spec_from_file_location("ns2_queues_run", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_skips_with_one_line_without_ns(monkeypatch, capsys):
    mod = _load()
    monkeypatch.setattr(mod.shutil, "which", lambda name: None)
    assert mod.main([]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("ns-2 comparison skipped: `ns`")


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 (`ns`) is not installed")
def test_open_loop_cases_agree_with_ns2(capsys):
    mod = _load()
    assert mod.main(["--cases", "red_cbr,red_default,ared,drr,fq"]) == 0, capsys.readouterr().out


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 (`ns`) is not installed")
def test_tcp_driven_cases_agree_with_ns2(capsys):
    """RED + ECN and DRR under NewReno flows: these also check ccsim's TCP (the
    RED + ECN case found a defect in its ECN response, docs/validation.md)."""
    mod = _load()
    assert mod.main(["--cases", "red_ecn_tcp,drr_tcp"]) == 0, capsys.readouterr().out
