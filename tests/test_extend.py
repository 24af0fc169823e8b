"""Models of the user's written in Python (``kind = "python"``, ccsim.extend) through the
API, the CLI, sweeps (local workers and a real Dask cluster): loading and its errors,
faults inside hooks, determinism, explicit feedback, tracing, provenance.

The ports of built-in modules and their bit-for-bit checks are in
``test_extend_newreno_vegas.py``, ``test_extend_cubic_dctcp.py`` and
``test_extend_aqm.py``.
"""

from __future__ import annotations

import copy
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import ccsim
import ccsim.sweep as sw
import pytest
from _processes import sigint_default

NEWRENO = "ccsim.examples.newreno:NewReno"

# A module of the user's, written to a temporary directory by the `user` fixture.
USER_MODULE = '''
import time
import ccsim
from ccsim import Verdict


class Aimd(ccsim.CongestionControl):
    """AIMD with a configurable decrease, a traced variable and counters."""

    def __init__(self, beta=0.5, jitter=0.0):
        if not 0 < beta < 1:
            raise ccsim.ParameterError("beta", beta, "a number between 0 and 1")
        self.beta, self.jitter, self.losses = beta, jitter, 0

    def ssthresh(self, s):
        self.losses += 1
        return max(int(s.flight * self.beta), 2 * s.mss)

    def cong_avoid(self, s, acked):
        if s.cwnd < s.ssthresh:
            s.cwnd += min(acked, s.mss)
        else:
            s.cwnd_cnt += acked
            if s.cwnd_cnt >= s.cwnd:
                s.cwnd_cnt -= s.cwnd
                s.cwnd += s.mss
        if self.jitter:
            s.cwnd += int(s.random() * self.jitter * s.mss)

    def trace(self):
        return float(self.losses)

    def stats(self):
        return {"losses": self.losses}


class Faulty(Aimd):
    def __init__(self, at=0.5, what="raise"):
        super().__init__()
        self.at, self.what = at, what

    def cong_avoid(self, s, acked):
        if s.now > self.at:
            if self.what == "raise":
                raise ZeroDivisionError("my bug")
            if self.what == "nan":
                s.cwnd = float("nan")
            if self.what == "negative":
                s.pacing_rate = -1
            if self.what == "sleep":
                time.sleep(0.001)
        super().cong_avoid(s, acked)


class NoHooks(ccsim.CongestionControl):
    pass


class Feedback(Aimd):
    """Stamps its segments with a rate request and reads what the routers left."""

    def __init__(self):
        super().__init__()
        self.seen = set()

    def cong_avoid(self, s, acked):
        super().cong_avoid(s, acked)
        s.stamp = 1000.0

    def pkts_acked(self, s, a):
        self.seen.add(a.stamp)

    def stats(self):
        return {"min_stamp": min(self.seen), "max_stamp": max(self.seen)}


class Halve(ccsim.QueueDiscipline):
    """Halves the stamp of every data packet at enqueue, marks ECT packets above k."""

    def __init__(self, k=20):
        self.k = k

    def setup(self, q):
        if q.limit_packets is not None and q.limit_packets < self.k:
            raise ccsim.ParameterError("k", self.k, f"at most the buffer ({q.limit_packets})")

    def enqueue(self, q, p):
        if p.kind == "data" and p.stamp:
            p.stamp = p.stamp / 2
        if q.backlog_packets >= self.k and p.ect:
            return Verdict.MARK
        return Verdict.PASS


class BadVerdict(ccsim.QueueDiscipline):
    def enqueue(self, q, p):
        return Verdict.MARK  # on packets that are not ECN-capable
'''


@pytest.fixture
def user(tmp_path, monkeypatch):
    """A directory with the user's module ``mymodels``, importable."""
    d = tmp_path / "models"
    d.mkdir()
    (d / "mymodels.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(d))
    sys.modules.pop("mymodels", None)
    yield d
    sys.modules.pop("mymodels", None)


def small(cc, queue=None, duration="2s", **flow):
    q = {"kind": "droptail", "limit": "50pkt"} | (queue or {})
    return {
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "pairs": 2,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": q},
            "access": {"rate": "100Mbps", "delay": "1ms"},
        },
        "flows": [{"pairs": "all", "cc": cc, **flow}],
    }


def py(cls, **params):
    return {"kind": "python", "class": cls, **params}


# ----------------------------------------------------------------------- loading


