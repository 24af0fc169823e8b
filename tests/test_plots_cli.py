"""Plots and comparisons without code: ``Results.plot()``, ``ccsim plot``, ``ccsim run
--plot``, ``ccsim compare``; the figures have the expected axes and legend entries and
are not blank."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.image  # noqa: E402
import pytest  # noqa: E402

import ccsim  # noqa: E402
from ccsim import cli, plots  # noqa: E402

SCENARIO = {
    "seed": 2,
    "duration": "6s",
    "warmup": "1s",
    "topology": {
        "kind": "dumbbell",
        "pairs": 2,
        "bottleneck": {
            "rate": "10Mbps",
            "delay": "10ms",
            "queue": {"kind": "droptail", "limit": "30pkt"},
        },
        "access": {"rate": "100Mbps", "delay": "1ms"},
    },
    "flows": [
        {"pairs": [0], "cc": "newreno"},
        {"pairs": [1], "kind": "cbr", "rate": "2Mbps"},
    ],
    "monitor": {"interval": "20ms", "queues": ["R1->R2"]},
}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    root = tmp_path_factory.mktemp("plots")
    a = ccsim.run(SCENARIO)
    a.save(root / "a")
    b = ccsim.run(SCENARIO, overrides=["topology.bottleneck.queue.limit=8pkt"])
    b.save(root / "b")
    return root, a, b


def _legend(ax):
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


def test_results_plot_panels_axes_and_legends(saved):
    _, a, _ = saved
    assert plots.available(a) == ["queue", "cwnd", "throughput", "rtt", "drops"]
    fig = a.plot()
    axes = {ax.get_title().split(" (")[0]: ax for ax in fig.axes}
    q = axes["queue length"]
    assert q.get_xlabel() == "time (s)" and q.get_ylabel() == "queue length (packets)"
    assert _legend(q) == ["R1->R2"]
    c = axes["congestion window"]
    assert c.get_ylabel() == "window (KB)"
    assert _legend(c) == ["f0 cwnd", "f0 ssthresh"]  # the CBR flow has no window
    t = axes["per-flow throughput"]
    assert t.get_ylabel() == "throughput (Mbit/s)" and _legend(t) == ["f0", "f1"]
    # the CBR flow's throughput is its rate (2 Mbit/s) once started
    cbr = [ln for ln in t.get_lines() if ln.get_label() == "f1"][0]
    assert 1.8 < sorted(cbr.get_ydata())[len(cbr.get_ydata()) // 2] < 2.2
    assert axes["round-trip time"].get_ylabel() == "smoothed RTT (ms)"
    d = axes["drops and ECN marks per queue"]
    assert d.get_ylabel() == "packets" and "drops: overflow" in _legend(d)
    # integer axis: no ticks at 2.5
    assert all(float(x).is_integer() for x in q.get_yticks())


def test_plot_command_writes_non_blank_figures(saved, capsys):
    root, _, _ = saved
    assert cli.main(["plot", str(root / "a"), "--panel", "queue", "--panel", "cwnd"]) == 0
    out = capsys.readouterr().out
    files = sorted((root / "a" / "plots").glob("*.png"))
    assert [f.name for f in files] == ["cwnd.png", "queue.png"] and "queue.png" in out
    img = matplotlib.image.imread(files[0])
    assert img.shape[0] > 200 and img.std() > 0.05  # something is drawn
    assert cli.main(["plot", str(root / "a"), "--format", "svg", "--out", str(root / "svg")]) == 0
    svg = (root / "svg" / "drops.svg").read_text()
    assert svg.startswith("<?xml") and "<svg" in svg


def test_run_plot(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text(
        'seed = 1\nduration = "3s"\n[topology]\nkind = "dumbbell"\npairs = 1\n'
        '[topology.bottleneck]\nrate = "10Mbps"\ndelay = "10ms"\n'
        '[topology.access]\nrate = "100Mbps"\n[[flows]]\npairs = "all"\n'
        '[monitor]\ninterval = "50ms"\n'
    )
    assert cli.main(["run", str(f), "--out", str(tmp_path / "o"), "--plot", "-q"]) == 0
    assert {p.name for p in (tmp_path / "o" / "plots").iterdir()} == {
        "queue.png",
        "cwnd.png",
        "throughput.png",
        "rtt.png",
        "drops.png",
    }
    assert cli.main(["run", str(f), "--plot"]) == 2
    assert "--plot needs --out" in capsys.readouterr().err


def test_compare_side_by_side_and_overlay(saved, capsys):
    root, a, b = saved
    rc = cli.main(["compare", str(root / "a"), str(root / "b"), "--plot", str(root / "cmp")])
    assert rc == 0
    out = capsys.readouterr().out.splitlines()
    head = out[0].split()
    assert head[:5] == ["table", "row", "metric", "a", "b"]
    row = [x for x in out if x.startswith("queues") and "R1->R2" in x and "max queue" in x][0]
    assert row.split()[-4:-2] == [str(a.queue("R1->R2")["max_len_pkts"]), "8"]
    assert not [x for x in out if "ECN marks" in x]  # zero everywhere: left out
    fig_files = sorted(p.name for p in (root / "cmp").iterdir())
    assert fig_files == [
        "compare-cwnd.png",
        "compare-queue.png",
        "compare-rtt.png",
        "compare-throughput.png",
    ]
    fig = plots._figure([("a", a), ("b", b)], ["throughput"])
    assert _legend(fig.axes[0]) == ["a: f0", "a: f1", "b: f0", "b: f1"]


def test_plot_and_compare_errors_are_one_line(tmp_path, saved, capsys):
    root, _, _ = saved
    assert cli.main(["plot", str(tmp_path / "none")]) == 2
    assert cli.main(["plot", str(tmp_path)]) == 2
    assert cli.main(["plot", str(root / "a"), "--panel", "cwnd2"]) == 2
    assert cli.main(["compare", str(root / "a")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and all(x.startswith("ccsim: error: ") for x in err)
    assert "no saved run here" in err[1] and "panels: queue, cwnd" in err[2]


def test_notebook_html(saved):
    _, a, _ = saved
    html = a._repr_html_()
    assert "<table" in html and "goodput_bps" in html and "queues with traffic" in html
