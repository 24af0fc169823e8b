"""The speed harness (``benches/speed.py``), through real processes as it runs them.

A scenario file of the user's has no ns-2 or htsim translation, so the harness says so in
one line per reference and still reports ccsim's own figures (issue 12, "Bad input"); a
wrong bottleneck name is one clear error; without an htsim program the htsim table says so
in one line. The htsim side is exercised with a stand-in program that speaks the
interface the harness documents (its flags, its pairs file, its printed lines), and with
the real program where ``CCSIM_HTSIM`` names one.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _scenarios import one_pair

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "benches" / "speed.py"

SCENARIO = one_pair()
NO_HTSIM = "not measured: no htsim binary (--htsim)"
EIGHT = "8 NewReno flows"
TWO_HUNDRED = "200 NewReno flows"


def harness(*args: str, path: str | None = None, htsim: str | None = ""):
    """The harness in a fresh process; `htsim`: the program named by CCSIM_HTSIM
    ("": none; None: the environment's own)."""
    env = dict(os.environ)
    if htsim is not None:
        env.pop("CCSIM_HTSIM", None)
        if htsim:
            env["CCSIM_HTSIM"] = htsim
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [sys.executable, str(HARNESS), "--repeat", "1", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def rows(stdout: str, name: str) -> list[list[str]]:
    """The cells of every table row for scenario `name` (one per table)."""
    return [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in stdout.splitlines()
        if line.startswith(f"| {name}")
    ]


# The same with the machine's PATH (ns-2 installed or not) and with one where `ns` is
# certainly missing (only the interpreter's directory).
@pytest.mark.parametrize("path", [None, str(Path(sys.executable).parent)], ids=["path", "no-ns"])
def test_a_scenario_file_is_measured_with_ccsim_alone(tmp_path, path):
    path_file = tmp_path / "mine.json"
    path_file.write_text(json.dumps(SCENARIO))
    r = harness("--scenario", str(path_file), "--against", "ns2,htsim", path=path)
    assert r.returncode == 0, r.stderr
    for ref in ("ns-2", "htsim"):
        said = [line for line in r.stderr.splitlines() if "not compared" in line and ref in line]
        assert len(said) == 1 and said[0].startswith(f"mine.json: {ref} not compared"), r.stderr
    ns2, htsim = rows(r.stdout, "mine.json")
    assert ns2[1:4] == ["—", "—", "—"]  # no ns-2 figures
    assert ns2[-2].startswith("— (not compared")
    assert 0 < float(ns2[-1].removesuffix(" s")) < 5  # start-up and output, wall
    # ccsim's own figures: departures per CPU second on the bottleneck, events/s, memory.
    process, engine = (float(x.split()[0]) for x in ns2[5].split("/"))
    assert process > 0 and engine >= process
    assert float(ns2[6].split()[0]) > 0 and ns2[7].endswith("MB")
    assert htsim[1:5] == ["—"] * 4 and htsim[9].startswith("— (not compared")
    assert htsim[5] == ns2[4] and htsim[6] == ns2[5]  # the same ccsim run in both tables


def test_a_wrong_bottleneck_is_one_clear_error(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(SCENARIO))
    r = harness("--scenario", str(path), "--bottleneck", "R9->R1")
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("mine.json: ccsim failed:") and "R9->R1" in last and "R1->R2" in last


def test_without_an_htsim_program_the_table_says_so_in_one_line():
    r = harness("--against", "htsim", "--only", EIGHT, "--length", "0.005")
    assert r.returncode == 0, r.stderr
    said = [line for line in r.stderr.splitlines() if NO_HTSIM in line]
    assert said == [f"htsim: {NO_HTSIM}; ccsim's figures only"], r.stderr
    (row,) = rows(r.stdout, EIGHT)
    assert row[1:5] == ["—"] * 4 and row[9] == f"— ({NO_HTSIM})"
    assert row[8] == "— (too few flows)"  # memory per flow: not measurable with 8 flows
    assert int(row[10].split("/")[1].replace(" ", "")) > 0  # ccsim's departures
    assert "ns-2" not in r.stdout  # one table: the one asked for


def test_an_htsim_program_that_is_not_there_is_one_clear_error(tmp_path):
    r = harness("--against", "htsim", "--htsim", str(tmp_path / "nothing"))
    assert r.returncode != 0
    assert "is not an executable file" in r.stderr.strip().splitlines()[-1]


STAND_IN = """\
    #!{python}
    # Speaks the harness's htsim interface: checks its flags and pairs file, records
    # them, prints htsim's timeout line and the counts.
    import json, sys
    a = sys.argv[1:]
    flags = dict(zip(a[::2], a[1::2]))
    need = {{"-flows", "-rate_mbps", "-delay_ms", "-access_mbps", "-buffer_pkts", "-mss",
             "-duration_s", "-pairs_file"}}
    assert set(flags) == need, flags
    pairs = [line.split() for line in open(flags["-pairs_file"])]
    assert len(pairs) == int(flags["-flows"]) and all(len(p) == 2 for p in pairs)
    with open({log!r}, "a") as f:
        f.write(json.dumps({{"flags": flags, "pairs": pairs}}) + "\\n")
    print("At 1.5 RTO 250 MDEV 1 RTT 44 SEQ 7 HSENT 1 CWND 3 FAST RECOVERY? 0 Flow ID 9")
    print("departures", 1000 * int(flags["-flows"]))
    print("drops 3")
    print("events 12345")
"""


def test_the_htsim_side_through_a_stand_in_program(tmp_path):
    log = tmp_path / "calls.jsonl"
    prog = tmp_path / "htsim-stand-in"
    prog.write_text(textwrap.dedent(STAND_IN.format(python=sys.executable, log=str(log))))
    prog.chmod(0o755)
    doc = tmp_path / "perf.md"
    kept = "<!-- ns2-speed:begin -->\nns-2's table\n<!-- ns2-speed:end -->"
    doc.write_text(
        f"# Perf\n\n{kept}\n\n<!-- htsim-speed:begin -->\nold\n<!-- htsim-speed:end -->\n"
    )
    r = harness(
        *("--against", "htsim", "--only", TWO_HUNDRED, "--length", "0.01", "--write", str(doc)),
        htsim=str(prog),
    )
    assert r.returncode == 0, r.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    # The row's run, then the same dumbbell with half the flows (memory per flow).
    assert [c["flags"]["-flows"] for c in calls] == ["200", "100"]
    flags = calls[0]["flags"]
    assert {k: flags[k] for k in flags if k != "-pairs_file"} == {
        "-flows": "200",
        "-rate_mbps": "200",
        "-delay_ms": "48",
        "-access_mbps": "2000",
        "-buffer_pkts": "250",
        "-mss": "1448",
        "-duration_s": "0.6",
    }
    starts, delays = ([float(p[k]) for p in calls[0]["pairs"]] for k in (0, 1))
    assert all(0 <= s <= 1 for s in starts) and len(set(starts)) == 200
    assert all(0 <= d <= 2 for d in delays) and len(set(delays)) == 200
    (row,) = rows(r.stdout, TWO_HUNDRED)
    assert row[1].endswith(" s") and row[3].endswith(" MB") and row[4].endswith(" KB")
    assert row[8].endswith(" KB")  # ccsim's memory per flow
    process, engine = (float(x.removesuffix("×")) for x in row[9].split(" / "))
    assert 0 < process <= engine
    htsim_dep, ccsim_dep = (int(x.replace(" ", "")) for x in row[10].split(" / "))
    assert htsim_dep == 200_000 and ccsim_dep > 0
    assert row[11].startswith("3 / ")
    assert "timeouts 1," in r.stderr  # htsim's one "At ... RTO" line
    # The htsim block is replaced, with its date and commit; the ns-2 block is kept.
    text = doc.read_text()
    assert kept in text and "\nold\n" not in text
    block = text[text.index("<!-- htsim-speed:begin -->") : text.index("<!-- htsim-speed:end -->")]
    assert "Measured on 20" in block and "at ccsim commit `" in block
    assert str(prog) not in block  # the user's program path is not written


@pytest.mark.skipif(
    not os.environ.get("CCSIM_HTSIM"), reason="CCSIM_HTSIM does not name an htsim program"
)
def test_htsim_and_ccsim_carry_the_same_traffic():
    r = harness("--against", "htsim", "--only", EIGHT, "--length", "0.1", htsim=None)
    assert r.returncode == 0, r.stderr
    (row,) = rows(r.stdout, EIGHT)
    htsim_dep, ccsim_dep = (int(x.replace(" ", "")) for x in row[10].split(" / "))
    # 30 s of 8 bulk flows through 100 Mbps: both near the 252 016 packets the link carries.
    assert abs(htsim_dep - ccsim_dep) < 0.05 * ccsim_dep
    assert 0.8 * 252_016 < ccsim_dep <= 252_016
