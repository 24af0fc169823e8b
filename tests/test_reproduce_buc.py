"""Short reproductions of the BUC gateway with RFCN (specs/buc_rfcn.md §8, §9, §12)
through the Python API, on the scenarios of ``ccsim.experiments.buc_rfcn``."""

import ccsim
import pytest
from ccsim.experiments import buc_rfcn as B
from ccsim.experiments.base import reproduce


@pytest.fixture(scope="module")
def convergence():
    r = ccsim.run(B.convergence_scenario())
    return r, B.convergence_metrics(r)


def test_tql_steps_60_30_20_at_the_joins(convergence):
    r, m = convergence
    tql = r.timeseries["component_events"]
    tql = tql[tql["name"] == "tql"]
    assert list(tql["value"]) == [60.0, 30.0, 20.0]
    for t, join in zip(tql["time_s"], B.JOINS):
        assert join <= t < join + 0.1  # from the newcomer's first packet (A17)


def test_no_loss_and_buc_idle_while_ftp1_alone(convergence):
    r, m = convergence
    assert m["drops"] == 0 and m["data_drops"] == 0
    assert r.flows["retransmits"].sum() == 0
    assert m["buc_windows_ftp1_alone"] == 0
    assert 46 <= m["q1_alone"] <= 50  # 64 − 16 = 48 (spec §8.3)


def test_queues_converge_to_tql_and_the_sum_to_tbu(convergence):
    _, m = convergence
    assert m["q2_max_dev"] <= 3 and m["q3_max_dev"] <= 3
    assert 55 <= m["sum2"] <= 65 and 55 <= m["sum3"] <= 65
    assert m["conv_2_s"] < 5 and m["conv_3_s"] < 5
    # Equilibrium windows TQL + pipe share: 30 + 8 and 20 + 16/3 (spec §8.3).
    assert m["w2_mean"] == pytest.approx(38, abs=2)
    assert m["w3_mean"] == pytest.approx(25, abs=2)
    assert m["spike_2"] > 35 and m["spike_3"] > 25  # the newcomers' slow-start spikes


def test_queue_trace_records_every_enqueue_and_dequeue(convergence):
    r, _ = convergence
    ev = r.timeseries["component_events"]
    rows = (ev["name"] == "queue").sum()
    q = r.queue(B.PORT1)
    # One row per arrival and per start of transmission; the packet being sent at the
    # end has started but not finished (departures count finished transmissions).
    assert q["arrivals"] + q["departures"] <= rows <= q["arrivals"] + q["departures"] + 1
    per_flow = ev[ev["name"] == "queue"].groupby("flow").size()
    assert set(per_flow.index) == {"ftp1", "ftp2", "ftp3"}


def test_rfcn_rewrites_acks_on_the_reverse_path(convergence):
    r, _ = convergence
    st = r.summary["components"]["G"]["stats"]
    assert st["initialized"] == 3 and st["acks_rewritten"] > 0
    ev = r.timeseries["component_events"]
    written = ev[ev["name"] == "rfcn_window"]
    assert set(written["flow"]) == {"ftp1", "ftp2", "ftp3"}
    assert written["value"].max() <= 64  # never above the receiver's 64 packets


@pytest.fixture(scope="module")
def comparison():
    """Replication 1 of every scheme, 300 s (the quick mode's length)."""
    out = {}
    for s in B.SCHEMES:
        r = ccsim.run(B.comparison_scenario(s, 300.0, 1))
        out[s] = B.comparison_metrics(r)
    return out


def test_comparison_fairness_ranking(comparison):
    md = {s: m["md"] for s, m in comparison.items()}
    assert md["buc"] < min(md["red"], md["red-ecn"])
    assert md["droptail"] > max(md["red"], md["red-ecn"])
    assert comparison["buc"]["md_norm"] < 0.01


def test_comparison_utilization_ranking_and_buc_queue(comparison):
    busy = {s: m["busy"] for s, m in comparison.items()}
    assert busy["buc"] >= busy["droptail"] - 1e-4
    assert busy["droptail"] > busy["red"]
    buc = comparison["buc"]
    assert 50 <= buc["mean_queue"] <= 70
    assert buc["last_drop_s"] < 10  # drops only in the initial slow starts
    assert comparison["droptail"]["fills"] >= 3 and comparison["droptail"]["drops"] > 0


def test_reproduce_buc_convergence_passes_every_check(tmp_path):
    """The whole of experiment 1 (5 runs, a few seconds): report, figures, all PASS."""
    ok = reproduce(
        ["buc-convergence"], results_dir=tmp_path / "db", out_dir=tmp_path / "out", progress=False
    )
    out = tmp_path / "out" / "buc-convergence"
    report = (out / "report.md").read_text()
    assert ok, report
    assert "| FAIL |" not in report
    assert (out / "fig7-convergence-paper.png").exists()


@pytest.mark.parametrize(
    "key,value,expected",
    [
        ("ports", ["nope"], 'list of output links of "G": "G->s1"'),
        ("tbu", "inf", 'a positive target in packets ("60pkt") or bytes ("60000B")'),
        ("up", 0.5, "a number in [1, 1000000]"),
        ("rounding", "up", 'one of "half_up", "floor"'),
    ],
)
def test_bad_buc_keys_give_one_line_errors(key, value, expected):
    sc = B.convergence_scenario(duration=1)
    sc["components"][0][key] = value
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(sc)
    msg = str(e.value)
    assert f"components[0].{key}" in msg and expected in msg and "\n" not in msg