def test_a_class_object_stands_for_its_path_and_the_resolved_table_names_it(user):
    import mymodels

    r = ccsim.run(small(py(mymodels.Aimd, beta=0.7)))
    cc = r.scenario["flows"][0]["cc"]
    assert cc["class"] == "mymodels:Aimd" and cc["beta"] == 0.7 and cc["jitter"] == 0.0
    assert cc["source"].startswith("sha256:")
    assert set(r.flows["cc"]) == {"Aimd"}
    assert r.summary["cc"]["f0"]["losses"] > 0  # stats() reach the summary
    assert (r.flows["goodput_bps"] > 1e6).all()


@pytest.mark.parametrize(
    ("cc", "path", "expected"),
    [
        (py("nomodule:X"), "flows[0].cc.class", "an importable module"),
        (py("mymodels:Missing"), "flows[0].cc.class", "a class defined in module"),
        (py("mymodels"), "flows[0].cc.class", '"module:Class"'),
        (py("mymodels:NoHooks"), "flows[0].cc.class", "ssthresh, cong_avoid"),
        (py("mymodels:Aimd", gamma=1), "flows[0].cc.gamma", "its parameters: beta, jitter"),
        (py("mymodels:Aimd", beta=2), "flows[0].cc.beta", "between 0 and 1"),
        ({"kind": "python"}, "flows[0].cc.class", "module:Class"),
    ],
)
def test_bad_classes_and_parameters_name_the_key(user, cc, path, expected):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(small(cc))
    assert e.value.path == path, str(e.value)
    assert expected in e.value.expected
    assert "\n" not in str(e.value)


def test_a_queue_setup_refuses_a_parameter_that_does_not_suit_its_link(user):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(small("newreno", {"kind": "python", "class": "mymodels:Halve", "k": 80}))
    assert e.value.path == "topology.bottleneck.queue.k"
    assert "at most the buffer (50)" in e.value.expected and "R1->R2" in e.value.expected


def test_the_schema_accepts_the_python_kind_and_refuses_it_without_a_class():
    jsonschema = pytest.importorskip("jsonschema")
    v = jsonschema.Draft7Validator(ccsim.scenario_schema())
    queue = {"kind": "python", "class": "m:Q", "limit": "10pkt", "k": 3}
    assert list(v.iter_errors(small(py(NEWRENO, anything=1), queue))) == []
    assert list(v.iter_errors(small({"kind": "python"})))
    # a closed kind stays closed
    assert list(v.iter_errors(small("newreno", {"kind": "red", "k": 3})))


# ----------------------------------------------------------------------- faults


def test_an_exception_in_a_hook_stops_the_run_naming_hook_flow_and_time(user):
    with pytest.raises(ccsim.SimulationError) as e:
        ccsim.run(small(py("mymodels:Faulty", at=0.5)))
    msg = str(e.value)
    assert 'cong_avoid() of flow "f0"' in msg or 'cong_avoid() of flow "f1"' in msg
    assert "ZeroDivisionError: my bug" in msg
    t = float(msg.split("t=")[1].split(" s")[0])
    assert 0.5 < t < 0.6
    cause = e.value.__cause__
    assert isinstance(cause, ZeroDivisionError)
    frames = [f.name for f in _tb(cause)]
    assert "cong_avoid" in frames  # the user's traceback is kept


def _tb(exc):
    import traceback

    return traceback.extract_tb(exc.__traceback__)


@pytest.mark.parametrize(
    ("what", "text"), [("nan", "cong_avoid: cwnd = nan refused"), ("negative", "pacing_rate")]
)
def test_an_absurd_window_or_rate_is_refused_naming_the_hook(user, what, text):
    with pytest.raises(ccsim.SimulationError) as e:
        ccsim.run(small(py("mymodels:Faulty", at=0.2, what=what)))
    assert text.lower() in str(e.value).lower()


def test_a_mark_on_a_packet_that_is_not_ecn_capable_is_refused(user):
    with pytest.raises(ccsim.SimulationError, match="not ECN-capable"):
        ccsim.run(small("newreno", {"kind": "python", "class": "mymodels:BadVerdict"}))


def test_ctrl_c_inside_a_hook_stops_the_run_promptly(user):
    sc = small(py("mymodels:Faulty", at=0.0, what="sleep"), duration="600s")
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            ccsim.run(sc)
    finally:
        timer.cancel()
    assert time.monotonic() - t0 < 5


# ----------------------------------------------------------------------- behaviour


