"""Scenario input: dicts, TOML files, a small builder, and ``key.path=value`` overrides.

The schema itself lives in the engine (``crates/ccsim-core/src/scenario.rs``) and is
documented in ``docs/user-guide.md``; this module only turns the accepted input
forms into one dict. Validation errors come back from the engine as
:class:`ccsim.ScenarioError` naming the key path, the bad value and what is
accepted.
"""

from __future__ import annotations

import copy
import os
import re
from pathlib import Path
from typing import Any

import tomllib

from ccsim._ccsim import ScenarioError

__all__ = ["Scenario", "get_path", "load_scenario", "parse_override", "queue", "set_path"]

_INDEX = re.compile(r"^(.*?)\[(\d+)\]$")


def _split(path: str) -> list[str | int]:
    """Split ``"flows[0].cc"`` or ``"flows.0.cc"`` into ``["flows", 0, "cc"]``."""
    parts: list[str | int] = []
    for raw in path.split("."):
        if raw == "":
            raise ScenarioError(f"{path}: empty component in key path")
        m = _INDEX.match(raw)
        if m:
            if m.group(1):
                parts.append(m.group(1))
            parts.append(int(m.group(2)))
        elif raw.isdigit():
            parts.append(int(raw))
        else:
            parts.append(raw)
    return parts


def get_path(d: dict, path: str, default: Any = None) -> Any:
    """Value at a dotted key path, or ``default`` if absent.

    >>> get_path({"a": {"b": [1, {"c": 2}]}}, "a.b[1].c")
    2
    """
    cur: Any = d
    for p in _split(path):
        try:
            cur = cur[p]
        except (KeyError, IndexError, TypeError):
            return default
    return cur


def set_path(d: dict, path: str, value: Any) -> None:
    """Set a value at a dotted key path, creating intermediate tables.

    List elements are addressed by index (``flows[0].cc`` or ``flows.0.cc``).

    >>> s = {"flows": [{"cc": "reno"}]}
    >>> set_path(s, "flows[0].cc", "newreno"); set_path(s, "topology.pairs", 4)
    >>> s
    {'flows': [{'cc': 'newreno'}], 'topology': {'pairs': 4}}
    """
    parts = _split(path)
    cur: Any = d
    for i, p in enumerate(parts[:-1]):
        nxt = parts[i + 1]
        if isinstance(p, int):
            if not isinstance(cur, list) or p >= len(cur):
                raise ScenarioError(f"{path}: no element {p} here (have {_len(cur)})")
            cur = cur[p]
        else:
            if not isinstance(cur, dict):
                raise ScenarioError(f"{path}: {p!r} is inside a value that is not a table")
            if p not in cur:
                cur[p] = [] if isinstance(nxt, int) else {}
            cur = cur[p]
    last = parts[-1]
    if isinstance(last, int):
        if not isinstance(cur, list) or last >= len(cur):
            raise ScenarioError(f"{path}: no element {last} here (have {_len(cur)})")
        cur[last] = value
    else:
        if not isinstance(cur, dict):
            raise ScenarioError(f"{path}: cannot set a key inside a value that is not a table")
        cur[last] = value


def _len(x: Any) -> str:
    return f"{len(x)} elements" if isinstance(x, list) else "not a list"


def parse_override(text: str) -> tuple[str, Any]:
    """Parse a ``--set key.path=value`` argument.

    The value is read as a TOML value when it is one (numbers, booleans, quoted
    strings, arrays, inline tables), otherwise taken as a bare string, so
    ``duration=200s`` and ``seed=7`` both work.

    >>> parse_override("duration=200s")
    ('duration', '200s')
    >>> parse_override("seed=7")
    ('seed', 7)
    >>> parse_override('topology.access.delay={uniform=["0ms","10ms"]}')
    ('topology.access.delay', {'uniform': ['0ms', '10ms']})
    """
    if "=" not in text:
        raise ScenarioError(f"--set {text}: expected key.path=value")
    key, raw = text.split("=", 1)
    key = key.strip()
    if not key:
        raise ScenarioError(f"--set {text}: empty key")
    raw = raw.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def load_scenario(scenario: Any, overrides: list[str] | dict | None = None) -> dict:
    """Turn a scenario given as a dict, a TOML path or a :class:`Scenario` into a dict.

    ``overrides`` are ``key.path=value`` strings or a ``{path: value}`` dict,
    applied in order. The input is never modified.
    """
    if isinstance(scenario, Scenario):
        d = scenario.to_dict()
    elif isinstance(scenario, dict):
        d = copy.deepcopy(scenario)
    elif isinstance(scenario, (str, os.PathLike)):
        p = Path(scenario)
        if not p.is_file():
            raise ScenarioError(f"{p}: scenario file not found")
        try:
            with p.open("rb") as f:
                d = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(f"{p}: not valid TOML ({e})") from None
    else:
        raise ScenarioError(
            f"scenario: got {type(scenario).__name__}, expected a dict, a TOML file path "
            "or a ccsim.Scenario"
        )
    if isinstance(overrides, dict):
        for k, v in overrides.items():
            set_path(d, k, v)
    elif overrides:
        for o in overrides:
            k, v = parse_override(o)
            set_path(d, k, v)
    return d


