"""Short reproductions of the Westwood+ buffer-sizing paper's claims (Figs. 4, 5, 8)
and of the experiments framework (report.md, figures, reuse of stored points)."""

import dataclasses

import ccsim
import pytest
from ccsim import theory
from ccsim.experiments import Check, Experiment, all_experiments, get, westwood
from ccsim.experiments.base import Run


def util(protocol, b, duration="150s", warmup="60s"):
    return ccsim.run(westwood.single_flow(protocol, 100, b, duration, warmup)).queue("R1->R2")[
        "utilization"
    ]


def test_fig4_newreno_far_below_westwood_at_tenth_bdp():
    nr, ww = util("newreno", 0.1), util("westwood", 0.1)
    assert 0.76 <= nr <= 0.84  # paper: "below 82 %"; fluid model 81.8 %
    assert ww >= 0.95
    assert abs(nr - theory.fluid_utilization_newreno(0.1)) < 0.03


def test_fig4_both_full_at_one_bdp():
    assert util("newreno", 1.0, "120s", "40s") >= 0.98
    assert util("westwood", 1.0, "120s", "40s") >= 0.98


def test_fig4_westwood_nearly_flat_in_buffer():
    us = [util("westwood", b, "120s", "60s") for b in (0.05, 0.3)]
    assert min(us) >= 0.95 and max(us) - min(us) < 0.05


def test_fig5_sawtooth_ranges():
    nr = westwood.trace_metrics(
        ccsim.run(westwood.single_flow("newreno", 100, 0.1, "110s", "50s", monitor=True))
    )
    assert nr["cwnd_max_pkts"] == pytest.approx(550, rel=0.05)
    assert nr["cwnd_after_loss_pkts"] == pytest.approx(275, rel=0.05)
    assert 18 <= nr["empty_stretch_s"] <= 25
    ww = westwood.trace_metrics(
        ccsim.run(westwood.single_flow("westwood", 100, 0.1, "110s", "50s", monitor=True))
    )
    assert ww["cwnd_after_loss_pkts"] == pytest.approx(500, rel=0.1)
    assert ww["empty_stretches"] == 0


@pytest.mark.parametrize("protocol", ["newreno", "westwood"])
def test_fig8_many_flows_high_utilization(protocol):
    r = ccsim.run(westwood.many_flows(protocol, 100, 0.2, seed=1, duration="60s", warmup="30s"))
    assert r.queue("R1->R2")["utilization"] >= 0.95
    assert theory.util_bound_reno(0.2, 200) > 0.99


def test_registry_lists_paper_experiments():
    names = [e.name for e in all_experiments()]
    assert {"westwood-fig4", "westwood-fig5", "westwood-fig8"} <= set(names)
    assert get("westwood-fig4").checks
    with pytest.raises(KeyError, match="experiments:"):
        get("nope")


def tiny_runs(quick):
    return [
        Run({"protocol": p}, westwood.single_flow(p, 50, 0.5, "20s", "5s", monitor=True))
        for p in ("newreno", "westwood")
    ]


def tiny_plot(data, outdir):
    import matplotlib
    from ccsim.experiments.base import save_figure

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    f = data.timeseries("flow", protocol="newreno")
    ax.plot(f["time_s"], f["cwnd_bytes"])
    return save_figure(fig, outdir, "tiny")


TINY = Experiment(
    name="tiny",
    title="tiny",
    paper="test",
    runs=tiny_runs,
    metrics=westwood.utilization_metrics,
    plot=tiny_plot,
    timeseries=["flow"],
    checks=[
        Check(
            "NewReno utilization",
            "high",
            lambda d: d.one("utilization", protocol="newreno"),
            0.5,
            1.0,
            ">50%",
        ),
        Check(
            "impossible",
            "x",
            lambda d: d.one("utilization", protocol="westwood"),
            2.0,
            3.0,
            "never",
        ),
    ],
)


def test_experiment_runs_stores_plots_and_reports(tmp_path):
    data = TINY.run(results_dir=tmp_path, jobs=2, progress=False)
    assert len(data.table) == 2
    figs = TINY.plot(data, tmp_path / "out")
    assert {p.suffix for p in figs} == {".png", ".svg"} and all(p.stat().st_size > 0 for p in figs)
    text, ok = TINY.report(data, tmp_path / "out", figs)
    assert not ok  # the impossible check fails and is reported as such
    assert "| NewReno utilization | high |" in text and "PASS" in text and "FAIL" in text
    assert (tmp_path / "out" / "report.md").read_text() == text
    # A rerun reuses the stored points: same ids, same values.
    again = TINY.run(results_dir=tmp_path, jobs=2, progress=False)
    assert sorted(again.table["point_id"]) == sorted(data.table["point_id"])
    assert sorted(again.table["utilization"]) == sorted(data.table["utilization"])