def test_runs_repeat_exactly_and_the_seeded_stream_follows_the_seed(user):
    sc = small(py("mymodels:Aimd", jitter=0.5))
    a, b = ccsim.run(sc), ccsim.run(copy.deepcopy(sc))
    assert a.flows.equals(b.flows) and a.queues.equals(b.queues)
    c = ccsim.run({**sc, "seed": 2})
    assert not a.flows["bytes_sent"].equals(c.flows["bytes_sent"])


def test_explicit_feedback_travels_from_router_to_receiver_and_back(user):
    sc = small(py("mymodels:Feedback"), {"kind": "python", "class": "mymodels:Halve"})
    r = ccsim.run(sc)
    # data carry 1000 from the sender's first window on; one router halves it;
    # the receiver echoes what it last got
    stats = r.summary["cc"]["f0"]
    assert stats["max_stamp"] == 500.0 and stats["min_stamp"] == 0.0


def test_traced_cc_state_and_the_queue_kind_columns(user):
    sc = small(py("mymodels:Aimd"), {"kind": "python", "class": "mymodels:Halve", "k": 40})
    sc["monitor"] = {"interval": "100ms"}
    r = ccsim.run(sc)
    ts = r.timeseries["flow"]
    assert ts["cc_state"].max() >= 1
    assert r.queues.set_index("queue").loc["R1->R2", "kind"] == "Halve"


def test_the_source_digest_changes_with_the_code_and_so_do_point_ids(user):
    sc = small(py("mymodels:Aimd"))
    before = ccsim.resolve(sc)["flows"][0]["cc"]["source"]
    pid = sw.expand(sc, experiment="x")[0].point_id
    (user / "mymodels.py").write_text(USER_MODULE + "\n# changed\n")
    after = ccsim.resolve(sc)["flows"][0]["cc"]["source"]
    assert before != after
    assert sw.expand(sc, experiment="x")[0].point_id != pid


# ----------------------------------------------------------------------- everywhere


def _env() -> dict:
    env = dict(os.environ)
    pkg_parent = str(Path(ccsim.__file__).resolve().parent.parent)
    tests_dir = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join([pkg_parent, tests_dir])
    return env


SCENARIO_TOML = """
seed = 1
duration = "2s"
[topology]
kind = "dumbbell"
pairs = 2
[topology.bottleneck]
rate = "10Mbps"
delay = "10ms"
queue = { kind = "python", class = "mymodels:Halve", limit = "50pkt", k = 20 }
[topology.access]
rate = "100Mbps"
delay = "1ms"
[[flows]]
pairs = "all"
cc = { kind = "python", class = "mymodels:Aimd", beta = 0.7 }
"""


def test_ccsim_run_imports_from_the_scenario_files_directory(user, tmp_path):
    (user / "scen.toml").write_text(SCENARIO_TOML)
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "-m", "ccsim.cli", "run", str(user / "scen.toml"), "--out", str(out)],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert (out / "flows.parquet").exists()


