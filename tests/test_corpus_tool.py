"""The scenario corpus tool (``tools/corpus.py``) that checks an engine change leaves
results byte-identical: ``write`` gives valid, deterministic scenario files; ``dump``
records a failing run's error text; ``compare`` names the differing column and summary
keys. The engine binary is stood in for by a small script (no cargo build here)."""

import json
import stat
import subprocess
import sys
from pathlib import Path

import ccsim

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "corpus.py"


def corpus(*args, cwd=None):
    return subprocess.run(
        [sys.executable, str(TOOL), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_write_quick_is_valid_and_deterministic(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        r = corpus("write", d, "--quick")
        assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in a.glob("*.json"))
    assert names == sorted(p.name for p in b.glob("*.json"))
    assert all((a / n).read_bytes() == (b / n).read_bytes() for n in names)
    for part in ("1-bundled-", "2-paper-", "3-valid-", "4-feature-"):
        assert any(n.startswith(part) for n in names), part
    assert "1-bundled-dumbbell-newreno.json" in names
    for feature in ("queue-red-ecn", "capture-trace"):
        (path,) = a.glob(f"4-feature-*-{feature}.json")
        r = ccsim.run(json.loads(path.read_text()))
        assert len(r.flows) >= 1
    assert "R1-R2.pcap" in r.files and len(r.trace) > 0


def test_dump_and_compare(tmp_path):
    scenarios, out_a, out_b = tmp_path / "s", tmp_path / "a", tmp_path / "b"
    scenarios.mkdir()
    for name in ("x", "y", "z"):
        (scenarios / f"{name}.json").write_text("{}")
    # A stand-in for examples/run: fails on z, prints a summary and a column otherwise.
    fake = tmp_path / "run"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "if sys.argv[1] == 'z.json':\n"
        "    sys.exit(print('z.json: bad scenario', file=sys.stderr) or 1)\n"
        'print(\'summary {"events": 5, "seed": 1}\')\n'
        "print('flows.cwnd_bytes 1 2')\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    r = corpus("dump", fake, scenarios, out_a)
    assert r.returncode == 0, r.stderr
    assert "1 failed" in r.stdout
    assert "z.json: bad scenario" in (out_a / "z.dump").read_text()
    assert (out_a / "x.dump").read_text().startswith("summary ")
    out_b.mkdir()
    for p in out_a.iterdir():
        (out_b / p.name).write_bytes(p.read_bytes())
    r = corpus("compare", out_a, out_b)
    assert r.returncode == 0 and r.stdout.startswith("3 identical, 0 differ")
    text = (out_b / "y.dump").read_text()
    (out_b / "y.dump").write_text(text.replace('"events": 5', '"events": 6').replace("2\n", "3\n"))
    r = corpus("compare", out_a, out_b)
    assert r.returncode == 1
    assert r.stdout.startswith("2 identical, 1 differ")
    assert "y: summary keys events; first differing column flows.cwnd_bytes" in r.stdout
    r = corpus("compare", out_a, out_b, "--ignore-summary", "events")
    assert "y: first differing column flows.cwnd_bytes" in r.stdout
