"""The classic results of today's congestion control and AQM (``ccsim reproduce
classics``, quick mode) through the Python API: every stated expectation holds, with
replications that differ (send jitter) and the report written."""

import statistics

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
    """Deterministic drop-tail makes the classic RTT unfairness a phase effect (Floyd &
    Jacobson 1992): without send jitter the two NewReno flows' goodput ratio swings with a
    10-µs change of one access delay (8 to 19 here), while with jitter it stays put from
    seed to seed (4.6 to 6.2): why every drop-tail study here jitters its senders."""

    def ratio(sc: dict) -> float:
        m = C.metrics(ccsim.run(sc))
        return m["goodput0_bps"] / m["goodput1_bps"]

    def spread(xs: list[float]) -> float:
        return statistics.pstdev(xs) / statistics.fmean(xs)

    jittered = [ratio(C.rtt_fairness("newreno", seed, 60)) for seed in (1, 2, 3, 4)]
    locked = []
    for k in range(4):
        sc = C.rtt_fairness("newreno", 1, 60)
        for f in sc["flows"]:
            f.pop("send_jitter")
        sc["topology"]["access"]["delay"][1] = f"{31 + 0.01 * k}ms"
        locked.append(ratio(sc))
    assert spread(locked) > 2 * spread(jittered), (locked, jittered)
