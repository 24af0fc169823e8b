"""The classic results of today's congestion control and AQM (``ccsim reproduce
classics``, quick mode) through the Python API: every stated expectation holds, with
replications that differ (send jitter) and the report written."""

import ccsim
from ccsim.experiments import classics as C
from ccsim.experiments.base import reproduce


def test_reproduce_classics_passes_every_check(tmp_path):
    ok = reproduce(
        ["classics"],
        quick=True,
        results_dir=tmp_path / "db",
        out_dir=tmp_path / "out",
        progress=False,
    )
    report = (tmp_path / "out" / "classics" / "report.md").read_text()
    assert ok, report
    assert report.count("| PASS |") == len(C.EXPERIMENT.checks)


def test_replications_differ_on_drop_tail():
    a = C.metrics(ccsim.run(C.rtt_fairness("newreno", 1, 20)))
    b = C.metrics(ccsim.run(C.rtt_fairness("newreno", 2, 20)))
    assert a["goodput0_bps"] != b["goodput0_bps"]  # the send jitter draws per seed


def test_without_jitter_the_rtt_ratio_is_a_phase_effect():
    """Deterministic drop-tail hides the classic RTT unfairness: the same two NewReno
    flows without send jitter share far more evenly than with it (why every drop-tail
    study here jitters its senders)."""
    sc = C.rtt_fairness("newreno", 1, 60)
    jittered = C.metrics(ccsim.run(sc))
    for f in sc["flows"]:
        f.pop("send_jitter")
    locked = C.metrics(ccsim.run(sc))
    ratio = lambda m: m["goodput0_bps"] / m["goodput1_bps"]  # noqa: E731
    assert ratio(jittered) > 1.3 * ratio(locked)
