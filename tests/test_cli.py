"""The ccsim command line, run as a user would (subprocess)."""

import json
import os
import re
import select
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
from _processes import interrupt, sigint_default


def ccsim(*args, **kw):
    return subprocess.run(
        [sys.executable, "-m", "ccsim.cli", *args], capture_output=True, text=True, **kw
    )


def test_help_documents_commands():
    r = ccsim("--help")
    assert r.returncode == 0
    for cmd in ("run", "bench", "list", "reproduce"):
        assert cmd in r.stdout
    r = ccsim("run", "--help")
    assert r.returncode == 0 and "--set" in r.stdout and "--out" in r.stdout
    # `validate --help` names every suite (the list is written out: the CLI imports the
    # validation package only when it runs)
    from ccsim import validation

    r = ccsim("validate", "--help")
    listed = " ".join(r.stdout.split())
    for s in validation.SUITES:
        assert re.search(rf"\b{re.escape(s.name)}\b", listed), s.name


def test_run_writes_summary_and_parquet(tmp_path):
    out = tmp_path / "o"
    r = ccsim(
        "run",
        "scenarios/dumbbell-newreno.toml",
        "--out",
        str(out),
        "--set",
        "duration=3s",
        "--set",
        "seed=7",
        "--set",
        "warmup=1s",
    )
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  R1->R2 +util +\d", r.stdout, re.M), r.stdout
    s = json.loads((out / "summary.json").read_text())
    assert s["seed"] == 7 and s["duration_s"] == 3
    assert pq.read_table(out / "flows.parquet").num_rows == 2
    assert pq.read_table(out / "ts_queue.parquet").num_rows > 0


def test_bad_scenario_exits_2_with_one_line(tmp_path):
    r = ccsim("run", "scenarios/bench-dumbbell-8.toml", "--set", "topology.bottleneck.rate=fast")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "topology.bottleneck.rate" in lines[0] and '"fast"' in lines[0]
    bad = tmp_path / "bad.toml"
    bad.write_text("duration = \n")
    r = ccsim("run", str(bad))
    assert r.returncode == 2 and "not valid TOML" in r.stderr
    r = ccsim("run", str(tmp_path / "missing.toml"))
    assert r.returncode == 2


