"""Scenario input: dicts, TOML files, a small builder, and ``key.path=value`` overrides.

The schema itself lives in the engine (``crates/ccsim-core/src/scenario/``) and is
documented in ``docs/user-guide.md``; this module only turns the accepted input
forms into one dict. Validation errors come back from the engine as
:class:`ccsim.ScenarioError` naming the key path, the bad value and what is
accepted.
"""

from __future__ import annotations

import copy
import json
import math
import numbers
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomllib

from ccsim._ccsim import ScenarioError

__all__ = [
    "MAX_DEPTH",
    "Scenario",
    "get_path",
    "load_scenario",
    "parse_override",
    "queue",
    "scenario_error",
    "set_path",
]

_INDEX = re.compile(r"^(.*?)\[(\d+)\]$")

#: Deepest nesting of tables and lists accepted in a scenario (real ones use 4).
MAX_DEPTH = 32

_SCALARS = "a string, a number, a boolean, a list or a table"


def scenario_error(path: str, value: str, expected: str) -> ScenarioError:
    """A :class:`ScenarioError` shaped like the engine's: ``path: got value, expected ...``.

    ``path``, ``value`` and ``expected`` are also set as attributes.

    >>> str(scenario_error("seed", "2**64", "an integer below 2^64"))
    'seed: got 2**64, expected an integer below 2^64'
    """
    where = path or "scenario"
    msg = f"{where}: got {value}, expected {expected}" if value else f"{where}: {expected}"
    err = ScenarioError(msg)
    err.path, err.value, err.expected = path, value, expected
    return err


def _key(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _plain(v: Any, path: str = "", depth: int = 0) -> Any:
    """A fresh copy of ``v`` made of JSON types only, or a ScenarioError naming the key.

    NumPy scalars become Python numbers and tuples lists; NaN, infinities, integers
    that no key accepts (2^64 and above), non-string keys, other types (bytes, dates)
    and nesting deeper than :data:`MAX_DEPTH` (or a table that contains itself) are
    errors.
    """
    if v is None or isinstance(v, (bool, str)):
        return v
    if depth > MAX_DEPTH:
        return _fail_deep(path)
    if type(v).__module__ == "numpy" and getattr(v, "ndim", None) == 0:
        v = v.item()  # NumPy scalar: its Python value
        if v is None or isinstance(v, (bool, str)):
            return v
    if isinstance(v, numbers.Integral):
        n = int(v)
        if not -(2**63) <= n < 2**64:
            raise scenario_error(path, str(n), "an integer below 2^64 (no key takes a larger one)")
        return n
    if isinstance(v, numbers.Real):
        x = float(v)
        if not math.isfinite(x):
            raise scenario_error(path, repr(x), 'a finite number (write an infinite size as "inf")')
        return x
    if isinstance(v, Mapping):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise scenario_error(
                    _key(path, repr(k)), "", f"a key that is a string, not a {type(k).__name__}"
                )
            out[k] = _plain(x, _key(path, k), depth + 1)
        return out
    if isinstance(v, (list, tuple)):
        return [_plain(x, f"{path}[{i}]", depth + 1) for i, x in enumerate(v)]
    shown = f"{v!r}"
    if len(shown) > 60:
        shown = shown[:57] + "..."
    raise scenario_error(path, f"{shown} (type {type(v).__name__})", _SCALARS)


def _fail_deep(path: str):
    shown = path if len(path) < 80 else path[:40] + "..." + path[-30:]
    raise scenario_error(
        shown,
        "",
        f"tables and lists nested at most {MAX_DEPTH} levels deep (or a table "
        "that contains itself)",
    )


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
    if not isinstance(text, str):
        raise scenario_error("overrides", repr(text), 'a "key.path=value" string')
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
    except RecursionError:
        _fail_deep(key)
    return key, value


def load_scenario(scenario: Any, overrides: list[str] | dict | None = None) -> dict:
    """Turn a scenario given as a dict, a TOML path or a :class:`Scenario` into a dict.

    ``overrides`` are ``key.path=value`` strings or a ``{path: value}`` dict,
    applied in order. The input is never modified. The result holds JSON types only:
    any other value raises :class:`ScenarioError` naming its key path.
    """
    if isinstance(scenario, Scenario):
        d = _plain(scenario._d)
    elif isinstance(scenario, Mapping):
        d = _plain(scenario)
    elif isinstance(scenario, (str, os.PathLike)):
        d = _plain(_read_toml(Path(scenario)))
    else:
        raise ScenarioError(
            f"scenario: got {type(scenario).__name__}, expected a dict, a TOML file path "
            "or a ccsim.Scenario"
        )
    if isinstance(overrides, Mapping):
        for k, v in overrides.items():
            if not isinstance(k, str):
                raise scenario_error("overrides", repr(k), 'keys that are "key.path" strings')
            set_path(d, k, _plain(v, k))
    elif isinstance(overrides, (list, tuple)):
        for i, o in enumerate(overrides):
            if not isinstance(o, str):
                raise scenario_error(f"overrides[{i}]", repr(o)[:60], 'a "key.path=value" string')
            k, v = parse_override(o)
            set_path(d, k, _plain(v, k))
    elif overrides is not None:
        raise scenario_error(
            "overrides",
            f"{overrides!r}"[:60],
            'a list of "key.path=value" strings or a {"key.path": value} dict',
        )
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


def _read_toml(p: Path) -> dict:
    """A scenario file: TOML, or JSON for a name ending in ``.json`` (such as a saved
    run's ``scenario.json``, which runs the same scenario again)."""
    if not p.is_file():
        raise ScenarioError(f"{p}: scenario file not found")
    if p.suffix == ".json":
        try:
            d = json.loads(p.read_bytes())
        except (ValueError, RecursionError) as e:
            raise ScenarioError(f"{p}: not valid JSON ({e})") from None
        except OSError as e:
            raise ScenarioError(f"{p}: cannot read the scenario file ({e.strerror})") from None
        if not isinstance(d, dict):
            raise ScenarioError(f"{p}: a JSON scenario is an object, not {type(d).__name__}")
        return d
    try:
        with p.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{p}: not valid TOML ({e})") from None
    except UnicodeDecodeError as e:
        raise ScenarioError(
            f"{p}: not valid TOML (not UTF-8 text: {e.reason} at byte {e.start})"
        ) from None
    except RecursionError:
        raise ScenarioError(f"{p}: not valid TOML (nested too deeply)") from None
    except OSError as e:
        raise ScenarioError(f"{p}: cannot read the scenario file ({e.strerror})") from None


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

    def workload(self, **workload: Any) -> Scenario:
        """Add an open-loop workload; keys as in ``[[workloads]]``."""
        self._d.setdefault("workloads", []).append(workload)
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