def queue(kind: str = "droptail", limit: str | None = None, **params: Any) -> dict:
    """A queue table: ``kind`` plus that discipline's own keys.

    Kinds: ``droptail``, ``red``, ``ared``, ``fq``, ``drr``, ``prio_discard`` (keys in
    ``docs/models/``). The engine checks the keys and reports errors by key path.

    >>> queue("red", limit="100pkt", min_th=5, max_th=15, ecn=True)
    {'kind': 'red', 'limit': '100pkt', 'min_th': 5, 'max_th': 15, 'ecn': True}
    >>> queue("fq", "300KB", drop="head")
    {'kind': 'fq', 'limit': '300KB', 'drop': 'head'}
    """
    if not isinstance(kind, str):
        raise TypeError(f"queue kind must be a string such as 'red', got {kind!r}")
    q: dict[str, Any] = {"kind": kind}
    if limit is not None:
        q["limit"] = limit
    q.update(params)
    return q


# Where Scenario.queue puts a queue table on a dumbbell.
_DUMBBELL_QUEUES = {
    "bottleneck": "topology.bottleneck.queue",
    "reverse": "topology.bottleneck.reverse_queue",
    "access": "topology.access.queue",
    "receiver_access": "topology.receiver_access.queue",
}


class Scenario:
    """A small builder for scenarios; ``to_dict()`` gives the plain form.

    >>> s = (Scenario(duration="5s", seed=3)
    ...      .dumbbell(pairs=2, rate="10Mbps", delay="20ms", buffer="50pkt",
    ...                access_rate="100Mbps", access_delay="1ms")
    ...      .tcp(pairs="all", cc="reno")
    ...      .monitor(interval="10ms"))
    >>> s.to_dict()["topology"]["bottleneck"]["queue"]
    {'kind': 'droptail', 'limit': '50pkt'}
    >>> s.queue("red", limit="50pkt", min_th=5, max_th=15).to_dict()["topology"]["bottleneck"]["queue"]
    {'kind': 'red', 'limit': '50pkt', 'min_th': 5, 'max_th': 15}
    """

    def __init__(self, duration: str, seed: int = 1, **top: Any):
        self._d: dict[str, Any] = {"seed": seed, "duration": duration, "flows": [], **top}

    def dumbbell(
        self,
        pairs: int,
        rate: str,
        delay: str,
        buffer: str = "100pkt",
        access_rate: str = "1Gbps",
        access_delay: Any = "1ms",
        queue: dict | None = None,
        **extra: Any,
    ) -> Scenario:
        """Dumbbell: ``pairs`` sender/receiver pairs around a bottleneck R1->R2."""
        self._d["topology"] = {
            "kind": "dumbbell",
            "pairs": pairs,
            "bottleneck": {
                "rate": rate,
                "delay": delay,
                "queue": queue or {"kind": "droptail", "limit": buffer},
            },
            "access": {"rate": access_rate, "delay": access_delay},
            **extra,
        }
        return self

    def queue(self, kind: str, where: str | int = "bottleneck", **params: Any) -> Scenario:
        """Set the queue discipline of a link (see :func:`queue` for ``kind`` and keys).

        ``where`` is, on a dumbbell, ``"bottleneck"`` (R1->R2), ``"reverse"`` (R2->R1),
        ``"access"`` or ``"receiver_access"``; on a graph, a link's index (its forward
        queue); or any key path such as ``"topology.links[2].reverse_queue"``.
        """
        if isinstance(where, int):
            path = f"topology.links[{where}].queue"
        elif where in _DUMBBELL_QUEUES:
            path = _DUMBBELL_QUEUES[where]
        elif "." in where:
            path = where
        else:
            raise ScenarioError(
                f"where: got {where!r}, expected one of {', '.join(map(repr, _DUMBBELL_QUEUES))}, "
                "a graph link index, or a key path"
            )
        set_path(self._d, path, queue(kind, **params))
        return self

    def graph(self, nodes: list[str], links: list[dict], **extra: Any) -> Scenario:
        """An explicit node/link list (links are duplex unless ``duplex=False``)."""
        self._d["topology"] = {"kind": "graph", "nodes": list(nodes), "links": list(links), **extra}
        return self

    def tcp(self, **flow: Any) -> Scenario:
        """Add TCP flow(s); keys as in ``[[flows]]``."""
        self._d["flows"].append({"kind": "tcp", **flow})
        return self

    def source(self, kind: str, **flow: Any) -> Scenario:
        """Add a datagram source (``kind`` = ``"cbr"`` or ``"poisson"``)."""
        self._d["flows"].append({"kind": kind, **flow})
        return self

    def component(self, node: str, kind: str, **params: Any) -> Scenario:
        """Place a router component on ``node``."""
        self._d.setdefault("components", []).append({"node": node, "kind": kind, **params})
        return self

    def monitor(self, interval: str, **sel: Any) -> Scenario:
        """Sample time series every ``interval``."""
        self._d["monitor"] = {"interval": interval, **sel}
        return self

    def set(self, path: str, value: Any) -> Scenario:
        """Set any key by dotted path."""
        set_path(self._d, path, value)
        return self

    def to_dict(self) -> dict:
        return copy.deepcopy(self._d)
