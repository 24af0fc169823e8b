"""Scenarios on which a Python port of a built-in model must give the built-in module's
results to the last bit (issue 43: the 8-flow bench dumbbell, a leaf-spine with ECMP, a
short-flow workload, one with ECN), and the comparison itself.

``scenario(name, cc=..., queue=...)`` builds one with ``cc`` as every TCP's congestion
control and ``queue`` as the bottleneck's (or every fabric queue's) discipline; each
scenario monitors its flows and queues every 10 ms, so the time series are compared
too. ``assert_identical(a, b)`` compares the flows, queues and every time series table,
without the columns that name the model (``cc``, ``kind``).
"""

from __future__ import annotations

import copy

import ccsim
import pandas as pd
from ccsim.scenarios import path as scenario_path

MONITOR = {"interval": "10ms"}


def _bench8() -> dict:
    sc = ccsim.load_scenario(scenario_path("bench-dumbbell-8"))
    sc["duration"] = "10s"
    return sc


def _leaf_spine() -> dict:
    return {
        "seed": 1,
        "duration": "0.4s",
        "topology": {
            "kind": "leaf_spine",
            "leaves": 2,
            "spines": 4,
            "hosts_per_leaf": 8,
            "host_link": {"rate": "1Gbps", "delay": "10us"},
            "fabric_link": {"rate": "1Gbps", "delay": "10us"},
        },
        "flows": [{"src": f"h0_{k}", "dst": f"h1_{k}"} for k in range(8)],
    }


def _workload() -> dict:
    return {
        "seed": 3,
        "duration": "3s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 20,
            "bottleneck": {"rate": "100Mbps", "delay": "5ms", "queue": {"limit": "1bdp"}},
            "access": {"rate": "1Gbps", "delay": "1ms"},
        },
        "workloads": [
            {
                "name": "web",
                "pairs": "all",
                "arrival_rate": 80,
                "size": {"dist": "pareto", "shape": 1.2, "mean": "50KB"},
                "completions": 200,
                "transport": {"kind": "tcp", "mss": 1460},
            }
        ],
    }


def _ecn() -> dict:
    return {
        "seed": 2,
        "duration": "5s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 4,
            "bottleneck": {
                "rate": "100Mbps",
                "delay": "5ms",
                "queue": {"kind": "red", "ecn": True, "limit": "200pkt"},
            },
            "access": {"rate": "1Gbps", "delay": "0.5ms"},
        },
        "flows": [{"pairs": "all", "ecn": True, "start": {"uniform": ["0s", "0.1s"]}}],
    }


SCENARIOS = {
    "bench8": _bench8,
    "leaf_spine": _leaf_spine,
    "workload": _workload,
    "ecn": _ecn,
}


def scenario(name: str, cc=None, queue=None, **top) -> dict:
    """Scenario ``name`` with congestion control ``cc`` on every TCP (flows and the
    workload's connections) and discipline ``queue`` (a dict without ``limit``: the
    scenario's stays) on the dumbbell's bottleneck or on every fabric link."""
    sc = copy.deepcopy(SCENARIOS[name]())
    sc["monitor"] = dict(MONITOR)
    sc.update(top)
    if cc is not None:
        for f in sc.get("flows", []):
            f["cc"] = cc
        for w in sc.get("workloads", []):
            w["transport"]["cc"] = cc
    if queue is not None:
        t = sc["topology"]
        if t["kind"] == "dumbbell":
            old = t["bottleneck"].get("queue", {})
            t["bottleneck"]["queue"] = {
                **queue,
                **({"limit": old["limit"]} if "limit" in old else {}),
            }
        else:
            for k in ("host_link", "fabric_link"):
                t[k]["queue"] = dict(queue)
    return sc


#: Columns that name the model rather than measure it.
NAMING = ("cc", "kind")


def tables(r) -> dict[str, pd.DataFrame]:
    out = {"flows": r.flows, "queues": r.queues}
    out |= {f"ts_{k}": v for k, v in r.timeseries.items()}
    return {k: v.drop(columns=[c for c in NAMING if c in v.columns]) for k, v in out.items()}


def assert_identical(a, b) -> None:
    """Every table of run ``a`` equals ``b``'s, value for value (floats bit for bit)."""
    ta, tb = tables(a), tables(b)
    assert sorted(ta) == sorted(tb)
    for k in ta:
        pd.testing.assert_frame_equal(ta[k], tb[k], check_exact=True, obj=k)
    assert a.summary.get("events") == b.summary.get("events")