def test_a_failing_hook_on_the_cli_shows_the_users_traceback(user, tmp_path):
    (user / "bad.toml").write_text(
        SCENARIO_TOML.replace('class = "mymodels:Aimd", beta = 0.7', 'class = "mymodels:Faulty"')
    )
    r = subprocess.run(
        [sys.executable, "-m", "ccsim.cli", "run", str(user / "bad.toml")],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1
    assert "mymodels.py" in r.stderr and "ZeroDivisionError: my bug" in r.stderr
    assert (
        r.stderr.strip().splitlines()[-1].startswith("ccsim: error: simulation failed: Python hook")
    )


def test_a_sweep_on_local_workers_imports_the_class_by_its_path(user, tmp_path):
    from ccsim.extend import importable

    importable(user)
    base = small(py("mymodels:Aimd"))
    pts = sw.expand(base, {"flows[0].cc.beta": [0.5, 0.7]}, experiment="mine")
    df = sw.run_sweep(pts, tmp_path / "res", jobs=2, progress=False)
    assert list(df["status"]) == ["done", "done"], df["error"].tolist()


def test_a_sweep_on_dask_workers_imports_the_class_by_its_path(tmp_path, dask_cluster):
    base = small(py(NEWRENO))
    pts = sw.expand(base, {"seed": [1, 2]}, experiment="dask")
    df = sw.run_sweep(pts, tmp_path, scheduler=dask_cluster.scheduler_address, progress=False)
    assert list(df["status"]) == ["done", "done"], df["error"].tolist()
    local = sw.run_sweep(pts, tmp_path / "local", jobs=1, progress=False)
    assert list(local["point_id"]) == list(df["point_id"])


def test_a_script_without_the_main_guard_stops_its_sweep_with_one_line(tmp_path):
    script = tmp_path / "noguard.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import ccsim.sweep as sw
            from test_extend import small, NEWRENO, py
            pts = sw.expand(small(py(NEWRENO)), {{"seed": [1, 2, 3]}}, experiment="g")
            sw.run_sweep(pts, {str(tmp_path / "res")!r}, jobs=2, progress=False)
            """
        )
    )
    t0 = time.monotonic()
    r = subprocess.run(
        [sys.executable, str(script)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=sigint_default,
    )
    assert time.monotonic() - t0 < 60
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert "SweepError" in last and 'if __name__ == "__main__":' in last


def test_rcp_fills_the_link_with_a_short_queue_and_shares_it_fairly():
    """ccsim.examples.rcp: the routers' rate travels in the stamp to the receivers and
    back; the senders pace at it."""
    sc = small(
        py("ccsim.examples.rcp:Rcp"),
        {"kind": "python", "class": "ccsim.examples.rcp:RcpRouter", "rtt": "30ms"},
        duration="10s",
    )
    sc["topology"]["pairs"] = 4
    sc["topology"]["bottleneck"]["queue"]["limit"] = "200pkt"
    sc["flows"][0]["start"] = {"uniform": ["0s", "1s"]}
    sc["monitor"] = {"interval": "100ms", "queues": ["R1->R2"]}
    r = ccsim.run(sc)
    q = r.queues.set_index("queue").loc["R1->R2"]
    g = r.flows["goodput_bps"]
    assert q["utilization"] > 0.9 and q["drops"] == 0
    assert q["mean_len_pkts"] < 10
    assert g.sum() ** 2 / (len(g) * (g**2).sum()) > 0.98
    rate = r.timeseries["qdisc"]
    assert set(rate["name"]) == {"rate_bps"}
    # four flows: the routers' rate settles near a quarter of the link (10 Mbps)
    late = rate[rate["time_s"] > 5]["value"]
    assert 2.0e6 < late.median() < 3.0e6


def test_traces_captures_saved_runs_and_compare_work_with_python_models(user, tmp_path):
    """The observers and the result tools see a Python model's run as any other."""
    sc = small(py("mymodels:Aimd"), {"kind": "python", "class": "mymodels:Halve", "k": 40})
    sc["trace"] = {"links": ["R1->R2"]}
    sc["capture"] = [{"link": "R1->R2", "file": "fwd.pcap"}]
    sc["monitor"] = {"interval": "100ms"}
    mine = ccsim.run(sc)
    assert (mine.trace["event"] == "drop").sum() == mine.queues.set_index("queue").loc[
        "R1->R2", "drops"
    ]
    pcap_magics = {
        b"\xa1\xb2\xc3\xd4",
        b"\xa1\xb2\x3c\x4d",
        b"\xd4\xc3\xb2\xa1",
        b"\x4d\x3c\xb2\xa1",
    }
    assert mine.files["fwd.pcap"][:4] in pcap_magics
    mine.save(tmp_path / "mine", force=True)
    ref = ccsim.run({**small("cubic"), "monitor": {"interval": "100ms"}})
    ref.save(tmp_path / "cubic", force=True)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "ccsim.cli",
            "compare",
            str(tmp_path / "cubic"),
            str(tmp_path / "mine"),
            "--plot",
            str(tmp_path / "cmp"),
        ],
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert "goodput" in r.stdout
    assert list((tmp_path / "cmp").glob("*.png"))


def test_the_unit_parsers_name_the_key_they_read_for():
    from ccsim.extend import ParameterError, parse_rate, parse_size, parse_time

    assert parse_time("5ms") == parse_time(0.005, "target") == 5_000_000
    with pytest.raises(ValueError):
        parse_time("5 parsecs")
    for parse, bad in [(parse_time, "5 parsecs"), (parse_size, -3), (parse_rate, "fast")]:
        with pytest.raises(ParameterError) as e:
            parse(bad, "k")
        assert (e.value.key, e.value.value) == ("k", bad) and e.value.expected
    # through a class: the scenario is refused at the parameter's key
    sc = small(
        py("ccsim.examples.rcp:Rcp"),
        {"kind": "python", "class": "ccsim.examples.rcp:RcpRouter", "rtt": "soon"},
    )
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(sc)
    assert e.value.path == "topology.bottleneck.queue.rtt"
