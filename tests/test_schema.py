"""The scenario schema (``ccsim.scenario_schema()``, shipped as ``scenario.schema.json``):
it is what the engine generates, every bundled and experiment scenario satisfies it, and
on mutated scenarios the schema and the engine accept and refuse the same inputs, but for
the differences listed in KNOWN (docs/user-guide.md, "Editor support").
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import ccsim
import jsonschema
import pytest
from ccsim.scenario import SCHEMA_FILE, load_scenario
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = sorted((ROOT / "scenarios").glob("*.toml")) + sorted(
    (ROOT / "python" / "ccsim" / "scenarios").glob("*.toml")
)
VALIDATOR = jsonschema.Draft7Validator(ccsim.scenario_schema())


def _errors(s) -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(s)]


def test_the_shipped_schema_is_the_generated_one():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == ccsim.scenario_schema(text=True), (
        "python/ccsim/scenario.schema.json is stale: run `ccsim schema --out "
        "python/ccsim/scenario.schema.json`"
    )


def test_the_schema_is_a_valid_draft_07_schema():
    jsonschema.Draft7Validator.check_schema(ccsim.scenario_schema())


def test_the_cli_prints_it(capsys, tmp_path):
    from ccsim.cli import main

    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == ccsim.scenario_schema()
    out = tmp_path / "s.json"
    assert main(["schema", "--out", str(out)]) == 0
    assert out.read_text() == ccsim.scenario_schema(text=True)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_bundled_scenario_validates(path):
    s = tomllib.loads(path.read_text())
    assert _errors(s) == []


def _experiment_scenarios():
    from ccsim.experiments import all_experiments

    seen, out = set(), []
    for e in all_experiments():
        for r in e.runs(True):
            key = json.dumps(r.scenario, sort_keys=True, default=str)
            if key not in seen:
                seen.add(key)
                out.append((e.name, r.scenario))
    return out


def test_every_experiment_scenario_validates():
    bad = {}
    for name, s in _experiment_scenarios():
        errs = _errors(load_scenario(s))
        if errs:
            bad.setdefault(name, errs[:3])
    assert bad == {}


def _at(s: dict, *keys: str, node: dict | None = None) -> dict:
    """The subschema at ``keys`` from ``node`` (default: the root ``s``), following
    ``$ref``s into ``s["$defs"]``."""
    node = s if node is None else node
    for k in keys:
        node = node[k]
        while isinstance(node, dict) and "$ref" in node:
            node = s["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node


def test_descriptions_defaults_and_units_reach_the_editor():
    s = ccsim.scenario_schema()
    d = s["properties"]["duration"]
    assert d["description"].startswith("simulated time") and "pattern" in d
    tcp = _at(s, "properties", "flows", "items", "properties")
    assert tcp["mss"]["default"] == 1460 and tcp["mss"]["maximum"] == 65495
    cc = _at(s, "cc", node=tcp)
    assert "newreno" in json.dumps(cc) and cc["default"] == "newreno"
    queue = _at(s, "properties", "topology", "properties", "bottleneck", "properties", "queue")
    kind = _at(s, "properties", "kind", node=queue)
    assert set(kind["enum"]) >= {"droptail", "red", "fq", "bmcc"}


def test_repeated_subschemas_are_written_once():
    """A queue table, a cc table, RED's keys: each once under $defs, referred to."""
    s = ccsim.scenario_schema()
    text = json.dumps(s)
    assert {"cc", "queue"} <= set(s["$defs"])
    assert text.count('"$ref"') >= 10
    # no object of 400 bytes or more (compact JSON, as schema::SHARE_MIN_BYTES
    # measures it) occurs twice
    seen: dict[str, int] = {}

    def walk(v, key=""):
        if isinstance(v, dict):
            t = json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            if len(t) >= 400 and key not in ("properties", "$defs") and "$ref" not in v:
                seen[t] = seen.get(t, 0) + 1
            for k, x in v.items():
                walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(s)
    assert max(seen.values()) == 1


# --------------------------------------------------------------------- the fuzz

