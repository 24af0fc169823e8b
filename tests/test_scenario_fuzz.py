"""Fuzzing the scenario reader: every input, however hostile, gives a result or a
``ScenarioError`` (a run: results, or a ``SimulationError`` from a guard), never
another exception, a panic or a hang.

Values are drawn from everything Python and TOML can hold (NaN, huge integers, bytes,
dates, NumPy numbers, tuples, non-string keys, deep nesting) and from unit strings at
and past every bound; they replace one key of a rich valid scenario, or form a whole
document or TOML file.
"""

from __future__ import annotations

import copy
import datetime

import ccsim
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
            "queue": {"kind": "droptail", "limit": "0.5bdp"},
        },
        "access": {"rate": "100Mbps", "delay": {"uniform": ["0ms", "2ms"]}},
    },
    "flows": [
        {"pairs": "all", "cc": "reno", "size": "100KB", "start": ["0s", "1ms"]},
        {"pairs": [1], "kind": "cbr", "rate": "1Mbps", "packet_size": "500B"},
    ],
    "components": [{"node": "R1", "kind": "token_gate", "forward": "R1->R2", "buffer": "20000B"}],
    "monitor": {"interval": "10ms", "queues": ["R1->R2"]},
}

WORDS = [
    "1s", "0s", "0.4ns", "1ns", "1e9s", "2e9s", "-1ms", "10Mbps", "10Tbps", "100Tbps",
    "1e30Gbps", "0B", "1500B", "1PB", "3EB", "inf", "0bdp", "1bdp", "1e300bdp", "100pkt",
    "1e13pkt", "all", "dumbbell", "graph", "droptail", "tcp", "cbr", "poisson", "token_gate",
    "R1", "R2", "s0", "d0", "R1->R2", "", "nan", "1e-320s", "\udcff", "é", "0x10",
]  # fmt: skip
LIMIT = "256MB"  # memory budget: large scenarios are refused fast

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=0, max_value=5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    st.text(max_size=8),
    st.binary(max_size=4),
    st.datetimes(min_value=datetime.datetime(1970, 1, 1)),
    st.integers(min_value=-(2**63), max_value=2**63 - 1).map(np.int64),
    st.floats(width=32).map(np.float32),
)
keys = st.one_of(
    st.sampled_from(["rate", "delay", "queue", "limit", "kind", "pairs", "interval"]),
    st.text(max_size=6),
    st.integers(0, 3),
    st.tuples(st.integers(0, 2)),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(keys, inner, max_size=4),
    ),
    max_leaves=12,
)


def _paths(v, prefix=()):
    if isinstance(v, dict):
        for k, x in v.items():
            yield (*prefix, k)
            yield from _paths(x, (*prefix, k))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield (*prefix, i)
            yield from _paths(x, (*prefix, i))


PATHS = list(_paths(RICH))


def _replace(s, path, new):
    cur = s
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = new


def _resolve_or_error(scenario) -> None:
    try:
        out = ccsim.resolve(scenario, memory_limit=LIMIT)
    except ccsim.ScenarioError as e:
        assert str(e) and "\n" not in str(e) and "scenario: scenario:" not in str(e)
    else:
        assert isinstance(out, dict)


FUZZ = settings(
    max_examples=300,
    deadline=None,  # bounded by the engine's guards; the test's own timing is below
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)


@FUZZ
@given(path=st.sampled_from(PATHS), new=values)
def test_any_value_at_any_key_resolves_or_is_a_scenario_error(path, new):
    s = copy.deepcopy(RICH)
    _replace(s, path, new)
    _resolve_or_error(s)


@FUZZ
@given(doc=values)
def test_any_document_resolves_or_is_a_scenario_error(doc):
    try:
        ccsim.resolve(doc, memory_limit=LIMIT)
    except ccsim.ScenarioError:
        pass


@settings(FUZZ, max_examples=100)
@given(text=st.text(max_size=200) | st.sampled_from(WORDS).map(lambda w: f'duration = "{w}"'))
def test_any_toml_file_resolves_or_is_a_scenario_error(tmp_path_factory, text):
    p = tmp_path_factory.mktemp("toml") / "s.toml"
    p.write_bytes(text.encode("utf-8", "surrogateescape"))
    try:
        ccsim.resolve(p, memory_limit=LIMIT)
    except ccsim.ScenarioError:
        pass


@settings(FUZZ, max_examples=60)
@given(path=st.sampled_from([p for p in PATHS if p[0] != "duration"]), new=values)
def test_any_value_runs_or_stops_with_a_clear_error(path, new):
    """Short runs (at most 200 ms simulated) of mutated scenarios."""
    s = copy.deepcopy(RICH)
    _replace(s, path, new)
    try:
        resolved = ccsim.resolve(s, memory_limit=LIMIT)
    except ccsim.ScenarioError:
        return
    if float(resolved["duration"].removesuffix("s")) > 1:
        return
    try:
        r = ccsim.run(s, memory_limit=LIMIT)
    except ccsim.SimulationError as e:
        assert "stopped advancing" in str(e) or "memory budget" in str(e), str(e)
    else:
        assert r.summary["packets_created"] >= r.summary["packets_delivered"]


@pytest.mark.parametrize("value", [float("nan"), 2**64, b"x", datetime.date(2024, 1, 1)])
def test_the_fuzzer_reaches_the_python_layer(value):
    s = copy.deepcopy(RICH)
    s["seed"] = value
    with pytest.raises(ccsim.ScenarioError, match="^seed: got "):
        ccsim.resolve(s)