def test_reproduce_exit_status_contract(tmp_path, monkeypatch, capsys):
    """Exit 1 when a check fails without a known cause; a failing check whose report
    explains it (``why``) exits 0 unless ``--strict``, which fails on any."""
    from ccsim import cli, experiments

    monkeypatch.setattr(experiments, "all_experiments", lambda: [TINY])
    rc = cli.main(["reproduce", "--all", "--quick", "--jobs", "1", "--results", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 1  # the impossible check fails and nobody explained why
    assert "1 checks did not pass, 1 of them without a known cause" in err
    assert "FAIL tiny: impossible (no known cause)" in err
    assert "NewReno utilization" not in err
    checks = [
        dataclasses.replace(c, why=lambda d: "explained: utilization cannot exceed 1")
        if c.what == "impossible"
        else c
        for c in TINY.checks
    ]
    explained = dataclasses.replace(TINY, checks=checks)
    monkeypatch.setattr(experiments, "all_experiments", lambda: [explained])
    rc = cli.main(["reproduce", "tiny", "--quick", "--jobs", "1", "--results", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 0 and "FAIL tiny: impossible (explained in the report)" in err
    rc = cli.main(["reproduce", "tiny", "--strict", "--jobs", "1", "--results", str(tmp_path)])
    assert rc == 1 and "FAIL tiny: impossible" in capsys.readouterr().err


class _StubData:
    """Data for the plot functions without running the experiment: a sawtooth trace
    with a spike before the warm-up, and one seed per fig-8 point."""

    def __init__(self):
        import numpy as np
        import pandas as pd

        t = np.arange(0, 120, 0.01)
        self._flow = pd.DataFrame(
            {"time_s": t, "cwnd_bytes": (300 + (t % 10) * 25) * westwood.MSS * 1.0}
        )
        self._flow.loc[100, "cwnd_bytes"] = 5000 * westwood.MSS  # slow-start overshoot
        self._flow.loc[6000, "cwnd_bytes"] = 4000 * westwood.MSS  # one inflated sample
        self._queue = pd.DataFrame({"time_s": t, "packets": (t % 10) * 5})
        rows = [
            {"protocol": p, "rtt_ms": rtt, "b": b, "utilization": 0.9}
            for p in westwood.SERIES
            for rtt in (100, 300)
            for b in (0.02, 0.2)
        ]
        self.table = pd.DataFrame(rows)

    def timeseries(self, name, **params):
        return self._flow if name == "flow" else self._queue

    def rows(self, **params):
        df = self.table
        for k, v in params.items():
            df = df[df[k] == v]
        return df


def test_fig5_and_fig8_figures(tmp_path, monkeypatch):
    figs = []
    monkeypatch.setattr(westwood, "save_figure", lambda fig, outdir, stem: figs.append(fig) or [])
    westwood.plot_fig5(_StubData(), tmp_path)
    cwnd, queue = figs[0].axes[0], figs[0].axes[2]
    assert cwnd.get_ylim()[1] < 1000  # single-sample spikes do not set the scale
    assert queue.get_xlim()[0] == westwood.FIG5_FROM_S and "warm-up" in queue.get_xlabel()
    westwood.plot_fig8(_StubData(), tmp_path)
    labels = [t.get_text() for t in figs[1].axes[0].get_legend().get_texts()]
    assert any("one seed" in x for x in labels) and not any("CI" in x for x in labels)


def test_failing_checks_are_explained_under_the_table(tmp_path):
    """A failing check's ``why`` is printed under the table; a cause shared by several
    checks is written once and referred to; a failing check without one says so."""
    import pandas as pd
    from ccsim.experiments.base import Data

    shared = "the shared cause, measured: 42."
    exp = Experiment(
        name="why",
        title="why",
        paper="test",
        runs=lambda quick: [],
        metrics=westwood.utilization_metrics,
        checks=[
            Check("passes", "1", lambda d: 1.0, 0, 2, "", why=lambda d: "never printed"),
            Check("first", "1", lambda d: 5.0, 0, 2, "", why=lambda d: f"own reason.\n\n{shared}"),
            Check("second", "1", lambda d: 5.0, 0, 2, "", why=lambda d: shared),
            Check("third", "1", lambda d: 5.0, 0, 2, ""),
            Check("broken", "1", lambda d: 5.0, 0, 2, "", why=lambda d: 1 / 0),
        ],
    )
    table = pd.DataFrame({"experiment": [], "point_id": [], "seed": [], "status": []})
    text, ok = exp.report(Data("why", table, tmp_path, False), tmp_path, [])
    assert not ok
    section = text.split("## Why the failing checks fail")[1]
    assert "never printed" not in text
    assert "- **first**: own reason. the shared cause, measured: 42." in section
    assert "- **second**: (The cause given for **first** above.)" in section
    assert "- **third**: no explanation yet (not investigated)." in section
    assert "- **broken**: (the explanation could not be computed: ZeroDivisionError" in section
    assert text.count(shared) == 1
