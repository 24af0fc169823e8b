"""``ccsim validate`` (ccsim.validation): suites selected by name, a one-line skip where
the reference is not installed, the exit status (1 only for a difference outside its
tolerance without a known cause), report.md, and the regenerated docs blocks."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from _tools import needs_ns
from ccsim import cli, validation
from ccsim.validation import framework
from ccsim.validation.ns2 import queue_disciplines
from ccsim.validation.ns2 import reference as ns2_reference


def test_unknown_suite_is_refused_with_the_list(capsys):
    assert cli.main(["validate", "tcpp"]) == 2
    err = capsys.readouterr().err
    assert "no validation suite 'tcpp'" in err and "tcp, queues, bmcc-mix, blt-tcp" in err


def test_missing_reference_skips_with_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CCSIM_HTSIM_DIR", raising=False)
    assert cli.main(["validate", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    skips = [line for line in err if "skipped" in line]
    assert len(skips) == len(validation.SUITES)
    for suite, line in zip(validation.SUITES, skips):
        assert suite.name in line and suite.install in line
    for suite, line in zip(validation.SUITES, skips):
        assert ("apt-get install ns2" in line) == (suite.reference == "ns-2.35")
        assert ("pip install ns3" in line) == (suite.reference == "ns-3")
        # VCP's ns-2 code is no package: the line says how to build it.
        assert ("tools/ns2-vcp/build.sh" in line) == (suite.name == "vcp")
    assert "skipped: ns-2.35 not installed" in (tmp_path / "report.md").read_text()


def _fake_queues(monkeypatch, ccsim_value: float, explained: str = ""):
    """The queue suite with one case whose comparison is given (no simulator runs)."""

    class Check(queue_disciplines.Check):
        def verdict(self):
            v = super().verdict()
            return framework.Verdict(
                v.case, v.quantity, v.reference, v.ccsim, v.tolerance, explained
            )

    monkeypatch.setattr(shutil, "which", lambda name: "/bin/true")
    monkeypatch.setattr(ns2_reference, "version", lambda: "2.35-test")
    monkeypatch.setattr(queue_disciplines, "run_ns2", lambda case, d: None)
    monkeypatch.setattr(
        queue_disciplines,
        "CASES",
        {"fake": lambda ns: [Check("fake", "mean queue", 10.0, ccsim_value, 0.05)]},
    )


@pytest.mark.parametrize(
    ("value", "explained", "status", "rc"),
    [(10.2, "", "pass", 0), (12.0, "", "FAIL", 1), (12.0, "a known cause", "explained", 0)],
)
def test_exit_status_and_report(monkeypatch, tmp_path, capsys, value, explained, status, rc):
    _fake_queues(monkeypatch, value, explained)
    assert cli.main(["validate", "queues", "--out", str(tmp_path)]) == rc
    report = (tmp_path / "report.md").read_text()
    assert "against ns-2.35 2.35-test" in report
    assert f"| fake | mean queue | 10 | {value:.5g} |" in report and f"| {status} |" in report
    if status == "FAIL":
        assert "FAIL fake: mean queue" in capsys.readouterr().err


def test_write_replaces_the_blocks_and_keeps_the_prose(monkeypatch, tmp_path):
    _fake_queues(monkeypatch, 10.1)
    doc = tmp_path / "validation.md"
    doc.write_text(
        "# Validation\n\nprose before\n\n<!-- validate:begin -->\nold\n<!-- validate:end -->\n\n"
        "## Queues\n\n<!-- ns2-queues:begin -->\nold table\n<!-- ns2-queues:end -->\n\nprose after\n"
    )
    rep = validation.validate(["queues"], out=None, write=doc, progress=False)
    assert rep and not rep.failures
    text = doc.read_text()
    assert "old" not in text and "prose before" in text and "prose after" in text
    assert "| [queues](#queues) | ns-2.35 2.35-test | 1 | 1 of 1 | 0 | 0 |" in text
    assert text.count("Measured with ccsim ") == 2


def test_write_keeps_the_rows_of_suites_not_run(monkeypatch, tmp_path):
    """A run of some suites updates their summary rows and keeps the others'."""
    _fake_queues(monkeypatch, 10.1)
    old_tcp = "| [tcp](#tcp) | ns-2.35 | 10 | 120 of 120 | 0 | 0 | 30.0 min | 2026-01-01, full |"
    old_queues = "| [queues](#queues) | ns-2.35 | 1 | 0 of 1 | 0 | 1 | 0.1 min | old |"
    newer = "| [future](#future) | ns-9 | 1 | 1 of 1 | 0 | 0 | 0.1 min | by a newer ccsim |"
    doc = tmp_path / "validation.md"
    doc.write_text(
        f"<!-- validate:begin -->\nstamp\n\n{old_tcp}\n{old_queues}\n{newer}\n"
        "<!-- validate:end -->\n"
    )
    validation.validate(["queues"], out=None, write=doc, progress=False)
    text = doc.read_text()
    assert old_tcp in text and old_queues not in text and newer in text
    assert text.index(old_tcp) < text.index("| [queues](#queues) | ns-2.35 2.35-test | 1 | 1 of 1")


def test_paired_tolerance_follows_the_seed_to_seed_spread():
    same = framework.paired_tolerance([5.0, 6.0, 7.0], [5.0, 6.0, 7.0], floor=0.5)
    assert same == 0.5
    noisy = framework.paired_tolerance([5.0, 6.0, 7.0], [4.0, 8.0, 6.0], floor=0.5)
    assert noisy > 2.0
    assert framework.paired_tolerance([100.0], [103.0], rel_floor=0.05) == 5.0


@needs_ns
def test_queue_suite_through_the_cli(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "ccsim.cli", "validate", "queues", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    report = (tmp_path / "report.md").read_text()
    assert "| [queues](#queues) | ns-2.35 2.35" in report and "| FAIL |" not in report
    assert "within tolerance, 0 explained, 0 failing" in out.stderr


@needs_ns
def test_tcp_suite_single_flows_within_tolerance(tmp_path):
    """CI's short subset of the tcp suite: the single-flow cases, quick, through the
    framework; any check outside its tolerance without a known cause fails here."""
    rep = validation.validate(
        ["tcp"], quick=True, only="1 flow", jobs=2, out=tmp_path, progress=False
    )
    r = rep.results["tcp"]
    assert r.checked >= 40  # 10 cases x 5 quantities, minus unchecked ones
    assert rep, "\n".join(v.line() for _, v in rep.failures)