def test_runaway_workload_is_refused_before_the_run(tmp_path):
    """A workload offering far more than every link together (1e12 connections/s) is a
    one-line error naming the workload's key, at once, not a run that grows to the
    memory budget."""
    sc = tmp_path / "flood.toml"
    sc.write_text(
        'duration = "10s"\n[topology]\nkind = "dumbbell"\npairs = 2\n'
        '[topology.bottleneck]\nrate = "10Mbps"\ndelay = "10ms"\n'
        '[topology.access]\nrate = "100Mbps"\ndelay = "1ms"\n'
        '[[workloads]]\nname = "flood"\npairs = "all"\narrival_rate = 1e12\nsize = "100KB"\n'
    )
    r = ccsim("run", str(sc), "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert "workloads[0].arrival_rate" in line and '"flood"' in line and "max_alive" in line


def test_bench_reports_speed():
    r = ccsim(
        "bench",
        "scenarios/bench-dumbbell-8.toml",
        "--repeat",
        "1",
        "--json",
        "--set",
        "duration=2s",
    )
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["delivered_data_packets_per_s"] > 0 and d["events_per_s"] > 0


def _one_line_exit_2(r):
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ccsim: error: "), r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


def test_bad_arguments_and_places_are_one_line_errors(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    cases = [
        (["reproduce", "nosuch"], "no experiment 'nosuch'; experiments: "),
        (["reproduce", "token-ftcp", "--jobs", "0"], "--jobs: expected a positive integer"),
        (["bench", "--repeat", "0"], "--repeat: expected a positive integer"),
        (["bench", "--repeat", "x"], "--repeat: expected a positive integer"),
        (["reproduce", "token-ftcp", "--results", str(afile)], "is a file, not a directory"),
        (["reproduce", "token-ftcp", "--out", str(afile)], "is a file, not a directory"),
        (["run", "scenarios/dumbbell-newreno.toml", "--out", str(afile)], "is a file"),
        (["run", "scenarios/dumbbell-newreno.toml", "--out", str(afile / "x")], "is a file"),
        (["reproduce", "token-ftcp", "--results", str(afile / "x")], "Not a directory"),
        (["run", "scenarios/dumbbell-newreno.toml", "--frobnicate"], "unrecognized"),
        (["run", str(tmp_path)], "scenario file not found"),
    ]
    for args, needle in cases:
        line = _one_line_exit_2(ccsim(*args))
        assert needle in line, (args, line)


def test_a_directory_that_is_not_a_store_is_refused_and_left_alone(tmp_path):
    proj = tmp_path / "proj"
    for d in ("timeseries/mydata", "timeseries/2024"):
        (proj / d).mkdir(parents=True)
    (proj / "timeseries" / "mydata" / "x.parquet").write_bytes(b"mine")
    (proj / "timeseries" / "notes.tmp-keep.txt").write_text("mine too")
    before = sorted(p.relative_to(proj) for p in proj.rglob("*"))
    line = _one_line_exit_2(ccsim("reproduce", "token-ftcp", "--quick", "--results", str(proj)))
    assert "not a ccsim results store" in line
    assert sorted(p.relative_to(proj) for p in proj.rglob("*")) == before


def test_a_second_writer_is_told_in_one_line(tmp_path):
    from ccsim.store import Store

    with Store(tmp_path).open_for_writing():  # this process holds the writer lock
        line = _one_line_exit_2(ccsim("reproduce", "token-ftcp", "--results", str(tmp_path)))
    assert f"another sweep (pid {os.getpid()}) is writing to {tmp_path}" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to read-only directories")
def test_a_read_only_results_directory_is_a_one_line_error(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        line = _one_line_exit_2(ccsim("reproduce", "token-ftcp", "--results", str(ro)))
    finally:
        ro.chmod(0o755)
    assert "cannot write to the results directory" in line


def test_run_out_replaces_an_earlier_run_and_refuses_other_files(tmp_path):
    out = tmp_path / "o"
    quick = ["--set", "duration=1s", "--set", "warmup=0s", "-q"]
    r = ccsim("run", "scenarios/dumbbell-newreno.toml", "--out", str(out), *quick)
    assert r.returncode == 0, r.stderr
    assert (out / "ts_queue.parquet").exists()
    no_ts = [*quick, "--set", "monitor.interval=0s"]
    r = ccsim("run", "scenarios/dumbbell-newreno.toml", "--out", str(out), *no_ts)
    assert r.returncode == 0, r.stderr
    assert not (out / "ts_queue.parquet").exists()  # the earlier run's files are gone
    (out / "mine.txt").write_text("keep")
    line = _one_line_exit_2(ccsim("run", "scenarios/dumbbell-newreno.toml", "--out", str(out)))
    assert "mine.txt" in line and "--force" in line
    r = ccsim("run", "scenarios/dumbbell-newreno.toml", "--out", str(out), "--force", *quick)
    assert r.returncode == 0, r.stderr
    assert (out / "mine.txt").read_text() == "keep" and (out / "ts_queue.parquet").exists()


def test_ctrl_c_stops_a_long_run_with_exit_130(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "ccsim.cli", "run", "scenarios/dumbbell-newreno.toml",
         "--set", "duration=1e9s", "--set", "monitor.interval=0s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default,
    )  # fmt: skip
    # the progress bar's first line (after a second) says the run is under way
    ready, _, _ = select.select([proc.stderr], [], [], 60)
    line = proc.stderr.readline() if ready else ""
    _, err, stopped = interrupt(proc)
    assert line.startswith("simulating"), line + err
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert stopped < 5  # within a second; generous for slow CI


def test_run_workload_prints_connections_and_writes_their_table(tmp_path):
    out = tmp_path / "w"
    r = ccsim(
        "run",
        "scenarios/workload-100k.toml",
        "--out",
        str(out),
        "--set",
        "workloads[0].completions=300",
    )
    assert r.returncode == 0, r.stderr
    assert "300 completed" in r.stdout and "Mbps requested" in r.stdout
    c = pq.read_table(out / "connections.parquet").to_pandas()
    assert (c.last_ack_s.notna()).sum() == 300
    r = ccsim("run", "scenarios/workload-100k.toml", "--set", "workloads[0].arrival_rate=0")
    assert r.returncode != 0
    assert "workloads[0].arrival_rate" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_reproduce_typo_is_one_line_with_the_names():
    line = _one_line_exit_2(ccsim("reproduce", "westwood-fig9"))
    assert "no experiment 'westwood-fig9'; experiments: westwood-fig4" in line


def test_reproduce_a_papers_prefix_stands_for_its_experiments():
    from ccsim.cli import _expand
    from ccsim.experiments import all_experiments

    known = [e.name for e in all_experiments()]
    bmcc = [k for k in known if k.startswith("bmcc-")]
    assert len(bmcc) == 7
    assert _expand(["bmcc"], known) == bmcc
    assert _expand(["token-ftcp", "bmcc", "bmcc-routers"], known) == ["token-ftcp", *bmcc]
    assert _expand(["bmc"], known) == ["bmc"], "no partial words: left for the error"
    line = _one_line_exit_2(ccsim("reproduce", "bmc"))
    assert "no experiment 'bmc'" in line


def test_nested_typo_names_the_unknown_key_with_a_suggestion(tmp_path):
    f = tmp_path / "s.toml"
    text = open("scenarios/dumbbell-newreno.toml").read()
    f.write_text(text.replace("[topology.bottleneck]", "[topology.bottlenck]"))
    line = _one_line_exit_2(ccsim("run", str(f)))
    assert 'topology.bottlenck: unknown key; did you mean "bottleneck"?' in line
    line = _one_line_exit_2(
        ccsim("run", "scenarios/dumbbell-newreno.toml", "--set", "topology.bottleneck.dleay=1ms")
    )
    assert 'topology.bottleneck.dleay: unknown key; did you mean "delay"?' in line


def test_run_summary_says_what_each_number_covers_without_float_noise(tmp_path):
    r = ccsim("run", "scenarios/dumbbell-newreno.toml", "--set", "duration=6s")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "simulated 6 s in" in out and "packets (whole run): created" in out
    assert "queues (after the 5 s warm-up; the 4 busiest by utilization of 10 with traffic" in out
    assert "limit 65pkt" in out and "Packets(" not in out
    assert "goodput (after the 5 s warm-up)" in out and "retransmits (whole run)" in out
    f = tmp_path / "s.toml"
    f.write_text(
        open("scenarios/dumbbell-newreno.toml")
        .read()
        .replace('"30s"', '"0.3s"')
        .replace('"5s"', '"0.1s"')
    )
    r = ccsim("run", str(f), "--out", str(tmp_path / "o"), "-q")
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["duration_s"] == 0.3 and summary["warmup_s"] == 0.1
    resolved = (tmp_path / "o" / "scenario.json").read_text()
    assert '"0.3s"' in resolved
    assert not re.search(r"\d\.\d*(0{6,}|9{6,})\d", resolved)  # no 0.30000000000000004


def test_ecn_without_a_marking_queue_warns_in_one_line():
    r = ccsim(
        "run",
        "scenarios/dumbbell-newreno.toml",
        "-q",
        "--set",
        "duration=6s",
        "--set",
        "flows[0].ecn=true",
    )
    assert r.returncode == 0
    assert r.stderr.strip() == (
        "ccsim: warning: flows[0].ecn: true, but no queue of the topology marks CE (it takes "
        "ecn = true on a red, ared, codel, fq_codel or pie queue): this flow sees only drops"
    )
    red = 'topology.bottleneck.queue={kind="red", limit="50pkt", min_th=5, max_th=15, ecn=true}'
    r = ccsim(
        "run",
        "scenarios/dumbbell-newreno.toml",
        "-q",
        "--set",
        "duration=6s",
        "--set",
        "flows[0].ecn=true",
        "--set",
        red,
    )
    assert r.returncode == 0 and r.stderr == ""


def test_bench_runs_the_bundled_scenario_from_anywhere(tmp_path):
    r = ccsim("bench", "--repeat", "1", "--json", "--set", "duration=1s", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["scenario"].endswith("bench-dumbbell-8.toml")
    from ccsim import scenarios

    assert {"bench-dumbbell-8", "dumbbell-newreno", "graph-parking-lot"} <= set(scenarios.names())
    # the repository's scenarios/ is the packaged directory
    assert os.path.samefile(
        "scenarios/bench-dumbbell-8.toml", scenarios.path("bench-dumbbell-8")
    ) or (
        open("scenarios/bench-dumbbell-8.toml").read()
        == scenarios.path("bench-dumbbell-8").read_text()
    )


def test_help_and_bad_input_do_not_import_pandas(tmp_path):
    code = (
        "import sys; from ccsim.cli import main\n"
        "rc = main(sys.argv[1:])\n"
        "heavy = [m for m in ('pandas', 'duckdb', 'matplotlib') if m in sys.modules]\n"
        "print(rc, heavy, file=sys.stderr)\n"
    )
    for args in (["list"], ["run", str(tmp_path / "missing.toml")], ["reproduce", "nope"]):
        r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
        assert r.stderr.strip().splitlines()[-1].endswith("[]"), (args, r.stderr)
    r = subprocess.run(
        [sys.executable, "-c", code, "run", "scenarios/dumbbell-newreno.toml", "--set", "seed=x"],
        capture_output=True,
        text=True,
    )
    assert r.stderr.strip().splitlines()[-1] == "2 []", r.stderr


def test_progress_amounts_are_plain_decimals():
    import io

    from ccsim.progress import ProgressBar

    s = io.StringIO()
    bar = ProgressBar("simulating", unit="s", stream=s)
    bar.update(500.0, 100000.0, force=True)
    bar.update(0.25, 2.5, force=True)
    assert "simulating 500/100000s" in s.getvalue() and "0.2/2.5s" in s.getvalue()
    assert "e+" not in s.getvalue()