RICH = {
    "seed": 3,
    "duration": "200ms",
    "warmup": "10ms",
    "topology": {
        "kind": "dumbbell",
        "pairs": 2,
        "bdp_packet": "1500B",
        "bottleneck": {
            "rate": "10Mbps",
            "delay": "5ms",
            "loss": 0.01,
            "queue": {"kind": "red", "limit": "100pkt", "min_th": 5, "max_th": 15},
        },
        "access": {"rate": "100Mbps", "delay": {"uniform": ["0ms", "2ms"]}},
    },
    "flows": [
        {"pairs": "all", "cc": "reno", "size": "100KB", "sack": True, "init_cwnd": 4},
        {"pairs": [1], "kind": "cbr", "rate": "1Mbps", "packet_size": "500B"},
    ],
    "monitor": {"interval": "10ms", "queues": ["R1->R2"]},
}
SEEDS = [RICH] + [tomllib.loads(p.read_text()) for p in BUNDLED[: len(BUNDLED) // 2]]

# In-range values of every form a key takes, and values of no form.
VALUES = [
    "10ms", "0s", "1.5s", "250us", "2min", "10Mbps", "1.5 Gbps", 1e6, 2_000_000, "1500B",
    "64KiB", "300KB", 1500, 0, 1, 3, 40, 0.5, 2.5, -1, -0.5, "100pkt", "0.5bdp", "inf",
    "auto", "all", True, False, "newreno", "red", "droptail", "tcp", "cbr", "dumbbell",
    "abc", "", "10", "10 parsecs", "ms", [], {}, ["R1->R2"], [0], {"kind": "fq"},
]  # fmt: skip
UNKNOWN = ["colour", "ratee", "Delay", "x"]


def _paths(v, prefix=()):
    if isinstance(v, dict):
        for k, x in v.items():
            yield (*prefix, k)
            yield from _paths(x, (*prefix, k))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield (*prefix, i)
            yield from _paths(x, (*prefix, i))


def _tables(v, prefix=()):
    if isinstance(v, dict):
        yield prefix
    for p in _paths(v, prefix):
        x = _get(v, p[len(prefix) :])
        if isinstance(x, dict):
            yield p


def _get(s, path):
    for k in path:
        s = s[k]
    return s


def _engine_accepts(s) -> tuple[bool, str]:
    try:
        ccsim.resolve(s, memory_limit="256MB")
    except ccsim.ScenarioError as e:
        return False, str(e)
    return True, ""


def known(s, path, value, engine_error: str) -> str | None:
    """Why the schema may accept what the engine refuses here (None: no known reason).

    Each reason is a rule a JSON Schema cannot state; docs/user-guide.md lists them.
    """
    e = engine_error
    if isinstance(value, float) and value.is_integer():
        return "a whole float (3.0) is an integer to JSON Schema, not to the engine"
    rules = [
        ("shorter than duration", "warmup < duration"),
        ("not before start", "stop >= start"),
        ("a time after", "stop > start"),
        ("positive time", "a positive duration or interval"),
        ("above min_th", "RED thresholds ordered"),
        ("a buffer of at least", "a buffer holding the AQM thresholds or a packet"),
        ("largest packet", "a buffer holding a packet"),
        ("zero buffer", "a non-zero buffer"),
        ("pair indices in", "pair indices below topology.pairs"),
        ("exactly", "lists with one entry per pair"),
        ("names from", "names that exist in the topology"),
        ("node", "node names that exist"),
        ("link", "link names that exist"),
        ("memory budget", "the memory budget"),
        ("[min, max]", "uniform ranges ordered"),
        ("min <= max", "uniform ranges ordered"),
        ("sack_blocks", "SACK needs sack_blocks > 0"),
        ("at least 1", "positive integers where 0 is meaningless"),
        ("bdp", "bdp buffers need bdp_rtt on a graph"),
        (
            "open interval",
            "open intervals (CUBIC's beta and c, DCTCP's g): schema bounds are closed",
        ),
        ("above alpha", "Vegas alpha < beta"),
        ("a size between 1 B and 65535 B", "packet sizes within a 16-bit length"),
        ("a time below interval", "CoDel's target below its interval"),
    ]
    for text, why in rules:
        if text in e:
            return why
    return None


FUZZ = settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)


@st.composite
def mutations(draw):
    s = copy.deepcopy(draw(st.sampled_from(SEEDS)))
    how = draw(st.sampled_from(["replace", "replace", "add", "drop"]))
    if how == "add":
        table = draw(st.sampled_from(list(_tables(s))))
        key = draw(st.sampled_from(UNKNOWN))
        _get(s, table)[key] = draw(st.sampled_from(VALUES))
        return s, (*table, key), "add"
    keyed = [p for p in _paths(s) if isinstance(p[-1], str)]
    path = draw(st.sampled_from(keyed))
    parent = _get(s, path[:-1])
    if how == "drop":
        del parent[path[-1]]
        return s, path, "drop"
    value = draw(st.sampled_from(VALUES))
    parent[path[-1]] = copy.deepcopy(value)
    return s, path, value


@FUZZ
@given(m=mutations())
def test_the_schema_and_the_engine_agree(m):
    s, path, value = m
    ok, why = _engine_accepts(s)
    errs = _errors(s)
    where = ".".join(map(str, path))
    if ok:
        assert errs == [], f"engine accepts {where} = {value!r}, schema refuses: {errs}"
    elif not errs:
        assert known(s, path, value, why), (
            f"engine refuses {where} = {value!r} ({why}), schema accepts"
        )


# What a schema cannot say, shown: each is accepted by the schema and refused by the engine.
@pytest.mark.parametrize(
    "path, value",
    [
        ("warmup", "1s"),  # warmup < duration
        ("duration", "2e9s"),  # the magnitude inside a unit string (at most 1e9 s)
        ("topology.bottleneck.rate", "100Tbps"),  # at most 10Tbps
        ("topology.bottleneck.delay", "0.4ns"),  # whole nanoseconds
        ("monitor.queues", ["R9->R1"]),  # names of the topology
        ("flows[0].pairs", [7]),  # pair indices below topology.pairs
        ("topology.bottleneck.queue.max_th", 2),  # above min_th
        ("topology.pairs", 3.0),  # a whole float is an integer to JSON Schema
    ],
)
def test_known_gaps_are_gaps(path, value):
    s = copy.deepcopy(RICH)
    ccsim.set_path(s, path, value)
    assert _errors(s) == []
    ok, why = _engine_accepts(s)
    assert not ok, f"{path} = {value!r} is accepted by the engine now: drop it from the list"


# taplo (the TOML toolkit behind Even Better TOML) checks files against the schema as an
# editor does; the two ways docs/user-guide.md gives to attach it are tried as written.
TAPLO = shutil.which("taplo") or (
    str(Path(sys.executable).with_name("taplo"))
    if Path(sys.executable).with_name("taplo").exists()
    else None
)
needs_taplo = pytest.mark.skipif(TAPLO is None, reason="taplo not installed (pip install taplo)")


def _taplo(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [TAPLO, "check", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )


def _bad(text: str) -> str:
    bad, n = re.subn(r'(?m)^duration = ".*"$', 'duration = "10 parsecs"\ncolour = "red"', text, 1)
    assert n == 1
    return bad


@needs_taplo
def test_taplo_checks_scenarios_by_the_schema_directive(tmp_path):
    shutil.copy(SCHEMA_FILE, tmp_path / "scenario.schema.json")
    good = (ROOT / "scenarios" / "dumbbell-newreno.toml").read_text()
    (tmp_path / "good.toml").write_text("#:schema ./scenario.schema.json\n" + good)
    (tmp_path / "bad.toml").write_text("#:schema ./scenario.schema.json\n" + _bad(good))
    ok = _taplo(tmp_path, "good.toml")
    assert ok.returncode == 0, ok.stderr
    bad = _taplo(tmp_path, "bad.toml")
    assert bad.returncode != 0
    assert '"10 parsecs" does not match' in bad.stderr
    assert "'colour' was unexpected" in bad.stderr


@needs_taplo
def test_taplo_checks_every_bundled_scenario_by_a_project_rule(tmp_path):
    """The `.taplo.toml` rule of the user guide, copied from it."""
    guide = (ROOT / "docs" / "user-guide.md").read_text()
    rule = guide.split("with a rule in `.taplo.toml`:\n\n```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / ".taplo.toml").write_text(rule)
    shutil.copy(SCHEMA_FILE, tmp_path / "scenario.schema.json")
    (tmp_path / "scenarios").mkdir()
    for p in BUNDLED:
        shutil.copy(p, tmp_path / "scenarios" / f"{p.parent.parent.name}-{p.name}")
    ok = _taplo(tmp_path)
    assert ok.returncode == 0, ok.stderr
    good = (ROOT / "scenarios" / "dumbbell-newreno.toml").read_text()
    (tmp_path / "scenarios" / "bad.toml").write_text(_bad(good))
    bad = _taplo(tmp_path)
    assert bad.returncode != 0 and "'colour' was unexpected" in bad.stderr
