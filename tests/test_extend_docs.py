"""docs/extending.md's tutorial, run as a user would: its files written as the page
gives them, then its commands (a script, `ccsim run`, `ccsim sweep`, `ccsim plot`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import ccsim
import duckdb
import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "extending.md"


def blocks() -> dict[str, str]:
    """The page's files: ``<!-- tutorial:NAME -->`` then a fenced block."""
    text = DOC.read_text()
    found = re.findall(
        r"<!-- tutorial:(\S+) -->\n```\w*\n(.*?)```\n<!-- tutorial:end -->", text, re.S
    )
    return dict(found)


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(ccsim.__file__).resolve().parent.parent)
    return env


def _ccsim(*args, cwd):
    r = subprocess.run(
        [sys.executable, "-m", "ccsim.cli", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    return r


def test_the_page_gives_every_file_of_the_tutorial():
    assert set(blocks()) == {"mydelay.py", "run.py", "dumbbell.toml", "sweep.toml"}


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    d = tmp_path_factory.mktemp("tutorial")
    for name, text in blocks().items():
        (d / name).write_text(text)
    return d


def test_the_script_runs_and_the_algorithm_keeps_the_queue_short(tutorial):
    r = subprocess.run(
        [sys.executable, "run.py"],
        cwd=tutorial,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "DelayAimd" in r.stdout


def test_ccsim_run_with_the_scenario_file(tutorial):
    _ccsim("run", "dumbbell.toml", "--out", "run1", "--plot", cwd=tutorial)
    assert (tutorial / "run1" / "flows.parquet").exists()
    assert list((tutorial / "run1" / "plots").glob("*.png"))


def test_the_sweep_and_its_figure(tutorial):
    _ccsim("sweep", "sweep.toml", "--jobs", "2", cwd=tutorial)
    with duckdb.connect(str(tutorial / "ccsim-results" / "ccsim.duckdb"), read_only=True) as c:
        assert c.execute("SELECT count(*) FROM points").fetchone()[0] == 20
        assert c.execute("SELECT count(*) FROM failures").fetchone()[0] == 0
    r = _ccsim(
        "plot",
        "ccsim-results",
        "--x",
        "flows.0.cc",
        "--y",
        "queues[R1->R2].sojourn_p95_s",
        cwd=tutorial,
    )
    assert "wrote" in r.stdout
    # the delay target does what it says: a shorter queue than CUBIC's, both DelayAimd
    # configurations
    df = ccsim.open_results(tutorial / "ccsim-results").metrics
    p95 = df.groupby(df["flows.0.cc"].astype(str))["queues[R1->R2].sojourn_p95_s"].mean()
    cubic = p95["cubic"]
    mine = [v for k, v in p95.items() if "DelayAimd" in k]
    assert len(mine) == 2 and max(mine) < cubic
